// Dodgeball (procgen `games/dodgeball.cpp`): a room split into sub-rooms by lava walls (touching one kills). 3-6
// slow enemies wander and throw a ball along their row or column when lined up with the agent (at most every 50
// steps); their balls kill. The agent throws with "D" (every 7 steps) in its last move direction; each enemy hit
// pays +2; with every enemy gone the exit door opens: +10. Easy: sizes, ball speeds doubled, maxspeed 0.75; hard
// x1.5, maxspeed 0.5; extreme x1, maxspeed 0.25; memory: a 40-wide world, 16 splits, camera on the agent.

import { type Entity, PLAYER } from "../entity.ts";
import { BasicAbstractGame, EASY_MODE, EXTREME_MODE, type GameOptions, HARD_MODE, MEMORY_MODE } from "../game.ts";
import type { BackgroundGroup } from "../resources.ts";

const COMPLETION_BONUS = 10;
const LAVA_WALL = 1;
const PLAYER_BALL = 3;
const ENEMY = 4;
const DOOR = 5;
const ENEMY_BALL = 6;
const DOOR_OPEN = 7;
const DUST_CLOUD = 8;
const OOB_WALL = 10;
const ENEMY_REWARD = 2;
const NUM_ENEMY_THEMES = 7;
const ENEMY_FIRE_DELAY = 50;
const f = Math.fround;
const ENEMY_VEL = f(0.05);
/** float: procgen's float PI times 0.23f. */
const BALL_V_ROT = f(f(Math.PI) * f(0.23));

interface Room {
  x: number;
  y: number;
  w: number;
  h: number;
}

export class Dodgeball extends BasicAbstractGame {
  rooms: Room[] = [];
  minDim = 0;
  hardMinDim = 0;
  ballVscale = 0;
  ballR = 0;
  lastFireTime = 0;
  numEnemies = 0;

  constructor(options: Partial<GameOptions> = {}) {
    super("dodgeball", options);
    this.mixrate = 0.5;
    this.outOfBoundsObject = OOB_WALL;
  }

  override useBlockAsset(type: number): boolean {
    return type === LAVA_WALL || type === DOOR || type === DOOR_OPEN;
  }

  override backgroundGroup(): BackgroundGroup {
    return "topdown_backgrounds";
  }

  override assetForType(type: number): string[] {
    const m = (names: string[]) => names.map((n) => `misc_assets/${n}.png`);
    if (type === PLAYER) return m(["character12"]);
    if (type === PLAYER_BALL) return m(["ball_soccer1"]);
    if (type === ENEMY) return m(Array.from({ length: 11 }, (_, i) => `character${i + 1}`));
    if (type === DOOR) return m(["blockRed"]);
    if (type === ENEMY_BALL) return m(["ball_soccer2"]);
    if (type === DOOR_OPEN) return m(["blockGreen"]);
    if (type === LAVA_WALL || type === OOB_WALL) return m(["tileStone_slope2"]);
    if (type === DUST_CLOUD) return m(Array.from({ length: 9 }, (_, i) => `spaceEffect${i + 1}`));
    return [];
  }

  override imageForType(type: number): number {
    if (type === DOOR) return this.numEnemies === 0 ? DOOR_OPEN : DOOR;
    return Math.abs(type);
  }

  override willReflect(src: number, target: number): boolean {
    return src === ENEMY && (target === LAVA_WALL || target === this.outOfBoundsObject);
  }

  override handleAgentCollision(obj: Entity): void {
    if (obj.type === ENEMY || obj.type === ENEMY_BALL || obj.type === LAVA_WALL) {
      this.stepData.done = true;
    } else if (obj.type === DOOR && this.numEnemies === 0) {
      this.stepData.done = true;
      this.stepData.reward += COMPLETION_BONUS;
      this.stepData.levelComplete = true;
    }
  }

  override handleCollision(src: Entity, target: Entity): void {
    if (target.type === PLAYER_BALL) {
      if (src.type === LAVA_WALL) {
        target.willErase = true;
      } else if (src.type === ENEMY) {
        src.health -= 1;
        target.willErase = true;
        if (src.health <= 0 && !src.willErase) {
          src.willErase = true;
          this.stepData.reward += ENEMY_REWARD;
          const dust = this.spawnChild(src, DUST_CLOUD, src.rx);
          dust.vrot = f(Math.PI) / f(0.3);
          dust.growRate = f(1 / f(1.2));
          dust.expireTime = 4;
          dust.alphaDecay = f(0.9);
          this.chooseStepRandomTheme(dust);
        }
      }
    } else if (target.type === ENEMY_BALL && src.type === LAVA_WALL) {
      target.willErase = true;
    }
  }

