// numpy's `np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))`, bit for bit: the generator behind
// Gymnasium's `np_random` (`gymnasium.utils.seeding.np_random`). Environments and spaces draw from it, so
// `reset({ seed })` and `space.seed(s); space.sample()` give Gymnasium's values.
//
// - SeedSequence: numpy's entropy pool of four uint32 words (hashmix/mix over the seed's 32-bit words, lowest first)
//   and `generate_state`.
// - PCG64: the 128-bit LCG with the XSL-RR output (numpy's default `PCG64`, not PCG64DXSM), seeded from
//   `generate_state(4, uint64)` as numpy does: words 0-1 the initial state (high, low), words 2-3 the stream.
//   The 128-bit state is held as eight 16-bit limbs so that every partial product is exact in a double.
// - Generator: the distributions numpy's `Generator` implements over it (random, uniform, standard_normal and
//   normal with the 256-layer ziggurat, standard_exponential, integers with Lemire's bounded method).
//
// numpy's `next_uint32` on PCG64 splits one 64-bit output into two halves (low half first) and keeps the high half
// for the next call; that buffer is part of the bit generator's state, shared by every method that draws 32 bits.

import { randomBytes } from "node:crypto";

import {
  FE_DOUBLE,
  FI_DOUBLE,
  KE_DOUBLE,
  KI_DOUBLE,
  WE_DOUBLE,
  WI_DOUBLE,
  ZIGGURAT_EXP_R,
  ZIGGURAT_NOR_INV_R,
  ZIGGURAT_NOR_R,
} from "./ziggurat_tables.ts";

const TWO_32 = 4294967296;
const TWO_53 = 9007199254740992;

// SeedSequence's hashing constants (numpy/random/bit_generator.pyx).
const POOL_SIZE = 4;
const INIT_A = 0x43b0d7e5;
const MULT_A = 0x931e8875;
const INIT_B = 0x8b51f9dd;
const MULT_B = 0x58f38ded;
const MIX_MULT_L = 0xca01f9dd;
const MIX_MULT_R = 0x4973f715;

/** The non-negative integer `n` as uint32 words, lowest first; 0 is one zero word (numpy's `_int_to_uint32_array`). */
function uint32Words(n: bigint): number[] {
  if (n < 0n) throw new RangeError(`SeedSequence: entropy must be a non-negative integer, got ${n}`);
  if (n === 0n) return [0];
  const words: number[] = [];
  for (let rest = n; rest > 0n; rest >>= 32n) words.push(Number(rest & 0xffffffffn));
  return words;
}

function toBigInt(entropy: number | bigint): bigint {
  if (typeof entropy === "bigint") return entropy;
  if (!Number.isSafeInteger(entropy) || entropy < 0)
    throw new RangeError(`seed must be a non-negative integer below 2^53, got ${entropy}`);
  return BigInt(entropy);
}

/** `np.random.SeedSequence(entropy)` without spawn keys, and its `generate_state`. */
export class SeedSequence {
  readonly entropy: bigint;
  readonly pool = new Uint32Array(POOL_SIZE);

  /** `entropy`: a non-negative integer; without one, 128 bits of OS entropy (numpy's `randbits(128)`). */
  constructor(entropy?: number | bigint) {
    this.entropy = entropy === undefined ? BigInt(`0x${randomBytes(16).toString("hex")}`) : toBigInt(entropy);
    const words = uint32Words(this.entropy);
    let hashConst = INIT_A;
    const hashmix = (value: number): number => {
      let v = (value ^ hashConst) >>> 0;
      hashConst = Math.imul(hashConst, MULT_A) >>> 0;
      v = Math.imul(v, hashConst) >>> 0;
      return (v ^ (v >>> 16)) >>> 0;
    };
    const mix = (x: number, y: number): number => {
      const r = (Math.imul(MIX_MULT_L, x) - Math.imul(MIX_MULT_R, y)) >>> 0;
      return (r ^ (r >>> 16)) >>> 0;
    };
    const pool = this.pool;
    for (let i = 0; i < POOL_SIZE; i++) pool[i] = hashmix(i < words.length ? words[i] : 0);
    for (let src = 0; src < POOL_SIZE; src++)
      for (let dst = 0; dst < POOL_SIZE; dst++) if (src !== dst) pool[dst] = mix(pool[dst], hashmix(pool[src]));
    for (let src = POOL_SIZE; src < words.length; src++)
      for (let dst = 0; dst < POOL_SIZE; dst++) pool[dst] = mix(pool[dst], hashmix(words[src]));
  }

