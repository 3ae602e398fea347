// StarPilot (procgen `games/starpilot.cpp`): a side-scrolling shooter. Enemies of the whole episode are scheduled
// at reset; shooting one down pays +1, reaching the finish line (which appears at step 500) pays +10 and ends
// the episode; touching an enemy, a meteor or an enemy bullet ends it.

import { EXPLOSION, Entity, PLAYER } from "../entity.ts";
import { BasicAbstractGame, EASY_MODE, EXTREME_MODE, type GameOptions, HARD_MODE } from "../game.ts";
import type { Canvas, ProcgenImage } from "../render.ts";
import type { BackgroundGroup } from "../resources.ts";

const V_SCALE = Math.fround(2 / 5);
const BG_RATIO = 18;
const ENEMY_REWARD = 1;
const COMPLETION_BONUS = 10;

const BULLET_PLAYER = 1;
const BULLET2 = 2; // flyers' shots
const BULLET3 = 3; // turrets' shots
const FLYER = 4;
const METEOR = 5;
const CLOUD = 6;
const TURRET = 7;
const FAST_FLYER = 8;
const FINISH_LINE = 9;

const SHOOTER_WIN_TIME = 500;
const NUM_BASIC_OBJECTS = 9;
const NUM_SHIP_THEMES = 7;

const misc = (names: string[]) => names.map((n) => `misc_assets/${n}.png`);
const SHIPS = misc([
  "spaceShips_001",
  "spaceShips_002",
  "spaceShips_003",
  "spaceShips_004",
  "spaceShips_005",
  "spaceShips_006",
  "spaceShips_007",
]);
const METEORS = misc([
  "spaceMeteors_001",
  "spaceMeteors_002",
  "spaceMeteors_003",
  "spaceMeteors_004",
  "meteorGrey_big1",
  "meteorGrey_big2",
  "meteorGrey_big3",
  "meteorGrey_big4",
]);

export class StarPilot extends BasicAbstractGame {
  /** Enemies not yet on screen, sorted by spawn time descending (the next one is last). */
  spawners: Entity[] = [];
  // Per-mode parameters (`init_hps`), indexed by type.
  hpVs = new Float64Array(NUM_BASIC_OBJECTS);
  hpHealths = new Float64Array(NUM_BASIC_OBJECTS);
  hpBulletR = new Float64Array(NUM_BASIC_OBJECTS);
  hpObjectR = new Float64Array(NUM_BASIC_OBJECTS);
  hpObjectProbWeight = new Float64Array(NUM_BASIC_OBJECTS);
  totalProbWeight = 0;
  hpSlowV = 0;
  hpSpawnRightThreshold = 0;
  hpMinEnemyDeltaT = 0;
  hpMaxEnemyDeltaT = 0;
  hpMaxGroupSize = 0;

  constructor(options: Partial<GameOptions> = {}) {
    super("starpilot", options);
    this.mainWidth = 16;
    this.mainHeight = 16;
  }

  override backgroundGroup(): BackgroundGroup {
    return "space_backgrounds";
  }

  override assetForType(type: number): string[] {
    switch (type) {
      case PLAYER:
        return misc(["playerShip2_blue"]);
      case BULLET_PLAYER:
        return misc(["towerDefense_tile295"]);
      case BULLET2:
        return misc(["towerDefense_tile296"]);
      case BULLET3:
        return misc(["towerDefense_tile297"]);
      case FLYER:
      case FAST_FLYER:
        return SHIPS;
      case METEOR:
        return METEORS;
      case CLOUD:
        return misc(Array.from({ length: 9 }, (_, i) => `spaceEffect${i + 1}`));
      case TURRET:
        return misc(["spaceStation_018", "spaceStation_019"]);
      case FINISH_LINE:
        return misc(["spaceRockets_001", "spaceRockets_002", "spaceRockets_003", "spaceRockets_004"]);
      default:
        return [];
    }
  }

