// Heist (procgen `games/heist.cpp`): walk a Kruskal maze, pick up keys to open the locks of their colour, touch the
// gem: reward 10 and the end. Up to three keys/locks; keys held are shown on a ring at the top right.

import { AGENT_OBJ, DOOR_OBJ, type Entity, EXIT_OBJ, KEY_OBJ, PLAYER, SPACE, WALL_OBJ } from "../entity.ts";
import { BasicAbstractGame, EASY_MODE, type GameOptions, HARD_MODE, MEMORY_MODE } from "../game.ts";
import { MAZE_OFFSET, MazeGen } from "../mazegen.ts";
import type { BackgroundGroup } from "../resources.ts";

const COMPLETION_BONUS = 10;
const LOCKED_DOOR = 1;
const KEY = 2;
const EXIT = 9;
const KEY_ON_RING = 11;
const MIN_MAZE_DIM = 5;

export class Heist extends BasicAbstractGame {
  worldDim = 0;
  numKeys = 0;
  hasKeys: boolean[] = [];

  constructor(options: Partial<GameOptions> = {}) {
    super("heist", options);
    this.hasUsefulVelInfo = false;
    this.mainWidth = 20;
    this.mainHeight = 20;
    this.outOfBoundsObject = WALL_OBJ;
    this.visibility = 8;
  }

  override useBlockAsset(type: number): boolean {
    return type === WALL_OBJ || type === LOCKED_DOOR;
  }

  override backgroundGroup(): BackgroundGroup {
    return "topdown_backgrounds";
  }

  // Key and lock colours mean something (a key opens its colour), so restrict_themes keeps them.
  override shouldPreserveTypeThemes(type: number): boolean {
    return type === KEY || type === LOCKED_DOOR;
  }

  override assetForType(type: number): string[] {
    if (type === WALL_OBJ) return ["kenney/Ground/Dirt/dirtCenter.png"];
    if (type === EXIT) return ["misc_assets/gemYellow.png"];
    if (type === PLAYER) return ["misc_assets/spaceAstronauts_008.png"];
    if (type === KEY) return ["misc_assets/keyBlue.png", "misc_assets/keyGreen.png", "misc_assets/keyRed.png"];
    if (type === LOCKED_DOOR)
      return ["misc_assets/lock_blue.png", "misc_assets/lock_green.png", "misc_assets/lock_red.png"];
    return [];
  }

  override isBlockedEnts(src: Entity, target: Entity, isHorizontal: boolean): boolean {
    if (target.type === LOCKED_DOOR) return !this.hasKeys[target.imageTheme];
    return super.isBlockedEnts(src, target, isHorizontal);
  }

  override shouldDrawEntity(ent: Entity): boolean {
    if (ent.type === KEY_ON_RING) return this.hasKeys[ent.imageTheme];
    return true;
  }

  override handleAgentCollision(obj: Entity): void {
    if (obj.type === EXIT) {
      this.stepData.done = true;
      this.stepData.reward = COMPLETION_BONUS; // set, not added
      this.stepData.levelComplete = true;
    } else if (obj.type === KEY) {
      obj.willErase = true;
      this.hasKeys[obj.imageTheme] = true;
    } else if (obj.type === LOCKED_DOOR) {
      if (this.hasKeys[obj.imageTheme]) obj.willErase = true;
    }
  }

  override chooseWorldDim(): void {
    const mode = this.options.distributionMode;
    if (mode === EASY_MODE) this.worldDim = 9;
    else if (mode === HARD_MODE) this.worldDim = 13;
    else if (mode === MEMORY_MODE) this.worldDim = 23;
    this.maxspeed = 0.75;
    this.mainWidth = this.worldDim;
    this.mainHeight = this.worldDim;
  }

  override gameReset(): void {
    super.gameReset();
    const maxDiff = (this.worldDim - MIN_MAZE_DIM) >> 1;
    const difficulty = this.randGen.randn(maxDiff + 1);
    const memory = this.options.distributionMode === MEMORY_MODE;
    this.options.centerAgent = memory;
    this.numKeys = memory ? this.randGen.randn(4) : difficulty + this.randGen.randn(2);
    if (this.numKeys > 3) this.numKeys = 3;
    this.hasKeys = new Array<boolean>(this.numKeys).fill(false);
    const mazeDim = difficulty * 2 + MIN_MAZE_DIM;
    const scale = this.mainHeight / this.worldDim; // 1: one maze cell per world unit
    this.agent.rx = 0.375 * scale;
    this.agent.ry = 0.375 * scale;
    const rEnt = scale / 2;
    const gen = new MazeGen(this.randGen, mazeDim);
    gen.generateMazeWithDoors(this.numKeys);
    // Out of the way while keys and the gem are placed (their placement avoids the agent).
    this.agent.x = -1;
    this.agent.y = -1;
    const offX = this.randGen.randn(this.worldDim - mazeDim + 1);
    const offY = this.randGen.randn(this.worldDim - mazeDim + 1);
    this.grid.fill(WALL_OBJ);
    for (let i = 0; i < mazeDim; i++) {
      for (let j = 0; j < mazeDim; j++) {
        const x = offX + i;
        const y = offY + j;
        const obj = gen.get(i + MAZE_OFFSET, j + MAZE_OFFSET);
        const objX = (x + 0.5) * scale;
        const objY = (y + 0.5) * scale;
        if (obj !== WALL_OBJ) this.setObj(x, y, SPACE);
        if (obj >= KEY_OBJ) {
          const ent = this.spawnEntity(0.375 * scale, KEY, scale * x, scale * y, scale, scale);
          ent.imageTheme = obj - KEY_OBJ - 1;
          this.matchAspectRatio(ent);
        } else if (obj >= DOOR_OBJ) {
          const ent = this.addEntity(objX, objY, 0, 0, rEnt, LOCKED_DOOR);
          ent.imageTheme = obj - DOOR_OBJ - 1;
        } else if (obj === EXIT_OBJ) {
          const ent = this.spawnEntity(0.375 * scale, EXIT, scale * x, scale * y, scale, scale);
          this.matchAspectRatio(ent);
        } else if (obj === AGENT_OBJ) {
          this.agent.x = objX;
          this.agent.y = objY;
        }
      }
    }
    // The key ring: screen-fraction coordinates, top right, one slot per key (drawn once the key is held).
    const ringR = Math.fround(0.03);
    for (let i = 0; i < this.numKeys; i++) {
      const ent = this.addEntity(1 - ringR * (2 * i + 1.25), ringR * 0.75, 0, 0, ringR, KEY_ON_RING);
      ent.imageTheme = i;
      ent.imageType = KEY;
      ent.rotation = Math.PI / 2;
      ent.renderZ = 1;
      ent.useAbsCoords = true;
      this.matchAspectRatio(ent);
    }
  }

  override gameStep(): void {
    super.gameStep();
    this.agent.faceDirection(this.actionVx, this.actionVy);
  }
}
