// NumPy's legacy `np.random.RandomState`, the generator every dm_control task draws its randomness from, for the
// methods the suite calls: the same seed gives the same numbers as NumPy, so a task starts where dm_control's
// starts.
//
// - The bit generator is MT19937. An integer seed goes through `init_genrand` (NumPy's `mt19937_seed`: Knuth's
//   multiplier 1812433253), an array seed through `init_by_array`, as NumPy's `_legacy_seeding` does.
// - `random_sample` builds a double from two 32-bit outputs: (a >> 5) * 2^26 + (b >> 6), divided by 2^53.
// - `uniform(low, high)` is `low + (high - low) * random_sample()`.
// - `randn` is the legacy polar Box-Muller (Marsaglia) method: it draws pairs in the unit disc, returns one value
//   and caches the other for the next call (NumPy's `legacy_gauss` with its `has_gauss` / `gauss` state).
// - `randint(low, high)` draws 32-bit outputs masked to the smallest all-ones mask that covers high - low - 1 and
//   rejects those above it (the masked rejection of `random_bounded_uint64_fill`), for ranges under 2^32.
// - `choice(items)` is `items[randint(0, items.length)]`, NumPy's path for a uniform choice with replacement.

const N = 624;
const M = 397;
const MATRIX_A = 0x9908b0df;
const UPPER_MASK = 0x80000000;
const LOWER_MASK = 0x7fffffff;

export class RandomState {
  private readonly key = new Uint32Array(N);
  private pos = N;
  private hasGauss = false;
  private gauss = 0;

  /** `np.random.RandomState(seed)`: an integer in [0, 2^32) or an array of them; without one, a random seed. */
  constructor(seed?: number | readonly number[]) {
    if (seed === undefined) {
      const words = new Uint32Array(4);
      crypto.getRandomValues(words);
      this.initByArray(Array.from(words));
    } else if (typeof seed === "number") {
      if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
        throw new RangeError(`RandomState: seed must be an integer between 0 and 2**32 - 1, got ${seed}`);
      this.initGenrand(seed);
    } else {
      this.initByArray(seed);
    }
  }

  private initGenrand(seed: number): void {
    const key = this.key;
    key[0] = seed >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = key[i - 1] ^ (key[i - 1] >>> 30);
      key[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.pos = N;
    this.hasGauss = false;
    this.gauss = 0;
  }

  private initByArray(initKey: readonly number[]): void {
    this.initGenrand(19650218);
    const key = this.key;
    let i = 1;
    let j = 0;
    const length = initKey.length;
    for (let k = Math.max(N, length); k > 0; k--) {
      const prev = key[i - 1] ^ (key[i - 1] >>> 30);
      key[i] = ((key[i] ^ Math.imul(prev, 1664525)) + (initKey[j] >>> 0) + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        key[0] = key[N - 1];
        i = 1;
      }
      if (j >= length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = key[i - 1] ^ (key[i - 1] >>> 30);
      key[i] = ((key[i] ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        key[0] = key[N - 1];
        i = 1;
      }
    }
    key[0] = 0x80000000;
  }

  private regenerate(): void {
    const key = this.key;
    let k = 0;
    for (; k < N - M; k++) {
      const y = (key[k] & UPPER_MASK) | (key[k + 1] & LOWER_MASK);
      key[k] = key[k + M] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
    }
    for (; k < N - 1; k++) {
      const y = (key[k] & UPPER_MASK) | (key[k + 1] & LOWER_MASK);
      key[k] = key[k + M - N] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
    }
    const y = (key[N - 1] & UPPER_MASK) | (key[0] & LOWER_MASK);
    key[N - 1] = key[M - 1] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
    this.pos = 0;
  }

  /** The next 32-bit output of MT19937 (tempered). */
  nextUint32(): number {
    if (this.pos === N) this.regenerate();
    let y = this.key[this.pos++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `random_sample()` / `rand()`: a double in [0, 1) with 53 random bits. */
  randomSample(): number {
    const a = this.nextUint32() >>> 5;
    const b = this.nextUint32() >>> 6;
    return (a * 67108864.0 + b) / 9007199254740992.0;
  }

  /** `rand(n)`. */
  rand(n: number): Float64Array {
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = this.randomSample();
    return out;
  }

  /** `uniform(low, high)` for scalars. */
  uniform(low: number, high: number): number {
    return low + (high - low) * this.randomSample();
  }

  /** `uniform(low, high, size=n)`: `n` draws, or elementwise bounds when `low` / `high` are arrays. */
  uniformArray(low: number | ArrayLike<number>, high: number | ArrayLike<number>, n: number): Float64Array {
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const lo = typeof low === "number" ? low : low[i];
      const hi = typeof high === "number" ? high : high[i];
      out[i] = lo + (hi - lo) * this.randomSample();
    }
    return out;
  }

  /** `randn()` / `standard_normal()`: the legacy polar method, one value cached per pair. */
  randn(): number {
    if (this.hasGauss) {
      const cached = this.gauss;
      this.hasGauss = false;
      this.gauss = 0;
      return cached;
    }
    let x1: number;
    let x2: number;
    let r2: number;
    do {
      x1 = 2.0 * this.randomSample() - 1.0;
      x2 = 2.0 * this.randomSample() - 1.0;
      r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1.0 || r2 === 0.0);
    const f = Math.sqrt((-2.0 * Math.log(r2)) / r2);
    this.gauss = f * x1;
    this.hasGauss = true;
    return f * x2;
  }

  /** `randn(n)`. */
  randnArray(n: number): Float64Array {
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = this.randn();
    return out;
  }

  /** `randint(low, high)`: an integer in [low, high), for ranges up to 2^32. */
  randint(low: number, high: number): number {
    if (!(low < high)) throw new RangeError(`randint: low >= high (${low} >= ${high})`);
    const range = high - 1 - low;
    if (range === 0) return low;
    if (range > 0xffffffff) throw new RangeError("randint: ranges of 2**32 or more are not supported");
    if (range === 0xffffffff) return low + this.nextUint32();
    let mask = range;
    mask |= mask >>> 1;
    mask |= mask >>> 2;
    mask |= mask >>> 4;
    mask |= mask >>> 8;
    mask |= mask >>> 16;
    mask >>>= 0;
    let value: number;
    do value = (this.nextUint32() & mask) >>> 0;
    while (value > range);
    return low + value;
  }

  /**
   * `choice(items, p=weights)`: one item drawn by inverting the normalized cumulative weights at one
   * random_sample (NumPy's `cdf.searchsorted(u, side="right")`).
   */
  choiceWeighted<T>(items: readonly T[], weights: readonly number[]): T {
    const cdf = new Float64Array(weights.length);
    let total = 0;
    for (let i = 0; i < weights.length; i++) cdf[i] = total += weights[i];
    const last = cdf[cdf.length - 1];
    for (let i = 0; i < cdf.length; i++) cdf[i] /= last;
    const u = this.randomSample();
    let index = 0;
    while (index < cdf.length && cdf[index] <= u) index++;
    return items[index];
  }

  /** `choice(items)`: one item, uniformly. */
  choice<T>(items: readonly T[]): T {
    return items[this.randint(0, items.length)];
  }
}
