// dm_control's acrobot domain (suite/acrobot.py): swingup, swingup_sparse. 10 s episodes at 100 Hz.
// Initial state: shoulder and elbow at U(-pi, pi) (one uniform(size=2) draw). Observation: orientations = the two
// arms' xmat xz entries then their zz entries, velocity = qvel. Reward: tolerance of the tip-to-target distance
// with the target site's radius as bounds, margin 1 (Gaussian), or 0 for the sparse task.

import { Environment, type Observation, Task } from "./control.ts";
import { norm, readModel } from "./common.ts";
import { Physics } from "./physics.ts";
import type { RandomState } from "./random_state.ts";
import { tolerance } from "./rewards.ts";

const TIME_LIMIT = 10;

export class AcrobotPhysics extends Physics {
  private readonly arms = [this.id("body", "upper_arm"), this.id("body", "lower_arm")];
  private readonly target = this.id("site", "target");
  private readonly tip = this.id("site", "tip");

  orientations(): Float64Array {
    const xmat = this.dataF64("xmat");
    const [upper, lower] = this.arms;
    return Float64Array.of(xmat[9 * upper + 2], xmat[9 * lower + 2], xmat[9 * upper + 8], xmat[9 * lower + 8]);
  }

  toTarget(): number {
    const xpos = this.dataF64("site_xpos");
    const d = [0, 1, 2].map((i) => xpos[3 * this.target + i] - xpos[3 * this.tip + i]);
    return norm(d);
  }

  targetRadius(): number {
    return this.modelF64("site_size")[3 * this.target];
  }
}

export class Balance extends Task<AcrobotPhysics> {
  constructor(
    readonly sparse: boolean,
    random?: RandomState | number,
  ) {
    super(random);
  }

  initializeEpisode(physics: AcrobotPhysics): void {
    const angles = this.random.uniformArray(-Math.PI, Math.PI, 2);
    const qpos = physics.dataF64("qpos");
    qpos[physics.qposAddress("shoulder")] = angles[0];
    qpos[physics.qposAddress("elbow")] = angles[1];
  }

  getObservation(physics: AcrobotPhysics): Observation {
    return new Map([
      ["orientations", physics.orientations()],
      ["velocity", physics.velocity()],
    ]);
  }

  getReward(physics: AcrobotPhysics): number {
    return tolerance(physics.toTarget(), { bounds: [0, physics.targetRadius()], margin: this.sparse ? 0 : 1 });
  }
}

export const ACROBOT_TASKS = ["swingup", "swingup_sparse"];

export function loadAcrobot(task: string, random?: RandomState | number): Environment<AcrobotPhysics> {
  return new Environment(new AcrobotPhysics(readModel("acrobot.xml")), new Balance(task === "swingup_sparse", random), {
    timeLimit: TIME_LIMIT,
  });
}
