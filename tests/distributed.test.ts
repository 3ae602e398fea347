// envs/torch/distributed.ts across real processes on 127.0.0.1: ring all-reduce and broadcast for odd sizes and world
// sizes 2 and 3, all-reduce exact call after call whatever the previous call left behind, and every failure path
// ending in one clear error instead of a hang (a killed rank, a rank that never arrives, a rank that stalls, a size
// mismatch).
//
// Each rank is this same file run as a child process with DIST_TEST_ROLE set (see the bottom): it then does one
// scripted thing and exits, instead of defining tests.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import {
  DistributedError,
  allReduce,
  barrier,
  broadcast,
  destroyProcessGroup,
  getRank,
  getWorldSize,
  initProcessGroup,
} from "../envs/torch/distributed.ts";
import { freePort } from "../envs/run/torchrun.ts";

const SELF = fileURLToPath(import.meta.url);
const SIZES = [1, 7, 1_000_003, 5]; // the last after a larger one: allReduce reuses its receive buffer

interface Rank {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; seconds: number }>;
}

/** Starts one rank of a `worldSize` group running `role`, with torchrun's environment variables. */
function startRank(role: string, rank: number, worldSize: number, port: number, timeoutS: number): Rank {
  const started = Date.now();
  const child = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), SELF], {
    env: {
      ...process.env,
      DIST_TEST_ROLE: role,
      RANK: String(rank),
      WORLD_SIZE: String(worldSize),
      MASTER_ADDR: "127.0.0.1",
      MASTER_PORT: String(port),
      DIST_TIMEOUT_S: String(timeoutS),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const r: Rank = { child, stdout: "", stderr: "", exit: null! };
  child.stdout!.on("data", (d) => (r.stdout += d));
  child.stderr!.on("data", (d) => (r.stderr += d));
  r.exit = new Promise((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal, seconds: (Date.now() - started) / 1000 })),
  );
  return r;
}

async function startGroup(
  role: string,
  worldSize: number,
  timeoutS = 20,
  ranks = Array.from({ length: worldSize }, (_, i) => i),
): Promise<Rank[]> {
  const port = await freePort();
  return ranks.map((rank) => startRank(role, rank, worldSize, port, timeoutS));
}

function waitFor(r: Rank, text: string): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (r.stdout.includes(text) ? resolve() : setTimeout(check, 20));
    check();
  });
}

/** Rank `rank`'s test pattern: small integers, so float32 sums are exact and the expected result is exact too. */
function pattern(rank: number, n: number): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => ((i * 7 + rank * 13) % 101) - 50 + rank * 0.5);
}

/**
 * The calls of the "repeated" role, in order: sizes that do not cut into equal chunks (0 and 2 leave chunks empty at
 * world size 3), smaller after larger and back, each with contents of its own. "sum": every rank's contribution;
 * "cancel": the last rank sends minus the others' sum, so the result is all zeros and any float left over from an
 * earlier call shows; "one-rank": one rank (a different one each call) sends arbitrary float32 bit patterns, the
 * others zeros, so every byte must arrive as it was sent.
 */
const REPEATED: { n: number; kind: "sum" | "cancel" | "one-rank" }[] = [
  { n: 1_000_003, kind: "sum" },
  { n: 5, kind: "cancel" },
  { n: 0, kind: "sum" },
  { n: 2, kind: "one-rank" },
  { n: 196_609, kind: "one-rank" },
  { n: 1_000_003, kind: "cancel" },
  { n: 7, kind: "sum" },
  { n: 65_537, kind: "one-rank" },
  { n: 999_999, kind: "cancel" },
];
/** Sentinel floats around each buffer of the "repeated" role: allReduce must write only the caller's view. */
const GUARD = 3;

