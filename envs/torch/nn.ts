// `torch.nn` as CleanRL's PPO uses it: the layers (`Linear`, `Conv2d`, `ReLU`, `Tanh`, `Flatten`, `Sequential`),
// `Module` with torch's `parameters()` / `state_dict()` names, `layer_init`'s orthogonal initialization and
// `nn.utils.clip_grad_norm_`. Tensors are channels-last (NHWC), as tfjs's convolutions want; checkpoints convert
// to torch's layouts by the names and layouts `namedParameters()` gives (envs/torch/checkpoint.ts).

import * as tf from "@tensorflow/tfjs";
import type { Layout, NamedParameter } from "./checkpoint.ts";
import { type RandomGenerator, defaultGenerator } from "./rng.ts";
import { clipGradNormWebGpu } from "./webgpu/global_norm.ts";
import { webGpuKernelsActive } from "./webgpu/index.ts";

/**
 * `torch.nn.init.orthogonal_(weight, gain)` for a tfjs weight of shape `[...in, out]` (dense `[in, out]`,
 * conv `[kh, kw, inC, outC]`). Torch sees the same weight as `[out, in...]` and makes its rows orthonormal
 * (or its columns, when out > in): a Gaussian matrix, QR-decomposed, Q's signs fixed by diag(R) so the result is
 * uniformly distributed (Saxe et al. 2013). Written in plain JS with the seeded generator: reproducible from
 * `--seed`, and far faster than `tf.initializers.orthogonal` on large weights such as the Nature CNN's 3136×512
 * (benchmark/README.md, "Orthogonal initialisation").
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
    for (let i = 0; i < level.length; i += 7)
      next.push(level.length - i === 1 ? level[i] : tf.addN(level.slice(i, i + 7)));
    level = next;
  }
  return level[0];
}

/** Elements summed per row at each level of `sumOfSquares`. */
const SUM_BLOCK = 1024;

/**
 * Σx² over all of `x`, summed in blocks: rows of SUM_BLOCK elements, then rows of those rows' sums, and so on.
 * A float32 running sum drifts with the count it has added (WASM's `sum` is one left-to-right loop, 4e-4 relative
 * low on the Nature CNN's 3136×512 weight); each level here adds at most SUM_BLOCK terms, so the
 * error stays near torch's own float32 error. Plain tensor ops, so every backend sums the same way.
 */
function sumOfSquares(x: tf.Tensor): tf.Scalar {
  let level = tf.reshape(tf.square(x), [-1]) as tf.Tensor1D;
  while (level.size > SUM_BLOCK) {
    const rows = Math.ceil(level.size / SUM_BLOCK);
    const full = rows * SUM_BLOCK === level.size ? level : tf.pad(level, [[0, rows * SUM_BLOCK - level.size]]);
    level = tf.sum(tf.reshape(full, [rows, SUM_BLOCK]), 1);
  }
  return tf.sum(level);
}

/**
 * `torch.nn.utils.clip_grad_norm_(params, maxNorm)`: scales all gradients together so their global L2 norm is at
 * most `maxNorm` (coefficient maxNorm / (norm + 1e-6), capped at 1, exactly torch's formula). Returns the
 * clipped gradients and the pre-clip norm. Call inside `tf.tidy`.
 */
export function clipGradNorm(grads: tf.NamedTensorMap, maxNorm: number): { grads: tf.NamedTensorMap; norm: tf.Scalar } {
  // On WebGPU, 2k + 1 dispatches for k gradients (envs/torch/webgpu/global_norm.ts).
  if (tf.getBackend() === "webgpu" && webGpuKernelsActive()) return clipGradNormWebGpu(grads, maxNorm);
  const names = Object.keys(grads);
  const norm = tf.sqrt(sumScalars(names.map((n) => sumOfSquares(grads[n])))) as tf.Scalar;
  const coef = tf.minimum(tf.div(maxNorm, tf.add(norm, 1e-6)), 1);
  const clipped: tf.NamedTensorMap = {};
  for (const n of names) clipped[n] = tf.mul(grads[n], coef);
  return { grads: clipped, norm };
}

