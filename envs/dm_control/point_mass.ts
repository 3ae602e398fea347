// dm_control's point_mass domain (suite/point_mass.py): easy, hard. 20 s episodes at 50 Hz.
// A 0.3 kg sphere slides in a 0.6 m square, pushed by two motors on fixed tendons over its x and y joints.
// Initial state: random joint positions (randomizers). In `hard` the tendons' joint coefficients become two random
// unit directions, drawn as randn(2) normalized and redrawn until they are less than 0.9 parallel, so each control
// pushes along its own random direction; the model keeps them for the following episodes until redrawn.
// Observation: position = qpos, velocity = qvel. Reward: tolerance of the mass-to-target distance (bounds: the
// target's radius, margin: the same), times (4 + mean quadratic control tolerance) / 5.

import { Environment, type Observation, Task } from "./control.ts";
import { mean, norm, readModel } from "./common.ts";
import { Physics } from "./physics.ts";
import type { RandomState } from "./random_state.ts";
import { randomizeLimitedAndRotationalJoints } from "./randomizers.ts";
import { tolerance } from "./rewards.ts";

const TIME_LIMIT = 20;

export class PointMassPhysics extends Physics {
  private readonly target = this.id("geom", "target");
  private readonly pointmass = this.id("geom", "pointmass");

  massToTarget(): Float64Array {
    const xpos = this.dataF64("geom_xpos");
    const out = new Float64Array(3);
    for (let i = 0; i < 3; i++) out[i] = xpos[3 * this.target + i] - xpos[3 * this.pointmass + i];
    return out;
  }

  targetSize(): number {
    return this.modelF64("geom_size")[3 * this.target];
  }
}

export class PointMass extends Task<PointMassPhysics> {
  constructor(
    readonly randomizeGains: boolean,
    random?: RandomState | number,
  ) {
    super(random);
  }

  initializeEpisode(physics: PointMassPhysics): void {
    randomizeLimitedAndRotationalJoints(physics, this.random);
    if (this.randomizeGains) {
      const unit = (v: Float64Array) => {
        const n = norm(v);
        return v.map((x) => x / n);
      };
      const dir1 = unit(this.random.randnArray(2));
      let dir2: Float64Array;
      do dir2 = unit(this.random.randnArray(2));
      while (Math.abs(dir1[0] * dir2[0] + dir1[1] * dir2[1]) > 0.9);
      const wrapPrm = physics.modelF64("wrap_prm");
      wrapPrm.set(dir1, 0);
      wrapPrm.set(dir2, 2);
    }
  }

  getObservation(physics: PointMassPhysics): Observation {
    return new Map([
      ["position", physics.position()],
      ["velocity", physics.velocity()],
    ]);
  }

  getReward(physics: PointMassPhysics): number {
    const size = physics.targetSize();
    const nearTarget = tolerance(norm(physics.massToTarget()), { bounds: [0, size], margin: size });
    const controlReward = mean(
      Array.from(physics.control(), (c) => tolerance(c, { margin: 1, valueAtMargin: 0, sigmoid: "quadratic" })),
    );
    return nearTarget * ((controlReward + 4) / 5);
  }
}

export const POINT_MASS_TASKS = ["easy", "hard"];

export function loadPointMass(task: string, random?: RandomState | number): Environment<PointMassPhysics> {
  return new Environment(new PointMassPhysics(readModel("point_mass.xml")), new PointMass(task === "hard", random), {
    timeLimit: TIME_LIMIT,
  });
}
