// Vectorized environments, as `gymnasium.vector.SyncVectorEnv` (0.29): N copies of an env stepped one after
// another in this thread, with batched observations, rewards and dones, and automatic resets.
//
// Batches are flat, row-major typed arrays: the observation batch of N envs whose single observation has
// `size` values is one array of N * size values, env i's observation at offset i * size, in the dtype of the
// single observation space (Float32Array for a float32 Box), exactly the memory layout of numpy's
// `(num_envs, *obs_shape)` array.
//
// Autoreset follows 0.29 (the "same-step" rule, changed in 1.0): when env i terminates or truncates, it is
// reset inside the same `step` call; the returned batch holds the *reset* observation, and the terminal
// observation and info are parked in `infos.final_observation[i]` / `infos.final_info[i]`. Rewards,
// terminations and truncations are those of the finished step.

import type { Env, Info, ResetArgs } from "./core.ts";
import type { EpisodeStatistics } from "./wrappers.ts";
import { Box, Discrete, MultiBinary, MultiDiscrete, type Space, type TypedArray, zerosOf } from "./spaces.ts";

/**
 * The batched info dict of a vector env: for every key some sub-env reported, an array of N values plus a
 * boolean mask `_key` saying which envs reported it (0.29's `VectorEnv._add_info`). Number values batch into a
 * Float64Array (0 where absent), booleans into boolean[] (false where absent), anything else into an array
 * holding `null` where absent. Nested objects are not batched further (0.29 does not either), so
 * RecordEpisodeStatistics' `episode` is read per env: `infos.final_info[i]?.episode?.r`. Keys keep
 * Gymnasium's snake_case names.
 */
export interface VectorInfo {
  /** Terminal observation of each env that finished this step (null elsewhere). */
  final_observation?: (TypedArray | number | null)[];
  _final_observation?: boolean[];
  /** Terminal step info of each env that finished this step (null elsewhere); `episode` is RecordEpisodeStatistics'. */
  final_info?: ((Info & { episode?: EpisodeStatistics }) | null)[];
  _final_info?: boolean[];
  [key: string]: unknown;
}

export interface VectorResetArgs {
  /** An integer gives env i the seed `seed + i` (Gymnasium's rule); an array gives each env its own (null: unseeded). */
  seed?: number | readonly (number | null | undefined)[];
  options?: Record<string, unknown>;
}

export type VectorStepResult = [
  observations: TypedArray,
  rewards: Float64Array,
  terminations: Uint8Array,
  truncations: Uint8Array,
  infos: VectorInfo,
];

/**
 * The space of N stacked values of `space`, as `gymnasium.vector.utils.batch_space` (0.29):
 * Box -> Box of shape [n, ...shape]; Discrete(k) -> MultiDiscrete([k] * n); MultiDiscrete / MultiBinary -> an
 * integer Box of shape [n, ...shape] with the value ranges as bounds.
 */
export function batchSpace(space: Space, n: number): Space {
  if (space instanceof Box) return new Box(tile(space.low, n), tile(space.high, n), [n, ...space.shape], space.dtype);
  if (space instanceof Discrete) {
    // 0.29 batches Discrete(k, start) as MultiDiscrete(..., start=...); our MultiDiscrete has no start.
    if (space.start !== 0) throw new TypeError(`batchSpace: Discrete with start=${space.start} is not supported`);
    return new MultiDiscrete(new Array<number>(n).fill(space.n));
  }
  if (space instanceof MultiDiscrete) {
    const high = tile(space.nvec, n).map((k) => k - 1);
    return new Box(0, high, [n, ...space.shape], space.dtype);
  }
  if (space instanceof MultiBinary) return new Box(0, 1, [n, ...space.shape], space.dtype);
  throw new TypeError(`batchSpace: cannot batch ${space}`);
}

function tile(values: TypedArray | Int32Array, n: number): Float64Array {
  const out = new Float64Array(values.length * n);
  for (let i = 0; i < n; i++) out.set(values, i * values.length);
  return out;
}

