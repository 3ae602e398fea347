// Specifications against the real cartridges, when their ROMs are available: in ALE_ROMS_DIR, or in ../shared/roms
// relative to the repository root (where CI keeps them). Without them every test skips, saying why. Expected values
// come from ALE's game settings (src/games/supported/*.cpp) and ale-py's documented action sets.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test, type TestContext } from "node:test";

import type { StepResult } from "../envs/gymnasium/core.ts";
import { make } from "../envs/gymnasium/registration.ts";
import { AtariEnv, type AtariEnvKwargs } from "../envs/ale/index.ts";
import { findRom } from "../envs/ale/roms.ts";
import { BEAM_RIDER, BREAKOUT, PONG, type GameSpec } from "../envs/ale/games.ts";
import { ALEInterface } from "../envs/ale/interface.ts";
import { PONG_MA } from "../envs/ale/multi_agent_games.ts";
import { ROM_DIR, skipWithoutRom } from "./helpers.ts";

/** The env, or null after marking the test skipped when the game's ROM is not available. */
function envFor(t: TestContext, game: GameSpec, kwargs: Partial<AtariEnvKwargs> = {}): AtariEnv | null {
  if (!existsSync(ROM_DIR)) {
    t.skip(`no ROM directory (set ALE_ROMS_DIR; looked at ${ROM_DIR})`);
    return null;
  }
  try {
    findRom(game.rom, game.md5, { romDir: ROM_DIR, askPython: false });
  } catch {
    t.skip(`${game.rom} ROM not in ${ROM_DIR}`);
    return null;
  }
  return new AtariEnv({ game: game.rom, romDir: ROM_DIR, repeatActionProbability: 0, frameskip: 4, ...kwargs });
}

describe("Breakout", () => {
  test("starts with 5 lives and earns nothing until FIRE launches the ball", (t) => {
    const env = envFor(t, BREAKOUT);
    if (env === null) return;
    const [, info] = env.reset({ seed: 0 });
    assert.equal(info.lives, 5);
    let total = 0;
    for (let i = 0; i < 150; i++) {
      const step: StepResult<Uint8Array> = env.step(0);
      total += step[1];
      assert.equal(step[2], false);
      assert.equal(step[4].lives, 5, "no ball in play, so no life can be lost");
    }
    assert.equal(total, 0);
  });

  test("after FIRE the ball moves, and missing it costs a life that info.lives reports", (t) => {
    const env = envFor(t, BREAKOUT);
    if (env === null) return;
    const [first] = env.reset({ seed: 0 });
    const fire = env.getActionMeanings().indexOf("FIRE");
    let [obs] = env.step(fire);
    let changed = 0;
    let lives = 5;
    for (let i = 0; i < 400 && lives === 5; i++) {
      const [next, , , , info] = env.step(0);
      if (!next.every((v, j) => v === obs[j])) changed++;
      obs = next;
      lives = info.lives as number;
    }
    assert.ok(changed > 10, `the screen changed on only ${changed} steps`);
    assert.notDeepEqual(obs, first);
    assert.equal(lives, 4);
  });

  test("the reward is the change of the score ALE reads from RAM 76-77", (t) => {
    const env = envFor(t, BREAKOUT, { obsType: "ram" });
    if (env === null) return;
    const score = (ram: Uint8Array) => (ram[77] & 0x0f) + 10 * (ram[77] >> 4) + 100 * (ram[76] & 0x0f);
    let [ram] = env.reset({ seed: 1 });
    env.actionSpace.seed(1);
    for (let i = 0; i < 3000; i++) {
      const [next, reward, terminated] = env.step(env.actionSpace.sample());
      if (reward !== 0) {
        assert.equal(reward, score(next) - score(ram));
        return;
      }
      ram = next;
      if (terminated) [ram] = env.reset();
    }
    assert.fail("no reward in 3000 random steps");
  });

  test("minimal action set is NOOP, FIRE, RIGHT, LEFT", (t) => {
    const env = envFor(t, BREAKOUT);
    if (env === null) return;
    assert.deepEqual(env.getActionMeanings(), ["NOOP", "FIRE", "RIGHT", "LEFT"]);
  });

  test("gym.make builds BreakoutNoFrameskip-v4 with the rom directory passed through", (t) => {
    if (envFor(t, BREAKOUT) === null) return;
    const env = make("BreakoutNoFrameskip-v4", { romDir: ROM_DIR });
    const [obs] = env.reset({ seed: 0 });
    assert.equal(obs instanceof Uint8Array && obs.length, 210 * 160 * 3);
  });
});

