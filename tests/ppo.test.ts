// ppo.ts: GAE, the loss terms and the update step against hand-computed values, then whole-script runs.
import * as tf from "@tensorflow/tfjs";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { setupBackend } from "../envs/torch/backend.ts";
import { readEventFile } from "../envs/run/logging.ts";
import { manualSeed } from "../envs/torch/rng.ts";
import { Agent, computeGae, explainedVariance, main, updateStep } from "../ppo.ts";
import { usageErrorLine } from "./usage_helpers.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const close = (actual: number, expected: number, tol = 1e-5) =>
  assert.ok(Math.abs(actual - expected) <= tol, `${actual} != ${expected}`);

before(async () => {
  // One WASM thread, as ppo.ts itself asks for: the threaded module's start-up (8 pthread workers) buys nothing here.
  await setupBackend("wasm", { quiet: true, wasmThreads: 1 });
});

test("GAE matches a hand-computed two-env rollout with an episode boundary in the middle", () => {
  // env 0: rewards 1,1,1; values .5,.6,.7; obs[2] starts a new episode (dones[2] = 1), so step 1 does not bootstrap.
  // env 1: rewards 0,0,2; values 0; no boundary; bootstraps from next value 1.
  const rewards = Float32Array.of(1, 0, 1, 0, 1, 2);
  const values = Float32Array.of(0.5, 0, 0.6, 0, 0.7, 0);
  const dones = Float32Array.of(0, 0, 0, 0, 1, 0);
  const { advantages, returns } = computeGae(
    rewards,
    values,
    dones,
    Float32Array.of(0.8, 1),
    Float32Array.of(0, 0),
    0.9,
    0.8,
  );
  const a2 = 1 + 0.9 * 0.8 - 0.7; // 1.02
  const a1 = 1 - 0.6; // no bootstrap across the boundary: 0.4
  const a0 = 1 + 0.9 * 0.6 - 0.5 + 0.9 * 0.8 * a1; // 1.328
  const b2 = 2 + 0.9 * 1;
  const b1 = 0.9 * 0.8 * b2;
  const b0 = 0.9 * 0.8 * b1;
  [a0, b0, a1, b1, a2, b2].forEach((expected, i) => close(advantages[i], expected));
  [a0 + 0.5, b0, a1 + 0.6, b1, a2 + 0.7, b2].forEach((expected, i) => close(returns[i], expected));
});

test("GAE does not bootstrap past the rollout when the next observation starts a new episode", () => {
  const { advantages } = computeGae(
    Float32Array.of(1),
    Float32Array.of(0.25),
    Float32Array.of(0),
    Float32Array.of(100),
    Float32Array.of(1),
    0.99,
    0.95,
  );
  close(advantages[0], 1 - 0.25);
});

test("explained variance is 1 for a perfect critic, 0 for a constant one, NaN for constant returns", () => {
  const returns = Float32Array.of(1, 2, 3, 4);
  close(explainedVariance(returns, returns), 1);
  close(explainedVariance(Float32Array.of(2.5, 2.5, 2.5, 2.5), returns), 0);
  assert.ok(Number.isNaN(explainedVariance(returns, Float32Array.of(1, 1, 1, 1))));
});

/** An agent whose outputs ignore the observation: logits = actor's last bias, value = critic's last bias. */
function constantAgent(logits: number[], value: number): Agent {
  const agent = new Agent(3, logits.length);
  for (const p of agent.parameters()) tf.tidy(() => p.assign(tf.zerosLike(p)));
  const bias = (name: string) => agent.namedParameters().find((p) => p.name === name)!.variable;
  tf.tidy(() => bias("actor.4.bias").assign(tf.tensor1d(logits)));
  tf.tidy(() => bias("critic.4.bias").assign(tf.tensor1d([value])));
  return agent;
}

function minibatch(
  oldLogprobs: number[],
  advantages: number[],
  returns: number[],
  values: number[],
  actions: number[],
) {
  return {
    obs: tf.randomNormal([actions.length, 3]) as tf.Tensor2D,
    actions: tf.tensor1d(actions, "int32"),
    logprobs: tf.tensor1d(oldLogprobs),
    advantages: tf.tensor1d(advantages),
    returns: tf.tensor1d(returns),
    values: tf.tensor1d(values),
  };
}

const LOSS_ARGS = { clipCoef: 0.2, normAdv: false, clipVloss: true, entCoef: 0.01, vfCoef: 0.5, maxGradNorm: 0.5 };

