// Emulator throughput of PettingZoo's two-player Atari envs, the bottleneck of ppo_pettingzoo_ma_atari.ts:
// emulator frames/s of the raw parallel env in this thread, then of CleanRL's full SuperSuit chain (4 frames per
// agent step, both agents' observations built) with the games in-process (SyncVectorEnv) and in 1 or 2 worker
// threads (AsyncVectorEnv, one game per worker), all with uniformly random actions.
//
//   npx tsx benchmark/pettingzoo_throughput.ts --rom-dir ../shared/roms [--env-id pong_v3] [--workers 1,2] [--seconds 10]

import { pathToFileURL } from "node:url";

import { parseArgs, str, float } from "../envs/run/cli.ts";
import * as gym from "../envs/gymnasium/index.ts";
import { runMain } from "../envs/run/main.ts";
import { parallelEnv } from "../envs/pettingzoo/atari.ts";
import { ConcatVecEnv } from "../envs/pettingzoo/supersuit.ts";
import { RandomGenerator } from "../envs/torch/rng.ts";
import { makeEnv } from "../ppo_pettingzoo_ma_atari.ts";
import { ratePerSecond, workerCounts } from "./lib.ts";

const ARGS = {
  romDir: str(null, "the folder holding the Atari ROM images (else ALE_ROMS_DIR)"),
  envId: str("pong_v3", "the PettingZoo Atari env to step"),
  workers: str("1,2", "comma-separated worker counts to measure (one game per worker)"),
  seconds: float(10, "seconds timed per measurement", { gt: 0 }),
};

async function main(): Promise<void> {
  const args = parseArgs(
    ARGS,
    "Emulator frames/s of PettingZoo's two-player Atari envs, raw and through CleanRL's SuperSuit chain.",
    "benchmark/pettingzoo_throughput.ts",
  );
  if (args.romDir) process.env.ALE_ROMS_DIR = args.romDir;
  const { envId, seconds } = args;
  const workers = workerCounts(args.workers);
  const rng = new RandomGenerator(0);
  const variant = new URL("../ppo_pettingzoo_ma_atari.ts", import.meta.url).href;

  const raw = parallelEnv(envId);
  const n = raw.actionSpace("first_0").n;
  raw.reset({ seed: 1 });
  const rawFps = ratePerSecond(() => {
    const [, , terminations, truncations] = raw.step({ first_0: rng.integers(0, n), second_0: rng.integers(0, n) });
    if (terminations.first_0 || truncations.first_0) raw.reset();
    return 1;
  }, seconds);
  console.log(`| ${envId} | 1 game, main thread, raw parallel env | ${rawFps.toFixed(0)} |`);

  const chain = (label: string, vec: gym.vector.SyncVectorEnv | gym.vector.AsyncVectorEnv) => {
    const envs = new ConcatVecEnv(vec);
    envs.reset();
    const actions = new Int32Array(envs.numEnvs);
    const fps = ratePerSecond(() => {
      for (let i = 0; i < actions.length; i++) actions[i] = rng.integers(0, n);
      envs.step(actions);
      return vec.numEnvs * 4;
    }, seconds);
    envs.close();
    console.log(`| ${envId} | ${label}, CleanRL's SuperSuit chain | ${fps.toFixed(0)} |`);
  };
  chain("1 game, main thread", new gym.vector.SyncVectorEnv([makeEnv(envId, 0, false, "bench")]));
  for (const w of workers) {
    chain(
      `${w} game${w > 1 ? "s" : ""} in ${w} worker${w > 1 ? "s" : ""}`,
      new gym.vector.AsyncVectorEnv(
        Array.from({ length: w }, (_, i) => ({
          module: variant,
          exportName: "makeEnv",
          args: [envId, i, false, "bench"],
        })),
      ),
    );
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await runMain(main);
