// dm_control's humanoid domain (suite/humanoid.py: stand, walk (1 m/s), run (10 m/s), run_pure_state; 25 s, actions
// every 0.025 s) and humanoid_CMU domain (suite/humanoid_CMU.py: stand, run; 20 s, every 0.02 s), which share their
// task: only the model, the body names (torso / thorax, left_hand / lhand, ...) and the upright entry (torso zz /
// thorax zy) differ.
// Initial state: random joint positions (randomizers) with an actuation-free mj_forward, redrawn until nothing
// touches.
// Observation: joint_angles = qpos[7:], head_height (head z), extremities (hands and feet relative to the torso, in
// its frame: left hand, left foot, right hand, right foot), torso_vertical (torso xmat zx, zy, zz), com_velocity
// (the torso subtree's linear velocity), velocity = qvel; run_pure_state: position = qpos, velocity = qvel.
// Reward: small_control ((4 + mean quadratic control tolerance) / 5) times standing (Gaussian tolerance of the head
// height, 1 from 1.4 m, margin 0.35) times upright (linear, 1 from 0.9, 0 at -1), times for stand the mean Gaussian
// tolerance of the horizontal centre-of-mass velocity (margin 2), else (5 move + 1) / 6 with move a linear
// tolerance of its norm (1 from the speed, 0 at 0).

import { Environment, type Observation, Task } from "./control.ts";
import { hstack, mean, norm, readModel } from "./common.ts";
import { Physics } from "./physics.ts";
import type { RandomState } from "./random_state.ts";
import { randomizeLimitedAndRotationalJoints } from "./randomizers.ts";
import { tolerance } from "./rewards.ts";

const STAND_HEIGHT = 1.4;

interface Body {
  torso: string;
  /** xmat entry of the torso that measures uprightness (8: zz, 7: zy). */
  uprightEntry: number;
  comSensor: string;
  /** Left hand, left foot, right hand, right foot. */
  limbs: readonly string[];
}

const HUMANOID: Body = {
  torso: "torso",
  uprightEntry: 8,
  comSensor: "torso_subtreelinvel",
  limbs: ["left_hand", "left_foot", "right_hand", "right_foot"],
};

const HUMANOID_CMU: Body = {
  torso: "thorax",
  uprightEntry: 7,
  comSensor: "thorax_subtreelinvel",
  limbs: ["lhand", "lfoot", "rhand", "rfoot"],
};

export class HumanoidPhysics extends Physics {
  private readonly torso: number;
  private readonly head: number;
  private readonly limbs: number[];

  constructor(
    xml: string,
    readonly body: Body,
  ) {
    super(xml);
    this.torso = this.id("body", body.torso);
    this.head = this.id("body", "head");
    this.limbs = body.limbs.map((limb) => this.id("body", limb));
  }

  torsoUpright(): number {
    return this.dataF64("xmat")[9 * this.torso + this.body.uprightEntry];
  }

  headHeight(): number {
    return this.dataF64("xpos")[3 * this.head + 2];
  }

  centerOfMassVelocity(): Float64Array {
    return this.sensor(this.body.comSensor);
  }

  torsoVerticalOrientation(): Float64Array {
    const xmat = this.dataF64("xmat");
    return xmat.slice(9 * this.torso + 6, 9 * this.torso + 9);
  }

  jointAngles(): Float64Array {
    return this.dataF64("qpos").slice(7);
  }

  extremities(): Float64Array {
    const xpos = this.dataF64("xpos");
    const xmat = this.dataF64("xmat");
    const m = 9 * this.torso;
    const parts = this.limbs.map((limb) => {
      const v = [0, 1, 2].map((i) => xpos[3 * limb + i] - xpos[3 * this.torso + i]);
      return [0, 1, 2].map((j) => v[0] * xmat[m + j] + v[1] * xmat[m + 3 + j] + v[2] * xmat[m + 6 + j]);
    });
    return hstack(...parts);
  }
}

export class Humanoid extends Task<HumanoidPhysics> {
  constructor(
    readonly moveSpeed: number,
    readonly pureState: boolean,
    random?: RandomState | number,
  ) {
    super(random);
  }

  initializeEpisode(physics: HumanoidPhysics): void {
    do {
      randomizeLimitedAndRotationalJoints(physics, this.random);
      physics.afterReset();
    } while (physics.data.ncon > 0);
  }

  getObservation(physics: HumanoidPhysics): Observation {
    if (this.pureState)
      return new Map([
        ["position", physics.position()],
        ["velocity", physics.velocity()],
      ]);
    return new Map<string, Float64Array | number>([
      ["joint_angles", physics.jointAngles()],
      ["head_height", physics.headHeight()],
      ["extremities", physics.extremities()],
      ["torso_vertical", physics.torsoVerticalOrientation()],
      ["com_velocity", physics.centerOfMassVelocity()],
      ["velocity", physics.velocity()],
    ]);
  }

  getReward(physics: HumanoidPhysics): number {
    const standing = tolerance(physics.headHeight(), {
      bounds: [STAND_HEIGHT, Number.POSITIVE_INFINITY],
      margin: STAND_HEIGHT / 4,
    });
    const upright = tolerance(physics.torsoUpright(), {
      bounds: [0.9, Number.POSITIVE_INFINITY],
      sigmoid: "linear",
      margin: 1.9,
      valueAtMargin: 0,
    });
    const standReward = standing * upright;
    const smallControl =
      (4 +
        mean(
          Array.from(physics.control(), (c) => tolerance(c, { margin: 1, valueAtMargin: 0, sigmoid: "quadratic" })),
        )) /
      5;
    const com = physics.centerOfMassVelocity();
    if (this.moveSpeed === 0) {
      const dontMove = mean([tolerance(com[0], { margin: 2 }), tolerance(com[1], { margin: 2 })]);
      return smallControl * standReward * dontMove;
    }
    const move = tolerance(norm([com[0], com[1]]), {
      bounds: [this.moveSpeed, Number.POSITIVE_INFINITY],
      margin: this.moveSpeed,
      valueAtMargin: 0,
      sigmoid: "linear",
    });
    return smallControl * standReward * ((5 * move + 1) / 6);
  }
}

export const HUMANOID_TASKS = ["stand", "walk", "run", "run_pure_state"];
export const HUMANOID_CMU_TASKS = ["stand", "run"];

const SPEEDS: Record<string, number> = { stand: 0, walk: 1, run: 10, run_pure_state: 10 };

export function loadHumanoid(task: string, random?: RandomState | number): Environment<HumanoidPhysics> {
  const physics = new HumanoidPhysics(readModel("humanoid.xml"), HUMANOID);
  return new Environment(physics, new Humanoid(SPEEDS[task], task === "run_pure_state", random), {
    timeLimit: 25,
    controlTimestep: 0.025,
  });
}

export function loadHumanoidCMU(task: string, random?: RandomState | number): Environment<HumanoidPhysics> {
  const physics = new HumanoidPhysics(readModel("humanoid_CMU.xml"), HUMANOID_CMU);
  return new Environment(physics, new Humanoid(SPEEDS[task], false, random), { timeLimit: 20, controlTimestep: 0.02 });
}
