// dm_control's `dm_control.utils.rewards.tolerance`: 1 inside [lower, upper], falling off outside with one of its
// sigmoids, so that the distance `margin` away from the nearest bound scores `valueAtMargin`. With margin 0 the
// result is 1 inside the bounds and 0 outside. Each sigmoid's scale is chosen as dm_control's `_sigmoids` chooses it.

export type Sigmoid =
  | "gaussian"
  | "hyperbolic"
  | "long_tail"
  | "reciprocal"
  | "cosine"
  | "linear"
  | "quadratic"
  | "tanh_squared";

export interface ToleranceOptions {
  bounds?: readonly [number, number];
  margin?: number;
  sigmoid?: Sigmoid;
  valueAtMargin?: number;
}

/** `_sigmoids(x, value_at_1, sigmoid)`: 1 at x = 0, `valueAt1` at |x| = 1. */
export function sigmoid(x: number, valueAt1: number, kind: Sigmoid): number {
  if (kind === "cosine" || kind === "linear" || kind === "quadratic") {
    if (!(0 <= valueAt1 && valueAt1 < 1))
      throw new RangeError(`value_at_1 must be nonnegative and smaller than 1, got ${valueAt1}`);
  } else if (!(0 < valueAt1 && valueAt1 < 1)) {
    throw new RangeError(`value_at_1 must be strictly between 0 and 1, got ${valueAt1}`);
  }
  switch (kind) {
    case "gaussian": {
      const scale = Math.sqrt(-2 * Math.log(valueAt1));
      const s = x * scale;
      return Math.exp(-0.5 * (s * s));
    }
    case "hyperbolic":
      return 1 / Math.cosh(x * Math.acosh(1 / valueAt1));
    case "long_tail": {
      const s = x * Math.sqrt(1 / valueAt1 - 1);
      return 1 / (s * s + 1);
    }
    case "reciprocal":
      return 1 / (Math.abs(x) * (1 / valueAt1 - 1) + 1);
    case "cosine": {
      const s = x * (Math.acos(2 * valueAt1 - 1) / Math.PI);
      return Math.abs(s) < 1 ? (1 + Math.cos(Math.PI * s)) / 2 : 0;
    }
    case "linear": {
      const s = x * (1 - valueAt1);
      return Math.abs(s) < 1 ? 1 - s : 0;
    }
    case "quadratic": {
      const s = x * Math.sqrt(1 - valueAt1);
      return Math.abs(s) < 1 ? 1 - s * s : 0;
    }
    case "tanh_squared": {
      const t = Math.tanh(x * Math.atanh(Math.sqrt(1 - valueAt1)));
      return 1 - t * t;
    }
  }
}

/** `rewards.tolerance(x, bounds, margin, sigmoid, value_at_margin)` for one value. */
export function tolerance(x: number, options: ToleranceOptions = {}): number {
  const [lower, upper] = options.bounds ?? [0, 0];
  const margin = options.margin ?? 0;
  if (lower > upper) throw new RangeError("Lower bound must be <= upper bound.");
  if (margin < 0) throw new RangeError("`margin` must be non-negative.");
  const inBounds = lower <= x && x <= upper;
  if (margin === 0) return inBounds ? 1 : 0;
  if (inBounds) return 1;
  const d = (x < lower ? lower - x : x - upper) / margin;
  return sigmoid(d, options.valueAtMargin ?? 0.1, options.sigmoid ?? "gaussian");
}

/** `tolerance` of every element of an array (what dm_control returns for an array argument). */
export function toleranceArray(x: ArrayLike<number>, options: ToleranceOptions = {}): Float64Array {
  const out = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = tolerance(x[i], options);
  return out;
}
