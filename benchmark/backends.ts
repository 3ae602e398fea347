// Backend benchmark: the same PPO workloads on every tensor backend that starts here.
//
//   npx tsx benchmark/backends.ts                                   # every backend, every workload
//   npx tsx benchmark/backends.ts --backends wasm,webgpu --only cnn-forward,mlp-update --reps 5
//   npx tsx benchmark/backends.ts --iterations 20 --rom-dir /work/shared/roms   # SPS on Breakout instead
//   npx tsx benchmark/backends.ts --torch /tmp/torch-venv/bin/python --cleanrl-dir /tmp/cleanrl   # and PyTorch's row
//
// Workloads (times are the mean over --reps runs after one warm-up run, which also compiles kernels/shaders):
//   cnn-forward    ppo_atari.ts's Nature CNN acting on 8 stacked-frame observations (CleanRL's 8 envs), readback
//                  and sampling included: one rollout step's network cost
//   cnn-update     one ppo_atari.ts updateStep (PPO loss, backprop, global-norm clip, Adam) on a minibatch of 256
//                  (CleanRL: 8 envs x 128 steps / 4 minibatches)
//   impala-update  one ppo_procgen.ts updateStep (IMPALA CNN) on a minibatch of --impala-batch (default 2048: 64 envs
//                  x 256 steps / 8 minibatches), its gradient summed over chunks of --grad-chunk-size (default: that of
//                  ppo_procgen.ts; 0: the whole minibatch at once, which exceeds WASM's memory at 1024 and more)
//   mlp-update     one ppo.ts updateStep on a minibatch of 128 (CartPole sizes)
//   sps            ppo_atari.ts end to end over --iterations iterations (default 20) of 8 envs x 128 steps: the last
//                  SPS it prints. On Breakout with --rom-dir, else on MemoryCue-v0 (ROM-free, same wrapper stack and
//                  network; its env step is cheaper than an emulated Atari frame)
// With --torch PYTHON the table gains PyTorch's row: benchmark/backends_torch.py runs the same workloads with CleanRL's
// networks and update in that Python (which needs torch; for sps also gymnasium, ale-py and --cleanrl-dir, a folder
// with CleanRL's ppo_atari.py). Torch's threads spin-wait: on a machine with other work running its numbers collapse
// (a Nature-CNN forward 4 ms alone, 144 ms beside one busy process), so measure on an otherwise idle machine.
// Each backend runs in its own child process (a process holds one native TensorFlow, and nothing is shared).
// The cpu backend (plain JS kernels) takes minutes per CNN update, so it only runs cnn-forward and mlp-update unless
// --slow-cpu is given. A backend that cannot start is listed with the reason.

import * as tf from "@tensorflow/tfjs";
import * as nn from "../envs/torch/nn.ts";
import { spawnSync } from "node:child_process";
import { join } from "node:path";

import { BackendUnavailableError, selectBackend, type BackendChoice } from "../envs/torch/backend.ts";
import { bool, int, parseArgs, str, usageError } from "../envs/run/cli.ts";
import { handleExits, runMain } from "../envs/run/main.ts";
import { adam } from "../envs/torch/optim.ts";
import { RandomGenerator, manualSeed } from "../envs/torch/rng.ts";
import * as ppo from "../ppo.ts";
import * as ppoAtari from "../ppo_atari.ts";
import * as ppoProcgen from "../ppo_procgen.ts";
import { ROOT } from "./lib.ts";

const WORKLOADS = ["cnn-forward", "cnn-update", "impala-update", "mlp-update", "sps"] as const;
type Workload = (typeof WORKLOADS)[number];
const CPU_BEARABLE: Workload[] = ["cnn-forward", "mlp-update"];

const ARGS = {
  backends: str("webgpu,tensorflow,wasm,cpu", "comma-separated backends, each measured in its own child process"),
  only: str(WORKLOADS.join(","), `comma-separated workloads: ${WORKLOADS.join(", ")}`),
  reps: int(3, "timed repetitions per workload (after one warm-up)", { ge: 1 }),
  iterations: int(20, "ppo_atari.ts iterations for the sps workload", { ge: 1 }),
  impalaBatch: int(2048, "IMPALA-CNN minibatch for impala-update (CleanRL's ppo_procgen.py: 2048)", { ge: 1 }),
  gradChunkSize: int(ppoProcgen.ARGS.gradChunkSize.default, "ppo_procgen.ts's --grad-chunk-size for impala-update", {
    ge: 0,
  }),
  romDir: str(null, "Atari ROMs for the sps workload (else ALE_ROMS_DIR; MemoryCue-v0 without them)"),
  slowCpu: bool(false, "also run the CNN updates on the cpu backend (minutes each)"),
  torch: str(
    null,
    "a Python with torch: add PyTorch's row (benchmark/backends_torch.py, CleanRL's networks and update)",
  ),
  cleanrlDir: str(null, "with --torch: a folder with CleanRL's ppo_atari.py, run for the sps workload"),
  child: str(null, "internal: measure this one backend and print one JSON line"),
};
handleExits(); // a bad command line below is one `error:` line and exit 2, like every script
const cli = parseArgs(ARGS, "Backend benchmark: each workload on each available backend.", "benchmark/backends.ts");
const reps = cli.reps;
const only = cli.only.split(",") as Workload[];

