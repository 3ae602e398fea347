// Run logging: what a CleanRL script gets from `torch.utils.tensorboard.SummaryWriter`
// and from `wandb.init(..., sync_tensorboard=True)`.
//
// SummaryWriter writes real TensorBoard event files (`tensorboard --logdir runs` reads
// them) in pure TypeScript. The issue suggested `tf.node.summaryFileWriter` when the
// native tfjs-node backend is loaded; we deliberately don't switch: that writer produces
// this same format (TFRecord-framed `tensorflow.Event` protos), so one implementation
// gives identical files on every backend (wasm, cpu, webgl, node) without a native
// dependency, and there is only one code path to test.
//
// Format references (field numbers are cited where they are used):
//   tensorflow/core/util/event.proto, core/framework/summary.proto, tensor.proto,
//   tensor_shape.proto, types.proto (tensorboard/compat/proto has the same numbers);
//   TFRecord framing from tensorflow/core/lib/io/record_writer.cc;
//   torch.utils.tensorboard.summary (`scalar`, `text`) for what the Summary values hold.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";

// ---------------------------------------------------------------------------
// CRC32C (Castagnoli), as TFRecord uses it
// ---------------------------------------------------------------------------

// Reflected polynomial of CRC-32C (iSCSI / Castagnoli), not zlib's 0xedb88320.
const CRC32C_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    table[i] = c >>> 0;
  }
  return table;
})();

