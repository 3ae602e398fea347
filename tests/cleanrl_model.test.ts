// CleanRL's `.cleanrl_model` files load into our variants without Python and compute what CleanRL's networks
// compute: tests/fixtures/cleanrl_model/, written by benchmark/cleanrl_model_record.py (its header has the command)
// with torch.save of CleanRL's six PPO agents and flax.serialization of ppo_atari_envpool_xla_jax_scan.py's, each
// beside its network's outputs in float32 and float64 on the minibatch formula of benchmark/cleanrl_record.py.
// Ours are held to 8 × the float32 error torch (or jax) made on the same inputs, relative to the largest output.
import { ExtensionCodec, encode } from "@msgpack/msgpack";
import * as tf from "@tensorflow/tfjs";
import * as nn from "../envs/torch/nn.ts";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { before, test } from "node:test";
import { gunzipSync } from "node:zlib";

import { setupBackend } from "../envs/torch/backend.ts";
import { type NamedParameter, loadParameters, readCheckpoint } from "../envs/torch/checkpoint.ts";
import { RandomGenerator } from "../envs/torch/rng.ts";
import * as ppo from "../ppo.ts";
import * as atari from "../ppo_atari.ts";
import * as lstm from "../ppo_atari_lstm.ts";
import * as continuous from "../ppo_continuous_action.ts";
import * as pettingzoo from "../ppo_pettingzoo_ma_atari.ts";
import * as procgen from "../ppo_procgen.ts";
import { type ForwardOutputs, hashBytes, hashFloats, hashInts, hashUnit, readForward } from "./cleanrl_fixtures.ts";

const FIXTURES = path.join(import.meta.dirname, "fixtures", "cleanrl_model");
const TOLERANCE_FACTOR = 8;
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), "cleanrl-model-"));

interface Recording {
  minibatch_size: number;
  minibatch: { obs_seed: number; actions_seed: number; initial_state_seed?: number };
  float32: Record<string, number[] | number[][]>;
  float64: Record<string, number[] | number[][]>;
}

/** The recorded outputs, and the model file as torch or flax wrote it (the fixture is it gzipped). */
function fixture(name: string): { recording: Recording; file: string } {
  const file = path.join(TMP, `${name}.cleanrl_model`);
  fs.writeFileSync(file, gunzipSync(fs.readFileSync(path.join(FIXTURES, `${name}.cleanrl_model.gz`))));
  return { recording: JSON.parse(fs.readFileSync(path.join(FIXTURES, `${name}.json`), "utf8")), file };
}

/** `ours` against the float64 outputs, within TOLERANCE_FACTOR × float32's own error on them. */
function assertClose(label: string, ours: ArrayLike<number>, f32: number[], f64: number[]): void {
  assert.equal(ours.length, f64.length, `${label}: ${ours.length} outputs, recorded ${f64.length}`);
  let oursErr = 0;
  let refErr = 0;
  let magnitude = 0;
  for (let i = 0; i < f64.length; i++) {
    oursErr = Math.max(oursErr, Math.abs(ours[i] - f64[i]));
    refErr = Math.max(refErr, Math.abs(f32[i] - f64[i]));
    magnitude = Math.max(magnitude, Math.abs(f64[i]));
  }
  const tolerance = TOLERANCE_FACTOR * Math.max(refErr, 2 ** -20 * magnitude);
  assert.ok(oursErr <= tolerance, `${label}: off by ${oursErr} (tolerance ${tolerance}, float32's own ${refErr})`);
}

function assertForward(label: string, recording: Recording, out: ForwardOutputs): void {
  for (const key of ["logprob", "entropy", "value"] as const)
    assertClose(`${label} ${key}`, out[key], recording.float32[key] as number[], recording.float64[key] as number[]);
}

function load(file: string, script: string, parameters: NamedParameter[]): void {
  loadParameters(readCheckpoint(file, script), parameters);
}

before(async () => {
  await setupBackend("wasm", { quiet: true });
});

test("ppo.ts plays a torch.save state dict of CleanRL's ppo.py agent (CartPole MLP)", () => {
  const { recording: r, file } = fixture("ppo");
  const n = r.minibatch_size;
  const agent = new ppo.Agent(4, 2);
  load(file, "ppo.ts", agent.namedParameters());
  const obs = tf.tensor2d(hashFloats(r.minibatch.obs_seed, n * 4, 2), [n, 4]);
  const actions = tf.tensor1d(hashInts(r.minibatch.actions_seed, n, 2), "int32");
  assertForward(
    "ppo",
    r,
    readForward(() => agent.getActionAndValue(obs, actions)),
  );
});

