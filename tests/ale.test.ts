// Specifications for the ALE driver, on a cartridge of our own (tests/fixtures/testcart.asm, assembled here with
// dasm), so they run without commercial ROMs. Expected values come from the cartridge's documented behaviour, the
// 2600's input wiring (SWCHA bits 4-7 = P0 up/down/left/right, low when pressed; INPT4 bit 7 low while FIRE is
// held) and ALE's reset procedure (60 NOOP frames, then two 4-frame RESET presses for a game with no mode select).

import assert from "node:assert/strict";
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import dasmModule from "dasm";

import { checkEnv } from "../envs/gymnasium/env_checker.ts";
import { make, spec as envSpec } from "../envs/gymnasium/registration.ts";
import {
  Action,
  ACTION_MEANINGS,
  AtariEnv,
  Atari2600,
  RomNotFoundError,
  decimalScore,
  findRom,
  type GameSettings,
  type GameSpec,
} from "../envs/ale/index.ts";
import { alePyRomDir, md5Hex } from "../envs/ale/roms.ts";
import { registerGame } from "../envs/ale/index.ts";

// dasm is CommonJS: under Node's ESM loader its default import is `module.exports`, whose `default` is the assembler.
type Assemble = (source: string, options: { format: 3 }) => { success: boolean; data: Uint8Array; output: string[] };
const dasm = (dasmModule as unknown as { default: Assemble }).default;

function assembleTestCart(): Uint8Array {
  const source = readFileSync(new URL("./fixtures/testcart.asm", import.meta.url), "utf8");
  const result = dasm(source, { format: 3 });
  assert.ok(result.success, `dasm failed:\n${result.output.join("\n")}`);
  return result.data;
}

const ROM = assembleTestCart();

/** A fresh folder for ROM-lookup tests, removed when the test file ends. */
function tempRomDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "ale-roms-"));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// RAM indices of the test cartridge (address - $80).
const COUNTER = 0x00;
const SCORE_LO = 0x01;
const LIVES = 0x03;
const GAME_OVER = 0x04;
const LAST_SWCHA = 0x05;
const LAST_INPT4 = 0x06;

/** Reward = change of the BCD score at RAM $81/$82, lives = RAM $83, terminal = the game-over flag at RAM $84. */
class TestCartSettings implements GameSettings {
  reward = 0;
  terminal = false;
  private score = 0;
  private livesLeft = 0;
  reset(): void {
    this.score = 0;
    this.reward = 0;
    this.terminal = false;
  }
  step(ram: Uint8Array): void {
    const score = decimalScore(ram, SCORE_LO, SCORE_LO + 1);
    this.reward = score - this.score;
    this.score = score;
    this.terminal = ram[GAME_OVER] !== 0;
    this.livesLeft = ram[LIVES];
  }
  lives(): number {
    return this.livesLeft;
  }
}

const TEST_CART: GameSpec = {
  name: "TestCart",
  rom: "testcart",
  md5: md5Hex(ROM),
  minimalActions: [Action.NOOP, Action.FIRE, Action.UP, Action.DOWN],
  createSettings: () => new TestCartSettings(),
};
registerGame(TEST_CART, { game: TEST_CART, rom: ROM });

function testEnv(kwargs: Partial<ConstructorParameters<typeof AtariEnv>[0]> = {}): AtariEnv {
  return new AtariEnv({ game: TEST_CART, rom: ROM, frameskip: 1, repeatActionProbability: 0, ...kwargs });
}

/** A console powered on and run for `frames` frames of NOOP. */
function bootedConsole(frames: number): Atari2600 {
  const emu = new Atari2600(ROM);
  emu.powerOn(0);
  for (let i = 0; i < frames; i++) emu.emulateFrame();
  return emu;
}

