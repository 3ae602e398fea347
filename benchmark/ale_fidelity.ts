// Fidelity of our ALE port against real ALE, game by game: replays the trajectories recorded by
// benchmark/ale_reference.py (ale-py 0.12 in a /tmp venv) on our ALEInterface, and compares every frame's RAM,
// reward, lives, game-over and screen.
//
//   npx tsx benchmark/ale_fidelity.ts --reference /tmp/ale_reference.json --rom-dir <ale_py>/roms
//        [--out notes.md] [game ...]
//
// `stepDigests` replays ale_reference.py's --frameskip-out record (post-reset screens, frameskip-4 and MaxAndSkip
// observations) through AtariEnv and MaxAndSkipEnv; tests/ale_frameskip.test.ts runs it.
//
// Outcome per game (envs/ale/README.md's categories): "identical" (everything, every frame), "screen" (all but some screen
// pixels), "ram" (a RAM byte differs somewhere, rewards/lives/game-over identical), "diverges" (a reward, lives or
// game-over differs), or "error" (the emulator threw).

import minimist from "minimist";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { crc32 } from "node:zlib";

import { usageError } from "../envs/run/cli.ts";
import { runMain } from "../envs/run/main.ts";
import { GAMES, type GameSpec } from "../envs/ale/games.ts";
import { ALEInterface } from "../envs/ale/interface.ts";
import { AtariEnv } from "../envs/ale/env.ts";
import { MaxAndSkipEnv } from "../envs/gymnasium/atari_wrappers.ts";
import { type StepWithoutObservationResult, Wrapper } from "../envs/gymnasium/core.ts";
import type { TypedArray } from "../envs/gymnasium/spaces.ts";

interface Trajectory {
  minimal: number[];
  ram: number[];
  screen: number[];
  reward: number[];
  lives: number[];
  over: boolean[];
}

export type Outcome = "identical" | "screen" | "ram" | "diverges" | "error";

export interface Comparison {
  outcome: Outcome;
  /** First frame whose RAM / screen / reward-lives-game-over differs (-1: none). */
  firstRam: number;
  firstScreen: number;
  firstDivergence: number;
  /** Frames whose screen differs. */
  screenFrames: number;
  detail?: string;
}

/**
 * The scripted actions of every fidelity run (this sweep, tests/ale_fidelity.test.ts, and ale_reference.py's Python
 * copy): 200 NOOP frames, 10 FIRE frames, then the minimal set cycled in 8-frame blocks (index 3, 8, 13, ... mod size).
 */
export function scriptedAction(t: number, minimal: readonly number[]): number {
  if (t < 200) return 0;
  if (t < 210) return 1;
  return minimal[(Math.floor((t - 210) / 8) * 5 + 3) % minimal.length];
}

/** ale_reference.py --frameskip-out's record of one game (see stepDigests). */
export interface SteppedReference {
  /** CRC-32s (hex) of the screen and RAM right after loadROM + reset_game. */
  reset: [string, string];
  /** Running digests every `checkpoint` steps: what AtariEnv(frameskip=4) observes / what MaxAndSkip pools. */
  last: string[];
  pooled: string[];
  reward: number;
  resets: number;
}

const hex = (value: number) => (value >>> 0).toString(16).padStart(8, "0");
/** Scratch for `fold`: one step's values as little-endian uint32s. */
const foldWords = new Uint32Array(9);
const foldBytes = new Uint8Array(foldWords.buffer);

/** ale_reference.py's `fold`: CRC-32 of `count` values of foldWords (little-endian uint32s), continuing `digest`. */
function fold(digest: number, count: number): number {
  return crc32(foldBytes.subarray(0, 4 * count), digest);
}

/** Between MaxAndSkipEnv and AtariEnv: the CRC-32 of the console's screen for each frame MaxAndSkip observes. */
class ScreenRecorder extends Wrapper<Uint8Array, number> {
  readonly seen: number[] = [];

  constructor(readonly atari: AtariEnv) {
    super(atari);
  }

  override stepInto(action: number, out: TypedArray | null): StepWithoutObservationResult {
    const result = this.atari.stepInto(action, out);
    if (out !== null) this.seen.push(crc32(this.atari.ale.console.screen) >>> 0);
    return result;
  }
}

/**
 * ale_reference.py's step_digests, replayed through the product's own paths: "last" steps AtariEnv(frameskip=4)
 * and takes the screen its observation shows, "pooled" steps MaxAndSkipEnv(skip=4) over AtariEnv(frameskip=1) and
 * takes the screens of the frames it observes (stepInto with a buffer; the others run without pixels). Resets go
 * through ALEInterface.resetGame as AtariEnv.reset does (seed 0 for what ALE seeds from random_seed 0). Returns the
 * same record, with the digests of the pattern asked (the other list stays empty).
 */
