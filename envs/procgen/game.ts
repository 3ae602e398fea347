// The Procgen engine: `Game` (episode bookkeeping, level seeding, time limit, observation and info) and
// `BasicAbstractGame` (entities, grid, physics, collisions, rendering) of procgen 0.10.7 folded into one base
// class. Every game derives from it and overrides hooks, as the 16 C++ games do.
//
// HOW A GAME PLUGS IN (see games/bigfish.ts for the smallest complete example):
//   export class MyGame extends BasicAbstractGame {
//     constructor(options: GameOptions) {
//       super("mygame", options);               // the name is procgen's env_name
//       this.mainWidth = 20; this.mainHeight = 20; this.timeout = 1000;  // world size (grid cells), episode limit
//     }
//     override backgroundGroup() { return "water_backgrounds"; }           // BACKGROUND_GROUPS key (resources.ts)
//     override assetForType(type: number): string[] { ... }               // image paths per type, in theme order
//     override gameReset() { super.gameReset(); ... }                      // level generation (rand draws in C++ order)
//     override gameStep() { super.gameStep(); ... }                        // per-step logic after the engine part
//     override handleAgentCollision(e: Entity) { ... }                     // rewards / death via this.stepData
//   }
// then one line in games/index.ts: `mygame: MyGame`.
// Draws must go through `this.randGen` in exactly the C++ order (mt19937.ts); entity order matters (append at the
// end, iterate from the end), since it decides collision order, draw order and pushes.
// Hooks mirror the C++ virtuals: chooseWorldDim, setActionXY, updateAgentVelocity, isBlocked, isBlockedEnts,
// willReflect, handleCollision, handleGridCollision, imageForType, themeForGridObj, shouldPreserveTypeThemes,
// shouldDrawEntity, getTileAspectRatio, chooseCenter, gameDraw (drawBackground + drawForeground), drawOverlay.

import {
  EXPLOSION,
  EXPLOSION5,
  Entity,
  INVALID_OBJ,
  PLAYER,
  SPACE,
  TRAIL,
  USE_ASSET_THRESHOLD,
  WALL_OBJ,
} from "./entity.ts";
import { fixedAssetSeed, generateAsset, generateBackground } from "./assetgen.ts";
import { IMAGE_SIZES } from "./image_sizes.ts";
import { Mt19937 } from "./mt19937.ts";
import { Canvas, type ProcgenImage, type Rect, monochromeColor, toShade } from "./render.ts";
import { BACKGROUND_GROUPS, type BackgroundGroup } from "./resources.ts";

export const EASY_MODE = 0;
export const HARD_MODE = 1;
export const EXTREME_MODE = 2;
export const MEMORY_MODE = 10;
export type DistributionMode = typeof EASY_MODE | typeof HARD_MODE | typeof EXTREME_MODE | typeof MEMORY_MODE;

/** Loads a decoded image by its path under procgen's `data/assets/` (assets.ts's `loadImage`, bound to a folder). */
export type ImageLoader = (relPath: string) => ProcgenImage;

/** procgen's game options (`VecOptions` consumed by `Game::parse_options`), with Python's defaults. */
export interface GameOptions {
  distributionMode: DistributionMode;
  useBackgrounds: boolean;
  restrictThemes: boolean;
  useMonochromeAssets: boolean;
  centerAgent: boolean;
  paintVelInfo: boolean;
  useSequentialLevels: boolean;
  /** `use_generated_assets`: sprites and backgrounds drawn by assetgen.ts instead of read from image files. */
  useGeneratedAssets: boolean;
  /**
   * Where images come from. `null` renders with `use_monochrome_assets` semantics (solid rectangles) and black
   * backgrounds, so a game runs without any image file; aspect ratios still come from the known image sizes.
   */
  images: ImageLoader | null;
}

export const DEFAULT_GAME_OPTIONS: GameOptions = {
  distributionMode: HARD_MODE,
  useBackgrounds: true,
  restrictThemes: false,
  useMonochromeAssets: false,
  centerAgent: true,
  paintVelInfo: false,
  useSequentialLevels: false,
  useGeneratedAssets: false,
  images: null,
};

/** Observation side in pixels (procgen's RES_W / RES_H). */
export const RES = 64;
/** Side of the frame `render_mode="rgb_array"` draws (procgen's RENDER_RES). */
export const RENDER_RES = 512;

/** procgen: float 15 * PI / 180 with its float PI. */
const MAXVTHETA = Math.fround(Math.fround(15 * Math.fround(Math.PI)) / 180);
const MIXRATEROT = 0.5;
/** Collision slack: boxes must overlap by more than 0.001 to touch. */
const POS_EPS = -0.001;
/** Grid cells are drawn this much larger on every side to hide seams. */
const RENDER_EPS = Math.fround(0.02);
/** Scratch for the grid cell being drawn: drawing never keeps the rect it is given. */
const CELL_RECT: Rect = { x: 0.5, y: 0.5, w: 0.5, h: 0.5 };
/** Scratch for the entity being drawn. */
const ENTITY_RECT: Rect = { x: 0.5, y: 0.5, w: 0.5, h: 0.5 };
const MARGIN_098 = Math.fround(0.98);

/** Rendered backgrounds (64x64x3 each), oldest evicted first: a few hundred levels' worth, about 3 MB. */
const BACKGROUND_CACHE = new Map<string, Uint8Array>();
const BACKGROUND_CACHE_SIZE = 256;

interface AssetInfo {
  path: string | null;
  aspect: number;
  /** The decoded image, once drawn (saves the loader's lookup on every draw). */
  image?: ProcgenImage;
}

/** What one step produced: `Game::step_data`. */
export interface StepData {
  reward: number;
  done: boolean;
  levelComplete: boolean;
}

