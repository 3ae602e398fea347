// dm_control's `mujoco.Physics` on the project's MuJoCo WASM build (see envs/mujoco/mujoco_env.ts for how the
// module is loaded and the WASM memory rules this follows: views are re-read from mjData after every MuJoCo call and
// never kept; model and data are freed once, by `close()` or a FinalizationRegistry).
//
// What dm_control's Physics does and this repeats:
// - `reset()`: mj_resetData, then mj_forward with actuation disabled ("no meaningful controls yet");
//   `afterReset()`: mj_forward with actuation disabled again, after the task has written its initial state.
// - `step(n)` with `legacy_step` (the suite's default): for Euler and implicit integrators the previous step's
//   mj_step1 (or reset's mj_forward) already holds the position and velocity stages, so a step is mj_step2, then
//   n - 1 full mj_steps, then mj_step1 so that positions, velocities and sensors that depend on them describe the new
//   state; for RK4, n mj_steps then mj_step1.
// - `setControl(action)` copies the action into ctrl (MuJoCo clamps it to ctrlrange where ctrllimited).
// - the action spec: ctrlrange for limited actuators, +-mjMAXVAL (1e10) otherwise.

import type { MainModule, MjData, MjModel } from "@mujoco/mujoco";

import { type Handles, deleteHandles, leakGuard, mujocoModule } from "../mujoco/mujoco_env.ts";

/** MuJoCo's mjMAXVAL: the bound dm_control gives an actuator without a control range. */
export const MJ_MAXVAL = 1e10;

export type ObjectKind = "body" | "joint" | "geom" | "site" | "sensor" | "actuator" | "tendon" | "camera";

const OBJECT_TYPE: Record<ObjectKind, string> = {
  body: "mjOBJ_BODY",
  joint: "mjOBJ_JOINT",
  geom: "mjOBJ_GEOM",
  site: "mjOBJ_SITE",
  sensor: "mjOBJ_SENSOR",
  actuator: "mjOBJ_ACTUATOR",
  tendon: "mjOBJ_TENDON",
  camera: "mjOBJ_CAMERA",
};

/** MuJoCo's joint types (`mjtJoint`). */
export const JOINT_FREE = 0;
export const JOINT_BALL = 1;
export const JOINT_SLIDE = 2;
export const JOINT_HINGE = 3;

/** Compiled models kept for the life of the process, by cache key: see the `cacheKey` option. */
const compiledModels = new Map<string, MjModel>();

/** Whether a model was compiled under `cacheKey` in this process (its XML and assets are then not needed again). */
export function isCompiled(cacheKey: string): boolean {
  return compiledModels.has(cacheKey);
}

export interface PhysicsOptions {
  /**
   * Compile this model once per process: later physics with the same key start from a copy of the first compiled
   * model. For models whose compile is slow (the dog's 173 bone meshes); the key must identify the XML and assets.
   */
  cacheKey?: string;
}

export class Physics {
  readonly mj: MainModule;
  private readonly handles: Handles;
  private readonly ids = new Map<string, number>();
  private readonly rk4: boolean;
  private readonly dataViews = new Map<string, ArrayBufferView>();
  private readonly modelViews = new Map<string, ArrayBufferView>();
  private readonly disableActuation: number;

  /**
   * Compiles an MJCF string. `assets` maps the file names the XML refers to (includes, meshes, textures) to their
   * contents; they are served from a MuJoCo virtual file system, as dm_control passes its assets dict.
   */
  constructor(xml: string, assets: Record<string, Uint8Array | string> = {}, options: PhysicsOptions = {}) {
    this.mj = mujocoModule();
    const mj = this.mj;
    let model: MjModel;
    const names = Object.keys(assets);
    const cached = options.cacheKey === undefined ? undefined : compiledModels.get(options.cacheKey);
    if (cached !== undefined) {
      model = new mj.MjModel(cached);
    } else if (names.length === 0) {
      model = mj.MjModel.from_xml_string(xml);
    } else {
      const vfs = new mj.MjVFS();
      try {
        for (const name of names) {
          const content = assets[name];
          vfs.addBuffer(name, typeof content === "string" ? new TextEncoder().encode(content) : content);
        }
        model = mj.MjModel.from_xml_string(xml, vfs);
      } finally {
        vfs.delete();
      }
    }
    if (options.cacheKey !== undefined && cached === undefined)
      compiledModels.set(options.cacheKey, new mj.MjModel(model));
    let data: MjData;
    try {
      data = new mj.MjData(model);
    } catch (error) {
      model.delete();
      throw error;
    }
    this.handles = { model, data };
    leakGuard.register(this, this.handles, this);
    this.rk4 = model.opt.integrator === mj.mjtIntegrator.mjINT_RK4.value;
    this.disableActuation = mj.mjtDisableBit.mjDSBL_ACTUATION.value;
  }

  get model(): MjModel {
    if (this.handles.model === null) throw new Error("dm_control physics is closed");
    return this.handles.model;
  }

  get data(): MjData {
    if (this.handles.data === null) throw new Error("dm_control physics is closed");
    return this.handles.data;
  }

  get closed(): boolean {
    return this.handles.data === null;
  }

  close(): void {
    if (this.handles.data === null) return;
    leakGuard.unregister(this);
    deleteHandles(this.handles);
    this.dataViews.clear();
    this.modelViews.clear();
  }

