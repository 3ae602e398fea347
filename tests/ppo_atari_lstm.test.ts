// ppo_atari_lstm.ts and its nn.LSTM: the cell's gradients, episode resets inside a sequence, and the rollout/replay
// agreement that recurrent PPO depends on. No ROMs needed: inputs are synthetic frames.
import * as tf from "@tensorflow/tfjs";
import assert from "node:assert/strict";
import { before, test } from "node:test";

import { setupBackend } from "../envs/torch/backend.ts";
import * as nn from "../envs/torch/nn.ts";
import { RandomGenerator, manualSeed } from "../envs/torch/rng.ts";
import { Agent } from "../ppo_atari_lstm.ts";

// One agent for every test: each checks a different fact of the same network, and building it (the orthogonal
// init of its 3136x512 layer) is most of this file's time. No test changes its weights.
let agent: Agent;
before(async () => {
  // The single-thread WASM module: these checks are about the network's math, not threading, and the threaded
  // module's start-up (8 pthread workers) costs more than the few small passes here.
  await setupBackend("wasm", { quiet: true, wasmThreads: 1 });
  manualSeed(1);
  agent = new Agent(4);
});

const FRAME = 84 * 84;

function randomFrames(n: number, seed: number): Uint8Array {
  const rng = new RandomGenerator(seed);
  return Uint8Array.from({ length: n * FRAME }, () => rng.integers(0, 256));
}

const input = (frames: Uint8Array) => nn.framesToInput(frames, [1, 84, 84], "chw");
const zeroState = (n: number): nn.LstmState => [tf.zeros([n, 128]), tf.zeros([n, 128])];

test("the LSTM cell's gradients match central finite differences", () => {
  const rng = new RandomGenerator(0);
  const values = (n: number) => Array.from({ length: n }, () => rng.normal());
  const lstm = new nn.LSTM(3, 2);
  lstm.weightHh.assign(tf.tensor2d(values(16), [2, 8]));
  // The cell's inputs as variables too, so that one variableGrads gives every gradient.
  const gates = tf.variable(tf.tensor2d(values(8), [1, 8]));
  const h = tf.variable(tf.tensor2d(values(2), [1, 2]));
  const c = tf.variable(tf.tensor2d(values(2), [1, 2]));
  const [wH, wC] = [tf.tensor2d(values(2), [1, 2]), tf.tensor2d(values(2), [1, 2])];
  const loss = () => {
    const [h1, c1] = lstm.cell(gates, [h, c]);
    return tf.add(tf.sum(tf.mul(h1, wH)), tf.sum(tf.mul(c1, wC))) as tf.Scalar;
  };
  const inputs = [gates, h, c, lstm.weightHh];
  const { grads } = tf.variableGrads(loss, inputs);
  const eps = 1e-2;
  for (const variable of inputs) {
    const analytic = grads[variable.name].dataSync();
    const base = Float32Array.from(variable.dataSync());
    for (let i = 0; i < base.length; i++) {
      const shifted = (delta: number) => {
        const data = Float32Array.from(base);
        data[i] += delta;
        variable.assign(tf.tensor(data, variable.shape));
        return tf.tidy(() => loss().dataSync()[0]);
      };
      const numeric = (shifted(eps) - shifted(-eps)) / (2 * eps);
      variable.assign(tf.tensor(base, variable.shape));
      assert.ok(
        Math.abs(numeric - analytic[i]) < 2e-3,
        `${variable.name}[${i}]: finite difference ${numeric} vs gradient ${analytic[i]}`,
      );
    }
  }
});

test("gradients flow through the unrolled sequence back to the first step's input", () => {
  const steps = 6;
  const frames = randomFrames(steps, 2);
  const last = (f: Uint8Array) =>
    tf.slice(agent.getStates(input(f), zeroState(1), tf.zeros([steps]))[0], [steps - 1, 0], [1, -1]);
  // d(last output)/d(W_hh) is non-zero only if gradients cross the recurrent connection.
  const { grads } = tf.variableGrads(() => tf.sum(last(frames)), [agent.lstm.weightHh]);
  const grad = grads[agent.lstm.weightHh.name];
  assert.ok(tf.tidy(() => tf.max(tf.abs(grad)).dataSync()[0]) > 1e-6, "no gradient reached the recurrent weights");
  // And the first frame influences the last output: perturbing it changes the result.
  const changed = frames.slice();
  for (let i = 0; i < FRAME; i++) changed[i] = 255 - changed[i];
  const a = tf.tidy(() => last(frames).dataSync());
  const b = tf.tidy(() => last(changed).dataSync());
  assert.ok(
    a.some((v, i) => Math.abs(v - b[i]) > 1e-6),
    "the last output ignores the first frame",
  );
});

