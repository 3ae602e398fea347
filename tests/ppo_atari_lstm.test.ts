// ppo_atari_lstm.ts: the LSTM cell's gradients, episode resets inside a sequence, and the rollout/replay agreement
// that recurrent PPO depends on. No ROMs needed: inputs are synthetic frames.
import * as tf from "@tensorflow/tfjs";
import assert from "node:assert/strict";
import { before, test } from "node:test";

import { setupBackend } from "../envs/torch/backend.ts";
import { RandomGenerator } from "../envs/torch/rng.ts";
import { Agent, lstmCell } from "../ppo_atari_lstm.ts";

// One agent for every test: each checks a different fact of the same network, and building it (the orthogonal
// init of its 3136x512 layer) is most of this file's time. No test changes its weights.
let agent: Agent;
before(async () => {
  // The single-thread WASM module: these checks are about the network's math, not threading, and the threaded
  // module's start-up (8 pthread workers) costs more than the few small passes here.
  await setupBackend("wasm", { quiet: true, wasmThreads: 1 });
  agent = new Agent(4, new RandomGenerator(1));
});

const FRAME = 84 * 84;

function randomFrames(n: number, seed: number): Uint8Array {
  const rng = new RandomGenerator(seed);
  return Uint8Array.from({ length: n * FRAME }, () => rng.integers(0, 256));
}

test("the LSTM cell's gradients match central finite differences", () => {
  const rng = new RandomGenerator(0);
  const values = (n: number) => Array.from({ length: n }, () => rng.normal());
  const xProj = tf.tensor2d(values(8), [1, 8]);
  const h = tf.tensor2d(values(2), [1, 2]);
  const c = tf.tensor2d(values(2), [1, 2]);
  const weightHh = tf.tensor2d(values(16), [2, 8]);
  const [wH, wC] = [tf.tensor2d(values(2), [1, 2]), tf.tensor2d(values(2), [1, 2])];
  const loss = (xp: tf.Tensor2D, h0: tf.Tensor2D, c0: tf.Tensor2D, w: tf.Tensor2D) => {
    const [h1, c1] = lstmCell(xp, h0, c0, w);
    return tf.add(tf.sum(tf.mul(h1, wH)), tf.sum(tf.mul(c1, wC))) as tf.Scalar;
  };
  const grads = tf.grads((xp, h0, c0, w) =>
    loss(xp as tf.Tensor2D, h0 as tf.Tensor2D, c0 as tf.Tensor2D, w as tf.Tensor2D),
  )([xProj, h, c, weightHh]);
  const inputs = [xProj, h, c, weightHh];
  const eps = 1e-2;
  inputs.forEach((input, k) => {
    const analytic = grads[k].dataSync();
    const base = input.dataSync();
    for (let i = 0; i < base.length; i++) {
      const shifted = (delta: number) => {
        const data = Float32Array.from(base);
        data[i] += delta;
        const args = inputs.map((t, m) => (m === k ? tf.tensor2d(data, t.shape as [number, number]) : t)) as [
          tf.Tensor2D,
          tf.Tensor2D,
          tf.Tensor2D,
          tf.Tensor2D,
        ];
        return tf.tidy(() => loss(...args).dataSync()[0]);
      };
      const numeric = (shifted(eps) - shifted(-eps)) / (2 * eps);
      assert.ok(
        Math.abs(numeric - analytic[i]) < 2e-3,
        `input ${k}[${i}]: finite difference ${numeric} vs gradient ${analytic[i]}`,
      );
    }
  });
});

test("gradients flow through the unrolled sequence back to the first step's input", () => {
  const steps = 6;
  const frames = tf.tensor4d(randomFrames(steps, 2), [steps, 1, 84, 84], "int32");
  const zero = { h: tf.zeros([1, 128]) as tf.Tensor2D, c: tf.zeros([1, 128]) as tf.Tensor2D };
  // d(last output)/d(W_hh) is non-zero only if gradients cross the recurrent connection.
  const grad = tf.grad((w) => {
    const original = agent.lstm.weightHh;
    (agent.lstm as { weightHh: tf.Tensor2D }).weightHh = w as tf.Tensor2D;
    try {
      const { hidden } = agent.getStates(frames, zero, tf.zeros([steps]));
      return tf.sum(tf.slice(hidden, [steps - 1, 0], [1, -1]));
    } finally {
      (agent.lstm as { weightHh: tf.Tensor2D }).weightHh = original;
    }
  })(agent.lstm.weightHh);
  assert.ok(tf.tidy(() => tf.max(tf.abs(grad)).dataSync()[0]) > 1e-6, "no gradient reached the recurrent weights");
  // And the first frame influences the last output: perturbing it changes the result.
  const last = (f: tf.Tensor4D) =>
    tf.tidy(() => tf.slice(agent.getStates(f, zero, tf.zeros([steps])).hidden, [steps - 1, 0], [1, -1]).dataSync());
  const changed = randomFrames(steps, 2);
  for (let i = 0; i < FRAME; i++) changed[i] = 255 - changed[i];
  const a = last(frames);
  const b = last(tf.tensor4d(changed, [steps, 1, 84, 84], "int32"));
  assert.ok(
    a.some((v, i) => Math.abs(v - b[i]) > 1e-6),
    "the last output ignores the first frame",
  );
});

