import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

import {
  SummaryWriter,
  type Tracker,
  crc32c,
  decodeEvent,
  initTracking,
  readEventFile,
  readRecords,
} from "../envs/run/logging.ts";

const LOGGING_MODULE = pathToFileURL(
  path.join(path.dirname(fileURLToPath(import.meta.url)), "../envs/run/logging.ts"),
).href;

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ppo-logging-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// Sets environment variables for one test and puts the old values back afterwards.
function withEnv(t: { after(fn: () => void): void }, vars: Record<string, string | undefined>): void {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (v: Record<string, string | undefined>): void => {
    for (const [k, val] of Object.entries(v)) {
      if (val === undefined) delete process.env[k];
      else process.env[k] = val;
    }
  };
  apply(vars);
  t.after(() => apply(saved));
}

// A stand-in for api.wandb.ai on a loopback port: enough of the GraphQL API and the
// file_stream endpoint for @wandb/sdk 0.5.1 to create a run and upload history.
async function fakeWandbServer(
  t: { after(fn: () => void): void },
  opts: { refuseRun?: boolean } = {},
): Promise<{ url: string; history: Record<string, unknown>[]; finished: () => boolean }> {
  const history: Record<string, unknown>[] = [];
  let complete = false;
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      res.setHeader("content-type", "application/json");
      const msg = JSON.parse(body || "{}") as {
        query?: string;
        variables?: Record<string, string>;
        complete?: boolean;
        files?: Record<string, { content: string[] }>;
      };
      if (req.url === "/graphql" && msg.query?.includes("upsertBucket")) {
        if (opts.refuseRun) {
          res.statusCode = 403;
          res.end("{}");
          return;
        }
        const v = msg.variables ?? {};
        const project = { id: "p", name: v.project, entity: { id: "e", name: "tester" } };
        res.end(
          JSON.stringify({
            data: {
              upsertBucket: { bucket: { id: "b", name: v.name, displayName: v.displayName, project }, inserted: true },
            },
          }),
        );
      } else if (req.url === "/graphql") {
        res.end(JSON.stringify({ data: { viewer: { id: "u", entity: "tester", flags: "", teams: { edges: [] } } } }));
      } else {
        for (const line of msg.files?.["wandb-history.jsonl"]?.content ?? [])
          history.push(JSON.parse(line) as Record<string, unknown>);
        if (msg.complete) complete = true;
        res.end("{}");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, history, finished: () => complete };
}

test("crc32c matches the Castagnoli check value", () => {
  assert.equal(crc32c(Buffer.from("123456789")), 0xe3069283);
  assert.equal(crc32c(new Uint8Array(0)), 0);
});

test("the event file is named like TensorBoard's, in a directory created on demand", (t) => {
  const dir = path.join(tempDir(t), "runs", "CartPole-v1__ppo__1__123");
  const writer = new SummaryWriter(dir);
  writer.close();
  const name = path.basename(writer.filePath);
  assert.ok(name.startsWith("events.out.tfevents."), name);
  assert.match(name, new RegExp(`^events\\.out\\.tfevents\\.\\d{10}\\.${os.hostname().replace(/[.]/g, "\\.")}\\.`));
  assert.deepEqual(fs.readdirSync(dir), [name]);
});

test("the first record is the file_version event", (t) => {
  const writer = new SummaryWriter(tempDir(t));
  writer.addScalar("charts/SPS", 1234, 512);
  writer.close();
  const first = decodeEvent(readRecords(writer.filePath)[0]);
  assert.equal(first.fileVersion, "brain.Event:2");
  assert.equal(first.values.length, 0);
  assert.ok(
    Math.abs(first.wallTime - Date.now() / 1000) < 60,
    `wall_time ${first.wallTime} is not seconds since the epoch`,
  );
});

test("written scalars read back with the same tags, steps and float32 values, in order", (t) => {
  const writer = new SummaryWriter(tempDir(t));
  const written: [string, number, number][] = [
    ["charts/episodic_return", 9.5, 0],
    ["charts/episodic_length", 10, 4],
    ["losses/value_loss", 0.1234567891, 512],
    ["losses/approx_kl", -1e-7, 512],
    ["charts/SPS", 0, 2 ** 40],
  ];
  for (const [tag, value, step] of written) writer.addScalar(tag, value, step);
  writer.close();
  const read = readEventFile(writer.filePath);
  assert.deepEqual(
    read.map((e) => [e.tag, e.value, e.step]),
    written.map(([tag, value, step]) => [tag, Math.fround(value), step]),
  );
  for (const e of read) assert.ok(Math.abs(e.wallTime - Date.now() / 1000) < 60);
});

