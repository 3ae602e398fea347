// dm_control's fish domain (suite/fish.py): upright, swim. 40 s episodes, actions every 0.04 s (10 physics steps).
// Initial state: the root's orientation a random unit quaternion (randn(4) normalized), each of the seven fin and
// tail joints at U(-0.2, 0.2); swim then places the target at x, y U(-0.4, 0.4), z U(0.1, 0.3).
// Observation: joint_angles (the seven joints), upright (the torso's zz), velocity = qvel; swim adds target = the
// mouth-to-target vector in the mouth's frame.
// Reward: upright, a Gaussian tolerance of zz (1 at 1, margin 1); swim, (7 in_target + is_upright) / 8 with
// in_target a Gaussian tolerance of the mouth-target distance (bounds the sum of both radii, margin twice that)
// and is_upright = (zz + 1) / 2.

import { Environment, type Observation, Task } from "./control.ts";
import { norm, readModel } from "./common.ts";
import { Physics } from "./physics.ts";
import type { RandomState } from "./random_state.ts";
import { tolerance } from "./rewards.ts";

const TIME_LIMIT = 40;
const CONTROL_TIMESTEP = 0.04;
const JOINTS = ["tail1", "tail_twist", "tail2", "finright_roll", "finright_pitch", "finleft_roll", "finleft_pitch"];

export class FishPhysics extends Physics {
  private readonly torso = this.id("body", "torso");
  readonly mouth = this.id("geom", "mouth");
  readonly target = this.id("geom", "target");

  upright(): number {
    return this.dataF64("xmat")[9 * this.torso + 8];
  }

  jointAngles(): Float64Array {
    const qpos = this.dataF64("qpos");
    return Float64Array.from(JOINTS, (j) => qpos[this.qposAddress(j)]);
  }

  /** `(target - mouth) . mouth_xmat`: the vector in the mouth's frame. */
  mouthToTarget(): Float64Array {
    const xpos = this.dataF64("geom_xpos");
    const xmat = this.dataF64("geom_xmat");
    const v = [0, 1, 2].map((i) => xpos[3 * this.target + i] - xpos[3 * this.mouth + i]);
    const out = new Float64Array(3);
    for (let j = 0; j < 3; j++) {
      let s = 0;
      for (let i = 0; i < 3; i++) s += v[i] * xmat[9 * this.mouth + 3 * i + j];
      out[j] = s;
    }
    return out;
  }
}

function randomPose(physics: FishPhysics, random: RandomState): void {
  const quat = random.randnArray(4);
  const n = norm(quat);
  const root = physics.qposAddress("root");
  const qpos = physics.dataF64("qpos");
  for (let i = 0; i < 4; i++) qpos[root + 3 + i] = quat[i] / n;
  for (const joint of JOINTS) qpos[physics.qposAddress(joint)] = random.uniform(-0.2, 0.2);
}

export class Upright extends Task<FishPhysics> {
  initializeEpisode(physics: FishPhysics): void {
    randomPose(physics, this.random);
  }

  getObservation(physics: FishPhysics): Observation {
    return new Map<string, Float64Array | number>([
      ["joint_angles", physics.jointAngles()],
      ["upright", physics.upright()],
      ["velocity", physics.velocity()],
    ]);
  }

  getReward(physics: FishPhysics): number {
    return tolerance(physics.upright(), { bounds: [1, 1], margin: 1 });
  }
}

export class Swim extends Task<FishPhysics> {
  initializeEpisode(physics: FishPhysics): void {
    randomPose(physics, this.random);
    const geomPos = physics.modelF64("geom_pos");
    geomPos[3 * physics.target] = this.random.uniform(-0.4, 0.4);
    geomPos[3 * physics.target + 1] = this.random.uniform(-0.4, 0.4);
    geomPos[3 * physics.target + 2] = this.random.uniform(0.1, 0.3);
  }

  getObservation(physics: FishPhysics): Observation {
    return new Map<string, Float64Array | number>([
      ["joint_angles", physics.jointAngles()],
      ["upright", physics.upright()],
      ["target", physics.mouthToTarget()],
      ["velocity", physics.velocity()],
    ]);
  }

  getReward(physics: FishPhysics): number {
    const size = physics.modelF64("geom_size");
    const radii = size[3 * physics.mouth] + size[3 * physics.target];
    const inTarget = tolerance(norm(physics.mouthToTarget()), { bounds: [0, radii], margin: 2 * radii });
    const isUpright = 0.5 * (physics.upright() + 1);
    return (7 * inTarget + isUpright) / 8;
  }
}

export const FISH_TASKS = ["upright", "swim"];

export function loadFish(task: string, random?: RandomState | number): Environment<FishPhysics> {
  return new Environment(
    new FishPhysics(readModel("fish.xml")),
    task === "swim" ? new Swim(random) : new Upright(random),
    { timeLimit: TIME_LIMIT, controlTimestep: CONTROL_TIMESTEP },
  );
}
