// Helpers shared by the classic-control envs: Gymnasium's `gymnasium/envs/classic_control/utils.py`, plus the
// float32 observation-box shape several of them declare.

import { Box, type Float32Box } from "../gymnasium/spaces.ts";

/** `spaces.Box(-high, high, dtype=np.float32)`: the observation space CartPole, Acrobot and Pendulum all declare. */
export function symmetricFloat32Box(high: readonly number[]): Float32Box {
  return new Box(
    high.map((h) => -h),
    high,
    [high.length],
    "float32",
  ) as Float32Box;
}

/** `np.finfo(np.float32).max`, the "unbounded" velocity limit Gymnasium puts in CartPole's observation space. */
export const FLOAT32_MAX = 3.4028234663852886e38;

/** `gymnasium.envs.classic_control.utils.verify_number_and_cast`: Python's `float(x)`, with its error. */
export function verifyNumberAndCast(x: unknown): number {
  if (typeof x === "number") return x;
  if (typeof x === "boolean") return x ? 1 : 0;
  if (typeof x === "string" && x.trim() !== "" && !Number.isNaN(Number(x))) return Number(x);
  throw new Error(`An option (${String(x)}) could not be converted to a float.`);
}

/**
 * `utils.maybe_parse_reset_bounds`: `reset({ options: { low, high } })` overrides the uniform reset range of the
 * classic-control envs (CartPole, Acrobot, both MountainCars), keeping the default for whichever is missing.
 */
export function maybeParseResetBounds(
  options: Record<string, unknown> | undefined,
  defaultLow: number,
  defaultHigh: number,
): [number, number] {
  if (options === undefined) return [defaultLow, defaultHigh];
  const low = verifyNumberAndCast("low" in options ? options.low : defaultLow);
  const high = verifyNumberAndCast("high" in options ? options.high : defaultHigh);
  if (low > high) throw new Error(`Lower bound (${low}) must be lower than higher bound (${high}).`);
  return [low, high];
}
