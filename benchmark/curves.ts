// Learning curves of our variants beside CleanRL's own scripts, from the committed run CSVs:
//   npx tsx benchmark/curves.ts [--results-dir benchmark/results] [--plots-dir benchmark/plots]
// Reads every benchmark/results/<variant>/<env>/<side>_seed<N>.csv (side `ours` or `cleanrl`, written by
// benchmark/curves_record.ts through benchmark/curves_queue.sh; a namespaced env id is a folder per part, as in
// <variant>/dm_control/cartpole-balance-v0/) and, per env, draws with Vega-Lite:
//   curves_<variant>_<env>.svg/.png       episodic return against global step
//   curves_<variant>_<env>_time.svg/.png  the same against wall-clock time since the run started
// (<env> with `_` for `/` in the file names). Each side is the mean over its seeds (line) inside the min–max over its
// seeds (band), where a seed's value at a point is the mean of its last 20 episodes up to there (the window of the
// final-return column). CleanRL's published final return (its docs, mean ± std over seeds) is a marker at the budget
// it was published for, where the runs here reach that budget. Prints, per variant, the markdown table of final returns that benchmark/README.md shows, with
// each side's mean return over the last fifth of its steps beside it (a late level less noisy than 20 episodes).

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { Resvg } from "@resvg/resvg-js";
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";

import { parseArgs, str } from "../envs/run/cli.ts";
import { handleExits } from "../envs/run/main.ts";
import { ROOT, mean, std } from "./lib.ts";

handleExits();

const COMMAND = "npx tsx benchmark/curves.ts";
const WINDOW = 20; // episodes per seed behind each plotted point and each final return
const GRID = 120; // points per curve

/** Final returns CleanRL published for one set of runs (mean ± std over seeds) and the budget they ran to. */
interface Published {
  steps: number;
  returns: Record<string, [number, number]>;
}
// From the docs of vwxyzjn/cleanrl (fe8d8a03), per variant.
const PUBLISHED: Record<string, Published[]> = {
  // docs/benchmark/<variant>.md: openrlbenchmark tag pr-424, 3 seeds, each script's default total_timesteps.
  ppo: [
    {
      steps: 500_000,
      returns: { "CartPole-v1": [490.04, 6.12], "Acrobot-v1": [-86.36, 1.32], "MountainCar-v0": [-200.0, 0.0] },
    },
  ],
  ppo_continuous_action: [
    {
      steps: 1_000_000,
      returns: {
        "HalfCheetah-v4": [1442.64, 46.03],
        "Walker2d-v4": [2287.95, 571.78],
        "Hopper-v4": [2382.86, 271.74],
        "InvertedPendulum-v4": [963.09, 22.2],
        "Humanoid-v4": [716.11, 49.08],
        "Pusher-v4": [-40.38, 7.15],
      },
    },
    // docs/rl-algorithms/ppo.md, its dm_control table (tag v1.0.0-13-gcbd83f6). The page's learning curves of those
    // runs (ppo/ppo_continuous_action_gymnasium_dm_control.png) end at 1M steps: the script's default when the table
    // was added (b558b2b4; benchmark/ppo.sh then ran it without --total-timesteps, 3 seeds). The 8M-step command the
    // page shows now came later, with RPO (a90742a6).
    {
      steps: 1_000_000,
      returns: {
        "dm_control/cartpole-balance-v0": [855.47, 22.06],
        "dm_control/cheetah-run-v0": [432.56, 82.54],
        "dm_control/walker-walk-v0": [392.51, 56.25],
      },
    },
    // docs/rl-algorithms/rpo.md, PPO's column (`ppo_continuous_action_8M`): 8M steps, 10 seeds.
    {
      steps: 8_000_000,
      returns: {
        "dm_control/cartpole-balance-v0": [790.36, 17.64],
        "dm_control/cheetah-run-v0": [472.14, 99.62],
        "dm_control/walker-walk-v0": [305.74, 92.15],
      },
    },
  ],
  ppo_atari: [
    {
      steps: 10_000_000,
      returns: {
        "BreakoutNoFrameskip-v4": [414.66, 28.09],
        "PongNoFrameskip-v4": [20.36, 0.2],
        "BeamRiderNoFrameskip-v4": [1915.93, 484.58],
      },
    },
  ],
};

/** CleanRL's published final returns of one env, in the order listed. */
function publishedFor(variant: string, envId: string): { steps: number; mean: number; std: number }[] {
  return (PUBLISHED[variant] ?? []).flatMap(({ steps, returns }) =>
    returns[envId] ? [{ steps, mean: returns[envId][0], std: returns[envId][1] }] : [],
  );
}

/** 500k, 1M, 8M: a budget as CleanRL's docs name it. */
function shortSteps(steps: number): string {
  return steps >= 1_000_000 ? `${steps / 1_000_000}M` : `${steps / 1000}k`;
}

