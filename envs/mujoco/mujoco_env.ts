// The MuJoCo base env, as Gymnasium 0.29's `gymnasium.envs.mujoco.MujocoEnv` (the base of every "-v4" task), on
// the official MuJoCo WebAssembly build (`@mujoco/mujoco`).
//
// What it does, as Gymnasium does it:
// - loads an MJCF file from envs/mujoco/assets/, makes one mjModel and one mjData;
// - `initQpos` / `initQvel` are the freshly made mjData's qpos (= model.qpos0) and qvel (zeros);
// - the action space is a float32 Box over the actuators' ctrlrange (`_set_action_space`);
// - `dt = model.opt.timestep * frameSkip`;
// - `reset` re-seeds (through `Env.reset`), calls mj_resetData, then the task's `resetModel` (which draws the
//   reset noise and calls `setState`); the reset info is `{}`;
// - `doSimulation(ctrl, nFrames)` writes ctrl, calls mj_step nFrames times, then mj_rnePostConstraint, because
//   since MuJoCo 2.0 cacc/cfrc_int/cfrc_ext are only computed when a force sensor asks for them (openai/gym#1541),
//   and Ant/Humanoid read cfrc_ext;
// - `setState(qpos, qvel)` writes both, then mj_forward so that every derived quantity (xpos, site_xpos, ...)
//   matches the new state.
//
// What it does not do: render. The WASM build has no OpenGL renderer (no `mjr_*` functions, and Node has no GL
// context), only the abstract `mjv_*` scene. The envs therefore declare no render modes, and `make(id,
// { renderMode: "rgb_array" })` fails loudly instead of returning fake frames.
//
// Loading. MuJoCo is WebAssembly, and Emscripten's module factory is asynchronous (it awaits the WASM
// instantiation), while `make` / `reset` / `step` are synchronous, as in Gymnasium. Loading at import time
// (a top-level await in envs/mujoco/index.ts) would make every `import * as gym` pay for it, also in processes
// that never touch MuJoCo. So the module is loaded on request, once per process:
// `await gym.mujoco.init()` (this file's `loadMujoco`). Making a MuJoCo env before that throws an error that
// says so. Even `@mujoco/mujoco`'s JavaScript is only imported then, so the registrations cost nothing else.
//
// The WASM memory rules live here and nowhere else:
// 1. The module is loaded once per process (`loadMujoco` caches its promise).
// 2. `model.qpos`, `data.xpos`, ... are typed-array views into the WASM heap. When the heap grows (any
//    allocation anywhere in the process, e.g. another env being made) the old ArrayBuffer is detached and every
//    view on it reads as empty. Subclasses therefore never keep a view: they read `this.views`, which re-fetches
//    all views when the cached ones have been detached, and copy out what they return.
// 3. Every mjModel / mjData is deleted exactly once: by `close()` (idempotent), or, for an env that is dropped
//    without `close()` (as Python's garbage collector would free it), by a FinalizationRegistry.
// 4. Stepping allocates nothing on the WASM heap (mjData's arena is preallocated), so a long run keeps the heap
//    size constant; tests/mujoco.test.ts checks that.

import { readFileSync } from "node:fs";

import type { DoubleBuffer, MainModule, MjData, MjModel } from "@mujoco/mujoco";

import { Env, type Info, type Metadata, type ResetArgs, type StepResult } from "../gymnasium/core.ts";
import { Box, type Space } from "../gymnasium/spaces.ts";
import type { Float32Box } from "../gymnasium/spaces.ts";

/** A float64 Box: its values are Float64Array. Every v4 MuJoCo observation space is `Box(-inf, inf, (n,), float64)`. */
export type Float64Box = Box & Space<Float64Array>;

let loading: Promise<MainModule> | null = null;
let mujoco: MainModule | null = null;
/** A 1-double WASM buffer kept for the life of the process, only to read the current heap size. */
let heapProbe: DoubleBuffer | null = null;

/**
 * Loads MuJoCo's WASM module, once per process; later calls return the same promise. Await it
 * before making a MuJoCo env; `gym.mujoco.init` is this function.
 */
export function loadMujoco(): Promise<MainModule> {
  loading ??= import("@mujoco/mujoco").then(async ({ default: factory }) => {
    const module = await factory();
    mujoco = module;
    heapProbe = new module.DoubleBuffer(1);
    return module;
  });
  // A failed load (e.g. a missing .wasm file) may be retried.
  loading.catch(() => (loading = null));
  return loading;
}

/** Whether `loadMujoco()` has finished, i.e. whether MuJoCo envs can be made synchronously. */
export function isMujocoLoaded(): boolean {
  return mujoco !== null;
}