export interface SyncVectorEnvOptions {
  /**
   * Return a fresh observation batch from every `reset`/`step` (default, Gymnasium's `copy=True`). With `false`
   * one buffer is reused and overwritten by the next call, so callers must copy what they keep.
   */
  copy?: boolean;
}

export class SyncVectorEnv {
  readonly envs: Env[];
  readonly numEnvs: number;
  readonly singleObservationSpace: Space;
  readonly singleActionSpace: Space;
  readonly observationSpace: Space;
  readonly actionSpace: Space;
  readonly metadata: Env["metadata"];
  readonly isVectorEnv = true;
  closed = false;

  private readonly copy: boolean;
  private readonly obsSize: number;
  private readonly actSize: number;
  private readonly discreteActions: boolean;
  private readonly sharedObservations: TypedArray;

  /** `envFns` are thunks, one per sub-env, like CleanRL's `[make_env(...) for i in range(num_envs)]`. */
  constructor(envFns: readonly (() => Env)[], options: SyncVectorEnvOptions = {}) {
    if (envFns.length === 0) throw new RangeError("SyncVectorEnv: needs at least one env");
    this.envs = envFns.map((makeEnv) => makeEnv());
    this.numEnvs = this.envs.length;
    this.copy = options.copy ?? true;
    this.metadata = this.envs[0].metadata;
    this.singleObservationSpace = this.envs[0].observationSpace;
    this.singleActionSpace = this.envs[0].actionSpace;
    this.checkSpaces();
    this.observationSpace = batchSpace(this.singleObservationSpace, this.numEnvs);
    this.actionSpace = batchSpace(this.singleActionSpace, this.numEnvs);
    this.obsSize = this.singleObservationSpace.size;
    this.actSize = this.singleActionSpace.size;
    this.discreteActions = this.singleActionSpace instanceof Discrete;
    this.sharedObservations = this.newObservationBatch();
  }

  /** Gymnasium's `_check_spaces`: every sub-env must have the first env's spaces. */
  private checkSpaces(): void {
    const obs = this.singleObservationSpace.toString();
    const act = this.singleActionSpace.toString();
    for (const env of this.envs) {
      if (env.observationSpace.toString() !== obs) {
        throw new Error(`SyncVectorEnv: sub-env observation space ${env.observationSpace} differs from ${obs}`);
      }
      if (env.actionSpace.toString() !== act) throw new Error(`SyncVectorEnv: sub-env action space ${env.actionSpace} differs from ${act}`);
    }
  }

  private newObservationBatch(): TypedArray {
    return zerosOf(this.singleObservationSpace.dtype, this.numEnvs * this.obsSize);
  }

  private writeObservation(batch: TypedArray, envIndex: number, obs: unknown): void {
    const offset = envIndex * this.obsSize;
    if (typeof obs === "number") {
      batch[offset] = obs;
      return;
    }
    const values = obs as ArrayLike<number>;
    if (values.length !== this.obsSize) {
      throw new RangeError(`SyncVectorEnv: env ${envIndex} returned ${values.length} observation values, expected ${this.obsSize}`);
    }
    // One native copy; for typed and plain arrays alike it converts each value as element-wise assignment would.
    (batch as Float64Array).set(values, offset);
  }

  reset(args: VectorResetArgs = {}): [observations: TypedArray, infos: VectorInfo] {
    const { seed, options } = args;
    if (Array.isArray(seed) && seed.length !== this.numEnvs) {
      throw new RangeError(`SyncVectorEnv.reset: got ${seed.length} seeds for ${this.numEnvs} envs`);
    }
    const batch = this.copy ? this.newObservationBatch() : this.sharedObservations;
    const infos: VectorInfo = {};
    for (let i = 0; i < this.numEnvs; i++) {
      const envSeed = typeof seed === "number" ? seed + i : (seed as readonly (number | null | undefined)[] | undefined)?.[i];
      const resetArgs: ResetArgs = {};
      if (envSeed !== undefined && envSeed !== null) resetArgs.seed = envSeed;
      if (options !== undefined) resetArgs.options = options;
      const [obs, info] = this.envs[i].reset(resetArgs);
      this.writeObservation(batch, i, obs);
      addInfo(infos, info, i, this.numEnvs);
    }
    return [batch, infos];
  }

