// torch.optim.Adam's step on WebGPU: two dispatches per parameter instead of tfjs's AdamOptimizer's ~15 (each a
// pass over memory with a fresh buffer, plus a scalar uploaded for most of them).
//
//   moments  mv'[0] = β1·m + (1−β1)·g,  mv'[1] = β2·v + (1−β2)·g·g        (m and v of one parameter as one [2, n]
//                                                                          tensor: one buffer to read and write)
//   params   p' = p − stepSize·m' / (√v' · 1/√(1−β2ᵗ) + ε),  stepSize = lr / (1−β1ᵗ)
//
// in float32, the same formula as envs/torch/nn.ts's WASM loop (so both follow torch's Adam). One thread per element;
// every hyper-parameter is a uniform, so nothing is uploaded per step. The moments stay on the GPU as ordinary tfjs
// tensors held by the optimizer (`WebGpuAdamState`): readable with dataSync and replaceable, e.g. for checkpoints.

import * as tf from "@tensorflow/tfjs";

import type { WebGpuBackendApi } from "./gemm.ts";

export interface AdamHyper {
  learningRate: number;
  beta1: number;
  beta2: number;
  epsilon: number;
  step: number;
}

/** Per parameter name, its moments as one [2, size] float32 tensor on the webgpu backend: row 0 m, row 1 v. */
export type WebGpuAdamState = Map<string, tf.Tensor>;

function flat(size: number) {
  return {
    dispatchLayout: { x: [0] },
    dispatch: [Math.ceil(size / 64), 1, 1] as [number, number, number],
    workgroupSize: [64, 1, 1] as [number, number, number],
    size: true,
  };
}

/** One Adam step for every (variable name, gradient) pair; creates zero moments for a parameter's first step. */
export function adamStepWebGpu(
  named: { name: string; tensor: tf.Tensor }[],
  state: WebGpuAdamState,
  h: AdamHyper,
): void {
  const backend = tf.backend() as unknown as WebGpuBackendApi;
  const stepSize = h.learningRate / (1 - h.beta1 ** h.step);
  const invSqrtBias2 = 1 / Math.sqrt(1 - h.beta2 ** h.step);
  const f = (v: number) => ({ type: "float32", data: [v] });
  for (const { name, tensor: grad } of named) {
    const variable = tf.engine().registeredVariables[name];
    if (variable == null) throw new Error(`Adam: no variable named ${name}`);
    const n = variable.size;
    const old = state.get(name) ?? tf.zeros([2, n]);
    const mv = backend.runWebGPUProgram(
      {
        outputShape: [2, n],
        shaderKey: "ppoTsAdamMoments",
        variableNames: ["mv", "g"],
        uniforms: "n : i32, beta1 : f32, oneMinusBeta1 : f32, beta2 : f32, oneMinusBeta2 : f32,",
        ...flat(2 * n),
        getUserCode: () => `
        fn main(index : i32) {
          if (index >= uniforms.size) { return; }
          let isV = index >= uniforms.n;
          let gv = g[select(index, index - uniforms.n, isV)];
          let x = mv[index];
          setOutputAtIndex(index, select(uniforms.beta1 * x + uniforms.oneMinusBeta1 * gv, uniforms.beta2 * x + uniforms.oneMinusBeta2 * gv * gv, isV));
        }`,
      },
      [old, grad],
      "float32",
      [{ type: "int32", data: [n] }, f(h.beta1), f(1 - h.beta1), f(h.beta2), f(1 - h.beta2)],
    );
    // Kept: the step usually runs inside the caller's tf.tidy, and the moments must outlive it.
    const moments = tf.keep(tf.engine().makeTensorFromTensorInfo(mv));
    const p = backend.runWebGPUProgram(
      {
        outputShape: variable.shape,
        shaderKey: "ppoTsAdamParams",
        variableNames: ["p", "mv"],
        uniforms: "n : i32, stepSize : f32, invSqrtBias2 : f32, epsilon : f32,",
        ...flat(n),
        getUserCode: () => `
        fn main(index : i32) {
          if (index >= uniforms.size) { return; }
          let m = mv[index];
          let v = mv[index + uniforms.n];
          setOutputAtIndex(index, p[index] - uniforms.stepSize * m / (sqrt(v) * uniforms.invSqrtBias2 + uniforms.epsilon));
        }`,
      },
      [variable, moments],
      "float32",
      [{ type: "int32", data: [n] }, f(stepSize), f(invSqrtBias2), f(h.epsilon)],
    );
    const updated = tf.engine().makeTensorFromTensorInfo(p);
    variable.assign(updated);
    updated.dispose();
    old.dispose();
    state.set(name, moments);
  }
}
