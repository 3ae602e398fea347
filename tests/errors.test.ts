// Failures a user can read (envs/run/main.ts, envs/run/cli.ts ranges, the NaN guard, interrupts), end to end: the variants
// run as child processes with tiny settings, as a user would run them, and their first stderr line and exit code
// are checked. Bad command lines that fail before anything is built are also checked in-process through each
// variant's exported `main(argv)`, which is cheap enough to cover every declared range.
import * as tf from "@tensorflow/tfjs";
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import * as gym from "../envs/gymnasium/index.ts";
import { setupBackend } from "../envs/torch/backend.ts";
import { UsageError } from "../envs/run/cli.ts";
import { readEventFile } from "../envs/run/logging.ts";
import { deserialize, toFloat32 } from "../envs/torch/safetensors.ts";
import { checkFinite, debugEnabled, errorLine, removeWasmExitHandlers } from "../envs/run/main.ts";
import { findFfmpeg } from "../envs/gymnasium/video.ts";
import { manualSeed } from "../envs/torch/rng.ts";
import * as ppo from "../ppo.ts";
import * as ppoAtari from "../ppo_atari.ts";
import * as ppoAtariLstm from "../ppo_atari_lstm.ts";
import * as ppoAtariMultigpu from "../ppo_atari_multigpu.ts";
import * as ppoPettingzoo from "../ppo_pettingzoo_ma_atari.ts";
import * as ppoProcgen from "../ppo_procgen.ts";
import * as ppoContinuous from "../ppo_continuous_action.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** A token of tfjs-backend-wasm's minified Emscripten source, which its Emscripten exit handlers print with an uncaught error unless main.ts handles the error first. */
const WASM_SOURCE_TOKEN = /WasmBackendModule|readyPromiseResolve/;

let workDir = "";
before(async () => {
  workDir = mkdtempSync(join(tmpdir(), "errors-test-"));
  await setupBackend("wasm", { quiet: true });
});
after(() => rmSync(workDir, { recursive: true, force: true }));

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  pid: number;
}

/** Starts `script` as a user would (`npx tsx script ...args`), in the temp dir, without the workplace's ROMs. */
function start(
  script: string,
  args: string[],
  env: Record<string, string> = {},
): { child: ChildProcess; done: Promise<Run>; stdout: () => string } {
  const child = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), join(ROOT, script), ...args], {
    cwd: workDir,
    env: { ...process.env, ALE_ROMS_DIR: "", DEBUG: "", ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  const done = new Promise<Run>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr, pid: child.pid! })),
  );
  return { child, done, stdout: () => stdout };
}

function run(script: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return start(script, args, env).done;
}

/** What every failing run must satisfy: no WASM module source and no absurdly long line anywhere in its output. */
function assertReadable(r: Run, what: string): void {
  const output = r.stdout + r.stderr;
  assert.doesNotMatch(output, WASM_SOURCE_TOKEN, `${what}: the WASM module's source was printed`);
  const longest = Math.max(...output.split("\n").map((l) => l.length));
  assert.ok(longest < 4000, `${what}: a ${longest}-character line`);
}

/**
 * The first line our code wrote to stderr. A self-built libtensorflow (benchmark/native_tf.sh) logs its start-up
 * through absl before anything else when tfjs-node loads (`WARNING: All log messages before absl::InitializeLog()
 * ...`, then glog-style `I0000 ...` lines); those are the native library's, not the script's, so they are skipped.
 */
function firstLine(stderr: string): string {
  const lines = stderr.split("\n");
  const ours = lines.find(
    (l) =>
      !/^WARNING: All log messages before absl::InitializeLog\(\)|^[IWEF]\d{4} |^To enable the following instructions/.test(
        l,
      ),
  );
  return ours ?? "";
}

