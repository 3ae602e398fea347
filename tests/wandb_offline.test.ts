// `--track` with WANDB_MODE=offline writes the run as the Python SDK's offline mode does (envs/run/wandb_offline.ts):
// the records in wandb's LevelDB-log datastore, the script under files/code, the recorded videos as media; with
// WANDB_MODE=disabled nothing is tracked; the run id travels in checkpoints so that --resume continues the run.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";

import { initTracking } from "../envs/run/logging.ts";
import { DatastoreWriter, OfflineRun, crc32 } from "../envs/run/wandb_offline.ts";
import { setupBackend } from "../envs/torch/backend.ts";
import { readCheckpoint, writeCheckpoint } from "../envs/torch/checkpoint.ts";
import { RandomGenerator } from "../envs/torch/rng.ts";
import * as ppo from "../ppo.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), "wandb-offline-"));
const cwd = process.cwd();
const mode = process.env.WANDB_MODE;

before(async () => {
  await setupBackend("cpu", { quiet: true });
  process.chdir(TMP);
});
after(() => {
  process.chdir(cwd);
  if (mode === undefined) delete process.env.WANDB_MODE;
  else process.env.WANDB_MODE = mode;
});

// ---- a reader of what the writer writes: the LevelDB log framing and the protobuf fields used ----

/** The records of a datastore file, each checked against its CRC and reassembled from its fragments. */
function readDatastore(file: string): Buffer[] {
  const bytes = fs.readFileSync(file);
  assert.equal(bytes.subarray(0, 4).toString("latin1"), ":W&B");
  assert.equal(bytes.readUInt16LE(4), 0xbee1);
  assert.equal(bytes[6], 0);
  const records: Buffer[] = [];
  let pending: Buffer[] = [];
  let at = 7;
  while (at < bytes.length) {
    if (32768 - (at % 32768) < 7) {
      at += 32768 - (at % 32768);
      continue;
    }
    const [checksum, length, type] = [bytes.readUInt32LE(at), bytes.readUInt16LE(at + 4), bytes[at + 6]];
    const data = bytes.subarray(at + 7, at + 7 + length);
    assert.equal(checksum, crc32(data, crc32(Uint8Array.of(type))), `record at byte ${at}: CRC`);
    pending.push(data);
    if (type === 1 || type === 4) {
      records.push(Buffer.concat(pending));
      pending = [];
    }
    at += 7 + length;
  }
  assert.equal(pending.length, 0, "no record left unfinished");
  return records;
}

type Fields = Map<number, (Buffer | number)[]>;

/** A protobuf message's fields: varints as numbers, length-delimited ones as bytes. */
function fields(b: Buffer): Fields {
  const out: Fields = new Map();
  let i = 0;
  const varint = () => {
    let v = 0;
    let scale = 1;
    for (;;) {
      const byte = b[i++];
      v += (byte & 0x7f) * scale;
      scale *= 128;
      if (byte < 0x80) return v;
    }
  };
  while (i < b.length) {
    const key = varint();
    const [field, wire] = [Math.floor(key / 8), key % 8];
    let value: Buffer | number;
    if (wire === 0) value = varint();
    else if (wire === 2) {
      const n = varint();
      value = b.subarray(i, i + n);
      i += n;
    } else throw new Error(`wire type ${wire}`);
    out.set(field, [...(out.get(field) ?? []), value]);
  }
  return out;
}
const str = (f: Fields, n: number) => (f.get(n)?.[0] as Buffer | undefined)?.toString("utf8");
const sub = (f: Fields, n: number) => fields((f.get(n)?.[0] as Buffer | undefined) ?? Buffer.alloc(0));
/** key → JSON value of a HistoryRecord / ConfigRecord / SummaryRecord's items (field 1, key 1, value_json 16). */
const itemsOf = (f: Fields) =>
  Object.fromEntries(
    (f.get(1) ?? []).map((b) => {
      const item = fields(b as Buffer);
      return [str(item, 1), JSON.parse(str(item, 16)!)];
    }),
  );

/** The run's records by kind (Record's field numbers), in file order. */
function records(runDir: string, id: string) {
  return readDatastore(path.join(runDir, `run-${id}.wandb`)).map((r) => {
    const f = fields(r);
    const kind = [...f.keys()].find((k) => k !== 1)!;
    return { num: f.get(1)?.[0] as number, kind, body: sub(f, kind) };
  });
}
const RUN = 17;
const HISTORY = 2;
const FILES = 6;
const SUMMARY = 3;
const EXIT = 18;
const FINAL = 20;
const HEADER = 21;

