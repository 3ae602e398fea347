// Replays the CleanRL recordings of tests/fixtures/cleanrl/ (made by benchmark/cleanrl_record.py) with a
// TypeScript variant: the same weights and minibatch from the recorder's formula, the variant's own update, and
// every recorded quantity held to float32's own error on that batch (|torch float32 − float64|, the yardstick).
import * as tf from "@tensorflow/tfjs";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { parseArgs } from "../envs/run/cli.ts";

export interface ParameterPattern {
  name: string;
  shape: number[];
  seed: number;
  scale: number;
  sample: number[];
}
export interface StepRecord {
  terms: number[][];
  grad_norm: number;
}
export interface AfterRecord {
  delta_sum: number[];
  delta_abs_sum: number[];
  delta_sample: number[][];
  /** `every_step` fixtures: each tensor's ‖Δ‖ and its Δ projected on the recorder's hash vectors. */
  delta_norm?: number[];
  delta_projection?: number[][];
}
export interface ForwardRecord {
  index: number[];
  logprob: number[];
  entropy: number[];
  value: number[];
  logprob_sum: number;
  entropy_sum: number;
  value_sum: number;
}
export interface Run {
  forward: ForwardRecord[];
  steps: StepRecord[];
  after: Record<string, AfterRecord>;
}
export interface Fixture {
  variant: string;
  hyperparameters: {
    learning_rate: number;
    clip_coef: number;
    norm_adv: boolean;
    clip_vloss: boolean;
    ent_coef: number;
    vf_coef: number;
    max_grad_norm: number;
    adam_eps: number;
    minibatch_size: number;
  };
  minibatch_size: number;
  world_size: number;
  spaces: { obs_shape: number[]; actions?: number; action_dim?: number };
  parameters: ParameterPattern[];
  minibatches: {
    obs_seed: number;
    actions_seed: number;
    logprobs: number[];
    values: number[];
    returns: number[];
    advantages: number[];
    dones?: number[];
    initial_state_seed?: number;
  }[];
  float32: Run;
  float64: Run;
}

export function loadFixture(variant: string): Fixture {
  return JSON.parse(readFileSync(new URL(`fixtures/cleanrl/${variant}.json`, import.meta.url), "utf8"));
}

