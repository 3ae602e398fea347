// InvertedPendulum-v4, ported from Gymnasium 0.29's `gymnasium/envs/mujoco/inverted_pendulum_v4.py`.
//
// A cart on a rail (force gear 100, ctrl in [-3, 3]) balances a hinged pole; dt = 2 * 0.02 s. Reward is +1 for
// every step, the terminating one included. Terminates when the observation is not finite or |pole angle| > 0.2.
// Observation (4): qpos (cart x, pole angle), qvel. Reset: qpos and qvel + U(-0.01, 0.01).

import type { StepResult } from "../gymnasium/core.ts";
import { MujocoEnv, unboundedObservationSpace } from "./mujoco_env.ts";

export interface InvertedPendulumKwargs {
  renderMode?: string | null;
}

export class InvertedPendulumEnv extends MujocoEnv {
  constructor(kwargs: InvertedPendulumKwargs = {}) {
    super({
      modelPath: "inverted_pendulum.xml",
      frameSkip: 2,
      observationSpace: unboundedObservationSpace(4),
      renderMode: kwargs.renderMode,
    });
  }

  step(action: ArrayLike<number>): StepResult<Float64Array> {
    const reward = 1.0;
    this.doSimulation(action, this.frameSkip);
    const obs = this.getObs();
    const terminated = !obs.every(Number.isFinite) || Math.abs(obs[1]) > 0.2;
    return [obs, reward, terminated, false, {}];
  }

  getObs(): Float64Array {
    return this.stateVector();
  }

  protected resetModel(): Float64Array {
    const qpos = this.uniformNoise(this.initQpos, -0.01, 0.01);
    const qvel = this.uniformNoise(this.initQvel, -0.01, 0.01);
    this.setState(qpos, qvel);
    return this.getObs();
  }
}
