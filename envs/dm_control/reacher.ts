// dm_control's reacher domain (suite/reacher.py): easy (target radius 0.05), hard (0.015). 20 s episodes at 50 Hz.
// Initial state: the target geom's radius set for the task, random joint positions (randomizers), then the
// target placed at angle U(0, 2 pi) and radius U(0.05, 0.2): x = r sin(angle), y = r cos(angle).
// Observation: position = qpos, to_target = target - finger (x, y of the geoms), velocity = qvel.
// Reward: 1 while the finger-to-target distance is within the sum of the two radii, else 0.

import { Environment, type Observation, Task } from "./control.ts";
import { norm, readModel } from "./common.ts";
import { Physics } from "./physics.ts";
import type { RandomState } from "./random_state.ts";
import { randomizeLimitedAndRotationalJoints } from "./randomizers.ts";
import { tolerance } from "./rewards.ts";

const TIME_LIMIT = 20;
const BIG_TARGET = 0.05;
const SMALL_TARGET = 0.015;

export class ReacherPhysics extends Physics {
  readonly target = this.id("geom", "target");
  readonly finger = this.id("geom", "finger");

  fingerToTarget(): Float64Array {
    const xpos = this.dataF64("geom_xpos");
    return Float64Array.of(
      xpos[3 * this.target] - xpos[3 * this.finger],
      xpos[3 * this.target + 1] - xpos[3 * this.finger + 1],
    );
  }
}

export class Reacher extends Task<ReacherPhysics> {
  constructor(
    readonly targetSize: number,
    random?: RandomState | number,
  ) {
    super(random);
  }

  initializeEpisode(physics: ReacherPhysics): void {
    physics.modelF64("geom_size")[3 * physics.target] = this.targetSize;
    randomizeLimitedAndRotationalJoints(physics, this.random);
    const angle = this.random.uniform(0, 2 * Math.PI);
    const radius = this.random.uniform(0.05, 0.2);
    const geomPos = physics.modelF64("geom_pos");
    geomPos[3 * physics.target] = radius * Math.sin(angle);
    geomPos[3 * physics.target + 1] = radius * Math.cos(angle);
  }

  getObservation(physics: ReacherPhysics): Observation {
    return new Map([
      ["position", physics.position()],
      ["to_target", physics.fingerToTarget()],
      ["velocity", physics.velocity()],
    ]);
  }

  getReward(physics: ReacherPhysics): number {
    const size = physics.modelF64("geom_size");
    const radii = size[3 * physics.target] + size[3 * physics.finger];
    return tolerance(norm(physics.fingerToTarget()), { bounds: [0, radii] });
  }
}

export const REACHER_TASKS = ["easy", "hard"];

export function loadReacher(task: string, random?: RandomState | number): Environment<ReacherPhysics> {
  const size = task === "easy" ? BIG_TARGET : SMALL_TARGET;
  return new Environment(new ReacherPhysics(readModel("reacher.xml")), new Reacher(size, random), {
    timeLimit: TIME_LIMIT,
  });
}