  /**
   * The background scrolls left at the speed of the slow objects: the image stretched to 192x192-pixel squares,
   * 18 side by side from x = -0.8 * cur_time, y = -64 (only their middle third is visible).
   */
  override gameDraw(c: Canvas): void {
    c.clear();
    const img = this.options.useBackgrounds ? this.backgroundImage() : null;
    if (img !== null) this.drawScrollingBackground(c, img);
    this.drawForeground(c);
  }

  /**
   * procgen's scrolling background: the image tiled into 18 squares of 3 x 64 px from x = -0.8 * cur_time px
   * (float32, in procgen's order of operations) and y = -64 px; the clip keeps only the part in view.
   */
  drawScrollingBackground(c: Canvas, img: ProcgenImage): void {
    const f = Math.fround;
    const scale = Math.trunc(c.height / this.mainHeight);
    const xOff = f(f(f(f(-this.curTime * scale) * f(this.hpSlowV)) * 2) / this.charDim);
    const k = 3;
    c.tileImage(img, { x: xOff, y: (-c.height * (k - 1)) / 2, w: c.height * k * BG_RATIO, h: c.height * k }, 1, true);
  }

  override handleAgentCollision(obj: Entity): void {
    if (obj.type === FINISH_LINE) {
      this.stepData.done = true;
      this.stepData.reward += COMPLETION_BONUS;
      this.stepData.levelComplete = true;
    } else if (isLethal(obj.type)) {
      this.stepData.done = true;
    }
  }

  override handleCollision(src: Entity, target: Entity): void {
    if (src.type === BULLET_PLAYER && target.type !== CLOUD && isDestructible(target.type)) {
      src.willErase = true;
      target.health -= 1;
      this.addEntity(src.x, src.y, target.vx, target.vy, 0.5 * src.rx, EXPLOSION);
    }
  }

  initHps(): void {
    const mode = this.options.distributionMode;
    this.hpVs.fill(1);
    this.hpHealths.fill(0);
    this.hpObjectProbWeight.fill(1);
    this.hpObjectR.fill(0.5);
    let bulletR = 1 / 2.5;
    if (mode === EASY_MODE) {
      this.hpObjectProbWeight[METEOR] = 0;
      this.hpObjectProbWeight[CLOUD] = 0;
      this.hpObjectProbWeight[TURRET] = 0;
      this.hpObjectProbWeight[FAST_FLYER] = 0;
      this.hpVs[FLYER] = 0.75;
      this.hpVs[BULLET2] = 1.25;
      this.hpHealths[TURRET] = 5;
      this.hpHealths[FLYER] = 2;
      this.hpHealths[FAST_FLYER] = 1;
      this.maxspeed = 0.75;
    } else if (mode === HARD_MODE) {
      this.hpVs[BULLET2] = 2;
      this.hpHealths[TURRET] = 5;
      this.hpHealths[FLYER] = 2;
      this.hpHealths[FAST_FLYER] = 1;
      this.maxspeed = 0.75;
    } else if (mode === EXTREME_MODE) {
      this.hpVs[BULLET2] = 2;
      this.hpHealths[TURRET] = 10;
      this.hpHealths[FLYER] = 5;
      this.hpHealths[FAST_FLYER] = 2;
      this.maxspeed = 0.5;
      bulletR = 1 / 5;
    } else {
      throw new Error(`starpilot has no distribution mode ${mode}`);
    }
    this.hpBulletR.fill(bulletR);
    this.hpHealths[METEOR] = 500;
    this.hpVs[FAST_FLYER] = 1.5;
    this.hpVs[BULLET_PLAYER] = 2;
    this.hpVs[BULLET3] = 2;
    this.hpObjectR[TURRET] = 2;
    this.hpObjectR[METEOR] = 2;
    this.hpObjectR[CLOUD] = 2;
    this.hpObjectProbWeight[FLYER] = 3;
    this.hpSlowV = 0.5;
    this.hpMaxGroupSize = 5;
    this.hpMinEnemyDeltaT = 10;
    this.hpMaxEnemyDeltaT = this.hpMinEnemyDeltaT + 20;
    this.hpSpawnRightThreshold = Math.fround(0.9);
    this.hpObjectProbWeight[BULLET_PLAYER] = 0;
    this.hpObjectProbWeight[BULLET2] = 0;
    this.hpObjectProbWeight[BULLET3] = 0;
    this.totalProbWeight = 0;
    for (let i = 2; i < NUM_BASIC_OBJECTS; i++) this.totalProbWeight += this.hpObjectProbWeight[i];
  }

