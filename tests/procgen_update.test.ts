// ppo_procgen.ts's update: gradient accumulation over chunks of a minibatch (--grad-chunk-size) and the IMPALA
// CNN's gradient on the WASM backend (with envs/torch/backend.ts's WASM gradient fixes) against the cpu backend.
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { before, test } from "node:test";

import { setupBackend } from "../envs/torch/backend.ts";
import * as nn from "../envs/torch/nn.ts";
import { RandomGenerator, manualSeed } from "../envs/torch/rng.ts";
import { ARGS, Agent, type Minibatch, normalizeAdvantages, updateStep } from "../ppo_procgen.ts";
import { assertRelClose, gradsOn, randomArray, relError, size } from "./backend_helpers.ts";

const OBS_SIZE = 64 * 64 * 3;
/** maxGradNorm Infinity: the clip coefficient is 1, so the gradient updateStep applies is the loss's own. */
const LOSS_ARGS = { clipCoef: 0.2, normAdv: true, clipVloss: true, entCoef: 0.01, vfCoef: 0.5, maxGradNorm: Infinity };

before(async () => {
  await setupBackend("cpu", { quiet: true });
  await setupBackend("wasm", { quiet: true }); // wasm, with the kernel fixes
});

/**
 * A minibatch of n samples on the current backend. Frames have flat regions (procgen's backgrounds) so max-pool
 * windows hold ties; advantages have a non-zero mean, so per-chunk normalization would differ from the minibatch's.
 */
function randomMinibatch(n: number, seed: number): Minibatch {
  const rng = new RandomGenerator(seed);
  const obs = new Uint8Array(n * OBS_SIZE);
  for (let i = 0; i < obs.length; i++) obs[i] = (i >> 9) % 3 === 0 ? 40 : rng.integers(0, 256);
  const f = (scale: number, offset: number) =>
    tf.tensor1d(Float32Array.from({ length: n }, () => offset + scale * rng.normal()));
  return {
    obs: nn.framesToInput(obs, [3, 64, 64], "hwc"),
    actions: tf.tensor1d(
      Int32Array.from({ length: n }, () => rng.integers(0, 15)),
      "int32",
    ),
    logprobs: f(0.1, -Math.log(15)),
    advantages: f(2, 0.7),
    returns: f(1, 0.3),
    values: f(1, 0),
  };
}

/**
 * The gradient `updateStep` applies, read through an optimizer that only records it, and its 7 metrics, from a
 * fresh agent (seed 3); the minibatch is disposed.
 */
function gradients(
  mb: Minibatch,
  gradChunkSize: number,
): { grads: Float32Array[]; stats: Float32Array; leaked: number } {
  manualSeed(3);
  const agent = new Agent(15);
  let grads: Float32Array[] = [];
  const recorder = {
    applyGradients: (g: tf.NamedTensorMap) => (grads = Object.values(g).map((t) => t.dataSync() as Float32Array)),
  } as unknown as tf.Optimizer;
  const before = tf.memory().numTensors;
  const stats = updateStep(agent, recorder, mb, { ...LOSS_ARGS, gradChunkSize });
  const leaked = tf.memory().numTensors - before;
  tf.dispose([agent.parameters(), Object.values(mb)]);
  return { grads, stats, leaked };
}

test("normalizeAdvantages gives mean 0 and unbiased (n - 1) standard deviation 1", () => {
  const z = tf.tidy(() => normalizeAdvantages(tf.tensor1d([3, -1, 4, 1, -5, 9, 2, 6])).dataSync() as Float32Array);
  const mean = z.reduce((a, b) => a + b, 0) / z.length;
  const varUnbiased = z.reduce((a, b) => a + (b - mean) ** 2, 0) / (z.length - 1);
  assert.ok(Math.abs(mean) < 1e-6, `mean ${mean}`);
  assert.ok(Math.abs(varUnbiased - 1) < 1e-5, `variance ${varUnbiased}`);
});

