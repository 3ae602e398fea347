// dm_control's `rl.control.Environment` and the suite's `base.Task`: the dm_env loop every suite task runs in.
//
// - `reset()`: the physics is reset (mj_resetData and an actuation-free mj_forward), the task draws its initial
//   state, the physics runs another actuation-free mj_forward (`reset_context`), and the first time-step (FIRST, no
//   reward, no discount) carries the task's observation.
// - `step(action)`: the task writes the action (`before_step`: the controls), the physics takes `nSubSteps` steps,
//   then reward and observation are read. After `stepLimit` steps the episode ends with discount 1 (a time limit);
//   before that the task's `getTermination` may end it with its own discount (0 for a terminal state). Every other
//   step is MID with discount 1. A step after the last one starts a new episode, as dm_control's does.
// - `nSubSteps` = round(controlTimestep / physics timestep) (`compute_n_steps`, which demands an integer multiple
//   to within 1e-8); `stepLimit` = timeLimit / (timestep * nSubSteps), a float compared with the step count.

import type { Physics } from "./physics.ts";
import { RandomState } from "./random_state.ts";

export const StepType = { FIRST: 0, MID: 1, LAST: 2 } as const;
export type StepType = (typeof StepType)[keyof typeof StepType];

/** A multi-dimensional observation value: row-major data and its shape (e.g. manipulator's (8, 2) arm_pos). */
export interface ShapedArray {
  data: Float64Array;
  shape: readonly number[];
}

/** An observation dict in the task's key order; a number is a scalar observation. */
export type Observation = Map<string, Float64Array | number | ShapedArray>;

export interface TimeStep {
  stepType: StepType;
  reward: number | null;
  discount: number | null;
  observation: Observation;
}

/** The suite's `base.Task`: owns the task's RandomState; `beforeStep` writes the action into the controls. */
export abstract class Task<P extends Physics = Physics> {
  random: RandomState;

  /** `random`: a RandomState, a seed, or nothing for a random seed (dm_control's `random=None`). */
  constructor(random?: RandomState | number) {
    this.random = random instanceof RandomState ? random : new RandomState(random);
  }

  /** Draws the episode's initial state into `physics` (inside its reset context). */
  abstract initializeEpisode(physics: P): void;

  beforeStep(action: ArrayLike<number>, physics: P): void {
    physics.setControl(action);
  }

  afterStep(_physics: P): void {}

  abstract getObservation(physics: P): Observation;

  abstract getReward(physics: P): number;

  /** The discount that ends the episode (0 for a terminal state), or null while it goes on. */
  getTermination(_physics: P): number | null {
    return null;
  }

  actionBounds(physics: P): { low: Float64Array; high: Float64Array } {
    return physics.actionBounds();
  }
}

/** `control.compute_n_steps`. */
export function computeNSteps(controlTimestep: number, physicsTimestep: number, tolerance = 1e-8): number {
  if (controlTimestep < physicsTimestep)
    throw new RangeError(
      `Control timestep (${controlTimestep}) cannot be smaller than physics timestep (${physicsTimestep}).`,
    );
  const ratio = controlTimestep / physicsTimestep;
  if (Math.abs(ratio - Math.round(ratio)) > tolerance)
    throw new RangeError(
      `Control timestep (${controlTimestep}) must be an integer multiple of physics timestep (${physicsTimestep})`,
    );
  return Math.round(ratio);
}

export interface EnvironmentOptions {
  /** Seconds per episode; Infinity for none. */
  timeLimit?: number;
  controlTimestep?: number;
  nSubSteps?: number;
}

export class Environment<P extends Physics = Physics> {
  readonly nSubSteps: number;
  readonly stepLimit: number;
  private stepCount = 0;
  private resetNextStep = true;

  constructor(
    readonly physics: P,
    readonly task: Task<P>,
    options: EnvironmentOptions = {},
  ) {
    if (options.nSubSteps !== undefined && options.controlTimestep !== undefined)
      throw new Error("Both n_sub_steps and control_timestep were supplied.");
    this.nSubSteps =
      options.nSubSteps ??
      (options.controlTimestep !== undefined ? computeNSteps(options.controlTimestep, physics.timestep()) : 1);
    const timeLimit = options.timeLimit ?? Number.POSITIVE_INFINITY;
    this.stepLimit =
      timeLimit === Number.POSITIVE_INFINITY ? timeLimit : timeLimit / (physics.timestep() * this.nSubSteps);
  }

  reset(): TimeStep {
    this.resetNextStep = false;
    this.stepCount = 0;
    this.physics.reset();
    this.task.initializeEpisode(this.physics);
    this.physics.afterReset();
    return {
      stepType: StepType.FIRST,
      reward: null,
      discount: null,
      observation: this.task.getObservation(this.physics),
    };
  }

  step(action: ArrayLike<number>): TimeStep {
    if (this.resetNextStep) return this.reset();
    this.task.beforeStep(action, this.physics);
    this.physics.step(this.nSubSteps);
    this.task.afterStep(this.physics);
    const reward = this.task.getReward(this.physics);
    const observation = this.task.getObservation(this.physics);
    this.stepCount += 1;
    const discount = this.stepCount >= this.stepLimit ? 1.0 : this.task.getTermination(this.physics);
    if (discount !== null) {
      this.resetNextStep = true;
      return { stepType: StepType.LAST, reward, discount, observation };
    }
    return { stepType: StepType.MID, reward, discount: 1.0, observation };
  }

  /** Seconds between actions. */
  controlTimestep(): number {
    return this.physics.timestep() * this.nSubSteps;
  }

  actionBounds(): { low: Float64Array; high: Float64Array } {
    return this.task.actionBounds(this.physics);
  }

  close(): void {
    this.physics.close();
  }
}
