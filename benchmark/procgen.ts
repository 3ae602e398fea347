// Procgen benchmarks: a random-agent table and environment throughput.
//
//   npx tsx benchmark/procgen.ts [--procgen-assets-dir ../shared/procgen_assets] [--episodes 100] [--seconds 10]
//        [--games starpilot,bossfight,bigfish] [--workers 1,2]
//
// 1. Random agent: mean return and length over `--episodes` episodes per game, easy levels, uniformly random
//    actions (levels from rand_seed 0; rendering skipped, it does not change the game).
// 2. Steps/s of procgen's vector env (64 envs, easy, random actions, observations rendered) in this thread, with
//    procgen's images and with monochrome assets: the per-core figure.
// 3. Steps/s of `procgen-{game}-v0` envs in AsyncVectorEnv worker threads, one env per worker, per worker count.
// Prints Markdown tables. CleanRL's published PPO scores (easy, 25M steps, 3 seeds) are printed beside them.

import { pathToFileURL } from "node:url";

import { float, int, parseArgs, str } from "../envs/run/cli.ts";
import * as gym from "../envs/gymnasium/index.ts";
import { runMain } from "../envs/run/main.ts";
import { RandomGenerator } from "../envs/torch/rng.ts";
import { ratePerSecond, workerCounts } from "./lib.ts";

/** CleanRL ppo_procgen.py, docs/rl-algorithms/ppo.md (easy, 25M steps, 3 seeds). */
const CLEANRL: Record<string, string> = {
  starpilot: "30.99 ± 1.96",
  bossfight: "8.85 ± 0.33",
  bigfish: "16.46 ± 2.71",
};

/** The single env for the worker threads (they import this module and call this export). */
export function makeProcgenEnv(game: string, assetsDir: string | null) {
  return () =>
    gym.make(`procgen-${game}-v0`, { distributionMode: "easy", assetsDir, useMonochromeAssets: assetsDir === null });
}

function randomAgent(game: string, episodes: number): { ret: number; len: number; completed: number } {
  const [g] = gym.procgen.makeGames(
    { envName: game, distributionMode: "easy", randSeed: 0, useMonochromeAssets: true },
    1,
  );
  g.reset();
  const rng = new RandomGenerator(0);
  let ret = 0;
  let len = 0;
  let completed = 0;
  for (let e = 0; e < episodes; e++) {
    do {
      g.step(rng.integers(0, 15));
      ret += g.stepData.reward;
      len += 1;
    } while (!g.stepData.done);
    if (g.stepData.levelComplete) completed++;
  }
  return { ret: ret / episodes, len: len / episodes, completed };
}

const ARGS = {
  procgenAssetsDir: str(
    null,
    "procgen's images (else PROCGEN_ASSETS_DIR / ../shared/procgen_assets); monochrome only when absent",
  ),
  episodes: int(100, "random-agent episodes per game", { ge: 1 }),
  seconds: float(10, "seconds timed per throughput measurement", { gt: 0 }),
  games: str(null, "comma-separated games (default: all available)"),
  workers: str("1,2", "comma-separated worker counts for the AsyncVectorEnv table"),
};

async function main(): Promise<void> {
  const cli = parseArgs(ARGS, "Procgen: random-agent table and environment steps/s.", "benchmark/procgen.ts");
  const { episodes, seconds } = cli;
  const games: string[] = cli.games ? cli.games.split(",") : gym.procgen.availableGames();
  const workers = workerCounts(cli.workers);
  let assetsDir: string | null = null;
  try {
    assetsDir = await gym.procgen.resolveAssetsDir({ assetsDir: cli.procgenAssetsDir, download: false });
  } catch {
    console.log("procgen images not found: throughput with monochrome assets only");
  }
  const rng = new RandomGenerator(1);

  console.log(`\n### Random agent (easy, ${episodes} episodes per game, rand_seed 0)\n`);
  console.log("| game | mean return | mean length | levels completed | CleanRL PPO 25M |");
  console.log("| --- | --- | --- | --- | --- |");
  for (const game of games) {
    const r = randomAgent(game, episodes);
    console.log(
      `| ${game} | ${r.ret.toFixed(2)} | ${r.len.toFixed(1)} | ${r.completed}/${episodes} | ${CLEANRL[game] ?? ""} |`,
    );
  }

  console.log(`\n### Steps/s, procgen's vector env, 64 envs in one thread (easy, random actions, ${seconds} s each)\n`);
  console.log("| game | images | monochrome |");
  console.log("| --- | --- | --- |");
  const numEnvs = 64;
  const actions = new Int32Array(numEnvs);
  for (const game of games) {
    const cells: string[] = [];
    for (const mono of [false, true]) {
      if (!mono && assetsDir === null) {
        cells.push("n/a");
        continue;
      }
      const images = mono ? null : gym.procgen.imageLoader(assetsDir!);
      const envs = new gym.procgen.ProcgenEnv({
        numEnvs,
        envName: game,
        distributionMode: "easy",
        randSeed: 0,
        images,
        useMonochromeAssets: mono,
      });
      const sps = ratePerSecond(() => {
        for (let i = 0; i < numEnvs; i++) actions[i] = rng.integers(0, 15);
        envs.step(actions);
        return numEnvs;
      }, seconds);
      cells.push(sps.toFixed(0));
    }
    console.log(`| ${game} | ${cells.join(" | ")} |`);
  }

  console.log(
    `\n### Steps/s, procgen-{game}-v0 in AsyncVectorEnv workers, one env per worker (${assetsDir ? "images" : "monochrome"})\n`,
  );
  console.log(`| game | ${workers.map((w) => `${w} worker${w > 1 ? "s" : ""}`).join(" | ")} |`);
  console.log(`| --- | ${workers.map(() => "---").join(" | ")} |`);
  for (const game of games) {
    const cells: string[] = [];
    for (const w of workers) {
      const envs = new gym.vector.AsyncVectorEnv(
        Array.from({ length: w }, () => ({
          module: import.meta.url,
          exportName: "makeProcgenEnv",
          args: [game, assetsDir],
        })),
        { copy: false },
      );
      envs.reset({ seed: 0 });
      const a = new Int32Array(w);
      const sps = ratePerSecond(() => {
        for (let i = 0; i < w; i++) a[i] = rng.integers(0, 15);
        envs.step(a);
        return w;
      }, seconds);
      envs.close();
      cells.push(sps.toFixed(0));
    }
    console.log(`| ${game} | ${cells.join(" | ")} |`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await runMain(main);
