// ppo_atari.ts and ppo_atari_lstm.ts end to end: env workers, the Atari wrapper stack, logging, saving and
// evaluation. MemoryCue-v0 looks like an ALE game to the wrappers, so these runs need no ROM; the Breakout runs
// use real ROMs when ALE_ROMS_DIR (or ../shared/roms, as in CI) has them and skip otherwise.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { readEventFile } from "../envs/run/logging.ts";
import { ROM_DIR, skipWithoutRom } from "./helpers.ts";
import { usageErrorLine } from "./usage_helpers.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TINY = [
  "--num-envs",
  "2",
  "--num-steps",
  "16",
  "--total-timesteps",
  "64",
  "--num-minibatches",
  "2",
  "--update-epochs",
  "1",
];
const ONE_ITERATION = [
  "--num-envs",
  "1",
  "--num-steps",
  "16",
  "--total-timesteps",
  "16",
  "--num-minibatches",
  "1",
  "--update-epochs",
  "1",
];

let workDir = "";
before(() => {
  workDir = mkdtempSync(join(tmpdir(), "ppo-atari-test-"));
});
after(() => rmSync(workDir, { recursive: true, force: true }));

function runScript(script: string, args: string[], extraEnv: Record<string, string> = {}) {
  const env = { ...process.env, ALE_ROMS_DIR: "", ...extraEnv };
  return spawnSync(process.execPath, ["--import", import.meta.resolve("tsx"), join(ROOT, script), ...args], {
    cwd: workDir,
    encoding: "utf8",
    timeout: 180_000,
    env,
  });
}

/** In-process: the line runMain would print for `script`'s `main(args)` (a UsageError), without the workplace's ROMs as in runScript. */
async function scriptUsageErrorLine(script: string, args: string[]): Promise<string> {
  const { main } = (await import(join(ROOT, script))) as { main: (argv: string[]) => Promise<void> };
  return usageErrorLine(main, args, { ALE_ROMS_DIR: "" });
}

function eventTags(runPrefix: string): Set<string> {
  const runDir = readdirSync(join(workDir, "runs")).find((d) => d.startsWith(runPrefix));
  assert.ok(runDir, `no runs/${runPrefix}*`);
  const eventFile = readdirSync(join(workDir, "runs", runDir)).find((f) => f.startsWith("events.out.tfevents."))!;
  return new Set(readEventFile(join(workDir, "runs", runDir, eventFile)).map((e) => e.tag));
}

for (const script of ["ppo_atari.ts", "ppo_atari_lstm.ts"]) {
  const exp = script.replace(/\.ts$/, "");
  test(`${script} trains through env workers and the Atari wrapper stack, logs, saves and evaluates`, () => {
    const run = runScript(script, ["--env-id", "MemoryCue-v0", ...TINY, "--save-model", "--eval-episodes", "2"]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /global_step=\d+, episodic_return=-?1/);
    assert.match(run.stdout, /SPS: \d+/);
    assert.match(run.stdout, /eval_episode=1, episodic_return=-?1/);
    const tags = eventTags(`MemoryCue-v0__${exp}__1__`);
    for (const tag of [
      "charts/episodic_return",
      "charts/SPS",
      "charts/learning_rate",
      "losses/value_loss",
      "losses/policy_loss",
      "losses/entropy",
      "losses/approx_kl",
      "losses/clipfrac",
      "losses/explained_variance",
      "eval/episodic_return",
    ]) {
      assert.ok(tags.has(tag), `missing ${tag}`);
    }
  });

  test(`${script} stops with one clear line when the ROM is missing`, async () => {
    mkdirSync(join(workDir, "no-roms-here"), { recursive: true }); // a folder without the ROM
    const line = await scriptUsageErrorLine(script, [
      "--env-id",
      "BreakoutNoFrameskip-v4",
      "--rom-dir",
      join(workDir, "no-roms-here"),
    ]);
    assert.match(line, /error: ROM for "breakout" not found\. Searched:/);
    assert.match(line, /no-roms-here/);
  });

  test(`${script} runs on real Breakout`, { skip: skipWithoutRom("breakout") }, () => {
    // This run is about the real ROM behind the variant's env worker; the MemoryCue run above covers several
    // workers, minibatches and iterations with the default WASM threads. So: one env, one iteration, one
    // minibatch, and the single-thread WASM module (its start-up is ~1.5 CPU s cheaper than the threaded one's
    // 8 pthread workers).
    const run = runScript(
      script,
      ["--env-id", "BreakoutNoFrameskip-v4", "--rom-dir", ROM_DIR, "--seed", "2", ...ONE_ITERATION],
      { PPO_TS_WASM_THREADS: "1" },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /SPS: \d+/);
    const tags = eventTags(`BreakoutNoFrameskip-v4__${exp}__2__`);
    assert.ok(tags.has("losses/value_loss"));
  });
}

test("ppo_atari_lstm.ts refuses env counts that do not split into whole-env minibatches", async () => {
  const line = await scriptUsageErrorLine("ppo_atari_lstm.ts", [
    "--env-id",
    "MemoryCue-v0",
    "--num-envs",
    "6",
    "--num-minibatches",
    "4",
  ]);
  assert.match(line, /error: --num-envs 6 is not divisible by --num-minibatches 4/);
});
