// Jumper (procgen `games/jumper.cpp`): a bunny in an open cave (a cellular automaton seeded from a coarse maze)
// with a double jump (speed 1, 3-step cooldown, gravity 0.15) looks for the carrot: +10 and the end. Spikes on
// flat ground (20% of eligible cells, none in memory mode) are lethal. A compass (top right) points at the carrot
// with a bar for its distance. World 20 / 40 / 45 (easy / hard / memory), camera on the agent with visibility
// 12 (easy) / 16; memory mode has no compass and a 2000-step limit. Known (procgen too): ~7% of levels end after
// one step.

import { type Entity, PLAYER, SPACE, TRAIL, WALL_OBJ } from "../entity.ts";
import { BasicAbstractGame, EASY_MODE, type GameOptions, HARD_MODE, MEMORY_MODE } from "../game.ts";
import { MazeGen } from "../mazegen.ts";
import type { Canvas } from "../render.ts";
import type { BackgroundGroup } from "../resources.ts";
import { RoomGenerator } from "../roomgen.ts";
import { type Color, drawEllipse, drawLine } from "../shapes.ts";

const GOAL_REWARD = 10;
const GOAL = 1;
const SPIKE = 2;
const CAVEWALL = 6;
const CAVEWALL_TOP = 7;
const PLAYER_JUMP = 9;
const PLAYER_LEFT1 = 10;
const PLAYER_LEFT2 = 11;
const PLAYER_RIGHT1 = 12;
const PLAYER_RIGHT2 = 13;
const MAZE_SCALE = 3;
const JUMP_COOLDOWN = 3;
const NUM_WALL_THEMES = 4;
const f = Math.fround;
const CLOCK: Color = { r: 168, g: 166, b: 158, a: 255 };
const HIGHLIGHT: Color = { r: 252, g: 186, b: 3, a: 255 };
const SHADOW: Color = { r: 255, g: 255, b: 255, a: 120 };

const isWall = (type: number) => type === CAVEWALL || type === CAVEWALL_TOP;

export class Jumper extends BasicAbstractGame {
  goal: Entity | null = null;
  jumpCount = 0;
  jumpDelta = 0;
  jumpTime = 0;
  hasSupport = false;
  facingRight = true;
  wallTheme = 0;
  compassDim = 0;
  private readonly rooms = new RoomGenerator(this);

  constructor(options: Partial<GameOptions> = {}) {
    super("jumper", options);
  }

  override useBlockAsset(type: number): boolean {
    return isWall(type);
  }

  override backgroundGroup(): BackgroundGroup {
    return "platform_backgrounds";
  }

  override assetForType(type: number): string[] {
    const m = (n: string) => [`misc_assets/${n}.png`];
    if (type === PLAYER) return m("bunny2_ready");
    if (type === SPIKE) return m("spikeMan_stand");
    if (type === GOAL) return m("carrot");
    if (type === PLAYER_JUMP) return m("bunny2_jump");
    if (type === PLAYER_RIGHT1 || type === PLAYER_LEFT1) return m("bunny2_walk1");
    if (type === PLAYER_RIGHT2 || type === PLAYER_LEFT2) return m("bunny2_walk2");
    if (type === CAVEWALL_TOP)
      return ["tileBlue_05", "tileGreen_05", "tileYellow_06", "tileBrown_06"].map((n) => `platformer/${n}.png`);
    if (type === CAVEWALL)
      return ["tileBlue_08", "tileGreen_08", "tileYellow_09", "tileBrown_09"].map((n) => `platformer/${n}.png`);
    return [];
  }

  override handleAgentCollision(obj: Entity): void {
    if (obj.type === GOAL) {
      this.stepData.reward += GOAL_REWARD;
      this.stepData.levelComplete = true;
      this.stepData.done = true;
    } else if (obj.type === SPIKE) {
      this.stepData.done = true;
    }
  }

  /** Horizontal mixing as usual; a jump sets vy to 1. (Gravity comes after the step, in gameStep.) */
  override updateAgentVelocity(): void {
    const s = this.getAgentAccelerationScale();
    this.agent.vx = (1 - this.mixrate) * this.agent.vx + this.mixrate * this.maxspeed * this.actionVx * s;
    if (this.actionVy !== 0) this.agent.vy = this.maxspeed * this.actionVy * 2;
  }

  override themeForGridObj(type: number): number {
    return isWall(type) ? this.wallTheme : 0;
  }

  override isBlocked(src: Entity, target: number, isHorizontal: boolean): boolean {
    return super.isBlocked(src, target, isHorizontal) || (src.type === PLAYER && isWall(target));
  }