export abstract class BasicAbstractGame {
  readonly options: GameOptions;
  // --- Game (game.h) ---
  timeout = 1000;
  curTime = 0;
  action = 4;
  defaultAction = 4;
  stepData: StepData = { reward: 0, done: true, levelComplete: false };
  currentLevelSeed = 0;
  prevLevelSeed = 0;
  levelSeedLow = 0;
  levelSeedHigh = 1;
  /** Picks level seeds (seeded once per env by the vector env). */
  readonly levelSeedRandGen = new Mt19937(0);
  /** Everything inside a level; reseeded with the level seed at every reset. */
  readonly randGen = new Mt19937(0);
  // --- BasicAbstractGame ---
  mainWidth = 0;
  mainHeight = 0;
  grid = new Int32Array(0);
  entities: Entity[] = [];
  agent!: Entity;
  charDim = 5;
  visibility = 16;
  minVisibility = 0;
  mixrate = 0.5;
  maxspeed = 0.5;
  maxJump = 0.5;
  gridStep = false;
  randomAgentStart = true;
  hasUsefulVelInfo = true;
  outOfBoundsObject = INVALID_OBJ;
  bgTileRatio = 0;
  bgPctX = 0;
  backgroundIndex = 0;
  stepRandInt = 0;
  moveAction = 4;
  specialAction = 0;
  lastMoveAction = 7;
  actionVx = 0;
  actionVy = 0;
  actionVrot = 0;
  // Camera (prepare_for_drawing).
  centerX = 0;
  centerY = 0;
  unit = 1;
  viewDim = 1;
  xOff = 0;
  yOff = 0;
  private readonly assetCache = new Map<number, AssetInfo>();
  private readonly themeCounts = new Map<number, number>();
  private readonly backgrounds = new Map<string, ProcgenImage>();
  /** The generated sprites' generator (`asset_rand_gen`), reseeded for each sprite type. */
  private readonly assetRandGen = new Mt19937(0);
  /** This level's generated background (`use_generated_assets`). */
  private generatedBackground: ProcgenImage | null = null;
  private readonly canvas = new Canvas(RES, RES);
  /** The last background drawn, and what it was drawn from (see drawBackground). */
  private readonly lastBackground = new Uint8Array(RES * RES * 3);
  private lastBackgroundImage: ProcgenImage | null = null;
  private readonly lastBackgroundKey = new Float64Array(8);

  constructor(
    readonly name: string,
    options: Partial<GameOptions> = {},
  ) {
    // A copy: games flip options (e.g. center_agent) for themselves, as the C++ does on its own copy.
    this.options = { ...DEFAULT_GAME_OPTIONS, ...options };
    this.maxJump = this.maxspeed;
  }

  // ======================= Game: episode bookkeeping =======================

  /** Level seeds come from [low, high); `seed` seeds the level-seed generator (VecGame gives each env its own). */
  seedLevels(seed: number, low: number, high: number): void {
    this.levelSeedRandGen.seed(seed);
    this.levelSeedLow = low;
    this.levelSeedHigh = high;
  }

  /** `Game::reset`: a new level. The terminal step's reward/done stay in `stepData` for the observation. */
  reset(): void {
    if (this.options.useSequentialLevels && this.stepData.levelComplete) {
      this.currentLevelSeed = (this.currentLevelSeed + 997) | 0;
    } else {
      this.currentLevelSeed = this.levelSeedRandGen.randint(this.levelSeedLow, this.levelSeedHigh);
    }
    this.randGen.seed(this.currentLevelSeed);
    this.gameReset();
    this.curTime = 0;
    this.action = this.defaultAction;
  }

  /** True when the last step ended only because of the time limit (Gymnasium's truncation). */
  timedOut = false;

  /** `Game::step` up to the in-step reset: the action's effect, the time limit, `prev_level_seed`. */
  advance(action: number): void {
    this.curTime += 1;
    this.action = action;
    this.stepData.reward = 0;
    this.stepData.done = false;
    this.stepData.levelComplete = false;
    this.gameStep();
    this.timedOut = !this.stepData.done && this.curTime >= this.timeout;
    this.stepData.done = this.stepData.done || this.timedOut;
    this.prevLevelSeed = this.currentLevelSeed;
  }

  /** `Game::step` minus the observation: one action, then a new level inside the same step if the episode ended. */
  step(action: number): void {
    this.advance(action);
    if (this.stepData.done) this.reset();
    // With sequential levels a completed level rolls straight into the next one without ending the episode.
    if (this.options.useSequentialLevels && this.stepData.levelComplete) this.stepData.done = false;
  }

  /** Renders the current frame (64x64 RGB, row 0 at the top) into `out` at `offset`. */
  observe(out: Uint8Array, offset = 0): void {
    const px = this.canvas.pixels;
    if (px.buffer !== out.buffer || px.byteOffset !== out.byteOffset + offset)
      this.canvas.pixels = out.subarray(offset, offset + RES * RES * 3);
    this.gameDraw(this.canvas);
  }

  /**
   * The frame redrawn at `size` x `size` (RGB, row 0 at the top): what procgen's render_human puts in info["rgb"],
   * through this port's aliased paths (procgen turns on Qt's antialiasing and smooth image transforms there).
   */
  render(size = RENDER_RES): Uint8Array {
    const c = new Canvas(size, size);
    this.gameDraw(c);
    // prepare_for_drawing left the camera at this size; the next observation sets it back.
    this.prepareForDrawing();
    return c.pixels;
  }

  // ======================= Hooks (C++ virtuals) =======================

  /** Image paths for `type`, in theme order (`asset_for_type`). Empty: not drawn from an image. */
  assetForType(_type: number): string[] {
    return [];
  }

