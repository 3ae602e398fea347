// 2-D convolution on WebGPU (NHWC input, [kh, kw, inC, outC] filter, any stride and padding, dilation 1): the
// forward pass with its bias/ReLU epilogue and both gradients, each an implicit GEMM on gemm.ts's shared tiles.
// With M = batch·outH·outW output positions and K = kh·kw·inC patch entries (the im2col matrix P[M, K], never
// built):
//
//   forward        y[M, outC]  = P · W[K, outC] (+ bias, ReLU)  rows M, columns outC, reduction K. One dispatch.
//   filter grad    dW[K, outC] = Pᵀ · dy[M, outC]               rows K, columns outC, reduction M: split-K. M is
//                  huge (102,400 for the Nature CNN's first layer at minibatch 256) and K·outC small (8,192), so
//                  one workgroup per output tile would leave a GPU nearly idle; each of S workgroup slices (z)
//                  reduces a contiguous chunk of M into its own [K, outC] partial, and a second dispatch sums the
//                  S partials per weight. ~1024 workgroups in all, at least 256 positions per chunk.
//   input grad     dx = dy ⊛ W (transposed conv), split by phase: input row y only receives from taps
//                  ky ≡ (y + padTop) mod strideH, so for each of the strideH·strideW phases (z) the rows of that
//                  phase form a dense GEMM over their own taps only: rows batch·⌈H/sh⌉·⌈W/sw⌉, columns inC,
//                  reduction ⌈kh/sh⌉·⌈kw/sw⌉·outC. No multiply-by-zero taps (tfjs's matmul version runs all
//                  kh·kw·outC for every input pixel: 4x the work at stride 2); every dx element is written by
//                  exactly one phase, zero where no tap reaches it. One dispatch.
// tfjs keeps the op graph and autodiff: these are the `webgpu` backend's kernels for Conv2D, FusedConv2D,
// Conv2DBackpropFilter and Conv2DBackpropInput; anything else (NCHW, dilation, other activations, non-float
// dtypes) goes to tfjs's own kernel.

import * as tf from "@tensorflow/tfjs";

import { runGemm, perThread, TK, type WebGpuBackendApi } from "./gemm.ts";

type Conv2DInfo = tf.backend_util.Conv2DInfo;

interface ConvAttrs {
  strides: number | [number, number];
  pad: "valid" | "same" | number | tf.backend_util.ExplicitPadding;
  dataFormat?: "NHWC" | "NCHW";
  dilations?: number | [number, number];
  dimRoundingMode?: "floor" | "round" | "ceil";
}

function convInfo(xShape: number[], filterShape: number[], a: ConvAttrs): Conv2DInfo | null {
  if (a.dataFormat === "NCHW") return null;
  const d = a.dilations ?? 1;
  if (typeof d === "number" ? d !== 1 : d.some((v) => v !== 1)) return null;
  return tf.backend_util.computeConv2DInfo(
    xShape as [number, number, number, number],
    filterShape as [number, number, number, number],
    a.strides,
    1,
    a.pad,
    a.dimRoundingMode,
    false,
    "channelsLast",
  );
}

/** Shapes and strides of a conv, as uniforms (patch and window arithmetic in `patchHelpers`). */
function convUniforms(c: Conv2DInfo): Record<string, number> {
  return {
    nb: c.batchSize,
    inH: c.inHeight,
    inW: c.inWidth,
    inC: c.inChannels,
    outH: c.outHeight,
    outW: c.outWidth,
    outC: c.outChannels,
    kh: c.filterHeight,
    kw: c.filterWidth,
    sh: c.strideHeight,
    sw: c.strideWidth,
    padT: c.padInfo.top,
    padL: c.padInfo.left,
  };
}

