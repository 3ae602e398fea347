// `torch.nn.utils.clip_grad_norm_` on WebGPU (envs/torch/nn.ts's clipGradNorm takes this path there): the global L2
// norm of all gradients, then every gradient scaled by min(maxNorm / (norm + 1e-6), 1), in 2k + 1 dispatches for k
// gradients and nothing uploaded (tfjs ops: a square, a sum, an addN share and a scalar multiply per gradient,
// plus the scalar arithmetic, with a scalar upload for most).
//
// Sum of squares: one workgroup of 256 threads per gradient. Thread t walks elements t, t + 256, ... (neighbouring
// threads read neighbouring floats) keeping a Kahan-compensated float32 sum; the 256 sums are then added pairwise
// (a tree in workgroup memory). Error: a few float32 ulps of the total, where a plain left-to-right float32 sum
// over the 1.6M squares of the Nature CNN's dense layer drifts by ~1e-4 relative. Each gradient's kernel also
// adds the running total of the gradients before it (a chain; one workgroup each, so nothing runs in parallel
// that could have), so the last one holds Σ over all gradients.
// Scale: one thread per element, the coefficient computed from the total in every thread.

import * as tf from "@tensorflow/tfjs";

import type { WebGpuBackendApi } from "./gemm.ts";

/** Σ x² (Kahan per thread, pairwise across threads) plus `prior` (a 1-element tensor), as a 1-element tensor. */
function sumOfSquares(backend: WebGpuBackendApi, x: tf.TensorInfo, prior: tf.TensorInfo): tf.TensorInfo {
  const n = x.shape.reduce((p, q) => p * q, 1);
  return backend.runWebGPUProgram(
    {
      outputShape: [1],
      shaderKey: "ppoTsSumOfSquares",
      dispatchLayout: { x: [0] },
      dispatch: [1, 1, 1],
      variableNames: ["x", "prior"],
      uniforms: "n : i32,",
      workgroupSize: [256, 1, 1],
      getUserCode: () => `
      var<workgroup> partial : array<f32, 256>;
      fn main(index : i32) {
        let t = i32(localId.x);
        var s = 0.0;
        var comp = 0.0;
        for (var i = t; i < uniforms.n; i += 256) {
          let y = x[i] * x[i] - comp;
          let u = s + y;
          comp = (u - s) - y;
          s = u;
        }
        partial[t] = s;
        workgroupBarrier();
        for (var stride = 128; stride > 0; stride /= 2) {
          if (t < stride) { partial[t] += partial[t + stride]; }
          workgroupBarrier();
        }
        if (t == 0) { result[0] = partial[0] + prior[0]; }
      }`,
    },
    [x, prior],
    "float32",
    [{ type: "int32", data: [n] }],
  );
}

/** g · min(maxNorm / (√total + 1e-6), 1): torch's coefficient, from the 1-element `total`. */
function scaleBy(backend: WebGpuBackendApi, g: tf.TensorInfo, total: tf.TensorInfo, maxNorm: number): tf.TensorInfo {
  const n = g.shape.reduce((p, q) => p * q, 1);
  return backend.runWebGPUProgram(
    {
      outputShape: g.shape,
      shaderKey: "ppoTsClipScale",
      dispatchLayout: { x: g.shape.map((_, i) => i) },
      dispatch: [Math.ceil(n / 64), 1, 1],
      variableNames: ["g", "total"],
      uniforms: "maxNorm : f32,",
      workgroupSize: [64, 1, 1],
      size: true,
      getUserCode: () => `
      fn main(index : i32) {
        if (index < uniforms.size) {
          let coef = min(uniforms.maxNorm / (sqrt(total[0]) + 1e-6), 1.0);
          setOutputAtIndex(index, g[index] * coef);
        }
      }`,
    },
    [g, total],
    "float32",
    [{ type: "float32", data: [maxNorm] }],
  );
}

/** clipGradNorm's contract (see envs/torch/nn.ts) on the webgpu backend. Call inside `tf.tidy`. */
export function clipGradNormWebGpu(
  grads: tf.NamedTensorMap,
  maxNorm: number,
): { grads: tf.NamedTensorMap; norm: tf.Scalar } {
  const backend = tf.backend() as unknown as WebGpuBackendApi;
  const names = Object.keys(grads);
  const make = (info: tf.TensorInfo) => tf.engine().makeTensorFromTensorInfo(info);
  let total = tf.zeros([1]);
  for (const n of names) total = make(sumOfSquares(backend, grads[n], total));
  const clipped: tf.NamedTensorMap = {};
  for (const n of names) clipped[n] = make(scaleBy(backend, grads[n], total, maxNorm));
  return { grads: clipped, norm: tf.sqrt(tf.reshape(total, [])) as tf.Scalar };
}