/** The losses/* metrics of one update step (computed before its gradient step), by name. */
function lossTerms(agent: Agent, mb: ReturnType<typeof minibatch>, args = LOSS_ARGS) {
  const optimizer = tf.train.sgd(0);
  const [pgLoss, vLoss, entropyLoss, oldApproxKl, approxKl, clipfrac] = updateStep(agent, optimizer, mb, args);
  optimizer.dispose();
  return { pgLoss, vLoss, entropyLoss, oldApproxKl, approxKl, clipfrac };
}

test("PPO loss terms match hand-computed values (clipped surrogate, clipped value loss, entropy, KL, clipfrac)", () => {
  // Policy probabilities [0.25, 0.75]; actions [0, 1]; log-ratios chosen as [0.5, -0.1].
  const agent = constantAgent([0, Math.log(3)], 0.5);
  const logratio = [0.5, -0.1];
  const newLogprob = [Math.log(0.25), Math.log(0.75)];
  const mb = minibatch(
    newLogprob.map((l, i) => l - logratio[i]),
    [1, -2],
    [1, 0],
    [0.2, 0.6],
    [0, 1],
  );
  const t = lossTerms(agent, mb);
  const ratio = logratio.map(Math.exp);
  const pg = [Math.max(-1 * ratio[0], -1 * 1.2), Math.max(2 * ratio[1], 2 * Math.min(Math.max(ratio[1], 0.8), 1.2))];
  const pgLoss = (pg[0] + pg[1]) / 2;
  const vLoss = 0.5 * ((Math.max((0.5 - 1) ** 2, (0.4 - 1) ** 2) + Math.max((0.5 - 0) ** 2, (0.5 - 0) ** 2)) / 2);
  const entropy = -(0.25 * Math.log(0.25) + 0.75 * Math.log(0.75));
  close(t.pgLoss, pgLoss);
  close(t.vLoss, vLoss);
  close(t.entropyLoss, entropy);
  close(t.oldApproxKl, (-0.5 + 0.1) / 2);
  close(t.approxKl, (ratio[0] - 1 - 0.5 + (ratio[1] - 1 + 0.1)) / 2);
  close(t.clipfrac, 0.5);
  tf.dispose(mb);
});

test("advantage normalization uses the unbiased standard deviation, like torch's .std()", () => {
  // Uniform policy and a log-ratio of 0.5 on every sample, so pg_loss depends only on the normalized advantages.
  const agent = constantAgent([0, 0], 0);
  const advantages = [1, 2, 3, 6];
  const mean = 3;
  const unbiasedStd = Math.sqrt(((1 - mean) ** 2 + (2 - mean) ** 2 + 0 + (6 - mean) ** 2) / 3);
  const oldLogprob = Math.log(0.5) - 0.5;
  const mb = minibatch(
    [oldLogprob, oldLogprob, oldLogprob, oldLogprob],
    advantages,
    [0, 0, 0, 0],
    [0, 0, 0, 0],
    [0, 1, 0, 1],
  );
  const { pgLoss } = lossTerms(agent, mb, { ...LOSS_ARGS, normAdv: true });
  const ratio = Math.exp(0.5);
  const normalized = advantages.map((a) => (a - mean) / (unbiasedStd + 1e-8));
  const expected = normalized.map((n) => Math.max(-n * ratio, -n * 1.2)).reduce((x, y) => x + y) / 4;
  close(pgLoss, expected);
  tf.dispose(mb);
});

test("an update step moves the weights and leaks no tensors", () => {
  manualSeed(1);
  const agent = new Agent(3, 2);
  const optimizer = tf.train.adam(2.5e-4, 0.9, 0.999, 1e-5);
  const before = agent.parameters().map((p) => Array.from(p.dataSync()));
  const make = () => minibatch([-0.7, -0.7, -0.7, -0.7], [1, -1, 2, 0.5], [1, 2, 3, 4], [0, 0, 0, 0], [0, 1, 1, 0]);
  // The first step creates Adam's moment slots; from then on the tensor count must stay exactly flat.
  let mb = make();
  updateStep(agent, optimizer, mb, LOSS_ARGS);
  tf.dispose(mb);
  const count = tf.memory().numTensors;
  for (let i = 0; i < 5; i++) {
    mb = make();
    const stats = updateStep(agent, optimizer, mb, LOSS_ARGS);
    tf.dispose(mb);
    assert.equal(stats.length, 7); // the six losses/* metrics and the gradient norm
    assert.ok(stats.every(Number.isFinite));
  }
  tf.dispose(tf.tidy(() => agent.getActionAndValue(tf.zeros([4, 3]))));
  assert.equal(tf.memory().numTensors, count);
  const after = agent.parameters().map((p) => Array.from(p.dataSync()));
  assert.ok(
    after.some((p, i) => p.some((v, j) => v !== before[i][j])),
    "no weight changed",
  );
  optimizer.dispose();
});

