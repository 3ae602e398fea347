// The run plumbing every variant calls (envs/run/run.ts), driven through ppo.ts on CartPole-v1 with tiny sizes in a
// scratch folder: --resume refuses what it cannot honour and continues in a new folder, one folder per run, the
// guard keeps a usable agent, interrupted writes are cleaned up, and the smaller usage errors. A refusal is checked
// in-process as the error runMain (envs/run/main.ts) prints: its one line, and its exit code (a UsageError exits
// 2, anything else 1); and every file that existed before the command must be byte-identical afterwards.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import * as gym from "../envs/gymnasium/index.ts";
import { alePyRomDir } from "../envs/ale/roms.ts";
import { UsageError } from "../envs/run/cli.ts";
import { readRunDir } from "../envs/run/logging.ts";
import { errorLine } from "../envs/run/main.ts";
import { setupBackend } from "../envs/torch/backend.ts";
import { deserialize, serialize, toFloat32 } from "../envs/torch/safetensors.ts";
import * as ppo from "../ppo.ts";
import * as ppoAtari from "../ppo_atari.ts";
import * as ppoContinuous from "../ppo_continuous_action.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** 2 envs × 8 steps a batch: an iteration is 16 steps. */
const SMALL = ["--backend", "cpu", "--num-envs", "2", "--num-steps", "8", "--num-minibatches", "2"];
const SMALL_UPDATE = [...SMALL, "--update-epochs", "1"];

let workDir = "";
const startDir = process.cwd();
/** The finished run every resume and evaluation below starts from: 4 iterations, a checkpoint after each. */
let finished = "";

/** Runs `main(argv)` with its console lines collected instead of printed; returns them. */
async function quietly(argv: string[], main: (argv: string[]) => Promise<void> = ppo.main): Promise<string[]> {
  const lines: string[] = [];
  const log = console.log;
  console.log = (...parts: unknown[]) => lines.push(parts.join(" "));
  try {
    await main(argv);
  } finally {
    console.log = log;
  }
  return lines;
}

/** The line runMain prints for the error `main(argv)` rejects with, and the exit code it gives. */
async function refusal(
  argv: string[],
  main: (argv: string[]) => Promise<void> = ppo.main,
): Promise<{ line: string; code: number; name: string }> {
  let error: unknown = null;
  try {
    await quietly(argv, main);
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof Error, `${argv.join(" ")}: did not fail`);
  const line = errorLine(error);
  assert.ok(!line.includes("\n"), line);
  return { line, code: error instanceof UsageError ? 2 : 1, name: error.name };
}

/** Every file under `dir` (relative path) with the sha256 of its bytes. */
function snapshot(dir = workDir): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else files.set(relative(dir, full), createHash("sha256").update(readFileSync(full)).digest("hex"));
    }
  };
  walk(dir);
  return files;
}

/** Every file of `before` is still there with the same bytes (new files may have appeared beside them). */
function assertUntouched(before: Map<string, string>, after = snapshot()): void {
  for (const [file, hash] of before) {
    assert.ok(after.has(file), `${file} was removed`);
    assert.equal(after.get(file), hash, `${file} was rewritten`);
  }
}

/** The run folders under runs/, sorted. */
function runFolders(): string[] {
  return existsSync("runs") ? readdirSync("runs").sort() : [];
}

/** `runs/<finished>/checkpoints/iteration_0000000<n>.safetensors`. */
function checkpointOf(iteration: number): string {
  return join("runs", finished, "checkpoints", `iteration_${String(iteration).padStart(8, "0")}.safetensors`);
}

/** The tensors and metadata of a safetensors file, with `edit` applied, written to `file` (a checkpoint made by hand). */
function rewrite(
  from: string,
  file: string,
  edit: (tensors: ReturnType<typeof deserialize>["tensors"], metadata: Record<string, string>) => void,
): string {
  const { tensors, metadata } = deserialize(readFileSync(from));
  edit(tensors, metadata);
  mkdirSync("crafted", { recursive: true });
  writeFileSync(file, serialize(tensors, metadata));
  return file;
}