// x's flat index of entry k of position m's patch, or -1 where the patch lies in the padding.
const patchHelpers = `
  fn patchIndex(m : i32, k : i32) -> i32 {
    let b = m / (uniforms.outH * uniforms.outW);
    let r = m - b * uniforms.outH * uniforms.outW;
    let oy = r / uniforms.outW;
    let ox = r - oy * uniforms.outW;
    let ky = k / (uniforms.kw * uniforms.inC);
    let r2 = k - ky * uniforms.kw * uniforms.inC;
    let kx = r2 / uniforms.inC;
    let c = r2 - kx * uniforms.inC;
    let iy = oy * uniforms.sh - uniforms.padT + ky;
    let ix = ox * uniforms.sw - uniforms.padL + kx;
    if (iy < 0 || iy >= uniforms.inH || ix < 0 || ix >= uniforms.inW) { return -1; }
    return ((b * uniforms.inH + iy) * uniforms.inW + ix) * uniforms.inC + c;
  }`;

const loadPatch = (row: string, red: string) =>
  `let i = patchIndex(${row}, ${red}); if (i < 0) { return 0.0; } return x[i];`;

/** Forward conv, y = P·W (+ bias) (ReLU). `bias` is [outC] or absent. */
export function conv2dForward(
  backend: WebGpuBackendApi,
  x: tf.TensorInfo,
  w: tf.TensorInfo,
  bias: tf.TensorInfo | null,
  relu: boolean,
  c: Conv2DInfo,
): tf.TensorInfo {
  const rows = c.batchSize * c.outHeight * c.outWidth;
  const red = c.filterHeight * c.filterWidth * c.inChannels;
  const epilogue = `${bias != null ? "value + bias[col]" : "value"}`;
  return runGemm(
    backend,
    {
      key: `conv2d_${bias != null}_${relu}`,
      outputShape: c.outShape,
      variableNames: bias != null ? ["x", "W", "bias"] : ["x", "W"],
      uniforms: { rows, cols: c.outChannels, steps: Math.ceil(red / TK), red, ...convUniforms(c) },
      rm: perThread(rows),
      rn: perThread(c.outChannels),
      depth: 1,
      setup: "let redBegin = 0; let redEnd = uniforms.red;",
      helpers: patchHelpers,
      loadA: loadPatch("row", "red"),
      loadB: "return W[red * uniforms.cols + col];",
      store: `let out = ${epilogue}; result[row * cols + col] = ${relu ? "max(out, 0.0)" : "out"};`,
      aRowFastest: false,
      bColFastest: true,
    },
    bias != null ? [x, w, bias] : [x, w],
  );
}

/** Workgroups the split-K filter gradient aims for, and the fewest positions one slice reduces. */
const SPLIT_TARGET_GROUPS = 1024;
const SPLIT_MIN_CHUNK = 256;

/** Filter gradient dW = Pᵀ·dy: split-K partials, then their sum. */
export function conv2dFilterGrad(
  backend: WebGpuBackendApi,
  x: tf.TensorInfo,
  dy: tf.TensorInfo,
  c: Conv2DInfo,
): tf.TensorInfo {
  const positions = c.batchSize * c.outHeight * c.outWidth;
  const rows = c.filterHeight * c.filterWidth * c.inChannels;
  const cols = c.outChannels;
  const rm = perThread(rows);
  const rn = perThread(cols);
  const tiles = Math.ceil(rows / (16 * rm)) * Math.ceil(cols / (16 * rn));
  let slices = Math.max(1, Math.min(Math.ceil(positions / SPLIT_MIN_CHUNK), Math.ceil(SPLIT_TARGET_GROUPS / tiles)));
  const chunk = Math.ceil(Math.ceil(positions / slices) / TK) * TK;
  slices = Math.ceil(positions / chunk);
  const partials = runGemm(
    backend,
    {
      key: "conv2dFilterGrad",
      outputShape: slices === 1 ? c.filterShape : [slices, rows, cols],
      variableNames: ["x", "dy"],
      uniforms: { rows, cols, steps: chunk / TK, positions, chunk, ...convUniforms(c) },
      rm,
      rn,
      depth: slices,
      setup: "let redBegin = wz * uniforms.chunk; let redEnd = min(redBegin + uniforms.chunk, uniforms.positions);",
      helpers: patchHelpers,
      loadA: loadPatch("red", "row"),
      loadB: "return dy[red * uniforms.cols + col];",
      store: "result[(wz * rows + row) * cols + col] = value;",
      aRowFastest: true,
      bColFastest: true,
    },
    [x, dy],
  );
  if (slices === 1) return partials;
  const sum = sumSlices(backend, partials, c.filterShape);
  backend.disposeData(partials.dataId);
  return sum;
}

