// Round trips of the WebGPU path: how many compute dispatches, queue submits, CPU->GPU uploads and GPU->CPU
// readbacks one rollout step and one minibatch update of ppo_atari.ts (and one ppo_procgen.ts update) cost, and
// how long one readback takes.
//
//   npx tsx benchmark/webgpu_counters.ts                       # our kernels (envs/torch/webgpu/)
//   PPO_TS_WEBGPU_KERNELS=0 npx tsx benchmark/webgpu_counters.ts   # tfjs-backend-webgpu's own kernels
//   npx tsx benchmark/webgpu_counters.ts --minibatch 256 --impala-batch 256 --reps 20
//
// Counts come from wrapping the backend's own paths (tfjs-backend-webgpu 4.22): `recordAndSubmit` records one
// dispatch, `submitQueue` one queue submit, `uploadToGPU` of a tensor whose values are on the CPU one upload,
// `readSync`/`read` one readback. (Each dispatch also writes its small uniform buffer: not counted as an upload.) The
// rollout step is ppo_atari.ts's: framesToInput of 8 envs' frames, then Agent.sampleActionAndValue (one forward
// pass, one readback). The minibatch is updateStep (loss, backprop, global-norm clip, Adam) on --minibatch frames.
//
// Readback latency: a 1-element result of one small op read back, after the queue has drained, three ways:
//   readSync  dataSync(): envs/torch/backend.ts's readSync, which spins Node's event loop with deasync until Dawn maps
//             the staging buffer (what every variant uses)
//   read      await data(): tfjs's asynchronous read (Dawn's mapAsync promise, resolved between macrotasks)
//   poll      the same mapAsync, awaited with a setImmediate loop on the buffer's mapState (no deasync)
// The median over --reps of each, in microseconds. On a software adapter (lavapipe) these numbers are the CPU's,
// not a GPU's: there the script only shows that each way works.

import * as tf from "@tensorflow/tfjs";
import * as nn from "../envs/torch/nn.ts";

import { selectBackend } from "../envs/torch/backend.ts";
import { int, parseArgs } from "../envs/run/cli.ts";
import { handleExits, runMain } from "../envs/run/main.ts";
import { adam } from "../envs/torch/optim.ts";
import { RandomGenerator } from "../envs/torch/rng.ts";
import { webGpuKernelsActive } from "../envs/torch/webgpu/index.ts";
import * as ppoAtari from "../ppo_atari.ts";
import * as ppoProcgen from "../ppo_procgen.ts";

const ARGS = {
  numEnvs: int(8, "envs per rollout step (CleanRL's ppo_atari.py: 8)", { ge: 1 }),
  minibatch: int(256, "ppo_atari.ts minibatch for the update counts (CleanRL: 8 envs x 128 steps / 4)", { ge: 1 }),
  impalaBatch: int(64, "ppo_procgen.ts minibatch for its update counts (0: skip)", { ge: 0 }),
  reps: int(50, "readback latency samples per way", { ge: 1 }),
};
handleExits();
const cli = parseArgs(
  ARGS,
  "Dispatches, submits, uploads and readbacks per rollout step and minibatch on WebGPU; readback latency.",
  "benchmark/webgpu_counters.ts",
);

interface Counts {
  dispatches: number;
  submits: number;
  uploads: number;
  readbacks: number;
}

interface Hooked {
  recordAndSubmit(...a: unknown[]): unknown;
  submitQueue(): void;
  readSync(id: object): unknown;
  read(id: object): Promise<unknown>;
  uploadToGPU(id: object): void;
  queue: { onSubmittedWorkDone(): Promise<void> };
  tensorMap: { get(id: object): { resource: { size: number } | null; values: unknown } };
  bufferManager: { acquireBuffer(size: number, usage: number): GpuBuffer; releaseBuffer(b: GpuBuffer): void };
  commandEncoder: { copyBufferToBuffer(s: GpuBuffer, so: number, d: GpuBuffer, o: number, n: number): void };
  ensureCommandEncoderReady(): void;
  endComputePassEncoder(): void;
}
interface GpuBuffer {
  mapState: string;
  mapAsync(mode: number): Promise<void>;
  getMappedRange(): ArrayBuffer;
  unmap(): void;
}

/** Wraps the backend's dispatch, submit, upload and readback paths with counters. */
function hook(backend: Hooked): Counts {
  const c: Counts = { dispatches: 0, submits: 0, uploads: 0, readbacks: 0 };
  const wrap = <K extends keyof Hooked>(obj: Hooked, key: K, field: keyof Counts) => {
    const f = (obj[key] as (...a: unknown[]) => unknown).bind(obj);
    (obj as unknown as Record<string, unknown>)[key] = (...a: unknown[]) => {
      c[field]++;
      return f(...a);
    };
  };
  wrap(backend, "recordAndSubmit", "dispatches");
  wrap(backend, "submitQueue", "submits");
  wrap(backend, "readSync", "readbacks");
  wrap(backend, "read", "readbacks");
  const upload = backend.uploadToGPU.bind(backend);
  backend.uploadToGPU = (id: object) => {
    const d = backend.tensorMap.get(id);
    if (d.resource == null && d.values != null) c.uploads++;
    upload(id);
  };
  return c;
}

