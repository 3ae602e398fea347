// Specifications for the game table (envs/ale/games.ts) that need no ROM: every entry is consistent with ALE's ROM
// list and action enum and is registered under ale-py's ids, a few minimal action sets match the ones ale-py
// documents (gymnasium.farama.org/environments/atari/<game>, "Actions"), and a few games' reward, terminal and
// lives rules give, on a RAM image written by hand, the values worked out by hand from ALE's
// src/games/supported/<Game>.cpp.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { spec as envSpec } from "../envs/gymnasium/registration.ts";
import { ACTION_MEANINGS, GAMES, ROM_MD5S, type GameSettings, type GameSpec } from "../envs/ale/index.ts";

/** The Atari-57 benchmark set as ale-py names it. */
const ATARI_57 = [
  "Alien",
  "Amidar",
  "Assault",
  "Asterix",
  "Asteroids",
  "Atlantis",
  "BankHeist",
  "BattleZone",
  "BeamRider",
  "Berzerk",
  "Bowling",
  "Boxing",
  "Breakout",
  "Centipede",
  "ChopperCommand",
  "CrazyClimber",
  "Defender",
  "DemonAttack",
  "DoubleDunk",
  "Enduro",
  "FishingDerby",
  "Freeway",
  "Frostbite",
  "Gopher",
  "Gravitar",
  "Hero",
  "IceHockey",
  "Jamesbond",
  "Kangaroo",
  "Krull",
  "KungFuMaster",
  "MontezumaRevenge",
  "MsPacman",
  "NameThisGame",
  "Phoenix",
  "Pitfall",
  "Pong",
  "PrivateEye",
  "Qbert",
  "Riverraid",
  "RoadRunner",
  "Robotank",
  "Seaquest",
  "Skiing",
  "Solaris",
  "SpaceInvaders",
  "StarGunner",
  "Surround",
  "Tennis",
  "TimePilot",
  "Tutankham",
  "UpNDown",
  "Venture",
  "VideoPinball",
  "WizardOfWor",
  "YarsRevenge",
  "Zaxxon",
];

const games = [...GAMES.values()];
const byName = (name: string): GameSpec => {
  const game = games.find((g) => g.name === name);
  assert.ok(game, `${name} is not in the table`);
  return game;
};
const meanings = (name: string) => byName(name).minimalActions.map((a) => ACTION_MEANINGS[a]);

/** A settings object after RomSettings::reset, and a 128-byte RAM image with the given bytes at ALE addresses. */
function fresh(name: string): GameSettings {
  const settings = byName(name).createSettings();
  settings.reset();
  return settings;
}
function ramWith(bytes: Record<number, number>): Uint8Array {
  const ram = new Uint8Array(128);
  for (const [address, value] of Object.entries(bytes)) ram[Number(address) & 0x7f] = value;
  return ram;
}

describe("the game table", () => {
  test("covers exactly the Atari-57 set", () => {
    assert.equal(ATARI_57.length, 57);
    assert.deepEqual(games.map((g) => g.name).sort(), [...ATARI_57].sort());
  });

  test("each game's MD5 is ALE's image for its ROM id", () => {
    for (const game of games) assert.equal(ROM_MD5S[game.md5], game.rom, game.name);
  });

  test("each minimal action set is a non-empty subset of the 18 actions in ALE's order, without repeats", () => {
    for (const game of games) {
      const actions = game.minimalActions;
      assert.ok(actions.length > 0, game.name);
      for (const a of actions) assert.ok(Number.isInteger(a) && a >= 0 && a < 18, `${game.name}: action ${a}`);
      for (let i = 1; i < actions.length; i++)
        assert.ok(actions[i - 1] < actions[i], `${game.name}: not strictly increasing`);
    }
  });

  test("starting actions are joystick actions", () => {
    for (const game of games) {
      for (const a of game.startingActions ?? [])
        assert.ok(Number.isInteger(a) && a >= 0 && a < 18, `${game.name}: ${a}`);
    }
  });

  test("a game with several modes says how to select them, and lists each mode and difficulty once", () => {
    for (const game of games) {
      const modes = game.modes ?? [0];
      const difficulties = game.difficulties ?? [0];
      assert.equal(new Set(modes).size, modes.length, game.name);
      assert.equal(new Set(difficulties).size, difficulties.length, game.name);
      if (modes.length > 1)
        assert.ok(game.modeSelect ?? game.selectMode, `${game.name} has modes but no way to select them`);
      assert.ok(!(game.modeSelect && game.selectMode), `${game.name}: modeSelect and selectMode both given`);
    }
  });

  test("every game is registered as {Name}NoFrameskip-v4 and ALE/{Name}-v5 for its ROM", () => {
    for (const game of games) {
      assert.equal(envSpec(`${game.name}NoFrameskip-v4`).kwargs.game, game.rom);
      assert.equal(envSpec(`ALE/${game.name}-v5`).kwargs.game, game.rom);
    }
  });

  test("every NoFrameskip-v4 id ends its episodes at 108k frames through ALE, with no TimeLimit (ale-py 0.8)", () => {
    for (const game of games) {
      const spec = envSpec(`${game.name}NoFrameskip-v4`);
      assert.deepEqual([spec.maxEpisodeSteps, spec.kwargs.maxNumFramesPerEpisode], [null, 108_000], game.name);
    }
  });
});

