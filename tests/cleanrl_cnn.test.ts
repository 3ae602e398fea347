// CleanRL equivalence of the CNN variants on WASM: forward pass, loss terms, gradient norm and the parameters after
// Adam steps, against tests/fixtures/cleanrl/ (see tests/cleanrl_fixtures.ts and benchmark/README.md "CleanRL
// equivalence"). ppo_atari_lstm.ts: done-masked sequences from a non-zero initial state; ppo_procgen.ts: the
// unchunked and the chunked update; ppo_atari_multigpu.ts: two ranks (child processes) averaging gradients.
// Each replays the first recorded step (the suite's time budget: the MLP tests replay all 4, and Adam's later steps
// are the same code in every variant); CLEANRL_ALL_STEPS=1 replays all 4 here too. The two multigpu ranks start
// with the file and run beside the other tests (their CPU time would otherwise add to the suite's wall time).
import * as tf from "@tensorflow/tfjs";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { setupBackend } from "../envs/torch/backend.ts";
import * as nn from "../envs/torch/nn.ts";
import * as dist from "../envs/torch/distributed.ts";
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
  variantArgs,
} from "./cleanrl_fixtures.ts";

const SELF = fileURLToPath(import.meta.url);
const role = process.env.CLEANRL_RANK;
// As a child (one rank of the multigpu replay) this file defines no tests.
const it: typeof test = role ? ((() => {}) as unknown as typeof test) : test;
/** The Nature CNN's last conv output, (C, H, W) as torch flattens it; the IMPALA CNN's. */
const NATURE_FLATTEN = [64, 7, 7];
const IMPALA_FLATTEN = [32, 8, 8];

let ranks: Promise<{ code: number | null; stdout: string; stderr: string }[]> | null = null;
if (!role) {
  before(async () => {
    ranks = startRanks();
    await setupBackend("wasm", { quiet: true });
  });
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
  const agent = new lstm.Agent(fixture.spaces.actions!, new RandomGenerator(0));
  // The recorder's initial state: [h, c] × [1, envs, 128] in torch's layout, ours [envs, 128] each.
  const state = Float32Array.from(hashUnit(spec.initial_state_seed!, 2 * envs * 128), (u) => u * 0.5);
  const mb: lstm.Minibatch = {
    obs: tf.tensor4d(hashBytes(spec.obs_seed, n * 84 * 84), [n, 1, 84, 84], "int32"),
    initialLstmState: {
      h: tf.tensor2d(state.subarray(0, envs * 128), [envs, 128]),
      c: tf.tensor2d(state.subarray(envs * 128), [envs, 128]),
    },
    dones: tf.tensor1d(Float32Array.from(spec.dones!)),
    actions: actions(fixture, 0),
    ...columns(fixture, 0),
  };
  const optimizer = lstm.makeOptimizer(args.learningRate);
  await replayFixture("ppo_atari_lstm", fixture, {
    params: () => agent.parameters(),
    flatten: NATURE_FLATTEN,
    forward: () => readForward(() => agent.getActionAndValue(mb.obs, mb.initialLstmState, mb.dones, mb.actions)),
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

/** One rank of the multigpu replay: its own minibatch, gradients averaged with the other rank's. */
async function rankChild(rank: number): Promise<void> {
  await setupBackend("wasm", { quiet: true });
  await dist.initProcessGroup();
  const fixture = loadFixture("ppo_atari_multigpu");
  const args = { ...variantArgs(multigpu.ARGS, fixture), worldSize: dist.getWorldSize() };
  const n = fixture.minibatch_size;
  const agent = new multigpu.Agent(fixture.spaces.actions!, new RandomGenerator(0));
  const mb: multigpu.Minibatch = {
    obs: multigpu.framesToInput(hashBytes(fixture.minibatches[rank].obs_seed, n * 4 * 84 * 84)),
    actions: actions(fixture, rank),
    ...columns(fixture, rank),
  };
  const optimizer = multigpu.makeOptimizer(args.learningRate);
  await replayFixture(`ppo_atari_multigpu rank ${rank}`, fixture, {
    params: () => agent.parameters(),
    flatten: NATURE_FLATTEN,
    forward: () => readForward(() => agent.getActionAndValue(mb.obs, mb.actions)),
    update: () => multigpu.updateStep(agent, optimizer, mb, args),
    steps: 1,
    rank,
  });
  await dist.destroyProcessGroup();
}

/** The two ranks of the multigpu replay, as child processes running this file. */
async function startRanks() {
  const port = String(await freePort());
  return Promise.all(
    [0, 1].map((rank) => {
      // One WASM thread each: they share the cores with this process's tests.
      const env = {
        ...process.env,
        CLEANRL_RANK: String(rank),
        RANK: String(rank),
        WORLD_SIZE: "2",
        MASTER_ADDR: "127.0.0.1",
        MASTER_PORT: port,
        PPO_TS_WASM_THREADS: "1",
      };
      const c = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), SELF], {
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let [stdout, stderr] = ["", ""];
      c.stdout.on("data", (d) => (stdout += d));
      c.stderr.on("data", (d) => (stderr += d));
      return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
        c.on("close", (code) => resolve({ code, stdout, stderr })),
      );
    }),
  );
}

it("ppo_atari_multigpu.ts takes CleanRL's ppo_atari_multigpu.py update: 2 ranks, minibatch 256 each, gradients averaged", async () => {
  const runs = await ranks!;
  if (process.env.CLEANRL_REPORT) runs.forEach((r) => console.log(r.stdout.trimEnd()));
  runs.forEach((r, rank) => assert.equal(r.code, 0, `rank ${rank}: ${r.stderr}`));
});

if (role) await rankChild(Number(role));
