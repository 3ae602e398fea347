// InvertedDoublePendulum-v4, ported from Gymnasium 0.29's `gymnasium/envs/mujoco/inverted_double_pendulum_v4.py`.
//
// A cart (force gear 500, ctrl in [-1, 1]) balances two poles stacked on hinges; dt = 5 * 0.01 s.
// Reward: 10 - (0.01 x^2 + (y - 2)^2) - (1e-3 v1^2 + 5e-3 v2^2), where (x, y) is the world x and height of the
// tip site and v1, v2 the two hinge velocities. Terminates when the tip is at or below height 1.
// Observation (11): cart x, sin and cos of both hinge angles, qvel clipped to [-10, 10], and qfrc_constraint
// clipped to [-10, 10]. Reset: qpos + U(-0.1, 0.1), qvel + 0.1 * N(0, 1).

import type { StepResult } from "../gymnasium/core.ts";
import { MujocoEnv, clip, unboundedObservationSpace } from "./mujoco_env.ts";

export interface InvertedDoublePendulumKwargs {
  renderMode?: string | null;
}

export class InvertedDoublePendulumEnv extends MujocoEnv {
  constructor(kwargs: InvertedDoublePendulumKwargs = {}) {
    super({
      modelPath: "inverted_double_pendulum.xml",
      frameSkip: 5,
      observationSpace: unboundedObservationSpace(11),
      renderMode: kwargs.renderMode,
    });
  }

  step(action: ArrayLike<number>): StepResult<Float64Array> {
    this.doSimulation(action, this.frameSkip);
    const obs = this.getObs();
    const { siteXpos, qvel } = this.views;
    // site_xpos[0] is the tip: world (x, y, z); Gymnasium names its height "y".
    const x = siteXpos[0];
    const y = siteXpos[2];
    const distPenalty = 0.01 * x ** 2 + (y - 2) ** 2;
    const v1 = qvel[1];
    const v2 = qvel[2];
    const velPenalty = 1e-3 * v1 ** 2 + 5e-3 * v2 ** 2;
    const aliveBonus = 10;
    const reward = aliveBonus - distPenalty - velPenalty;
    return [obs, reward, y <= 1, false, {}];
  }

  getObs(): Float64Array {
    const { qpos, qvel, qfrcConstraint } = this.views;
    const obs = new Float64Array(11);
    obs[0] = qpos[0];
    obs[1] = Math.sin(qpos[1]);
    obs[2] = Math.sin(qpos[2]);
    obs[3] = Math.cos(qpos[1]);
    obs[4] = Math.cos(qpos[2]);
    for (let i = 0; i < 3; i++) obs[5 + i] = clip(qvel[i], -10, 10);
    for (let i = 0; i < 3; i++) obs[8 + i] = clip(qfrcConstraint[i], -10, 10);
    return obs;
  }

  protected resetModel(): Float64Array {
    this.setState(this.uniformNoise(this.initQpos, -0.1, 0.1), this.normalNoise(this.initQvel, 0.1));
    return this.getObs();
  }
}
