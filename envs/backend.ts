// Backend selection for TensorFlow.js in Node, mirroring CleanRL's
//   device = torch.device("cuda" if torch.cuda.is_available() and args.cuda else "cpu")
// plus gradient overrides that make the WASM backend usable (and fast) for PPO's networks.
//
// Order of preference:
//   1. `tensorflow` (native libtensorflow through @tensorflow/tfjs-node-gpu) when `cuda` is requested and the
//      package loads. It is an optionalDependency: its install script downloads libtensorflow and fails without
//      network access, after which npm silently drops it, so "not installed" is the common case.
//   2. `wasm` (XNNPACK kernels, SIMD). Single-threaded: in Node tfjs hard-codes WASM_HAS_MULTITHREAD_SUPPORT=false,
//      and forcing threads needs fragile hacks that collapsed under load on a 2-core machine (see
//      shared/notes/tfjs-in-node.md), so we deliberately do not try.
//   3. `cpu` (plain JS kernels), if WASM cannot initialise. Correct but slow for conv nets: the Nature CNN at
//      batch 8 took 290 ms forward (wasm 7 ms) and 8-12 s forward+backward (wasm 34 ms).
//
// tfjs refuses to create tensors while a higher-priority backend is still initialising (importing
// tfjs-backend-wasm makes wasm the top priority), so `setupBackend` must run before the first tensor is created.

import * as tf from "@tensorflow/tfjs";
import { createRequire } from "node:module";

import { removeWasmExitHandlers } from "./main.ts";

export type BackendPreference = "wasm" | "cpu";

export interface SetupBackendOptions {
  /** Do not print the one-line backend summary (tests). */
  quiet?: boolean;
  /** Backend to use when CUDA is not requested or not available. Default "wasm". */
  prefer?: BackendPreference;
}

export interface BackendReport {
  /** Name of the tfjs backend actually in use ("tensorflow", "wasm" or "cpu"). */
  backend: string;
  /** Why this backend: one short phrase per decision, joined by "; ". Empty when CUDA was requested and used. */
  reason: string;
  /** The exact line printed by `setupBackend` (also when quiet). */
  line: string;
}

let lastReport: BackendReport | null = null;

/** What the most recent `setupBackend` call decided, or null before the first call. */
export function backendReport(): BackendReport | null {
  return lastReport;
}

// The package name is kept in a variable so that TypeScript does not try to resolve the (usually absent) module.
const TFJS_NODE_GPU = "@tensorflow/tfjs-node-gpu";

type GpuAttempt = { ok: true } | { ok: false; why: string };
let gpuAttempt: Promise<GpuAttempt> | null = null;

/** Reduces an import failure to a short phrase for the summary line. */
function describeGpuLoadError(err: unknown): string {
  const e = err as { code?: string; message?: string };
  const msg = String(e?.message ?? err);
  if ((e?.code === "ERR_MODULE_NOT_FOUND" || e?.code === "MODULE_NOT_FOUND") && msg.includes(TFJS_NODE_GPU)) {
    return "tfjs-node-gpu not installed";
  }
  // The native addon is linked against libtensorflow and, in the GPU build, the CUDA runtime libraries;
  // dlopen failures name the missing library ("libcudart.so.11.0: cannot open shared object file").
  const lib = /(lib(?:cudart|cudnn|cublas|cublasLt|cufft|curand|cusolver|cusparse|nvinfer|tensorflow)[\w.+-]*)/.exec(msg);
  if (lib) return `tfjs-node-gpu failed to load (${lib[1]} missing)`;
  const first = msg.split("\n")[0].trim();
  return `tfjs-node-gpu failed to load (${first.length > 80 ? `${first.slice(0, 77)}...` : first})`;
}

async function loadTfjsNodeGpu(): Promise<GpuAttempt> {
  try {
    await import(TFJS_NODE_GPU);
  } catch (err) {
    return { ok: false, why: describeGpuLoadError(err) };
  }
  // tfjs-node-gpu registers "tensorflow" on the tfjs-core instance it imports. If npm did not dedupe it onto ours,
  // the backend is invisible here and selecting it would fail.
  if (tf.findBackendFactory("tensorflow") == null) {
    return { ok: false, why: "tfjs-node-gpu loaded a different copy of tfjs-core" };
  }
  return { ok: true };
}

