// Registers Gymnasium's classic-control environments under their Gymnasium ids, with the same time limits and
// reward thresholds as `gymnasium/envs/__init__.py`. Importing this module is what makes `make("CartPole-v1")` work.

import { register } from "../registration.ts";
import { AcrobotEnv, type AcrobotKwargs } from "./acrobot.ts";
import { CartPoleEnv, type CartPoleKwargs } from "./cartpole.ts";
import { Continuous_MountainCarEnv, type ContinuousMountainCarKwargs } from "./continuous_mountain_car.ts";
import { MountainCarEnv, type MountainCarKwargs } from "./mountain_car.ts";
import { PendulumEnv, type PendulumKwargs } from "./pendulum.ts";

export { AcrobotEnv, CartPoleEnv, Continuous_MountainCarEnv, MountainCarEnv, PendulumEnv };
export type { AcrobotKwargs, CartPoleKwargs, ContinuousMountainCarKwargs, MountainCarKwargs, PendulumKwargs };

/**
 * Python raises `TypeError: unexpected keyword argument` when `gym.make` passes a kwarg the constructor does not
 * take; do the same, so a misspelt kwarg (`gravity` for Pendulum's `g`) fails loudly instead of being ignored.
 */
function checked<K extends object>(id: string, kwargs: Record<string, unknown>, allowed: readonly string[]): K {
  for (const key of Object.keys(kwargs)) {
    if (key !== "renderMode" && !allowed.includes(key)) {
      throw new TypeError(`${id}: unexpected keyword argument "${key}" (accepted: renderMode${allowed.map((a) => `, ${a}`).join("")})`);
    }
  }
  return kwargs as K;
}

register({
  id: "CartPole-v0",
  entryPoint: (kw) => new CartPoleEnv(checked<CartPoleKwargs>("CartPole-v0", kw, ["suttonBartoReward"])),
  maxEpisodeSteps: 200,
  rewardThreshold: 195.0,
});

register({
  id: "CartPole-v1",
  entryPoint: (kw) => new CartPoleEnv(checked<CartPoleKwargs>("CartPole-v1", kw, ["suttonBartoReward"])),
  maxEpisodeSteps: 500,
  rewardThreshold: 475.0,
});

register({
  id: "MountainCar-v0",
  entryPoint: (kw) => new MountainCarEnv(checked<MountainCarKwargs>("MountainCar-v0", kw, ["goalVelocity"])),
  maxEpisodeSteps: 200,
  rewardThreshold: -110.0,
});

register({
  id: "MountainCarContinuous-v0",
  entryPoint: (kw) => new Continuous_MountainCarEnv(checked<ContinuousMountainCarKwargs>("MountainCarContinuous-v0", kw, ["goalVelocity"])),
  maxEpisodeSteps: 999,
  rewardThreshold: 90.0,
});

register({
  id: "Pendulum-v1",
  entryPoint: (kw) => new PendulumEnv(checked<PendulumKwargs>("Pendulum-v1", kw, ["g"])),
  maxEpisodeSteps: 200,
});

register({
  id: "Acrobot-v1",
  entryPoint: (kw) => new AcrobotEnv(checked<AcrobotKwargs>("Acrobot-v1", kw, [])),
  maxEpisodeSteps: 500,
  rewardThreshold: -100.0,
});
