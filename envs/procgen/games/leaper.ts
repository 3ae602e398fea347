// Leaper (procgen `games/leaper.cpp`): Frogger. The frog hops one cell at a time (0.4 + 0.3 + 0.2 + 0.1 over four
// steps; new input only when it has stopped) across road lanes of cars and river lanes of logs to the finish row:
// +10 and the end. A car, water without a log under the frog once it has landed, or leaving the world ends it.
// World 9 / 15 / 20 (easy / hard / extreme); lanes are pre-simulated at reset so traffic is already flowing.

import { Entity, PLAYER } from "../entity.ts";
import { BasicAbstractGame, EASY_MODE, EXTREME_MODE, type GameOptions, HARD_MODE } from "../game.ts";
import type { Rect } from "../render.ts";
import type { BackgroundGroup } from "../resources.ts";

const LOG = 1;
const ROAD = 2;
const WATER = 3;
const CAR = 4;
const FINISH_LINE = 5;
const MONSTER_RADIUS = 0.25;
const LOG_RADIUS = Math.fround(0.45);
const GOAL_REWARD = 10;
const NSTEP = 5;
const FROG_ANIMATION_FRAMES = NSTEP;
/** A hop starts at 0.5 and loses 0.1 per step (first on the step it starts), so it covers one cell. */
const MAX_SPEED = 2 / (NSTEP - 1);
const VEL_DECAY = Math.fround(MAX_SPEED / NSTEP);

export class Leaper extends BasicAbstractGame {
  bottomRoadY = 0;
  roadLaneSpeeds: number[] = [];
  bottomWaterY = 0;
  waterLaneSpeeds: number[] = [];
  goalY = 0;

  constructor(options: Partial<GameOptions> = {}) {
    super("leaper", options);
    this.maxspeed = MAX_SPEED;
    this.timeout = 500;
  }

  override useBlockAsset(type: number): boolean {
    return type === WATER || type === ROAD;
  }

  override backgroundGroup(): BackgroundGroup {
    return "topdown_backgrounds";
  }

  override assetForType(type: number): string[] {
    const m = (names: string[]) => names.map((n) => `misc_assets/${n}.png`);
    if (type === ROAD) return m(["roadTile6b"]);
    if (type === WATER) return m(["terrainTile6"]);
    if (type === CAR) return m(["car_yellow_5", "car_black_1", "car_blue_2", "car_green_3", "car_red_4"]);
    if (type === LOG) return m(["elementWood044"]);
    if (type === PLAYER) return m(["frog1", "frog2", "frog4", "frog6", "frog7"]);
    if (type === FINISH_LINE) return m(["finish2"]);
    return [];
  }

  /** The frog picture is drawn taller than its hitbox (procgen's get_adjusted_image_rect). */
  override getObjectRect(obj: Entity): Rect {
    const r = super.getObjectRect(obj);
    if (obj !== this.agent) return r;
    return { x: r.x, y: r.y - 0.275 * r.h, w: r.w, h: 1.55 * r.h };
  }

  override getTileAspectRatio(ent: Entity): number {
    return ent.type === FINISH_LINE ? 1 : 0;
  }

  // The frog's themes are its hop animation frames, so restrict_themes keeps them.
  override shouldPreserveTypeThemes(type: number): boolean {
    return type === PLAYER;
  }

  override handleAgentCollision(obj: Entity): void {
    if (obj.type === CAR) {
      this.stepData.done = true;
    } else if (obj.type === FINISH_LINE && this.agent.vx === 0 && this.agent.vy === 0) {
      this.stepData.reward += GOAL_REWARD;
      this.stepData.done = true;
      this.stepData.levelComplete = true;
    }
  }

  private randSign(): number {
    return this.randGen.rand01() < 0.5 ? 1 : -1;
  }

  override chooseWorldDim(): void {
    const mode = this.options.distributionMode;
    const dim = mode === EASY_MODE ? 9 : mode === HARD_MODE ? 15 : 20;
    this.mainWidth = dim;
    this.mainHeight = dim;
  }

  private chooseExtraSpace(): number {
    return this.options.distributionMode === EASY_MODE ? 0 : this.randGen.randn(2);
  }