let wasmPathsSet = false;

/**
 * Loads the WASM backend module and points it at its .wasm binaries inside node_modules. Without `setWasmPaths`
 * Emscripten looks for them next to the calling script, which breaks under `npx tsx` (the script is not in
 * node_modules/@tensorflow/tfjs-backend-wasm/dist).
 */
async function loadWasmModule(): Promise<typeof import("@tensorflow/tfjs-backend-wasm")> {
  const wasm = await import("@tensorflow/tfjs-backend-wasm");
  if (!wasmPathsSet) {
    const require = createRequire(import.meta.url);
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

function shortError(err: unknown): string {
  const msg = String((err as { message?: string })?.message ?? err).split("\n")[0].trim();
  return msg.length > 60 ? `${msg.slice(0, 57)}...` : msg;
}

async function useCpu(): Promise<string> {
  if (!(await tf.setBackend("cpu"))) throw new Error("tfjs: could not initialise the cpu backend");
  silenceCpuBanner();
  return "cpu";
}

/**
 * Selects the tfjs backend; call it once at start-up before any tensor exists. Returns the backend name and prints
 * one line naming it and why (unless `quiet`). Calling it again is harmless: module loads and the gradient
 * overrides are done once, and `tf.setBackend` on an initialised backend only switches to it.
 */
export async function setupBackend(cuda: boolean, opts: SetupBackendOptions = {}): Promise<string> {
  const prefer: BackendPreference = opts.prefer ?? "wasm";
  const reasons: string[] = [];
  let backend: string | null = null;
  let label = "";

  if (cuda) {
    gpuAttempt ??= loadTfjsNodeGpu();
    const gpu = await gpuAttempt;
    if (gpu.ok) {
      try {
        if (await tf.setBackend("tensorflow")) {
          backend = "tensorflow";
          // Without a visible CUDA device libtensorflow silently runs on the CPU; still much faster than wasm, but
          // the user asked for CUDA, so say so. (NodeJSKernelBackend exposes the binding's answer as a field.)
          const onGpu = (tf.backend() as unknown as { isUsingGpuDevice?: boolean }).isUsingGpuDevice;
          label = onGpu === false ? "tensorflow (tfjs-node-gpu, CPU)" : "tensorflow (tfjs-node-gpu, CUDA)";
          if (onGpu === false) reasons.push("no CUDA device visible to libtensorflow");
        } else {
          reasons.push("tfjs-node-gpu backend failed to initialise");
        }
      } catch (err) {
        reasons.push(`tfjs-node-gpu backend failed (${shortError(err)})`);
      }
    } else {
      reasons.push(gpu.why);
    }
    if (backend == null) reasons[reasons.length - 1] += '; see README "GPU"';
  } else {
    reasons.push("--cuda off");
  }

  if (backend == null && prefer === "wasm") {
    try {
      const wasm = await loadWasmModule();
      const ready = await tf.setBackend("wasm");
      removeWasmExitHandlers(); // the Emscripten module's process handlers would print its whole source on any error
      if (ready) {
        backend = "wasm";
        const simd = await tf.env().getAsync("WASM_HAS_SIMD_SUPPORT");
        const threads = wasm.getThreadsCount();
        label = `wasm (${simd ? "SIMD" : "no SIMD"}, ${threads} thread${threads === 1 ? "" : "s"})`;
        registerWasmGradientFixes();
      } else {
        reasons.push("wasm failed to initialise");
      }
    } catch (err) {
      reasons.push(`wasm failed to load (${shortError(err)})`);
    }
  }

  if (backend == null) {
    if (prefer === "cpu") reasons.push("cpu requested");
    backend = await useCpu();
    label = "cpu (plain JS kernels)";
  }

  const reason = reasons.join("; ");
  const line = reason === "" ? `backend: ${label}` : `backend: ${label} — ${reason}`;
  lastReport = { backend, reason, line };
  if (!opts.quiet) console.log(line);
  return backend;
}

// ---------------------------------------------------------------------------------------------------------------
// WASM gradient fixes
//
// Measured on tfjs-backend-wasm 4.22 (1 thread, SIMD), Nature-CNN shapes at batch 256:
//   * There is no Conv2DBackpropFilter kernel, so the stock Conv2D gradient throws on wasm (tfjs does not fall back
//     to another backend per kernel).
//   * Conv2DBackpropInput is a naive loop: 363 ms (4x4/2 layer) and 256 ms (3x3/1 layer) against 35 / 23 ms for the
//     forward conv of the same layer.
//   * BatchMatMul with transposeA/transposeB bypasses XNNPACK's packed GEMM (10-20x slower); tfjs's own gradient
//     (tfjs-core/src/gradients/BatchMatMul_grad.ts) uses exactly those flags, so every dense layer's backward pass
//     hits the slow path.
// Whole Nature-CNN agent (3 convs, 3136->512 dense, actor and critic heads), forward+backward at batch 256
// (benchmark/backend_bench.ts cnn): stock tfjs throws; all fixes ~510 ms (forward alone ~130 ms); conv fixes with
// stock matMul ~1,240 ms. Timings vary ~10-20% run to run on the shared 2-core machine they were taken on.
// The fixes express both gradients through kernels that XNNPACK runs fast (plain matMul, forward conv2d,
// transpose, pad, slice, reshape). They are installed at two levels, sharing the same math:
//   1. Gradient overrides for the kernel names `Conv2D` and `BatchMatMul` (tf.registerGradient). tfjs keeps one
//      gradient per kernel name for all backends, so these are global; they defer to tfjs's own gradient unless
//      the active backend is wasm, so cpu and tensorflow keep their native backprop kernels. The math itself is
//      backend-independent (the tests check it on cpu as well).
//   2. wasm kernels for `Conv2DBackpropFilter` (missing), `Conv2DBackpropInput` (replacing the naive loop) and a
//      `BatchMatMul` wrapper that turns transposeA/transposeB into an explicit Transpose before the fast GEMM.
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
  dy: tf.Tensor, a: tf.Tensor, b: tf.Tensor, transposeA: boolean, transposeB: boolean,
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
    y = tf.pad(y, [[0, 0], [padTop, padBottom], [padLeft, padRight], [0, 0]]);
  }
  const startH = offH + padTop;
  const startW = offW + padLeft;
  if (startH !== 0 || startW !== 0 || y.shape[1] !== outH || y.shape[2] !== outW) {
    y = tf.slice(y, [0, startH, startW, 0], [-1, outH, outW, -1]);
  }
  return y;
}

