// Our WGSL kernels (envs/torch/webgpu/) against the cpu backend, on every conv and pool shape of the Nature CNN
// (ppo_atari.ts) and the IMPALA CNN (ppo_procgen.ts) and on odd ones: forward (with the bias/ReLU epilogue), filter
// gradient, input gradient and max-pool gradient, plus one IMPALA minibatch gradient end to end (ppo_atari.ts's
// whole update on webgpu against cpu is in tests/backend_webgpu.test.ts, and runs these kernels too).
//
// The filter gradient's reference is a float64 loop here rather than the cpu backend's kernel: that kernel took
// 11-31 s per batch-8 Nature/IMPALA layer on the 2-core VM (one thread per weight over every position). The other
// references are the cpu backend's own kernels.
//
// Needs a WebGPU adapter: `.ci/lavapipe.sh` provides a software one (see tests/backend_webgpu.test.ts); without one
// every test here skips with one message. Shapes are kept small for lavapipe; the batch-256 shapes are exercised by
// `benchmark/backends.ts --backends webgpu` and the device script instead.

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";

import { selectBackend, setupBackend } from "../envs/torch/backend.ts";
import {
  registerWebGpuKernels,
  unregisterWebGpuKernels,
  webGpuKernelsActive,
  webGpuKernelsWanted,
} from "../envs/torch/webgpu/index.ts";
import { clipGradNorm } from "../envs/torch/nn.ts";
import { adam } from "../envs/torch/optim.ts";
import { RandomGenerator } from "../envs/torch/rng.ts";
import { Agent, type Batch, minibatchGradients } from "../ppo_procgen.ts";
import { assertRelClose, randomArray, relError, size } from "./backend_helpers.ts";

await setupBackend("cpu", { quiet: true });
const unavailable = await selectBackend("webgpu").then(
  () => null,
  (err: Error) => err.message,
);
const skip =
  unavailable === null ? false : `no WebGPU adapter here (${unavailable}); .ci/lavapipe.sh provides a software one`;

const TOL = 1e-5;

type Pad = "valid" | "same" | [[number, number], [number, number], [number, number], [number, number]];
interface ConvCase {
  name: string;
  x: number[];
  w: number[];
  stride: number | [number, number];
  pad: Pad;
}

// Every conv of both networks (the IMPALA CNN's 3x3 same convs at each resolution and channel count), then odd
// batches, sizes, rectangular strides, explicit padding and a kernel smaller than its stride (phases without taps).
const CONVS: ConvCase[] = [
  { name: "Nature conv1 8x8 s4 on 84x84x4, batch 1", x: [1, 84, 84, 4], w: [8, 8, 4, 32], stride: 4, pad: "valid" },
  { name: "Nature conv2 4x4 s2, batch 8", x: [8, 20, 20, 32], w: [4, 4, 32, 64], stride: 2, pad: "valid" },
  { name: "Nature conv3 3x3 s1, batch 3", x: [3, 9, 9, 64], w: [3, 3, 64, 64], stride: 1, pad: "valid" },
  { name: "IMPALA 3x3 same 64x64x3 -> 16, batch 1", x: [1, 64, 64, 3], w: [3, 3, 3, 16], stride: 1, pad: "same" },
  {
    name: "IMPALA 3x3 same 32x32x16 -> 16 (residual), batch 1",
    x: [1, 32, 32, 16],
    w: [3, 3, 16, 16],
    stride: 1,
    pad: "same",
  },
  { name: "IMPALA 3x3 same 32x32x16 -> 32, batch 1", x: [1, 32, 32, 16], w: [3, 3, 16, 32], stride: 1, pad: "same" },
  { name: "IMPALA 3x3 same 8x8x32 -> 32, batch 5", x: [5, 8, 8, 32], w: [3, 3, 32, 32], stride: 1, pad: "same" },
  { name: "5x3 stride 2 same on 11x13x5, batch 3", x: [3, 11, 13, 5], w: [5, 3, 5, 7], stride: 2, pad: "same" },
  {
    name: "4x4 stride [3, 2] valid on 10x9x2, batch 1",
    x: [1, 10, 9, 2],
    w: [4, 4, 2, 3],
    stride: [3, 2],
    pad: "valid",
  },
  { name: "3x3 stride 4 same on 13x13x3 (taps < stride)", x: [2, 13, 13, 3], w: [3, 3, 3, 5], stride: 4, pad: "same" },
  { name: "1x1 stride 2 valid on 7x7x6", x: [2, 7, 7, 6], w: [1, 1, 6, 70], stride: 2, pad: "valid" },
  {
    name: "2x2 stride 1 explicit padding (1,0),(0,2)",
    x: [2, 6, 5, 3],
    w: [2, 2, 3, 4],
    stride: 1,
    pad: [
      [0, 0],
      [1, 0],
      [0, 2],
      [0, 0],
    ],
  },
];