  private addRoom(room: Room): void {
    if ((room.w >= this.minDim || room.h >= this.minDim) && room.w >= this.hardMinDim && room.h >= this.hardMinDim)
      this.rooms.push(room);
  }

  /** One lava wall across part of a room (a quarter to three quarters of it open), and the rooms it leaves. */
  private splitRoom(room: Room, thickness: number): void {
    let splitWidth = this.randGen.rand01() < 0.5;
    const choice2 = this.randGen.rand01() < 0.5;
    if (room.w < this.minDim) splitWidth = false;
    if (room.h < this.minDim) splitWidth = true;
    const { x: rx, y: ry, w: rw, h: rh } = room;
    const gap = f(0.25 * (this.randGen.randn(3) + 1));
    const pct = 1 - gap;
    if (!splitWidth) {
      const wh = f(pct * rh);
      // float arithmetic, one rounding per operation.
      const wy = choice2 ? ry : f(ry + f((1 - pct) * rh));
      const remy = choice2 ? f(ry + f(pct * rh)) : ry;
      this.addEntityRxy(rx + rw / 2, wy + wh / 2, 0, 0, thickness, wh / 2, LAVA_WALL);
      const nextw = f(rw / 2 - thickness);
      this.addRoom({ x: rx, y: wy, w: nextw, h: wh });
      this.addRoom({ x: f(f(rx + rw / 2) + thickness), y: wy, w: nextw, h: wh });
      this.addRoom({ x: rx, y: remy, w: rw, h: f(rh - wh) });
    } else {
      const ww = f(pct * rw);
      const wx = choice2 ? rx : f(rx + f((1 - pct) * rw));
      const remx = choice2 ? f(rx + f(pct * rw)) : rx;
      this.addEntityRxy(wx + ww / 2, ry + rh / 2, 0, 0, ww / 2, thickness, LAVA_WALL);
      const nexth = f(rh / 2 - thickness);
      this.addRoom({ x: wx, y: ry, w: ww, h: nexth });
      this.addRoom({ x: wx, y: f(f(ry + rh / 2) + thickness), w: ww, h: nexth });
      this.addRoom({ x: remx, y: ry, w: f(rw - ww), h: rh });
    }
  }

  /** A new axis-aligned direction, kept for 25-74 steps. */
  private chooseVel(ent: Entity): void {
    const vel = ENEMY_VEL * (this.randGen.randn(2) * 2 - 1);
    if (this.randGen.randn(2) === 0) {
      ent.vx = vel;
      ent.vy = 0;
    } else {
      ent.vy = vel;
      ent.vx = 0;
    }
    ent.spawnTime = this.randGen.randn(50) + 25;
  }

  override getTileAspectRatio(ent: Entity): number {
    if (ent.type === LAVA_WALL) return ent.rx > ent.ry ? 1 : -1;
    return 0;
  }

  override chooseWorldDim(): void {
    const dim = this.options.distributionMode === MEMORY_MODE ? 40 : 20;
    this.mainWidth = dim;
    this.mainHeight = dim;
  }

