// CleanRL's whole Atari stack (ppo_atari.ts's makeEnv) on real ROMs, over a long scripted trajectory, against the
// unoptimised path: the same env with tests/reference_atari_wrappers.ts's plain image wrappers, which step every
// frame with its observation. Every observation, reward, termination, truncation and the RAM after every step must
// agree: the whole trajectory's SHA-1 over all of them is checked against a digest of the reference stack's
// trajectory. On a mismatch the reference stack is run beside the fast one (on the same emulator) to name the first
// record that differs.
// Needs the cartridges (ALE_ROMS_DIR or ../shared/roms); skips without them.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, test } from "node:test";

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
import type { ALEInterface } from "../envs/ale/interface.ts";
import type { Env } from "../envs/gymnasium/core.ts";
import * as gym from "../envs/gymnasium/index.ts";
import { RandomGenerator } from "../envs/torch/rng.ts";
import type { Discrete } from "../envs/gymnasium/spaces.ts";
import { ROM_DIR, skipWithoutRom } from "./helpers.ts";
import {
  ReferenceFrameStack,
  ReferenceGrayScale,
  ReferenceMaxAndSkip,
  ReferenceResize,
} from "./reference_atari_wrappers.ts";

process.env.ALE_ROMS_DIR = ROM_DIR;

/** ppo_atari.ts's makeEnv, with the image wrappers swappable for the reference ones. */
function stack(envId: string, reference: boolean): Env {
  let env: Env = gym.make(envId);
  env = new gym.wrappers.RecordEpisodeStatistics(env);
  env = new NoopResetEnv(env, 30);
  env = reference ? new ReferenceMaxAndSkip(env, 4) : new MaxAndSkipEnv(env, 4);
  env = new EpisodicLifeEnv(env);
  if (actionMeanings(env).includes("FIRE")) env = new FireResetEnv(env);
  env = new ClipRewardEnv(env);
  env = reference ? new ReferenceResize(env, [84, 84]) : new ResizeObservation(env, [84, 84]);
  env = reference ? new ReferenceGrayScale(env) : new GrayScaleObservation(env);
  env = reference ? new ReferenceFrameStack(env, 4) : new FrameStack(env, 4);
  return env;
}

/**
 * A scripted run: seeded reset, then `steps` agent steps whose actions come from a seeded generator in runs of a few
 * steps (so paddles travel across the screen and games end: Breakout's lives often, a whole Pong game at least once); reset (unseeded) whenever an episode
 * ends, and seeded again every 700 steps. Yields one record per reset or step.
 */
function* trajectory(
  env: Env,
  steps: number,
): Generator<{ obs: Uint8Array; reward: number; terminated: boolean; truncated: boolean; ram: Uint8Array }> {
  const ale = (env.unwrapped as unknown as { ale: ALEInterface }).ale;
  const ram = new Uint8Array(128);
  const n = (env.actionSpace as Discrete).n;
  const rng = new RandomGenerator(7);
  let [obs] = env.reset({ seed: 3 }) as [Uint8Array, unknown];
  yield { obs, reward: 0, terminated: false, truncated: false, ram: ale.getRAM(ram) };
  let action = 0;
  for (let t = 0; t < steps; t++) {
    if (t % 5 === 0) action = rng.integers(0, n);
    const [o, reward, terminated, truncated] = env.step(action);
    yield { obs: o as Uint8Array, reward, terminated, truncated, ram: ale.getRAM(ram) };
    if (terminated || truncated || t % 700 === 699) {
      [obs] = env.reset(t % 700 === 699 ? { seed: t } : {}) as [Uint8Array, unknown];
      yield { obs, reward: 0, terminated: false, truncated: false, ram: ale.getRAM(ram) };
    }
  }
}

/**
 * Digests of `steps` agent steps each, from a run of this test in which the fast and the reference stack agreed on
 * every record (assertSameAsReference), with the envs' seeded PCG64 generators deciding NoopResetEnv's counts.
 */
const CASES = [
  {
    envId: "BreakoutNoFrameskip-v4",
    rom: "breakout",
    steps: 2500,
    minEnds: 3,
    sha1: "ff5f1671032485c7a702426c0fd122413bb1ed1d",
  },
  {
    envId: "PongNoFrameskip-v4",
    rom: "pong",
    steps: 2500,
    minEnds: 1,
    sha1: "aebe4085618d561d3800cc31be5ef12d5aeb5413",
  },
];

/**
 * Steps the fast and the reference stack side by side and fails at the first record where they differ: the
 * observation, reward, termination, truncation or RAM. Returns the number of records.
 */
function assertSameAsReference(envId: string, steps: number): number {
  const slow = trajectory(stack(envId, true), steps);
  let records = 0;
  for (const a of trajectory(stack(envId, false), steps)) {
    const b = slow.next().value;
    assert.ok(b, `the reference run ended early, at record ${records}`);
    assert.ok(Buffer.from(a.obs).equals(Buffer.from(b.obs)), `observation of record ${records} differs`);
    assert.deepEqual([a.reward, a.terminated, a.truncated], [b.reward, b.terminated, b.truncated], `record ${records}`);
    assert.ok(Buffer.from(a.ram).equals(Buffer.from(b.ram)), `RAM after record ${records} differs`);
    records++;
  }
  assert.equal(slow.next().done, true);
  return records;
}

describe("CleanRL's Atari stack over a long trajectory", () => {
  for (const { envId, rom, steps, minEnds, sha1 } of CASES) {
    test(`${envId}: ${steps} steps identical to the unoptimised path`, { skip: skipWithoutRom(rom) }, () => {
      // The digest covers every record's observation, RAM, reward, termination and truncation, and was recorded
      // from the unoptimised path (the reference wrappers on the plain emulator): equal digests mean every record
      // is identical to it. Only when they differ (or for a case without a digest) is the reference stack run
      // beside this one, to name the first record that differs.
      const hash = createHash("sha1");
      let records = 0;
      let dones = 0;
      for (const a of trajectory(stack(envId, false), steps)) {
        assert.equal(a.obs.length, 4 * 84 * 84);
        hash.update(a.obs).update(a.ram).update(`${a.reward} ${a.terminated} ${a.truncated};`);
        if (a.terminated || a.truncated) dones++;
        records++;
      }
      assert.ok(dones >= minEnds, `the trajectory should cross episode ends (got ${dones})`);
      const digest = hash.digest("hex");
      console.log(`${envId}: ${records} records, ${dones} episode ends, sha1 ${digest}`);
      if (sha1 === "" || digest !== sha1) assert.equal(assertSameAsReference(envId, steps), records);
      if (sha1 !== "") assert.equal(digest, sha1);
    });
  }
});
