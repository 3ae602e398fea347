import { test } from "node:test";
import assert from "node:assert/strict";

import { Env, type Info, type ResetArgs, type StepResult, Wrapper } from "../envs/gymnasium/core.ts";
import { Discrete, type TypedArray } from "../envs/gymnasium/spaces.ts";
import {
  ClipAction,
  type EpisodeStatistics,
  FlattenObservation,
  NormalizeObservation,
  NormalizeReward,
  OrderEnforcing,
  RecordEpisodeStatistics,
  RunningMeanStd,
  TimeLimit,
  TransformObservation,
  TransformReward,
  loadNormalizerStates,
  normalizerStates,
} from "../envs/gymnasium/wrappers.ts";
import { BoxActionEnv, countingObservations, float32Box } from "./helpers.ts";

/** Plays back scripted rewards and terminates on step `terminateAt` only; the observation is [episode step, 0]. */
class ScriptedEnv extends Env<Float32Array, number> {
  observationSpace = float32Box(-Infinity, Infinity, [2]);
  actionSpace = new Discrete(2);
  t = 0;
  constructor(
    private readonly rewards: number[] = [],
    private readonly terminateAt = Infinity,
  ) {
    super();
  }
  override reset(args: ResetArgs = {}): [Float32Array, Info] {
    super.reset(args);
    this.t = 0;
    return [Float32Array.of(this.t, 0), {}];
  }
  step(_action: number): StepResult<Float32Array> {
    this.t += 1;
    const reward = this.rewards[this.t - 1] ?? 0;
    return [Float32Array.of(this.t, 0), reward, this.t === this.terminateAt, false, {}];
  }
}

/** Observations drawn from N(mean, std^2) per coordinate with the env's own seeded generator. */
class GaussianObsEnv extends Env<Float32Array, number> {
  observationSpace = float32Box(-Infinity, Infinity, [2]);
  actionSpace = new Discrete(2);
  constructor(
    private readonly mean: number[],
    private readonly std: number[],
  ) {
    super();
  }
  private draw(): Float32Array {
    return Float32Array.from(this.mean, (m, i) => m + this.std[i] * this.npRandom.normal());
  }
  override reset(args: ResetArgs = {}): [Float32Array, Info] {
    super.reset(args);
    return [this.draw(), {}];
  }
  step(_action: number): StepResult<Float32Array> {
    return [this.draw(), 0, false, false, {}];
  }
}

/** An env recording the actions it receives, with the asymmetric action space Box([-1, 0], [1, 2]). */
function boxActionEnv(): BoxActionEnv {
  return new BoxActionEnv(float32Box([-1, 0], [1, 2], [2]));
}

test("TimeLimit truncates exactly at maxEpisodeSteps, not before", () => {
  const env = new TimeLimit(new ScriptedEnv(), 3);
  env.reset();
  const truncations = [1, 2, 3].map(() => env.step(0)[3]);
  assert.deepEqual(truncations, [false, false, true]);
});

test("TimeLimit restarts its step count on reset", () => {
  const env = new TimeLimit(new ScriptedEnv(), 2);
  env.reset();
  env.step(0);
  env.reset();
  assert.equal(env.step(0)[3], false);
  assert.equal(env.step(0)[3], true);
});

test("OrderEnforcing throws when step is called before reset", () => {
  const env = new OrderEnforcing(new ScriptedEnv());
  assert.throws(() => env.step(0), /before calling env\.reset\(\)/);
  env.reset();
  assert.doesNotThrow(() => env.step(0));
});

test("RecordEpisodeStatistics reports return and length at episode end and not before", () => {
  const env = new RecordEpisodeStatistics(new ScriptedEnv([1, 2, 3.5], 3));
  env.reset();
  assert.equal("episode" in env.step(0)[4], false);
  assert.equal("episode" in env.step(0)[4], false);
  const [, , terminated, , info] = env.step(0);
  assert.equal(terminated, true);
  const episode = info.episode as EpisodeStatistics;
  assert.equal(episode.r, 6.5);
  assert.equal(episode.l, 3);
  assert.ok(episode.t >= 0 && episode.t < 5, `t = ${episode.t}`);
  assert.equal(episode.t, Math.round(episode.t * 1e6) / 1e6, "t is rounded to 6 decimals");
  assert.deepEqual(env.returnQueue, [6.5]);
  assert.deepEqual(env.lengthQueue, [3]);
  assert.equal(env.episodeCount, 1);
});

