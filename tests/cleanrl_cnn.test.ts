// CleanRL equivalence of the CNN variants on WASM: forward pass, loss terms, gradient norm and the parameters after
// Adam steps, against tests/fixtures/cleanrl/ (see tests/cleanrl_fixtures.ts and benchmark/README.md "CleanRL
// equivalence"). ppo_atari_lstm.ts: done-masked sequences from a non-zero initial state; ppo_procgen.ts: the
// unchunked and the chunked update; ppo_atari_multigpu.ts: two ranks (child processes) averaging gradients.
// Each single-process variant replays the first recorded step (the suite's time budget: the MLP tests replay all 4,
// and Adam's later steps are the same code in every variant); CLEANRL_ALL_STEPS=1 replays all 4 here too. The
// multigpu ranks replay all 4, every tensor after every step: what a two-process run carries from one step to the
// next (Adam's state, the all-reduce's buffers) only shows from step 2. Beside them a third process applies CleanRL's
// averaged update to both minibatches by itself, and the ranks' parameters must equal its parameters bit for bit after
// every step. Float32's own error cannot settle that: a ReLU whose input lies within float32 rounding of 0 goes either
// way, so two correct float32 runs can differ by far more than a few wrong entries of an all-reduce would make
// (benchmark/README.md, "CleanRL equivalence"); the same kernels in one process and in two must agree exactly. These
// children start with the file and run beside the other tests (their CPU time would otherwise add to the suite's wall
// time).
import * as tf from "@tensorflow/tfjs";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { setupBackend } from "../envs/torch/backend.ts";
import * as nn from "../envs/torch/nn.ts";
import * as dist from "../envs/torch/distributed.ts";
import { clipGradNorm } from "../envs/torch/nn.ts";
import { RandomGenerator } from "../envs/torch/rng.ts";
import { freePort } from "../envs/run/torchrun.ts";
import * as atari from "../ppo_atari.ts";
import * as lstm from "../ppo_atari_lstm.ts";
import * as multigpu from "../ppo_atari_multigpu.ts";
import * as pettingzoo from "../ppo_pettingzoo_ma_atari.ts";
import * as procgen from "../ppo_procgen.ts";
import {
  type Fixture,
  hashBytes,
  hashInts,
  hashUnit,
  loadFixture,
  minibatchColumns,
  readForward,
  replayFixture,
  setParameters,
  variantArgs,
} from "./cleanrl_fixtures.ts";

const SELF = fileURLToPath(import.meta.url);
/** As a child: "0" or "1", a rank of the multigpu replay; "average", the one-process average beside them. */
const role = process.env.CLEANRL_RANK;
// As a child this file defines no tests.
const it: typeof test = role ? ((() => {}) as unknown as typeof test) : test;
/** The Nature CNN's last conv output, (C, H, W) as torch flattens it; the IMPALA CNN's. */
const NATURE_FLATTEN = [64, 7, 7];
const IMPALA_FLATTEN = [32, 8, 8];

type ChildRun = { code: number | null; stdout: string; stderr: string };
let ranks: Promise<ChildRun[]> | null = null;
let average: Promise<ChildRun> | null = null;
/** Where the multigpu children leave the parameters after each step. */
let paramsDir = "";
if (!role) {
  before(async () => {
    paramsDir = mkdtempSync(join(tmpdir(), "cleanrl-multigpu-"));
    ranks = startRanks();
    average = startChild("average", {});
    await setupBackend("wasm", { quiet: true });
  });
  after(() => rmSync(paramsDir, { recursive: true, force: true }));
}

/** The recorded rollout columns of minibatch `rank` as tensors. */
function columns(fixture: Fixture, rank: number) {
  const c = minibatchColumns(fixture.minibatches[rank]);
  return {
    logprobs: tf.tensor1d(c.logprobs),
    advantages: tf.tensor1d(c.advantages),
    returns: tf.tensor1d(c.returns),
    values: tf.tensor1d(c.values),
  };
}

function actions(fixture: Fixture, rank: number): tf.Tensor1D {
  return tf.tensor1d(
    hashInts(fixture.minibatches[rank].actions_seed, fixture.minibatch_size, fixture.spaces.actions!),
    "int32",
  );
}

