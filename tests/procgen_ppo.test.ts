// ppo_procgen.ts end to end with tiny settings: procgen's vector env, CleanRL's gym 0.23 wrappers, the IMPALA
// CNN, logging, saving and evaluation. Monochrome assets, so no image file is needed.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { readEventFile } from "../envs/run/logging.ts";
import { findFfmpeg } from "../envs/gymnasium/video.ts";
import { NormalizeReward, RecordEpisodeStatistics, type VecEnv } from "../envs/procgen/wrappers.ts";
import { Box, Discrete } from "../envs/gymnasium/spaces.ts";
import { main } from "../ppo_procgen.ts";
import { usageErrorLine } from "./usage_helpers.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TINY = [
  "--num-envs",
  "2",
  "--num-steps",
  "8",
  "--total-timesteps",
  "32",
  "--num-minibatches",
  "2",
  "--update-epochs",
  "1",
];

let workDir = "";
before(() => {
  workDir = mkdtempSync(join(tmpdir(), "ppo-procgen-test-"));
});
after(() => rmSync(workDir, { recursive: true, force: true }));

function runScript(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, ["--import", import.meta.resolve("tsx"), join(ROOT, "ppo_procgen.ts"), ...args], {
    cwd: workDir,
    encoding: "utf8",
    timeout: 180_000,
    env: { ...process.env, ...env },
  });
}

/**
 * For the runs after the first: the single-thread WASM module, whose start-up is ~1.5 CPU s cheaper than the threaded
 * one's 8 pthread workers. They check the checkpoint and procgen's images; the starpilot run keeps the default.
 */
const SINGLE_THREAD = { PPO_TS_WASM_THREADS: "1" };

test("ppo_procgen.ts trains on starpilot with monochrome assets, logs CleanRL's metrics, films env 0, saves and evaluates", () => {
  const run = runScript([
    "--env-id",
    "starpilot",
    "--use-monochrome-assets",
    ...TINY,
    "--save-model",
    "--eval-episodes",
    "1",
    "--capture-video",
  ]);
  assert.equal(run.status, 0, run.stderr);
  // Episode 0 of env 0 is filmed (capped-cubic schedule); without ffmpeg RecordVideo only warns.
  if (findFfmpeg().ffmpeg !== null) {
    const videoDir = readdirSync(join(workDir, "videos")).find(
      (d) => d.startsWith("starpilot__ppo_procgen__1__") && !d.endsWith("-eval"),
    );
    assert.ok(
      videoDir && readdirSync(join(workDir, "videos", videoDir)).some((f) => f.endsWith(".mp4")),
      "no training video",
    );
  }
  assert.match(run.stdout, /SPS: \d+/);
  assert.match(run.stdout, /eval_episode=0, episodic_return=\d+/);
  const runDir = readdirSync(join(workDir, "runs")).find((d) => d.startsWith("starpilot__ppo_procgen__1__"));
  assert.ok(runDir);
  const eventFile = readdirSync(join(workDir, "runs", runDir)).find((f) => f.startsWith("events.out.tfevents."))!;
  const tags = new Set(readEventFile(join(workDir, "runs", runDir, eventFile)).map((e) => e.tag));
  for (const tag of [
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
  // The saved agent evaluates again from its checkpoint.
  const model = join(workDir, "runs", runDir, "ppo_procgen.safetensors");
  const evalRun = runScript(
    ["--eval-checkpoint", model, "--eval-episodes", "1", "--use-monochrome-assets"],
    SINGLE_THREAD,
  );
  assert.equal(evalRun.status, 0, evalRun.stderr);
  assert.match(evalRun.stdout, /mean episodic_return over 1 episodes: \d/);
});

const ASSETS_DIR = [process.env.PROCGEN_ASSETS_DIR, join(ROOT, "../shared/procgen_assets")].find(
  (d) => d && existsSync(join(d, "misc_assets/fishTile_072.png")),
);

test(
  "ppo_procgen.ts trains on bigfish with procgen's images",
  { skip: ASSETS_DIR ? false : "procgen images not found (set PROCGEN_ASSETS_DIR)" },
  () => {
    const run = runScript(["--env-id", "bigfish", "--procgen-assets-dir", ASSETS_DIR!, ...TINY], SINGLE_THREAD);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /SPS: \d+/);
  },
);

test("ppo_procgen.ts offline without images and without --use-monochrome-assets stops with one clear line", () => {
  // Nothing named, an empty user cache, and a download URL nothing listens on.
  const env = {
    PROCGEN_ASSETS_DIR: "",
    XDG_CACHE_HOME: join(workDir, "empty-cache"),
    PROCGEN_ASSETS_BASE_URL: "http://127.0.0.1:9/assets",
  };
  const run = runScript(["--env-id", "starpilot", ...TINY], env);
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /^error: procgen images not found; searched /m);
  assert.match(run.stderr, /--use-monochrome-assets/);
  assert.equal(run.stderr.match(/error:/g)?.length, 1, run.stderr);
});