// [script, args, expected first stderr line, exit code]. As child processes, the way a user runs them: every variant
// and benchmark entry point once (a flag out of its declared range, or a bad value), and ppo.ts's runtime failure
// after the wasm backend has started (whose Emscripten handlers would print the module's source).
const BAD_COMMAND_LINES: [string, string[], string | RegExp, number][] = [
  ["ppo.ts", ["--learning-rate=-1"], "error: --learning-rate must be greater than 0, got -1", 2],
  [
    "ppo.ts",
    ["--eval-checkpoint", "missing.json"],
    /^error: cannot read checkpoint missing\.json: no such file \(rerun with --debug for the stack trace\)$/,
    1,
  ],
  ["ppo_atari.ts", ["--gamma", "1.5"], "error: --gamma must be between 0 and 1, got 1.5", 2],
  ["ppo_continuous_action.ts", ["--clip-coef", "0"], "error: --clip-coef must be greater than 0, got 0", 2],
  ["ppo_atari_lstm.ts", ["--learning-rate", "NaN"], 'error: --learning-rate expects a number value, got "NaN"', 2],
  ["ppo_procgen.ts", ["--gamma", "2"], "error: --gamma must be between 0 and 1, got 2", 2],
  ["ppo_atari_multigpu.ts", ["--local-num-envs", "0"], "error: --local-num-envs must be at least 1, got 0", 2],
  ["ppo_pettingzoo_ma_atari.ts", ["--clip-coef", "0"], "error: --clip-coef must be greater than 0, got 0", 2],
  // Every benchmark entry point ends the same way.
  [
    "benchmark/run.ts",
    ["--script", "nope.ts"],
    "error: --script must be one of ppo.ts, ppo_continuous_action.ts, ppo_atari.ts, ppo_atari_lstm.ts, ppo_atari_multigpu.ts, ppo_procgen.ts, ppo_pettingzoo_ma_atari.ts",
    2,
  ],
  [
    "benchmark/memory.ts",
    ["--seeds", "1,a"],
    'error: --seeds expects comma-separated non-negative integers, got "1,a"',
    2,
  ],
  ["benchmark/backend_bench.ts", ["cnn", "--reps", "0"], "error: --reps must be at least 1, got 0", 2],
  ["benchmark/mujoco_throughput.ts", ["--steps", "ten"], 'error: --steps expects an integer value, got "ten"', 2],
  [
    "benchmark/atari_throughput.ts",
    ["--workers", "0"],
    'error: --workers expects comma-separated counts of at least 1, got "0"',
    2,
  ],
  ["benchmark/pettingzoo_throughput.ts", ["--seconds", "0"], "error: --seconds must be greater than 0, got 0", 2],
  [
    "benchmark/procgen.ts",
    ["--workers", "1,x"],
    'error: --workers expects comma-separated counts of at least 1, got "1,x"',
    2,
  ],
  [
    "benchmark/backends.ts",
    ["--only", "nope"],
    "error: unknown workload nope for --only (one of cnn-forward, cnn-update, impala-update, mlp-update, sps)",
    2,
  ],
  [
    "benchmark/procgen_contact_sheet.ts",
    ["--distribution-mode", "extreme"],
    'error: --distribution-mode must be easy or hard, got "extreme"',
    2,
  ],
  [
    "envs/run/torchrun.ts",
    ["--bogus", "ppo_atari_multigpu.ts"],
    "error: unknown flag --bogus (torchrun's flags come before the script; the script's after it)",
    2,
  ],
  [
    "benchmark/atari_random.ts",
    ["--rom-dir", "no-roms-here", "--episodes", "1"],
    /^error: ROM for "breakout" not found\. Searched: - no-roms-here/,
    1,
  ],
];

