import { test } from "node:test";
import assert from "node:assert/strict";

import { Box, Discrete, MultiDiscrete } from "../envs/gymnasium/spaces.ts";
import { SyncVectorEnv } from "../envs/gymnasium/vector.ts";
import { RecordEpisodeStatistics } from "../envs/gymnasium/wrappers.ts";
import { BoxActionEnv, CounterEnv, float32Box } from "./helpers.ts";

function counterEnvs(lengths: number[], truncate = false): SyncVectorEnv {
  return new SyncVectorEnv(lengths.map((length, id) => () => new CounterEnv(id, length, truncate)));
}

test("reset with an integer seed gives env i the seed seed + i", () => {
  const [obs] = counterEnvs([5, 5, 5]).reset({ seed: 42 });
  assert.deepEqual([obs[3], obs[7], obs[11]], [42, 43, 44]);
});

test("reset with a seed array gives each env its own seed, null leaving it unseeded", () => {
  const [obs] = counterEnvs([5, 5, 5]).reset({ seed: [7, null, 9] });
  assert.deepEqual([obs[3], obs[7], obs[11]], [7, -1, 9]);
});

test("reset without a seed leaves every env unseeded", () => {
  const [obs] = counterEnvs([5, 5]).reset();
  assert.deepEqual([obs[3], obs[7]], [-1, -1]);
});

test("reset rejects a seed array of the wrong length", () => {
  assert.throws(() => counterEnvs([5, 5]).reset({ seed: [1] }), /2 envs/);
});

test("observations come back as one flat Float32Array, env i at offset i * size", () => {
  const envs = counterEnvs([5, 5, 5]);
  const [obs, infos] = envs.reset({ seed: 0 });
  assert.ok(obs instanceof Float32Array);
  assert.equal(obs.length, 3 * 4);
  assert.deepEqual([obs[0], obs[4], obs[8]], [0, 1, 2]);
  assert.deepEqual(Array.from(infos.resets as Float64Array), [1, 1, 1]);
});

test("step returns per-env rewards (Float64Array) and terminations/truncations (Uint8Array)", () => {
  const envs = counterEnvs([1, 3]);
  envs.reset();
  const [, rewards, terminations, truncations] = envs.step([0, 0]);
  assert.ok(rewards instanceof Float64Array && terminations instanceof Uint8Array && truncations instanceof Uint8Array);
  assert.deepEqual(Array.from(rewards), [1, 11]);
  assert.deepEqual(Array.from(terminations), [1, 0]);
  assert.deepEqual(Array.from(truncations), [0, 0]);
});

test("truncations are reported separately from terminations", () => {
  const envs = counterEnvs([1, 3], true);
  envs.reset();
  const [, , terminations, truncations, infos] = envs.step([0, 0]);
  assert.deepEqual(Array.from(terminations), [0, 0]);
  assert.deepEqual(Array.from(truncations), [1, 0]);
  assert.deepEqual(infos._final_observation, [true, false]);
});

test("autoreset: final_observation holds the terminal observation and the batch holds the reset one", () => {
  const envs = counterEnvs([2, 5]);
  envs.reset({ seed: 3 });
  envs.step([0, 0]);
  const [obs, , terminations, , infos] = envs.step([0, 0]);
  assert.deepEqual(Array.from(terminations), [1, 0]);
  // Env 0 finished episode 0 at t = 2; its slot now holds episode 1 at t = 0 (reset without a seed).
  assert.deepEqual(Array.from(infos.final_observation![0] as Float32Array), [0, 0, 2, 3]);
  assert.deepEqual(Array.from(obs.subarray(0, 4)), [0, 1, 0, -1]);
  // Env 1 is mid-episode.
  assert.deepEqual(Array.from(obs.subarray(4, 8)), [1, 0, 2, 4]);
  assert.deepEqual(infos._final_observation, [true, false]);
  assert.deepEqual(infos._final_info, [true, false]);
  assert.equal(infos.final_observation![1], null);
  assert.deepEqual(infos.final_info![0], { t: 2 });
  assert.equal(infos.final_info![1], null);
});

