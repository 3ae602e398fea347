// Plunder (procgen `games/plunder.cpp`): a ship on the bottom row (left/right only) fires cannonballs up with "D"
// (at most every 3 steps). Ships cross five lanes; the legend at the bottom left shows which picture is the target.
// Sinking a target: +1 and +0.1 juice; sinking a friendly ship: -0.1 juice. Juice also drains 0.0015 per step and
// 0.02 per shot; the episode ends when it runs out, or after 20 targets (+10). Hard mode adds wooden panels that
// stop cannonballs; easy ships are 1.5x larger. Timeout 4000.

import { EXPLOSION, Entity } from "../entity.ts";
import { BasicAbstractGame, EASY_MODE, type GameOptions } from "../game.ts";
import type { Canvas } from "../render.ts";
import type { BackgroundGroup } from "../resources.ts";

const COMPLETION_BONUS = 10;
const POSITIVE_REWARD = 1;
const PLAYER_BULLET = 1;
const TARGET_LEGEND = 2;
const TARGET_BACKGROUND = 3;
const PANEL = 6;
const SHIP = 7;
const NUM_SHIP_TYPES = 6;
const NUM_LANES = 5;
const TARGET_QUOTA = 20;
const SPAWN_PROB = Math.fround(0.06);
const LEGEND_R = 2;
const f = Math.fround;

export class Plunder extends BasicAbstractGame {
  lastFireTime = 0;
  laneDirections: boolean[] = [];
  laneVels: number[] = [];
  targetBools: boolean[] = [];
  imagePermutation: number[] = [];
  numCurrentShipTypes = 2;
  targetsHit = 0;
  juiceLeft = 0;
  rScale = 1;
  minAgentX = 0;

  constructor(options: Partial<GameOptions> = {}) {
    super("plunder", options);
    this.timeout = 4000;
    this.mainWidth = 20;
    this.mainHeight = 20;
    this.mixrate = 0.5;
    this.maxspeed = f(0.85);
    this.hasUsefulVelInfo = false;
  }

  override backgroundGroup(): BackgroundGroup {
    return "water_surface_backgrounds";
  }

  override assetForType(type: number): string[] {
    if (type === SHIP) return Array.from({ length: NUM_SHIP_TYPES }, (_, i) => `misc_assets/ship_${i + 1}.png`);
    if (type === PLAYER_BULLET) return ["misc_assets/cannonBall.png"];
    if (type === PANEL) return ["misc_assets/panel_wood.png"];
    if (type === TARGET_BACKGROUND) return ["misc_assets/target_red2.png"];
    return [];
  }

  // Ship pictures tell targets from friends, so restrict_themes keeps them.
  override shouldPreserveTypeThemes(type: number): boolean {
    return type === SHIP;
  }

  /** Two bars at the top: juice left (green) and targets hit out of the quota (pink). */
  override drawOverlay(c: Canvas): void {
    const u = this.unit;
    c.fillRect({ x: 0.25 * u, y: 0.25 * u, w: this.mainWidth * this.juiceLeft * u, h: 0.5 * u }, 66, 245, 135);
    c.fillRect(
      { x: 0.25 * u, y: 0.75 * u, w: this.mainWidth * (this.targetsHit / TARGET_QUOTA) * u, h: 0.5 * u },
      245,
      66,
      144,
    );
  }

  override handleCollision(src: Entity, target: Entity): void {
    if (src.type !== PLAYER_BULLET) return;
    if (target.type === SHIP) {
      target.willErase = true;
      src.willErase = true;
      if (this.targetBools[target.imageTheme]) {
        this.targetsHit += 1;
        this.stepData.reward += POSITIVE_REWARD;
        this.juiceLeft = f(this.juiceLeft + f(0.1));
      } else {
        this.juiceLeft = f(this.juiceLeft - f(0.1));
      }
    } else if (target.type === PANEL) {
      src.willErase = true;
    }
    if (target.willErase) this.addEntity(target.x, target.y, target.vx / 2, target.vy / 2, 0.5 * target.rx, EXPLOSION);
  }

  /** Left/right only. */
  override setActionXY(moveAct: number): void {
    this.actionVx = Math.trunc(moveAct / 3) - 1;
    this.actionVy = 0;
    this.actionVrot = 0;
  }

