// The one tiled matrix product every convolution kernel here is built on, as a tfjs-backend-webgpu program.
//
//   C[row, col] = Σ_red A[row, red] · B[red, col]     for red in [redBegin, redEnd) of this workgroup
//
// A and B are never materialised: each kernel supplies WGSL that reads one element of them straight from its
// tensors (an implicit GEMM: the im2col matrix of a convolution exists only as index arithmetic), and WGSL that
// stores one finished element of C (where the bias/ReLU epilogue or a split-K partial goes).
//
// Tiling: a workgroup of 16 × 16 threads owns a TM × TN tile of C (TM = 16·RM rows, TN = 16·RN columns) and walks
// the reduction TK = 16 elements at a time. Each step the 256 threads copy an A tile (TM × TK) and a B tile
// (TK × TN) into workgroup memory, one element per thread per pass, in the order that makes neighbouring threads
// read neighbouring addresses of the underlying tensor (`aRowFastest` / `bColFastest`); then every thread
// multiplies RM × RN register accumulators from them. Thread (tx, ty) owns rows ty + 16·i and columns tx + 16·j,
// so the 16 threads of a row read the same A entry (a broadcast) and consecutive B entries. Workgroup x picks the
// column tile, y the row tile, z is the kernel's own (split-K slice, or convolution phase) times the blocks of row
// tiles beyond the per-dimension workgroup limit.
//
// The program object follows tfjs-backend-webgpu's WebGPUProgram (4.22): `runWebGPUProgram` compiles and caches
// the shader by `shaderKey`, binds the output and inputs in `variableNames` order as storage buffers and the
// uniforms after tfjs's own (shapes and strides) in the order of the `uniforms` declaration.

import type * as tf from "@tensorflow/tfjs";

/** The slice of tfjs-backend-webgpu's WebGPUProgram this file fills in. */
export interface WebGpuProgram {
  outputShape: number[];
  shaderKey: string;
  dispatchLayout: { x: number[]; y?: number[]; z?: number[] };
  dispatch: [number, number, number];
  variableNames: string[];
  uniforms?: string;
  workgroupSize: [number, number, number];
  size?: boolean;
  getUserCode(): string;
}

/** The slice of tfjs-backend-webgpu's WebGPUBackend (4.22) the kernels call. */
export interface WebGpuBackendApi {
  runWebGPUProgram(
    program: WebGpuProgram,
    inputs: tf.TensorInfo[],
    outputDtype: tf.DataType,
    uniforms?: { type: string; data: number[] }[],
  ): tf.TensorInfo;
  disposeData(dataId: object, force?: boolean): boolean;
  device: { limits: { maxComputeWorkgroupsPerDimension: number } };
}

/** Integer uniforms: each `name : i32` in the declaration, in order, with its value. */
export function intUniforms(values: Record<string, number>): {
  decl: string;
  data: { type: string; data: number[] }[];
} {
  const names = Object.keys(values);
  for (const n of names) {
    if (!Number.isInteger(values[n])) throw new Error(`WebGPU kernel uniform ${n} is not an integer: ${values[n]}`);
  }
  return {
    decl: names.map((n) => `${n} : i32,`).join(" "),
    data: names.map((n) => ({ type: "int32", data: [values[n]] })),
  };
}

export interface GemmSpec {
  /** Unique per shader text (tfjs caches compiled pipelines by it, plus input ranks and dtypes). */
  key: string;
  outputShape: number[];
  variableNames: string[];
  /**
   * Declared as `name : i32` uniforms, readable as `uniforms.name`. Must define `rows`, `cols` and `steps` (the
   * number of TK-wide reduction steps, the same for every workgroup: enough for the longest [redBegin, redEnd)).
   */
  uniforms: Record<string, number>;
  /** Accumulator rows (1-4) per thread: TM = 16·rm. */
  rm: number;
  /** Accumulator columns (1-4) per thread: TN = 16·rn. */
  rn: number;
  /** Workgroups along z. */
  depth: number;
  /**
   * WGSL run once per thread before the loop, where `wz` is this workgroup's z (< depth; use it, not workgroupId.z):
   * must define `redBegin` and `redEnd` (i32); may narrow `rows` (a var,
   * from the uniform) for this workgroup and set module-scope private variables that the loads and store read.
   */
  setup: string;
  /** WGSL body of `fn loadA(row : i32, red : i32) -> f32`, called only for row < rows, redBegin ≤ red < redEnd. */
  loadA: string;
  /** WGSL body of `fn loadB(red : i32, col : i32) -> f32`, called only for col < cols, redBegin ≤ red < redEnd. */
  loadB: string;
  /** WGSL statements storing `value` at (row, col); called only for row < rows, col < cols. */
  store: string;
  /** Whether consecutive rows of A (else consecutive reduction indices) are adjacent in memory. */
  aRowFastest: boolean;
  /** Whether consecutive columns of B (else consecutive reduction indices) are adjacent in memory. */
  bColFastest: boolean;
  /** Extra WGSL at module scope (helper functions). */
  helpers?: string;
}

export const TK = 16;

