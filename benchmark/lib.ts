// Benchmark plumbing shared by every variant's benchmark script: run `seeds × env ids` of a variant as child
// processes, read their TensorBoard event files back, and report what CleanRL's tables report — the mean ± std
// over seeds of each run's final episodic return (mean of its last 20 episodes) and of its SPS — plus an SVG
// learning curve per env.

import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { usageError } from "../envs/run/cli.ts";
import { readEventFile } from "../envs/run/logging.ts";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));

/**
 * Units per second of `step` (it returns how many units — frames, env steps — one call did), timed over `seconds`
 * of wall clock after 20 untimed warm-up calls (JIT, image decoding, worker start-up).
 */
export function ratePerSecond(step: () => number, seconds: number): number {
  for (let i = 0; i < 20; i++) step();
  let units = 0;
  const start = performance.now();
  while (performance.now() - start < seconds * 1000) units += step();
  return units / ((performance.now() - start) / 1000);
}

/** A `--workers 1,2` list: comma-separated counts of at least 1, else a usage error. */
export function workerCounts(list: string): number[] {
  const counts = list.split(",").map(Number);
  if (!counts.every((n) => Number.isSafeInteger(n) && n >= 1))
    usageError(`--workers expects comma-separated counts of at least 1, got "${list}"`);
  return counts;
}

export interface RunResult {
  envId: string;
  seed: number;
  /** Legend text for plots; "seed N" when absent. */
  label?: string;
  finalReturn: number;
  sps: number;
  seconds: number;
  curve: [step: number, episodicReturn: number][];
}

/** `--seeds 1,2,3` as numbers; anything but comma-separated non-negative integers is a usage error. */
export function parseSeeds(list: string): number[] {
  const seeds = list.split(",").map(Number);
  if (!seeds.every((s) => Number.isSafeInteger(s) && s >= 0))
    usageError(`--seeds expects comma-separated non-negative integers, got "${list}"`);
  return seeds;
}

/**
 * Runs `npx tsx [...launch] {script} --env-id E --seed S ...extra` for every pair, `workers` at a time; returns each
 * run's result. `launch` is a launcher script and its flags (e.g. envs/run/torchrun.ts for the data-parallel variant).
 */
export async function runAll(opts: {
  script: string;
  envIds: string[];
  seeds: number[];
  extra: string[];
  workers: number;
  logDir: string;
  metric?: string;
  launch?: string[];
}): Promise<RunResult[]> {
  mkdirSync(opts.logDir, { recursive: true });
  const jobs = opts.envIds.flatMap((envId) => opts.seeds.map((seed) => ({ envId, seed })));
  const results: RunResult[] = [];
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const { envId, seed } = jobs[next++];
      results.push(await runOne(opts.script, envId, seed, opts.extra, opts.logDir, opts.metric, opts.launch));
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.workers, cpus().length)) }, worker));
  return results.sort((a, b) => a.envId.localeCompare(b.envId) || a.seed - b.seed);
}

async function runOne(
  script: string,
  envId: string,
  seed: number,
  extra: string[],
  logDir: string,
  metric?: string,
  launch: string[] = [],
): Promise<RunResult> {
  const expName = `bench_${script.replace(/\.ts$/, "")}`;
  const launcher = launch.length > 0 ? [join(ROOT, launch[0]), ...launch.slice(1)] : [];
  const args = [
    "--import",
    "tsx",
    ...launcher,
    join(ROOT, script),
    "--env-id",
    envId,
    "--seed",
    String(seed),
    "--exp-name",
    expName,
    ...extra,
  ];
  const started = Date.now();
  const logFile = join(logDir, `${envId}__${seed}.log`);
  const output: string[] = [];
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT });
    child.stdout.on("data", (d) => output.push(String(d)));
    child.stderr.on("data", (d) => output.push(String(d)));
    child.on("close", resolve);
  });
  writeFileSync(logFile, output.join(""));
  if (code !== 0) throw new Error(`${script} --env-id ${envId} --seed ${seed} exited ${code}; see ${logFile}`);
  const result = readRun(script, envId, seed, (Date.now() - started) / 1000, metric);
  console.log(
    `${envId} seed ${seed}: final return ${result.finalReturn.toFixed(2)}, SPS ${result.sps}, ${result.seconds.toFixed(0)} s`,
  );
  return result;
}

/**
 * Reads the newest runs/{env}__bench_{script}__{seed}__{time} directory back into a RunResult. `metric` is the
 * curve's scalar tag: the episodic return, or for the PettingZoo self-play variant player 0's episodic length.
 */