it("ppo_atari.ts takes CleanRL's ppo_atari.py update: Breakout shapes, minibatch 256", async () => {
  const fixture = loadFixture("ppo_atari");
  const args = variantArgs(atari.ARGS, fixture);
  const n = fixture.minibatch_size;
  const agent = new atari.Agent(fixture.spaces.actions!);
  const mb: atari.Minibatch = {
    obs: nn.framesToInput(hashBytes(fixture.minibatches[0].obs_seed, n * 4 * 84 * 84), [4, 84, 84], "chw"),
    actions: actions(fixture, 0),
    ...columns(fixture, 0),
  };
  const optimizer = atari.makeOptimizer(args.learningRate);
  await replayFixture("ppo_atari", fixture, {
    params: () => agent.parameters(),
    flatten: NATURE_FLATTEN,
    forward: () => readForward(() => agent.getActionAndValue(mb.obs, mb.actions)),
    update: () => atari.updateStep(agent, optimizer, mb, args),
    steps: 1,
  });
});

it("ppo_atari_lstm.ts takes CleanRL's ppo_atari_lstm.py update: 2 envs × 128 steps, episode starts inside, non-zero initial state", async () => {
  const fixture = loadFixture("ppo_atari_lstm");
  const args = variantArgs(lstm.ARGS, fixture);
  const n = fixture.minibatch_size;
  const spec = fixture.minibatches[0];
  const envs = 2;
  const agent = new lstm.Agent(fixture.spaces.actions!);
  // The recorder's initial state: [h, c] × [1, envs, 128] in torch's layout, ours [envs, 128] each.
  const state = Float32Array.from(hashUnit(spec.initial_state_seed!, 2 * envs * 128), (u) => u * 0.5);
  const mb: lstm.Minibatch = {
    obs: nn.framesToInput(hashBytes(spec.obs_seed, n * 84 * 84), [1, 84, 84], "chw"),
    initialState: [
      tf.tensor2d(state.subarray(0, envs * 128), [envs, 128]),
      tf.tensor2d(state.subarray(envs * 128), [envs, 128]),
    ],
    dones: tf.tensor1d(Float32Array.from(spec.dones!)),
    actions: actions(fixture, 0),
    ...columns(fixture, 0),
  };
  const optimizer = lstm.makeOptimizer(args.learningRate);
  const forward = () => {
    const [, logprob, entropy, value] = agent.getActionAndValue(mb.obs, mb.initialState, mb.dones, mb.actions);
    return { logprob, entropy, value };
  };
  await replayFixture("ppo_atari_lstm", fixture, {
    params: () => agent.parameters(),
    flatten: NATURE_FLATTEN,
    forward: () => readForward(forward),
    update: () => lstm.updateStep(agent, optimizer, mb, args),
    steps: 1,
  });
});

it("ppo_pettingzoo_ma_atari.ts takes CleanRL's ppo_pettingzoo_ma_atari.py update: pong_v3 shapes, minibatch 512", async () => {
  const fixture = loadFixture("ppo_pettingzoo_ma_atari");
  const args = variantArgs(pettingzoo.ARGS, fixture);
  const n = fixture.minibatch_size;
  const agent = new pettingzoo.Agent(fixture.spaces.actions!, new RandomGenerator(0));
  // Four frame channels from the formula, then the agent indicator (one-hot by sample parity), as the recorder.
  const obs = Int32Array.from(hashBytes(fixture.minibatches[0].obs_seed, n * 84 * 84 * 6));
  for (let i = 0; i < n; i++) {
    for (let p = 0; p < 84 * 84; p++) {
      obs[(i * 84 * 84 + p) * 6 + 4] = i % 2;
      obs[(i * 84 * 84 + p) * 6 + 5] = 1 - (i % 2);
    }
  }
  const mb: pettingzoo.Minibatch = {
    obs: tf.tensor4d(obs, [n, 84, 84, 6], "int32"),
    actions: actions(fixture, 0),
    ...columns(fixture, 0),
  };
  const optimizer = pettingzoo.makeOptimizer(args.learningRate);
  await replayFixture("ppo_pettingzoo_ma_atari", fixture, {
    params: () => agent.parameters(),
    flatten: NATURE_FLATTEN,
    forward: () => readForward(() => agent.getActionAndValue(mb.obs, mb.actions)),
    update: () => pettingzoo.updateStep(agent, optimizer, mb, args),
    steps: 1,
  });
});

