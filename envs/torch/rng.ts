// Seeded random numbers, two families:
//
// - `npRandom(seed)`: numpy's `np.random.Generator(PCG64(SeedSequence(seed)))` bit for bit (./numpy_random.ts), the
//   generator Gymnasium seeds every environment and space with (`gymnasium.utils.seeding.np_random`), so seeded
//   resets and space samples give Gymnasium's values.
// - `RandomGenerator`: xoshiro128** (Blackman & Vigna), seeded through splitmix32 so that nearby seeds (0, 1, 2, ...)
//   give unrelated streams. It is the stand-in for torch's default generator (`defaultGenerator`, `manualSeed`):
//   layer init, action sampling and minibatch shuffles. It does not reproduce torch's MT19937 stream; what matters
//   there is that it is seeded, checkpointed with the run, and independent of the environments' PCG64 streams.

import { randomBytes } from "node:crypto";

import { NumpyGenerator } from "./numpy_random.ts";

export { NumpyGenerator, SeedSequence, type Pcg64State } from "./numpy_random.ts";

export interface RandomState {
  s: number[];
  spareNormal: number | null;
}

export class RandomGenerator {
  private s0 = 0;
  private s1 = 0;
  private s2 = 0;
  private s3 = 0;
  private spareNormal: number | null = null;

  constructor(seed?: number) {
    this.reseed(seed ?? randomSeed());
  }

  reseed(seed: number): void {
    if (!Number.isInteger(seed) || seed < 0) throw new RangeError(`seed must be a non-negative integer, got ${seed}`);
    // splitmix32 over the low and high 32-bit halves, so seeds above 2^32 still matter.
    let x = (seed >>> 0) ^ Math.floor(seed / 2 ** 32);
    const next = () => {
      x = (x + 0x9e3779b9) | 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.s0 = next();
    this.s1 = next();
    this.s2 = next();
    this.s3 = next();
    this.spareNormal = null;
  }

  /**
   * The whole state, for a checkpoint: the four xoshiro words and the spare normal Box–Muller keeps (numpy's
   * `bit_generator.state` plays this role). `setState(getState())` continues the stream exactly.
   */
  getState(): RandomState {
    return { s: [this.s0, this.s1, this.s2, this.s3], spareNormal: this.spareNormal };
  }

  setState(state: RandomState): void {
    const { s, spareNormal } = state;
    if (!Array.isArray(s) || s.length !== 4 || !s.every((w) => Number.isInteger(w) && w >= -(2 ** 31) && w < 2 ** 32))
      throw new RangeError(`not a generator state: ${JSON.stringify(state)}`);
    if (spareNormal !== null && typeof spareNormal !== "number")
      throw new RangeError(`not a generator state: ${JSON.stringify(state)}`);
    [this.s0, this.s1, this.s2, this.s3] = s.map((w) => w | 0);
    this.spareNormal = spareNormal;
  }

  /** Next raw 32-bit unsigned integer (xoshiro128**). */
  nextUint32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /** Uniform double in [0, 1) with 53 random bits, like `rng.random()`. */
  random(): number {
    const hi = this.nextUint32() >>> 5; // 27 bits
    const lo = this.nextUint32() >>> 6; // 26 bits
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** Uniform double in [low, high), like `rng.uniform(low, high)`. */
  uniform(low = 0, high = 1): number {
    return low + (high - low) * this.random();
  }

  /** Uniform integer in [low, high), like `rng.integers(low, high)`. Unbiased (rejection sampling). */
  integers(low: number, high: number): number {
    const range = high - low;
    if (!(range >= 1) || range > 2 ** 32)
      throw new RangeError(`integers(${low}, ${high}): need 1 <= high - low <= 2^32`);
    const limit = 2 ** 32 - (2 ** 32 % range);
    let r = this.nextUint32();
    while (r >= limit) r = this.nextUint32();
    return low + (r % range);
  }

  /** Standard normal (Box–Muller; the second value of each pair is kept for the next call). */
  normal(mean = 0, std = 1): number {
    if (this.spareNormal !== null) {
      const z = this.spareNormal;
      this.spareNormal = null;
      return mean + std * z;
    }
    let u = 0;
    while (u === 0) u = this.random();
    const v = this.random();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spareNormal = r * Math.sin(2 * Math.PI * v);
    return mean + std * r * Math.cos(2 * Math.PI * v);
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** A fresh seed from OS entropy, used when the caller gives none. */
export function randomSeed(): number {
  return randomBytes(4).readUInt32LE(0);
}

/**
 * `gymnasium.utils.seeding.np_random(seed)`: numpy's PCG64 Generator seeded through `SeedSequence(seed)`, and the seed
 * used. Without a seed, a fresh one from OS entropy (53 bits, so that it can be reported and given back to reproduce
 * the stream; numpy draws 128).
 */
export function npRandom(seed?: number): [NumpyGenerator, number] {
  const used = seed ?? randomBytes(8).readBigUInt64LE(0) >> 11n;
  return [new NumpyGenerator(used), Number(used)];
}

/**
 * C++'s `std::mt19937`, the 32-bit Mersenne Twister, bit for bit: the engine behind Stella's System generator in
 * ALE (power-on RAM, RIOT timers, sticky actions in Multi-Agent ALE) and behind procgen's level generation. Those
 * originals' streams must be reproduced exactly, which is why this exists beside `RandomGenerator`.
 */
export class Mt19937 {
  private readonly mt = new Uint32Array(624);
  private index = 624;

  constructor(seed = 5489) {
    this.seed(seed);
  }

  /** The standard's seeding: mt[0] = seed, mt[i] = 1812433253 * (mt[i-1] ^ (mt[i-1] >>> 30)) + i (mod 2^32). */
  seed(seed: number): void {
    const mt = this.mt;
    mt[0] = seed >>> 0;
    for (let i = 1; i < 624; i++) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      // Math.imul keeps the 32-bit wraparound of the C++ multiplication.
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.index = 624;
  }

  /** The next raw output, a uint32. */
  next(): number {
    const mt = this.mt;
    if (this.index >= 624) {
      for (let i = 0; i < 624; i++) {
        const y = (mt[i] & 0x80000000) | (mt[(i + 1) % 624] & 0x7fffffff);
        mt[i] = mt[(i + 397) % 624] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.index = 0;
    }
    let y = mt[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }
}

/**
 * The generator behind `layerInit`, `Categorical.sample`, `Normal.sample` and the minibatch shuffle: torch's
 * default generator and numpy's global state in one. `manualSeed(args.seed)` seeds it (CleanRL's
 * `torch.manual_seed` / `np.random.seed`); a checkpoint saves its state.
 */
export const defaultGenerator = new RandomGenerator(0);

export function manualSeed(seed: number): RandomGenerator {
  defaultGenerator.reseed(seed);
  return defaultGenerator;
}

/** `np.random.shuffle` (Fisher–Yates) in place, with the seeded generator. */
export function shuffle(array: Int32Array, rng = defaultGenerator): Int32Array {
  for (let i = array.length - 1; i > 0; i--) {
    const j = rng.integers(0, i + 1);
    [array[i], array[j]] = [array[j], array[i]];
  }
  return array;
}
