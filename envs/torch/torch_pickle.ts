// `torch.load` of exactly one kind of file: what `torch.save(model.state_dict(), path)` writes for a model of float32
// tensors, e.g. CleanRL's `ppo_continuous_action.py --save-model` (`runs/<run>/<exp>.cleanrl_model`). Anything else
// (a pickled module, optimizer state, other dtypes, custom classes) is refused in one line, never executed.
//
// The file (torch/serialization.py `_save`, caffe2/serialize/inline_container.cc) is a zip archive with stored
// (uncompressed) entries under one folder, `<stem>/`:
//   data.pkl     the state dict pickled (protocol 2 by default) with every tensor's storage replaced by a
//                persistent id ("storage", torch.FloatStorage, key, location, numel);
//   data/<key>   each storage's raw bytes, in the byte order named by `byteorder` ("little");
//   version, .format_version, .storage_alignment, .data/serialization_id: bookkeeping, not needed to read.
// The pickle builds an `OrderedDict` whose values are `torch._utils._rebuild_tensor_v2(storage, storage_offset,
// size, stride, requires_grad, backward_hooks)` calls, and whose `_metadata` attribute (module versions) is set by a
// BUILD at the end. The opcodes that program uses are the only ones understood here (pickletools documents each):
// protocol 2's, plus the protocol 4 equivalents torch.save emits when given `pickle_protocol=4`.

import { unzipSync } from "fflate";

import type { StoredTensor } from "./safetensors.ts";

/** A file this reader does not accept; the message is one line saying why. */
export class TorchFileError extends Error {
  override name = "TorchFileError";
}

/** Whether `bytes` start as a zip archive does (a local file header), as every torch.save file since torch 1.6. */
export function isZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
}

// ---- the values the pickle program builds ----

class Tuple {
  constructor(readonly items: Value[]) {}
}
class Global {
  constructor(
    readonly module: string,
    readonly name: string,
  ) {}
  toString(): string {
    return `${this.module}.${this.name}`;
  }
}
class OrderedDict {
  readonly entries = new Map<string, Value>();
}
class StorageRef {
  constructor(
    readonly key: string,
    readonly numel: number,
  ) {}
}
class Tensor {
  constructor(readonly stored: StoredTensor) {}
}
type Value = string | number | boolean | null | Tuple | Global | OrderedDict | Map<Value, Value> | StorageRef | Tensor;

const MARK = Symbol("mark");

function describe(v: Value | typeof MARK | undefined): string {
  if (v === undefined) return "nothing";
  if (v === MARK) return "a mark";
  if (v === null) return "None";
  if (v instanceof Tuple) return `a tuple of ${v.items.length}`;
  if (v instanceof Global) return `the global ${v}`;
  if (v instanceof OrderedDict) return "an OrderedDict";
  if (v instanceof Map) return "a dict";
  if (v instanceof StorageRef) return "a storage";
  if (v instanceof Tensor) return "a tensor";
  return `a ${typeof v}`;
}

// ---- the pickle machine ----

