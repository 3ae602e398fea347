// Where one ppo_atari.ts iteration spends its tensor time: `npx tsx benchmark/profile_atari.ts [options]`.
//
//   --backend wasm|tensorflow|cpu   backend to profile (tensorflow: @tensorflow/tfjs-node, see benchmark/native_tf.sh)
//   --rollout-steps 128             forward passes of the rollout (8 envs each, ppo_atari's defaults)
//   --minibatches 16                update steps (4 epochs x 4 minibatches of 256)
//   --kernels                       also print exclusive time per kernel (our wasm fixes run kernels inside kernels;
//                                   "exclusive" subtracts the nested ones, so the column adds up to the total)
//   --shapes                        with --kernels: one row per kernel and input shapes
//
// It drives ppo_atari.ts's own Agent, minibatch assembly (`framesToInput`) and `updateStep` on random frames, so
// the numbers cover exactly the tensor work of `main` (no emulator). Timings from a shared 2-core machine vary
// ~10-20%: compare runs made one after the other.

import * as tf from "@tensorflow/tfjs";
import * as nn from "../envs/torch/nn.ts";

import { setupBackend } from "../envs/torch/backend.ts";
import { bool, int, parseArgs, str } from "../envs/run/cli.ts";
import { handleExits } from "../envs/run/main.ts";
import { adam } from "../envs/torch/optim.ts";
import { manualSeed } from "../envs/torch/rng.ts";

handleExits(); // a bad command line or a backend that cannot start: one `error:` line, exit 2 / 1
const cli = parseArgs(
  {
    backend: str(
      "wasm",
      "backend to profile, chosen as a variant's --backend is (tensorflow: see benchmark/native_tf.sh)",
    ),
    rolloutSteps: int(128, "forward passes of the rollout (8 envs each, ppo_atari's defaults)", { ge: 1 }),
    minibatches: int(16, "update steps (4 epochs x 4 minibatches of 256)", { ge: 1 }),
    kernels: bool(false, "also print exclusive time per kernel"),
    shapes: bool(false, "with --kernels: one row per kernel and input shapes"),
  },
  "Where one ppo_atari.ts iteration spends its tensor time.",
  "benchmark/profile_atari.ts",
);
await setupBackend(cli.backend, { quiet: true, cuda: false });
const atari = await import("../ppo_atari.ts");

/** Exclusive wall time per kernel name: each registered kernel of the backend is wrapped in a timer. */
const kernelMs = new Map<string, { ms: number; calls: number }>();
function instrumentKernels(backend: string): void {
  const stack: number[] = []; // time spent in nested kernels, per open frame
  for (const config of tf.getKernelsForBackend(backend)) {
    const inner = config.kernelFunc;
    tf.unregisterKernel(config.kernelName, backend);
    tf.registerKernel({
      ...config,
      kernelFunc: (args) => {
        stack.push(0);
        const t0 = performance.now();
        const out = inner(args);
        const total = performance.now() - t0;
        const nested = stack.pop()!;
        if (stack.length > 0) stack[stack.length - 1] += total;
        const inputs = Object.values(args.inputs);
        const shown = inputs
          .slice(0, 4)
          .map((t) => `[${t?.shape ?? ""}]`)
          .join(" ");
        const shapes = inputs.length > 4 ? `${shown} ... (${inputs.length} inputs)` : shown;
        const key = cli.shapes ? `${config.kernelName} ${shapes}` : config.kernelName;
        const e = kernelMs.get(key) ?? { ms: 0, calls: 0 };
        e.ms += total - nested;
        e.calls += 1;
        kernelMs.set(key, e);
        return out;
      },
    });
  }
}

const NUM_ENVS = 8;
const numSteps = cli.rolloutSteps;
const batchSize = NUM_ENVS * 128;
const minibatchSize = 256;
const OBS = 4 * 84 * 84;
const rng = manualSeed(1);
const agent = new atari.Agent(6);
const optimizer = adam(2.5e-4, 0.9, 0.999, 1e-5); // ppo_atari.ts's optimizer
const obs = Uint8Array.from({ length: batchSize * OBS }, () => Math.floor(rng.random() * 256));
const actions = Int32Array.from({ length: batchSize }, () => Math.floor(rng.random() * 6));
const floats = (scale: number) => Float32Array.from({ length: batchSize }, () => (rng.random() - 0.5) * scale);
const logprobs = Float32Array.from({ length: batchSize }, () => -Math.log(6) + (rng.random() - 0.5) * 0.1);
const advantages = floats(2);
const returns = floats(2);
const values = floats(2);
const lossArgs = { clipCoef: 0.1, normAdv: true, clipVloss: true, entCoef: 0.01, vfCoef: 0.5, maxGradNorm: 0.5 };

