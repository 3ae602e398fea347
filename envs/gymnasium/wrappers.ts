// Wrappers, as `gymnasium.wrappers` (0.29). Each one changes one thing and says where its semantics come from.

import {
  ActionWrapper,
  type Env,
  type Info,
  ObservationWrapper,
  type ResetArgs,
  RewardWrapper,
  type StepResult,
  type StepWithoutObservationResult,
  Wrapper,
} from "./core.ts";
import { RunningMeanStd, type RunningMeanStdState } from "./running_mean_std.ts";
import { Box, Dict, type TypedArray, zerosOf } from "./spaces.ts";

export { RunningMeanStd, type RunningMeanStdState } from "./running_mean_std.ts";

/** Truncates an episode after `maxEpisodeSteps` steps (`truncated = true`), as `gymnasium.wrappers.TimeLimit`. */
export class TimeLimit<Obs, Act> extends Wrapper<Obs, Act> {
  private elapsedSteps: number | null = null;
  constructor(
    env: Env<Obs, Act>,
    readonly maxEpisodeSteps: number,
  ) {
    super(env);
  }
  override reset(args: ResetArgs = {}): [Obs, Info] {
    this.elapsedSteps = 0;
    return this.env.reset(args);
  }
  override step(action: Act): StepResult<Obs> {
    const result = this.env.step(action);
    result[3] = this.count(result[3]);
    return result;
  }
  override stepInto(action: Act, out: TypedArray | null): StepWithoutObservationResult {
    const result = this.env.stepInto(action, out);
    result[2] = this.count(result[2]);
    return result;
  }
  /** Counts one step; the step's `truncated`, set once the limit is reached. */
  private count(truncated: boolean): boolean {
    this.elapsedSteps = (this.elapsedSteps ?? 0) + 1;
    return this.elapsedSteps >= this.maxEpisodeSteps ? true : truncated;
  }
}

/** Throws if `step` is called before the first `reset`, as `gymnasium.wrappers.OrderEnforcing`. */
export class OrderEnforcing<Obs, Act> extends Wrapper<Obs, Act> {
  private hasReset = false;
  override reset(args: ResetArgs = {}): [Obs, Info] {
    this.hasReset = true;
    return this.env.reset(args);
  }
  override step(action: Act): StepResult<Obs> {
    if (!this.hasReset) throw new Error("Cannot call env.step() before calling env.reset()");
    return this.env.step(action);
  }
  override stepInto(action: Act, out: TypedArray | null): StepWithoutObservationResult {
    if (!this.hasReset) throw new Error("Cannot call env.step() before calling env.reset()");
    return this.env.stepInto(action, out);
  }
}

/** What RecordEpisodeStatistics puts in `info.episode` at the end of an episode. */
export interface EpisodeStatistics {
  /** Undiscounted return of the episode. */
  r: number;
  /** Length of the episode in steps. */
  l: number;
  /** Wall-clock seconds from the start of the episode, rounded to microseconds. */
  t: number;
}

/**
 * Records each episode's return and length, as `gymnasium.wrappers.RecordEpisodeStatistics` (0.29). When
 * `step` ends an episode (terminated or truncated) the step's info gains `episode: { r, l, t }`; CleanRL logs
 * `info.episode.r` / `.l` from there (inside SyncVectorEnv's `final_info`, since the vector env autoresets).
 *
 * 0.29 details carried over:
 * - the running return is a float32 accumulator (`np.zeros(num_envs, dtype=np.float32)`), hence `Math.fround`;
 * - `t` is measured from the episode's start (the last `reset` or the previous episode end), not from the
 *   wrapper's creation as in old gym, and rounded to 6 decimals (`np.round(..., 6)`). We keep the start time in
 *   float64 where 0.29 stores `perf_counter()` in float32, which only loses precision there;
 * - an inner info that already has `episode` is an error ("Attempted to add episode stats when they already exist").
 */
export class RecordEpisodeStatistics<Obs = unknown, Act = unknown> extends Wrapper<Obs, Act> {
  /** Returns of the last `bufferLength` episodes, oldest first (0.29's `return_queue`, a deque). */
  readonly returnQueue: number[] = [];
  /** Lengths of the last `bufferLength` episodes, oldest first (0.29's `length_queue`). */
  readonly lengthQueue: number[] = [];
  episodeCount = 0;
  private episodeReturn = 0;
  private episodeLength = 0;
  private episodeStartTime = performance.now();