test("RecordEpisodeStatistics starts counting afresh for the next episode", () => {
  const env = new RecordEpisodeStatistics(new ScriptedEnv([1, 1], 2));
  for (let episode = 0; episode < 2; episode++) {
    env.reset();
    env.step(0);
    const stats = env.step(0)[4].episode as EpisodeStatistics;
    assert.deepEqual([stats.r, stats.l], [2, 2]);
  }
  assert.deepEqual(env.returnQueue, [2, 2]);
});

test("RecordEpisodeStatistics also ends episodes on truncation", () => {
  const env = new RecordEpisodeStatistics(new TimeLimit(new ScriptedEnv([0.5, 0.5, 0.5]), 2));
  env.reset();
  env.step(0);
  const [, , terminated, truncated, info] = env.step(0);
  assert.deepEqual([terminated, truncated], [false, true]);
  assert.deepEqual(
    { r: (info.episode as EpisodeStatistics).r, l: (info.episode as EpisodeStatistics).l },
    { r: 1, l: 2 },
  );
});

test("RecordEpisodeStatistics accumulates the return in float32, as Gymnasium 0.29 does", () => {
  const env = new RecordEpisodeStatistics(new ScriptedEnv([0.1, 0.2], 2));
  env.reset();
  env.step(0);
  const stats = env.step(0)[4].episode as EpisodeStatistics;
  assert.equal(stats.r, Math.fround(Math.fround(0.1) + 0.2));
});

test("RecordEpisodeStatistics keeps only the last bufferLength episodes", () => {
  const env = new RecordEpisodeStatistics(new ScriptedEnv([1], 1), 2);
  for (let i = 0; i < 3; i++) {
    env.reset();
    env.step(0);
  }
  assert.equal(env.returnQueue.length, 2);
  assert.equal(env.lengthQueue.length, 2);
  assert.equal(env.episodeCount, 3);
});

test("RecordEpisodeStatistics refuses to overwrite an existing episode entry", () => {
  class ReportsEpisode extends ScriptedEnv {
    override step(action: number): StepResult<Float32Array> {
      const result = super.step(action);
      result[2] = true;
      result[4] = { episode: "already there" };
      return result;
    }
  }
  const env = new RecordEpisodeStatistics(new ReportsEpisode());
  env.reset();
  assert.throws(() => env.step(0), /already exist/);
});

test("ClipAction clips each action dimension to the Box bounds", () => {
  const inner = boxActionEnv();
  const env = new ClipAction(inner);
  env.reset();
  env.step(Float32Array.of(5, -3));
  env.step(Float32Array.of(-0.5, 1.5));
  assert.deepEqual(Array.from(inner.received[0]), [1, 0]);
  assert.deepEqual(Array.from(inner.received[1]), [-0.5, 1.5]);
  assert.ok(inner.received[0] instanceof Float32Array);
});

test("ClipAction keeps the inner action space, as in Gymnasium 0.29", () => {
  const inner = boxActionEnv();
  assert.equal(new ClipAction(inner).actionSpace, inner.actionSpace);
});

test("ClipAction rejects a non-Box action space", () => {
  assert.throws(() => new ClipAction(new ScriptedEnv() as unknown as Env<Float32Array, TypedArray>), /must be a Box/);
});

test("NormalizeObservation converges to zero mean and unit variance", () => {
  const env = new NormalizeObservation(new GaussianObsEnv([5, -3], [2, 0.5]));
  env.reset({ seed: 0 });
  for (let i = 0; i < 3000; i++) env.step(0);
  const n = 3000;
  const sum = [0, 0];
  const sumSq = [0, 0];
  for (let i = 0; i < n; i++) {
    const obs = env.step(0)[0];
    for (let j = 0; j < 2; j++) {
      sum[j] += obs[j];
      sumSq[j] += obs[j] * obs[j];
    }
  }
  for (let j = 0; j < 2; j++) {
    const mean = sum[j] / n;
    const std = Math.sqrt(sumSq[j] / n - mean * mean);
    assert.ok(Math.abs(mean) < 0.1, `coordinate ${j}: mean ${mean}`);
    assert.ok(Math.abs(std - 1) < 0.1, `coordinate ${j}: std ${std}`);
  }
  assert.ok(Math.abs(env.obsRms.mean[0] - 5) < 0.1 && Math.abs(env.obsRms.mean[1] + 3) < 0.05);
});