/** Mean wall time of `f` in ms over `n` runs after one warm-up run. */
function time(n: number, f: () => void): number {
  f();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) f();
  return (performance.now() - t0) / n;
}

const LOSS_ARGS = { clipCoef: 0.1, normAdv: true, clipVloss: true, entCoef: 0.01, vfCoef: 0.5, maxGradNorm: 0.5 };

/** Synthetic minibatch fields for n samples (values do not matter for speed, only that they are finite). */
function rolloutFields(n: number, rng: RandomGenerator) {
  const f = (scale: number) => tf.tensor1d(Float32Array.from({ length: n }, () => scale * rng.normal()));
  return { logprobs: tf.add(f(0.1), -1.4) as tf.Tensor1D, advantages: f(1), returns: f(1), values: f(1) };
}

const frames = (n: number, rng: RandomGenerator) =>
  Uint8Array.from({ length: n * 4 * 84 * 84 }, () => rng.integers(0, 256));

function cnnForward(): number {
  const rng = manualSeed(1);
  const agent = new ppoAtari.Agent(4);
  const obs = frames(8, rng);
  // The rollout step of ppo_atari.ts: bytes from the envs converted to the network input, then sampled.
  return time(reps, () => {
    const x = nn.framesToInput(obs, [4, 84, 84], "chw");
    tf.dispose(tf.tidy(() => agent.getActionAndValue(x)));
    x.dispose();
  });
}

function cnnUpdate(): number {
  const rng = manualSeed(2);
  const agent = new ppoAtari.Agent(4);
  const opt = adam(2.5e-4, 0.9, 0.999, 1e-5);
  const mb = {
    obs: nn.framesToInput(frames(256, rng), [4, 84, 84], "chw"), // ppo_atari.ts's update takes its scaled NHWC float frames
    actions: tf.tensor1d(
      Int32Array.from({ length: 256 }, () => rng.integers(0, 4)),
      "int32",
    ),
    ...rolloutFields(256, rng),
  };
  return time(reps, () => ppoAtari.updateStep(agent, opt, mb, LOSS_ARGS));
}

function mlpUpdate(): number {
  const rng = manualSeed(3);
  const agent = new ppo.Agent(4, 2);
  const opt = adam(2.5e-4, 0.9, 0.999, 1e-5);
  const mb = {
    obs: tf.tensor2d(
      Float32Array.from({ length: 128 * 4 }, () => rng.normal()),
      [128, 4],
    ),
    actions: tf.tensor1d(
      Int32Array.from({ length: 128 }, () => rng.integers(0, 2)),
      "int32",
    ),
    ...rolloutFields(128, rng),
  };
  return time(Math.max(reps, 20), () => ppo.updateStep(agent, opt, mb, LOSS_ARGS));
}

/**
 * One ppo_procgen.ts updateStep (IMPALA CNN: PPO loss, backprop over --grad-chunk-size chunks, global-norm clip,
 * Adam) on a minibatch of `batch` random frames.
 */
function impalaUpdate(batch: number, gradChunkSize: number): number {
  const rng = new RandomGenerator(4);
  const agent = new ppoProcgen.Agent(15, rng);
  const opt = adam(5e-4, 0.9, 0.999, 1e-5);
  const floats = (scale: number, offset = 0) =>
    Float32Array.from({ length: batch }, () => offset + scale * rng.normal());
  const data = {
    obs: Uint8Array.from({ length: batch * 64 * 64 * 3 }, () => rng.integers(0, 256)),
    actions: Int32Array.from({ length: batch }, () => rng.integers(0, 15)),
    logprobs: floats(0.1, -Math.log(15)),
    advantages: floats(1),
    returns: floats(1),
    values: floats(1),
  };
  const inds = Int32Array.from({ length: batch }, (_, i) => i);
  return time(reps, () =>
    ppoProcgen.updateStep(agent, opt, data, inds, { ...LOSS_ARGS, clipCoef: 0.2, gradChunkSize }),
  );
}