// Conv2D backprop (NHWC, dilation 1, any stride and padding) from forward ops only.
//
// Notation: x [N,H,W,Ci], filter w [Kh,Kw,Ci,Co], dy [N,OH,OW,Co], stride (sh, sw), padding (top, left) from
// computeConv2DInfo. The forward conv reads only xf = zero-padded x cropped to Hf = (OH-1)·sh + Kh rows (Wf
// columns) and is a VALID conv on xf: y[n,i,j,o] = Σ_{p,q,c} xf[n, i·sh+p, j·sw+q, c] · w[p,q,c,o].

function convGeometry(xShape: number[], filterShape: number[], dyShape: number[], a: ConvAttrs) {
  const info = tf.backend_util.computeConv2DInfo(
    xShape as [number, number, number, number], filterShape as [number, number, number, number],
    a.strides, 1, a.pad, a.dimRoundingMode, false, "channelsLast");
  const sh = info.strideHeight;
  const sw = info.strideWidth;
  const kh = info.filterHeight;
  const kw = info.filterWidth;
  return {
    sh, sw, kh, kw, top: info.padInfo.top, left: info.padInfo.left,
    hf: (dyShape[1] - 1) * sh + kh, wf: (dyShape[2] - 1) * sw + kw,
  };
}

/**
 * Filter gradient: dW[p,q,c,o] = Σ_{n,i,j} xf[n, p + i·sh, q + j·sw, c] · dy[n,i,j,o]. With xf transposed to
 * [Ci, Hf, Wf, N] (input channels as batch, batch as channels) and dy transposed to [OH, OW, N, Co] (used as the
 * filter), that is one forward VALID conv with stride 1 and dilation (sh, sw), whose output is [Ci, Kh, Kw, Co].
 * XNNPACK supports dilation. Measured (batch 256, wasm): 92 / 54 / 36 ms for the 8x8/4, 4x4/2, 3x3/1 layers, vs
 * 371 / 143 / 99 ms for im2col from space-to-depth + one matMul, 2.7 s / 1.1 s / 80 ms for im2col built from
 * strided slices (wasm StridedSlice is slow), and 573 / 212 / 37 ms for space-to-depth + undilated conv (its 6-D
 * transpose with N innermost is slow).
 */