test("NormalizeObservation normalizes the reset observation with Gymnasium's initial statistics", () => {
  class FixedObs extends ScriptedEnv {
    override reset(args: ResetArgs = {}): [Float32Array, Info] {
      super.reset(args);
      return [Float32Array.of(2, -4), {}];
    }
  }
  const fixed = new NormalizeObservation(new FixedObs());
  const [obs] = fixed.reset();
  // One update from mean 0, var 1, count 1e-4 with sample x: mean = x / 1.0001,
  // var = (1e-4 + x^2 * 1e-4 / 1.0001) / 1.0001.
  const expected = [2, -4].map((x) => {
    const mean = x / 1.0001;
    const variance = (1e-4 + (x * x * 1e-4) / 1.0001) / 1.0001;
    return Math.fround((x - mean) / Math.sqrt(variance + 1e-8));
  });
  assert.ok(obs instanceof Float32Array);
  assert.deepEqual(Array.from(obs), expected);
  assert.equal(fixed.obsRms.count, 1.0001);
});

test("NormalizeObservation with updateRunningMean = false uses frozen, loaded statistics", () => {
  const env = new NormalizeObservation(new ScriptedEnv());
  env.obsRms.loadState({ mean: [1, 0], var: [4, 1], count: 10 });
  env.updateRunningMean = false;
  env.reset();
  const [obs] = env.step(0); // raw observation [1, 0]
  assert.deepEqual(Array.from(obs), [0, 0]);
  const [obs2] = env.step(0); // raw [2, 0] -> (2 - 1) / sqrt(4 + 1e-8)
  assert.ok(Math.abs(obs2[0] - 0.5) < 1e-6);
  assert.deepEqual(env.obsRms.state(), { mean: [1, 0], var: [4, 1], count: 10 });
});

test("normalizerStates and loadNormalizerStates carry each env's statistics over to another stack, frozen if asked", () => {
  const stack = () => new NormalizeReward(new NormalizeObservation(new ScriptedEnv([1, 2, 3])), 0.99);
  const trained = [stack(), stack()];
  trained[0].reset();
  trained[0].step(0);
  trained[1].reset();
  const saved = normalizerStates(trained);
  // Gymnasium's pseudo-count 1e-4, then one per observation (reset, step) and one per reward (step).
  assert.deepEqual(
    saved.obsRms.map((s) => s.count),
    [1e-4 + 1 + 1, 1e-4 + 1],
  );
  assert.deepEqual(
    saved.returnRms.map((s) => s.count),
    [1e-4 + 1, 1e-4],
  );
  const restored = [stack(), stack()];
  loadNormalizerStates(restored, saved);
  assert.deepEqual(normalizerStates(restored), saved);
  const frozen = stack();
  loadNormalizerStates([frozen], saved, true);
  frozen.reset();
  frozen.step(0);
  assert.deepEqual(normalizerStates([frozen]), { obsRms: [saved.obsRms[0]], returnRms: [saved.returnRms[0]] });
});

test("NormalizeReward matches a hand-computed 3-step example with a termination (Gymnasium 0.29 order)", () => {
  const env = new NormalizeReward(new ScriptedEnv([1, 2, 3], 2), 0.99, 1e-8);
  env.reset();
  // Step 1: G = 0 * 0.99 + 1 = 1. From mean 0, var 1, count 1e-4:
  //   mean = 1 / 1.0001, var = (1e-4 + 1e-4 / 1.0001) / 1.0001 = 1.99970004e-4; reward 1 / sqrt(var + 1e-8).
  let [, reward, terminated] = env.step(0);
  assert.equal(env.discountedReturn, 1);
  assert.ok(Math.abs(reward - 70.71421321062337) < 1e-9, `step 1: ${reward}`);
  // Step 2 terminates: 0.29 zeroes the accumulator before adding this reward, G = 1 * 0.99 * 0 + 2 = 2.
  //   count 2.0001, mean 1.49992500375, var 0.25014998688; reward 2 / sqrt(var + 1e-8).
  [, reward, terminated] = env.step(0);
  assert.equal(terminated, true);
  assert.equal(env.discountedReturn, 2);
  assert.ok(Math.abs(reward - 3.9988005647001654) < 1e-9, `step 2: ${reward}`);
  // Step 3 (the inner env keeps counting, no termination): G = 2 * 0.99 + 3 = 4.98, which still carries the
  // terminal reward: 0.29 does not zero the accumulator after a termination.
  //   count 3.0001, mean 2.65991133629, var 2.85804057745; reward 3 / sqrt(var + 1e-8).
  [, reward] = env.step(0);
  assert.ok(Math.abs(env.discountedReturn - 4.98) < 1e-12);
  assert.ok(Math.abs(reward - 1.7745451708029658) < 1e-9, `step 3: ${reward}`);
});