  /** Which background group (resources.ts) the level's background is drawn from. */
  backgroundGroup(): BackgroundGroup {
    return "space_backgrounds";
  }

  chooseWorldDim(): void {}
  handleAgentCollision(_obj: Entity): void {}
  handleGridCollision(_obj: Entity, _type: number, _i: number, _j: number): void {}
  handleCollision(_src: Entity, _target: Entity): void {}
  getTileAspectRatio(_ent: Entity): number {
    return 0;
  }
  imageForType(type: number): number {
    return Math.abs(type);
  }
  themeForGridObj(_type: number): number {
    return 0;
  }
  shouldPreserveTypeThemes(_type: number): boolean {
    return false;
  }
  shouldDrawEntity(_ent: Entity): boolean {
    return true;
  }
  isBlocked(_src: Entity, target: number, _isHorizontal: boolean): boolean {
    return target === WALL_OBJ || target === this.outOfBoundsObject;
  }
  isBlockedEnts(src: Entity, target: Entity, isHorizontal: boolean): boolean {
    return this.isBlocked(src, target.type, isHorizontal);
  }
  willReflect(_src: number, _target: number): boolean {
    return false;
  }
  getAgentAccelerationScale(): number {
    return 1;
  }
  setActionXY(moveAct: number): void {
    this.actionVx = Math.trunc(moveAct / 3) - 1;
    this.actionVy = (moveAct % 3) - 1;
    this.actionVrot = 0;
  }
  chooseCenter(): [number, number] {
    return [this.agent.x, this.agent.y];
  }
  updateAgentVelocity(): void {
    // procgen's float members and float arithmetic, one rounding per operation.
    const f = Math.fround;
    const vScale = f(this.getAgentAccelerationScale());
    const mix = f(this.mixrate);
    const accel = f(mix * f(this.maxspeed));
    this.agent.vx = f(1 - mix) * this.agent.vx;
    this.agent.vy = f(1 - mix) * this.agent.vy;
    this.agent.vx = this.agent.vx + f(f(accel * this.actionVx) * vScale);
    this.agent.vy = this.agent.vy + f(f(accel * this.actionVy) * vScale);
    this.decayAgentVelocity();
  }
  decayAgentVelocity(): void {
    this.agent.vx *= 0.9;
    this.agent.vy *= 0.9;
  }

  // ======================= Level reset and step =======================

  /** `BasicAbstractGame::game_reset`: world, background choice, a fresh agent (draws: bg_pct_x, background, x, y). */
  gameReset(): void {
    this.chooseWorldDim();
    if (!(this.mainWidth > 0 && this.mainHeight > 0)) throw new Error(`${this.name}: world size not set`);
    this.bgPctX = this.randGen.rand01();
    this.grid = new Int32Array(this.mainWidth * this.mainHeight);
    this.backgroundIndex = this.randGen.randn(
      this.options.useGeneratedAssets ? 1 : BACKGROUND_GROUPS[this.backgroundGroup()].length,
    );
    // Without background images procgen draws a new background for each level, from the level's generator.
    if (this.options.useGeneratedAssets) this.generatedBackground = generateBackground(this.randGen);
    this.entities = [];
    const f = Math.fround;
    const r = f(0.4);
    let ax = r;
    let ay = r;
    if (this.randomAgentStart) {
      // float arithmetic throughout (rand01, the size and the sum are floats).
      ax = f(f(this.randGen.rand01() * f(this.mainWidth - f(2 * r))) + r);
      ay = f(f(this.randGen.rand01() * f(this.mainHeight - f(2 * r))) + r);
    }
    this.agent = new Entity(ax, ay, 0, 0, r, r, PLAYER);
    this.agent.smartStep = true;
    this.agent.renderZ = 1;
    this.entities.push(this.agent);
    this.grid.fill(SPACE);
  }

  /** `BasicAbstractGame::game_step`: the engine part every game runs first (see the notes' 2.10). */
  gameStep(): void {
    this.stepRandInt = this.randGen.randint(0, 1000000);
    this.moveAction = this.action % 9;
    this.specialAction = 0;
    if (this.action >= 9) {
      this.specialAction = this.action - 8;
      this.moveAction = 4; // stand still while using a special action
    }
    if (this.moveAction !== 4) this.lastMoveAction = this.moveAction;
    this.actionVrot = 0;
    this.actionVx = 0;
    this.actionVy = 0;
    this.setActionXY(this.moveAction);
    if (this.gridStep) {
      this.agent.vx = this.actionVx;
      this.agent.vy = this.actionVy;
    } else {
      this.updateAgentVelocity();
      this.agent.vrot = MIXRATEROT * this.agent.vrot;
      this.agent.vrot = this.agent.vrot + Math.fround(Math.fround(MIXRATEROT * MAXVTHETA) * this.actionVrot);
    }
    this.stepEntities(this.entities);
    const ents = this.entities;
    for (let i = ents.length - 1; i >= 0; i--) {
      const ent = ents[i];
      if (this.hasAgentCollision(ent)) this.handleAgentCollision(ent);
      if (ent.collidesWithEntities) {
        for (let j = ents.length - 1; j >= 0; j--) {
          if (i === j) continue;
          const ent2 = ents[j];
          if (this.hasCollision(ent, ent2, ent.collisionMargin) && !ent.willErase && !ent2.willErase)
            this.handleCollision(ent, ent2);
        }
      }
      if (ent.smartStep) this.checkGridCollisions(ent);
    }
    this.eraseIfNeeded();
    this.stepData.done = this.stepData.done || this.isOutOfBounds(this.agent);
  }