  /** Pre-generates every enemy of the episode: groups every 10..29 steps until step 500. */
  addSpawners(): void {
    const rand = this.randGen;
    let t = 1 + rand.randint(this.hpMinEnemyDeltaT, this.hpMaxEnemyDeltaT);
    const canSpawnLeft = this.options.distributionMode !== EASY_MODE;
    while (t <= SHOOTER_WIN_TIME) {
      let groupSize = 1;
      let weight = rand.rand01() * this.totalProbWeight;
      let type: number;
      for (type = 2; type < NUM_BASIC_OBJECTS; type++) {
        weight -= this.hpObjectProbWeight[type];
        if (weight <= 0) break;
      }
      if (type >= NUM_BASIC_OBJECTS) type = NUM_BASIC_OBJECTS - 1;
      const r = this.hpObjectR[type];
      let flyerTheme = 0;
      if (type === FLYER || type === FAST_FLYER) {
        groupSize = rand.randint(0, this.hpMaxGroupSize) + 1;
        flyerTheme = rand.randn(NUM_SHIP_THEMES);
      }
      const y = this.randPos(r, 0, this.mainHeight);
      for (let j = 0; j < groupSize; j++) {
        const spawnTime = t + j * 5;
        let fireTime = rand.randint(10, 100);
        // float theta (k = 2 * PI / 4 with procgen's float PI); cos and sin are the double functions.
        let theta = Math.fround((rand.rand01() - 0.5) * Math.fround(Math.fround(2 * Math.fround(Math.PI)) / 4));
        let vScale = this.hpVs[type];
        if (rand.randint(0, 2) === 1) theta = 0;
        const health = this.hpHealths[type];
        if (type === METEOR || type === CLOUD) {
          theta = 0;
          vScale = this.hpSlowV;
          fireTime = -1;
        } else if (type === TURRET) {
          theta = 0;
          vScale = this.hpSlowV;
          fireTime = rand.randint(20, 30);
        }
        vScale = Math.fround(vScale * V_SCALE);
        let vx = Math.fround(-Math.cos(theta) * vScale);
        const vy = Math.fround(Math.sin(theta) * vScale);
        let spawnRight = true;
        // Flyers always draw, even in easy mode where they cannot come from the left.
        if ((type === FLYER || type === FAST_FLYER) && rand.rand01() > this.hpSpawnRightThreshold && canSpawnLeft)
          spawnRight = false;
        let x: number;
        if (spawnRight) {
          x = this.mainWidth + r;
        } else {
          x = -r;
          vx = -vx;
        }
        const spawner = new Entity(x, y, vx, vy, r, r, type);
        spawner.fireTime = fireTime;
        spawner.spawnTime = spawnTime;
        spawner.health = health;
        if (type === CLOUD) {
          spawner.renderZ = 1;
          this.chooseRandomTheme(spawner);
        } else if (type === METEOR) {
          this.chooseRandomTheme(spawner);
        } else if (type === FLYER || type === FAST_FLYER) {
          spawner.imageTheme = flyerTheme;
          spawner.rotation = ((vx > 0 ? -1 : 1) * Math.PI) / 2;
        } else if (type === TURRET) {
          this.chooseRandomTheme(spawner);
          this.matchAspectRatio(spawner);
        }
        this.spawners.push(spawner);
      }
      t += rand.randint(this.hpMinEnemyDeltaT, this.hpMaxEnemyDeltaT);
    }
  }