test("NormalizeReward does not reset its accumulator on truncation", () => {
  const env = new NormalizeReward(new TimeLimit(new ScriptedEnv([1, 1, 1]), 1), 0.5);
  env.reset();
  env.step(0); // truncated
  env.reset();
  env.step(0);
  assert.equal(env.discountedReturn, 1 * 0.5 + 1);
});

test("TransformObservation applies f to the reset and step observations", () => {
  const env = new TransformObservation(new ScriptedEnv(), (obs: Float32Array) => obs.map((v) => Math.min(v, 1.5)));
  assert.deepEqual(Array.from(env.reset()[0]), [0, 0]);
  env.step(0);
  assert.deepEqual(Array.from(env.step(0)[0]), [1.5, 0]);
});

test("TransformReward applies f to every reward", () => {
  const env = new TransformReward(new ScriptedEnv([20, -0.5, -30]), (r) => Math.min(Math.max(r, -10), 10));
  env.reset();
  assert.deepEqual([env.step(0)[1], env.step(0)[1], env.step(0)[1]], [10, -0.5, -10]);
});

test("FlattenObservation reshapes a Box observation space to one dimension", () => {
  class ImageEnv extends ScriptedEnv {
    override observationSpace = float32Box(0, 1, [2, 3]);
  }
  const env = new FlattenObservation(new ImageEnv());
  assert.deepEqual(env.observationSpace.shape, [6]);
  assert.equal(env.observationSpace.dtype, "float32");
});

test("RunningMeanStd merges a batch exactly like the same samples one at a time", () => {
  const samples = [1.5, -2, 0.25, 4, 3, -1];
  const batched = new RunningMeanStd([2]);
  batched.update(samples, 3);
  const sequential = new RunningMeanStd([2]);
  for (let b = 0; b < 3; b++) sequential.update(samples.slice(2 * b, 2 * b + 2), 1);
  for (let i = 0; i < 2; i++) {
    assert.ok(Math.abs(batched.mean[i] - sequential.mean[i]) < 1e-12);
    assert.ok(Math.abs(batched.var[i] - sequential.var[i]) < 1e-12);
  }
  assert.ok(Math.abs(batched.count - 3.0001) < 1e-12);
});

/** ScriptedEnv that counts the observations it builds, with a `stepInto` that builds none without a buffer. */
const ObservationCountingEnv = countingObservations(ScriptedEnv);

test("stepWithoutObservation passes through forwarding and bookkeeping wrappers, with their bookkeeping", () => {
  const inner = new ObservationCountingEnv([1, 2, 3], 3);
  const env = new Wrapper(new RecordEpisodeStatistics(new TimeLimit(new OrderEnforcing(inner), 10)));
  assert.throws(() => env.stepWithoutObservation(0), /before calling env\.reset\(\)/);
  env.reset();
  assert.deepEqual(env.stepWithoutObservation(0).slice(0, 3), [1, false, false]);
  env.step(0);
  const [reward, terminated, truncated, info] = env.stepWithoutObservation(0);
  assert.deepEqual([reward, terminated, truncated], [3, true, false]);
  assert.deepEqual(
    { r: (info.episode as EpisodeStatistics).r, l: (info.episode as EpisodeStatistics).l },
    { r: 6, l: 3 },
  );
  assert.equal(inner.observations, 1, "only the plain step built an observation");
  const out = new Float32Array(2);
  env.reset();
  assert.deepEqual(env.stepInto(0, out).slice(0, 3), [1, false, false]);
  assert.deepEqual([...out], [1, 0], "stepInto writes the observation into the buffer");
  assert.equal(inner.observations, 2);
  const limited = new TimeLimit(new ObservationCountingEnv(), 2);
  limited.reset();
  assert.deepEqual([limited.stepWithoutObservation(0)[2], limited.stepWithoutObservation(0)[2]], [false, true]);
});

test("stepWithoutObservation goes through a wrapper's own step when it has one", () => {
  // An observation wrapper (or any wrapper with its own step) may keep per-step state: it must not be skipped.
  class Counting extends Wrapper<Float32Array, number> {
    steps = 0;
    override step(action: number): StepResult<Float32Array> {
      this.steps++;
      return this.env.step(action);
    }
  }
  const inner = new ObservationCountingEnv([5]);
  const env = new Counting(inner);
  env.reset();
  assert.deepEqual(env.stepWithoutObservation(0).slice(0, 3), [5, false, false]);
  assert.equal(env.steps, 1);
  assert.equal(inner.observations, 1);
});
