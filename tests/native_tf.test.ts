// Native TensorFlow (@tensorflow/tfjs-node on the tensorflow-cpu wheel's libtensorflow, built by
// benchmark/native_tf.sh) against our WASM path: the WASM gradient fixes of envs/torch/backend.ts and one whole PPO update
// of ppo_atari.ts's Nature CNN must give what libtensorflow's own kernels give. Skips when tfjs-node does not load.

import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";

import {
  registerTensorflowBackpropKernels,
  registerTensorflowFusedKernels,
  registerTensorflowReluGrad,
  selectBackend,
  setupBackend,
  unregisterTensorflowBackpropKernels,
  unregisterTensorflowFusedKernels,
} from "../envs/torch/backend.ts";
import { assertRelClose, gradsOn, randomArray } from "./backend_helpers.ts";

process.env.TF_CPP_MIN_LOG_LEVEL ??= "2";
const loadError = await import("@tensorflow/tfjs-node" as string).then(
  () => null,
  (err: Error) => String(err.message).split("\n")[0],
);
const skip =
  loadError === null
    ? false
    : `@tensorflow/tfjs-node does not load here (run bash benchmark/native_tf.sh): ${loadError.slice(0, 80)}`;

async function assertWasmMatchesTensorflow(
  shapes: number[][],
  f: (...xs: tf.Tensor[]) => tf.Tensor,
  seed: number,
): Promise<void> {
  const expected = await gradsOn("tensorflow", shapes, f, seed);
  const actual = await gradsOn("wasm", shapes, f, seed);
  assertRelClose(actual, expected, 1e-4, (i) => `gradient of input ${i} (shape ${shapes[i]})`);
}