  override gameReset(): void {
    super.gameReset();
    const mode = this.options.distributionMode;
    this.options.centerAgent = false;
    this.agent.y = this.agent.ry;
    let [minCar, maxCar, minLog, maxLog] = [0.05, 0.2, 0.05, 0.1];
    if (mode === EASY_MODE) [minCar, maxCar, minLog, maxLog] = [0.03, 0.12, 0.025, 0.075];
    else if (mode === EXTREME_MODE) [minCar, maxCar, minLog, maxLog] = [0.1, 0.3, 0.1, 0.2];
    [minCar, maxCar, minLog, maxLog] = [minCar, maxCar, minLog, maxLog].map(Math.fround);
    this.bottomRoadY = this.chooseExtraSpace() + 1;
    const difficulty = this.randGen.randn((mode === EASY_MODE ? 3 : 4) + 1);
    // Half the time (not in easy) one extra lane goes to the road (option 2) or the river (option 3).
    const extraLane = mode === EASY_MODE ? 0 : this.randGen.randn(4);
    const numRoad = difficulty + (extraLane === 2 ? 1 : 0);
    this.roadLaneSpeeds = [];
    for (let lane = 0; lane < numRoad; lane++) {
      const sign = this.randSign();
      this.roadLaneSpeeds.push(Math.fround(sign * Math.fround(this.randGen.randrange(minCar, maxCar))));
      this.fillElem(0, this.bottomRoadY + lane, this.mainWidth, 1, ROAD);
    }
    this.bottomWaterY = this.bottomRoadY + numRoad + this.chooseExtraSpace() + 1;
    this.waterLaneSpeeds = [];
    const numWater = difficulty + (extraLane === 3 ? 1 : 0);
    let currSign = this.randSign();
    for (let lane = 0; lane < numWater; lane++) {
      this.waterLaneSpeeds.push(Math.fround(currSign * Math.fround(this.randGen.randrange(minLog, maxLog))));
      currSign *= -1; // river lanes alternate direction
      this.fillElem(0, this.bottomWaterY + lane, this.mainWidth, 1, WATER);
    }
    this.goalY = this.bottomWaterY + numWater + 1;
    // Run the traffic long enough for the slowest lane to cross the world once (out-of-world entities stay until
    // the first real step erases them, as in procgen).
    const warmup = Math.fround(this.mainWidth / Math.min(minCar, minLog));
    for (let i = 0; i < warmup; i++) {
      this.spawnLaneEntities();
      this.stepEntities(this.entities);
    }
    this.addEntityRxy(this.mainWidth / 2, this.goalY - 0.5, 0, 0, this.mainWidth / 2, 0.5, FINISH_LINE);
  }

  /** Each lane may start a car (chance |speed| / 6) or a log (|speed| / 2) at its upstream edge, if there is room. */
  private spawnLaneEntities(): void {
    this.roadLaneSpeeds.forEach((speed, lane) => {
      if (this.randGen.rand01() < Math.abs(speed) / 6) {
        const x = speed > 0 ? -MONSTER_RADIUS : this.mainWidth + MONSTER_RADIUS;
        const m = new Entity(x, this.bottomRoadY + lane + 0.5, speed, 0, 2 * MONSTER_RADIUS, MONSTER_RADIUS, CAR);
        this.chooseRandomTheme(m);
        if (speed < 0) m.rotation = Math.PI;
        if (!this.hasAnyCollision(m)) this.entities.push(m);
      }
    });
    this.waterLaneSpeeds.forEach((speed, lane) => {
      if (this.randGen.rand01() < Math.abs(speed) / 2) {
        const x = speed > 0 ? -LOG_RADIUS : this.mainWidth + LOG_RADIUS;
        const m = new Entity(x, this.bottomWaterY + lane + 0.5, speed, 0, LOG_RADIUS, LOG_RADIUS, LOG);
        if (!this.hasAnyCollision(m)) this.entities.push(m);
      }
    });
  }

  override updateAgentVelocity(): void {
    const a = this.agent;
    if (a.vx === 0 && a.vy === 0) {
      if (this.actionVx !== 0) {
        a.vx = this.maxspeed * this.actionVx;
        a.imageTheme = 1;
        a.rotation = ((a.vx > 0 ? 1 : -1) * Math.PI) / 2;
      } else if (this.actionVy !== 0) {
        a.vy = this.maxspeed * this.actionVy;
        a.imageTheme = 1;
        a.rotation = a.vy > 0 ? 0 : Math.PI;
      }
    }
    a.vx = decay(a.vx);
    a.vy = decay(a.vy);
  }

  override gameStep(): void {
    // The hop animation runs through the frog's five frames and back to 0.
    if (this.agent.imageTheme >= 1) this.agent.imageTheme = (this.agent.imageTheme + 1) % FROG_ANIMATION_FRAMES;
    super.gameStep();
    this.spawnLaneEntities();
    let onLog = false;
    let logVx = 0;
    // The frog counts as on a log when its centre is over it (margin -rx).
    for (const m of this.entities) {
      if (m.type === LOG && this.hasCollision(this.agent, m, -this.agent.rx)) {
        onLog = true;
        logVx = m.vx;
      }
    }
    if (
      this.getObjFromFloats(this.agent.x, this.agent.y) === WATER &&
      !onLog &&
      this.agent.vx === 0 &&
      this.agent.vy === 0
    ) {
      this.stepData.done = true;
    }
    if (onLog) this.agent.x += logVx;
    if (this.isOutOfBounds(this.agent)) this.stepData.done = true;
  }
}

/**
 * Speed magnitude minus one decay step, never below 0, sign kept. In float32 as procgen computes it: the fifth step
 * leaves 1.5e-8, so a hop is over (speed exactly 0, new input accepted) on the sixth step after it started.
 */
function decay(v: number): number {
  const s = v > 0 ? 1 : v === 0 ? 0 : -1;
  return Math.fround(Math.max(0, Math.fround(Math.abs(v) - VEL_DECAY)) * s);
}
