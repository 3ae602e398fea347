// Our checkpoints against real PyTorch: CleanRL's own Agent classes load them, and theirs load into ours.
//
//   npx tsx benchmark/torch_roundtrip.ts --python /tmp/torch-venv/bin/python --cleanrl-dir /tmp/cleanrl
//   npx tsx benchmark/torch_roundtrip.ts ... --cases ppo,ppo_atari --backend wasm
//
// --python: a Python with torch (CPU) and safetensors (`python -m venv /tmp/torch-venv && /tmp/torch-venv/bin/pip
// install torch safetensors`); --cleanrl-dir: a clone of CleanRL (github.com/vwxyzjn/cleanrl), whose cleanrl/*.py
// scripts hold the Agent classes. Neither is a dependency of the project: this is a check against the reference.
// For each variant ("case"):
//   1. ours → torch: an agent of ours, after one Adam step on random gradients (so biases are not zero and the
//      checkpoint has optimizer.* entries), is saved as a checkpoint; benchmark/torch_roundtrip.py loads it into
//      CleanRL's Agent with `load_state_dict(strict=True)` and runs a random input batch through CleanRL's forward
//      code: the largest difference from our logits (action means for the continuous agent) and values is reported.
//   2. torch → ours: a fresh CleanRL Agent's `state_dict()`, saved with safetensors.torch.save_file, loads into our
//      agent (`--eval-checkpoint` reads such a file the same way), and our outputs on the same input are compared
//      with CleanRL's.
// Prints a markdown table; exits 1 if a difference exceeds --tolerance.

import * as tf from "@tensorflow/tfjs";
import * as nn from "../envs/torch/nn.ts";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { setupBackend } from "../envs/torch/backend.ts";
import { type NamedParameter, loadParameters, readCheckpoint, writeCheckpoint } from "../envs/torch/checkpoint.ts";
import { float, parseArgs, str, usageError } from "../envs/run/cli.ts";
import { runMain } from "../envs/run/main.ts";
import { adam } from "../envs/torch/optim.ts";
import { RandomGenerator } from "../envs/torch/rng.ts";
import { type StoredTensor, deserialize, f32, serialize, toFloat32 } from "../envs/torch/safetensors.ts";
import * as ppo from "../ppo.ts";
import * as ppoAtari from "../ppo_atari.ts";
import * as ppoLstm from "../ppo_atari_lstm.ts";
import * as ppoContinuous from "../ppo_continuous_action.ts";
import * as ppoPettingzoo from "../ppo_pettingzoo_ma_atari.ts";
import * as ppoProcgen from "../ppo_procgen.ts";
import { ROOT } from "./lib.ts";

const ARGS = {
  python: str(null, "a Python with torch and safetensors"),
  cleanrlDir: str(null, "a clone of CleanRL (its cleanrl/*.py scripts)"),
  cases: str(
    "ppo,ppo_atari,ppo_continuous_action,ppo_atari_lstm,ppo_procgen,ppo_pettingzoo_ma_atari",
    "the variants to check",
  ),
  backend: str("cpu", "the tfjs backend our agents run on"),
  tolerance: float(1e-4, "the largest difference accepted", { gt: 0 }),
};

/** One variant: its agent under CleanRL's names, an input batch as stored, our outputs on it. */
interface Case {
  script: string;
  make(rng: RandomGenerator): { namedParameters(): NamedParameter[] };
  input(rng: RandomGenerator): StoredTensor;
  outputs(agent: unknown, input: StoredTensor): { logits: Float32Array; value: Float32Array; logstd?: Float32Array };
}

const BATCH = 5;
const pixels =
  (shape: number[]) =>
  (rng: RandomGenerator): StoredTensor => ({
    dtype: "U8",
    shape: [BATCH, ...shape],
    bytes: Uint8Array.from({ length: BATCH * shape.reduce((a, b) => a * b, 1) }, () => rng.integers(0, 256)),
  });
const vector =
  (dim: number) =>
  (rng: RandomGenerator): StoredTensor =>
    f32(
      [BATCH, dim],
      Float32Array.from({ length: BATCH * dim }, () => rng.normal()),
    );
const read = (t: tf.Tensor) => Float32Array.from(t.dataSync());