describe("native TensorFlow (tfjs-node) against the WASM path", { skip }, () => {
  before(async () => {
    await setupBackend("wasm", { quiet: true }); // wasm with the gradient fixes installed
  });

  test("tfjs-node runs on the tensorflow backend with libtensorflow 2.x", async () => {
    assert.ok(await tf.setBackend("tensorflow"));
    assert.equal(tf.getBackend(), "tensorflow");
    const version = (tf.backend() as unknown as { binding: { TF_Version: string } }).binding.TF_Version;
    assert.match(version, /^2\.\d+/);
    assert.deepEqual(Array.from(tf.matMul(tf.tensor2d([[1, 2]]), tf.tensor2d([[3], [4]])).dataSync()), [11]);
  });

  test("fused conv2d + relu gradients (Nature-CNN layer shapes, scaled down) match libtensorflow's", async () => {
    const f = (x: tf.Tensor, w1: tf.Tensor, b1: tf.Tensor, w2: tf.Tensor, w3: tf.Tensor) => {
      const h1 = tf.fused.conv2d({
        x: x as tf.Tensor4D,
        filter: w1 as tf.Tensor4D,
        strides: 4,
        pad: "valid",
        bias: b1,
        activation: "relu",
      });
      const h2 = tf.relu(tf.conv2d(h1, w2 as tf.Tensor4D, 2, "valid"));
      return tf.relu(tf.conv2d(h2, w3 as tf.Tensor4D, 1, "valid"));
    };
    await assertWasmMatchesTensorflow([[3, 36, 36, 4], [8, 8, 4, 8], [8], [4, 4, 8, 6], [3, 3, 6, 5]], f, 41);
  });

  test("this libtensorflow runs oneDNN's kernels by name, and the backend line says so", async () => {
    const report = await selectBackend("tensorflow", { cuda: false });
    assert.match(report.line, /^backend: tensorflow \(tfjs-node, CPU, oneDNN conv gradients\)/);
  });

  test("conv filter gradients on tensorflow, through oneDNN and through the dilated-conv fallback, equal libtensorflow's Conv2DBackpropFilter", async () => {
    // Strides 4, 2 and 1 ("valid", the Nature CNN's), and a "same" stride-1 conv (the IMPALA CNN's).
    const f = (x: tf.Tensor, w1: tf.Tensor, w2: tf.Tensor, w3: tf.Tensor, w4: tf.Tensor) => {
      const h1 = tf.relu(tf.conv2d(x as tf.Tensor4D, w1 as tf.Tensor4D, 4, "valid"));
      const h2 = tf.relu(tf.conv2d(h1, w2 as tf.Tensor4D, 2, "valid"));
      return tf.conv2d(tf.relu(tf.conv2d(h2, w3 as tf.Tensor4D, 1, "valid")), w4 as tf.Tensor4D, 1, "same");
    };
    const shapes = [
      [5, 44, 44, 4],
      [8, 8, 4, 16],
      [4, 4, 16, 12],
      [3, 3, 12, 6],
      [3, 3, 6, 5],
    ];
    unregisterTensorflowBackpropKernels();
    const expected = await gradsOn("tensorflow", shapes, f, 43);
    for (const oneDnn of [true, false]) {
      unregisterTensorflowBackpropKernels();
      assert.equal(registerTensorflowBackpropKernels({ oneDnn }), oneDnn);
      const actual = await gradsOn("tensorflow", shapes, f, 43);
      assertRelClose(
        actual,
        expected,
        1e-4,
        (i) => `${oneDnn ? "oneDNN" : "dilated conv"}: gradient of input ${i} (shape ${shapes[i]})`,
      );
    }
    unregisterTensorflowBackpropKernels();
    registerTensorflowBackpropKernels(); // as setupBackend leaves it
  });

  test("matMul with transposed operands through oneDNN equals libtensorflow's BatchMatMulV2, for matrices and batches", async () => {
    await tf.setBackend("tensorflow");
    const products = (): Float32Array[] => {
      const out: Float32Array[] = [];
      for (const batch of [[], [3]]) {
        for (const [ta, tb] of [
          [false, false],
          [false, true],
          [true, false],
          [true, true],
        ] as const) {
          const n = batch.length === 0 ? 1 : batch[0];
          const a = tf.tensor(randomArray(n * 6 * 5, 73), [...batch, ...(ta ? [5, 6] : [6, 5])]);
          const b = tf.tensor(randomArray(n * 5 * 4, 79), [...batch, ...(tb ? [4, 5] : [5, 4])]);
          out.push(tf.tidy(() => tf.matMul(a as tf.Tensor3D, b as tf.Tensor3D, ta, tb).dataSync() as Float32Array));
          tf.dispose([a, b]);
        }
      }
      return out;
    };
    unregisterTensorflowBackpropKernels();
    const expected = products();
    registerTensorflowBackpropKernels();
    assertRelClose(
      products(),
      expected,
      1e-5,
      (i) => `product ${i} (batch ${i >= 4 ? 3 : "none"}, transposes ${["none", "b", "a", "a and b"][i % 4]})`,
    );
  });

  test("fused conv2d and matMul with a per-channel bias and relu or linear (native BiasAdd + Relu) equal tfjs-node's own kernels", async () => {
    await tf.setBackend("tensorflow");
    const x = tf.tensor4d(randomArray(2 * 9 * 9 * 3, 83), [2, 9, 9, 3]);
    const filter = tf.tensor4d(randomArray(3 * 3 * 3 * 4, 89), [3, 3, 3, 4]);
    const a = tf.tensor2d(randomArray(5 * 7, 97), [5, 7]);
    const w = tf.tensor2d(randomArray(7 * 4, 101), [7, 4]);
    const bias = tf.tensor1d(randomArray(4, 103));
    const outputs = (): Float32Array[] =>
      tf.tidy(() =>
        (["relu", "linear", "elu"] as const).flatMap((activation) =>
          [bias, undefined, tf.scalar(0.3)].flatMap((b) => [
            tf.fused.conv2d({ x, filter, strides: 2, pad: "valid", bias: b, activation }).dataSync() as Float32Array,
            tf.fused.matMul({ a, b: w, bias: b, activation }).dataSync() as Float32Array,
          ]),
        ),
      );
    unregisterTensorflowFusedKernels();
    const expected = outputs();
    registerTensorflowFusedKernels();
    const actual = outputs();
    // Relu and linear with a per-channel bias or none take the native path; elu and a broadcast bias fall back.
    assert.ok(expected.some((e) => e.some((v) => v < 0)) && expected.some((e) => e.every((v) => v >= 0)));
    assertRelClose(actual, expected, 1e-6, (i) => `output ${i}`);
    tf.dispose([x, filter, a, w, bias]);
  });

  test("ReLU's gradient on tensorflow (libtensorflow's ReluGrad op) equals tfjs's dy * step(x) on cpu, at 0 and below 0 too", async () => {
    registerTensorflowReluGrad(); // what setupBackend does when it selects tensorflow
    const x = tf.tensor1d([-2, -0.5, 0, 0, 1e-30, 0.5, 3, -1e-30]);
    const dy = tf.tensor1d([1, 2, 3, 4, 5, 6, 7, 8]);
    const gradOn = async (backend: string): Promise<number[]> => {
      await tf.setBackend(backend);
      return Array.from(
        tf.tidy(() =>
          tf
            .grad((v: tf.Tensor) => tf.relu(v))(tf.tensor1d(x.dataSync()), tf.tensor1d(dy.dataSync()))
            .dataSync(),
        ),
      );
    };
    const expected = await gradOn("cpu");
    assert.deepEqual(expected, [0, 0, 0, 0, 5, 6, 7, 0]);
    assert.deepEqual(await gradOn("tensorflow"), expected);
    // ... and it is the native op, not tfjs's six-op Step kernel.
    await tf.setBackend("tensorflow");
    const profile = await tf.profile(() => tf.grad((v: tf.Tensor) => tf.relu(v))(tf.tensor1d([1, -1])));
    assert.deepEqual(
      profile.kernelNames.filter((k) => k === "Step" || k === "PpoTsNativeReluGrad"),
      ["PpoTsNativeReluGrad"],
    );
  });

  test("matMul gradients with every transpose combination match libtensorflow's", async () => {
    for (const [ta, tb] of [
      [false, false],
      [false, true],
      [true, false],
      [true, true],
    ] as const) {
      await assertWasmMatchesTensorflow(
        [ta ? [5, 3] : [3, 5], tb ? [4, 5] : [5, 4]],
        (a, b) => tf.matMul(a, b, ta, tb),
        43,
      );
    }
  });

  test("bias gradient of a [N, H, W, C] activation (wasm Sum over leading axes) matches libtensorflow's", async () => {
    await assertWasmMatchesTensorflow([[4, 6, 5, 3], [3]], (x, b) => tf.relu(tf.add(x, b)), 47);
  });

  test("ppo_atari.ts's PPO loss and its gradient for every Nature-CNN parameter on wasm equal libtensorflow's to 1e-4", async () => {
    const { Agent, updateStep } = await import("../ppo_atari.ts");
    const { framesToInput } = await import("../envs/torch/nn.ts");
    const { manualSeed } = await import("../envs/torch/rng.ts");
    const n = 8;
    const frames = Uint8Array.from(randomArray(n * 4 * 84 * 84, 53), (v) => Math.floor((v + 0.5) * 256));
    // No clipping (coefficient exactly 1): the gradients the optimizer receives are the loss's.
    const args = { clipCoef: 0.1, normAdv: true, clipVloss: true, entCoef: 0.01, vfCoef: 0.5, maxGradNorm: 1e30 };
    const run = async (backend: string): Promise<{ loss: number; grads: Float32Array[] }> => {
      await tf.setBackend(backend);
      manualSeed(3);
      const agent = new Agent(4);
      const out = tf.tidy(() => {
        const mb = {
          obs: framesToInput(frames, [4, 84, 84], "chw"),
          actions: tf.tensor1d([0, 1, 2, 3, 3, 2, 1, 0], "int32"),
          // Old log-probs a little off the current policy's, so the ratio clipping is exercised on both sides.
          logprobs: tf.tensor1d(randomArray(n, 59).map((v) => Math.log(0.25) + 0.3 * v)),
          advantages: tf.tensor1d(randomArray(n, 61)),
          returns: tf.tensor1d(randomArray(n, 67)),
          values: tf.tensor1d(randomArray(n, 71)),
        };
        // An optimizer that only reads the gradients it is given.
        let grads: Record<string, Float32Array> = {};
        const read = (g: tf.NamedTensorMap) =>
          (grads = Object.fromEntries(Object.entries(g).map(([k, t]) => [k, t.dataSync() as Float32Array])));
        const metrics = updateStep(agent, { applyGradients: read } as unknown as tf.Optimizer, mb, args);
        // policy loss + value loss: the loss's terms that depend on the parameters most
        return { loss: metrics[0] + metrics[1], grads: agent.parameters().map((p) => grads[p.name]) };
      });
      tf.dispose(agent.parameters());
      return out;
    };
    const expected = await run("tensorflow");
    const actual = await run("wasm");
    assert.ok(
      Math.abs(actual.loss - expected.loss) <= 1e-4 * Math.abs(expected.loss),
      `loss ${actual.loss} vs ${expected.loss}`,
    );
    assertRelClose(actual.grads, expected.grads, 1e-4, (i) => `gradient of parameter ${i}`);
  });
});
