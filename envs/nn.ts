// The few torch utilities CleanRL's PPO uses that tfjs lacks: `nn.init.orthogonal_` and
// `nn.utils.clip_grad_norm_`. They live here, once, so every variant file imports them like it would torch.

import * as tf from "@tensorflow/tfjs";
import { RandomGenerator } from "./rng.ts";

/**
 * `torch.nn.init.orthogonal_(weight, gain)` for a tfjs weight of shape `[...in, out]` (dense `[in, out]`,
 * conv `[kh, kw, inC, outC]`). Torch sees the same weight as `[out, in...]` and makes its rows orthonormal
 * (or its columns, when out > in): a Gaussian matrix, QR-decomposed, Q's signs fixed by diag(R) so the result is
 * uniformly distributed (Saxe et al. 2013). Written in plain JS with the seeded generator: reproducible from
 * `--seed`, and far faster than `tf.initializers.orthogonal` on large weights (≈2 s vs ≈54 s for 3136×512).
 */
export function orthogonal(shape: readonly number[], gain: number, rng: RandomGenerator): Float32Array {
  const out = shape[shape.length - 1];
  const fanIn = shape.slice(0, -1).reduce((a, b) => a * b, 1);
  // Orthonormalize the columns of the taller orientation, as torch does by transposing when rows < cols.
  const tall = Math.max(out, fanIn);
  const wide = Math.min(out, fanIn);
  const q = new Float64Array(tall * wide); // column-major: column j at [j*tall, (j+1)*tall)
  for (let i = 0; i < q.length; i++) q[i] = rng.normal();
  // Modified Gram–Schmidt: R's diagonal comes out positive, which is the sign convention torch enforces.
  for (let j = 0; j < wide; j++) {
    const cj = j * tall;
    for (let k = 0; k < j; k++) {
      const ck = k * tall;
      let dot = 0;
      for (let i = 0; i < tall; i++) dot += q[ck + i] * q[cj + i];
      for (let i = 0; i < tall; i++) q[cj + i] -= dot * q[ck + i];
    }
    let norm = 0;
    for (let i = 0; i < tall; i++) norm += q[cj + i] * q[cj + i];
    norm = Math.sqrt(norm);
    for (let i = 0; i < tall; i++) q[cj + i] /= norm;
  }
  // Entry (o, f) of torch's [out, fanIn] matrix goes to our row-major [fanIn, out] layout at f*out + o.
  const weight = new Float32Array(fanIn * out);
  for (let o = 0; o < out; o++) {
    for (let f = 0; f < fanIn; f++) {
      const v = out >= fanIn ? q[f * tall + o] : q[o * tall + f];
      weight[f * out + o] = gain * v;
    }
  }
  return weight;
}

/**
 * The sum of many scalars, at most 7 per `addN`: a WebGPU kernel gets one storage buffer per input plus its output,
 * and adapters cap that (WebGPU's default is 8; the IMPALA-CNN's 36 parameters exceeded an H100's cap through Dawn).
 */
function sumScalars(xs: tf.Tensor[]): tf.Tensor {
  let level = xs;
  while (level.length > 1) {
    const next: tf.Tensor[] = [];
    for (let i = 0; i < level.length; i += 7) next.push(level.length - i === 1 ? level[i] : tf.addN(level.slice(i, i + 7)));
    level = next;
  }
  return level[0];
}

/**
 * `torch.nn.utils.clip_grad_norm_(params, maxNorm)`: scales all gradients together so their global L2 norm is at
 * most `maxNorm` (coefficient maxNorm / (norm + 1e-6), capped at 1, exactly torch's formula). Returns the
 * clipped gradients and the pre-clip norm. Call inside `tf.tidy`.
 */
export function clipGradNorm(grads: tf.NamedTensorMap, maxNorm: number): { grads: tf.NamedTensorMap; norm: tf.Scalar } {
  const names = Object.keys(grads);
  const norm = tf.sqrt(sumScalars(names.map((n) => tf.sum(tf.square(grads[n]))))) as tf.Scalar;
  const coef = tf.minimum(tf.div(maxNorm, tf.add(norm, 1e-6)), 1);
  const clipped: tf.NamedTensorMap = {};
  for (const n of names) clipped[n] = tf.mul(grads[n], coef);
  return { grads: clipped, norm };
}

/**
 * `optimizer.param_groups[0]["lr"] = lr`: tfjs optimizers read their (TypeScript-protected) `learningRate`
 * field at every `applyGradients`, so assigning it anneals the rate (measured: it takes effect).
 */
export function setLearningRate(optimizer: tf.Optimizer, lr: number): void {
  (optimizer as unknown as { learningRate: number }).learningRate = lr;
}

export function getLearningRate(optimizer: tf.Optimizer): number {
  return (optimizer as unknown as { learningRate: number }).learningRate;
}