/** The scalars of a run folder's event files (text events, timings and evaluation left out), `tag@step`. */
function scalarSteps(folder: string): { tag: string; step: number; value: number }[] {
  return readRunDir(join("runs", folder))
    .filter((e) => e.text === undefined && e.tag !== "charts/SPS" && !e.tag.startsWith("eval/"))
    .map((e) => ({ tag: e.tag, step: e.step, value: e.value! }));
}

before(async () => {
  await setupBackend("cpu", { quiet: true });
  workDir = mkdtempSync(join(tmpdir(), "run-plumbing-test-"));
  process.chdir(workDir);
  await quietly([
    ...SMALL_UPDATE,
    "--total-timesteps",
    "64",
    "--checkpoint-every",
    "1",
    "--checkpoint-keep",
    "0",
    "--save-model",
    "--eval-episodes",
    "1",
    "--exp-name",
    "finished",
  ]);
  [finished] = runFolders();
});
after(() => {
  process.chdir(startDir);
  rmSync(workDir, { recursive: true, force: true });
});

test("--resume with a changed --num-envs stops in one line naming the flag and both values, touching nothing", async () => {
  const before = snapshot();
  const { line, code } = await refusal(["--resume", checkpointOf(2), "--num-envs", "4", "--backend", "cpu"]);
  assert.equal(
    line,
    "error: --num-envs 4 differs from the checkpoint's 2: a resumed run keeps the flags that shape it",
  );
  assert.equal(code, 2);
  assert.deepEqual(snapshot(), before);
});

test("--resume of a 2-rank checkpoint in a 1-rank run stops in one line, touching nothing", async () => {
  const file = rewrite(checkpointOf(2), join("crafted", "two_ranks.safetensors"), (_, metadata) => {
    const [state] = JSON.parse(metadata.rng);
    metadata.rng = JSON.stringify([state, state]);
  });
  const before = snapshot();
  const { line, code } = await refusal(["--resume", file, "--backend", "cpu"]);
  assert.equal(line, `error: ${file} was written by 2 rank(s); this run has 1`);
  assert.equal(code, 2);
  assert.deepEqual(snapshot(), before);
});

test("--resume of a finished run's final model without more --total-timesteps stops in one line", async () => {
  const before = snapshot();
  const model = join("runs", finished, "finished.safetensors");
  const { line, code } = await refusal(["--resume", model, "--backend", "cpu"]);
  assert.equal(line, `error: ${model} is at iteration 4 of 4: give a larger --total-timesteps to continue it`);
  assert.equal(code, 2);
  assert.deepEqual(snapshot(), before);
});

test("--resume from an older checkpoint of a finished run continues in a new folder named after it; the run is untouched", async () => {
  const before = snapshot();
  await quietly(["--resume", checkpointOf(2), "--backend", "cpu", "--checkpoint-keep", "1"]);
  assertUntouched(before);
  const continuation = `${finished}__resumed_at_iteration_2`;
  assert.deepEqual(runFolders(), [finished, continuation].sort());
  // Its own checkpoints, rotated among themselves; its own final model, at the end of the run.
  assert.deepEqual(readdirSync(join("runs", continuation, "checkpoints")), ["iteration_00000004.safetensors"]);
  const { metadata } = deserialize(readFileSync(join("runs", continuation, "finished.safetensors")));
  assert.deepEqual([metadata.run_name, metadata.iteration, metadata.global_step], [continuation, "4", "64"]);
  // Its curve starts after the checkpoint's step (2 iterations of 16 steps) and reaches the end.
  const steps = scalarSteps(continuation).map((s) => s.step);
  assert.ok(Math.min(...steps) > 32, `a scalar at step ${Math.min(...steps)}`);
  assert.equal(Math.max(...steps), 64);
  rmSync(join("runs", continuation), { recursive: true });
});