const SIDES = ["ours", "cleanrl"] as const;
type Side = (typeof SIDES)[number];
function sideLabel(variant: string, side: Side, seeds: number): string {
  const who = side === "ours" ? `ours, ${variant}.ts` : `CleanRL ${variant}.py, this machine`;
  return `${who} (${seeds} seed${seeds === 1 ? "" : "s"})`;
}
const COLORS = { ours: "#1f77b4", cleanrl: "#d62728", published: "#222222" };

interface Episode {
  step: number;
  seconds: number;
  ret: number;
  sps: number;
}
interface Run {
  variant: string;
  envId: string;
  side: Side;
  seed: number;
  episodes: Episode[];
  meta: Record<string, string>;
}

function readCsv(path: string): { episodes: Episode[]; meta: Record<string, string> } {
  const meta: Record<string, string> = {};
  const episodes: Episode[] = [];
  let header: string[] | null = null;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line.startsWith("#")) {
      const colon = line.indexOf(":");
      if (colon > 0) meta[line.slice(1, colon).trim()] = line.slice(colon + 1).trim();
    } else if (line.trim() === "") {
    } else if (header === null) {
      header = line.split(",");
    } else {
      const cells = Object.fromEntries(line.split(",").map((v, i) => [header?.[i], v]));
      episodes.push({
        step: Number(cells.global_step),
        seconds: Number(cells.wall_seconds),
        ret: Number(cells.episodic_return),
        sps: cells.sps === "" ? NaN : Number(cells.sps),
      });
    }
  }
  if (header?.join(",") !== "global_step,wall_seconds,episodic_return,sps")
    throw new Error(`${path}: not a run CSV of benchmark/curves_record.ts (header ${header?.join(",")})`);
  return { episodes, meta };
}

/** The folders under `dir`, at any depth, as paths relative to it with `/` between parts, in sorted order. */
function subfolders(dir: string, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .flatMap((name) => [`${prefix}${name}`, ...subfolders(join(dir, name), `${prefix}${name}/`)]);
}

function readRuns(resultsDir: string): Run[] {
  const runs: Run[] = [];
  for (const variant of readdirSync(resultsDir, { withFileTypes: true })) {
    if (!variant.isDirectory()) continue;
    // The env id is the folder's path below the variant: `dm_control/cartpole-balance-v0` is two folders.
    for (const envId of subfolders(join(resultsDir, variant.name))) {
      const envDir = join(resultsDir, variant.name, ...envId.split("/"));
      for (const file of readdirSync(envDir).sort()) {
        const match = /^(ours|cleanrl)_seed(\d+)\.csv$/.exec(file);
        if (!match) continue;
        const { episodes, meta } = readCsv(join(envDir, file));
        if (episodes.length === 0) continue;
        runs.push({ variant: variant.name, envId, side: match[1] as Side, seed: Number(match[2]), episodes, meta });
      }
    }
  }
  return runs;
}

/** A seed's value at x: the mean return of its last WINDOW episodes ending at or before x (null before the first). */
function windowMean(episodes: Episode[], x: number, axis: "step" | "seconds"): number | null {
  let end = 0;
  while (end < episodes.length && episodes[end][axis] <= x) end++;
  if (end === 0) return null;
  return mean(episodes.slice(Math.max(0, end - WINDOW), end).map((e) => e.ret));
}

interface Point {
  x: number;
  mean: number;
  min: number;
  max: number;
  series: string;
}

/** Mean and min–max over seeds on a grid; on the time axis a seed drops out after its last episode. */
function bandCurve(runs: Run[], axis: "step" | "seconds", xMax: number, series: string): Point[] {
  const points: Point[] = [];
  for (let i = 1; i <= GRID; i++) {
    const x = (xMax * i) / GRID;
    const values = runs
      .filter((r) => axis === "step" || x <= (r.episodes.at(-1)?.seconds ?? 0) + xMax / GRID)
      .map((r) => windowMean(r.episodes, x, axis))
      .filter((v): v is number => v !== null);
    if (values.length === 0) continue;
    points.push({ x, mean: mean(values), min: Math.min(...values), max: Math.max(...values), series });
  }
  return points;
}

function finalReturn(run: Run): number {
  return mean(run.episodes.slice(-WINDOW).map((e) => e.ret));
}

function finalSps(run: Run): number {
  return [...run.episodes].reverse().find((e) => !Number.isNaN(e.sps))?.sps ?? NaN;
}

/** The run's budget: `--total-timesteps` of its recorded command, else its last episode's global step. */
function budget(run: Run): number {
  const flag = /--total-timesteps[ =](\d+)/.exec(run.meta.command ?? "");
  return flag ? Number(flag[1]) : (run.episodes.at(-1)?.step ?? 0);
}

