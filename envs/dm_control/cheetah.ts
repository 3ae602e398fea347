// dm_control's cheetah domain (suite/cheetah.py): run. 10 s episodes at 100 Hz.
// Initial state: every limited joint at U(its range) (one uniform draw over the arrays of bounds), then 200
// physics steps with zero control to let the body settle, then the clock set back to 0.
// Observation: position = qpos without rootx, velocity = qvel. Reward: the torso subtree's forward velocity as a
// linear tolerance, 1 from 10 m/s up, 0 at 0 m/s.

import { Environment, type Observation, Task } from "./control.ts";
import { readModel } from "./common.ts";
import { Physics } from "./physics.ts";
import type { RandomState } from "./random_state.ts";
import { tolerance } from "./rewards.ts";

const TIME_LIMIT = 10;
const RUN_SPEED = 10;

export class CheetahPhysics extends Physics {
  speed(): number {
    return this.sensor("torso_subtreelinvel")[0];
  }
}

export class Cheetah extends Task<CheetahPhysics> {
  initializeEpisode(physics: CheetahPhysics): void {
    const model = physics.model;
    const range = model.jnt_range as Float64Array;
    // Limited joints: a non-empty range (see randomizers.ts on why jnt_limited is not read); here nq == njnt.
    const limited: number[] = [];
    for (let j = 0; j < model.njnt; j++) if (range[2 * j] < range[2 * j + 1]) limited.push(j);
    const values = this.random.uniformArray(
      limited.map((j) => range[2 * j]),
      limited.map((j) => range[2 * j + 1]),
      limited.length,
    );
    const qpos = physics.dataF64("qpos");
    limited.forEach((j, i) => {
      qpos[j] = values[i];
    });
    physics.step(200);
    physics.data.time = 0;
  }

  getObservation(physics: CheetahPhysics): Observation {
    return new Map([
      ["position", physics.dataF64("qpos").slice(1)],
      ["velocity", physics.velocity()],
    ]);
  }

  getReward(physics: CheetahPhysics): number {
    return tolerance(physics.speed(), {
      bounds: [RUN_SPEED, Number.POSITIVE_INFINITY],
      margin: RUN_SPEED,
      valueAtMargin: 0,
      sigmoid: "linear",
    });
  }
}

export const CHEETAH_TASKS = ["run"];

export function loadCheetah(_task: string, random?: RandomState | number): Environment<CheetahPhysics> {
  return new Environment(new CheetahPhysics(readModel("cheetah.xml")), new Cheetah(random), { timeLimit: TIME_LIMIT });
}