  stepEntities(given: Entity[]): void {
    for (let i = given.length - 1; i >= 0; i--) {
      const ent = given[i];
      if (ent.smartStep) this.basicStepObject(ent);
      ent.step();
    }
  }

  eraseIfNeeded(): void {
    const ents = this.entities;
    for (let i = ents.length - 1; i >= 0; i--) {
      const e = ents[i];
      if (e.willErase || (e.autoErase && this.isOutOfBounds(e))) ents.splice(i, 1);
    }
  }

  // ======================= Grid =======================

  getObj(x: number, y: number): number {
    if (x < 0 || y < 0 || x >= this.mainWidth || y >= this.mainHeight) return this.outOfBoundsObject;
    return this.grid[y * this.mainWidth + x];
  }

  getObjIdx(idx: number): number {
    if (idx < 0 || idx >= this.grid.length) return this.outOfBoundsObject;
    return this.grid[idx];
  }

  getObjFromFloats(i: number, j: number): number {
    // procgen's parameters are float: callers' double expressions are rounded on the way in.
    i = Math.fround(i);
    j = Math.fround(j);
    if (i < 0 || j < 0) return this.outOfBoundsObject;
    return this.getObj(Math.floor(i), Math.floor(j));
  }

  /**
   * The platformers' (CoinRun, Climber, Jumper, Ninja) ground check: is either grid cell just under the agent's
   * bottom corners (0.01 inside its sides, 0.01 below its feet) something it can stand on?
   */
  standsOn(isSupport: (type: number) => boolean): boolean {
    const a = this.agent;
    const below = a.y - (a.ry + 0.01);
    return (
      isSupport(this.getObjFromFloats(a.x - (a.rx - 0.01), below)) ||
      isSupport(this.getObjFromFloats(a.x + (a.rx - 0.01), below))
    );
  }

  /** The sprite faces the way the agent last moved sideways (mirrored when moving left), as most games do after a step. */
  faceMoveDirection(): void {
    if (this.actionVx > 0) this.agent.isReflected = false;
    if (this.actionVx < 0) this.agent.isReflected = true;
  }

  setObj(x: number, y: number, elem: number): void {
    if (x >= 0 && y >= 0 && x < this.mainWidth && y < this.mainHeight) this.grid[y * this.mainWidth + x] = elem;
  }

  setObjIdx(idx: number, elem: number): void {
    this.grid[idx] = elem;
  }

  fillElem(x: number, y: number, dx: number, dy: number, elem: number): void {
    for (let j = 0; j < dx; j++) for (let k = 0; k < dy; k++) this.setObj(x + j, y + k, elem);
  }

  toGridIdx(x: number, y: number): number {
    if (x < 0 || y < 0 || x >= this.mainWidth || y >= this.mainHeight) return -1;
    return y * this.mainWidth + x;
  }

  getCellsWithType(type: number): number[] {
    const cells: number[] = [];
    for (let i = 0; i < this.grid.length; i++) if (this.grid[i] === type) cells.push(i);
    return cells;
  }

  getAgentIndex(): number {
    return Math.trunc(this.agent.y) * this.mainWidth + Math.trunc(this.agent.x);
  }

  checkGridCollisions(ent: Entity): void {
    const minX = Math.trunc(ent.x - (ent.rx + POS_EPS));
    const maxX = Math.trunc(ent.x + (ent.rx + POS_EPS));
    const minY = Math.trunc(ent.y - (ent.ry + POS_EPS));
    const maxY = Math.trunc(ent.y + (ent.ry + POS_EPS));
    for (let x = minX; x <= maxX; x++) {
      for (let y = minY; y <= maxY; y++) {
        const type = this.getObjFromFloats(x, y);
        if (type !== SPACE) this.handleGridCollision(ent, type, x, y);
      }
    }
  }

  // ======================= Collisions and physics =======================

  hasCollision(e1: Entity, e2: Entity, margin: number): boolean {
    const f = Math.fround;
    return (
      Math.abs(f(e1.x - e2.x)) < f(f(e1.rx + e2.rx) + margin) && Math.abs(f(e1.y - e2.y)) < f(f(e1.ry + e2.ry) + margin)
    );
  }

  hasAgentCollision(e: Entity): boolean {
    if (e.type === PLAYER) return false;
    return this.hasCollision(e, this.agent, e.collisionMargin);
  }

  hasAnyCollision(e: Entity, margin = 0): boolean {
    for (let i = this.entities.length - 1; i >= 0; i--) {
      const ent = this.entities[i];
      if (!ent.avoidsCollisions && this.hasCollision(e, ent, margin)) return true;
    }
    return false;
  }

  agentHasCollision(): boolean {
    return this.entities.some((e) => this.hasAgentCollision(e));
  }

  isOutOfBounds(e: Entity): boolean {
    return e.x + e.rx < 0 || e.y + e.ry < 0 || e.x - e.rx > this.mainWidth || e.y - e.ry > this.mainHeight;
  }

