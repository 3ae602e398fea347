// dm_control's dog domain (suite/dog.py): stand, walk (1 m/s), trot (3 m/s), run (9 m/s), fetch. 15 s episodes,
// actions every 0.015 s (3 physics steps).
//
// The dog's model (dog.xml, 84 kB, with 42 MB of bone meshes, skin and textures in dog_assets/) is not committed:
// it is read from dm_control's suite folder on the user's machine, found as the ROMs are: the DM_CONTROL_SUITE_DIR
// environment variable (a folder with dog.xml and dog_assets/: dm_control's `dm_control/suite`), else the
// suite folder of an installed Python `dm_control` package (asked from `python3`). The model is edited as
// `make_model` edits it: the floor's half-size becomes speed times time limit (15 m for stand and walk, 45, 135; 10
// for fetch), and every task but fetch loses the ball, target, walls and the two ball cameras.
//
// Initial state (after a physics reset): the stand heights are 0.9 times the torso's and pelvis's heights of the
// reset pose and the body weight is gravity times the torso subtree's mass; the root turns by an azimuth U(0, 2 pi)
// about z, the root's x, y and yaw velocities are 2 N(0, 1), each actuator's activation U(its ctrlrange). Fetch
// then throws the ball from 0.75 floor sizes away at that azimuth: up to a height U(0, 3), at a speed U(0, 5) toward
// the middle (direction perturbed by 0.05 N(0, 1) in x and y).
// Observation: joint_angles and joint_velocites (dm_control's spelling) of the hinges, torso_pelvis_height,
// z_projection (the z rows of skull, torso and pelvis), torso_com_velocity (in the torso frame), inertial_sensors,
// foot_forces, touch_sensors, actuator_state; fetch adds ball_state (ball position and velocity relative to the
// head, in its frame) and target_position (in the head frame).
// Reward: the product of the reward factors: torso and pelvis height (Gaussian, 1 from the stand heights), upright
// (linear, per body, 1 within 30 degrees), touch (linear in the summed touch sensors, 1 from the body weight);
// move tasks add (4 forward + 1) / 5 (1 between the speed and twice it); fetch adds reach_ball ((6 r + 1) / 7,
// reciprocal in the mouth-to-ball distance, 1 once the ball is at the target) and fetch_ball ((near + 1) / 2).

import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

import { Environment, type Observation, Task } from "./control.ts";
import { norm, prod, removeElement } from "./common.ts";
import { JOINT_HINGE, Physics, isCompiled } from "./physics.ts";
import type { RandomState } from "./random_state.ts";
import { tolerance, toleranceArray } from "./rewards.ts";

const TIME_LIMIT = 15;
const CONTROL_TIMESTEP = 0.015;
const MIN_UPRIGHT_COSINE = Math.cos(30 * (Math.PI / 180));
const STAND_HEIGHT_FRACTION = 0.9;
const SPEEDS: Record<string, number> = { stand: 1, walk: 1, trot: 3, run: 9 };

function pythonSuiteDir(): string | null {
  try {
    const out = execFileSync(
      "python3",
      ["-c", "import os, dm_control.suite as s; print(os.path.dirname(s.__file__))"],
      { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 20000 },
    ).trim();
    return out === "" ? null : out;
  } catch {
    return null;
  }
}

/** dm_control's suite folder (for the dog's model) was not found. */
export class DogModelNotFoundError extends Error {}

/** The folder holding dm_control's dog.xml and dog_assets/, or an error that says where it looked. */
export function findSuiteDir(env: NodeJS.ProcessEnv = process.env): string {
  const searched: string[] = [];
  const candidates: [string, () => string | null][] = [
    ["DM_CONTROL_SUITE_DIR", () => env.DM_CONTROL_SUITE_DIR ?? null],
    ["python3 dm_control", pythonSuiteDir],
  ];
  for (const [label, dirOf] of candidates) {
    const dir = dirOf();
    if (dir === null || dir === "") continue;
    searched.push(`${dir} (${label})`);
    if (existsSync(join(dir, "dog.xml")) && existsSync(join(dir, "dog_assets"))) return dir;
  }
  throw new DogModelNotFoundError(
    `dm_control dog: the dog's model (dm_control's suite/dog.xml and dog_assets/) was not found; searched ${
      searched.length === 0 ? "nothing (no DM_CONTROL_SUITE_DIR, no Python dm_control)" : searched.join(", ")
    }. Set DM_CONTROL_SUITE_DIR to dm_control's dm_control/suite folder.`,
  );
}

