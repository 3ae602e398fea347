// Max-pool gradient on WebGPU (NHWC), with torch's tie rule: each window's gradient goes to the FIRST input, in
// row-major window order, that equals the window's max (padding never wins; a NaN max goes to the first NaN). The
// cpu backend does the same (envs/torch/backend.ts's maxPoolGradInto explains why it matters: a conv over procgen's flat
// backgrounds is constant, so ties are common). tfjs-backend-webgpu's kernel keeps the LAST maximal input
// (`value >= currMax` in its positions pass), so on IMPALA's pools its gradient differed from the cpu backend's.
//
// One dispatch, one thread per input element (b, y, x, c), no atomics: it visits every window that contains it
// (⌈kh/sh⌉·⌈kw/sw⌉ of them: 4 for IMPALA's 3x3 stride-2 pool), rescans each window up to its first maximal input
// and adds that window's dy if the winner is itself. The forward output (the window maxima) is an input of the
// op, so no positions buffer is built.

import * as tf from "@tensorflow/tfjs";

import { intUniforms, type WebGpuBackendApi } from "./gemm.ts";

type Fallback = (args: Parameters<tf.KernelFunc>[0]) => tf.TensorInfo | tf.TensorInfo[];

export function maxPoolGrad(
  backend: WebGpuBackendApi,
  dy: tf.TensorInfo,
  x: tf.TensorInfo,
  y: tf.TensorInfo,
  info: tf.backend_util.Conv2DInfo,
): tf.TensorInfo {
  const u = intUniforms({
    inH: info.inHeight,
    inW: info.inWidth,
    inC: info.inChannels,
    outH: info.outHeight,
    outW: info.outWidth,
    kh: info.effectiveFilterHeight,
    kw: info.effectiveFilterWidth,
    sh: info.strideHeight,
    sw: info.strideWidth,
    padT: info.padInfo.top,
    padL: info.padInfo.left,
  });
  const size = x.shape.reduce((p, q) => p * q, 1);
  return backend.runWebGPUProgram(
    {
      outputShape: x.shape,
      shaderKey: "ppoTsMaxPoolGrad",
      dispatchLayout: { x: x.shape.map((_, i) => i) },
      dispatch: [Math.ceil(size / 64), 1, 1],
      variableNames: ["dy", "x", "y"],
      uniforms: u.decl,
      workgroupSize: [64, 1, 1],
      size: true,
      getUserCode: () => `
      fn main(index : i32) {
        if (index >= uniforms.size) { return; }
        let coords = getCoordsFromIndex(index);
        let b = coords[0];
        let iy = coords[1];
        let ix = coords[2];
        let c = coords[3];
        // Windows (oy, ox) whose rows oy·sh - padT .. + kh - 1 contain iy, likewise for columns.
        let oyLo = max(0, (iy + uniforms.padT - uniforms.kh + uniforms.sh) / uniforms.sh);
        let oyHi = min(uniforms.outH - 1, (iy + uniforms.padT) / uniforms.sh);
        let oxLo = max(0, (ix + uniforms.padL - uniforms.kw + uniforms.sw) / uniforms.sw);
        let oxHi = min(uniforms.outW - 1, (ix + uniforms.padL) / uniforms.sw);
        var grad = 0.0;
        for (var oy = oyLo; oy <= oyHi; oy++) {
          let y0 = oy * uniforms.sh - uniforms.padT;
          if (iy < y0 || iy >= y0 + uniforms.kh) { continue; }
          for (var ox = oxLo; ox <= oxHi; ox++) {
            let x0 = ox * uniforms.sw - uniforms.padL;
            if (ix < x0 || ix >= x0 + uniforms.kw) { continue; }
            let o = ((b * uniforms.outH + oy) * uniforms.outW + ox) * uniforms.inC + c;
            let m = y[o];
            let nanMax = isnan(m);
            // The first maximal input of the window, in row-major order.
            var wy = -1;
            var wx = -1;
            for (var p = max(0, -y0); p < min(uniforms.kh, uniforms.inH - y0) && wy < 0; p++) {
              for (var q = max(0, -x0); q < min(uniforms.kw, uniforms.inW - x0); q++) {
                let v = x[((b * uniforms.inH + y0 + p) * uniforms.inW + x0 + q) * uniforms.inC + c];
                if (v == m || (nanMax && isnan(v))) { wy = y0 + p; wx = x0 + q; break; }
              }
            }
            if (wy == iy && wx == ix) { grad += dy[o]; }
          }
        }
        setOutputAtIndex(index, grad);
      }`,
    },
    [dy, x, y],
    "float32",
    u.data,
  );
}

export function maxPoolKernels(fallback: (name: string) => Fallback): tf.KernelConfig[] {
  return [
    {
      kernelName: tf.MaxPoolGrad,
      backendName: "webgpu",
      kernelFunc: (args) => {
        const { dy, input, output } = args.inputs as { dy: tf.TensorInfo; input: tf.TensorInfo; output: tf.TensorInfo };
        if ([dy, input, output].some((t) => t.dtype !== "float32") || input.shape.length !== 4)
          return fallback(tf.MaxPoolGrad)(args);
        const a = args.attrs as unknown as {
          filterSize: number | [number, number];
          strides: number | [number, number];
          pad: "valid" | "same" | number;
          dimRoundingMode?: "floor" | "round" | "ceil";
        };
        const info = tf.backend_util.computePool2DInfo(
          input.shape as [number, number, number, number],
          a.filterSize,
          a.strides,
          1,
          a.pad,
          a.dimRoundingMode,
        );
        return maxPoolGrad(args.backend as unknown as WebGpuBackendApi, dy, input, output, info);
      },
    },
  ];
}