function tensorOf(shape: number[], seed: number): tf.Tensor {
  return tf.tensor(randomArray(size(shape), seed), shape);
}

/** dW[ky, kx, c, o] = Σ x[b, oy·sh - padT + ky, ox·sw - padL + kx, c] · dy[b, oy, ox, o], in float64. */
function filterGradReference(x: Float32Array, dy: Float32Array, info: tf.backend_util.Conv2DInfo): Float64Array {
  const { batchSize: n, inHeight: h, inWidth: w, inChannels: ci, outHeight: oh, outWidth: ow, outChannels: co } = info;
  const { filterHeight: kh, filterWidth: kw, strideHeight: sh, strideWidth: sw } = info;
  const out = new Float64Array(kh * kw * ci * co);
  for (let b = 0; b < n; b++) {
    for (let oy = 0; oy < oh; oy++) {
      for (let ox = 0; ox < ow; ox++) {
        const dyo = ((b * oh + oy) * ow + ox) * co;
        for (let ky = 0; ky < kh; ky++) {
          const iy = oy * sh - info.padInfo.top + ky;
          if (iy < 0 || iy >= h) continue;
          for (let kx = 0; kx < kw; kx++) {
            const ix = ox * sw - info.padInfo.left + kx;
            if (ix < 0 || ix >= w) continue;
            const xo = ((b * h + iy) * w + ix) * ci;
            for (let c = 0; c < ci; c++) {
              const xv = x[xo + c];
              const wo = ((ky * kw + kx) * ci + c) * co;
              for (let o = 0; o < co; o++) out[wo + o] += xv * dy[dyo + o];
            }
          }
        }
      }
    }
  }
  return out;
}

/** Forward (fused bias + ReLU), dx and dW of one conv on the current backend, as arrays. */
function convOutputs(c: ConvCase, seed: number) {
  return tf.tidy(() => {
    const x = tensorOf(c.x, seed) as tf.Tensor4D;
    const w = tensorOf(c.w, seed + 1) as tf.Tensor4D;
    const bias = tensorOf([c.w[3]], seed + 2) as tf.Tensor1D;
    const plain = tf.conv2d(x, w, c.stride, c.pad);
    const fused = tf.fused.conv2d({ x, filter: w, strides: c.stride, pad: c.pad, bias, activation: "relu" });
    const dy = tensorOf(plain.shape, seed + 3) as tf.Tensor4D;
    const attrs = { strides: c.stride, pad: c.pad, dataFormat: "NHWC" };
    const dx = tf
      .engine()
      .runKernel(tf.Conv2DBackpropInput, { dy, filter: w }, { ...attrs, inputShape: c.x } as never) as tf.Tensor;
    const dw = tf
      .engine()
      .runKernel(tf.Conv2DBackpropFilter, { x, dy }, { ...attrs, filterShape: c.w } as never) as tf.Tensor;
    return {
      plain: plain.dataSync(),
      fused: fused.dataSync(),
      dx: dx.dataSync(),
      dw: dw.dataSync(),
      x: x.dataSync(),
      dy: dy.dataSync(),
      outShape: plain.shape,
    };
  });
}

