// Backend selection and the WASM gradient fixes of envs/torch/backend.ts.
//
// Gradients are checked against the cpu backend's built-in gradients (the fixes defer to those on cpu), on the
// same small random inputs, by switching backends inside one process: tf.setBackend("cpu") / ("wasm").

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import * as tf from "@tensorflow/tfjs";
import {
  BackendUnavailableError,
  backendReport,
  registerWasmGradientFixes,
  selectBackend,
  setupBackend,
  unregisterWasmGradientFixes,
} from "../envs/torch/backend.ts";
import { assertRelClose, gradsOn } from "./backend_helpers.ts";

const TOL = 1e-4;

async function assertWasmMatchesCpu(shapes: number[][], f: (...xs: tf.Tensor[]) => tf.Tensor, seed = 1): Promise<void> {
  const expected = await gradsOn("cpu", shapes, f, seed);
  const actual = await gradsOn("wasm", shapes, f, seed);
  assertRelClose(actual, expected, TOL, (i) => `gradient of input ${i} (shape ${shapes[i]})`);
}

/** Whether an optional package resolves here (then the tests that need it absent are skipped). */
function installed(pkg: string): boolean {
  try {
    createRequire(import.meta.url).resolve(pkg);
    return true;
  } catch {
    return false;
  }
}
const nativeInstalled = installed("@tensorflow/tfjs-node") || installed("@tensorflow/tfjs-node-gpu");

before(async () => {
  // Initialise cpu first (quietly, which also suppresses its Node.js banner); wasm is then set up by the tests below.
  await setupBackend("cpu", { quiet: true });
});

describe("setupBackend", () => {
  test("setupBackend('wasm') selects wasm and prints nothing when quiet", async (t) => {
    const log = t.mock.method(console, "log", () => {});
    const name = await setupBackend("wasm", { quiet: true });
    assert.equal(name, "wasm");
    assert.equal(tf.getBackend(), "wasm");
    assert.equal(log.mock.callCount(), 0);
  });

  test("setupBackend prints exactly one line naming the backend", async (t) => {
    const log = t.mock.method(console, "log", () => {});
    await setupBackend("wasm");
    assert.equal(log.mock.callCount(), 1);
    const line = String(log.mock.calls[0].arguments[0]);
    assert.match(line, /^backend: wasm \((no )?SIMD, \d+ threads?\)$/);
    assert.equal(line, backendReport()?.line);
  });

  test(
    "auto with --no-cuda and no native TensorFlow selects wasm and says why each faster option was not taken",
    { skip: nativeInstalled ? "tfjs-node is installed here" : false },
    async () => {
      const report = await selectBackend("auto", { cuda: false });
      assert.equal(report.backend, "wasm");
      assert.equal(tf.getBackend(), "wasm");
      assert.equal(report.reason, "--no-cuda: no GPU backend; tfjs-node not installed");
      assert.match(report.line, /^backend: wasm .* — --no-cuda: no GPU backend; tfjs-node not installed$/);
    },
  );

  test(
    "auto without a GPU package or hardware adapter names the reason for CUDA, WebGPU and native TensorFlow",
    { skip: nativeInstalled ? "tfjs-node(-gpu) is installed here" : false },
    async () => {
      const report = await selectBackend("auto", { cuda: true });
      // On this machine there is no hardware GPU: WebGPU is either absent or a software adapter, refused by auto.
      assert.equal(report.backend, "wasm");
      const parts = report.reason.split("; ");
      assert.equal(parts[0], "tfjs-node-gpu not installed");
      assert.match(
        parts[1],
        /^(no WebGPU adapter.*|WebGPU adapter .* is software, refused \(--backend webgpu forces it\))$/,
      );
      assert.equal(parts[2], "tfjs-node not installed");
    },
  );

  test(
    "an explicitly requested backend that cannot start throws BackendUnavailableError, never falls back",
    { skip: nativeInstalled ? "tfjs-node is installed here" : false },
    async () => {
      await setupBackend("wasm", { quiet: true });
      await assert.rejects(
        selectBackend("tensorflow", { cuda: false }),
        (err: Error) =>
          err instanceof BackendUnavailableError &&
          /^--backend tensorflow cannot start: tfjs-node not installed/.test(err.message),
      );
      assert.equal(tf.getBackend(), "wasm");
    },
  );

  test("--backend webgpu with --no-cuda is refused", async () => {
    await assert.rejects(selectBackend("webgpu", { cuda: false }), BackendUnavailableError);
  });

  test("setupBackend is idempotent: a second call selects the same backend and tensors keep working", async () => {
    assert.equal(await setupBackend("wasm", { quiet: true }), "wasm");
    const a = tf.tensor([1, 2, 3]);
    assert.equal(await setupBackend("wasm", { quiet: true }), "wasm");
    assert.deepEqual(Array.from(tf.add(a, 1).dataSync()), [2, 3, 4]);
    a.dispose();
  });

  test("setupBackend('cpu') selects the cpu backend", async () => {
    assert.equal(await setupBackend("cpu", { quiet: true }), "cpu");
    assert.equal(tf.getBackend(), "cpu");
  });
});

