// `torch.distributions`: the two policies CleanRL's PPO uses, `Categorical(logits=...)` for discrete actions and
// `Normal(mean, std)` for continuous ones, with `sample()`, `logProb(value)` and `entropy()`.
//
// The rollout samples one action per env and step. Sampling with tensor ops would cost several kernels and a
// readback each time; instead `sample()` reads the distribution's parameters back once and draws in plain JS from
// the seeded generator, remembering the log-probabilities of what it drew, so that `logProb(sample)` costs no
// kernel either. `logProb` of any other tensor, and `entropy`, are differentiable tensor ops (the PPO loss).

import * as tf from "@tensorflow/tfjs";
import { defaultGenerator } from "./rng.ts";

const LOG_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);

/** A sample drawn in JS, the log-probabilities of its rows, and each row's entropy (computed alongside). */
interface Drawn {
  value: tf.Tensor;
  logProb: Float32Array;
  entropy: Float32Array;
}

/** `Categorical(logits=logits)` over the last axis of [N, numActions] logits. */
export class Categorical {
  private drawn: Drawn | null = null;
  private normalized: tf.Tensor2D | null = null;

  constructor(readonly logits: tf.Tensor2D) {}

  /** The logits normalized to log-probabilities, computed once (torch keeps them so too). */
  get logProbs(): tf.Tensor2D {
    this.normalized ??= tf.logSoftmax(this.logits);
    return this.normalized;
  }

  /** One action per row by inverse-CDF sampling; the last action absorbs float round-off so a sample always lands. */
  sample(rng = defaultGenerator): tf.Tensor1D {
    const [n, numActions] = this.logits.shape;
    const logits = this.logits.dataSync();
    const action = new Int32Array(n);
    const logProb = new Float32Array(n);
    const entropy = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      const row = i * numActions;
      let max = -Infinity;
      for (let a = 0; a < numActions; a++) max = Math.max(max, logits[row + a]);
      let sumExp = 0;
      for (let a = 0; a < numActions; a++) sumExp += Math.exp(logits[row + a] - max);
      const logSumExp = max + Math.log(sumExp);
      for (let a = 0; a < numActions; a++) {
        const lp = logits[row + a] - logSumExp;
        entropy[i] -= Math.exp(lp) * lp;
      }
      let u = rng.random();
      let chosen = numActions - 1;
      for (let a = 0; a < numActions - 1; a++) {
        u -= Math.exp(logits[row + a] - logSumExp);
        if (u < 0) {
          chosen = a;
          break;
        }
      }
      action[i] = chosen;
      logProb[i] = logits[row + chosen] - logSumExp;
    }
    const value = tf.tensor1d(action, "int32");
    this.drawn = { value, logProb, entropy };
    return value;
  }

  /** Log-probability of `action`, as sum(logSoftmax · oneHot): tfjs-wasm has no gradient kernel for a batched gather. */
  logProb(action: tf.Tensor1D): tf.Tensor1D {
    if (action === this.drawn?.value) return tf.tensor1d(this.drawn.logProb);
    return tf.sum(tf.mul(this.logProbs, tf.oneHot(action, this.logits.shape[1])), -1) as tf.Tensor1D;
  }

  /** After `sample()` (the rollout, which only logs it), from the values read back; else differentiable. */
  entropy(): tf.Tensor1D {
    if (this.drawn !== null) return tf.tensor1d(this.drawn.entropy);
    const logProbs = this.logProbs;
    return tf.neg(tf.sum(tf.mul(tf.exp(logProbs), logProbs), -1)) as tf.Tensor1D;
  }
}

/** `Normal(mean, std)` with independent components: [N, actionDim] means, std = exp(logStd). */
export class Normal {
  private drawn: Drawn | null = null;

  constructor(
    readonly mean: tf.Tensor2D,
    readonly logStd: tf.Tensor2D,
  ) {}

  /** mean + std · ε with ε ~ N(0, 1) from the generator (Box–Muller). */
  sample(rng = defaultGenerator): tf.Tensor2D {
    const [n, d] = this.mean.shape;
    const mean = this.mean.dataSync();
    const logStd = this.logStd.dataSync();
    const action = new Float32Array(n * d);
    const logProb = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (let j = 0; j < d; j++) {
        const noise = rng.normal();
        action[i * d + j] = mean[i * d + j] + Math.exp(logStd[i * d + j]) * noise;
        sum += -0.5 * noise * noise - logStd[i * d + j] - LOG_SQRT_2PI;
      }
      logProb[i] = sum;
    }
    const value = tf.tensor2d(action, [n, d]);
    const entropy = Float32Array.from({ length: n }, (_, i) => {
      let sum = 0;
      for (let j = 0; j < d; j++) sum += logStd[i * d + j] + 0.5 + LOG_SQRT_2PI;
      return sum;
    });
    this.drawn = { value, logProb, entropy };
    return value;
  }

  /** log N(a; μ, σ) = -(a - μ)² / (2σ²) - log σ - log √(2π), per component, summed over the action's components. */
  logProb(action: tf.Tensor2D): tf.Tensor1D {
    if (action === this.drawn?.value) return tf.tensor1d(this.drawn.logProb);
    const z = tf.div(tf.sub(action, this.mean), tf.exp(this.logStd));
    return tf.sum(tf.sub(tf.sub(tf.mul(-0.5, tf.square(z)), this.logStd), LOG_SQRT_2PI), 1);
  }

  /** 0.5 + log √(2π) + log σ per component, summed over the action's components (after `sample()`: in JS). */
  entropy(): tf.Tensor1D {
    if (this.drawn !== null) return tf.tensor1d(this.drawn.entropy);
    return tf.sum(tf.add(this.logStd, 0.5 + LOG_SQRT_2PI), 1);
  }
}
