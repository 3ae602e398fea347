// CleanRL equivalence of the MLP variants (ppo.ts, ppo_continuous_action.ts) on the cpu backend: forward pass,
// loss terms, gradient norm and the parameters after 1 and 4 Adam steps, against tests/fixtures/cleanrl/ (see
// tests/cleanrl_fixtures.ts and benchmark/README.md "CleanRL equivalence").
import * as tf from "@tensorflow/tfjs";
import { before, test } from "node:test";

import { setupBackend } from "../envs/backend.ts";
import { RandomGenerator } from "../envs/rng.ts";
import * as ppo from "../ppo.ts";
import * as continuous from "../ppo_continuous_action.ts";
import { Comparison, compareAfter, compareForward, compareSteps, hashFloats, hashInts, loadFixture, minibatchColumns, setParameters, variantArgs } from "./cleanrl_fixtures.ts";

before(async () => {
  await setupBackend("cpu", { quiet: true });
});

test("ppo.ts takes CleanRL's ppo.py update (CartPole shapes, minibatch 128)", () => {
  const fixture = loadFixture("ppo");
  const args = variantArgs(ppo.ARGS, fixture);
  const [obsDim, numActions, n] = [fixture.spaces.obs_shape[0], fixture.spaces.actions!, fixture.minibatch_size];
  const agent = new ppo.Agent(obsDim, numActions, new RandomGenerator(0));
  const initial = setParameters(agent.parameters(), fixture);
  const spec = fixture.minibatches[0];
  const columns = minibatchColumns(spec);
  const mb: ppo.Minibatch = {
    obs: tf.tensor2d(hashFloats(spec.obs_seed, n * obsDim, 2), [n, obsDim]),
    actions: tf.tensor1d(hashInts(spec.actions_seed, n, numActions), "int32"),
    logprobs: tf.tensor1d(columns.logprobs),
    advantages: tf.tensor1d(columns.advantages),
    returns: tf.tensor1d(columns.returns),
    values: tf.tensor1d(columns.values),
  };
  const cmp = new Comparison();
  compareForward(cmp, fixture, 0, tf.tidy(() => {
    const out = agent.getActionAndValue(mb.obs, mb.actions);
    return { logprob: out.logprob.dataSync(), entropy: out.entropy.dataSync(), value: out.value.dataSync() };
  }));
  const optimizer = ppo.makeOptimizer(args.learningRate);
  const stats: Float32Array[] = [];
  for (let step = 1; step <= fixture.float64.steps.length; step++) {
    stats.push(ppo.updateStep(agent, optimizer, mb, args));
    if (fixture.float64.after[String(step)]) compareAfter(cmp, fixture, step, agent.parameters(), initial);
  }
  compareSteps(cmp, fixture, 0, stats);
  cmp.assertAll("ppo");
});

test("ppo_continuous_action.ts takes CleanRL's ppo_continuous_action.py update (HalfCheetah shapes, minibatch 64)", () => {
  const fixture = loadFixture("ppo_continuous_action");
  const args = variantArgs(continuous.ARGS, fixture);
  const [obsDim, actionDim, n] = [fixture.spaces.obs_shape[0], fixture.spaces.action_dim!, fixture.minibatch_size];
  const agent = new continuous.Agent(obsDim, actionDim, new RandomGenerator(0));
  // torch lists a module's own parameters before its submodules': CleanRL's order starts with actor_logstd.
  const params = () => {
    const p = agent.parameters();
    return [p[p.length - 1], ...p.slice(0, -1)];
  };
  const initial = setParameters(params(), fixture);
  const spec = fixture.minibatches[0];
  const columns = minibatchColumns(spec);
  const mb: continuous.Minibatch = {
    obs: tf.tensor2d(hashFloats(spec.obs_seed, n * obsDim, 2), [n, obsDim]),
    actions: tf.tensor2d(hashFloats(spec.actions_seed, n * actionDim, 1.5), [n, actionDim]),
    logprobs: tf.tensor1d(columns.logprobs),
    advantages: tf.tensor1d(columns.advantages),
    returns: tf.tensor1d(columns.returns),
    values: tf.tensor1d(columns.values),
  };
  const cmp = new Comparison();
  compareForward(cmp, fixture, 0, tf.tidy(() => {
    const out = agent.getActionAndValue(mb.obs, mb.actions);
    return { logprob: out.logprob.dataSync(), entropy: out.entropy.dataSync(), value: out.value.dataSync() };
  }));
  const optimizer = continuous.makeOptimizer(args.learningRate);
  const stats: Float32Array[] = [];
  for (let step = 1; step <= fixture.float64.steps.length; step++) {
    stats.push(continuous.updateStep(agent, optimizer, mb, args));
    if (fixture.float64.after[String(step)]) compareAfter(cmp, fixture, step, params(), initial);
  }
  compareSteps(cmp, fixture, 0, stats);
  cmp.assertAll("ppo_continuous_action");
});