/** Runs the pickle program `pkl`; `storage(key, numel)` gives each persistent storage's float32 values. */
function unpickle(pkl: Uint8Array, storage: (key: string, numel: number) => Float32Array): Value {
  const view = new DataView(pkl.buffer, pkl.byteOffset, pkl.byteLength);
  const text = new TextDecoder("utf-8", { fatal: true });
  const stack: (Value | typeof MARK)[] = [];
  const memo = new Map<number, Value>();
  let pos = 0;

  const need = (n: number): number => {
    if (pos + n > pkl.length) throw new TorchFileError("data.pkl ends in the middle of an instruction (truncated?)");
    const at = pos;
    pos += n;
    return at;
  };
  const pop = (): Value => {
    const v = stack.pop();
    if (v === undefined || v === MARK) throw new TorchFileError("data.pkl pops from an empty stack");
    return v;
  };
  const popMark = (): Value[] => {
    const at = stack.lastIndexOf(MARK);
    if (at < 0) throw new TorchFileError("data.pkl closes a mark it never opened");
    const items = stack.splice(at) as Value[];
    items.shift();
    return items;
  };
  const top = (): Value => {
    const v = stack[stack.length - 1];
    if (v === undefined || v === MARK) throw new TorchFileError("data.pkl reads an empty stack");
    return v;
  };
  const string = (n: number): string => {
    const at = need(n);
    return text.decode(pkl.subarray(at, at + n));
  };
  const setItem = (dict: Value, key: Value, value: Value): void => {
    if (dict instanceof OrderedDict) {
      if (typeof key !== "string") throw new TorchFileError(`the state dict has a key that is ${describe(key)}`);
      dict.entries.set(key, value);
    } else if (dict instanceof Map) dict.set(key, value);
    else throw new TorchFileError(`data.pkl sets an item on ${describe(dict)}`);
  };

  for (;;) {
    const op = pkl[need(1)];
    switch (op) {
      case 0x80: // PROTO
        if (pkl[need(1)] > 4)
          throw new TorchFileError(`data.pkl uses pickle protocol ${pkl[pos - 1]} (torch.save writes 2)`);
        break;
      case 0x95: // FRAME (protocol 4): a length prefix only
        need(8);
        break;
      case 0x2e: // STOP
        if (stack.length !== 1) throw new TorchFileError(`data.pkl stops with ${stack.length} values on the stack`);
        return pop();
      case 0x28: // MARK
        stack.push(MARK);
        break;
      case 0x4e: // NONE
        stack.push(null);
        break;
      case 0x88: // NEWTRUE
        stack.push(true);
        break;
      case 0x89: // NEWFALSE
        stack.push(false);
        break;
      case 0x4b: // BININT1
        stack.push(pkl[need(1)]);
        break;
      case 0x4d: // BININT2
        stack.push(view.getUint16(need(2), true));
        break;
      case 0x4a: // BININT
        stack.push(view.getInt32(need(4), true));
        break;
      case 0x8a: {
        // LONG1: a little-endian two's complement integer of n bytes (sizes and numels past 2^31)
        const n = pkl[need(1)];
        const at = need(n);
        let v = 0n;
        for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(pkl[at + i]);
        if (n > 0 && pkl[at + n - 1] & 0x80) v -= 1n << BigInt(8 * n);
        if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER))
          throw new TorchFileError(`data.pkl holds the integer ${v}, too large for a tensor size`);
        stack.push(Number(v));
        break;
      }
      case 0x58: // BINUNICODE
        stack.push(string(view.getUint32(need(4), true)));
        break;
      case 0x8c: // SHORT_BINUNICODE (protocol 4)
        stack.push(string(pkl[need(1)]));
        break;
      case 0x63: {
        // GLOBAL "module\nname\n"
        const end1 = pkl.indexOf(0x0a, pos);
        const end2 = end1 < 0 ? -1 : pkl.indexOf(0x0a, end1 + 1);
        if (end2 < 0) throw new TorchFileError("data.pkl has an unterminated GLOBAL");
        const module = string(end1 - pos);
        need(1);
        const name = string(end2 - pos);
        need(1);
        stack.push(new Global(module, name));
        break;
      }
      case 0x93: {
        // STACK_GLOBAL (protocol 4)
        const name = pop();
        const module = pop();
        if (typeof module !== "string" || typeof name !== "string")
          throw new TorchFileError("data.pkl has a STACK_GLOBAL without two strings");
        stack.push(new Global(module, name));
        break;
      }
      case 0x29: // EMPTY_TUPLE
        stack.push(new Tuple([]));
        break;
      case 0x85: // TUPLE1
      case 0x86: // TUPLE2
      case 0x87: {
        // TUPLE3
        const n = op - 0x84;
        const items: Value[] = [];
        for (let i = 0; i < n; i++) items.unshift(pop());
        stack.push(new Tuple(items));
        break;
      }
      case 0x74: // TUPLE
        stack.push(new Tuple(popMark()));
        break;
      case 0x7d: // EMPTY_DICT
        stack.push(new Map());
        break;
      case 0x73: {
        // SETITEM
        const value = pop();
        const key = pop();
        setItem(top(), key, value);
        break;
      }
      case 0x75: {
        // SETITEMS
        const items = popMark();
        if (items.length % 2 !== 0) throw new TorchFileError("data.pkl has a SETITEMS with an odd number of values");
        const dict = top();
        for (let i = 0; i < items.length; i += 2) setItem(dict, items[i], items[i + 1]);
        break;
      }
      case 0x71: // BINPUT
        memo.set(pkl[need(1)], top());
        break;
      case 0x72: // LONG_BINPUT
        memo.set(view.getUint32(need(4), true), top());
        break;
      case 0x94: // MEMOIZE (protocol 4)
        memo.set(memo.size, top());
        break;
      case 0x68: // BINGET
      case 0x6a: {
        // LONG_BINGET
        const index = op === 0x68 ? pkl[need(1)] : view.getUint32(need(4), true);
        const v = memo.get(index);
        if (v === undefined) throw new TorchFileError(`data.pkl refers to memo ${index} before storing it`);
        stack.push(v);
        break;
      }
      case 0x51: // BINPERSID
        stack.push(persistentStorage(pop()));
        break;
      case 0x52: {
        // REDUCE
        const args = pop();
        const callable = pop();
        stack.push(reduce(callable, args, storage));
        break;
      }
      case 0x62: {
        // BUILD: state dicts carry `_metadata` (each submodule's version) as an attribute; it is not needed.
        const state = pop();
        const target = top();
        if (
          !(target instanceof OrderedDict) ||
          !(state instanceof Map) ||
          [...state.keys()].some((k) => k !== "_metadata")
        )
          throw new TorchFileError(`data.pkl sets the state of ${describe(target)} (not a plain state dict)`);
        break;
      }
      default:
        throw new TorchFileError(
          `data.pkl uses pickle opcode 0x${op.toString(16).padStart(2, "0")} at byte ${pos - 1}, which torch.save of a state dict never writes`,
        );
    }
  }
}