/** out[i] = Σ_s partials[s, i], one thread per output element. */
function sumSlices(backend: WebGpuBackendApi, partials: tf.TensorInfo, outShape: number[]): tf.TensorInfo {
  const size = outShape.reduce((p, q) => p * q, 1);
  const [slices] = partials.shape;
  return backend.runWebGPUProgram(
    {
      outputShape: outShape,
      shaderKey: "ppoTsSumSlices",
      dispatchLayout: { x: outShape.map((_, i) => i) },
      dispatch: [Math.ceil(size / 64), 1, 1],
      variableNames: ["partials"],
      uniforms: "slices : i32, sliceSize : i32,",
      workgroupSize: [64, 1, 1],
      size: true,
      getUserCode: () => `
      fn main(index : i32) {
        if (index < uniforms.size) {
          var s = 0.0;
          for (var k = 0; k < uniforms.slices; k++) { s += partials[k * uniforms.sliceSize + index]; }
          setOutputAtIndex(index, s);
        }
      }`,
    },
    [partials],
    "float32",
    [
      { type: "int32", data: [slices] },
      { type: "int32", data: [size] },
    ],
  );
}

/** Input gradient dx (the transposed conv of dy with W), one GEMM per stride phase, all in one dispatch. */
export function conv2dInputGrad(
  backend: WebGpuBackendApi,
  dy: tf.TensorInfo,
  w: tf.TensorInfo,
  c: Conv2DInfo,
): tf.TensorInfo {
  const { strideHeight: sh, strideWidth: sw } = c;
  const maxRows = c.batchSize * Math.ceil(c.inHeight / sh) * Math.ceil(c.inWidth / sw);
  const maxRed = Math.ceil(c.filterHeight / sh) * Math.ceil(c.filterWidth / sw) * c.outChannels;
  return runGemm(
    backend,
    {
      key: "conv2dInputGrad",
      outputShape: c.inShape,
      variableNames: ["dy", "W"],
      uniforms: { rows: maxRows, cols: c.inChannels, steps: Math.max(1, Math.ceil(maxRed / TK)), ...convUniforms(c) },
      rm: 4,
      rn: perThread(c.inChannels),
      depth: sh * sw,
      // Phase (ry, rx): input rows y ≡ ry - padT (mod sh), starting at y0, hi of them; their taps ky = ry + sh·t
      // (t < th) read dy row q0y + i - t for the i-th such row. Likewise for columns.
      helpers: `
      var<private> y0 : i32; var<private> x0 : i32; var<private> hi : i32; var<private> wi : i32;
      var<private> q0y : i32; var<private> q0x : i32; var<private> ry : i32; var<private> rx : i32; var<private> tw : i32;`,
      setup: `
      ry = wz / uniforms.sw;
      rx = wz - ry * uniforms.sw;
      y0 = ((ry - uniforms.padT) % uniforms.sh + uniforms.sh) % uniforms.sh;
      x0 = ((rx - uniforms.padL) % uniforms.sw + uniforms.sw) % uniforms.sw;
      hi = max(0, (uniforms.inH - y0 + uniforms.sh - 1) / uniforms.sh);
      wi = max(0, (uniforms.inW - x0 + uniforms.sw - 1) / uniforms.sw);
      q0y = (y0 + uniforms.padT - ry) / uniforms.sh;
      q0x = (x0 + uniforms.padL - rx) / uniforms.sw;
      let th = max(0, (uniforms.kh - ry + uniforms.sh - 1) / uniforms.sh);
      tw = max(0, (uniforms.kw - rx + uniforms.sw - 1) / uniforms.sw);
      rows = uniforms.nb * hi * wi;
      let redBegin = 0;
      let redEnd = th * tw * uniforms.outC;`,
      loadA: `
      let b = row / (hi * wi);
      let r = row - b * hi * wi;
      let i = r / wi;
      let j = r - i * wi;
      let t = red / (tw * uniforms.outC);
      let r2 = red - t * tw * uniforms.outC;
      let u = r2 / uniforms.outC;
      let o = r2 - u * uniforms.outC;
      let oy = q0y + i - t;
      let ox = q0x + j - u;
      if (oy < 0 || oy >= uniforms.outH || ox < 0 || ox >= uniforms.outW) { return 0.0; }
      return dy[((b * uniforms.outH + oy) * uniforms.outW + ox) * uniforms.outC + o];`,
      loadB: `
      let t = red / (tw * uniforms.outC);
      let r2 = red - t * tw * uniforms.outC;
      let u = r2 / uniforms.outC;
      let o = r2 - u * uniforms.outC;
      let ky = ry + uniforms.sh * t;
      let kx = rx + uniforms.sw * u;
      return W[((ky * uniforms.kw + kx) * uniforms.inC + col) * uniforms.outC + o];`,
      store: `
      let b = row / (hi * wi);
      let r = row - b * hi * wi;
      let i = r / wi;
      let j = r - i * wi;
      result[((b * uniforms.inH + y0 + uniforms.sh * i) * uniforms.inW + x0 + uniforms.sw * j) * uniforms.inC + col] = value;`,
      aRowFastest: false,
      bColFastest: false,
    },
    [dy, w],
  );
}

