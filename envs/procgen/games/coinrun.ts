// CoinRun (procgen `games/coinrun.cpp`): a platformer from left to right. The level is 1-6 sections of ground at
// varying heights from x = 5, with gaps over lava, saws or walking enemies, saws and enemies on the ground, and
// piles of crates (platforms from above); the coin at the end pays +10, the only reward. Saws, enemies and lava
// kill. Gravity 0.2, jump 1.5, air control 0.15, mixrate 0.2. Easy: no walking enemies on the ground, the first
// player colour, ground theme and background. World 64 x 64; the camera follows the agent, visibility 13.

import { type Entity, PLAYER, TRAIL } from "../entity.ts";
import { BasicAbstractGame, EASY_MODE, type GameOptions } from "../game.ts";
import type { Rect } from "../render.ts";
import type { BackgroundGroup } from "../resources.ts";

const GOAL_REWARD = 10;
const GOAL = 1;
const SAW = 2;
const SAW2 = 3;
const ENEMY = 5;
const ENEMY1 = 6;
const ENEMY2 = 7;
const PLAYER_JUMP = 9;
const PLAYER_RIGHT1 = 12;
const PLAYER_RIGHT2 = 13;
const WALL_MID = 15;
const WALL_TOP = 16;
const LAVA_MID = 17;
const LAVA_TOP = 18;
const ENEMY_BARRIER = 19;
const CRATE = 20;
const WALKING_ENEMIES = [
  "slimeBlock",
  "slimePurple",
  "slimeBlue",
  "slimeGreen",
  "mouse",
  "snail",
  "ladybug",
  "wormGreen",
  "wormPink",
];
const PLAYER_COLORS = ["Beige", "Blue", "Green", "Pink", "Yellow"];
const GROUND_THEMES = ["Dirt", "Grass", "Planet", "Sand", "Snow", "Stone"];
const f = Math.fround;

const isWall = (type: number) => type === WALL_MID || type === WALL_TOP;
const isLava = (type: number) => type === LAVA_MID || type === LAVA_TOP;

export class CoinRun extends BasicAbstractGame {
  lastAgentY = 0;
  wallTheme = 0;
  hasSupport = false;
  facingRight = true;
  isOnCrate = false;
  gravity = 0;
  airControl = 0;

  constructor(options: Partial<GameOptions> = {}) {
    super("coinrun", options);
    this.visibility = 13;
    this.mixrate = f(0.2);
    this.mainWidth = 64;
    this.mainHeight = 64;
    this.outOfBoundsObject = WALL_MID;
  }

  override useBlockAsset(type: number): boolean {
    return isWall(type);
  }

  override backgroundGroup(): BackgroundGroup {
    return "platform_backgrounds";
  }

  override assetForType(type: number): string[] {
    const player = (pose: string) => PLAYER_COLORS.map((c) => `kenney/Players/128x256/${c}/alien${c}_${pose}.png`);
    if (type === PLAYER) return player("stand");
    if (type === PLAYER_JUMP) return player("jump");
    if (type === PLAYER_RIGHT1) return player("walk1");
    if (type === PLAYER_RIGHT2) return player("walk2");
    if (type === ENEMY1) return WALKING_ENEMIES.map((e) => `kenney/Enemies/${e}.png`);
    if (type === ENEMY2) return WALKING_ENEMIES.map((e) => `kenney/Enemies/${e}_move.png`);
    if (type === GOAL) return ["kenney/Items/coinGold.png"];
    if (type === WALL_TOP) return GROUND_THEMES.map((g) => `kenney/Ground/${g}/${g.toLowerCase()}Mid.png`);
    if (type === WALL_MID) return GROUND_THEMES.map((g) => `kenney/Ground/${g}/${g.toLowerCase()}Center.png`);
    if (type === LAVA_TOP) return ["kenney/Tiles/lavaTop_low.png"];
    if (type === LAVA_MID) return ["kenney/Tiles/lava.png"];
    if (type === SAW) return ["kenney/Enemies/sawHalf.png"];
    if (type === SAW2) return ["kenney/Enemies/sawHalf_move.png"];
    if (type === CRATE)
      return ["boxCrate", "boxCrate_double", "boxCrate_single", "boxCrate_warning"].map((n) => `kenney/Tiles/${n}.png`);
    return [];
  }