  /**
   * A live view of an mjData or mjModel array (`data.qpos`, `model.geom_size`, ...), kept until the WASM heap grows
   * and detaches it (see envs/mujoco/mujoco_env.ts): making the view through the bindings costs more than most
   * of what a task does with it. Read it after every MuJoCo call that may allocate, and never keep it.
   */
  private view(target: "data" | "model", name: string): ArrayBufferView {
    const views = target === "data" ? this.dataViews : this.modelViews;
    let v = views.get(name);
    if (v === undefined || v.buffer.byteLength === 0) {
      const owner = (target === "data" ? this.data : this.model) as unknown as Record<string, ArrayBufferView>;
      v = owner[name];
      views.set(name, v);
    }
    return v;
  }

  /** A float64 mjData array (`data.<name>`), live (see `view`). */
  dataF64(name: string): Float64Array {
    return this.view("data", name) as Float64Array;
  }

  /** A float64 mjModel array (`model.<name>`), live (see `view`). */
  modelF64(name: string): Float64Array {
    return this.view("model", name) as Float64Array;
  }

  /** An int32 mjModel array (`model.<name>`), live (see `view`). */
  modelI32(name: string): Int32Array {
    return this.view("model", name) as Int32Array;
  }

  /** A float32 mjModel array (`model.<name>`), live (see `view`). */
  modelF32(name: string): Float32Array {
    return this.view("model", name) as Float32Array;
  }

  timestep(): number {
    return this.model.opt.timestep;
  }

  time(): number {
    return this.data.time;
  }

  /** The id of a named MuJoCo object; throws for an unknown name. */
  id(kind: ObjectKind, name: string): number {
    const key = `${kind}:${name}`;
    let id = this.ids.get(key);
    if (id === undefined) {
      const type = (this.mj.mjtObj as unknown as Record<string, { value: number }>)[OBJECT_TYPE[kind]].value;
      id = this.mj.mj_name2id(this.model, type, name);
      if (id < 0) throw new Error(`dm_control: the model has no ${kind} named "${name}"`);
      this.ids.set(key, id);
    }
    return id;
  }

  /** Address of a joint's first qpos entry (`named.data.qpos[joint]`). */
  qposAddress(joint: string): number {
    return this.modelI32("jnt_qposadr")[this.id("joint", joint)];
  }

  /** Address of a joint's first qvel entry. */
  qvelAddress(joint: string): number {
    return this.modelI32("jnt_dofadr")[this.id("joint", joint)];
  }

  /** A copy of a named sensor's readings (`named.data.sensordata[name]`). */
  sensor(name: string): Float64Array {
    const id = this.id("sensor", name);
    const model = this.model;
    const adr = (model.sensor_adr as Int32Array)[id];
    const dim = (model.sensor_dim as Int32Array)[id];
    return this.dataF64("sensordata").slice(adr, adr + dim);
  }

  /** `named.data.<field>[name]` for a per-object array with `width` columns, copied. */
  row(field: Float64Array, kind: ObjectKind, name: string, width: number): Float64Array {
    const id = this.id(kind, name);
    return field.slice(width * id, width * id + width);
  }

  /** A copy of qpos (`physics.position()`). */
  position(): Float64Array {
    return this.dataF64("qpos").slice();
  }

  /** A copy of qvel (`physics.velocity()`). */
  velocity(): Float64Array {
    return this.dataF64("qvel").slice();
  }

  /** A copy of ctrl (`physics.control()`). */
  control(): Float64Array {
    return this.dataF64("ctrl").slice();
  }

  setControl(action: ArrayLike<number>): void {
    const ctrl = this.dataF64("ctrl");
    if (action.length !== ctrl.length)
      throw new RangeError(`dm_control: expected an action of ${ctrl.length} values, got ${action.length}`);
    for (let i = 0; i < ctrl.length; i++) ctrl[i] = action[i];
  }

  forward(): void {
    this.mj.mj_forward(this.model, this.data);
  }

  private forwardWithoutActuation(): void {
    const opt = this.model.opt;
    const flags = opt.disableflags;
    opt.disableflags = flags | this.disableActuation;
    try {
      this.forward();
    } finally {
      opt.disableflags = flags;
    }
  }

  reset(): void {
    this.mj.mj_resetData(this.model, this.data);
    this.forwardWithoutActuation();
  }

  afterReset(): void {
    this.forwardWithoutActuation();
  }

  step(nSubSteps = 1): void {
    const mj = this.mj;
    const model = this.model;
    const data = this.data;
    if (this.rk4) {
      for (let i = 0; i < nSubSteps; i++) mj.mj_step(model, data);
    } else {
      mj.mj_step2(model, data);
      for (let i = 1; i < nSubSteps; i++) mj.mj_step(model, data);
    }
    mj.mj_step1(model, data);
  }

  /**
   * dm_control's `mujoco.action_spec(physics)`: per-actuator bounds. The WASM build cannot read mjModel's boolean
   * arrays (`actuator_ctrllimited` throws an unknown-type binding error), so an actuator counts as limited when its
   * ctrlrange is a non-empty interval: the compiler leaves the range at (0, 0) for an unlimited one, and no suite
   * model gives a range to an actuator that it declares unlimited.
   */
  actionBounds(): { low: Float64Array; high: Float64Array } {
    const model = this.model;
    const nu = model.nu;
    const range = model.actuator_ctrlrange as Float64Array;
    const low = new Float64Array(nu).fill(-MJ_MAXVAL);
    const high = new Float64Array(nu).fill(MJ_MAXVAL);
    for (let i = 0; i < nu; i++) {
      if (range[2 * i] < range[2 * i + 1]) {
        low[i] = range[2 * i];
        high[i] = range[2 * i + 1];
      }
    }
    return { low, high };
  }
}
