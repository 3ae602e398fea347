// Spaces: the shapes and bounds of observations and actions, as `gymnasium.spaces`.
//
// Values are plain numbers (Discrete) or typed arrays (Box, MultiDiscrete, MultiBinary), row-major, with the
// dtype Gymnasium uses: a float32 Box holds Float32Array values, exactly as numpy would hold float32 arrays.

import { type NumpyGenerator, npRandom } from "../torch/rng.ts";

export type DType = "float32" | "float64" | "uint8" | "int8" | "int32" | "int64";
export type TypedArray = Float32Array | Float64Array | Uint8Array | Int8Array | Int32Array;

const ARRAY_OF: Record<DType, new (n: number) => TypedArray> = {
  float32: Float32Array,
  float64: Float64Array,
  uint8: Uint8Array,
  int8: Int8Array,
  int32: Int32Array,
  int64: Int32Array, // JS has no fast int64 array; every int64 space in the gym suites fits in 32 bits.
};

/** A new zero-filled typed array of `dtype`, used wherever numpy would call `np.zeros(n, dtype)`. */
export function zerosOf(dtype: DType, n: number): TypedArray {
  return new ARRAY_OF[dtype](n);
}

export function isFloatDType(dtype: DType): boolean {
  return dtype === "float32" || dtype === "float64";
}

export abstract class Space<T = unknown> {
  private _npRandom: NumpyGenerator | null = null;
  constructor(
    readonly shape: readonly number[],
    readonly dtype: DType,
  ) {}

  /** Lazily seeded from entropy, like Gymnasium's `Space.np_random`. */
  get npRandom(): NumpyGenerator {
    if (this._npRandom === null) this._npRandom = npRandom()[0];
    return this._npRandom;
  }

  /** Seeds the space's own generator (used by `sample`); returns the seed used. */
  seed(seed?: number): number {
    const [rng, used] = npRandom(seed);
    this._npRandom = rng;
    return used;
  }

  /** Number of scalars in one value (the product of `shape`). */
  get size(): number {
    return this.shape.reduce((a, b) => a * b, 1);
  }

  abstract sample(): T;
  abstract contains(x: unknown): boolean;
  abstract toString(): string;
}

/** `Discrete(n, start)`: integers {start, ..., start + n - 1}, dtype int64. */
export class Discrete extends Space<number> {
  constructor(
    readonly n: number,
    readonly start = 0,
  ) {
    super([], "int64");
    if (!Number.isInteger(n) || n <= 0) throw new RangeError(`Discrete: n must be a positive integer, got ${n}`);
  }
  sample(): number {
    return this.start + this.npRandom.integers(0, this.n);
  }
  contains(x: unknown): boolean {
    return typeof x === "number" && Number.isInteger(x) && x >= this.start && x < this.start + this.n;
  }
  toString(): string {
    return this.start === 0 ? `Discrete(${this.n})` : `Discrete(${this.n}, start=${this.start})`;
  }
}

/**
 * `Box(low, high, shape, dtype)`: a (possibly unbounded) box in R^n. `low`/`high` may be scalars broadcast
 * over `shape`, or arrays of the full size. As in Gymnasium, float bounds are cast to the box's dtype, so a
 * float32 box with `high = 3.4028235e38` stores float32 max.
 */
export class Box extends Space<TypedArray> {
  readonly low: TypedArray;
  readonly high: TypedArray;

  constructor(
    low: number | ArrayLike<number>,
    high: number | ArrayLike<number>,
    shape?: readonly number[],
    dtype: DType = "float32",
  ) {
    const inferred =
      shape ?? (typeof low !== "number" ? [low.length] : typeof high !== "number" ? [high.length] : null);
    if (inferred === null) throw new TypeError("Box: shape is required when low and high are scalars");
    super(inferred, dtype);
    this.low = broadcast(low, this.size, dtype, "low");
    this.high = broadcast(high, this.size, dtype, "high");
    for (let i = 0; i < this.size; i++) {
      if (!(this.low[i] <= this.high[i]))
        throw new RangeError(`Box: low[${i}]=${this.low[i]} > high[${i}]=${this.high[i]}`);
    }
  }

  /**
   * Gymnasium's sampling rule and draw order: first a normal for every unbounded entry, then an exponential for every
   * entry bounded below only (plus low), then for every entry bounded above only (high minus it), then a uniform
   * for every bounded entry, each group in index order. Integer boxes sample over [low, high + 1) and floor.
   */
  sample(): TypedArray {
    const out = zerosOf(this.dtype, this.size);
    const rng = this.npRandom;
    const float = isFloatDType(this.dtype);
    const n = this.size;
    const low = (i: number) => this.low[i];
    const high = (i: number) => (float ? this.high[i] : this.high[i] + 1);
    const values = new Float64Array(n);
    const below = (i: number) => Number.isFinite(low(i));
    const above = (i: number) => Number.isFinite(high(i));
    for (let i = 0; i < n; i++) if (!below(i) && !above(i)) values[i] = rng.normal();
    for (let i = 0; i < n; i++) if (below(i) && !above(i)) values[i] = rng.exponential() + low(i);
    for (let i = 0; i < n; i++) if (!below(i) && above(i)) values[i] = -rng.exponential() + high(i);
    for (let i = 0; i < n; i++) if (below(i) && above(i)) values[i] = rng.uniform(low(i), high(i));
    for (let i = 0; i < n; i++) out[i] = float ? values[i] : Math.floor(values[i]);
    return out;
  }