// ---- layers -----------------------------------------------------------------------------------------------------

/**
 * `nn.Module`: `forward`, and the parameters of the modules it holds, named as torch's `state_dict()` names them
 * (`network.0.weight`, `actor.bias`, ...; a camelCase field is torch's snake_case name: `actorMean` is
 * `actor_mean`). A `tf.Variable` field is a parameter of the module itself, as an `nn.Parameter` is in torch.
 * The names and the `parameters()` order follow the order in which the fields were assigned: an Agent declares
 * its fields in CleanRL's order. (Torch lists a module's own parameters first; here they stay where they are
 * declared, the order that the gradient norm's float sums and the older JSON checkpoints assume.)
 */
export class Module {
  forward(x: tf.Tensor): tf.Tensor {
    return x;
  }

  namedParameters(prefix = ""): NamedParameter[] {
    return Object.entries(this).flatMap(([field, m]): NamedParameter[] => {
      const name = prefix + field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
      if (m instanceof tf.Variable) return [{ name, variable: m, layout: "same" }];
      return m instanceof Module ? m.namedParameters(`${name}.`) : [];
    });
  }

  parameters(): tf.Variable[] {
    return this.namedParameters().map((p) => p.variable);
  }
}

/** A layer with a weight and a bias, made without drawing random numbers: `layerInit` gives their values. */
abstract class Affine extends Module {
  readonly weight: tf.Variable;
  readonly bias: tf.Variable;
  /** How the weight is laid out relative to torch's (envs/torch/checkpoint.ts `Layout`). */
  layout: Layout;

  constructor(weightShape: number[], outFeatures: number, layout: Layout) {
    super();
    this.weight = tf.variable(tf.zeros(weightShape));
    this.bias = tf.variable(tf.zeros([outFeatures]));
    this.layout = layout;
  }

  override namedParameters(prefix = ""): NamedParameter[] {
    return [
      { name: `${prefix}weight`, variable: this.weight, layout: this.layout },
      { name: `${prefix}bias`, variable: this.bias, layout: "same" },
    ];
  }

  /** The layer followed by `activation`, as one fused kernel. */
  abstract fused(x: tf.Tensor, activation: "linear" | "relu"): tf.Tensor;

  override forward(x: tf.Tensor): tf.Tensor {
    return this.fused(x, "linear");
  }
}

/** `nn.Linear(inFeatures, outFeatures)`: x·W + b with W stored [in, out]. */
export class Linear extends Affine {
  constructor(inFeatures: number, outFeatures: number) {
    super([inFeatures, outFeatures], outFeatures, "linear");
  }

  fused(x: tf.Tensor, activation: "linear" | "relu"): tf.Tensor {
    const w = this.weight as tf.Tensor2D;
    return tf.fused.matMul({ a: x as tf.Tensor2D, b: w, bias: this.bias, activation });
  }
}

/** `nn.Conv2d(inChannels, outChannels, kernelSize, stride)` without padding, on NHWC input; kernel [kh, kw, in, out]. */
export class Conv2d extends Affine {
  constructor(
    inChannels: number,
    outChannels: number,
    kernelSize: number,
    readonly stride = 1,
  ) {
    super([kernelSize, kernelSize, inChannels, outChannels], outChannels, "conv2d");
  }

  fused(x: tf.Tensor, activation: "linear" | "relu"): tf.Tensor {
    const filter = this.weight as tf.Tensor4D;
    return tf.fused.conv2d({
      x: x as tf.Tensor4D,
      filter,
      strides: this.stride,
      pad: "valid",
      bias: this.bias,
      activation,
    });
  }
}

export class ReLU extends Module {
  override forward(x: tf.Tensor): tf.Tensor {
    return tf.relu(x);
  }
}