test("a leftover temporary file of a dead process is removed on resume; a live process's is kept", async () => {
  const dead = spawnSync(process.execPath, ["-e", ""]).pid;
  const stale = `${checkpointOf(3)}.tmp-${dead}`;
  const live = `${checkpointOf(3)}.tmp-${process.pid}`;
  writeFileSync(stale, "half a checkpoint");
  writeFileSync(live, "a checkpoint being written");
  const before = snapshot();
  before.delete(relative(workDir, join(workDir, stale)));
  const lines = await quietly(["--resume", checkpointOf(3), "--backend", "cpu"]);
  assert.ok(lines.includes(`removed ${stale}, left by an interrupted write (process ${dead})`), lines.join("\n"));
  assert.equal(existsSync(stale), false);
  assertUntouched(before); // the live process's file among them
  rmSync(live);
  rmSync(join("runs", `${finished}__resumed_at_iteration_3`), { recursive: true });
});

test("two runs started in the same second with the same env and seed get a folder each", async () => {
  const now = Date.now;
  const second = Math.floor(now() / 1000);
  Date.now = () => second * 1000;
  const twins = ["runs", `CartPole-v1__twins__1__${second}`];
  const args = [
    ...SMALL_UPDATE,
    "--total-timesteps",
    "16",
    "--save-model",
    "--eval-episodes",
    "1",
    "--exp-name",
    "twins",
  ];
  let first: Map<string, string>;
  try {
    await quietly(args);
    first = snapshot(join(...twins));
    await quietly(args);
  } finally {
    Date.now = now;
  }
  const folders = [twins[1], `${twins[1]}-2`];
  assert.deepEqual(
    runFolders().filter((f) => f.includes("__twins__")),
    folders,
  );
  assert.deepEqual(snapshot(join(...twins)), first);
  for (const folder of folders) {
    const files = readdirSync(join("runs", folder));
    assert.equal(files.filter((f) => f.startsWith("events.out.tfevents.")).length, 1, folder);
    assert.equal(deserialize(readFileSync(join("runs", folder, "twins.safetensors"))).metadata.run_name, folder);
    rmSync(join("runs", folder), { recursive: true });
  }
});

test("a namespaced env id runs in runs/<namespace>/<run>, as CleanRL's SummaryWriter nests it", async () => {
  const envId = "dm_control/cartpole-balance-v0";
  const args = [
    "--backend",
    "cpu",
    "--num-envs",
    "1",
    "--num-steps",
    "8",
    "--num-minibatches",
    "2",
    "--update-epochs",
    "1",
  ];
  args.push("--total-timesteps", "8", "--env-id", envId, "--save-model");
  await quietly([...args, "--eval-episodes", "1", "--exp-name", "nested"], ppoContinuous.main);
  const [folder] = readdirSync(join("runs", "dm_control")).filter((f) => f.includes("__nested__"));
  assert.match(folder, /^cartpole-balance-v0__nested__1__\d+$/);
  const files = readdirSync(join("runs", "dm_control", folder));
  assert.equal(files.filter((f) => f.startsWith("events.out.tfevents.")).length, 1);
  assert.ok(files.includes("nested.safetensors"), files.join(", "));
  rmSync(join("runs", "dm_control"), { recursive: true });
});

test("--learning-rate 1e38: the NaN guard stops the run and saves the last finite agent, which --eval-checkpoint runs", async () => {
  const before = snapshot();
  const { line, code, name } = await refusal([
    ...SMALL_UPDATE,
    "--total-timesteps",
    "64",
    "--learning-rate",
    "1e38",
    "--save-model",
    "--exp-name",
    "overflow",
  ]);
  const model = line.match(/saved in (\S+\.safetensors)\. /)?.[1];
  assert.ok(model !== undefined && existsSync(model), line);
  for (const [tensor, stored] of deserialize(readFileSync(model)).tensors)
    assert.ok(toFloat32(stored).every(Number.isFinite), `${tensor} holds a non-finite value`);
  assert.match(
    line,
    /^error: non-finite (policy_loss|value_loss|entropy|old_approx_kl|approx_kl|clipfrac|grad_norm) \((NaN|-?Infinity)\) at iteration 1: training stopped; the agent after iteration 0 is saved in runs\/CartPole-v1__overflow__1__\d+\/overflow\.safetensors\. Try a lower --learning-rate or --max-grad-norm/,
  );
  assert.deepEqual([name, code], ["TrainingError", 1]);
  assertUntouched(before);
  const lines = await quietly(["--eval-checkpoint", model, "--eval-episodes", "1", "--backend", "cpu"]);
  assert.match(lines.at(-1)!, /^mean episodic_return over 1 episodes: \d+\.\d\d$/);
});