export function conv2dFilterGrad(x: tf.Tensor4D, dy: tf.Tensor4D, filterShape: number[], attrs: ConvAttrs): tf.Tensor4D {
  return tf.tidy(() => {
    const g = convGeometry(x.shape, filterShape, dy.shape, attrs);
    const xf = window4d(x, -g.top, -g.left, g.hf, g.wf);
    const xT = tf.transpose(xf, [3, 1, 2, 0]) as tf.Tensor4D; // [Ci, Hf, Wf, N]
    const dyT = tf.transpose(dy, [1, 2, 0, 3]) as tf.Tensor4D; // [OH, OW, N, Co]
    // Stride 1 with dilation (sh, sw): tfjs allows dilation > 1 only when the stride is 1, which it is here.
    const r = tf.conv2d(xT, dyT, 1, "valid", "NHWC", [g.sh, g.sw]); // [Ci, Kh, Kw, Co]
    return tf.transpose(r, [1, 2, 0, 3]);
  });
}

/**
 * Input gradient as a "sub-pixel" transposed convolution: for r < sh, dxf[n, a·sh + r, ...] =
 * Σ_t dy[n, a - t, ...] · w[t·sh + r, ...]. Zero-padding w to Jh·sh rows (Jh = ceil(Kh/sh)) and splitting kernel
 * rows into (t, r) turns this into ONE stride-1 forward conv of dy (padded by Jh-1 on both sides) with a Jh x Jw
 * filter whose output channels are (r_h, r_w, ci), followed by a depth-to-space shuffle (reshape + transpose).
 * It does the forward conv's FLOPs, whereas the textbook zero-insertion + full conv does sh·sw times more.
 * Measured (batch 256, wasm): 51 ms (4x4/2) and 40 ms (3x3/1), vs 170 / 48 ms with zero insertion and 363 / 256 ms
 * for the wasm kernel; tf.depthToSpace on wasm took 101 ms for what the 6-D transpose does in 3 ms.
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
    const wp = jh * sh > kh || jw * sw > kw ? tf.pad(w, [[0, jh * sh - kh], [0, jw * sw - kw], [0, 0], [0, 0]]) : w;
    const f = tf.reshape(
      tf.transpose(tf.reverse(tf.reshape(wp, [jh, sh, jw, sw, ci, co]), [0, 2]), [0, 2, 5, 1, 3, 4]),
      [jh, jw, co, sh * sw * ci]) as tf.Tensor4D;
    const dyp = tf.pad(dy, [[0, 0], [jh - 1, jh - 1], [jw - 1, jw - 1], [0, 0]]) as tf.Tensor4D;
    const out = tf.conv2d(dyp, f, 1, "valid"); // [N, qh, qw, sh·sw·Ci], qh = OH + jh - 1
    const [, qh, qw] = out.shape;
    const up = sh === 1 && sw === 1
      ? out
      : tf.reshape(tf.transpose(tf.reshape(out, [n, qh, qw, sh, sw, ci]), [0, 1, 3, 2, 4, 5]),
        [n, qh * sh, qw * sw, ci]) as tf.Tensor4D;
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
    gradOriginals = new Map([[tf.Conv2D, conv], [tf.BatchMatMul, mm]]);
  }
  if (kernelOriginals == null && tf.getKernel(tf.BatchMatMul, "wasm") != null) {
    const names = [tf.BatchMatMul, tf.Conv2DBackpropFilter, tf.Conv2DBackpropInput];
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
