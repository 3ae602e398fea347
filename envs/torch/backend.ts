// Backend selection for TensorFlow.js in Node: `--backend auto|webgpu|tensorflow|wasm|cpu`, CleanRL's
//   device = torch.device("cuda" if torch.cuda.is_available() and args.cuda else "cpu")
// grown to the five ways tfjs can run here, plus gradient overrides that make the WASM backend usable (and fast)
// for PPO's networks.
//
// `auto` takes the first of these that starts, fastest first, and prints one line saying what runs and why each
// faster option was not taken:
//   1. `tensorflow` through @tensorflow/tfjs-node-gpu (libtensorflow 2.9.1 on CUDA 11.2 / cuDNN 8.1), when it loads
//      and sees a CUDA device. An optionalDependency whose install downloads libtensorflow; without network access
//      (or on today's CUDA 12 images) npm silently drops it, so "not installed" is the common case.
//   2. `webgpu` (@tensorflow/tfjs-backend-webgpu on Dawn, the `webgpu` npm package) when a *hardware* adapter exists.
//      Dawn needs the Vulkan loader (libvulkan.so.1) and the GPU driver's Vulkan ICD. A software adapter (Mesa's
//      lavapipe, SwiftShader) is refused under auto: it is slower than WASM for these networks, and a user who
//      expects a GPU must not silently train on a software rasterizer. `--backend webgpu` accepts it (CI tests).
//   3. `tensorflow` through @tensorflow/tfjs-node (native libtensorflow on the CPU, multi-threaded), when it loads.
//   4. `wasm` (XNNPACK kernels, SIMD), with one XNNPACK thread per core this process may use (see
//      `wasmThreadCount`). tfjs hard-codes WASM_HAS_MULTITHREAD_SUPPORT=false under Node and only ever loads its
//      single-thread module there, although the package ships a threaded one built for Node too;
//      `startThreadedWasm` starts that one itself (the three things tfjs's browser-only loader gets wrong in Node
//      are explained there). One thread, or a failed threaded start, is the stock single-thread module.
//   5. `cpu` (plain JS kernels), if WASM cannot initialise. Correct, but too slow to train the conv nets: its
//      conv gradients are plain loops (benchmark/README.md, "WASM kernels replaced by backend.ts").
// `--no-cuda` means no GPU backend: auto skips 1 and 2. A backend named explicitly either starts or is one
// `error:` line and exit 1, never a silent fallback.
//
// tfjs refuses to create tensors while a higher-priority backend is still initialising (importing
// tfjs-backend-wasm makes wasm the top priority), so `setupBackend` must run before the first tensor is created.

import * as tf from "@tensorflow/tfjs";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

import { usageError } from "../run/cli.ts";
import { TrainingError, removeWasmExitHandlers } from "../run/main.ts";
import { registerWebGpuKernels, webGpuKernelsWanted } from "./webgpu/index.ts";

export const BACKEND_CHOICES = ["auto", "webgpu", "tensorflow", "wasm", "cpu"] as const;
export type BackendChoice = (typeof BACKEND_CHOICES)[number];

export interface SetupBackendOptions {
  /** CleanRL's `--cuda`: false means no GPU backend (auto skips tfjs-node-gpu and WebGPU). Default true. */
  cuda?: boolean;
  /** Do not print the one-line backend summary (tests). */
  quiet?: boolean;
  /**
   * WASM threads when PPO_TS_WASM_THREADS is not set: "auto" (default) = one per core (see `wasmThreadCount`), or
   * a number. The MLP variants pass 1: their matMuls are so small that handing them to a second thread costs more
   * than it saves.
   */
  wasmThreads?: "auto" | number;
}

export interface BackendReport {
  /** Name of the tfjs backend actually in use ("tensorflow", "webgpu", "wasm" or "cpu"). */
  backend: string;
  /** Why not something faster: one short phrase per option skipped, joined by "; ". Empty when nothing was. */
  reason: string;
  /** The exact line printed by `setupBackend` (also when quiet). */
  line: string;
}

/**
 * An explicitly requested backend could not start. A TrainingError: under runMain its message is the one
 * `error:` line (it already says what to do) and the exit code 1.
 */
export class BackendUnavailableError extends TrainingError {
  override name = "BackendUnavailableError";
}

let lastReport: BackendReport | null = null;

/** What the most recent `setupBackend` call decided, or null before the first call. */
export function backendReport(): BackendReport | null {
  return lastReport;
}

const require = createRequire(import.meta.url);

function shortError(err: unknown, max = 60): string {
  const msg = String((err as { message?: string })?.message ?? err)
    .split("\n")[0]
    .trim();
  return msg.length > max ? `${msg.slice(0, max - 3)}...` : msg;
}

// ---- native TensorFlow: @tensorflow/tfjs-node-gpu (CUDA) and @tensorflow/tfjs-node (CPU) ----------------------
// Both register a backend named "tensorflow"; only one of the two may be loaded in a process.

// Package names are kept in variables so that TypeScript does not try to resolve the (usually absent) modules.
const TFJS_NODE_GPU = "@tensorflow/tfjs-node-gpu";
const TFJS_NODE = "@tensorflow/tfjs-node";

type Attempt = { ok: true } | { ok: false; why: string };
const nativeAttempts = new Map<string, Promise<Attempt>>();
let nativeLoaded: string | null = null;

/** Reduces an import failure to a short phrase for the summary line. */
function describeLoadError(pkg: string, err: unknown): string {
  const e = err as { code?: string; message?: string };
  const msg = String(e?.message ?? err);
  const name = pkg.replace("@tensorflow/", "");
  if ((e?.code === "ERR_MODULE_NOT_FOUND" || e?.code === "MODULE_NOT_FOUND") && msg.includes(pkg)) {
    return `${name} not installed`;
  }
  // The native addon is linked against libtensorflow and, in the GPU build, the CUDA runtime libraries;
  // dlopen failures name the missing library ("libcudart.so.11.0: cannot open shared object file").
  const lib = /(lib(?:cudart|cudnn|cublas|cublasLt|cufft|curand|cusolver|cusparse|nvinfer|tensorflow)[\w.+-]*)/.exec(
    msg,
  );
  if (lib) return `${name} failed to load (${lib[1]} missing)`;
  return `${name} failed to load (${shortError(err, 80)})`;
}

function loadNative(pkg: string): Promise<Attempt> {
  let attempt = nativeAttempts.get(pkg);
  if (attempt == null) {
    attempt = (async (): Promise<Attempt> => {
      if (nativeLoaded != null && nativeLoaded !== pkg) return { ok: false, why: `${nativeLoaded} is already loaded` };
      try {
        await import(pkg);
      } catch (err) {
        return { ok: false, why: describeLoadError(pkg, err) };
      }
      nativeLoaded = pkg;
      // The package registers "tensorflow" on the tfjs-core instance it imports. If npm did not dedupe it onto
      // ours, the backend is invisible here and selecting it would fail.
      if (tf.findBackendFactory("tensorflow") == null) {
        return { ok: false, why: `${pkg.replace("@tensorflow/", "")} loaded a different copy of tfjs-core` };
      }
      return { ok: true };
    })();
    nativeAttempts.set(pkg, attempt);
  }
  return attempt;
}

/**
 * Switches to the "tensorflow" backend; `onGpu` when on a CUDA device (NodeJSKernelBackend's own answer), `oneDnn`
 * when oneDNN's CPU kernels are in use (see registerTensorflowBackpropKernels; never on a GPU, where they would
 * drag every tensor back to the host).
 */
async function useTensorflow(): Promise<{ onGpu: boolean; oneDnn: boolean }> {
  if (!(await tf.setBackend("tensorflow"))) throw new Error("the tensorflow backend failed to initialise");
  const onGpu = (tf.backend() as unknown as { isUsingGpuDevice?: boolean }).isUsingGpuDevice === true;
  registerTensorflowReluGrad();
  const oneDnn = registerTensorflowBackpropKernels({ oneDnn: !onGpu });
  registerTensorflowFusedKernels();
  return { onGpu, oneDnn };
}

// The ReLU gradient on native TensorFlow. tfjs computes it as dy * cast(step(x)) for every backend, and tfjs-node's
// `Step` kernel builds step(x) out of six ops, one of them a ones(x.shape) filled and uploaded from JavaScript, a
// sizeable share of every update step. libtensorflow's own `ReluGrad` op (what torch's threshold_backward is) does
// the same in one pass (benchmark/README.md, "oneDNN and ReLU kernels, op by op").
// Every variant's ReLUs take this path in the update: tf.fused ops do not fuse while gradients are recorded, so
// they fall back to a plain Relu.
const NATIVE_RELU_GRAD = "PpoTsNativeReluGrad";
let reluGradOriginal: tf.GradConfig | null = null;

interface NativeBackend {
  binding: { TF_ATTR_TYPE: number; TF_FLOAT: number };
  executeSingleOutput(op: string, attrs: unknown[], inputs: tf.TensorInfo[]): tf.TensorInfo;
}

/** Installs the native ReLU gradient (active while the tensorflow backend is; tfjs's own elsewhere). Idempotent. */
export function registerTensorflowReluGrad(): void {
  if (reluGradOriginal != null) return;
  reluGradOriginal = tf.getGradient(tf.Relu);
  const original = reluGradOriginal;
  tf.registerKernel({
    kernelName: NATIVE_RELU_GRAD,
    backendName: "tensorflow",
    kernelFunc: ({ inputs, backend }) => {
      const native = backend as unknown as NativeBackend;
      const dtype = { name: "T", type: native.binding.TF_ATTR_TYPE, value: native.binding.TF_FLOAT };
      return native.executeSingleOutput("ReluGrad", [dtype], [inputs.dy!, inputs.x!]);
    },
  });
  tf.registerGradient({
    kernelName: tf.Relu,
    inputsToSave: ["x"],
    gradFunc: (dy, saved, attrs) => {
      const [x] = saved;
      if (tf.getBackend() !== "tensorflow" || x.dtype !== "float32") return original.gradFunc(dy, saved, attrs);
      return { x: () => tf.engine().runKernel(NATIVE_RELU_GRAD, { dy: dy as tf.Tensor, x }) as tf.Tensor };
    },
  });
}