  /** Moves a smart_step entity in sub-steps, axis by axis, stopping at walls and pushing/bouncing off entities. */
  basicStepObject(obj: Entity): void {
    if (obj.willErase) return;
    // float arithmetic, as procgen's (each operation rounded to float32).
    const f = Math.fround;
    let n: number;
    if (this.gridStep) {
      n = 1;
    } else {
      n = Math.max(4, Math.trunc(f(4 * f(Math.sqrt(f(f(obj.vx * obj.vx) + f(obj.vy * obj.vy)))))));
    }
    const pct = f(1 / n);
    const cmp = f(Math.abs(obj.vx) - Math.abs(obj.vy));
    // Ties are broken by the step's random int so enemies pick horizontal/vertical forks evenly.
    let xFirst = cmp === 0 ? this.stepRandInt % 2 === 0 : cmp > 0;
    if (obj.type === PLAYER) {
      if (this.actionVx !== 0) xFirst = true;
      if (this.actionVy !== 0) xFirst = false;
    }
    let vxPct = 0;
    let vyPct = 0;
    for (let s = 0; s < n; s++) {
      let blockX: boolean;
      let blockY: boolean;
      if (xFirst) {
        blockX = this.subStep(obj, f(obj.vx * pct), 0, 0);
        blockY = this.subStep(obj, 0, f(obj.vy * pct), 0);
      } else {
        blockY = this.subStep(obj, 0, f(obj.vy * pct), 0);
        blockX = this.subStep(obj, f(obj.vx * pct), 0, 0);
      }
      if (!blockX) vxPct += 1;
      if (!blockY) vyPct += 1;
      if (blockX && blockY) break;
    }
    obj.vx *= f(vxPct / n);
    obj.vy *= f(vyPct / n);
  }

  subStep(obj: Entity, vx: number, vy: number, depth: number): boolean {
    if (obj.willErase) return false;
    const f = Math.fround;
    let ny = f(obj.y + vy);
    let nx = f(obj.x + vx);
    const margin = MARGIN_098;
    const isHorizontal = vx !== 0;
    let block = false;
    let reflect = false;
    for (let i = 0; i < 2; i++) {
      for (let j = 0; j < 2; j++) {
        const type2 = this.getObjFromFloats(
          f(nx + f(f(obj.rx * margin) * (2 * i - 1))),
          f(ny + f(f(obj.ry * margin) * (2 * j - 1))),
        );
        block = block || this.isBlocked(obj, type2, isHorizontal);
        reflect = reflect || this.willReflect(obj.type, type2);
      }
    }
    if (reflect) {
      if (isHorizontal) {
        const delta =
          vx < 0 ? f(Math.ceil(f(nx - obj.rx)) - f(nx - obj.rx)) : f(Math.floor(f(nx + obj.rx)) - f(nx + obj.rx));
        obj.vx = -obj.vx;
        nx = f(nx + f(2 * delta));
      } else {
        const delta =
          vy < 0 ? f(Math.ceil(f(ny - obj.ry)) - f(ny - obj.ry)) : f(Math.floor(f(ny + obj.ry)) - f(ny + obj.ry));
        obj.vy = -obj.vy;
        ny = f(ny + f(2 * delta));
      }
    } else if (block) {
      if (isHorizontal) {
        nx = this.gridStep
          ? obj.x
          : vx > 0
            ? f(Math.floor(f(nx + obj.rx)) - obj.rx)
            : f(Math.ceil(f(nx - obj.rx)) + obj.rx);
      } else {
        ny = this.gridStep
          ? obj.y
          : vy > 0
            ? f(Math.floor(f(ny + obj.ry)) - obj.ry)
            : f(Math.ceil(f(ny - obj.ry)) + obj.ry);
      }
    }
    obj.x = nx;
    obj.y = ny;
    let block2 = false;
    for (let i = this.entities.length - 1; i >= 0; i--) {
      const m = this.entities[i];
      if (m === obj || m.willErase) continue;
      let currBlock = false;
      if (this.hasCollision(obj, m, POS_EPS)) {
        if (this.isBlockedEnts(obj, m, isHorizontal)) {
          currBlock = true;
        } else if (this.willReflect(obj.type, m.type)) {
          if (isHorizontal) {
            const delx = f(m.x - obj.x);
            const rsum = f(m.rx + obj.rx);
            obj.x += vx > 0 ? f(-2 * f(rsum - delx)) : f(2 * f(rsum + delx));
            obj.vx = -obj.vx;
          } else {
            const dely = f(m.y - obj.y);
            const rsum = f(m.ry + obj.ry);
            obj.y += vy > 0 ? f(-2 * f(rsum - dely)) : f(2 * f(rsum + dely));
            obj.vy = -obj.vy;
          }
        }
        if (currBlock) this.pushObj(m, obj, isHorizontal, depth);
      }
      block2 = block2 || currBlock;
    }
    return block || block2;
  }

  /** Moves `target` flush against `src` along one axis (recursively pushing what it hits) and stops it there. */
  pushObj(src: Entity, target: Entity, isHorizontal: boolean, depth: number): boolean {
    const f = Math.fround;
    const rsum = f(isHorizontal ? src.rx + target.rx : src.ry + target.ry);
    let tvx = 0;
    let tvy = 0;
    // procgen's sign() is double, so this sum is double until stored.
    if (isHorizontal) tvx = f(src.x + Math.sign(f(target.x - src.x)) * rsum - target.x);
    else tvy = f(src.y + Math.sign(f(target.y - src.y)) * rsum - target.y);
    let block = false;
    // Rare numerical cases could recurse forever; procgen stops at depth 5.
    if (depth < 5) block = this.subStep(target, tvx, tvy, depth + 1);
    if (isHorizontal) target.vx = 0;
    else target.vy = 0;
    return block;
  }

  // ======================= Spawning =======================

  /** A random coordinate for a radius-r object inside [lo, hi]; the midpoint (no draw) when it barely fits. */
  randPos(r: number, lo: number, hi: number): number {
    // float parameters and float arithmetic, one rounding per operation.
    const f = Math.fround;
    r = f(r);
    lo = f(lo);
    hi = f(hi);
    const range = f(hi - lo);
    if (range <= f(2 * r)) return f(f(hi + lo) / 2);
    return f(f(f(f(range - f(2 * r)) * this.randGen.rand01()) + r) + lo);
  }