export function stepDigests(
  game: GameSpec,
  rom: Uint8Array,
  steps: number,
  checkpoint: number,
  pattern: "last" | "pooled",
): SteppedReference {
  const pooled = pattern === "pooled";
  // The scripted FIRE is not in every minimal set: the full action space has it (ALE plays an illegal one as NOOP).
  const atari = new AtariEnv({
    game,
    rom,
    frameskip: pooled ? 1 : 4,
    repeatActionProbability: 0,
    fullActionSpace: true,
  });
  const recorder = new ScreenRecorder(atari);
  const env = pooled ? new MaxAndSkipEnv(recorder, 4) : atari;
  const ale = atari.ale;
  ale.resetGame(0, true);
  const screen = () => crc32(ale.console.screen) >>> 0;
  const ramBuffer = new Uint8Array(128);
  const ram = () => crc32(ale.getRAM(ramBuffer)) >>> 0;
  const minimal = ale.getMinimalActionSet();
  const legal = ale.getLegalActionSet();
  const out: SteppedReference = { reset: [hex(screen()), hex(ram())], last: [], pooled: [], reward: 0, resets: 0 };
  let digest = 0;
  for (let s = 0; s < steps; s++) {
    recorder.seen.length = 0;
    const [, reward] = env.step(Math.max(0, legal.indexOf(scriptedAction(4 * s, minimal))));
    let n = 0;
    if (pooled) {
      // MaxAndSkip stops at the frame that ends the game: the frames it never reached count as 0.
      foldWords[n++] = recorder.seen.length > 0 ? recorder.seen[0] : 0;
      foldWords[n++] = recorder.seen.length > 1 ? recorder.seen[1] : 0;
    } else {
      foldWords[n++] = screen();
    }
    const over = ale.gameOver();
    foldWords[n++] = ram();
    foldWords[n++] = reward;
    foldWords[n++] = ale.lives();
    foldWords[n++] = over ? 1 : 0;
    if (over) {
      ale.resetGame(s);
      out.resets++;
      foldWords[n++] = screen();
      foldWords[n++] = ram();
    } else {
      foldWords[n++] = 0;
      foldWords[n++] = 0;
    }
    digest = fold(digest, n);
    out.reward += reward;
    if ((s + 1) % checkpoint === 0) out[pattern].push(hex(digest));
  }
  return out;
}

/** Replays `reference` and classifies the differences. */
export function compare(game: GameSpec, rom: Uint8Array, reference: Trajectory): Comparison {
  const result: Comparison = {
    outcome: "identical",
    firstRam: -1,
    firstScreen: -1,
    firstDivergence: -1,
    screenFrames: 0,
  };
  try {
    const ale = new ALEInterface(game, rom, { repeatActionProbability: 0, maxNumFramesPerEpisode: 0 }, () => 0.5);
    ale.resetGame(0, true);
    const minimal = ale.getMinimalActionSet();
    if (minimal.join() !== reference.minimal.join())
      throw new Error(`minimal action set ${minimal} != ALE's ${reference.minimal}`);
    const ram = new Uint8Array(128);
    for (let t = 0; t < reference.ram.length; t++) {
      if (ale.gameOver()) ale.resetGame(t);
      const reward = ale.act(scriptedAction(t, minimal));
      if (result.firstRam < 0 && crc32(ale.getRAM(ram)) !== reference.ram[t]) result.firstRam = t;
      if (crc32(ale.console.screen) !== reference.screen[t]) {
        if (result.firstScreen < 0) result.firstScreen = t;
        result.screenFrames++;
      }
      if (
        reward !== reference.reward[t] ||
        ale.lives() !== reference.lives[t] ||
        ale.gameOver() !== reference.over[t]
      ) {
        result.firstDivergence = t;
        break;
      }
    }
  } catch (error) {
    result.outcome = "error";
    result.detail = (error as Error).message;
    return result;
  }
  result.outcome =
    result.firstDivergence >= 0
      ? "diverges"
      : result.firstRam >= 0
        ? "ram"
        : result.firstScreen >= 0
          ? "screen"
          : "identical";
  return result;
}

async function main(): Promise<void> {
  const cli = minimist(process.argv.slice(2), { string: ["reference", "rom-dir", "out"] });
  if (!cli.reference || !cli["rom-dir"])
    usageError("ale_fidelity.ts --reference FILE --rom-dir DIR [--out FILE] [game ...]");
  const reference = JSON.parse(readFileSync(cli.reference, "utf8")) as {
    ale_py: string;
    frames: number;
    games: Record<string, Trajectory>;
  };
  const wanted = cli._.length ? cli._.map(String) : Object.keys(reference.games);
  const byRom = new Map([...GAMES.values()].map((g) => [g.rom, g]));
  const counts: Record<Outcome, string[]> = { identical: [], screen: [], ram: [], diverges: [], error: [] };
  const lines: string[] = [];
  for (const rom of wanted) {
    const game = byRom.get(rom);
    const trajectory = reference.games[rom];
    if (!game || !trajectory) continue;
    const image = new Uint8Array(readFileSync(join(cli["rom-dir"], `${rom}.bin`)));
    const start = performance.now();
    const c = compare(game, image, trajectory);
    counts[c.outcome].push(game.name);
    const where =
      c.outcome === "diverges"
        ? ` @${c.firstDivergence}`
        : c.outcome === "ram"
          ? ` @${c.firstRam}`
          : c.outcome === "screen"
            ? ` (${c.screenFrames} frames, first @${c.firstScreen})`
            : "";
    const line = `| ${game.name} | ${c.outcome}${where}${c.detail ? ` ${c.detail}` : ""} | ${((performance.now() - start) / 1000).toFixed(1)}s |`;
    lines.push(line);
    console.log(line);
  }
  const summary = (Object.keys(counts) as Outcome[]).map((o) => `${o} ${counts[o].length}`).join(", ");
  console.log(summary);
  if (cli.out) {
    const lists = (Object.keys(counts) as Outcome[])
      .map((o) => `- ${o} (${counts[o].length}): ${counts[o].join(", ")}`)
      .join("\n");
    writeFileSync(cli.out, `${summary}\n\n${lists}\n\n| game | outcome | time |\n|---|---|---|\n${lines.join("\n")}\n`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runMain(main);
