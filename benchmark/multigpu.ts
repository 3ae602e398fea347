// Data parallelism on this machine, measured side by side:
//
//   npx tsx benchmark/multigpu.ts --rom-dir /work/shared/roms [--env-id BreakoutNoFrameskip-v4] [--seed 1]
//                                 [--total-timesteps 3072] [--backend wasm] [--allreduce-only] [--skip-allreduce]
//                                 [--multi-first]
//
// 1. All-reduce throughput over loopback TCP for the Nature CNN's gradient (every parameter of ppo_atari.ts's Agent
//    for a 4-action game: 1,686,693 floats, 6.7 MB), with 2 and 3 processes: milliseconds per allReduce, and the
//    bandwidths NCCL's tests report: algbw = bytes / time, busbw = algbw × 2(W-1)/W (what each link carries).
// 2. SPS of `ppo_atari_multigpu.ts` with 2 ranks × 4 envs (under envs/run/torchrun.ts) against `ppo_atari.ts` with 8
//    envs: the same game, seed, global batch (8 × 128) and number of iterations, run one after the other. SPS is
//    each run's last `SPS:` line (global steps over wall time, as CleanRL prints it).

import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { type Socket, connect, createServer } from "node:net";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { bool, int, parseArgs, str, usageError } from "../envs/run/cli.ts";
import {
  allReduce,
  barrier,
  destroyProcessGroup,
  getRank,
  getWorldSize,
  initProcessGroup,
} from "../envs/torch/distributed.ts";
import { runMain } from "../envs/run/main.ts";
import { ROOT } from "./lib.ts";
import { freePort } from "../envs/run/torchrun.ts";

const SELF = fileURLToPath(import.meta.url);
const TSX = import.meta.resolve("tsx");
// conv 8x8x4x32, 4x4x32x64, 3x3x64x64, fc 3136x512, actor 512x4, critic 512x1, with their biases.
const NATURE_CNN_PARAMS =
  8 * 8 * 4 * 32 +
  32 +
  (4 * 4 * 32 * 64 + 64) +
  (3 * 3 * 64 * 64 + 64) +
  (3136 * 512 + 512) +
  (512 * 4 + 4) +
  (512 + 1);
const REPEATS = 30;

/** One rank of the all-reduce benchmark: warm up, then time REPEATS all-reduces; rank 0 prints ms per call. */
async function allReduceRank(): Promise<void> {
  await initProcessGroup();
  const buffer = new Float32Array(NATURE_CNN_PARAMS).fill(1);
  for (let i = 0; i < 3; i++) await allReduce(buffer);
  await barrier();
  const start = performance.now();
  for (let i = 0; i < REPEATS; i++) await allReduce(buffer);
  const ms = (performance.now() - start) / REPEATS;
  if (getRank() === 0) console.log(JSON.stringify({ worldSize: getWorldSize(), ms }));
  await destroyProcessGroup();
}

/**
 * The reference for 2 ranks: the same bytes over the same kind of socket with no framing, no reduction and no
 * bookkeeping. Each side sends half the buffer and waits for the other's half, twice (what the ring's
 * reduce-scatter and all-gather steps move at world size 2); rank 0 prints ms per pair of exchanges.
 */
async function rawExchangeRank(): Promise<void> {
  const rank = Number(process.env.RANK);
  const port = Number(process.env.MASTER_PORT);
  const half = Buffer.alloc((NATURE_CNN_PARAMS * 4) / 2, 1);
  const socket: Socket = await new Promise((resolve) => {
    if (rank === 0) {
      const server = createServer((s) => {
        server.close();
        resolve(s);
      });
      server.listen(port, "127.0.0.1");
    } else {
      const tryConnect = () => {
        const s = connect({ host: "127.0.0.1", port }, () => resolve(s));
        s.once("error", () => setTimeout(tryConnect, 50));
      };
      tryConnect();
    }
  });
  socket.setNoDelay(true);
  let received = 0;
  let exchanges = 0;
  let start = 0;
  await new Promise<void>((done) => {
    socket.on("data", (d: Buffer) => {
      received += d.length;
      while (received >= half.length) {
        received -= half.length;
        exchanges++;
        if (exchanges === 6) start = performance.now(); // after 3 warm-up pairs
        if (exchanges === 6 + 2 * REPEATS) {
          if (rank === 0) console.log(JSON.stringify({ worldSize: 2, ms: (performance.now() - start) / REPEATS }));
          socket.end();
          done();
          return;
        }
        socket.write(half);
      }
    });
    socket.write(half);
  });
}

