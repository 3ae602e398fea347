import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { SummaryWriter } from "../envs/run/logging.ts";

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const run = promisify(execFile);

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ppo-curves-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function tsx(script: string, args: string[]) {
  return run(process.execPath, ["--import", "tsx", path.join(ROOT, script), ...args], { cwd: ROOT });
}

/** A run directory as a variant writes it: SPS once per iteration, a return per finished episode. */
function writeRun(dir: string, log: [string, number, number][]): void {
  const writer = new SummaryWriter(dir);
  writer.addText("hyperparameters", "|param|value|");
  for (const [tag, value, step] of log) writer.addScalar(tag, value, step);
  writer.close();
}

function csvRows(file: string): string[][] {
  return fs
    .readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .filter((line) => !line.startsWith("#"))
    .map((line) => line.split(","));
}

test("curves_record writes one row per episode, each with the last SPS logged at or before its step", async (t) => {
  const dir = tempDir(t);
  writeRun(path.join(dir, "run"), [
    ["charts/episodic_return", 10, 100],
    ["charts/SPS", 1000, 128],
    ["charts/episodic_return", 20, 200],
    ["charts/SPS", 1100, 256],
    ["charts/episodic_return", 30, 256],
    ["charts/episodic_return", 40, 300],
  ]);
  const out = path.join(dir, "results", "ppo", "CartPole-v1", "ours_seed1.csv");
  await tsx("benchmark/curves_record.ts", ["--run-dir", path.join(dir, "run"), "--out", out]);
  const rows = csvRows(out);
  assert.deepEqual(rows[0], ["global_step", "wall_seconds", "episodic_return", "sps"]);
  assert.deepEqual(
    rows.slice(1).map(([step, , ret, sps]) => [step, ret, sps]),
    [
      ["100", "10", ""],
      ["200", "20", "1000"],
      ["256", "30", "1100"],
      ["300", "40", "1100"],
    ],
  );
});

test("curves_record keeps the command, commit and machine as comment lines above the header", async (t) => {
  const dir = tempDir(t);
  writeRun(path.join(dir, "run"), [["charts/episodic_return", 10, 100]]);
  const out = path.join(dir, "run.csv");
  await tsx("benchmark/curves_record.ts", [
    "--run-dir",
    path.join(dir, "run"),
    "--out",
    out,
    "--command",
    "npx tsx ppo.ts --seed 1 ",
    "--commit",
    "abc123",
    "--machine",
    "a test machine",
  ]);
  const comments = fs
    .readFileSync(out, "utf8")
    .split("\n")
    .filter((line) => line.startsWith("#"));
  assert.deepEqual(comments.slice(0, 3), [
    "# command: npx tsx ppo.ts --seed 1",
    "# commit: abc123",
    "# machine: a test machine",
  ]);
});

test("curves_record refuses a run without episodic returns in one line", async (t) => {
  const dir = tempDir(t);
  writeRun(path.join(dir, "run"), [["charts/SPS", 1000, 128]]);
  await assert.rejects(
    tsx("benchmark/curves_record.ts", ["--run-dir", path.join(dir, "run"), "--out", path.join(dir, "x.csv")]),
    (err: { code: number; stderr: string }) => {
      assert.equal(err.code, 1);
      assert.match(err.stderr, /^error: .* logged no charts\/episodic_return[^\n]*\n$/);
      return true;
    },
  );
});

/** A run CSV whose seed ends at `final` after a ramp over `steps` (40 episodes). */
function rampCsv(final: number, steps: number): string {
  const rows = ["# machine: a test machine", "global_step,wall_seconds,episodic_return,sps"];
  for (let i = 1; i <= 40; i++) rows.push(`${(steps * i) / 40},${i},${(final * i) / 40},500`);
  return `${rows.join("\n")}\n`;
}

/** Runs `benchmark/curves.ts` on `<dir>/results`, drawing into `<dir>/plots`; its stdout and the plots folder. */
async function drawCurves(dir: string): Promise<{ stdout: string; plots: string }> {
  const plots = path.join(dir, "plots");
  const { stdout } = await tsx("benchmark/curves.ts", [
    "--results-dir",
    path.join(dir, "results"),
    "--plots-dir",
    plots,
  ]);
  return { stdout, plots };
}

