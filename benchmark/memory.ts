// The recurrence check of ppo_atari_lstm.ts: MemoryCue-v0 (envs/memory_cue/memory_cue.ts) can only be solved with memory.
// Runs ppo_atari_lstm.ts (LSTM, 1 frame) and ppo_atari.ts (feed-forward, 4 stacked frames) with the same flags,
// prints the mean return of each run's last 300 episodes and writes benchmark/plots/memory_cue.svg.
//
//   npx tsx benchmark/memory.ts [--seeds 1] [--from-runs] [-- extra flags for both scripts]
// Default extra flags: --num-envs 8 --num-steps 32 --total-timesteps 60000 (a short-rollout setting that learns in
// minutes on a CPU; the algorithm and every other flag are the variants' defaults).

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { bool, parseArgs, splitAtDoubleDash, str } from "../envs/run/cli.ts";
import { handleExits } from "../envs/run/main.ts";
import { ROOT, learningCurveSvg, mean, parseSeeds, readRun, runAll } from "./lib.ts";

handleExits(); // one `error:` line on failure, exit 2 for a bad command line
const { own, rest } = splitAtDoubleDash(process.argv.slice(2));
const ARGS = {
  seeds: str("1", "comma-separated seeds"),
  fromRuns: bool(false, "skip training: read the newest matching runs/ directories"),
};
const cli = parseArgs(
  ARGS,
  "MemoryCue-v0: ppo_atari_lstm.ts against ppo_atari.ts (flags after -- go to both).",
  "benchmark/memory.ts",
  own,
);
const seeds = parseSeeds(cli.seeds);
const extra: string[] = rest?.length ? rest : ["--num-envs", "8", "--num-steps", "32", "--total-timesteps", "60000"];
const envId = "MemoryCue-v0";
const scripts = [
  ["ppo_atari_lstm.ts", "LSTM (ppo_atari_lstm.ts)"],
  ["ppo_atari.ts", "feed-forward, 4 frames (ppo_atari.ts)"],
] as const;

const results = [];
for (const [script, label] of scripts) {
  const runs = cli.fromRuns
    ? seeds.map((seed) => readRun(script, envId, seed))
    : await runAll({ script, envIds: [envId], seeds, extra, workers: 1, logDir: join(ROOT, "benchmark", "results") });
  for (const run of runs) {
    const last = run.curve.slice(-300).map(([, r]) => r);
    console.log(
      `${label}, seed ${run.seed}: ${run.curve.at(-1)?.[0]} steps, mean return of the last ${last.length} episodes ${mean(last).toFixed(2)}`,
    );
    results.push({ ...run, label: `${label}${seeds.length > 1 ? `, seed ${run.seed}` : ""}` });
  }
}
mkdirSync(join(ROOT, "benchmark", "plots"), { recursive: true });
writeFileSync(join(ROOT, "benchmark", "plots", "memory_cue.svg"), learningCurveSvg(envId, results, 100));
console.log("learning curves: benchmark/plots/memory_cue.svg");
