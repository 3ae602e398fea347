// Checkpoints: what `--save-model`, `--checkpoint-every` and `--resume` write and read, in every variant.
//
// One safetensors file (envs/torch/safetensors.ts) holds
//   * the agent's parameters under the names and layouts of CleanRL's own `Agent.state_dict()` (`network.0.weight`
//     as [out, in, kh, kw], `actor.weight` as [out, in], ...), so that in Python
//         agent.load_state_dict({k: v for k, v in safetensors.torch.load_file(path).items() if not k.startswith("optimizer.")})
//     loads them into the CleanRL script's Agent, and a state dict CleanRL saved (`safetensors.torch.save_file(
//     agent.state_dict(), path)`) loads into ours;
//   * Adam's moments as `optimizer.exp_avg.<name>` and `optimizer.exp_avg_sq.<name>` (torch's names for them) in the
//     same layouts as their parameters;
//   * as `__metadata__` strings: the script, the run's name, the global step and iteration it was taken after, the
//     run's args, Adam's step, the seeded generators' states, and what a variant adds (observation statistics).
// The old JSON checkpoints (`ppo.ts/agent@1`: the parameters in the variant's `parameters()` order and tfjs
// layouts) still load for evaluation.
//
// For evaluation, CleanRL's own `.cleanrl_model` files load as well: `torch.save(agent.state_dict())` archives
// (envs/torch/torch_pickle.ts) and the flax msgpack of `ppo_atari_envpool_xla_jax_scan.py`, mapped onto the Nature
// CNN's state-dict names (envs/torch/flax_msgpack.ts). A path that names no local file but reads as a Hugging Face
// Hub repo id (`<entity>/<repo>`, or `<entity>/<repo>/<file>`) is downloaded into the Hub cache first
// (envs/run/hub.ts), as CleanRL's `enjoy.py` does with `hf_hub_download`.
//
// A file is written to `<path>.tmp-<pid>`, flushed to disk, then renamed over `path`: a crash, a full disk or an
// unwritable folder leaves the previous file at `path` as it was, and the failure is one line (CheckpointError).

import * as tf from "@tensorflow/tfjs";
import fs from "node:fs";
import path from "node:path";

import { kebab } from "../run/cli.ts";
import { resolveHubCheckpoint } from "../run/hub_reference.ts";
import { FlaxFileError, isFlaxMsgpack, readFlaxNatureCnn } from "./flax_msgpack.ts";
import type { OptimizerState, StatefulOptimizer } from "./optim.ts";
import type { RandomGenerator, RandomState } from "./rng.ts";
import { type StoredTensor, SafetensorsError, deserialize, f32, serialize, toFloat32 } from "./safetensors.ts";
import { TorchFileError, isZip, readTorchStateDict } from "./torch_pickle.ts";

/** A checkpoint that cannot be written or read; the message is one line naming the file. */
export class CheckpointError extends Error {
  override name = "CheckpointError";
}

/**
 * How a tfjs variable's layout maps to torch's:
 *   "same"    identical (biases, `actor_logstd`);
 *   "linear"  tfjs [in, out] ↔ torch `nn.Linear.weight` [out, in] (also `nn.LSTM`'s weight_ih / weight_hh);
 *   "conv2d"  tfjs [kh, kw, in, out] ↔ torch `nn.Conv2d.weight` [out, in, kh, kw];
 *   {flattened: [h, w, c]}  the `nn.Linear` right after `nn.Flatten()` of a [c, h, w] feature map: tfjs flattens
 *             channels last (row (y·w + x)·c + ch), torch channels first (column ch·h·w + y·w + x), so the rows
 *             are permuted as well as transposed.
 */
export type Layout = "same" | "linear" | "conv2d" | { flattened: [number, number, number] };

/** One parameter under its CleanRL state-dict name. */
export interface NamedParameter {
  name: string;
  variable: tf.Variable;
  layout: Layout;
}

/** What a run has done so far, saved beside the parameters so that `--resume` continues it. */
export interface Progress {
  runName: string;
  /** The iterations completed (the loop resumes at iteration + 1). */
  iteration: number;
  globalStep: number;
  /** The run's generators, one per rank (ppo_atari_multigpu.ts saves every rank's). */
  rng: RandomState[];
  args: Record<string, unknown>;
  /** Whatever else a variant needs to continue (JSON): observation-normalization statistics, for one. */
  extra?: Record<string, unknown>;
  /** The wandb run this run is tracked in (`Tracker.runId`), which a resumed run continues. */
  trackingRunId?: string | null;
}