/** A persistent id as torch.save writes it for a storage: ("storage", torch.<T>Storage, key, location, numel). */
function persistentStorage(pid: Value): StorageRef {
  if (!(pid instanceof Tuple) || pid.items.length !== 5 || pid.items[0] !== "storage")
    throw new TorchFileError(`data.pkl has a persistent id that is ${describe(pid)}, not a torch storage`);
  const [, type, key, , numel] = pid.items;
  if (!(type instanceof Global) || type.module !== "torch" || !type.name.endsWith("Storage"))
    throw new TorchFileError(`data.pkl has a storage of type ${describe(type)}`);
  if (type.name !== "FloatStorage")
    throw new TorchFileError(`the state dict holds a torch.${type.name} tensor; only float32 tensors are read`);
  if (typeof key !== "string" || !Number.isSafeInteger(numel) || (numel as number) < 0)
    throw new TorchFileError("data.pkl has a malformed storage id");
  return new StorageRef(key, numel as number);
}

/** The two calls a state dict's pickle makes; any other callable is refused, not run. */
function reduce(callable: Value, args: Value, storage: (key: string, numel: number) => Float32Array): Value {
  if (!(callable instanceof Global) || !(args instanceof Tuple))
    throw new TorchFileError(`data.pkl calls ${describe(callable)} with ${describe(args)}`);
  const name = callable.toString();
  if (name === "collections.OrderedDict") {
    if (args.items.length !== 0) throw new TorchFileError("data.pkl builds an OrderedDict from arguments");
    return new OrderedDict();
  }
  if (name === "torch._utils._rebuild_tensor_v2") return rebuildTensor(args.items, storage);
  throw new TorchFileError(`data.pkl calls ${name}: not a plain state dict (a pickled module or custom object?)`);
}

function ints(v: Value, what: string): number[] {
  if (!(v instanceof Tuple) || !v.items.every((x) => Number.isSafeInteger(x) && (x as number) >= 0))
    throw new TorchFileError(`a tensor's ${what} is ${describe(v)}, not a tuple of sizes`);
  return v.items as number[];
}

