// What Hopper-v4 and Walker2d-v4 share (gymnasium/envs/mujoco/hopper_v4.py and walker2d_v4.py are the same code
// apart from the health check and the defaults): a planar robot whose qpos starts with [rootx, rootz, rooty].
//
// Reward per step: forward_reward_weight * x_velocity + healthy_reward - ctrl_cost_weight * sum(action^2), with
// x_velocity = (x after - x before) / dt. healthy_reward is paid while healthy, and also on the step that ends
// the episode when `terminate_when_unhealthy` (Gymnasium's `float(is_healthy or terminate_when_unhealthy)`).
// Observation: qpos[1:] (qpos when positions are not excluded), then qvel clipped to [-10, 10].
// Info: x_position, x_velocity (v4 reports no reward terms for these two tasks).
// Reset: qpos and qvel each get U(-reset_noise_scale, reset_noise_scale) noise.

import type { Info, StepResult } from "../gymnasium/core.ts";
import { MujocoEnv, type MujocoEnvOptions, clip, sumOfSquares } from "./mujoco_env.ts";

export interface PlanarWalkerKwargs {
  renderMode?: string | null;
  forwardRewardWeight?: number;
  ctrlCostWeight?: number;
  healthyReward?: number;
  terminateWhenUnhealthy?: boolean;
  healthyZRange?: [number, number];
  healthyAngleRange?: [number, number];
  resetNoiseScale?: number;
  /** Leave qpos[0] (x, which grows without bound while moving) out of the observation. */
  excludeCurrentPositionsFromObservation?: boolean;
}

export abstract class PlanarWalkerEnv extends MujocoEnv {
  readonly forwardRewardWeight: number;
  readonly ctrlCostWeight: number;
  readonly healthyRewardValue: number;
  readonly terminateWhenUnhealthy: boolean;
  readonly resetNoiseScale: number;
  readonly excludeCurrentPositionsFromObservation: boolean;

  constructor(kwargs: PlanarWalkerKwargs, options: MujocoEnvOptions) {
    super(options);
    this.forwardRewardWeight = kwargs.forwardRewardWeight ?? 1.0;
    this.ctrlCostWeight = kwargs.ctrlCostWeight ?? 1e-3;
    this.healthyRewardValue = kwargs.healthyReward ?? 1.0;
    this.terminateWhenUnhealthy = kwargs.terminateWhenUnhealthy ?? true;
    this.resetNoiseScale = kwargs.resetNoiseScale ?? 5e-3;
    this.excludeCurrentPositionsFromObservation = kwargs.excludeCurrentPositionsFromObservation ?? true;
  }

  abstract get isHealthy(): boolean;

  get healthyReward(): number {
    return (this.isHealthy || this.terminateWhenUnhealthy ? 1 : 0) * this.healthyRewardValue;
  }

  get terminated(): boolean {
    return this.terminateWhenUnhealthy ? !this.isHealthy : false;
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
    const rewards = forwardReward + this.healthyReward;
    const reward = rewards - ctrlCost;
    const info: Info = { x_position: xPositionAfter, x_velocity: xVelocity };
    return [this.getObs(), reward, this.terminated, false, info];
  }

  getObs(): Float64Array {
    const { qpos, qvel } = this.views;
    const skip = this.excludeCurrentPositionsFromObservation ? 1 : 0;
    const obs = new Float64Array(this.nq - skip + this.nv);
    let k = 0;
    for (let i = skip; i < this.nq; i++) obs[k++] = qpos[i];
    for (let i = 0; i < this.nv; i++) obs[k++] = clip(qvel[i], -10, 10);
    return obs;
  }

  protected resetModel(): Float64Array {
    const s = this.resetNoiseScale;
    const qpos = this.uniformNoise(this.initQpos, -s, s);
    const qvel = this.uniformNoise(this.initQvel, -s, s);
    this.setState(qpos, qvel);
    return this.getObs();
  }
}
