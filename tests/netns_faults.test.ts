// Two "machines" as two network namespaces joined by a veth pair, made here and removed after: one rank of a
// process group (envs/torch/distributed.ts) in each, all-reducing in a loop as training does, talking only over the
// veth's addresses. Then a fault: the rank in the second namespace is killed, its link is cut (`ip link set
// down`) or delayed past the group's timeout (`tc netem`). Every surviving rank must end within the timeout with
// one `error:` line naming the rank it lost, never hang. Needs root and `ip`/`tc` (iproute2); skipped with a message
// where namespaces cannot be made.
//
// As a child (NETNS_TEST_CHILD set) this file is one rank: it joins the group and all-reduces until it fails.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { allReduce, initProcessGroup } from "../envs/torch/distributed.ts";
import { runMain } from "../envs/run/main.ts";

const SELF = fileURLToPath(import.meta.url);
const TIMEOUT_S = 2;
const tag = `ck${process.pid % 100000}`;

/** Runs `ip ...`; returns the error text, or null when it succeeded. */
function ip(...args: string[]): string | null {
  const r = spawnSync("ip", args, { encoding: "utf8" });
  return r.status === 0 ? null : (r.stderr || r.error?.message || `exit ${r.status}`).trim();
}

/** Why namespaces cannot be used here, or null when they can (probed by making and removing one). */
function unavailable(): string | null {
  if (process.platform !== "linux") return "network namespaces are Linux only";
  if (process.getuid?.() !== 0) return "making network namespaces needs root";
  const probe = `${tag}probe`;
  const error = ip("netns", "add", probe);
  if (error !== null) return `cannot make a network namespace here (ip netns add: ${error})`;
  ip("netns", "del", probe);
  if (spawnSync("tc", ["-V"]).status !== 0) return "tc (iproute2) is not installed";
  return null;
}

interface Pair {
  ns: [string, string];
  dev: [string, string];
  addr: [string, string];
}

/** Two namespaces joined by a veth pair, 10.241.k.1 and 10.241.k.2, loopback up in both. */
function makePair(k: number): Pair {
  const pair: Pair = {
    ns: [`${tag}a${k}`, `${tag}b${k}`],
    dev: [`${tag}va${k}`, `${tag}vb${k}`],
    addr: [`10.241.${k}.1`, `10.241.${k}.2`],
  };
  const steps = [
    ["netns", "add", pair.ns[0]],
    ["netns", "add", pair.ns[1]],
    ["link", "add", pair.dev[0], "type", "veth", "peer", "name", pair.dev[1]],
    ...[0, 1].flatMap((i) => [
      ["link", "set", pair.dev[i], "netns", pair.ns[i]],
      ["-n", pair.ns[i], "addr", "add", `${pair.addr[i]}/24`, "dev", pair.dev[i]],
      ["-n", pair.ns[i], "link", "set", "lo", "up"],
      ["-n", pair.ns[i], "link", "set", pair.dev[i], "up"],
    ]),
  ];
  for (const step of steps) {
    const error = ip(...step);
    if (error !== null) {
      removePair(pair);
      throw new Error(`ip ${step.join(" ")}: ${error}`);
    }
  }
  return pair;
}

function removePair(pair: Pair): void {
  for (const ns of pair.ns) ip("netns", "del", ns); // the veth ends go with their namespaces
}

interface Rank {
  pid: number;
  /** Tells the rank to join the group (ranks start in their own time; the group's short timeout starts then). */
  go(): void;
  output: string;
  /** Resolves when the rank exits: its code, its stderr, and when (Date.now()). */
  exit: Promise<{ code: number | null; stderr: string; at: number }>;
}

/** Rank `rank` inside namespace `ns`, rendezvous at rank 0's veth address. */
function startRank(pair: Pair, rank: number): Rank {
  const child = spawn(
    "ip",
    ["netns", "exec", pair.ns[rank], process.execPath, "--import", import.meta.resolve("tsx"), SELF],
    {
      env: {
        ...process.env,
        NETNS_TEST_CHILD: "1",
        RANK: String(rank),
        WORLD_SIZE: "2",
        MASTER_ADDR: pair.addr[0],
        MASTER_PORT: "29500",
        DIST_TIMEOUT_S: String(TIMEOUT_S),
      },
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  let stderr = "";
  const r: Rank = { pid: child.pid!, go: () => child.stdin.end("go\n"), output: "", exit: null! };
  child.stdout.on("data", (d) => (r.output += d));
  child.stderr.on("data", (d) => (stderr += d));
  r.exit = new Promise((resolve) => child.on("exit", (code) => resolve({ code, stderr, at: Date.now() })));
  return r;
}

/** Resolves once the rank has printed `text`. */
function printed(r: Rank, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const check = () =>
      r.output.includes(text)
        ? resolve()
        : Date.now() - started > 60_000
          ? reject(new Error(`the rank never printed "${text}": ${r.output}`))
          : setTimeout(check, 25);
    check();
  });
}

