// The agents CleanRL's JAX PPO publishes: `ppo_atari_envpool_xla_jax_scan.py --save-model` writes
//     flax.serialization.to_bytes([vars(args), [network_params, actor_params, critic_params]])
// to `runs/<run>/<exp>.cleanrl_model` (and `--upload-model` pushes that file to the Hub). flax's format
// (flax/serialization.py): the pytree as a state dict (lists become maps keyed "0", "1", ...), packed with msgpack;
// each array is a msgpack extension of type 1 whose payload is itself msgpack of (shape, dtype name, C-order bytes).
// Arrays over flax's chunk size (2^30 bytes) and complex or numpy-scalar leaves use other encodings, which this
// network never needs: they are refused.
//
// The network is the Nature CNN of ppo_atari.ts: `Network` (Conv_0..2, Dense_0: 8×8/4, 4×4/2, 3×3/1 convs to a
// 512-unit layer), `Actor` (Dense_0) and `Critic` (Dense_0). Its parameters map onto CleanRL's `ppo_atari.py`
// state-dict names, which our variants load (envs/torch/checkpoint.ts):
//   Conv_0 / Conv_1 / Conv_2 → network.0 / network.2 / network.4   kernel [kh, kw, in, out] (HWIO)
//   Dense_0                  → network.7                           kernel [in, out], `in` the flattened [7, 7, 64]
//                                                                  map in flax's (and tfjs's) channels-last order
//   actor Dense_0, critic Dense_0 → actor, critic                  kernel [in, out]
// The layouts are those of our tfjs variables (envs/torch/checkpoint.ts `Layout`), so the conversion to torch's is
// the one our own checkpoints use.

import { DecodeError, ExtData, ExtensionCodec, decode } from "@msgpack/msgpack";

import type { Layout } from "./checkpoint.ts";

/** A file this reader does not accept; the message is one line saying why. */
export class FlaxFileError extends Error {
  override name = "FlaxFileError";
}

/** flax.serialization's msgpack extension types (`_MsgpackExtType`). */
const EXT_NDARRAY = 1;

interface FlaxArray {
  shape: number[];
  dtype: string;
  bytes: Uint8Array;
}

const codec = new ExtensionCodec();
codec.register({
  type: EXT_NDARRAY,
  encode: () => null,
  decode: (payload: Uint8Array): FlaxArray => {
    const tuple = decode(payload);
    if (!Array.isArray(tuple) || tuple.length !== 3)
      throw new FlaxFileError("an array extension is not (shape, dtype, data)");
    const [shape, dtype, bytes] = tuple as [unknown, unknown, unknown];
    if (!Array.isArray(shape) || !shape.every((n) => Number.isSafeInteger(n) && n >= 0) || typeof dtype !== "string")
      throw new FlaxFileError("an array extension has a malformed shape or dtype");
    if (!(bytes instanceof Uint8Array)) throw new FlaxFileError("an array extension has no byte string");
    return { shape, dtype, bytes };
  },
});

/** Whether `bytes` start as flax's msgpack of a two-element list does: a map of 2 whose first key is "0". */
export function isFlaxMsgpack(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0x82 && bytes[1] === 0xa1 && bytes[2] === 0x30;
}

/** One parameter in flax's layout, with the layout our checkpoint code converts to torch's from. */
export interface FlaxParameter {
  name: string;
  shape: number[];
  data: Float32Array;
  layout: Layout;
}

export interface FlaxAgent {
  /** The run's `vars(args)` (env_id, seed, ...). */
  args: Record<string, unknown>;
  parameters: FlaxParameter[];
}

type Tree = { [key: string]: unknown };

function isTree(v: unknown): v is Tree {
  return v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Uint8Array) && !isArray(v);
}

function isArray(v: unknown): v is FlaxArray {
  return v !== null && typeof v === "object" && "dtype" in v && "bytes" in v && "shape" in v;
}

function child(tree: unknown, key: string, where: string): Tree {
  const v = isTree(tree) ? tree[key] : undefined;
  if (!isTree(v)) throw new FlaxFileError(`${where} has no "${key}" (not a ppo_atari_envpool_xla_jax_scan.py agent)`);
  return v;
}

