// dm_control's quadruped domain (suite/quadruped.py): walk (0.5 m/s), run (5 m/s), fetch. 20 s episodes, actions
// every 0.02 s (4 physics steps), and escape.
// Model: `assets/quadruped.xml` as `make_model` edits it: walk and run have a floor of half-size time limit times
// speed (10 m, 100 m) and no walls, ball, target or terrain; fetch keeps the walls, ball and target; no task here
// keeps the terrain geom or the rangefinders but escape (40 m floor, no walls or ball).
// Escape's terrain: a bowl 0.5 - cos(2 pi r) / 2 over the heightfield's grid (r the distance from the middle in
// [-1, 1] units, clipped to [0.04, 1]) times a bump map: U(0.15, 1) on a 30 x 30 grid, zoomed to the heightfield's
// 201 x 201 by SciPy's cubic spline (spline_zoom.ts).
// Initial state: walk, run and escape, a random orientation (randn(4) normalized); fetch, a random heading U(0, 2 pi) about
// z at a position U(+-0.9 floor size) in x and y, the ball at U(+-0.9 floor size) in x and y, 2 m up, with x and y
// velocities 5 N(0, 1). The body is dropped from the lowest height, in steps of 1 cm from 0, at which nothing
// touches (each try resets the physics and runs an actuation-free mj_forward).
// Observation: egocentric_state (hinge positions, hinge velocities, actuator activations), torso_velocity (the
// velocimeter), torso_upright (torso zz), imu (gyro and accelerometer sensors in sensor order), force_torque
// (arcsinh of the force and torque sensors); escape adds origin (the world origin in the torso frame) and
// rangefinder (tanh of each of the 20 readings, 1 where the ray hits nothing); fetch adds ball_state (ball position, velocity relative to the torso
// and angular velocity, each in the torso frame) and target_position (in the torso frame).
// Reward: upright (linear tolerance of zz: 1 from 1, 0 at -1; for escape 1 within 20 degrees) times, for walk and
// run, the forward velocity's linear tolerance (1 from the speed, 0.5 at 0); for escape, the linear tolerance of
// the workspace's distance from the origin (1 from the terrain's half-size 30 m, 0 at 0); for fetch, reach (workspace-to-ball distance in the plane, 1
// within the workspace and ball radii, 0 at the arena's radius) times (0.5 + 0.5 fetch) with fetch the same for
// the ball-to-target distance and the target's radius.

import { Environment, type Observation, Task } from "./control.ts";
import { norm, readModel, removeElement } from "./common.ts";
import { JOINT_HINGE, Physics } from "./physics.ts";
import type { RandomState } from "./random_state.ts";
import { tolerance } from "./rewards.ts";
import { zoom2d } from "./spline_zoom.ts";

const TIME_LIMIT = 20;
const CONTROL_TIMESTEP = 0.02;
const RUN_SPEED = 5;
const WALK_SPEED = 0.5;
const WALLS = ["wall_px", "wall_py", "wall_nx", "wall_ny"];
// mjtSensor values.
const SENS_ACCELEROMETER = 1;
const SENS_GYRO = 3;
const SENS_FORCE = 4;
const SENS_TORQUE = 5;
const SENS_RANGEFINDER = 7;
const HEIGHTFIELD_ID = 0;
const TERRAIN_SMOOTHNESS = 0.15;
const TERRAIN_BUMP_SCALE = 2;

