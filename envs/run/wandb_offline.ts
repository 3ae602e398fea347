// `WANDB_MODE=offline`: the run written to disk the way the Python SDK writes an offline run, for `wandb sync` to
// upload later. @wandb/sdk has no offline mode of its own (its `offline` setting drops every record and still
// needs the server to create the run), so the files are written here:
//
//   wandb/offline-run-<YYYYMMDD_HHMMSS>-<run id>/
//     run-<run id>.wandb     the run's records, as the SDK's internal process stores them
//     files/code/<script>    the variant's source (CleanRL's `save_code=True`)
//     files/media/videos/    the videos --capture-video recorded (CleanRL's `monitor_gym=True`)
//   wandb/latest-run         a link to the newest run folder
//
// run-<id>.wandb is a LevelDB log (leveldb doc/log_format.md) as wandb's datastore writes it: a 7-byte header
// (":W&B", magic 0xBEE1, version 0), then 32 KiB blocks of records, each `crc32 (IEEE, of the type byte and the
// data; not masked) u32 LE, length u16 LE, type u8` (FULL, or FIRST/MIDDLE/LAST for a record split across blocks);
// the first block's space starts after the header. Each record's data is a `wandb_internal.proto` Record:
//   Record      { int64 num = 1; HistoryRecord history = 2; SummaryRecord summary = 3; ConfigRecord config = 5;
//                 FilesRecord files = 6; RunRecord run = 17; RunExitRecord exit = 18; FinalRecord final = 20;
//                 HeaderRecord header = 21; }
//   RunRecord   { string run_id = 1; string entity = 2; string project = 3; ConfigRecord config = 4;
//                 string display_name = 8; string host = 13; Timestamp start_time = 17; bool resumed = 18; }
//   HistoryRecord { repeated HistoryItem item = 1; HistoryStep step = 2; }  HistoryStep { int64 num = 1; }
//   HistoryItem / ConfigItem / SummaryItem { string key = 1; string value_json = 16; }
//   ConfigRecord / SummaryRecord { repeated ... update = 1; }
//   FilesRecord { repeated FilesItem files = 1; }  FilesItem { string path = 1; PolicyType policy = 2 (NOW 0,
//                 END 1, LIVE 2); FileType type = 3 (OTHER 0, WANDB 1, MEDIA 2); }
//   RunExitRecord { int32 exit_code = 1; int32 runtime = 2; }  FinalRecord {}  HeaderRecord { VersionInfo
//                 version_info = 1; }  VersionInfo { string producer = 1; }  Timestamp { int64 seconds = 1;
//                 int32 nanos = 2; }
// (field numbers from wandb's wandb_internal.proto; benchmark/wandb_offline_check.py decodes a written run with
// the wandb package's own generated classes).

import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { ProtoWriter, type Tracker } from "./logging.ts";

const BLOCK = 32768;
const RECORD_HEADER = 7;
const FULL = 1;
const FIRST = 2;
const MIDDLE = 3;
const LAST = 4;

const CRC32_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
    table[i] = c >>> 0;
  }
  return table;
})();

