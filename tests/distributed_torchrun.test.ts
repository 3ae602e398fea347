// envs/run/torchrun.ts: torchrun's command line, the environment each rank gets, `[rankN]: ` line prefixes, a failing
// rank stopping the launch, and Ctrl-C reaching every rank once. The ranks are this file run with DIST_TEST_ROLE.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { allReduce, destroyProcessGroup, getRank, getWorldSize, initProcessGroup } from "../envs/torch/distributed.ts";
import { type LaunchConfig, parseLaunchArgs, rankEnv } from "../envs/run/torchrun.ts";

const SELF = fileURLToPath(import.meta.url);
const TORCHRUN = fileURLToPath(new URL("../envs/run/torchrun.ts", import.meta.url));
const role = process.env.DIST_TEST_ROLE;
// As a rank this file defines no tests.
const it: typeof test = role ? ((() => {}) as unknown as typeof test) : test;

function torchrun(
  args: string[],
  testRole: string,
  onStdout?: (text: string, child: ReturnType<typeof spawn>) => void,
) {
  const child = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), TORCHRUN, ...args], {
    env: { ...process.env, DIST_TEST_ROLE: testRole },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => {
    stdout += d;
    onStdout?.(stdout, child);
  });
  child.stderr.on("data", (d) => (stderr += d));
  const started = Date.now();
  return new Promise<{ code: number | null; stdout: string; stderr: string; seconds: number }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr, seconds: (Date.now() - started) / 1000 })),
  );
}

it("parses torchrun's flags in either spelling and leaves the script's flags to the script", () => {
  const cfg = parseLaunchArgs([
    "--standalone",
    "--nnodes=1",
    "--nproc_per_node",
    "3",
    "train.ts",
    "--nnodes",
    "7",
    "--seed=2",
  ]) as LaunchConfig;
  assert.equal(cfg.standalone, true);
  assert.equal(cfg.nprocPerNode, 3);
  assert.equal(cfg.nnodes, 1);
  assert.equal(cfg.script, "train.ts");
  assert.deepEqual(cfg.scriptArgs, ["--nnodes", "7", "--seed=2"]);
});

it("gives node 1 of 2 global ranks after node 0's, and the same world size and master", () => {
  const cfg = parseLaunchArgs([
    "--nnodes",
    "2",
    "--node-rank",
    "1",
    "--nproc-per-node",
    "2",
    "--master-addr",
    "10.0.0.1",
    "--master-port",
    "29501",
    "x.ts",
  ]) as LaunchConfig;
  const envs = [0, 1].map((l) => rankEnv(cfg, l, cfg.masterPort!));
  assert.deepEqual(
    envs.map((e) => [e.RANK, e.LOCAL_RANK, e.WORLD_SIZE, e.LOCAL_WORLD_SIZE, e.GROUP_RANK]),
    [
      ["2", "0", "4", "2", "1"],
      ["3", "1", "4", "2", "1"],
    ],
  );
  assert.equal(envs[1].MASTER_ADDR, "10.0.0.1");
  assert.equal(envs[1].MASTER_PORT, "29501");
});

it("rejects bad launcher command lines with one message", () => {
  assert.throws(
    () => parseLaunchArgs(["--nproc-per-node", "0", "x.ts"]),
    /--nproc-per-node expects an integer >= 1, got "0"/,
  );
  assert.throws(
    () => parseLaunchArgs(["--nnodes", "2", "--node-rank", "2", "x.ts"]),
    /--node-rank 2 is out of range for --nnodes 2/,
  );
  assert.throws(() => parseLaunchArgs(["--nnodes", "2", "x.ts"]), /give --master-addr and --master-port/);
  assert.throws(() => parseLaunchArgs(["--standalone", "--nnodes", "2", "x.ts"]), /--nnodes must be 1/);
  assert.throws(() => parseLaunchArgs(["--nproc-per-node", "2"]), /no script given/);
  assert.throws(() => parseLaunchArgs(["--max-restarts", "3", "x.ts"]), /unknown flag --max-restarts/);
});

it("a script that is not there stops the launcher in one line naming the file it likely meant, exit 2, no rank started", async () => {
  const typo = fileURLToPath(new URL("../ppo_atari_multigpu.tsx", import.meta.url));
  const run = await torchrun(["--nproc-per-node=2", typo], "none");
  assert.equal(run.code, 2);
  assert.equal(
    run.stderr,
    `error: script ${typo} not found (did you mean ppo_atari_multigpu.ts?)\n(run with --help to list the flags)\n`,
  );
  assert.equal(run.stdout, "");
});

it("launches --nproc-per-node ranks that form one group, each line prefixed with its rank", async () => {
  const run = await torchrun(["--standalone", "--nnodes=1", "--nproc-per-node=2", SELF], "sum");
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^\[rank0\]: rank 0 of 2 \(local 0 of 2\): sum=3$/m);
  assert.match(run.stdout, /^\[rank1\]: rank 1 of 2 \(local 1 of 2\): sum=3$/m);
});

it("a failing rank stops the others and the launcher exits non-zero with one line naming it", async () => {
  const run = await torchrun(["--standalone", "--nproc-per-node", "2", SELF], "fail-rank-1");
  assert.equal(run.code, 1);
  assert.match(run.stderr, /^\[rank1\]: rank 1 fails$/m);
  assert.match(run.stderr, /^error: rank 1 \(local rank 1\) exited with code 3; stopped the other ranks$/m);
  assert.ok(run.seconds < 30, `took ${run.seconds} s`);
});

it("Ctrl-C (SIGINT) reaches every rank exactly once", async () => {
  let sent = false;
  const run = await torchrun(["--standalone", "--nproc-per-node", "2", SELF], "wait-sigint", (stdout, child) => {
    if (!sent && stdout.includes("[rank0]: ready") && stdout.includes("[rank1]: ready")) {
      sent = true;
      child.kill("SIGINT");
    }
  });
  assert.equal(run.code, 130, run.stderr);
  for (const rank of [0, 1]) assert.equal(run.stdout.split(`[rank${rank}]: SIGINT`).length - 1, 1, run.stdout);
});

// ---------------------------------------------------------------------------------------------------------------
// The rank side.

if (role === "sum") {
  await initProcessGroup();
  const buffer = Float32Array.of(getRank() + 1);
  await allReduce(buffer, "sum");
  console.log(
    `rank ${getRank()} of ${getWorldSize()} (local ${process.env.LOCAL_RANK} of ${process.env.LOCAL_WORLD_SIZE}): sum=${buffer[0]}`,
  );
  await destroyProcessGroup();
} else if (role === "fail-rank-1") {
  if (process.env.RANK === "1") {
    console.error("rank 1 fails");
    process.exit(3);
  }
  setInterval(() => {}, 1000); // rank 0 would wait forever: the launcher must stop it
} else if (role === "wait-sigint") {
  let count = 0;
  process.on("SIGINT", () => {
    count++;
    console.log("SIGINT");
    // Exit a little later, so a second (duplicated) SIGINT would still be counted.
    setTimeout(() => process.exit(count === 1 ? 0 : 5), 300);
  });
  setInterval(() => {}, 1000);
  console.log("ready");
}
