// Climber (procgen `games/climber.cpp`): a platformer up a tower of 1-10 platforms. Stars (+1) sit on about half
// the platforms and always on the last; collecting all of them pays +10 and ends the level. Flying enemies patrol
// 4 cells either side of where they spawned (lethal); they appear on a platform with probability 0.2 (easy) / 0.5.
// Gravity 0.2 per step, jump speed 1.5, air control 0.15. World 16 (easy) / 20 wide, 64 high; the camera follows
// the agent's height with a view as wide as the world.

import { type Entity, PLAYER } from "../entity.ts";
import { BasicAbstractGame, EASY_MODE, type GameOptions } from "../game.ts";
import type { BackgroundGroup } from "../resources.ts";

const COIN_REWARD = 1;
const COMPLETION_BONUS = 10;
const COIN = 1;
const ENEMY = 5;
const ENEMY1 = 6;
const ENEMY2 = 7;
const PLAYER_JUMP = 9;
const PLAYER_RIGHT1 = 12;
const PLAYER_RIGHT2 = 13;
const WALL_MID = 15;
const WALL_TOP = 16;
const ENEMY_BARRIER = 19;
const PATROL_RANGE = 4;
const NUM_WALL_THEMES = 4;
const f = Math.fround;

const isWall = (type: number) => type === WALL_MID || type === WALL_TOP;

export class Climber extends BasicAbstractGame {
  hasSupport = false;
  facingRight = true;
  coinQuota = 0;
  coinsCollected = 0;
  wallTheme = 0;
  gravity = 0;
  airControl = 0;

  constructor(options: Partial<GameOptions> = {}) {
    super("climber", options);
    this.outOfBoundsObject = WALL_MID;
  }

  override useBlockAsset(type: number): boolean {
    return isWall(type);
  }

  override backgroundGroup(): BackgroundGroup {
    return "platform_backgrounds";
  }

  override assetForType(type: number): string[] {
    const colours = ["Blue", "Green", "Grey", "Red"];
    const p = (names: string[]) => names.map((n) => `platformer/${n}.png`);
    if (type === PLAYER) return p(colours.map((c) => `player${c}_stand`));
    if (type === PLAYER_JUMP) return p(colours.map((c) => `player${c}_walk4`));
    if (type === PLAYER_RIGHT1) return p(colours.map((c) => `player${c}_walk1`));
    if (type === PLAYER_RIGHT2) return p(colours.map((c) => `player${c}_walk2`));
    if (type === WALL_TOP) return p(["tileBlue_05", "tileGreen_05", "tileYellow_06", "tileBrown_06"]);
    if (type === WALL_MID) return p(["tileBlue_08", "tileGreen_08", "tileYellow_09", "tileBrown_09"]);
    if (type === ENEMY1) return p(["enemySwimming_1"]);
    if (type === ENEMY2) return p(["enemySwimming_2"]);
    if (type === COIN) return p(["yellowCrystal"]);
    return [];
  }

  override handleAgentCollision(obj: Entity): void {
    if (obj.type === ENEMY) {
      this.stepData.done = true;
    } else if (obj.type === COIN) {
      this.stepData.reward += COIN_REWARD;
      this.coinsCollected += 1;
      obj.willErase = true;
    }
  }

  override themeForGridObj(type: number): number {
    return isWall(type) ? this.wallTheme : 0;
  }

  override willReflect(src: number, target: number): boolean {
    return src === ENEMY && (isWall(target) || target === ENEMY_BARRIER);
  }

  /** Platformer physics: little control in the air, a jump sets the vertical speed, gravity until -2. */
  override updateAgentVelocity(): void {
    const a = this.agent;
    // float arithmetic, one rounding per operation.
    const f = Math.fround;
    const mix = this.hasSupport ? this.mixrate : f(this.mixrate * this.airControl);
    a.vx = f(f(f(1 - mix) * a.vx) + f(f(mix * this.maxspeed) * this.actionVx));
    if (this.actionVy > 0) a.vy = this.maxJump;
    if (!this.hasSupport && a.vy > -2) a.vy -= this.gravity;
  }

  override isBlocked(src: Entity, target: number, isHorizontal: boolean): boolean {
    return super.isBlocked(src, target, isHorizontal) || (src.type === PLAYER && isWall(target));
  }

  override imageForType(type: number): number {
    if (type === PLAYER) {
      if (!this.hasSupport) return PLAYER_JUMP;
      if (Math.abs(this.agent.vx) < 0.01 && this.actionVx === 0) return PLAYER;
      return Math.trunc(this.curTime / 5) % 2 === 0 ? PLAYER_RIGHT1 : PLAYER_RIGHT2;
    }
    if (type === ENEMY_BARRIER) return -1;
    return Math.abs(type);
  }

  private chooseDeltaY(): number {
    // Highest reachable step: v^2 / 2g, in float32 as procgen (5 for 1.5 and 0.2).
    const maxDy = Math.trunc(f(this.maxJump * this.maxJump) / f(2 * this.gravity));
    const minDy = 3;
    return this.randGen.randn(maxDy - minDy + 1) + minDy;
  }