// oneDNN's kernels on native TensorFlow. TensorFlow's x86 builds carry oneDNN ("_MklNative*" ops, picked by the
// kernel label "MklNameChangeOp"), but in eager mode through the C API that tfjs-node drives they are never chosen:
// the graph rewrite that swaps them in does not run there, nor does the eager one (ONEDNN_VERBOSE shows only
// oneDNN's sgemm, called from TensorFlow's own kernels). Two of them are much faster for what PPO runs
// (benchmark/README.md, "oneDNN and ReLU kernels, op by op"), so they are named directly where they exist (probed
// once, and checked against the stock op on a small case):
//   * Conv2DBackpropFilter: every conv layer's filter gradient; the strided layers gain most, stride 1 is even.
//   * BatchMatMul with a transposed operand (what every dense layer's backward pass runs). Without transposes
//     oneDNN is the slower one, so those stay on libtensorflow's kernel.
// Where the oneDNN ops are missing (a libtensorflow built without them) or TF_ENABLE_ONEDNN_OPTS=0 asks for none,
// strided filter gradients take the dilated forward conv (`conv2dFilterGrad`), which beats libtensorflow's kernel
// on the strided layers, and everything else libtensorflow's own kernels.
const ONEDNN_LABEL = "MklNameChangeOp";
let convFilterOriginal: tf.KernelConfig | null = null;
let matMulOriginal: tf.KernelConfig | null = null;
let oneDnnProbe: boolean | null = null;

type NativeAttr = { name: string; type: number; value: unknown };
interface NativeAttrs {
  binding: {
    TF_ATTR_TYPE: number;
    TF_FLOAT: number;
    TF_ATTR_STRING: number;
    TF_ATTR_INT: number;
    TF_ATTR_BOOL: number;
  };
}

function oneDnnLabel(backend: NativeAttrs): NativeAttr {
  return { name: "_kernel", type: backend.binding.TF_ATTR_STRING, value: ONEDNN_LABEL };
}

/** Runs oneDNN's conv filter gradient for a VALID/SAME NHWC conv; null when tfjs's attrs need anything else. */
function oneDnnConvFilterGrad(
  x: tf.TensorInfo,
  dy: tf.TensorInfo,
  a: ConvAttrs & { filterShape: number[] },
  backend: NativeBackend & NativeAttrs,
): tf.TensorInfo | null {
  const info = tf.backend_util.computeConv2DInfo(
    x.shape as [number, number, number, number],
    a.filterShape as [number, number, number, number],
    a.strides,
    1,
    a.pad,
    a.dimRoundingMode,
    false,
    "channelsLast",
  );
  if (info.padInfo.type !== "VALID" && info.padInfo.type !== "SAME") return null;
  const { binding } = backend;
  const attrs: NativeAttr[] = [
    { name: "T", type: binding.TF_ATTR_TYPE, value: binding.TF_FLOAT },
    { name: "strides", type: binding.TF_ATTR_INT, value: [1, info.strideHeight, info.strideWidth, 1] },
    { name: "padding", type: binding.TF_ATTR_STRING, value: info.padInfo.type },
    { name: "data_format", type: binding.TF_ATTR_STRING, value: "NHWC" },
    { name: "dilations", type: binding.TF_ATTR_INT, value: [1, 1, 1, 1] },
    oneDnnLabel(backend),
  ];
  const filterSizes = tf.tensor1d(a.filterShape, "int32");
  try {
    return backend.executeSingleOutput("_MklNativeConv2DBackpropFilter", attrs, [x, filterSizes, dy]);
  } finally {
    filterSizes.dispose();
  }
}

/**
 * Whether this libtensorflow runs oneDNN's kernels by name: once per process, a stride-2 filter gradient and a
 * transposed matmul through them must equal the stock ops' to 1e-4 relative. TF_ENABLE_ONEDNN_OPTS=0 turns them off.
 */
function oneDnnAvailable(original: tf.KernelConfig): boolean {
  if (oneDnnProbe != null) return oneDnnProbe;
  oneDnnProbe = false;
  if (process.env.TF_ENABLE_ONEDNN_OPTS === "0") return false;
  const backend = tf.backend() as unknown as NativeBackend & NativeAttrs & tf.KernelBackend;
  try {
    tf.tidy(() => {
      const x = tf.tensor4d(
        Float32Array.from({ length: 2 * 9 * 9 * 3 }, (_, i) => Math.sin(i)),
        [2, 9, 9, 3],
      );
      const dy = tf.tensor4d(
        Float32Array.from({ length: 2 * 3 * 3 * 4 }, (_, i) => Math.cos(i)),
        [2, 3, 3, 4],
      );
      const attrs = {
        strides: [2, 2],
        pad: "valid",
        dataFormat: "NHWC",
        dimRoundingMode: undefined,
        filterShape: [4, 4, 3, 4],
      } as unknown as ConvAttrs & { filterShape: number[] };
      const mine = oneDnnConvFilterGrad(x, dy, attrs, backend)!;
      const stock = original.kernelFunc({
        inputs: { x, dy },
        backend,
        attrs: attrs as unknown as tf.NamedAttrMap,
      }) as tf.TensorInfo;
      const a = tf.tensor2d(
        Float32Array.from({ length: 15 }, (_, i) => Math.sin(2 * i)),
        [3, 5],
      );
      const b = tf.tensor2d(
        Float32Array.from({ length: 20 }, (_, i) => Math.cos(3 * i)),
        [4, 5],
      );
      const mm = oneDnnMatMul(a, b, false, true, backend);
      const mm3 = oneDnnMatMul(a.reshape([1, 3, 5]), b.reshape([1, 4, 5]), false, true, backend);
      const want = tf.matMul(a, b, false, true);
      const pairs: [tf.TensorInfo, tf.Tensor][] = [
        [mine, tf.engine().makeTensorFromTensorInfo(stock)],
        [mm, want],
        [mm3, want.reshape([1, 3, 4])],
      ];
      for (const [got, want] of pairs) {
        const g = tf.engine().makeTensorFromTensorInfo(got).dataSync();
        const w = want.dataSync();
        const scale = Math.max(...Array.from(w, Math.abs));
        if (g.length !== w.length || g.some((v, i) => !(Math.abs(v - w[i]) <= 1e-4 * scale)))
          throw new Error("mismatch");
      }
    });
    oneDnnProbe = true;
  } catch {
    oneDnnProbe = false;
  }
  return oneDnnProbe;
}

function oneDnnMatMul(
  a: tf.TensorInfo,
  b: tf.TensorInfo,
  transposeA: boolean,
  transposeB: boolean,
  backend: NativeBackend & NativeAttrs,
): tf.TensorInfo {
  const { binding } = backend;
  const attrs: NativeAttr[] = [
    { name: "T", type: binding.TF_ATTR_TYPE, value: binding.TF_FLOAT },
    { name: "adj_x", type: binding.TF_ATTR_BOOL, value: transposeA },
    { name: "adj_y", type: binding.TF_ATTR_BOOL, value: transposeB },
    oneDnnLabel(backend),
  ];
  return backend.executeSingleOutput("_MklBatchMatMulV2", attrs, [a, b]);
}

/**
 * On the tensorflow backend: conv filter gradients through oneDNN (or, without it, strided ones through
 * `conv2dFilterGrad`), and matmuls with a transposed operand through oneDNN. `oneDnn: false` keeps oneDNN out
 * (GPU devices; tests of the fallback). Returns whether oneDNN's kernels are in use. Idempotent until unregistered.
 */
export function registerTensorflowBackpropKernels(opts: { oneDnn?: boolean } = {}): boolean {
  if (convFilterOriginal != null) return matMulOriginal != null;
  const original = tf.getKernel(tf.Conv2DBackpropFilter, "tensorflow");
  const matMul = tf.getKernel(tf.BatchMatMul, "tensorflow");
  if (original == null || matMul == null) return false;
  convFilterOriginal = original;
  const oneDnn = (opts.oneDnn ?? true) && oneDnnAvailable(original);
  tf.unregisterKernel(tf.Conv2DBackpropFilter, "tensorflow");
  tf.registerKernel({
    ...original,
    kernelFunc: (args) => {
      const a = args.attrs as unknown as ConvAttrs & { filterShape: number[] };
      const x = asTensor(args.inputs.x);
      const dy = asTensor(args.inputs.dy);
      if (x == null || dy == null || a.dataFormat === "NCHW" || x.dtype !== "float32") return original.kernelFunc(args);
      if (oneDnn) {
        const out = oneDnnConvFilterGrad(x, dy, a, args.backend as unknown as NativeBackend & NativeAttrs);
        if (out != null) return out;
      }
      const strided = (typeof a.strides === "number" ? a.strides : Math.max(...a.strides)) > 1;
      if (!strided) return original.kernelFunc(args);
      return conv2dFilterGrad(x as tf.Tensor4D, dy as tf.Tensor4D, a.filterShape, a);
    },
  });
  if (!oneDnn) return false;
  matMulOriginal = matMul;
  tf.unregisterKernel(tf.BatchMatMul, "tensorflow");
  tf.registerKernel({
    ...matMul,
    kernelFunc: (args) => {
      const { a, b } = args.inputs;
      const { transposeA, transposeB } = args.attrs as unknown as { transposeA: boolean; transposeB: boolean };
      // Matrices, or batches of them of one size (no broadcasting, which was not probed).
      const rank = a!.shape.length;
      const plainBatch = rank === b!.shape.length && (rank === 2 || (rank === 3 && a!.shape[0] === b!.shape[0]));
      if (!(transposeA || transposeB) || !plainBatch || a!.dtype !== "float32" || b!.dtype !== "float32")
        return matMul.kernelFunc(args);
      return oneDnnMatMul(a!, b!, transposeA, transposeB, args.backend as unknown as NativeBackend & NativeAttrs);
    },
  });
  return true;
}