// The variants' other failures, in-process: `main(argv)` rejects with the error whose errorLine runMain prints
// (a UsageError exits 2, anything else 1; BAD_COMMAND_LINES checks that wiring for each variant as a child process):
// an env id whose spaces a variant does not support (refused before any env is built, MuJoCo included), and
// ppo_atari_lstm.ts's runtime failure.
const VARIANTS: Record<string, (argv: string[]) => Promise<void>> = {
  "ppo.ts": ppo.main,
  "ppo_atari.ts": ppoAtari.main,
  "ppo_continuous_action.ts": ppoContinuous.main,
  "ppo_atari_lstm.ts": ppoAtariLstm.main,
  "ppo_procgen.ts": ppoProcgen.main,
  "ppo_atari_multigpu.ts": ppoAtariMultigpu.main,
  "ppo_pettingzoo_ma_atari.ts": ppoPettingzoo.main,
};
const BAD_VARIANT_COMMAND_LINES: [string, string[], string | RegExp, number][] = [
  [
    "ppo.ts",
    ["--env-id", "Hopper-v4", "--total-timesteps", "2048"],
    "error: only discrete action space is supported; Hopper-v4 has a continuous action space (ppo_continuous_action.ts takes it)",
    2,
  ],
  [
    "ppo_atari.ts",
    ["--env-id", "CartPole-v1"],
    "error: only image observations are supported; CartPole-v1 has vector observations (ppo.ts takes it)",
    2,
  ],
  [
    "ppo_continuous_action.ts",
    ["--env-id", "BreakoutNoFrameskip-v4"],
    "error: only continuous action space is supported; BreakoutNoFrameskip-v4 has a discrete action space (ppo_atari.ts takes it)",
    2,
  ],
  [
    "ppo_atari_lstm.ts",
    ["--env-id", "Hopper-v4"],
    "error: only discrete action space is supported; Hopper-v4 has a continuous action space (ppo_continuous_action.ts takes it)",
    2,
  ],
  [
    "ppo_atari_lstm.ts",
    ["--eval-checkpoint", "missing.json"],
    /^error: cannot read checkpoint missing\.json: no such file \(rerun with --debug/,
    1,
  ],
  ["ppo_procgen.ts", ["--env-id", "CartPole-v1"], /^error: unknown procgen game "CartPole-v1"/, 2],
  [
    "ppo_atari_multigpu.ts",
    ["--env-id", "CartPole-v1"],
    "error: only image observations are supported; CartPole-v1 has vector observations (ppo.ts takes it)",
    2,
  ],
  [
    "ppo_pettingzoo_ma_atari.ts",
    ["--env-id", "pong_v9"],
    /^error: unknown --env-id pong_v9; did you mean pong_v3, /,
    2,
  ],
];

test("bad command lines and failures end each variant and benchmark script with one error line and exit 2 (usage) or 1 (runtime)", async () => {
  // Two at a time: the runs are short, and the suite shares two cores.
  const queue = [...BAD_COMMAND_LINES];
  const check = async () => {
    for (let item = queue.shift(); item; item = queue.shift()) {
      const [script, args, first, code] = item;
      const what = `${script} ${args.join(" ")}`;
      const r = await run(script, args);
      const line = firstLine(r.stderr);
      if (typeof first === "string") assert.equal(line, first, what);
      else assert.match(line, first, what);
      assert.equal(r.code, code, `${what}: exit ${r.code}\n${r.stderr}`);
      assert.doesNotMatch(r.stderr, /^\s+at /m, `${what}: a stack trace without --debug`);
      assertReadable(r, what);
    }
  };
  await Promise.all([check(), check()]);
});

test("the variants' other bad command lines and failures reject with the error runMain prints as one line, exit 2 (usage) or 1 (runtime)", async () => {
  for (const [script, args, first, code] of BAD_VARIANT_COMMAND_LINES) {
    const what = `${script} ${args.join(" ")}`;
    await assert.rejects(VARIANTS[script](args), (e: Error) => {
      const line = errorLine(e);
      if (typeof first === "string") assert.equal(line, first, what);
      else assert.match(line, first, what);
      assert.equal(e instanceof UsageError ? 2 : 1, code, `${what}: ${e}`);
      return true;
    });
  }
});

test("--debug (or DEBUG=1) adds the stack trace after the error line", async () => {
  const r = await run("ppo.ts", ["--eval-checkpoint", "missing.json", "--debug"]);
  assert.equal(r.code, 1);
  assert.match(firstLine(r.stderr), /^error: cannot read checkpoint missing\.json/);
  assert.match(r.stderr, /^\s+at .*ppo\.ts/m);
  assertReadable(r, "--debug");
  assert.equal(debugEnabled([], { DEBUG: "1" }), true);
  assert.equal(debugEnabled([], { DEBUG: "0" }), false);
  assert.equal(debugEnabled(["--debug"], {}), true);
  assert.equal(debugEnabled([], {}), false);
});

// In-process: each variant's `main(argv)` throws the UsageError that runMain prints, before building anything.
const RANGE_VIOLATIONS: [string, RegExp][] = [
  ["--learning-rate=0", /--learning-rate must be greater than 0, got 0/],
  ["--gamma=-0.1", /--gamma must be between 0 and 1, got -0.1/],
  ["--gae-lambda=1.01", /--gae-lambda must be between 0 and 1, got 1.01/],
  ["--clip-coef=-0.2", /--clip-coef must be greater than 0, got -0.2/],
  ["--ent-coef=-0.01", /--ent-coef must be at least 0, got -0.01/],
  ["--vf-coef=-1", /--vf-coef must be at least 0, got -1/],
  ["--max-grad-norm=0", /--max-grad-norm must be greater than 0, got 0/],
  ["--target-kl=0", /--target-kl must be greater than 0, got 0/],
  ["--total-timesteps=0", /--total-timesteps must be at least 1, got 0/],
  ["--num-envs=0", /--num-envs must be at least 1, got 0/],
  ["--num-steps=-4", /--num-steps must be at least 1, got -4/],
  ["--num-minibatches=0", /--num-minibatches must be at least 1, got 0/],
  ["--update-epochs=0", /--update-epochs must be at least 1, got 0/],
  ["--eval-episodes=0", /--eval-episodes must be at least 1, got 0/],
  ["--seed=-1", /--seed must be at least 0, got -1/],
  ["--learning-rate=Infinity", /--learning-rate expects a number value, got "Infinity"/],
];

for (const [name, variant] of [
  ["ppo.ts", ppo],
  ["ppo_atari.ts", ppoAtari],
  ["ppo_continuous_action.ts", ppoContinuous],
  ["ppo_atari_lstm.ts", ppoAtariLstm],
  ["ppo_procgen.ts", ppoProcgen],
  ["ppo_pettingzoo_ma_atari.ts", ppoPettingzoo],
] as const) {
  test(`${name} rejects every out-of-range flag value with a UsageError naming the flag and its range`, async () => {
    for (const [arg, message] of RANGE_VIOLATIONS) {
      await assert.rejects(variant.main([arg]), (e: Error) => e instanceof UsageError && message.test(e.message), arg);
    }
  });
}

test("an error line folds a multi-line message and hints at --debug only for unexpected errors", () => {
  assert.equal(errorLine(new UsageError("bad\n  flag")), "error: bad flag");
  assert.equal(errorLine(new Error("boom")), "error: boom (rerun with --debug for the stack trace)");
  assert.equal(errorLine("thrown string"), "error: thrown string (rerun with --debug for the stack trace)");
});

test("the NaN guard names the first non-finite metric and the iteration, after saving when asked", () => {
  let saved = 0;
  const save = () => {
    saved++;
    return "runs/x/agent.json";
  };
  checkFinite([1, 2, 3], ["a", "b", "c"], 5, save);
  assert.equal(saved, 0);
  assert.throws(
    () => checkFinite([1, Infinity, NaN], ["a", "b", "c"], 12, save),
    /^TrainingError: non-finite b \(Infinity\) at iteration 12: .*saved in runs\/x\/agent\.json/,
  );
  assert.equal(saved, 1);
  assert.throws(
    () => checkFinite([NaN], ["policy_loss"], 3, null),
    (e: Error) => !e.message.includes("saved"),
  );
});

test("updateStep skips a step whose loss or gradient is not finite, leaving the parameters as they were", () => {
  manualSeed(1);
  const agent = new ppo.Agent(3, 2);
  const optimizer = tf.train.adam(2.5e-4, 0.9, 0.999, 1e-5);
  const before = agent.parameters().map((p) => Array.from(p.dataSync()));
  const mb = {
    obs: tf.randomNormal([4, 3]) as tf.Tensor2D,
    actions: tf.tensor1d([0, 1, 1, 0], "int32"),
    logprobs: tf.tensor1d([-0.7, -0.7, -0.7, -0.7]),
    advantages: tf.tensor1d([1, -1, 2, 0.5]),
    returns: tf.tensor1d([1, NaN, 3, 4]), // e.g. an env that returned a NaN reward
    values: tf.tensor1d([0, 0, 0, 0]),
  };
  const stats = ppo.updateStep(agent, optimizer, mb, {
    clipCoef: 0.2,
    normAdv: true,
    clipVloss: true,
    entCoef: 0.01,
    vfCoef: 0.5,
    maxGradNorm: 0.5,
  });
  tf.dispose(mb);
  assert.ok(Number.isNaN(stats[1]), "value_loss should be NaN");
  assert.ok(Number.isNaN(stats[6]), "the gradient norm should be NaN");
  assert.deepEqual(
    agent.parameters().map((p) => Array.from(p.dataSync())),
    before,
  );
});

test("a diverging run stops with one line naming the metric and iteration, and saves the last finite agent (no --save-model needed)", async () => {
  // Adam's first step moves every weight by about the learning rate: at 1e30 the next losses overflow.
  const r = await run("ppo.ts", [
    "--learning-rate",
    "1e30",
    "--num-steps",
    "64",
    "--total-timesteps",
    "4096",
    "--exp-name",
    "nan_guard",
  ]);
  const line = firstLine(r.stderr);
  assert.match(
    line,
    /^error: non-finite (policy_loss|value_loss|entropy|old_approx_kl|approx_kl|clipfrac|grad_norm) \((NaN|-?Infinity)\) at iteration \d+: training stopped; the agent after iteration \d+ is saved in (\S+\.safetensors)\. Try a lower --learning-rate/,
  );
  assert.equal(r.code, 1);
  assertReadable(r, "NaN guard");
  const model = join(workDir, line.match(/saved in (\S+\.safetensors)\./)![1]);
  const { tensors } = deserialize(readFileSync(model));
  assert.ok(
    [...tensors.values()].every((t) => toFloat32(t).every(Number.isFinite)),
    "the saved agent has non-finite weights",
  );
  // The event file was flushed and closed on the way out.
  const runDir = readdirSync(join(workDir, "runs")).find((d) => d.includes("__nan_guard__"))!;
  const eventFile = readdirSync(join(workDir, "runs", runDir)).find((f) => f.startsWith("events.out.tfevents."))!;
  assert.ok(readEventFile(join(workDir, "runs", runDir, eventFile)).some((e) => e.tag === "charts/episodic_return"));
});

/** Pids of processes whose command line mentions `marker` (the run's unique --exp-name): its children, if any. */
function processesMentioning(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker)) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/**
 * Runs `script` until it has logged one SPS line (training is under way), then sends `signal`. On the single-thread
 * WASM module (PPO_TS_WASM_THREADS=1, as the MLP variants use anyway): its start-up is ~1.5 CPU s cheaper than the
 * threaded one's 8 pthread workers, and what is checked is the closing of the env workers and the writers.
 */
