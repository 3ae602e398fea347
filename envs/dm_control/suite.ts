// The Gymnasium view of a suite task, as CleanRL gets it from `gym.make("dm_control/<domain>-<task>-v0")`: Shimmy's
// `DmControlCompatibilityV0` around dm_control's `suite.load(domain, task)`.
//
// - Observation space: a Dict of float64 Boxes, unbounded, one per observation key with its shape (a scalar key is
//   shape []); Gymnasium sorts the keys. The observation spec is read from an observation of the freshly loaded
//   physics, as dm_control infers it.
// - Action space: a float64 Box over the actuators' control ranges (+-1e10 where unlimited).
// - `reset({ seed })` replaces the task's RandomState with `RandomState(seed)` (Shimmy's `np_random` setter);
//   without a seed the task's stream goes on. A freshly made env draws from a random seed (dm_control's
//   `random=None`).
// - A step's reward is the time-step's (0 for none); on the LAST step a discount above 0 means truncation (the
//   time limit), 0 means termination. The info holds the time-step's discount and step type.
// - There is no time limit wrapper: dm_control's own step limit ends episodes.

import { Env, type Info, type ResetArgs, type StepResult } from "../gymnasium/core.ts";
import { Box, Dict, type TypedArray } from "../gymnasium/spaces.ts";
import { type Environment, type Observation, StepType, type TimeStep } from "./control.ts";
import { RandomState } from "./random_state.ts";

type DictObservation = Record<string, TypedArray>;

function toGym(observation: Observation): DictObservation {
  const out: DictObservation = {};
  for (const [key, value] of observation)
    out[key] = typeof value === "number" ? Float64Array.of(value) : value instanceof Float64Array ? value : value.data;
  return out;
}

export class DmControlCompatibilityV0 extends Env<DictObservation, TypedArray> {
  readonly observationSpace: Dict;
  readonly actionSpace: Box;

  constructor(readonly environment: Environment) {
    super();
    const spaces: Record<string, Box> = {};
    for (const [key, value] of environment.task.getObservation(environment.physics)) {
      const shape = typeof value === "number" ? [] : value instanceof Float64Array ? [value.length] : value.shape;
      spaces[key] = new Box(Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY, shape, "float64");
    }
    this.observationSpace = new Dict(spaces);
    const { low, high } = environment.actionBounds();
    this.actionSpace = new Box(low, high, [low.length], "float64");
    this.metadata = { renderModes: [], renderFps: environment.controlTimestep() * 1000 };
  }

  /** The task's RandomState (Shimmy's `np_random`, a legacy RandomState). */
  get randomState(): RandomState {
    return this.environment.task.random;
  }

  override reset(args: ResetArgs = {}): [DictObservation, Info] {
    super.reset(args);
    if (args.seed !== undefined) this.environment.task.random = new RandomState(args.seed);
    const timeStep = this.environment.reset();
    return [toGym(timeStep.observation), infoOf(timeStep)];
  }

  step(action: TypedArray): StepResult<DictObservation> {
    const timeStep = this.environment.step(action);
    let terminated = false;
    let truncated = false;
    if (timeStep.stepType === StepType.LAST) {
      if ((timeStep.discount ?? 0) > 0) truncated = true;
      else terminated = true;
    }
    return [toGym(timeStep.observation), timeStep.reward ?? 0, terminated, truncated, infoOf(timeStep)];
  }

  override close(): void {
    this.environment.close();
  }
}

function infoOf(timeStep: TimeStep): Info {
  return { "timestep.discount": timeStep.discount, "timestep.step_type": timeStep.stepType };
}
