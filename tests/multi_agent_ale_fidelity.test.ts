// Our Multi-Agent ALE (envs/ale with the specs of multi_agent_games.ts) against the real one, frame by frame. The
// fixtures in tests/fixtures/multi_agent_ale/ were recorded from Farama's Multi-Agent ALE built from source
// (benchmark/multi_agent_ale_build.sh, benchmark/multi_agent_ale_record_all.sh; the folder's README.md has the
// format and the command). Each replays the recorded actions of every player from PettingZoo's
// `reset(seed=1)` (loadROM, setMode, reset_game; reset_game again whenever the game is over) and compares every
// player's reward, allLives() and game over every frame, the CRC-32 of RAM and of the screen's palette bytes every
// frame (every 100th in the 30000-frame `_long` runs), and the CRC-32 of the RGB screen (the palette) every 100th
// frame. Each needs its cartridge (ALE_ROMS_DIR or ../shared/roms) and skips without it.

import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { describe, test } from "node:test";

import { ALEInterface } from "../envs/ale/interface.ts";
import { MULTI_AGENT_GAMES } from "../envs/ale/multi_agent_games.ts";
import { parallelEnv } from "../envs/pettingzoo/atari.ts";
import { ROM_DIR, skipWithoutRom } from "./helpers.ts";

const FIXTURES = new URL("./fixtures/multi_agent_ale/", import.meta.url);

/** One recorded trajectory (the recorder's JSON). */
interface Recording {
  mode: number;
  players: number;
  seed: number;
  policy: string;
  frames: number;
  /** RAM and screen checksums after every hashEvery-th frame. */
  hashEvery: number;
  minimal: number[];
  start: { ram: string; screen: string; rgb: string; episodeFrame: number; lives: number[] };
  /** Per player, the action indices played: runs "<base-36 index><count>" joined by commas. */
  actions: string[];
  /** [frame, reward of A, B, ...] for frames where some reward is nonzero. */
  rewards: number[][];
  /** [frame, lives of A, B, ...] for frames after which allLives() changed. */
  lives: number[][];
  /** Frames after which game_over() was true. */
  gameOver: number[];
  /** CRC-32s as 8 hex digits per checked frame (`rgb`: per 100th frame). */
  ram: string;
  screen: string;
  rgb: string;
}

const hex = (bytes: Uint8Array) => crc32(bytes).toString(16).padStart(8, "0");
const hashAt = (hashes: string, i: number) => hashes.slice(8 * i, 8 * i + 8);

/** One player's recorded action indices, one per frame. */
function actionIndices(runs: string): Uint8Array {
  const out: number[] = [];
  for (const run of runs.split(",")) out.push(...new Array<number>(Number(run.slice(1))).fill(parseInt(run[0], 36)));
  return Uint8Array.from(out);
}

/** Replays `rec` and returns one line per kind of difference (its first frame and count); empty when all match. */
function replay(rom: string, rec: Recording): string[] {
  const spec = MULTI_AGENT_GAMES.get(rom);
  assert.ok(spec, `no Multi-Agent spec for ${rom}`);
  const bytes = new Uint8Array(readFileSync(join(ROM_DIR, `${rom}.bin`)));
  const ale = new ALEInterface(
    spec,
    bytes,
    { repeatActionProbability: 0, maxNumFramesPerEpisode: 0, mode: rec.mode, randomSeed: rec.seed },
    () => 0,
  );
  assert.equal(ale.numPlayersActive(), rec.players);
  assert.deepEqual(
    [...ale.getMinimalActionSet()].sort((a, b) => a - b),
    rec.minimal,
  );
  ale.resetGame(0, true);
  // The spec states the format Stella ends up with; where Stella detects it, the detection must agree.
  if (ale.console.detectedFormat !== null) assert.equal(ale.console.detectedFormat, ale.console.displayFormat);

  const differences = new Map<string, { first: number; count: number; detail: string }>();
  const differ = (kind: string, frame: number, detail: string) => {
    const d = differences.get(kind);
    if (d) d.count++;
    else differences.set(kind, { first: frame, count: 1, detail });
  };
  const [height, width] = ale.getScreenDims();
  const rgb = new Uint8Array(height * width * 3);
  const ram = new Uint8Array(128);
  const players = rec.players;

  if (hex(ale.getRAM(ram)) !== rec.start.ram) differ("RAM", -1, "after reset");
  if (hex(ale.console.screen) !== rec.start.screen) differ("screen", -1, "after reset");
  if (hex(ale.getScreenRGB(rgb)) !== rec.start.rgb) differ("RGB screen", -1, "after reset");
  if (ale.getEpisodeFrameNumber() !== rec.start.episodeFrame)
    differ("episode frame", -1, `${ale.getEpisodeFrameNumber()} vs ${rec.start.episodeFrame}`);
  const lives = ale.allLives();
  if (lives.join() !== rec.start.lives.join()) differ("lives", -1, `[${lives}] vs [${rec.start.lives}]`);

  const rewardsAt = new Map(rec.rewards.map((e) => [e[0], e.slice(1)]));
  const livesAt = new Map(rec.lives.map((e) => [e[0], e.slice(1)]));
  const over = new Set(rec.gameOver);
  const actions = new Array<number>(players);
  const indices = rec.actions.map(actionIndices);
  let expectedLives = rec.start.lives.slice();
  for (let t = 0; t < rec.frames; t++) {
    if (ale.gameOver()) ale.resetGame(0, false);
    for (let k = 0; k < players; k++) actions[k] = rec.minimal[indices[k][t]];
    const checked = (t + 1) % rec.hashEvery === 0;
    // Every frame is drawn: rows a short frame leaves undrawn keep what an earlier frame drew there.
    const rewards = [...ale.actPlayers(actions).subarray(0, players)];
    const expected = rewardsAt.get(t) ?? new Array(players).fill(0);
    if (rewards.join() !== expected.join()) differ("rewards", t, `[${rewards}] vs [${expected}]`);
    expectedLives = livesAt.get(t) ?? expectedLives;
    ale.allLives(lives);
    if (lives.join() !== expectedLives.join()) differ("lives", t, `[${lives}] vs [${expectedLives}]`);
    if (ale.gameOver() !== over.has(t)) differ("game over", t, `${ale.gameOver()} vs ${over.has(t)}`);
    if (checked && hex(ale.getRAM(ram)) !== hashAt(rec.ram, (t + 1) / rec.hashEvery - 1)) differ("RAM", t, "");
    if (checked && hex(ale.console.screen) !== hashAt(rec.screen, (t + 1) / rec.hashEvery - 1)) differ("screen", t, "");
    if (t % 100 === 99 && hex(ale.getScreenRGB(rgb)) !== hashAt(rec.rgb, (t - 99) / 100)) differ("RGB screen", t, "");
  }
  return [...differences].map(
    ([kind, d]) => `${kind}: ${d.count} frames differ, first at frame ${d.first}${d.detail ? ` (${d.detail})` : ""}`,
  );
}

