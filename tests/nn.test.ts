import * as tf from "@tensorflow/tfjs";
import assert from "node:assert/strict";
import { before, test } from "node:test";

import { setupBackend } from "../envs/torch/backend.ts";
import * as nn from "../envs/torch/nn.ts";
import { clipGradNorm, orthogonal } from "../envs/torch/nn.ts";
import { adam, getLearningRate, setLearningRate } from "../envs/torch/optim.ts";
import { RandomGenerator, manualSeed } from "../envs/torch/rng.ts";

before(async () => {
  // The single-thread WASM module: these checks are about the math, not threading, and the threaded module's
  // start-up (8 pthread workers) costs more than the small ops here.
  await setupBackend("wasm", { quiet: true, wasmThreads: 1 });
});

/** Gram matrix of the columns (tall) or rows (wide) of a row-major [rows, cols] weight, divided by gain². */
function gram(w: Float32Array, rows: number, cols: number, gain: number, ofColumns: boolean): number[][] {
  const n = ofColumns ? cols : rows;
  const len = ofColumns ? rows : cols;
  const at = (vec: number, k: number) => (ofColumns ? w[k * cols + vec] : w[vec * cols + k]);
  return Array.from({ length: n }, (_, i) =>
    Array.from({ length: n }, (_, j) => {
      let dot = 0;
      for (let k = 0; k < len; k++) dot += at(i, k) * at(j, k);
      return dot / gain ** 2;
    }),
  );
}

function assertIdentity(m: number[][]) {
  m.forEach((row, i) =>
    row.forEach((v, j) => assert.ok(Math.abs(v - (i === j ? 1 : 0)) < 1e-5, `entry (${i},${j}) = ${v}`)),
  );
}

test("orthogonal init of a wide [in, out] weight has orthonormal columns scaled by the gain", () => {
  // out (6) > in (4): torch makes the 6 rows of its [out, in] view... only 4 can be orthonormal, so the 4 in-vectors are.
  const w = orthogonal([4, 6], Math.SQRT2, new RandomGenerator(0));
  assertIdentity(gram(w, 4, 6, Math.SQRT2, false));
});

test("orthogonal init of a tall [in, out] weight has orthonormal out-vectors scaled by the gain", () => {
  const w = orthogonal([64, 2], 0.01, new RandomGenerator(0));
  assertIdentity(gram(w, 64, 2, 0.01, true));
});

test("orthogonal init is reproducible from the seed and differs across seeds", () => {
  assert.deepEqual(orthogonal([8, 8], 1, new RandomGenerator(5)), orthogonal([8, 8], 1, new RandomGenerator(5)));
  assert.notDeepEqual(orthogonal([8, 8], 1, new RandomGenerator(5)), orthogonal([8, 8], 1, new RandomGenerator(6)));
});

test("orthogonal init is uniform over orthogonal matrices, as torch's sign-fixed QR: no entry or trace leans", () => {
  // For Q uniform (Haar) on O(8): E[Q_ij] = 0, E[Q_ij^2] = 1/8, E[tr Q] = 0, Var[tr Q] = 1. A QR without torch's
  // sign fix (Householder's R has a negative diagonal) puts E[Q_00] near -0.27 and E[tr Q] near -2.2.
  const n = 8;
  const draws = 4000;
  const rng = new RandomGenerator(3);
  let q00 = 0;
  let q00Squared = 0;
  let trace = 0;
  for (let d = 0; d < draws; d++) {
    const q = orthogonal([n, n], 1, rng);
    q00 += q[0];
    q00Squared += q[0] ** 2;
    for (let i = 0; i < n; i++) trace += q[i * n + i];
  }
  // Five standard errors: sqrt(1/8 / 4000) for the entry, sqrt(1 / 4000) for the trace.
  assert.ok(Math.abs(q00 / draws) < 5 * Math.sqrt(1 / n / draws), `mean Q_00 = ${q00 / draws}`);
  assert.ok(Math.abs(q00Squared / draws - 1 / n) < 0.01, `mean Q_00^2 = ${q00Squared / draws}`);
  assert.ok(Math.abs(trace / draws) < 5 * Math.sqrt(1 / draws), `mean trace = ${trace / draws}`);
});

