// CaveFlyer (procgen `games/caveflyer.cpp`): an Asteroids-style ship in a cave. Left/right rotate, up thrusts
// forward, down backward at a third; "D" fires a laser every step (speed 1, 10 steps). Reaching the green UFO: +10
// and the end. About free/80 each of meteors (lethal), red UFO targets (5 hits: +3; touching them is lethal) and
// moving enemy ships (lethal) fill the cave; cave walls block but do not kill. World 30 / 40 / 60 (easy / hard /
// memory); the camera follows the ship with visibility 10 (easy) / 16. Known (procgen too): ~0.5% of levels are
// lost on the first step.

import { EXPLOSION, type Entity, PLAYER, SPACE, WALL_OBJ } from "../entity.ts";
import { BasicAbstractGame, EASY_MODE, type GameOptions, HARD_MODE, MEMORY_MODE } from "../game.ts";
import type { BackgroundGroup } from "../resources.ts";
import { RoomGenerator } from "../roomgen.ts";

/** procgen's PI is a float. */
const PI_F = Math.fround(Math.PI);
const GOAL_REWARD = 10;
const TARGET_REWARD = 3;
const GOAL = 1;
const OBSTACLE = 2;
const TARGET = 3;
const PLAYER_BULLET = 4;
const ENEMY = 5;
const CAVEWALL = 8;
const EXHAUST = 9;
const MARKER = 1003;
const f = Math.fround;

export class CaveFlyer extends BasicAbstractGame {
  private readonly rooms = new RoomGenerator(this);

  constructor(options: Partial<GameOptions> = {}) {
    super("caveflyer", options);
    this.mixrate = f(0.9);
  }

  override useBlockAsset(type: number): boolean {
    return type === CAVEWALL;
  }

  override backgroundGroup(): BackgroundGroup {
    return "space_backgrounds";
  }

  override assetForType(type: number): string[] {
    const names: Record<number, string> = {
      [GOAL]: "ufoGreen2",
      [OBSTACLE]: "meteorBrown_big1",
      [TARGET]: "ufoRed2",
      [PLAYER_BULLET]: "laserBlue02",
      [ENEMY]: "enemyShipBlue4",
      [PLAYER]: "playerShip1_red",
      [CAVEWALL]: "groundA",
      [EXHAUST]: "towerDefense_tile295",
    };
    return names[type] === undefined ? [] : [`misc_assets/${names[type]}.png`];
  }

  override handleAgentCollision(obj: Entity): void {
    if (obj.type === GOAL) {
      this.stepData.reward += GOAL_REWARD;
      this.stepData.levelComplete = true;
      this.stepData.done = true;
    } else if (obj.type === OBSTACLE || obj.type === ENEMY || obj.type === TARGET) {
      this.stepData.done = true;
    }
  }

  /** Thrust adds to the velocity (a fifth of the usual mix), then the usual 0.9 decay. */
  override updateAgentVelocity(): void {
    // float products, then procgen's double .2 (the sum is rounded when stored).
    const s = f(this.getAgentAccelerationScale());
    const k = f(this.mixrate * this.maxspeed);
    this.agent.vx += f(f(k * this.actionVx) * s) * 0.2;
    this.agent.vy += f(f(k * this.actionVy) * s) * 0.2;
    this.decayAgentVelocity();
  }

  override isBlocked(src: Entity, target: number, isHorizontal: boolean): boolean {
    return super.isBlocked(src, target, isHorizontal) || (src.type === PLAYER && target === CAVEWALL);
  }

  override handleCollision(src: Entity, target: Entity): void {
    if (target.type !== PLAYER_BULLET) return;
    let eraseBullet = false;
    if (src.type === TARGET) {
      src.health -= 1;
      eraseBullet = true;
      if (src.health <= 0 && !src.willErase) {
        this.spawnChild(src, EXPLOSION, 0.5 * src.rx);
        src.willErase = true;
        this.stepData.reward += TARGET_REWARD;
      }
    } else if (src.type === OBSTACLE || src.type === ENEMY || src.type === GOAL) {
      eraseBullet = true;
    }
    if (eraseBullet && !target.willErase) {
      target.willErase = true;
      const explosion = this.spawnChild(target, EXPLOSION, 0.5 * target.rx);
      explosion.vx = src.vx;
      explosion.vy = src.vy;
    }
  }

  override willReflect(src: number, target: number): boolean {
    return src === ENEMY && (target === CAVEWALL || target === this.outOfBoundsObject);
  }

  override chooseWorldDim(): void {
    const mode = this.options.distributionMode;
    const dim = mode === EASY_MODE ? 30 : mode === HARD_MODE ? 40 : mode === MEMORY_MODE ? 60 : 20;
    this.mainWidth = dim;
    this.mainHeight = dim;
  }

