// dm_control's ball_in_cup domain (suite/ball_in_cup.py): catch. 20 s episodes, actions every 0.02 s (10 physics
// steps of 2 ms). Initial state: the ball at x U(-0.2, 0.2), z U(0.2, 0.5), redrawn (with an actuation-free
// mj_forward each time) until nothing touches. Observation: position = qpos, velocity = qvel. Reward: 1 while the
// ball is inside the cup's target box (|ball - target| in x and z below the box's half-sizes less the ball's
// radius), else 0.

import { Environment, type Observation, Task } from "./control.ts";
import { readModel } from "./common.ts";
import { Physics } from "./physics.ts";
import type { RandomState } from "./random_state.ts";

const TIME_LIMIT = 20;
const CONTROL_TIMESTEP = 0.02;

export class BallInCupPhysics extends Physics {
  private readonly target = this.id("site", "target");
  private readonly ball = this.id("body", "ball");
  private readonly ballGeom = this.id("geom", "ball");

  ballToTarget(): [number, number] {
    const site = this.dataF64("site_xpos");
    const xpos = this.dataF64("xpos");
    return [site[3 * this.target] - xpos[3 * this.ball], site[3 * this.target + 2] - xpos[3 * this.ball + 2]];
  }

  inTarget(): number {
    const [dx, dz] = this.ballToTarget();
    const siteSize = this.modelF64("site_size");
    const ballSize = this.modelF64("geom_size")[3 * this.ballGeom];
    const inside =
      Math.abs(dx) < siteSize[3 * this.target] - ballSize && Math.abs(dz) < siteSize[3 * this.target + 2] - ballSize;
    return inside ? 1 : 0;
  }
}

export class BallInCup extends Task<BallInCupPhysics> {
  initializeEpisode(physics: BallInCupPhysics): void {
    const ballX = physics.qposAddress("ball_x");
    const ballZ = physics.qposAddress("ball_z");
    do {
      const qpos = physics.dataF64("qpos");
      qpos[ballX] = this.random.uniform(-0.2, 0.2);
      qpos[ballZ] = this.random.uniform(0.2, 0.5);
      physics.afterReset();
    } while (physics.data.ncon > 0);
  }

  getObservation(physics: BallInCupPhysics): Observation {
    return new Map([
      ["position", physics.position()],
      ["velocity", physics.velocity()],
    ]);
  }

  getReward(physics: BallInCupPhysics): number {
    return physics.inTarget();
  }
}

export const BALL_IN_CUP_TASKS = ["catch"];

export function loadBallInCup(_task: string, random?: RandomState | number): Environment<BallInCupPhysics> {
  return new Environment(new BallInCupPhysics(readModel("ball_in_cup.xml")), new BallInCup(random), {
    timeLimit: TIME_LIMIT,
    controlTimestep: CONTROL_TIMESTEP,
  });
}