  contains(x: unknown): boolean {
    if (!ArrayBuffer.isView(x) && !Array.isArray(x)) return false;
    const arr = x as ArrayLike<number>;
    if (arr.length !== this.size) return false;
    for (let i = 0; i < this.size; i++) {
      const v = arr[i];
      if (!(v >= this.low[i] && v <= this.high[i])) return false;
    }
    return true;
  }

  get isBounded(): boolean {
    for (let i = 0; i < this.size; i++)
      if (!Number.isFinite(this.low[i]) || !Number.isFinite(this.high[i])) return false;
    return true;
  }

  toString(): string {
    const same = (a: TypedArray) => a.every((v) => v === a[0]);
    const fmt = (a: TypedArray) => (same(a) ? String(a[0]) : `[${Array.from(a).join(", ")}]`);
    return `Box(${fmt(this.low)}, ${fmt(this.high)}, (${this.shape.join(", ")}${this.shape.length === 1 ? "," : ""}), ${this.dtype})`;
  }
}

function broadcast(v: number | ArrayLike<number>, n: number, dtype: DType, name: string): TypedArray {
  const out = zerosOf(dtype, n);
  if (typeof v === "number") out.fill(v);
  else {
    if (v.length !== n) throw new RangeError(`Box: ${name} has ${v.length} entries, shape needs ${n}`);
    for (let i = 0; i < n; i++) out[i] = v[i];
  }
  return out;
}

/** `MultiDiscrete(nvec)`: one Discrete(nvec[i]) per entry, the batched action space of a vector of Discrete envs. */
export class MultiDiscrete extends Space<Int32Array> {
  readonly nvec: Int32Array;
  constructor(nvec: ArrayLike<number>) {
    super([nvec.length], "int64");
    this.nvec = Int32Array.from(nvec);
    if (!this.nvec.every((n) => n > 0)) throw new RangeError("MultiDiscrete: every nvec entry must be positive");
  }
  /** Gymnasium's rule: `floor(random() * nvec[i])`, one `random()` per entry in order. */
  sample(): Int32Array {
    return this.nvec.map((n) => Math.floor(this.npRandom.random() * n));
  }
  contains(x: unknown): boolean {
    if (!ArrayBuffer.isView(x) && !Array.isArray(x)) return false;
    const arr = x as ArrayLike<number>;
    if (arr.length !== this.nvec.length) return false;
    for (let i = 0; i < arr.length; i++)
      if (!Number.isInteger(arr[i]) || arr[i] < 0 || arr[i] >= this.nvec[i]) return false;
    return true;
  }
  toString(): string {
    return `MultiDiscrete([${Array.from(this.nvec).join(" ")}])`;
  }
}

/** `MultiBinary(n)`: n independent bits, dtype int8. */
export class MultiBinary extends Space<Int8Array> {
  constructor(readonly n: number) {
    super([n], "int8");
  }
  sample(): Int8Array {
    // Gymnasium's `integers(0, 2, size=n, dtype=int8)`: numpy's 8-bit path, one 32-bit draw per four entries.
    return this.npRandom.integersInt8(0, 2, this.n);
  }
  contains(x: unknown): boolean {
    if (!ArrayBuffer.isView(x) && !Array.isArray(x)) return false;
    const arr = x as ArrayLike<number>;
    return arr.length === this.n && Array.prototype.every.call(arr, (v: number) => v === 0 || v === 1);
  }
  toString(): string {
    return `MultiBinary(${this.n})`;
  }
}

/** A float32 Box: its values are Float32Array, which `Box`'s generic `TypedArray` type cannot say by itself. */
export type Float32Box = Box & Space<Float32Array>;

/**
 * `Dict(spaces)`: a value per key, each in its own space, as `gymnasium.spaces.Dict`. Keys are kept sorted, as
 * Gymnasium sorts the keys of a plain dict (Shimmy builds dm_control's observation space from one), so that
 * FlattenObservation concatenates them in that order. Only Box subspaces, the only kind dm_control needs. Its
 * `size` is the number of scalars in one flattened value; `dtype` is the common type of the subspaces.
 */
export class Dict extends Space<Record<string, TypedArray>> {
  readonly spaces: Readonly<Record<string, Box>>;
  private readonly flatSize: number;

  constructor(spaces: Record<string, Box>) {
    const keys = Object.keys(spaces).sort();
    const dtypes = new Set(keys.map((k) => spaces[k].dtype));
    if (dtypes.size > 1) throw new TypeError(`Dict: subspaces of different dtypes (${[...dtypes].join(", ")})`);
    super([], keys.length === 0 ? "float64" : spaces[keys[0]].dtype);
    const sorted: Record<string, Box> = {};
    for (const k of keys) sorted[k] = spaces[k];
    this.spaces = sorted;
    this.flatSize = keys.reduce((n, k) => n + spaces[k].size, 0);
  }

  override get size(): number {
    return this.flatSize;
  }

  sample(): Record<string, TypedArray> {
    const out: Record<string, TypedArray> = {};
    for (const [k, space] of Object.entries(this.spaces)) out[k] = space.sample();
    return out;
  }

  contains(x: unknown): boolean {
    if (typeof x !== "object" || x === null) return false;
    const value = x as Record<string, unknown>;
    const keys = Object.keys(this.spaces);
    if (Object.keys(value).length !== keys.length) return false;
    return keys.every((k) => this.spaces[k].contains(value[k]));
  }

  toString(): string {
    return `Dict(${Object.entries(this.spaces)
      .map(([k, s]) => `'${k}': ${s}`)
      .join(", ")})`;
  }
}
