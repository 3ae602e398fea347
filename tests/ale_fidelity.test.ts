// Our ALE port against the real one. The expected checksums were recorded once with ale-py 0.12.1 (ALEInterface,
// random_seed 0, repeat_action_probability 0, frame_skip 1, loadROM then reset_game, the same action rule as below,
// reset_game whenever game_over) as CRC-32s of getRAM() / getScreen() after every 100th frame. The tests need the
// cartridges (ALE_ROMS_DIR or ../shared/roms) and skip without them. Every recorded game is checked, RAM, screen,
// reward, lives and resets.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { describe, test, type TestContext } from "node:test";

import {
  BEAM_RIDER,
  BERZERK,
  BREAKOUT,
  ENDURO,
  MONTEZUMA_REVENGE,
  MS_PACMAN,
  PONG,
  SKIING,
  SPACE_INVADERS,
  SURROUND,
  TENNIS,
  WIZARD_OF_WOR,
  type GameSpec,
} from "../envs/ale/games.ts";
import { ALEInterface } from "../envs/ale/interface.ts";
// 200 NOOP frames, 10 FIRE frames, then the minimal set cycled in 8-frame blocks, as benchmark/ale_reference.py.
import { scriptedAction } from "../benchmark/ale_fidelity.ts";
import { md5Hex } from "../envs/ale/roms.ts";
import { ROM_DIR, skipWithoutRom } from "./helpers.ts";

interface Reference {
  ram: string[];
  /** Absent if not recorded. */
  screen: string[];
  reward: number;
  lives: number;
  resets: number;
}

