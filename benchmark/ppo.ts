// Reproduces CleanRL's ppo.py table: `npx tsx benchmark/ppo.ts [--env-ids ...] [--seeds 1,2,3] [--workers 1]`.
// Each run uses ppo.ts's defaults (CleanRL's: 500k steps, 4 envs, 128 steps); extra flags after `--` go to ppo.ts.
// Prints a markdown table (mean ± std of final episodic return and SPS over seeds) and writes an SVG learning
// curve per env to benchmark/plots/. For SPS figures run with --workers 1 on an otherwise idle machine.
// `--from-runs` skips training and rebuilds the table and plots from the newest matching runs/ directories.

import minimist from "minimist";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { ROOT, learningCurveSvg, markdownTable, readRun, runAll } from "./lib.ts";

// CleanRL's published ppo.py results (docs.cleanrl.dev, "ppo.py" benchmark table), mean ± std over 3 seeds.
const CLEANRL = { "CartPole-v1": "490.04 ± 6.12", "Acrobot-v1": "-86.36 ± 1.32", "MountainCar-v0": "-200.00 ± 0.00" };

const cli = minimist(process.argv.slice(2), { string: ["env-ids", "seeds", "workers"], boolean: ["from-runs"], "--": true });
const envIds: string[] = (cli["env-ids"] ?? "CartPole-v1,Acrobot-v1,MountainCar-v0").split(",");
const seeds: number[] = (cli.seeds ?? "1,2,3").split(",").map(Number);
const workers = Number(cli.workers ?? 1);

const results = cli["from-runs"]
  ? envIds.flatMap((envId) => seeds.map((seed) => readRun("ppo.ts", envId, seed)))
  : await runAll({ script: "ppo.ts", envIds, seeds, extra: cli["--"] ?? [], workers, logDir: join(ROOT, "benchmark", "results") });
console.log(`\n${markdownTable(results, CLEANRL)}\n`);
mkdirSync(join(ROOT, "benchmark", "plots"), { recursive: true });
for (const envId of envIds) {
  const path = join(ROOT, "benchmark", "plots", `ppo_${envId}.svg`);
  writeFileSync(path, learningCurveSvg(envId, results));
  console.log(`learning curve: ${path}`);
}