/** The quadruped model as `make_model(floor_size, terrain, rangefinders, walls_and_ball)` builds it. */
export function quadrupedModel(
  floorSize: number | null,
  wallsAndBall: boolean,
  terrainAndRangefinders = false,
): string {
  let xml = readModel("quadruped.xml");
  if (floorSize !== null) xml = xml.replace(/(<geom name="floor"[^>]*size=")[^"]*"/, `$1${floorSize} ${floorSize} .5"`);
  if (!wallsAndBall) {
    for (const wall of WALLS) xml = removeElement(xml, "geom", wall);
    xml = removeElement(xml, "body", "ball");
    xml = removeElement(xml, "site", "target");
  }
  if (terrainAndRangefinders) return xml;
  xml = removeElement(xml, "geom", "terrain");
  return xml.replace(/<rangefinder[^>]*\/>/g, "");
}

/** `v . M` for a 3-vector and a row-major 3x3 matrix stored at `m[offset..]`. */
function dotFrame(v: ArrayLike<number>, m: Float64Array, offset: number): Float64Array {
  const out = new Float64Array(3);
  for (let j = 0; j < 3; j++) out[j] = v[0] * m[offset + j] + v[1] * m[offset + 3 + j] + v[2] * m[offset + 6 + j];
  return out;
}

export class QuadrupedPhysics extends Physics {
  private readonly torso = this.id("body", "torso");
  private readonly hinges: number[];
  private readonly imuSensors: number[];
  private readonly forceTorqueSensors: number[];
  private readonly rangefinderSensors: number[];

  constructor(xml: string) {
    super(xml);
    const types = this.modelI32("jnt_type");
    this.hinges = [];
    for (let j = 0; j < this.model.njnt; j++) if (types[j] === JOINT_HINGE) this.hinges.push(j);
    const sensorTypes = this.modelI32("sensor_type");
    const ofTypes = (...kinds: number[]) => {
      const ids: number[] = [];
      for (let s = 0; s < this.model.nsensor; s++) if (kinds.includes(sensorTypes[s])) ids.push(s);
      return ids;
    };
    this.imuSensors = ofTypes(SENS_GYRO, SENS_ACCELEROMETER);
    this.forceTorqueSensors = ofTypes(SENS_FORCE, SENS_TORQUE);
    this.rangefinderSensors = ofTypes(SENS_RANGEFINDER);
  }

  private sensorValues(ids: readonly number[], f: (x: number) => number = (x) => x): Float64Array {
    const adr = this.modelI32("sensor_adr");
    const dim = this.modelI32("sensor_dim");
    const data = this.dataF64("sensordata");
    const out: number[] = [];
    for (const s of ids) for (let i = 0; i < dim[s]; i++) out.push(f(data[adr[s] + i]));
    return Float64Array.from(out);
  }

  torsoUpright(): number {
    return this.dataF64("xmat")[9 * this.torso + 8];
  }

  torsoVelocity(): Float64Array {
    return this.sensor("velocimeter");
  }

  egocentricState(): Float64Array {
    const qpos = this.dataF64("qpos");
    const qvel = this.dataF64("qvel");
    const qposAdr = this.modelI32("jnt_qposadr");
    const dofAdr = this.modelI32("jnt_dofadr");
    return Float64Array.from([
      ...this.hinges.map((j) => qpos[qposAdr[j]]),
      ...this.hinges.map((j) => qvel[dofAdr[j]]),
      ...this.dataF64("act"),
    ]);
  }

  forceTorque(): Float64Array {
    return this.sensorValues(this.forceTorqueSensors, Math.asinh);
  }

  imu(): Float64Array {
    return this.sensorValues(this.imuSensors);
  }

  rangefinder(): Float64Array {
    return this.sensorValues(this.rangefinderSensors, (r) => (r === -1.0 ? 1.0 : Math.tanh(r)));
  }

  originDistance(): number {
    const site = this.dataF64("site_xpos");
    const w = this.id("site", "workspace");
    return norm([site[3 * w], site[3 * w + 1], site[3 * w + 2]]);
  }

  /** The world origin in the torso's frame: -(torso position . torso frame). */
  origin(): Float64Array {
    const xpos = this.dataF64("xpos");
    return this.inTorsoFrame([0, 1, 2].map((i) => xpos[3 * this.torso + i])).map((v) => -v);
  }

  /** A world vector in the torso's frame. */
  private inTorsoFrame(v: ArrayLike<number>): Float64Array {
    return dotFrame(v, this.dataF64("xmat"), 9 * this.torso);
  }

  ballState(): Float64Array {
    const xpos = this.dataF64("xpos");
    const qvel = this.dataF64("qvel");
    const ball = this.id("body", "ball");
    const ballVel = this.qvelAddress("ball_root");
    const rootVel = this.qvelAddress("root");
    const relPos = [0, 1, 2].map((i) => xpos[3 * ball + i] - xpos[3 * this.torso + i]);
    const relVel = [0, 1, 2].map((i) => qvel[ballVel + i] - qvel[rootVel + i]);
    const rotVel = [3, 4, 5].map((i) => qvel[ballVel + i]);
    return Float64Array.from([
      ...this.inTorsoFrame(relPos),
      ...this.inTorsoFrame(relVel),
      ...this.inTorsoFrame(rotVel),
    ]);
  }

  targetPosition(): Float64Array {
    const site = this.dataF64("site_xpos");
    const xpos = this.dataF64("xpos");
    const target = this.id("site", "target");
    return this.inTorsoFrame([0, 1, 2].map((i) => site[3 * target + i] - xpos[3 * this.torso + i]));
  }

  ballToTargetDistance(): number {
    const site = this.dataF64("site_xpos");
    const xpos = this.dataF64("xpos");
    const target = this.id("site", "target");
    const ball = this.id("body", "ball");
    return norm([site[3 * target] - xpos[3 * ball], site[3 * target + 1] - xpos[3 * ball + 1]]);
  }

  selfToBallDistance(): number {
    const site = this.dataF64("site_xpos");
    const xpos = this.dataF64("xpos");
    const workspace = this.id("site", "workspace");
    const ball = this.id("body", "ball");
    return norm([site[3 * workspace] - xpos[3 * ball], site[3 * workspace + 1] - xpos[3 * ball + 1]]);
  }
}

/** `_find_non_contacting_height`: the lowest drop height, in 1 cm steps from 0, at which nothing touches. */
function findNonContactingHeight(physics: QuadrupedPhysics, orientation: ArrayLike<number>, x = 0, y = 0): void {
  let z = 0.0;
  let attempts = 0;
  let contacts = 1;
  const root = physics.qposAddress("root");
  while (contacts > 0) {
    physics.reset();
    const qpos = physics.dataF64("qpos");
    qpos[root] = x;
    qpos[root + 1] = y;
    qpos[root + 2] = z;
    for (let i = 0; i < 4; i++) qpos[root + 3 + i] = orientation[i];
    physics.afterReset();
    contacts = physics.data.ncon;
    z += 0.01;
    attempts += 1;
    if (attempts > 10000) throw new Error("Failed to find a non-contacting configuration.");
  }
}

function commonObservations(physics: QuadrupedPhysics): Observation {
  return new Map<string, Float64Array | number>([
    ["egocentric_state", physics.egocentricState()],
    ["torso_velocity", physics.torsoVelocity()],
    ["torso_upright", physics.torsoUpright()],
    ["imu", physics.imu()],
    ["force_torque", physics.forceTorque()],
  ]);
}

function uprightReward(physics: QuadrupedPhysics, deviationAngle = 0): number {
  const deviation = Math.cos(deviationAngle * (Math.PI / 180));
  return tolerance(physics.torsoUpright(), {
    bounds: [deviation, Number.POSITIVE_INFINITY],
    sigmoid: "linear",
    margin: 1 + deviation,
    valueAtMargin: 0,
  });
}

function randomOrientation(random: RandomState): Float64Array {
  const q = random.randnArray(4);
  const n = norm(q);
  return q.map((v) => v / n);
}

export class Move extends Task<QuadrupedPhysics> {
  constructor(
    readonly desiredSpeed: number,
    random?: RandomState | number,
  ) {
    super(random);
  }

  initializeEpisode(physics: QuadrupedPhysics): void {
    findNonContactingHeight(physics, randomOrientation(this.random));
  }

  getObservation(physics: QuadrupedPhysics): Observation {
    return commonObservations(physics);
  }

  getReward(physics: QuadrupedPhysics): number {
    const move = tolerance(physics.torsoVelocity()[0], {
      bounds: [this.desiredSpeed, Number.POSITIVE_INFINITY],
      margin: this.desiredSpeed,
      valueAtMargin: 0.5,
      sigmoid: "linear",
    });
    return uprightReward(physics) * move;
  }
}

export class Escape extends Task<QuadrupedPhysics> {
  initializeEpisode(physics: QuadrupedPhysics): void {
    const model = physics.model;
    const res = (model.hfield_nrow as Int32Array)[HEIGHTFIELD_ID];
    if (res !== (model.hfield_ncol as Int32Array)[HEIGHTFIELD_ID])
      throw new Error("escape: the heightfield is not square");
    // np.ogrid[-1:1:res*1j]: start + i * step with step = 2 / (res - 1).
    const step = 2 / (res - 1);
    const grid = Float64Array.from({ length: res }, (_, i) => i * step + -1);
    const terrainSize = 2 * (model.hfield_size as Float64Array)[4 * HEIGHTFIELD_ID];
    const bumpRes = Math.trunc(terrainSize / TERRAIN_BUMP_SCALE);
    const bumps = this.random.uniformArray(TERRAIN_SMOOTHNESS, 1, bumpRes * bumpRes);
    const [smooth] = zoom2d(bumps, bumpRes, bumpRes, res / bumpRes);
    const start = (model.hfield_adr as Int32Array)[HEIGHTFIELD_ID];
    const data = model.hfield_data as Float32Array;
    for (let r = 0; r < res; r++) {
      for (let c = 0; c < res; c++) {
        const radius = Math.min(Math.max(Math.sqrt(grid[c] ** 2 + grid[r] ** 2), 0.04), 1);
        const bowl = 0.5 - Math.cos(2 * Math.PI * radius) / 2;
        data[start + r * res + c] = bowl * smooth[r * res + c];
      }
    }
    findNonContactingHeight(physics, randomOrientation(this.random));
  }

  getObservation(physics: QuadrupedPhysics): Observation {
    const obs = commonObservations(physics);
    obs.set("origin", physics.origin());
    obs.set("rangefinder", physics.rangefinder());
    return obs;
  }

  getReward(physics: QuadrupedPhysics): number {
    const terrainSize = physics.modelF64("hfield_size")[4 * HEIGHTFIELD_ID];
    const escapeReward = tolerance(physics.originDistance(), {
      bounds: [terrainSize, Number.POSITIVE_INFINITY],
      margin: terrainSize,
      valueAtMargin: 0,
      sigmoid: "linear",
    });
    return uprightReward(physics, 20) * escapeReward;
  }
}

export class Fetch extends Task<QuadrupedPhysics> {
  initializeEpisode(physics: QuadrupedPhysics): void {
    const azimuth = this.random.uniform(0, 2 * Math.PI);
    const orientation = [Math.cos(azimuth / 2), 0, 0, Math.sin(azimuth / 2)];
    const floor = physics.id("geom", "floor");
    const spawnRadius = 0.9 * physics.modelF64("geom_size")[3 * floor];
    const [x, y] = this.random.uniformArray(-spawnRadius, spawnRadius, 2);
    findNonContactingHeight(physics, orientation, x, y);
    const ballPos = this.random.uniformArray(-spawnRadius, spawnRadius, 2);
    const ballRoot = physics.qposAddress("ball_root");
    const qpos = physics.dataF64("qpos");
    qpos[ballRoot] = ballPos[0];
    qpos[ballRoot + 1] = ballPos[1];
    qpos[ballRoot + 2] = 2;
    const velocity = this.random.randnArray(2);
    const ballVel = physics.qvelAddress("ball_root");
    const qvel = physics.dataF64("qvel");
    qvel[ballVel] = 5 * velocity[0];
    qvel[ballVel + 1] = 5 * velocity[1];
  }

  getObservation(physics: QuadrupedPhysics): Observation {
    const obs = commonObservations(physics);
    obs.set("ball_state", physics.ballState());
    obs.set("target_position", physics.targetPosition());
    return obs;
  }

  getReward(physics: QuadrupedPhysics): number {
    const model = physics.model;
    const geomSize = model.geom_size as Float64Array;
    const siteSize = model.site_size as Float64Array;
    const arenaRadius = geomSize[3 * physics.id("geom", "floor")] * Math.SQRT2;
    const workspaceRadius = siteSize[3 * physics.id("site", "workspace")];
    const ballRadius = geomSize[3 * physics.id("geom", "ball")];
    const reach = tolerance(physics.selfToBallDistance(), {
      bounds: [0, workspaceRadius + ballRadius],
      sigmoid: "linear",
      margin: arenaRadius,
      valueAtMargin: 0,
    });
    const targetRadius = siteSize[3 * physics.id("site", "target")];
    const fetch = tolerance(physics.ballToTargetDistance(), {
      bounds: [0, targetRadius],
      sigmoid: "linear",
      margin: arenaRadius,
      valueAtMargin: 0,
    });
    return uprightReward(physics) * (reach * (0.5 + 0.5 * fetch));
  }
}

export const QUADRUPED_TASKS = ["walk", "run", "escape", "fetch"];

export function loadQuadruped(task: string, random?: RandomState | number): Environment<QuadrupedPhysics> {
  const options = { timeLimit: TIME_LIMIT, controlTimestep: CONTROL_TIMESTEP };
  if (task === "escape")
    return new Environment(new QuadrupedPhysics(quadrupedModel(40, false, true)), new Escape(random), options);
  if (task === "fetch")
    return new Environment(new QuadrupedPhysics(quadrupedModel(null, true)), new Fetch(random), options);
  const speed = task === "run" ? RUN_SPEED : WALK_SPEED;
  const physics = new QuadrupedPhysics(quadrupedModel(TIME_LIMIT * speed, false));
  return new Environment(physics, new Move(speed, random), options);
}