/** Runs the tiled product described by `spec` and returns its output tensor (never touched by tfjs's kernels). */
export function runGemm(backend: WebGpuBackendApi, spec: GemmSpec, inputs: tf.TensorInfo[]): tf.TensorInfo {
  const { rows, cols } = spec.uniforms;
  const tm = 16 * spec.rm;
  const tn = 16 * spec.rn;
  // Row tiles past the per-dimension workgroup limit (65,535 on most GPUs; the IMPALA CNN's first conv at
  // minibatch 2048 has 131,072) continue in further blocks along z: z = kernel's z · yBlocks + block.
  const maxGroups = backend.device.limits.maxComputeWorkgroupsPerDimension;
  const rowTiles = Math.ceil(rows / tm);
  const yBlocks = Math.ceil(rowTiles / maxGroups);
  const dispatch: [number, number, number] = [
    Math.ceil(cols / tn),
    Math.ceil(rowTiles / yBlocks),
    spec.depth * yBlocks,
  ];
  // tfjs would silently re-shape an oversized dispatch, which breaks workgroupId-based tiles.
  if (dispatch.some((d) => d > maxGroups))
    throw new Error(`WebGPU GEMM ${spec.key}: dispatch ${dispatch} exceeds ${maxGroups}`);
  const u = intUniforms({ ...spec.uniforms, yBlocks });
  const aLoads = (tm * TK) / 256;
  const bLoads = (TK * tn) / 256;
  const program: WebGpuProgram = {
    outputShape: spec.outputShape,
    shaderKey: `ppoTsGemm_${spec.key}_${spec.rm}x${spec.rn}`,
    // Not flat (so tfjs emits `fn main()`, no index) and of a rank unlike the output's (no coordinate helpers).
    dispatchLayout: { x: [0], y: [1], z: spec.outputShape.length === 3 ? [] : [2] },
    dispatch,
    variableNames: spec.variableNames,
    uniforms: u.decl,
    workgroupSize: [16, 16, 1],
    getUserCode: () => `
      ${spec.helpers ?? ""}
      var<workgroup> As : array<array<f32, ${tm}>, ${TK}>;
      var<workgroup> Bs : array<array<f32, ${tn}>, ${TK}>;
      fn loadA(row : i32, red : i32) -> f32 { ${spec.loadA} }
      fn loadB(red : i32, col : i32) -> f32 { ${spec.loadB} }
      fn main() {
        let tx = i32(localId.x);
        let ty = i32(localId.y);
        let tid = ty * 16 + tx;
        let wz = i32(workgroupId.z) / uniforms.yBlocks;
        let row0 = (i32(workgroupId.z) % uniforms.yBlocks * i32(numWorkgroups.y) + i32(workgroupId.y)) * ${tm};
        let col0 = i32(workgroupId.x) * ${tn};
        var rows = uniforms.rows;
        var cols = uniforms.cols;
        ${spec.setup}
        var acc : array<array<f32, ${spec.rn}>, ${spec.rm}>;
        for (var i = 0; i < ${spec.rm}; i++) { for (var j = 0; j < ${spec.rn}; j++) { acc[i][j] = 0.0; } }
        // The trip count comes from a uniform alone: barriers must be in uniform control flow, and WGSL's analysis
        // does not count values derived from tfjs's private copy of workgroup_id as uniform.
        for (var t = 0; t < uniforms.steps; t++) {
          let k0 = redBegin + t * ${TK};
          for (var p = 0; p < ${aLoads}; p++) {
            let e = tid + 256 * p;
            ${spec.aRowFastest ? `let r = e % ${tm}; let kk = e / ${tm};` : `let kk = e % ${TK}; let r = e / ${TK};`}
            var v = 0.0;
            if (row0 + r < rows && k0 + kk < redEnd) { v = loadA(row0 + r, k0 + kk); }
            As[kk][r] = v;
          }
          for (var p = 0; p < ${bLoads}; p++) {
            let e = tid + 256 * p;
            ${spec.bColFastest ? `let c = e % ${tn}; let kk = e / ${tn};` : `let kk = e % ${TK}; let c = e / ${TK};`}
            var v = 0.0;
            if (col0 + c < cols && k0 + kk < redEnd) { v = loadB(k0 + kk, col0 + c); }
            Bs[kk][c] = v;
          }
          workgroupBarrier();
          for (var kk = 0; kk < ${TK}; kk++) {
            var a : array<f32, ${spec.rm}>;
            var b : array<f32, ${spec.rn}>;
            for (var i = 0; i < ${spec.rm}; i++) { a[i] = As[kk][ty + 16 * i]; }
            for (var j = 0; j < ${spec.rn}; j++) { b[j] = Bs[kk][tx + 16 * j]; }
            for (var i = 0; i < ${spec.rm}; i++) {
              for (var j = 0; j < ${spec.rn}; j++) { acc[i][j] = fma(a[i], b[j], acc[i][j]); }
            }
          }
          workgroupBarrier();
        }
        for (var i = 0; i < ${spec.rm}; i++) {
          let row = row0 + ty + 16 * i;
          for (var j = 0; j < ${spec.rn}; j++) {
            let col = col0 + tx + 16 * j;
            if (row < rows && col < cols) {
              let value = acc[i][j];
              ${spec.store}
            }
          }
        }
      }`,
  };
  return backend.runWebGPUProgram(program, inputs, "float32", u.data);
}

/** Accumulators per thread along a dimension of `n`: enough 16-wide columns to cover it, at most 4 (TN ≤ 64). */
export function perThread(n: number): number {
  return Math.min(4, Math.max(1, Math.ceil(n / 16)));
}