test("ppo_continuous_action.ts plays a torch.save state dict of CleanRL's ppo_continuous_action.py agent (HalfCheetah MLP)", () => {
  const { recording: r, file } = fixture("ppo_continuous_action");
  const n = r.minibatch_size;
  const agent = new continuous.Agent(17, 6);
  load(file, "ppo_continuous_action.ts", agent.namedParameters());
  const obs = tf.tensor2d(hashFloats(r.minibatch.obs_seed, n * 17, 2), [n, 17]);
  const actions = tf.tensor2d(hashFloats(r.minibatch.actions_seed, n * 6, 1.5), [n, 6]);
  assertForward(
    "ppo_continuous_action",
    r,
    readForward(() => agent.getActionAndValue(obs, actions)),
  );
});

test("ppo_atari.ts plays a torch.save state dict of CleanRL's ppo_atari.py agent (Nature CNN)", () => {
  const { recording: r, file } = fixture("ppo_atari");
  const n = r.minibatch_size;
  const agent = new atari.Agent(4);
  load(file, "ppo_atari.ts", agent.namedParameters());
  const obs = nn.framesToInput(hashBytes(r.minibatch.obs_seed, n * 4 * 84 * 84), [4, 84, 84], "chw");
  const actions = tf.tensor1d(hashInts(r.minibatch.actions_seed, n, 4), "int32");
  assertForward(
    "ppo_atari",
    r,
    readForward(() => agent.getActionAndValue(obs, actions)),
  );
});

test("ppo_atari_lstm.ts plays a torch.save state dict of CleanRL's ppo_atari_lstm.py agent (CNN + LSTM, episode starts inside)", () => {
  const { recording: r, file } = fixture("ppo_atari_lstm");
  const n = r.minibatch_size;
  const envs = 2;
  const agent = new lstm.Agent(4);
  load(file, "ppo_atari_lstm.ts", agent.namedParameters());
  // benchmark/cleanrl_record.py's LSTM minibatch: episode starts at steps 37 (env 0), 0, 80 and 81 (env 1).
  const dones = new Float32Array(n);
  for (const [step, env] of [
    [37, 0],
    [0, 1],
    [80, 1],
    [81, 1],
  ])
    dones[step * envs + env] = 1;
  const state = Float32Array.from(hashUnit(r.minibatch.initial_state_seed!, 2 * envs * 128), (u) => u * 0.5);
  const initial: nn.LstmState = [
    tf.tensor2d(state.subarray(0, envs * 128), [envs, 128]),
    tf.tensor2d(state.subarray(envs * 128), [envs, 128]),
  ];
  const obs = nn.framesToInput(hashBytes(r.minibatch.obs_seed, n * 84 * 84), [1, 84, 84], "chw");
  const actions = tf.tensor1d(hashInts(r.minibatch.actions_seed, n, 4), "int32");
  const forward = () => {
    const [, logprob, entropy, value] = agent.getActionAndValue(obs, initial, tf.tensor1d(dones), actions);
    return { logprob, entropy, value };
  };
  assertForward("ppo_atari_lstm", r, readForward(forward));
});

test("ppo_pettingzoo_ma_atari.ts plays a torch.save state dict of CleanRL's ppo_pettingzoo_ma_atari.py agent (6-channel CNN)", () => {
  const { recording: r, file } = fixture("ppo_pettingzoo_ma_atari");
  const n = r.minibatch_size;
  const agent = new pettingzoo.Agent(6, new RandomGenerator(0));
  load(file, "ppo_pettingzoo_ma_atari.ts", agent.namedParameters());
  const obs = Int32Array.from(hashBytes(r.minibatch.obs_seed, n * 84 * 84 * 6));
  for (let i = 0; i < n; i++)
    for (let p = 0; p < 84 * 84; p++) {
      obs[(i * 84 * 84 + p) * 6 + 4] = i % 2;
      obs[(i * 84 * 84 + p) * 6 + 5] = 1 - (i % 2);
    }
  const actions = tf.tensor1d(hashInts(r.minibatch.actions_seed, n, 6), "int32");
  assertForward(
    "ppo_pettingzoo_ma_atari",
    r,
    readForward(() => agent.getActionAndValue(tf.tensor4d(obs, [n, 84, 84, 6], "int32"), actions)),
  );
});

test("ppo_procgen.ts plays a torch.save state dict of CleanRL's ppo_procgen.py agent (IMPALA CNN)", () => {
  const { recording: r, file } = fixture("ppo_procgen");
  const n = r.minibatch_size;
  const agent = new procgen.Agent(15, new RandomGenerator(0));
  load(file, "ppo_procgen.ts", agent.namedParameters());
  const obs = procgen.framesToInput(hashBytes(r.minibatch.obs_seed, n * 64 * 64 * 3));
  const actions = tf.tensor1d(hashInts(r.minibatch.actions_seed, n, 15), "int32");
  assertForward(
    "ppo_procgen",
    r,
    readForward(() => agent.getActionAndValue(obs, actions)),
  );
});

