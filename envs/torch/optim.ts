// `torch.optim`: Adam, the learning-rate knob the annealing turns, and the backward pass of one loss.

import * as tf from "@tensorflow/tfjs";
import { adamStepWebGpu, type WebGpuAdamState } from "./webgpu/adam.ts";
import { webGpuKernelsActive } from "./webgpu/index.ts";

/**
 * `loss.backward()`: runs `f` and returns the gradient of its loss with respect to `parameters`, with the other
 * tensors `f` returns beside the loss (kept: the loss's diagnostics). Call inside `tf.tidy`.
 */
export function backward<T extends tf.Tensor[]>(
  parameters: tf.Variable[],
  f: () => [loss: tf.Scalar, ...kept: T],
): { grads: tf.NamedTensorMap; kept: T } {
  let kept = [] as unknown as T;
  const { grads } = tf.variableGrads(() => {
    const [loss, ...rest] = f();
    // variableGrads disposes what its function made except the loss: keep the diagnostics out of its reach.
    kept = rest.map((t) => tf.keep(t)) as T;
    return loss;
  }, parameters);
  // Clones (sharing the data) belong to the caller's tf.tidy scope, as the gradients do; the kept originals go.
  const owned = kept.map((t) => {
    const clone = t.clone();
    t.dispose();
    return clone;
  }) as T;
  return { grads, kept: owned };
}

/**
 * `optimizer.param_groups[0]["lr"] = lr`: tfjs optimizers read their (TypeScript-protected) `learningRate`
 * field at every `applyGradients`, so assigning it anneals the rate (tests/nn.test.ts steps with both rates).
 */
export function setLearningRate(optimizer: tf.Optimizer, lr: number): void {
  (optimizer as unknown as { learningRate: number }).learningRate = lr;
}

export function getLearningRate(optimizer: tf.Optimizer): number {
  return (optimizer as unknown as { learningRate: number }).learningRate;
}

// ---- optim.Adam -------------------------------------------------------------------------------------------------

/**
 * Adam's update as one WebAssembly SIMD loop, four floats at a time; the module is 262 bytes, built below.
 *   adam(p, g, m, v, n4, β1, 1−β1, β2, 1−β2, stepSize, 1/√(1−β2ᵗ), ε)   (byte offsets, count of 4-float groups)
 *   m ← β1·m + (1−β1)·g;  v ← β2·v + (1−β2)·g·g;  p ← p − stepSize·m / (√v · 1/√(1−β2ᵗ) + ε)
 * in float32, as torch's Adam does. Parameters 0–4 are i32, 5–11 f32; locals 12–18 hold the seven scalars splatted
 * to f32x4, 19–21 the loaded g and the new m and v.
 */
function adamModuleBytes(): Uint8Array<ArrayBuffer> {
  const uleb = (n: number): number[] => {
    const out: number[] = [];
    do {
      const low = n & 0x7f;
      n >>>= 7;
      out.push(n ? low | 0x80 : low);
    } while (n);
    return out;
  };
  const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
  const [i32, f32, v128] = [0x7f, 0x7d, 0x7b];
  const get = (i: number) => [0x20, i];
  const set = (i: number) => [0x21, i];
  const tee = (i: number) => [0x22, i];
  // SIMD opcodes (prefix 0xfd): v128.load/store with align 2^4, f32x4.splat/add/sub/mul/div/sqrt.
  const load = [0xfd, 0x00, 4, 0];
  const store = [0xfd, 0x0b, 4, 0];
  const splat = [0xfd, 0x13];
  const [add, sub, mul, div, sqrt] = [0xe4, 0xe5, 0xe6, 0xe7, 0xe3].map((op) => [0xfd, ...uleb(op)]);
  const advance = (i: number) => [...get(i), 0x41, 16, 0x6a, ...set(i)]; // pointer += 16 bytes
  const [P, G, M, V, N4] = [0, 1, 2, 3, 4];
  const [B1, A1, B2, A2, S, IB, EPS, GV, MV, VV] = [12, 13, 14, 15, 16, 17, 18, 19, 20, 21];
  const code = [
    ...[5, 6, 7, 8, 9, 10, 11].flatMap((arg, k) => [...get(arg), ...splat, ...set(B1 + k)]),
    0x02,
    0x40,
    0x03,
    0x40, // block, loop
    ...get(N4),
    0x45,
    0x0d,
    1, // if n4 == 0: leave the block
    ...get(G),
    ...load,
    ...set(GV),
    ...get(M),
    ...get(B1),
    ...get(M),
    ...load,
    ...mul,
    ...get(A1),
    ...get(GV),
    ...mul,
    ...add,
    ...tee(MV),
    ...store,
    ...get(V),
    ...get(B2),
    ...get(V),
    ...load,
    ...mul,
    ...get(A2),
    ...get(GV),
    ...get(GV),
    ...mul,
    ...mul,
    ...add,
    ...tee(VV),
    ...store,
    ...get(P),
    ...get(P),
    ...load,
    ...get(S),
    ...get(MV),
    ...mul,
    ...get(VV),
    ...sqrt,
    ...get(IB),
    ...mul,
    ...get(EPS),
    ...add,
    ...div,
    ...sub,
    ...store,
    ...advance(P),
    ...advance(G),
    ...advance(M),
    ...advance(V),
    ...get(N4),
    0x41,
    1,
    0x6b,
    ...set(N4), // n4 -= 1
    0x0c,
    0,
    0x0b,
    0x0b,
    0x0b, // br loop; end loop; end block; end func
  ];
  const body = [1, 10, v128, ...code]; // one local declaration: 10 × v128
  const name = (s: string) => [s.length, ...Array.from(s, (c) => c.charCodeAt(0))];
  return new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    1,
    0,
    0,
    0, // "\0asm", version 1
    ...section(1, [1, 0x60, 12, i32, i32, i32, i32, i32, f32, f32, f32, f32, f32, f32, f32, 0]), // the one func type
    ...section(3, [1, 0]), // one function of type 0
    ...section(5, [1, 0, 1]), // one memory, 1 page to start
    ...section(7, [2, ...name("adam"), 0, 0, ...name("mem"), 2, 0]), // exports
    ...section(10, [1, ...uleb(body.length), ...body]),
  ]);
}

