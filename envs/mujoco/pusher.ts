// Pusher-v4, ported from Gymnasium 0.29's `gymnasium/envs/mujoco/pusher_v4.py`.
//
// CAVEAT: Gymnasium refuses to make Pusher-v4 on MuJoCo >= 3 (an assertion, Farama-Foundation/Gymnasium#950): the
// near-massless object of pusher.xml behaves differently under MuJoCo 3. The only MuJoCo here is 3.14, so this
// port runs the v4 model on MuJoCo 3; returns are not comparable with Pusher-v4 results obtained on MuJoCo 2.
//
// A 7-DoF arm pushes a cylinder to a goal; dt = 5 * 0.01 s. The reward is computed from the state *before* the
// action is simulated: -|object - goal| + 0.1 * (-sum(action^2)) + 0.5 * (-|object - tips_arm|). Info carries
// reward_dist and reward_ctrl only (v4 leaves the 0.5-weighted "near" term out of info, so info does not sum
// to the reward). No terminal state; the 100-step TimeLimit ends episodes.
// Observation (23): arm qpos (7), arm qvel (7), and the world positions of tips_arm, object and goal.
// Reset: arm at qpos0; the object's two slide joints, in file order (obj_slidey, obj_slidex), get U(-0.3, 0) and
// U(-0.2, 0.2), redrawn until the pair is more than 0.17 from the goal's (0, 0); arm qvel + U(-0.005, 0.005);
// object and goal qvel 0.

import type { StepResult } from "../gymnasium/core.ts";
import { MujocoEnv, norm, sumOfSquares, unboundedObservationSpace } from "./mujoco_env.ts";

export interface PusherKwargs {
  renderMode?: string | null;
}

export class PusherEnv extends MujocoEnv {
  /** Object start drawn at the last reset (Gymnasium's `self.cylinder_pos`); the goal is always the origin. */
  cylinderPos: Float64Array = new Float64Array(2);
  readonly goalPos = Float64Array.of(0, 0);
  private readonly tipsArm: number;
  private readonly object: number;
  private readonly goal: number;

  constructor(kwargs: PusherKwargs = {}) {
    super({
      modelPath: "pusher.xml",
      frameSkip: 5,
      observationSpace: unboundedObservationSpace(23),
      renderMode: kwargs.renderMode,
    });
    this.tipsArm = this.bodyId("tips_arm");
    this.object = this.bodyId("object");
    this.goal = this.bodyId("goal");
  }

  /** Distance between the body-frame positions of two bodies. */
  private distance(a: number, b: number): number {
    const { xpos } = this.views;
    return norm(xpos[3 * a] - xpos[3 * b], xpos[3 * a + 1] - xpos[3 * b + 1], xpos[3 * a + 2] - xpos[3 * b + 2]);
  }

  step(action: ArrayLike<number>): StepResult<Float64Array> {
    const rewardNear = -this.distance(this.object, this.tipsArm);
    const rewardDist = -this.distance(this.object, this.goal);
    const rewardCtrl = -sumOfSquares(action);
    const reward = rewardDist + 0.1 * rewardCtrl + 0.5 * rewardNear;

    this.doSimulation(action, this.frameSkip);
    return [this.getObs(), reward, false, false, { reward_dist: rewardDist, reward_ctrl: rewardCtrl }];
  }

  getObs(): Float64Array {
    const { qpos, qvel, xpos } = this.views;
    const obs = new Float64Array(23);
    obs.set(qpos.subarray(0, 7), 0);
    obs.set(qvel.subarray(0, 7), 7);
    obs.set(xpos.subarray(3 * this.tipsArm, 3 * this.tipsArm + 3), 14);
    obs.set(xpos.subarray(3 * this.object, 3 * this.object + 3), 17);
    obs.set(xpos.subarray(3 * this.goal, 3 * this.goal + 3), 20);
    return obs;
  }

  protected resetModel(): Float64Array {
    const rng = this.npRandom;
    const qpos = this.initQpos.slice();
    let first: number;
    let second: number;
    do {
      first = rng.uniform(-0.3, 0);
      second = rng.uniform(-0.2, 0.2);
    } while (!(norm(first - this.goalPos[0], second - this.goalPos[1]) > 0.17));
    this.cylinderPos = Float64Array.of(first, second);
    const n = this.nq;
    qpos[n - 4] = first;
    qpos[n - 3] = second;
    qpos[n - 2] = this.goalPos[0];
    qpos[n - 1] = this.goalPos[1];
    const qvel = this.uniformNoise(this.initQvel, -0.005, 0.005);
    qvel.fill(0, this.nv - 4);
    this.setState(qpos, qvel);
    return this.getObs();
  }
}
