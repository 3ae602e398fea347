// What both vector envs share (`gymnasium.vector.utils` and `VectorEnv`'s info batching in 0.29): the batched
// info and step types, `batchSpace`, and `addInfo`. SyncVectorEnv (vector.ts) and AsyncVectorEnv (async_vector.ts)
// both import it; vector.ts re-exports it with both envs as `gym.vector`, so the imports run one way.

import type { Info } from "./core.ts";
import type { EpisodeStatistics } from "./wrappers.ts";
import { Box, Discrete, MultiBinary, MultiDiscrete, type Space, type TypedArray } from "./spaces.ts";

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
