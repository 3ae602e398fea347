// Ninja (procgen `games/ninja.cpp`): a platformer with charged jumps. Holding up on the ground charges the jump
// (+0.25 per step, +1 in easy, up to 1); releasing jumps at charge x 1.5 (1.25 in easy). Ledges rise and fall over a
// fire floor; bombs on the way are lethal, as are fire and explosions, but throwing stars (specials 1-4: 0, 45, 90,
// -45 degrees, 5-6: 0, mirrored when facing left, every 3 steps) blow bombs up. The mushroom at the end: +10.
// World 64 x 64; the camera follows the agent with visibility 10 (easy) / 16.

import { EXPLOSION, type Entity, PLAYER, SPACE } from "../entity.ts";
import { BasicAbstractGame, EASY_MODE, type GameOptions } from "../game.ts";
import type { Canvas } from "../render.ts";
import type { BackgroundGroup } from "../resources.ts";

const GOAL_REWARD = 10;
const GOAL = 1;
const BOMB = 6;
const THROWING_STAR = 7;
const PLAYER_JUMP = 9;
const PLAYER_RIGHT1 = 12;
const PLAYER_RIGHT2 = 13;
const FIRE = 14;
const WALL_MID = 20;
const NUM_WALL_THEMES = 3;
const f = Math.fround;

export class Ninja extends BasicAbstractGame {
  hasSupport = false;
  facingRight = true;
  lastFireTime = 0;
  wallTheme = 0;
  gravity = 0;
  airControl = 0;
  jumpCharge = 0;
  jumpChargeInc = 0;

  constructor(options: Partial<GameOptions> = {}) {
    super("ninja", options);
    this.mainWidth = 64;
    this.mainHeight = 64;
    this.outOfBoundsObject = WALL_MID;
  }

  override useBlockAsset(type: number): boolean {
    return type === WALL_MID;
  }

  override backgroundGroup(): BackgroundGroup {
    return "platform_backgrounds";
  }

  override assetForType(type: number): string[] {
    if (type === WALL_MID)
      return ["tile_bricksGrey", "tile_bricksGrown", "tile_bricksRed"].map((n) => `misc_assets/${n}.png`);
    if (type === GOAL) return [1, 2, 3, 4, 5, 6].map((i) => `platformer/shroom${i}.png`);
    if (type === PLAYER) return ["platformer/zombie_idle.png"];
    if (type === PLAYER_JUMP) return ["platformer/zombie_jump.png"];
    if (type === PLAYER_RIGHT1) return ["platformer/zombie_walk1.png"];
    if (type === PLAYER_RIGHT2) return ["platformer/zombie_walk2.png"];
    if (type === BOMB || type === FIRE) return ["misc_assets/bomb.png"];
    if (type === THROWING_STAR) return ["misc_assets/saw.png"];
    return [];
  }

  override handleAgentCollision(obj: Entity): void {
    if (obj.type === EXPLOSION) {
      this.stepData.done = true;
    } else if (obj.type === GOAL) {
      this.stepData.reward += GOAL_REWARD;
      this.stepData.levelComplete = true;
      this.stepData.done = true;
    }
  }

  override handleGridCollision(obj: Entity, type: number, i: number, j: number): void {
    if (obj.type === PLAYER) {
      if (type === FIRE || type === BOMB) this.stepData.done = true;
    } else if (obj.type === THROWING_STAR) {
      if (type === BOMB) {
        obj.willErase = true;
        this.setObj(i, j, SPACE);
        this.addEntity(i + 0.5, j + 0.5, 0, 0, 0.5, EXPLOSION);
      }
      if (type === WALL_MID) obj.willErase = true;
    }
  }

  /** Platformer physics; a charged jump fires when up is released. */
  override updateAgentVelocity(): void {
    // float arithmetic, one rounding per operation, as procgen's.
    const f = Math.fround;
    const a = this.agent;
    const mix = this.hasSupport ? this.mixrate : f(this.mixrate * this.airControl);
    a.vx = f(f(f(1 - mix) * a.vx) + f(f(mix * this.maxspeed) * this.actionVx));
    if (this.actionVy < 1 && this.jumpCharge > 0) {
      a.vy = f(this.jumpCharge) * this.maxJump;
      this.jumpCharge = 0;
    }
    if (!this.hasSupport && a.vy > -2) a.vy -= this.gravity;
  }

