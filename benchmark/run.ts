// Reproduces CleanRL's benchmark tables for one variant:
//   npx tsx benchmark/run.ts [--script ppo.ts] [--env-ids A,B] [--seeds 1,2,3] [--workers 1] [-- extra ppo flags]
// Atari variants need ROMs: pass `-- --rom-dir DIR` (or set ALE_ROMS_DIR). At CleanRL's 10M steps an Atari run takes
// days on a 2-core CPU (benchmark/README.md); the commands are here for machines that have the cores.
// Each run uses the variant's defaults (CleanRL's); flags after `--` go to every run. Prints a markdown table (mean ±
// std over seeds of the final episodic return and of SPS) and writes an SVG learning curve per env to
// benchmark/plots/. For SPS figures use --workers 1 on an otherwise idle machine. `--from-runs` skips training and
// rebuilds the table and plots from the newest matching runs/ directories; `--compare-with ppo_atari.ts` draws that
// variant's newest runs of the same env ids and seeds on the same plots (data-parallel vs single process).

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { bool, int, parseArgs, splitAtDoubleDash, str, usageError } from "../envs/run/cli.ts";
import { handleExits } from "../envs/run/main.ts";
import { ROOT, learningCurveSvg, markdownTable, parseSeeds, readRun, runAll } from "./lib.ts";

handleExits(); // one `error:` line on failure, exit 2 for a bad command line

// Per variant: the env ids CleanRL benchmarks and its published results (docs.cleanrl.dev, mean ± std over seeds).
// The self-play variant's yardstick is the episode length (charts/episodic_length-player0), not a return: its
// "final return" column then holds the mean length of the last 20 episodes, in agent steps.
// `launch`: a launcher and its flags that start the script (the data-parallel variant runs under torchrun).
const VARIANTS: Record<
  string,
  { envIds: string[]; cleanrl: Record<string, string>; metric?: string; launch?: string[] }
> = {
  "ppo.ts": {
    envIds: ["CartPole-v1", "Acrobot-v1", "MountainCar-v0"],
    cleanrl: { "CartPole-v1": "490.04 ± 6.12", "Acrobot-v1": "-86.36 ± 1.32", "MountainCar-v0": "-200.00 ± 0.00" },
  },
  "ppo_continuous_action.ts": {
    envIds: ["HalfCheetah-v4", "Walker2d-v4", "Hopper-v4", "InvertedPendulum-v4", "Humanoid-v4", "Pusher-v4"],
    cleanrl: {
      "HalfCheetah-v4": "1442.64 ± 46.03",
      "Hopper-v4": "2382.86 ± 271.74",
      "InvertedPendulum-v4": "963.09 ± 22.20",
    },
  },
  "ppo_atari.ts": {
    envIds: ["PongNoFrameskip-v4", "BeamRiderNoFrameskip-v4", "BreakoutNoFrameskip-v4"],
    cleanrl: {
      "BreakoutNoFrameskip-v4": "414.66 ± 28.09",
      "PongNoFrameskip-v4": "20.36 ± 0.20",
      "BeamRiderNoFrameskip-v4": "1915.93 ± 484.58",
    },
  },
  "ppo_atari_lstm.ts": {
    envIds: ["PongNoFrameskip-v4", "BeamRiderNoFrameskip-v4", "BreakoutNoFrameskip-v4"],
    cleanrl: {
      "BreakoutNoFrameskip-v4": "128.92 ± 31.10",
      "PongNoFrameskip-v4": "19.78 ± 1.58",
      "BeamRiderNoFrameskip-v4": "1536.20 ± 612.21",
    },
  },
  // CleanRL's ppo_atari_multigpu.py reports ppo_atari.py's sample efficiency at ~30% less wall time: its yardstick
  // is the ppo_atari.ts row run on the same machine, so no published numbers are printed here.
  "ppo_atari_multigpu.ts": {
    envIds: ["PongNoFrameskip-v4", "BeamRiderNoFrameskip-v4", "BreakoutNoFrameskip-v4"],
    cleanrl: {},
    launch: ["envs/run/torchrun.ts", "--standalone", "--nnodes=1", "--nproc-per-node=2"],
  },
  "ppo_procgen.ts": {
    envIds: ["starpilot", "bossfight", "bigfish"],
    cleanrl: { starpilot: "30.99 ± 1.96", bossfight: "8.85 ± 0.33", bigfish: "16.46 ± 2.71" },
  },
  "ppo_pettingzoo_ma_atari.ts": {
    envIds: ["pong_v3", "surround_v2", "tennis_v3"],
    cleanrl: {
      pong_v3: "4153.60 ± 190.80 (length)",
      surround_v2: "3055.33 ± 223.68 (length)",
      tennis_v3: "14538.02 ± 7005.54 (length)",
    },
    metric: "charts/episodic_length-player0",
  },
};

const ARGS = {
  script: str("ppo.ts", "the variant to benchmark"),
  envIds: str(null, "comma-separated env ids (default: the ones CleanRL benchmarks for the variant)"),
  seeds: str("1,2,3", "comma-separated seeds"),
  workers: int(1, "runs at a time", { ge: 1 }),
  fromRuns: bool(false, "skip training: rebuild the table and plots from the newest matching runs/ directories"),
  compareWith: str(
    null,
    "another variant whose newest runs of the same env ids and seeds are drawn on the same plots (e.g. ppo_atari.ts beside ppo_atari_multigpu.ts)",
  ),
};
const { own, rest } = splitAtDoubleDash(process.argv.slice(2));
const cli = parseArgs(
  ARGS,
  "Reproduces CleanRL's benchmark table for one variant (flags after -- go to every run).",
  "benchmark/run.ts",
  own,
);
const script = cli.script;
const variant = VARIANTS[script];
if (!variant) usageError(`--script must be one of ${Object.keys(VARIANTS).join(", ")}`);
const envIds: string[] = cli.envIds !== null ? cli.envIds.split(",") : variant.envIds;
const seeds = parseSeeds(cli.seeds);
const workers = cli.workers;

if (cli.compareWith !== null && !VARIANTS[cli.compareWith])
  usageError(`--compare-with must be one of ${Object.keys(VARIANTS).join(", ")}`);
const results = cli.fromRuns
  ? envIds.flatMap((envId) => seeds.map((seed) => readRun(script, envId, seed, NaN, variant.metric)))
  : await runAll({
      script,
      envIds,
      seeds,
      extra: rest ?? [],
      workers,
      logDir: join(ROOT, "benchmark", "results"),
      metric: variant.metric,
      launch: variant.launch,
    });
console.log(`\n${markdownTable(results, variant.cleanrl)}\n`);
// With --compare-with, each plot also shows the other variant's runs, every line labelled with its script.
const other = cli.compareWith;
const plotted =
  other === null
    ? results
    : [
        ...results.map((r) => ({ ...r, label: `${script} seed ${r.seed}` })),
        ...envIds.flatMap((envId) =>
          seeds.map((seed) => ({
            ...readRun(other, envId, seed, NaN, VARIANTS[other].metric),
            label: `${other} seed ${seed}`,
          })),
        ),
      ];
const suffix = other === null ? "" : `_vs_${other.replace(/\.ts$/, "")}`;
mkdirSync(join(ROOT, "benchmark", "plots"), { recursive: true });
for (const envId of envIds) {
  const path = join(
    ROOT,
    "benchmark",
    "plots",
    `${script.replace(/\.ts$/, "")}${suffix}_${envId.replace("/", "_")}.svg`,
  );
  writeFileSync(path, learningCurveSvg(envId, plotted));
  console.log(`learning curve: ${path}`);
}