export interface Checkpoint {
  path: string;
  /** The script that wrote it; null for a state dict saved elsewhere (CleanRL's). */
  script: string | null;
  tensors: Map<string, StoredTensor>;
  /** The parameters of a JSON checkpoint, in `parameters()` order and tfjs layouts; null for safetensors. */
  legacy: { shape: number[]; data: number[] }[] | null;
  /** The JSON checkpoint's other fields, or the safetensors metadata parsed. */
  fields: Record<string, unknown>;
  progress: Progress | null;
  optimizerStep: number | null;
  /** The env the run trained on; null for a state dict saved elsewhere. */
  envId: string | null;
}

const OPTIMIZER_PREFIX = "optimizer.";

// ---- layouts ------------------------------------------------------------------------------------------------

/** `data` of `shape` transposed by `perm` (output axis i is input axis perm[i]), C order both sides. */
function permute(data: Float32Array, shape: number[], perm: number[]): Float32Array {
  const rank = shape.length;
  const strides = new Array<number>(rank);
  for (let i = rank - 1, s = 1; i >= 0; i--) (strides[i] = s), (s *= shape[i]);
  const outShape = perm.map((p) => shape[p]);
  const outStrides = perm.map((p) => strides[p]);
  const out = new Float32Array(data.length);
  const index = new Array<number>(rank).fill(0);
  for (let o = 0, src = 0; o < out.length; o++) {
    out[o] = data[src];
    for (let axis = rank - 1; axis >= 0; axis--) {
      src += outStrides[axis];
      if (++index[axis] < outShape[axis]) break;
      src -= outStrides[axis] * outShape[axis];
      index[axis] = 0;
    }
  }
  return out;
}

/** Our variable's values in torch's layout, and torch's shape. */
export function toTorch(data: Float32Array, shape: number[], layout: Layout): { shape: number[]; data: Float32Array } {
  if (layout === "same") return { shape, data };
  if (layout === "linear") return { shape: [shape[1], shape[0]], data: permute(data, shape, [1, 0]) };
  if (layout === "conv2d")
    return { shape: [shape[3], shape[2], shape[0], shape[1]], data: permute(data, shape, [3, 2, 0, 1]) };
  const [h, w, c] = layout.flattened;
  return { shape: [shape[1], c * h * w], data: permute(data, [h, w, c, shape[1]], [3, 2, 0, 1]) };
}

/** Torch's values (of torch's shape) in our layout, for a variable of `shape`. */
export function fromTorch(data: Float32Array, torchShape: number[], layout: Layout): Float32Array {
  if (layout === "same") return data;
  if (layout === "linear") return permute(data, torchShape, [1, 0]);
  if (layout === "conv2d") return permute(data, torchShape, [2, 3, 1, 0]);
  const [h, w, c] = layout.flattened;
  return permute(data, [torchShape[0], c, h, w], [2, 3, 1, 0]);
}

function torchShape(p: NamedParameter): number[] {
  const shape: number[] = p.variable.shape;
  if (p.layout === "same") return shape;
  if (p.layout === "linear") return [shape[1], shape[0]];
  if (p.layout === "conv2d") return [shape[3], shape[2], shape[0], shape[1]];
  return [shape[1], shape[0]];
}

// ---- writing ------------------------------------------------------------------------------------------------

/**
 * Writes the agent (and, for a run that can be resumed, Adam's state and the run's progress) to `file`,
 * atomically. Returns `file`.
 */