export class Tanh extends Module {
  override forward(x: tf.Tensor): tf.Tensor {
    return tf.tanh(x);
  }
}

/**
 * `nn.Flatten()` of a feature map, given as torch shapes it, [C, H, W]. Ours is channels-last, so it flattens in
 * (H, W, C) order; the Linear that follows reads its rows in that order, and checkpoints reorder them to torch's.
 */
export class Flatten extends Module {
  constructor(readonly chw: [number, number, number]) {
    super();
  }

  override forward(x: tf.Tensor): tf.Tensor {
    return tf.reshape(x, [x.shape[0], -1]);
  }
}

/** `nn.Sequential(...layers)`: parameters named by position; a Linear or Conv2d and the ReLU after it run fused. */
export class Sequential extends Module {
  readonly layers: Module[];

  constructor(...layers: Module[]) {
    super();
    this.layers = layers;
    layers.forEach((layer, i) => {
      const next = layers[i + 1];
      if (layer instanceof Flatten && next instanceof Linear)
        next.layout = { flattened: [layer.chw[1], layer.chw[2], layer.chw[0]] };
    });
  }

  override forward(x: tf.Tensor): tf.Tensor {
    let h = x;
    for (let i = 0; i < this.layers.length; i++) {
      const layer = this.layers[i];
      if (layer instanceof Affine && this.layers[i + 1] instanceof ReLU) (h = layer.fused(h, "relu")), i++;
      else h = layer.forward(h);
    }
    return h;
  }

  override namedParameters(prefix = ""): NamedParameter[] {
    return this.layers.flatMap((layer, i) => layer.namedParameters(`${prefix}${i}.`));
  }
}

/**
 * CleanRL's `layer_init` (detail 2): orthogonal weights with gain `std` (sqrt(2) for hidden layers, as openai/baselines'
 * `ortho_init`), constant biases. Draws from the generator `torch.manual_seed` seeded (envs/torch/rng.ts).
 */
export function layerInit<L extends Affine>(layer: L, std = Math.SQRT2, biasConst = 0, rng = defaultGenerator): L {
  const shape = layer.weight.shape;
  tf.tidy(() => {
    layer.weight.assign(tf.tensor(orthogonal(shape, std, rng), shape));
    layer.bias.assign(tf.fill(layer.bias.shape, biasConst));
  });
  return layer;
}

// ---- image input ------------------------------------------------------------------------------------------------

/** Byte v → v / 255 in float32 (computed in float64 and rounded: the same float32 as torch's division). */
const PIXEL_SCALE = Float32Array.from({ length: 256 }, (_, v) => v / 255);

/**
 * The convention of every CNN variant for image observations: the network takes [N, H, W, C] float32 in [0, 1]
 * (CleanRL's `x / 255.0`, done here by table, and channels last as tfjs convolutions want). `frames` holds N
 * observations of `[c, h, w]` as the env gives them, channels first ("chw": FrameStack's [4, 84, 84]) or last
 * ("hwc": procgen's RGB images, SuperSuit's stacks); the scaling and the transpose are one pass over the bytes.
 */
export function framesToInput(frames: Uint8Array, [c, h, w]: readonly number[], layout: "chw" | "hwc"): tf.Tensor4D {
  const size = c * h * w;
  const n = frames.length / size;
  const out = new Float32Array(frames.length);
  if (layout === "hwc") {
    for (let i = 0; i < frames.length; i++) out[i] = PIXEL_SCALE[frames[i]];
  } else {
    const plane = h * w;
    for (let j = 0; j < n; j++) {
      for (let ch = 0, src = j * size; ch < c; ch++) {
        for (let p = 0, o = j * size + ch; p < plane; p++, o += c) out[o] = PIXEL_SCALE[frames[src++]];
      }
    }
  }
  return tf.tensor4d(out, [n, h, w, c]);
}

// TEMPORARY while the variants move to envs/torch/optim.ts: the optimizer's old import path.
export { adam, getLearningRate, setLearningRate, type OptimizerState, type StatefulOptimizer } from "./optim.ts";