test("the max-pool gradient on wasm sends each window's gradient to its first max, as cpu (and torch) do", async () => {
  // Values from {0, 0.5, 1}: most 3x3 windows hold the max more than once. 3x3, stride 2, pad 1, as IMPALA's pool.
  const shape: [number, number, number, number] = [2, 7, 6, 3];
  const x = Float32Array.from(randomArray(size(shape), 5), (v) => Math.round(v * 2 + 1) / 2);
  const grad = async (backend: string) => {
    await tf.setBackend(backend);
    return tf.tidy(() => {
      const r = tf.tensor(randomArray(2 * 4 * 3 * 3, 7), [2, 4, 3, 3]);
      return tf
        .grad((t: tf.Tensor) => tf.sum(tf.mul(tf.maxPool(t as tf.Tensor4D, 3, 2, 1), r)))(tf.tensor4d(x, shape))
        .dataSync();
    });
  };
  const expected = await grad("cpu");
  assert.deepEqual(Array.from(await grad("wasm")), Array.from(expected));
});

// The stride-1 paths of envs/torch/backend.ts's conv gradients (explicit padding instead of Pad + Slice), with a bias
// through tf.fused.conv2d as ppo_procgen.ts's convs use it; an even kernel makes the padding asymmetric.
for (const [k, pad] of [
  [3, "same"],
  [4, "same"],
  [3, 1],
] as const) {
  test(`fused conv2d ${k}x${k} stride 1 pad ${pad}: wasm dx, dW and db equal cpu`, async () => {
    const shapes = [[2, 9, 8, 3], [k, k, 3, 4], [4]];
    const f = (x: tf.Tensor, w: tf.Tensor, b: tf.Tensor) =>
      tf.fused.conv2d({ x: x as tf.Tensor4D, filter: w as tf.Tensor4D, strides: 1, pad, bias: b });
    const expected = await gradsOn("cpu", shapes, f as (...xs: tf.Tensor[]) => tf.Tensor, k);
    const actual = await gradsOn("wasm", shapes, f as (...xs: tf.Tensor[]) => tf.Tensor, k);
    assertRelClose(actual, expected, 1e-5);
  });
}

test("a minibatch split into gradient chunks gives the unsplit gradient and metrics (wasm)", async () => {
  await tf.setBackend("wasm");
  const whole = gradients(randomMinibatch(12, 1), 0);
  const chunked = gradients(randomMinibatch(12, 1), 5); // chunks of 5, 5, 2: unequal weights
  assert.equal(chunked.leaked, 0, "tensors leaked");
  assert.equal(chunked.grads.length, whole.grads.length);
  assertRelClose(chunked.grads, whole.grads, 1e-5);
  const err = relError(chunked.stats, whole.stats);
  assert.ok(err < 1e-5, `metrics ${Array.from(chunked.stats)} vs ${Array.from(whole.stats)}`);
});

test("the IMPALA minibatch gradient on wasm equals the cpu backend's", async () => {
  await tf.setBackend("cpu");
  const expected = gradients(randomMinibatch(2, 2), 0);
  await tf.setBackend("wasm");
  const actual = gradients(randomMinibatch(2, 2), 1);
  assertRelClose(actual.grads, expected.grads, 1e-5);
  assert.ok(relError(actual.stats, expected.stats) < 1e-5);
});

// The default run's peak memory is one chunk's forward and backward pass (the accumulated gradient is the size of
// the weights); a whole default minibatch (2048) would take ~40 s here, so one chunk stands in for it.
test("one forward and backward pass at the default --grad-chunk-size fits in WASM memory", async () => {
  await tf.setBackend("wasm");
  const n = ARGS.gradChunkSize.default;
  assert.ok(n > 0);
  const { grads, stats } = gradients(randomMinibatch(n, 4), n);
  assert.ok(stats.every(Number.isFinite) && grads.every((g) => g.every(Number.isFinite)));
});
