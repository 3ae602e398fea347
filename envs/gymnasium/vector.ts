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

import type { Env, ResetArgs } from "./core.ts";
import { Discrete, type Space, type TypedArray, zerosOf } from "./spaces.ts";
import { type VectorInfo, type VectorResetArgs, type VectorStepResult, addInfo, batchSpace } from "./vector_utils.ts";

// `gym.vector` is this module: SyncVectorEnv here, AsyncVectorEnv (worker threads) and the shared helpers beside it.
export { AsyncVectorEnv } from "./async_vector.ts";
export { type VectorInfo, type VectorResetArgs, type VectorStepResult, addInfo, batchSpace } from "./vector_utils.ts";

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
      if (env.actionSpace.toString() !== act)
        throw new Error(`SyncVectorEnv: sub-env action space ${env.actionSpace} differs from ${act}`);
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
      throw new RangeError(
        `SyncVectorEnv: env ${envIndex} returned ${values.length} observation values, expected ${this.obsSize}`,
      );
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
      const envSeed =
        typeof seed === "number" ? seed + i : (seed as readonly (number | null | undefined)[] | undefined)?.[i];
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
      throw new RangeError(
        `SyncVectorEnv.step: expected ${n * this.actSize} action values for ${n} envs, got ${actions.length}`,
      );
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