  addEntity(x: number, y: number, vx: number, vy: number, r: number, type: number): Entity {
    const ent = new Entity(x, y, vx, vy, r, r, type);
    this.entities.push(ent);
    return ent;
  }

  addEntityRxy(x: number, y: number, vx: number, vy: number, rx: number, ry: number, type: number): Entity {
    const ent = new Entity(x, y, vx, vy, rx, ry, type);
    this.entities.push(ent);
    return ent;
  }

  spawnChild(src: Entity, type: number, r: number, matchVel = false): Entity {
    return this.addEntity(src.x, src.y, matchVel ? src.vx : 0, matchVel ? src.vy : 0, r, type);
  }

  spawnEntityAtIdx(idx: number, r: number, type: number): Entity {
    return this.addEntity((idx % this.mainWidth) + 0.5, Math.trunc(idx / this.mainWidth) + 0.5, 0, 0, r, type);
  }

  /** Random position inside the box (x then y), redrawn up to 100 times while it overlaps the agent or others. */
  reposition(ent: Entity, x: number, y: number, w: number, h: number, checkCollisions = true): void {
    ent.x = this.randPos(ent.rx, x, x + w);
    ent.y = this.randPos(ent.ry, y, y + h);
    let count = 0;
    while ((this.hasAgentCollision(ent) || (checkCollisions && this.hasAnyCollision(ent))) && count < 100) {
      ent.x = this.randPos(ent.rx, x, x + w);
      ent.y = this.randPos(ent.ry, y, y + h);
      count++;
    }
  }

  spawnEntityRxy(
    rx: number,
    ry: number,
    type: number,
    x: number,
    y: number,
    w: number,
    h: number,
    checkCollisions = true,
  ): Entity {
    const ent = new Entity(0, 0, 0, 0, rx, ry, type);
    this.reposition(ent, x, y, w, h, checkCollisions);
    this.entities.push(ent);
    return ent;
  }

  spawnEntity(r: number, type: number, x: number, y: number, w: number, h: number, checkCollisions = true): Entity {
    return this.spawnEntityRxy(r, r, type, x, y, w, h, checkCollisions);
  }

  spawnEntities(count: number, r: number, type: number, x: number, y: number, w: number, h: number): void {
    for (let i = 0; i < count; i++) this.spawnEntity(r, type, x, y, w, h);
  }

  /** Agent uniform over the world (x then y), up to 100 tries while it overlaps any entity. */
  repositionAgent(): void {
    const f = Math.fround;
    let count = 0;
    do {
      // float arithmetic throughout (rand01, the size and the sum are floats).
      this.agent.x = f(f(this.randGen.rand01() * f(this.mainWidth - f(2 * this.agent.rx))) + this.agent.rx);
      this.agent.y = f(f(this.randGen.rand01() * f(this.mainHeight - f(2 * this.agent.ry))) + this.agent.ry);
      count++;
    } while (this.agentHasCollision() && count < 100);
  }

  /** float, as procgen's get_distance: float differences, squares and sum; the square root rounded to float. */
  getDistance(a: Entity, b: Entity): number {
    const f = Math.fround;
    const dx = f(a.x - b.x);
    const dy = f(a.y - b.y);
    return f(Math.sqrt(f(f(dx * dx) + f(dy * dy))));
  }

  /** float, as procgen's get_theta: the double atan2 of the float differences, returned as float. */
  getTheta(src: Entity, target: Entity): number {
    return Math.fround(Math.atan2(Math.fround(target.y - src.y), Math.fround(target.x - src.x)));
  }

  // ======================= Assets and themes =======================

  private imageNames(type: number): string[] {
    const names = this.assetForType(type);
    if (names.length > 0) return names;
    if (type >= EXPLOSION && type <= EXPLOSION5) return [`misc_assets/explosion${type - EXPLOSION + 1}.png`];
    if (type === TRAIL) return ["misc_assets/iconCircle_white.png"];
    return [];
  }

  maskThemeIfNecessary(theme: number, type: number): number {
    return this.options.restrictThemes && !this.shouldPreserveTypeThemes(type) ? 0 : theme;
  }

  /** Image path and aspect ratio of (type, theme), cached (`initialize_asset_if_necessary`). */
  assetInfo(type: number, theme: number): AssetInfo {
    const key = type + theme * USE_ASSET_THRESHOLD;
    let info = this.assetCache.get(key);
    if (info === undefined) {
      const names = this.options.useGeneratedAssets ? [] : this.imageNames(type);
      this.themeCounts.set(type, Math.max(1, names.length));
      if (names.length === 0) {
        // The same image for every theme: the generator is reseeded with the type alone.
        info = {
          path: null,
          aspect: 1,
          image: generateAsset(this.assetRandGen, (fixedAssetSeed(this.name) + type) | 0, this.useBlockAsset(type)),
        };
      } else {
        const path = names[this.maskThemeIfNecessary(theme, type)];
        const size =
          IMAGE_SIZES[path] ??
          (this.options.images ? [this.options.images(path).width, this.options.images(path).height] : [1, 1]);
        info = { path, aspect: Math.fround(size[0] / size[1]) };
      }
      this.assetCache.set(key, info);
    }
    return info;
  }

  /** Whether a generated sprite of this type is a block covering the whole image (`use_block_asset`). */
  useBlockAsset(_type: number): boolean {
    return false;
  }

  numThemes(type: number): number {
    this.assetInfo(type, 0);
    return this.themeCounts.get(type)!;
  }

  chooseRandomTheme(ent: Entity): void {
    ent.imageTheme = this.randGen.randn(this.numThemes(ent.imageType));
  }

  chooseStepRandomTheme(ent: Entity): void {
    ent.imageTheme = this.stepRandInt % this.numThemes(ent.imageType);
  }