describe("emulator", () => {
  test("the test cartridge assembles to a 4K image", () => {
    assert.equal(ROM.length, 4096);
  });

  test("one emulateFrame runs exactly one VSYNC-delimited frame", () => {
    const emu = bootedConsole(3);
    const before = emu.readRam(COUNTER);
    for (let i = 1; i <= 10; i++) {
      emu.emulateFrame();
      assert.equal(emu.readRam(COUNTER), (before + i) & 0xff);
    }
  });

  test("the screen is the 210 scanlines starting 34 lines after VSYNC, one TIA colour byte per pixel", () => {
    const emu = bootedConsole(5);
    const colour = emu.readRam(COUNTER) & 0xfe; // shown by the next frame's kernel
    emu.emulateFrame();
    const row = (r: number) => emu.screen.subarray(r * 160, (r + 1) * 160);
    assert.ok(
      row(2).every((v) => v === 0),
      "frame line 36 is still in VBLANK",
    );
    assert.ok(
      row(3).every((v) => v === 0x0e),
      "frame line 37, the first kernel line, is white",
    );
    assert.ok(
      row(4).every((v) => v === colour) && row(194).every((v) => v === colour),
      "kernel lines show the counter",
    );
    assert.ok(row(195).every((v) => v === 0) && row(209).every((v) => v === 0), "overscan is blanked");
  });

  test("screen bytes become RGB and grey through ALE's NTSC palette", () => {
    const emu = bootedConsole(6);
    const rgb = emu.getScreenRGB(new Uint8Array(210 * 160 * 3));
    const grey = emu.getScreenGrayscale(new Uint8Array(210 * 160));
    // Colour $0E is palette entry 7, 0xECECEC; its grey is round(236 * (0.2989 + 0.5870 + 0.1140)) = 236.
    assert.deepEqual([...rgb.subarray(3 * 160 * 3, 3 * 160 * 3 + 3)], [0xec, 0xec, 0xec]);
    assert.equal(grey[3 * 160], 236);
    // Colour $00 is black in both.
    assert.deepEqual([...rgb.subarray(0, 3)], [0, 0, 0]);
    assert.equal(grey[0], 0);
  });

  test("each of the 18 actions presses exactly its joystick directions and button", () => {
    const emu = bootedConsole(3);
    for (let action = 0; action < 18; action++) {
      const name = ACTION_MEANINGS[action];
      emu.applyAction(action);
      emu.emulateFrame(false);
      const swcha = emu.readRam(LAST_SWCHA);
      const pressed = (bit: number) => (swcha & (1 << bit)) === 0;
      assert.equal(pressed(4), name.includes("UP"), `${name}: up`);
      assert.equal(pressed(5), name.includes("DOWN"), `${name}: down`);
      assert.equal(pressed(6), name.includes("LEFT"), `${name}: left`);
      assert.equal(pressed(7), name.includes("RIGHT"), `${name}: right`);
      assert.equal((emu.readRam(LAST_INPT4) & 0x80) === 0, name.includes("FIRE"), `${name}: fire`);
      emu.applyAction(Action.RESET); // keep lives from running out on the DOWN actions
      emu.emulateFrame(false);
    }
  });

  test("the console RESET switch restarts the cartridge's game", () => {
    const emu = bootedConsole(3);
    emu.applyAction(Action.FIRE);
    emu.emulateFrame();
    emu.applyAction(Action.DOWN);
    emu.emulateFrame();
    assert.deepEqual([emu.readRam(SCORE_LO), emu.readRam(LIVES)], [1, 2]);
    emu.applyAction(Action.RESET);
    emu.emulateFrame();
    assert.deepEqual([emu.readRam(SCORE_LO), emu.readRam(LIVES)], [0, 3]);
  });

  test("a frame emulated without rendering runs the game but leaves the screen as it was", () => {
    const emu = bootedConsole(5);
    const screen = emu.screen.slice();
    const counter = emu.readRam(COUNTER);
    emu.emulateFrame(false);
    assert.equal(emu.readRam(COUNTER), counter + 1);
    assert.deepEqual(emu.screen, screen);
    emu.emulateFrame(true);
    assert.notDeepEqual(emu.screen, screen);
  });

  test("a new console is off: nothing is emulated until powerOn", () => {
    assert.equal(new Atari2600(ROM).framesEmulated, 0);
  });

  test("power-on runs the 60 frames of Stella's NTSC/PAL detection before the game is reset", () => {
    // Console.cxx (Display.Format AUTO-DETECT): games that never clear a counter see those frames (Surround's $FD).
    const emu = new Atari2600(ROM);
    const frames = emu.framesEmulated;
    emu.powerOn(0);
    assert.equal(emu.framesEmulated - frames, 60);
    // The first frame ends at the cartridge's first VSYNC, before any increment: 59 of them are left in RAM.
    assert.equal(emu.ram[COUNTER], 59);
    emu.emulateFrame();
    assert.equal(emu.ram[COUNTER], 0, "then the CPU starts over from the reset vector and clears RAM");
  });

  test("the same power-on seed gives the same machine", () => {
    const a = new Atari2600(ROM);
    const b = new Atari2600(ROM);
    a.powerOn(7);
    b.powerOn(7);
    for (let i = 0; i < 5; i++) {
      a.emulateFrame();
      b.emulateFrame();
    }
    assert.deepEqual(a.ram, b.ram);
    assert.deepEqual(a.screen, b.screen);
  });
});