describe("Pong", () => {
  test("doing nothing loses 21-0: terminated with a summed reward of -21", (t) => {
    const env = envFor(t, PONG, { obsType: "ram" });
    if (env === null) return;
    env.reset({ seed: 0 });
    let total = 0;
    for (let step = 0; step < 5000; step++) {
      const [ram, reward, terminated, truncated]: StepResult<Uint8Array> = env.step(0);
      total += reward;
      if (truncated) assert.fail("truncated before the game ended");
      if (terminated) {
        assert.deepEqual([ram[13], ram[14]], [21, 0]);
        assert.equal(total, -21);
        return;
      }
    }
    assert.fail("Pong did not end in 5000 steps");
  });

  test("minimal action set is NOOP, FIRE, RIGHT, LEFT, RIGHTFIRE, LEFTFIRE", (t) => {
    const env = envFor(t, PONG);
    if (env === null) return;
    assert.deepEqual(env.getActionMeanings(), ["NOOP", "FIRE", "RIGHT", "LEFT", "RIGHTFIRE", "LEFTFIRE"]);
  });
});

describe("BeamRider", () => {
  test("starts with the 3 lives read from RAM 0x85 + 1", (t) => {
    const env = envFor(t, BEAM_RIDER, { obsType: "ram" });
    if (env === null) return;
    const [ram, info] = env.reset({ seed: 0 });
    assert.equal(info.lives, 3);
    assert.equal(ram[0x85 & 0x7f] + 1, 3);
  });

  test("minimal action set is ale-py's nine actions", (t) => {
    const env = envFor(t, BEAM_RIDER);
    if (env === null) return;
    assert.deepEqual(env.getActionMeanings(), [
      "NOOP",
      "FIRE",
      "UP",
      "RIGHT",
      "LEFT",
      "UPRIGHT",
      "UPLEFT",
      "RIGHTFIRE",
      "LEFTFIRE",
    ]);
  });
});

describe("ALEInterface.allLives", () => {
  const ale = (game: GameSpec, mode?: number) =>
    new ALEInterface(
      game,
      new Uint8Array(readFileSync(join(ROM_DIR, `${game.rom}.bin`))),
      { repeatActionProbability: 0, maxNumFramesPerEpisode: 0, mode },
      () => 0,
    );

  test(
    "4-player Multi-Agent Pong: one 0 per player (no lives counter), written into the array passed in",
    { skip: skipWithoutRom("pong") },
    () => {
      const pong = ale(PONG_MA, 5);
      pong.resetGame(0, true);
      assert.deepEqual(pong.allLives(), [0, 0, 0, 0]);
      const out = [7, 7, 7, 7];
      assert.equal(pong.allLives(out), out);
      assert.deepEqual(out, [0, 0, 0, 0]);
    },
  );

  test(
    "a single-player game gives [lives()], also into the array passed in",
    { skip: skipWithoutRom("breakout") },
    () => {
      const breakout = ale(BREAKOUT);
      breakout.resetGame(0, true);
      assert.deepEqual(breakout.allLives(), [5]);
      const out = [0];
      assert.equal(breakout.allLives(out), out);
      assert.deepEqual(out, [5]);
    },
  );
});