  constructor(
    env: Env<Obs, Act>,
    readonly bufferLength = 100,
  ) {
    super(env);
  }

  override reset(args: ResetArgs = {}): [Obs, Info] {
    const result = this.env.reset(args);
    this.episodeReturn = 0;
    this.episodeLength = 0;
    this.episodeStartTime = performance.now();
    return result;
  }

  override step(action: Act): StepResult<Obs> {
    const result = this.env.step(action);
    result[4] = this.record(result[1], result[2], result[3], result[4]);
    return result;
  }

  override stepInto(action: Act, out: TypedArray | null): StepWithoutObservationResult {
    const result = this.env.stepInto(action, out);
    result[3] = this.record(result[0], result[1], result[2], result[3]);
    return result;
  }

  /** Adds one step to the running episode; returns the step's info, with `episode` added when the episode ended. */
  private record(reward: number, terminated: boolean, truncated: boolean, info: Info): Info {
    this.episodeReturn = Math.fround(this.episodeReturn + reward);
    this.episodeLength += 1;
    if (terminated || truncated) {
      if ("episode" in info || "_episode" in info)
        throw new Error("RecordEpisodeStatistics: attempted to add episode stats when they already exist");
      const now = performance.now();
      const episode: EpisodeStatistics = {
        r: this.episodeReturn,
        l: this.episodeLength,
        t: Math.round((now - this.episodeStartTime) * 1000) / 1e6,
      };
      // A new object rather than writing into the inner env's info, which an env may reuse between steps.
      info = { ...info, episode };
      pushBounded(this.returnQueue, episode.r, this.bufferLength);
      pushBounded(this.lengthQueue, episode.l, this.bufferLength);
      this.episodeCount += 1;
      this.episodeReturn = 0;
      this.episodeLength = 0;
      this.episodeStartTime = now;
    }
    return info;
  }
}

function pushBounded(queue: number[], value: number, maxLength: number): void {
  queue.push(value);
  if (queue.length > maxLength) queue.shift();
}

/**
 * Clips Box actions to the action space's bounds before they reach the env, as `gymnasium.wrappers.ClipAction`.
 * In 0.29 the wrapper's `action_space` stays the inner env's bounded Box (only 1.0 widens it to
 * Box(-inf, inf)); we keep 0.29's, so sampling from it still gives in-bounds actions.
 */
export class ClipAction<Obs = unknown> extends ActionWrapper<Obs, TypedArray> {
  private readonly box: Box;
  /** Also takes an untyped `Env` (what `make` returns): the Box action space is checked at run time. */
  constructor(env: Env<Obs, TypedArray> | Env) {
    if (!(env.actionSpace instanceof Box))
      throw new TypeError(`ClipAction: action space must be a Box, got ${env.actionSpace}`);
    super(env as Env<Obs, TypedArray>);
    this.box = env.actionSpace;
  }
  action(action: TypedArray): TypedArray {
    const { low, high, dtype, size } = this.box;
    if (action.length !== size)
      throw new RangeError(`ClipAction: expected ${size} action values, got ${action.length}`);
    const clipped = zerosOf(dtype, size);
    // Math.min/max propagate NaN exactly like np.clip does.
    for (let i = 0; i < size; i++) clipped[i] = Math.min(Math.max(action[i], low[i]), high[i]);
    return clipped;
  }
}

/**
 * Normalizes each observation coordinate to roughly zero mean and unit variance with running statistics, as
 * `gymnasium.wrappers.NormalizeObservation` (0.29): every observation, from `reset` and from `step`, first
 * updates `obsRms` (a batch of one) and is then mapped to `(obs - mean) / sqrt(var + epsilon)`.
 *
 * dtype: in 0.29 the result is float64 (float32 obs minus a float64 mean) while `observation_space` stays the
 * float32 Box, and SyncVectorEnv then casts it back to float32 when batching. We return the observation space's
 * dtype directly (Float32Array for float32 Boxes, Float64Array otherwise), which is what a CleanRL agent sees.
 *
 * `updateRunningMean = false` freezes the statistics (Gymnasium 1.0's `update_running_mean`; 0.29 cannot),
 * which evaluation with saved statistics needs.
 */
