// dm_control's swimmer domain (suite/swimmer.py): swimmer6, swimmer15 (n bodies: the head and n - 1 segments).
// 30 s episodes, actions every 0.03 s (15 physics steps).
// Model: `assets/swimmer.xml` holds the head; `_make_model` chains segments 0..n-2 onto it, each a body
// `segment_i` at (0, 0.1, 0) with a visual and an inertial geom, a site `site_i` and a hinge `joint_i` limited to
// +-360/n degrees, and adds per segment a motor `motor_i` and a velocimeter and a gyro on its site.
// Initial state: random joint positions (randomizers); then the target is placed at x, y U(-b, b) with b = 0.3
// when rand() < 0.2 (a close target) and 2 otherwise.
// Observation: joints = qpos[3:], to_target = the nose-to-target vector in the head's frame (x, y), and
// body_velocities = (vx, vy, wz) of the head and every segment from their velocimeters and gyros.
// Reward: a long-tail tolerance of the nose-target distance (bounds the target's radius, margin 5 times it).

import { Environment, type Observation, Task } from "./control.ts";
import { norm, readModel } from "./common.ts";
import { Physics } from "./physics.ts";
import type { RandomState } from "./random_state.ts";
import { randomizeLimitedAndRotationalJoints } from "./randomizers.ts";
import { tolerance } from "./rewards.ts";

const TIME_LIMIT = 30;
const CONTROL_TIMESTEP = 0.03;

/** The MJCF of a swimmer with `nBodies` bodies (at least 3). */
export function swimmerModel(nBodies: number): string {
  if (nBodies < 3) throw new RangeError(`At least 3 bodies required. Received ${nBodies}`);
  const xml = readModel("swimmer.xml");
  const limit = 360.0 / nBodies;
  let chain = "";
  let actuators = "";
  let sensors = "";
  for (let i = nBodies - 2; i >= 0; i--) {
    chain =
      `<body name="segment_${i}" pos="0 .1 0"><geom class="visual" name="visual_${i}"/>` +
      `<geom class="inertial" name="inertial_${i}"/><site name="site_${i}"/>` +
      `<joint name="joint_${i}" range="${-limit} ${limit}"/>${chain}</body>`;
  }
  for (let i = 0; i < nBodies - 1; i++) {
    actuators += `<motor name="motor_${i}" joint="joint_${i}"/>`;
    sensors += `<velocimeter name="velocimeter_${i}" site="site_${i}"/><gyro name="gyro_${i}" site="site_${i}"/>`;
  }
  const headStart = xml.indexOf('<body name="head"');
  const headEnd = xml.indexOf("</body>", headStart);
  const withChain = xml.slice(0, headEnd) + chain + xml.slice(headEnd);
  return withChain.replace("</mujoco>", `<actuator>${actuators}</actuator><sensor>${sensors}</sensor></mujoco>`);
}

export class SwimmerPhysics extends Physics {
  private readonly head = this.id("body", "head");
  private readonly nose = this.id("geom", "nose");
  readonly target = this.id("geom", "target");

  noseToTarget(): Float64Array {
    const xpos = this.dataF64("geom_xpos");
    const xmat = this.dataF64("xmat");
    const v = [0, 1, 2].map((i) => xpos[3 * this.target + i] - xpos[3 * this.nose + i]);
    const out = new Float64Array(2);
    for (let j = 0; j < 2; j++) {
      let s = 0;
      for (let i = 0; i < 3; i++) s += v[i] * xmat[9 * this.head + 3 * i + j];
      out[j] = s;
    }
    return out;
  }

  bodyVelocities(): Float64Array {
    const sensordata = this.dataF64("sensordata");
    const n = (sensordata.length - 12) / 6;
    const out = new Float64Array(3 * n);
    for (let b = 0; b < n; b++) {
      out[3 * b] = sensordata[12 + 6 * b];
      out[3 * b + 1] = sensordata[12 + 6 * b + 1];
      out[3 * b + 2] = sensordata[12 + 6 * b + 5];
    }
    return out;
  }
}

export class Swimmer extends Task<SwimmerPhysics> {
  initializeEpisode(physics: SwimmerPhysics): void {
    randomizeLimitedAndRotationalJoints(physics, this.random);
    const closeTarget = this.random.randomSample() < 0.2;
    const box = closeTarget ? 0.3 : 2;
    const [x, y] = this.random.uniformArray(-box, box, 2);
    const geomPos = physics.modelF64("geom_pos");
    geomPos[3 * physics.target] = x;
    geomPos[3 * physics.target + 1] = y;
  }

  getObservation(physics: SwimmerPhysics): Observation {
    return new Map([
      ["joints", physics.dataF64("qpos").slice(3)],
      ["to_target", physics.noseToTarget()],
      ["body_velocities", physics.bodyVelocities()],
    ]);
  }

  getReward(physics: SwimmerPhysics): number {
    const size = physics.modelF64("geom_size")[3 * physics.target];
    return tolerance(norm(physics.noseToTarget()), { bounds: [0, size], margin: 5 * size, sigmoid: "long_tail" });
  }
}

export const SWIMMER_TASKS = ["swimmer6", "swimmer15"];

export function loadSwimmer(task: string, random?: RandomState | number): Environment<SwimmerPhysics> {
  const nBodies = task === "swimmer6" ? 6 : 15;
  return new Environment(new SwimmerPhysics(swimmerModel(nBodies)), new Swimmer(random), {
    timeLimit: TIME_LIMIT,
    controlTimestep: CONTROL_TIMESTEP,
  });
}
