// Emulator throughput for the Atari envs, the bottleneck of ppo_atari.ts: frames/s of one env in this thread, then
// of `n` envs in AsyncVectorEnv worker threads for each worker count, all taking uniformly random actions.
//
//   npx tsx benchmark/atari_throughput.ts --rom-dir ../shared/roms [--env-id BreakoutNoFrameskip-v4]
//        [--workers 1,2] [--seconds 10]
//
// Two settings per worker count: the raw NoFrameskip env (one emulator frame per step, RGB frame out each step)
// and CleanRL's full wrapper stack from ppo_atari.ts (4 frames per agent step; reported in emulator frames/s too).

import { pathToFileURL } from "node:url";

import * as gym from "../envs/index.ts";
import { int, parseArgs, str, usageError } from "../envs/cli.ts";
import { runMain } from "../envs/main.ts";
import { RandomGenerator } from "../envs/rng.ts";

/** The raw env, for the workers (they import this module and call this export). */
export function makeRawEnv(envId: string) {
  return () => gym.make(envId);
}

const ARGS = {
  romDir: str(null, "the folder holding the Atari ROM images (else ALE_ROMS_DIR)"),
  envId: str("BreakoutNoFrameskip-v4", "the Atari env to step"),
  workers: str("1,2", "comma-separated worker counts to measure"),
  seconds: int(10, "seconds per measurement", { ge: 1 }),
};

async function main(): Promise<void> {
  const cli = parseArgs(ARGS, "Atari emulator throughput, in this thread and in AsyncVectorEnv workers.", "benchmark/atari_throughput.ts");
  if (cli.romDir !== null) process.env.ALE_ROMS_DIR = cli.romDir;
  const envId = cli.envId;
  const workerCounts: number[] = cli.workers.split(",").map(Number);
  if (!workerCounts.every((n) => Number.isSafeInteger(n) && n >= 1)) usageError(`--workers expects comma-separated counts of at least 1, got "${cli.workers}"`);
  const seconds = cli.seconds;
  const rng = new RandomGenerator(0);
  const ppoAtari = new URL("../ppo_atari.ts", import.meta.url).href;

  const measure = (step: () => void, framesPerCall: number): number => {
    for (let i = 0; i < 20; i++) step(); // warm-up: JIT, worker start-up
    let frames = 0;
    const start = performance.now();
    while (performance.now() - start < seconds * 1000) {
      step();
      frames += framesPerCall;
    }
    return frames / ((performance.now() - start) / 1000);
  };

  const single = gym.make(envId);
  const numActions = (single.actionSpace as gym.spaces.Discrete).n;
  single.reset({ seed: 1 });
  const inThread = measure(() => {
    const [, , terminated, truncated] = single.step(rng.integers(0, numActions));
    if (terminated || truncated) single.reset();
  }, 1);
  console.log(`| ${envId} | 1 env, main thread, raw | ${inThread.toFixed(0)} |`);

  for (const n of workerCounts) {
    for (const [label, module, exportName, framesPerStep] of [
      ["raw", import.meta.url, "makeRawEnv", 1],
      ["CleanRL wrapper stack", ppoAtari, "makeEnv", 4],
    ] as const) {
      const args = exportName === "makeEnv" ? [envId, 0, false, "bench"] : [envId];
      const envs = new gym.vector.AsyncVectorEnv(Array.from({ length: n }, (_, i) => ({ module, exportName, args: exportName === "makeEnv" ? [envId, i, false, "bench"] : args })));
      envs.reset({ seed: 1 });
      const actions = new Int32Array(n);
      const fps = measure(() => {
        for (let i = 0; i < n; i++) actions[i] = rng.integers(0, numActions);
        envs.step(actions);
      }, n * framesPerStep);
      envs.close();
      console.log(`| ${envId} | ${n} worker${n > 1 ? "s" : ""}, ${label} | ${fps.toFixed(0)} |`);
    }
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await runMain(main);