export function readRun(
  script: string,
  envId: string,
  seed: number,
  seconds = NaN,
  metric = "charts/episodic_return",
): RunResult {
  const expName = `bench_${script.replace(/\.ts$/, "")}`;
  const prefix = `${envId}__${expName}__${seed}__`;
  const runDir = readdirSync(join(ROOT, "runs"))
    .filter((d) => d.startsWith(prefix))
    .sort()
    .at(-1);
  if (!runDir) throw new Error(`no runs/${prefix}* directory`);
  const eventFile = readdirSync(join(ROOT, "runs", runDir)).find((f) => f.startsWith("events.out.tfevents."));
  if (!eventFile) throw new Error(`no event file in runs/${runDir}`);
  const events = readEventFile(join(ROOT, "runs", runDir, eventFile));
  const curve = events.filter((e) => e.tag === metric).map((e) => [e.step, e.value] as [number, number]);
  const last = curve.slice(-20).map(([, r]) => r);
  const sps = events.filter((e) => e.tag === "charts/SPS").at(-1)?.value ?? NaN;
  return { envId, seed, finalReturn: mean(last), sps, seconds, curve };
}

export function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** Population std over seeds, as CleanRL's benchmark tables (numpy's default ddof=0). */
export function std(xs: number[]): number {
  const m = mean(xs);
  return Math.sqrt(mean(xs.map((x) => (x - m) ** 2)));
}

/** The markdown table CleanRL's docs show: one row per env, mean ± std over seeds. */
export function markdownTable(results: RunResult[], reference: Record<string, string> = {}): string {
  const envIds = [...new Set(results.map((r) => r.envId))];
  const rows = envIds.map((envId) => {
    const rs = results.filter((r) => r.envId === envId);
    const returns = rs.map((r) => r.finalReturn);
    const sps = rs.map((r) => r.sps);
    return `| ${envId} | ${mean(returns).toFixed(2)} ± ${std(returns).toFixed(2)} | ${rs.map((r) => r.finalReturn.toFixed(1)).join(", ")} | ${mean(sps).toFixed(0)} ± ${std(sps).toFixed(0)} | ${reference[envId] ?? ""} |`;
  });
  return [
    "| env | final return (mean ± std over seeds) | per seed | SPS | CleanRL |",
    "|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}

/** An SVG learning curve: episodic return against global step, one line per run (moving average of `window` episodes). */
export function learningCurveSvg(envId: string, results: RunResult[], window = 20): string {
  const runs = results.filter((r) => r.envId === envId);
  const labels = runs.map((r) => r.label ?? `seed ${r.seed}`);
  const legendWidth = Math.max(80, 7 * Math.max(...labels.map((l) => l.length)) + 20);
  const [width, height, pad] = [640 + legendWidth, 400, 50];
  const smoothed = runs.map((r) =>
    r.curve.map(
      ([step], i) =>
        [step, mean(r.curve.slice(Math.max(0, i - window + 1), i + 1).map(([, v]) => v))] as [number, number],
    ),
  );
  const points = smoothed.flat();
  const maxX = Math.max(...points.map(([x]) => x));
  let [minY, maxY] = [Math.min(...points.map(([, y]) => y)), Math.max(...points.map(([, y]) => y))];
  if (minY === maxY) [minY, maxY] = [minY - 1, maxY + 1];
  const sx = (x: number) => pad + (x / maxX) * (width - 2 * pad - legendWidth);
  const sy = (y: number) => height - pad - ((y - minY) / (maxY - minY)) * (height - 2 * pad);
  const colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"];
  const lines = smoothed.map(
    (curve, i) =>
      `<polyline fill="none" stroke="${colors[i % colors.length]}" stroke-width="1.5" points="${curve.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(" ")}"/>`,
  );
  const legend = runs.map(
    (_r, i) =>
      `<text x="${width - pad - legendWidth + 10}" y="${pad + 16 * i}" fill="${colors[i % colors.length]}" font-size="12">${labels[i]}</text>`,
  );
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const y = minY + f * (maxY - minY);
    const x = f * maxX;
    return `<text x="${pad - 6}" y="${sy(y) + 4}" font-size="11" text-anchor="end">${y.toFixed(maxY - minY < 10 ? 2 : 0)}</text><text x="${sx(x)}" y="${height - pad + 16}" font-size="11" text-anchor="middle">${x >= 1e6 ? `${(x / 1e6).toFixed(2)}M` : `${(x / 1e3).toFixed(0)}k`}</text>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="${width / 2}" y="24" font-size="15" text-anchor="middle">${envId}: episodic return (moving average of ${window} episodes)</text>
<line x1="${pad}" y1="${height - pad}" x2="${width - pad - legendWidth}" y2="${height - pad}" stroke="black"/>
<line x1="${pad}" y1="${pad}" x2="${pad}" y2="${height - pad}" stroke="black"/>
${ticks.join("\n")}
<text x="${width / 2}" y="${height - 10}" font-size="12" text-anchor="middle">global step</text>
${lines.join("\n")}
${legend.join("\n")}
</svg>
`;
}
