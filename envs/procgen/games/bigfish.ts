// BigFish (procgen `games/bigfish.cpp`): eat fish smaller than you, grow, avoid bigger ones.
// +1 per fish eaten, +10 and the end of the episode after 30; touching a fish wider than you ends it.

import type { Entity } from "../entity.ts";
import { BasicAbstractGame, EASY_MODE, type GameOptions } from "../game.ts";
import type { BackgroundGroup } from "../resources.ts";

const FISH = 2;
const FISH_MIN_R = 0.25;
const FISH_MAX_R = 2;
const FISH_QUOTA = 30;
const POSITIVE_REWARD = 1;
const COMPLETION_BONUS = 10;

export class BigFish extends BasicAbstractGame {
  fishEaten = 0;
  /** Radius gained per fish: after the quota the agent has radius FISH_MAX_R. */
  rInc = 0;

  constructor(options: Partial<GameOptions> = {}) {
    super("bigfish", options);
    this.timeout = 6000;
    this.mainWidth = 20;
    this.mainHeight = 20;
  }

  override backgroundGroup(): BackgroundGroup {
    return "water_backgrounds";
  }

  override assetForType(type: number): string[] {
    if (type === 0) return ["misc_assets/fishTile_072.png"];
    if (type === FISH)
      return ["misc_assets/fishTile_074.png", "misc_assets/fishTile_078.png", "misc_assets/fishTile_080.png"];
    return [];
  }

  override handleAgentCollision(obj: Entity): void {
    if (obj.type !== FISH) return;
    // Only widths are compared, strictly: a fish exactly as wide as the agent is food.
    if (obj.rx > this.agent.rx) {
      this.stepData.done = true;
    } else {
      this.stepData.reward += POSITIVE_REWARD;
      obj.willErase = true;
      this.agent.rx += this.rInc;
      this.agent.ry += this.rInc;
      this.fishEaten += 1;
    }
  }

  override gameReset(): void {
    super.gameReset();
    this.options.centerAgent = false;
    this.fishEaten = 0;
    const startR = this.options.distributionMode === EASY_MODE ? 1 : 0.5;
    this.rInc = Math.fround((FISH_MAX_R - startR) / FISH_QUOTA);
    this.agent.rx = startR;
    this.agent.ry = startR;
    // x keeps the engine's draw (made with radius 0.4); the agent starts at the bottom.
    this.agent.y = 1 + this.agent.ry;
  }

  override gameStep(): void {
    super.gameStep();
    // A fish spawns on 10% of steps, from the left or right edge, moving straight across.
    if (this.randGen.randn(10) === 1) {
      // The radius in double (pow), rounded to float; the height in float arithmetic.
      const r = Math.fround((FISH_MAX_R - FISH_MIN_R) * Math.pow(this.randGen.rand01(), 1.4) + FISH_MIN_R);
      const y = Math.fround(this.randGen.rand01() * Math.fround(this.mainHeight - 2 * r));
      const movesRight = this.randGen.rand01() < 0.5;
      const vx = (0.15 + this.randGen.rand01() * 0.25) * (movesRight ? 1 : -1);
      const x = movesRight ? -r : this.mainWidth + r;
      const fish = this.addEntity(x, y, vx, 0, r, FISH);
      this.chooseRandomTheme(fish);
      this.matchAspectRatio(fish);
      fish.isReflected = !movesRight;
    }
    if (this.fishEaten >= FISH_QUOTA) {
      this.stepData.done = true;
      this.stepData.reward += COMPLETION_BONUS;
      this.stepData.levelComplete = true;
    }
    this.faceMoveDirection();
  }
}