  override gameReset(): void {
    super.gameReset();
    const mode = this.options.distributionMode;
    this.options.centerAgent = mode === MEMORY_MODE;
    this.lastFireTime = 0;
    this.rooms = [{ x: 0, y: 0, w: this.mainWidth, h: this.mainHeight }];
    let thickness = f(0.3);
    let enemyR = 0.5;
    let exitR = 0.75;
    this.ballR = 0.25;
    this.ballVscale = 0.25;
    let numIterations = 0;
    let maxExtraEnemies = 3;
    const a = this.agent;
    if (mode === EASY_MODE || mode === HARD_MODE || mode === MEMORY_MODE) {
      const k = mode === EASY_MODE ? 2 : 1.5;
      thickness = f(thickness * k);
      enemyR *= k;
      this.ballR *= k;
      this.ballVscale *= k;
      this.maxspeed = mode === EASY_MODE ? 0.75 : 0.5;
      a.rx = a.ry = mode === EASY_MODE ? 1 : 0.75;
      if (mode === EASY_MODE) exitR *= 2;
      numIterations = mode === EASY_MODE ? 2 : mode === HARD_MODE ? 4 : 16;
      if (mode === MEMORY_MODE) maxExtraEnemies = 16;
    } else if (mode === EXTREME_MODE) {
      numIterations = 8;
      this.maxspeed = 0.25;
    }
    this.hardMinDim = f(f(4 * a.rx + 2 * thickness) + 0.5);
    this.minDim = f(a.rx * 8 + 0.5);
    for (let it = 0; it < numIterations && this.rooms.length > 0; it++) {
      const idx = this.randGen.randn(this.rooms.length);
      const [room] = this.rooms.splice(idx, 1);
      this.splitRoom(room, thickness);
    }
    // The exit door on one of the four sides.
    const doorLen = 2 * exitR;
    const W = this.mainWidth;
    const H = this.mainHeight;
    const side = this.randGen.randn(4);
    if (side === 0) this.spawnEntityRxy(doorLen / 2, exitR, DOOR, 0, 0, W, 2 * exitR);
    else if (side === 1) this.spawnEntityRxy(doorLen / 2, exitR, DOOR, 0, H - 2 * exitR, W, 2 * exitR);
    else if (side === 2) this.spawnEntityRxy(exitR, doorLen / 2, DOOR, 0, 0, 2 * exitR, H);
    else this.spawnEntityRxy(exitR, doorLen / 2, DOOR, W - 2 * exitR, 0, 2 * exitR, H);
    this.repositionAgent();
    this.numEnemies = this.randGen.randn(maxExtraEnemies + 1) + 3;
    this.spawnEntities(this.numEnemies, enemyR, ENEMY, 0, 0, W, H);
    const enemyTheme = this.randGen.randn(NUM_ENEMY_THEMES);
    for (const ent of this.entities) {
      if (ent.type === ENEMY) {
        ent.imageTheme = enemyTheme;
        ent.health = 1;
        ent.spawnTime = 0;
        // fire_time holds the time of the enemy's last throw.
        ent.fireTime = 10;
        ent.collidesWithEntities = true;
        ent.smartStep = true;
        this.chooseVel(ent);
        ent.faceDirection(ent.vx, ent.vy);
      } else if (ent.type === LAVA_WALL) {
        ent.collidesWithEntities = true;
      }
    }
    a.faceDirection(1, 0);
  }

  private fireBall(ent: Entity, vx: number, vy: number): void {
    const ball = this.addEntity(ent.x, ent.y, vx * this.ballVscale, vy * this.ballVscale, this.ballR, ENEMY_BALL);
    ent.fireTime = this.curTime + this.randGen.randn(4);
    ball.vrot = BALL_V_ROT;
    ball.expireTime = 50;
  }

  override gameStep(): void {
    super.gameStep();
    const vx = Math.trunc(this.lastMoveAction / 3) - 1;
    const vy = (this.lastMoveAction % 3) - 1;
    this.agent.faceDirection(vx, vy);
    if (this.specialAction === 1 && this.curTime - this.lastFireTime >= 7) {
      const ball = this.addEntity(
        this.agent.x,
        this.agent.y,
        vx * this.ballVscale,
        vy * this.ballVscale,
        this.ballR,
        PLAYER_BALL,
      );
      ball.collidesWithEntities = true;
      ball.expireTime = 50;
      ball.vrot = BALL_V_ROT;
      this.lastFireTime = this.curTime;
    }
    this.numEnemies = 0;
    for (let i = this.entities.length - 1; i >= 0; i--) {
      const ent = this.entities[i];
      if (ent.type === ENEMY) {
        this.numEnemies++;
        // spawn_time counts down to the next change of direction.
        if (ent.spawnTime === 0) this.chooseVel(ent);
        else ent.spawnTime -= 1;
        if (this.curTime - ent.fireTime >= ENEMY_FIRE_DELAY) {
          const dx = ent.x - this.agent.x;
          const dy = ent.y - this.agent.y;
          const bx = ent.x < this.agent.x ? 1 : -1;
          const by = ent.y < this.agent.y ? 1 : -1;
          // Throws only along a row or column the agent is in, and walks that way.
          if (Math.abs(dx) < 1) {
            this.fireBall(ent, 0, by);
            ent.vx = 0;
            ent.vy = by * ENEMY_VEL;
          } else if (Math.abs(dy) < 1) {
            this.fireBall(ent, bx, 0);
            ent.vx = bx * ENEMY_VEL;
            ent.vy = 0;
          }
        }
        ent.faceDirection(ent.vx, ent.vy);
      } else if (ent.type === PLAYER_BALL || ent.type === ENEMY_BALL) {
        if (ent.x < ent.rx || ent.x > this.mainWidth - ent.rx || ent.y < ent.ry || ent.y > this.mainHeight - ent.ry)
          ent.willErase = true;
      }
    }
    this.eraseIfNeeded();
  }
}
