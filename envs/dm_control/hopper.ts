// dm_control's hopper domain (suite/hopper.py): stand, hop. 20 s episodes, actions every 0.02 s (4 physics steps).
// Initial state: random joint positions (randomizers).
// Observation: position = qpos without rootx, velocity = qvel, touch = log1p of the toe and heel touch sensors.
// Reward: standing = 1 while the torso's centre of mass is 0.6 to 2 m above the foot's, else 0; stand multiplies it
// by (mean quadratic control tolerance + 4) / 5, hop by a linear tolerance of the torso subtree's forward
// velocity (1 from 2 m/s, 0.5 at 1 m/s).

import { Environment, type Observation, Task } from "./control.ts";
import { mean, readModel } from "./common.ts";
import { Physics } from "./physics.ts";
import type { RandomState } from "./random_state.ts";
import { randomizeLimitedAndRotationalJoints } from "./randomizers.ts";
import { tolerance } from "./rewards.ts";

const TIME_LIMIT = 20;
const CONTROL_TIMESTEP = 0.02;
const STAND_HEIGHT = 0.6;
const HOP_SPEED = 2;

export class HopperPhysics extends Physics {
  private readonly torso = this.id("body", "torso");
  private readonly foot = this.id("body", "foot");

  height(): number {
    const xipos = this.dataF64("xipos");
    return xipos[3 * this.torso + 2] - xipos[3 * this.foot + 2];
  }

  speed(): number {
    return this.sensor("torso_subtreelinvel")[0];
  }

  touch(): Float64Array {
    return Float64Array.of(Math.log1p(this.sensor("touch_toe")[0]), Math.log1p(this.sensor("touch_heel")[0]));
  }
}

export class Hopper extends Task<HopperPhysics> {
  constructor(
    readonly hopping: boolean,
    random?: RandomState | number,
  ) {
    super(random);
  }

  initializeEpisode(physics: HopperPhysics): void {
    randomizeLimitedAndRotationalJoints(physics, this.random);
  }

  getObservation(physics: HopperPhysics): Observation {
    return new Map([
      ["position", physics.dataF64("qpos").slice(1)],
      ["velocity", physics.velocity()],
      ["touch", physics.touch()],
    ]);
  }

  getReward(physics: HopperPhysics): number {
    const standing = tolerance(physics.height(), { bounds: [STAND_HEIGHT, 2] });
    if (this.hopping) {
      const hopping = tolerance(physics.speed(), {
        bounds: [HOP_SPEED, Number.POSITIVE_INFINITY],
        margin: HOP_SPEED / 2,
        valueAtMargin: 0.5,
        sigmoid: "linear",
      });
      return standing * hopping;
    }
    const smallControl = mean(
      Array.from(physics.control(), (c) => tolerance(c, { margin: 1, valueAtMargin: 0, sigmoid: "quadratic" })),
    );
    return standing * ((smallControl + 4) / 5);
  }
}

export const HOPPER_TASKS = ["stand", "hop"];

export function loadHopper(task: string, random?: RandomState | number): Environment<HopperPhysics> {
  return new Environment(new HopperPhysics(readModel("hopper.xml")), new Hopper(task === "hop", random), {
    timeLimit: TIME_LIMIT,
    controlTimestep: CONTROL_TIMESTEP,
  });
}
