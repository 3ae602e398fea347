import { test } from "node:test";
import assert from "node:assert/strict";

import * as gym from "../envs/gymnasium/index.ts";
import {
  ClipRewardEnv,
  EpisodicLifeEnv,
  FireResetEnv,
  FrameStack,
  GrayScaleObservation,
  MaxAndSkipEnv,
  NoopResetEnv,
  ResizeObservation,
  actionMeanings,
} from "../envs/gymnasium/atari_wrappers.ts";
import { checkEnv } from "../envs/gymnasium/env_checker.ts";
import { CUE_FRAMES, type Cue, LEFT, MemoryCueEnv, NOOP, QUERY_FRAMES, RIGHT } from "../envs/memory_cue/memory_cue.ts";
import { Box, Discrete, type TypedArray } from "../envs/gymnasium/spaces.ts";

const quiet = { onWarning: () => {} };
const AGENT_FRAME = 84 * 84;
const NOOP_MAX = 30;
const SKIP = 4;
const ALL_NOOP_COUNTS = Array.from({ length: NOOP_MAX }, (_, i) => i + 1);

/**
 * CleanRL's `make_env` for Atari (ppo_atari.py / ppo_atari_lstm.py), in the order of the header of
 * envs/gymnasium/atari_wrappers.ts. `noops` fixes NoopResetEnv's count (SB3's override_num_noops); null keeps it random.
 */
function cleanRlAtari(id: string, numStack: number, noops: number | null = null, kwargs: Record<string, unknown> = {}) {
  let env: gym.Env = gym.make(id, kwargs);
  env = new gym.wrappers.RecordEpisodeStatistics(env);
  const noopReset = new NoopResetEnv(env, NOOP_MAX);
  noopReset.overrideNumNoops = noops;
  env = new MaxAndSkipEnv(noopReset, SKIP);
  env = new EpisodicLifeEnv(env);
  if (actionMeanings(env).includes("FIRE")) env = new FireResetEnv(env);
  env = new ClipRewardEnv(env);
  env = new ResizeObservation(env, [84, 84]);
  env = new GrayScaleObservation(env);
  return new FrameStack<number>(env, numStack);
}

/** Frame `i` (oldest first) of a stacked 84x84 observation. */
function frameOf(obs: TypedArray, i: number): TypedArray {
  return obs.subarray(i * AGENT_FRAME, (i + 1) * AGENT_FRAME);
}

/**
 * Which cue an 84x84 frame shows, read the way a policy would have to: cues are the only white (255) pixels,
 * a left cue has them only in the left half, a right cue only in the right half; null when there are none.
 */
function cueIn(frame: TypedArray): Cue | null {
  let left = 0;
  let right = 0;
  for (let j = 0; j < frame.length; j++) {
    if (frame[j] !== 255) continue;
    if (j % 84 < 42) left++;
    else right++;
  }
  if (left > 0 && right > 0) throw new Error(`white pixels in both halves (${left}, ${right}): not a cue`);
  return left > 0 ? LEFT : right > 0 ? RIGHT : null;
}

/** Whether an 84x84 frame shows the query: something lit, but no cue. */
function showsQuery(frame: TypedArray): boolean {
  return cueIn(frame) === null && frame.some((v) => v !== 0);
}

/** Whether any frame of a stacked observation shows a cue. */
function stackShowsCue(obs: TypedArray, numStack: number): boolean {
  return Array.from({ length: numStack }, (_, i) => cueIn(frameOf(obs, i))).some((c) => c !== null);
}

/** The first seeds whose reset draws each cue (the cue is the first draw from the env's generator). */
function seedsFor(cue: Cue, count: number): number[] {
  const seeds: number[] = [];
  const env = new MemoryCueEnv();
  for (let seed = 0; seeds.length < count; seed++) {
    env.reset({ seed });
    if (env.cue === cue) seeds.push(seed);
  }
  return seeds;
}
const LEFT_SEEDS = seedsFor(LEFT, 3);
const RIGHT_SEEDS = seedsFor(RIGHT, 3);

