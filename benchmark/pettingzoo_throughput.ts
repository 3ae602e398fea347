// Emulator throughput of PettingZoo's two-player Atari envs, the bottleneck of ppo_pettingzoo_ma_atari.ts:
// emulator frames/s of the raw parallel env in this thread, then of CleanRL's full SuperSuit chain (4 frames per
// agent step, both agents' observations built) with the games in-process (SyncVectorEnv) and in 1 or 2 worker
// threads (AsyncVectorEnv, one game per worker), all with uniformly random actions.
//
//   npx tsx benchmark/pettingzoo_throughput.ts --rom-dir ../shared/roms [--env-id pong_v3] [--workers 1,2] [--seconds 10]

import minimist from "minimist";
import { pathToFileURL } from "node:url";

import * as gym from "../envs/index.ts";
import { parallelEnv } from "../envs/pettingzoo/atari.ts";
import { ConcatVecEnv } from "../envs/pettingzoo/supersuit.ts";
import { RandomGenerator } from "../envs/rng.ts";
import { makeEnv } from "../ppo_pettingzoo_ma_atari.ts";

async function main(): Promise<void> {
  const cli = minimist(process.argv.slice(2), { string: ["rom-dir", "env-id", "workers", "seconds"] });
  if (cli["rom-dir"]) process.env.ALE_ROMS_DIR = cli["rom-dir"];
  const envId: string = cli["env-id"] ?? "pong_v3";
  const workerCounts: number[] = (cli.workers ?? "1,2").split(",").map(Number);
  const seconds = Number(cli.seconds ?? 10);
  const rng = new RandomGenerator(0);
  const variant = new URL("../ppo_pettingzoo_ma_atari.ts", import.meta.url).href;

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

  const raw = parallelEnv(envId);
  const n = raw.actionSpace("first_0").n;
  raw.reset({ seed: 1 });
  const rawFps = measure(() => {
    const [, , terminations, truncations] = raw.step({ first_0: rng.integers(0, n), second_0: rng.integers(0, n) });
    if (terminations.first_0 || truncations.first_0) raw.reset();
  }, 1);
  console.log(`| ${envId} | 1 game, main thread, raw parallel env | ${rawFps.toFixed(0)} |`);

  const chain = (label: string, vec: gym.vector.SyncVectorEnv | gym.vector.AsyncVectorEnv) => {
    const envs = new ConcatVecEnv(vec);
    envs.reset();
    const actions = new Int32Array(envs.numEnvs);
    const fps = measure(() => {
      for (let i = 0; i < actions.length; i++) actions[i] = rng.integers(0, n);
      envs.step(actions);
    }, vec.numEnvs * 4);
    envs.close();
    console.log(`| ${envId} | ${label}, CleanRL's SuperSuit chain | ${fps.toFixed(0)} |`);
  };
  chain("1 game, main thread", new gym.vector.SyncVectorEnv([makeEnv(envId, 0, false, "bench")]));
  for (const w of workerCounts) {
    chain(`${w} game${w > 1 ? "s" : ""} in ${w} worker${w > 1 ? "s" : ""}`, new gym.vector.AsyncVectorEnv(Array.from({ length: w }, (_, i) => ({ module: variant, exportName: "makeEnv", args: [envId, i, false, "bench"] }))));
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