// Fused conv / dense layers on native TensorFlow. tfjs-node runs FusedConv2D and _FusedMatMul as the conv (or
// BatchMatMul) followed by tf.add and tf.relu called back through the engine from inside the kernel (a nested
// tidy, two more kernels and their bookkeeping per layer). Here bias and activation are libtensorflow's own BiasAdd
// and Relu issued straight to the binding, as the conv is, which shortens the batch-8 forward pass every rollout
// step runs (benchmark/README.md, "oneDNN and ReLU kernels, op by op"). Other activations, prelu weights or a bias
// that is not one value per output channel keep tfjs-node's kernels. Gradients are unaffected: tfjs only runs these
// kernels outside a gradient tape or with a linear activation, and differentiates them with its own customGrad.
let fusedOriginals: { conv: tf.KernelConfig; matMul: tf.KernelConfig } | null = null;

/** Routes FusedConv2D / _FusedMatMul with a per-channel bias and relu or linear activation to native ops. Idempotent. */
export function registerTensorflowFusedKernels(): void {
  if (fusedOriginals != null) return;
  const conv = tf.getKernel(tf.FusedConv2D, "tensorflow");
  const matMul = tf.getKernel(tf._FusedMatMul, "tensorflow");
  if (conv == null || matMul == null) return;
  fusedOriginals = { conv, matMul };
  type Fused = { activation?: string; dataFormat?: string };
  // The plain kernel is looked up at each call: it may itself be one of the overrides above.
  const fastPath = (original: tf.KernelConfig, plainName: string): tf.KernelConfig => ({
    ...original,
    kernelFunc: (args) => {
      const { bias, preluActivationWeights, ...inputs } = args.inputs;
      const attrs = args.attrs as unknown as Fused;
      const relu = attrs.activation === "relu";
      if (preluActivationWeights != null || !(relu || attrs.activation === "linear") || attrs.dataFormat === "NCHW")
        return original.kernelFunc(args);
      if (
        Object.values(inputs).some((t) => t!.dtype !== "float32") ||
        (bias != null && (bias.shape.length !== 1 || bias.dtype !== "float32"))
      )
        return original.kernelFunc(args);
      const backend = args.backend as unknown as NativeBackend & NativeAttrs & tf.KernelBackend;
      let y = tf.getKernel(plainName, "tensorflow")!.kernelFunc({ ...args, inputs }) as tf.TensorInfo;
      if (bias != null && bias.shape[0] !== y.shape[y.shape.length - 1]) {
        backend.disposeData(y.dataId);
        return original.kernelFunc(args); // a broadcast bias: tfjs-node's tf.add handles it
      }
      const dtype = { name: "T", type: backend.binding.TF_ATTR_TYPE, value: backend.binding.TF_FLOAT };
      const next = (op: string, opAttrs: NativeAttr[], operands: tf.TensorInfo[]) => {
        const out = backend.executeSingleOutput(op, opAttrs, operands);
        backend.disposeData(y.dataId);
        y = out;
      };
      if (bias != null)
        next(
          "BiasAdd",
          [dtype, { name: "data_format", type: backend.binding.TF_ATTR_STRING, value: "NHWC" }],
          [y, bias],
        );
      if (relu) next("Relu", [dtype], [y]);
      return y;
    },
  });
  tf.unregisterKernel(tf.FusedConv2D, "tensorflow");
  tf.registerKernel(fastPath(conv, tf.Conv2D));
  tf.unregisterKernel(tf._FusedMatMul, "tensorflow");
  tf.registerKernel(fastPath(matMul, tf.BatchMatMul));
}

/** Puts tfjs-node's own FusedConv2D and _FusedMatMul back (tests compare the two). */
export function unregisterTensorflowFusedKernels(): void {
  if (fusedOriginals == null) return;
  tf.unregisterKernel(tf.FusedConv2D, "tensorflow");
  tf.registerKernel(fusedOriginals.conv);
  tf.unregisterKernel(tf._FusedMatMul, "tensorflow");
  tf.registerKernel(fusedOriginals.matMul);
  fusedOriginals = null;
}

/** Puts libtensorflow's own Conv2DBackpropFilter and BatchMatMul back (tests compare the two). */
export function unregisterTensorflowBackpropKernels(): void {
  if (convFilterOriginal == null) return;
  tf.unregisterKernel(tf.Conv2DBackpropFilter, "tensorflow");
  tf.registerKernel(convFilterOriginal);
  convFilterOriginal = null;
  if (matMulOriginal == null) return;
  tf.unregisterKernel(tf.BatchMatMul, "tensorflow");
  tf.registerKernel(matMulOriginal);
  matMulOriginal = null;
}

// ---- WebGPU: Dawn (`webgpu` npm package) + @tensorflow/tfjs-backend-webgpu ----------------------------------

interface AdapterProbe {
  adapter: {
    vendor: string;
    architecture: string;
    device: string;
    description: string;
    isFallbackAdapter: boolean;
  } | null;
  /** Why there is no adapter, from what Dawn printed; empty when there is one. */
  why: string;
}

let adapterProbe: AdapterProbe | null = null;

/**
 * Asks Dawn for an adapter in a child process. Dawn prints its own multi-line warnings on stderr when Vulkan or a
 * driver is missing ("Couldn't load Vulkan: libvulkan.so.1", "vkCreateInstance: Found no drivers!"): the child
 * keeps them away from the user's terminal, and a crash inside a broken driver cannot take the run down. A child
 * process costs a Node start-up, so it runs once per process, and only when WebGPU is a candidate.
 */
function probeAdapter(): AdapterProbe {
  if (adapterProbe != null) return adapterProbe;
  let webgpuUrl: string;
  try {
    webgpuUrl = pathToFileURL(require.resolve("webgpu")).href;
  } catch {
    return (adapterProbe = { adapter: null, why: "the webgpu package is not installed" });
  }
  const code = `
    const { create } = await import(${JSON.stringify(webgpuUrl)});
    const a = await create([]).requestAdapter({ powerPreference: "high-performance" });
    const i = a?.info;
    console.log(JSON.stringify(a == null ? null : { vendor: i.vendor, architecture: i.architecture, device: i.device,
      description: i.description, isFallbackAdapter: i.isFallbackAdapter === true || a.isFallbackAdapter === true }));
    process.exit(0);`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", code], { encoding: "utf8", timeout: 60_000 });
  const stderr = r.stderr ?? "";
  if (r.status !== 0) {
    const last =
      stderr
        .trim()
        .split("\n")
        .filter((l) => l.trim() !== "")
        .pop() ?? `exit ${r.status ?? r.signal}`;
    return (adapterProbe = { adapter: null, why: `WebGPU probe failed (${shortError(last)})` });
  }
  const adapter = JSON.parse(r.stdout.trim().split("\n").pop() ?? "null") as AdapterProbe["adapter"];
  let why = "";
  if (adapter == null) {
    if (/libvulkan\.so/.test(stderr)) why = "no WebGPU adapter (Vulkan loader libvulkan.so.1 not found)";
    else if (/Found no drivers|INCOMPATIBLE_DRIVER/.test(stderr))
      why = "no WebGPU adapter (no Vulkan driver ICD found)";
    else why = "no WebGPU adapter";
  }
  return (adapterProbe = { adapter, why });
}

function adapterLabel(a: NonNullable<AdapterProbe["adapter"]>): string {
  const name = a.description || [a.vendor, a.device || a.architecture].filter((s) => s).join(" ") || "unknown adapter";
  return shortError(name, 48);
}

// The slice of the WebGPU API and of WebGPUBackend (tfjs-backend-webgpu 4.22, private members included) we touch.
interface GpuBuffer {
  size: number;
  mapState: string;
  mapAsync(mode: number): Promise<void>;
  getMappedRange(): ArrayBuffer;
  unmap(): void;
}
interface GpuDevice {
  addEventListener(type: string, f: (ev: { error?: { message?: string } }) => void): void;
  lost: Promise<{ message: string }>;
}
interface WebGpuBackendInternals {
  device: GpuDevice;
  tensorMap: {
    get(id: object): { values: tf.backend_util.BackendValues | null; dtype: tf.DataType; resource: GpuBuffer };
  };
  bufferManager: { acquireBuffer(size: number, usage: number): GpuBuffer; releaseBuffer(b: GpuBuffer): void };
  commandEncoder: { copyBufferToBuffer(src: GpuBuffer, so: number, dst: GpuBuffer, d: number, size: number): void };
  ensureCommandEncoderReady(): void;
  endComputePassEncoder(): void;
  submitQueue(): void;
  convertAndCacheOnCPU(id: object, v: tf.backend_util.BackendValues): void;
  readSync(id: object): tf.backend_util.BackendValues;
  read(id: object): Promise<tf.backend_util.BackendValues>;
}

let webgpuRegistered = false;
let webgpuError: string | null = null;

/** Throws (once) the first error Dawn reported since the last check, as an exception instead of a printed line. */
function throwPendingWebGpuError(): void {
  if (webgpuError == null) return;
  const msg = webgpuError;
  webgpuError = null;
  throw new Error(`WebGPU: ${msg}`);
}

/**
 * Replaces the backend's readSync. In a browser it reads back through an OffscreenCanvas, which Node lacks, and
 * WebGPU itself only maps buffers asynchronously; but every variant reads its losses and actions with dataSync().
 * So: the same copy-to-staging-buffer as the backend's async read, then spin Node's event loop with `deasync`
 * until Dawn (whose completion callbacks run from that loop) has mapped the staging buffer. The buffer's mapState
 * flips to "mapped" inside Dawn's callback; the Promise would resolve only later, between macrotasks.
 */