/** `nn.Sequential(Linear, Tanh, Linear, Tanh, Linear)` on `x`. */
function mlp(layers: { weight: tf.Tensor; bias: tf.Tensor }[], x: tf.Tensor2D): tf.Tensor2D {
  let h = x;
  layers.forEach((l, i) => {
    h = tf.add(tf.matMul(h, l.weight as tf.Tensor2D), l.bias) as tf.Tensor2D;
    if (i < layers.length - 1) h = tf.tanh(h);
  });
  return h;
}

type Head = { weight: tf.Tensor; bias: tf.Tensor } | { forward(x: tf.Tensor): tf.Tensor };

/** The actor and critic heads on a trunk's output. */
function heads(agent: { actor: Head; critic: Head }, hidden: tf.Tensor2D) {
  // A head is an nn.Linear (forward) in the variants on envs/torch/nn.ts, a bare {weight, bias} in the others.
  const apply = (head: Head) => ("forward" in head ? head.forward(hidden) : mlp([head], hidden));
  return { logits: read(apply(agent.actor) as tf.Tensor2D), value: read(apply(agent.critic) as tf.Tensor2D) };
}

const CASES: Record<string, Case> = {
  ppo: {
    script: "ppo.ts",
    make: (rng) => new ppo.Agent(4, 2),
    input: vector(4),
    outputs: (agent, input) => {
      const a = agent as ppo.Agent;
      const x = tf.tensor2d(toFloat32(input), [BATCH, 4]);
      return { logits: read(a.actor.forward(x) as tf.Tensor2D), value: read(a.critic.forward(x) as tf.Tensor2D) };
    },
  },
  ppo_atari: {
    script: "ppo_atari.ts",
    make: (rng) => new ppoAtari.Agent(4),
    input: pixels([4, 84, 84]),
    outputs: (agent, input) =>
      heads(
        agent as ppoAtari.Agent,
        (agent as ppoAtari.Agent).network.forward(nn.framesToInput(input.bytes, [4, 84, 84], "chw")) as tf.Tensor2D,
      ),
  },
  ppo_continuous_action: {
    script: "ppo_continuous_action.ts",
    make: () => new ppoContinuous.Agent(17, 6),
    input: vector(17),
    outputs: (agent, input) => {
      const a = agent as ppoContinuous.Agent;
      const x = tf.tensor2d(toFloat32(input), [BATCH, 17]);
      return { logits: read(a.actorMean.forward(x)), value: read(a.critic.forward(x)), logstd: read(a.actorLogstd) };
    },
  },
  ppo_atari_lstm: {
    script: "ppo_atari_lstm.ts",
    make: () => new ppoLstm.Agent(4),
    input: pixels([1, 84, 84]),
    outputs: (agent, input) => {
      const a = agent as ppoLstm.Agent;
      const zeros = tf.zeros([BATCH, a.lstm.hiddenSize]);
      const x = nn.framesToInput(input.bytes, [1, 84, 84], "chw");
      const [hidden] = a.getStates(x, [zeros, zeros], tf.zeros([BATCH]) as tf.Tensor1D);
      return heads(a, hidden as tf.Tensor2D);
    },
  },
  ppo_procgen: {
    script: "ppo_procgen.ts",
    make: (rng) => new ppoProcgen.Agent(15, rng),
    input: pixels([64, 64, 3]),
    outputs: (agent, input) =>
      heads(agent as ppoProcgen.Agent, (agent as ppoProcgen.Agent).hidden(ppoProcgen.framesToInput(input.bytes))),
  },
  ppo_pettingzoo_ma_atari: {
    script: "ppo_pettingzoo_ma_atari.ts",
    make: (rng) => new ppoPettingzoo.Agent(6, rng),
    // 4 frames, then the 2 agent-indicator channels, which hold 0 or 1 (they are not divided by 255).
    input: (rng) => ({
      dtype: "U8",
      shape: [BATCH, 84, 84, 6],
      bytes: Uint8Array.from({ length: BATCH * 84 * 84 * 6 }, (_, i) =>
        i % 6 < 4 ? rng.integers(0, 256) : rng.integers(0, 2),
      ),
    }),
    outputs: (agent, input) =>
      heads(
        agent as ppoPettingzoo.Agent,
        (agent as ppoPettingzoo.Agent).hidden(tf.tensor4d(input.bytes, [BATCH, 84, 84, 6], "int32")),
      ),
  },
};

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return Infinity;
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d;
}