/** ppo_atari.ts end to end in its own process; returns the last SPS it printed. */
function spsRun(backend: string): number | string {
  const iterations = cli.iterations;
  const romDir = cli.romDir ?? undefined;
  const args = [
    "--import",
    "tsx",
    "ppo_atari.ts",
    "--backend",
    backend,
    "--num-envs",
    "8",
    "--num-steps",
    "128",
    "--total-timesteps",
    String(iterations * 8 * 128),
    "--exp-name",
    "backends_bench",
  ];
  args.push(...(romDir ? ["--env-id", "BreakoutNoFrameskip-v4", "--rom-dir", romDir] : ["--env-id", "MemoryCue-v0"]));
  const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: "utf8" });
  const sps = [...r.stdout.matchAll(/^SPS: (\d+)/gm)].pop();
  if (r.status !== 0 || sps == null) return `failed (${(r.stderr.trim().split("\n").pop() ?? "").slice(0, 80)})`;
  return Number(sps[1]);
}

async function child(backend: BackendChoice): Promise<void> {
  let label: string;
  try {
    label = (await selectBackend(backend)).line.replace(/^backend: /, "");
  } catch (err) {
    if (!(err instanceof BackendUnavailableError)) throw err;
    console.log(JSON.stringify({ backend, label: `unavailable: ${err.message}`, results: {} }));
    return;
  }
  const results: Partial<Record<Workload, number | string>> = {};
  for (const w of only) {
    if (backend === "cpu" && !cli.slowCpu && !CPU_BEARABLE.includes(w)) {
      results[w] = "skipped (minutes per step; --slow-cpu)";
      continue;
    }
    try {
      if (w === "cnn-forward") results[w] = cnnForward();
      else if (w === "cnn-update") results[w] = cnnUpdate();
      else if (w === "impala-update") results[w] = impalaUpdate(cli.impalaBatch, cli.gradChunkSize);
      else if (w === "mlp-update") results[w] = mlpUpdate();
      else results[w] = spsRun(backend);
    } catch (err) {
      results[w] = `throws: ${String((err as Error).message)
        .split("\n")[0]
        .slice(0, 80)}`;
    }
    process.stderr.write(`  ${backend} ${w}: ${results[w]}\n`);
  }
  console.log(JSON.stringify({ backend, label, results }));
}

function cell(v: number | string | undefined, w: Workload): string {
  if (v == null) return "";
  if (typeof v === "string") return v;
  return w === "sps" ? `${v} SPS` : `${v.toFixed(v < 10 ? 2 : 0)} ms`;
}

async function main(): Promise<void> {
  for (const w of only)
    if (!WORKLOADS.includes(w)) usageError(`unknown workload ${w} for --only (one of ${WORKLOADS.join(", ")})`);
  if (cli.child) return child(cli.child as BackendChoice);
  const header = [
    "backend",
    ...only.map((w) =>
      w === "impala-update"
        ? `impala-update (batch ${cli.impalaBatch}, chunks of ${cli.gradChunkSize})`
        : w === "sps"
          ? `sps (${cli.iterations} it.)`
          : w,
    ),
  ];
  const rows: string[][] = [];
  for (const backend of cli.backends.split(",")) {
    process.stderr.write(`${backend}...\n`);
    const argv = [...process.argv.slice(1).filter((a) => !a.startsWith("--child")), "--child", backend];
    const r = spawnSync(process.execPath, [...process.execArgv, ...argv], {
      cwd: ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
    const line = r.stdout
      .trim()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .pop();
    if (line == null) {
      rows.push([backend, `child failed (exit ${r.status})`]);
      continue;
    }
    const { label, results } = JSON.parse(line) as { label: string; results: Record<string, number | string> };
    rows.push([label, ...only.map((w) => cell(results[w], w))]);
  }
  if (cli.torch != null) {
    process.stderr.write("torch...\n");
    const args = [
      join(ROOT, "benchmark", "backends_torch.py"),
      "--only",
      only.join(","),
      "--reps",
      String(reps),
      "--impala-batch",
      String(cli.impalaBatch),
      "--iterations",
      String(cli.iterations),
    ];
    if (cli.cleanrlDir != null) args.push("--cleanrl-dir", cli.cleanrlDir);
    const r = spawnSync(cli.torch, args, { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
    const line = (r.stdout ?? "")
      .trim()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .pop();
    if (line == null)
      rows.push([`torch (${cli.torch})`, `failed (exit ${r.status}${r.error ? `: ${r.error.message}` : ""})`]);
    else {
      const { label, results } = JSON.parse(line) as { label: string; results: Record<string, number | string> };
      rows.push([label, ...only.map((w) => cell(results[w], w))]);
    }
  }
  console.log(`| ${header.join(" | ")} |\n|${header.map(() => "---").join("|")}|`);
  for (const row of rows) console.log(`| ${row.join(" | ")} |`);
}

await runMain(main);
