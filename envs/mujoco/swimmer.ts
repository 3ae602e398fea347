// Swimmer-v4, ported from Gymnasium 0.29's `gymnasium/envs/mujoco/swimmer_v4.py`.
//
// A three-segment swimmer (2 actuated rotors, gear 150) in a viscous fluid moves along +x; dt = 4 * 0.01 s.
// Reward: forward_reward_weight * x_velocity - ctrl_cost_weight * sum(action^2) (weights 1 and 1e-4); no terminal
// state. Observation (8): qpos[2:] (body angle and the 2 rotor angles), then qvel (5), unclipped.
// Reset: qpos and qvel + U(-0.1, 0.1).

import type { Info, StepResult } from "../gymnasium/core.ts";
import { MujocoEnv, concatenate, planarMotionInfo, sumOfSquares, unboundedObservationSpace } from "./mujoco_env.ts";

export interface SwimmerKwargs {
  renderMode?: string | null;
  forwardRewardWeight?: number;
  ctrlCostWeight?: number;
  resetNoiseScale?: number;
  /** Leave qpos[0:2] (x, y) out of the observation. */
  excludeCurrentPositionsFromObservation?: boolean;
}

export const SWIMMER_KWARGS = [
  "forwardRewardWeight",
  "ctrlCostWeight",
  "resetNoiseScale",
  "excludeCurrentPositionsFromObservation",
] as const;

export class SwimmerEnv extends MujocoEnv {
  readonly forwardRewardWeight: number;
  readonly ctrlCostWeight: number;
  readonly resetNoiseScale: number;
  readonly excludeCurrentPositionsFromObservation: boolean;

  constructor(kwargs: SwimmerKwargs = {}) {
    const exclude = kwargs.excludeCurrentPositionsFromObservation ?? true;
    super({
      modelPath: "swimmer.xml",
      frameSkip: 4,
      observationSpace: unboundedObservationSpace(exclude ? 8 : 10),
      renderMode: kwargs.renderMode,
    });
    this.forwardRewardWeight = kwargs.forwardRewardWeight ?? 1.0;
    this.ctrlCostWeight = kwargs.ctrlCostWeight ?? 1e-4;
    this.resetNoiseScale = kwargs.resetNoiseScale ?? 0.1;
    this.excludeCurrentPositionsFromObservation = exclude;
  }

  controlCost(action: ArrayLike<number>): number {
    return this.ctrlCostWeight * sumOfSquares(action);
  }

  step(action: ArrayLike<number>): StepResult<Float64Array> {
    const before = this.views.qpos;
    const xBefore = before[0];
    const yBefore = before[1];
    this.doSimulation(action, this.frameSkip);
    const after = this.views.qpos;
    const xAfter = after[0];
    const yAfter = after[1];
    const xVelocity = (xAfter - xBefore) / this.dt;
    const yVelocity = (yAfter - yBefore) / this.dt;

    const forwardReward = this.forwardRewardWeight * xVelocity;
    const ctrlCost = this.controlCost(action);
    const reward = forwardReward - ctrlCost;
    const info: Info = {
      reward_fwd: forwardReward,
      reward_ctrl: -ctrlCost,
      ...planarMotionInfo(xAfter, yAfter, xVelocity, yVelocity),
      forward_reward: forwardReward,
    };
    return [this.getObs(), reward, false, false, info];
  }

  getObs(): Float64Array {
    const { qpos, qvel } = this.views;
    const skip = this.excludeCurrentPositionsFromObservation ? 2 : 0;
    return concatenate([qpos.subarray(skip), qvel]);
  }

  protected resetModel(): Float64Array {
    const s = this.resetNoiseScale;
    this.setState(this.uniformNoise(this.initQpos, -s, s), this.uniformNoise(this.initQvel, -s, s));
    return this.getObs();
  }
}