export class NormalizeObservation<Act = unknown> extends ObservationWrapper<TypedArray, Act, ArrayLike<number>> {
  readonly obsRms: RunningMeanStd;
  updateRunningMean = true;
  private readonly outputFloat32: boolean;

  /** Also takes an untyped `Env` (what `make` returns); observations must be arrays of the space's size. */
  constructor(
    env: Env<ArrayLike<number>, Act> | Env,
    readonly epsilon = 1e-8,
  ) {
    super(env as Env<ArrayLike<number>, Act>);
    this.obsRms = new RunningMeanStd(env.observationSpace.shape);
    this.outputFloat32 = env.observationSpace.dtype === "float32";
  }

  observation(obs: ArrayLike<number>): TypedArray {
    const rms = this.obsRms;
    if (obs.length !== rms.size)
      throw new RangeError(`NormalizeObservation: expected ${rms.size} values, got ${obs.length}`);
    if (this.updateRunningMean) rms.update(obs, 1);
    const out = this.outputFloat32 ? new Float32Array(rms.size) : new Float64Array(rms.size);
    for (let i = 0; i < rms.size; i++) out[i] = (obs[i] - rms.mean[i]) / Math.sqrt(rms.var[i] + this.epsilon);
    return out;
  }
}

/**
 * Scales rewards so that their discounted sum has roughly unit variance, as `gymnasium.wrappers.NormalizeReward`
 * (0.29):
 *   returns = returns * gamma * (1 - terminated) + reward;  returnRms.update([returns]);
 *   reward / sqrt(returnRms.var + epsilon)
 * Note the 0.29 order: a termination zeroes the accumulator *before* adding that step's reward, so the terminal
 * step's return is just its own reward, and the first step of the next episode still carries it
 * (`gamma * r_terminal + r`). Truncation does not reset the accumulator at all. (Gym <= 0.25 instead zeroed
 * `returns[dones]` after normalizing; we follow 0.29.) The reward is not centred, only scaled.
 */
export class NormalizeReward<Obs = unknown, Act = unknown> extends Wrapper<Obs, Act> {
  readonly returnRms = new RunningMeanStd([]);
  /** The discounted-return accumulator (0.29's `self.returns`, one env). */
  discountedReturn = 0;
  updateRunningMean = true;
  private readonly single = new Float64Array(1);

  constructor(
    env: Env<Obs, Act>,
    readonly gamma = 0.99,
    readonly epsilon = 1e-8,
  ) {
    super(env);
  }

  override step(action: Act): StepResult<Obs> {
    const result = this.env.step(action);
    const [, reward, terminated] = result;
    this.discountedReturn = this.discountedReturn * this.gamma * (terminated ? 0 : 1) + reward;
    if (this.updateRunningMean) {
      this.single[0] = this.discountedReturn;
      this.returnRms.update(this.single, 1);
    }
    result[1] = reward / Math.sqrt(this.returnRms.var[0] + this.epsilon);
    return result;
  }
}

/** Applies `f` to every observation, as `gymnasium.wrappers.TransformObservation` (0.29): the space is left as is. */
export class TransformObservation<Obs, Act = unknown, InnerObs = Obs> extends ObservationWrapper<Obs, Act, InnerObs> {
  /** Also takes an untyped `Env` (what `make` returns), trusting `f`'s parameter type as Python would. */
  constructor(
    env: Env<InnerObs, Act> | Env,
    readonly f: (obs: InnerObs) => Obs,
  ) {
    super(env as Env<InnerObs, Act>);
  }
  observation(obs: InnerObs): Obs {
    return this.f(obs);
  }
}

/** Applies `f` to every reward, as `gymnasium.wrappers.TransformReward` (0.29). */
export class TransformReward<Obs = unknown, Act = unknown> extends RewardWrapper<Obs, Act> {
  constructor(
    env: Env<Obs, Act>,
    readonly f: (reward: number) => number,
  ) {
    super(env);
  }
  reward(reward: number): number {
    return this.f(reward);
  }
}

/**
 * Reshapes an observation space to one dimension, as `gymnasium.wrappers.FlattenObservation` (CleanRL's
 * continuous PPO applies it first). A Box's values are already stored flat and row-major, so they pass through; a
 * Dict's values are concatenated in its (sorted) key order into one array of its dtype, as `flatten` does for the
 * dict observations of dm_control.
 */
