// ppo_continuous_action.ts: the Gaussian policy against hand-computed values, then whole-script runs.
import * as tf from "@tensorflow/tfjs";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { setupBackend } from "../envs/torch/backend.ts";
import { readEventFile } from "../envs/run/logging.ts";
import { deserialize } from "../envs/torch/safetensors.ts";
import { manualSeed } from "../envs/torch/rng.ts";
import { Agent, main, updateStep } from "../ppo_continuous_action.ts";
import { usageErrorLine } from "./usage_helpers.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const close = (actual: number, expected: number, tol = 1e-5) =>
  assert.ok(Math.abs(actual - expected) <= tol, `${actual} != ${expected}`);

before(async () => {
  // One WASM thread, as ppo_continuous_action.ts itself asks for: the threaded module's start-up (8 pthread
  // workers) buys nothing here.
  await setupBackend("wasm", { quiet: true, wasmThreads: 1 });
});

/** An agent whose action mean is `mean` for every observation, with log-std `logstd` and value `value`. */
function constantAgent(mean: number[], logstd: number[], value: number): Agent {
  const agent = new Agent(3, mean.length);
  const parameters = new Map(agent.namedParameters().map((p) => [p.name, p.variable]));
  tf.tidy(() => {
    for (const p of parameters.values()) p.assign(tf.zerosLike(p));
    parameters.get("actor_mean.4.bias")!.assign(tf.tensor1d(mean));
    parameters.get("actor_logstd")!.assign(tf.tensor2d([logstd]));
    parameters.get("critic.4.bias")!.assign(tf.tensor1d([value]));
  });
  return agent;
}

test("the agent's parameters carry CleanRL's state-dict names, the log-std a parameter of its own", () => {
  const names = new Agent(3, 2).namedParameters().map((p) => p.name);
  const linears = (seq: string) => [0, 2, 4].flatMap((i) => [`${seq}.${i}.weight`, `${seq}.${i}.bias`]);
  assert.deepEqual(names, [...linears("critic"), ...linears("actor_mean"), "actor_logstd"]);
});

test("the Gaussian policy's log-probability and entropy match the normal density summed over action dimensions", () => {
  const agent = constantAgent([0.5, -1], [Math.log(2), 0], 0.25);
  const [logprob, entropy, value] = tf.tidy(() => {
    const [, logprob, entropy, value] = agent.getActionAndValue(tf.zeros([1, 3]), tf.tensor2d([[1.5, 0]]));
    return [logprob.dataSync()[0], entropy.dataSync()[0], value.dataSync()[0]];
  });
  const logNormal = (x: number, mu: number, sigma: number) =>
    -((x - mu) ** 2) / (2 * sigma ** 2) - Math.log(sigma * Math.sqrt(2 * Math.PI));
  close(logprob, logNormal(1.5, 0.5, 2) + logNormal(0, -1, 1));
  close(entropy, 0.5 * Math.log(2 * Math.PI * Math.E * 4) + 0.5 * Math.log(2 * Math.PI * Math.E));
  close(value, 0.25);
});

test("sampled actions have the policy's mean and std, and the log-probability the training path computes", () => {
  const agent = constantAgent([0.5, -1], [Math.log(0.5), 0], 0);
  manualSeed(1);
  const n = 2000;
  const samples: number[][] = [[], []];
  let checked = 0;
  // 100 observations per call: the same 2000 draws as one per call, in 20 calls instead of 2000.
  const perCall = 100;
  for (let i = 0; i < n; i += perCall) {
    const [action, logprob] = tf.tidy(() => {
      const [a, l] = agent.getActionAndValue(tf.zeros([perCall, 3]));
      return [a.dataSync(), l.dataSync()];
    });
    for (let j = 0; j < perCall; j++) {
      samples[0].push(action[2 * j]);
      samples[1].push(action[2 * j + 1]);
      if (i + j < 5) {
        const expected = tf.tidy(
          () =>
            agent
              .getActionAndValue(tf.zeros([1, 3]), tf.tensor2d([[action[2 * j], action[2 * j + 1]]]))[1]
              .dataSync()[0],
        );
        close(logprob[j], expected, 1e-4);
        checked++;
      }
    }
  }
  assert.equal(checked, 5);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const std = (xs: number[]) => Math.sqrt(mean(xs.map((x) => (x - mean(xs)) ** 2)));
  close(mean(samples[0]), 0.5, 0.05);
  close(mean(samples[1]), -1, 0.1);
  close(std(samples[0]), 0.5, 0.05);
  close(std(samples[1]), 1, 0.1);
});

