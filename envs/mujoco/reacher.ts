// Reacher-v4, ported from Gymnasium 0.29's `gymnasium/envs/mujoco/reacher_v4.py`.
//
// A two-link planar arm (gear 200) reaches for a target; dt = 2 * 0.01 s. The reward is computed from the state
// *before* the action is simulated (as in Gymnasium): -|fingertip - target| - sum(action^2). No terminal state;
// the 50-step TimeLimit ends episodes.
// Observation (11): cos and sin of the 2 arm angles, target x and y (qpos[2:]), the 2 arm velocities, and
// fingertip - target (3D; its z is always 0 in v4).
// Reset: arm qpos + U(-0.1, 0.1); target drawn uniformly in the disc of radius 0.2 (rejection sampling from the
// square); arm qvel + U(-0.005, 0.005); target qvel 0.

import type { StepResult } from "../gymnasium/core.ts";
import { MujocoEnv, norm, sumOfSquares, unboundedObservationSpace } from "./mujoco_env.ts";

export interface ReacherKwargs {
  renderMode?: string | null;
}

export class ReacherEnv extends MujocoEnv {
  /** The target position drawn at the last reset (Gymnasium's `self.goal`). */
  goal: Float64Array = new Float64Array(2);
  private readonly fingertip: number;
  private readonly target: number;

  constructor(kwargs: ReacherKwargs = {}) {
    super({
      modelPath: "reacher.xml",
      frameSkip: 2,
      observationSpace: unboundedObservationSpace(11),
      renderMode: kwargs.renderMode,
    });
    this.fingertip = this.bodyId("fingertip");
    this.target = this.bodyId("target");
  }

  step(action: ArrayLike<number>): StepResult<Float64Array> {
    const { xpos } = this.views;
    const dx = xpos[3 * this.fingertip] - xpos[3 * this.target];
    const dy = xpos[3 * this.fingertip + 1] - xpos[3 * this.target + 1];
    const dz = xpos[3 * this.fingertip + 2] - xpos[3 * this.target + 2];
    const rewardDist = -norm(dx, dy, dz);
    const rewardCtrl = -sumOfSquares(action);
    const reward = rewardDist + rewardCtrl;

    this.doSimulation(action, this.frameSkip);
    return [this.getObs(), reward, false, false, { reward_dist: rewardDist, reward_ctrl: rewardCtrl }];
  }

  getObs(): Float64Array {
    const { qpos, qvel, xpos } = this.views;
    const obs = new Float64Array(11);
    obs[0] = Math.cos(qpos[0]);
    obs[1] = Math.cos(qpos[1]);
    obs[2] = Math.sin(qpos[0]);
    obs[3] = Math.sin(qpos[1]);
    obs[4] = qpos[2];
    obs[5] = qpos[3];
    obs[6] = qvel[0];
    obs[7] = qvel[1];
    for (let i = 0; i < 3; i++) obs[8 + i] = xpos[3 * this.fingertip + i] - xpos[3 * this.target + i];
    return obs;
  }

  protected resetModel(): Float64Array {
    const rng = this.npRandom;
    const qpos = this.uniformNoise(this.initQpos, -0.1, 0.1);
    let gx: number;
    let gy: number;
    do {
      gx = rng.uniform(-0.2, 0.2);
      gy = rng.uniform(-0.2, 0.2);
    } while (!(norm(gx, gy) < 0.2));
    this.goal = Float64Array.of(gx, gy);
    qpos[this.nq - 2] = gx;
    qpos[this.nq - 1] = gy;
    const qvel = this.uniformNoise(this.initQvel, -0.005, 0.005);
    qvel[this.nv - 2] = 0;
    qvel[this.nv - 1] = 0;
    this.setState(qpos, qvel);
    return this.getObs();
  }
}
