// ppo_atari.ts's env stack against CleanRL's own: tests/fixtures/atari_stack_cleanrl.json holds the digest of what
// ppo_atari.py's make_env (cleanrl_utils's wrappers and Gymnasium 0.29's image wrappers over ale-py) gave out under
// a paddle-tracking action stream, recorded by benchmark/atari_stack_check.py --fixture (command and versions in
// the fixture, the recipe in benchmark/README.md). The stream reaches lost lives, FIRE resets, game overs with their
// no-op resets and scores in the 40s. Needs Breakout's ROM (ALE_ROMS_DIR or ../shared/roms); skips without it.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { recordStack, type StackOptions, trajectoryDigest } from "../benchmark/atari_stack_record.ts";
import { ROM_DIR, skipWithoutRom } from "./helpers.ts";

process.env.ALE_ROMS_DIR = ROM_DIR;

const fixture = JSON.parse(
  readFileSync(new URL("fixtures/atari_stack_cleanrl.json", import.meta.url), "utf8"),
) as StackOptions & { digest: string; games: { step: number; env: number; r: number; l: number }[] };

test(
  "ppo_atari.ts's env stack gives CleanRL's observations, clipped rewards, flags and games, step for step",
  { skip: skipWithoutRom("breakout") },
  () => {
    const rec = recordStack(fixture);
    assert.deepEqual(rec.episodes, fixture.games);
    assert.equal(trajectoryDigest(rec), fixture.digest);
  },
);