// _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
function rebuildTensor(args: Value[], storage: (key: string, numel: number) => Float32Array): Tensor {
  if (args.length !== 6 && args.length !== 7)
    throw new TorchFileError(`_rebuild_tensor_v2 gets ${args.length} arguments (expected 6 or 7)`);
  const [ref, offset, sizeValue, strideValue, , hooks, metadata] = args;
  if (!(ref instanceof StorageRef)) throw new TorchFileError(`a tensor's storage is ${describe(ref)}`);
  if (!(hooks instanceof OrderedDict) || hooks.entries.size > 0)
    throw new TorchFileError("a tensor carries backward hooks (not a state dict tensor)");
  if (metadata !== undefined && !(metadata instanceof Map && metadata.size === 0))
    throw new TorchFileError("a tensor carries Python metadata (not a state dict tensor)");
  if (!Number.isSafeInteger(offset) || (offset as number) < 0)
    throw new TorchFileError(`a tensor's storage offset is ${describe(offset)}`);
  const shape = ints(sizeValue, "size");
  const stride = ints(strideValue, "stride");
  if (stride.length !== shape.length)
    throw new TorchFileError(`a tensor has ${shape.length} sizes but ${stride.length} strides`);
  const source = storage(ref.key, ref.numel);
  const numel = shape.reduce((a, b) => a * b, 1);
  const out = new Float32Array(numel);
  if (numel > 0) {
    const last = (offset as number) + shape.reduce((s, n, i) => s + (n - 1) * stride[i], 0);
    if (last >= source.length)
      throw new TorchFileError(
        `a tensor of size [${shape}] reaches past its storage ${ref.key} (${source.length} floats)`,
      );
    // C-order walk over `shape`, reading each element through the tensor's strides (state dicts are contiguous
    // except where a parameter is a view, which torch.save keeps as a view into the shared storage).
    const index = new Array<number>(shape.length).fill(0);
    let src = offset as number;
    for (let o = 0; o < numel; o++) {
      out[o] = source[src];
      for (let axis = shape.length - 1; axis >= 0; axis--) {
        src += stride[axis];
        if (++index[axis] < shape[axis]) break;
        src -= stride[axis] * shape[axis];
        index[axis] = 0;
      }
    }
  }
  return new Tensor({ dtype: "F32", shape, bytes: new Uint8Array(out.buffer) });
}

// ---- the archive ----

/**
 * The tensors of a `torch.save(state_dict)` file, under their state-dict names, in file order (float32, C order,
 * torch's shapes). Throws TorchFileError (one line) for any other file.
 */
export function readTorchStateDict(bytes: Uint8Array): Map<string, StoredTensor> {
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(bytes);
  } catch (e) {
    throw new TorchFileError(`not a readable zip archive (${(e as Error).message})`);
  }
  const pickles = Object.keys(entries).filter((n) => /^[^/]+\/data\.pkl$/.test(n));
  if (pickles.length !== 1)
    throw new TorchFileError(
      pickles.length === 0
        ? "a zip archive without <name>/data.pkl: not written by torch.save"
        : "a zip archive with several data.pkl",
    );
  const prefix = pickles[0].slice(0, -"data.pkl".length);
  const byteorder = entries[`${prefix}byteorder`];
  if (byteorder !== undefined && new TextDecoder().decode(byteorder) !== "little")
    throw new TorchFileError(`its tensors are stored ${new TextDecoder().decode(byteorder)}-endian`);
  const storages = new Map<string, Float32Array>();
  const storage = (key: string, numel: number): Float32Array => {
    let values = storages.get(key);
    if (values === undefined) {
      const raw = entries[`${prefix}data/${key}`];
      if (raw === undefined) throw new TorchFileError(`storage ${key} is missing from the archive`);
      if (raw.length !== numel * 4)
        throw new TorchFileError(`storage ${key} has ${raw.length} bytes for ${numel} float32 values (truncated?)`);
      values = new Float32Array(numel);
      new Uint8Array(values.buffer).set(raw);
      storages.set(key, values);
    }
    return values;
  };
  const root = unpickle(entries[pickles[0]], storage);
  if (!(root instanceof OrderedDict) && !(root instanceof Map))
    throw new TorchFileError(`torch.save wrote ${describe(root)}, not a state dict`);
  const tensors = new Map<string, StoredTensor>();
  const items = root instanceof OrderedDict ? root.entries : root;
  for (const [name, value] of items) {
    if (typeof name !== "string") throw new TorchFileError(`the state dict has a key that is ${describe(name)}`);
    if (!(value instanceof Tensor))
      throw new TorchFileError(`state dict entry ${name} is ${describe(value)}, not a tensor`);
    tensors.set(name, value.stored);
  }
  return tensors;
}