function unique(values: (string | undefined)[]): string[] {
  return [...new Set(values.filter((v): v is string => !!v))];
}

function chartSpec(
  variant: string,
  envId: string,
  runs: Run[],
  axis: "step" | "seconds",
  drawnOn: string,
): TopLevelSpec {
  const longest =
    axis === "step"
      ? Math.max(...runs.map((r) => r.episodes.at(-1)?.step ?? 0))
      : Math.max(...runs.map((r) => r.episodes.at(-1)?.seconds ?? 0));
  // Time in minutes once runs pass ten minutes: the curve is unchanged, the axis reads easier.
  const minutes = axis === "seconds" && longest > 600;
  const xMax = minutes ? longest / 60 : longest;
  if (minutes) runs = runs.map((r) => ({ ...r, episodes: r.episodes.map((e) => ({ ...e, seconds: e.seconds / 60 })) }));
  const labels: string[] = [];
  const colors: string[] = [];
  const values: (Point | { x: number; published: number; low: number; high: number; series: string })[] = [];
  for (const side of SIDES) {
    const sideRuns = runs.filter((r) => r.side === side);
    if (sideRuns.length === 0) continue;
    const label = sideLabel(variant, side, sideRuns.length);
    labels.push(label);
    colors.push(COLORS[side]);
    values.push(...bandCurve(sideRuns, axis, xMax, label));
  }
  // A marker stands at the budget CleanRL published for; drawn only when the runs here went that far.
  for (const { steps, mean: m, std: s } of publishedFor(variant, envId)) {
    if (axis !== "step" || steps > xMax * 1.01) continue;
    const publishedLabel = `CleanRL published (its docs, ${shortSteps(steps)} steps): ${fmtSpread(m, s)}`;
    labels.push(publishedLabel);
    colors.push(COLORS.published);
    values.push({ x: steps, published: m, low: m - s, high: m + s, series: publishedLabel });
  }
  const machines = unique(runs.map((r) => r.meta.machine));
  const recorded = unique(runs.map((r) => r.meta.recorded?.slice(0, 10))).sort();
  const runDates = recorded.length > 1 ? `${recorded[0]} to ${recorded.at(-1)}` : (recorded[0] ?? "unknown");
  const xTitle = axis === "step" ? "global step" : `wall-clock time since the run started (${minutes ? "min" : "s"})`;
  const color = { field: "series", type: "nominal", scale: { domain: labels, range: colors }, title: null } as const;
  const xEnd = values.reduce((end, v) => Math.max(end, v.x), xMax);
  const x = {
    field: "x",
    type: "quantitative" as const,
    title: xTitle,
    scale: { domain: [0, xEnd], nice: false },
  };
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    width: 640,
    height: 320,
    background: "white",
    config: {
      font: "DejaVu Sans",
      // Full-strength legend symbols: the merged legend would otherwise take the band's faint fill.
      legend: { orient: "bottom", direction: "vertical", labelLimit: 640, symbolOpacity: 1, symbolSize: 120 },
    },
    title: {
      text: `${envId}: episodic return vs ${axis === "step" ? "global step" : "wall-clock time"}`,
      subtitle: [
        `line: mean over seeds; band: min–max over seeds; a seed's point: mean of its last ${WINDOW} episodes`,
        ...(axis === "seconds"
          ? ["nice 19, beside other runs and work on a shared machine (each CSV records its load averages)"]
          : []),
        `runs: ${machines.join("; ") || "machine not recorded"}, ${runDates}`,
        `drawn by \`${COMMAND}\` on ${drawnOn}`,
      ],
      anchor: "start",
    },
    data: { values },
    layer: [
      {
        mark: { type: "area", opacity: 0.18 },
        encoding: { x, y: { field: "min", type: "quantitative" }, y2: { field: "max" }, color },
      },
      {
        mark: { type: "line", strokeWidth: 2 },
        encoding: { x, y: { field: "mean", type: "quantitative", title: "episodic return" }, color },
      },
      {
        mark: { type: "rule", strokeWidth: 2 },
        encoding: { x, y: { field: "low", type: "quantitative" }, y2: { field: "high" }, color },
      },
      {
        mark: { type: "point", shape: "diamond", size: 120, filled: true },
        encoding: { x, y: { field: "published", type: "quantitative" }, color },
      },
    ],
  };
}

async function render(spec: TopLevelSpec, path: string): Promise<void> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: "none" });
  const svg = await view.toSVG();
  view.finalize();
  writeFileSync(`${path}.svg`, svg);
  const png = new Resvg(svg, {
    fitTo: { mode: "zoom", value: 1.5 },
    font: { loadSystemFonts: true, defaultFontFamily: "DejaVu Sans" },
  })
    .render()
    .asPng();
  writeFileSync(`${path}.png`, png);
}