/**
 * Adam's state, the part of `optimizer.state_dict()` a resumed run needs: the number of steps taken (the bias
 * corrections depend on it) and each variable's first and second moments (torch's `exp_avg`, `exp_avg_sq`), keyed
 * by the tfjs variable's name, in that variable's own layout.
 */
export interface OptimizerState {
  step: number;
  moments: Map<string, { m: Float32Array; v: Float32Array }>;
}

/** What `adam()` returns: a tfjs optimizer whose state can be saved and restored, whichever backend runs it. */
export interface StatefulOptimizer extends tf.Optimizer {
  exportState(): OptimizerState;
  /** Takes effect at the next `applyGradients`, which must update exactly the variables `state` names. */
  importState(state: OptimizerState): void;
}

/** Parameter, moments and gradient of one variable inside the kernel's memory (float offsets, 16-byte aligned). */
interface AdamSlot {
  p: number;
  m: number;
  v: number;
  size: number;
  synced: object | null;
}

/**
 * `torch.optim.Adam(params, lr, betas=(beta1, beta2), eps)` as a tfjs optimizer: the same `applyGradients`, and
 * `setLearningRate` anneals it. On the CPU backends (native TensorFlow, WASM, cpu) each step reads the gradients
 * back and updates parameters and moments with the SIMD loop above, the moments living in its memory: tfjs's Adam is
 * ~14 tensor ops per parameter, each a pass over memory with a fresh buffer (6.4 MB for the Nature-CNN's 3136×512
 * weight), where the loop makes one pass (benchmark/README.md, "Adam").
 * A parameter changed from outside (`assign`, a checkpoint load) is read back before its next step. On WebGPU (with
 * envs/torch/webgpu's kernels) the step is two dispatches per parameter, the moments staying on the GPU
 * (envs/torch/webgpu/adam.ts); on CUDA the gradients stay on the device and tfjs's own Adam runs. Whichever path runs,
 * `exportState()` gives the step and moments for a checkpoint (envs/torch/checkpoint.ts), and `importState()` hands them
 * to whichever path takes the next step.
 */
export function adam(learningRate: number, beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8): StatefulOptimizer {
  // Defined on first use: env worker threads import the variant files (for makeEnv) with tfjs stubbed out, and a
  // class extending tf.AdamOptimizer at module level would touch tfjs there.
  HostAdam ??= defineHostAdam();
  return new HostAdam(learningRate, beta1, beta2, epsilon);
}

let HostAdam: (new (learningRate: number, beta1: number, beta2: number, epsilon: number) => StatefulOptimizer) | null =
  null;

/** tfjs's Adam keeps its moments by position in the gradient list, each named `${variable}/m` or `/v`. */
interface TfjsAdamInternals {
  accumulatedFirstMoment: { originalName: string; variable: tf.Variable }[];
  accumulatedSecondMoment: { originalName: string; variable: tf.Variable }[];
  accBeta1: tf.Variable;
  accBeta2: tf.Variable;
  iterations_: number;
}

