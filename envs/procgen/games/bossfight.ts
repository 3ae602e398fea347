// BossFight (procgen `games/bossfight.cpp`): a boss with 1..5 rounds of 1..9 health each. Its shield drops
// periodically; each round won pays +1, destroying it +10 more and ends the episode. Touching the boss, a
// meteor barrier or a boss bullet ends it. Only "D" (action 9) fires.

import { EXPLOSION, Entity } from "../entity.ts";
import { BasicAbstractGame, EASY_MODE, type GameOptions } from "../game.ts";
import type { BackgroundGroup } from "../resources.ts";

/** procgen's PI is a float. */
const PI_F = Math.fround(Math.PI);
const f = Math.fround;
const COMPLETION_BONUS = 10;
const POSITIVE_REWARD = 1;

const PLAYER_BULLET = 1;
const BOSS = 2;
const SHIELDS = 3;
const ENEMY_BULLET = 4;
const LASER_TRAIL = 5;
const REFLECTED_BULLET = 6;
const BARRIER = 7;

const BOSS_R = 3;
const NUM_ATTACK_MODES = 4;
const NUM_LASER_THEMES = 3;
const PLAYER_BULLET_VEL = 1;
const BOTTOM_MARGIN = 6;
const BOSS_VEL_TIMEOUT = 20;
const BOSS_DAMAGED_TIMEOUT = 40;

const misc = (names: string[]) => names.map((n) => `misc_assets/${n}.png`);
const LASERS = misc(["laserGreen14", "laserRed11", "laserBlue09"]);

export class BossFight extends BasicAbstractGame {
  boss!: Entity;
  shields!: Entity;
  attackModes: number[] = [];
  lastFireTime = 0;
  timeToSwap = 0;
  invulnerableDuration = 0;
  vulnerableDuration = 0;
  numRounds = 0;
  roundNum = 0;
  roundHealth = 0;
  bossVelTimeout = 0;
  currVelTimeout = 0;
  attackMode = 0;
  playerLaserTheme = 0;
  bossLaserTheme = 0;
  damagedUntilTime = 0;
  shieldsAreUp = false;
  baseFireProb = 0;
  bossBulletVel = 0;
  // The four draws of every step, kept for the collision pass of the next step (it runs before the new draws).
  randPct = 0;
  randFirePct = 0;
  randPctX = 0;
  randPctY = 0;

  constructor(options: Partial<GameOptions> = {}) {
    super("bossfight", options);
    this.timeout = 4000;
    this.mainWidth = 20;
    this.mainHeight = 20;
    this.mixrate = 0.5;
    this.maxspeed = Math.fround(0.85);
  }

  override backgroundGroup(): BackgroundGroup {
    return "space_backgrounds";
  }

  override assetForType(type: number): string[] {
    switch (type) {
      case 0:
        return misc(["playerShip1_blue", "playerShip1_green", "playerShip2_orange", "playerShip3_red"]);
      case BOSS:
        return misc(["enemyShipBlack1", "enemyShipBlue2", "enemyShipGreen3", "enemyShipRed4"]);
      case ENEMY_BULLET:
      case PLAYER_BULLET:
        return LASERS;
      case SHIELDS:
        return misc(["shield2"]);
      case BARRIER:
        return misc([
          "spaceMeteors_001",
          "spaceMeteors_002",
          "spaceMeteors_003",
          "spaceMeteors_004",
          "meteorGrey_big1",
          "meteorGrey_big2",
          "meteorGrey_big3",
          "meteorGrey_big4",
        ]);
      default:
        return [];
    }
  }

  override handleAgentCollision(obj: Entity): void {
    if (obj.type === BOSS || obj.type === BARRIER || obj.type === ENEMY_BULLET) this.stepData.done = true;
  }

  override shouldDrawEntity(ent: Entity): boolean {
    return ent.type === SHIELDS ? this.shieldsAreUp : true;
  }