/** CRC-32C of `data[start, end)`; crc32c("123456789") === 0xe3069283. */
export function crc32c(data: Uint8Array, start = 0, end = data.length): number {
  let c = 0xffffffff;
  for (let i = start; i < end; i++) c = CRC32C_TABLE[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

// TFRecord stores CRCs "masked" (rotate right by 15, add a constant) because computing
// a CRC over data that itself embeds CRCs is weak (tensorflow/core/lib/hash/crc32c.h).
function maskedCrc32c(data: Uint8Array, start = 0, end = data.length): number {
  const crc = crc32c(data, start, end);
  return ((((crc >>> 15) | (crc << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

// ---------------------------------------------------------------------------
// Minimal protobuf encoding
// ---------------------------------------------------------------------------

// Wire types from the protobuf encoding spec.
const VARINT = 0;
const FIXED64 = 1;
const LEN = 2;
const FIXED32 = 5;

export class ProtoWriter {
  private buf = Buffer.allocUnsafe(64);
  private len = 0;

  private reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(2 * this.buf.length, this.len + n));
    this.buf.copy(grown, 0, 0, this.len);
    this.buf = grown;
  }

  varint(v: number): this {
    this.reserve(10);
    if (v < 0) {
      // int64 fields encode negatives as 10-byte two's complement varints.
      let x = BigInt.asUintN(64, BigInt(v));
      while (x >= 0x80n) {
        this.buf[this.len++] = Number(x & 0x7fn) | 0x80;
        x >>= 7n;
      }
      this.buf[this.len++] = Number(x);
      return this;
    }
    // Arithmetic instead of bit ops: steps can exceed 2^31.
    while (v >= 0x80) {
      this.buf[this.len++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.len++] = v;
    return this;
  }

  key(field: number, wire: number): this {
    return this.varint(field * 8 + wire);
  }

  double(field: number, v: number): this {
    this.key(field, FIXED64).reserve(8);
    this.len = this.buf.writeDoubleLE(v, this.len);
    return this;
  }

  float(field: number, v: number): this {
    this.key(field, FIXED32).reserve(4);
    this.len = this.buf.writeFloatLE(v, this.len);
    return this;
  }

  // proto3 leaves fields at their default (0) off the wire; Python's serializer does too,
  // so e.g. step 0 produces the same bytes as torch's writer.
  int64(field: number, v: number): this {
    return v === 0 ? this : this.key(field, VARINT).varint(v);
  }

  bytes(field: number, data: Uint8Array): this {
    this.key(field, LEN).varint(data.length).reserve(data.length);
    this.buf.set(data, this.len);
    this.len += data.length;
    return this;
  }

  string(field: number, s: string): this {
    return this.bytes(field, Buffer.from(s, "utf8"));
  }

  message(field: number, sub: ProtoWriter): this {
    return this.bytes(field, sub.finish());
  }

  finish(): Buffer {
    return this.buf.subarray(0, this.len);
  }
}

// ---------------------------------------------------------------------------
// Event encoding. Fields are written in field-number order, as protobuf serializers
// do, so the bytes match what torch/tensorboard's Python writer produces.
// ---------------------------------------------------------------------------

// event.proto: Event { double wall_time = 1; int64 step = 2; oneof what {
//   string file_version = 3; Summary summary = 5; SessionLog session_log = 7; ... } SourceMetadata source_metadata = 10; }
// SourceMetadata { string writer = 1; }  SessionLog { SessionStatus status = 1; }  SessionStatus START = 1.
const EVENT_WALL_TIME = 1;
const EVENT_STEP = 2;
const EVENT_FILE_VERSION = 3;
const EVENT_SUMMARY = 5;
const EVENT_SESSION_LOG = 7;
const EVENT_SOURCE_METADATA = 10;
const SOURCE_WRITER = 1;
const SESSION_STATUS = 1;
const SESSION_START = 1;
// summary.proto: Summary { repeated Value value = 1; }
// Value { string tag = 1; float simple_value = 2; TensorProto tensor = 8; SummaryMetadata metadata = 9; }
// SummaryMetadata { PluginData plugin_data = 1; }  PluginData { string plugin_name = 1; bytes content = 2; }
const SUMMARY_VALUE = 1;
const VALUE_TAG = 1;
const VALUE_SIMPLE_VALUE = 2;
const VALUE_TENSOR = 8;
const VALUE_METADATA = 9;
const METADATA_PLUGIN_DATA = 1;
const PLUGIN_NAME = 1;
// tensor.proto: TensorProto { DataType dtype = 1; TensorShapeProto tensor_shape = 2; repeated bytes string_val = 8; }
// tensor_shape.proto: TensorShapeProto { repeated Dim dim = 2; }  Dim { int64 size = 1; }
// types.proto: DT_STRING = 7.
const TENSOR_DTYPE = 1;
const TENSOR_SHAPE = 2;
const TENSOR_STRING_VAL = 8;
const SHAPE_DIM = 2;
const DIM_SIZE = 1;
const DT_STRING = 7;

// What TensorBoard's own writers put in the first record of every file; readers use it
// to recognise the format version.
const FILE_VERSION = "brain.Event:2";
const WRITER_NAME = "ppo.ts envs/run/logging.ts";

function eventBytes(wallTime: number, step: number, summaryValue: ProtoWriter): Buffer {
  return new ProtoWriter()
    .double(EVENT_WALL_TIME, wallTime)
    .int64(EVENT_STEP, step)
    .message(EVENT_SUMMARY, new ProtoWriter().message(SUMMARY_VALUE, summaryValue))
    .finish();
}

// TFRecord framing (record_writer.cc): uint64 length LE, masked crc32c of those 8 bytes,
// the data, masked crc32c of the data; all little-endian.
function frameRecord(data: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(data.length + 16);
  out.writeBigUInt64LE(BigInt(data.length), 0);
  out.writeUInt32LE(maskedCrc32c(out, 0, 8), 8);
  out.set(data, 12);
  out.writeUInt32LE(maskedCrc32c(data), 12 + data.length);
  return out;
}

// ---------------------------------------------------------------------------
// SummaryWriter
// ---------------------------------------------------------------------------

export interface SummaryWriterOptions {
  /** Write buffered records at most this often (torch flushes every 120 s; we keep crash loss small). */
  flushSecs?: number;
  /** ...or as soon as this many records are buffered. */
  maxQueue?: number;
  /**
   * torch's `purge_step`, for a run resumed from a checkpoint: a SessionLog START event at this step, after which
   * TensorBoard drops what earlier files of the run logged at this step or later (the crashed run's steps past
   * its last checkpoint), so the run's curves continue without a doubled stretch.
   */
  purgeStep?: number;
}

// torch's EventFileWriter appends `.{pid}.{counter}` so that two writers created in the
// same second by one process never share a file.
let fileCounter = 0;

export class SummaryWriter {
  readonly logDir: string;
  /** Path of the event file this writer appends to. */
  readonly filePath: string;
  private readonly tracker: Tracker | null;
  private readonly flushMs: number;
  private readonly maxQueue: number;
  private readonly fd: number;
  private pending: Buffer[] = [];
  private lastWrite = Date.now();
  private closed = false;
  private readonly timer: NodeJS.Timeout;
  private readonly onExit = (): void => this.writePending();

  /**
   * torch: `SummaryWriter(f"runs/{run_name}")`. With a `tracker` (from initTracking),
   * every addScalar is also sent to it: CleanRL's `wandb.init(sync_tensorboard=True)`.
   */
  constructor(logDir: string, tracker: Tracker | null = null, options: SummaryWriterOptions = {}) {
    this.logDir = logDir;
    this.tracker = tracker;
    this.flushMs = (options.flushSecs ?? 2) * 1000;
    this.maxQueue = options.maxQueue ?? 100;
    fs.mkdirSync(logDir, { recursive: true });

    // Named as tensorboard's EventFileWriter (which torch uses) names it:
    // events.out.tfevents.%010d.<hostname>.<pid>.<counter>. TensorBoard itself picks up
    // any file whose name contains "tfevents".
    const seconds = String(Math.floor(Date.now() / 1000)).padStart(10, "0");
    let fd = -1;
    let filePath = "";
    while (fd < 0) {
      filePath = path.join(logDir, `events.out.tfevents.${seconds}.${os.hostname()}.${process.pid}.${fileCounter++}`);
      try {
        fd = fs.openSync(filePath, "wx");
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      }
    }
    this.fd = fd;
    this.filePath = filePath;

    // First record: the file_version event (plus source_metadata, which current
    // tensorboard writers add to the first event only), written immediately like TF does.
    const first = new ProtoWriter()
      .double(EVENT_WALL_TIME, Date.now() / 1000)
      .string(EVENT_FILE_VERSION, FILE_VERSION)
      .message(EVENT_SOURCE_METADATA, new ProtoWriter().string(SOURCE_WRITER, WRITER_NAME))
      .finish();
    this.pending.push(frameRecord(first));
    if (options.purgeStep !== undefined) {
      const start = new ProtoWriter().int64(SESSION_STATUS, SESSION_START);
      this.pending.push(
        frameRecord(
          new ProtoWriter()
            .double(EVENT_WALL_TIME, Date.now() / 1000)
            .int64(EVENT_STEP, options.purgeStep)
            .message(EVENT_SESSION_LOG, start)
            .finish(),
        ),
      );
    }
    this.writePending();

    // The timer covers a script that logs and then sits in a long await (evaluation,
    // a slow iteration); the exit hook covers normal exits and uncaught exceptions.
    // Only SIGKILL / default SIGINT lose what is buffered (at most flushSecs of data).
    this.timer = setInterval(() => {
      try {
        this.writePending();
      } catch (e) {
        // A failing disk must not crash training from a timer; explicit flush()/close() still throw.
        console.error(`SummaryWriter: cannot write ${this.filePath}: ${(e as Error).message}`);
      }
    }, this.flushMs);
    this.timer.unref();
    process.on("exit", this.onExit);
  }

  /** torch: `writer.add_scalar(tag, scalar_value, global_step)`. Stored as float32, like TensorBoard. */
  addScalar(tag: string, value: number, step: number): void {
    this.checkOpen(step);
    const v = new ProtoWriter().string(VALUE_TAG, tag).float(VALUE_SIMPLE_VALUE, value);
    this.enqueue(eventBytes(Date.now() / 1000, step, v));
    this.tracker?.logScalar(tag, value, step);
  }

  /**
   * torch: `writer.add_text(tag, text_string, global_step)`. Like torch, the stored tag is
   * `${tag}/text_summary` and the value is a DT_STRING tensor of shape [1] owned by the
   * "text" plugin, which TensorBoard's Text tab renders as markdown (CleanRL's
   * hyperparameter table). Not forwarded to the tracker: wandb gets the hyperparameters
   * as the run config.
   */
  addText(tag: string, text: string, step = 0): void {
    this.checkOpen(step);
    const tensor = new ProtoWriter()
      .int64(TENSOR_DTYPE, DT_STRING)
      .message(TENSOR_SHAPE, new ProtoWriter().message(SHAPE_DIM, new ProtoWriter().int64(DIM_SIZE, 1)))
      .string(TENSOR_STRING_VAL, text);
    // torch sets PluginData.content to TextPluginData(version=0), which serializes to
    // zero bytes and is therefore left off the wire.
    const metadata = new ProtoWriter().message(METADATA_PLUGIN_DATA, new ProtoWriter().string(PLUGIN_NAME, "text"));
    const v = new ProtoWriter()
      .string(VALUE_TAG, `${tag}/text_summary`)
      .message(VALUE_TENSOR, tensor)
      .message(VALUE_METADATA, metadata);
    this.enqueue(eventBytes(Date.now() / 1000, step, v));
  }

  /** Write everything buffered to the file, and send the tracker's pending row. */
  flush(): void {
    this.writePending();
    this.tracker?.flush();
  }

  /**
   * Flush and close the file. If a tracker is attached its run is finished too (in the
   * background; `await tracker.finish()` to wait for it): CleanRL's scripts end with
   * `writer.close()` and rely on wandb finishing at exit, while @wandb/sdk keeps the
   * process alive until its run is finished.
   */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    clearInterval(this.timer);
    process.removeListener("exit", this.onExit);
    fs.closeSync(this.fd);
    if (this.tracker) void this.tracker.finish();
  }

  private checkOpen(step: number): void {
    if (this.closed) throw new Error(`SummaryWriter for ${this.logDir} is closed`);
    if (!Number.isSafeInteger(step)) throw new TypeError(`step must be an integer, got ${step}`);
  }

  private enqueue(event: Buffer): void {
    this.pending.push(frameRecord(event));
    if (this.pending.length >= this.maxQueue || Date.now() - this.lastWrite >= this.flushMs) this.writePending();
  }

  private writePending(): void {
    this.lastWrite = Date.now();
    if (this.pending.length === 0 || this.closed) return;
    const chunk = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending);
    this.pending = [];
    try {
      for (let off = 0; off < chunk.length; ) off += fs.writeSync(this.fd, chunk, off);
    } catch (e) {
      const reason = (e as NodeJS.ErrnoException).code === "ENOSPC" ? "the disk is full" : (e as Error).message;
      throw new Error(`cannot write TensorBoard event file ${this.filePath}: ${reason}`);
    }
  }
}

// ---------------------------------------------------------------------------
// Reading event files back (tests, and benchmark scripts that read learning curves)
// ---------------------------------------------------------------------------

/** The records of a TFRecord file, each checked against both of its CRCs. */
export function readRecords(filePath: string): Buffer[] {
  const buf = fs.readFileSync(filePath);
  const records: Buffer[] = [];
  let pos = 0;
  while (pos < buf.length) {
    if (pos + 12 > buf.length) throw new Error(`${filePath}: truncated record header at byte ${pos}`);
    if (buf.readUInt32LE(pos + 8) !== maskedCrc32c(buf, pos, pos + 8)) {
      throw new Error(`${filePath}: length CRC mismatch at byte ${pos}`);
    }
    const length = Number(buf.readBigUInt64LE(pos));
    const start = pos + 12;
    const end = start + length;
    if (end + 4 > buf.length) throw new Error(`${filePath}: truncated record at byte ${pos}`);
    if (buf.readUInt32LE(end) !== maskedCrc32c(buf, start, end)) {
      throw new Error(`${filePath}: data CRC mismatch in record at byte ${pos}`);
    }
    records.push(buf.subarray(start, end));
    pos = end + 4;
  }
  return records;
}

interface ProtoField {
  field: number;
  wire: number;
  /** The value of a varint field. */
  int: number;
  /** The payload of a length-delimited or fixed-width field. */
  data: Uint8Array;
}

function readVarint(buf: Uint8Array, pos: number): [value: number, next: number] {
  let value = 0;
  let scale = 1;
  const begin = pos;
  for (;;) {
    if (pos >= buf.length) throw new Error("truncated varint");
    const b = buf[pos++];
    value += (b & 0x7f) * scale;
    scale *= 128;
    if ((b & 0x80) === 0) break;
    if (pos - begin >= 10) throw new Error("varint longer than 10 bytes");
  }
  if (value >= 2 ** 63) {
    // A negative int64 (10-byte two's complement): redo exactly with BigInt.
    let x = 0n;
    for (let i = pos - 1; i >= begin; i--) x = (x << 7n) | BigInt(buf[i] & 0x7f);
    value = Number(BigInt.asIntN(64, x));
  }
  return [value, pos];
}

function parseFields(buf: Uint8Array): ProtoField[] {
  const fields: ProtoField[] = [];
  const empty = new Uint8Array(0);
  let pos = 0;
  while (pos < buf.length) {
    let key: number;
    [key, pos] = readVarint(buf, pos);
    const field = Math.floor(key / 8);
    const wire = key & 7;
    let int = 0;
    let size = 0;
    if (wire === VARINT) [int, pos] = readVarint(buf, pos);
    else if (wire === FIXED64) size = 8;
    else if (wire === FIXED32) size = 4;
    else if (wire === LEN) [size, pos] = readVarint(buf, pos);
    else throw new Error(`unsupported protobuf wire type ${wire}`);
    if (pos + size > buf.length) throw new Error("truncated protobuf field");
    fields.push({ field, wire, int, data: size ? buf.subarray(pos, pos + size) : empty });
    pos += size;
  }
  return fields;
}

const view = (d: Uint8Array): DataView => new DataView(d.buffer, d.byteOffset, d.byteLength);
const utf8 = new TextDecoder();

export interface DecodedValue {
  tag: string;
  /** simple_value, when the value is a scalar. */
  value?: number;
  /** First string_val of a string tensor (text summaries). */
  text?: string;
  pluginName?: string;
}

export interface DecodedEvent {
  wallTime: number;
  step: number;
  fileVersion?: string;
  /** SessionLog status (1 = START), when the event is one. */
  sessionStatus?: number;
  values: DecodedValue[];
}

/** Decode one Event record (only the fields this module writes; others are skipped). */
export function decodeEvent(data: Uint8Array): DecodedEvent {
  const event: DecodedEvent = { wallTime: 0, step: 0, values: [] };
  for (const f of parseFields(data)) {
    if (f.field === EVENT_WALL_TIME && f.wire === FIXED64) event.wallTime = view(f.data).getFloat64(0, true);
    else if (f.field === EVENT_STEP && f.wire === VARINT) event.step = f.int;
    else if (f.field === EVENT_FILE_VERSION && f.wire === LEN) event.fileVersion = utf8.decode(f.data);
    else if (f.field === EVENT_SESSION_LOG && f.wire === LEN) {
      event.sessionStatus = 0;
      for (const s of parseFields(f.data))
        if (s.field === SESSION_STATUS && s.wire === VARINT) event.sessionStatus = s.int;
    } else if (f.field === EVENT_SUMMARY && f.wire === LEN) {
      for (const s of parseFields(f.data)) if (s.field === SUMMARY_VALUE) event.values.push(decodeValue(s.data));
    }
  }
  return event;
}

function decodeValue(data: Uint8Array): DecodedValue {
  const value: DecodedValue = { tag: "" };
  for (const f of parseFields(data)) {
    if (f.field === VALUE_TAG) value.tag = utf8.decode(f.data);
    else if (f.field === VALUE_SIMPLE_VALUE && f.wire === FIXED32) value.value = view(f.data).getFloat32(0, true);
    else if (f.field === VALUE_TENSOR) {
      const strings = parseFields(f.data).filter((t) => t.field === TENSOR_STRING_VAL);
      if (strings.length > 0) value.text = utf8.decode(strings[0].data);
    } else if (f.field === VALUE_METADATA) {
      for (const m of parseFields(f.data)) {
        if (m.field !== METADATA_PLUGIN_DATA) continue;
        for (const p of parseFields(m.data)) if (p.field === PLUGIN_NAME) value.pluginName = utf8.decode(p.data);
      }
    }
  }
  return value;
}

export interface EventEntry {
  step: number;
  wallTime: number;
  tag: string;
  /** The scalar (float32 precision); NaN for text entries. */
  value: number;
  /** Set for text summaries (tag ends in "/text_summary"). */
  text?: string;
}

/**
 * Scalars and text summaries of an event file, in file order. Every record's CRCs are
 * verified: a corrupted file throws rather than yielding wrong numbers.
 */
export function readEventFile(filePath: string): EventEntry[] {
  const entries: EventEntry[] = [];
  for (const record of readRecords(filePath)) pushEntries(entries, decodeEvent(record));
  return entries;
}

function pushEntries(entries: EventEntry[], event: DecodedEvent): void {
  for (const v of event.values) {
    if (v.value !== undefined) entries.push({ step: event.step, wallTime: event.wallTime, tag: v.tag, value: v.value });
    else if (v.text !== undefined)
      entries.push({ step: event.step, wallTime: event.wallTime, tag: v.tag, value: NaN, text: v.text });
  }
}

/**
 * A run directory's scalars and texts as TensorBoard shows them: its event files in name order (the names start
 * with the creation time), where a SessionLog START at step s (`purgeStep`) drops what was read before at steps
 * s and later (tensorboard's EventAccumulator purge).
 */
export function readRunDir(logDir: string): EventEntry[] {
  let entries: EventEntry[] = [];
  for (const name of fs
    .readdirSync(logDir)
    .filter((n) => n.includes("tfevents"))
    .sort()) {
    for (const record of readRecords(path.join(logDir, name))) {
      const event = decodeEvent(record);
      if (event.sessionStatus === SESSION_START) entries = entries.filter((e) => e.step < event.step);
      pushEntries(entries, event);
    }
  }
  return entries;
}

// ---------------------------------------------------------------------------
// wandb tracking (CleanRL's --track / --wandb-project-name / --wandb-entity)
// ---------------------------------------------------------------------------

/** Where SummaryWriter forwards scalars when tracking is on. */
export interface Tracker {
  /** Where the run can be watched. */
  readonly url: string;
  /** The wandb run id: what a checkpoint keeps so that a resumed run continues this run (`--resume`). */
  readonly runId?: string | null;
  logScalar(tag: string, value: number, step: number): void;
  /** Send the row being collected for the current step. Never throws. */
  flush(): void;
  /** Flush and finish the run. Idempotent; never throws or rejects. */
  finish(): Promise<void>;
}

export interface TrackingOptions {
  project: string;
  entity: string | null;
  name: string;
  config: Record<string, unknown>;
  /** Passed to wandb.init; @wandb/sdk 0.5.1 writes no local files, so it is unused today. */
  dir?: string;
  /** Give up on connecting after this long (default 30 s); also bounds finish(). */
  timeoutMs?: number;
  /** Where the one status line goes (default console.log). */
  log?: (line: string) => void;
  /** The id of the run to continue (from the checkpoint `--resume` reads); offline runs only, see initTracking. */
  id?: string | null;
  /** The script saved with the run (CleanRL's `save_code=True`; default: the one this process runs). */
  script?: string | null;
  /** Folders whose videos are logged (CleanRL's `monitor_gym=True`; default `videos/<name>` and `videos/<name>-eval`). */
  videoDirs?: string[];
}

// The subset of @wandb/sdk's Run we use (its type isn't exported from the package root).
interface WandbRun {
  log(data: Record<string, unknown>, step?: number, commit?: boolean): void;
  finish(code?: number): Promise<void>;
  url(): string;
}

/**
 * Start a wandb run, or print one line saying why not and return null. Never throws and
 * never waits longer than `timeoutMs`: tracking is a convenience, training goes on
 * without it.
 */
export async function initTracking(opts: TrackingOptions): Promise<Tracker | null> {
  const log = opts.log ?? ((line: string) => console.log(line));
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const disabled = (reason: string): null => {
    log(`wandb: tracking disabled: ${reason}; set WANDB_API_KEY and check network, or run without --track`);
    return null;
  };
  try {
    // The same environment variables the Python client and @wandb/sdk read.
    const mode = process.env.WANDB_MODE || "online";
    if (mode === "disabled") {
      log("wandb: tracking disabled (WANDB_MODE=disabled)");
      return null;
    }
    if (mode === "offline" || mode === "dryrun") {
      // @wandb/sdk's own offline setting drops every record and still needs the server: the run is written to disk
      // here instead, for `wandb sync` (envs/run/wandb_offline.ts).
      const { OfflineRun } = await import("./wandb_offline.ts");
      const script = opts.script === undefined ? process.argv[1] : opts.script;
      const run = new OfflineRun({
        project: opts.project,
        entity: opts.entity,
        name: opts.name,
        config: opts.config,
        id: opts.id,
        dir: opts.dir,
        script: script && fs.existsSync(script) ? script : null,
        videoDirs: opts.videoDirs ?? [path.join("videos", opts.name), path.join("videos", `${opts.name}-eval`)],
      });
      log(
        `wandb: offline run "${opts.name}" written to ${run.runDir}; upload it later with \`wandb sync ${run.runDir}\``,
      );
      return run;
    }
    if (mode !== "online" && mode !== "run") {
      return disabled(`WANDB_MODE=${mode} is not one of online, offline, disabled`);
    }
    const baseUrl = (process.env.WANDB_BASE_URL || "https://api.wandb.ai").replace(/\/+$/, "");
    const host = new URL(baseUrl).host;
    const apiKey = process.env.WANDB_API_KEY || netrcPassword(host);
    if (!apiKey) {
      // Checked here because @wandb/sdk would otherwise prompt on stdin for a key.
      return disabled(`no API key (WANDB_API_KEY is unset and ~/.netrc has no entry for ${host})`);
    }
    const deadline = Date.now() + timeoutMs;

    // Preflight with our own bounded request: @wandb/sdk retries failed requests for
    // many minutes, logs whole stack traces, and has no timeout of its own, so catching
    // "no network" and "bad key" here is what keeps the failure to one line.
    const viewer = await fetchViewer(baseUrl, apiKey, timeoutMs);
    if (opts.entity && viewer.entities && !viewer.entities.includes(opts.entity)) {
      return disabled(`entity "${opts.entity}" is not one of this API key's (${viewer.entities.join(", ")})`);
    }

    // Loaded lazily so that runs without --track never load the SDK and its dependencies.
    const { default: wandb } = await import("@wandb/sdk");
    installSdkGuards();
    sdkQuiet = true;
    sdkNote = "";
    const failed = new Promise<never>((_, reject) => {
      sdkErrorSink = reject;
    });
    const started: Promise<WandbRun> = wandb.init({
      project: opts.project,
      entity: opts.entity ?? undefined,
      name: opts.name,
      // The W&B backend stores config as {key: {desc, value}} (the Python client's
      // config_util.dict_add_value_dict); @wandb/sdk sends whatever it is given.
      config: Object.fromEntries(Object.entries(opts.config).map(([k, v]) => [k, { desc: null, value: v }])),
      dir: opts.dir,
      settings: { apiKey, baseUrl, silent: true },
    });
    let run: WandbRun;
    try {
      run = await withTimeout(Promise.race([started, failed]), Math.max(0, deadline - Date.now()), "wandb.init");
    } catch (e) {
      sdkErrorSink = null;
      sdkQuiet = false;
      const note = sdkNote;
      // If the run shows up after we gave up, finish it so its upload loop doesn't keep
      // the process alive.
      started.then(
        (late) => late.finish().catch(() => undefined),
        () => undefined,
      );
      throw new Error(note ? `${reasonOf(e)} (${note})` : reasonOf(e));
    }
    sdkQuiet = false;
    const tracker = new WandbTracker(run, run.url(), (run as { id?: string }).id ?? null, log, timeoutMs);
    sdkErrorSink = (e) => tracker.fail(e);
    log(`wandb: tracking run "${opts.name}" at ${tracker.url}`);
    return tracker;
  } catch (e) {
    return disabled(reasonOf(e));
  }
}

class WandbTracker implements Tracker {
  private row: Record<string, number> = {};
  private rowStep = 0;
  private rowSize = 0;
  private dead = false;
  private finishing: Promise<void> | null = null;

  constructor(
    private readonly run: WandbRun,
    readonly url: string,
    readonly runId: string | null,
    private readonly log: (line: string) => void,
    private readonly timeoutMs: number,
  ) {}

  // One wandb row per global step, holding every tag logged at that step plus a
  // `global_step` column, as wandb's tensorboard sync produces (CleanRL's wandb charts
  // are drawn against global_step). The row is logged without a wandb step, so `_step`
  // just counts rows, again like the sync: steps that go backwards (CleanRL's eval
  // returns are logged at steps 0..9 after training) are kept, not dropped. Batching
  // also keeps this cheap: one message to the SDK per step, not per scalar.
  logScalar(tag: string, value: number, step: number): void {
    if (this.dead) return;
    // A repeated tag at the same step (two episodes ending together) starts a new row
    // instead of overwriting the first value.
    if (this.rowSize > 0 && (step !== this.rowStep || tag in this.row)) this.flush();
    this.row[tag] = value;
    this.rowStep = step;
    this.rowSize++;
  }

  flush(): void {
    if (this.dead || this.rowSize === 0) return;
    const row: Record<string, unknown> = { ...this.row, global_step: this.rowStep };
    this.row = {};
    this.rowSize = 0;
    try {
      this.run.log(row);
    } catch (e) {
      this.fail(e);
    }
  }

  /** The SDK failed after the run started: stop forwarding, say so once, keep training. */
  fail(e: unknown): void {
    if (this.dead) return;
    this.dead = true;
    this.log(`wandb: tracking stopped: ${reasonOf(e)}; training continues without it`);
  }

  finish(): Promise<void> {
    this.finishing ??= this.finishRun();
    return this.finishing;
  }

  private async finishRun(): Promise<void> {
    this.flush();
    this.dead = true;
    // Even after a failure: finishing is what stops the SDK's upload loop, whose timers
    // would otherwise keep the process from exiting.
    try {
      await withTimeout(this.run.finish(), this.timeoutMs, "wandb finish");
    } catch (e) {
      this.log(`wandb: could not finish the run cleanly: ${reasonOf(e)}`);
    } finally {
      sdkErrorSink = null;
    }
  }
}

interface Viewer {
  /** The key's own entity and its teams, or undefined if the server didn't list them. */
  entities?: string[];
}

async function fetchViewer(baseUrl: string, apiKey: string, timeoutMs: number): Promise<Viewer> {
  let res: Response;
  try {
    res = await fetch(`${baseUrl}/graphql`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Authorization: `Basic ${Buffer.from(`api:${apiKey}`).toString("base64")}`,
      },
      body: JSON.stringify({ query: "query Viewer { viewer { id entity teams { edges { node { name } } } } }" }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (e) {
    if ((e as Error).name === "TimeoutError") throw new Error(`no answer from ${baseUrl} within ${timeoutMs / 1000} s`);
    throw new Error(`cannot reach ${baseUrl} (${reasonOf(e)})`);
  }
  if (res.status === 401 || res.status === 403) throw new Error(`API key rejected by ${baseUrl} (HTTP ${res.status})`);
  if (!res.ok) throw new Error(`HTTP ${res.status} from ${baseUrl}/graphql`);
  const body = (await res.json()) as {
    data?: { viewer?: { entity?: string; teams?: { edges?: { node?: { name?: string } }[] } } | null };
  };
  const viewer = body.data?.viewer;
  if (!viewer?.entity) throw new Error(`API key rejected by ${baseUrl} (no user for this key)`);
  const edges = viewer.teams?.edges;
  if (!Array.isArray(edges)) return {};
  const teams = edges.map((e) => e.node?.name).filter((n): n is string => typeof n === "string");
  return { entities: [viewer.entity, ...teams] };
}

// `wandb login` stores the key in ~/.netrc as `machine api.wandb.ai login user password KEY`.
function netrcPassword(host: string): string | undefined {
  try {
    const file = path.join(os.homedir(), process.platform === "win32" ? "_netrc" : ".netrc");
    const tokens = fs.readFileSync(file, "utf8").replace(/#.*$/gm, "").split(/\s+/).filter(Boolean);
    let machine: string | undefined;
    for (let i = 0; i < tokens.length; i++) {
      if (tokens[i] === "machine") machine = tokens[++i];
      else if (tokens[i] === "password" && machine === host) return tokens[i + 1];
    }
  } catch {
    // No readable netrc: same as no entry.
  }
  return undefined;
}

// Two workarounds for @wandb/sdk 0.5.1, installed process-wide once tracking was
// requested (a run lives until the process ends, and so can its failures):
//
// 1. It reports some failures (e.g. the server refusing to create the run) by throwing
//    from inside a MessagePort listener: an uncaught exception that would kill training.
//    The guard turns exactly those errors (recognised by the SDK's files in the stack)
//    into "tracking disabled/stopped"; any other error is re-raised so Node's default
//    crash is unchanged.
// 2. Its request retry helper prints whole error objects (request bodies and stacks) on
//    every failure. Those messages, recognised by their fixed prefixes in the SDK's
//    lib/retry.js, are kept out of the output while wandb.init runs (the reason ends up
//    in our one "tracking disabled" line) and shortened to one line afterwards.
let sdkErrorSink: ((e: unknown) => void) | null = null;
let sdkQuiet = false;
let sdkNote = "";
let guardsInstalled = false;
const SDK_RETRY_MESSAGE = /^(Fatal HTTP error|Fatal error|Retrying failed request to W&B|Max retries)/;

/** An error thrown by @wandb/sdk's own code (its files are in the stack): the guard below handles those. */
export function isWandbSdkError(err: unknown): boolean {
  return guardsInstalled && err instanceof Error && /[\\/]@wandb[\\/]sdk[\\/]/.test(err.stack ?? "");
}

function installSdkGuards(): void {
  if (guardsInstalled) return;
  guardsInstalled = true;
  const guard = (err: unknown): void => {
    if (isWandbSdkError(err)) {
      sdkErrorSink?.(err);
      return;
    }
    // Someone else (e.g. the test runner) handles uncaught exceptions: leave it to them.
    if (process.listenerCount("uncaughtException") > 1) return;
    process.removeListener("uncaughtException", guard);
    process.nextTick(() => {
      throw err;
    });
  };
  process.on("uncaughtException", guard);

  for (const level of ["log", "error"] as const) {
    const original = console[level];
    console[level] = (...args: unknown[]): void => {
      const first = args[0];
      // biome-ignore lint/correctness/noVoidTypeReturn: forwards the console method's result unchanged
      if (typeof first !== "string" || !SDK_RETRY_MESSAGE.test(first)) return original.apply(console, args);
      // The error's message may embed the whole GraphQL request and response as JSON.
      const cause =
        args[1] instanceof Error
          ? reasonOf(args[1])
              .replace(/:?\s*\{[\s\S]*$/, "")
              .slice(0, 160)
          : "";
      sdkNote = [first.trim().replace(/:$/, ""), cause].filter(Boolean).join(": ");
      if (!sdkQuiet) original.call(console, `wandb: ${sdkNote}`);
    };
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s`)), ms);
    timer.unref();
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

function reasonOf(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  // fetch() wraps the interesting part (ECONNREFUSED, ENOTFOUND...) in `cause`.
  const cause = (e as Error & { cause?: unknown }).cause;
  if (e.message === "fetch failed" && cause instanceof Error) {
    return (cause as NodeJS.ErrnoException).code ?? cause.message;
  }
  return e.message.split("\n")[0];
}