async function allReduceBenchmark(
  worldSize: number,
  role = "allreduce",
): Promise<{ ms: number; algbw: number; busbw: number }> {
  const port = String(await freePort());
  const outputs = await Promise.all(
    Array.from({ length: worldSize }, (_, rank) => {
      const child = spawn(process.execPath, ["--import", TSX, SELF], {
        env: {
          ...process.env,
          MULTIGPU_BENCH_ROLE: role,
          RANK: String(rank),
          WORLD_SIZE: String(worldSize),
          MASTER_ADDR: "127.0.0.1",
          MASTER_PORT: port,
        },
        stdio: ["ignore", "pipe", "inherit"],
      });
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      return new Promise<string>((resolve, reject) =>
        child.on("close", (code) =>
          code === 0 ? resolve(out) : reject(new Error(`all-reduce rank ${rank} exited with ${code}`)),
        ),
      );
    }),
  );
  const { ms } = JSON.parse(outputs[0]);
  const algbw = (NATURE_CNN_PARAMS * 4) / (ms / 1000) / 1e9;
  return { ms, algbw, busbw: (algbw * 2 * (worldSize - 1)) / worldSize };
}

/** Runs a training command in a scratch directory; returns its last printed SPS and wall seconds. */
function trainingRun(args: string[], env: NodeJS.ProcessEnv = {}): { sps: number; seconds: number } {
  const cwd = mkdtempSync(join(tmpdir(), "multigpu-bench-"));
  const start = performance.now();
  const run = spawnSync(process.execPath, ["--import", TSX, ...args], {
    cwd,
    encoding: "utf8",
    maxBuffer: 64 << 20,
    env: { ...process.env, ...env },
  });
  const seconds = (performance.now() - start) / 1000;
  rmSync(cwd, { recursive: true, force: true });
  if (run.status !== 0) {
    const lines = run.stderr.trim().split("\n");
    throw new Error(
      `${args.join(" ")} exited ${run.status}: ${lines.find((l) => l.startsWith("error:")) ?? lines.at(-1) ?? ""}`,
    );
  }
  const sps = [...run.stdout.matchAll(/SPS: (\d+)/g)].map((m) => Number(m[1]));
  if (sps.length === 0) throw new Error(`${args.join(" ")} printed no SPS`);
  return { sps: sps[sps.length - 1], seconds };
}

const ARGS = {
  romDir: str(null, "the folder holding the Atari ROM images (required for the SPS comparison)"),
  envId: str("BreakoutNoFrameskip-v4", "the Atari game of the SPS comparison"),
  seed: int(1, "seed of both training runs", { ge: 0 }),
  totalTimesteps: int(3072, "steps of each training run (the global batch is 8 x 128 = 1024)", { ge: 1024 }),
  backend: str(
    "wasm",
    "tensor backend of both runs (wasm: the single process gets one thread per core, each of the 2 ranks one)",
  ),
  allreduceOnly: bool(false, "measure only the all-reduce"),
  skipAllreduce: bool(false, "measure only the SPS comparison"),
  multiFirst: bool(false, "run the 2-rank run first (to see whether the machine's load drifted)"),
};