  override gameReset(): void {
    super.gameReset();
    const g = this.grid;
    const W = this.mainWidth;
    this.outOfBoundsObject = WALL_OBJ;
    // Noise, smoothed into caves; keep the largest cave.
    for (let i = 0; i < g.length; i++) g[i] = this.randGen.rand01() < 0.5 ? WALL_OBJ : SPACE;
    for (let it = 0; it < 4; it++) this.rooms.update();
    const best = this.rooms.findBestRoom();
    if (best.length === 0) throw new Error("caveflyer: empty cave");
    g.fill(WALL_OBJ);
    for (const i of best) g[i] = SPACE;
    const [ai, gi] = this.randGen.simpleChoose(best.length, 2);
    const agentCell = best[ai];
    const goalCell = best[gi];
    this.agent.x = (agentCell % W) + 0.5;
    this.agent.y = Math.trunc(agentCell / W) + 0.5;
    this.spawnEntityAtIdx(goalCell, 0.5, GOAL).collidesWithEntities = true;
    const path = this.rooms.findPath(agentCell, goalCell);
    // Except in memory mode, only the cave within 4 cells of the start-goal path is kept.
    if (this.options.distributionMode !== MEMORY_MODE) {
      const wide = new Set(path);
      this.rooms.expandRoom(wide, 4);
      g.fill(WALL_OBJ);
      for (const i of wide) g[i] = SPACE;
    }
    for (let it = 0; it < 4; it++) {
      this.rooms.update();
      for (const i of path) g[i] = SPACE;
    }
    for (const i of path) g[i] = MARKER;
    // Objects go on open cells off the path: a third each of meteors, targets and enemy ships.
    const free: number[] = [];
    for (let i = 0; i < g.length; i++) {
      if (g[i] === SPACE) free.push(i);
      else if (g[i] === WALL_OBJ) g[i] = CAVEWALL;
    }
    const chunk = Math.trunc(free.length / 80);
    const numObjs = 3 * chunk;
    const picks = this.randGen.simpleChoose(free.length, numObjs);
    for (let k = 0; k < numObjs; k++) {
      const cell = free[picks[k]];
      if (k < chunk) {
        this.spawnEntityAtIdx(cell, 0.5, OBSTACLE).collidesWithEntities = true;
      } else if (k < 2 * chunk) {
        const t = this.spawnEntityAtIdx(cell, 0.5, TARGET);
        t.health = 5;
        t.collidesWithEntities = true;
      } else {
        const e = this.spawnEntityAtIdx(cell, 0.5, ENEMY);
        // (procgen's speed expression draws rand01 then randn; gcc evaluates that product's operands in order.)
        const speed = f(0.1 * this.randGen.rand01() + 0.1);
        const vel = f(speed * (this.randGen.randn(2) * 2 - 1));
        if (this.randGen.rand01() < 0.5) e.vx = vel;
        else e.vy = vel;
        e.smartStep = true;
        e.collidesWithEntities = true;
      }
    }
    for (let i = 0; i < g.length; i++) if (g[i] === MARKER) g[i] = SPACE;
    this.outOfBoundsObject = CAVEWALL;
    this.visibility = this.options.distributionMode === EASY_MODE ? 10 : 16;
  }

  /** Left/right turn; up thrusts along the nose (with an exhaust puff), down backwards at a third. */
  override setActionXY(moveAct: number): void {
    let acceleration = (moveAct % 3) - 1;
    if (acceleration < 0) acceleration *= f(0.33);
    // float theta; cos and sin are the double functions, each expression rounded to float where it is stored.
    const theta = f(-this.agent.rotation + PI_F / 2);
    const cos = Math.cos(theta);
    const sin = Math.sin(theta);
    if (acceleration > 0) {
      const a = this.agent;
      const exhaust = this.addEntity(f(a.x - a.rx * cos), f(a.y - a.ry * sin), 0, 0, 0.5 * a.rx, EXHAUST);
      exhaust.expireTime = 4;
      exhaust.rotation = f(-theta - PI_F / 2);
      exhaust.growRate = 1.25;
      exhaust.alphaDecay = f(0.8);
    }
    this.actionVy = f(acceleration * sin);
    this.actionVx = f(acceleration * cos);
    this.actionVrot = Math.trunc(moveAct / 3) - 1;
  }

  override gameStep(): void {
    super.gameStep();
    if (this.specialAction === 1) {
      const theta = f(-this.agent.rotation + PI_F / 2);
      const laser = this.addEntityRxy(
        this.agent.x,
        this.agent.y,
        f(Math.cos(theta)),
        f(Math.sin(theta)),
        f(0.1),
        f(0.25),
        PLAYER_BULLET,
      );
      laser.expireTime = 10;
      laser.rotation = this.agent.rotation;
    }
    for (let k = this.entities.length - 1; k >= 0; k--) {
      const ent = this.entities[k];
      if (ent.type === ENEMY) ent.faceDirection(ent.vx, ent.vy, f(-PI_F / 2));
      if (ent.type !== PLAYER_BULLET) continue;
      // Lasers stop (with a small explosion) at the first cave wall any corner touches.
      let wall = false;
      for (let i = 0; i < 2; i++) {
        for (let j = 0; j < 2; j++)
          wall = wall || this.getObjFromFloats(ent.x + ent.rx * (2 * i - 1), ent.y + ent.ry * (2 * j - 1)) === CAVEWALL;
      }
      if (wall) {
        ent.willErase = true;
        this.spawnChild(ent, EXPLOSION, 0.5 * ent.rx);
      }
    }
    this.eraseIfNeeded();
  }
}
