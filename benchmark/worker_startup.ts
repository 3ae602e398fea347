// What an AsyncVectorEnv worker costs to start: the time until all `--num-envs` workers have built their env
// (each imports `--module` and calls its `makeEnv`), and the process's resident memory grown per worker.
// Workers are threads of this process, so "per worker" is (RSS with the workers - RSS before) / num-envs, and
// the CPU time is the whole process's (all threads): on a shared machine that is steadier than the wall time.
// Memory is the first start-up's: later ones reuse what the closed workers' heaps left mapped, and read low.
//
//   npx tsx benchmark/worker_startup.ts --env-id BreakoutNoFrameskip-v4 --rom-dir /work/shared/roms [--num-envs 8] [--module ppo_atari.ts] [--stub-tfjs false]

// Loaded as every training script loads it: the workers' stub then carries tfjs's export names, as in a real run.
import "@tensorflow/tfjs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

import { AsyncVectorEnv } from "../envs/gymnasium/async_vector.ts";
import { bool, int, parseArgs, str } from "../envs/run/cli.ts";
import { handleExits } from "../envs/run/main.ts";

handleExits();
const args = parseArgs(
  {
    envId: str("BreakoutNoFrameskip-v4", "the env every worker builds"),
    module: str("ppo_atari.ts", "the variant whose makeEnv(envId, i, false, runName) the workers call"),
    numEnvs: int(8, "the number of workers", { ge: 1 }),
    romDir: str(null, "the folder holding the Atari ROM images (else ALE_ROMS_DIR)"),
    stubTfjs: bool(true, "AsyncVectorEnv's stubTfjs: false loads the real tfjs in every worker, as before"),
    repeats: int(3, "start-ups to time; the report is the fastest", { ge: 1 }),
  },
  "Start-up time and memory of AsyncVectorEnv workers.",
  "benchmark/worker_startup.ts",
);
if (args.romDir !== null) process.env.ALE_ROMS_DIR = args.romDir;
const module = pathToFileURL(resolve(args.module)).href;
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);

let best = Infinity;
let firstGrowth = 0;
let bestCpu = Infinity;
for (let r = 0; r < args.repeats; r++) {
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  const start = performance.now();
  const cpuBefore = process.cpuUsage();
  const envs = new AsyncVectorEnv(
    Array.from({ length: args.numEnvs }, (_, i) => ({
      module,
      exportName: "makeEnv",
      args: [args.envId, i, false, "startup"],
    })),
    { stubTfjs: args.stubTfjs },
  );
  envs.reset({ seed: 1 });
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const growth = process.memoryUsage().rss - before;
  envs.close();
  await new Promise((done) => setTimeout(done, 500)); // let the terminated workers' memory go back
  console.log(
    `start-up ${r + 1}: ${args.numEnvs} workers of ${args.module} (${args.envId}) up and reset in ${seconds.toFixed(2)} s, ${cpuSeconds.toFixed(2)} CPU s (${(cpuSeconds / args.numEnvs).toFixed(2)} per worker); RSS +${mib(growth)} MiB (${mib(growth / args.numEnvs)} MiB per worker)`,
  );
  best = Math.min(best, seconds);
  bestCpu = Math.min(bestCpu, cpuSeconds);
  if (r === 0) firstGrowth = growth;
}
console.log(
  `stub-tfjs ${args.stubTfjs}, fastest: ${best.toFixed(2)} s for ${args.numEnvs} workers (${(bestCpu / args.numEnvs).toFixed(2)} CPU s per worker), ${mib(firstGrowth / args.numEnvs)} MiB per worker (first start-up)`,
);