describe("AtariEnv", () => {
  test("reset runs ALE's procedure: 60 NOOP frames and two 4-frame RESET presses, none of them counted", () => {
    const env = testEnv({ obsType: "ram" });
    const [ram, info] = env.reset({ seed: 0 });
    // The first frame is the boot (counter cleared); each of the other 67 increments the counter once.
    assert.equal(ram[COUNTER], 60 + 4 + 4 - 1);
    assert.deepEqual(info, { lives: 3, episode_frame_number: 0, frame_number: 0 });
  });

  test("observation spaces follow obs_type", () => {
    assert.deepEqual(testEnv().observationSpace.shape, [210, 160, 3]);
    assert.deepEqual(testEnv({ obsType: "grayscale" }).observationSpace.shape, [210, 160]);
    assert.deepEqual(testEnv({ obsType: "ram" }).observationSpace.shape, [128]);
    const [obs] = testEnv().reset({ seed: 0 });
    assert.equal(obs.length, 210 * 160 * 3);
  });

  test("the reward is the change of the BCD score read from RAM", () => {
    const env = testEnv();
    env.reset({ seed: 0 });
    const fire = env.getActionMeanings().indexOf("FIRE");
    const up = env.getActionMeanings().indexOf("UP");
    assert.equal(env.step(fire)[1], 1);
    assert.equal(env.step(up)[1], 10);
    let total = 11;
    for (let i = 0; i < 9; i++) total += env.step(up)[1]; // 11 + 90 = 101: carries into the high BCD byte
    assert.equal(total, 101);
    assert.equal(decimalScore(env.ale.console.ram, SCORE_LO, SCORE_LO + 1), 101);
  });

  test("frameskip repeats the action and sums the rewards", () => {
    const env = testEnv({ frameskip: 4 });
    env.reset({ seed: 0 });
    const [, reward, , , info] = env.step(env.getActionMeanings().indexOf("FIRE"));
    assert.equal(reward, 4);
    assert.equal(info.episode_frame_number, 4);
  });

  test("a stochastic frameskip [2, 5) runs 2 to 4 frames per step", () => {
    const env = testEnv({ frameskip: [2, 5] });
    env.reset({ seed: 3 });
    let frames = 0;
    const seen = new Set<number>();
    for (let i = 0; i < 40; i++) {
      const info = env.step(0)[4];
      seen.add((info.episode_frame_number as number) - frames);
      frames = info.episode_frame_number as number;
    }
    assert.deepEqual([...seen].sort(), [2, 3, 4]);
  });

  test("lives come from RAM and the game's terminal test ends the episode", () => {
    const env = testEnv();
    env.reset({ seed: 0 });
    const down = env.getActionMeanings().indexOf("DOWN");
    let step = env.step(down);
    assert.equal(step[4].lives, 2);
    assert.equal(step[2], false);
    env.step(down);
    step = env.step(down);
    assert.equal(step[2], true, "terminated when the lives run out");
    assert.equal(step[3], false);
  });

  test("after game over ALE emulates nothing: no reward, frame counters frozen", () => {
    const env = testEnv();
    env.reset({ seed: 0 });
    const down = env.getActionMeanings().indexOf("DOWN");
    for (let i = 0; i < 3; i++) env.step(down);
    const frames = env.step(0)[4].frame_number;
    const [, reward, terminated, , info] = env.step(env.getActionMeanings().indexOf("FIRE"));
    assert.deepEqual([reward, terminated, info.frame_number], [0, true, frames]);
  });

  test("max_num_frames_per_episode truncates the episode", () => {
    const env = testEnv({ maxNumFramesPerEpisode: 10 });
    env.reset({ seed: 0 });
    for (let t = 1; t <= 10; t++) {
      const [, , terminated, truncated] = env.step(0);
      assert.equal(terminated, false);
      assert.equal(truncated, t === 10, `step ${t}`);
    }
  });

  test("with repeat_action_probability 1 the action after a reset stays NOOP", () => {
    const env = testEnv({ repeatActionProbability: 1 });
    env.reset({ seed: 0 });
    let total = 0;
    for (let i = 0; i < 20; i++) total += env.step(env.getActionMeanings().indexOf("FIRE"))[1];
    assert.equal(total, 0);
  });

  test("sticky actions delay the new action by a geometric number of frames", () => {
    // With p = 0.5 a requested action takes effect on each frame with probability 0.5 and then stays. After 10 NOOP
    // frames (the sticky action is NOOP but for 0.5^10), the number of FIRE frames among the next 4 FIRE requests
    // averages 4 - (0.5 + 0.25 + 0.125 + 0.0625) = 3.0625 (without sticky actions it would be 4, with p = 1 it is 0).
    const env = testEnv({ repeatActionProbability: 0.5 });
    const fire = env.getActionMeanings().indexOf("FIRE");
    env.reset({ seed: 11 });
    const blocks = 150;
    let total = 0;
    for (let b = 0; b < blocks; b++) {
      for (let i = 0; i < 10; i++) env.step(0);
      for (let i = 0; i < 4; i++) total += env.step(fire)[1];
    }
    const mean = total / blocks;
    assert.ok(Math.abs(mean - 3.0625) < 0.25, `mean FIRE frames ${mean}`);
  });

  test("the same seed reproduces the same episode, sticky actions included", () => {
    const run = () => {
      const env = testEnv({ repeatActionProbability: 0.25, obsType: "ram" });
      env.reset({ seed: 42 });
      env.actionSpace.seed(1);
      const rewards: number[] = [];
      for (let i = 0; i < 30; i++) rewards.push(env.step(env.actionSpace.sample())[1]);
      return rewards;
    };
    assert.deepEqual(run(), run());
  });

  test("action meanings and the full action space follow ALE's action order", () => {
    assert.deepEqual(testEnv().getActionMeanings(), ["NOOP", "FIRE", "UP", "DOWN"]);
    const full = testEnv({ fullActionSpace: true });
    assert.equal(full.actionSpace.n, 18);
    assert.deepEqual(full.getActionMeanings(), [
      "NOOP",
      "FIRE",
      "UP",
      "RIGHT",
      "LEFT",
      "DOWN",
      "UPRIGHT",
      "UPLEFT",
      "DOWNRIGHT",
      "DOWNLEFT",
      "UPFIRE",
      "RIGHTFIRE",
      "LEFTFIRE",
      "DOWNFIRE",
      "UPRIGHTFIRE",
      "UPLEFTFIRE",
      "DOWNRIGHTFIRE",
      "DOWNLEFTFIRE",
    ]);
  });

  test("actions the game's isLegal rejects leave the full action space and are played as NOOP when asked for", () => {
    // ALE's getLegalActionSet filters by RomSettings::isLegal (Skiing drops its FIRE actions), and oneStepAct turns
    // an illegal action into NOOP before emulating it: no FIRE score, INPT4 shows the button released.
    const game: GameSpec = { ...TEST_CART, illegalActions: [Action.FIRE, Action.UPFIRE] };
    const full = new AtariEnv({ game, rom: ROM, frameskip: 1, repeatActionProbability: 0, fullActionSpace: true });
    assert.equal(full.actionSpace.n, 16);
    assert.deepEqual(full.getActionMeanings().slice(0, 3), ["NOOP", "UP", "RIGHT"]);
    assert.ok(!full.getActionMeanings().includes("UPFIRE"));
    const env = new AtariEnv({ game, rom: ROM, frameskip: 1, repeatActionProbability: 0 });
    env.reset({ seed: 0 });
    assert.equal(env.ale.act(Action.FIRE), 0);
    assert.equal(env.ale.console.ram[LAST_INPT4] & 0x80, 0x80, "FIRE not pressed");
    assert.equal(env.ale.act(Action.UPFIRE), 0, "UPFIRE is NOOP, not UP");
    assert.equal(env.ale.act(Action.UP), 10, "legal actions still play");
    assert.equal(env.ale.act(Action.DOWNFIRE), 1, "FIRE in a legal action still presses the button");
  });

  test("rgb_array rendering returns the current screen as a frame", () => {
    const env = testEnv({ renderMode: "rgb_array" });
    const [obs] = env.reset({ seed: 0 });
    const frame = env.render();
    assert.ok(frame !== null);
    assert.deepEqual([frame.width, frame.height], [160, 210]);
    assert.deepEqual(frame.data, obs);
  });

  test("stepWithoutObservation advances the game like step", () => {
    const a = testEnv();
    const b = testEnv();
    a.reset({ seed: 0 });
    b.reset({ seed: 0 });
    const fire = a.getActionMeanings().indexOf("FIRE");
    const [reward, terminated, truncated, info] = a.stepWithoutObservation(fire);
    const step = b.step(fire);
    assert.deepEqual([reward, terminated, truncated, info], [step[1], step[2], step[3], step[4]]);
    assert.deepEqual(a.step(0)[0], b.step(0)[0]);
  });

  test("stepInto writes the observation step returns into the given buffer", () => {
    const a = testEnv();
    const b = testEnv();
    a.reset({ seed: 0 });
    b.reset({ seed: 0 });
    const fire = a.getActionMeanings().indexOf("FIRE");
    const out = new Uint8Array(210 * 160 * 3);
    for (let t = 0; t < 5; t++) {
      const [reward, terminated, truncated, info] = a.stepInto(fire, out);
      const step = b.step(fire);
      assert.deepEqual([reward, terminated, truncated, info], [step[1], step[2], step[3], step[4]]);
      assert.deepEqual(out, step[0]);
    }
    const frame = a.ale.getFrameNumber();
    assert.throws(() => a.stepInto(0, new Uint8Array(10)), /observation is 100800 values/);
    assert.equal(a.ale.getFrameNumber(), frame, "nothing emulated for a wrong buffer");
  });

  test("the registered test cartridge passes the env checker", () => {
    const env = make("TestCartNoFrameskip-v4");
    checkEnv(env.unwrapped, { onWarning: () => {} });
  });

  test("a ROM with another MD5 than the game's is refused", () => {
    const other = ROM.slice();
    other[0] ^= 0xff;
    assert.throws(() => new AtariEnv({ game: TEST_CART, rom: other }), /MD5/);
  });
});