interface Episode {
  cue: Cue;
  /** The reset observation, then the observation of every step. */
  observations: TypedArray[];
  rewards: number[];
  terminated: boolean[];
  infos: gym.Info[];
}

/** Plays one episode from `reset({ seed })`; `policy` sees the latest observation and the reset observation. */
function playEpisode(env: FrameStack, seed: number, policy: (obs: TypedArray, first: TypedArray) => number): Episode {
  const [first] = env.reset({ seed });
  const episode: Episode = {
    cue: (env.unwrapped as MemoryCueEnv).cue,
    observations: [first],
    rewards: [],
    terminated: [],
    infos: [],
  };
  for (let step = 0; step < 100; step++) {
    const [obs, reward, terminated, truncated, info] = env.step(policy(episode.observations.at(-1)!, first));
    episode.observations.push(obs);
    episode.rewards.push(reward);
    episode.terminated.push(terminated);
    episode.infos.push(info);
    if (terminated || truncated) return episode;
  }
  throw new Error("the episode did not end within 100 agent steps");
}

/** Index of the observation the agent answers from: the one before the terminating step's. */
function queryIndex(episode: Episode): number {
  return episode.observations.length - 2;
}

test("MemoryCue-v0 and MemoryCueShort-v0 pass checkEnv, with and without rgb_array rendering", () => {
  for (const id of ["MemoryCue-v0", "MemoryCueShort-v0"]) {
    assert.doesNotThrow(() => checkEnv(gym.make(id), quiet), id);
    assert.doesNotThrow(() => checkEnv(gym.make(id, { renderMode: "rgb_array" }), quiet), `${id} rgb_array`);
  }
});

test("looks like a NoFrameskip ALE env: 210x160x3 uint8 frames, NOOP/LEFT/RIGHT, lives 1 in every info, one frame per step", () => {
  const env = gym.make("MemoryCue-v0");
  const space = env.observationSpace as Box;
  assert.ok(space instanceof Box);
  assert.deepEqual(space.shape, [210, 160, 3]);
  assert.equal(space.dtype, "uint8");
  assert.ok(space.low.every((v) => v === 0) && space.high.every((v) => v === 255));
  assert.ok(env.actionSpace instanceof Discrete && env.actionSpace.n === 3);
  assert.deepEqual(actionMeanings(env), ["NOOP", "LEFT", "RIGHT"]);
  const [, resetInfo] = env.reset({ seed: 0 });
  assert.equal(resetInfo.lives, 1);
  assert.equal(resetInfo.episode_frame_number, 0);
  for (let t = 1; t <= 10; t++) {
    const [, , , , info] = env.step(NOOP);
    assert.equal(info.lives, 1);
    assert.equal(info.episode_frame_number, t);
  }
});

test("CleanRL's Atari stack applies no FireResetEnv and gives [k, 84, 84] uint8 observations", () => {
  for (const k of [1, 4]) {
    const env = cleanRlAtari("MemoryCue-v0", k);
    let layer: gym.Env = env;
    while (layer instanceof gym.Wrapper) {
      assert.ok(!(layer instanceof FireResetEnv));
      layer = layer.env;
    }
    assert.deepEqual((env.observationSpace as Box).shape, [k, 84, 84]);
    assert.ok(env.reset({ seed: 0 })[0] instanceof Uint8Array);
  }
});

test("through the Atari stack the reset observation shows the episode's cue for every no-op count", () => {
  for (const noops of ALL_NOOP_COUNTS) {
    for (const seed of [LEFT_SEEDS[0], RIGHT_SEEDS[0]]) {
      const env = cleanRlAtari("MemoryCue-v0", 1, noops);
      const [obs] = env.reset({ seed });
      assert.equal(cueIn(obs), (env.unwrapped as MemoryCueEnv).cue, `${noops} no-ops, seed ${seed}`);
    }
  }
});