export function writeCheckpoint(
  file: string,
  script: string,
  parameters: NamedParameter[],
  optimizer: StatefulOptimizer | null,
  progress: Progress,
): string {
  const tensors = new Map<string, StoredTensor>();
  const add = (name: string, p: NamedParameter, data: Float32Array) => {
    const t = toTorch(data, p.variable.shape, p.layout);
    tensors.set(name, f32(t.shape, t.data));
  };
  for (const p of parameters) add(p.name, p, p.variable.dataSync() as Float32Array);
  const metadata: Record<string, string> = {
    format: "pt", // what safetensors.torch writes: tools that check it take the file as a torch state dict
    producer: "ppo.ts",
    script,
    run_name: progress.runName,
    iteration: String(progress.iteration),
    global_step: String(progress.globalStep),
    args: JSON.stringify(progress.args),
    rng: JSON.stringify(progress.rng),
  };
  if (progress.extra !== undefined) metadata.extra = JSON.stringify(progress.extra);
  if (progress.trackingRunId) metadata.wandb_run_id = progress.trackingRunId;
  if (optimizer !== null) {
    const state = optimizer.exportState();
    for (const p of parameters) {
      const moments = state.moments.get(p.variable.name);
      if (moments === undefined) continue; // no step taken yet
      add(`${OPTIMIZER_PREFIX}exp_avg.${p.name}`, p, moments.m);
      add(`${OPTIMIZER_PREFIX}exp_avg_sq.${p.name}`, p, moments.v);
    }
    metadata.optimizer = JSON.stringify({ type: "Adam", step: state.step });
  }
  atomicWrite(file, serialize(tensors, metadata));
  return file;
}

/** Writes `bytes` to `file` through a temporary file, fsync and rename; on failure the old `file` is untouched. */
export function atomicWrite(file: string, bytes: Uint8Array): void {
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const fd = fs.openSync(tmp, "w");
    try {
      for (let off = 0; off < bytes.length; ) off += fs.writeSync(fd, bytes, off);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    const reason = (e as NodeJS.ErrnoException).code === "ENOSPC" ? "the disk is full" : (e as Error).message;
    const previous = fs.existsSync(file) ? "; the previous checkpoint there is intact" : "";
    throw new CheckpointError(`cannot write checkpoint ${file}: ${reason}${previous}`);
  }
}

/** `<runDir>/checkpoints/iteration_<n>.safetensors`: the name `--checkpoint-every` gives a checkpoint. */
export function periodicCheckpointPath(runDir: string, iteration: number): string {
  return path.join(runDir, "checkpoints", `iteration_${String(iteration).padStart(8, "0")}.safetensors`);
}

// ---- reading ------------------------------------------------------------------------------------------------

/** Reads a checkpoint for `script`: safetensors (ours, or a state dict from elsewhere) or an old JSON one. */
export function readCheckpoint(file: string, script: string): Checkpoint {
  let bytes: Buffer;
  if (!fs.existsSync(file)) {
    const local = resolveHubCheckpoint(file);
    if (local instanceof Error) throw new CheckpointError(local.message);
    if (local !== null) file = local;
  }
  try {
    bytes = fs.readFileSync(file);
  } catch (e) {
    throw new CheckpointError(
      `cannot read checkpoint ${file}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (e as Error).message}`,
    );
  }
  if (bytes.length > 0 && bytes[0] === 0x7b) return readJsonCheckpoint(file, bytes, script);
  if (isZip(bytes)) return readTorchCheckpoint(file, bytes);
  // A safetensors header is JSON right after its 8-byte length; flax's msgpack starts with a map.
  if (bytes[8] !== 0x7b && isFlaxMsgpack(bytes)) return readFlaxCheckpoint(file, bytes);
  let parsed: ReturnType<typeof deserialize>;
  try {
    parsed = deserialize(bytes);
  } catch (e) {
    if (e instanceof SafetensorsError) throw new CheckpointError(`${file} is not a readable checkpoint: ${e.message}`);
    throw e;
  }
  const { tensors, metadata } = parsed;
  const writer = metadata.producer === "ppo.ts" ? (metadata.script ?? null) : null;
  if (writer !== null && writer !== script)
    throw new CheckpointError(`${file} was written by ${writer}, not ${script}`);
  const json = (key: string): unknown => {
    try {
      return metadata[key] === undefined ? undefined : JSON.parse(metadata[key]);
    } catch {
      throw new CheckpointError(`${file}: its metadata "${key}" is not valid JSON`);
    }
  };
  let progress: Progress | null = null;
  if (writer !== null && metadata.run_name !== undefined) {
    progress = {
      runName: metadata.run_name,
      iteration: Number(metadata.iteration),
      globalStep: Number(metadata.global_step),
      rng: json("rng") as RandomState[],
      args: json("args") as Record<string, unknown>,
      extra: json("extra") as Record<string, unknown> | undefined,
      trackingRunId: metadata.wandb_run_id ?? null,
    };
  }
  const optimizer = json("optimizer") as { step?: number } | undefined;
  return {
    path: file,
    script: writer,
    tensors,
    legacy: null,
    fields: metadata,
    progress,
    optimizerStep: optimizer?.step ?? null,
    envId: (progress?.args.envId as string | undefined) ?? null,
  };
}