test("a done in the middle of a sequence resets the state exactly there", () => {
  const steps = 6;
  const resetAt = 3;
  const frames = randomFrames(steps, 4);
  const state: nn.LstmState = [tf.randomNormal([1, 128]), tf.randomNormal([1, 128])];
  const done = tf.tensor1d([0, 0, 0, 1, 0, 0]);
  const outputs = (f: Uint8Array, s: nn.LstmState, d: tf.Tensor1D) =>
    tf.tidy(() => agent.getStates(input(f), s, d)[0].arraySync() as number[][]);
  const full = outputs(frames, state, done);
  const tail = outputs(frames.subarray(resetAt * FRAME), zeroState(1), tf.zeros([steps - resetAt]));
  for (let t = resetAt; t < steps; t++)
    tail[t - resetAt].forEach((v, i) => assert.ok(Math.abs(v - full[t][i]) < 1e-5, `step ${t}`));
  // Before the reset the initial state matters: the same frames from a zero state give other outputs.
  const fromZero = outputs(frames, zeroState(1), done);
  assert.ok(fromZero[0].some((v, i) => Math.abs(v - full[0][i]) > 1e-4));
});

test("replaying a rollout from its initial state reproduces the log-probabilities and values it acted with", () => {
  const [numEnvs, steps] = [2, 5];
  const rng = new RandomGenerator(6);
  manualSeed(6);
  const frames = randomFrames(steps * numEnvs, 7);
  const dones = Float32Array.of(0, 0, 0, 0, 0, 1, 0, 0, 1, 0); // env 1 restarts at t=2, env 0 at t=4
  const initial = Array.from({ length: 2 }, () =>
    tf.tensor2d(
      Float32Array.from({ length: numEnvs * 128 }, () => rng.normal() * 0.1),
      [numEnvs, 128],
    ),
  ) as nn.LstmState;
  const actions = new Int32Array(steps * numEnvs);
  const logprobs = new Float32Array(steps * numEnvs);
  const values = new Float32Array(steps * numEnvs);
  let state = initial;
  for (let t = 0; t < steps; t++) {
    const rows = [t * numEnvs, (t + 1) * numEnvs];
    const [action, logprob, , value, next] = tf.tidy(() =>
      agent.getActionAndValue(
        input(frames.subarray(rows[0] * FRAME, rows[1] * FRAME)),
        state,
        tf.tensor1d(dones.subarray(rows[0], rows[1])),
      ),
    );
    actions.set(action.dataSync(), rows[0]);
    logprobs.set(logprob.dataSync(), rows[0]);
    values.set(value.dataSync(), rows[0]);
    state = next;
  }
  const [, replayLogprob, , replayValue] = agent.getActionAndValue(
    input(frames),
    initial,
    tf.tensor1d(dones),
    tf.tensor1d(actions, "int32"),
  );
  const [l, v] = [replayLogprob.dataSync(), replayValue.dataSync()];
  logprobs.forEach((x, i) => assert.ok(Math.abs(x - l[i]) < 1e-4, `logprob ${i}: ${x} vs ${l[i]}`));
  values.forEach((x, i) => assert.ok(Math.abs(x - v[i]) < 1e-4, `value ${i}: ${x} vs ${v[i]}`));
});

test("the parameters carry the names and order of CleanRL's state_dict, lstm's included", () => {
  const names = agent.namedParameters().map((p) => p.name);
  const layer = (prefix: string) => [`${prefix}.weight`, `${prefix}.bias`];
  assert.deepEqual(names, [
    ...["network.0", "network.2", "network.4", "network.7"].flatMap(layer),
    "lstm.weight_ih_l0",
    "lstm.weight_hh_l0",
    "lstm.bias_ih_l0",
    "lstm.bias_hh_l0",
    ...layer("actor"),
    ...layer("critic"),
  ]);
  // Ours stored [in, out] where torch stores [out, in]: W_ih is [512, 4 * 128], W_hh [128, 4 * 128].
  assert.deepEqual(
    agent
      .parameters()
      .slice(8, 12)
      .map((p) => p.shape),
    [[512, 512], [128, 512], [512], [512]],
  );
});

test("LSTM weights start orthogonal with gain 1, biases at zero", () => {
  assert.ok(agent.lstm.biasIh.dataSync().every((v) => v === 0));
  assert.ok(agent.lstm.biasHh.dataSync().every((v) => v === 0));
  // W_hh is [128, 512]: torch's [512, 128] view has orthonormal columns, i.e. our 128 rows are orthonormal.
  const w = agent.lstm.weightHh.arraySync() as number[][];
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
