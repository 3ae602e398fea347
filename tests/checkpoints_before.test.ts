// Checkpoints written before the variants moved onto envs/torch/nn.ts still load: the same state-dict names,
// shapes and layouts, and the same outputs. tests/fixtures/checkpoints/ holds a ppo.ts --save-model file written
// by commit 5aa9bca and what that commit's Agent computed from it (its command is in the JSON).
import * as tf from "@tensorflow/tfjs";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { setupBackend } from "../envs/torch/backend.ts";
import { loadParameters, readCheckpoint } from "../envs/torch/checkpoint.ts";
import * as ppo from "../ppo.ts";
import * as atari from "../ppo_atari.ts";

const FIXTURES = new URL("./fixtures/checkpoints/", import.meta.url);
const recorded = JSON.parse(readFileSync(new URL("written_before_restructuring.json", FIXTURES), "utf8"));

before(async () => {
  await setupBackend("cpu", { quiet: true });
});

test("ppo.ts loads a checkpoint written before the restructuring and computes what the old Agent did from it", () => {
  const file = fileURLToPath(new URL("ppo_cartpole_written_before_restructuring.safetensors", FIXTURES));
  const agent = new ppo.Agent(4, 2);
  loadParameters(readCheckpoint(file, "ppo.ts"), agent.namedParameters());
  const actions = tf.tensor1d(recorded.actions, "int32");
  const [, logprob, entropy, value] = tf.tidy(() =>
    agent.getActionAndValue(tf.tensor2d(recorded.obs, [3, 4]), actions),
  );
  assert.deepEqual(Array.from(logprob.dataSync()), recorded.logprob);
  assert.deepEqual(Array.from(entropy.dataSync()), recorded.entropy);
  assert.deepEqual(Array.from(value.dataSync()), recorded.value);
  tf.dispose([actions, logprob, entropy, value, ...agent.parameters()]);
});

test("the agents' parameters keep the names, shapes and layouts checkpoints were written with", () => {
  const names = (agent: ppo.Agent | atari.Agent) =>
    agent.namedParameters().map((p) => [p.name, p.variable.shape, p.layout] as unknown[]);
  const mlp = new ppo.Agent(4, 2);
  assert.deepEqual(
    names(mlp).map(([name, shape]) => [name, shape]),
    recorded.ppoNames,
  );
  const cnn = new atari.Agent(6);
  assert.deepEqual(names(cnn), recorded.atariNames);
  tf.dispose([...mlp.parameters(), ...cnn.parameters()]);
});
