// CleanRL equivalence of the MLP variants (ppo.ts, ppo_continuous_action.ts) on the cpu backend: forward pass,
// loss terms, gradient norm and the parameters after 1 and 4 Adam steps, against tests/fixtures/cleanrl/ (see
// tests/cleanrl_fixtures.ts and benchmark/README.md "CleanRL equivalence").
import * as tf from "@tensorflow/tfjs";
import { before, test } from "node:test";

import { setupBackend } from "../envs/torch/backend.ts";
import * as ppo from "../ppo.ts";
import * as continuous from "../ppo_continuous_action.ts";
import {
  hashFloats,
  hashInts,
  loadFixture,
  minibatchColumns,
  readForward,
  replayFixture,
  variantArgs,
} from "./cleanrl_fixtures.ts";

before(async () => {
  await setupBackend("cpu", { quiet: true });
});

/** The recorded minibatch as tensors, with `actions` as the variant takes them. */
function minibatch<A extends tf.Tensor>(
  spec: ReturnType<typeof loadFixture>["minibatches"][number],
  n: number,
  obsDim: number,
  actions: A,
) {
  const columns = minibatchColumns(spec);
  return {
    obs: tf.tensor2d(hashFloats(spec.obs_seed, n * obsDim, 2), [n, obsDim]),
    actions,
    logprobs: tf.tensor1d(columns.logprobs),
    advantages: tf.tensor1d(columns.advantages),
    returns: tf.tensor1d(columns.returns),
    values: tf.tensor1d(columns.values),
  };
}

test("ppo.ts takes CleanRL's ppo.py update (CartPole shapes, minibatch 128)", async () => {
  const fixture = loadFixture("ppo");
  const args = variantArgs(ppo.ARGS, fixture);
  const [obsDim, numActions, n] = [fixture.spaces.obs_shape[0], fixture.spaces.actions!, fixture.minibatch_size];
  const agent = new ppo.Agent(obsDim, numActions);
  const spec = fixture.minibatches[0];
  const mb = minibatch(spec, n, obsDim, tf.tensor1d(hashInts(spec.actions_seed, n, numActions), "int32"));
  const optimizer = ppo.makeOptimizer(args.learningRate);
  await replayFixture("ppo", fixture, {
    params: () => agent.parameters(),
    forward: () => readForward(() => agent.getActionAndValue(mb.obs, mb.actions)),
    update: () => ppo.updateStep(agent, optimizer, mb, args),
  });
});

test("ppo_continuous_action.ts takes CleanRL's ppo_continuous_action.py update (HalfCheetah shapes, minibatch 64)", async () => {
  const fixture = loadFixture("ppo_continuous_action");
  const args = variantArgs(continuous.ARGS, fixture);
  const [obsDim, actionDim, n] = [fixture.spaces.obs_shape[0], fixture.spaces.action_dim!, fixture.minibatch_size];
  const agent = new continuous.Agent(obsDim, actionDim);
  const spec = fixture.minibatches[0];
  const mb = minibatch(spec, n, obsDim, tf.tensor2d(hashFloats(spec.actions_seed, n * actionDim, 1.5), [n, actionDim]));
  const optimizer = continuous.makeOptimizer(args.learningRate);
  await replayFixture("ppo_continuous_action", fixture, {
    // torch lists a module's own parameters before its submodules': CleanRL's order starts with actor_logstd.
    params: () => {
      const p = agent.parameters();
      return [p[p.length - 1], ...p.slice(0, -1)];
    },
    forward: () => readForward(() => agent.getActionAndValue(mb.obs, mb.actions)),
    update: () => continuous.updateStep(agent, optimizer, mb, args),
  });
});