  /** `generate_state(nWords)`: uint32 words (a uint64 word is two of them, low word first). */
  generateState(nWords: number): Uint32Array {
    const out = new Uint32Array(nWords);
    let hashConst = INIT_B;
    for (let i = 0; i < nWords; i++) {
      let v = (this.pool[i % POOL_SIZE] ^ hashConst) >>> 0;
      hashConst = Math.imul(hashConst, MULT_B) >>> 0;
      v = Math.imul(v, hashConst) >>> 0;
      out[i] = (v ^ (v >>> 16)) >>> 0;
    }
    return out;
  }
}

// PCG's default 128-bit multiplier, 0x2360ED051FC65DA4_4385DF649FCCF645, as 16-bit limbs, lowest first.
const M0 = 0xf645;
const M1 = 0x9fcc;
const M2 = 0xdf64;
const M3 = 0x4385;
const M4 = 0x5da4;
const M5 = 0x1fc6;
const M6 = 0xed05;
const M7 = 0x2360;

const MASK_128 = (1n << 128n) - 1n;

/** `x` (below 2^128) as eight 16-bit limbs, lowest first. */
function limbsOf(x: bigint): number[] {
  return Array.from({ length: 8 }, (_, i) => Number((x >> BigInt(16 * i)) & 0xffffn));
}

function bigIntOf(limbs: number[]): bigint {
  let x = 0n;
  for (let i = 7; i >= 0; i--) x = (x << 16n) | BigInt(limbs[i]);
  return x;
}

/** `generator.bit_generator.state` of numpy's PCG64, with the 128-bit integers as decimal strings (JSON-safe). */
export interface Pcg64State {
  bit_generator: "PCG64";
  state: { state: string; inc: string };
  has_uint32: number;
  uinteger: number;
}

/** numpy's `Generator` over `PCG64`: `new NumpyGenerator(seed)` is `np.random.default_rng(seed)`. */
export class NumpyGenerator {
  // The state and increment as 16-bit limbs, lowest first (fields rather than an array: the step is on the hot path).
  private s0 = 0;
  private s1 = 0;
  private s2 = 0;
  private s3 = 0;
  private s4 = 0;
  private s5 = 0;
  private s6 = 0;
  private s7 = 0;
  private i0 = 0;
  private i1 = 0;
  private i2 = 0;
  private i3 = 0;
  private i4 = 0;
  private i5 = 0;
  private i6 = 0;
  private i7 = 0;
  private hasUint32 = false;
  private uinteger = 0;
  // The last 64-bit output, as two uint32 halves (no allocation per draw).
  private hi = 0;
  private lo = 0;

  constructor(seed?: number | bigint | SeedSequence) {
    const words = (seed instanceof SeedSequence ? seed : new SeedSequence(seed)).generateState(8);
    // generate_state(4, uint64): word k is words[2k] (low) and words[2k + 1] (high).
    const word64 = (k: number) => (BigInt(words[2 * k + 1]) << 32n) | BigInt(words[2 * k]);
    const initState = (word64(0) << 64n) | word64(1);
    const initSeq = (word64(2) << 64n) | word64(3);
    // pcg_setseq_128_srandom_r: state 0, inc = seq << 1 | 1, step, add the initial state, step.
    this.setLimbs(0n, ((initSeq << 1n) | 1n) & MASK_128);
    this.step();
    this.setLimbs((this.stateBigInt() + initState) & MASK_128, this.incBigInt());
    this.step();
  }