/** A parameters-only checkpoint from elsewhere: evaluated, never resumed. */
function foreignCheckpoint(
  file: string,
  tensors: Map<string, StoredTensor>,
  fields: Record<string, unknown>,
  envId: string | null,
): Checkpoint {
  return { path: file, script: null, tensors, legacy: null, fields, progress: null, optimizerStep: null, envId };
}

/** CleanRL's `torch.save(agent.state_dict(), path)`: the parameters under the names our variants use. */
function readTorchCheckpoint(file: string, bytes: Uint8Array): Checkpoint {
  try {
    return foreignCheckpoint(file, readTorchStateDict(bytes), {}, null);
  } catch (e) {
    if (e instanceof TorchFileError)
      throw new CheckpointError(`${file} is not a readable checkpoint: torch.save state dict: ${e.message}`);
    throw e;
  }
}

/**
 * `ppo_atari_envpool_xla_jax_scan.py`'s flax agent as a ppo_atari.py state dict (torch layouts), with the run's args
 * as fields. Its env, envpool's `<Game>-v5` with the script's settings (frame skip 4, no sticky actions, 30 no-op
 * starts, episodic life, clipped rewards, 84×84 grey frames stacked by 4), is what gymnasium's
 * `<Game>NoFrameskip-v4` with SB3's Atari wrappers gives, ppo_atari.ts's env: the id is mapped to that.
 */
function readFlaxCheckpoint(file: string, bytes: Uint8Array): Checkpoint {
  let agent: ReturnType<typeof readFlaxNatureCnn>;
  try {
    agent = readFlaxNatureCnn(bytes);
  } catch (e) {
    if (e instanceof FlaxFileError)
      throw new CheckpointError(`${file} is not a readable checkpoint: flax agent: ${e.message}`);
    throw e;
  }
  const tensors = new Map<string, StoredTensor>();
  for (const p of agent.parameters) {
    const t = toTorch(p.data, p.shape, p.layout);
    tensors.set(p.name, f32(t.shape, t.data));
  }
  const envpoolId = agent.args.env_id;
  const envId =
    typeof envpoolId === "string" ? envpoolId.replace(/^(?:ALE\/)?([A-Za-z]+)-v5$/, "$1NoFrameskip-v4") : null;
  return foreignCheckpoint(file, tensors, agent.args, envId);
}

function readJsonCheckpoint(file: string, bytes: Buffer, script: string): Checkpoint {
  let checkpoint: Record<string, unknown>;
  try {
    checkpoint = JSON.parse(bytes.toString("utf8"));
  } catch (e) {
    throw new CheckpointError(
      `${file} is not a readable checkpoint: not safetensors, and not complete JSON (${(e as Error).message})`,
    );
  }
  // The oldest ppo.ts files carry no `script`; they were ppo.ts's.
  const writer = (checkpoint.script as string | undefined) ?? "ppo.ts";
  if (checkpoint.format !== "ppo.ts/agent@1")
    throw new CheckpointError(`${file} is not a ppo.ts checkpoint (format ${JSON.stringify(checkpoint.format)})`);
  if (writer !== script) throw new CheckpointError(`${file} was written by ${writer}, not ${script}`);
  return {
    path: file,
    script: writer,
    tensors: new Map(),
    legacy: checkpoint.parameters as Checkpoint["legacy"],
    fields: checkpoint,
    progress: null,
    optimizerStep: null,
    envId: checkpoint.envId as string,
  };
}

/** The torch shape of parameter `name` in a safetensors checkpoint, to size an agent before loading it. */
export function storedShape(ckpt: Checkpoint, name: string): number[] {
  const shape = ckpt.tensors.get(name)?.shape;
  if (shape === undefined)
    throw new CheckpointError(`${ckpt.path} has no parameter ${name} (a checkpoint of another network?)`);
  return shape;
}

