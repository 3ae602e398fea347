// dm_control's walker domain (suite/walker.py): stand, walk (1 m/s), run (8 m/s). 25 s episodes, actions every
// 0.025 s (10 physics steps). Initial state: random joint positions (randomizers).
// Observation: orientations = every body's xmat (xx, xz) but the world's, height = the torso's z, velocity = qvel.
// Reward: stand = (3 standing + upright) / 4, with standing a Gaussian tolerance of the torso height (1 from
// 1.2 m, margin 0.6) and upright = (1 + torso zz) / 2; walk and run multiply it by (5 move + 1) / 6, with move a
// linear tolerance of the torso subtree's forward velocity (1 from the task's speed, 0.5 at half of it).

import { Environment, type Observation, Task } from "./control.ts";
import { readModel } from "./common.ts";
import { Physics } from "./physics.ts";
import type { RandomState } from "./random_state.ts";
import { randomizeLimitedAndRotationalJoints } from "./randomizers.ts";
import { tolerance } from "./rewards.ts";

const TIME_LIMIT = 25;
const CONTROL_TIMESTEP = 0.025;
const STAND_HEIGHT = 1.2;
const SPEEDS: Record<string, number> = { stand: 0, walk: 1, run: 8 };

export class WalkerPhysics extends Physics {
  private readonly torso = this.id("body", "torso");

  torsoUpright(): number {
    return this.dataF64("xmat")[9 * this.torso + 8];
  }

  torsoHeight(): number {
    return this.dataF64("xpos")[3 * this.torso + 2];
  }

  horizontalVelocity(): number {
    return this.sensor("torso_subtreelinvel")[0];
  }

  orientations(): Float64Array {
    const xmat = this.dataF64("xmat");
    const n = this.model.nbody - 1;
    const out = new Float64Array(2 * n);
    for (let b = 1; b <= n; b++) {
      out[2 * (b - 1)] = xmat[9 * b];
      out[2 * (b - 1) + 1] = xmat[9 * b + 2];
    }
    return out;
  }
}

export class PlanarWalker extends Task<WalkerPhysics> {
  constructor(
    readonly moveSpeed: number,
    random?: RandomState | number,
  ) {
    super(random);
  }

  initializeEpisode(physics: WalkerPhysics): void {
    randomizeLimitedAndRotationalJoints(physics, this.random);
  }

  getObservation(physics: WalkerPhysics): Observation {
    return new Map<string, Float64Array | number>([
      ["orientations", physics.orientations()],
      ["height", physics.torsoHeight()],
      ["velocity", physics.velocity()],
    ]);
  }

  getReward(physics: WalkerPhysics): number {
    const standing = tolerance(physics.torsoHeight(), {
      bounds: [STAND_HEIGHT, Number.POSITIVE_INFINITY],
      margin: STAND_HEIGHT / 2,
    });
    const upright = (1 + physics.torsoUpright()) / 2;
    const standReward = (3 * standing + upright) / 4;
    if (this.moveSpeed === 0) return standReward;
    const moveReward = tolerance(physics.horizontalVelocity(), {
      bounds: [this.moveSpeed, Number.POSITIVE_INFINITY],
      margin: this.moveSpeed / 2,
      valueAtMargin: 0.5,
      sigmoid: "linear",
    });
    return (standReward * (5 * moveReward + 1)) / 6;
  }
}

export const WALKER_TASKS = ["stand", "walk", "run"];

export function loadWalker(task: string, random?: RandomState | number): Environment<WalkerPhysics> {
  return new Environment(new WalkerPhysics(readModel("walker.xml")), new PlanarWalker(SPEEDS[task], random), {
    timeLimit: TIME_LIMIT,
    controlTimestep: CONTROL_TIMESTEP,
  });
}