test("ppo_procgen.ts rejects a named folder that is not a copy of procgen's images", async () => {
  const line = await usageErrorLine(main, [
    "--env-id",
    "starpilot",
    "--procgen-assets-dir",
    join(workDir, "no-images-here"),
    ...TINY,
  ]);
  assert.match(line, /^error: --procgen-assets-dir .*no-images-here is not a copy of procgen's data\/assets/m);
});

test("ppo_procgen.ts names an unported game in one line", async () => {
  const line = await usageErrorLine(main, ["--env-id", "nosuchgame", "--use-monochrome-assets", ...TINY]);
  assert.match(line, /^error: unknown procgen game "nosuchgame"/);
});

/** A scripted 2-env vector env: rewards and dones given per step. */
class ScriptedVecEnv implements VecEnv<Uint8Array> {
  readonly numEnvs = 2;
  readonly singleObservationSpace = new Box(0, 255, [1], "uint8");
  readonly singleActionSpace = new Discrete(15);
  t = 0;
  constructor(readonly script: [number[], number[]][]) {}
  reset() {
    return new Uint8Array(2);
  }
  step(): [Uint8Array, Float32Array, Uint8Array, Record<string, unknown>[]] {
    const [r, d] = this.script[this.t++];
    return [new Uint8Array(2), Float32Array.from(r), Uint8Array.from(d), [{}, {}]];
  }
  close() {}
}

test("gym 0.23 RecordEpisodeStatistics and NormalizeReward over a vector env", () => {
  const script: [number[], number[]][] = [
    [
      [1, 0],
      [0, 0],
    ],
    [
      [2, 5],
      [1, 0],
    ],
    [
      [3, 0],
      [0, 1],
    ],
  ];
  const stats = new RecordEpisodeStatistics(new ScriptedVecEnv(script));
  stats.reset();
  stats.step([0, 0]);
  let infos = stats.step([0, 0])[3];
  assert.deepEqual(
    [infos[0].episode && (infos[0].episode as { r: number; l: number }).r, (infos[0].episode as { l: number }).l],
    [3, 2],
  );
  assert.equal(infos[1].episode, undefined);
  infos = stats.step([0, 0])[3];
  assert.deepEqual([(infos[1].episode as { r: number }).r, (infos[1].episode as { l: number }).l], [5, 3]);

  // NormalizeReward: returns accumulate per env, one RunningMeanStd over the batch, zeroed after a done.
  const norm = new NormalizeReward(new ScriptedVecEnv(script), 0.5);
  norm.reset();
  norm.step([0, 0]);
  assert.deepEqual([...norm.returns], [1, 0]);
  norm.step([0, 0]);
  assert.deepEqual([...norm.returns], [0, 5]); // env 0 ended: 0.5 * 1 + 2 was used, then zeroed
  const [, rewards] = norm.step([0, 0]);
  const v = norm.returnRms.var[0];
  assert.ok(Math.abs(rewards[0] - 3 / Math.sqrt(v + 1e-8)) < 1e-5);
});
