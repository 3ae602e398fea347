// dm_control's pendulum domain (suite/pendulum.py): swingup. 20 s episodes at 50 Hz.
// Initial state: the hinge at U(-pi, pi). Observation: orientation = the pole's xmat (zz, xz), velocity = the hinge
// velocity. Reward: 1 while the pole is within 8 degrees of upright (its zz at least cos 8 deg), else 0.

import { Environment, type Observation, Task } from "./control.ts";
import { readModel } from "./common.ts";
import { Physics } from "./physics.ts";
import type { RandomState } from "./random_state.ts";
import { tolerance } from "./rewards.ts";

const TIME_LIMIT = 20;
const COSINE_BOUND = Math.cos(8 * (Math.PI / 180)); // np.deg2rad multiplies by pi / 180

export class PendulumPhysics extends Physics {
  private readonly pole = this.id("body", "pole");

  poleVertical(): number {
    return this.dataF64("xmat")[9 * this.pole + 8];
  }

  poleOrientation(): Float64Array {
    const xmat = this.dataF64("xmat");
    return Float64Array.of(xmat[9 * this.pole + 8], xmat[9 * this.pole + 2]);
  }

  angularVelocity(): Float64Array {
    const adr = this.qvelAddress("hinge");
    return this.dataF64("qvel").slice(adr, adr + 1);
  }
}

export class SwingUp extends Task<PendulumPhysics> {
  initializeEpisode(physics: PendulumPhysics): void {
    physics.dataF64("qpos")[physics.qposAddress("hinge")] = this.random.uniform(-Math.PI, Math.PI);
  }

  getObservation(physics: PendulumPhysics): Observation {
    return new Map([
      ["orientation", physics.poleOrientation()],
      ["velocity", physics.angularVelocity()],
    ]);
  }

  getReward(physics: PendulumPhysics): number {
    return tolerance(physics.poleVertical(), { bounds: [COSINE_BOUND, 1] });
  }
}

export const PENDULUM_TASKS = ["swingup"];

export function loadPendulum(_task: string, random?: RandomState | number): Environment<PendulumPhysics> {
  return new Environment(new PendulumPhysics(readModel("pendulum.xml")), new SwingUp(random), {
    timeLimit: TIME_LIMIT,
  });
}