/** The loaded module; throws if it has not been loaded yet. */
export function mujocoModule(): MainModule {
  if (mujoco === null) {
    throw new Error(
      "MuJoCo's WASM module is not loaded yet: run `await gym.mujoco.init()` once (e.g. at the top of the script) before making a MuJoCo env",
    );
  }
  return mujoco;
}

/** Current size of the WASM heap in bytes (it only ever grows; a leak shows up as growth). */
export function wasmHeapBytes(): number {
  mujocoModule();
  return (heapProbe!.GetView() as Float64Array).buffer.byteLength;
}

/** Directory of the bundled MJCF files. */
export const ASSETS_DIR = new URL("./assets/", import.meta.url);

/** The mjData arrays the v4 tasks read, as views into the WASM heap (see rule 2 above). */
export interface DataViews {
  qpos: Float64Array;
  qvel: Float64Array;
  ctrl: Float64Array;
  /** Body frame positions, nbody x 3: Gymnasium's `get_body_com(name)` reads `data.body(name).xpos`. */
  xpos: Float64Array;
  /** Body centre-of-mass positions, nbody x 3 (Ant/Humanoid's centre of mass). */
  xipos: Float64Array;
  siteXpos: Float64Array;
  qfrcConstraint: Float64Array;
  qfrcActuator: Float64Array;
  /** Com-based body inertias, nbody x 10. */
  cinert: Float64Array;
  /** Com-based body velocities, nbody x 6. */
  cvel: Float64Array;
  /** Com-based external forces on bodies (contacts), nbody x 6; valid after mj_rnePostConstraint. */
  cfrcExt: Float64Array;
}

/** A model and its data, freed together (the WASM heap is not garbage-collected). */
export interface Handles {
  model: MjModel | null;
  data: MjData | null;
}

export function deleteHandles(handles: Handles): void {
  // Data first: it was made from the model.
  handles.data?.delete();
  handles.model?.delete();
  handles.data = null;
  handles.model = null;
}

/** Frees the model and data of an env that was garbage-collected without `close()`. */
export const leakGuard = new FinalizationRegistry<Handles>(deleteHandles);

export interface MujocoEnvOptions {
  /** File name of the MJCF model in envs/mujoco/assets/. */
  modelPath: string;
  frameSkip: number;
  observationSpace: Float64Box;
  renderMode?: string | null;
}

const identity = (x: number): number => x;

/** numpy's pairwise summation of `x[start .. start + n)`, every partial result passed through `round`. */
function pairwiseSum(x: ArrayLike<number>, start: number, n: number, round: (x: number) => number): number {
  if (n < 8) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum = round(sum + x[start + i]);
    return sum;
  }
  if (n <= 128) {
    const partial = [0, 1, 2, 3, 4, 5, 6, 7].map((j) => x[start + j]);
    let i = 8;
    for (; i < n - (n % 8); i += 8) for (let j = 0; j < 8; j++) partial[j] = round(partial[j] + x[start + i + j]);
    const [p0, p1, p2, p3, p4, p5, p6, p7] = partial;
    let sum = round(round(round(p0 + p1) + round(p2 + p3)) + round(round(p4 + p5) + round(p6 + p7)));
    for (; i < n; i++) sum = round(sum + x[start + i]);
    return sum;
  }
  let half = Math.floor(n / 2);
  half -= half % 8;
  return round(pairwiseSum(x, start, half, round) + pairwiseSum(x, start + half, n - half, round));
}

/**
 * `np.sum(x)` of a 1-D array (or of a contiguous array reduced over all axes), adding in numpy's order: pairwise
 * summation (numpy's `pairwise_sum` in umath/loops_utils.h). Under 8 values that is a plain left-to-right loop;
 * from 8 to 128 values, value i goes into running partial sum i % 8 (leftover n % 8 values excepted), the partials
 * are combined as ((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + p7)), then the leftovers are added one by one; longer
 * arrays are split in two (the first part a multiple of 8 long) and summed recursively. The order only moves the
 * last bits, but Ant's 8 actions, Humanoid's 17 controls and Ant's 84 contact forces are enough terms for it to,
 * and a port should give Gymnasium's rewards bit for bit. A Float32Array is summed in float32, as numpy does.
 */
export function numpySum(x: ArrayLike<number>): number {
  return pairwiseSum(x, 0, x.length, x instanceof Float32Array ? Math.fround : identity);
}

/**
 * `np.sum(np.square(x))`: in float32 when `x` is a Float32Array (every square and partial sum rounded to float32,
 * as numpy computes for a float32 action), in numpy's pairwise order (see `numpySum`).
 */