  /**
   * Steps every sub-env with its action. With Discrete sub-envs `actions[i]` is env i's action; otherwise
   * `actions` is flat (numEnvs * action size) and env i gets its own copy of its slice, in the action space's dtype.
   */
  step(actions: ArrayLike<number>): VectorStepResult {
    const n = this.numEnvs;
    if (actions.length !== n * this.actSize) {
      throw new RangeError(`SyncVectorEnv.step: expected ${n * this.actSize} action values for ${n} envs, got ${actions.length}`);
    }
    const batch = this.copy ? this.newObservationBatch() : this.sharedObservations;
    const rewards = new Float64Array(n);
    const terminations = new Uint8Array(n);
    const truncations = new Uint8Array(n);
    const infos: VectorInfo = {};
    for (let i = 0; i < n; i++) {
      const env = this.envs[i];
      const [obs, reward, terminated, truncated, info] = env.step(this.actionFor(actions, i));
      rewards[i] = reward;
      terminations[i] = terminated ? 1 : 0;
      truncations[i] = truncated ? 1 : 0;
      if (terminated || truncated) {
        const [resetObs, resetInfo] = env.reset();
        this.writeObservation(batch, i, resetObs);
        // The terminal observation is copied because an env may reuse its observation buffer across reset.
        const finalObservation = ArrayBuffer.isView(obs) ? (obs as TypedArray).slice() : obs;
        addInfo(infos, { ...resetInfo, final_observation: finalObservation, final_info: info }, i, n);
      } else {
        this.writeObservation(batch, i, obs);
        addInfo(infos, info, i, n);
      }
    }
    return [batch, rewards, terminations, truncations, infos];
  }

  private actionFor(actions: ArrayLike<number>, envIndex: number): unknown {
    if (this.discreteActions) return actions[envIndex];
    const size = this.actSize;
    const action = zerosOf(this.singleActionSpace.dtype, size);
    for (let j = 0; j < size; j++) action[j] = actions[envIndex * size + j];
    return action;
  }

  /** Each sub-env's `render()` result. */
  render(): unknown[] {
    return this.envs.map((env) => env.render());
  }

  close(): void {
    if (this.closed) return;
    for (const env of this.envs) env.close();
    this.closed = true;
  }

  toString(): string {
    const spec = this.envs[0].spec;
    return spec ? `SyncVectorEnv(${spec.id}, ${this.numEnvs})` : `SyncVectorEnv(${this.numEnvs})`;
  }
}

/** 0.29's `VectorEnv._add_info` + `_init_info_arrays`: batch one sub-env's info into `infos` at `envIndex`. */
export function addInfo(infos: VectorInfo, info: Info, envIndex: number, numEnvs: number): void {
  for (const key in info) {
    const value = info[key];
    let values = infos[key] as unknown[] | Float64Array | undefined;
    let mask = infos[`_${key}`] as boolean[] | undefined;
    if (values === undefined || mask === undefined) {
      // Terminal observations always go in a plain array (null where absent), even a Discrete env's integer
      // one, which 0.29 would put in an int array: one predictable type for `final_observation`.
      if (typeof value === "number" && key !== "final_observation") values = new Float64Array(numEnvs);
      else if (typeof value === "boolean") values = new Array<boolean>(numEnvs).fill(false);
      else values = new Array<unknown>(numEnvs).fill(null);
      mask = new Array<boolean>(numEnvs).fill(false);
      infos[key] = values;
      infos[`_${key}`] = mask;
    }
    values[envIndex] = value as number;
    mask[envIndex] = true;
  }
}

// The worker-thread vector env lives in its own file; re-exported so it is `gym.vector.AsyncVectorEnv`.
export { AsyncVectorEnv } from "./async_vector.ts";