function patchWebGpuBackend(backend: WebGpuBackendInternals): void {
  const deasync = require("deasync") as { loopWhile(pred: () => boolean): void };
  const MAP_READ = 0x0001; // GPUBufferUsage.MAP_READ and GPUMapMode.READ
  const COPY_DST = 0x0008; // GPUBufferUsage.COPY_DST
  const asyncRead = backend.read.bind(backend);
  const cpuReadSync = backend.readSync.bind(backend);
  backend.readSync = (dataId: object) => {
    throwPendingWebGpuError();
    const data = backend.tensorMap.get(dataId);
    if (data.values != null || data.dtype === "string" || data.dtype === "complex64") return cpuReadSync(dataId);
    const src = data.resource;
    const staging = backend.bufferManager.acquireBuffer(src.size, COPY_DST | MAP_READ);
    backend.ensureCommandEncoderReady();
    backend.endComputePassEncoder();
    backend.commandEncoder.copyBufferToBuffer(src, 0, staging, 0, src.size);
    backend.submitQueue();
    staging.mapAsync(MAP_READ).catch(() => {}); // failure shows as mapState "unmapped" below
    deasync.loopWhile(() => staging.mapState === "pending");
    throwPendingWebGpuError();
    if (staging.mapState !== "mapped") throw new Error("WebGPU: reading a tensor back failed (buffer not mapped)");
    const bytes = staging.getMappedRange().slice(0);
    staging.unmap();
    backend.bufferManager.releaseBuffer(staging);
    const values = tf.util.convertBackendValuesAndArrayBuffer(bytes, data.dtype);
    backend.convertAndCacheOnCPU(dataId, values);
    return values;
  };
  backend.read = async (dataId: object) => {
    throwPendingWebGpuError();
    const values = await asyncRead(dataId);
    throwPendingWebGpuError();
    return values;
  };
}

/** Loads Dawn and the tfjs WebGPU backend and registers our "webgpu" factory (once). */
async function registerWebGpu(): Promise<void> {
  if (webgpuRegistered) return;
  const { create, globals } = await import("webgpu");
  // tfjs-backend-webgpu reads navigator.gpu and the GPU* constants (GPUBufferUsage, ...) as browser globals.
  Object.assign(globalThis, globals);
  const gpu = create([]);
  const g = globalThis as unknown as { navigator?: object };
  if (g.navigator == null) g.navigator = { gpu };
  else Object.defineProperty(g.navigator, "gpu", { value: gpu, configurable: true });
  const { WebGPUBackend } = await import("@tensorflow/tfjs-backend-webgpu");
  // Conv2DBackpropInput as a matmul instead of the naive per-pixel shader (checked equal to the cpu backend), for
  // the cases our kernels leave to tfjs.
  tf.env().set("WEBGPU_USE_NAIVE_CONV2D_TRANSPOSE", false);
  // Our WGSL kernels for the convolutions and the max-pool gradient (envs/torch/webgpu/); PPO_TS_WEBGPU_KERNELS=0 keeps
  // tfjs's.
  if (webGpuKernelsWanted()) registerWebGpuKernels();
  // The package registered its own factory at import. Its device request leaves maxStorageBuffersPerShaderStage
  // at WebGPU's default of 8, and then tf.addN of more than 7 tensors (e.g. gradient-norm clipping over 8+
  // parameters) fails validation and silently returns zeros. Ours requests every limit the adapter offers.
  if (tf.findBackendFactory("webgpu") != null) tf.removeBackend("webgpu");
  tf.registerBackend(
    "webgpu",
    async () => {
      const adapter = await gpu.requestAdapter({ powerPreference: "high-performance" });
      if (adapter == null) throw new Error("no WebGPU adapter");
      const requiredLimits: Record<string, number> = {};
      for (const key in adapter.limits) {
        const v = (adapter.limits as unknown as Record<string, unknown>)[key];
        if (typeof v === "number") requiredLimits[key] = v;
      }
      const device = await adapter.requestDevice({ requiredLimits });
      // Dawn reports validation errors as printed "validation:" lines and carries on with zeros; keep the first
      // and throw it from the next readback, which every update and action ends with.
      (device as unknown as GpuDevice).addEventListener("uncapturederror", (ev) => {
        webgpuError ??= shortError(ev.error?.message ?? "uncaptured error", 200);
      });
      (device as unknown as GpuDevice).lost.then(
        (info) => {
          webgpuError ??= `device lost (${info.message})`;
        },
        () => {},
      );
      const backend = new WebGPUBackend(device, adapter.info);
      patchWebGpuBackend(backend as unknown as WebGpuBackendInternals);
      return backend;
    },
    0,
  );
  webgpuRegistered = true;
}

// ---- WASM and cpu -------------------------------------------------------------------------------------------

let wasmPathsSet = false;

/**
 * Loads the WASM backend module and points it at its .wasm binaries inside node_modules. Without `setWasmPaths`
 * Emscripten looks for them next to the calling script, which breaks under `npx tsx` (the script is not in
 * node_modules/@tensorflow/tfjs-backend-wasm/dist).
 */
async function loadWasmModule(): Promise<typeof import("@tensorflow/tfjs-backend-wasm")> {
  const wasm = await import("@tensorflow/tfjs-backend-wasm");
  if (!wasmPathsSet) {
    const file = (name: string): string => require.resolve(`@tensorflow/tfjs-backend-wasm/dist/${name}`);
    wasm.setWasmPaths({
      "tfjs-backend-wasm.wasm": file("tfjs-backend-wasm.wasm"),
      "tfjs-backend-wasm-simd.wasm": file("tfjs-backend-wasm-simd.wasm"),
      "tfjs-backend-wasm-threaded-simd.wasm": file("tfjs-backend-wasm-threaded-simd.wasm"),
    });
    wasmPathsSet = true;
  }
  return wasm;
}

/** Most XNNPACK threads the threaded module can run: its Emscripten build pre-creates 8 pthread workers. */
const WASM_MAX_THREADS = 8;

/**
 * How many threads the WASM backend uses: PPO_TS_WASM_THREADS when set (1 to 8; 1 = the stock single-thread
 * module), else what the variant prefers (`preferred`, see SetupBackendOptions.wasmThreads), else one per core this
 * process may use, i.e. the cores divided among the processes torchrun put on this machine (LOCAL_WORLD_SIZE), so
 * `ppo_atari_multigpu.ts` with one rank per core keeps one thread per rank. Like torch, which takes every core
 * unless OMP_NUM_THREADS / torch.set_num_threads say otherwise.
 */
export function wasmThreadCount(
  env: NodeJS.ProcessEnv = process.env,
  cores = os.availableParallelism(),
  preferred: "auto" | number = "auto",
): number {
  const override = env.PPO_TS_WASM_THREADS;
  if (override !== undefined && override !== "") {
    const n = Number(override);
    if (!Number.isInteger(n) || n < 1 || n > WASM_MAX_THREADS) {
      usageError(`PPO_TS_WASM_THREADS must be an integer from 1 to ${WASM_MAX_THREADS}; got ${override}`);
    }
    return n;
  }
  if (preferred !== "auto") return Math.min(WASM_MAX_THREADS, Math.max(1, Math.floor(preferred)));
  const localWorldSize = Math.max(1, Number(env.LOCAL_WORLD_SIZE ?? 1) || 1);
  return Math.min(WASM_MAX_THREADS, Math.max(1, Math.floor(cores / localWorldSize)));
}

/**
 * Loads tfjs-backend-wasm's threaded SIMD module (an Emscripten pthreads build whose glue code supports Node's
 * worker_threads) and returns it wired the way tfjs's own `init()` wires a module. tfjs's loader cannot do this
 * in Node, for three reasons worked around here:
 *   1. It hands Emscripten the pthread worker's source as a Blob URL, which Node's Worker cannot open: we write
 *      the same source to a file named by its hash in the user cache folder (re-escaping its newlines, as tfjs does
 *      before making the Blob: the source contains "\n" escapes that a template literal turned into newlines).
 *   2. The C++ side caps the thread count at emscripten_num_logical_cores() / 2, assuming two hyperthreads per
 *      core, and reads that once while the module starts; in Node the glue answers it with os.cpus().length. For
 *      the start only, os.cpus reports 2 × threads entries so that the requested count is what XNNPACK gets.
 *   3. The pthread workers load the module's JavaScript from `mainScriptUrlOrBlob`; left unset, Emscripten passes
 *      the path of tfjs-backend-wasm-threaded-simd.js itself, which the worker reads with fs: exactly right.
 */
async function loadThreadedWasmModule(threads: number): Promise<WasmModule> {
  const factory = require("@tensorflow/tfjs-backend-wasm/wasm-out/tfjs-backend-wasm-threaded-simd.js") as (
    config: Partial<WasmModule> & Record<string, unknown>,
  ) => Promise<WasmModule>;
  const { wasmWorkerContents } =
    require("@tensorflow/tfjs-backend-wasm/wasm-out/tfjs-backend-wasm-threaded-simd.worker.js") as {
      wasmWorkerContents: string;
    };
  const workerFile = writeWorkerSource(wasmWorkerContents.replace(/\n/g, "\\n"));
  const wasmFile = require.resolve("@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-threaded-simd.wasm");
  const realCpus = os.cpus;
  const cpus = Array.from({ length: 2 * threads }, () => realCpus()[0]);
  os.cpus = () => cpus;
  // Emscripten uses this object as the module itself: `config.PThread` exists (its workers already started) as
  // soon as factory() returns, so a start that fails later can still stop them.
  const config: Partial<WasmModule> & Record<string, unknown> = {
    locateFile: (path: string) => (path.endsWith(".worker.js") ? workerFile : path.endsWith(".wasm") ? wasmFile : path),
  };
  try {
    const module = await factory(config);
    module.tfjs = {
      init: module.cwrap("init", null, []),
      initWithThreadsCount: module.cwrap("init_with_threads_count", null, ["number"]),
      getThreadsCount: module.cwrap("get_threads_count", "number", []),
      registerTensor: module.cwrap("register_tensor", null, ["number", "number", "number"]),
      disposeData: module.cwrap("dispose_data", null, ["number"]),
      dispose: module.cwrap("dispose", null, []),
    };
    return module;
  } catch (err) {
    config.PThread?.terminateAllThreads();
    throw err;
  } finally {
    os.cpus = realCpus;
  }
}