  /** The alien images are tall: procgen draws them 1.74 times the hitbox's height, feet on its bottom. */
  override getObjectRect(obj: Entity): Rect {
    const r = super.getObjectRect(obj);
    if (obj !== this.agent) return r;
    return { x: r.x, y: r.y - 0.7415 * r.h, w: r.w, h: 1.7415 * r.h };
  }

  override handleAgentCollision(obj: Entity): void {
    if (obj.type === ENEMY || obj.type === SAW) this.stepData.done = true;
  }

  override themeForGridObj(type: number): number {
    return isWall(type) ? this.wallTheme : 0;
  }

  override willReflect(src: number, target: number): boolean {
    return src === ENEMY && (isWall(target) || target === ENEMY_BARRIER);
  }

  override handleGridCollision(obj: Entity, type: number): void {
    if (obj.type !== PLAYER) return;
    if (type === GOAL) {
      this.stepData.reward += GOAL_REWARD;
      this.stepData.done = true;
      this.stepData.levelComplete = true;
    } else if (isLava(type)) {
      this.stepData.done = true;
    }
  }

  override updateAgentVelocity(): void {
    // float arithmetic, one rounding per operation, as procgen's.
    const f = Math.fround;
    const a = this.agent;
    const mix = this.hasSupport ? this.mixrate : f(this.mixrate * this.airControl);
    const top = f(mix * this.maxspeed);
    a.vx = f(f(f(1 - mix) * a.vx) + f(top * this.actionVx));
    if (Math.abs(a.vx) < top) a.vx = 0;
    if (this.actionVy > 0) a.vy = this.maxJump;
    else if (this.hasSupport) a.vy += 0.2 * this.actionVy;
    if (!(this.hasSupport && this.actionVy > 0)) {
      a.vy -= this.gravity;
      a.vy = Math.max(-this.maxJump, Math.min(this.maxJump, a.vy));
    }
  }

  /** Crates carry the agent only when it comes down on them from above (and is not pressing down). */
  override isBlockedEnts(src: Entity, target: Entity, isHorizontal: boolean): boolean {
    if (target.type === CRATE && !isHorizontal) {
      if (this.agent.vy >= 0 || this.actionVy < 0) return false;
      if (this.lastAgentY < Math.fround(Math.fround(target.y + target.ry) + this.agent.ry)) return false;
      this.isOnCrate = true;
      return true;
    }
    return super.isBlockedEnts(src, target, isHorizontal);
  }

  override isBlocked(src: Entity, target: number, isHorizontal: boolean): boolean {
    return super.isBlocked(src, target, isHorizontal) || (src.type === PLAYER && isWall(target));
  }

  override imageForType(type: number): number {
    if (type === PLAYER) {
      if (Math.abs(this.agent.vx) < 0.01 && this.actionVx === 0 && this.hasSupport) return PLAYER;
      return Math.trunc(this.curTime / 5) % 2 === 0 || !this.hasSupport ? PLAYER_RIGHT1 : PLAYER_RIGHT2;
    }
    if (type === ENEMY_BARRIER) return -1;
    return Math.abs(type);
  }

  private fillBlockTop(x: number, y: number, dx: number, dy: number, fill: number, top: number): void {
    this.fillElem(x, y, dx, dy - 1, fill);
    this.fillElem(x, y + dy - 1, dx, 1, top);
  }

  private fillGroundBlock(x: number, y: number, dx: number, dy: number): void {
    this.fillBlockTop(x, y, dx, dy, WALL_MID, WALL_TOP);
  }

