// Our WGSL kernels for tfjs's `webgpu` backend, registered in place of tfjs-backend-webgpu's own (tfjs's op graph
// and autodiff stay; only the kernel a given op name runs on webgpu changes). Each family's file says what it
// computes and how it tiles:
//   conv2d.ts    Conv2D, FusedConv2D (bias + ReLU epilogue), Conv2DBackpropFilter (split-K),
//                Conv2DBackpropInput (per stride phase)
//   max_pool.ts  MaxPoolGrad with torch's (and the cpu backend's) tie rule
// and, called by envs/torch/optim.ts and envs/torch/nn.ts while these are registered, adam.ts (Adam's step) and
// global_norm.ts (clipGradNorm).
// PPO_TS_WEBGPU_KERNELS=0 keeps tfjs's kernels (for comparison); envs/torch/backend.ts reads it when WebGPU starts.

import * as tf from "@tensorflow/tfjs";

import { conv2dKernels } from "./conv2d.ts";
import { maxPoolKernels } from "./max_pool.ts";

// Kernel name -> tfjs's own config (undefined where tfjs had none), while ours are registered.
let originals: Map<string, tf.KernelConfig | undefined> | null = null;

/** Whether PPO_TS_WEBGPU_KERNELS leaves our kernels on (unset, or anything but 0/false/off). */
export function webGpuKernelsWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return !["0", "false", "off"].includes((env.PPO_TS_WEBGPU_KERNELS ?? "").trim().toLowerCase());
}

/**
 * Registers our kernels for the `webgpu` backend, each falling back to tfjs's for what it does not cover.
 * Needs @tensorflow/tfjs-backend-webgpu imported first (its import registers the kernels replaced). Idempotent.
 */
export function registerWebGpuKernels(): void {
  if (originals != null) return;
  const saved = new Map<string, tf.KernelConfig | undefined>();
  const fallback = (name: string) => (args: Parameters<tf.KernelFunc>[0]) => {
    const orig = saved.get(name);
    if (orig == null) throw new Error(`webgpu backend has no ${name} kernel for these arguments`);
    return orig.kernelFunc(args);
  };
  const configs = [...conv2dKernels(fallback), ...maxPoolKernels(fallback)];
  for (const config of configs) {
    const orig = tf.getKernel(config.kernelName, "webgpu");
    saved.set(config.kernelName, orig);
    if (orig != null) tf.unregisterKernel(config.kernelName, "webgpu");
    tf.registerKernel(config);
  }
  originals = saved;
}

/** Puts tfjs-backend-webgpu's own kernels back (tests compare both). Idempotent. */
export function unregisterWebGpuKernels(): void {
  if (originals == null) return;
  for (const [name, orig] of originals) {
    tf.unregisterKernel(name, "webgpu");
    if (orig != null) tf.registerKernel(orig);
  }
  originals = null;
}

/** Whether our kernels are registered now. */
export function webGpuKernelsActive(): boolean {
  return originals != null;
}