/** Counts of `f` (after one untimed call, which also compiles shaders), averaged over `n` calls. */
function countsOf(counts: Counts, n: number, f: () => void): Counts {
  f();
  const before = { ...counts };
  for (let i = 0; i < n; i++) f();
  const per = (k: keyof Counts) => Math.round(((counts[k] - before[k]) / n) * 10) / 10;
  return {
    dispatches: per("dispatches"),
    submits: per("submits"),
    uploads: per("uploads"),
    readbacks: per("readbacks"),
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** A readback through mapAsync, awaited by yielding to the event loop with setImmediate until it is mapped. */
async function pollRead(backend: Hooked, t: tf.Tensor): Promise<Float32Array> {
  const MAP_READ = 0x0001;
  const COPY_DST = 0x0008;
  backend.uploadToGPU(t.dataId);
  const src = backend.tensorMap.get(t.dataId).resource as unknown as GpuBuffer & { size: number };
  const staging = backend.bufferManager.acquireBuffer(src.size, COPY_DST | MAP_READ);
  backend.ensureCommandEncoderReady();
  backend.endComputePassEncoder();
  backend.commandEncoder.copyBufferToBuffer(src, 0, staging, 0, src.size);
  backend.submitQueue();
  staging.mapAsync(MAP_READ).catch(() => {});
  while (staging.mapState === "pending") await new Promise((r) => setImmediate(r));
  const out = new Float32Array(staging.getMappedRange().slice(0));
  staging.unmap();
  backend.bufferManager.releaseBuffer(staging);
  return out;
}

async function latencies(backend: Hooked): Promise<Record<string, number>> {
  // tfjs would compute a 1-element add on the CPU (WEBGPU_CPU_FORWARD) and nothing would be read back.
  tf.env().set("WEBGPU_CPU_FORWARD", false);
  const base = tf.tensor1d([1]);
  const ways: Record<string, (t: tf.Tensor) => Promise<number>> = {
    readSync: async (t) => t.dataSync()[0],
    read: async (t) => (await t.data())[0],
    poll: async (t) => (await pollRead(backend, t))[0],
  };
  const out: Record<string, number> = {};
  for (const [name, way] of Object.entries(ways)) {
    const samples: number[] = [];
    for (let i = 0; i < cli.reps + 3; i++) {
      const t = tf.add(base, i); // a fresh result on the GPU, never read before
      await backend.queue.onSubmittedWorkDone();
      const t0 = performance.now();
      const v = await way(t);
      const dt = performance.now() - t0;
      if (v !== 1 + i) throw new Error(`${name} read ${v}, expected ${1 + i}`);
      t.dispose();
      if (i >= 3) samples.push(dt * 1000);
    }
    out[name] = Math.round(median(samples));
  }
  base.dispose();
  return out;
}

async function main(): Promise<void> {
  const report = await selectBackend("webgpu");
  const backend = tf.backend() as unknown as Hooked;
  const counts = hook(backend);
  const rng = new RandomGenerator(1);
  const frames = (n: number, size: number) => Uint8Array.from({ length: n * size }, () => rng.integers(0, 256));
  console.log(`${report.line}; our kernels: ${webGpuKernelsActive() ? "on" : "off (PPO_TS_WEBGPU_KERNELS=0)"}`);

  const agent = new ppoAtari.Agent(4);
  const obs = frames(cli.numEnvs, 4 * 84 * 84);
  const rollout = countsOf(counts, 10, () => {
    const x = nn.framesToInput(obs, [4, 84, 84], "chw");
    tf.dispose(tf.tidy(() => agent.getActionAndValue(x)));
    x.dispose();
  });
  const opt = adam(2.5e-4, 0.9, 0.999, 1e-5);
  const n = cli.minibatch;
  const floats = (k: number, scale: number) => Float32Array.from({ length: k }, () => scale * rng.normal());
  const mb = {
    obs: nn.framesToInput(frames(n, 4 * 84 * 84), [4, 84, 84], "chw"),
    actions: tf.tensor1d(
      Int32Array.from({ length: n }, () => rng.integers(0, 4)),
      "int32",
    ),
    logprobs: tf.tensor1d(floats(n, 0.1).map((v) => v - 1.4)),
    advantages: tf.tensor1d(floats(n, 1)),
    returns: tf.tensor1d(floats(n, 1)),
    values: tf.tensor1d(floats(n, 1)),
  };
  const args = { clipCoef: 0.1, normAdv: true, clipVloss: true, entCoef: 0.01, vfCoef: 0.5, maxGradNorm: 0.5 };
  const update = countsOf(counts, 3, () => ppoAtari.updateStep(agent, opt, mb, args));
  const row = (what: string, c: Counts) =>
    `| ${what} | ${c.dispatches} | ${c.submits} | ${c.uploads} | ${c.readbacks} |`;
  const rows = [
    row(`ppo_atari.ts rollout step (${cli.numEnvs} envs)`, rollout),
    row(`ppo_atari.ts minibatch update (${n})`, update),
  ];
  if (cli.impalaBatch > 0) {
    const b = cli.impalaBatch;
    const procAgent = new ppoProcgen.Agent(15, rng);
    const procOpt = adam(5e-4, 0.9, 0.999, 1e-5);
    const data = {
      obs: frames(b, 64 * 64 * 3),
      actions: Int32Array.from({ length: b }, () => rng.integers(0, 15)),
      logprobs: floats(b, 0.1).map((v) => v - Math.log(15)),
      advantages: floats(b, 1),
      returns: floats(b, 1),
      values: floats(b, 1),
    };
    const inds = Int32Array.from({ length: b }, (_, i) => i);
    const c = countsOf(counts, 2, () =>
      ppoProcgen.updateStep(procAgent, procOpt, data, inds, { ...args, clipCoef: 0.2, gradChunkSize: 0 }),
    );
    rows.push(row(`ppo_procgen.ts minibatch update (${b}, one chunk)`, c));
  }
  console.log("| per | dispatches | submits | uploads | readbacks |\n|---|---|---|---|---|");
  console.log(rows.join("\n"));
  const lat = await latencies(backend);
  console.log(
    `readback latency of one 1-float result, median of ${cli.reps} (µs): ${Object.entries(lat)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
  );
}

await runMain(main);
