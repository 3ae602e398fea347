// The WebGPU backend (Dawn + tfjs-backend-webgpu, registered by envs/torch/backend.ts) against the cpu backend: every op
// the variants use, forward and gradient, and one PPO update of each variant's network.
//
// Needs a WebGPU adapter. On a machine without a GPU, `.ci/lavapipe.sh` fetches Mesa's lavapipe (a software Vulkan
// driver) and prints the two environment variables that point Dawn at it; `.ci/run` exports them before `npm test`.
// Without an adapter every test here skips with one message. Lavapipe is for correctness, not speed: shapes are
// small and the first use of each kernel compiles a shader.

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";

import { selectBackend, setupBackend } from "../envs/torch/backend.ts";
import * as nn from "../envs/torch/nn.ts";
import { manualSeed } from "../envs/torch/rng.ts";
import * as ppo from "../ppo.ts";
import * as ppoAtari from "../ppo_atari.ts";
import * as ppoAtariLstm from "../ppo_atari_lstm.ts";
import * as ppoContinuous from "../ppo_continuous_action.ts";
import { assertRelClose, randomArray, valueAndGradsOn } from "./backend_helpers.ts";

const TOL = 1e-4;

await setupBackend("cpu", { quiet: true });
const unavailable = await selectBackend("webgpu").then(
  () => null,
  (err: Error) => err.message,
);
const skip =
  unavailable === null ? false : `no WebGPU adapter here (${unavailable}); .ci/lavapipe.sh provides a software one`;

async function assertWebGpuMatchesCpu(
  shapes: number[][],
  f: (...xs: tf.Tensor[]) => tf.Tensor,
  seed: number,
): Promise<void> {
  const expected = await valueAndGradsOn("cpu", shapes, f, seed);
  const actual = await valueAndGradsOn("webgpu", shapes, f, seed);
  assertRelClose(actual, expected, TOL, (i) =>
    i === 0 ? "value" : `gradient of input ${i - 1} (shape ${shapes[i - 1]})`,
  );
}

/** A forward-only op (no gradient, e.g. a comparison), on both backends. */
async function assertForwardMatches(f: () => tf.Tensor): Promise<void> {
  const on = async (b: string) => {
    await tf.setBackend(b);
    return tf.tidy(() => Float32Array.from(f().dataSync()));
  };
  assert.deepEqual(await on("webgpu"), await on("cpu"));
}

const LOSS_ARGS = { clipCoef: 0.1, normAdv: true, clipVloss: true, entCoef: 0.01, vfCoef: 0.5, maxGradNorm: 0.5 };

interface Variant<A, M> {
  agent: () => A;
  minibatch: () => M;
  update: (agent: A, opt: tf.Optimizer, mb: M, args: typeof LOSS_ARGS) => Float32Array;
  parameters: (agent: A) => tf.Variable[];
}

/**
 * One updateStep on the cpu backend and one on WebGPU, from the same initial weights (one seeded agent, its
 * weights reset in between: building the Nature CNN's orthogonal init takes seconds) and the same minibatch.
 * Compares the loss statistics and the change of every weight. SGD with learning rate 1 makes that change the
 * clipped gradient itself (Adam's first step is nearly lr·sign(g), which would hide gradient errors).
 */
async function assertUpdateMatches<A, M>(v: Variant<A, M>): Promise<void> {
  await tf.setBackend("cpu");
  const agent = v.agent();
  const params = v.parameters(agent);
  const initial = params.map((p) => Float32Array.from(p.dataSync()));
  const updateOn = async (backend: string) => {
    await tf.setBackend(backend);
    params.forEach((p, i) => {
      const t = tf.tensor(initial[i], p.shape);
      p.assign(t);
      t.dispose();
    });
    const mb = v.minibatch();
    const opt = tf.train.sgd(1);
    const stats = v.update(agent, opt, mb, LOSS_ARGS);
    const deltas = params.map((p, i) => Float32Array.from(p.dataSync(), (x, j) => x - initial[i][j]));
    tf.dispose(mb as tf.TensorContainer);
    opt.dispose();
    return { stats, deltas };
  };
  const expected = await updateOn("cpu");
  const actual = await updateOn("webgpu");
  tf.dispose(params);
  const names = ["pg_loss", "v_loss", "entropy", "old_approx_kl", "approx_kl", "clipfrac"];
  expected.stats.forEach((e, i) => {
    assert.ok(
      Math.abs(actual.stats[i] - e) <= TOL * Math.max(Math.abs(e), 1e-3),
      `${names[i]}: ${actual.stats[i]} vs cpu ${e}`,
    );
  });
  assertRelClose(actual.deltas, expected.deltas, TOL, (i) => `parameter ${i}: change from the cpu backend's`);
}

