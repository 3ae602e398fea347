// Humanoid-v4, ported from Gymnasium 0.29's `gymnasium/envs/mujoco/humanoid_v4.py`.
//
// A 3D humanoid on a free joint (17 actuated hinges) walks along +x; dt = 5 * 0.003 s.
// Reward: 1.25 * x_velocity of the whole-body centre of mass + healthy_reward (5) - 0.1 * sum(ctrl^2). v4 has
// no contact cost in its reward (the docstring mentions one; the code does not compute it). The control cost
// reads `data.ctrl`, i.e. the action as written to MuJoCo (in float64), not the float32 action.
// Healthy: 1 < torso z < 2; unhealthy terminates.
// Observation (376): qpos[2:] (22), qvel (23), cinert (14 bodies x 10), cvel (14 x 6), qfrc_actuator (23),
// cfrc_ext (14 x 6). Reset: qpos and qvel + U(-0.01, 0.01).

import type { Info, StepResult } from "../gymnasium/core.ts";
import {
  MujocoEnv,
  concatenate,
  inOpenRange,
  numpySum,
  planarMotionInfo,
  sumOfSquares,
  unboundedObservationSpace,
} from "./mujoco_env.ts";

export interface HumanoidKwargs {
  renderMode?: string | null;
  forwardRewardWeight?: number;
  ctrlCostWeight?: number;
  healthyReward?: number;
  terminateWhenUnhealthy?: boolean;
  healthyZRange?: [number, number];
  resetNoiseScale?: number;
  excludeCurrentPositionsFromObservation?: boolean;
}

export const HUMANOID_KWARGS = [
  "forwardRewardWeight",
  "ctrlCostWeight",
  "healthyReward",
  "terminateWhenUnhealthy",
  "healthyZRange",
  "resetNoiseScale",
  "excludeCurrentPositionsFromObservation",
] as const;

export class HumanoidEnv extends MujocoEnv {
  readonly forwardRewardWeight: number;
  readonly ctrlCostWeight: number;
  readonly healthyRewardValue: number;
  readonly terminateWhenUnhealthy: boolean;
  readonly healthyZRange: [number, number];
  readonly resetNoiseScale: number;
  readonly excludeCurrentPositionsFromObservation: boolean;
  /** model.body_mass, copied (it never changes). */
  private readonly bodyMass: Float64Array;
  private readonly totalMass: number;

  constructor(kwargs: HumanoidKwargs = {}) {
    const exclude = kwargs.excludeCurrentPositionsFromObservation ?? true;
    super({
      modelPath: "humanoid.xml",
      frameSkip: 5,
      observationSpace: unboundedObservationSpace(exclude ? 376 : 378),
      renderMode: kwargs.renderMode,
    });
    this.forwardRewardWeight = kwargs.forwardRewardWeight ?? 1.25;
    this.ctrlCostWeight = kwargs.ctrlCostWeight ?? 0.1;
    this.healthyRewardValue = kwargs.healthyReward ?? 5.0;
    this.terminateWhenUnhealthy = kwargs.terminateWhenUnhealthy ?? true;
    this.healthyZRange = kwargs.healthyZRange ?? [1.0, 2.0];
    this.resetNoiseScale = kwargs.resetNoiseScale ?? 1e-2;
    this.excludeCurrentPositionsFromObservation = exclude;
    this.bodyMass = (this.model.body_mass as Float64Array).slice();
    // `np.sum(mass)` adds pairwise; the per-axis sum in `massCenter` is a plain running sum, as numpy's axis-0 sum is.
    this.totalMass = numpySum(this.bodyMass);
  }

  /** Gymnasium's `mass_center`: the mass-weighted mean of the bodies' centres of mass (xipos), x and y. */
  massCenter(): [number, number] {
    const { xipos } = this.views;
    let x = 0;
    let y = 0;
    for (let b = 0; b < this.bodyMass.length; b++) {
      x += this.bodyMass[b] * xipos[3 * b];
      y += this.bodyMass[b] * xipos[3 * b + 1];
    }
    return [x / this.totalMass, y / this.totalMass];
  }

  get isHealthy(): boolean {
    return inOpenRange(this.views.qpos[2], this.healthyZRange);
  }

  get healthyReward(): number {
    return (this.isHealthy || this.terminateWhenUnhealthy ? 1 : 0) * this.healthyRewardValue;
  }

  /** `ctrl_cost_weight * sum(data.ctrl^2)`. */
  get controlCost(): number {
    return this.ctrlCostWeight * sumOfSquares(this.views.ctrl);
  }

  step(action: ArrayLike<number>): StepResult<Float64Array> {
    const [xBefore, yBefore] = this.massCenter();
    this.doSimulation(action, this.frameSkip);
    const [xAfter, yAfter] = this.massCenter();
    const xVelocity = (xAfter - xBefore) / this.dt;
    const yVelocity = (yAfter - yBefore) / this.dt;

    const ctrlCost = this.controlCost;
    const forwardReward = this.forwardRewardWeight * xVelocity;
    const healthyReward = this.healthyReward;
    const rewards = forwardReward + healthyReward;
    const reward = rewards - ctrlCost;
    const terminated = this.terminateWhenUnhealthy ? !this.isHealthy : false;
    const info: Info = {
      reward_linvel: forwardReward,
      reward_quadctrl: -ctrlCost,
      reward_alive: healthyReward,
      ...planarMotionInfo(xAfter, yAfter, xVelocity, yVelocity),
      forward_reward: forwardReward,
    };
    return [this.getObs(), reward, terminated, false, info];
  }

  getObs(): Float64Array {
    const { qpos, qvel, cinert, cvel, qfrcActuator, cfrcExt } = this.views;
    const skip = this.excludeCurrentPositionsFromObservation ? 2 : 0;
    return concatenate([qpos.subarray(skip), qvel, cinert, cvel, qfrcActuator, cfrcExt]);
  }

  protected resetModel(): Float64Array {
    const s = this.resetNoiseScale;
    this.setState(this.uniformNoise(this.initQpos, -s, s), this.uniformNoise(this.initQvel, -s, s));
    return this.getObs();
  }
}
