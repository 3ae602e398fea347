// MountainCarContinuous, ported from Gymnasium's `gymnasium/envs/classic_control/continuous_mountain_car.py`.
//
// The same valley as MountainCar, but the action is a force in [-1, 1] scaled by a power of 0.0015, the flag is at
// 0.45, and the reward is an energy penalty -0.1 a^2 per step plus +100 on the step that reaches the flag.

import { Env, type Info, type Metadata, type ResetArgs, type StepResult } from "../gymnasium/core.ts";
import { Box, type Float32Box } from "../gymnasium/spaces.ts";

import { mountainCarStartState, renderMountainCar } from "./mountain_car.ts";
import type { Frame } from "./raster.ts";

export interface ContinuousMountainCarKwargs {
  renderMode?: string | null;
  /** Gymnasium's `goal_velocity` (default 0). */
  goalVelocity?: number;
}

export class Continuous_MountainCarEnv extends Env<Float32Array, Float32Array> {
  override metadata: Metadata = { renderModes: ["rgb_array"], renderFps: 30 };

  readonly minAction = -1.0;
  readonly maxAction = 1.0;
  readonly minPosition = -1.2;
  readonly maxPosition = 0.6;
  readonly maxSpeed = 0.07;
  readonly goalPosition = 0.45; // 0.5 in MountainCar-v0; 0.45 in Arnaud de Broissia's version this env comes from
  readonly goalVelocity: number;
  readonly power = 0.0015;

  readonly observationSpace: Float32Box;
  readonly actionSpace: Float32Box;

  /**
   * (position, velocity), as `env.unwrapped.state`. Unlike MountainCar-v0, Gymnasium stores this env's state as a
   * float32 array after every step (reset leaves it float64), so each step starts from float32-rounded values.
   */
  state: Float64Array | null = null;

  constructor(kwargs: ContinuousMountainCarKwargs = {}) {
    super();
    this.renderMode = kwargs.renderMode ?? null;
    this.goalVelocity = kwargs.goalVelocity ?? 0;
    this.actionSpace = new Box(this.minAction, this.maxAction, [1], "float32") as Float32Box;
    this.observationSpace = new Box(
      [this.minPosition, -this.maxSpeed],
      [this.maxPosition, this.maxSpeed],
      [2],
      "float32",
    ) as Float32Box;
  }

  override reset(args: ResetArgs = {}): [Float32Array, Info] {
    super.reset(args);
    this.state = mountainCarStartState(this.npRandom, args.options);
    return [Float32Array.from(this.state), {}];
  }

  /** Accepts any array-like action; values outside [-1, 1] are clipped for the dynamics but not for the reward. */
  step(action: ArrayLike<number>): StepResult<Float32Array> {
    if (this.state === null) throw new Error("Call reset before using step method.");
    let position = this.state[0];
    let velocity = this.state[1];
    const force = Math.min(Math.max(action[0], this.minAction), this.maxAction);

    velocity += force * this.power - 0.0025 * Math.cos(3 * position);
    if (velocity > this.maxSpeed) velocity = this.maxSpeed;
    if (velocity < -this.maxSpeed) velocity = -this.maxSpeed;
    position += velocity;
    if (position > this.maxPosition) position = this.maxPosition;
    if (position < this.minPosition) position = this.minPosition;
    if (position === this.minPosition && velocity < 0) velocity = 0;

    const terminated = position >= this.goalPosition && velocity >= this.goalVelocity;

    // Gymnasium squares the *unclipped* action, so an out-of-range action is penalised for its full size.
    let reward = 0;
    if (terminated) reward = 100.0;
    reward -= action[0] * action[0] * 0.1;

    this.state = Float64Array.of(Math.fround(position), Math.fround(velocity));
    return [Float32Array.from(this.state), reward, terminated, false, {}];
  }

  override render(): Frame | null {
    return renderMountainCar(this);
  }
}