  /**
   * state = state * MULTIPLIER + inc (mod 2^128), by columns of 16-bit limbs: each column sums at most eight products
   * below 2^32 (exact in a double), and `& 0xffff` takes a column's low limb (ToInt32 reduces modulo 2^32 exactly).
   */
  private step(): void {
    const a0 = this.s0;
    const a1 = this.s1;
    const a2 = this.s2;
    const a3 = this.s3;
    const a4 = this.s4;
    const a5 = this.s5;
    const a6 = this.s6;
    const a7 = this.s7;
    let t = a0 * M0 + this.i0;
    this.s0 = t & 0xffff;
    t = Math.floor(t / 65536) + a0 * M1 + a1 * M0 + this.i1;
    this.s1 = t & 0xffff;
    t = Math.floor(t / 65536) + a0 * M2 + a1 * M1 + a2 * M0 + this.i2;
    this.s2 = t & 0xffff;
    t = Math.floor(t / 65536) + a0 * M3 + a1 * M2 + a2 * M1 + a3 * M0 + this.i3;
    this.s3 = t & 0xffff;
    t = Math.floor(t / 65536) + a0 * M4 + a1 * M3 + a2 * M2 + a3 * M1 + a4 * M0 + this.i4;
    this.s4 = t & 0xffff;
    t = Math.floor(t / 65536) + a0 * M5 + a1 * M4 + a2 * M3 + a3 * M2 + a4 * M1 + a5 * M0 + this.i5;
    this.s5 = t & 0xffff;
    t = Math.floor(t / 65536) + a0 * M6 + a1 * M5 + a2 * M4 + a3 * M3 + a4 * M2 + a5 * M1 + a6 * M0 + this.i6;
    this.s6 = t & 0xffff;
    t = Math.floor(t / 65536) + a0 * M7 + a1 * M6 + a2 * M5 + a3 * M4 + a4 * M3 + a5 * M2 + a6 * M1 + a7 * M0 + this.i7;
    this.s7 = t & 0xffff;
  }

  private setLimbs(state: bigint, inc: bigint): void {
    [this.s0, this.s1, this.s2, this.s3, this.s4, this.s5, this.s6, this.s7] = limbsOf(state);
    [this.i0, this.i1, this.i2, this.i3, this.i4, this.i5, this.i6, this.i7] = limbsOf(inc);
  }

  private stateBigInt(): bigint {
    return bigIntOf([this.s0, this.s1, this.s2, this.s3, this.s4, this.s5, this.s6, this.s7]);
  }

  private incBigInt(): bigint {
    return bigIntOf([this.i0, this.i1, this.i2, this.i3, this.i4, this.i5, this.i6, this.i7]);
  }

  /** One 64-bit output (pcg64_random_r: step, then XSL-RR of the new state) into `hi`/`lo`. */
  private next64(): void {
    this.step();
    const xh = (((this.s7 << 16) | this.s6) ^ ((this.s3 << 16) | this.s2)) >>> 0;
    const xl = (((this.s5 << 16) | this.s4) ^ ((this.s1 << 16) | this.s0)) >>> 0;
    const rot = this.s7 >>> 10;
    if (rot === 0) {
      this.hi = xh;
      this.lo = xl;
    } else if (rot < 32) {
      this.hi = ((xh >>> rot) | (xl << (32 - rot))) >>> 0;
      this.lo = ((xl >>> rot) | (xh << (32 - rot))) >>> 0;
    } else if (rot === 32) {
      this.hi = xl;
      this.lo = xh;
    } else {
      const r = rot - 32;
      this.hi = ((xl >>> r) | (xh << (32 - r))) >>> 0;
      this.lo = ((xh >>> r) | (xl << (32 - r))) >>> 0;
    }
  }

  /** The bit generator's raw 64-bit output (`bit_generator.random_raw()`), as a BigInt. */
  nextUint64(): bigint {
    this.next64();
    return (BigInt(this.hi) << 32n) | BigInt(this.lo);
  }

  /** numpy's `next_uint32`: the low half of a fresh 64-bit output, the high half kept for the next call. */
  nextUint32(): number {
    if (this.hasUint32) {
      this.hasUint32 = false;
      return this.uinteger;
    }
    this.next64();
    this.hasUint32 = true;
    this.uinteger = this.hi;
    return this.lo;
  }