test("curves.ts draws SVG and PNG per env and axis, and tells whether ours lies within CleanRL's seeds", async (t) => {
  const dir = tempDir(t);
  const envDir = path.join(dir, "results", "ppo", "CartPole-v1");
  fs.mkdirSync(envDir, { recursive: true });
  fs.writeFileSync(path.join(envDir, "ours_seed1.csv"), rampCsv(400, 500_000));
  fs.writeFileSync(path.join(envDir, "ours_seed2.csv"), rampCsv(500, 500_000));
  fs.writeFileSync(path.join(envDir, "cleanrl_seed1.csv"), rampCsv(420, 500_000));
  fs.writeFileSync(path.join(envDir, "cleanrl_seed2.csv"), rampCsv(480, 500_000));
  const { stdout, plots } = await drawCurves(dir);
  assert.deepEqual(fs.readdirSync(plots).sort(), [
    "curves_ppo_CartPole-v1.png",
    "curves_ppo_CartPole-v1.svg",
    "curves_ppo_CartPole-v1_time.png",
    "curves_ppo_CartPole-v1_time.svg",
  ]);
  const svg = fs.readFileSync(path.join(plots, "curves_ppo_CartPole-v1.svg"), "utf8");
  assert.match(svg, /band: min–max over seeds/);
  assert.match(svg, /CleanRL published/);
  // A seed's final return is the mean of its last 20 of 40 ramp episodes, final × 30.5 / 40: 305 and 381.25 for ours,
  // 320.25 and 366 for CleanRL's; ours' mean 343.125 (population std 38.125) lies between CleanRL's two seeds.
  const row = stdout.split("\n").find((line) => line.startsWith("| CartPole-v1 "));
  assert.ok(row, stdout);
  assert.match(row, /\| 343\.13 ± 38\.13 \(1: 305\.00, 2: 381\.25\) \|/);
  assert.match(row, /\| yes \|/);
  // The last fifth of 500k steps holds episodes 32 to 40, mean final × 36 / 40: 360 and 450 for ours, 378 and 432
  // for CleanRL's, both sides' means 405.
  assert.match(row, /\| 405\.00 \/ 405\.00 \(yes\) \|/);
});

test("curves.ts reads a namespaced env id from a folder per part and names its charts without a slash", async (t) => {
  const dir = tempDir(t);
  const envDir = path.join(dir, "results", "ppo_continuous_action", "dm_control", "cartpole-balance-v0");
  fs.mkdirSync(envDir, { recursive: true });
  fs.writeFileSync(path.join(envDir, "ours_seed1.csv"), rampCsv(800, 1_000_000));
  fs.writeFileSync(path.join(envDir, "cleanrl_seed1.csv"), rampCsv(820, 1_000_000));
  const { stdout, plots } = await drawCurves(dir);
  assert.deepEqual(fs.readdirSync(plots).sort(), [
    "curves_ppo_continuous_action_dm_control_cartpole-balance-v0.png",
    "curves_ppo_continuous_action_dm_control_cartpole-balance-v0.svg",
    "curves_ppo_continuous_action_dm_control_cartpole-balance-v0_time.png",
    "curves_ppo_continuous_action_dm_control_cartpole-balance-v0_time.svg",
  ]);
  const row = stdout.split("\n").find((line) => line.startsWith("| dm_control/cartpole-balance-v0 "));
  assert.ok(row, stdout);
});

test("curves.ts marks CleanRL's published return only at a budget the runs reach, and lists every budget", async (t) => {
  const dir = tempDir(t);
  const envDir = path.join(dir, "results", "ppo_continuous_action", "dm_control", "cartpole-balance-v0");
  fs.mkdirSync(envDir, { recursive: true });
  fs.writeFileSync(path.join(envDir, "ours_seed1.csv"), rampCsv(800, 1_000_000));
  const { stdout, plots } = await drawCurves(dir);
  const svg = fs.readFileSync(
    path.join(plots, "curves_ppo_continuous_action_dm_control_cartpole-balance-v0.svg"),
    "utf8",
  );
  assert.match(svg, /CleanRL published \(its docs, 1M steps\)/);
  assert.doesNotMatch(svg, /8M steps/);
  const row = stdout.split("\n").find((line) => line.startsWith("| dm_control/cartpole-balance-v0 "));
  assert.match(row ?? stdout, /\| \S+ ± \S+ at 1,000,000; \S+ ± \S+ at 8,000,000 \|/);
});