  override imageForType(type: number): number {
    if (type === PLAYER) {
      if (Math.abs(this.agent.vx) < 0.01 && this.actionVx === 0 && this.hasSupport) return PLAYER;
      const second = !(Math.trunc(this.curTime / 5) % 2 === 0 || !this.hasSupport);
      if (this.facingRight) return second ? PLAYER_RIGHT2 : PLAYER_RIGHT1;
      return second ? PLAYER_LEFT2 : PLAYER_LEFT1;
    }
    return Math.abs(type);
  }

  /**
   * The compass (jumper.cpp's draw_compass): a grey disc with a needle towards the carrot, a distance bar below, and a
   * shadow under a jumping bunny. Qt draws the disc with a 1-pixel pen and the needle with a 0-width pen (the
   * thickness, 0.75 or 0.5, is passed as an int); the needle's ends and the shadow's rect are truncated to ints.
   */
  override drawOverlay(c: Canvas): void {
    if (this.options.distributionMode === MEMORY_MODE || this.goal === null) return;
    const u = this.unit;
    const d = this.compassDim;
    const rect = { x: f(f(f(this.viewDim - d) - 0.25) * u), y: f(f(0.25) * u), w: f(d * u), h: f(d * u) };
    drawEllipse(c, rect, CLOCK, CLOCK);
    const cx = f(rect.x + rect.w / 2);
    const cy = f(rect.y + rect.h / 2);
    const cr = f((rect.w / 2) * 0.95);
    const theta = this.getTheta(this.agent, this.goal);
    // cos and sin of the float theta are the double functions (jumper.cpp has no float overloads in scope).
    drawLine(
      c,
      Math.trunc(cx),
      Math.trunc(cy),
      Math.trunc(cx + cr * Math.cos(theta)),
      Math.trunc(cy - cr * Math.sin(theta)),
      HIGHLIGHT,
    );
    const distPct = f(this.getDistance(this.agent, this.goal) / (this.mainWidth * Math.SQRT2));
    c.fillRect(
      { x: rect.x, y: f(f(0.25 + d) * u), w: f(f(d * distPct) * u), h: f(f(d / 8) * u) },
      HIGHLIGHT.r,
      HIGHLIGHT.g,
      HIGHLIGHT.b,
    );
    if (this.jumpDelta < 0 && !this.hasSupport) {
      const r = this.getObjectRect(this.agent);
      const shadow = {
        x: Math.trunc(r.x),
        y: Math.trunc(r.y + r.h * (5 / 6)),
        w: Math.trunc(r.w),
        h: Math.trunc(r.h / 3),
      };
      drawEllipse(c, shadow, SHADOW, null);
    }
  }

  private isSpaceOnGround(x: number, y: number): boolean {
    if (this.getObj(x, y) !== SPACE || this.getObj(x, y + 1) !== SPACE) return false;
    const below = this.getObj(x, y - 1);
    return below === CAVEWALL || below === this.outOfBoundsObject;
  }

  private isTopWall(x: number, y: number): boolean {
    return this.getObj(x, y) === CAVEWALL && this.getObj(x, y + 1) === SPACE;
  }

  private isLeftWall(x: number, y: number): boolean {
    return this.getObj(x, y) === CAVEWALL && this.getObj(x + 1, y) === SPACE;
  }

  private isRightWall(x: number, y: number): boolean {
    return this.getObj(x, y) === CAVEWALL && this.getObj(x - 1, y) === SPACE;
  }

  override chooseWorldDim(): void {
    const mode = this.options.distributionMode;
    const dim = mode === EASY_MODE ? 20 : mode === HARD_MODE ? 40 : mode === MEMORY_MODE ? 45 : 20;
    this.mainWidth = dim;
    this.mainHeight = dim;
  }