  override gameReset(): void {
    super.gameReset();
    const easy = this.options.distributionMode === EASY_MODE;
    this.agent.imageType = SHIP;
    this.juiceLeft = 1;
    this.targetsHit = 0;
    this.rScale = easy ? 1.5 : 1;
    this.imagePermutation = this.randGen.chooseN([0, 1, 2, 3, 4, 5], NUM_SHIP_TYPES);
    this.numCurrentShipTypes = 2;
    // The first picture of the permutation is the target; the second is a friend (the agent's own ship).
    this.targetBools = new Array<boolean>(NUM_SHIP_TYPES).fill(false);
    for (let i = 0; i < this.numCurrentShipTypes / 2; i++) this.targetBools[this.imagePermutation[i]] = true;
    this.laneDirections = [];
    this.laneVels = [];
    for (let i = 0; i < NUM_LANES; i++) {
      this.laneDirections.push(this.randGen.rand01() < 0.5);
      this.laneVels.push(f(0.15 + 0.1 * this.randGen.rand01()));
    }
    const numPanels = easy ? 0 : this.randGen.randn(4);
    const panelWidth = f(1.2);
    for (let i = 0; i < numPanels; i++)
      this.spawnEntityRxy(panelWidth, 0.5, PANEL, 0, 0.25 * this.mainHeight, this.mainWidth, 0.25 * this.mainHeight);
    // The legend: the target's picture on a red target, bottom left.
    this.addEntity(LEGEND_R, LEGEND_R, 0, 0, LEGEND_R, TARGET_BACKGROUND);
    const legend = this.addEntity(LEGEND_R, LEGEND_R, 0, 0, this.rScale * 1.5, TARGET_LEGEND);
    legend.imageTheme = this.imagePermutation[0];
    legend.imageType = SHIP;
    this.matchAspectRatio(legend);
    legend.rotation = Math.PI / 2;
    this.lastFireTime = 0;
    this.options.centerAgent = false;
    const a = this.agent;
    a.rx = this.rScale;
    a.rotation = -Math.PI / 2;
    const half = this.numCurrentShipTypes / 2;
    a.imageTheme = this.imagePermutation[this.randGen.randn(half) + half];
    this.matchAspectRatio(a);
    this.repositionAgent();
    a.y = 1 + a.ry;
    this.minAgentX = 2 * LEGEND_R + a.rx;
    if (a.x < this.minAgentX) a.x = this.minAgentX;
  }

  override gameStep(): void {
    super.gameStep();
    this.juiceLeft = f(this.juiceLeft - f(0.0015));
    if (this.randGen.rand01() < SPAWN_PROB) {
      const r = this.rScale;
      const lane = this.randGen.randn(NUM_LANES);
      const y = f((lane * 0.11 + 0.4) * (this.mainHeight / 2 - r) + this.mainHeight / 2);
      const movesRight = this.laneDirections[lane];
      const ship = new Entity(0, y, this.laneVels[lane] * (movesRight ? 1 : -1), 0, r, r, SHIP);
      ship.imageTheme = this.imagePermutation[this.randGen.randn(this.numCurrentShipTypes)];
      this.matchAspectRatio(ship);
      ship.x = movesRight ? -r : this.mainWidth + r;
      ship.isReflected = !movesRight;
      if (!this.hasAnyCollision(ship)) this.entities.push(ship);
    }
    if (this.specialAction === 1 && this.curTime - this.lastFireTime >= 3) {
      const ball = this.addEntity(this.agent.x, this.agent.y, 0, 1, 0.25, PLAYER_BULLET);
      ball.collidesWithEntities = true;
      ball.expireTime = 50;
      this.lastFireTime = this.curTime;
      this.juiceLeft = f(this.juiceLeft - f(0.02));
    }
    if (this.juiceLeft <= 0) this.stepData.done = true;
    else if (this.juiceLeft >= 1) this.juiceLeft = 1;
    if (this.targetsHit >= TARGET_QUOTA) {
      this.stepData.done = true;
      this.stepData.reward += COMPLETION_BONUS;
      this.stepData.levelComplete = true;
    }
    // The legend's corner is off limits.
    if (this.agent.x < this.minAgentX) this.agent.x = this.minAgentX;
  }
}