test("clipGradNorm scales every gradient by maxNorm / (global norm + 1e-6) when the norm exceeds maxNorm", () => {
  tf.tidy(() => {
    // Global norm of [3] and [4] is 5.
    const { grads, norm } = clipGradNorm({ a: tf.tensor1d([3]), b: tf.tensor1d([4]) }, 0.5);
    assert.ok(Math.abs(norm.dataSync()[0] - 5) < 1e-6);
    const coef = 0.5 / (5 + 1e-6);
    assert.ok(Math.abs(grads.a.dataSync()[0] - 3 * coef) < 1e-6);
    assert.ok(Math.abs(grads.b.dataSync()[0] - 4 * coef) < 1e-6);
  });
});

test("clipGradNorm leaves gradients whose global norm is within maxNorm unchanged", () => {
  tf.tidy(() => {
    const { grads } = clipGradNorm({ a: tf.tensor1d([0.3]), b: tf.tensor1d([0.1]) }, 0.5);
    assert.ok(Math.abs(grads.a.dataSync()[0] - 0.3) < 1e-7);
    assert.ok(Math.abs(grads.b.dataSync()[0] - 0.1) < 1e-7);
  });
});

test("setting the learning rate changes the size of the next Adam step", () => {
  const v = tf.variable(tf.scalar(0));
  const optimizer: tf.Optimizer = tf.train.adam(0.1, 0.9, 0.999, 1e-5);
  const step = () => {
    const before = v.dataSync()[0];
    tf.tidy(() => optimizer.applyGradients({ [v.name]: tf.scalar(1) }));
    return v.dataSync()[0] - before;
  };
  // Adam's first steps move by ≈ lr for a constant gradient.
  assert.ok(Math.abs(step() + 0.1) < 1e-3);
  setLearningRate(optimizer, 0.01);
  assert.equal(getLearningRate(optimizer), 0.01);
  assert.ok(Math.abs(step() + 0.01) < 1e-3);
  optimizer.dispose();
  v.dispose();
});

test("clipGradNorm's global norm counts every gradient when there are more than one addN takes at once (36: IMPALA-CNN)", () => {
  tf.tidy(() => {
    const grads: tf.NamedTensorMap = {};
    for (let k = 1; k <= 36; k++) grads[`g${k}`] = tf.tensor1d([k]);
    const { norm } = clipGradNorm(grads, 0.5);
    // sqrt(1² + 2² + … + 36²) = sqrt(36·37·73 / 6)
    assert.ok(Math.abs(norm.dataSync()[0] - Math.sqrt((36 * 37 * 73) / 6)) < 1e-3);
  });
});

test("clipGradNorm's norm over the Nature CNN's 3136×512 weight agrees with a float64 sum to 1e-6 (blocked summation)", () => {
  // Same-signed squares, the worst case for a float32 running sum: left to right it comes out ~4e-4 low on WASM.
  const n = 3136 * 512;
  const values = Float32Array.from({ length: n }, (_, i) => 1e-3 * Math.sin(i * 0.618) + 2e-4);
  let exact = 0;
  for (const v of values) exact += v * v;
  exact = Math.sqrt(exact);
  const norm = tf.tidy(() => clipGradNorm({ w: tf.tensor2d(values, [3136, 512]) }, 0.5).norm.dataSync()[0]);
  assert.ok(
    Math.abs(norm - exact) / exact < 1e-6,
    `norm ${norm}, float64 ${exact}, relative ${(norm - exact) / exact}`,
  );
});