/**
 * Replays `rec` through PettingZoo's Parallel API (`envId` in its default mode) up to the first game over: every
 * frame each live agent's reward must be the recorded one, and an agent must leave `agents` (terminated) exactly on
 * the frame its recorded lives turn negative. Returns the frames at which agents left, as [frame, agent].
 */
function pettingZooReplay(envId: string, rec: Recording): [number, string][] {
  const env = parallelEnv(envId, { romDir: ROM_DIR });
  env.reset({ seed: rec.seed });
  assert.equal(env.mode, rec.mode);
  const rewardsAt = new Map(rec.rewards.map((e) => [e[0], e.slice(1)]));
  const livesAt = new Map(rec.lives.map((e) => [e[0], e.slice(1)]));
  const left: [number, string][] = [];
  let lives = rec.start.lives;
  const indices = rec.actions.map(actionIndices);
  for (let t = 0; t < rec.frames; t++) {
    const actions: Record<string, number> = {};
    for (const agent of env.agents) actions[agent] = indices[env.possibleAgents.indexOf(agent)][t];
    const alive = [...env.agents];
    const [, rewards, terminations] = env.step(actions);
    lives = livesAt.get(t) ?? lives;
    const expected = rewardsAt.get(t) ?? [];
    for (const agent of alive) {
      const k = env.possibleAgents.indexOf(agent);
      assert.equal(rewards[agent], expected[k] ?? 0, `frame ${t}: ${agent}'s reward`);
      const out = lives[k] < 0 || rec.gameOver.includes(t);
      assert.equal(terminations[agent], out, `frame ${t}: ${agent}'s termination`);
      if (lives[k] < 0) left.push([t, agent]);
    }
    if (rec.gameOver.includes(t)) break;
  }
  return left;
}

const files = readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".json"))
  .sort();

describe("Multi-Agent ALE fidelity (recorded trajectories)", () => {
  test("fixtures are present", () => {
    assert.ok(files.length > 0);
  });
  for (const file of files) {
    const match = /^(.+)_m(\d+)_(scripted|random\d+)(_long)?\.json$/.exec(file);
    assert.ok(match, `unexpected fixture name ${file}`);
    const rom = match[1];
    test(
      `${rom} mode ${match[2]} ${match[3]}${match[4] ? " (30000 frames, every 100th checksummed)" : ""}`,
      { skip: skipWithoutRom(rom) },
      () => {
        const rec = JSON.parse(readFileSync(new URL(file, FIXTURES), "utf8")) as Recording;
        assert.deepEqual(replay(rom, rec), []);
      },
    );
  }

  test(
    "warlords_v3 through the Parallel API: third_0 leaves on the frame it is knocked out",
    { skip: skipWithoutRom("warlords") },
    () => {
      const rec = JSON.parse(readFileSync(new URL("warlords_m1_scripted.json", FIXTURES), "utf8")) as Recording;
      assert.deepEqual(pettingZooReplay("warlords_v3", rec), [[rec.lives[0][0], "third_0"]]);
    },
  );

  test(
    "space_invaders_v2 through the Parallel API: both agents terminate at the recorded game over",
    { skip: skipWithoutRom("space_invaders") },
    () => {
      const rec = JSON.parse(readFileSync(new URL("space_invaders_m34_scripted.json", FIXTURES), "utf8")) as Recording;
      const left = pettingZooReplay("space_invaders_v2", rec);
      assert.deepEqual(left, [
        [rec.gameOver[0], "first_0"],
        [rec.gameOver[0], "second_0"],
      ]);
    },
  );
});