  private generatePlatforms(): void {
    const difficulty = this.randGen.randn(3);
    const minPlatforms = difficulty * difficulty + 1;
    const maxPlatforms = (difficulty + 1) * (difficulty + 1) + 1;
    const numPlatforms = this.randGen.randn(maxPlatforms - minPlatforms + 1) + minPlatforms;
    this.coinQuota = 0;
    this.coinsCollected = 0;
    let currX = this.randGen.randn(this.mainWidth - 4) + 2;
    let currY = 0;
    const marginX = 3;
    const enemyProb = this.options.distributionMode === EASY_MODE ? 0.2 : 0.5;
    for (let i = 0; i < numPlatforms; i++) {
      const deltaY = this.chooseDeltaY();
      // Only enemies that will not be trapped in tight spaces.
      const canSpawnEnemy = currX >= marginX && currX <= this.mainWidth - marginX;
      if (canSpawnEnemy && this.randGen.rand01() < enemyProb) {
        // procgen passes two draws as arguments of one call; gcc evaluates arguments right to left, so the
        // direction is drawn before the height.
        const vx = 0.15 * (this.randGen.randn(2) * 2 - 1);
        const y = currY + this.randGen.randn(2) + 2 + 0.5;
        const ent = this.addEntity(currX + 0.5, y, vx, 0, 0.5, ENEMY);
        ent.imageType = ENEMY1;
        ent.smartStep = true;
        ent.climberSpawnX = currX + 0.5;
        this.matchAspectRatio(ent);
      }
      currY += deltaY;
      const platLen = 2 + this.randGen.randn(10);
      let dir = this.randGen.randn(2) * 2 - 1;
      if (currX < marginX) dir = 1;
      if (currX > this.mainWidth - marginX) dir = -1;
      const candidates: number[] = [];
      for (let j = 0; j < platLen; j++) {
        const nx = currX + (j + 1) * dir;
        if (nx <= 0 || nx >= this.mainWidth - 1) break;
        candidates.push(nx);
        this.setObj(nx, currY, WALL_TOP);
      }
      if (this.randGen.rand01() < 0.5 || i === numPlatforms - 1) {
        const coinX = this.randGen.chooseOne(candidates);
        this.addEntity(coinX + 0.5, currY + 1.5, 0, 0, f(0.3), COIN);
        this.coinQuota += 1;
      }
      currX = this.randGen.chooseOne(candidates);
    }
  }

  override chooseWorldDim(): void {
    this.mainWidth = this.options.distributionMode === EASY_MODE ? 16 : 20;
    this.mainHeight = 64;
  }

  override gameReset(): void {
    super.gameReset();
    this.gravity = f(0.2);
    this.maxJump = 1.5;
    this.airControl = f(0.15);
    this.maxspeed = 0.5;
    this.hasSupport = false;
    this.facingRight = true;
    const a = this.agent;
    a.rx = 0.5;
    a.ry = 0.5;
    a.x = 1 + a.rx;
    a.y = 1 + a.ry;
    this.chooseRandomTheme(a);
    this.wallTheme = this.randGen.randn(NUM_WALL_THEMES);
    // Floor, side walls and ceiling.
    this.fillElem(0, 0, this.mainWidth, 1, WALL_TOP);
    this.fillElem(0, 0, 1, this.mainHeight, WALL_MID);
    this.fillElem(this.mainWidth - 1, 0, 1, this.mainHeight, WALL_MID);
    this.fillElem(0, this.mainHeight - 1, this.mainWidth, 1, WALL_MID);
    this.generatePlatforms();
  }

  private canSupport(obj: number): boolean {
    return isWall(obj) || obj === this.outOfBoundsObject;
  }

  override chooseCenter(): [number, number] {
    this.visibility = this.mainWidth;
    return [this.mainWidth / 2, this.agent.y + this.mainWidth / 2 - 5 * this.agent.ry];
  }

  /** Cells the agent can stand on (made once: a closure per step is garbage). */
  private readonly isSupport = (o: number) => this.canSupport(o);

  /** Left/right, and up jumps only when standing on something (checked just under both bottom corners). */
  override setActionXY(moveAct: number): void {
    this.actionVx = Math.trunc(moveAct / 3) - 1;
    this.actionVy = Math.max(0, (moveAct % 3) - 1);
    if (this.actionVx > 0) this.facingRight = true;
    if (this.actionVx < 0) this.facingRight = false;
    this.hasSupport = this.standsOn(this.isSupport);
    this.actionVy = this.hasSupport && this.actionVy === 1 ? 1 : 0;
  }

  override gameStep(): void {
    super.gameStep();
    this.faceMoveDirection();
    for (let i = this.entities.length - 1; i >= 0; i--) {
      const ent = this.entities[i];
      if (ent.type !== ENEMY) continue;
      // Patrol: turn around PATROL_RANGE cells from the spawn point.
      if (ent.x > ent.climberSpawnX + PATROL_RANGE) ent.vx = -Math.abs(ent.vx);
      else if (ent.x < ent.climberSpawnX - PATROL_RANGE) ent.vx = Math.abs(ent.vx);
      ent.imageType = Math.trunc(this.curTime / 5) % 2 === 0 ? ENEMY1 : ENEMY2;
      ent.isReflected = ent.vx < 0;
    }
    if (this.coinQuota === this.coinsCollected) {
      this.stepData.done = true;
      this.stepData.reward += COMPLETION_BONUS;
      this.stepData.levelComplete = true;
    }
  }
}