test("the cues stay distinct after resize and grayscale: a third of their half pure white, nothing lit in the other half", () => {
  const halfCells = 42 * 84;
  for (const seed of [LEFT_SEEDS[0], RIGHT_SEEDS[0]]) {
    const env = cleanRlAtari("MemoryCue-v0", 1, 1);
    const [obs] = env.reset({ seed });
    const cue = (env.unwrapped as MemoryCueEnv).cue;
    let white = 0;
    let litElsewhere = 0;
    for (let j = 0; j < AGENT_FRAME; j++) {
      const inCueHalf = j % 84 < 42 === (cue === LEFT);
      if (inCueHalf && obs[j] === 255) white++;
      if (!inCueHalf && obs[j] !== 0) litElsewhere++;
    }
    assert.ok(white > halfCells / 3, `${white} white cells of ${halfCells}`);
    assert.equal(litElsewhere, 0);
  }
});

test("with FrameStack(1) and FrameStack(4) the observation at the query is byte-identical for both cues and shows no cue", () => {
  for (const k of [1, 4]) {
    for (const noops of ALL_NOOP_COUNTS) {
      const pick = noops % LEFT_SEEDS.length;
      const left = playEpisode(cleanRlAtari("MemoryCue-v0", k, noops), LEFT_SEEDS[pick], () => NOOP);
      const right = playEpisode(cleanRlAtari("MemoryCue-v0", k, noops), RIGHT_SEEDS[pick], () => NOOP);
      const where = `FrameStack(${k}), ${noops} no-ops`;
      assert.equal(left.observations.length, right.observations.length, where);
      const leftQuery = left.observations[queryIndex(left)];
      assert.deepEqual(leftQuery, right.observations[queryIndex(right)], where);
      assert.ok(!stackShowsCue(leftQuery, k), where);
      // ...while both agents did see their cue after the no-ops, at reset.
      assert.equal(cueIn(frameOf(left.observations[0], k - 1)), LEFT, where);
      assert.equal(cueIn(frameOf(right.observations[0], k - 1)), RIGHT, where);
    }
  }
});

test("the answer is the first action after the query appears: that step ends the episode and only its action counts", () => {
  const env = new MemoryCueEnv();
  const queryStart = env.queryStart;
  assert.equal(queryStart, CUE_FRAMES + SKIP * env.delaySteps);
  for (const noops of ALL_NOOP_COUNTS) {
    // Alternate the cue with the no-op count, so each cue meets every phase of the no-ops modulo 4.
    for (const seed of [(noops >> 2) % 2 === 0 ? LEFT_SEEDS[1] : RIGHT_SEEDS[1]]) {
      const stack = cleanRlAtari("MemoryCue-v0", 1, noops);
      // Before the query, hold the *wrong* side; at the query answer the cue, read from the reset observation.
      const episode = playEpisode(stack, seed, (obs, first) => {
        const cue = cueIn(first)!;
        return showsQuery(obs) ? cue : cue === LEFT ? RIGHT : LEFT;
      });
      const where = `${noops} no-ops, seed ${seed}`;
      // The first observation showing the query is agent step ceil((Q - N) / 4), and the next step is the answer.
      const firstQueryStep = Math.ceil((queryStart - noops) / SKIP);
      assert.equal(episode.rewards.length, firstQueryStep + 1, where);
      assert.equal(episode.observations.findIndex(showsQuery), firstQueryStep, where);
      assert.deepEqual(episode.terminated, [...Array(firstQueryStep).fill(false), true], where);
      assert.deepEqual(episode.rewards, [...Array(firstQueryStep).fill(0), 1], where);
      // RecordEpisodeStatistics (innermost) counts frames: no-ops included, the whole episode is Q + 4 frames.
      const stats = episode.infos.at(-1)!.episode as { r: number; l: number };
      assert.deepEqual([stats.r, stats.l], [1, queryStart + QUERY_FRAMES], where);
    }
  }
});

test("a wrong side or NOOP at the query earns -1, whatever was pressed before", () => {
  for (const answer of [NOOP, RIGHT]) {
    const env = cleanRlAtari("MemoryCue-v0", 1, 7);
    // Hold the correct side (LEFT) through cue and delay, then switch at the query.
    const episode = playEpisode(env, LEFT_SEEDS[2], (obs) => (showsQuery(obs) ? answer : LEFT));
    assert.deepEqual([episode.rewards.at(-1), episode.terminated.at(-1)], [-1, true], `answer ${answer}`);
    assert.ok(episode.rewards.slice(0, -1).every((r) => r === 0));
  }
});