  matchAspectRatio(ent: Entity, matchWidth = true): void {
    // A float ratio (asset_aspect_ratios) and a float quotient or product.
    const ar = this.assetInfo(ent.imageType, ent.imageTheme).aspect;
    if (matchWidth) ent.ry = Math.fround(ent.rx / ar);
    else ent.rx = Math.fround(ent.ry * ar);
  }

  fitAspectRatio(ent: Entity): void {
    const ar = this.assetInfo(ent.imageType, ent.imageTheme).aspect;
    if (ar > 1) ent.ry = Math.fround(ent.rx / ar);
    else ent.rx = Math.fround(ent.ry * ar);
  }

  // ======================= Rendering =======================

  /**
   * `prepare_for_drawing`: the camera. Full-world view unless `center_agent`. The camera fields and screen rects are
   * float32 computed step by step as procgen's `float` members are: Qt's pixel rounding sees those exact values.
   */
  prepareForDrawing(rectHeight = RES): void {
    const f = Math.fround;
    this.centerX = f(this.mainWidth * 0.5);
    this.centerY = f(this.mainHeight * 0.5);
    if (this.options.centerAgent) {
      const [cx, cy] = this.chooseCenter();
      this.centerX = f(cx);
      this.centerY = f(cy);
    } else {
      this.visibility = Math.max(this.mainWidth, this.mainHeight, this.minVisibility);
    }
    const rawUnit = f(RES / f(this.visibility));
    this.unit = f(rawUnit * (rectHeight / RES));
    this.viewDim = f(RES / rawUnit);
    this.xOff = f(this.unit * f(this.centerX - f(this.viewDim / 2)));
    this.yOff = f(this.unit * f(this.centerY - f(this.viewDim / 2)));
  }

  /** World box (top-left corner x, y with y up; size dx, dy) to pixels, written to `out` when given. */
  getScreenRect(x: number, y: number, dx: number, dy: number, eps = 0, out?: Rect): Rect {
    const f = Math.fround;
    const u = this.unit;
    const px = f(f(f(x - eps) * u) - this.xOff);
    const py = f(f(f(f(this.viewDim - y) - eps) * u) + this.yOff);
    const pw = f(f(dx + f(2 * eps)) * u);
    const ph = f(f(dy + f(2 * eps)) * u);
    if (out === undefined) return { x: px, y: py, w: pw, h: ph };
    out.x = px;
    out.y = py;
    out.w = pw;
    out.h = ph;
    return out;
  }

  /** The entity's box in pixels, written to `out` when given (games that adjust it may return a new rect). */
  getObjectRect(obj: Entity, out?: Rect): Rect {
    const f = Math.fround;
    const x = f(obj.x);
    const y = f(obj.y);
    const rx = f(obj.rx);
    const ry = f(obj.ry);
    if (obj.useAbsCoords) {
      const v = this.viewDim;
      const u = this.unit;
      const r = out ?? { x: 0, y: 0, w: 0, h: 0 };
      r.x = f(f(v * f(x - rx)) * u);
      r.y = f(f(v * f(y + ry)) * u);
      r.w = f(f(f(2 * v) * rx) * u);
      r.h = f(f(f(2 * v) * ry) * u);
      return r;
    }
    return this.getScreenRect(f(x - rx), f(y + ry), f(2 * rx), f(2 * ry), 0, out);
  }

  /** The background image of this level, or null when drawing it is impossible (no image files). */
  backgroundImage(): ProcgenImage | null {
    if (this.options.useGeneratedAssets) return this.generatedBackground;
    if (this.options.images === null) return null;
    const path = BACKGROUND_GROUPS[this.backgroundGroup()][this.backgroundIndex];
    let img = this.backgrounds.get(path);
    if (img === undefined) {
      img = this.options.images(path);
      this.backgrounds.set(path, img);
    }
    return img;
  }

  drawImage(
    c: Canvas,
    rect: Rect,
    rotation: number,
    reflected: boolean,
    baseType: number,
    theme: number,
    alpha: number,
    tileRatio: number,
  ): void {
    const imgType = this.imageForType(baseType);
    if (imgType < 0) return;
    const info = imgType < USE_ASSET_THRESHOLD ? this.assetInfo(imgType, theme) : null;
    if (
      this.options.useMonochromeAssets ||
      info === null ||
      (info.image === undefined && (this.options.images === null || info.path === null))
    ) {
      this.drawGridObj(c, rect, imgType, theme);
      return;
    }
    const img = (info.image ??= this.options.images!(info.path!));
    if (rotation === 0) c.tileImage(img, rect, tileRatio, false, reflected, alpha);
    else c.drawImage(img, rect, rotation, reflected, alpha);
  }

  drawGridObj(c: Canvas, rect: Rect, type: number, theme: number): void {
    if (type === SPACE) return;
    const [r, g, b] = monochromeColor(type, this.maskThemeIfNecessary(theme, type));
    c.fillRect(rect, r, g, b);
  }

  drawEntities(c: Canvas, renderZ: number): void {
    for (const m of this.entities) {
      if (m.renderZ === renderZ && this.shouldDrawEntity(m)) {
        this.drawImage(
          c,
          this.getObjectRect(m, ENTITY_RECT),
          m.rotation,
          m.isReflected,
          m.imageType,
          m.imageTheme,
          m.alpha,
          this.getTileAspectRatio(m),
        );
      }
    }
  }