/**
 * Writes the pthread worker's source where Node's Worker can open it: the user's cache folder (~/.cache/ppo.ts, as
 * for the other downloads), named by its hash. An existing file is used only if it holds exactly this source, so a
 * stale or tampered file is rewritten, never run.
 */
function writeWorkerSource(source: string): string {
  const dir = join(os.homedir(), ".cache", "ppo.ts", "tfjs-wasm");
  const file = join(dir, `worker-${createHash("sha256").update(source).digest("hex").slice(0, 16)}.cjs`);
  if (existsSync(file) && readFileSync(file, "utf8") === source) return file;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const partial = `${file}.${process.pid}`;
  writeFileSync(partial, source);
  renameSync(partial, file); // atomic: a concurrent process never runs a half-written file
  return file;
}

interface WasmModule {
  PThread: { unusedWorkers: { unref(): void }[]; runningWorkers: { unref(): void }[]; terminateAllThreads(): void };
  cwrap(name: string, returns: string | null, args: string[]): (...args: number[]) => number;
  tfjs?: Record<string, (...args: number[]) => number>;
}

/**
 * Starts the threaded module with `threads` XNNPACK threads and makes it the "wasm" backend (kernels are registered
 * by backend name, so all of tfjs's wasm kernels and ours keep working). Started here rather than in a backend
 * factory so that a failure is ours to report (tfjs would print its own warnings) and the stock module stays.
 */
async function startThreadedWasm(wasm: typeof import("@tensorflow/tfjs-backend-wasm"), threads: number): Promise<void> {
  const module = await loadThreadedWasmModule(threads);
  wasm.setThreadsCount(threads); // read by the BackendWasm constructor
  let backend: tf.KernelBackend;
  try {
    backend = new wasm.BackendWasm(module as never); // starts the XNNPACK threads
  } catch (err) {
    module.PThread.terminateAllThreads();
    throw err;
  }
  // Emscripten's pthread workers are ref'd Node Workers: left so, they keep the process alive after the script
  // ends. They only ever work for the main thread, so they need not.
  for (const worker of [...module.PThread.unusedWorkers, ...module.PThread.runningWorkers]) worker.unref();
  tf.removeBackend("wasm");
  tf.registerBackend("wasm", () => backend, 2);
}

/**
 * The cpu backend prints a multi-line "Hi, looks like you are running TensorFlow.js in Node.js" banner on its first
 * tensor. It would break the "exactly one line" contract and says nothing we have not already said, so we mark
 * the banner as shown (private field `firstUse` of MathBackendCPU in tfjs-backend-cpu 4.22; harmless if renamed).
 */
function silenceCpuBanner(): void {
  try {
    const cpu = tf.findBackend("cpu") as unknown as { firstUse?: boolean } | null;
    if (cpu != null && typeof cpu.firstUse === "boolean") cpu.firstUse = false;
  } catch {
    // findBackend only throws for a backend that failed to initialise; the banner is then irrelevant.
  }
}

// ---- the choice ---------------------------------------------------------------------------------------------

/** One candidate: returns the label of the started backend, or the reason it was not taken. */
type Candidate = () => Promise<{ label: string } | { why: string }>;

async function tryCudaTensorflow(explicit: boolean): Promise<{ label: string } | { why: string }> {
  const gpu = await loadNative(TFJS_NODE_GPU);
  if (!gpu.ok) return { why: gpu.why };
  try {
    const { onGpu } = await useTensorflow();
    // Without a visible CUDA device libtensorflow silently runs on the CPU: fine when tensorflow was asked for,
    // but under auto WebGPU may still find the GPU (step 3 then reuses this backend).
    if (onGpu || explicit)
      return { label: `tensorflow (tfjs-node-gpu, ${onGpu ? "CUDA" : "CPU: no CUDA device visible"})` };
    return { why: "tfjs-node-gpu sees no CUDA device" };
  } catch (err) {
    return { why: `tfjs-node-gpu failed (${shortError(err)})` };
  }
}

async function tryCpuTensorflow(): Promise<{ label: string } | { why: string }> {
  // If tfjs-node-gpu loaded (without a CUDA device), its libtensorflow runs on the CPU just as well.
  const pkg = nativeLoaded === TFJS_NODE_GPU ? TFJS_NODE_GPU : TFJS_NODE;
  const native = await loadNative(pkg);
  if (!native.ok) return { why: native.why };
  try {
    const { oneDnn } = await useTensorflow();
    return { label: `tensorflow (${pkg.replace("@tensorflow/", "")}, CPU${oneDnn ? ", oneDNN conv gradients" : ""})` };
  } catch (err) {
    return { why: `${pkg.replace("@tensorflow/", "")} failed (${shortError(err)})` };
  }
}

async function tryWebGpu(allowSoftware: boolean): Promise<{ label: string } | { why: string }> {
  const probe = probeAdapter();
  if (probe.adapter == null) return { why: probe.why };
  if (probe.adapter.isFallbackAdapter && !allowSoftware) {
    return { why: `WebGPU adapter ${adapterLabel(probe.adapter)} is software, refused (--backend webgpu forces it)` };
  }
  try {
    await registerWebGpu();
    if (!(await tf.setBackend("webgpu"))) return { why: "the webgpu backend failed to initialise" };
  } catch (err) {
    return { why: `webgpu failed (${shortError(err)})` };
  }
  return { label: `webgpu (${adapterLabel(probe.adapter)}${probe.adapter.isFallbackAdapter ? ", software" : ""})` };
}

let wasmStarted = false;

async function tryWasm(preferred: "auto" | number = "auto"): Promise<{ label: string } | { why: string }> {
  const wanted = wasmThreadCount(process.env, os.availableParallelism(), preferred); // outside the try: a bad PPO_TS_WASM_THREADS is a usage error, not a fallback
  try {
    const wasm = await loadWasmModule();
    let note = "";
    // Once started (by us or by a plain tf.setBackend("wasm")), the module cannot be swapped: later calls only
    // switch back to it.
    const started = wasmStarted || "wasm" in tf.engine().registry;
    if (!started && wanted > 1 && (await tf.env().getAsync("WASM_HAS_SIMD_SUPPORT"))) {
      try {
        await startThreadedWasm(wasm, wanted);
      } catch (err) {
        note = `; ${wanted} wanted, but the threaded module failed to start: ${shortError(err)}`;
      }
    }
    const ready = await tf.setBackend("wasm");
    removeWasmExitHandlers(); // the Emscripten module's process handlers would print its whole source on any error
    if (!ready) return { why: "wasm failed to initialise" };
    wasmStarted = true;
    const simd = await tf.env().getAsync("WASM_HAS_SIMD_SUPPORT");
    const threads = wasm.getThreadsCount();
    registerWasmGradientFixes();
    return { label: `wasm (${simd ? "SIMD" : "no SIMD"}, ${threads} thread${threads === 1 ? "" : "s"}${note})` };
  } catch (err) {
    return { why: `wasm failed to load (${shortError(err)})` };
  }
}

async function tryCpu(): Promise<{ label: string } | { why: string }> {
  if (!(await tf.setBackend("cpu"))) return { why: "the cpu backend failed to initialise" };
  silenceCpuBanner();
  return { label: "cpu (plain JS kernels)" };
}

/**
 * Starts the requested backend (see the top of this file) and returns what runs and why; throws
 * BackendUnavailableError when an explicitly named backend cannot start. Call it before any tensor exists.
 * Calling it again is harmless: module loads and the gradient overrides are done once, and `tf.setBackend` on an
 * initialised backend only switches to it.
 */
export async function selectBackend(choice: BackendChoice, opts: SetupBackendOptions = {}): Promise<BackendReport> {
  const cuda = opts.cuda ?? true;
  const reasons: string[] = [];
  let candidates: Candidate[];
  if (choice === "auto") {
    candidates = cuda
      ? [
          () => tryCudaTensorflow(false),
          () => tryWebGpu(false),
          tryCpuTensorflow,
          () => tryWasm(opts.wasmThreads),
          tryCpu,
        ]
      : [tryCpuTensorflow, () => tryWasm(opts.wasmThreads), tryCpu];
    if (!cuda) reasons.push("--no-cuda: no GPU backend");
  } else if (choice === "webgpu") {
    if (!cuda) throw new BackendUnavailableError("--backend webgpu is a GPU backend, but --no-cuda was given");
    candidates = [() => tryWebGpu(true)];
  } else if (choice === "tensorflow") {
    candidates = cuda ? [() => tryCudaTensorflow(true), tryCpuTensorflow] : [tryCpuTensorflow];
  } else {
    candidates = [choice === "wasm" ? () => tryWasm(opts.wasmThreads) : tryCpu];
  }
  for (const candidate of candidates) {
    const r = await candidate();
    if ("label" in r) {
      const backend = tf.getBackend();
      const reason = choice === "auto" ? reasons.join("; ") : "";
      const line = reason === "" ? `backend: ${r.label}` : `backend: ${r.label} — ${reason}`;
      return (lastReport = { backend, reason, line });
    }
    reasons.push(r.why);
  }
  throw new BackendUnavailableError(
    `--backend ${choice} cannot start: ${reasons.join("; ")}; see README.md "Backends"`,
  );
}

/**
 * What a variant calls once at start-up (CleanRL's `device = ...` line): validates `--backend`, starts it and
 * prints one line naming it and why (unless `quiet`). A bad `--backend` value is a usage error (exit 2); a
 * backend that cannot start throws BackendUnavailableError (under runMain: one `error:` line, exit 1).
 */