// ---- kernel configs ---------------------------------------------------------------------------------------

type KernelArgs = Parameters<tf.KernelFunc>[0];
type Fallback = (args: KernelArgs) => tf.TensorInfo | tf.TensorInfo[];

const isFloat = (...ts: (tf.TensorInfo | undefined)[]) => ts.every((t) => t == null || t.dtype === "float32");

export function conv2dKernels(fallback: (name: string) => Fallback): tf.KernelConfig[] {
  return [
    {
      kernelName: tf.Conv2D,
      backendName: "webgpu",
      kernelFunc: (args) => {
        const { x, filter } = args.inputs as { x: tf.TensorInfo; filter: tf.TensorInfo };
        const c = isFloat(x, filter) ? convInfo(x.shape, filter.shape, args.attrs as unknown as ConvAttrs) : null;
        if (c == null) return fallback(tf.Conv2D)(args);
        return conv2dForward(args.backend as unknown as WebGpuBackendApi, x, filter, null, false, c);
      },
    },
    {
      kernelName: tf.FusedConv2D,
      backendName: "webgpu",
      kernelFunc: (args) => {
        const { x, filter, bias, preluActivationWeights } = args.inputs as Record<string, tf.TensorInfo | undefined>;
        const a = args.attrs as unknown as ConvAttrs & { activation?: string };
        const act = a.activation ?? "linear";
        const biasOk = bias == null || (bias.shape.length === 1 && bias.shape[0] === filter!.shape[3]);
        const c =
          isFloat(x, filter, bias) && biasOk && preluActivationWeights == null && (act === "linear" || act === "relu")
            ? convInfo(x!.shape, filter!.shape, a)
            : null;
        if (c == null) return fallback(tf.FusedConv2D)(args);
        return conv2dForward(args.backend as unknown as WebGpuBackendApi, x!, filter!, bias ?? null, act === "relu", c);
      },
    },
    {
      kernelName: tf.Conv2DBackpropFilter,
      backendName: "webgpu",
      kernelFunc: (args) => {
        const { x, dy } = args.inputs as { x: tf.TensorInfo; dy: tf.TensorInfo };
        const a = args.attrs as unknown as ConvAttrs & { filterShape: number[] };
        const c = isFloat(x, dy) ? convInfo(x.shape, a.filterShape, a) : null;
        if (c == null) return fallback(tf.Conv2DBackpropFilter)(args);
        return conv2dFilterGrad(args.backend as unknown as WebGpuBackendApi, x, dy, c);
      },
    },
    {
      kernelName: tf.Conv2DBackpropInput,
      backendName: "webgpu",
      kernelFunc: (args) => {
        const { dy, filter } = args.inputs as { dy: tf.TensorInfo; filter: tf.TensorInfo };
        const a = args.attrs as unknown as ConvAttrs & { inputShape: number[] };
        const c = isFloat(dy, filter) ? convInfo(a.inputShape, filter.shape, a) : null;
        if (c == null) return fallback(tf.Conv2DBackpropInput)(args);
        return conv2dInputGrad(args.backend as unknown as WebGpuBackendApi, dy, filter, c);
      },
    },
  ];
}