it("ppo_procgen.ts takes CleanRL's ppo_procgen.py update, unchunked and in 4 gradient chunks: starpilot shapes, minibatch 128", async () => {
  const fixture = loadFixture("ppo_procgen");
  const args = variantArgs(procgen.ARGS, fixture);
  const n = fixture.minibatch_size;
  const agent = new procgen.Agent(fixture.spaces.actions!, new RandomGenerator(0));
  const c = minibatchColumns(fixture.minibatches[0]);
  const batch: procgen.Batch = {
    obs: hashBytes(fixture.minibatches[0].obs_seed, n * 64 * 64 * 3),
    actions: hashInts(fixture.minibatches[0].actions_seed, n, fixture.spaces.actions!),
    ...c,
  };
  const mbInds = Int32Array.from({ length: n }, (_, i) => i);
  const forward = () =>
    readForward(() => agent.getActionAndValue(procgen.framesToInput(batch.obs), tf.tensor1d(batch.actions, "int32")));
  for (const gradChunkSize of [0, n / 4]) {
    const optimizer = procgen.makeOptimizer(args.learningRate);
    await replayFixture(`ppo_procgen (grad chunk size ${gradChunkSize})`, fixture, {
      params: () => agent.parameters(),
      flatten: IMPALA_FLATTEN,
      forward: gradChunkSize === 0 ? forward : null,
      update: () => procgen.updateStep(agent, optimizer, batch, mbInds, { ...args, gradChunkSize }),
      steps: 1,
    });
  }
});

/** Minibatch `rank` of the multigpu fixture, as the variant takes it. */
function multigpuMinibatch(fixture: Fixture, rank: number): multigpu.Minibatch {
  return {
    obs: multigpu.framesToInput(hashBytes(fixture.minibatches[rank].obs_seed, fixture.minibatch_size * 4 * 84 * 84)),
    actions: actions(fixture, rank),
    ...columns(fixture, rank),
  };
}

/** All parameters, in `parameters()` order, to `${CLEANRL_PARAMS_DIR}/${name}.bin`. */
function saveParameters(params: tf.Variable[], name: string): void {
  const all = new Float32Array(params.reduce((n, p) => n + p.size, 0));
  let offset = 0;
  for (const p of params) {
    all.set(p.dataSync() as Float32Array, offset);
    offset += p.size;
  }
  writeFileSync(join(process.env.CLEANRL_PARAMS_DIR!, `${name}.bin`), all);
}

/** One rank of the multigpu replay: its own minibatch, gradients averaged with the other rank's. */
async function rankChild(rank: number): Promise<void> {
  await setupBackend("wasm", { quiet: true });
  await dist.initProcessGroup();
  const fixture = loadFixture("ppo_atari_multigpu");
  const args = { ...variantArgs(multigpu.ARGS, fixture), worldSize: dist.getWorldSize() };
  const agent = new multigpu.Agent(fixture.spaces.actions!, new RandomGenerator(0));
  const mb = multigpuMinibatch(fixture, rank);
  const optimizer = multigpu.makeOptimizer(args.learningRate);
  let step = 0;
  await replayFixture(`ppo_atari_multigpu rank ${rank}`, fixture, {
    params: () => agent.parameters(),
    flatten: NATURE_FLATTEN,
    forward: () => readForward(() => agent.getActionAndValue(mb.obs, mb.actions)),
    update: async () => {
      const stats = await multigpu.updateStep(agent, optimizer, mb, args);
      saveParameters(agent.parameters(), `rank${rank}_step${++step}`);
      return stats;
    },
    rank,
  });
  await dist.destroyProcessGroup();
}

/**
 * CleanRL's data-parallel step done by one process: each minibatch's gradient (the variant's loss), their mean
 * (all_reduce(SUM) / world size), `clip_grad_norm_`, the variant's Adam; the parameters after each step to
 * CLEANRL_PARAMS_DIR.
 */