// The training shapes (minibatch 256 for the Nature CNN, a --grad-chunk-size chunk of 256 for the IMPALA CNN) against tfjs's own
// webgpu kernels, which the tests above tie to the cpu backend on small shapes: seconds on a GPU, far too slow on
// lavapipe, so only with PPO_TS_WEBGPU_BIG=1 (benchmark/gpu_yardstick.sh sets it).
const BIG: ConvCase[] = [
  { name: "Nature conv1 at 256", x: [256, 84, 84, 4], w: [8, 8, 4, 32], stride: 4, pad: "valid" },
  { name: "Nature conv2 at 256", x: [256, 20, 20, 32], w: [4, 4, 32, 64], stride: 2, pad: "valid" },
  { name: "Nature conv3 at 256", x: [256, 9, 9, 64], w: [3, 3, 64, 64], stride: 1, pad: "valid" },
  { name: "IMPALA 64x64x3 -> 16 at 256", x: [256, 64, 64, 3], w: [3, 3, 3, 16], stride: 1, pad: "same" },
  { name: "IMPALA 32x32x16 -> 32 at 256", x: [256, 32, 32, 16], w: [3, 3, 16, 32], stride: 1, pad: "same" },
  { name: "IMPALA 8x8x32 -> 32 at 256", x: [256, 8, 8, 32], w: [3, 3, 32, 32], stride: 1, pad: "same" },
];
const bigSkip =
  skip ||
  (process.env.PPO_TS_WEBGPU_BIG === "1" ? false : "training-size shapes only with PPO_TS_WEBGPU_BIG=1 (a GPU)");

describe("our WebGPU kernels at training sizes against tfjs's webgpu kernels", { skip: bigSkip }, () => {
  BIG.forEach((c, k) => {
    test(`conv2d ${c.name}: forward, fused bias+ReLU, dx, dW`, async () => {
      await tf.setBackend("webgpu");
      const ours = convOutputs(c, 7 * k + 3);
      unregisterWebGpuKernels();
      try {
        const theirs = convOutputs(c, 7 * k + 3);
        // 3e-4: tfjs's filter gradient sums up to 102,400 products left to right in float32 (~3e-5 off, relative).
        assertRelClose(
          [ours.plain, ours.fused, ours.dx, ours.dw],
          [theirs.plain, theirs.fused, theirs.dx, theirs.dw],
          3e-4,
          (i) => ["forward", "fused forward", "input gradient", "filter gradient"][i],
        );
      } finally {
        registerWebGpuKernels();
      }
    });
  });
});