  override handleCollision(src: Entity, target: Entity): void {
    if (src.type === PLAYER_BULLET) {
      let willErase = false;
      if (target.type === SHIELDS) {
        if (this.shieldsAreUp) {
          // Bounced off the shield: harmless from now on, fading out in 4 steps.
          src.type = REFLECTED_BULLET;
          const theta = f(PI_F * (1.25 + 0.5 * this.randPct));
          src.vy = PLAYER_BULLET_VEL * Math.sin(theta) * 0.5;
          src.vx = PLAYER_BULLET_VEL * Math.cos(theta) * 0.5;
          src.expireTime = 4;
          src.lifeTime = 0;
          src.alphaDecay = Math.fround(0.8);
        }
      } else if (target.type === BOSS) {
        if (!this.shieldsAreUp) {
          target.health -= 1;
          willErase = true;
          if (Math.trunc(target.health) % this.roundHealth === 0) {
            this.stepData.reward += POSITIVE_REWARD;
            if (target.health === 0) {
              this.stepData.done = true;
              this.stepData.reward += COMPLETION_BONUS;
              this.stepData.levelComplete = true;
            } else {
              this.roundNum++;
              this.prepareBoss();
              this.currVelTimeout = BOSS_DAMAGED_TIMEOUT;
              this.damagedUntilTime = this.curTime + BOSS_DAMAGED_TIMEOUT;
            }
          }
        }
      }
      if (willErase && !src.willErase) {
        src.willErase = true;
        const explosion = this.spawnChild(src, EXPLOSION, 0.5 * src.rx);
        explosion.vx = target.vx;
        explosion.vy = target.vy;
      }
    } else if (src.type === BARRIER) {
      if (target.type === ENEMY_BULLET || target.type === PLAYER_BULLET) {
        target.willErase = true;
        this.spawnChild(target, EXPLOSION, 0.5 * target.rx);
      } else if (target.type === LASER_TRAIL) {
        target.willErase = true;
      }
      // Barrier health is never decremented, so this never fires; kept as in procgen.
      if (src.health <= 0) {
        if (!src.willErase) {
          const explosion = this.spawnChild(src, EXPLOSION, 0.5 * src.rx);
          explosion.vx = src.vx;
          explosion.vy = src.vy;
        }
        src.willErase = true;
      }
    }
  }

  prepareBoss(): void {
    this.shieldsAreUp = true;
    this.currVelTimeout = this.bossVelTimeout;
    this.timeToSwap = this.invulnerableDuration;
    this.attackMode = this.attackModes[this.roundNum % this.attackModes.length];
    this.boss.vx = 0;
    this.boss.vy = 0;
  }

  override gameReset(): void {
    super.gameReset();
    const rand = this.randGen;
    this.damagedUntilTime = 0;
    this.lastFireTime = 0;
    this.bossBulletVel = this.options.distributionMode === EASY_MODE ? 0.5 : 0.75;
    const maxExtraInvulnerable = this.options.distributionMode === EASY_MODE ? 1 : 3;
    this.options.centerAgent = false;
    this.boss = this.addEntity(this.mainWidth / 2, this.mainHeight / 2, 0, 0, BOSS_R, BOSS);
    this.chooseRandomTheme(this.boss);
    this.matchAspectRatio(this.boss);
    this.shields = this.addEntityRxy(this.boss.x, this.boss.y, 0, 0, 1.2 * this.boss.rx, 1.2 * this.boss.ry, SHIELDS);
    this.bossVelTimeout = BOSS_VEL_TIMEOUT;
    this.baseFireProb = Math.fround(0.1);
    this.roundHealth = rand.randn(9) + 1;
    this.numRounds = 1 + rand.randn(5);
    this.invulnerableDuration = 2 + rand.randn(maxExtraInvulnerable + 1);
    this.vulnerableDuration = 500; // essentially forever
    this.boss.health = this.roundHealth * this.numRounds;
    this.chooseRandomTheme(this.agent);
    this.playerLaserTheme = rand.randn(NUM_LASER_THEMES);
    this.bossLaserTheme = rand.randn(NUM_LASER_THEMES);
    this.attackModes = [];
    for (let i = 0; i < this.numRounds; i++) this.attackModes.push(rand.randn(NUM_ATTACK_MODES));
    this.roundNum = 0;
    this.prepareBoss();
    this.agent.rx = 0.75;
    this.matchAspectRatio(this.agent);
    this.repositionAgent();
    this.agent.y = this.agent.ry; // the drawn y is discarded, but its draws count
    rand.randbool(); // barriers_moves_right: drawn, never used
    this.spawnBarriers();
  }

  spawnBarriers(): void {
    const rand = this.randGen;
    const count = rand.randn(3) + 1;
    for (let i = 0; i < count; i++) {
      const r = Math.fround(0.6);
      // float arithmetic (the + .5 is double, rounded when stored).
      const minY = f(f(f(2 * this.agent.ry) + r) + 0.5);
      const y = f(f(rand.rand01() * f(f(BOTTOM_MARGIN - minY) - r)) + minY);
      const x = f(f(rand.rand01() * f(this.mainWidth - f(2 * r))) + r);
      const ent = new Entity(x, y, 0, 0, r, r, BARRIER);
      this.chooseRandomTheme(ent);
      this.matchAspectRatio(ent);
      ent.health = 3;
      ent.collidesWithEntities = true;
      if (!this.hasAnyCollision(ent)) this.entities.push(ent);
    }
  }