test("an oracle that remembers the cue from the reset observation scores +1 in every episode (random no-ops)", () => {
  const env = cleanRlAtari("MemoryCue-v0", 1);
  const returns: number[] = [];
  for (let seed = 100; seed < 120; seed++) {
    const episode = playEpisode(env, seed, (_obs, first) => cueIn(first)!);
    returns.push((episode.infos.at(-1)!.episode as { r: number }).r);
  }
  assert.deepEqual(returns, Array(20).fill(1));
});

test("always answering LEFT averages 0 over many seeded episodes (within 3 binomial standard deviations)", () => {
  // Each return is +1 or -1 with probability 1/2, so the mean of n has standard deviation 1 / sqrt(n). The
  // policy ignores observations, so the raw frame-level env gives the same returns as the wrapped one, faster.
  const episodes = 300;
  const env = gym.make("MemoryCue-v0");
  let total = 0;
  for (let seed = 0; seed < episodes; seed++) {
    env.reset({ seed });
    for (;;) {
      const [, reward, terminated] = env.step(LEFT);
      total += reward;
      if (terminated) break;
    }
  }
  const mean = total / episodes;
  assert.ok(Math.abs(mean) < 3 / Math.sqrt(episodes), `mean return ${mean}`);
});

test("seeding makes the cues reproducible: the same seed gives the same sequence of cues over later resets", () => {
  const cues = (seed: number) => {
    const env = gym.make("MemoryCue-v0");
    env.reset({ seed });
    return Array.from({ length: 20 }, () => {
      env.reset();
      return (env.unwrapped as MemoryCueEnv).cue;
    });
  };
  const first = cues(42);
  assert.deepEqual(cues(42), first);
  assert.ok(first.includes(LEFT) && first.includes(RIGHT));
  assert.notDeepEqual(cues(43), first);
});

test("MemoryCueShort-v0 is a positive control: FrameStack(4) sees the cue at the query, FrameStack(1) does not", () => {
  for (const noops of ALL_NOOP_COUNTS) {
    for (const seed of [(noops >> 2) % 2 === 0 ? LEFT_SEEDS[0] : RIGHT_SEEDS[0]]) {
      const episode = playEpisode(cleanRlAtari("MemoryCueShort-v0", 4, noops), seed, () => NOOP);
      const query = episode.observations[queryIndex(episode)];
      assert.ok(stackShowsCue(query, 4), `${noops} no-ops`);
      assert.equal(cueIn(frameOf(query, 3)), null, `${noops} no-ops`);
    }
  }
});

test("FrameStack(4) stops seeing the cue at the query from delaySteps 4 on, as the header's K - L >= D predicts", () => {
  for (const noops of ALL_NOOP_COUNTS) {
    const episode = playEpisode(cleanRlAtari("MemoryCue-v0", 4, noops, { delaySteps: 4 }), LEFT_SEEDS[0], () => NOOP);
    assert.ok(!stackShowsCue(episode.observations[queryIndex(episode)], 4), `${noops} no-ops`);
  }
});

test("rgb_array rendering returns the current 160x210 screen, so RecordVideo can record it", () => {
  const env = gym.make("MemoryCue-v0", { renderMode: "rgb_array" });
  const [obs] = env.reset({ seed: 0 }) as [Uint8Array, gym.Info];
  assert.deepEqual(env.render(), { width: 160, height: 210, data: obs });
  const next = env.step(NOOP)[0] as Uint8Array;
  assert.deepEqual(env.render(), { width: 160, height: 210, data: next });
  assert.equal(gym.make("MemoryCue-v0").render(), null);
});

test("rejects a delay under one agent step and unknown kwargs", () => {
  assert.throws(() => gym.make("MemoryCue-v0", { delaySteps: 0 }), RangeError);
  assert.throws(() => gym.make("MemoryCue-v0", { delaySteps: 2.5 }), RangeError);
  assert.throws(() => gym.make("MemoryCue-v0", { frameskip: 4 }), TypeError);
});