describe("registration and ROM lookup", () => {
  test("ids and defaults follow ale-py: NoFrameskip-v4 and ALE/...-v5", () => {
    const v4 = envSpec("BreakoutNoFrameskip-v4");
    assert.equal(v4.maxEpisodeSteps, null);
    assert.deepEqual(
      [
        v4.kwargs.frameskip,
        v4.kwargs.repeatActionProbability,
        v4.kwargs.fullActionSpace,
        v4.kwargs.maxNumFramesPerEpisode,
      ],
      [1, 0, false, 108_000],
    );
    const v5 = envSpec("ALE/Pong-v5");
    assert.equal(v5.maxEpisodeSteps, null);
    assert.deepEqual(
      [
        v5.kwargs.frameskip,
        v5.kwargs.repeatActionProbability,
        v5.kwargs.fullActionSpace,
        v5.kwargs.maxNumFramesPerEpisode,
      ],
      [4, 0.25, false, 108_000],
    );
    assert.ok(envSpec("ALE/BeamRider-v5"));
  });

  test("a missing ROM raises one error naming the game, every place searched and how to get ROMs", () => {
    const empty = tempRomDir();
    const err = (() => {
      try {
        findRom("breakout", "f34f08e5eb96e500e851a80be3277a56", {
          romDir: empty,
          env: { ALE_ROMS_DIR: "/nonexistent/roms" },
          askPython: false,
        });
      } catch (e) {
        return e;
      }
      return null;
    })();
    assert.ok(err instanceof RomNotFoundError);
    assert.match(err.message, /"breakout"/);
    assert.ok(err.message.includes(empty) && err.message.includes("/nonexistent/roms"));
    assert.match(err.message, /AutoROM/);
    assert.match(err.message, /ALE_ROMS_DIR/);
  });

  test("a file named like the game is rejected when its MD5 is not ALE's", () => {
    const dir = tempRomDir();
    writeFileSync(join(dir, "breakout.bin"), ROM);
    assert.throws(
      () => findRom("breakout", "f34f08e5eb96e500e851a80be3277a56", { romDir: dir, env: {}, askPython: false }),
      (e: unknown) =>
        e instanceof RomNotFoundError &&
        e.message.includes(join(dir, "breakout.bin")) &&
        e.message.includes(md5Hex(ROM)),
    );
  });

  test("the MD5, not the file name, identifies the ROM", () => {
    const dir = tempRomDir();
    writeFileSync(join(dir, "whatever.bin"), ROM);
    assert.equal(
      findRom("testcart", md5Hex(ROM), { romDir: dir, env: {}, askPython: false }).path,
      join(dir, "whatever.bin"),
    );
  });

  test("make raises the ROM error when the ROM is missing", (t) => {
    if (alePyRomDir() !== null) return t.skip("an installed ale-py may provide the ROM");
    const saved = process.env.ALE_ROMS_DIR;
    delete process.env.ALE_ROMS_DIR;
    try {
      const empty = tempRomDir();
      assert.throws(() => make("BreakoutNoFrameskip-v4", { romDir: empty }), RomNotFoundError);
    } finally {
      if (saved !== undefined) process.env.ALE_ROMS_DIR = saved;
    }
  });
});
