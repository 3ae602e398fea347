// The WASM backend's thread count (envs/torch/backend.ts: wasmThreadCount, the threaded module started by hand).
//
// The module cannot be swapped inside a process once started, so the threaded and single-thread runs are child
// processes of this file (WASM_THREADS_TEST_ROLE=child): each starts wasm with PPO_TS_WASM_THREADS threads,
// prints its backend line and the gradients of a small conv net as JSON, and ends without process.exit, which
// also checks that the pthread workers do not keep the process alive.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as tf from "@tensorflow/tfjs";

import { setupBackend, wasmThreadCount } from "../envs/torch/backend.ts";
import { UsageError } from "../envs/run/cli.ts";
import { assertRelClose } from "./backend_helpers.ts";

const SELF = fileURLToPath(import.meta.url);
const TSX = import.meta.resolve("tsx");

if (process.env.WASM_THREADS_TEST_ROLE === "child") {
  const line: string[] = [];
  const log = console.log;
  console.log = (s: string) => line.push(s);
  await setupBackend("wasm");
  console.log = log;
  // Two convs (8x8/4 and 3x3/1, as in the Nature CNN) and a dense layer: forward convs, both conv gradients and
  // the matMul gradients all run through XNNPACK's threadpool.
  const rand = (shape: number[], seed: number) => tf.randomUniform(shape, -1, 1, "float32", seed);
  const [x, f1, f2, w] = [
    rand([16, 36, 36, 4], 1),
    rand([8, 8, 4, 16], 2),
    rand([3, 3, 16, 16], 3),
    rand([6 * 6 * 16, 8], 4),
  ];
  const loss = (a: tf.Tensor, b: tf.Tensor, c: tf.Tensor) => {
    const h1 = tf.relu(tf.conv2d(x as tf.Tensor4D, a as tf.Tensor4D, 4, "valid"));
    const h2 = tf.relu(tf.conv2d(h1, b as tf.Tensor4D, 1, "valid"));
    return tf.sum(tf.square(tf.matMul(tf.reshape(h2, [16, -1]), c)));
  };
  const grads = tf.grads(loss)([f1, f2, w]);
  process.stdout.write(JSON.stringify({ line: line[0], grads: grads.map((g) => Array.from(g.dataSync())) }));
} else {
  function child(threads: number, env: NodeJS.ProcessEnv = {}): { line: string; grads: number[][] } {
    const run = spawnSync(process.execPath, ["--import", TSX, SELF], {
      encoding: "utf8",
      timeout: 120_000,
      env: { ...process.env, WASM_THREADS_TEST_ROLE: "child", PPO_TS_WASM_THREADS: String(threads), ...env },
    });
    assert.equal(
      run.status,
      0,
      `child with ${threads} thread(s) ended with ${run.status ?? run.signal}: ${run.stderr}`,
    );
    return JSON.parse(run.stdout);
  }

  test("wasmThreadCount: one thread per core, divided among torchrun's local ranks, at most 8", () => {
    assert.equal(wasmThreadCount({}, 2), 2);
    assert.equal(wasmThreadCount({}, 1), 1);
    assert.equal(wasmThreadCount({}, 64), 8);
    assert.equal(wasmThreadCount({ LOCAL_WORLD_SIZE: "2" }, 2), 1);
    assert.equal(wasmThreadCount({ LOCAL_WORLD_SIZE: "2" }, 8), 4);
    assert.equal(wasmThreadCount({ LOCAL_WORLD_SIZE: "4" }, 2), 1);
  });

  test("a variant's preferred count (the MLP variants ask for 1) replaces the per-core default, not the env variable", () => {
    assert.equal(wasmThreadCount({}, 2, 1), 1);
    assert.equal(wasmThreadCount({}, 16, 3), 3);
    assert.equal(wasmThreadCount({ PPO_TS_WASM_THREADS: "2" }, 2, 1), 2);
  });

  test("PPO_TS_WASM_THREADS overrides the count; a value outside 1..8 is a usage error", () => {
    assert.equal(wasmThreadCount({ PPO_TS_WASM_THREADS: "1" }, 16), 1);
    assert.equal(wasmThreadCount({ PPO_TS_WASM_THREADS: "3", LOCAL_WORLD_SIZE: "2" }, 2), 3);
    for (const bad of ["0", "9", "1.5", "two"]) {
      assert.throws(() => wasmThreadCount({ PPO_TS_WASM_THREADS: bad }, 2), UsageError, bad);
    }
  });

  test("two WASM threads: the backend line says so, gradients equal one thread's, and the process ends by itself", () => {
    const two = child(2);
    const one = child(1);
    assert.match(two.line, /^backend: wasm \(SIMD, 2 threads\)$/);
    assert.match(one.line, /^backend: wasm \(SIMD, 1 thread\)$/);
    assert.equal(two.grads.length, 3);
    one.grads.forEach((g, i) =>
      assert.ok(
        g.some((v) => v !== 0),
        `gradient ${i} is all zeros`,
      ),
    );
    // Splitting a GEMM over threads may change float summation order, nothing more.
    assertRelClose(two.grads, one.grads, 1e-5);
  });

  test("a threaded module that cannot start falls back to one thread, says why in the backend line, and trains", () => {
    // The pthread worker's source goes to ~/.cache/ppo.ts/tfjs-wasm: a HOME whose .cache is a file makes that fail.
    const home = mkdtempSync(join(tmpdir(), "wasm-threads-home-"));
    writeFileSync(join(home, ".cache"), "not a folder");
    try {
      const fallback = child(2, { HOME: home });
      assert.match(
        fallback.line,
        /^backend: wasm \(SIMD, 1 thread; 2 wanted, but the threaded module failed to start: .+\)$/,
      );
      assert.equal(fallback.grads.length, 3);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
}