export async function setupBackend(choice: string = "auto", opts: SetupBackendOptions = {}): Promise<string> {
  if (!(BACKEND_CHOICES as readonly string[]).includes(choice)) {
    usageError(`--backend must be one of ${BACKEND_CHOICES.join(", ")}; got ${choice}`);
  }
  const report = await selectBackend(choice as BackendChoice, opts);
  if (!opts.quiet) console.log(report.line);
  return report.backend;
}

// ---------------------------------------------------------------------------------------------------------------
// WASM gradient fixes
//
// What tfjs-backend-wasm 4.22 lacks for PPO's networks (timings: benchmark/README.md, "WASM kernels replaced by
// backend.ts"):
//   * There is no Conv2DBackpropFilter kernel, so the stock Conv2D gradient throws on wasm (tfjs does not fall back
//     to another backend per kernel).
//   * Conv2DBackpropInput is a naive loop, many times slower than the forward conv of the same layer.
//   * BatchMatMul with transposeA/transposeB bypasses XNNPACK's packed GEMM; tfjs's own gradient
//     (tfjs-core/src/gradients/BatchMatMul_grad.ts) uses exactly those flags, so every dense layer's backward pass
//     hits the slow path.
// The fixes express both gradients through kernels that XNNPACK runs fast (plain matMul, forward conv2d,
// transpose, pad, slice, reshape). They are installed at two levels, sharing the same math:
//   1. Gradient overrides for the kernel names `Conv2D` and `BatchMatMul` (tf.registerGradient). tfjs keeps one
//      gradient per kernel name for all backends, so these are global; they defer to tfjs's own gradient unless
//      the active backend is wasm, so cpu and tensorflow keep their native backprop kernels. The math itself is
//      backend-independent (the tests check it on cpu as well).
//   2. wasm kernels for `Conv2DBackpropFilter` (missing), `Conv2DBackpropInput` (replacing the naive loop), a
//      `BatchMatMul` wrapper that turns transposeA/transposeB into an explicit Transpose before the fast GEMM, and
//      a `Sum` wrapper that reduces leading axes (bias gradients) with one GEMV instead of transpose + reduce.
//      Needed because tf.fused.matMul / tf.fused.conv2d (ppo.ts's `linear`, and tf.layers) compute their gradients
//      in a customGrad that calls those kernels directly, never consulting the registered Conv2D/BatchMatMul
//      gradients. The kernels are implemented with ordinary tf ops: tfjs's engine supports ops nested inside a
//      kernel (they are not taped at kernelDepth > 0) and accepts a Tensor as a kernel's output.
// ---------------------------------------------------------------------------------------------------------------

type ConvPad = "valid" | "same" | number | tf.backend_util.ExplicitPadding;
type RoundingMode = "floor" | "round" | "ceil" | undefined;

interface ConvAttrs {
  strides: [number, number] | number;
  pad: ConvPad;
  dataFormat?: "NHWC" | "NCHW";
  dilations?: [number, number] | number;
  dimRoundingMode?: RoundingMode;
}

let gradOriginals: Map<string, tf.GradConfig> | null = null;
let kernelOriginals: Map<string, tf.KernelConfig | undefined> | null = null;
let overridesOnAllBackends = false;

/** Whether the gradient overrides should run for the backend active at backprop time. */
function overrideActive(): boolean {
  return overridesOnAllBackends || tf.getBackend() === "wasm";
}

/** Transposes the two innermost axes (the matrix axes of a batched matMul operand). */
function transposeInner(x: tf.Tensor): tf.Tensor {
  const perm = x.shape.map((_, i) => i);
  const r = x.rank;
  [perm[r - 2], perm[r - 1]] = [perm[r - 1], perm[r - 2]];
  return tf.transpose(x, perm);
}

/**
 * The BatchMatMul kernel broadcasts batch axes (tfjs >= 3), but tfjs's own gradient returns the broadcast shape and
 * then fails the engine's shape check. Sum the gradient over broadcast batch axes so it matches its input.
 */
function reduceToShape(g: tf.Tensor, shape: number[]): tf.Tensor {
  if (g.shape.length === shape.length && g.shape.every((d, i) => d === shape[i])) return g;
  const lead = g.rank - shape.length;
  const axes: number[] = [];
  for (let i = 0; i < g.rank - 2; i++) {
    if (i < lead || (shape[i - lead] === 1 && g.shape[i] !== 1)) axes.push(i);
  }
  return tf.reshape(axes.length > 0 ? tf.sum(g, axes) : g, shape);
}

/**
 * C = op(A)·op(B) with op = identity or transpose of the two inner axes. By the chain rule
 * d op(A) = dC·op(B)ᵀ and d op(B) = op(A)ᵀ·dC; transposing back where op is a transpose gives the four cases of
 * BatchMatMul_grad.ts, rewritten so that every matMul is untransposed and the transposes are explicit:
 *   (F,F): dA = dC·Bᵀ         dB = Aᵀ·dC
 *   (F,T): dA = dC·B          dB = dCᵀ·A
 *   (T,F): dA = B·dCᵀ         dB = A·dC
 *   (T,T): dA = (dC·B)ᵀ       dB = (A·dC)ᵀ
 */
function batchMatMulGradThunks(
  dy: tf.Tensor,
  a: tf.Tensor,
  b: tf.Tensor,
  transposeA: boolean,
  transposeB: boolean,
): { a: () => tf.Tensor; b: () => tf.Tensor } {
  const mm = (p: tf.Tensor, q: tf.Tensor): tf.Tensor => tf.matMul(p, q, false, false);
  let da: () => tf.Tensor;
  let db: () => tf.Tensor;
  if (!transposeA && !transposeB) {
    da = () => mm(dy, transposeInner(b));
    db = () => mm(transposeInner(a), dy);
  } else if (!transposeA && transposeB) {
    da = () => mm(dy, b);
    db = () => mm(transposeInner(dy), a);
  } else if (transposeA && !transposeB) {
    da = () => mm(b, transposeInner(dy));
    db = () => mm(a, dy);
  } else {
    da = () => transposeInner(mm(dy, b));
    db = () => transposeInner(mm(a, dy));
  }
  return { a: () => reduceToShape(da(), a.shape), b: () => reduceToShape(db(), b.shape) };
}

/**
 * Returns t[:, offH + h, offW + w, :] for h < outH, w < outW, with zeros where that index falls outside t
 * (one pad and/or one slice).
 */
function window4d(t: tf.Tensor4D, offH: number, offW: number, outH: number, outW: number): tf.Tensor4D {
  const [, h, w] = t.shape;
  const padTop = Math.max(0, -offH);
  const padLeft = Math.max(0, -offW);
  const padBottom = Math.max(0, offH + outH - h);
  const padRight = Math.max(0, offW + outW - w);
  let y = t;
  if (padTop + padLeft + padBottom + padRight > 0) {
    y = tf.pad(y, [
      [0, 0],
      [padTop, padBottom],
      [padLeft, padRight],
      [0, 0],
    ]);
  }
  const startH = offH + padTop;
  const startW = offW + padLeft;
  if (startH !== 0 || startW !== 0 || y.shape[1] !== outH || y.shape[2] !== outW) {
    y = tf.slice(y, [0, startH, startW, 0], [-1, outH, outW, -1]);
  }
  return y;
}

/**
 * [N, H, W, C] -> [C, H, W, N] (tf.transpose(x, [3, 1, 2, 0])) as a 2-D transpose [N, HWC] -> [HWC, N] and a
 * block transpose [HW, C, N] -> [C, HW, N] that moves whole rows of N: the wasm Transpose kernel takes about twice
 * as long for the one-step version (same values).
 */
function batchToChannels(x: tf.Tensor4D): tf.Tensor4D {
  const [n, h, w, c] = x.shape;
  const t = tf.transpose(tf.reshape(x, [n, h * w * c]));
  return tf.reshape(tf.transpose(tf.reshape(t, [h * w, c, n]), [1, 0, 2]), [c, h, w, n]);
}

// Conv2D backprop (NHWC, dilation 1, any stride and padding) from forward ops only.
//
// Notation: x [N,H,W,Ci], filter w [Kh,Kw,Ci,Co], dy [N,OH,OW,Co], stride (sh, sw), padding (top, left) from
// computeConv2DInfo. The forward conv reads only xf = zero-padded x cropped to Hf = (OH-1)·sh + Kh rows (Wf
// columns) and is a VALID conv on xf: y[n,i,j,o] = Σ_{p,q,c} xf[n, i·sh+p, j·sw+q, c] · w[p,q,c,o].

function convGeometry(xShape: number[], filterShape: number[], dyShape: number[], a: ConvAttrs) {
  const info = tf.backend_util.computeConv2DInfo(
    xShape as [number, number, number, number],
    filterShape as [number, number, number, number],
    a.strides,
    1,
    a.pad,
    a.dimRoundingMode,
    false,
    "channelsLast",
  );
  const sh = info.strideHeight;
  const sw = info.strideWidth;
  const kh = info.filterHeight;
  const kw = info.filterWidth;
  return {
    sh,
    sw,
    kh,
    kw,
    top: info.padInfo.top,
    left: info.padInfo.left,
    hf: (dyShape[1] - 1) * sh + kh,
    wf: (dyShape[2] - 1) * sw + kw,
  };
}

/**
 * Filter gradient: dW[p,q,c,o] = Σ_{n,i,j} xf[n, p + i·sh, q + j·sw, c] · dy[n,i,j,o]. With xf transposed to
 * [Ci, Hf, Wf, N] (input channels as batch, batch as channels) and dy transposed to [OH, OW, N, Co] (used as the
 * filter), that is one forward VALID conv with stride 1 and dilation (sh, sw), whose output is [Ci, Kh, Kw, Co].
 * XNNPACK supports dilation. On wasm it beats im2col (from space-to-depth or from strided slices: wasm's
 * StridedSlice is slow) followed by one matMul, and space-to-depth followed by an undilated conv (its 6-D transpose
 * with N innermost is slow).
 */