  bossFire(r: number, vel: number, theta: number): void {
    // theta arrives as a float; the double cos and sin, products rounded to float when passed on.
    theta = f(theta);
    const bullet = this.addEntity(
      this.boss.x,
      this.boss.y,
      f(vel * Math.cos(theta)),
      f(vel * Math.sin(theta)),
      r,
      ENEMY_BULLET,
    );
    bullet.imageTheme = this.bossLaserTheme;
    bullet.expireTime = 50;
    bullet.vrot = PI_F / 8;
  }

  activeAttack(): void {
    const t = this.curTime;
    const v = this.bossBulletVel;
    if (this.attackMode === 0) {
      // procgen's angle expressions mix its float PI with double constants; the float parts are rounded here.
      if (t % 8 === 0) for (let i = 0; i < 5; i++) this.bossFire(0.5, v, PI_F * 1.5 + f(f((i - 2) * PI_F) / 8));
    } else if (this.attackMode === 1) {
      if (t % 5 === 0) {
        const k = Math.abs(8 - (Math.trunc(t / 5) % 16));
        for (let i = 0; i < 4; i++) this.bossFire(0.5, v, PI_F * (1.25 + (0.5 * k) / 8) + f(f(i * PI_F) / 2));
      }
    } else if (this.attackMode === 2) {
      if (t % 10 === 0) {
        const offset = f(f(this.randPct * 2) * PI_F);
        for (let i = 0; i < 8; i++) this.bossFire(0.5, v, f(f(f(2 * PI_F) / 8) * i) + offset);
      }
    } else if (this.attackMode === 3) {
      if (t % 4 === 0) this.bossFire(0.5, v, PI_F * f(1 + this.randPct));
    }
  }

  override gameStep(): void {
    super.gameStep();
    const rand = this.randGen;
    this.shields.x = this.boss.x;
    this.shields.y = this.boss.y;
    this.randPct = rand.rand01();
    this.randFirePct = rand.rand01();
    this.randPctX = rand.rand01();
    this.randPctY = rand.rand01();
    if (this.currVelTimeout <= 0) {
      // A new destination every 20 steps; the shield clock ticks once per segment.
      // float arithmetic, one rounding per operation.
      const destX = f(f(this.randPctX * f(this.mainWidth - 2 * BOSS_R)) + BOSS_R);
      const destY = f(f(f(this.randPctY * f(this.mainHeight - 2 * BOSS_R - BOTTOM_MARGIN)) + BOSS_R) + BOTTOM_MARGIN);
      this.boss.vx = f(f(destX - this.boss.x) / this.bossVelTimeout);
      this.boss.vy = f(f(destY - this.boss.y) / this.bossVelTimeout);
      this.currVelTimeout = this.bossVelTimeout;
      if (this.timeToSwap > 0) {
        this.timeToSwap -= 1;
      } else {
        this.timeToSwap = this.shieldsAreUp ? this.vulnerableDuration : this.invulnerableDuration;
        this.shieldsAreUp = !this.shieldsAreUp;
      }
    } else {
      this.currVelTimeout -= 1;
    }
    if (this.specialAction === 1 && this.curTime - this.lastFireTime >= 3) {
      const bullet = this.addEntity(this.agent.x, this.agent.y, 0, PLAYER_BULLET_VEL, 0.25, PLAYER_BULLET);
      bullet.imageTheme = this.playerLaserTheme;
      bullet.collidesWithEntities = true;
      bullet.expireTime = 25;
      this.lastFireTime = this.curTime;
    }
    if (this.damagedUntilTime >= this.curTime) {
      if (this.curTime % 3 === 0) {
        const x = f(this.boss.x + f(f(2 * this.randPctX - 1) * this.boss.rx));
        const y = f(this.boss.y + f(f(2 * this.randPctY - 1) * this.boss.ry));
        this.addEntity(x, y, 0, 0, 0.75, EXPLOSION);
      }
    } else if (this.shieldsAreUp) {
      this.activeAttack();
    } else if (this.randFirePct < this.baseFireProb) {
      this.bossFire(0.5, this.bossBulletVel, PI_F * f(1 + this.randPct));
    }
    for (let i = this.entities.length - 1; i >= 0; i--) {
      const ent = this.entities[i];
      if (ent.type !== ENEMY_BULLET) continue;
      const trail = this.addEntityRxy(ent.x, ent.y, ent.vx * 0.5, ent.vy * 0.5, ent.rx, ent.ry, LASER_TRAIL);
      trail.alphaDecay = Math.fround(0.7);
      trail.imageType = ENEMY_BULLET;
      trail.imageTheme = this.bossLaserTheme;
      trail.vrot = ent.vrot;
      trail.rotation = ent.rotation;
      trail.expireTime = 8;
    }
  }
}