  /** numpy's `next_double`: the top 53 bits of a 64-bit output over 2^53. */
  private nextDouble(): number {
    this.next64();
    return (this.hi * 2097152 + (this.lo >>> 11)) / TWO_53;
  }

  /** `rng.random()`: uniform double in [0, 1). */
  random(): number {
    return this.nextDouble();
  }

  /** `rng.uniform(low, high)`: `low + (high - low) * random()`. */
  uniform(low = 0, high = 1): number {
    return low + (high - low) * this.nextDouble();
  }

  /** `rng.standard_normal()`: numpy's 256-layer ziggurat. */
  standardNormal(): number {
    for (;;) {
      this.next64();
      const hi = this.hi;
      const lo = this.lo;
      // r = hi:lo; idx = r & 0xff, sign = bit 8, rabs = bits 9..60 (52 bits).
      const idx = lo & 0xff;
      const negative = (lo >>> 8) & 1;
      const rabs = (hi & 0x1fffffff) * 8388608 + (lo >>> 9);
      let x = rabs * WI_DOUBLE[idx];
      if (negative) x = -x;
      if (rabs < KI_DOUBLE[idx]) return x;
      if (idx === 0) {
        // The tail beyond r (Marsaglia's method); the sign is bit 8 of rabs, bit 17 of the output.
        for (;;) {
          const xx = -ZIGGURAT_NOR_INV_R * Math.log1p(-this.nextDouble());
          const yy = -Math.log1p(-this.nextDouble());
          if (yy + yy > xx * xx) return (lo >>> 17) & 1 ? -(ZIGGURAT_NOR_R + xx) : ZIGGURAT_NOR_R + xx;
        }
      }
      if ((FI_DOUBLE[idx - 1] - FI_DOUBLE[idx]) * this.nextDouble() + FI_DOUBLE[idx] < Math.exp(-0.5 * x * x)) return x;
    }
  }

  /** `rng.normal(loc, scale)`: `loc + scale * standard_normal()`. */
  normal(loc = 0, scale = 1): number {
    return loc + scale * this.standardNormal();
  }

  /** `rng.standard_exponential()`: numpy's 256-layer exponential ziggurat. */
  standardExponential(): number {
    for (;;) {
      this.next64();
      // ri = r >> 3; idx = ri & 0xff; ri >>= 8: idx is bits 3..10, ri bits 11..63 (53 bits).
      const idx = (this.lo >>> 3) & 0xff;
      const ri = this.hi * 2097152 + (this.lo >>> 11);
      const x = ri * WE_DOUBLE[idx];
      if (ri < KE_DOUBLE[idx]) return x;
      if (idx === 0) return ZIGGURAT_EXP_R - Math.log1p(-this.nextDouble());
      if ((FE_DOUBLE[idx - 1] - FE_DOUBLE[idx]) * this.nextDouble() + FE_DOUBLE[idx] < Math.exp(-x)) return x;
    }
  }

  /** `rng.exponential(scale)`: `scale * standard_exponential()`. */
  exponential(scale = 1): number {
    return scale * this.standardExponential();
  }

  /**
   * `rng.integers(low, high)` for the default int64 dtype: uniform on [low, high). numpy's bounded path: a range of 1
   * draws nothing, a range of 2^32 is one `next_uint32`, smaller ranges Lemire's method on `next_uint32`, larger ones
   * Lemire's method on 64-bit outputs.
   */
  integers(low: number, high: number): number {
    const range = high - low;
    if (!Number.isSafeInteger(low) || !Number.isSafeInteger(high) || !(range >= 1 && range <= TWO_53))
      throw new RangeError(`integers(${low}, ${high}): need safe integers with 1 <= high - low <= 2^53`);
    if (range === 1) return low;
    if (range === TWO_32) return low + this.nextUint32();
    if (range < TWO_32) return low + this.boundedUint32(range);
    return low + this.boundedUint64(range);
  }