export function conv2dFilterGrad(
  x: tf.Tensor4D,
  dy: tf.Tensor4D,
  filterShape: number[],
  attrs: ConvAttrs,
): tf.Tensor4D {
  return tf.tidy(() => {
    const g = convGeometry(x.shape, filterShape, dy.shape, attrs);
    const dyT = tf.transpose(dy, [1, 2, 0, 3]) as tf.Tensor4D; // [OH, OW, N, Co]
    // Stride 1 with dilation (sh, sw): tfjs allows dilation > 1 only when the stride is 1, which it is here.
    // The zero rows and columns of xf are the conv's own (explicit) padding when xf only adds to x, as for
    // "same" convs: no Pad kernel, and a smaller transpose (ppo_procgen.ts's IMPALA CNN: all 15 of its convs).
    const bottom = g.hf - x.shape[1] - g.top;
    const right = g.wf - x.shape[2] - g.left;
    let r: tf.Tensor4D;
    if (bottom >= 0 && right >= 0) {
      const xT = batchToChannels(x); // [Ci, H, W, N]
      const pad: tf.backend_util.ExplicitPadding = [
        [0, 0],
        [g.top, bottom],
        [g.left, right],
        [0, 0],
      ];
      r = tf.conv2d(xT, dyT, 1, pad, "NHWC", [g.sh, g.sw]); // [Ci, Kh, Kw, Co]
    } else {
      const xf = window4d(x, -g.top, -g.left, g.hf, g.wf);
      const xT = batchToChannels(xf); // [Ci, Hf, Wf, N]
      r = tf.conv2d(xT, dyT, 1, "valid", "NHWC", [g.sh, g.sw]);
    }
    return tf.transpose(r, [1, 2, 0, 3]);
  });
}

/**
 * Input gradient as a "sub-pixel" transposed convolution: for r < sh, dxf[n, a·sh + r, ...] =
 * Σ_t dy[n, a - t, ...] · w[t·sh + r, ...]. Zero-padding w to Jh·sh rows (Jh = ceil(Kh/sh)) and splitting kernel
 * rows into (t, r) turns this into ONE stride-1 forward conv of dy (padded by Jh-1 on both sides) with a Jh x Jw
 * filter whose output channels are (r_h, r_w, ci), followed by a depth-to-space shuffle (reshape + transpose).
 * It does the forward conv's FLOPs, whereas the textbook zero-insertion + full conv does sh·sw times more. The
 * shuffle is a reshape + transpose because wasm's tf.depthToSpace is far slower at the same job.
 */
export function conv2dInputGrad(xShape: number[], dy: tf.Tensor4D, w: tf.Tensor4D, attrs: ConvAttrs): tf.Tensor4D {
  return tf.tidy(() => {
    const [n, h, wd, ci] = xShape;
    const co = w.shape[3];
    const g = convGeometry(xShape, w.shape, dy.shape, attrs);
    const { sh, sw, kh, kw } = g;
    const jh = Math.ceil(kh / sh);
    const jw = Math.ceil(kw / sw);
    // f[t_h, t_w, o, (r_h, r_w, c)] = w_padded[(jh-1-t_h)·sh + r_h, (jw-1-t_w)·sw + r_w, c, o]
    const wp =
      jh * sh > kh || jw * sw > kw
        ? tf.pad(w, [
            [0, jh * sh - kh],
            [0, jw * sw - kw],
            [0, 0],
            [0, 0],
          ])
        : w;
    const f = tf.reshape(
      tf.transpose(tf.reverse(tf.reshape(wp, [jh, sh, jw, sw, ci, co]), [0, 2]), [0, 2, 5, 1, 3, 4]),
      [jh, jw, co, sh * sw * ci],
    ) as tf.Tensor4D;
    if (sh === 1 && sw === 1) {
      // Stride 1: dx[h] = dxf[h + top] directly, as one conv of dy with explicit padding (kh - 1 - top before,
      // whatever makes H rows after): no Pad or Slice kernel, and no rows computed only to be cut off. For a
      // "same" 3x3 conv that is padding 1 on every side.
      const padT = kh - 1 - g.top;
      const padB = h - dy.shape[1] + kh - 1 - padT;
      const padL = kw - 1 - g.left;
      const padR = wd - dy.shape[2] + kw - 1 - padL;
      if (Math.min(padT, padB, padL, padR) >= 0)
        return tf.conv2d(dy, f, 1, [
          [0, 0],
          [padT, padB],
          [padL, padR],
          [0, 0],
        ]);
    }
    const dyp = tf.pad(dy, [
      [0, 0],
      [jh - 1, jh - 1],
      [jw - 1, jw - 1],
      [0, 0],
    ]) as tf.Tensor4D;
    const out = tf.conv2d(dyp, f, 1, "valid"); // [N, qh, qw, sh·sw·Ci], qh = OH + jh - 1
    const [, qh, qw] = out.shape;
    const up =
      sh === 1 && sw === 1
        ? out
        : (tf.reshape(tf.transpose(tf.reshape(out, [n, qh, qw, sh, sw, ci]), [0, 1, 3, 2, 4, 5]), [
            n,
            qh * sh,
            qw * sw,
            ci,
          ]) as tf.Tensor4D);
    // Rows of `up` past Hf are zero (they pair only with w's zero padding). Undo the forward padding,
    // dx[h] = dxf[h + top]; input rows the conv never read get zero gradient.
    return window4d(up, g.top, g.left, h, wd);
  });
}

function dilationsAreOne(d: ConvAttrs["dilations"]): boolean {
  return d == null || (typeof d === "number" ? d === 1 : d.every((v) => v === 1));
}

function makeConv2DGrad(original: tf.GradConfig): tf.GradFunc {
  return (dy, saved, attrs) => {
    const a = attrs as unknown as ConvAttrs;
    // Dilated convs keep the original gradient (which itself rejects dilation > 1); wasm has no NCHW conv at all.
    if (!overrideActive() || a.dataFormat === "NCHW" || !dilationsAreOne(a.dilations)) {
      return original.gradFunc(dy, saved, attrs);
    }
    const [x, w] = saved as [tf.Tensor4D, tf.Tensor4D];
    return {
      x: () => conv2dInputGrad(x.shape, dy as tf.Tensor4D, w, a),
      filter: () => conv2dFilterGrad(x, dy as tf.Tensor4D, w.shape, a),
    };
  };
}

function makeBatchMatMulGrad(original: tf.GradConfig): tf.GradFunc {
  return (dy, saved, attrs) => {
    if (!overrideActive()) return original.gradFunc(dy, saved, attrs);
    const { transposeA, transposeB } = attrs as unknown as { transposeA: boolean; transposeB: boolean };
    return batchMatMulGradThunks(dy as tf.Tensor, saved[0], saved[1], transposeA, transposeB);
  };
}

/**
 * Sum over the first `k` axes as one GEMV, ones[1, M] · x[M, C]. Bias gradients reduce a [N, H, W, C] gradient
 * over N, H, W; the wasm Sum kernel first transposes the reduced axes innermost and then reduces. The GEMV is
 * fast only for an x XNNPACK has seen before: it packs its B operand (x) into a new operator for every new tensor,
 * and in training every gradient is new. So a [N, H, W, C] sum over N, H, W first averages each image's H x W with
 * XNNPACK's average pooling (no weights to pack) and scales back by H·W, leaving a GEMV over only N rows. Summing
 * in two stages also keeps it closer to the float64 sum than one long GEMV.
 */
export function sumLeadingAxes(x: tf.Tensor, k: number, keepDims = false): tf.Tensor {
  return tf.tidy(() => {
    const rest = x.shape.slice(k);
    let rows = tf.reshape(x, [-1, rest.reduce((a, b) => a * b, 1)]) as tf.Tensor2D;
    if (x.rank === 4 && k === 3 && x.shape[1]! * x.shape[2]! > 1) {
      const [n, h, w, c] = x.shape as [number, number, number, number];
      const means = tf.avgPool(x as tf.Tensor4D, [h, w], [h, w], "valid");
      rows = tf.reshape(tf.mul(means, h * w), [n, c]) as tf.Tensor2D;
    }
    const s = tf.matMul(tf.ones([1, rows.shape[0]]), rows);
    return tf.reshape(s, keepDims ? [...x.shape.slice(0, k).map(() => 1), ...rest] : rest);
  });
}

/** The slice of tfjs-backend-wasm's BackendWasm that a kernel written in JS needs. */
interface WasmBackendInternals {
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  typedArrayFromHeap(t: tf.TensorInfo): tf.backend_util.TypedArray;
}

/**
 * Max-pool gradient (NHWC): each output's gradient goes to the FIRST input of its window, in row-major window
 * order, that equals the window's max; padding never wins. That is torch's rule (and tfjs-cpu's). The wasm
 * MaxPoolGrad kernel breaks ties differently, and ties are common on procgen frames: a conv over a flat background
 * is constant, so with the wasm kernel ppo_procgen.ts's IMPALA gradient differs from cpu's in the first two conv
 * sequences. Plain JS over the wasm heap, scanning each window once, is also faster than the wasm kernel.
 */
