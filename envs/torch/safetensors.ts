// The safetensors file format (https://github.com/huggingface/safetensors, "Format" in its README), read and
// written here because no npm package that both reads and writes it is available to this project:
//
//   [8 bytes: N, the header's length, u64 little-endian] [N bytes: JSON header] [the tensors' bytes]
//
// The header maps each tensor's name to {dtype, shape, data_offsets: [begin, end]} (byte offsets into the data
// that follows the header, C order, little-endian) plus an optional "__metadata__" object of string → string.
// The reference implementation's rules are enforced on reading, so a file it would reject is rejected here too:
// a header that starts with "{", no more than 100 MB of it, offsets that tile the data exactly (no gap, no
// overlap, nothing after), each tensor's byte length equal to its shape times its dtype's size. Written files pad
// the header with spaces to a multiple of 8 bytes, as the reference writer does, so every tensor is aligned.

/** The dtypes read and written here (the reference also has F8 variants, U16, U32, U64, I8, I16, C64). */
export type Dtype = "F64" | "F32" | "F16" | "BF16" | "I64" | "I32" | "U8" | "BOOL";

const DTYPE_BYTES: Record<Dtype, number> = { F64: 8, F32: 4, F16: 2, BF16: 2, I64: 8, I32: 4, U8: 1, BOOL: 1 };
const MAX_HEADER_BYTES = 100_000_000;

export interface StoredTensor {
  dtype: Dtype;
  shape: number[];
  /** The raw little-endian bytes, C order. */
  bytes: Uint8Array;
}

/** A malformed or truncated file: the message is one line that says what is wrong. */
export class SafetensorsError extends Error {
  override name = "SafetensorsError";
}