test("scalars are on disk after flush(), before close()", (t) => {
  const writer = new SummaryWriter(tempDir(t));
  writer.addScalar("a", 1, 1);
  writer.flush();
  assert.deepEqual(
    readEventFile(writer.filePath).map((e) => e.value),
    [1],
  );
  writer.close();
});

test("buffered scalars reach the disk on their own once maxQueue records are waiting", (t) => {
  const writer = new SummaryWriter(tempDir(t), null, { maxQueue: 3, flushSecs: 3600 });
  writer.addScalar("a", 1, 1);
  writer.addScalar("a", 2, 2);
  assert.deepEqual(readEventFile(writer.filePath), []);
  writer.addScalar("a", 3, 3);
  assert.deepEqual(
    readEventFile(writer.filePath).map((e) => e.value),
    [1, 2, 3],
  );
  writer.close();
});

test("a text summary round-trips as a DT_STRING tensor owned by the text plugin", (t) => {
  const writer = new SummaryWriter(tempDir(t));
  const table = "|param|value|\n|-|-|\n|learning_rate|0.00025|\n|env_id|CartPole-v1|";
  writer.addText("hyperparameters", table);
  writer.close();
  const [entry] = readEventFile(writer.filePath);
  assert.equal(entry.tag, "hyperparameters/text_summary");
  assert.equal(entry.text, table);
  assert.equal(entry.step, 0);
  const value = decodeEvent(readRecords(writer.filePath)[1]).values[0];
  assert.equal(value.pluginName, "text");
});

test("flipping any byte of the file makes the reader throw", (t) => {
  const dir = tempDir(t);
  const writer = new SummaryWriter(dir);
  writer.addScalar("losses/entropy", 0.69, 128);
  writer.addText("hyperparameters", "|a|b|");
  writer.close();
  const good = fs.readFileSync(writer.filePath);
  const bad = path.join(dir, "corrupt");
  for (let i = 0; i < good.length; i++) {
    const copy = Buffer.from(good);
    copy[i] ^= 0x20;
    fs.writeFileSync(bad, copy);
    assert.throws(() => readEventFile(bad), /CRC mismatch|truncated/, `byte ${i} flipped went unnoticed`);
  }
  fs.writeFileSync(bad, good.subarray(0, good.length - 1));
  assert.throws(() => readEventFile(bad), /truncated/);
});

test("the writer forwards scalars to its tracker and finishes it on close", (t) => {
  const calls: string[] = [];
  const tracker: Tracker = {
    url: "fake",
    logScalar: (tag, value, step) => calls.push(`${tag}=${value}@${step}`),
    flush: () => calls.push("flush"),
    finish: async () => {
      calls.push("finish");
    },
  };
  const writer = new SummaryWriter(tempDir(t), tracker);
  writer.addScalar("charts/SPS", 100, 512);
  writer.addText("hyperparameters", "|a|b|");
  writer.close();
  assert.deepEqual(calls, ["charts/SPS=100@512", "flush", "finish"]);
});

test("tracking without an API key returns null at once with one explanatory line", async (t) => {
  withEnv(t, { WANDB_API_KEY: undefined, WANDB_MODE: undefined, WANDB_BASE_URL: undefined, HOME: tempDir(t) });
  const lines: string[] = [];
  const started = Date.now();
  const tracker = await initTracking({ project: "p", entity: null, name: "r", config: {}, log: (l) => lines.push(l) });
  assert.equal(tracker, null);
  assert.ok(Date.now() - started < 2000);
  assert.equal(lines.length, 1);
  assert.match(lines[0], /^wandb: tracking disabled: no API key .*WANDB_API_KEY/);
});