  private createSaw(x: number, y: number): void {
    this.addEntity(x + 0.5, y + 0.5, 0, 0, 0.5, SAW);
  }

  private createEnemy(x: number, y: number): void {
    const ent = this.addEntity(x + 0.5, y + 0.5, 0.15 * (this.randGen.randn(2) * 2 - 1), 0, 0.5, ENEMY);
    ent.smartStep = true;
    ent.imageType = ENEMY1;
    ent.renderZ = 1;
    this.chooseRandomTheme(ent);
  }

  private createCrate(x: number, y: number): void {
    this.chooseRandomTheme(this.addEntity(x + 0.5, y + 0.5, 0, 0, 0.5, CRATE));
  }

  private generateCoinToTheRight(): void {
    const dif = this.randGen.randn(3) + 1;
    const numSections = this.randGen.randn(dif) + dif;
    let currX = 5;
    let currY = 1;
    const pitThreshold = dif;
    const dangerType = this.randGen.randn(3);
    const w = this.mainWidth;
    // Reach of a full jump, in float32 as procgen: 5 cells up, 7 across.
    const maxDy = Math.trunc(f(f(f(this.maxJump * this.maxJump) / f(2 * this.gravity)) - 0.5));
    const maxDx = Math.trunc(f(f(f(this.maxspeed * 2 * this.maxJump) / this.gravity) - 0.5));
    const allowMonsters = this.options.distributionMode !== EASY_MODE;
    for (let s = 0; s < numSections; s++) {
      if (currX + 15 >= w) break;
      let dy = this.randGen.randn(4) + 1 + Math.trunc(dif / 3);
      if (dy > maxDy) dy = maxDy;
      if (currY >= 20) dy *= -1;
      else if (currY >= 5 && this.randGen.randn(2) === 1) dy *= -1;
      const dx = this.randGen.randn(2 * dif) + 3 + Math.trunc(dif / 3);
      currY = Math.max(1, currY + dy);
      const usePit = dx > 7 && currY > 3 && this.randGen.randn(20) >= pitThreshold;
      if (usePit) {
        const x1 = this.randGen.randn(3) + 1;
        let x2 = this.randGen.randn(3) + 1;
        let pitWidth = dx - x1 - x2;
        if (pitWidth > maxDx) {
          pitWidth = maxDx;
          x2 = dx - x1 - pitWidth;
        }
        this.fillGroundBlock(currX, 0, x1, currY);
        this.fillGroundBlock(currX + dx - x2, 0, x2, currY);
        const lavaHeight = this.randGen.randn(currY - 3) + 1;
        if (dangerType === 0) this.fillBlockTop(currX + x1, 1, pitWidth, lavaHeight, LAVA_MID, LAVA_TOP);
        else if (dangerType === 1) for (let e = 0; e < pitWidth; e++) this.createSaw(currX + x1 + e, 1);
        else for (let e = 0; e < pitWidth; e++) this.createEnemy(currX + x1 + e, 1);
        // A stepping stone over wide pits.
        if (pitWidth > 4) {
          let x3: number;
          let w1: number;
          if (pitWidth === 5) {
            x3 = 1 + this.randGen.randn(2);
            w1 = 1 + this.randGen.randn(2);
          } else if (pitWidth === 6) {
            x3 = 2 + this.randGen.randn(2);
            w1 = 1 + this.randGen.randn(2);
          } else {
            x3 = 2 + this.randGen.randn(2);
            const x4 = 2 + this.randGen.randn(2);
            w1 = pitWidth - x3 - x4;
          }
          this.fillGroundBlock(currX + x1 + x3, currY - 1, w1, 1);
        }
      } else {
        this.fillGroundBlock(currX, 0, dx, currY);
        let ob1X = -1;
        let ob2X = -1;
        if (this.randGen.randn(10) < 2 * dif && dx > 3) {
          ob1X = currX + this.randGen.randn(dx - 2) + 1;
          this.createSaw(ob1X, currY);
        }
        if (this.randGen.randn(10) < dif && dx > 3 && maxDx >= 4 && allowMonsters) {
          ob2X = currX + this.randGen.randn(dx - 2) + 1;
          this.createEnemy(ob2X, currY);
        }
        for (let i = 0; i < 2; i++) {
          const crateX = currX + this.randGen.randn(dx - 2) + 1;
          if (this.randGen.randn(2) === 1 && ob1X !== crateX && ob2X !== crateX) {
            const pile = this.randGen.randn(3) + 1;
            for (let j = 0; j < pile; j++) this.createCrate(crateX, currY + j);
          }
        }
      }
      // Invisible barriers keep walking enemies on their section.
      if (!isWall(this.getObj(currX - 1, currY))) this.setObj(currX - 1, currY, ENEMY_BARRIER);
      currX += dx;
      this.setObj(currX, currY, ENEMY_BARRIER);
    }
    this.setObj(currX, currY, GOAL);
    this.fillGroundBlock(currX, 0, 1, currY);
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
    if (this.options.distributionMode === EASY_MODE) {
      this.agent.imageTheme = 0;
      this.wallTheme = 0;
      this.backgroundIndex = 0; // the engine's draw is overridden: easy levels all use alien_bg
    } else {
      this.chooseRandomTheme(this.agent);
      this.wallTheme = this.randGen.randn(GROUND_THEMES.length);
    }
    const a = this.agent;
    a.rx = 0.5;
    a.ry = f(0.5787);
    a.x = 1 + a.rx;
    a.y = 1 + a.ry;
    this.lastAgentY = a.y;
    this.isOnCrate = false;
    this.fillElem(0, 0, this.mainWidth, 1, WALL_TOP);
    this.fillElem(0, 0, 1, this.mainHeight, WALL_MID);
    this.fillElem(this.mainWidth - 1, 0, 1, this.mainHeight, WALL_MID);
    this.fillElem(0, this.mainHeight - 1, this.mainWidth, 1, WALL_MID);
    this.generateCoinToTheRight();
  }