/** zlib's crc32 of `data`, continuing from `crc`. */
export function crc32(data: Uint8Array, crc = 0): number {
  let c = ~crc >>> 0;
  for (let i = 0; i < data.length; i++) c = CRC32_TABLE[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

/** Appends records to a wandb datastore file (the LevelDB log framing above). */
export class DatastoreWriter {
  private readonly fd: number;
  private offset: number;

  constructor(readonly file: string) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    this.fd = fs.openSync(file, "w");
    const header = Buffer.alloc(7);
    header.write(":W&B", 0, "latin1");
    header.writeUInt16LE(0xbee1, 4);
    header.writeUInt8(0, 6);
    fs.writeSync(this.fd, header);
    this.offset = header.length;
  }

  write(data: Uint8Array): void {
    let at = 0;
    let first = true;
    let done = false;
    while (!done) {
      const left = BLOCK - (this.offset % BLOCK);
      if (left < RECORD_HEADER) {
        // No record starts in a block's last six bytes: they are zero padding.
        fs.writeSync(this.fd, Buffer.alloc(left));
        this.offset += left;
        continue;
      }
      const n = Math.min(data.length - at, left - RECORD_HEADER);
      const end = at + n === data.length;
      const type = first && end ? FULL : first ? FIRST : end ? LAST : MIDDLE;
      const chunk = data.subarray(at, at + n);
      const head = Buffer.alloc(RECORD_HEADER);
      head.writeUInt32LE(crc32(chunk, crc32(Uint8Array.of(type))), 0);
      head.writeUInt16LE(n, 4);
      head.writeUInt8(type, 6);
      fs.writeSync(this.fd, head);
      fs.writeSync(this.fd, chunk);
      this.offset += RECORD_HEADER + n;
      at += n;
      first = false;
      done = end;
    }
  }

  close(): void {
    fs.fsyncSync(this.fd);
    fs.closeSync(this.fd);
  }
}

// Record's fields.
const RECORD_NUM = 1;
const RECORD_HISTORY = 2;
const RECORD_SUMMARY = 3;
const RECORD_FILES = 6;
const RECORD_RUN = 17;
const RECORD_EXIT = 18;
const RECORD_FINAL = 20;
const RECORD_HEADER_RECORD = 21;
const ITEM_KEY = 1;
const ITEM_VALUE_JSON = 16;
const FILE_POLICY_NOW = 0;
const FILE_TYPE_OTHER = 0;
const FILE_TYPE_MEDIA = 2;

function items(values: Record<string, unknown>): ProtoWriter[] {
  return Object.entries(values).map(([k, v]) =>
    new ProtoWriter().string(ITEM_KEY, k).string(ITEM_VALUE_JSON, JSON.stringify(v)),
  );
}

function repeated(w: ProtoWriter, field: number, subs: ProtoWriter[]): ProtoWriter {
  for (const s of subs) w.message(field, s);
  return w;
}

export interface OfflineRunOptions {
  project: string;
  entity: string | null;
  name: string;
  config: Record<string, unknown>;
  /** The run id to continue (a resumed run); a new one otherwise. */
  id?: string | null;
  /** The folder that holds `wandb/` (default: the working directory, as the SDK's default `dir`). */
  dir?: string;
  /** The variant's source, saved with the run. */
  script?: string | null;
  /** Folders whose new .mp4 files are logged as videos (the RecordVideo folders of the run). */
  videoDirs?: string[];
}

/** A run id as wandb generates them: 8 characters of [a-z0-9]. */
function generateId(): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  return Array.from(randomBytes(8), (b) => alphabet[b % alphabet.length]).join("");
}

/** `wandb.init(mode="offline")`: a Tracker that writes the run to disk. */
export class OfflineRun implements Tracker {
  readonly runId: string;
  readonly url: string;
  /** The run's folder, `wandb/offline-run-<time>-<id>`. */
  readonly runDir: string;
  private readonly store: DatastoreWriter;
  private readonly started = Date.now();
  private readonly videoDirs: string[];
  private readonly seenVideos = new Set<string>();
  private row: Record<string, number> = {};
  private rowStep = 0;
  private rowSize = 0;
  private history = 0;
  private num = 0;
  private lastVideoScan = 0;
  private summary: Record<string, unknown> = {};
  private finished: Promise<void> | null = null;

  constructor(opts: OfflineRunOptions) {
    this.runId = opts.id || generateId();
    const stamp = new Date(this.started).toISOString().replace(/[-:]/g, "").replace("T", "_").slice(0, 15);
    const wandbDir = path.join(opts.dir ?? ".", "wandb");
    this.runDir = path.join(wandbDir, `offline-run-${stamp}-${this.runId}`);
    this.url = this.runDir;
    this.videoDirs = opts.videoDirs ?? [];
    this.store = new DatastoreWriter(path.join(this.runDir, `run-${this.runId}.wandb`));
    fs.mkdirSync(path.join(this.runDir, "files"), { recursive: true });
    const latest = path.join(wandbDir, "latest-run");
    fs.rmSync(latest, { force: true });
    fs.symlinkSync(path.basename(this.runDir), latest);

    this.record(RECORD_HEADER_RECORD, new ProtoWriter().message(1, new ProtoWriter().string(1, "ppo.ts")));
    const config = repeated(new ProtoWriter(), 1, items(opts.config));
    const run = new ProtoWriter().string(1, this.runId);
    if (opts.entity) run.string(2, opts.entity);
    run.string(3, opts.project).message(4, config).string(8, opts.name).string(13, os.hostname());
    const seconds = Math.floor(this.started / 1000);
    run.message(17, new ProtoWriter().int64(1, seconds).int64(2, (this.started % 1000) * 1e6));
    if (opts.id) run.int64(18, 1);
    this.record(RECORD_RUN, run);
    if (opts.script) this.saveCode(opts.script);
  }