describe("our WebGPU kernels against the cpu backend", { skip }, () => {
  test("they are registered for the webgpu backend, and PPO_TS_WEBGPU_KERNELS=0 turns them off", () => {
    assert.ok(webGpuKernelsActive());
    assert.equal(webGpuKernelsWanted({ PPO_TS_WEBGPU_KERNELS: "0" }), false);
    assert.equal(webGpuKernelsWanted({}), true);
  });

  CONVS.forEach((c, k) => {
    test(`conv2d ${c.name}: forward, fused bias+ReLU, dx, dW`, async () => {
      const seed = 17 * k + 1;
      await tf.setBackend("webgpu");
      const actual = convOutputs(c, seed);
      await tf.setBackend("cpu");
      const expected = tf.tidy(() => {
        const x = tensorOf(c.x, seed) as tf.Tensor4D;
        const w = tensorOf(c.w, seed + 1) as tf.Tensor4D;
        const bias = tensorOf([c.w[3]], seed + 2) as tf.Tensor1D;
        const plain = tf.conv2d(x, w, c.stride, c.pad);
        const fused = tf.relu(tf.add(plain, bias));
        const dy = tensorOf(plain.shape, seed + 3) as tf.Tensor4D;
        const dx = tf.engine().runKernel(tf.Conv2DBackpropInput, { dy, filter: w }, {
          strides: c.stride,
          pad: c.pad,
          dataFormat: "NHWC",
          inputShape: c.x,
        } as never) as tf.Tensor;
        return { plain: plain.dataSync(), fused: fused.dataSync(), dx: dx.dataSync() };
      });
      const info = tf.backend_util.computeConv2DInfo(
        c.x as [number, number, number, number],
        c.w as [number, number, number, number],
        c.stride,
        1,
        c.pad,
      );
      const dw = filterGradReference(actual.x as Float32Array, actual.dy as Float32Array, info);
      assertRelClose(
        [actual.plain, actual.fused, actual.dx, actual.dw] as Float32Array[],
        [expected.plain, expected.fused, expected.dx, dw] as Float32Array[],
        TOL,
        (i) => ["forward", "fused forward", "input gradient", "filter gradient"][i],
      );
    });
  });

  test("the filter gradient's split-K sums agree with one slice (batch 16, Nature conv2)", async () => {
    // 16 x 9 x 9 positions make several slices; the float64 reference above checks the sum, this checks that a
    // slice boundary inside an image (81 positions per image, 256-position chunks) loses nothing.
    const c: ConvCase = { name: "", x: [16, 20, 20, 8], w: [4, 4, 8, 16], stride: 2, pad: "valid" };
    await tf.setBackend("webgpu");
    const actual = convOutputs(c, 5);
    const info = tf.backend_util.computeConv2DInfo(
      c.x as [number, number, number, number],
      c.w as [number, number, number, number],
      2,
      1,
      "valid",
    );
    assertRelClose(
      [actual.dw as Float32Array],
      [filterGradReference(actual.x as Float32Array, actual.dy as Float32Array, info) as unknown as Float32Array],
      TOL,
    );
  });

  for (const [shape, k, s, pad] of [
    [[2, 64, 64, 16], 3, 2, "same"],
    [[1, 32, 32, 32], 3, 2, "same"],
    [[3, 9, 7, 5], 3, 2, "same"],
    [[2, 8, 8, 3], 2, 2, "valid"],
  ] as const) {
    test(`max-pool ${k}x${k} stride ${s} ${pad} on ${shape} with ties: gradient to each window's first max, as cpu`, async () => {
      // Values from {0, 0.5, 1}: most windows hold their max more than once.
      const x = Float32Array.from(randomArray(size([...shape]), 9), (v) => Math.round(v * 2 + 1) / 2);
      const grad = async (backend: string) => {
        await tf.setBackend(backend);
        return tf.tidy(() => {
          const f = (t: tf.Tensor) => tf.maxPool(t as tf.Tensor4D, k, s, pad);
          const r = tensorOf(f(tf.zeros([...shape])).shape, 11);
          return Float32Array.from(
            tf
              .grad((t: tf.Tensor) => tf.sum(tf.mul(f(t), r)))(tf.tensor(x, [...shape]))
              .dataSync(),
          );
        });
      };
      const expected = await grad("cpu");
      // The sums over overlapping windows add in another order than cpu's; a misplaced tie is off by a whole dy.
      assertRelClose([await grad("webgpu")], [expected], TOL);
    });
  }

  test("tfjs's own max-pool gradient breaks those ties differently (what the kernel above fixes)", async () => {
    const shape = [2, 16, 16, 4];
    const x = Float32Array.from(randomArray(size(shape), 9), (v) => Math.round(v * 2 + 1) / 2);
    const grad = async (backend: string) => {
      await tf.setBackend(backend);
      return tf.tidy(() =>
        Float32Array.from(
          tf
            .grad((t: tf.Tensor) => tf.sum(tf.maxPool(t as tf.Tensor4D, 3, 2, "same")))(tf.tensor(x, shape))
            .dataSync(),
        ),
      );
    };
    const expected = await grad("cpu");
    unregisterWebGpuKernels();
    try {
      assert.notDeepEqual(Array.from(await grad("webgpu")), Array.from(expected));
    } finally {
      registerWebGpuKernels();
    }
  });

  test("Adam on webgpu (two dispatches per parameter) takes the same steps as on cpu, without leaking tensors", async () => {
    // Odd sizes (not multiples of the 64-thread workgroup), and gradients that change sign between steps.
    const shapes = [[3, 5], [7], [2, 3, 4, 5], [1]];
    const run = async (backend: string) => {
      await tf.setBackend(backend);
      const vars = shapes.map((s, i) => tf.variable(tensorOf(s, 40 + i), true, `adam_test_${backend}_${i}`));
      const opt = adam(0.01, 0.9, 0.999, 1e-5);
      const counts: number[] = [];
      for (let step = 0; step < 4; step++) {
        tf.tidy(() => {
          const grads = Object.fromEntries(
            vars.map((v, i) => [v.name, tf.mul(tensorOf(v.shape, 50 + i + step), step % 2 === 0 ? 1 : -3)]),
          );
          opt.applyGradients(grads);
        });
        counts.push(tf.memory().numTensors);
      }
      const out = vars.map((v) => Float32Array.from(v.dataSync()));
      opt.dispose();
      tf.dispose(vars);
      return { out, counts };
    };
    const expected = await run("cpu");
    const actual = await run("webgpu");
    assertRelClose(actual.out, expected.out, TOL, (i) => `parameter ${i} after 4 steps`);
    assert.deepEqual(
      actual.counts.slice(1),
      [actual.counts[1], actual.counts[1], actual.counts[1]],
      "tensor count grows",
    );
  });

  test("clipGradNorm on webgpu: the global norm summed in blocks, and the clipped gradients, as on cpu", async () => {
    // A gradient of 200K entries (784 per thread of the blocked sum; lavapipe takes seconds for the dense layer's
    // 1.6M) and small odd ones; the norm is compared with a float64 sum, the clipped gradients with cpu's.
    const shapes = [[3136, 64], [5], [3, 3, 7, 9], [513]];
    const clip = async (backend: string, maxNorm: number) => {
      await tf.setBackend(backend);
      return tf.tidy(() => {
        const grads = Object.fromEntries(shapes.map((s, i) => [`g${i}`, tensorOf(s, 60 + i)]));
        const { grads: clipped, norm } = clipGradNorm(grads, maxNorm);
        return {
          norm: norm.dataSync()[0],
          clipped: Object.values(clipped).map((g) => Float32Array.from(g.dataSync())),
        };
      });
    };
    let sumSq = 0;
    shapes.forEach((s, i) => randomArray(size(s), 60 + i).forEach((v) => (sumSq += v * v)));
    for (const maxNorm of [0.5, 1e6]) {
      // clipping, and a norm under the limit (coefficient 1)
      const expected = await clip("cpu", maxNorm);
      const actual = await clip("webgpu", maxNorm);
      assert.ok(
        Math.abs(actual.norm - Math.sqrt(sumSq)) <= 1e-6 * Math.sqrt(sumSq),
        `norm ${actual.norm} vs float64 ${Math.sqrt(sumSq)}`,
      );
      assertRelClose(actual.clipped, expected.clipped, TOL, (i) => `clipped gradient ${i} (maxNorm ${maxNorm})`);
    }
  });

  // Against wasm, not cpu: the cpu backend's conv gradients take ~100 s for this on the 2-core VM, and
  // tests/procgen_update.test.ts checks this very gradient on wasm against cpu (to 1e-5).
  test("ppo_procgen.ts: the IMPALA minibatch gradient on webgpu equals wasm's (which equals cpu's)", async () => {
    // Frames with flat regions (procgen's backgrounds), so the max-pools see ties.
    const n = 2;
    const rng = new RandomGenerator(2);
    const obs = new Uint8Array(n * 64 * 64 * 3);
    for (let i = 0; i < obs.length; i++) obs[i] = (i >> 9) % 3 === 0 ? 40 : rng.integers(0, 256);
    const f = (scale: number, offset: number) => Float32Array.from({ length: n }, () => offset + scale * rng.normal());
    const batch: Batch = {
      obs,
      actions: Int32Array.from([3, 11]),
      logprobs: f(0.1, -Math.log(15)),
      advantages: f(2, 0.7),
      returns: f(1, 0.3),
      values: f(1, 0),
    };
    const args = {
      clipCoef: 0.2,
      normAdv: true,
      clipVloss: true,
      entCoef: 0.01,
      vfCoef: 0.5,
      maxGradNorm: 0.5,
      gradChunkSize: 0,
    };
    const gradients = async (backend: string) => {
      await tf.setBackend(backend);
      const agent = new Agent(15, new RandomGenerator(3));
      const { grads, stats } = minibatchGradients(agent, batch, Int32Array.from([1, 0]), args);
      const out = {
        grads: Object.values(grads).map((g) => Float32Array.from(g.dataSync())),
        stats: Float32Array.from(stats.dataSync()),
      };
      tf.dispose([grads, stats, agent.parameters()]);
      return out;
    };
    await setupBackend("wasm", { quiet: true });
    const expected = await gradients("wasm");
    const actual = await gradients("webgpu");
    assertRelClose(actual.grads, expected.grads, 1e-4);
    assert.ok(
      relError(actual.stats, expected.stats) < 1e-4,
      `metrics ${Array.from(actual.stats)} vs cpu ${Array.from(expected.stats)}`,
    );
  });
});