function keysOf(tree: Tree, expected: string[], where: string): void {
  const keys = Object.keys(tree).sort();
  if (keys.join() !== [...expected].sort().join())
    throw new FlaxFileError(
      `${where} holds ${keys.join(", ") || "nothing"}, expected ${expected.join(", ")} (not the Nature CNN of ppo_atari_envpool_xla_jax_scan.py)`,
    );
}

function float32(
  tree: Tree,
  key: "kernel" | "bias",
  rank: number,
  where: string,
): { shape: number[]; data: Float32Array } {
  const a = tree[key];
  if (!isArray(a)) throw new FlaxFileError(`${where}/${key} is not an array`);
  if (a.dtype !== "float32") throw new FlaxFileError(`${where}/${key} is ${a.dtype}; only float32 parameters are read`);
  if (a.shape.length !== rank) throw new FlaxFileError(`${where}/${key} has shape [${a.shape}], expected rank ${rank}`);
  const n = a.shape.reduce((x, y) => x * y, 1);
  if (a.bytes.length !== 4 * n)
    throw new FlaxFileError(`${where}/${key} has ${a.bytes.length} bytes for shape [${a.shape}] (truncated?)`);
  const data = new Float32Array(n);
  new Uint8Array(data.buffer).set(a.bytes);
  return { shape: a.shape, data };
}

/**
 * The Nature-CNN agent in a `ppo_atari_envpool_xla_jax_scan.py` .cleanrl_model file, under CleanRL's ppo_atari.py
 * state-dict names. Throws FlaxFileError (one line) for any other file.
 */
export function readFlaxNatureCnn(bytes: Uint8Array): FlaxAgent {
  let root: unknown;
  try {
    root = decode(bytes, { extensionCodec: codec });
  } catch (e) {
    if (e instanceof FlaxFileError) throw e;
    const reason = e instanceof DecodeError || e instanceof RangeError ? e.message : String(e);
    throw new FlaxFileError(`not readable msgpack (${reason.split("\n")[0]}; truncated?)`);
  }
  const foreign = findForeign(root);
  if (foreign !== null) throw new FlaxFileError(foreign);
  if (!isTree(root)) throw new FlaxFileError("the msgpack is not flax's state dict of [args, params]");
  keysOf(root, ["0", "1"], "the file");
  const args = child(root, "0", "the file");
  const params = child(root, "1", "the file");
  keysOf(params, ["0", "1", "2"], "its parameters");
  const network = child(child(params, "0", "its parameters"), "params", "network_params");
  keysOf(network, ["Conv_0", "Conv_1", "Conv_2", "Dense_0"], "network_params");
  const out: FlaxParameter[] = [];
  const add = (name: string, layer: Tree, where: string, kernelRank: number, layout: Layout) => {
    keysOf(layer, ["bias", "kernel"], where);
    out.push({ name: `${name}.weight`, ...float32(layer, "kernel", kernelRank, where), layout });
    out.push({ name: `${name}.bias`, ...float32(layer, "bias", 1, where), layout: "same" });
  };
  for (let i = 0; i < 3; i++)
    add(`network.${2 * i}`, child(network, `Conv_${i}`, "network_params"), `network/Conv_${i}`, 4, "conv2d");
  add("network.7", child(network, "Dense_0", "network_params"), "network/Dense_0", 2, { flattened: [7, 7, 64] });
  for (const [index, name] of [
    ["1", "actor"],
    ["2", "critic"],
  ] as const) {
    const head = child(child(params, index, "its parameters"), "params", `${name}_params`);
    keysOf(head, ["Dense_0"], `${name}_params`);
    add(name, child(head, "Dense_0", `${name}_params`), `${name}/Dense_0`, 2, "linear");
  }
  return { args, parameters: out };
}

/** A description of the first msgpack value flax writes for leaves this reader does not take, or null. */
function findForeign(v: unknown): string | null {
  if (v instanceof ExtData)
    return `it holds a msgpack extension of type ${v.type} (flax's complex or numpy scalar), not read here`;
  if (isTree(v)) {
    if ("__msgpack_chunked_array__" in v) return "it holds an array over 1 GiB in flax's chunked form, not read here";
    for (const x of Object.values(v)) {
      const found = findForeign(x);
      if (found !== null) return found;
    }
  }
  return null;
}
