// FruitBot (procgen `games/fruitbot.cpp`): a vertical scroller. The robot always drifts up and steers left/right
// through rows of walls with gaps (touching a wall ends the episode), eating fruit (+1) and avoiding other food
// (-4), up to the row of presents at the top (+10, the end). Hard mode adds locked gates (probability 0.125 per
// row) opened by throwing a key up into their lock with "D" (at most every 8 steps). Easy: 5 walls instead of 10,
// wider gaps, only 2 of the 6 pictures of each kind of food, no gates. World 10 (easy) / 20 wide, 60 high.

import { type Entity, PLAYER, WALL_OBJ } from "../entity.ts";
import { BasicAbstractGame, EASY_MODE, type GameOptions } from "../game.ts";
import type { BackgroundGroup } from "../resources.ts";

const COMPLETION_BONUS = 10;
const POSITIVE_REWARD = 1;
const PENALTY = -4;
const BARRIER = 1;
const OUT_OF_BOUNDS_WALL = 2;
const PLAYER_BULLET = 3;
const BAD_OBJ = 4;
const GOOD_OBJ = 7;
const LOCKED_DOOR = 10;
const LOCK = 11;
const PRESENT = 12;
const KEY_DURATION = 8;
const DOOR_ASPECT_RATIO = 3.25;
const BULLET_VSCALE = 0.5;
const f = Math.fround;

export class FruitBot extends BasicAbstractGame {
  lastFireTime = 0;

  constructor(options: Partial<GameOptions> = {}) {
    super("fruitbot", options);
    this.mixrate = 0.5;
    this.maxspeed = f(0.85);
    // The background is tiled vertically along the tall world.
    this.bgTileRatio = -1;
    this.outOfBoundsObject = OUT_OF_BOUNDS_WALL;
  }

  override useBlockAsset(type: number): boolean {
    return type === BARRIER || type === LOCKED_DOOR || type === PRESENT;
  }

  override backgroundGroup(): BackgroundGroup {
    return "topdown_backgrounds";
  }

  override assetForType(type: number): string[] {
    const m = (names: string[]) => names.map((n) => `misc_assets/${n}.png`);
    if (type === PLAYER) return m(["robot_3Dblue"]);
    if (type === BARRIER || type === OUT_OF_BOUNDS_WALL) return m(["tileStone_slope"]);
    if (type === PLAYER_BULLET) return m(["keyRed2"]);
    if (type === BAD_OBJ) return m([1, 2, 3, 4, 5, 6].map((i) => `food${i}`));
    if (type === GOOD_OBJ) return m([1, 2, 3, 4, 5, 6].map((i) => `fruit${i}`));
    if (type === LOCKED_DOOR) return m(["fenceYellow"]);
    if (type === LOCK) return m(["lockRed2"]);
    if (type === PRESENT) return m(["present1", "present2", "present3"]);
    return [];
  }

  override willReflect(src: number, target: number): boolean {
    return src === BAD_OBJ && (target === BARRIER || target === WALL_OBJ);
  }

  override isBlocked(src: Entity, target: number, isHorizontal: boolean): boolean {
    return super.isBlocked(src, target, isHorizontal) || (src.type === PLAYER && target === OUT_OF_BOUNDS_WALL);
  }

  override getTileAspectRatio(ent: Entity): number {
    if (ent.type === BARRIER) return 1;
    if (ent.type === LOCKED_DOOR) return DOOR_ASPECT_RATIO;
    return 0;
  }

  override handleAgentCollision(obj: Entity): void {
    if (obj.type === BARRIER || obj.type === LOCKED_DOOR) {
      this.stepData.done = true;
    } else if (obj.type === BAD_OBJ) {
      this.stepData.reward += PENALTY;
      obj.willErase = true;
    } else if (obj.type === GOOD_OBJ) {
      this.stepData.reward += POSITIVE_REWARD;
      obj.willErase = true;
    } else if (obj.type === PRESENT) {
      this.stepData.reward += COMPLETION_BONUS;
      this.stepData.done = true;
      this.stepData.levelComplete = true;
    }
  }

  override handleCollision(src: Entity, target: Entity): void {
    if (src.type !== PLAYER_BULLET) return;
    if (target.type === BARRIER) {
      src.willErase = true;
    } else if (target.type === LOCK) {
      src.willErase = true;
      target.willErase = true;
      // The gate of the same row goes with its lock.
      const door = this.entities.find((e) => e.type === LOCKED_DOOR && Math.abs(e.y - target.y) < 1);
      if (door !== undefined) door.willErase = true;
    }
  }

  /** The camera looks ahead: the robot sits near the bottom of a square view as wide as the world. */
  override chooseCenter(): [number, number] {
    this.visibility = this.mainWidth;
    return [this.mainWidth / 2, this.agent.y + this.mainWidth / 2 - 2 * this.agent.ry];
  }