describe("minimal action sets match ale-py's documented ones", () => {
  test("Pong has 6 and Breakout 4: NOOP, FIRE, RIGHT, LEFT", () => {
    assert.equal(byName("Pong").minimalActions.length, 6);
    assert.deepEqual(meanings("Breakout"), ["NOOP", "FIRE", "RIGHT", "LEFT"]);
  });

  test("SpaceInvaders: NOOP, FIRE, RIGHT, LEFT, RIGHTFIRE, LEFTFIRE", () => {
    assert.deepEqual(meanings("SpaceInvaders"), ["NOOP", "FIRE", "RIGHT", "LEFT", "RIGHTFIRE", "LEFTFIRE"]);
  });

  test("Qbert: NOOP, FIRE, UP, RIGHT, LEFT, DOWN", () => {
    assert.deepEqual(meanings("Qbert"), ["NOOP", "FIRE", "UP", "RIGHT", "LEFT", "DOWN"]);
  });

  test("Freeway: NOOP, UP, DOWN; Skiing: NOOP, RIGHT, LEFT", () => {
    assert.deepEqual(meanings("Freeway"), ["NOOP", "UP", "DOWN"]);
    assert.deepEqual(meanings("Skiing"), ["NOOP", "RIGHT", "LEFT"]);
  });

  test("UpNDown: NOOP, FIRE, UP, DOWN, UPFIRE, DOWNFIRE", () => {
    assert.deepEqual(meanings("UpNDown"), ["NOOP", "FIRE", "UP", "DOWN", "UPFIRE", "DOWNFIRE"]);
  });

  test("MsPacman: NOOP and the eight directions, without FIRE", () => {
    assert.deepEqual(meanings("MsPacman"), [
      "NOOP",
      "UP",
      "RIGHT",
      "LEFT",
      "DOWN",
      "UPRIGHT",
      "UPLEFT",
      "DOWNRIGHT",
      "DOWNLEFT",
    ]);
  });

  test("Surround: NOOP, UP, RIGHT, LEFT, DOWN", () => {
    assert.deepEqual(meanings("Surround"), ["NOOP", "UP", "RIGHT", "LEFT", "DOWN"]);
  });

  test("full action space: ale-py 0.12's legal set is all 18 actions for every game but Skiing, which drops FIRE", () => {
    // Recorded from ale-py 0.12.1: ALEInterface.loadROM then getLegalActionSet() for each of the 57 ROMs.
    const legal = (g: GameSpec) => ACTION_MEANINGS.filter((_, a) => !(g.illegalActions ?? []).includes(a));
    for (const g of GAMES.values()) if (g.name !== "Skiing") assert.equal(legal(g).length, 18, g.name);
    assert.deepEqual(legal(byName("Skiing")), [
      "NOOP",
      "UP",
      "RIGHT",
      "LEFT",
      "DOWN",
      "UPRIGHT",
      "UPLEFT",
      "DOWNRIGHT",
      "DOWNLEFT",
    ]);
  });

  test("Seaquest and MontezumaRevenge use all 18 actions, Enduro 9", () => {
    assert.equal(byName("Seaquest").minimalActions.length, 18);
    assert.equal(byName("MontezumaRevenge").minimalActions.length, 18);
    assert.equal(byName("Enduro").minimalActions.length, 9);
  });
});