async function averageChild(): Promise<void> {
  await setupBackend("wasm", { quiet: true });
  const fixture = loadFixture("ppo_atari_multigpu");
  const args = { ...variantArgs(multigpu.ARGS, fixture), worldSize: 1 };
  const agent = new multigpu.Agent(fixture.spaces.actions!, new RandomGenerator(0));
  const params = agent.parameters();
  setParameters(params, fixture, NATURE_FLATTEN);
  const mbs = fixture.minibatches.map((_, rank) => multigpuMinibatch(fixture, rank));
  const optimizer = multigpu.makeOptimizer(args.learningRate);
  for (let step = 1; step <= fixture.float64.steps.length; step++) {
    const grads = mbs.map((mb) =>
      tf.tidy(() => tf.variableGrads(() => multigpu.ppoLoss(agent, mb, args).loss, params).grads),
    );
    tf.tidy(() => {
      const mean: tf.NamedTensorMap = {};
      for (const p of params) mean[p.name] = tf.div(tf.addN(grads.map((g) => g[p.name])), grads.length);
      optimizer.applyGradients(clipGradNorm(mean, args.maxGradNorm).grads);
    });
    tf.dispose(grads);
    saveParameters(params, `average_step${step}`);
  }
}

/** This file as a child process in `childRole`, one WASM thread (the cores are shared with this process's tests). */
function startChild(childRole: string, env: Record<string, string>): Promise<ChildRun> {
  const c = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), SELF], {
    env: {
      ...process.env,
      ...env,
      CLEANRL_RANK: childRole,
      CLEANRL_PARAMS_DIR: paramsDir,
      PPO_TS_WASM_THREADS: "1",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let [stdout, stderr] = ["", ""];
  c.stdout.on("data", (d) => (stdout += d));
  c.stderr.on("data", (d) => (stderr += d));
  return new Promise((resolve) => c.on("close", (code) => resolve({ code, stdout, stderr })));
}

/** The two ranks of the multigpu replay. */
async function startRanks(): Promise<ChildRun[]> {
  const port = String(await freePort());
  const group = { WORLD_SIZE: "2", MASTER_ADDR: "127.0.0.1", MASTER_PORT: port };
  return Promise.all([0, 1].map((rank) => startChild(String(rank), { ...group, RANK: String(rank) })));
}

it("ppo_atari_multigpu.ts takes CleanRL's ppo_atari_multigpu.py updates: 2 ranks, minibatch 256 each, gradients averaged, every parameter after each of 4 steps", async () => {
  const runs = await ranks!;
  if (process.env.CLEANRL_REPORT) runs.forEach((r) => console.log(r.stdout.trimEnd()));
  runs.forEach((r, rank) => assert.equal(r.code, 0, `rank ${rank}: ${r.stderr}`));
});

it("ppo_atari_multigpu.ts as 2 processes leaves, after each of 4 steps, the same bits as one process applying the mean of both minibatches' gradients, clipped, to Adam", async () => {
  const [runs, one] = await Promise.all([ranks!, average!]);
  assert.equal(one.code, 0, one.stderr);
  // The ranks' own verdict (CleanRL's tolerance, the test above) does not matter here, only what they computed.
  const read = (name: string, stderr: string) => {
    try {
      return new Uint32Array(new Uint8Array(readFileSync(join(paramsDir, `${name}.bin`))).buffer);
    } catch {
      return assert.fail(`no ${name}.bin: ${stderr}`);
    }
  };
  const fixture = loadFixture("ppo_atari_multigpu");
  const sizes = fixture.parameters.map((p) => p.shape.reduce((a, b) => a * b, 1));
  const tensorOf = (index: number) => {
    let k = 0;
    for (let end = sizes[0]; index >= end; end += sizes[++k]);
    return fixture.parameters[k].name;
  };
  let before: Uint32Array | null = null;
  for (let step = 1; step <= fixture.float64.steps.length; step++) {
    const expected = read(`average_step${step}`, one.stderr);
    for (const rank of [0, 1]) {
      const got = read(`rank${rank}_step${step}`, runs[rank].stderr);
      assert.equal(got.length, expected.length);
      const differ = got.findIndex((bits, i) => bits !== expected[i]);
      const count = got.reduce((n, bits, i) => n + (bits === expected[i] ? 0 : 1), 0);
      assert.equal(
        differ,
        -1,
        `rank ${rank} after step ${step}: ${count} entries differ, the first in ${tensorOf(differ)}`,
      );
    }
    // The comparison can fail: every step moves the parameters.
    assert.ok(before === null || expected.some((bits, i) => bits !== before![i]), `step ${step} changed nothing`);
    before = expected;
  }
});

if (role === "average") await averageChild();
else if (role) await rankChild(Number(role));