describe("WASM conv2d gradients match the cpu backend", () => {
  before(async () => {
    await setupBackend("wasm", { quiet: true }); // registers the fixes
  });

  // [x shape NHWC, filter size, stride, output channels, padding]
  const cases: [number[], number, number, number, "valid" | "same"][] = [
    [[2, 7, 6, 3], 3, 1, 4, "valid"],
    [[3, 11, 10, 2], 4, 2, 5, "valid"],
    [[2, 13, 12, 3], 3, 2, 2, "valid"], // (H - K) not a multiple of the stride: trailing input rows unused
    [[2, 20, 19, 4], 8, 4, 3, "valid"], // Nature-CNN first layer, scaled down
    [[2, 9, 9, 3], 3, 2, 4, "same"],
  ];
  for (const [xShape, k, s, co, pad] of cases) {
    test(`conv2d ${k}x${k} stride ${s} ${pad}, x ${xShape.join("x")} -> ${co} channels: dx and dW`, async () => {
      await assertWasmMatchesCpu(
        [xShape, [k, k, xShape[3], co]],
        (x, w) => tf.conv2d(x as tf.Tensor4D, w as tf.Tensor4D, s, pad),
        10 * k + s,
      );
    });
  }

  test("three stacked convs with relu (Nature-CNN 8/4, 4/2, 3/1 on a 36x36 input): all filter gradients", async () => {
    const shapes = [
      [2, 36, 36, 4],
      [8, 8, 4, 8],
      [4, 4, 8, 6],
      [3, 3, 6, 5],
    ];
    await assertWasmMatchesCpu(
      shapes,
      (x, w1, w2, w3) => {
        const h1 = tf.relu(tf.conv2d(x as tf.Tensor4D, w1 as tf.Tensor4D, 4, "valid"));
        const h2 = tf.relu(tf.conv2d(h1, w2 as tf.Tensor4D, 2, "valid"));
        return tf.relu(tf.conv2d(h2, w3 as tf.Tensor4D, 1, "valid"));
      },
      7,
    );
  });

  test("fused conv2d with bias (gradient via its customGrad -> wasm backprop kernels)", async () => {
    // Only a linear fused op stays fused while taping gradients (tfjs's shouldFuse), so add relu separately.
    await assertWasmMatchesCpu(
      [[2, 12, 12, 3], [4, 4, 3, 5], [5]],
      (x, w, b) =>
        tf.relu(
          tf.fused.conv2d({
            x: x as tf.Tensor4D,
            filter: w as tf.Tensor4D,
            strides: 2,
            pad: "valid",
            bias: b,
          }),
        ),
      3,
    );
  });
});