test("a done in the middle of a sequence resets the state exactly there", () => {
  const steps = 6;
  const resetAt = 3;
  const frames = randomFrames(steps, 4);
  const state = { h: tf.randomNormal([1, 128]) as tf.Tensor2D, c: tf.randomNormal([1, 128]) as tf.Tensor2D };
  const done = tf.tensor1d([0, 0, 0, 1, 0, 0]);
  const full = tf.tidy(() =>
    agent.getStates(tf.tensor4d(frames, [steps, 1, 84, 84], "int32"), state, done).hidden.arraySync(),
  );
  const zero = { h: tf.zeros([1, 128]) as tf.Tensor2D, c: tf.zeros([1, 128]) as tf.Tensor2D };
  const tail = tf.tidy(() =>
    agent
      .getStates(
        tf.tensor4d(frames.subarray(resetAt * FRAME), [steps - resetAt, 1, 84, 84], "int32"),
        zero,
        tf.zeros([steps - resetAt]),
      )
      .hidden.arraySync(),
  );
  for (let t = resetAt; t < steps; t++)
    tail[t - resetAt].forEach((v, i) => assert.ok(Math.abs(v - full[t][i]) < 1e-5, `step ${t}`));
  // Before the reset the initial state matters: the same frames from a zero state give other outputs.
  const fromZero = tf.tidy(() =>
    agent.getStates(tf.tensor4d(frames, [steps, 1, 84, 84], "int32"), zero, done).hidden.arraySync(),
  );
  assert.ok(fromZero[0].some((v, i) => Math.abs(v - full[0][i]) > 1e-4));
});

test("replaying a rollout from its initial state reproduces the log-probabilities and values it acted with", () => {
  const [numEnvs, steps] = [2, 5];
  const rng = new RandomGenerator(6);
  const frames = randomFrames(steps * numEnvs, 7);
  const dones = Float32Array.of(0, 0, 0, 0, 0, 1, 0, 0, 1, 0); // env 1 restarts at t=2, env 0 at t=4
  let state: { h: Float32Array; c: Float32Array } = {
    h: Float32Array.from({ length: numEnvs * 128 }, () => rng.normal() * 0.1),
    c: Float32Array.from({ length: numEnvs * 128 }, () => rng.normal() * 0.1),
  };
  const initial = { h: state.h.slice(), c: state.c.slice() };
  const actions = new Int32Array(steps * numEnvs);
  const logprobs = new Float32Array(steps * numEnvs);
  const values = new Float32Array(steps * numEnvs);
  for (let t = 0; t < steps; t++) {
    const out = agent.sampleActionAndValue(
      frames.subarray(t * numEnvs * FRAME, (t + 1) * numEnvs * FRAME),
      state,
      dones.subarray(t * numEnvs, (t + 1) * numEnvs),
      rng,
    );
    actions.set(out.action, t * numEnvs);
    logprobs.set(out.logprob, t * numEnvs);
    values.set(out.value, t * numEnvs);
    state = out.state;
  }
  const replay = tf.tidy(() => {
    const lstmState = { h: tf.tensor2d(initial.h, [numEnvs, 128]), c: tf.tensor2d(initial.c, [numEnvs, 128]) };
    const out = agent.getActionAndValue(
      tf.tensor4d(frames, [steps * numEnvs, 1, 84, 84], "int32"),
      lstmState,
      tf.tensor1d(dones),
      tf.tensor1d(actions, "int32"),
    );
    return { logprob: out.logprob.dataSync(), value: out.value.dataSync() };
  });
  logprobs.forEach((l, i) =>
    assert.ok(Math.abs(l - replay.logprob[i]) < 1e-4, `logprob ${i}: ${l} vs ${replay.logprob[i]}`),
  );
  values.forEach((v, i) => assert.ok(Math.abs(v - replay.value[i]) < 1e-4, `value ${i}: ${v} vs ${replay.value[i]}`));
});

test("LSTM weights start orthogonal with biases at zero", () => {
  assert.ok(agent.lstm.biasIh.dataSync().every((v) => v === 0));
  assert.ok(agent.lstm.biasHh.dataSync().every((v) => v === 0));
  // CleanRL's 16 tensors: network 8, lstm 4 (weight_ih, weight_hh, bias_ih, bias_hh), actor 2, critic 2.
  assert.deepEqual(
    agent.parameters().map((p) => p.shape),
    [
      [8, 8, 1, 32],
      [32],
      [4, 4, 32, 64],
      [64],
      [3, 3, 64, 64],
      [64],
      [3136, 512],
      [512],
      [512, 512],
      [128, 512],
      [512],
      [512],
      [128, 4],
      [4],
      [128, 1],
      [1],
    ],
  );
  // W_hh is [128, 512]: torch's [512, 128] view has orthonormal columns, i.e. our 128 rows are orthonormal.
  const w = agent.lstm.weightHh.arraySync();
  for (const [i, j] of [
    [0, 0],
    [0, 1],
    [5, 77],
    [127, 127],
  ]) {
    const dot = w[i].reduce((s, v, k) => s + v * w[j][k], 0);
    assert.ok(Math.abs(dot - (i === j ? 1 : 0)) < 1e-4, `rows ${i}·${j} = ${dot}`);
  }
});
