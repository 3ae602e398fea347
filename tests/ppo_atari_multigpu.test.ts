// ppo_atari_multigpu.ts: the data-parallel update is the single-process update on the union of the ranks' data,
// a 2-rank run through envs/run/torchrun.ts keeps every rank's weights identical with only rank 0 logging, and run
// directly it is a world-size-1 ppo_atari.ts. MemoryCue-v0 stands in for an Atari game, so no ROM is needed.
// Ranks and the single-process reference run as child processes: this file with MULTIGPU_TEST_ROLE set.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import * as tf from "@tensorflow/tfjs";
import { setupBackend } from "../envs/torch/backend.ts";
import * as dist from "../envs/torch/distributed.ts";
import { readEventFile } from "../envs/run/logging.ts";
import * as nn from "../envs/torch/nn.ts";
import { RandomGenerator, manualSeed } from "../envs/torch/rng.ts";
import { Agent, updateStep } from "../ppo_atari_multigpu.ts";
import { freePort } from "../envs/run/torchrun.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const TSX = import.meta.resolve("tsx");
const role = process.env.MULTIGPU_TEST_ROLE;
// As a child this file defines no tests.
const it: typeof test = role ? ((() => {}) as unknown as typeof test) : test;
const TINY = ["--local-num-envs", "2", "--num-steps", "16", "--num-minibatches", "2", "--update-epochs", "1"];

let workDir = "";
if (!role) {
  before(() => {
    workDir = mkdtempSync(join(tmpdir(), "ppo-multigpu-test-"));
  });
  after(() => rmSync(workDir, { recursive: true, force: true }));
}

