// Launchers that start the ranks themselves: the environment torchrun / a PyTorchJob, Open MPI's mpirun and Slurm's
// srun give each process (envs/torch/distributed.ts `launchEnv`), Slurm's compressed host lists, and two real processes
// that form a group from Slurm's and from Open MPI's variables alone.
//
// As a child (CLUSTER_TEST_CHILD set) this file joins the group its environment describes and prints what it got.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import {
  DistributedError,
  allGatherObject,
  allReduce,
  destroyProcessGroup,
  expandHostlist,
  initProcessGroup,
  launchEnv,
} from "../envs/torch/distributed.ts";
import { freePort } from "../envs/run/torchrun.ts";

const SELF = fileURLToPath(import.meta.url);
const child = process.env.CLUSTER_TEST_CHILD !== undefined;
const it: typeof test = child ? ((() => {}) as unknown as typeof test) : test;

it("Slurm host lists expand as scontrol show hostnames does", () => {
  assert.deepEqual(expandHostlist("node[01-04,07]"), ["node01", "node02", "node03", "node04", "node07"]);
  assert.deepEqual(expandHostlist("gpu7"), ["gpu7"]);
  assert.deepEqual(expandHostlist("a[9-10],b,c[1]"), ["a9", "a10", "b", "c1"]);
  assert.deepEqual(expandHostlist("rack[1-2]-n[08-09]"), ["rack1-n08", "rack1-n09", "rack2-n08", "rack2-n09"]);
  for (const bad of ["node[01-", "node[4-2]", "node[a-b]", "x]y[", ""])
    assert.throws(() => expandHostlist(bad), DistributedError, bad);
});

it("torchrun and PyTorchJob variables win; then Open MPI's; then Slurm's; none is rank 0 of 1", () => {
  assert.deepEqual(launchEnv({}), {
    launcher: "none",
    rank: 0,
    worldSize: 1,
    localRank: 0,
    localWorldSize: 1,
    masterAddr: "127.0.0.1",
    masterPort: 29500,
  });
  // A PyTorchJob's worker pod: the operator sets these four (and no LOCAL_RANK: one process per pod).
  assert.deepEqual(launchEnv({ RANK: "3", WORLD_SIZE: "4", MASTER_ADDR: "job-master-0", MASTER_PORT: "23456" }), {
    launcher: "torchrun",
    rank: 3,
    worldSize: 4,
    localRank: 0,
    localWorldSize: 1,
    masterAddr: "job-master-0",
    masterPort: 23456,
  });
  const slurm = {
    SLURM_PROCID: "5",
    SLURM_NTASKS: "8",
    SLURM_LOCALID: "1",
    SLURM_TASKS_PER_NODE: "2(x4)",
    SLURM_JOB_NODELIST: "node[01-04,07]",
  };
  assert.deepEqual(launchEnv(slurm), {
    launcher: "slurm",
    rank: 5,
    worldSize: 8,
    localRank: 1,
    localWorldSize: 2,
    masterAddr: "node01",
    masterPort: 29500,
  });
  assert.equal(launchEnv({ ...slurm, SLURM_STEP_NODELIST: "node[03-04]" }).masterAddr, "node03");
  assert.equal(launchEnv({ ...slurm, MASTER_ADDR: "10.0.0.9", MASTER_PORT: "1234" }).masterAddr, "10.0.0.9");
  // mpirun inside an sbatch script: every rank inherits the batch step's SLURM_PROCID=0; Open MPI's rank is the one.
  const ompi = {
    OMPI_COMM_WORLD_RANK: "2",
    OMPI_COMM_WORLD_SIZE: "3",
    OMPI_COMM_WORLD_LOCAL_RANK: "0",
    OMPI_COMM_WORLD_LOCAL_SIZE: "1",
  };
  assert.deepEqual(launchEnv({ ...slurm, SLURM_PROCID: "0", ...ompi, MASTER_ADDR: "head" }), {
    launcher: "open mpi",
    rank: 2,
    worldSize: 3,
    localRank: 0,
    localWorldSize: 1,
    masterAddr: "head",
    masterPort: 29500,
  });
  // torchrun started by srun: torchrun's RANK, not srun's task id.
  assert.equal(launchEnv({ ...slurm, RANK: "6", WORLD_SIZE: "16" }).rank, 6);
  assert.throws(
    () => launchEnv({ SLURM_PROCID: "x" }),
    /^Error: SLURM_PROCID=x is not a non-negative integer$|SLURM_PROCID=x is not a non-negative integer/,
  );
});

/** Starts two ranks whose only group information is `vars(rank)`; resolves with what each printed. */
async function group(vars: (rank: number, port: number) => Record<string, string>): Promise<string[]> {
  const port = await freePort();
  const env = { ...process.env };
  for (const k of ["RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"]) delete env[k];
  return Promise.all(
    [0, 1].map(
      (rank) =>
        new Promise<string>((resolve, reject) => {
          const p = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), SELF], {
            env: { ...env, ...vars(rank, port), CLUSTER_TEST_CHILD: "1", DIST_TIMEOUT_S: "20" },
            stdio: ["ignore", "pipe", "pipe"],
          });
          let out = "";
          p.stdout.on("data", (d) => (out += d));
          p.stderr.on("data", (d) => (out += d));
          p.on("exit", (code) =>
            code === 0 ? resolve(out.trim()) : reject(new Error(`rank ${rank} exited ${code}: ${out}`)),
          );
        }),
    ),
  );
}

it("two processes form a group from Slurm's variables alone, and from Open MPI's", async () => {
  const [slurm, ompi] = await Promise.all([
    group((rank, port) => ({
      SLURM_PROCID: String(rank),
      SLURM_NTASKS: "2",
      SLURM_LOCALID: String(rank),
      SLURM_TASKS_PER_NODE: "2",
      SLURM_JOB_NODELIST: "localhost",
      MASTER_PORT: String(port),
    })),
    group((rank, port) => ({
      OMPI_COMM_WORLD_RANK: String(rank),
      OMPI_COMM_WORLD_SIZE: "2",
      OMPI_COMM_WORLD_LOCAL_RANK: String(rank),
      OMPI_COMM_WORLD_LOCAL_SIZE: "2",
      MASTER_PORT: String(port),
    })),
  ]);
  assert.deepEqual(slurm, ["slurm rank 0 of 2: sum 3, gathered [0,1]", "slurm rank 1 of 2: sum 3, gathered [0,1]"]);
  assert.deepEqual(ompi, [
    "open mpi rank 0 of 2: sum 3, gathered [0,1]",
    "open mpi rank 1 of 2: sum 3, gathered [0,1]",
  ]);
});

if (child) {
  const { launcher, rank, worldSize } = launchEnv();
  await initProcessGroup();
  const sum = Float32Array.of(rank + 1);
  await allReduce(sum);
  const gathered = await allGatherObject(rank);
  console.log(`${launcher} rank ${rank} of ${worldSize}: sum ${sum[0]}, gathered ${JSON.stringify(gathered)}`);
  await destroyProcessGroup();
}