test("--learning-rate 1e10: the divergence guard stops after --guard-iterations diverging iterations, exit 1", async () => {
  const before = snapshot();
  const { line, code } = await refusal([
    ...SMALL_UPDATE,
    "--total-timesteps",
    "64",
    "--learning-rate",
    "1e10",
    "--exp-name",
    "diverging",
  ]);
  assert.match(
    line,
    /^error: training diverged in iterations 1-3: (value_loss \S+ > --guard-value-loss 1e\+12|approx_kl \S+ > --guard-approx-kl 10): training stopped; the agent after iteration 0 is saved in runs\/CartPole-v1__diverging__1__\d+\/diverging\.safetensors\. /,
  );
  assert.equal(code, 1);
  assertUntouched(before);
});

test("--guard-iterations 1 stops the run after its first diverging iteration", async () => {
  const { line, code } = await refusal([
    ...SMALL_UPDATE,
    "--total-timesteps",
    "32",
    "--learning-rate",
    "1e10",
    "--guard-iterations",
    "1",
    "--exp-name",
    "impatient",
  ]);
  assert.match(line, /^error: training diverged in iteration 1: (value_loss|approx_kl) \S+ > --guard-/);
  assert.equal(code, 1);
});

test("--eval-checkpoint refuses a file holding non-finite parameters", async () => {
  const file = rewrite(
    join("runs", finished, "finished.safetensors"),
    join("crafted", "inf.safetensors"),
    (tensors) => {
      const weight = tensors.get("critic.0.weight")!;
      new DataView(weight.bytes.buffer, weight.bytes.byteOffset).setFloat32(0, Number.POSITIVE_INFINITY, true);
    },
  );
  const before = snapshot();
  const { line, code } = await refusal(["--eval-checkpoint", file, "--backend", "cpu"]);
  assert.match(
    line,
    /^error: crafted\/inf\.safetensors holds non-finite parameters \(critic\.0\.weight\): not an agent to run/,
  );
  assert.equal(code, 1);
  assert.deepEqual(snapshot(), before);
});

test("--eval-checkpoint with an --env-id other than the checkpoint's stops in one line", async () => {
  const before = snapshot();
  const model = join("runs", finished, "finished.safetensors");
  const { line, code } = await refusal(["--eval-checkpoint", model, "--env-id", "Acrobot-v1", "--backend", "cpu"]);
  assert.equal(line, `error: ${model} was trained on CartPole-v1, not --env-id Acrobot-v1`);
  assert.equal(code, 2);
  assert.deepEqual(snapshot(), before);
});

test("a parameters-only checkpoint evaluated on an env its agent does not fit stops in one line naming both", async () => {
  const file = rewrite(
    join("runs", finished, "finished.safetensors"),
    join("crafted", "bare.safetensors"),
    (tensors, metadata) => {
      for (const name of [...tensors.keys()]) if (name.startsWith("optimizer.")) tensors.delete(name);
      for (const key of Object.keys(metadata)) delete metadata[key];
    },
  );
  const before = snapshot();
  const { line, code } = await refusal(["--eval-checkpoint", file, "--env-id", "Acrobot-v1", "--backend", "cpu"]);
  assert.match(
    line,
    /^error: the agent in crafted\/bare\.safetensors does not fit Acrobot-v1 \(observations Box\(.*\), actions Discrete\(3\); .*\): evaluate it on the env it was trained on$/,
  );
  assert.equal(code, 2);
  assert.deepEqual(snapshot(), before);
});