  override themeForGridObj(type: number): number {
    return type === WALL_MID ? this.wallTheme : 0;
  }

  override isBlocked(src: Entity, target: number, isHorizontal: boolean): boolean {
    if (target === WALL_MID) {
      if (src.type === PLAYER) return true;
      if (src.type === THROWING_STAR) {
        // Throwing stars stick in walls.
        src.vx = 0;
        src.vy = 0;
        return true;
      }
    }
    return super.isBlocked(src, target, isHorizontal);
  }

  override imageForType(type: number): number {
    if (type === PLAYER) {
      if (Math.abs(this.agent.vx) < 0.01 && this.actionVx === 0 && this.hasSupport) return PLAYER;
      return Math.trunc(this.curTime / 5) % 2 === 0 || !this.hasSupport ? PLAYER_RIGHT1 : PLAYER_RIGHT2;
    }
    return Math.abs(type);
  }

  /** The jump charge: a green bar at the bottom left, up to 3 cells tall. */
  override drawOverlay(c: Canvas): void {
    const barHeight = 3 * this.jumpCharge;
    const u = this.unit;
    c.fillRect({ x: 0.25 * u, y: (this.visibility - 0.5 - barHeight) * u, w: 0.5 * u, h: barHeight * u }, 66, 245, 135);
  }

  /** A block of `fill` whose top row is `top` (both wall here). */
  private fillGroundBlock(x: number, y: number, dx: number, dy: number): void {
    if (dy <= 0) return;
    this.fillElem(x, y, dx, dy - 1, WALL_MID);
    this.fillElem(x, y + dy - 1, dx, 1, WALL_MID);
  }

  /** Ledges from the start to the mushroom, with ceilings, optional bombs, and a fire floor below everything. */
  private generateCoinToTheRight(difficulty: number): void {
    const easy = this.options.distributionMode === EASY_MODE;
    let minGap = difficulty - 1;
    let minPlatW = 1;
    let incDy = 4;
    if (easy) {
      minGap = Math.max(0, minGap - 1);
      minPlatW = 3;
      incDy = 2;
    }
    const bombProb = 0.25 * (difficulty - 1);
    const maxGapInc = difficulty === 1 ? 1 : 2;
    const numSections = this.randGen.randn(difficulty) + difficulty;
    const startX = 5;
    let currX = startX;
    let currY = this.mainHeight / 2;
    let minY = currY;
    const w = this.mainWidth;
    // Highest ledge step a full jump clears, in float32 as procgen: 3 (easy) / 5.
    const maxDy = Math.trunc(f(f(f(this.maxJump * this.maxJump) / f(2 * this.gravity)) - 0.5));
    this.fillGroundBlock(0, 0, startX, currY);
    this.fillElem(0, currY + 8, startX, this.mainHeight - currY - 8, WALL_MID);
    for (let i = 0; i < numSections; i++) {
      const prevX = currX;
      const prevY = currY;
      const numEdges = this.randGen.randn(2) + 1;
      let maxY = -1;
      let lastEdgeY = -1;
      for (let j = 0; j < numEdges; j++) {
        currX = prevX + j;
        if (currX + 15 >= w) break;
        currY = prevY;
        let dy = this.randGen.randn(incDy) + 1 + Math.trunc(difficulty / 3);
        if (dy > maxDy) dy = maxDy;
        if (currY >= this.mainHeight - 15) dy *= -1;
        else if (currY >= 5 && this.randGen.rand01() < 0.4) dy *= -1;
        currY += dy;
        if (currY < 3) currY = 3;
        if (Math.abs(currY - lastEdgeY) <= 1) currY = lastEdgeY + 2;
        const dx = minPlatW + this.randGen.randn(3);
        this.fillGroundBlock(currX, currY - 1, dx, 1);
        currX += dx;
        currX += minGap + this.randGen.randn(maxGapInc + 1);
        if (currY > maxY) maxY = currY;
        if (currY < minY) minY = currY;
        lastEdgeY = currY;
      }
      if (this.randGen.rand01() < bombProb) this.setObj(this.randGen.randn(currX - prevX + 1) + prevX, maxY + 2, BOMB);
      const ceilingStart = maxY - 1 + 11;
      this.fillGroundBlock(prevX, ceilingStart, currX - prevX, this.mainHeight - ceilingStart);
    }
    const goal = this.addEntity(currX + 0.5, currY + 0.5, 0, 0, 0.5, GOAL);
    this.chooseRandomTheme(goal);
    this.fillGroundBlock(currX, currY - 1, 1, 1);
    this.fillElem(currX, currY + 6, 1, this.mainHeight - currY - 6, WALL_MID);
    const fireY = Math.max(1, minY - 2);
    this.fillGroundBlock(startX, 0, this.mainWidth - startX, fireY);
    this.fillElem(startX, fireY, this.mainWidth - startX, 1, FIRE);
    this.fillElem(currX + 1, 0, this.mainWidth - currX - 1, this.mainHeight, WALL_MID);
  }