/** murmur3's finalizer over (index, seed): the recorder's hash, as a uint32. */
function hash32(i: number, seed: number): number {
  let h = Math.imul(i, 0x9e3779b1) ^ Math.imul(seed + 1, 0x85ebca77);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The recorder's `hash_unit`: n values k / 2^23 − 1 in [−1, 1), exact in float32. */
export function hashUnit(seed: number, n: number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = (hash32(i, seed) >>> 8) / 8388608 - 1;
  return out;
}

/** The recorder's `hash_bytes`, floor((hash_unit + 1) · 128), which is the hash's top byte. */
export function hashBytes(seed: number, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = hash32(i, seed) >>> 24;
  return out;
}

export const hashInts = (seed: number, n: number, high: number) =>
  Int32Array.from(hashUnit(seed, n), (u) => Math.floor((u + 1) * 4194304) % high);
export const hashFloats = (seed: number, n: number, scale: number) =>
  Float32Array.from(hashUnit(seed, n), (u) => u * scale);

/**
 * For each entry of a torch parameter (row-major in torch's layout), its index in ours: Linear and LSTM weights are
 * [out, in] there and [in, out] here, convolutions [out, in, kh, kw] there and [kh, kw, in, out] here, and the
 * first Linear after the convolutions reads torch's (C, H, W) flattening where ours flattens (H, W, C): `flatten`.
 */
function ourIndexOfTorch(p: ParameterPattern, flatten: number[] | null): { perm: Int32Array; shape: number[] } {
  const size = p.shape.reduce((a, b) => a * b, 1);
  const perm = new Int32Array(size);
  if (p.shape.length === 1 || p.name === "actor_logstd") {
    for (let t = 0; t < size; t++) perm[t] = t;
    return { perm, shape: p.shape };
  }
  if (p.shape.length === 2) {
    const [out, inp] = p.shape;
    const fromConv = flatten !== null && flatten[0] * flatten[1] * flatten[2] === inp;
    const [c, hw] = fromConv ? [flatten[0], flatten[1] * flatten[2]] : [1, inp];
    for (let o = 0; o < out; o++) {
      for (let i = 0; i < inp; i++) {
        const row = fromConv ? (i % hw) * c + Math.floor(i / hw) : i;
        perm[o * inp + i] = row * out + o;
      }
    }
    return { perm, shape: [inp, out] };
  }
  const [out, inp, kh, kw] = p.shape;
  for (let o = 0; o < out; o++) {
    for (let i = 0; i < inp; i++) {
      for (let y = 0; y < kh; y++) {
        for (let x = 0; x < kw; x++) perm[((o * inp + i) * kh + y) * kw + x] = ((y * kw + x) * inp + i) * out + o;
      }
    }
  }
  return { perm, shape: [kh, kw, inp, out] };
}

/** Scalar groups compared against the float64 run, with their errors, for the failure message and the report. */
class Comparison {
  readonly rows: { name: string; ours: number; torch: number; tolerance: number }[] = [];

  /**
   * Holds `ours` to TOLERANCE_FACTOR × the largest float32 error torch made on the group, or × `floor` where torch
   * came out closer than that by luck (a group torch gets exact, a difference of nearly equal numbers). Errors are
   * relative to the group's largest magnitude, or to each entry's `scale`.
   */
  group(
    name: string,
    ours: ArrayLike<number>,
    f32: ArrayLike<number>,
    f64: ArrayLike<number>,
    { scale, floor = 2 ** -20 }: { scale?: ArrayLike<number>; floor?: number } = {},
  ): void {
    let oursErr = 0;
    let torchErr = 0;
    let magnitude = 0;
    for (let i = 0; i < f64.length; i++) {
      const s = scale === undefined ? 1 : Math.max(Math.abs(scale[i]), 1e-30);
      oursErr = Math.max(oursErr, Math.abs(ours[i] - f64[i]) / s);
      torchErr = Math.max(torchErr, Math.abs(f32[i] - f64[i]) / s);
      magnitude = Math.max(magnitude, Math.abs(f64[i]) / s);
    }
    // With per-entry scales the errors are already relative; otherwise relative to the group's largest entry.
    const rel = (e: number) => (scale !== undefined || magnitude === 0 ? e : e / magnitude);
    this.rows.push({
      name,
      ours: rel(oursErr),
      torch: rel(torchErr),
      tolerance: TOLERANCE_FACTOR * Math.max(rel(torchErr), floor),
    });
  }

  assertAll(label: string): void {
    if (process.env.CLEANRL_REPORT)
      for (const r of this.rows)
        console.log(
          `${label}\t${r.name}\tours ${r.ours.toExponential(2)}\ttorch f32 ${r.torch.toExponential(2)}\ttol ${r.tolerance.toExponential(2)}`,
        );
    const failed = this.rows.filter((r) => !(r.ours <= r.tolerance));
    assert.equal(
      failed.length,
      0,
      `${label}: ${failed.map((r) => `${r.name}: relative error ${r.ours.toExponential(2)} vs float64, tolerance ${r.tolerance.toExponential(2)} (torch float32 ${r.torch.toExponential(2)})`).join("; ")}`,
    );
  }
}

/**
 * Adam passes a gradient entry's relative error on to its step where |g| ≲ ε, and WASM's convolution filter
 * gradients (sums over N·H·W in float32) carry more of it than torch's: up to 7.5e-5 of a tensor's |Δ| on the
 * IMPALA CNN's first residual convs, where torch's is 1e-7. Hence this floor for the parameter changes, and for
 * what is computed from the changed parameters.
 */
const PARAMETER_FLOOR = 2 ** -16;

/** How many times torch's own float32 error our float32 may make: different kernels sum in different orders. */
const TOLERANCE_FACTOR = 10;

/** The variant's hyperparameter defaults must be CleanRL's: the replay below uses the variant's. */
export function variantArgs(spec: Parameters<typeof parseArgs>[0], fixture: Fixture) {
  const args = parseArgs(spec, "", "", []) as Record<string, number | boolean>;
  const h = fixture.hyperparameters;
  const ours = {
    learning_rate: args.learningRate,
    clip_coef: args.clipCoef,
    norm_adv: args.normAdv,
    clip_vloss: args.clipVloss,
    ent_coef: args.entCoef,
    vf_coef: args.vfCoef,
    max_grad_norm: args.maxGradNorm,
  };
  assert.deepEqual(ours, {
    learning_rate: h.learning_rate,
    clip_coef: h.clip_coef,
    norm_adv: h.norm_adv,
    clip_vloss: h.clip_vloss,
    ent_coef: h.ent_coef,
    vf_coef: h.vf_coef,
    max_grad_norm: h.max_grad_norm,
  });
  return {
    learningRate: args.learningRate as number,
    clipCoef: args.clipCoef as number,
    normAdv: args.normAdv as boolean,
    clipVloss: args.clipVloss as boolean,
    entCoef: args.entCoef as number,
    vfCoef: args.vfCoef as number,
    maxGradNorm: args.maxGradNorm as number,
  };
}

/** Sets the agent's parameters (in CleanRL's `parameters()` order) to the recorder's formula; returns them as set. */
export function setParameters(
  params: tf.Variable[],
  fixture: Fixture,
  flatten: number[] | null = null,
): Float32Array[] {
  assert.deepEqual(
    params.length,
    fixture.parameters.length,
    `the agent has ${params.length} parameter tensors, CleanRL's ${fixture.parameters.length}`,
  );
  return fixture.parameters.map((p, k) => {
    const { perm, shape } = ourIndexOfTorch(p, flatten);
    assert.deepEqual(params[k].shape, shape, `parameter ${k} (CleanRL's ${p.name})`);
    const torchValues = hashFloats(p.seed, perm.length, p.scale);
    const ours = new Float32Array(perm.length);
    for (let t = 0; t < perm.length; t++) ours[perm[t]] = torchValues[t];
    params[k].assign(tf.tensor(ours, shape));
    return ours;
  });
}

export function minibatchColumns(mb: Fixture["minibatches"][number]) {
  return {
    logprobs: Float32Array.from(mb.logprobs),
    values: Float32Array.from(mb.values),
    returns: Float32Array.from(mb.returns),
    advantages: Float32Array.from(mb.advantages),
  };
}

/** Forward outputs on the initial weights: the sampled entries and the sums over the minibatch. */
function compareForward(
  cmp: Comparison,
  fixture: Fixture,
  rank: number,
  out: { logprob: ArrayLike<number>; entropy: ArrayLike<number>; value: ArrayLike<number> },
): void {
  const [a, b] = [fixture.float32.forward[rank], fixture.float64.forward[rank]];
  for (const key of ["logprob", "entropy", "value"] as const) {
    const ours = b.index.map((i) => out[key][i]);
    let sum = 0;
    for (let i = 0; i < out[key].length; i++) sum += out[key][i];
    cmp.group(`forward ${key}`, [...ours, sum], [...a[key], a[`${key}_sum`]], [...b[key], b[`${key}_sum`]]);
  }
}

const TERMS = ["pg_loss", "v_loss", "entropy", "old_approx_kl", "approx_kl", "clipfrac"];

/**
 * Each loss term and the gradient norm (`stats[step]`: updateStep's 7 numbers) at the first step, from identical
 * weights, and over the later steps, whose weights already differ by the parameter changes' error (hence their
 * floor, the parameter changes' one).
 */
function compareSteps(cmp: Comparison, fixture: Fixture, rank: number, stats: ArrayLike<number>[]): void {
  const ranges: [number, number, string, number][] = [
    [0, 1, "step 1", 2 ** -20],
    [1, stats.length, `steps 2-${stats.length}`, PARAMETER_FLOOR],
  ];
  for (const [from, to, name, floor] of ranges) {
    if (to <= from) continue;
    const [a, b, ours] = [
      fixture.float32.steps.slice(from, to),
      fixture.float64.steps.slice(from, to),
      stats.slice(from, to),
    ];
    TERMS.forEach((term, j) =>
      cmp.group(
        `${term} (${name})`,
        ours.map((s) => s[j]),
        a.map((s) => s.terms[rank][j]),
        b.map((s) => s.terms[rank][j]),
        { floor },
      ),
    );
    cmp.group(
      `grad norm (${name})`,
      ours.map((s) => s[6]),
      a.map((s) => s.grad_norm),
      b.map((s) => s.grad_norm),
      { floor },
    );
  }
}

/** The parameters' change after `step` steps: per tensor its sum and absolute sum, and the sampled entries. */
function compareAfter(
  cmp: Comparison,
  fixture: Fixture,
  step: number,
  params: tf.Variable[],
  initial: Float32Array[],
  flatten: number[] | null = null,
): void {
  const [a, b] = [fixture.float32.after[String(step)], fixture.float64.after[String(step)]];
  const sums: number[] = [];
  const absSums: number[] = [];
  const samples: number[] = [];
  fixture.parameters.forEach((p, k) => {
    const { perm } = ourIndexOfTorch(p, flatten);
    const now = params[k].dataSync();
    let sum = 0;
    let abs = 0;
    for (let i = 0; i < now.length; i++) {
      const d = now[i] - initial[k][i];
      sum += d;
      abs += Math.abs(d);
    }
    sums.push(sum);
    absSums.push(abs);
    for (const t of p.sample) samples.push(now[perm[t]] - initial[k][perm[t]]);
  });
  // Sums relative to each tensor's total change, so a small tensor's error is not lost beside a large one's.
  const floor = PARAMETER_FLOOR;
  cmp.group(`after ${step} steps: Δ sums`, sums, a.delta_sum, b.delta_sum, { scale: b.delta_abs_sum, floor });
  cmp.group(`after ${step} steps: |Δ| sums`, absSums, a.delta_abs_sum, b.delta_abs_sum, {
    scale: b.delta_abs_sum,
    floor,
  });
  cmp.group(`after ${step} steps: Δ samples`, samples, a.delta_sample.flat(), b.delta_sample.flat(), { floor });
  if (b.delta_projection === undefined || a.delta_projection === undefined || b.delta_norm === undefined) return;
  // Every entry of every tensor, one group per tensor: its change projected on the recorder's hash vectors, relative
  // to the tensor's ‖Δ‖. An error e in the entries moves a projection by about ‖e‖/√3 (the vectors' entries are
  // uniform in [-1, 1)), so each tensor is held to torch's own float32 error on that tensor.
  fixture.parameters.forEach((p, k) => {
    const { perm } = ourIndexOfTorch(p, flatten);
    const now = params[k].dataSync();
    const ours = b.delta_projection![k].map((_, j) => {
      const u = projectionVector(k, j, perm.length);
      let sum = 0;
      for (let t = 0; t < perm.length; t++) sum += (now[perm[t]] - initial[k][perm[t]]) * u[t];
      return sum;
    });
    cmp.group(`after ${step} steps: ${p.name} Δ projections`, ours, a.delta_projection![k], b.delta_projection![k], {
      scale: ours.map(() => b.delta_norm![k]),
      floor,
    });
  });
}

/** The recorder's `projection_vector`: what tensor number `tensor`'s change is projected on, in torch's order. */
function projectionVector(tensor: number, j: number, n: number): Float64Array {
  return hashUnit(4000 + 16 * tensor + j, n);
}

export interface ForwardOutputs {
  logprob: ArrayLike<number>;
  entropy: ArrayLike<number>;
  value: ArrayLike<number>;
}

/** A variant's `getActionAndValue` outputs, read back (its tensors disposed). */
export function readForward(
  fn: () => { logprob: tf.Tensor; entropy: tf.Tensor; value: tf.Tensor } | tf.Tensor[],
): ForwardOutputs {
  const result = tf.tidy(fn);
  // A variant's `getActionAndValue` returns [action, logprob, entropy, value], as CleanRL's does.
  const out = Array.isArray(result) ? { logprob: result[1], entropy: result[2], value: result[3] } : result;
  const read = { logprob: out.logprob.dataSync(), entropy: out.entropy.dataSync(), value: out.value.dataSync() };
  tf.dispose([out.logprob, out.entropy, out.value]); // not the action: it is the caller's
  return read;
}

/**
 * The replay: parameters from the formula, the forward pass on them (`forward`; null where another replay of the
 * same weights compared it), then `steps` updates (default, and with CLEANRL_ALL_STEPS=1 set: all recorded) with
 * the loss terms, gradient norms and parameter changes compared. `params` lists the agent's tensors in CleanRL's
 * `parameters()` order; `update` is one call of the variant's updateStep (its 7 numbers).
 */
export async function replayFixture(
  label: string,
  fixture: Fixture,
  o: {
    params: () => tf.Variable[];
    flatten?: number[];
    forward: (() => ForwardOutputs) | null;
    update: () => ArrayLike<number> | Promise<ArrayLike<number>>;
    steps?: number;
    rank?: number;
  },
): Promise<void> {
  const cmp = new Comparison();
  const flatten = o.flatten ?? null;
  const rank = o.rank ?? 0;
  const initial = setParameters(o.params(), fixture, flatten);
  if (o.forward !== null) compareForward(cmp, fixture, rank, o.forward());
  const stats: ArrayLike<number>[] = [];
  const recorded = fixture.float64.steps.length;
  const steps = process.env.CLEANRL_ALL_STEPS ? recorded : Math.min(o.steps ?? recorded, recorded);
  for (let step = 1; step <= steps; step++) {
    stats.push(await o.update());
    if (fixture.float64.after[String(step)]) compareAfter(cmp, fixture, step, o.params(), initial, flatten);
  }
  compareSteps(cmp, fixture, rank, stats);
  cmp.assertAll(label);
}