describe("reward, terminal and lives from RAM", () => {
  test("Seaquest reads BCD RAM 0xBA/B9/B8 as its score: 0x34, 0x12 -> 1234", () => {
    const settings = fresh("Seaquest");
    settings.step(ramWith({ 0xba: 0x34, 0xb9: 0x12, 0xb8: 0x00, 0xbb: 2 }));
    assert.equal(settings.reward, 1234);
    assert.equal(settings.terminal, false);
    assert.equal(settings.lives(), 3, "RAM 0xBB + 1");
    settings.step(ramWith({ 0xba: 0x34, 0xb9: 0x12, 0xb8: 0x00, 0xbb: 2, 0xa3: 1 }));
    assert.equal(settings.reward, 0, "same score, no reward");
    assert.equal(settings.terminal, true, "RAM 0xA3 nonzero ends the game");
    assert.equal(settings.lives(), 0);
  });

  test("SpaceInvaders counts a wrap of its 4-digit score past 10000 as a gain: 9990 -> 20 earns 30", () => {
    const settings = fresh("SpaceInvaders");
    settings.step(ramWith({ 0xe8: 0x90, 0xe6: 0x99, 0xc9: 3 }));
    assert.equal(settings.reward, 9990);
    settings.step(ramWith({ 0xe8: 0x20, 0xe6: 0x00, 0xc9: 3 }));
    assert.equal(settings.reward, 30);
    assert.equal(settings.terminal, false);
    settings.step(ramWith({ 0xe8: 0x20, 0xe6: 0x00, 0xc9: 0 }));
    assert.equal(settings.terminal, true, "no lives left");
  });

  test("Skiing rewards minus the elapsed time in centiseconds: 1:00.05 costs 6005, 10 more cost 10", () => {
    const settings = fresh("Skiing");
    settings.step(ramWith({ 0xe8: 1, 0xe9: 0x00, 0xea: 0x05 }));
    assert.equal(settings.reward, -6005);
    settings.step(ramWith({ 0xe8: 1, 0xe9: 0x00, 0xea: 0x15 }));
    assert.equal(settings.reward, -10);
    assert.equal(settings.terminal, false);
    settings.step(ramWith({ 0xe8: 1, 0xe9: 0x00, 0xea: 0x15, 0x91: 0xff }));
    assert.equal(settings.terminal, true);
    assert.equal(settings.lives(), 0, "no lives counter");
  });

  test("Pitfall starts from 2000 points: the first 2000 on screen earns nothing, dropping to 1900 costs 100", () => {
    const settings = fresh("Pitfall");
    settings.step(ramWith({ 0xd7: 0x00, 0xd6: 0x20, 0xd5: 0x00, 0x80: 0xa0 }));
    assert.equal(settings.reward, 0);
    assert.equal(settings.lives(), 3, "high nibble 0xA of RAM 0x80 is 3 lives");
    settings.step(ramWith({ 0xd7: 0x00, 0xd6: 0x19, 0xd5: 0x00, 0x80: 0x80 }));
    assert.equal(settings.reward, -100);
    assert.equal(settings.lives(), 2);
  });

  test("Atlantis earns nothing on its game-over frame, whatever the garbage score reads", () => {
    const settings = fresh("Atlantis");
    settings.step(ramWith({ 0xa2: 0x05, 0xf1: 3 }));
    assert.equal(settings.reward, 500, "BCD 05 in the lowest byte, times 100");
    settings.step(ramWith({ 0xa2: 0x05, 0xa1: 0x77, 0xf1: 0xff }));
    assert.equal(settings.terminal, true);
    assert.equal(settings.reward, 0);
  });

  test("Gopher counts the carrots left (bits of RAM 0xB4) as lives and ends when none is left", () => {
    const settings = fresh("Gopher");
    settings.step(ramWith({ 0xb4: 0b101, 0xb2: 0x20 }));
    assert.equal(settings.lives(), 2, "two of three carrot bits set");
    assert.equal(settings.reward, 20, "BCD 0x20 in the lowest byte");
    settings.step(ramWith({ 0xb4: 0b11000 }));
    assert.equal(settings.terminal, true, "bits 0-2 clear: no carrots");
    assert.equal(settings.lives(), 0);
  });

  test("DoubleDunk's reward is the change of the score difference, and it ends at 24 points once RAM 0xFE is 0xE7", () => {
    const settings = fresh("DoubleDunk");
    settings.step(ramWith({ 0xf6: 0x04, 0xf7: 0x02 }));
    assert.equal(settings.reward, 2);
    settings.step(ramWith({ 0xf6: 0x04, 0xf7: 0x05 }));
    assert.equal(settings.reward, -3);
    settings.step(ramWith({ 0xf6: 0x24, 0xf7: 0x05 }));
    assert.equal(settings.terminal, false, "24 points, but RAM 0xFE not yet 0xE7");
    settings.step(ramWith({ 0xf6: 0x24, 0xf7: 0x05, 0xfe: 0xe7 }));
    assert.equal(settings.terminal, true);
  });

  test("WizardOfWor takes lives from RAM 0x8D only while waiting to enter (RAM 0xD7 bit 0 clear)", () => {
    const settings = fresh("WizardOfWor");
    settings.step(ramWith({ 0x8d: 2, 0xd7: 1 }));
    assert.equal(settings.lives(), 3, "in the maze: the reset value stays");
    settings.step(ramWith({ 0x8d: 2, 0xd7: 0 }));
    assert.equal(settings.lives(), 2);
  });
});

describe("console wiring", () => {
  test("Surround and WizardOfWor, and only they, swap the controller ports (Console.SwapPorts)", () => {
    const swapped = games
      .filter((g) => g.console?.swapPorts)
      .map((g) => g.name)
      .sort();
    assert.deepEqual(swapped, ["Surround", "WizardOfWor"]);
  });
});