export function sumOfSquares(x: ArrayLike<number>): number {
  const squares = x instanceof Float32Array ? new Float32Array(x.length) : new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) squares[i] = x[i] * x[i];
  return numpySum(squares);
}

/**
 * `np.linalg.norm(v)` of a short vector: numpy computes `sqrt(dot(v, v))`, i.e. the square root of the
 * left-to-right sum of squares. (Math.hypot rounds differently, in the last bit, for about 1 vector in 6.)
 */
export function norm(...components: number[]): number {
  let sum = 0;
  for (const c of components) sum += c * c;
  return Math.sqrt(sum);
}

/** Python's chained `low < x < high` over a `(low, high)` range tuple: strict, and false for NaN. */
export function inOpenRange(x: number, range: readonly [number, number]): boolean {
  return range[0] < x && x < range[1];
}

/** `np.clip(x, low, high)` for a scalar. */
export function clip(x: number, low: number, high: number): number {
  return x < low ? low : x > high ? high : x;
}

/** `np.concatenate(parts)` into a fresh float64 array: how the v4 tasks assemble their observations. */
export function concatenate(parts: readonly ArrayLike<number>[]): Float64Array {
  let size = 0;
  for (const part of parts) size += part.length;
  const out = new Float64Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * The position and velocity entries of the step info of the v4 tasks that move in the plane (Swimmer, Ant,
 * Humanoid), in Gymnasium's key order; each task puts its own reward terms around them.
 */
export function planarMotionInfo(xPosition: number, yPosition: number, xVelocity: number, yVelocity: number): Info {
  return {
    x_position: xPosition,
    y_position: yPosition,
    distance_from_origin: norm(xPosition, yPosition),
    x_velocity: xVelocity,
    y_velocity: yVelocity,
  };
}

/** `Box(-inf, inf, (n,), float64)`, every v4 task's observation space. */
export function unboundedObservationSpace(n: number): Float64Box {
  return new Box(-Infinity, Infinity, [n], "float64") as Float64Box;
}

export abstract class MujocoEnv extends Env<Float64Array, Float32Array> {
  override metadata: Metadata;
  readonly observationSpace: Float64Box;
  readonly actionSpace: Float32Box;
  readonly frameSkip: number;
  /** qpos / qvel of a fresh mjData: the centre of the reset distribution. */
  readonly initQpos: Float64Array;
  readonly initQvel: Float64Array;
  readonly nq: number;
  readonly nv: number;
  readonly nu: number;

  protected readonly mj: MainModule;
  private readonly handles: Handles;
  private cachedViews: DataViews | null = null;

  constructor(options: MujocoEnvOptions) {
    super();
    this.mj = mujocoModule();
    const xml = readFileSync(new URL(options.modelPath, ASSETS_DIR), "utf8");
    const model = this.mj.MjModel.from_xml_string(xml);
    let data: MjData;
    try {
      data = new this.mj.MjData(model);
    } catch (error) {
      model.delete();
      throw error;
    }
    this.handles = { model, data };
    leakGuard.register(this, this.handles, this);

    this.frameSkip = options.frameSkip;
    this.nq = model.nq;
    this.nv = model.nv;
    this.nu = model.nu;
    const views = this.views;
    this.initQpos = views.qpos.slice();
    this.initQvel = views.qvel.slice();

    const ctrlrange = model.actuator_ctrlrange as Float64Array;
    const low = new Float64Array(this.nu);
    const high = new Float64Array(this.nu);
    for (let i = 0; i < this.nu; i++) {
      low[i] = ctrlrange[2 * i];
      high[i] = ctrlrange[2 * i + 1];
    }
    this.actionSpace = new Box(low, high, [this.nu], "float32") as Float32Box;
    this.observationSpace = options.observationSpace;
    // Gymnasium requires render_fps == round(1 / dt); it is kept as information, no render mode is offered.
    this.metadata = { renderModes: [], renderFps: Math.round(1 / this.dt) };
    this.renderMode = options.renderMode ?? null;
  }

  /** The mjModel (Gymnasium's `env.unwrapped.model`). Do not keep its array views: see the memory rules above. */
  get model(): MjModel {
    if (this.handles.model === null) throw new Error(`${this.constructor.name} is closed`);
    return this.handles.model;
  }

  /** The mjData (Gymnasium's `env.unwrapped.data`). Do not keep its array views: see the memory rules above. */
  get data(): MjData {
    if (this.handles.data === null) throw new Error(`${this.constructor.name} is closed`);
    return this.handles.data;
  }

  get closed(): boolean {
    return this.handles.data === null;
  }

  /** Seconds of simulated time per env step. */
  get dt(): number {
    return this.model.opt.timestep * this.frameSkip;
  }

  /**
   * Live views of the mjData arrays. Valid until the WASM heap next grows, so read them through this getter
   * after every MuJoCo call and never store them; it re-fetches them only when they went stale.
   */
  protected get views(): DataViews {
    const cached = this.cachedViews;
    if (cached !== null && cached.qpos.buffer.byteLength !== 0) return cached;
    const d = this.data;
    const views: DataViews = {
      qpos: d.qpos,
      qvel: d.qvel,
      ctrl: d.ctrl,
      xpos: d.xpos,
      xipos: d.xipos,
      siteXpos: d.site_xpos,
      qfrcConstraint: d.qfrc_constraint,
      qfrcActuator: d.qfrc_actuator,
      cinert: d.cinert,
      cvel: d.cvel,
      cfrcExt: d.cfrc_ext,
    };
    this.cachedViews = views;
    return views;
  }

  /** Body id by name (`mj_name2id`); throws for an unknown name. */
  bodyId(name: string): number {
    const id = this.mj.mj_name2id(this.model, this.mj.mjtObj.mjOBJ_BODY.value, name);
    if (id < 0) throw new Error(`${this.constructor.name}: no body named "${name}"`);
    return id;
  }

  /** Gymnasium's `get_body_com(name)`: the body frame's world position `data.body(name).xpos`, copied. */
  getBodyCom(name: string): Float64Array {
    const id = this.bodyId(name);
    return this.views.xpos.slice(3 * id, 3 * id + 3);
  }

  /** `np.concatenate([qpos, qvel])`, copied. */
  stateVector(): Float64Array {
    const { qpos, qvel } = this.views;
    return concatenate([qpos, qvel]);
  }

  /** Sets qpos and qvel, then runs mj_forward so that positions, velocities and forces are consistent. */
  setState(qpos: ArrayLike<number>, qvel: ArrayLike<number>): void {
    if (qpos.length !== this.nq || qvel.length !== this.nv) {
      throw new RangeError(
        `setState: expected qpos of ${this.nq} and qvel of ${this.nv} values, got ${qpos.length} and ${qvel.length}`,
      );
    }
    const views = this.views;
    views.qpos.set(qpos);
    views.qvel.set(qvel);
    this.mj.mj_forward(this.model, this.data);
  }

  /**
   * Applies `ctrl` for `nFrames` physics steps. (Gymnasium 0.29 steps `frame_skip` times whatever `n_frames` says;
   * every task passes `frame_skip`, so the two agree.) MuJoCo clamps ctrl to ctrlrange itself, as in Python.
   */
  doSimulation(ctrl: ArrayLike<number>, nFrames: number): void {
    if (ctrl.length !== this.nu)
      throw new RangeError(`Action dimension mismatch. Expected (${this.nu},), found (${ctrl.length},)`);
    const model = this.model;
    const data = this.data;
    const target = this.views.ctrl;
    for (let i = 0; i < this.nu; i++) target[i] = ctrl[i];
    for (let k = 0; k < nFrames; k++) this.mj.mj_step(model, data);
    this.mj.mj_rnePostConstraint(model, data);
  }

  /** `init + U(-scale, scale)` per entry, drawn from the env's generator (`np_random.uniform(-s, s, size=n)`). */
  protected uniformNoise(init: Float64Array, low: number, high: number): Float64Array {
    const rng = this.npRandom;
    const out = new Float64Array(init.length);
    for (let i = 0; i < init.length; i++) out[i] = init[i] + rng.uniform(low, high);
    return out;
  }

  /** `init + scale * N(0, 1)` per entry (`scale * np_random.standard_normal(n)`). */
  protected normalNoise(init: Float64Array, scale: number): Float64Array {
    const rng = this.npRandom;
    const out = new Float64Array(init.length);
    for (let i = 0; i < init.length; i++) out[i] = init[i] + scale * rng.standardNormal();
    return out;
  }

  /** Draws the task's initial state, calls `setState`, and returns the first observation (`reset_model`). */
  protected abstract resetModel(): Float64Array;

  override reset(args: ResetArgs = {}): [Float64Array, Info] {
    super.reset(args);
    this.mj.mj_resetData(this.model, this.data);
    return [this.resetModel(), {}];
  }

  abstract override step(action: ArrayLike<number>): StepResult<Float64Array>;

  /** Frees the mjModel and mjData; safe to call more than once. The env cannot be used afterwards. */
  override close(): void {
    if (this.handles.data === null) return;
    leakGuard.unregister(this);
    deleteHandles(this.handles);
    this.cachedViews = null;
  }
}