async function main(): Promise<void> {
  const args = parseArgs(
    ARGS,
    "Checks our checkpoints against CleanRL's PyTorch Agent classes, both ways.",
    "benchmark/torch_roundtrip.ts",
  );
  if (args.python === null || args.cleanrlDir === null) usageError("--python and --cleanrl-dir are both needed");
  const cases = args.cases.split(",");
  for (const c of cases) if (!(c in CASES)) usageError(`unknown case ${c}; one of ${Object.keys(CASES).join(", ")}`);
  await setupBackend(args.backend, { quiet: true });
  const work = mkdtempSync(join(tmpdir(), "torch-roundtrip-"));
  const rows: string[] = [];
  let worst = 0;
  try {
    for (const name of cases) {
      const c = CASES[name];
      const rng = new RandomGenerator(11);
      const agent = c.make(rng);
      const params = agent.namedParameters();
      const optimizer = adam(1e-2);
      tf.tidy(() =>
        optimizer.applyGradients(
          Object.fromEntries(
            params.map((p) => [p.variable.name, tf.randomNormal(p.variable.shape, 0, 1, "float32", 3)]),
          ),
        ),
      );
      const input = c.input(rng);
      const ours = tf.tidy(() => c.outputs(agent, input));
      writeCheckpoint(join(work, `${name}.ours.safetensors`), c.script, params, optimizer, {
        runName: "roundtrip",
        iteration: 1,
        globalStep: 1,
        rng: [rng.getState()],
        args: {},
      });
      const io = new Map<string, StoredTensor>([
        ["input", input],
        ["logits", f32([BATCH, ours.logits.length / BATCH], ours.logits)],
        ["value", f32([BATCH], ours.value)],
      ]);
      if (ours.logstd) io.set("logstd", f32([1, ours.logstd.length], ours.logstd));
      writeFileSync(join(work, `${name}.io.safetensors`), serialize(io));
    }
    const py = spawnSync(
      args.python,
      [
        join(ROOT, "benchmark", "torch_roundtrip.py"),
        "--cleanrl-dir",
        args.cleanrlDir,
        "--work",
        work,
        "--cases",
        cases.join(","),
      ],
      { encoding: "utf8" },
    );
    if (py.status !== 0)
      throw new Error(
        `torch_roundtrip.py failed: ${(py.stderr || py.stdout).trim().split("\n").slice(-3).join(" | ")}`,
      );
    const torchSide = JSON.parse(py.stdout.trim().split("\n").pop()!) as Record<
      string,
      { max_abs_diff: number; keys: number; torch: string }
    >;
    rows.push(
      `| variant | tensors | ours → CleanRL Agent (max abs diff) | CleanRL state_dict → ours (max abs diff) |`,
      "|-|-|-|-|",
    );
    for (const name of cases) {
      const c = CASES[name];
      const agent = c.make(new RandomGenerator(0));
      loadParameters(readCheckpoint(join(work, `${name}.cleanrl.safetensors`), c.script), agent.namedParameters());
      const theirs = deserialize(readFileSync(join(work, `${name}.cleanrl_io.safetensors`)));
      const input = deserialize(readFileSync(join(work, `${name}.io.safetensors`))).tensors.get("input")!;
      const ours = tf.tidy(() => c.outputs(agent, input));
      let back = Math.max(
        maxAbsDiff(ours.logits, toFloat32(theirs.tensors.get("logits")!)),
        maxAbsDiff(ours.value, toFloat32(theirs.tensors.get("value")!)),
      );
      if (ours.logstd) back = Math.max(back, maxAbsDiff(ours.logstd, toFloat32(theirs.tensors.get("logstd")!)));
      const forth = torchSide[name].max_abs_diff;
      worst = Math.max(worst, forth, back);
      rows.push(`| ${c.script} | ${torchSide[name].keys} | ${forth.toExponential(1)} | ${back.toExponential(1)} |`);
    }
    console.log(
      `torch ${Object.values(torchSide)[0].torch}, our backend ${args.backend}, batch ${BATCH}\n${rows.join("\n")}`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (!(worst <= args.tolerance)) throw new Error(`a difference of ${worst} exceeds --tolerance ${args.tolerance}`);
}

await runMain(main);