/** dog.xml as `make_model(floor_size, remove_ball)` edits it, and the files it includes and loads. */
export function dogModel(
  floorSize: number,
  removeBall: boolean,
  suiteDir = findSuiteDir(),
): { xml: string; assets: Record<string, Uint8Array> } {
  let xml = readFileSync(join(suiteDir, "dog.xml"), "utf8");
  xml = xml.replace(/(<geom name="floor"[^>]*size=")[^"]*"/, `$1${floorSize} ${floorSize} .1"`);
  if (removeBall) {
    xml = removeElement(xml, "body", "ball");
    xml = removeElement(xml, "geom", "target");
    xml = removeElement(xml, "camera", "ball");
    xml = removeElement(xml, "camera", "head");
    for (const wall of ["px", "nx", "py", "ny"]) xml = removeElement(xml, "geom", `wall_${wall}`);
  }
  // Visual-only parts (the included skybox, materials and visual settings, textures, materials, the skin) are left
  // out: this build has no renderer, and decoding the skin and its texture would only slow the compile down.
  xml = xml
    .replace(/<include [^>]*\/>/g, "")
    .replace(/<(texture|material|skin) [^>]*\/>/g, "")
    .replace(/ material="[^"]*"/g, "");
  const assets: Record<string, Uint8Array> = {};
  const assetDir = join(suiteDir, "dog_assets");
  for (const name of readdirSync(assetDir)) {
    const path = join(assetDir, name);
    if (name.endsWith(".stl") && statSync(path).isFile()) assets[name] = readFileSync(path);
  }
  return { xml, assets };
}

export class DogPhysics extends Physics {
  private readonly hingeQpos: number[];
  private readonly hingeQvel: number[];
  private readonly velocityBuffer;

  constructor(xml: string, assets: Record<string, Uint8Array>, cacheKey?: string) {
    super(xml, assets, { cacheKey });
    const model = this.model;
    const types = model.jnt_type as Int32Array;
    const qposAdr = model.jnt_qposadr as Int32Array;
    const dofAdr = model.jnt_dofadr as Int32Array;
    this.hingeQpos = [];
    this.hingeQvel = [];
    for (let j = 0; j < model.njnt; j++) {
      if (types[j] === JOINT_HINGE) {
        this.hingeQpos.push(qposAdr[j]);
        this.hingeQvel.push(dofAdr[j]);
      }
    }
    this.velocityBuffer = new this.mj.DoubleBuffer(6);
  }

  override close(): void {
    this.velocityBuffer.delete();
    super.close();
  }

  private z(body: string): number {
    return this.dataF64("xpos")[3 * this.id("body", body) + 2];
  }

  torsoPelvisHeight(): Float64Array {
    return Float64Array.of(this.z("torso"), this.z("pelvis"));
  }

  zProjection(): Float64Array {
    const xmat = this.dataF64("xmat");
    const out = new Float64Array(9);
    ["skull", "torso", "pelvis"].forEach((body, i) => {
      const b = this.id("body", body);
      out.set(xmat.subarray(9 * b + 6, 9 * b + 9), 3 * i);
    });
    return out;
  }

  upright(): Float64Array {
    const z = this.zProjection();
    return Float64Array.of(z[2], z[5], z[8]);
  }

  torsoComVelocity(): Float64Array {
    const v = this.sensor("torso_linvel");
    return this.inFrame(v, this.dataF64("xmat"), 9 * this.id("body", "torso"));
  }

  private inFrame(v: ArrayLike<number>, m: Float64Array, offset: number): Float64Array {
    const out = new Float64Array(3);
    for (let j = 0; j < 3; j++) out[j] = v[0] * m[offset + j] + v[1] * m[offset + 3 + j] + v[2] * m[offset + 6 + j];
    return out;
  }

  jointAngles(): Float64Array {
    const qpos = this.dataF64("qpos");
    return Float64Array.from(this.hingeQpos, (a) => qpos[a]);
  }

  jointVelocities(): Float64Array {
    const qvel = this.dataF64("qvel");
    return Float64Array.from(this.hingeQvel, (a) => qvel[a]);
  }

  private sensors(names: readonly string[]): Float64Array {
    return Float64Array.from(names.flatMap((name) => Array.from(this.sensor(name))));
  }

  inertialSensors(): Float64Array {
    return this.sensors(["accelerometer", "velocimeter", "gyro"]);
  }

  touchSensors(): Float64Array {
    return this.sensors(["palm_L", "palm_R", "sole_L", "sole_R"]);
  }

  footForces(): Float64Array {
    return this.sensors(["foot_L", "foot_R", "hand_L", "hand_R"]);
  }

  /** dm_control's `data.object_velocity(name, kind)`: the linear velocity (mj_objectVelocity's last three). */
  private linearVelocity(kind: "site" | "geom", name: string): Float64Array {
    const type = kind === "site" ? this.mj.mjtObj.mjOBJ_SITE.value : this.mj.mjtObj.mjOBJ_GEOM.value;
    this.mj.mj_objectVelocity(this.model, this.data, type, this.id(kind, name), this.velocityBuffer, 0);
    return (this.velocityBuffer.GetView() as Float64Array).slice(3, 6);
  }

  private headRelative(point: ArrayLike<number>): Float64Array {
    const head = this.id("site", "head");
    const pos = this.dataF64("site_xpos");
    const v = [0, 1, 2].map((i) => point[i] - pos[3 * head + i]);
    return this.inFrame(v, this.dataF64("site_xmat"), 9 * head);
  }

  private geomPos(name: string): Float64Array {
    const g = this.id("geom", name);
    return this.dataF64("geom_xpos").slice(3 * g, 3 * g + 3);
  }

  ballInHeadFrame(): Float64Array {
    const toBall = this.headRelative(this.geomPos("ball"));
    const headVel = this.linearVelocity("site", "head");
    const ballVel = this.linearVelocity("geom", "ball");
    const relVel = [0, 1, 2].map((i) => ballVel[i] - headVel[i]);
    const head = this.id("site", "head");
    return Float64Array.from([...toBall, ...this.inFrame(relVel, this.dataF64("site_xmat"), 9 * head)]);
  }

  targetInHeadFrame(): Float64Array {
    return this.headRelative(this.geomPos("target"));
  }

  ballToMouthDistance(): number {
    const ball = this.geomPos("ball");
    const site = this.dataF64("site_xpos");
    const dist = (name: string) => {
      const s = this.id("site", name);
      return norm([0, 1, 2].map((i) => ball[i] - site[3 * s + i]));
    };
    return 0.5 * (dist("upper_bite") + dist("lower_bite"));
  }

  ballToTargetDistance(): number {
    const ball = this.geomPos("ball");
    const target = this.geomPos("target");
    return norm([0, 1, 2].map((i) => ball[i] - target[i]));
  }
}

export class Stand extends Task<DogPhysics> {
  protected standHeight = new Float64Array(2);
  protected bodyWeight = 0;

  initializeEpisode(physics: DogPhysics): void {
    physics.reset();
    this.standHeight = physics.torsoPelvisHeight().map((h) => h * STAND_HEIGHT_FRACTION);
    const model = physics.model;
    const bodyMass = (model.body_subtreemass as Float64Array)[physics.id("body", "torso")];
    this.bodyWeight = -(model.opt.gravity as Float64Array)[2] * bodyMass;
    const azimuth = this.random.uniform(0, 2 * Math.PI);
    const root = physics.qposAddress("root");
    const qpos = physics.dataF64("qpos");
    qpos.set([Math.cos(azimuth / 2), 0, 0, Math.sin(azimuth / 2)], root + 3);
    for (const i of [0, 1, 5]) physics.dataF64("qvel")[i] = 2 * this.random.randn();
    const ctrlrange = model.actuator_ctrlrange as Float64Array;
    for (let a = 0; a < model.nu; a++)
      physics.dataF64("act")[a] = this.random.uniform(ctrlrange[2 * a], ctrlrange[2 * a + 1]);
  }

  getObservation(physics: DogPhysics): Observation {
    return new Map([
      ["joint_angles", physics.jointAngles()],
      ["joint_velocites", physics.jointVelocities()],
      ["torso_pelvis_height", physics.torsoPelvisHeight()],
      ["z_projection", physics.zProjection()],
      ["torso_com_velocity", physics.torsoComVelocity()],
      ["inertial_sensors", physics.inertialSensors()],
      ["foot_forces", physics.footForces()],
      ["touch_sensors", physics.touchSensors()],
      ["actuator_state", physics.dataF64("act").slice()],
    ]);
  }

  rewardFactors(physics: DogPhysics): number[] {
    const [torsoHeight, pelvisHeight] = physics.torsoPelvisHeight();
    const torso = tolerance(torsoHeight, {
      bounds: [this.standHeight[0], Number.POSITIVE_INFINITY],
      margin: this.standHeight[0],
    });
    const pelvis = tolerance(pelvisHeight, {
      bounds: [this.standHeight[1], Number.POSITIVE_INFINITY],
      margin: this.standHeight[1],
    });
    const upright = toleranceArray(physics.upright(), {
      bounds: [MIN_UPRIGHT_COSINE, Number.POSITIVE_INFINITY],
      sigmoid: "linear",
      margin: MIN_UPRIGHT_COSINE + 1,
      valueAtMargin: 0,
    });
    const touchSum = physics.touchSensors().reduce((a, b) => a + b, 0);
    const touch = tolerance(touchSum, {
      bounds: [this.bodyWeight, Number.POSITIVE_INFINITY],
      margin: this.bodyWeight,
      sigmoid: "linear",
      valueAtMargin: 0.9,
    });
    return [torso, pelvis, ...upright, touch];
  }

  getReward(physics: DogPhysics): number {
    return prod(this.rewardFactors(physics));
  }
}

export class Move extends Stand {
  constructor(
    readonly moveSpeed: number,
    random?: RandomState | number,
  ) {
    super(random);
  }

  override rewardFactors(physics: DogPhysics): number[] {
    const forward = tolerance(physics.torsoComVelocity()[0], {
      bounds: [this.moveSpeed, 2 * this.moveSpeed],
      margin: Math.max(1.0, this.moveSpeed),
      valueAtMargin: 0,
      sigmoid: "linear",
    });
    return [...super.rewardFactors(physics), (4 * forward + 1) / 5];
  }
}

export class Fetch extends Stand {
  override initializeEpisode(physics: DogPhysics): void {
    super.initializeEpisode(physics);
    const model = physics.model;
    const radius = 0.75 * (model.geom_size as Float64Array)[3 * physics.id("geom", "floor")];
    const azimuth = this.random.uniform(0, 2 * Math.PI);
    const ballRoot = physics.qposAddress("ball_root");
    physics.dataF64("qpos").set([radius * Math.sin(azimuth), radius * Math.cos(azimuth), 0.05], ballRoot);
    const verticalHeight = this.random.uniform(0, 3);
    const gravity = -(model.opt.gravity as Float64Array)[2];
    const verticalVelocity = Math.sqrt(2 * gravity * verticalHeight);
    const horizontalSpeed = this.random.uniform(0, 5);
    const dx = -Math.sin(azimuth) + 0.05 * this.random.randn();
    const dy = -Math.cos(azimuth) + 0.05 * this.random.randn();
    const ballVel = physics.qvelAddress("ball_root");
    physics.dataF64("qvel").set([horizontalSpeed * dx, horizontalSpeed * dy, verticalVelocity], ballVel);
  }

  override getObservation(physics: DogPhysics): Observation {
    const obs = super.getObservation(physics);
    obs.set("ball_state", physics.ballInHeadFrame());
    obs.set("target_position", physics.targetInHeadFrame());
    return obs;
  }

  override rewardFactors(physics: DogPhysics): number[] {
    const model = physics.model;
    const siteSize = model.site_size as Float64Array;
    const geomSize = model.geom_size as Float64Array;
    const biteRadius = siteSize[3 * physics.id("site", "upper_bite")];
    let reachBall = tolerance(physics.ballToMouthDistance(), {
      bounds: [0, biteRadius],
      sigmoid: "reciprocal",
      margin: 2,
    });
    reachBall = (6 * reachBall + 1) / 7;
    const targetRadius = geomSize[3 * physics.id("geom", "target")];
    const bringMargin = geomSize[3 * physics.id("geom", "floor")];
    const nearTarget = tolerance(physics.ballToTargetDistance(), {
      bounds: [0, targetRadius],
      sigmoid: "reciprocal",
      margin: bringMargin,
    });
    const fetchBall = (nearTarget + 1) / 2;
    if (physics.ballToTargetDistance() < 2 * targetRadius) reachBall = 1;
    return [...super.rewardFactors(physics), reachBall, fetchBall];
  }
}

export const DOG_TASKS = ["stand", "walk", "trot", "run", "fetch"];

export function loadDog(task: string, random?: RandomState | number): Environment<DogPhysics> {
  const fetch = task === "fetch";
  const floorSize = fetch ? 10 : SPEEDS[task] * TIME_LIMIT;
  const suiteDir = findSuiteDir();
  const cacheKey = `dog:${suiteDir}:${floorSize}:${!fetch}`;
  const { xml, assets } = isCompiled(cacheKey) ? { xml: "", assets: {} } : dogModel(floorSize, !fetch, suiteDir);
  const physics = new DogPhysics(xml, assets, cacheKey);
  const t = fetch ? new Fetch(random) : task === "stand" ? new Stand(random) : new Move(SPEEDS[task], random);
  return new Environment(physics, t, { timeLimit: TIME_LIMIT, controlTimestep: CONTROL_TIMESTEP });
}