/** Assigns the checkpoint's parameters to the agent's variables, checking names and shapes. */
export function loadParameters(ckpt: Checkpoint, parameters: NamedParameter[]): void {
  if (ckpt.legacy !== null) {
    if (ckpt.legacy.length !== parameters.length)
      throw new CheckpointError(`${ckpt.path} has ${ckpt.legacy.length} tensors, the agent ${parameters.length}`);
    parameters.forEach((p, i) => {
      const { shape, data } = ckpt.legacy![i];
      if (shape.join() !== p.variable.shape.join())
        throw new CheckpointError(
          `${ckpt.path}: tensor ${i} has shape [${shape}], the agent's ${p.name} [${p.variable.shape}]`,
        );
      tf.tidy(() => p.variable.assign(tf.tensor(data, p.variable.shape)));
    });
    return;
  }
  const expected = new Set(parameters.map((p) => p.name));
  const present = [...ckpt.tensors.keys()].filter((k) => !k.startsWith(OPTIMIZER_PREFIX));
  const missing = [...expected].filter((n) => !ckpt.tensors.has(n));
  const unexpected = present.filter((n) => !expected.has(n));
  if (missing.length > 0 || unexpected.length > 0) {
    const list = (xs: string[]) =>
      xs.length > 4 ? `${xs.slice(0, 4).join(", ")} and ${xs.length - 4} more` : xs.join(", ");
    throw new CheckpointError(
      `${ckpt.path} does not hold this agent's parameters (${[missing.length > 0 ? `missing ${list(missing)}` : "", unexpected.length > 0 ? `unexpected ${list(unexpected)}` : ""].filter(Boolean).join("; ")})`,
    );
  }
  const values = parameters.map((p) => ({ p, data: storedValues(ckpt, p, p.name) }));
  for (const { p, data } of values) tf.tidy(() => p.variable.assign(tf.tensor(data, p.variable.shape)));
}

/** Parameter `p`'s values stored under `name`, in our layout. */
function storedValues(ckpt: Checkpoint, p: NamedParameter, name: string): Float32Array {
  const stored = ckpt.tensors.get(name)!;
  const shape = torchShape(p);
  if (stored.shape.join() !== shape.join())
    throw new CheckpointError(`${ckpt.path}: ${name} has shape [${stored.shape}], this agent's is [${shape}]`);
  return fromTorch(toFloat32(stored), stored.shape, p.layout);
}

/**
 * `--resume`: the parameters, Adam's state and this rank's generator stream from `ckpt`. Returns the progress to
 * continue from.
 */
export function restoreTraining(
  ckpt: Checkpoint,
  parameters: NamedParameter[],
  optimizer: StatefulOptimizer,
  rng: RandomGenerator,
  rank = 0,
): Progress {
  const progress = ckpt.progress;
  if (progress === null || ckpt.optimizerStep === null)
    throw new CheckpointError(
      `${ckpt.path} holds parameters only (no optimizer state or progress): it can be evaluated, not resumed`,
    );
  if (progress.rng.length <= rank)
    throw new CheckpointError(
      `${ckpt.path} was written by a run of ${progress.rng.length} rank(s); this is rank ${rank}`,
    );
  loadParameters(ckpt, parameters);
  const state: OptimizerState = { step: ckpt.optimizerStep, moments: new Map() };
  if (ckpt.optimizerStep > 0) {
    for (const p of parameters) {
      const [m, v] = ["exp_avg", "exp_avg_sq"].map((k) => {
        const name = `${OPTIMIZER_PREFIX}${k}.${p.name}`;
        if (!ckpt.tensors.has(name)) throw new CheckpointError(`${ckpt.path} has no ${name}`);
        return storedValues(ckpt, p, name);
      });
      state.moments.set(p.variable.name, { m, v });
    }
    optimizer.importState(state);
  }
  rng.setState(progress.rng[rank]);
  return progress;
}

/**
 * The args a resumed run uses: the saved run's (its schedule, sizes and seed), with the flags given on this command
 * line (`argv`) on top: `--resume PATH --backend wasm` changes the backend and nothing else.
 */
export function resumeArgs<A extends Record<string, unknown>>(ckpt: Checkpoint, current: A, argv: string[]): A {
  if (ckpt.progress === null)
    throw new CheckpointError(
      `${ckpt.path} holds parameters only (no optimizer state or progress): it can be evaluated, not resumed`,
    );
  const saved = ckpt.progress.args;
  const given = new Set(
    argv.filter((a) => a.startsWith("--")).map((a) => a.slice(2).split("=")[0].replace(/^no-/, "")),
  );
  const out: Record<string, unknown> = { ...current };
  for (const key of Object.keys(current)) if (key in saved && !given.has(kebab(key))) out[key] = saved[key];
  return out as A;
}