test("after an autoreset, the env's own info keys come from its reset, others from their step", () => {
  const envs = counterEnvs([1, 5]);
  envs.reset();
  const [, , , , infos] = envs.step([0, 0]);
  assert.deepEqual(Array.from(infos.resets as Float64Array), [2, 0]);
  assert.deepEqual(infos._resets, [true, false]);
  assert.deepEqual(Array.from(infos.t as Float64Array), [0, 1]);
  assert.deepEqual(infos._t, [false, true]);
});

test("final_info carries RecordEpisodeStatistics' episode for the env that finished", () => {
  const envs = new SyncVectorEnv(
    [0, 1].map((id) => () => new RecordEpisodeStatistics(new CounterEnv(id, id === 0 ? 2 : 9))),
  );
  envs.reset();
  envs.step([0, 0]);
  const [, , , , infos] = envs.step([0, 0]);
  const episode = infos.final_info![0]!.episode!;
  assert.equal(episode.r, 1 + 2);
  assert.equal(episode.l, 2);
  assert.equal(infos.final_info![1], null);
});

test("Discrete sub-envs receive actions[i] as a number", () => {
  const envs = counterEnvs([5, 5, 5]);
  envs.reset();
  envs.step(Int32Array.of(2, 0, 1));
  assert.deepEqual(
    envs.envs.map((env) => (env as CounterEnv).actions),
    [[2], [0], [1]],
  );
});

test("Box sub-envs receive a Float32Array copy of their slice of the flat actions", () => {
  const envs = new SyncVectorEnv([() => new BoxActionEnv(), () => new BoxActionEnv()]);
  envs.reset();
  const actions = Float32Array.of(0.1, 0.2, 0.3, 0.4);
  envs.step(actions);
  actions.fill(0);
  const received = envs.envs.map((env) => (env as BoxActionEnv).received[0]);
  assert.ok(received[0] instanceof Float32Array);
  assert.deepEqual(Array.from(received[0]), [Math.fround(0.1), Math.fround(0.2)]);
  assert.deepEqual(Array.from(received[1]), [Math.fround(0.3), Math.fround(0.4)]);
});

test("step rejects an action array of the wrong length", () => {
  const envs = counterEnvs([5, 5]);
  envs.reset();
  assert.throws(() => envs.step([0]), /expected 2 action values/);
});

test("each step returns a fresh observation array that later steps do not overwrite", () => {
  const envs = counterEnvs([5]);
  envs.reset();
  const [first] = envs.step([0]);
  const kept = Array.from(first);
  envs.step([0]);
  assert.deepEqual(Array.from(first), kept);
});

test("spaces are batched: Box gains a leading numEnvs dimension, Discrete becomes MultiDiscrete", () => {
  const envs = counterEnvs([5, 5, 5]);
  assert.equal(envs.numEnvs, 3);
  assert.deepEqual(envs.observationSpace.shape, [3, 4]);
  assert.equal(envs.observationSpace.dtype, "float32");
  assert.ok(envs.actionSpace instanceof MultiDiscrete);
  assert.deepEqual(Array.from(envs.actionSpace.nvec), [3, 3, 3]);
  assert.ok(envs.singleActionSpace instanceof Discrete);
  const boxEnvs = new SyncVectorEnv([() => new BoxActionEnv(), () => new BoxActionEnv()]);
  assert.ok(boxEnvs.actionSpace instanceof Box);
  assert.deepEqual(boxEnvs.actionSpace.shape, [2, 2]);
  assert.deepEqual(Array.from(boxEnvs.actionSpace.low), [-1, -1, -1, -1]);
});

test("sub-envs with different spaces are rejected", () => {
  class OtherObs extends CounterEnv {
    override observationSpace = float32Box(-1, 1, [4]);
  }
  assert.throws(() => new SyncVectorEnv([() => new CounterEnv(0), () => new OtherObs(1)]), /observation space/);
});

test("close closes every sub-env once", () => {
  let closes = 0;
  class Counting extends CounterEnv {
    override close(): void {
      closes += 1;
    }
  }
  const envs = new SyncVectorEnv([() => new Counting(0), () => new Counting(1)]);
  envs.close();
  envs.close();
  assert.equal(closes, 2);
  assert.equal(envs.closed, true);
});