test("ppo_atari.ts plays the flax agent of CleanRL's ppo_atari_envpool_xla_jax_scan.py (logits and values as jax computes them)", () => {
  const file = path.join(TMP, "jax.cleanrl_model");
  fs.writeFileSync(
    file,
    gunzipSync(fs.readFileSync(path.join(FIXTURES, "ppo_atari_envpool_xla_jax_scan.cleanrl_model.gz"))),
  );
  const r = JSON.parse(fs.readFileSync(path.join(FIXTURES, "ppo_atari_envpool_xla_jax_scan.json"), "utf8"));
  const checkpoint = readCheckpoint(file, "ppo_atari.ts");
  // The script's default Breakout-v5 (envpool) is gymnasium's BreakoutNoFrameskip-v4 with SB3's wrappers.
  assert.equal(checkpoint.envId, "BreakoutNoFrameskip-v4");
  const agent = new atari.Agent(r.actions);
  loadParameters(checkpoint, agent.namedParameters());
  const x = nn.framesToInput(hashBytes(r.obs_seed, r.samples * 4 * 84 * 84), [4, 84, 84], "chw");
  const [logits, value] = tf.tidy(() => {
    const hidden = agent.network.forward(x) as tf.Tensor2D;
    const l = tf.add(tf.matMul(hidden, agent.actor.weight), agent.actor.bias);
    const v = tf.add(tf.matMul(hidden, agent.critic.weight), agent.critic.bias);
    return [l.dataSync(), v.dataSync()];
  });
  assertClose("flax logits", logits, r.float32.logits.flat(), r.float64.logits.flat());
  assertClose("flax value", value, r.float32.value, r.float64.value);
});

test("a pickled module (not a state dict) is refused in one line, before any of its program runs", () => {
  assert.throws(
    () => readCheckpoint(path.join(FIXTURES, "module.cleanrl_model"), "ppo.ts"),
    (e: Error) =>
      e.name === "CheckpointError" &&
      /not a readable checkpoint: torch\.save state dict: data\.pkl uses pickle opcode 0x81 .*never writes/.test(
        e.message,
      ) &&
      !e.message.includes("\n"),
  );
});

test("a float64 state dict is refused in one line: only float32 tensors are read", () => {
  assert.throws(
    () => readCheckpoint(path.join(FIXTURES, "float64.cleanrl_model"), "ppo.ts"),
    (e: Error) => /torch\.DoubleStorage tensor; only float32/.test(e.message) && !e.message.includes("\n"),
  );
});

test("a truncated torch.save archive is refused in one line", () => {
  const { file } = fixture("ppo");
  const cut = path.join(TMP, "cut.cleanrl_model");
  fs.writeFileSync(cut, fs.readFileSync(file).subarray(0, 3000));
  assert.throws(
    () => readCheckpoint(cut, "ppo.ts"),
    (e: Error) =>
      /cut\.cleanrl_model is not a readable checkpoint: torch\.save state dict: /.test(e.message) &&
      !e.message.includes("\n"),
  );
});

test("a truncated flax file is refused in one line", () => {
  const bytes = gunzipSync(fs.readFileSync(path.join(FIXTURES, "ppo_atari_envpool_xla_jax_scan.cleanrl_model.gz")));
  const cut = path.join(TMP, "cut-flax.cleanrl_model");
  fs.writeFileSync(cut, bytes.subarray(0, 100_000));
  assert.throws(
    () => readCheckpoint(cut, "ppo_atari.ts"),
    (e: Error) => /is not a readable checkpoint: flax agent: /.test(e.message) && !e.message.includes("\n"),
  );
});

test("a flax agent of another network is refused in one line naming what it holds", () => {
  // flax's msgpack of [args, [params]] for a one-layer network, built with the same library the reader uses.
  const codec = new ExtensionCodec();
  codec.register({
    type: 1,
    encode: (v: unknown) =>
      v instanceof Float32Array ? encode([[v.length], "float32", new Uint8Array(v.buffer)]) : null,
    decode: () => null,
  });
  const layer = { kernel: new Float32Array(4), bias: new Float32Array(2) };
  const bytes = encode(
    { "0": { env_id: "Pong-v5" }, "1": { "0": { params: { Dense_0: layer } } } },
    {
      extensionCodec: codec,
    },
  );
  const file = path.join(TMP, "other.cleanrl_model");
  fs.writeFileSync(file, bytes);
  assert.throws(
    () => readCheckpoint(file, "ppo_atari.ts"),
    (e: Error) => /its parameters holds 0, expected 0, 1, 2/.test(e.message) && !e.message.includes("\n"),
  );
});