/** A float32 tensor as it is stored. */
export function f32(shape: number[], data: Float32Array): StoredTensor {
  const size = shape.reduce((a, b) => a * b, 1);
  if (data.length !== size) throw new RangeError(`shape [${shape}] needs ${size} floats, got ${data.length}`);
  return { dtype: "F32", shape, bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}

/** `safetensors.serialize(tensors, metadata)`: tensors in the given order, the header padded to 8 bytes. */
export function serialize(tensors: Map<string, StoredTensor>, metadata: Record<string, string> = {}): Uint8Array {
  const header: Record<string, unknown> = {};
  if (Object.keys(metadata).length > 0) header.__metadata__ = metadata;
  let offset = 0;
  for (const [name, t] of tensors) {
    if (name === "__metadata__") throw new RangeError('"__metadata__" cannot name a tensor');
    checkLength(name, t);
    header[name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + t.bytes.length] };
    offset += t.bytes.length;
  }
  let json = Buffer.from(JSON.stringify(header), "utf8");
  const padded = Math.ceil(json.length / 8) * 8;
  if (padded !== json.length) json = Buffer.concat([json, Buffer.alloc(padded - json.length, 0x20)]);
  const out = new Uint8Array(8 + json.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  let at = 8 + json.length;
  for (const t of tensors.values()) {
    out.set(t.bytes, at);
    at += t.bytes.length;
  }
  return out;
}

/** `safetensors.deserialize(bytes)`: the tensors (views into `bytes`, in file order) and the metadata. */
export function deserialize(bytes: Uint8Array): {
  tensors: Map<string, StoredTensor>;
  metadata: Record<string, string>;
} {
  if (bytes.length < 8)
    throw new SafetensorsError(
      `${bytes.length} bytes is too short for a safetensors file (8-byte header length missing)`,
    );
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true);
  if (headerLength > BigInt(MAX_HEADER_BYTES))
    throw new SafetensorsError(`header length ${headerLength} is over the 100 MB limit (not a safetensors file?)`);
  const n = Number(headerLength);
  if (8 + n > bytes.length)
    throw new SafetensorsError(
      `the header says ${n} bytes but the file has ${bytes.length - 8} after the length (truncated?)`,
    );
  const text = Buffer.from(bytes.buffer, bytes.byteOffset + 8, n).toString("utf8");
  if (!text.startsWith("{")) throw new SafetensorsError("the header is not a JSON object");
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(text);
  } catch (e) {
    throw new SafetensorsError(`the header is not valid JSON (${(e as Error).message})`);
  }
  const dataStart = 8 + n;
  const dataLength = bytes.length - dataStart;
  const metadata: Record<string, string> = {};
  const entries: [string, { dtype: Dtype; shape: number[]; begin: number; end: number }][] = [];
  for (const [name, raw] of Object.entries(header)) {
    if (name === "__metadata__") {
      if (raw === null || typeof raw !== "object" || Array.isArray(raw))
        throw new SafetensorsError("__metadata__ is not an object");
      for (const [k, v] of Object.entries(raw)) {
        if (typeof v !== "string") throw new SafetensorsError(`__metadata__.${k} is not a string`);
        metadata[k] = v;
      }
      continue;
    }
    const info = raw as { dtype?: unknown; shape?: unknown; data_offsets?: unknown };
    if (typeof info?.dtype !== "string" || !(info.dtype in DTYPE_BYTES))
      throw new SafetensorsError(
        `tensor ${name}: dtype ${JSON.stringify(info?.dtype)} is not one of ${Object.keys(DTYPE_BYTES).join(", ")}`,
      );
    const okInts = (xs: unknown, len?: number): xs is number[] =>
      Array.isArray(xs) &&
      (len === undefined || xs.length === len) &&
      xs.every((x) => Number.isSafeInteger(x) && x >= 0);
    if (!okInts(info.shape))
      throw new SafetensorsError(
        `tensor ${name}: shape ${JSON.stringify(info.shape)} is not a list of non-negative integers`,
      );
    if (!okInts(info.data_offsets, 2) || info.data_offsets[0] > info.data_offsets[1])
      throw new SafetensorsError(
        `tensor ${name}: data_offsets ${JSON.stringify(info.data_offsets)} is not [begin, end]`,
      );
    entries.push([
      name,
      { dtype: info.dtype as Dtype, shape: info.shape, begin: info.data_offsets[0], end: info.data_offsets[1] },
    ]);
  }
  // The offsets must tile [0, dataLength) exactly, whatever order the header lists them in.
  const sorted = entries.slice().sort((a, b) => a[1].begin - b[1].begin || a[1].end - b[1].end);
  let expected = 0;
  for (const [name, e] of sorted) {
    if (e.begin !== expected)
      throw new SafetensorsError(
        `tensor ${name}: its data starts at byte ${e.begin}, expected ${expected} (a gap or an overlap)`,
      );
    expected = e.end;
  }
  if (expected !== dataLength)
    throw new SafetensorsError(
      `the tensors end at byte ${expected} of the data but the file has ${dataLength} (${expected > dataLength ? "truncated" : "trailing bytes"})`,
    );
  const tensors = new Map<string, StoredTensor>();
  for (const [name, e] of sorted) {
    const t: StoredTensor = {
      dtype: e.dtype,
      shape: e.shape,
      bytes: bytes.subarray(dataStart + e.begin, dataStart + e.end),
    };
    checkLength(name, t, SafetensorsError);
    tensors.set(name, t);
  }
  return { tensors, metadata };
}

function checkLength(name: string, t: StoredTensor, Err: new (m: string) => Error = RangeError): void {
  const expected = t.shape.reduce((a, b) => a * b, 1) * DTYPE_BYTES[t.dtype];
  if (t.bytes.length !== expected)
    throw new Err(`tensor ${name}: ${t.bytes.length} bytes for ${t.dtype} of shape [${t.shape}] (needs ${expected})`);
}

/** A stored tensor's values as float32 (the dtype a tfjs variable holds), converted from any dtype above. */
export function toFloat32(t: StoredTensor): Float32Array {
  const { bytes } = t;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = bytes.length / DTYPE_BYTES[t.dtype];
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    switch (t.dtype) {
      case "F32":
        out[i] = view.getFloat32(4 * i, true);
        break;
      case "F64":
        out[i] = view.getFloat64(8 * i, true);
        break;
      case "F16":
        out[i] = halfToFloat(view.getUint16(2 * i, true));
        break;
      case "BF16":
        out[i] = bfloat16ToFloat(view.getUint16(2 * i, true));
        break;
      case "I64":
        out[i] = Number(view.getBigInt64(8 * i, true));
        break;
      case "I32":
        out[i] = view.getInt32(4 * i, true);
        break;
      case "U8":
      case "BOOL":
        out[i] = bytes[i];
        break;
    }
  }
  return out;
}

const scratch = new DataView(new ArrayBuffer(4));

function bfloat16ToFloat(h: number): number {
  scratch.setUint32(0, h << 16);
  return scratch.getFloat32(0);
}

function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}