/** A 32-bit hash of (call, rank, i), murmur3's finalizer. */
function hash(call: number, rank: number, i: number): number {
  let h = Math.imul(i, 0x9e3779b1) ^ Math.imul(call * 16 + rank + 1, 0x85ebca77);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * Rank `rank`'s contribution to call `call` of REPEATED. "sum" and "cancel": odd multiples of 2^-9 below 2^7 in
 * magnitude, never zero, so sums over 3 ranks are exact in float32 whatever order the ring adds them in.
 */
function contribution(call: number, rank: number, worldSize: number): Float32Array {
  const { n, kind } = REPEATED[call];
  const dyadic = (r: number) =>
    Float32Array.from({ length: n }, (_, i) => ((hash(call, r, i) >>> 16) - 32768 + 0.5) / 256);
  if (kind === "one-rank") {
    if (rank !== call % worldSize) return new Float32Array(n);
    // Any finite float32 but -0 (-0 + +0 is +0): subnormals, tiny and huge magnitudes, both signs.
    const bits = Uint32Array.from({ length: n }, (_, i) => {
      const b = hash(call, rank, i);
      return (b & 0x7f800000) === 0x7f800000 ? b ^ 0x00800000 : b === 0x80000000 ? 1 : b;
    });
    return new Float32Array(bits.buffer);
  }
  if (kind === "cancel" && rank === worldSize - 1) {
    const minusOthers = new Float32Array(n);
    for (let r = 0; r < worldSize - 1; r++) dyadic(r).forEach((v, i) => (minusOthers[i] -= v));
    return minusOthers;
  }
  return dyadic(rank);
}

const role = process.env.DIST_TEST_ROLE;
// As a child (a rank) this file defines no tests: `test` becomes a no-op.
const it: typeof test = role ? ((() => {}) as unknown as typeof test) : test;

for (const worldSize of [2, 3]) {
  it(`allReduce sums and broadcast copies across ${worldSize} processes for sizes ${SIZES.join(", ")}`, async () => {
    const group = await startGroup("collectives", worldSize);
    await Promise.all(group.map((r) => r.exit));
    const stderrs = group.map((r, rank) => `rank ${rank}: ${r.stderr}`).join("\n");
    for (const [rank, r] of group.entries()) {
      const { code } = await r.exit;
      assert.equal(code, 0, stderrs);
      assert.match(r.stdout, new RegExp(`rank ${rank}/${worldSize}: collectives ok`));
    }
  });
}

for (const worldSize of [2, 3]) {
  it(`allReduce across ${worldSize} processes is exact call after call: sizes that do not split evenly, growing and shrinking, nothing left from the call before`, async () => {
    const group = await startGroup("repeated", worldSize);
    await Promise.all(group.map((r) => r.exit));
    const stderrs = group.map((r, rank) => `rank ${rank}: ${r.stderr}`).join("\n");
    for (const [rank, r] of group.entries()) {
      assert.equal((await r.exit).code, 0, stderrs);
      assert.match(r.stdout, new RegExp(`rank ${rank}/${worldSize}: ${REPEATED.length} calls exact`));
    }
  });
}

it("a killed rank makes the others exit with one line naming it, well within the timeout", async () => {
  const group = await startGroup("wait-in-allreduce", 3, 20);
  await Promise.all(group.map((r) => waitFor(r, "ready")));
  group[1].child.kill("SIGKILL");
  for (const rank of [0, 2]) {
    const { code, seconds } = await group[rank].exit;
    assert.equal(code, 1, group[rank].stderr);
    assert.match(
      group[rank].stderr,
      /^error: rank \d: rank 1 is gone: its connection (closed|to (this rank|rank 0) closed)/m,
    );
    assert.equal(group[rank].stderr.trim().split("\n").length, 1, group[rank].stderr);
    assert.ok(seconds < 20, `rank ${rank} took ${seconds} s`);
  }
});

it("a rank that never arrives fails the rendezvous after the timeout, naming the missing rank", async () => {
  const [rank0] = await startGroup("collectives", 3, 1.5, [0, 2]);
  const { code } = await rank0.exit;
  assert.equal(code, 1);
  assert.match(
    rank0.stderr,
    /^error: rank 0: rendezvous timed out after 1\.5 s at 127\.0\.0\.1:\d+: rank 1 never arrived$/m,
  );
});

it("a rank that stalls without dying is caught by the timeout, naming it", async () => {
  // 5 s rather than less: the same timeout bounds the rendezvous, and two processes starting on a loaded machine
  // can arrive seconds apart.
  const group = await startGroup("stall-rank-1", 2, 5);
  const { code, seconds } = await group[0].exit;
  assert.equal(code, 1, group[0].stderr);
  assert.match(group[0].stderr, /^error: rank 0: timed out after 5 s waiting for rank 1 in allReduce #2$/m);
  assert.ok(seconds < 20);
  group[1].child.kill("SIGKILL");
});

it("ranks passing different sizes get a size-mismatch error, not garbage", async () => {
  const group = await startGroup("mismatch", 2, 10);
  for (const r of group) {
    const { code } = await r.exit;
    assert.equal(code, 1);
    assert.match(
      r.stderr,
      /^error: rank (0|1): size mismatch in allReduce #1: rank (1|0) has (8|7) floats, rank \1 has (7|8)$/m,
    );
  }
});

// ---------------------------------------------------------------------------------------------------------------
// The child side: one rank of a test group.

async function childMain(role: string): Promise<void> {
  await initProcessGroup();
  const rank = getRank();
  const worldSize = getWorldSize();
  if (role === "collectives") {
    for (const n of SIZES) {
      const buffer = pattern(rank, n);
      await allReduce(buffer, "sum");
      const expected = new Float32Array(n);
      for (let r = 0; r < worldSize; r++) pattern(r, n).forEach((v, i) => (expected[i] += v));
      assert.deepEqual(buffer, expected, `allReduce of ${n} floats`);
      const src = worldSize - 1;
      const copy = pattern(rank, n);
      await broadcast(copy, src);
      assert.deepEqual(copy, pattern(src, n), `broadcast of ${n} floats`);
    }
    await barrier();
    console.log(`rank ${rank}/${worldSize}: collectives ok`);
  } else if (role === "repeated") {
    for (let call = 0; call < REPEATED.length; call++) {
      const { n, kind } = REPEATED[call];
      // The buffer is a view into a larger array, at an offset that is no multiple of 16 bytes, with sentinels around.
      const storage = new Float32Array(n + 2 * GUARD).fill(-7.25);
      const buffer = storage.subarray(GUARD, GUARD + n);
      buffer.set(contribution(call, rank, worldSize));
      await allReduce(buffer, "sum");
      const expected = new Float32Array(n);
      if (kind !== "cancel")
        for (let r = 0; r < worldSize; r++) contribution(call, r, worldSize).forEach((v, i) => (expected[i] += v));
      const got = new Uint32Array(buffer.slice().buffer);
      const want = new Uint32Array(expected.buffer);
      const first = got.findIndex((bits, i) => bits !== want[i]);
      assert.equal(
        first,
        -1,
        `call ${call} (${kind}, ${n} floats): entry ${first} is ${buffer[first]}, expected ${expected[first]}`,
      );
      const guards = [...storage.subarray(0, GUARD), ...storage.subarray(GUARD + n)];
      assert.ok(
        guards.every((v) => v === -7.25),
        `call ${call}: allReduce wrote outside the buffer it was given`,
      );
    }
    console.log(`rank ${rank}/${worldSize}: ${REPEATED.length} calls exact`);
  } else if (role === "wait-in-allreduce") {
    await barrier();
    console.log("ready");
    if (rank === 1)
      setInterval(() => {}, 1000); // waits to be killed
    else await allReduce(new Float32Array(10));
    return;
  } else if (role === "stall-rank-1") {
    await barrier();
    if (rank === 1) {
      setInterval(() => {}, 1000); // alive, connections open, but never calls the collective
      return;
    }
    await allReduce(new Float32Array(10));
  } else if (role === "mismatch") {
    await allReduce(new Float32Array(7 + rank));
  }
  await destroyProcessGroup();
}

if (role) {
  try {
    await childMain(role);
  } catch (e) {
    process.stderr.write(`error: ${e instanceof DistributedError ? e.message : (e as Error).stack}\n`);
    process.exit(1);
  }
}
