// Ant-v4, ported from Gymnasium 0.29's `gymnasium/envs/mujoco/ant_v4.py`.
//
// A quadruped on a free joint (8 actuated hinges, gear 150) walks along +x; dt = 5 * 0.01 s.
// Reward: x_velocity (of the torso body frame) + healthy_reward (1) - 0.5 * sum(action^2), and with
// `useContactForces` also - 5e-4 * sum(clip(cfrc_ext, -1, 1)^2). Healthy: every qpos/qvel entry finite and
// 0.2 <= torso z <= 1 (inclusive, unlike the other tasks); unhealthy terminates.
// Observation (27, v4's default `use_contact_forces=False`): qpos[2:] (13) and qvel (14); with contact forces,
// also the clipped cfrc_ext of all 14 bodies (84) = 111.
// Reset: qpos + U(-0.1, 0.1), qvel + 0.1 * N(0, 1).

import type { Info, StepResult } from "../gymnasium/core.ts";
import {
  MujocoEnv,
  clip,
  concatenate,
  planarMotionInfo,
  sumOfSquares,
  unboundedObservationSpace,
} from "./mujoco_env.ts";

export interface AntKwargs {
  renderMode?: string | null;
  ctrlCostWeight?: number;
  useContactForces?: boolean;
  contactCostWeight?: number;
  healthyReward?: number;
  terminateWhenUnhealthy?: boolean;
  healthyZRange?: [number, number];
  contactForceRange?: [number, number];
  resetNoiseScale?: number;
  excludeCurrentPositionsFromObservation?: boolean;
}

export const ANT_KWARGS = [
  "ctrlCostWeight",
  "useContactForces",
  "contactCostWeight",
  "healthyReward",
  "terminateWhenUnhealthy",
  "healthyZRange",
  "contactForceRange",
  "resetNoiseScale",
  "excludeCurrentPositionsFromObservation",
] as const;

export class AntEnv extends MujocoEnv {
  readonly ctrlCostWeight: number;
  readonly useContactForces: boolean;
  readonly contactCostWeight: number;
  readonly healthyRewardValue: number;
  readonly terminateWhenUnhealthy: boolean;
  readonly healthyZRange: [number, number];
  readonly contactForceRange: [number, number];
  readonly resetNoiseScale: number;
  readonly excludeCurrentPositionsFromObservation: boolean;
  private readonly torso: number;

  constructor(kwargs: AntKwargs = {}) {
    const exclude = kwargs.excludeCurrentPositionsFromObservation ?? true;
    const useContactForces = kwargs.useContactForces ?? false;
    const size = 27 + (exclude ? 0 : 2) + (useContactForces ? 84 : 0);
    super({
      modelPath: "ant.xml",
      frameSkip: 5,
      observationSpace: unboundedObservationSpace(size),
      renderMode: kwargs.renderMode,
    });
    this.ctrlCostWeight = kwargs.ctrlCostWeight ?? 0.5;
    this.useContactForces = useContactForces;
    this.contactCostWeight = kwargs.contactCostWeight ?? 5e-4;
    this.healthyRewardValue = kwargs.healthyReward ?? 1.0;
    this.terminateWhenUnhealthy = kwargs.terminateWhenUnhealthy ?? true;
    this.healthyZRange = kwargs.healthyZRange ?? [0.2, 1.0];
    this.contactForceRange = kwargs.contactForceRange ?? [-1.0, 1.0];
    this.resetNoiseScale = kwargs.resetNoiseScale ?? 0.1;
    this.excludeCurrentPositionsFromObservation = exclude;
    this.torso = this.bodyId("torso");
  }

  get isHealthy(): boolean {
    const { qpos, qvel } = this.views;
    if (!qpos.every(Number.isFinite) || !qvel.every(Number.isFinite)) return false;
    const z = qpos[2];
    return this.healthyZRange[0] <= z && z <= this.healthyZRange[1];
  }

  get healthyReward(): number {
    return (this.isHealthy || this.terminateWhenUnhealthy ? 1 : 0) * this.healthyRewardValue;
  }

  controlCost(action: ArrayLike<number>): number {
    return this.ctrlCostWeight * sumOfSquares(action);
  }

  /** Gymnasium's `contact_forces`: every body's cfrc_ext clipped to `contactForceRange`, copied. */
  get contactForces(): Float64Array {
    const [low, high] = this.contactForceRange;
    return this.views.cfrcExt.map((f) => clip(f, low, high));
  }

  /** `contact_cost_weight * sum(contact_forces^2)`. */
  get contactCost(): number {
    return this.contactCostWeight * sumOfSquares(this.contactForces);
  }

  step(action: ArrayLike<number>): StepResult<Float64Array> {
    const t = 3 * this.torso;
    const before = this.views.xpos;
    const xBefore = before[t];
    const yBefore = before[t + 1];
    this.doSimulation(action, this.frameSkip);
    const after = this.views.xpos;
    const xAfter = after[t];
    const yAfter = after[t + 1];
    const xVelocity = (xAfter - xBefore) / this.dt;
    const yVelocity = (yAfter - yBefore) / this.dt;

    const forwardReward = xVelocity;
    const healthyReward = this.healthyReward;
    const rewards = forwardReward + healthyReward;
    const ctrlCost = this.controlCost(action);
    let costs = ctrlCost;
    const terminated = this.terminateWhenUnhealthy ? !this.isHealthy : false;
    const info: Info = {
      reward_forward: forwardReward,
      reward_ctrl: -ctrlCost,
      reward_survive: healthyReward,
      ...planarMotionInfo(xAfter, yAfter, xVelocity, yVelocity),
      forward_reward: forwardReward,
    };
    if (this.useContactForces) {
      const contactCost = this.contactCost;
      costs += contactCost;
      // Gymnasium v4 overwrites reward_ctrl with the contact cost here (a v4 quirk, kept).
      info.reward_ctrl = -contactCost;
    }
    return [this.getObs(), rewards - costs, terminated, false, info];
  }

  getObs(): Float64Array {
    const { qpos, qvel } = this.views;
    const skip = this.excludeCurrentPositionsFromObservation ? 2 : 0;
    return concatenate(
      this.useContactForces ? [qpos.subarray(skip), qvel, this.contactForces] : [qpos.subarray(skip), qvel],
    );
  }

  protected resetModel(): Float64Array {
    const s = this.resetNoiseScale;
    this.setState(this.uniformNoise(this.initQpos, -s, s), this.normalNoise(this.initQvel, s));
    return this.getObs();
  }
}