test("sampled actions follow the policy's probabilities and report their log-probabilities", () => {
  const agent = constantAgent([0, Math.log(3)], 0.5);
  manualSeed(3);
  let ones = 0;
  const n = 4000;
  // 100 observations per call: the same 4000 draws as 4 per call, in 40 calls instead of 1000.
  for (let i = 0; i < n / 100; i++) {
    const outputs = tf.tidy(() => agent.getActionAndValue(tf.zeros([100, 3])));
    const [action, logprob, , value] = outputs.map((t) => t.dataSync());
    tf.dispose(outputs);
    action.forEach((a, j) => {
      ones += a;
      close(logprob[j], Math.log(a === 1 ? 0.75 : 0.25));
      close(value[j], 0.5);
    });
  }
  assert.ok(Math.abs(ones / n - 0.75) < 0.03, `action 1 chosen ${ones / n} of the time, expected 0.75`);
});

function runScript(args: string[], cwd: string) {
  // tsx is resolved here, not from `cwd`: the runs happen in a temp dir so their runs/ folders don't litter the repo.
  return spawnSync(process.execPath, ["--import", import.meta.resolve("tsx"), join(ROOT, "ppo.ts"), ...args], {
    cwd,
    encoding: "utf8",
    timeout: 120_000,
  });
}

let workDir = "";
before(() => {
  workDir = mkdtempSync(join(tmpdir(), "ppo-test-"));
});
after(() => rmSync(workDir, { recursive: true, force: true }));

test("a short training run logs every CleanRL metric to TensorBoard, saves the agent and evaluates it", () => {
  const run = runScript(
    [
      "--total-timesteps",
      "2048",
      "--num-envs",
      "2",
      "--num-steps",
      "256",
      "--save-model",
      "--eval-episodes",
      "2",
      "--seed",
      "3",
    ],
    workDir,
  );
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /backend: /);
  assert.match(run.stdout, /global_step=\d+, episodic_return=/);
  assert.match(run.stdout, /SPS: \d+/);
  assert.match(run.stdout, /eval_episode=1, episodic_return=/);
  const [runDir] = readdirSync(join(workDir, "runs"));
  assert.match(runDir, /^CartPole-v1__ppo__3__\d+$/);
  const files = readdirSync(join(workDir, "runs", runDir));
  const eventFile = files.find((f) => f.startsWith("events.out.tfevents."));
  assert.ok(eventFile, `no event file in ${files}`);
  const tags = new Set(readEventFile(join(workDir, "runs", runDir, eventFile)).map((e) => e.tag));
  for (const tag of [
    "charts/episodic_return",
    "charts/episodic_length",
    "charts/SPS",
    "charts/learning_rate",
    "losses/value_loss",
    "losses/policy_loss",
    "losses/entropy",
    "losses/old_approx_kl",
    "losses/approx_kl",
    "losses/clipfrac",
    "losses/explained_variance",
    "eval/episodic_return",
  ]) {
    assert.ok(tags.has(tag), `missing ${tag}`);
  }
  const model = join(workDir, "runs", runDir, "ppo.safetensors");
  assert.ok(existsSync(model));
  const evalRun = runScript(["--eval-checkpoint", model, "--eval-episodes", "3"], workDir);
  assert.equal(evalRun.status, 0, evalRun.stderr);
  assert.match(evalRun.stdout, /mean episodic_return over 3 episodes: \d/);
});

test("the script exits 2 with one clear line for an unknown flag, a bad value or an unknown env", async () => {
  for (const [args, message] of [
    [["--bogus"], /error: unknown flag --bogus/],
    [["--num-envs", "four"], /error: --num-envs expects an integer value, got "four"/],
    [["--num-minibatches", "3"], /error: batch size 512 .* not divisible by --num-minibatches 3/],
    [["--env-id", "Nope-v0"], /error: unknown --env-id Nope-v0/],
  ] as const) {
    assert.match(await usageErrorLine(main, [...args]), message);
  }
});

test("--help lists every flag with its default", () => {
  const run = runScript(["--help"], workDir);
  assert.equal(run.status, 0);
  for (const flag of [
    "--env-id STR",
    "--total-timesteps INT",
    "--learning-rate FLOAT",
    "--anneal-lr, --no-anneal-lr",
    "--target-kl FLOAT",
    "--track, --no-track",
    "--wandb-project-name STR",
    "--capture-video",
    "--save-model",
    "(default: 500000)",
  ]) {
    assert.ok(run.stdout.includes(flag), `--help lacks ${flag}`);
  }
});