test("WANDB_MODE=offline writes the run as the Python SDK's offline mode: records, code, videos", async () => {
  process.env.WANDB_MODE = "offline";
  const lines: string[] = [];
  const name = "CartPole-v1__ppo__1__1";
  const tracker = await initTracking({
    project: "cleanRL",
    entity: null,
    name,
    config: { learningRate: 2.5e-4, envId: "CartPole-v1" },
    script: path.join(ROOT, "ppo.ts"),
    log: (l) => lines.push(l),
  });
  assert.ok(tracker instanceof OfflineRun);
  assert.match(
    lines[0],
    /^wandb: offline run "CartPole-v1__ppo__1__1" written to wandb\/offline-run-\d{8}_\d{6}-[a-z0-9]{8}; upload it later with `wandb sync /,
  );
  assert.equal(fs.readlinkSync(path.join("wandb", "latest-run")), path.basename(tracker.runDir));
  tracker.logScalar("charts/episodic_return", 10, 128);
  tracker.logScalar("charts/episodic_length", 10, 128);
  tracker.logScalar("losses/value_loss", 0.5, 512);
  fs.mkdirSync(path.join("videos", name), { recursive: true });
  fs.writeFileSync(path.join("videos", name, "rl-video-episode-0.mp4"), "not really an mp4");
  await tracker.finish();

  const recs = records(tracker.runDir, tracker.runId);
  assert.deepEqual(
    recs.map((r) => r.num),
    recs.map((_, i) => i + 1),
  );
  assert.deepEqual(
    recs.map((r) => r.kind),
    [HEADER, RUN, FILES, HISTORY, HISTORY, FILES, HISTORY, SUMMARY, EXIT, FINAL],
  );
  const run = recs[1].body;
  assert.equal(str(run, 1), tracker.runId);
  assert.equal(str(run, 3), "cleanRL");
  assert.equal(str(run, 8), name);
  assert.deepEqual(itemsOf(sub(run, 4)), { learningRate: 2.5e-4, envId: "CartPole-v1" });
  assert.equal(str(fields(recs[2].body.get(1)![0] as Buffer), 1), "code/ppo.ts");
  assert.equal(
    fs.readFileSync(path.join(tracker.runDir, "files", "code", "ppo.ts"), "utf8"),
    fs.readFileSync(path.join(ROOT, "ppo.ts"), "utf8"),
  );
  const row0 = itemsOf(recs[3].body);
  assert.deepEqual(
    { ...row0, _runtime: 0, _timestamp: 0 },
    {
      "charts/episodic_return": 10,
      "charts/episodic_length": 10,
      global_step: 128,
      _step: 0,
      _runtime: 0,
      _timestamp: 0,
    },
  );
  assert.equal(itemsOf(recs[4].body)["losses/value_loss"], 0.5);
  const mediaPath = str(fields(recs[5].body.get(1)![0] as Buffer), 1)!;
  assert.match(mediaPath, /^media\/videos\/videos_2_[0-9a-f]{20}\.mp4$/);
  assert.equal(fs.readFileSync(path.join(tracker.runDir, "files", mediaPath), "utf8"), "not really an mp4");
  assert.deepEqual(itemsOf(recs[6].body).videos._type, "video-file");
  assert.equal(itemsOf(recs[6].body).videos.path, mediaPath);
  assert.equal(itemsOf(recs[7].body)["losses/value_loss"], 0.5, "the summary holds the last values");
});

test("a record longer than a 32 KiB block is split across blocks and reads back whole", () => {
  const file = path.join(TMP, "split.wandb");
  const writer = new DatastoreWriter(file);
  const big = Buffer.alloc(70_000, 7);
  writer.write(Buffer.from("small"));
  writer.write(big);
  writer.write(Buffer.from("after"));
  writer.close();
  const read = readDatastore(file);
  assert.deepEqual(
    read.map((r) => r.length),
    [5, 70_000, 5],
  );
  assert.ok(read[1].equals(big));
});

test("WANDB_MODE=disabled tracks nothing and says so in one line", async () => {
  process.env.WANDB_MODE = "disabled";
  const lines: string[] = [];
  const before = fs.existsSync("wandb") ? fs.readdirSync("wandb").length : 0;
  const tracker = await initTracking({ project: "p", entity: null, name: "n", config: {}, log: (l) => lines.push(l) });
  assert.equal(tracker, null);
  assert.deepEqual(lines, ["wandb: tracking disabled (WANDB_MODE=disabled)"]);
  assert.equal(fs.existsSync("wandb") ? fs.readdirSync("wandb").length : 0, before);
});

test("the wandb run id travels in the checkpoint, and a resumed offline run continues that id", async () => {
  const agent = new ppo.Agent(4, 2);
  const file = path.join(TMP, "resume.safetensors");
  writeCheckpoint(file, "ppo.ts", agent.namedParameters(), null, {
    runName: "r",
    iteration: 1,
    globalStep: 512,
    rng: [new RandomGenerator(1).getState()],
    args: {},
    trackingRunId: "abc123xy",
  });
  const saved = readCheckpoint(file, "ppo.ts").progress!;
  assert.equal(saved.trackingRunId, "abc123xy");
  process.env.WANDB_MODE = "offline";
  const tracker = (await initTracking({
    project: "p",
    entity: null,
    name: "r",
    config: {},
    id: saved.trackingRunId,
    script: null,
    log: () => {},
  })) as OfflineRun;
  assert.equal(tracker.runId, "abc123xy");
  await tracker.finish();
  const run = records(tracker.runDir, "abc123xy")[1].body;
  assert.equal(str(run, 1), "abc123xy");
  assert.equal(run.get(18)?.[0], 1, "RunRecord.resumed");
});