async function main(): Promise<void> {
  const cli = parseArgs(
    ARGS,
    "Data parallelism on this machine: all-reduce bandwidth, and 2 ranks against one process, side by side.",
    "benchmark/multigpu.ts",
  );
  console.log(
    `machine: ${cpus().length} × ${cpus()[0]?.model ?? "CPU"}, node ${process.version}, ${new Date().toISOString()}`,
  );
  if (!cli.skipAllreduce) {
    console.log(
      `\nall-reduce of ${NATURE_CNN_PARAMS} floats (${((NATURE_CNN_PARAMS * 4) / 1e6).toFixed(2)} MB) over loopback TCP, mean of ${REPEATS}:`,
    );
    console.log("| ranks | ms per allReduce | algbw GB/s | busbw GB/s |\n|-|-|-|-|");
    for (const w of [2, 3]) {
      const r = await allReduceBenchmark(w);
      console.log(`| ${w} | ${r.ms.toFixed(2)} | ${r.algbw.toFixed(2)} | ${r.busbw.toFixed(2)} |`);
    }
    const raw = await allReduceBenchmark(2, "raw");
    console.log(
      `| 2, raw socket exchange of the same bytes (reference) | ${raw.ms.toFixed(2)} | ${raw.algbw.toFixed(2)} | ${raw.busbw.toFixed(2)} |`,
    );
  }
  if (cli.allreduceOnly) return;
  if (!cli.romDir) usageError("--rom-dir is required for the SPS comparison (or pass --allreduce-only)");
  const common = [
    "--env-id",
    cli.envId,
    "--seed",
    String(cli.seed),
    "--total-timesteps",
    String(cli.totalTimesteps),
    "--rom-dir",
    resolve(cli.romDir),
    "--backend",
    cli.backend,
  ];
  const single = ["ppo_atari.ts", "--num-envs", "8", ...common];
  const multi = [
    "envs/run/torchrun.ts",
    "--standalone",
    "--nnodes=1",
    "--nproc-per-node=2",
    "ppo_atari_multigpu.ts",
    "--local-num-envs",
    "4",
    ...common,
  ];
  console.log(`\n${cli.envId}, seed ${cli.seed}, ${cli.totalTimesteps} steps, global batch 8 × 128, back to back:`);
  console.log("| run | SPS | wall s |\n|-|-|-|");
  // On wasm the single process takes one XNNPACK thread per core and each rank cores / ranks (envs/torch/backend.ts), so
  // the single process also runs with one thread: the comparison the ranks were made for on a CPU.
  const singles: [string, NodeJS.ProcessEnv][] =
    cli.backend === "wasm"
      ? [
          ["", {}],
          ["PPO_TS_WASM_THREADS=1 ", { PPO_TS_WASM_THREADS: "1" }],
        ]
      : [["", {}]];
  const runSingle = (prefix: string, env: NodeJS.ProcessEnv) => {
    const r = trainingRun(
      single.map((x, i) => (i === 0 ? join(ROOT, x) : x)),
      env,
    );
    console.log(`| ${prefix}npx tsx ${single.join(" ")} | ${r.sps} | ${r.seconds.toFixed(0)} |`);
    return r;
  };
  const runMulti = () => {
    const r = trainingRun(multi.map((x, i) => (i === 0 || x === "ppo_atari_multigpu.ts" ? join(ROOT, x) : x)));
    console.log(`| npx tsx ${multi.join(" ")} | ${r.sps} | ${r.seconds.toFixed(0)} |`);
    return r;
  };
  // --multi-first swaps the order, to see whether the machine's load drifted between the runs.
  const multiFirst = cli.multiFirst ? runMulti() : null;
  const singleRuns = singles.map(([prefix, env]) => ({ prefix, r: runSingle(prefix, env) }));
  const b = multiFirst ?? runMulti();
  console.log("");
  for (const { prefix, r } of singleRuns) {
    console.log(
      `SPS ratio (2 ranks × 4 envs / 1 process × 8 envs${prefix === "" ? "" : `, ${prefix.trim()}`}): ${(b.sps / r.sps).toFixed(2)}×`,
    );
  }
}

if (process.env.MULTIGPU_BENCH_ROLE === "allreduce") await allReduceRank();
else if (process.env.MULTIGPU_BENCH_ROLE === "raw") await rawExchangeRank();
else await runMain(main);