test("an update step trains the log-std too and leaks no tensors", () => {
  manualSeed(1);
  const agent = new Agent(3, 2);
  const optimizer = tf.train.adam(3e-4, 0.9, 0.999, 1e-5);
  const args = { clipCoef: 0.2, normAdv: true, clipVloss: true, entCoef: 0.01, vfCoef: 0.5, maxGradNorm: 0.5 };
  const make = () => ({
    obs: tf.randomNormal([8, 3]) as tf.Tensor2D,
    actions: tf.randomNormal([8, 2]) as tf.Tensor2D,
    logprobs: tf.fill([8], -2) as tf.Tensor1D,
    advantages: tf.randomNormal([8]) as tf.Tensor1D,
    returns: tf.randomNormal([8]) as tf.Tensor1D,
    values: tf.zeros([8]) as tf.Tensor1D,
  });
  let mb = make();
  updateStep(agent, optimizer, mb, args);
  tf.dispose(mb);
  const count = tf.memory().numTensors;
  for (let i = 0; i < 3; i++) {
    mb = make();
    updateStep(agent, optimizer, mb, args);
    tf.dispose(mb);
  }
  assert.equal(tf.memory().numTensors, count);
  assert.ok(
    Array.from(agent.actorLogstd.dataSync()).some((v) => v !== 0),
    "log-std did not move (entropy bonus pushes it)",
  );
  optimizer.dispose();
});

let workDir = "";
before(() => {
  workDir = mkdtempSync(join(tmpdir(), "ppo-continuous-test-"));
});
after(() => rmSync(workDir, { recursive: true, force: true }));

function runScript(args: string[], cwd = workDir) {
  return spawnSync(
    process.execPath,
    ["--import", import.meta.resolve("tsx"), join(ROOT, "ppo_continuous_action.ts"), ...args],
    { cwd, encoding: "utf8", timeout: 120_000 },
  );
}

type SavedStatistics = { obsRms: { count: number; mean: number[] }[]; returnRms: { count: number }[] };
const savedStatistics = (checkpoint: string): SavedStatistics =>
  JSON.parse(deserialize(readFileSync(checkpoint)).metadata.extra);

test("a short Pendulum run logs CleanRL's metrics, and its checkpoint carries the observation statistics to evaluation", () => {
  const run = runScript([
    "--env-id",
    "Pendulum-v1",
    "--total-timesteps",
    "1024",
    "--num-steps",
    "512",
    "--num-minibatches",
    "4",
    "--update-epochs",
    "2",
    "--save-model",
    "--eval-episodes",
    "1",
  ]);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /global_step=\d+, episodic_return=-\d/);
  assert.match(run.stdout, /eval_episode=0, episodic_return=/);
  const [runDir] = readdirSync(join(workDir, "runs"));
  const dir = join(workDir, "runs", runDir);
  const eventFile = readdirSync(dir).find((f) => f.startsWith("events.out.tfevents."))!;
  const tags = new Set(readEventFile(join(dir, eventFile)).map((e) => e.tag));
  for (const tag of [
    "charts/episodic_return",
    "charts/SPS",
    "losses/value_loss",
    "losses/approx_kl",
    "losses/explained_variance",
    "eval/episodic_return",
  ])
    assert.ok(tags.has(tag), `missing ${tag}`);
  const model = join(dir, "ppo_continuous_action.safetensors");
  const { obsRms } = savedStatistics(model);
  // 1024 observed steps (plus resets) went into the running mean: the saved count says so.
  assert.ok(obsRms[0].count > 1024, `obsRms.count = ${obsRms[0].count}`);
  assert.equal(obsRms[0].mean.length, 3);
  const evalRun = runScript(["--eval-checkpoint", model, "--eval-episodes", "2"]);
  assert.equal(evalRun.status, 0, evalRun.stderr);
  assert.match(evalRun.stdout, /mean episodic_return over 2 episodes: -\d/);
});

test("a resumed run goes on with the normalizers' statistics of its checkpoint", () => {
  const cwd = join(workDir, "resume");
  mkdirSync(cwd);
  const sizes = ["--num-steps", "64", "--num-minibatches", "2", "--update-epochs", "1", "--total-timesteps", "128"];
  const first = runScript(
    ["--env-id", "Pendulum-v1", ...sizes, "--checkpoint-every", "1", "--checkpoint-keep", "0"],
    cwd,
  );
  assert.equal(first.status, 0, first.stderr);
  const [runName] = readdirSync(join(cwd, "runs"));
  const checkpoint = join(cwd, "runs", runName, "checkpoints", "iteration_00000001.safetensors");
  const resumed = runScript(["--resume", checkpoint, "--save-model", "--eval-episodes", "1"], cwd);
  assert.equal(resumed.status, 0, resumed.stderr);
  const resumedRun = readdirSync(join(cwd, "runs")).find((name) => name !== runName)!;
  const [before, after] = [checkpoint, join(cwd, "runs", resumedRun, "ppo_continuous_action.safetensors")].map(
    savedStatistics,
  );
  // Iteration 2 adds its 64 steps to both, and the resumed run's first reset to the observations' (Pendulum's
  // 200-step episodes end in neither iteration).
  close(after.obsRms[0].count, before.obsRms[0].count + 65, 1e-9);
  close(after.returnRms[0].count, before.returnRms[0].count + 64, 1e-9);
});

test("a discrete-action env is refused with one clear line", async () => {
  const line = await usageErrorLine(main, ["--env-id", "CartPole-v1", "--total-timesteps", "4096"]);
  assert.match(line, /error: only continuous action space is supported; CartPole-v1 has a discrete action space/);
});