export class FlattenObservation<Act = unknown> extends Wrapper<TypedArray, Act> {
  private readonly dict: Dict | null;

  /** Also takes an untyped `Env` (what `make` returns): the Box or Dict observation space is checked at run time. */
  constructor(env: Env<TypedArray, Act> | Env) {
    const space = env.observationSpace;
    if (!(space instanceof Box) && !(space instanceof Dict))
      throw new TypeError(`FlattenObservation: only Box and Dict observation spaces are supported, got ${space}`);
    super(env as Env<TypedArray, Act>);
    if (space instanceof Box) {
      this.dict = null;
      this.observationSpace = new Box(space.low, space.high, [space.size], space.dtype);
    } else {
      this.dict = space;
      const parts = Object.values(space.spaces);
      const low = parts.flatMap((s) => Array.from(s.low));
      const high = parts.flatMap((s) => Array.from(s.high));
      this.observationSpace = new Box(low, high, [space.size], space.dtype);
    }
  }

  private flatten(obs: TypedArray): TypedArray {
    const dict = this.dict;
    if (dict === null) return obs;
    const values = obs as unknown as Record<string, ArrayLike<number>>;
    const out = zerosOf(dict.dtype, dict.size);
    let offset = 0;
    for (const key of Object.keys(dict.spaces)) {
      const part = values[key];
      for (let i = 0; i < part.length; i++) out[offset + i] = part[i];
      offset += part.length;
    }
    return out;
  }

  override reset(args: ResetArgs = {}): [TypedArray, Info] {
    const [obs, info] = this.env.reset(args);
    return [this.flatten(obs), info];
  }

  override step(action: Act): StepResult<TypedArray> {
    const [obs, reward, terminated, truncated, info] = this.env.step(action);
    return [this.flatten(obs), reward, terminated, truncated, info];
  }

  /** A Box observation passes through, so the inner env may write it where it is wanted (see Wrapper.stepInto). */
  override stepInto(action: Act, out: TypedArray | null): StepWithoutObservationResult {
    if (this.dict === null) return this.env.stepInto(action, out);
    return super.stepInto(action, out);
  }
}

// ---- not in gymnasium: the normalizers' statistics, which checkpoints carry ----------------------------------

/** The running statistics of the NormalizeObservation and NormalizeReward wrappers of each env, as JSON. */
export type NormalizerStates = {
  obsRms: RunningMeanStdState[];
  returnRms: RunningMeanStdState[];
};

/** The wrapper of class `kind` in an env's stack. */
function findWrapper<W>(env: Env, kind: abstract new (...args: never[]) => W): W {
  for (let e: Env = env; e instanceof Wrapper; e = e.env) if (e instanceof kind) return e as W;
  throw new Error(`no ${kind.name} wrapper in the env stack of ${env}`);
}

/**
 * The normalizers' statistics of every env. An agent trained on normalized observations is only half the policy:
 * evaluating it needs the statistics it was trained with, and a resumed run goes on scaling as before.
 */
export function normalizerStates(envs: readonly Env[]): NormalizerStates {
  return {
    obsRms: envs.map((e) => findWrapper(e, NormalizeObservation).obsRms.state()),
    returnRms: envs.map((e) => findWrapper(e, NormalizeReward).returnRms.state()),
  };
}

/**
 * Sets env i's statistics to the i-th saved ones (where saved); `freeze` stops their updates, as an evaluation
 * with the trained statistics wants.
 */
export function loadNormalizerStates(envs: readonly Env[], states: Partial<NormalizerStates>, freeze = false): void {
  envs.forEach((env, i) => {
    const obs = findWrapper(env, NormalizeObservation);
    const reward = findWrapper(env, NormalizeReward);
    if (states.obsRms?.[i] !== undefined) obs.obsRms.loadState(states.obsRms[i]);
    if (states.returnRms?.[i] !== undefined) reward.returnRms.loadState(states.returnRms[i]);
    obs.updateRunningMean = reward.updateRunningMean = !freeze;
  });
}

// RecordVideo lives in its own file (ffmpeg discovery and encoding); exported here so it is `gym.wrappers.RecordVideo`.
export { RecordVideo, cappedCubicVideoSchedule } from "./video.ts";
