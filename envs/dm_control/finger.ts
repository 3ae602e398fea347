// dm_control's finger domain (suite/finger.py): spin, turn_easy (target radius 0.07), turn_hard (0.03). 20 s
// episodes, actions every 0.02 s (2 physics steps).
// Initial state: random joint angles (randomizers, with an actuation-free mj_forward), redrawn until nothing touches
// (at most 1000 tries). Spin first sets the spinner's hinge damping to 0.03; Turn first places the target site on the
// spinner's circle (hinge anchor + (sum of cap1's size) (sin, cos) of an angle U(-pi, pi)) and sets its radius.
// Observation: position = (proximal, distal joint sensors, tip - spinner in x and z), velocity = the three joint
// velocity sensors, touch = log1p of the two touch sensors; Turn adds target_position (target - spinner, x and z)
// and dist_to_target (|target - tip| less the target's radius).
// Reward: Spin, 1 while the hinge turns at -15 rad/s or faster; Turn, 1 while the tip is within the target.

import { Environment, type Observation, Task } from "./control.ts";
import { hstack, norm, readModel } from "./common.ts";
import { Physics } from "./physics.ts";
import type { RandomState } from "./random_state.ts";
import { randomizeLimitedAndRotationalJoints } from "./randomizers.ts";

const TIME_LIMIT = 20;
const CONTROL_TIMESTEP = 0.02;
const EASY_TARGET_SIZE = 0.07;
const HARD_TARGET_SIZE = 0.03;
const SPIN_VELOCITY = 15.0;

export class FingerPhysics extends Physics {
  private xz(sensor: string): [number, number] {
    const s = this.sensor(sensor);
    return [s[0], s[2]];
  }

  touch(): Float64Array {
    return Float64Array.of(Math.log1p(this.sensor("touchtop")[0]), Math.log1p(this.sensor("touchbottom")[0]));
  }

  hingeVelocity(): number {
    return this.sensor("hinge_velocity")[0];
  }

  tipPosition(): Float64Array {
    const [tx, tz] = this.xz("tip");
    const [sx, sz] = this.xz("spinner");
    return Float64Array.of(tx - sx, tz - sz);
  }

  boundedPosition(): Float64Array {
    return hstack(this.sensor("proximal")[0], this.sensor("distal")[0], this.tipPosition());
  }

  sensorVelocity(): Float64Array {
    return Float64Array.of(
      this.sensor("proximal_velocity")[0],
      this.sensor("distal_velocity")[0],
      this.sensor("hinge_velocity")[0],
    );
  }

  targetPosition(): Float64Array {
    const [tx, tz] = this.xz("target");
    const [sx, sz] = this.xz("spinner");
    return Float64Array.of(tx - sx, tz - sz);
  }

  toTarget(): Float64Array {
    const target = this.targetPosition();
    const tip = this.tipPosition();
    return Float64Array.of(target[0] - tip[0], target[1] - tip[1]);
  }

  distToTarget(): number {
    return norm(this.toTarget()) - this.modelF64("site_size")[3 * this.id("site", "target")];
  }
}

function setRandomJointAngles(physics: FingerPhysics, random: RandomState, maxAttempts = 1000): void {
  for (let i = 0; i < maxAttempts; i++) {
    randomizeLimitedAndRotationalJoints(physics, random);
    physics.afterReset();
    if (physics.data.ncon === 0) return;
  }
  throw new Error(`Could not find a collision-free state after ${maxAttempts} attempts`);
}

function commonObservation(physics: FingerPhysics): Observation {
  return new Map<string, Float64Array | number>([
    ["position", physics.boundedPosition()],
    ["velocity", physics.sensorVelocity()],
    ["touch", physics.touch()],
  ]);
}

export class Spin extends Task<FingerPhysics> {
  initializeEpisode(physics: FingerPhysics): void {
    const hinge = physics.id("joint", "hinge");
    physics.modelF64("dof_damping")[physics.modelI32("jnt_dofadr")[hinge]] = 0.03;
    setRandomJointAngles(physics, this.random);
  }

  getObservation(physics: FingerPhysics): Observation {
    return commonObservation(physics);
  }

  getReward(physics: FingerPhysics): number {
    return physics.hingeVelocity() <= -SPIN_VELOCITY ? 1 : 0;
  }
}

export class Turn extends Task<FingerPhysics> {
  constructor(
    readonly targetRadius: number,
    random?: RandomState | number,
  ) {
    super(random);
  }

  initializeEpisode(physics: FingerPhysics): void {
    const targetAngle = this.random.uniform(-Math.PI, Math.PI);
    const anchor = physics.dataF64("xanchor");
    const hinge = physics.id("joint", "hinge");
    const hingeX = anchor[3 * hinge];
    const hingeZ = anchor[3 * hinge + 2];
    const cap1 = physics.id("geom", "cap1");
    const size = physics.modelF64("geom_size");
    const radius = size[3 * cap1] + size[3 * cap1 + 1] + size[3 * cap1 + 2];
    const target = physics.id("site", "target");
    const sitePos = physics.modelF64("site_pos");
    sitePos[3 * target] = hingeX + radius * Math.sin(targetAngle);
    sitePos[3 * target + 2] = hingeZ + radius * Math.cos(targetAngle);
    physics.modelF64("site_size")[3 * target] = this.targetRadius;
    setRandomJointAngles(physics, this.random);
  }

  getObservation(physics: FingerPhysics): Observation {
    const obs = commonObservation(physics);
    obs.set("target_position", physics.targetPosition());
    obs.set("dist_to_target", physics.distToTarget());
    return obs;
  }

  getReward(physics: FingerPhysics): number {
    return physics.distToTarget() <= 0 ? 1 : 0;
  }
}

export const FINGER_TASKS = ["spin", "turn_easy", "turn_hard"];

export function loadFinger(task: string, random?: RandomState | number): Environment<FingerPhysics> {
  const physics = new FingerPhysics(readModel("finger.xml"));
  const t =
    task === "spin" ? new Spin(random) : new Turn(task === "turn_easy" ? EASY_TARGET_SIZE : HARD_TARGET_SIZE, random);
  return new Environment(physics, t, { timeLimit: TIME_LIMIT, controlTimestep: CONTROL_TIMESTEP });
}
