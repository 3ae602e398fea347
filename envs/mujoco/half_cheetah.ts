// HalfCheetah-v4, ported from Gymnasium 0.29's `gymnasium/envs/mujoco/half_cheetah_v4.py`.
//
// A planar cat-like robot (torso plus back and front 3-link legs; 6 actuated hinges) runs forward; dt = 5 * 0.01 s.
// Reward: forward_reward_weight * x_velocity - ctrl_cost_weight * sum(action^2) (weights 1 and 0.1). There is
// no terminal state (the cheetah may flip and keep going); episodes end by the 1000-step TimeLimit.
// Observation (17): qpos[1:] (8) then qvel (9), unclipped. Reset: qpos + U(-0.1, 0.1), qvel + 0.1 * N(0, 1).

import type { Info, StepResult } from "../gymnasium/core.ts";
import { MujocoEnv, concatenate, sumOfSquares, unboundedObservationSpace } from "./mujoco_env.ts";

export interface HalfCheetahKwargs {
  renderMode?: string | null;
  forwardRewardWeight?: number;
  ctrlCostWeight?: number;
  resetNoiseScale?: number;
  excludeCurrentPositionsFromObservation?: boolean;
}

export const HALF_CHEETAH_KWARGS = [
  "forwardRewardWeight",
  "ctrlCostWeight",
  "resetNoiseScale",
  "excludeCurrentPositionsFromObservation",
] as const;

export class HalfCheetahEnv extends MujocoEnv {
  readonly forwardRewardWeight: number;
  readonly ctrlCostWeight: number;
  readonly resetNoiseScale: number;
  readonly excludeCurrentPositionsFromObservation: boolean;

  constructor(kwargs: HalfCheetahKwargs = {}) {
    const exclude = kwargs.excludeCurrentPositionsFromObservation ?? true;
    super({
      modelPath: "half_cheetah.xml",
      frameSkip: 5,
      observationSpace: unboundedObservationSpace(exclude ? 17 : 18),
      renderMode: kwargs.renderMode,
    });
    this.forwardRewardWeight = kwargs.forwardRewardWeight ?? 1.0;
    this.ctrlCostWeight = kwargs.ctrlCostWeight ?? 0.1;
    this.resetNoiseScale = kwargs.resetNoiseScale ?? 0.1;
    this.excludeCurrentPositionsFromObservation = exclude;
  }

  controlCost(action: ArrayLike<number>): number {
    return this.ctrlCostWeight * sumOfSquares(action);
  }

  step(action: ArrayLike<number>): StepResult<Float64Array> {
    const xPositionBefore = this.views.qpos[0];
    this.doSimulation(action, this.frameSkip);
    const xPositionAfter = this.views.qpos[0];
    const xVelocity = (xPositionAfter - xPositionBefore) / this.dt;

    const ctrlCost = this.controlCost(action);
    const forwardReward = this.forwardRewardWeight * xVelocity;
    const reward = forwardReward - ctrlCost;
    const info: Info = {
      x_position: xPositionAfter,
      x_velocity: xVelocity,
      reward_run: forwardReward,
      reward_ctrl: -ctrlCost,
    };
    return [this.getObs(), reward, false, false, info];
  }

  getObs(): Float64Array {
    const { qpos, qvel } = this.views;
    const skip = this.excludeCurrentPositionsFromObservation ? 1 : 0;
    return concatenate([qpos.subarray(skip), qvel]);
  }

  protected resetModel(): Float64Array {
    const s = this.resetNoiseScale;
    const qpos = this.uniformNoise(this.initQpos, -s, s);
    const qvel = this.normalNoise(this.initQvel, s);
    this.setState(qpos, qvel);
    return this.getObs();
  }
}