/** The `error:` lines of a rank's stderr. */
const errorLines = (stderr: string) => stderr.split("\n").filter((l) => l.startsWith("error:"));

/** Why `tc netem` cannot delay a link here (the kernel may lack sch_netem), or null when it can. */
function netemUnavailable(): string | null {
  const pair = makePair(9);
  try {
    const r = spawnSync(
      "ip",
      ["netns", "exec", pair.ns[1], "tc", "qdisc", "add", "dev", pair.dev[1], "root", "netem", "delay", "1ms"],
      { encoding: "utf8" },
    );
    return r.status === 0
      ? null
      : `tc netem is not available in this kernel (${(r.stderr || `exit ${r.status}`).trim()})`;
  } finally {
    removePair(pair);
  }
}

/** The error lines, as test diagnostics (what a user would see). */
const report = (t: { diagnostic(message: string): void }, lines: string[]) => lines.forEach((l) => t.diagnostic(l));

const child = process.env.NETNS_TEST_CHILD !== undefined;
const it: typeof test = child ? ((() => {}) as unknown as typeof test) : test;
const skip = child ? null : unavailable();

/**
 * Starts both ranks in a fresh pair of namespaces, applies `fault` once they train, checks how `survivors` end and
 * returns their error lines.
 */
async function faultCase(
  k: number,
  name: string,
  fault: (pair: Pair, ranks: Rank[]) => void,
  survivors: number[],
): Promise<string[]> {
  const pair = makePair(k);
  const ranks: Rank[] = [];
  const seen: string[] = [];
  try {
    ranks.push(startRank(pair, 0), startRank(pair, 1));
    await Promise.all(ranks.map((r) => printed(r, "ready")));
    ranks.forEach((r) => r.go());
    await Promise.all(ranks.map((r) => printed(r, "training")));
    const faultAt = Date.now();
    fault(pair, ranks);
    for (const rank of survivors) {
      const { code, stderr, at } = await ranks[rank].exit;
      const lines = errorLines(stderr);
      assert.notEqual(code, 0, `${name}: rank ${rank} exited 0`);
      assert.equal(lines.length, 1, `${name}: rank ${rank} printed ${JSON.stringify(stderr)}`);
      // Rank 0 names rank 1; rank 1 names rank 0, or passes on rank 0's abort, which names rank 1.
      assert.match(
        lines[0],
        /rank [01]\b.*(is gone|timed out|waiting for rank)|(is gone|timed out|waiting for) rank [01]\b/,
        `${name}: rank ${rank}: ${lines[0]}`,
      );
      if (rank === 0) assert.match(lines[0], /rank 1\b/);
      assert.ok(
        (at - faultAt) / 1000 < TIMEOUT_S + 10,
        `${name}: rank ${rank} took ${(at - faultAt) / 1000} s to stop`,
      );
      seen.push(`rank ${rank}, ${((at - faultAt) / 1000).toFixed(1)} s after the fault: ${lines[0]}`);
    }
    return seen;
  } finally {
    for (const r of ranks) {
      try {
        process.kill(r.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    await Promise.all(ranks.map((r) => r.exit));
    removePair(pair);
  }
}

it(
  "across two network namespaces joined by a veth pair, a lost rank ends the others in one line naming it",
  { skip: skip ?? false, timeout: 120_000, concurrency: true },
  async (t) => {
    const netem = netemUnavailable();
    await Promise.all([
      t.test("the rank in the other namespace is killed", async (st) =>
        report(st, await faultCase(0, "kill", (_pair, ranks) => process.kill(ranks[1].pid, "SIGKILL"), [0])),
      ),
      t.test("the link is cut (ip link set down)", async (st) =>
        report(
          st,
          await faultCase(
            1,
            "link down",
            (pair) => assert.equal(ip("-n", pair.ns[1], "link", "set", pair.dev[1], "down"), null),
            [0, 1],
          ),
        ),
      ),
      t.test("the link is delayed past the timeout (tc netem)", { skip: netem ?? false }, async (st) =>
        report(
          st,
          await faultCase(
            2,
            "netem delay",
            (pair) =>
              assert.equal(
                spawnSync("ip", [
                  "netns",
                  "exec",
                  pair.ns[1],
                  "tc",
                  "qdisc",
                  "add",
                  "dev",
                  pair.dev[1],
                  "root",
                  "netem",
                  "delay",
                  `${2 * TIMEOUT_S}s`,
                ]).status,
                0,
              ),
            [0, 1],
          ),
        ),
      ),
    ]);
  },
);

if (child) {
  await runMain(async () => {
    console.log("ready");
    await new Promise((resolve) => process.stdin.once("data", resolve));
    await initProcessGroup();
    const buffer = new Float32Array(1024);
    for (let i = 0; ; i++) {
      buffer.fill(1);
      await allReduce(buffer);
      if (buffer[0] !== 2) throw new Error(`all-reduce gave ${buffer[0]}`);
      if (i === 3) console.log("training");
      await new Promise((r) => setTimeout(r, 20));
    }
  });
}
