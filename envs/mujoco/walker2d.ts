// Walker2d-v4, ported from Gymnasium 0.29's `gymnasium/envs/mujoco/walker2d_v4.py`.
//
// A planar biped (torso plus two 3-link legs; 6 actuated hinges, gear 100) walks forward; dt = 4 * 0.002 s.
// Observation (17): z, torso angle, 6 joint angles, then 9 velocities clipped to [-10, 10]. Reward and reset are
// PlanarWalkerEnv's; healthy means 0.8 < z < 2 and -1 < torso angle < 1 (no velocity check, unlike Hopper).

import { PlanarWalkerEnv, type PlanarWalkerKwargs } from "./planar_walker.ts";
import { inOpenRange, unboundedObservationSpace } from "./mujoco_env.ts";

export type Walker2dKwargs = PlanarWalkerKwargs;

export const WALKER2D_KWARGS = [
  "forwardRewardWeight",
  "ctrlCostWeight",
  "healthyReward",
  "terminateWhenUnhealthy",
  "healthyZRange",
  "healthyAngleRange",
  "resetNoiseScale",
  "excludeCurrentPositionsFromObservation",
] as const;

export class Walker2dEnv extends PlanarWalkerEnv {
  readonly healthyZRange: [number, number];
  readonly healthyAngleRange: [number, number];

  constructor(kwargs: Walker2dKwargs = {}) {
    const exclude = kwargs.excludeCurrentPositionsFromObservation ?? true;
    super(kwargs, {
      modelPath: "walker2d.xml",
      frameSkip: 4,
      observationSpace: unboundedObservationSpace(exclude ? 17 : 18),
      renderMode: kwargs.renderMode,
    });
    this.healthyZRange = kwargs.healthyZRange ?? [0.8, 2.0];
    this.healthyAngleRange = kwargs.healthyAngleRange ?? [-1.0, 1.0];
  }

  get isHealthy(): boolean {
    const { qpos } = this.views;
    return inOpenRange(qpos[1], this.healthyZRange) && inOpenRange(qpos[2], this.healthyAngleRange);
  }
}