/** The common minibatch fields for n samples: sampled log-probs off the current policy, so the ratio is not 1. */
function common(n: number, seed: number) {
  const r = (k: number) => randomArray(n, seed + k);
  return {
    logprobs: tf.tensor1d(r(1).map((x) => -1.2 + x)),
    advantages: tf.tensor1d(r(2).map((x) => 4 * x)),
    returns: tf.tensor1d(r(3).map((x) => 2 * x)),
    values: tf.tensor1d(r(4)),
  };
}

const frameBytes = (n: number, channels: number, seed: number) =>
  Uint8Array.from(randomArray(n * channels * 84 * 84, seed), (x) => Math.floor((x + 0.5) * 256));

describe("WebGPU backend (Dawn) against the cpu backend", { skip }, () => {
  describe("WebGPU ops match the cpu backend, forward and gradient", () => {
    // [name, input shapes, function]: the ops of ppo.ts, ppo_continuous_action.ts, ppo_atari.ts, ppo_atari_lstm.ts
    // and envs/torch/nn.ts (gradient clipping), each on small shapes.
    const cases: [string, number[][], (...xs: tf.Tensor[]) => tf.Tensor][] = [
      [
        "fused matMul + bias + relu (linear layer)",
        [[5, 7], [7, 6], [6]],
        (x, w, b) => tf.fused.matMul({ a: x as tf.Tensor2D, b: w as tf.Tensor2D, bias: b, activation: "relu" }),
      ],
      [
        "matMul then tanh (MLP layer)",
        [
          [5, 4],
          [4, 8],
        ],
        (x, w) => tf.tanh(tf.matMul(x, w)),
      ],
      [
        "matMul with transposeB (LSTM recurrence)",
        [
          [3, 5],
          [6, 5],
        ],
        (x, w) => tf.matMul(x, w, false, true),
      ],
      [
        "fused conv2d 8x8 stride 4 + bias + relu",
        [[2, 20, 20, 4], [8, 8, 4, 6], [6]],
        (x, w, b) =>
          tf.fused.conv2d({
            x: x as tf.Tensor4D,
            filter: w as tf.Tensor4D,
            strides: 4,
            pad: "valid",
            bias: b,
            activation: "relu",
          }),
      ],
      [
        "fused conv2d 4x4 stride 2 + bias + relu",
        [[2, 9, 9, 6], [4, 4, 6, 5], [5]],
        (x, w, b) =>
          tf.fused.conv2d({
            x: x as tf.Tensor4D,
            filter: w as tf.Tensor4D,
            strides: 2,
            pad: "valid",
            bias: b,
            activation: "relu",
          }),
      ],
      [
        "fused conv2d 3x3 stride 1 + bias + relu",
        [[2, 6, 6, 5], [3, 3, 5, 4], [4]],
        (x, w, b) =>
          tf.fused.conv2d({
            x: x as tf.Tensor4D,
            filter: w as tf.Tensor4D,
            strides: 1,
            pad: "valid",
            bias: b,
            activation: "relu",
          }),
      ],
      [
        "div by 255, NCHW->NHWC transpose, reshape",
        [[2, 3, 4, 5]],
        (x) => tf.reshape(tf.transpose(tf.div(x, 255), [0, 2, 3, 1]), [2, -1]),
      ],
      [
        "logSoftmax, oneHot and sum (categorical log-prob)",
        [[4, 6]],
        (x) => tf.sum(tf.mul(tf.logSoftmax(x), tf.oneHot(tf.tensor1d([0, 5, 2, 3], "int32"), 6)), -1),
      ],
      ["exp, mul, neg, sum (entropy)", [[4, 6]], (x) => tf.neg(tf.sum(tf.mul(tf.exp(x), x), -1))],
      [
        "sigmoid, tanh, split, slice (LSTM gates)",
        [[3, 8]],
        (x) => {
          const [i, f] = tf.split(x, 2, 1);
          return tf.concat([tf.sigmoid(i), tf.tanh(f), tf.slice(x, [0, 2], [-1, 3])], 1);
        },
      ],
      [
        "clipByValue, maximum, minimum (clipped objectives)",
        [[6], [6]],
        (a, b) => tf.add(tf.maximum(tf.mul(a, 3), tf.clipByValue(b, -0.2, 0.2)), tf.minimum(a, tf.mul(b, 2))),
      ],
      ["sub, square, mean (value loss)", [[7], [7]], (a, b) => tf.mean(tf.square(tf.sub(a, b)))],
      [
        "moments, sqrt, add, div (advantage normalisation)",
        [[9]],
        (x) => {
          const { mean, variance } = tf.moments(x);
          return tf.div(tf.sub(x, mean), tf.add(tf.sqrt(variance), 1e-8));
        },
      ],
      [
        "abs, stack, concat, squeeze, broadcastTo",
        [[1, 4], [4]],
        (a, b) => tf.concat([tf.stack([tf.abs(tf.squeeze(a)), b]), tf.broadcastTo(b, [3, 4])], 0),
      ],
      [
        "Gaussian log-prob (exp of log-std, square, div)",
        [
          [4, 3],
          [1, 3],
          [4, 3],
        ],
        (mean, logstd, a) => {
          const std = tf.exp(logstd);
          return tf.sum(tf.sub(tf.neg(tf.div(tf.square(tf.sub(a, mean)), tf.mul(2, tf.square(std)))), logstd), 1);
        },
      ],
    ];
    cases.forEach(([name, shapes, f], k) => {
      test(name, async () => assertWebGpuMatchesCpu(shapes, f, 31 * k + 1));
    });

    test("comparison, cast and addN of 12 tensors (device has the adapter's storage-buffer limit)", async () => {
      // With WebGPU's default limit of 8 storage buffers per stage, addN of more than 7 inputs returned zeros.
      await assertForwardMatches(() => tf.addN(Array.from({ length: 12 }, (_, i) => tf.tensor1d(randomArray(5, i)))));
      await assertForwardMatches(() => tf.cast(tf.greater(tf.abs(tf.tensor1d(randomArray(8, 3))), 0.2), "float32"));
    });

    test("a Dawn validation error becomes an exception at the next readback, not zeros", async () => {
      await tf.setBackend("webgpu");
      const device = (
        tf.backend() as unknown as { device: { createBuffer(d: { size: number; usage: number }): unknown } }
      ).device;
      device.createBuffer({ size: 4, usage: 0 }); // usage 0 is invalid: Dawn reports an uncaptured validation error
      const x = tf.add(tf.ones([3]), 1);
      assert.throws(() => x.dataSync(), /^Error: WebGPU: /);
      assert.deepEqual(Array.from(tf.add(x, 1).dataSync()), [3, 3, 3], "the error is reported once");
      x.dispose();
    });
  });

  describe("one PPO update of each variant's network on WebGPU equals the cpu backend's", () => {
    test("ppo.ts: MLP actor-critic (CartPole sizes, 8 samples)", async () => {
      await assertUpdateMatches({
        agent: () => (manualSeed(1), new ppo.Agent(4, 2)),
        minibatch: () => ({
          obs: tf.tensor2d(randomArray(32, 5), [8, 4]),
          actions: tf.tensor1d([0, 1, 1, 0, 1, 0, 0, 1], "int32"),
          ...common(8, 6),
        }),
        update: ppo.updateStep,
        parameters: (a) => a.parameters(),
      });
    });

    test("ppo_continuous_action.ts: Gaussian MLP (3-d observations, 2-d actions, 8 samples)", async () => {
      await assertUpdateMatches({
        agent: () => (manualSeed(2), new ppoContinuous.Agent(3, 2)),
        minibatch: () => ({
          obs: tf.tensor2d(randomArray(24, 7), [8, 3]),
          actions: tf.tensor2d(randomArray(16, 8), [8, 2]),
          ...common(8, 9),
        }),
        update: ppoContinuous.updateStep,
        parameters: (a) => a.parameters(),
      });
    });

    test("ppo_atari.ts: Nature CNN (2 stacked-frame observations)", async () => {
      await assertUpdateMatches({
        agent: () => (manualSeed(3), new ppoAtari.Agent(4)),
        minibatch: () => ({
          obs: nn.framesToInput(frameBytes(2, 4, 10), [4, 84, 84], "chw"),
          actions: tf.tensor1d([1, 3], "int32"),
          ...common(2, 11),
        }),
        update: ppoAtari.updateStep,
        parameters: (a) => a.parameters(),
      });
    });

    test("ppo_atari_lstm.ts: CNN + LSTM (2 envs x 2 steps, an episode start inside)", async () => {
      await assertUpdateMatches({
        agent: () => (manualSeed(4), new ppoAtariLstm.Agent(4)),
        minibatch: (): ppoAtariLstm.Minibatch => ({
          obs: nn.framesToInput(frameBytes(4, 1, 12), [1, 84, 84], "chw"),
          initialState: [tf.tensor2d(randomArray(256, 13), [2, 128]), tf.tensor2d(randomArray(256, 14), [2, 128])],
          dones: tf.tensor1d([0, 0, 1, 0]),
          actions: tf.tensor1d([0, 2, 3, 1], "int32"),
          ...common(4, 15),
        }),
        update: ppoAtariLstm.updateStep,
        parameters: (a) => a.parameters(),
      });
    });
  });
});