/** Runs this file as a child in `childRole` with extra env vars; resolves with its exit code and stderr. */
function child(childRole: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const c = spawn(process.execPath, ["--import", TSX, SELF], {
    env: { ...process.env, MULTIGPU_TEST_ROLE: childRole, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  c.stderr.on("data", (d) => (stderr += d));
  return new Promise((resolve) => c.on("close", (code) => resolve({ code, stderr })));
}

function readParams(path: string): Float32Array {
  const bytes = readFileSync(path);
  return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
}

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  assert.equal(a.length, b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

// The identity behind data parallelism. Each rank's loss is a mean over its m samples, so the average of the two
// ranks' gradients is the gradient of the mean over all 2m: after the all-reduce and division by the world size,
// clipping and the optimizer see exactly the gradient a single process computes on the concatenated minibatch. It
// holds with --no-norm-adv only: with advantage normalization (CleanRL's default) each rank normalizes its own
// minibatch with its own mean and std, which is not the normalization of the union, so the updates differ a little.
// Two updates are checked in turn: a plain SGD step without clipping (it scales with the gradient, so it catches a
// missing division by the world size, which Adam's first step, nearly sign(g), would hide), then PPO's Adam step
// with clipping at 0.5.
it("one update with world size 2 on two minibatches of m equals one update with world size 1 on their 2m concatenation", async () => {
  const port = String(await freePort());
  const common = { MASTER_ADDR: "127.0.0.1", MASTER_PORT: port, OUT_DIR: workDir };
  const runs = await Promise.all([
    child("identity", { ...common, RANK: "0", WORLD_SIZE: "2" }),
    child("identity", { ...common, RANK: "1", WORLD_SIZE: "2" }),
    child("identity", { ...common, RANK: "0", WORLD_SIZE: "1" }),
  ]);
  runs.forEach((r, i) => assert.equal(r.code, 0, `child ${i}: ${r.stderr}`));
  const p = (name: string) => readParams(join(workDir, `${name}.bin`));
  let before = p("init");
  for (const step of ["sgd", "adam"]) {
    const [rank0, rank1, single, firstHalfOnly] = [
      `${step}_ws2_r0`,
      `${step}_ws2_r1`,
      `${step}_ws1_all`,
      `${step}_ws1_half`,
    ].map(p);
    assert.equal(maxAbsDiff(rank0, rank1), 0, `${step}: the two ranks' weights differ after the update`);
    assert.ok(maxAbsDiff(rank0, single) < 1e-5, `${step}: world size 2 vs 1 differ by ${maxAbsDiff(rank0, single)}`);
    // The comparison can fail: the update moved the weights, and half the data alone gives a different update.
    assert.ok(maxAbsDiff(before, single) > 1e-4, `${step}: the update did not move the weights`);
    assert.ok(maxAbsDiff(firstHalfOnly, single) > 1e-4, `${step}: half the data gave the same update as all of it`);
    before = single;
  }
});

function eventTags(runDir: string): Set<string> {
  const eventFile = readdirSync(runDir).find((f) => f.startsWith("events.out.tfevents."))!;
  return new Set(readEventFile(join(runDir, eventFile)).map((e) => e.tag));
}

it("2 ranks under torchrun train MemoryCue with identical weights throughout, only rank 0 logging", () => {
  const cwd = mkdtempSync(join(workDir, "torchrun-"));
  const run = spawnSync(
    process.execPath,
    [
      "--import",
      TSX,
      join(ROOT, "envs/run/torchrun.ts"),
      "--standalone",
      "--nnodes=1",
      "--nproc-per-node=2",
      join(ROOT, "ppo_atari_multigpu.ts"),
      "--env-id",
      "MemoryCue-v0",
      ...TINY,
      "--total-timesteps",
      "128",
      "--debug-sync",
    ],
    { cwd, encoding: "utf8", timeout: 180_000 },
  );
  assert.equal(run.status, 0, run.stderr);
  // 2 ranks x 2 envs x 16 steps = 64 steps per iteration: 2 iterations, each followed by a checksum comparison.
  for (const when of ["after init", "after update 1", "after update 2"])
    assert.match(
      run.stdout,
      new RegExp(`^\\[rank0\\]: debug-sync: ${when}, parameter checksum 0x[0-9a-f]{8} on all 2 ranks$`, "m"),
    );
  assert.match(run.stdout, /^\[rank0\]: SPS: \d+ {2}step [\d,]+\/[\d,]+ \(/m);
  assert.match(run.stdout, /^\[rank0\]: global_step=\d+, episodic_return=-?1$/m);
  assert.doesNotMatch(run.stdout, /^\[rank1\]: (SPS|global_step|debug-sync)/m);
  const runs = readdirSync(join(cwd, "runs"));
  assert.equal(runs.length, 1, `expected one run directory (rank 0's), got ${runs}`);
  const tags = eventTags(join(cwd, "runs", runs[0]));
  for (const tag of [
    "charts/episodic_return",
    "charts/SPS",
    "losses/value_loss",
    "losses/approx_kl",
    "losses/explained_variance",
  ])
    assert.ok(tags.has(tag), `missing ${tag}`);
});

it("run directly it is world size 1 and still trains, saves and evaluates like ppo_atari.ts", () => {
  const cwd = mkdtempSync(join(workDir, "direct-"));
  // PPO_TS_WASM_THREADS=1: the single-thread WASM module, whose start-up is ~1.5 CPU s cheaper than the threaded one's
  // 8 pthread workers; this run checks world size 1, saving and evaluation, not the backend's threads.
  const run = spawnSync(
    process.execPath,
    [
      "--import",
      TSX,
      join(ROOT, "ppo_atari_multigpu.ts"),
      "--env-id",
      "MemoryCue-v0",
      ...TINY,
      "--total-timesteps",
      "64",
      "--debug-sync",
      "--target-kl",
      "0.01",
      "--save-model",
      "--eval-episodes",
      "1",
    ],
    { cwd, encoding: "utf8", timeout: 180_000, env: { ...process.env, PPO_TS_WASM_THREADS: "1" } },
  );
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /note: not using distributed mode/);
  assert.match(run.stdout, /debug-sync: after update 2, parameter checksum 0x[0-9a-f]{8} on all 1 ranks/);
  assert.match(
    run.stdout,
    /model saved to runs\/MemoryCue-v0__ppo_atari_multigpu__1__\d+\/ppo_atari_multigpu\.safetensors/,
  );
  assert.match(run.stdout, /eval_episode=0, episodic_return=-?1/);
});

it("refuses a --device-ids list that does not match the local ranks", () => {
  const run = spawnSync(
    process.execPath,
    ["--import", TSX, join(ROOT, "ppo_atari_multigpu.ts"), "--env-id", "MemoryCue-v0", "--device-ids", "0,1"],
    { cwd: workDir, encoding: "utf8", timeout: 60_000, env: { ...process.env, LOCAL_WORLD_SIZE: "1" } },
  );
  assert.equal(run.status, 2);
  assert.match(
    run.stderr,
    /^error: you must specify the same number of --device-ids \(2\) as --nproc-per-node \(1\)$/m,
  );
});

it("refuses a rank's batch that --num-minibatches does not divide, though the whole batch divides", () => {
  // 2 ranks × 1 env × 5 steps: 10 steps split in 2, but each rank's 5 would give minibatches of 2, 2 and 1.
  const flags = ["--env-id", "MemoryCue-v0", "--local-num-envs", "1", "--num-steps", "5", "--num-minibatches", "2"];
  const env = { ...process.env, RANK: "0", WORLD_SIZE: "2", LOCAL_RANK: "0", LOCAL_WORLD_SIZE: "2" };
  const run = spawnSync(process.execPath, ["--import", TSX, join(ROOT, "ppo_atari_multigpu.ts"), ...flags], {
    cwd: workDir,
    encoding: "utf8",
    timeout: 60_000,
    env,
  });
  assert.equal(run.status, 2, run.stderr);
  assert.match(
    run.stderr,
    /^error: a rank's batch of 5 steps \(--local-num-envs × --num-steps\) is not divisible by --num-minibatches 2$/m,
  );
});

// ---------------------------------------------------------------------------------------------------------------
// Child: an SGD step then an Adam step of a freshly initialized agent on part of a fixed batch, weights to OUT_DIR.
// World size 2: rank r takes samples [r·m, (r+1)·m). World size 1: all 2m samples, then, from the same initial
// weights, the first m alone (the control).

async function identityChild(): Promise<void> {
  // The single-thread WASM module in all three processes: the identity is about the data, and the threaded module's
  // start-up (8 pthread workers) would cost each process more than its two updates.
  await setupBackend("wasm", { quiet: true, wasmThreads: 1 });
  await dist.initProcessGroup();
  const rank = dist.getRank();
  const worldSize = dist.getWorldSize();
  const numActions = 4;
  manualSeed(1); // the same seed on every rank: identical weights
  const agent = new Agent(numActions);
  const flatParams = () => Float32Array.from(agent.parameters().flatMap((p) => Array.from(p.dataSync())));
  const save = (name: string) => writeFileSync(join(process.env.OUT_DIR!, `${name}.bin`), flatParams());
  const initial = agent.parameters().map((p) => tf.clone(p));
  // The global batch of 2m samples, the same in every process.
  const rng = new RandomGenerator(7);
  const m = 4;
  const n = 2 * m;
  const obsSize = 4 * 84 * 84;
  const obs = Uint8Array.from({ length: n * obsSize }, () => rng.integers(0, 256));
  const actions = Int32Array.from({ length: n }, () => rng.integers(0, numActions));
  const column = (f: () => number) => Float32Array.from({ length: n }, f);
  const logprobs = column(() => Math.log(1 / numActions) + 0.1 * rng.normal());
  const advantages = column(() => rng.normal());
  const returns = column(() => rng.normal());
  const values = column(() => 0.5 * rng.normal());
  const minibatch = (from: number, to: number) => ({
    obs: nn.framesToInput(obs.subarray(from * obsSize, to * obsSize), [4, 84, 84], "chw"),
    actions: tf.tensor1d(actions.subarray(from, to), "int32"),
    logprobs: tf.tensor1d(logprobs.subarray(from, to)),
    advantages: tf.tensor1d(advantages.subarray(from, to)),
    returns: tf.tensor1d(returns.subarray(from, to)),
    values: tf.tensor1d(values.subarray(from, to)),
  });
  const args = {
    clipCoef: 0.1,
    normAdv: false,
    clipVloss: true,
    entCoef: 0.01,
    vfCoef: 0.5,
    maxGradNorm: 0.5,
    worldSize,
  };
  const updates = async (from: number, to: number, tag: string) => {
    const mb = minibatch(from, to);
    await updateStep(agent, tf.train.sgd(0.1), mb, { ...args, maxGradNorm: Infinity });
    save(`sgd_${tag}`);
    await updateStep(agent, tf.train.adam(2.5e-4, 0.9, 0.999, 1e-5), mb, args);
    save(`adam_${tag}`);
  };
  if (worldSize === 2) {
    await updates(rank * m, (rank + 1) * m, `ws2_r${rank}`);
  } else {
    save("init");
    await updates(0, n, "ws1_all");
    agent.parameters().forEach((p, i) => p.assign(initial[i]));
    await updates(0, m, "ws1_half");
  }
  await dist.destroyProcessGroup();
}

if (role === "identity") await identityChild();