  /** Cells the agent can stand on (made once: a closure per step is garbage). */
  private readonly isSupport = (o: number) => isWall(o) || o === this.outOfBoundsObject;

  /** Up jumps only with support (ground, a crate landed on, standing still vertically). */
  override setActionXY(moveAct: number): void {
    this.actionVx = Math.trunc(moveAct / 3) - 1;
    this.actionVy = (moveAct % 3) - 1;
    if (this.actionVx > 0) this.facingRight = true;
    if (this.actionVx < 0) this.facingRight = false;
    this.hasSupport = (this.isOnCrate || this.standsOn(this.isSupport)) && this.agent.vy === 0;
    this.isOnCrate = false;
    if (this.actionVy === 1 && !this.hasSupport) this.actionVy = 0;
  }

  override gameStep(): void {
    super.gameStep();
    this.faceMoveDirection();
    for (let i = this.entities.length - 1; i >= 0; i--) {
      const ent = this.entities[i];
      if (ent.type === ENEMY) {
        // Walking enemies leave a fading trail of small puffs.
        const trail = this.addEntityRxy(ent.x, ent.y - ent.ry * 0.5, 0, f(0.01), f(0.3), f(0.2), TRAIL);
        trail.expireTime = 8;
        trail.alpha = 0.5;
        ent.imageType = Math.trunc(this.curTime / 5) % 2 === 0 ? ENEMY1 : ENEMY2;
        ent.isReflected = ent.vx > 0;
      } else if (ent.type === SAW) {
        ent.imageType = this.curTime % 2 === 0 ? SAW : SAW2;
      }
    }
    this.lastAgentY = this.agent.y;
  }
}