describe("WASM matMul gradients match the cpu backend", () => {
  before(async () => {
    await setupBackend("wasm", { quiet: true });
  });

  for (const [ta, tb] of [
    [false, false],
    [false, true],
    [true, false],
    [true, true],
  ] as const) {
    test(`matMul transposeA=${ta} transposeB=${tb}`, async () => {
      const a = ta ? [5, 3] : [3, 5];
      const b = tb ? [4, 5] : [5, 4];
      await assertWasmMatchesCpu([a, b], (x, y) => tf.matMul(x, y, ta, tb), ta ? 11 : 13);
    });
  }

  test("batched 3-D matMul with transposeB", async () => {
    await assertWasmMatchesCpu(
      [
        [3, 4, 5],
        [3, 6, 5],
      ],
      (x, y) => tf.matMul(x, y, false, true),
      17,
    );
  });

  test("fused matMul with bias (ppo.ts's linear layer) followed by tanh", async () => {
    await assertWasmMatchesCpu(
      [[6, 4], [4, 7], [7]],
      (x, w, b) => tf.tanh(tf.fused.matMul({ a: x as tf.Tensor2D, b: w as tf.Tensor2D, bias: b })),
      19,
    );
  });

  test("broadcast batch dims: gradient of the broadcast operand is summed over the batch", async () => {
    // tfjs's own gradient cannot do this (shape mismatch), so the reference tiles b explicitly on cpu.
    const expected = await gradsOn(
      "cpu",
      [
        [2, 3, 4],
        [4, 5],
      ],
      (x, y) => tf.matMul(x, tf.tile(tf.expandDims(y, 0), [2, 1, 1])),
      23,
    );
    const actual = await gradsOn(
      "wasm",
      [
        [2, 3, 4],
        [4, 5],
      ],
      (x, y) => tf.matMul(x, y),
      23,
    );
    assertRelClose(actual, expected, TOL, (i) => `input ${i}`);
  });
});

describe("gradient overrides on other backends", () => {
  after(async () => {
    registerWasmGradientFixes(); // back to wasm-only overrides
    await tf.setBackend("wasm");
  });

  test("with allBackends the override math also matches tfjs's own gradients on cpu", async () => {
    unregisterWasmGradientFixes();
    const conv = (x: tf.Tensor, w: tf.Tensor) => tf.conv2d(x as tf.Tensor4D, w as tf.Tensor4D, 2, "valid");
    const mm = (x: tf.Tensor, y: tf.Tensor) => tf.matMul(x, y, true, false);
    const refConv = await gradsOn(
      "cpu",
      [
        [2, 11, 10, 3],
        [4, 4, 3, 5],
      ],
      conv,
      29,
    );
    const refMm = await gradsOn(
      "cpu",
      [
        [5, 3],
        [5, 4],
      ],
      mm,
      31,
    );
    registerWasmGradientFixes({ allBackends: true });
    const gotConv = await gradsOn(
      "cpu",
      [
        [2, 11, 10, 3],
        [4, 4, 3, 5],
      ],
      conv,
      29,
    );
    const gotMm = await gradsOn(
      "cpu",
      [
        [5, 3],
        [5, 4],
      ],
      mm,
      31,
    );
    assertRelClose(gotConv, refConv, TOL, (i) => `conv input ${i}`);
    assertRelClose(gotMm, refMm, TOL, (i) => `matMul input ${i}`);
  });

  test("without the fixes, the wasm conv2d filter gradient throws (the limitation being fixed)", async () => {
    unregisterWasmGradientFixes();
    await tf.setBackend("wasm");
    const x = tf.ones([1, 5, 5, 1]) as tf.Tensor4D;
    const w = tf.ones([3, 3, 1, 1]) as tf.Tensor4D;
    assert.throws(
      () => tf.grad((ww: tf.Tensor) => tf.sum(tf.conv2d(x, ww as tf.Tensor4D, 1, "valid")))(w),
      /Conv2DBackpropFilter/,
    );
    tf.dispose([x, w]);
  });
});