test("adam() takes the same steps as tfjs's Adam (torch's update), through learning-rate changes and an outside assign, tensor count flat", () => {
  const rng = new RandomGenerator(3);
  const shapes = [[3, 5], [6], [2, 2, 3, 4], [1]]; // sizes 15, 6, 48, 1: whole and partial SIMD groups
  const init = shapes.map((shape) =>
    Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rng.normal()),
  );
  const ours = init.map((x, i) => tf.variable(tf.tensor(x, shapes[i])));
  const theirs = init.map((x, i) => tf.variable(tf.tensor(x, shapes[i])));
  const optimizer: tf.Optimizer = adam(0.05, 0.9, 0.999, 1e-5);
  const reference: tf.Optimizer = tf.train.adam(0.05, 0.9, 0.999, 1e-5);
  let tensorsAfterFirstStep = 0;
  for (let step = 0; step < 8; step++) {
    if (step === 3) {
      setLearningRate(optimizer, 0.01);
      setLearningRate(reference, 0.01);
    }
    if (step === 5) {
      // A checkpoint load between steps: the next step must start from the assigned values.
      const loaded = Float32Array.from(init[0], () => rng.normal());
      tf.tidy(() => ours[0].assign(tf.tensor(loaded, shapes[0])));
      tf.tidy(() => theirs[0].assign(tf.tensor(loaded, shapes[0])));
    }
    const grads = init.map((x, i) =>
      tf.tensor(
        Float32Array.from(x, () => rng.normal()),
        shapes[i],
      ),
    );
    tf.tidy(() => optimizer.applyGradients(Object.fromEntries(ours.map((v, i) => [v.name, grads[i]]))));
    tf.tidy(() => reference.applyGradients(Object.fromEntries(theirs.map((v, i) => [v.name, grads[i]]))));
    tf.dispose(grads);
    if (step === 0) tensorsAfterFirstStep = tf.memory().numTensors;
  }
  assert.equal(tf.memory().numTensors, tensorsAfterFirstStep);
  ours.forEach((v, i) => {
    const a = v.dataSync();
    const b = theirs[i].dataSync();
    for (let k = 0; k < a.length; k++)
      assert.ok(Math.abs(a[k] - b[k]) <= 1e-5 * (1 + Math.abs(b[k])), `param ${i}[${k}]: ${a[k]} vs ${b[k]}`);
    assert.ok(Math.abs(a[0] - init[i][0]) > 1e-3 || i === 0, "the parameters moved");
  });
  optimizer.dispose();
  reference.dispose();
  tf.dispose([...ours, ...theirs]);
});

/** Values in [-1, 1) from `seed`, shaped. */
function uniformTensor(shape: number[], seed: number): tf.Tensor {
  const rng = new RandomGenerator(seed);
  return tf.tensor(
    Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rng.uniform(-1, 1)),
    shape,
  );
}

/** torch's conv2d with zero padding `p` on every side, as a float64 loop over NHWC input and a [k, k, in, out] kernel. */
function convReference(x: tf.Tensor, w: tf.Tensor, b: tf.Tensor, stride: number, p: number): Float64Array {
  const [n, h, wd, c] = x.shape;
  const [k, , , o] = w.shape;
  const [xv, wv, bv] = [x.dataSync(), w.dataSync(), b.dataSync()];
  const oh = Math.floor((h + 2 * p - k) / stride) + 1;
  const ow = Math.floor((wd + 2 * p - k) / stride) + 1;
  const out = new Float64Array(n * oh * ow * o);
  for (let i = 0; i < n; i++)
    for (let y = 0; y < oh; y++)
      for (let xx = 0; xx < ow; xx++)
        for (let oc = 0; oc < o; oc++) {
          let sum = bv[oc];
          for (let ky = 0; ky < k; ky++)
            for (let kx = 0; kx < k; kx++) {
              const [iy, ix] = [y * stride - p + ky, xx * stride - p + kx];
              if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
              for (let ic = 0; ic < c; ic++)
                sum += xv[((i * h + iy) * wd + ix) * c + ic] * wv[((ky * k + kx) * c + ic) * o + oc];
            }
          out[((i * oh + y) * ow + xx) * o + oc] = sum;
        }
  return out;
}

for (const [stride, name] of [
  [1, "3x3 at stride 1 (tfjs's same)"],
  [2, "3x3 at stride 2 (explicit)"],
] as const) {
  test(`Conv2d with padding 1 zero-pads one row and column on every side, as torch's: ${name}`, () => {
    const conv = nn.layerInit(new nn.Conv2d(3, 4, 3, stride, 1), 1, 0.5);
    const x = uniformTensor([2, 7, 6, 3], 1);
    const out = conv.forward(x);
    const expected = convReference(x, conv.weight, conv.bias, stride, 1);
    assert.deepEqual(out.shape, [2, stride === 1 ? 7 : 4, stride === 1 ? 6 : 3, 4]);
    out
      .dataSync()
      .forEach((v, i) => assert.ok(Math.abs(v - expected[i]) < 1e-5, `output ${i}: ${v} vs ${expected[i]}`));
    tf.dispose([x, out, conv.parameters()]);
  });
}