  override chooseWorldDim(): void {
    this.mainWidth = this.options.distributionMode === EASY_MODE ? 10 : 20;
    this.mainHeight = 60;
  }

  /** Left/right steering; the robot always pushes up at 0.2. */
  override setActionXY(moveAct: number): void {
    this.actionVx = Math.trunc(moveAct / 3) - 1;
    this.actionVy = f(0.2);
    this.actionVrot = 0;
  }

  /** One row of wall at height ry with a gap (optionally a locked gate in the gap). */
  private addWalls(ry: number, useDoor: boolean, minPct: number): void {
    // float arithmetic, one rounding per operation (min_pct + .2 * rand01 is double, rounded when stored).
    const rw = this.mainWidth;
    const wallRy = f(0.3);
    const lockRx = 0.25;
    const lockRy = f(0.45);
    let pct = f(minPct + 0.2 * this.randGen.rand01());
    if (useDoor) {
      pct = f(pct + f(0.1));
      const lockPctW = f((2 * lockRx) / rw);
      const doorPctW = f(f(f(wallRy * 2) * DOOR_ASPECT_RATIO) / rw);
      const numDoors = Math.ceil(f(f(pct - 2 * lockPctW) / doorPctW));
      pct = f(2 * lockPctW + f(doorPctW * numDoors));
    }
    const gapw = f(pct * rw);
    const w1 = f(this.randGen.rand01() * f(rw - gapw));
    const w2 = f(f(rw - w1) - gapw);
    this.addEntityRxy(w1 / 2, ry, 0, 0, w1 / 2, wallRy, BARRIER);
    this.addEntityRxy(rw - w2 / 2, ry, 0, 0, w2 / 2, wallRy, BARRIER);
    if (useDoor) {
      const onRight = this.randGen.randn(2);
      const lockX = f(f(w1 + lockRx) + f(onRight * f(gapw - 2 * lockRx)));
      const doorX = f(f(w1 + gapw / 2) - (onRight * 2 - 1) * lockRx);
      this.addEntityRxy(doorX, ry, 0, 0, gapw / 2 - lockRx, wallRy, LOCKED_DOOR);
      this.addEntityRxy(lockX, f(f(ry - lockRy) + wallRy), 0, 0, lockRx, lockRy, LOCK);
    }
  }

  override gameReset(): void {
    super.gameReset();
    this.lastFireTime = 0;
    const easy = this.options.distributionMode === EASY_MODE;
    const minSep = 4;
    const numWalls = easy ? 5 : 10;
    const groupSize = easy ? 2 : 6;
    const bufH = 4;
    const doorProb = easy ? 0 : 0.125;
    const minPct = f(easy ? 0.2 : 0.1);
    // Rows at least 4 apart, the spare height spread at random over the gaps.
    let h = 0;
    for (const part of this.randGen.partition(this.mainHeight - minSep * numWalls - bufH, numWalls)) {
      const dy = minSep + part;
      h += dy;
      // (The gate roll is drawn for every tall enough gap, even in easy mode where it cannot succeed.)
      const useDoor = dy > 5 && this.randGen.rand01() < doorProb;
      this.addWalls(h, useDoor, minPct);
    }
    this.agent.y = this.agent.ry;
    const numGood = this.randGen.randn(10) + 10;
    const numBad = this.randGen.randn(10) + 10;
    for (let i = 0; i < this.mainWidth; i++) {
      const present = this.addEntityRxy(i + 0.5, this.mainHeight - 0.5, 0, 0, 0.5, 0.5, PRESENT);
      this.chooseRandomTheme(present);
    }
    this.spawnEntities(numGood, 0.5, GOOD_OBJ, 0, 0, this.mainWidth, this.mainHeight);
    this.spawnEntities(numBad, 0.5, BAD_OBJ, 0, 0, this.mainWidth, this.mainHeight);
    for (const ent of this.entities) {
      if (ent.type === GOOD_OBJ || ent.type === BAD_OBJ) {
        ent.imageTheme = this.randGen.randn(groupSize);
        this.fitAspectRatio(ent);
      }
    }
    this.agent.rotation = -Math.PI / 2;
  }

  override gameStep(): void {
    super.gameStep();
    if (this.specialAction === 1 && this.curTime - this.lastFireTime >= KEY_DURATION) {
      const key = this.addEntity(this.agent.x, this.agent.y, 0, BULLET_VSCALE, 0.25, PLAYER_BULLET);
      key.expireTime = KEY_DURATION;
      key.collidesWithEntities = true;
      this.lastFireTime = this.curTime;
    }
  }
}
