// torch.distributions' Categorical and Normal: what sample() computes in JS for the rollout equals the tensor path.
import * as tf from "@tensorflow/tfjs";
import assert from "node:assert/strict";
import { before, test } from "node:test";

import { setupBackend } from "../envs/torch/backend.ts";
import { Categorical, Normal } from "../envs/torch/distributions.ts";
import { manualSeed } from "../envs/torch/rng.ts";

before(async () => {
  await setupBackend("cpu", { quiet: true });
});

const close = (a: ArrayLike<number>, b: ArrayLike<number>) =>
  Array.from(a).forEach((v, i) => assert.ok(Math.abs(v - b[i]) <= 1e-5, `${v} != ${b[i]} at ${i}`));

test("a sampled Categorical's log-probabilities and entropies equal the differentiable ones", () => {
  manualSeed(1);
  const logits = tf.tensor2d([0.3, -1.2, 2.0, 0.1, 5.0, -3.0, 0.0, 0.0, 0.0], [3, 3]);
  const sampled = new Categorical(logits);
  const action = sampled.sample();
  const fresh = new Categorical(logits);
  close(sampled.logProb(action).dataSync(), fresh.logProb(action).dataSync());
  close(sampled.entropy().dataSync(), fresh.entropy().dataSync());
});

test("a sampled Normal's log-probabilities and entropies equal the differentiable ones", () => {
  manualSeed(2);
  const mean = tf.tensor2d([0.5, -1, 2, 0], [2, 2]);
  const logStd = tf.tensor2d([0, -0.5, 0.3, 0], [2, 2]);
  const sampled = new Normal(mean, logStd);
  const action = sampled.sample();
  const fresh = new Normal(mean, logStd);
  close(sampled.logProb(action).dataSync(), fresh.logProb(action).dataSync());
  close(sampled.entropy().dataSync(), fresh.entropy().dataSync());
});

test("a Normal's samples are mean + std · N(0, 1): standardized, their first, second and fourth moments are 0, 1, 3", () => {
  manualSeed(3);
  const [n, d] = [20_000, 3];
  const [mu, logSigma] = [0.3, -0.7];
  const action = new Normal(tf.fill([n, d], mu) as tf.Tensor2D, tf.fill([n, d], logSigma) as tf.Tensor2D).sample();
  const z = Array.from(action.dataSync(), (a) => (a - mu) / Math.exp(logSigma));
  const moment = (k: number) => z.reduce((s, v) => s + v ** k, 0) / z.length;
  // Four standard errors of each sample moment of N(0, 1): sqrt(1/N), sqrt(2/N) for z², sqrt(96/N) for z⁴.
  const se = (variance: number) => 4 * Math.sqrt(variance / z.length);
  assert.ok(Math.abs(moment(1)) < se(1), `mean ${moment(1)}`);
  assert.ok(Math.abs(moment(2) - 1) < se(2), `variance ${moment(2)}`);
  assert.ok(Math.abs(moment(4) - 3) < se(96), `fourth moment ${moment(4)}`);
});