  private record(field: number, body: ProtoWriter): void {
    const record = new ProtoWriter()
      .int64(RECORD_NUM, ++this.num)
      .message(field, body)
      .finish();
    this.store.write(record);
  }

  private files(entries: { path: string; type: number }[]): void {
    const w = new ProtoWriter();
    for (const e of entries)
      w.message(1, new ProtoWriter().string(1, e.path).int64(2, FILE_POLICY_NOW).int64(3, e.type));
    this.record(RECORD_FILES, w);
  }

  /** CleanRL's `save_code=True`: the script under files/code/, uploaded by `wandb sync`. */
  saveCode(script: string): void {
    const relative = path.join("code", path.basename(script));
    fs.mkdirSync(path.join(this.runDir, "files", "code"), { recursive: true });
    fs.copyFileSync(script, path.join(this.runDir, "files", relative));
    this.files([{ path: relative, type: FILE_TYPE_OTHER }]);
  }

  logScalar(tag: string, value: number, step: number): void {
    if (this.finished !== null) return;
    if (this.rowSize > 0 && (step !== this.rowStep || tag in this.row)) this.flush();
    this.row[tag] = value;
    this.rowStep = step;
    this.rowSize++;
  }

  // One history row per global step with a global_step column, as WandbTracker sends them (logging.ts); `_step`
  // counts rows, `_runtime` and `_timestamp` are what the SDK adds to each.
  private writeRow(values: Record<string, unknown>): void {
    const now = Date.now();
    const row = { ...values, _step: this.history, _runtime: (now - this.started) / 1000, _timestamp: now / 1000 };
    const history = repeated(new ProtoWriter(), 1, items(row)).message(2, new ProtoWriter().int64(1, this.history));
    this.record(RECORD_HISTORY, history);
    this.history++;
    Object.assign(this.summary, row);
  }

  flush(): void {
    if (this.finished !== null) return;
    if (this.rowSize > 0) {
      this.writeRow({ ...this.row, global_step: this.rowStep });
      this.row = {};
      this.rowSize = 0;
    }
    if (Date.now() - this.lastVideoScan >= 1000) this.scanVideos();
  }

  /** Logs the videos that appeared in the watched folders since the last look (RecordVideo writes each whole). */
  scanVideos(): void {
    this.lastVideoScan = Date.now();
    for (const dir of this.videoDirs) {
      let names: string[];
      try {
        names = fs
          .readdirSync(dir)
          .filter((n) => n.endsWith(".mp4"))
          .sort();
      } catch {
        continue;
      }
      for (const name of names) {
        const file = path.join(dir, name);
        if (this.seenVideos.has(file)) continue;
        this.seenVideos.add(file);
        this.logVideo(file);
      }
    }
  }

  /** `wandb.log({"videos": wandb.Video(file)})`, as wandb's gym monitor logs each recorded video. */
  logVideo(file: string): void {
    const bytes = fs.readFileSync(file);
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const relative = path.posix.join("media", "videos", `videos_${this.history}_${sha256.slice(0, 20)}.mp4`);
    fs.mkdirSync(path.join(this.runDir, "files", "media", "videos"), { recursive: true });
    fs.writeFileSync(path.join(this.runDir, "files", relative), bytes);
    this.files([{ path: relative, type: FILE_TYPE_MEDIA }]);
    this.writeRow({ videos: { _type: "video-file", path: relative, sha256, size: bytes.length } });
  }

  finish(): Promise<void> {
    if (this.finished === null) {
      this.flush();
      this.scanVideos();
      const summary = Object.fromEntries(Object.entries(this.summary).filter(([k]) => k !== "_step"));
      this.record(RECORD_SUMMARY, repeated(new ProtoWriter(), 1, items(summary)));
      const runtime = Math.round((Date.now() - this.started) / 1000);
      this.record(RECORD_EXIT, new ProtoWriter().int64(1, 0).int64(2, runtime));
      this.record(RECORD_FINAL, new ProtoWriter());
      this.store.close();
      this.finished = Promise.resolve();
    }
    return this.finished;
  }
}
