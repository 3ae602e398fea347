// Hopper-v4, ported from Gymnasium 0.29's `gymnasium/envs/mujoco/hopper_v4.py`.
//
// A planar one-legged robot (torso, thigh, leg, foot; 3 actuated hinges, gear 200) hops forward; dt = 4 * 0.002 s.
// Observation (11): z, torso angle, 3 joint angles, then 6 velocities clipped to [-10, 10]. Reward and reset are
// PlanarWalkerEnv's; Hopper's health check is the strictest of the suite (see `isHealthy`).

import { PlanarWalkerEnv, type PlanarWalkerKwargs } from "./planar_walker.ts";
import { inOpenRange, unboundedObservationSpace } from "./mujoco_env.ts";

export interface HopperKwargs extends PlanarWalkerKwargs {
  /** Range every entry of `state_vector()[2:]` (qpos[2:] and all of qvel) must stay strictly inside. */
  healthyStateRange?: [number, number];
}

export const HOPPER_KWARGS = [
  "forwardRewardWeight",
  "ctrlCostWeight",
  "healthyReward",
  "terminateWhenUnhealthy",
  "healthyStateRange",
  "healthyZRange",
  "healthyAngleRange",
  "resetNoiseScale",
  "excludeCurrentPositionsFromObservation",
] as const;

export class HopperEnv extends PlanarWalkerEnv {
  readonly healthyStateRange: [number, number];
  readonly healthyZRange: [number, number];
  readonly healthyAngleRange: [number, number];

  constructor(kwargs: HopperKwargs = {}) {
    const exclude = kwargs.excludeCurrentPositionsFromObservation ?? true;
    super(kwargs, {
      modelPath: "hopper.xml",
      frameSkip: 4,
      observationSpace: unboundedObservationSpace(exclude ? 11 : 12),
      renderMode: kwargs.renderMode,
    });
    this.healthyStateRange = kwargs.healthyStateRange ?? [-100.0, 100.0];
    this.healthyZRange = kwargs.healthyZRange ?? [0.7, Infinity];
    this.healthyAngleRange = kwargs.healthyAngleRange ?? [-0.2, 0.2];
  }

  /** Healthy: 0.7 < z, -0.2 < angle < 0.2, and every entry of qpos[2:] and qvel strictly inside (-100, 100). */
  get isHealthy(): boolean {
    const { qpos, qvel } = this.views;
    for (let i = 2; i < this.nq; i++) if (!inOpenRange(qpos[i], this.healthyStateRange)) return false;
    for (let i = 0; i < this.nv; i++) if (!inOpenRange(qvel[i], this.healthyStateRange)) return false;
    return inOpenRange(qpos[1], this.healthyZRange) && inOpenRange(qpos[2], this.healthyAngleRange);
  }
}