function rollout(steps: number): number {
  const t0 = performance.now();
  for (let s = 0; s < steps; s++) {
    const i = (s % 128) * NUM_ENVS;
    const x = nn.framesToInput(obs.subarray(i * OBS, (i + NUM_ENVS) * OBS), [4, 84, 84], "chw");
    tf.dispose(tf.tidy(() => agent.getActionAndValue(x)));
    x.dispose();
  }
  return performance.now() - t0;
}

/** The rollout's network inputs, one [8, 84, 84, 4] tensor per step, as ppo_atari.ts keeps them for the update. */
const stepInputs = Array.from({ length: 128 }, (_, s) =>
  nn.framesToInput(obs.subarray(s * NUM_ENVS * OBS, (s + 1) * NUM_ENVS * OBS), [4, 84, 84], "chw"),
);

function update(n: number): number {
  const inds = Int32Array.from({ length: minibatchSize }, () => 0);
  const t0 = performance.now();
  let bObs: tf.Tensor4D | null = null;
  for (let k = 0; k < n; k++) {
    // As in ppo_atari.ts: the rollout's inputs are concatenated once per iteration (16 minibatches), then gathered.
    if (k % 16 === 0) {
      bObs?.dispose();
      bObs = tf.concat(stepInputs) as tf.Tensor4D;
    }
    for (let j = 0; j < minibatchSize; j++) inds[j] = Math.floor(rng.random() * batchSize);
    const mb = tf.tidy(() => ({
      obs: tf.gather(bObs!, tf.tensor1d(inds, "int32")),
      actions: tf.tensor1d(
        Int32Array.from(inds, (b) => actions[b]),
        "int32",
      ),
      logprobs: tf.tensor1d(Float32Array.from(inds, (b) => logprobs[b])),
      advantages: tf.tensor1d(Float32Array.from(inds, (b) => advantages[b])),
      returns: tf.tensor1d(Float32Array.from(inds, (b) => returns[b])),
      values: tf.tensor1d(Float32Array.from(inds, (b) => values[b])),
    }));
    atari.updateStep(agent, optimizer, mb, lossArgs);
    tf.dispose(mb);
  }
  bObs?.dispose();
  return performance.now() - t0;
}

// Warm-up: XNNPACK builds its operators on first use, Adam creates its slots.
rollout(2);
update(1);
if (cli.kernels) instrumentKernels(tf.getBackend());
const tensorsBefore = tf.memory().numTensors;
// CPU time as well as wall time: on a shared machine wall time mostly measures the neighbours, while the CPU time
// of this (single-threaded on wasm) process is the work done.
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const c0 = cpuMs();
const rolloutMs = rollout(numSteps);
const c1 = cpuMs();
const updates = cli.minibatches;
const updateMs = update(updates);
const c2 = cpuMs();
console.log(`backend ${tf.getBackend()}; tensors before/after ${tensorsBefore}/${tf.memory().numTensors}`);
console.log(
  `rollout forward, ${NUM_ENVS} envs: ${(rolloutMs / numSteps).toFixed(2)} ms/step wall, ${((c1 - c0) / numSteps).toFixed(2)} ms/step CPU (${numSteps} steps)`,
);
console.log(
  `update, minibatch ${minibatchSize}: ${(updateMs / updates).toFixed(1)} ms/step wall, ${((c2 - c1) / updates).toFixed(1)} ms/step CPU (${updates} steps)`,
);
console.log(
  `one iteration's tensor work: ${((rolloutMs * 128) / numSteps / 1000 + (updateMs * 16) / updates / 1000).toFixed(2)} s`,
);
if (cli.kernels) {
  const total = [...kernelMs.values()].reduce((a, e) => a + e.ms, 0);
  console.log(`\nexclusive kernel time, rollout + update (${total.toFixed(0)} ms in kernels):`);
  for (const [name, e] of [...kernelMs].sort((a, b) => b[1].ms - a[1].ms)) {
    if (e.ms < 0.005 * total) continue;
    console.log(
      `  ${name.padEnd(cli.shapes ? 60 : 24)} ${e.ms.toFixed(0).padStart(7)} ms ${((100 * e.ms) / total).toFixed(1).padStart(5)}%  ${e.calls} calls`,
    );
  }
}