test("tracking with an unreachable server returns null promptly with one explanatory line", async (t) => {
  // A loopback port that was just free: nothing listens there.
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
  await new Promise((resolve) => probe.close(resolve));
  withEnv(t, { WANDB_API_KEY: "k".repeat(40), WANDB_MODE: undefined, WANDB_BASE_URL: url });
  const lines: string[] = [];
  const started = Date.now();
  const tracker = await initTracking({
    project: "p",
    entity: null,
    name: "r",
    config: {},
    timeoutMs: 5000,
    log: (l) => lines.push(l),
  });
  assert.equal(tracker, null);
  assert.ok(Date.now() - started < 5000);
  assert.equal(lines.length, 1);
  assert.equal(
    lines[0],
    `wandb: tracking disabled: cannot reach ${url} (ECONNREFUSED); set WANDB_API_KEY and check network, or run without --track`,
  );
});

test("tracking gives up after timeoutMs when the server never answers", async (t) => {
  const sockets: import("node:net").Socket[] = [];
  const server = http.createServer(() => undefined);
  server.on("connection", (s) => sockets.push(s));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  withEnv(t, {
    WANDB_API_KEY: "k".repeat(40),
    WANDB_MODE: undefined,
    WANDB_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  });
  const lines: string[] = [];
  const started = Date.now();
  const tracker = await initTracking({
    project: "p",
    entity: null,
    name: "r",
    config: {},
    timeoutMs: 300,
    log: (l) => lines.push(l),
  });
  assert.equal(tracker, null);
  assert.ok(Date.now() - started < 3000);
  assert.match(lines[0], /^wandb: tracking disabled: no answer from .* within 0\.3 s/);
});

test("a tracked run receives one row per global step, with global_step, and finishes", async (t) => {
  const server = await fakeWandbServer(t);
  withEnv(t, { WANDB_API_KEY: "k".repeat(40), WANDB_MODE: undefined, WANDB_BASE_URL: server.url });
  const lines: string[] = [];
  const tracker = await initTracking({
    project: "ppo.ts",
    entity: null,
    name: "CartPole-v1__ppo__1",
    config: { learningRate: 2.5e-4 },
    timeoutMs: 10_000,
    log: (l) => lines.push(l),
  });
  assert.ok(tracker, lines.join("\n"));
  assert.match(lines[0], /^wandb: tracking run "CartPole-v1__ppo__1" at /);
  const writer = new SummaryWriter(tempDir(t), tracker);
  writer.addScalar("charts/episodic_return", 20, 100);
  writer.addScalar("charts/episodic_return", 22, 100);
  writer.addScalar("losses/value_loss", 0.5, 512);
  writer.addScalar("charts/SPS", 900, 512);
  writer.close();
  await tracker.finish();
  assert.ok(server.finished());
  assert.deepEqual(
    server.history.map(({ _runtime, _timestamp, _step, ...row }) => row),
    [
      { "charts/episodic_return": 20, global_step: 100 },
      { "charts/episodic_return": 22, global_step: 100 },
      { "losses/value_loss": 0.5, "charts/SPS": 900, global_step: 512 },
    ],
  );
  // The file still gets everything, whatever happens to tracking.
  assert.equal(readEventFile(writer.filePath).length, 4);
});

// In a child process: the SDK reports this failure with an uncaught exception, and the
// point is that the process neither dies nor prints the SDK's stack traces.
test("a server that refuses the run disables tracking without crashing the process", async (t) => {
  const server = await fakeWandbServer(t, { refuseRun: true });
  const script = `
    import { initTracking } from ${JSON.stringify(LOGGING_MODULE)};
    const tracker = await initTracking({ project: "p", entity: null, name: "r", config: {}, timeoutMs: 10000 });
    console.log("result:", tracker === null ? "null" : "tracker");
  `;
  const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      {
        env: { ...process.env, WANDB_API_KEY: "k".repeat(40), WANDB_BASE_URL: server.url, WANDB_MODE: "" },
        timeout: 30_000,
      },
      (err, out, errOut) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout: out, stderr: errOut }),
    );
  });
  assert.equal(code, 0, stderr);
  const lines = stdout.trim().split("\n");
  assert.equal(lines.length, 2, stdout);
  assert.match(lines[0], /^wandb: tracking disabled: Failed to upsert run \(Fatal HTTP error \(403\)/);
  assert.equal(lines[1], "result: null");
  assert.equal(stderr.replace(/^npm warn.*\n/gm, ""), "");
});