  override gameReset(): void {
    super.gameReset();
    this.gravity = f(0.2);
    this.maxJump = 1.5;
    this.airControl = f(0.15);
    this.maxspeed = 0.5;
    this.hasSupport = false;
    this.facingRight = true;
    this.jumpCharge = 0;
    this.jumpChargeInc = 0.25;
    this.visibility = 16;
    const a = this.agent;
    a.rx = 0.5;
    a.ry = 0.5;
    a.x = 1 + a.rx;
    a.y = this.mainHeight / 2 + a.ry;
    if (this.options.distributionMode === EASY_MODE) {
      this.maxJump = 1.25;
      this.jumpChargeInc = 1;
      this.visibility = 10;
    }
    const difficulty = this.randGen.randn(3) + 1;
    this.lastFireTime = 0;
    this.wallTheme = this.randGen.randn(NUM_WALL_THEMES);
    this.fillElem(0, 0, this.mainWidth, 1, WALL_MID);
    this.fillElem(0, 0, 1, this.mainHeight, WALL_MID);
    this.fillElem(this.mainWidth - 1, 0, 1, this.mainHeight, WALL_MID);
    this.fillElem(0, this.mainHeight - 1, this.mainWidth, 1, WALL_MID);
    this.generateCoinToTheRight(difficulty);
  }

  /** Cells the agent can stand on (made once: a closure per step is garbage). */
  private readonly isSupport = (o: number) => o === WALL_MID || o === this.outOfBoundsObject;

  /** Left/right; holding up on the ground charges the jump (the charge is lost in the air). */
  override setActionXY(moveAct: number): void {
    this.actionVx = Math.trunc(moveAct / 3) - 1;
    this.actionVy = Math.max(0, (moveAct % 3) - 1);
    if (this.actionVx > 0) this.facingRight = true;
    if (this.actionVx < 0) this.facingRight = false;
    this.hasSupport = this.standsOn(this.isSupport);
    if (this.hasSupport && this.actionVy === 1) {
      this.actionVy = 1;
      this.jumpCharge = Math.min(1, this.jumpCharge + this.jumpChargeInc);
    } else {
      this.actionVy = 0;
    }
    if (!this.hasSupport) this.jumpCharge = 0;
  }

  override gameStep(): void {
    super.gameStep();
    this.faceMoveDirection();
    if (this.specialAction > 0 && this.curTime - this.lastFireTime >= 3) {
      // float theta with procgen's float PI; the double cos and sin, rounded to float: sin(PI) is -8.7e-8, not 0, and moves the star.
      const f = Math.fround;
      const pi = f(Math.PI);
      let theta = 0;
      if (this.specialAction === 2) theta = f(pi / 4);
      else if (this.specialAction === 3) theta = f(pi / 2);
      else if (this.specialAction === 4) theta = f(-pi / 4);
      if (this.agent.isReflected) theta = f(pi - theta);
      const star = this.addEntity(
        this.agent.x,
        this.agent.y,
        f(Math.cos(theta)),
        f(Math.sin(theta)),
        0.25,
        THROWING_STAR,
      );
      star.collidesWithEntities = true;
      star.expireTime = 15;
      star.smartStep = true;
      this.lastFireTime = this.curTime;
    }
  }
}