  /** `draw_background`: black, then the level's image scaled to the world's height, offset by bg_pct_x. */
  drawBackground(c: Canvas): void {
    c.clear();
    this.prepareForDrawing(c.height);
    if (!this.options.useBackgrounds) return;
    const img = this.backgroundImage();
    if (img === null) return;
    const main = this.getScreenRect(0, this.mainHeight, this.mainWidth, this.mainHeight);
    // Where the camera did not move (a fixed camera, or a centred one whose agent stands still) the background is
    // the last frame's: each game keeps it, with what it was drawn from (observations only; the 512x512 view redraws).
    const last = this.lastBackgroundKey;
    if (c.pixels.length !== this.lastBackground.length) {
      this.paintOrReuseBackground(c, img, main);
      return;
    }
    if (
      img === this.lastBackgroundImage &&
      last[0] === main.x &&
      last[1] === main.y &&
      last[2] === main.w &&
      last[3] === main.h &&
      last[4] === this.bgTileRatio &&
      last[5] === this.bgPctX &&
      last[6] === this.mainWidth &&
      last[7] === this.mainHeight
    ) {
      c.pixels.set(this.lastBackground);
      return;
    }
    this.paintOrReuseBackground(c, img, main);
    this.lastBackground.set(c.pixels);
    this.lastBackgroundImage = img;
    last[0] = main.x;
    last[1] = main.y;
    last[2] = main.w;
    last[3] = main.h;
    last[4] = this.bgTileRatio;
    last[5] = this.bgPctX;
    last[6] = this.mainWidth;
    last[7] = this.mainHeight;
  }

  private paintOrReuseBackground(c: Canvas, img: ProcgenImage, main: Rect): void {
    if (this.options.centerAgent || this.options.useGeneratedAssets) {
      // The camera moves with the agent (a background seldom comes back) or the background is the level's own
      // (generated): nothing to share.
      this.paintBackground(c, img, main);
      return;
    }
    // With a fixed camera the background of a level is the same every frame: sampling a large image at 4096
    // scattered pixels costs cache misses, so finished backgrounds are kept across games and levels (keyed by image
    // and placement).
    const key = `${this.backgroundGroup()}/${this.backgroundIndex}|${this.bgTileRatio}|${this.bgPctX}|${main.x}|${main.y}|${main.w}|${main.h}`;
    const cached = BACKGROUND_CACHE.get(key);
    if (cached !== undefined) {
      c.pixels.set(cached);
      return;
    }
    this.paintBackground(c, img, main);
    if (BACKGROUND_CACHE.size >= BACKGROUND_CACHE_SIZE) BACKGROUND_CACHE.delete(BACKGROUND_CACHE.keys().next().value!);
    BACKGROUND_CACHE.set(key, c.pixels.slice());
  }

  /** The background image over the world rect `main`: tiled vertically, or scaled to its height and offset. */
  private paintBackground(c: Canvas, img: ProcgenImage, main: Rect): void {
    if (this.bgTileRatio < 0) {
      c.tileImage(img, main, this.bgTileRatio, true);
    } else {
      const f = Math.fround;
      const bgAr = f(img.width / img.height);
      const worldAr = f(this.mainWidth / this.mainHeight);
      const offsetX = f(f(this.bgPctX) * f(bgAr - worldAr));
      // adjust_rect(main, (-offset_x, 0, bg_ar / world_ar, 1)): fractions of the main rect.
      c.drawImage(
        img,
        { x: main.x + main.w * -offsetX, y: main.y, w: main.w * f(bgAr / worldAr), h: main.h },
        0,
        false,
        1,
        true,
      );
    }
  }

  /** `draw_foreground`: entities below the grid, the visible grid cells, entities, the agent, vel-info squares. */
  drawForeground(c: Canvas): void {
    this.prepareForDrawing(c.height);
    this.drawEntities(c, -1);
    let lowX: number, highX: number, lowY: number, highY: number;
    if (this.options.centerAgent) {
      const margin = this.visibility / 2 + 1;
      lowX = Math.trunc(this.centerX - margin);
      highX = Math.trunc(this.centerX + margin);
      lowY = Math.trunc(this.centerY - margin);
      highY = Math.trunc(this.centerY + margin);
    } else {
      lowX = 0;
      highX = this.mainWidth - 1;
      lowY = 0;
      highY = this.mainHeight - 1;
    }
    // Empty cells draw nothing (unless a game gives SPACE an image): skipped before any work.
    const spaceIsEmpty = this.imageForType(SPACE) === SPACE;
    for (let x = lowX; x <= highX; x++) {
      for (let y = lowY; y <= highY; y++) {
        const type = this.getObj(x, y);
        if (type === INVALID_OBJ || (type === SPACE && spaceIsEmpty)) continue;
        this.drawImage(
          c,
          this.getScreenRect(x, y + 1, 1, 1, RENDER_EPS, CELL_RECT),
          0,
          false,
          type,
          this.themeForGridObj(type),
          1,
          0,
        );
      }
    }
    this.drawEntities(c, 0);
    this.drawEntities(c, 1);
    if (this.hasUsefulVelInfo && this.options.paintVelInfo) {
      const infodim = RES * 0.2;
      const s1 = toShade((0.5 * this.agent.vx) / this.maxspeed + 0.5);
      const s2 = toShade((0.5 * this.agent.vy) / this.maxJump + 0.5);
      c.fillRect({ x: 0, y: 0, w: infodim, h: infodim }, s1, s1, s1);
      c.fillRect({ x: infodim, y: 0, w: infodim, h: infodim }, s2, s2, s2);
    }
    this.drawOverlay(c);
  }

  /** Game-specific drawing after everything else (jumper's compass, ninja's charge bar, plunder's bars). */
  drawOverlay(_c: Canvas): void {}

  /** `game_draw`: the whole frame. StarPilot overrides it for its scrolling background. */
  gameDraw(c: Canvas): void {
    this.drawBackground(c);
    this.drawForeground(c);
  }
}