  override gameReset(): void {
    super.gameReset();
    this.options.centerAgent = false;
    this.initHps();
    this.spawners = [];
    this.addSpawners();
    // Descending spawn time with std::sort: equal spawn times keep libstdc++'s (unstable) order.
    stdSort(this.spawners, (a, b) => a.spawnTime > b.spawnTime);
    this.agent.rotation = Math.PI / 2;
    this.chooseRandomTheme(this.agent);
  }

  override gameStep(): void {
    super.gameStep();
    const isFiring = this.specialAction !== 0;
    for (let i = this.entities.length - 1; i >= 0; i--) {
      const m = this.entities[i];
      if (m.type === PLAYER) continue;
      if (this.shouldFire(m)) {
        const bulletType = m.type === TURRET ? BULLET3 : BULLET2;
        const f = Math.fround;
        let bvx = f(this.agent.x - m.x);
        let bvy = f(this.agent.y - m.y);
        // float products and sum; the double sqrt and quotient, rounded when stored.
        const s = f(f(this.hpVs[bulletType] * V_SCALE) / Math.sqrt(f(f(bvx * bvx) + f(bvy * bvy))));
        bvx = f(bvx * s);
        bvy = f(bvy * s);
        const r = this.hpBulletR[m.type];
        const bullet = new Entity(m.x, m.y, bvx, bvy, r, r, bulletType);
        bullet.faceDirection(bvx, bvy, -Math.PI / 2);
        this.entities.push(bullet);
      }
      if (m.health <= 0 && isDestructible(m.type) && !m.willErase) {
        this.spawnChild(m, EXPLOSION, 0.5 * m.rx, true);
        this.stepData.reward += ENEMY_REWARD;
        m.willErase = true;
      }
    }
    while (this.spawners.length > 0 && this.curTime === this.spawners[this.spawners.length - 1].spawnTime) {
      this.entities.push(this.spawners.pop()!);
    }
    if (isFiring) {
      // "A" (special 2) shoots left, every other special shoots right; no cooldown.
      // float theta, the double cos and sin: sin(PI) is -8.7e-8, not 0.
      const f = Math.fround;
      const theta = this.specialAction === 2 ? f(Math.PI) : 0;
      const v = f(this.hpVs[BULLET_PLAYER] * V_SCALE);
      const vx = f(Math.cos(theta) * v);
      const vy = f(Math.sin(theta) * v);
      const r = this.hpBulletR[PLAYER];
      const bullet = new Entity(
        f(this.agent.x + f(this.agent.rx * Math.cos(theta))),
        this.agent.y,
        vx,
        vy,
        r,
        r,
        BULLET_PLAYER,
      );
      bullet.collidesWithEntities = true;
      bullet.faceDirection(vx, vy);
      bullet.rotation -= Math.fround(Math.PI) / 2;
      this.entities.push(bullet);
    }
    if (this.curTime === SHOOTER_WIN_TIME) {
      const finish = new Entity(
        this.mainWidth,
        this.mainHeight / 2,
        Math.fround(-this.hpSlowV * V_SCALE),
        0,
        2,
        this.mainHeight / 2,
        FINISH_LINE,
      );
      this.chooseRandomTheme(finish);
      this.matchAspectRatio(finish, false);
      finish.x = this.mainWidth + finish.rx;
      this.entities.push(finish);
    }
  }

  shouldFire(e: Entity): boolean {
    if (e.fireTime <= 0) return false;
    if (e.type === TURRET) return (this.curTime - e.spawnTime) % e.fireTime === 0;
    return this.curTime - e.spawnTime === e.fireTime;
  }
}