function fmt(x: number): string {
  return Math.abs(x) >= 1000 ? x.toFixed(0) : x.toFixed(2);
}

/** "mean ± std" with the std in the mean's precision (whole numbers from 1000 up). */
function fmtSpread(m: number, s: number): string {
  return Math.abs(m) >= 1000 ? `${m.toFixed(0)} ± ${s.toFixed(0)}` : `${m.toFixed(2)} ± ${s.toFixed(2)}`;
}

function summary(runs: Run[]): string {
  if (runs.length === 0) return "not run";
  const finals = runs.map(finalReturn);
  const perSeed = runs.map((r, i) => `${r.seed}: ${fmt(finals[i])}`).join(", ");
  return `${fmtSpread(mean(finals), std(finals))} (${perSeed})`;
}

/** A run's mean return over the episodes of its last fifth of steps: the late level, less noisy than 20 episodes. */
function lateMean(run: Run): number {
  const end = run.episodes.at(-1)?.step ?? 0;
  return mean(run.episodes.filter((e) => e.step >= 0.8 * end).map((e) => e.ret));
}

/** Is ours inside CleanRL's own spread? Our mean of `measure` against the min–max of CleanRL's seeds run here. */
function verdict(ours: Run[], theirs: Run[], measure: (run: Run) => number): string {
  if (ours.length === 0 || theirs.length === 0) return "—";
  const m = mean(ours.map(measure));
  const values = theirs.map(measure);
  const [lo, hi] = [Math.min(...values), Math.max(...values)];
  if (m >= lo && m <= hi) return "yes";
  return m < lo ? `below (${fmt(m)} < ${fmt(lo)})` : `above (${fmt(m)} > ${fmt(hi)})`;
}

function table(variant: string, runs: Run[]): string {
  const rows = [
    "| env | steps | ours: final return, mean ± std (per seed) | CleanRL side by side: final return (per seed) | CleanRL published | ours' mean within CleanRL's seeds here | last fifth of steps, mean return: ours / CleanRL (ours within CleanRL's seeds) | SPS ours / CleanRL |",
    "|---|---|---|---|---|---|---|---|",
  ];
  for (const envId of unique(runs.map((r) => r.envId))) {
    const envRuns = runs.filter((r) => r.envId === envId);
    const ours = envRuns.filter((r) => r.side === "ours");
    const theirs = envRuns.filter((r) => r.side === "cleanrl");
    const steps = Math.max(...envRuns.map(budget));
    const refs = publishedFor(variant, envId);
    const refText =
      refs.map(({ steps, mean: m, std: s }) => `${fmtSpread(m, s)} at ${steps.toLocaleString("en-US")}`).join("; ") ||
      "—";
    const sps = (rs: Run[]) => (rs.length ? mean(rs.map(finalSps)).toFixed(0) : "—");
    const late = (rs: Run[]) => (rs.length ? fmt(mean(rs.map(lateMean))) : "—");
    rows.push(
      `| ${envId} | ${steps.toLocaleString("en-US")} | ${summary(ours)} | ${summary(theirs)} | ${refText} | ${verdict(ours, theirs, finalReturn)} | ${late(ours)} / ${late(theirs)} (${verdict(ours, theirs, lateMean)}) | ${sps(ours)} / ${sps(theirs)} |`,
    );
  }
  return rows.join("\n");
}

const cli = parseArgs(
  {
    resultsDir: str(join(ROOT, "benchmark", "results"), "folder of <variant>/<env>/<side>_seed<N>.csv run records"),
    plotsDir: str(join(ROOT, "benchmark", "plots"), "folder the charts go to"),
  },
  "Draws the side-by-side learning curves and prints the final-return tables from the run CSVs.",
  "benchmark/curves.ts",
  process.argv.slice(2),
);
const runs = readRuns(cli.resultsDir);
if (runs.length === 0) throw new Error(`no run CSVs under ${cli.resultsDir}`);
mkdirSync(cli.plotsDir, { recursive: true });
const drawnOn = new Date().toISOString().slice(0, 10);
for (const variant of unique(runs.map((r) => r.variant))) {
  const variantRuns = runs.filter((r) => r.variant === variant);
  for (const envId of unique(variantRuns.map((r) => r.envId))) {
    const envRuns = variantRuns.filter((r) => r.envId === envId);
    for (const axis of ["step", "seconds"] as const) {
      const name = `curves_${variant}_${envId.replaceAll("/", "_")}${axis === "seconds" ? "_time" : ""}`;
      const path = join(cli.plotsDir, name);
      await render(chartSpec(variant, envId, envRuns, axis, drawnOn), path);
      console.log(`${path}.svg, .png`);
    }
  }
  console.log(`\n### ${variant}\n\n${table(variant, variantRuns)}\n`);
}