  override gameReset(): void {
    const mode = this.options.distributionMode;
    this.visibility = mode === EASY_MODE ? 12 : 16;
    this.compassDim = mode === EASY_MODE ? 3 : 2;
    if (mode === MEMORY_MODE) this.timeout = 2000;
    super.gameReset();
    const W = this.mainWidth;
    const H = this.mainHeight;
    const g = this.grid;
    this.outOfBoundsObject = WALL_OBJ;
    this.wallTheme = this.randGen.randn(NUM_WALL_THEMES);
    this.jumpCount = 0;
    this.jumpDelta = 0;
    this.jumpTime = 0;
    this.hasSupport = false;
    this.facingRight = true;
    // A coarse maze (one maze cell per 3x3 block) biases the noise: 80% wall inside maze walls, 20% elsewhere.
    const maze = new MazeGen(this.randGen, Math.trunc(W / MAZE_SCALE));
    maze.generateMazeNoDeadEnds();
    for (let i = 0; i < g.length; i++) {
      const obj = maze.get(Math.trunc((i % W) / MAZE_SCALE) + 1, Math.trunc(Math.trunc(i / W) / MAZE_SCALE) + 1);
      const prob = obj === WALL_OBJ ? 0.8 : 0.2;
      g[i] = this.randGen.rand01() < prob ? WALL_OBJ : SPACE;
    }
    for (let it = 0; it < 2; it++) this.rooms.update();
    // Border cells help solvability and the drawing of the bottom floor.
    for (let i = 0; i < W; i++) {
      this.setObj(i, 0, CAVEWALL);
      this.setObj(i, H - 1, CAVEWALL);
    }
    for (let i = 0; i < H; i++) {
      this.setObj(0, i, CAVEWALL);
      this.setObj(W - 1, i, CAVEWALL);
    }
    const best = this.rooms.findBestRoom();
    if (best.length === 0) throw new Error("jumper: empty cave");
    g.fill(CAVEWALL);
    for (const i of best) g[i] = SPACE;
    const goalCell = this.randGen.chooseOne(best);
    const candidates: number[] = [];
    for (let i = 0; i < g.length; i++) if (this.isSpaceOnGround(i % W, Math.trunc(i / W))) candidates.push(i);
    const agentCell = this.randGen.chooseOne(candidates);
    const path = this.rooms.findPath(agentCell, goalCell);
    if (mode !== MEMORY_MODE) {
      const wide = new Set(path);
      this.rooms.expandRoom(wide, 4);
      g.fill(CAVEWALL);
      for (const i of wide) g[i] = SPACE;
    }
    this.goal = this.spawnEntityAtIdx(goalCell, 0.5, GOAL);
    const spikeProb = mode === MEMORY_MODE ? 0 : 0.2;
    for (let i = 0; i < g.length; i++) {
      const x = i % W;
      const y = Math.trunc(i / W);
      if (this.isSpaceOnGround(x, y) && this.isSpaceOnGround(x - 1, y) && this.isSpaceOnGround(x + 1, y)) {
        if (this.randGen.rand01() < spikeProb) this.setObj(x, y, SPIKE);
      }
    }
    // No long vertical walls (three cells): one cell of each is opened, for solvability.
    for (let i = 0; i < g.length; i++) {
      const x = i % W;
      const y = Math.trunc(i / W);
      if (this.isLeftWall(x, y) && this.isLeftWall(x, y + 1) && this.isLeftWall(x, y + 2))
        this.setObj(x, y + this.randGen.randn(3), SPACE);
      if (this.isRightWall(x, y) && this.isRightWall(x, y + 1) && this.isRightWall(x, y + 2))
        this.setObj(x, y + this.randGen.randn(3), SPACE);
    }
    this.agent.x = (agentCell % W) + 0.5;
    this.agent.y = Math.trunc(agentCell / W) + this.agent.ry;
    for (const cell of this.getCellsWithType(SPIKE)) {
      this.setObjIdx(cell, SPACE);
      const ry = f(0.4);
      this.addEntityRxy((cell % W) + 0.5, Math.trunc(cell / W) + ry, 0, 0, f(0.23), ry, SPIKE);
    }
    for (let i = 0; i < g.length; i++) if (this.isTopWall(i % W, Math.trunc(i / W))) g[i] = CAVEWALL_TOP;
    this.agent.rx = f(0.254);
    this.agent.ry = f(0.4);
    this.outOfBoundsObject = CAVEWALL;
  }

  /** Cells the agent can stand on (made once: a closure per step is garbage). */
  private readonly isSupport = (o: number) => isWall(o) || o === this.outOfBoundsObject;

  /** Left/right; up jumps from support, or once more in the air (double jump), 3 steps apart at least. */
  override setActionXY(moveAct: number): void {
    this.actionVx = Math.trunc(moveAct / 3) - 1;
    this.actionVy = Math.max(0, (moveAct % 3) - 1);
    if (this.actionVx > 0) this.facingRight = true;
    if (this.actionVx < 0) this.facingRight = false;
    this.jumpDelta = 0;
    this.hasSupport = this.standsOn(this.isSupport);
    if (this.hasSupport) this.jumpCount = 2;
    if (this.actionVy === 1 && this.jumpCount > 0 && this.curTime - this.jumpTime > JUMP_COOLDOWN) {
      this.jumpCount -= 1;
      this.jumpDelta = -1;
    } else {
      this.actionVy = 0;
    }
    if (this.actionVy > 0) this.jumpTime = this.curTime;
    this.actionVrot = 0;
  }

  override gameStep(): void {
    super.gameStep();
    this.faceMoveDirection();
    if (Math.abs(this.agent.vx) + Math.abs(this.agent.vy) > 0.05) {
      const trail = this.addEntityRxy(
        this.agent.x,
        this.agent.y - this.agent.ry * 0.5,
        0,
        f(0.01),
        f(0.3),
        f(0.2),
        TRAIL,
      );
      trail.expireTime = 8;
      trail.alpha = 0.5;
    }
    if (this.agent.vy > -2) this.agent.vy -= f(0.15);
  }
}