function defineHostAdam() {
  return class HostAdam extends tf.AdamOptimizer {
    private kernel: { adam: (...args: number[]) => void; memory: WebAssembly.Memory } | null = null;
    private readonly slots = new Map<string, AdamSlot>();
    private gradient = 0; // float offset of the shared gradient buffer
    private gradientSize = 0;
    private usedFloats = 0;
    private hostStep = 0;
    /** The moments of the WebGPU path, per variable name (envs/torch/webgpu/adam.ts). */
    private readonly gpuMoments: WebGpuAdamState = new Map();
    private pending: OptimizerState | null = null;

    override applyGradients(variableGradients: Parameters<tf.AdamOptimizer["applyGradients"]>[0]): void {
      // tfjs-node-gpu on a CUDA device answers isUsingGpuDevice, as envs/torch/backend.ts asks it when it starts.
      const onCuda = (tf.backend() as unknown as { isUsingGpuDevice?: boolean }).isUsingGpuDevice === true;
      const onHost = ["tensorflow", "wasm", "cpu"].includes(tf.getBackend()) && !onCuda;
      const onWebGpu = tf.getBackend() === "webgpu" && webGpuKernelsActive();
      const named = Array.isArray(variableGradients)
        ? variableGradients
        : Object.entries(variableGradients).map(([name, tensor]) => ({ name, tensor: tensor as tf.Tensor }));
      const path = onHost ? "host" : onWebGpu ? "webgpu" : "tfjs";
      if (this.pending !== null)
        this.restore(
          this.pending,
          named.map((g) => g.name),
          path,
        );
      // biome-ignore lint/correctness/noVoidTypeReturn: forwards the base class's (void) result unchanged
      if (path === "tfjs") return super.applyGradients(variableGradients);
      const { beta1, beta2, epsilon } = this;
      this.hostStep += 1;
      if (onWebGpu)
        // biome-ignore lint/correctness/noVoidTypeReturn: forwards the kernel's (void) result unchanged
        return adamStepWebGpu(named, this.gpuMoments, {
          learningRate: this.learningRate,
          beta1,
          beta2,
          epsilon,
          step: this.hostStep,
        });
      const stepSize = this.learningRate / (1 - beta1 ** this.hostStep);
      const invSqrtBias2 = 1 / Math.sqrt(1 - beta2 ** this.hostStep);
      for (const { name, tensor: grad } of named) {
        const variable = tf.engine().registeredVariables[name];
        if (variable == null) throw new Error(`Adam: no variable named ${name}`);
        const slot = this.slotFor(name, variable.size);
        const { adam, memory } = this.kernel!;
        const heap = new Float32Array(memory.buffer);
        heap.set(grad.dataSync() as Float32Array, this.gradient);
        heap.fill(0, this.gradient + slot.size, this.gradient + padded(slot.size));
        if (slot.synced !== variable.dataId) heap.set(variable.dataSync() as Float32Array, slot.p);
        adam(
          4 * slot.p,
          4 * this.gradient,
          4 * slot.m,
          4 * slot.v,
          padded(slot.size) / 4,
          beta1,
          1 - beta1,
          beta2,
          1 - beta2,
          stepSize,
          invSqrtBias2,
          epsilon,
        );
        const updated = tf.tensor(heap.slice(slot.p, slot.p + slot.size), variable.shape, "float32");
        variable.assign(updated);
        slot.synced = variable.dataId;
      }
    }

    exportState(): OptimizerState {
      if (this.pending !== null) return this.pending;
      const moments = new Map<string, { m: Float32Array; v: Float32Array }>();
      if (this.gpuMoments.size > 0) {
        for (const [name, mv] of this.gpuMoments) {
          const both = mv.dataSync() as Float32Array;
          moments.set(name, { m: both.slice(0, mv.shape[1]), v: both.slice(mv.shape[1]) });
        }
        return { step: this.hostStep, moments };
      }
      if (this.slots.size > 0) {
        const heap = new Float32Array(this.kernel!.memory.buffer);
        for (const [name, slot] of this.slots)
          moments.set(name, { m: heap.slice(slot.m, slot.m + slot.size), v: heap.slice(slot.v, slot.v + slot.size) });
        return { step: this.hostStep, moments };
      }
      const tfjs = this as unknown as TfjsAdamInternals;
      tfjs.accumulatedFirstMoment.forEach((first, i) => {
        const m = first.variable.dataSync() as Float32Array;
        const v = tfjs.accumulatedSecondMoment[i].variable.dataSync() as Float32Array;
        moments.set(first.originalName.replace(/\/m$/, ""), { m: m.slice(), v: v.slice() });
      });
      return { step: tfjs.iterations_, moments };
    }

    importState(state: OptimizerState): void {
      if (!Number.isSafeInteger(state.step) || state.step < 0)
        throw new Error(`Adam: step ${state.step} is not a non-negative integer`);
      this.pending = state;
    }

    /** Puts an imported state where the path about to run keeps it: the kernel's memory, the GPU moments, or tfjs's own. */
    private restore(state: OptimizerState, names: string[], path: "host" | "webgpu" | "tfjs"): void {
      const missing = names.filter((n) => !state.moments.has(n));
      if (missing.length > 0 || names.length !== state.moments.size)
        throw new Error(
          `Adam: the restored state has moments for ${state.moments.size} variables, the step updates ${names.length} (${missing.length} without a moment)`,
        );
      this.pending = null;
      if (path === "webgpu") {
        this.hostStep = state.step;
        for (const name of names) {
          const { m, v } = state.moments.get(name)!;
          const both = new Float32Array(2 * m.length);
          both.set(m);
          both.set(v, m.length);
          this.gpuMoments.get(name)?.dispose();
          this.gpuMoments.set(name, tf.keep(tf.tensor(both, [2, m.length], "float32")));
        }
        return;
      }
      if (path === "host") {
        this.hostStep = state.step;
        for (const name of names) {
          const { m, v } = state.moments.get(name)!;
          const slot = this.slotFor(name, m.length);
          const heap = new Float32Array(this.kernel!.memory.buffer);
          heap.set(m, slot.m);
          heap.set(v, slot.v);
        }
        return;
      }
      const tfjs = this as unknown as TfjsAdamInternals;
      tf.dispose([...tfjs.accumulatedFirstMoment, ...tfjs.accumulatedSecondMoment].map((x) => x.variable));
      const moment = (name: string, which: "m" | "v") => {
        const shape = tf.engine().registeredVariables[name].shape;
        return {
          originalName: `${name}/${which}`,
          variable: tf.tidy(() => tf.variable(tf.tensor(state.moments.get(name)![which], shape), false)),
        };
      };
      tfjs.accumulatedFirstMoment = names.map((n) => moment(n, "m"));
      tfjs.accumulatedSecondMoment = names.map((n) => moment(n, "v"));
      // tfjs keeps β^(t+1) for the coming step t+1: it starts at β and is multiplied by β in float32 after each
      // step, so the same float32 products (not the exact power) continue its arithmetic bit for bit.
      const power = (beta: number) => {
        let acc = Math.fround(beta);
        for (let i = 0; i < state.step; i++) acc = Math.fround(acc * Math.fround(beta));
        return acc;
      };
      tf.tidy(() => {
        tfjs.accBeta1.assign(tf.scalar(power(this.beta1)));
        tfjs.accBeta2.assign(tf.scalar(power(this.beta2)));
      });
      tfjs.iterations_ = state.step;
    }

    /** The variable's place in the kernel's memory, made (and the memory grown) on its first step. */
    private slotFor(name: string, size: number): AdamSlot {
      let slot = this.slots.get(name);
      if (slot != null) return slot;
      this.kernel ??= (() => {
        const { exports } = new WebAssembly.Instance(new WebAssembly.Module(adamModuleBytes()));
        return { adam: exports.adam as (...args: number[]) => void, memory: exports.mem as WebAssembly.Memory };
      })();
      const take = (floats: number) => ((this.usedFloats += padded(floats)), this.usedFloats - padded(floats));
      slot = { p: take(size), m: take(size), v: take(size), size, synced: null };
      if (size > this.gradientSize) {
        this.gradient = take(size); // the old, smaller gradient buffer is left unused
        this.gradientSize = size;
      }
      const bytesNeeded = 4 * this.usedFloats;
      const { memory } = this.kernel;
      if (bytesNeeded > memory.buffer.byteLength)
        memory.grow(Math.ceil((bytesNeeded - memory.buffer.byteLength) / 65536));
      this.slots.set(name, slot);
      return slot;
    }

    override dispose(): void {
      tf.dispose([...this.gpuMoments.values()]);
      this.gpuMoments.clear();
      this.slots.clear();
      this.kernel = null;
      super.dispose();
    }
  };
}

/** Floats rounded up to whole 4-float SIMD groups. */
function padded(floats: number): number {
  return Math.ceil(floats / 4) * 4;
}
