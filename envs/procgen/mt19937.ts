// procgen's random numbers: C++ `std::mt19937` (the 32-bit Mersenne Twister) plus procgen's own helper draws
// (`randgen.cpp`). Every level is a pure function of the numbers drawn here, so matching the generator and the
// order of the draws is what makes a level seed produce the same level as the original.
//
// Helper semantics (x = the next raw 32-bit output):
//   randint(lo, hi) = lo + x mod (hi - lo)       in [lo, hi); the range is taken as uint32
//   randn(n)        = x mod n                    in [0, n)
//   rand01()        = float32(x / 2^32)          float32 rounding means it can be exactly 1.0 (x >= 2^32 - 128)
//   randbool()      = rand01() > 0.5
//   randrange(a, b) = rand01() * (b - a) + a
//   randintRaw()    = x reinterpreted as int32  (procgen's argument-less randint())

import { Mt19937 as StdMt19937 } from "../torch/rng.ts";

/** std::mt19937 (envs/torch/rng.ts) with procgen's helper draws. */
export class Mt19937 extends StdMt19937 {
  randint(low: number, high: number): number {
    const range = (high - low) >>> 0;
    return (low + (this.next() % range)) | 0;
  }

  randintRaw(): number {
    return this.next() | 0;
  }

  randn(n: number): number {
    return this.next() % n;
  }

  rand01(): number {
    return Math.fround(this.next() / 4294967296);
  }

  randbool(): boolean {
    return this.rand01() > 0.5;
  }

  randrange(a: number, b: number): number {
    // float parameters and float arithmetic, one rounding per operation.
    const f = Math.fround;
    a = f(a);
    return f(f(this.rand01() * f(f(b) - a)) + a);
  }

  /** `partition(x, n)`: x units spread over n buckets, one `randn(n)` per unit. */
  partition(x: number, n: number): number[] {
    const buckets = new Array<number>(n).fill(0);
    for (let i = 0; i < x; i++) buckets[this.randn(n)] += 1;
    return buckets;
  }

  chooseOne<T>(values: readonly T[]): T {
    return values[this.randn(values.length)];
  }

  /** `choose_n(v, n)`: n distinct elements, each by drawing an index among those not yet taken. */
  chooseN<T>(values: readonly T[], n: number): T[] {
    const left = values.slice();
    if (n > left.length) return left; // procgen returns everything, drawing nothing
    const out: T[] = [];
    for (let i = 0; i < n; i++) {
      const idx = this.randn(left.length);
      out.push(left[idx]);
      left.splice(idx, 1);
    }
    return out;
  }

  /** `simple_choose(n, k)`: k distinct values of [0, n), redrawing `randn(n)` on repeats. */
  simpleChoose(n: number, k: number): number[] {
    const out: number[] = [];
    while (out.length < k) {
      const v = this.randn(n);
      if (!out.includes(v)) out.push(v);
    }
    return out;
  }
}