function isLethal(type: number): boolean {
  return (
    type === FLYER || type === FAST_FLYER || type === BULLET2 || type === BULLET3 || type === TURRET || type === METEOR
  );
}

function isDestructible(type: number): boolean {
  return type === FLYER || type === FAST_FLYER || type === TURRET || type === METEOR;
}

/**
 * libstdc++'s std::sort (introsort: median-of-three quicksort down to runs of 16, heapsort past 2 log2(n) levels, then
 * one insertion sort), step for step, so that elements comparing equal end up where the original puts them.
 * `less(a, b)`: a goes before b.
 */
export function stdSort<T>(v: T[], less: (a: T, b: T) => boolean): void {
  const n = v.length;
  if (n < 2) return;
  const swap = (i: number, j: number) => {
    const t = v[i];
    v[i] = v[j];
    v[j] = t;
  };
  const linearInsert = (last: number) => {
    const val = v[last];
    let next = last - 1;
    while (less(val, v[next])) {
      v[last] = v[next];
      last = next;
      next--;
    }
    v[last] = val;
  };
  const insertionSort = (first: number, last: number) => {
    for (let i = first + 1; i < last; i++) {
      if (less(v[i], v[first])) {
        const val = v[i];
        for (let k = i; k > first; k--) v[k] = v[k - 1];
        v[first] = val;
      } else linearInsert(i);
    }
  };
  // Heap on [first, first + len) (__adjust_heap / __push_heap).
  const adjustHeap = (first: number, hole: number, len: number, value: T) => {
    const top = hole;
    let child = hole;
    while (child < Math.trunc((len - 1) / 2)) {
      child = 2 * (child + 1);
      if (less(v[first + child], v[first + child - 1])) child--;
      v[first + hole] = v[first + child];
      hole = child;
    }
    if ((len & 1) === 0 && child === Math.trunc((len - 2) / 2)) {
      child = 2 * (child + 1);
      v[first + hole] = v[first + child - 1];
      hole = child - 1;
    }
    let parent = Math.trunc((hole - 1) / 2);
    while (hole > top && less(v[first + parent], value)) {
      v[first + hole] = v[first + parent];
      hole = parent;
      parent = Math.trunc((hole - 1) / 2);
    }
    v[first + hole] = value;
  };
  const heapSort = (first: number, last: number) => {
    const len = last - first;
    for (let parent = Math.trunc((len - 2) / 2); parent >= 0; parent--)
      adjustHeap(first, parent, len, v[first + parent]);
    while (last - first > 1) {
      last--;
      const value = v[last];
      v[last] = v[first];
      adjustHeap(first, 0, last - first, value);
    }
  };
  const introsort = (first: number, last: number, depth: number) => {
    while (last - first > 16) {
      if (depth === 0) {
        heapSort(first, last);
        return;
      }
      depth--;
      // Median of (first + 1, middle, last - 1) moved to first, then an unguarded partition around it.
      const a = first + 1;
      const b = first + Math.trunc((last - first) / 2);
      const c = last - 1;
      if (less(v[a], v[b])) {
        if (less(v[b], v[c])) swap(first, b);
        else if (less(v[a], v[c])) swap(first, c);
        else swap(first, a);
      } else if (less(v[a], v[c])) swap(first, a);
      else if (less(v[b], v[c])) swap(first, c);
      else swap(first, b);
      let lo = first + 1;
      let hi = last;
      for (;;) {
        while (less(v[lo], v[first])) lo++;
        hi--;
        while (less(v[first], v[hi])) hi--;
        if (!(lo < hi)) break;
        swap(lo, hi);
        lo++;
      }
      introsort(lo, last, depth);
      last = lo;
    }
  };
  introsort(0, n, 2 * Math.floor(Math.log2(n)));
  if (n > 16) {
    insertionSort(0, 16);
    for (let i = 16; i < n; i++) linearInsert(i);
  } else insertionSort(0, n);
}