test("--resume beside --eval-checkpoint is a usage error", async () => {
  const before = snapshot();
  const model = join("runs", finished, "finished.safetensors");
  const { line, code } = await refusal(["--eval-checkpoint", model, "--resume", checkpointOf(2), "--backend", "cpu"]);
  assert.equal(
    line,
    "error: --resume continues training and --eval-checkpoint evaluates without training: give one of them",
  );
  assert.equal(code, 2);
  assert.deepEqual(snapshot(), before);
});

test("--num-steps 1e9 --total-timesteps 4e9: the batch too large to hold is a usage error naming the flags", async () => {
  const before = snapshot();
  const { line, code } = await refusal(["--num-steps", "1e9", "--total-timesteps", "4e9", "--backend", "cpu"]);
  // 4 envs (the default) × 1e9 steps.
  assert.equal(
    line,
    `error: a batch of ${4 * 1e9} steps (--num-envs × --num-steps) is too large to hold; at most ${2 ** 27}`,
  );
  assert.equal(code, 2);
  assert.deepEqual(snapshot(), before);
});

test("an env-id typo names the three nearest ids and --list-envs", async () => {
  const { line, code } = await refusal(["--env-id", "CartPol-v1", "--backend", "cpu"]);
  const match = line.match(
    /^error: unknown --env-id CartPol-v1; did you mean ([^,]+), ([^,]+), ([^?]+)\? \(--list-envs lists them all\)$/,
  );
  assert.ok(match, line);
  assert.equal(match[1], "CartPole-v1");
  for (const id of match.slice(1)) assert.ok(gym.registeredIds().includes(id), id);
  assert.equal(code, 2);
});

test("--list-envs prints the ids ppo.ts takes, one a line, and exits 0", async () => {
  const child = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), join(ROOT, "ppo.ts"), "--list-envs"], {
    cwd: workDir,
  });
  let stdout = "";
  child.stdout.on("data", (d) => (stdout += d));
  const code = await new Promise((resolve) => child.on("close", resolve));
  assert.equal(code, 0);
  const ids = stdout.trim().split("\n");
  for (const id of ids) assert.ok(gym.registeredIds().includes(id), id);
  assert.ok(ids.includes("CartPole-v1") && ids.includes("Acrobot-v1"), stdout);
  // Continuous actions and image observations are other variants' envs.
  assert.ok(!ids.includes("Hopper-v4") && !ids.includes("BreakoutNoFrameskip-v4"), stdout);
});

test("--rom-dir pointing at a file is a usage error saying so", async () => {
  writeFileSync("breakout.bin", "not a folder");
  const { line, code } = await refusal(["--rom-dir", "breakout.bin", "--backend", "cpu"], ppoAtari.main);
  assert.equal(line, "error: --rom-dir breakout.bin is a file: give the folder that holds the ROM images");
  assert.equal(code, 2);
  rmSync("breakout.bin");
});

test(
  "a missing ROM exits with the code README.md gives it",
  { skip: alePyRomDir() === null ? false : "an installed ale-py's ROMs would be found" },
  async () => {
    mkdirSync("no-roms");
    const saved = process.env.ALE_ROMS_DIR;
    process.env.ALE_ROMS_DIR = "";
    let refused: Awaited<ReturnType<typeof refusal>>;
    try {
      refused = await refusal(
        ["--env-id", "BreakoutNoFrameskip-v4", "--rom-dir", "no-roms", "--backend", "cpu"],
        ppoAtari.main,
      );
    } finally {
      process.env.ALE_ROMS_DIR = saved;
      rmSync("no-roms", { recursive: true });
    }
    assert.match(refused.line, /^error: ROM for "breakout" not found\./);
    // README's "When something goes wrong" lists a missing ROM under the exit code the run gives.
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const bullet = (code: number) => readme.match(new RegExp(`^- \\*\\*Exit ${code}\\*\\*:[^]*?(?=^- )`, "m"))![0];
    assert.match(bullet(refused.code), /missing ROM/);
    assert.doesNotMatch(bullet(refused.code === 2 ? 1 : 2), /ROM/);
  },
);