async function interrupt(script: string, args: string[], signal: NodeJS.Signals, expName: string): Promise<Run> {
  const started = start(script, ["--exp-name", expName, "--total-timesteps", "10000000", ...args], {
    PPO_TS_WASM_THREADS: "1",
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (/SPS: \d+/.test(started.stdout())) {
        clearInterval(timer);
        resolve();
      }
    }, 50);
    started.done.then((r) => {
      clearInterval(timer);
      reject(new Error(`${script} ended before training: ${r.code}\n${r.stderr}`));
    });
  });
  started.child.kill(signal);
  return started.done;
}

function eventFileOf(expName: string): string {
  const runDir = readdirSync(join(workDir, "runs")).find((d) => d.includes(`__${expName}__`));
  assert.ok(runDir, `no runs/*__${expName}__*`);
  const eventFile = readdirSync(join(workDir, "runs", runDir)).find((f) => f.startsWith("events.out.tfevents."));
  assert.ok(eventFile, `no event file in runs/${runDir}`);
  return join(workDir, "runs", runDir, eventFile);
}

test("SIGINT stops ppo_atari.ts with exit 130, its env workers closed and its event file complete", async () => {
  const ffmpeg = findFfmpeg().ffmpeg !== null;
  const r = await interrupt(
    "ppo_atari.ts",
    [
      "--env-id",
      "MemoryCue-v0",
      "--num-envs",
      "2",
      "--num-steps",
      "16",
      "--num-minibatches",
      "2",
      "--update-epochs",
      "1",
      ...(ffmpeg ? ["--capture-video"] : []),
    ],
    "SIGINT",
    "sigint_test",
  );
  assert.equal(r.code, 130, r.stderr);
  assert.match(r.stderr, /SIGINT: closing the envs and writers/);
  assert.doesNotMatch(r.stderr, /error:/);
  assertReadable(r, "SIGINT");
  const events = readEventFile(eventFileOf("sigint_test"));
  assert.ok(
    events.some((e) => e.tag === "charts/SPS"),
    "the last iteration's scalars are missing",
  );
  assert.deepEqual(processesMentioning("sigint_test"), [], "a process of the run is still alive");
  // With ffmpeg, the video being recorded was finished by closing the envs, not abandoned.
  if (ffmpeg)
    assert.ok(
      readdirSync(join(workDir, "videos")).some(
        (d) => d.includes("sigint_test") && readdirSync(join(workDir, "videos", d)).some((f) => f.endsWith(".mp4")),
      ),
    );
});

