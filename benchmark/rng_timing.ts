// Cost of one draw from the env generator (numpy's PCG64, 16-bit limbs) beside the xoshiro128** generator envs used
// before, and beside a plain BigInt PCG64 step (the obvious alternative representation), side by side in alternating
// rounds so that load on the machine hits all of them alike.
//
//   nice -n 10 npx tsx benchmark/rng_timing.ts [--draws 2000000] [--rounds 5]

import { NumpyGenerator } from "../envs/torch/numpy_random.ts";
import { RandomGenerator } from "../envs/torch/rng.ts";

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const draws = flag("draws", 2_000_000);
const rounds = flag("rounds", 5);

/** PCG64's step and XSL-RR output on BigInts, for comparison only. */
class BigIntPcg64 {
  private static readonly MULT = (0x2360ed051fc65da4n << 64n) | 0x4385df649fccf645n;
  private static readonly MASK128 = (1n << 128n) - 1n;
  private static readonly MASK64 = (1n << 64n) - 1n;
  private state = 0x0123456789abcdef0123456789abcdefn;
  private readonly inc = 0xda3e39cb94b95bdbn | 1n;
  random(): number {
    this.state = (this.state * BigIntPcg64.MULT + this.inc) & BigIntPcg64.MASK128;
    const high = this.state >> 64n;
    const x = (high ^ this.state) & BigIntPcg64.MASK64;
    const rot = high >> 58n;
    const out = ((x >> rot) | (x << ((64n - rot) & 63n))) & BigIntPcg64.MASK64;
    return Number(out >> 11n) / 9007199254740992;
  }
}

const xoshiro = new RandomGenerator(1);
const pcg64 = new NumpyGenerator(1);
const bigIntPcg64 = new BigIntPcg64();
let sink = 0;
// One loop per generator, so that each call site sees one class and V8 can inline it.
const loops: [string, () => void][] = [
  [
    "xoshiro128** RandomGenerator",
    () => {
      for (let i = 0; i < draws; i++) sink += xoshiro.random();
    },
  ],
  [
    "PCG64 NumpyGenerator (16-bit limbs)",
    () => {
      for (let i = 0; i < draws; i++) sink += pcg64.random();
    },
  ],
  [
    "PCG64 on BigInt",
    () => {
      for (let i = 0; i < draws; i++) sink += bigIntPcg64.random();
    },
  ],
];

const best = new Map<string, number>();
for (let round = 0; round < rounds; round++) {
  for (const [name, loop] of loops) {
    const t0 = performance.now();
    loop();
    const ns = ((performance.now() - t0) * 1e6) / draws;
    best.set(name, Math.min(best.get(name) ?? Number.POSITIVE_INFINITY, ns));
  }
}
const base = best.get(loops[0][0]) as number;
for (const [name] of loops) {
  const ns = best.get(name) as number;
  console.log(`${name.padEnd(38)} ${ns.toFixed(1).padStart(7)} ns per random()  ${(ns / base).toFixed(2)}x xoshiro`);
}
if (sink === 0) console.log(sink);