/** Real ALE's trajectory under `scriptedAction` for 1000 frames. */
const REAL_ALE: Record<string, Reference> = {
  breakout: {
    ram: [
      "aa309359",
      "5b35fcb0",
      "57239fb2",
      "624dcd7f",
      "9dfd6b54",
      "2d2d7f2c",
      "3780b4b5",
      "2c50eca4",
      "a3d5e70b",
      "abf97d5a",
    ],
    screen: [
      "0ae968e5",
      "0ae968e5",
      "4b47cf3c",
      "b981c3ee",
      "ad62f6a7",
      "f11ad23c",
      "41dc8363",
      "29e4d7bc",
      "7c960d02",
      "7b70fcb4",
    ],
    reward: 0,
    lives: 2,
    resets: 1,
  },
  pong: {
    ram: [
      "9b10fa0b",
      "e5c14227",
      "c4adda5b",
      "464f97db",
      "ba75fa0c",
      "43c188ac",
      "a80ff4a3",
      "f54036bc",
      "7475ee99",
      "c4b10c4b",
    ],
    screen: [
      "74ea4215",
      "3ac035a3",
      "183f141f",
      "77640e1b",
      "318aa9c4",
      "e1470b5e",
      "575c1afc",
      "4f94881a",
      "3685f266",
      "239d0c99",
    ],
    reward: -6,
    lives: 0,
    resets: 0,
  },
  space_invaders: {
    ram: [
      "b021a439",
      "5b2c6f00",
      "7624a0fd",
      "976905e8",
      "8ab4e9c5",
      "7400e71e",
      "a272ed67",
      "d19f7369",
      "9a17ab11",
      "63a2daec",
    ],
    screen: [
      "ab47c413",
      "9d127179",
      "ed7fdbe5",
      "7458b3a2",
      "41b91407",
      "46797f44",
      "c822e5dc",
      "45dd941a",
      "e502e885",
      "f22d8a66",
    ],
    reward: 50,
    lives: 2,
    resets: 0,
  },
  enduro: {
    ram: [
      "2227bb36",
      "c25f0565",
      "d1f0d2a9",
      "2c243aea",
      "6df635d1",
      "f4f9fb12",
      "ca1715e3",
      "983b64bb",
      "859ace0a",
      "0a9aacf2",
    ],
    screen: [
      "f6a4907d",
      "9ef9501f",
      "72299491",
      "0aa86005",
      "7bfb31e3",
      "8fbd8c23",
      "128f3d8a",
      "f94d025a",
      "3bbf737d",
      "cea4874e",
    ],
    reward: 0,
    lives: 0,
    resets: 0,
  },
  montezuma_revenge: {
    ram: [
      "2ac92995",
      "a9957f2d",
      "33a9fa07",
      "81bd3084",
      "217ec5de",
      "fa5eedba",
      "0135f441",
      "cf790aff",
      "8c29cbaf",
      "18d11e7e",
    ],
    screen: [
      "41b73874",
      "c3576af8",
      "11e6484c",
      "7cfc62f5",
      "09238332",
      "2dddf4e1",
      "cc4f608f",
      "ef73f7c3",
      "e0adf57a",
      "a95b2328",
    ],
    reward: 0,
    lives: 6,
    resets: 0,
  },
  beam_rider: {
    ram: [
      "1c5daace",
      "c555bf47",
      "1e8e9105",
      "f932e922",
      "e23e6cde",
      "d3c8803f",
      "97b81360",
      "9daa8ee6",
      "13c0e45b",
      "aaa22283",
    ],
    screen: [
      "83b941e4",
      "eaa7c4fb",
      "add8d795",
      "1d17f8d7",
      "b4cae546",
      "3b8fa7d2",
      "85826001",
      "444232d3",
      "0cd34e32",
      "0408bcff",
    ],
    reward: 44,
    lives: 3,
    resets: 0,
  },
  tennis: {
    ram: [
      "8848dd13",
      "2f937ee1",
      "3541dd2a",
      "562da2e7",
      "665e5a1b",
      "54a94de4",
      "dfb51142",
      "612275e5",
      "e79bf155",
      "3757350c",
    ],
    screen: [
      "08813f39",
      "1100b9cc",
      "c0f5740f",
      "b4454179",
      "48ae79ec",
      "749439a5",
      "f0d45c40",
      "65f6a80d",
      "758d7ce2",
      "e1b5d796",
    ],
    reward: -3,
    lives: 0,
    resets: 0,
  },
  ms_pacman: {
    ram: [
      "c0a675c6",
      "dcd4c776",
      "a23e74e9",
      "020fa8e7",
      "9f5d6eb7",
      "ce94e49c",
      "90f393ef",
      "9656a7e6",
      "457ffc0c",
      "b2da97eb",
    ],
    screen: [
      "40881216",
      "f6547cec",
      "f4e5bca2",
      "a309d043",
      "9effa9b9",
      "c601f6a5",
      "9d2c5231",
      "f070fdf6",
      "6583f8e1",
      "92514c0c",
    ],
    reward: 70,
    lives: 2,
    resets: 0,
  },
  berzerk: {
    ram: [
      "b0002c1c",
      "aa4594a3",
      "af176722",
      "b5c8808f",
      "11685b72",
      "96d194cd",
      "30ca650d",
      "1e8c02c3",
      "6ef254f7",
      "70304cb4",
    ],
    screen: [
      "197f1ee7",
      "619bfde2",
      "480c2d17",
      "ae430972",
      "0619470c",
      "39cd1785",
      "86d3ed8d",
      "0740ac09",
      "2938c69f",
      "aeecc2b3",
    ],
    reward: 200,
    lives: 1,
    resets: 0,
  },
  wizard_of_wor: {
    ram: [
      "b8ed620a",
      "bcf61df6",
      "f3f4cbd0",
      "908bb931",
      "b39fdc4b",
      "cb214290",
      "1a46b7d7",
      "4b76029a",
      "ff67df73",
      "0a064b09",
    ],
    screen: [
      "4cddf17d",
      "abc6da0e",
      "bb648c43",
      "bf682603",
      "d90ae2cb",
      "5b89b25f",
      "034a1294",
      "c4c09eec",
      "ccbd76e7",
      "b040de91",
    ],
    reward: 100,
    lives: 3,
    resets: 0,
  },
  skiing: {
    // Frames 200-209 press FIRE, which Skiing's isLegal rejects: ALE plays NOOP there, and the run goes on.
    ram: [
      "886ba763",
      "b381fed5",
      "1fc95cef",
      "db9e4c20",
      "635ea279",
      "79475bb0",
      "dbe49abe",
      "59370c31",
      "e76f4a7a",
      "51c44eea",
    ],
    screen: [
      "fce5c0e5",
      "c51d4028",
      "2b7d5700",
      "c5e7c3fa",
      "23d4204d",
      "ea608dc5",
      "5b44c3bb",
      "f2e1e39b",
      "c35ddf7e",
      "054d8046",
    ],
    reward: -1664,
    lives: 0,
    resets: 0,
  },
  surround: {
    // Surround never clears its frame counter (RAM $FD), which steers the computer player: it depends on the 60
    // frames Stella's Console constructor runs to detect the TV standard before ALE's first reset.
    ram: [
      "64e93498",
      "f7b1c93f",
      "22694549",
      "c6a77b84",
      "ca816b0c",
      "770fe64e",
      "cf72eae2",
      "de3a9699",
      "c93ba0fb",
      "0351e422",
    ],
    screen: [
      "9d38b9fb",
      "9921da5b",
      "bb869414",
      "2fdbc1e2",
      "2fdbc1e2",
      "3eae7ec2",
      "494c3e3a",
      "fe155d81",
      "13c4b7be",
      "13c4b7be",
    ],
    reward: -2,
    lives: 1,
    resets: 0,
  },
};

function romFor(t: TestContext, game: GameSpec): Uint8Array | null {
  const missing = skipWithoutRom(game.rom);
  if (missing) {
    t.skip(missing);
    return null;
  }
  const path = join(ROM_DIR, `${game.rom}.bin`);
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

const GAMES_RECORDED = [
  BREAKOUT,
  PONG,
  BEAM_RIDER,
  TENNIS,
  SPACE_INVADERS,
  ENDURO,
  MONTEZUMA_REVENGE,
  MS_PACMAN,
  BERZERK,
  WIZARD_OF_WOR,
  SKIING,
  SURROUND,
];

describe("fidelity to ale-py 0.12.1", () => {
  test("every recorded trajectory belongs to a game checked below", () => {
    assert.deepEqual(Object.keys(REAL_ALE).sort(), GAMES_RECORDED.map((g) => g.rom).sort());
  });
  for (const game of GAMES_RECORDED) {
    const real = REAL_ALE[game.rom];
    test(`${game.name}: RAM, screen, reward, lives and resets match real ALE over 1000 scripted frames`, (t) => {
      const rom = romFor(t, game);
      if (rom === null) return;
      const ours = replay(game, rom);
      assert.deepEqual(ours.ram, real.ram, "RAM checksums every 100 frames");
      assert.deepEqual(ours.screen, real.screen, "screen checksums every 100 frames");
      assert.deepEqual([ours.reward, ours.lives, ours.resets], [real.reward, real.lives, real.resets]);
    });
  }
});
