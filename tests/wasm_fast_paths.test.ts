// The non-arithmetic work removed from the WASM update step: ppo_atari.ts's frame conversion in JS, and the wasm
// Sum (over leading axes) and GatherV2 (rows) kernels of envs/torch/backend.ts. Each must give what the ops it replaces give.

import { before, test } from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";

import { setupBackend } from "../envs/torch/backend.ts";
import { framesToInput } from "../envs/torch/nn.ts";

before(async () => {
  await setupBackend("cpu", { quiet: true });
  await setupBackend("wasm", { quiet: true }); // wasm, with the kernel fixes
});

/** Deterministic values in [0, 1). */
function uniform(n: number, seed: number): Float32Array {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  });
}

test("framesToInput equals the float32 ops it replaces, transpose(x / 255, NCHW -> NHWC), bit for bit", async () => {
  const n = 3;
  // Every byte value occurs, at positions that differ per channel.
  const frames = Uint8Array.from({ length: n * 4 * 84 * 84 }, (_, i) => (i * 7 + (i >> 9)) & 255);
  await tf.setBackend("cpu");
  const expected = tf.tidy(() => {
    const x = tf.tensor4d(frames, [n, 4, 84, 84], "int32");
    return tf.transpose(tf.div(x, 255.0), [0, 2, 3, 1]).dataSync();
  });
  await tf.setBackend("wasm");
  const all = framesToInput(frames, [4, 84, 84], "chw");
  assert.deepEqual(all.shape, [n, 84, 84, 4]);
  assert.deepEqual(all.dataSync(), expected);
  all.dispose();
});

test("framesToInput of channels-last frames equals x / 255 in float32, bit for bit", async () => {
  const frames = Uint8Array.from({ length: 2 * 64 * 64 * 3 }, (_, i) => (i * 13 + (i >> 7)) & 255);
  await tf.setBackend("cpu");
  const expected = tf.tidy(() => tf.div(tf.tensor4d(frames, [2, 64, 64, 3], "int32"), 255.0).dataSync());
  await tf.setBackend("wasm");
  const all = framesToInput(frames, [3, 64, 64], "hwc");
  assert.deepEqual(all.shape, [2, 64, 64, 3]);
  assert.deepEqual(all.dataSync(), expected);
  all.dispose();
});

test("wasm GatherV2 of rows (a minibatch's b_obs[mb_inds]) matches the cpu backend; other gathers unchanged", async () => {
  const x = uniform(6 * 5 * 4 * 3, 9);
  const cases: [number[], number[], number][] = [
    [[6, 5, 4, 3], [4, 0, 0, 5, 2], 0],
    [[6, 60], [1, 5], 0],
    [[6, 5, 4, 3], [3, 1], 2],
    [[360], [7, 359, 0], 0],
  ];
  for (const [shape, inds, axis] of cases) {
    const on = async (backend: string) => {
      await tf.setBackend(backend);
      return tf.tidy(() => {
        const g = tf.gather(tf.tensor(x, shape), tf.tensor1d(inds, "int32"), axis);
        return { shape: g.shape, data: Array.from(g.dataSync()) };
      });
    };
    assert.deepEqual(await on("wasm"), await on("cpu"), `shape ${shape}, indices ${inds}, axis ${axis}`);
  }
  await tf.setBackend("wasm");
  assert.throws(
    () => tf.gather(tf.tensor2d(x.subarray(0, 12), [4, 3]), tf.tensor1d([4], "int32")),
    /index value 4 is not in \[0, 3\]/,
  );
});

test("wasm Sum over leading axes (the bias-gradient reduction) matches the cpu backend; other reductions unchanged", async () => {
  const x = uniform(5 * 7 * 6 * 3, 5);
  const cases: [number[], boolean][] = [
    [[0, 1, 2], false],
    [[0, 1, 2], true],
    [[0], false],
    [[2, 1, 0], false],
    [[1, 2], false],
    [[3], true],
  ];
  for (const [axes, keepDims] of cases) {
    const on = async (backend: string) => {
      await tf.setBackend(backend);
      return tf.tidy(() => {
        const s = tf.sum(tf.tensor4d(x, [5, 7, 6, 3]), axes, keepDims);
        return { shape: s.shape, data: s.dataSync() as Float32Array };
      });
    };
    const expected = await on("cpu");
    const actual = await on("wasm");
    assert.deepEqual(actual.shape, expected.shape, `axes ${axes}`);
    actual.data.forEach((v, i) =>
      assert.ok(
        Math.abs(v - expected.data[i]) <= 1e-6 * Math.abs(expected.data[i]) + 1e-6,
        `axes ${axes} keepDims ${keepDims}: ${v} vs ${expected.data[i]}`,
      ),
    );
  }
  await tf.setBackend("wasm");
  assert.deepEqual(
    Array.from(
      tf
        .sum(
          tf.tensor2d(
            [
              [1, 2],
              [3, 4],
            ],
            [2, 2],
            "int32",
          ),
          0,
        )
        .dataSync(),
    ),
    [4, 6],
  );
});
