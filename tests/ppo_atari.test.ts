// ppo_atari.ts and ppo_atari_lstm.ts end to end: env workers, the Atari wrapper stack, logging, saving and
// evaluation. MemoryCue-v0 looks like an ALE game to the wrappers, so these runs need no ROM; the Breakout runs
// use real ROMs when ALE_ROMS_DIR (or ../shared/roms, as in CI) has them and skip otherwise.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { UsageError } from "../envs/cli.ts";
import { readEventFile } from "../envs/logging.ts";
import { errorLine } from "../envs/main.ts";
import { ROM_DIR, skipWithoutRom } from "./helpers.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TINY = ["--num-envs", "2", "--num-steps", "16", "--total-timesteps", "64", "--num-minibatches", "2", "--update-epochs", "1"];

let workDir = "";
before(() => {
  workDir = mkdtempSync(join(tmpdir(), "ppo-atari-test-"));
});
after(() => rmSync(workDir, { recursive: true, force: true }));

function runScript(script: string, args: string[]) {
  const env = { ...process.env, ALE_ROMS_DIR: "" };
  return spawnSync(process.execPath, ["--import", import.meta.resolve("tsx"), join(ROOT, script), ...args], { cwd: workDir, encoding: "utf8", timeout: 180_000, env });
}

/**
 * In-process: the line runMain (envs/main.ts) would print for `script`'s `main(args)`, which must reject with a
 * UsageError (exit 2). tests/errors.test.ts runs each variant as a child process to check that end to end. Without
 * the workplace's ROMs, as in runScript.
 */
async function usageErrorLine(script: string, args: string[]): Promise<string> {
  const { main } = (await import(join(ROOT, script))) as { main: (argv: string[]) => Promise<void> };
  const saved = process.env.ALE_ROMS_DIR;
  process.env.ALE_ROMS_DIR = "";
  try {
    let line = "";
    await assert.rejects(main(args), (e: Error) => {
      assert.ok(e instanceof UsageError, `${script} ${args.join(" ")}: ${e} is not a UsageError (exit 2)`);
      line = errorLine(e);
      return true;
    });
    return line;
  } finally {
    if (saved === undefined) delete process.env.ALE_ROMS_DIR;
    else process.env.ALE_ROMS_DIR = saved;
  }
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
    for (const tag of ["charts/episodic_return", "charts/SPS", "charts/learning_rate", "losses/value_loss", "losses/policy_loss", "losses/entropy", "losses/approx_kl", "losses/clipfrac", "losses/explained_variance", "eval/episodic_return"]) {
      assert.ok(tags.has(tag), `missing ${tag}`);
    }
  });

  test(`${script} stops with one clear line when the ROM is missing`, async () => {
    const line = await usageErrorLine(script, ["--env-id", "BreakoutNoFrameskip-v4", "--rom-dir", join(workDir, "no-roms-here")]);
    assert.match(line, /error: ROM for "breakout" not found\. Searched:/);
    assert.match(line, /no-roms-here/);
  });

  test(`${script} runs on real Breakout`, { skip: skipWithoutRom("breakout") }, () => {
    const run = runScript(script, ["--env-id", "BreakoutNoFrameskip-v4", "--rom-dir", ROM_DIR, "--seed", "2", ...TINY]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /SPS: \d+/);
    const tags = eventTags(`BreakoutNoFrameskip-v4__${exp}__2__`);
    assert.ok(tags.has("losses/value_loss"));
  });
}

test("ppo_atari_lstm.ts refuses env counts that do not split into whole-env minibatches", async () => {
  const line = await usageErrorLine("ppo_atari_lstm.ts", ["--env-id", "MemoryCue-v0", "--num-envs", "6", "--num-minibatches", "4"]);
  assert.match(line, /error: --num-envs 6 is not divisible by --num-minibatches 4/);
});