export function maxPoolGradInto(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  dy: ArrayLike<number>,
  dx: Float32Array,
  info: tf.backend_util.Conv2DInfo,
): void {
  const {
    batchSize,
    inHeight: h,
    inWidth: w,
    inChannels: c,
    outHeight: oh,
    outWidth: ow,
    strideHeight: sh,
    strideWidth: sw,
  } = info;
  const kh = info.effectiveFilterHeight;
  const kw = info.effectiveFilterWidth;
  dx.fill(0);
  for (let b = 0; b < batchSize; b++) {
    for (let i = 0; i < oh; i++) {
      const h0 = i * sh - info.padInfo.top;
      const pBeg = Math.max(0, -h0);
      const pEnd = Math.min(kh, h - h0);
      for (let j = 0; j < ow; j++) {
        const w0 = j * sw - info.padInfo.left;
        const qBeg = Math.max(0, -w0);
        const qEnd = Math.min(kw, w - w0);
        const yo = ((b * oh + i) * ow + j) * c;
        for (let ch = 0; ch < c; ch++) {
          const m = y[yo + ch];
          // biome-ignore lint/suspicious/noShadowRestrictedNames: a local flag, the global isNaN is not used here
          const isNaN = m !== m; // torch propagates NaN as the max: its gradient goes to the (first) NaN
          search: for (let p = pBeg; p < pEnd; p++) {
            for (let q = qBeg, xi = ((b * h + h0 + p) * w + w0 + qBeg) * c + ch; q < qEnd; q++, xi += c) {
              const v = x[xi];
              if (v === m || (isNaN && v !== v)) {
                dx[xi] += dy[yo + ch];
                break search;
              }
            }
          }
        }
      }
    }
  }
}

/** Kernel inputs are the op's Tensors when dispatched by the engine; anything else goes to the original kernel. */
function asTensor(t: tf.TensorInfo | undefined): tf.Tensor | null {
  return t != null && (t as tf.Tensor).rank != null ? (t as tf.Tensor) : null;
}

function wasmKernelFixes(originals: Map<string, tf.KernelConfig | undefined>): tf.KernelConfig[] {
  const fallback = (name: string, args: Parameters<tf.KernelFunc>[0]) => {
    const orig = originals.get(name);
    if (orig == null) throw new Error(`wasm backend has no ${name} kernel for these arguments`);
    return orig.kernelFunc(args);
  };
  const mmOrig = originals.get(tf.BatchMatMul);
  return [
    {
      kernelName: tf.BatchMatMul,
      backendName: "wasm",
      // Keep the original setupFunc: the wasm backend calls it at initialisation to bind the C++ function.
      setupFunc: mmOrig?.setupFunc,
      kernelFunc: (args) => {
        const { transposeA, transposeB } = args.attrs as unknown as { transposeA: boolean; transposeB: boolean };
        const a = asTensor(args.inputs.a);
        const b = asTensor(args.inputs.b);
        if ((!transposeA && !transposeB) || a == null || b == null) return fallback(tf.BatchMatMul, args);
        return tf.tidy(() => tf.matMul(transposeA ? transposeInner(a) : a, transposeB ? transposeInner(b) : b));
      },
    },
    {
      kernelName: tf.Sum,
      backendName: "wasm",
      setupFunc: originals.get(tf.Sum)?.setupFunc,
      kernelFunc: (args) => {
        const x = asTensor(args.inputs.x);
        const { axis, keepDims } = args.attrs as unknown as { axis: number | number[]; keepDims: boolean };
        if (x == null || x.dtype !== "float32") return fallback(tf.Sum, args);
        const axes = tf.util.parseAxisParam(axis, x.shape).sort((p, q) => p - q);
        const leading = axes.length > 0 && axes.length < x.rank && axes.every((a, i) => a === i);
        if (!leading) return fallback(tf.Sum, args);
        return sumLeadingAxes(x, axes.length, keepDims);
      },
    },
    {
      // Rows of a batch, `b_obs[mb_inds]`: ppo_atari.ts gathers each minibatch's frames from the iteration's
      // observation tensor. The wasm kernel copies element by element through a generic strided loop; one block
      // copy per row is the same bytes at memcpy's speed.
      kernelName: tf.GatherV2,
      backendName: "wasm",
      setupFunc: originals.get(tf.GatherV2)?.setupFunc,
      kernelFunc: (args) => {
        const { x, indices } = args.inputs as { x: tf.TensorInfo; indices: tf.TensorInfo };
        const { axis, batchDims } = args.attrs as unknown as { axis: number; batchDims: number };
        const rowMajor =
          x.shape.length >= 1 &&
          tf.util.parseAxisParam(axis, x.shape)[0] === 0 &&
          batchDims === 0 &&
          indices.shape.length === 1;
        if (!rowMajor || x.dtype !== "float32" || indices.dtype !== "int32") return fallback(tf.GatherV2, args);
        const backend = args.backend as unknown as WasmBackendInternals;
        const rows = x.shape[0];
        const rowSize = tf.util.sizeFromShape(x.shape.slice(1));
        const out = backend.makeOutput([indices.shape[0], ...x.shape.slice(1)], "float32");
        const [src, inds, dst] = [x, indices, out].map((t) => backend.typedArrayFromHeap(t));
        for (let j = 0; j < inds.length; j++) {
          const i = inds[j];
          if (!(i >= 0 && i < rows)) throw new Error(`GatherV2: the index value ${i} is not in [0, ${rows - 1}]`);
          dst.set(src.subarray(i * rowSize, (i + 1) * rowSize), j * rowSize);
        }
        return out;
      },
    },
    {
      kernelName: tf.MaxPoolGrad,
      backendName: "wasm",
      kernelFunc: (args) => {
        const { dy, input, output } = args.inputs as { dy: tf.TensorInfo; input: tf.TensorInfo; output: tf.TensorInfo };
        if ([dy, input, output].some((t) => t == null || t.dtype !== "float32")) return fallback(tf.MaxPoolGrad, args);
        const a = args.attrs as unknown as {
          filterSize: [number, number] | number;
          strides: [number, number] | number;
          pad: ConvPad;
          dimRoundingMode?: RoundingMode;
        };
        const info = tf.backend_util.computePool2DInfo(
          input.shape as [number, number, number, number],
          a.filterSize,
          a.strides,
          1,
          a.pad,
          a.dimRoundingMode,
        );
        const backend = args.backend as unknown as WasmBackendInternals;
        const dx = backend.makeOutput(input.shape, "float32");
        // Views of the heap taken after makeOutput (an allocation may grow the heap and detach older views).
        const view = (t: tf.TensorInfo) => backend.typedArrayFromHeap(t);
        maxPoolGradInto(view(input), view(output), view(dy), view(dx) as Float32Array, info);
        return dx;
      },
    },
    {
      kernelName: tf.Conv2DBackpropFilter,
      backendName: "wasm",
      kernelFunc: (args) => {
        const a = args.attrs as unknown as ConvAttrs & { filterShape: number[] };
        const x = asTensor(args.inputs.x);
        const dy = asTensor(args.inputs.dy);
        if (x == null || dy == null || a.dataFormat === "NCHW") return fallback(tf.Conv2DBackpropFilter, args);
        return conv2dFilterGrad(x as tf.Tensor4D, dy as tf.Tensor4D, a.filterShape, a);
      },
    },
    {
      kernelName: tf.Conv2DBackpropInput,
      backendName: "wasm",
      setupFunc: originals.get(tf.Conv2DBackpropInput)?.setupFunc,
      kernelFunc: (args) => {
        const a = args.attrs as unknown as ConvAttrs & { inputShape: number[] };
        const dy = asTensor(args.inputs.dy);
        const w = asTensor(args.inputs.filter);
        if (dy == null || w == null || a.dataFormat === "NCHW") return fallback(tf.Conv2DBackpropInput, args);
        return conv2dInputGrad(a.inputShape, dy as tf.Tensor4D, w as tf.Tensor4D, a);
      },
    },
  ];
}

/**
 * Installs the WASM gradient fixes described above. Idempotent. By default the gradient overrides are active only
 * while the wasm backend is selected (they defer to tfjs's gradients elsewhere); `allBackends: true` uses them on
 * every backend (tests). The wasm kernel fixes need @tensorflow/tfjs-backend-wasm to be imported first (it
 * registers the kernels being wrapped); `setupBackend` calls this right after selecting wasm.
 */
export function registerWasmGradientFixes(opts: { allBackends?: boolean } = {}): void {
  overridesOnAllBackends = opts.allBackends ?? false;
  if (gradOriginals == null) {
    const conv = tf.getGradient(tf.Conv2D);
    const mm = tf.getGradient(tf.BatchMatMul);
    tf.registerGradient({ kernelName: tf.Conv2D, inputsToSave: ["x", "filter"], gradFunc: makeConv2DGrad(conv) });
    tf.registerGradient({ kernelName: tf.BatchMatMul, inputsToSave: ["a", "b"], gradFunc: makeBatchMatMulGrad(mm) });
    gradOriginals = new Map([
      [tf.Conv2D, conv],
      [tf.BatchMatMul, mm],
    ]);
  }
  if (kernelOriginals == null && tf.getKernel(tf.BatchMatMul, "wasm") != null) {
    const names = [
      tf.BatchMatMul,
      tf.Sum,
      tf.GatherV2,
      tf.MaxPoolGrad,
      tf.Conv2DBackpropFilter,
      tf.Conv2DBackpropInput,
    ];
    kernelOriginals = new Map(names.map((k) => [k, tf.getKernel(k, "wasm")]));
    for (const config of wasmKernelFixes(kernelOriginals)) {
      // registerKernel warns when a kernel already exists; unregister first.
      if (kernelOriginals.get(config.kernelName) != null) tf.unregisterKernel(config.kernelName, "wasm");
      tf.registerKernel(config);
    }
  }
}

/** Restores tfjs's own gradients and wasm kernels (e.g. to measure or compare against them). Idempotent. */
export function unregisterWasmGradientFixes(): void {
  if (gradOriginals != null) {
    for (const config of gradOriginals.values()) tf.registerGradient(config);
    gradOriginals = null;
  }
  if (kernelOriginals != null) {
    for (const [name, config] of kernelOriginals) {
      tf.unregisterKernel(name, "wasm");
      if (config != null) tf.registerKernel(config);
    }
    kernelOriginals = null;
  }
  overridesOnAllBackends = false;
}
