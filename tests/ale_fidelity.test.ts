// Our ALE port against the real one. The expected checksums were recorded once with ale-py 0.12.1 (ALEInterface,
// random_seed 0, repeat_action_probability 0, frame_skip 1, loadROM then reset_game, the same action rule as below,
// reset_game whenever game_over) as CRC-32s of getRAM() / getScreen() after every 100th frame. The tests need the
// cartridges (ALE_ROMS_DIR or ../shared/roms) and skip without them.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { crc32 } from "node:zlib";
import { describe, test, type TestContext } from "node:test";

import { BREAKOUT, PONG, type GameSpec } from "../envs/ale/games.ts";
import { ALEInterface } from "../envs/ale/interface.ts";
import { md5Hex } from "../envs/ale/roms.ts";

const ROM_DIR = process.env.ALE_ROMS_DIR ?? fileURLToPath(new URL("../../shared/roms", import.meta.url));

interface Reference {
  ram: string[];
  screen: string[];
  reward: number;
  lives: number;
  resets: number;
}

/** Real ALE's trajectory under `scriptedAction` for 1000 frames. */
const REAL_ALE: Record<string, Reference> = {
  breakout: {
    ram: ["aa309359", "5b35fcb0", "57239fb2", "624dcd7f", "9dfd6b54", "2d2d7f2c", "3780b4b5", "2c50eca4", "a3d5e70b", "abf97d5a"],
    screen: ["0ae968e5", "0ae968e5", "4b47cf3c", "b981c3ee", "ad62f6a7", "f11ad23c", "41dc8363", "29e4d7bc", "7c960d02", "7b70fcb4"],
    reward: 0,
    lives: 2,
    resets: 1,
  },
  pong: {
    ram: ["9b10fa0b", "e5c14227", "c4adda5b", "464f97db", "ba75fa0c", "43c188ac", "a80ff4a3", "f54036bc", "7475ee99", "c4b10c4b"],
    screen: ["74ea4215", "3ac035a3", "183f141f", "77640e1b", "318aa9c4", "e1470b5e", "575c1afc", "4f94881a", "3685f266", "239d0c99"],
    reward: -6,
    lives: 0,
    resets: 0,
  },
};

/** 200 NOOP frames, 10 FIRE frames, then the minimal set cycled in 8-frame blocks (index 3, 8, 13, ... mod size). */
function scriptedAction(t: number, minimal: readonly number[]): number {
  if (t < 200) return 0;
  if (t < 210) return 1;
  return minimal[(Math.floor((t - 210) / 8) * 5 + 3) % minimal.length];
}

function romFor(t: TestContext, game: GameSpec): Uint8Array | null {
  const path = join(ROM_DIR, `${game.rom}.bin`);
  if (!existsSync(path)) {
    t.skip(`${game.rom}.bin not in ${ROM_DIR} (set ALE_ROMS_DIR)`);
    return null;
  }
  const rom = new Uint8Array(readFileSync(path));
  if (md5Hex(rom) !== game.md5) {
    t.skip(`${path} is not the ROM ALE accepts`);
    return null;
  }
  return rom;
}

/** Runs the scripted 1000 frames the way the reference run did and records the same checksums. */
function replay(game: GameSpec, rom: Uint8Array): Reference {
  const ale = new ALEInterface(game, rom, { repeatActionProbability: 0, maxNumFramesPerEpisode: 0 }, () => 0.5);
  ale.resetGame(0, true);
  const minimal = ale.getMinimalActionSet();
  const ram = new Uint8Array(128);
  const run: Reference = { ram: [], screen: [], reward: 0, lives: 0, resets: 0 };
  const hex = (bytes: Uint8Array) => crc32(bytes).toString(16).padStart(8, "0");
  for (let t = 0; t < 1000; t++) {
    if (ale.gameOver()) {
      ale.resetGame(t);
      run.resets++;
    }
    run.reward += ale.act(scriptedAction(t, minimal));
    if ((t + 1) % 100 === 0) {
      run.ram.push(hex(ale.getRAM(ram)));
      run.screen.push(hex(ale.console.screen));
    }
  }
  run.lives = ale.lives();
  return run;
}

describe("fidelity to ale-py 0.12.1", () => {
  for (const game of [BREAKOUT, PONG]) {
    test(`${game.name}: RAM, screen, reward, lives and resets match real ALE over 1000 scripted frames`, (t) => {
      const rom = romFor(t, game);
      if (rom === null) return;
      const ours = replay(game, rom);
      const real = REAL_ALE[game.rom];
      assert.deepEqual(ours.ram, real.ram, "RAM checksums every 100 frames");
      assert.deepEqual(ours.screen, real.screen, "screen checksums every 100 frames");
      assert.deepEqual([ours.reward, ours.lives, ours.resets], [real.reward, real.lives, real.resets]);
    });
  }
});
