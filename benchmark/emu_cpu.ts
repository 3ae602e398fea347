// Emulator frames per CPU second, in this thread: the raw ALE and CleanRL's full ppo_atari.ts wrapper stack.
//
//   npx tsx benchmark/emu_cpu.ts --rom-dir ../shared/roms [--game breakout,pong] [--frames 2000] [--repeats 30]
//
// CPU seconds (process.cpuUsage, user + system) rather than wall seconds, so the numbers hold on a machine that
// also runs other work (a training run at idle priority takes wall time from us, not CPU time). Even CPU time
// varies up to 2x between identical runs on a shared 2-core VM (caches, hyperthreads and the host are shared), so
// each measurement is `--repeats` chunks of `--frames` frames, the measurements alternate chunk by chunk, and the
// table shows the best chunk (noise only ever slows a chunk down) and the median.
//
//   raw ALE      ALEInterface.act + getScreenRGB every frame (what a NoFrameskip env's step does), uniformly random
//                minimal-set actions, reset on game over.
//   full stack   ppo_atari.ts's makeEnv (RecordEpisodeStatistics, NoopReset, MaxAndSkip(4), EpisodicLife, FireReset,
//                ClipReward, Resize 84x84, GrayScale, FrameStack 4) on {Game}NoFrameskip-v4, random actions,
//                reset when an episode ends; counted as 4 emulator frames per agent step (the frames resets
//                emulate are work done but not counted, as in CleanRL's SPS).
//
// Both loops draw their actions from a seeded generator, so two runs of one build do the same work.

import { findGame } from "../envs/ale/games.ts";
import { ALEInterface } from "../envs/ale/interface.ts";
import { findRom } from "../envs/ale/roms.ts";
import { int, parseArgs, str } from "../envs/run/cli.ts";
import type { Env } from "../envs/gymnasium/core.ts";
import { runMain } from "../envs/run/main.ts";
import { RandomGenerator } from "../envs/torch/rng.ts";
import type { Discrete } from "../envs/gymnasium/spaces.ts";

const ARGS = {
  romDir: str(null, "the folder holding the Atari ROM images (else ALE_ROMS_DIR)"),
  game: str("breakout,pong", "comma-separated ALE game ids (breakout, pong, ...)"),
  frames: int(2000, "emulator frames per chunk", { ge: 4 }),
  repeats: int(30, "chunks per measurement (alternating between measurements); best and median are reported", {
    ge: 1,
  }),
};

/** CPU seconds (user + system) `run` takes. */
function cpuSeconds(run: () => void): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
}

/** A measurement: sets itself up once, then `run()` emulates `frames` frames. */
interface Measurement {
  label: string;
  run: () => void;
}

function rawAle(gameId: string, romDir: string | null, frames: number): Measurement {
  const game = findGame(gameId);
  if (game === undefined) throw new Error(`emu_cpu: unknown game ${gameId}`);
  const rom = findRom(game.rom, game.md5, { romDir });
  const ale = new ALEInterface(game, rom.bytes, { repeatActionProbability: 0, maxNumFramesPerEpisode: 0 }, () => 0.5);
  ale.resetGame(0, true);
  const minimal = ale.getMinimalActionSet();
  const screen = new Uint8Array(210 * 160 * 3);
  const rng = new RandomGenerator(1);
  return {
    label: "raw ALE (act + getScreenRGB)",
    run: () => {
      for (let i = 0; i < frames; i++) {
        ale.act(minimal[rng.integers(0, minimal.length)]);
        ale.getScreenRGB(screen);
        if (ale.gameOver()) ale.resetGame(0);
      }
    },
  };
}

async function fullStack(gameId: string, frames: number): Promise<Measurement> {
  const game = findGame(gameId);
  if (game === undefined) throw new Error(`emu_cpu: unknown game ${gameId}`);
  const { makeEnv } = await import("../ppo_atari.ts");
  const env: Env = makeEnv(`${game.name}NoFrameskip-v4`, 0, false, "emu_cpu")();
  const numActions = (env.actionSpace as Discrete).n;
  const rng = new RandomGenerator(1);
  env.reset({ seed: 1 });
  return {
    label: "full CleanRL stack",
    run: () => {
      for (let i = 0; i < frames; i += 4) {
        const [, , terminated, truncated] = env.step(rng.integers(0, numActions));
        if (terminated || truncated) env.reset();
      }
    },
  };
}

async function main(): Promise<void> {
  const cli = parseArgs(
    ARGS,
    "Emulator frames per CPU second: raw ALE and CleanRL's full wrapper stack.",
    "benchmark/emu_cpu.ts",
  );
  if (cli.romDir !== null) process.env.ALE_ROMS_DIR = cli.romDir;
  const measurements: { game: string; m: Measurement; rates: number[] }[] = [];
  for (const game of cli.game.split(",")) {
    measurements.push({ game, m: rawAle(game, cli.romDir, cli.frames), rates: [] });
    measurements.push({ game, m: await fullStack(game, cli.frames), rates: [] });
  }
  // Warm-up (JIT), then alternate the measurements so that a slow spell of the machine hits them all alike.
  for (const x of measurements) for (let w = 0; w < 3; w++) cpuSeconds(x.m.run);
  for (let r = 0; r < cli.repeats; r++) {
    for (const x of measurements) x.rates.push(cli.frames / cpuSeconds(x.m.run));
  }
  console.log(`| game | path | frames per CPU second, best chunk | median chunk |`);
  console.log("|---|---|---:|---:|");
  for (const x of measurements) {
    const sorted = [...x.rates].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)];
    console.log(`| ${x.game} | ${x.m.label} | ${sorted[sorted.length - 1].toFixed(0)} | ${median.toFixed(0)} |`);
  }
}

await runMain(main);