// ---- recurrent layer (ppo_atari_lstm.ts) ------------------------------------------------------------------------

/** `torch.nn.init`'s in-place initializers, for parameters that are not a Linear's or a Conv2d's (see `layerInit`). */
export const init = {
  /** `orthogonal_(param, gain)` on a weight stored [...in, out], from the generator `torch.manual_seed` seeded. */
  orthogonal(param: tf.Variable, gain = 1, rng = defaultGenerator): void {
    tf.tidy(() => param.assign(tf.tensor(orthogonal(param.shape, gain, rng), param.shape)));
  },
  constant(param: tf.Variable, value: number): void {
    tf.tidy(() => param.assign(tf.fill(param.shape, value)));
  },
};

/** An LSTM's hidden and cell states, [batch, hiddenSize] each: torch's `(h, c)` without its layer axis. */
export type LstmState = [h: tf.Tensor, c: tf.Tensor];

/**
 * `nn.LSTM(inputSize, hiddenSize)` with one layer, its gates in torch's order (input, forget, cell, output) and
 * its weights stored [in, 4 * hiddenSize], torch's transposed. Like `Linear`, it is made without drawing random
 * numbers: the caller initializes it. Where torch runs a whole sequence in one call, this layer is stepped, so
 * that a policy can reset the state between steps where an episode ends: `inputGates` for all steps at once, then
 * `cell` once per step.
 */
export class LSTM extends Module {
  readonly weightIh: tf.Variable;
  readonly weightHh: tf.Variable;
  // Torch's two bias vectors, kept as two although the gates only see their sum: each gets the same gradient and
  // Adam moves each by its own step, so together they move twice as far as one vector would; clip_grad_norm_
  // counts that gradient twice too.
  readonly biasIh: tf.Variable;
  readonly biasHh: tf.Variable;

  constructor(
    readonly inputSize: number,
    readonly hiddenSize: number,
  ) {
    super();
    this.weightIh = tf.variable(tf.zeros([inputSize, 4 * hiddenSize]));
    this.weightHh = tf.variable(tf.zeros([hiddenSize, 4 * hiddenSize]));
    this.biasIh = tf.variable(tf.zeros([4 * hiddenSize]));
    this.biasHh = tf.variable(tf.zeros([4 * hiddenSize]));
  }

  override namedParameters(prefix = ""): NamedParameter[] {
    return [
      { name: `${prefix}weight_ih_l0`, variable: this.weightIh, layout: "linear" },
      { name: `${prefix}weight_hh_l0`, variable: this.weightHh, layout: "linear" },
      { name: `${prefix}bias_ih_l0`, variable: this.biasIh, layout: "same" },
      { name: `${prefix}bias_hh_l0`, variable: this.biasHh, layout: "same" },
    ];
  }

  /** x·W_ih + b_ih + b_hh, the input's share of the four gates, for every row of `x` (all steps) in one product. */
  inputGates(x: tf.Tensor): tf.Tensor {
    return tf.add(tf.add(tf.matMul(x as tf.Tensor2D, this.weightIh as tf.Tensor2D), this.biasIh), this.biasHh);
  }

  /**
   * One step from that step's rows of `inputGates`:
   *   i, f, g, o = split(inputGates + h·W_hh);  c' = σ(f)·c + σ(i)·tanh(g);  h' = σ(o)·tanh(c')
   */
  cell(inputGates: tf.Tensor, [h, c]: LstmState): LstmState {
    const gates = tf.add(inputGates, tf.matMul(h as tf.Tensor2D, this.weightHh as tf.Tensor2D));
    const [i, f, g, o] = tf.split(gates, 4, 1);
    const cNext = tf.add(tf.mul(tf.sigmoid(f), c), tf.mul(tf.sigmoid(i), tf.tanh(g)));
    return [tf.mul(tf.sigmoid(o), tf.tanh(cNext)), cNext];
  }
}