test("a Conv2d whose input needs no gradient gives the same output and filter and bias gradients", () => {
  const x = uniformTensor([2, 6, 5, 3], 2);
  const run = (inputRequiresGrad: boolean) => {
    manualSeed(4);
    const conv = nn.layerInit(new nn.Conv2d(3, 4, 3, 1, 1), 1, 0.5);
    conv.inputRequiresGrad = inputRequiresGrad;
    const { value, grads } = tf.variableGrads(() => tf.sum(tf.square(conv.fused(x, "relu"))) as tf.Scalar);
    const out = [value, ...Object.values(grads)].map((t) => Float32Array.from(t.dataSync()));
    tf.dispose([value, grads, conv.parameters()]);
    return out;
  };
  const [fused, plain] = [run(true), run(false)];
  fused.forEach((t, k) => t.forEach((v, i) => assert.ok(Math.abs(v - plain[k][i]) <= 1e-5 * (1 + Math.abs(v)))));
  x.dispose();
});

test("maxPool2d pads with -Infinity on every side, as torch's max_pool2d (negative inputs: a zero pad would win)", () => {
  const [n, h, w, c] = [2, 7, 6, 3];
  const x = uniformTensor([n, h, w, c], 3);
  const xs = tf.sub(x, 2); // every value in [-3, -1)
  const out = nn.maxPool2d(xs as tf.Tensor4D, 3, 2, 1);
  const v = xs.dataSync();
  const [oh, ow] = [4, 3]; // (7 + 2 - 3) / 2 + 1, (6 + 2 - 3) / 2 + 1 rounded down
  assert.deepEqual(out.shape, [n, oh, ow, c]);
  const got = out.dataSync();
  for (let i = 0; i < n; i++)
    for (let y = 0; y < oh; y++)
      for (let xx = 0; xx < ow; xx++)
        for (let ch = 0; ch < c; ch++) {
          let max = -Infinity;
          for (let iy = Math.max(0, 2 * y - 1); iy <= Math.min(h - 1, 2 * y + 1); iy++)
            for (let ix = Math.max(0, 2 * xx - 1); ix <= Math.min(w - 1, 2 * xx + 1); ix++)
              max = Math.max(max, v[((i * h + iy) * w + ix) * c + ch]);
          assert.equal(got[((i * oh + y) * ow + xx) * c + ch], max);
        }
  tf.dispose([x, xs, out]);
});

test("resetParameters draws every weight and bias of a module within ±1/sqrt(fan_in) of its layer, reproducibly from the seed", () => {
  const draw = () => {
    manualSeed(5);
    return nn.resetParameters(new nn.Sequential(new nn.Conv2d(3, 4, 3), new nn.ReLU(), new nn.Linear(10, 2)));
  };
  const [a, b] = [draw(), draw()];
  const bounds = [1 / Math.sqrt(27), 1 / Math.sqrt(27), 1 / Math.sqrt(10), 1 / Math.sqrt(10)];
  a.parameters().forEach((p, k) => {
    const values = p.dataSync();
    assert.ok(values.every((v) => Math.abs(v) <= bounds[k]) && values.some((v) => Math.abs(v) > bounds[k] / 2));
    assert.deepEqual(values, b.parameters()[k].dataSync());
  });
  tf.dispose([a.parameters(), b.parameters()]);
});

test("a Linear after a Flatten and an activation reads the flattened features in torch's (C, H, W) order", () => {
  const linear = new nn.Linear(2 * 3 * 4, 5);
  const net = new nn.Sequential(new nn.Flatten([4, 2, 3]), new nn.ReLU(), linear);
  assert.deepEqual(net.namedParameters()[0].layout, { flattened: [2, 3, 4] });
  tf.dispose(net.parameters());
});
