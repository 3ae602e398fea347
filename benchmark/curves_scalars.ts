// The training scalars of finished runs, ours beside CleanRL's, as one markdown table:
//   npx tsx benchmark/curves_scalars.ts --ours DIR[,DIR...] --cleanrl DIR[,DIR...] [--windows 0-0.2,0.4-0.6,0.8-1]
//     [--steps N] [--tags losses/entropy,charts/episodic_return]
// Each DIR is a TensorBoard run directory (ours, envs/run/logging.ts, or CleanRL's torch SummaryWriter) or a folder
// holding one under runs/ (a seed's folder from benchmark/curves_queue.sh or benchmark/curves_prefix.sh), read only
// once its `.done` mark says the run finished. For every scalar both sides log (but charts/SPS, which measures the
// machine) and each window of global steps (fractions of --steps, by default the longest run's), a row gives each
// side's mean over its seeds, each seed's own mean over the window (a seed is named by the seed field of CleanRL's
// run name `<env>__<exp>__<seed>__<time>`), and whether the two sides' per-seed ranges overlap: a difference that is
// not seed spread shows as ranges that stay apart window after window.

import { existsSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";

import { int, parseArgs, str, usageError } from "../envs/run/cli.ts";
import { type EventEntry, readRunDir } from "../envs/run/logging.ts";
import { handleExits } from "../envs/run/main.ts";
import { mean } from "./lib.ts";

handleExits();

const cli = parseArgs(
  {
    ours: str(null, "comma-separated run directories of ours"),
    cleanrl: str(null, "comma-separated run directories of CleanRL's script"),
    windows: str("0-0.2,0.4-0.6,0.8-1", "comma-separated windows of global step, as fractions of --steps"),
    steps: int(null, "the steps the windows divide (default: the longest run's); later scalars are left out", {
      ge: 1,
    }),
    tags: str("", "comma-separated scalars to show, in that order (default: every one both sides log, but charts/SPS)"),
  },
  "Prints a markdown table of the training scalars both sides log, per side and per seed, over windows of steps.",
  "benchmark/curves_scalars.ts",
  process.argv.slice(2),
);
if (cli.ours === null || cli.cleanrl === null) usageError("--ours and --cleanrl are required");

interface Run {
  seed: string;
  entries: EventEntry[];
}

/**
 * A run directory itself, or the one run directory under DIR/runs/ (DIR/runs/<namespace>/ for an id such as
 * dm_control/cartpole-balance-v0) once DIR has the queue's `.done` mark.
 */
function runDirOf(dir: string): string {
  if (!existsSync(dir)) usageError(`${dir} does not exist`);
  const hasEvents = (d: string) => readdirSync(d).some((n) => n.includes("tfevents"));
  if (hasEvents(dir)) return dir;
  if (!existsSync(join(dir, ".done"))) usageError(`${dir} has no .done: its run has not finished`);
  let found = join(dir, "runs");
  for (let depth = 0; depth < 2 && existsSync(found) && !hasEvents(found); depth++) {
    const inside = readdirSync(found);
    if (inside.length !== 1) break;
    found = join(found, inside[0]);
  }
  if (!existsSync(found) || !hasEvents(found))
    usageError(`${dir} is neither a TensorBoard run directory nor a folder with one in runs/`);
  return found;
}

function readSide(list: string): Run[] {
  return list.split(",").map((dir) => {
    const runDir = runDirOf(dir);
    const entries = readRunDir(runDir).filter((e) => !Number.isNaN(e.value));
    if (entries.length === 0) usageError(`${runDir} has no TensorBoard scalars`);
    return { seed: basename(runDir).split("__")[2] ?? basename(runDir), entries };
  });
}

function parseWindows(list: string): [number, number][] {
  return list.split(",").map((w) => {
    const [from, to] = w.split("-").map(Number);
    if (!(from >= 0 && to > from && to <= 1)) usageError(`--windows: "${w}" is not FROM-TO with 0 <= FROM < TO <= 1`);
    return [from, to];
  });
}

/** Four significant digits, plain notation while that stays short. */
function format(x: number): string {
  if (Number.isNaN(x)) return "–";
  const abs = Math.abs(x);
  return abs !== 0 && (abs < 1e-3 || abs >= 1e6) ? x.toExponential(3) : String(Number(x.toPrecision(4)));
}

const sides = { ours: readSide(cli.ours), CleanRL: readSide(cli.cleanrl) };
const windows = parseWindows(cli.windows);
const allRuns = [...sides.ours, ...sides.CleanRL];
// A reduce, not Math.max(...steps): a dozen 1M-step runs log more entries than a call's arguments may hold.
const lastStep = cli.steps ?? allRuns.reduce((m, r) => r.entries.reduce((n, e) => Math.max(n, e.step), m), 0);
const tagsOf = (r: Run) => new Set(r.entries.map((e) => e.tag));
const shared = [...tagsOf(allRuns[0])].filter((tag) => allRuns.every((r) => tagsOf(r).has(tag))).sort();
const tags = cli.tags === "" ? shared.filter((tag) => tag !== "charts/SPS") : cli.tags.split(",");
for (const tag of tags) if (!shared.includes(tag)) usageError(`--tags: ${tag} is not logged by every run`);

/** One seed's mean of a scalar over the steps in (from, to] of `lastStep` (from the start for the first). */
function windowMean(run: Run, tag: string, [from, to]: [number, number]): number {
  const low = from * lastStep;
  const high = to * lastStep;
  const values = run.entries
    .filter((e) => e.tag === tag && (e.step > low || (from === 0 && e.step >= 0)) && e.step <= high)
    .map((e) => e.value);
  return values.length > 0 ? mean(values) : NaN;
}

/**
 * Two-sided p-value of the Mann–Whitney U test, exact: the share of the C(m + n, m) equally likely orderings of the
 * pooled seeds whose U is at least as extreme as the observed one (ties count a half, as in U's definition).
 */
function mannWhitneyP(a: number[], b: number[]): number {
  const [m, n] = [a.length, b.length];
  let u = 0;
  for (const x of a) for (const y of b) u += x > y ? 1 : x === y ? 0.5 : 0;
  // previous[k] (current[k]): per U, how many orderings of j - 1 (j) values of a and k of b give it, built up by
  // which side the largest value comes from.
  let previous: number[][] = Array.from({ length: n + 1 }, () => [1]);
  for (let j = 1; j <= m; j++) {
    const current: number[][] = [[1]];
    for (let k = 1; k <= n; k++) {
      const counts = new Array(j * k + 1).fill(0);
      previous[k].forEach((c, v) => (counts[v + k] += c)); // a's largest value is last: it beats all k of b
      current[k - 1].forEach((c, v) => (counts[v] += c)); // b's largest value is last
      current.push(counts);
    }
    previous = current;
  }
  const counts = previous[n];
  const total = counts.reduce((x, y) => x + y, 0);
  const below = counts.reduce((x, c, v) => (v <= u ? x + c : x), 0) / total;
  const above = counts.reduce((x, c, v) => (v >= u ? x + c : x), 0) / total;
  return Math.min(1, 2 * Math.min(below, above));
}

/**
 * Seeds a side that would detect the difference of the two means with a two-sided 5 % test at 80 % power, by the
 * normal approximation 2 (z₀.₉₇₅ + z₀.₈)² s² / Δ², s² the mean of the two sides' sample variances.
 */
function seedsNeeded(a: number[], b: number[]): number {
  const sampleVariance = (xs: number[]) => xs.reduce((s, x) => s + (x - mean(xs)) ** 2, 0) / (xs.length - 1);
  const difference = mean(a) - mean(b);
  const variance = (sampleVariance(a) + sampleVariance(b)) / 2;
  return Math.ceil((2 * (1.959964 + 0.841621) ** 2 * variance) / difference ** 2);
}

const lines = [
  "| scalar | steps | ours: mean | CleanRL: mean | ours per seed | CleanRL per seed | seed ranges overlap | Mann–Whitney p | seeds a side to tell |",
  "|---|---|---|---|---|---|---|---|---|",
];
for (const tag of tags) {
  for (const window of windows) {
    const perSeed = Object.fromEntries(
      Object.entries(sides).map(([side, runs]) => [side, runs.map((r) => windowMean(r, tag, window))]),
    ) as Record<keyof typeof sides, number[]>;
    const [ours, theirs] = [perSeed.ours, perSeed.CleanRL];
    const overlap = Math.max(...ours) >= Math.min(...theirs) && Math.max(...theirs) >= Math.min(...ours);
    const seeds = (side: keyof typeof sides) =>
      sides[side].map((r, i) => `${r.seed}: ${format(perSeed[side][i])}`).join(", ");
    const steps = `${Math.round((window[0] * lastStep) / 1000)}k–${Math.round((window[1] * lastStep) / 1000)}k`;
    const enoughSeeds = ours.length >= 2 && theirs.length >= 2 && mean(ours) !== mean(theirs);
    const needed = enoughSeeds ? String(seedsNeeded(ours, theirs)) : "–";
    lines.push(
      `| ${tag} | ${steps} | ${format(mean(ours))} | ${format(mean(theirs))} | ${seeds("ours")} | ${seeds("CleanRL")} | ${overlap ? "yes" : "**no**"} | ${mannWhitneyP(ours, theirs).toFixed(2)} | ${needed} |`,
    );
  }
}
console.log(lines.join("\n"));