  /** Lemire's method for [0, rangeExcl) with rangeExcl < 2^32 (numpy's `buffered_bounded_lemire_uint32`). */
  private boundedUint32(rangeExcl: number): number {
    let u = this.nextUint32();
    let leftover = Math.imul(u, rangeExcl) >>> 0;
    if (leftover < rangeExcl) {
      const threshold = (TWO_32 - rangeExcl) % rangeExcl;
      while (leftover < threshold) {
        u = this.nextUint32();
        leftover = Math.imul(u, rangeExcl) >>> 0;
      }
    }
    return mulHigh32(u, rangeExcl);
  }

  /** Lemire's method for [0, rangeExcl) with 2^32 < rangeExcl < 2^53 (numpy's `bounded_lemire_uint64`). */
  private boundedUint64(rangeExcl: number): number {
    const r = BigInt(rangeExcl);
    const mask = (1n << 64n) - 1n;
    let m = this.nextUint64() * r;
    let leftover = m & mask;
    if (leftover < r) {
      const threshold = ((1n << 64n) - r) % r;
      while (leftover < threshold) {
        m = this.nextUint64() * r;
        leftover = m & mask;
      }
    }
    return Number(m >> 64n);
  }

  /**
   * `rng.integers(low, high, size=n, dtype=np.int8)` (what MultiBinary.sample calls): numpy's 8-bit bounded path,
   * which takes bytes from `next_uint32` four at a time (lowest first) within one call.
   */
  integersInt8(low: number, high: number, n: number): Int8Array {
    const rng = high - 1 - low;
    if (!Number.isInteger(low) || !Number.isInteger(high) || low < -128 || high > 128 || rng < 0)
      throw new RangeError(`integers(${low}, ${high}, int8): need integers with -128 <= low < high <= 128`);
    const out = new Int8Array(n);
    let buf = 0;
    let count = 0;
    const nextByte = (): number => {
      if (count === 0) {
        buf = this.nextUint32();
        count = 3;
      } else {
        buf >>>= 8;
        count--;
      }
      return buf & 0xff;
    };
    for (let i = 0; i < n; i++) {
      let v: number;
      if (rng === 0) v = 0;
      else if (rng === 0xff) v = nextByte();
      else {
        const rangeExcl = rng + 1;
        let m = nextByte() * rangeExcl;
        let leftover = m & 0xff;
        if (leftover < rangeExcl) {
          const threshold = (0xff - rng) % rangeExcl;
          while (leftover < threshold) {
            m = nextByte() * rangeExcl;
            leftover = m & 0xff;
          }
        }
        v = m >>> 8;
      }
      out[i] = low + v;
    }
    return out;
  }

  /** `bit_generator.state`: `setState(getState())` continues the stream exactly. */
  getState(): Pcg64State {
    return {
      bit_generator: "PCG64",
      state: { state: this.stateBigInt().toString(), inc: this.incBigInt().toString() },
      has_uint32: this.hasUint32 ? 1 : 0,
      uinteger: this.uinteger,
    };
  }

  setState(state: Pcg64State): void {
    const bad = () => new RangeError(`not a PCG64 state: ${JSON.stringify(state)}`);
    if (state?.bit_generator !== "PCG64" || typeof state.state !== "object" || state.state === null) throw bad();
    const parse = (s: unknown): bigint => {
      if (typeof s !== "string" || !/^\d+$/.test(s)) throw bad();
      const v = BigInt(s);
      if (v >= 1n << 128n) throw bad();
      return v;
    };
    const st = parse(state.state.state);
    const inc = parse(state.state.inc);
    if ((inc & 1n) === 0n) throw bad();
    if (!(state.has_uint32 === 0 || state.has_uint32 === 1)) throw bad();
    if (!Number.isInteger(state.uinteger) || state.uinteger < 0 || state.uinteger >= TWO_32) throw bad();
    this.setLimbs(st, inc);
    this.hasUint32 = state.has_uint32 === 1;
    this.uinteger = state.uinteger;
  }
}

/** The high 32 bits of the 64-bit product of two uint32s, exactly (the product itself can exceed 2^53). */
function mulHigh32(a: number, b: number): number {
  const high = (a >>> 16) * b; // < 2^48
  const low = (a & 0xffff) * b; // < 2^48
  const highLow = high % 65536;
  return (high - highLow) / 65536 + Math.floor((highLow * 65536 + low) / TWO_32);
}