test("SIGTERM stops ppo.ts with exit 143 and its event file complete", async () => {
  const r = await interrupt("ppo.ts", ["--num-steps", "64"], "SIGTERM", "sigterm_test");
  assert.equal(r.code, 143, r.stderr);
  assert.match(r.stderr, /SIGTERM: closing the envs and writers/);
  assertReadable(r, "SIGTERM");
  assert.ok(readEventFile(eventFileOf("sigterm_test")).some((e) => e.tag === "charts/SPS"));
  assert.deepEqual(processesMentioning("sigterm_test"), []);
});

test("the wasm backend leaves no process handler of its Emscripten module behind", () => {
  assert.equal(tf.getBackend(), "wasm");
  const sources = [...process.listeners("uncaughtException"), ...process.listeners("unhandledRejection")].map((l) =>
    Function.prototype.toString.call(l),
  );
  assert.ok(!sources.some((s) => /ExitStatus|throw reason/.test(s)), "an Emscripten handler is still installed");
  assert.equal(removeWasmExitHandlers(), 0);
});

test("every env id that declares its space kinds has exactly those spaces when built", async () => {
  await gym.mujoco.init();
  let checked = 0;
  for (const id of gym.registeredIds()) {
    const kinds = gym.spaceKinds(id);
    // Atari games need their ROM to be built; MemoryCue-v0 stands for their kinds (a Discrete, an RGB frame). The
    // dm_control dog needs dm_control's own files; the other dm_control ids stand for its kinds.
    if (kinds === null || id.includes("NoFrameskip") || id.startsWith("ALE/") || id.startsWith("dm_control/dog-"))
      continue;
    const env = gym.make(id);
    const action =
      env.actionSpace instanceof gym.spaces.Discrete
        ? "discrete"
        : env.actionSpace instanceof gym.spaces.Box && env.actionSpace.dtype.startsWith("float")
          ? "continuous"
          : "other";
    const observation =
      env.observationSpace instanceof gym.spaces.Box &&
      env.observationSpace.shape.length === 3 &&
      env.observationSpace.dtype === "uint8"
        ? "image"
        : // A Dict of Boxes (dm_control) is a vector once FlattenObservation has flattened it, as the variants do.
          env.observationSpace.shape.length === 1 || env.observationSpace instanceof gym.spaces.Dict
          ? "vector"
          : "other";
    env.close();
    assert.deepEqual({ action, observation }, kinds, id);
    checked++;
  }
  assert.ok(checked >= 20, `only ${checked} ids checked`);
});
