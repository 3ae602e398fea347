// Registers Gymnasium's classic-control environments under their Gymnasium ids, with the same time limits and
// reward thresholds as `gymnasium/envs/__init__.py`. Importing this module is what makes `make("CartPole-v1")` work.

import { register } from "../gymnasium/registration.ts";
import { AcrobotEnv, type AcrobotKwargs } from "./acrobot.ts";
import { CartPoleEnv, type CartPoleKwargs } from "./cartpole.ts";
import { Continuous_MountainCarEnv, type ContinuousMountainCarKwargs } from "./continuous_mountain_car.ts";
import { MountainCarEnv, type MountainCarKwargs } from "./mountain_car.ts";
import { PendulumEnv, type PendulumKwargs } from "./pendulum.ts";

export { AcrobotEnv, CartPoleEnv, Continuous_MountainCarEnv, MountainCarEnv, PendulumEnv };
export type { AcrobotKwargs, CartPoleKwargs, ContinuousMountainCarKwargs, MountainCarKwargs, PendulumKwargs };

register({
  id: "CartPole-v0",
  spaceKinds: { action: "discrete", observation: "vector" },
  entryPoint: (kw) => new CartPoleEnv(kw as CartPoleKwargs),
  acceptedKwargs: ["suttonBartoReward"],
  maxEpisodeSteps: 200,
  rewardThreshold: 195.0,
});

register({
  id: "CartPole-v1",
  spaceKinds: { action: "discrete", observation: "vector" },
  entryPoint: (kw) => new CartPoleEnv(kw as CartPoleKwargs),
  acceptedKwargs: ["suttonBartoReward"],
  maxEpisodeSteps: 500,
  rewardThreshold: 475.0,
});

register({
  id: "MountainCar-v0",
  spaceKinds: { action: "discrete", observation: "vector" },
  entryPoint: (kw) => new MountainCarEnv(kw as MountainCarKwargs),
  acceptedKwargs: ["goalVelocity"],
  maxEpisodeSteps: 200,
  rewardThreshold: -110.0,
});

register({
  id: "MountainCarContinuous-v0",
  spaceKinds: { action: "continuous", observation: "vector" },
  entryPoint: (kw) => new Continuous_MountainCarEnv(kw as ContinuousMountainCarKwargs),
  acceptedKwargs: ["goalVelocity"],
  maxEpisodeSteps: 999,
  rewardThreshold: 90.0,
});

register({
  id: "Pendulum-v1",
  spaceKinds: { action: "continuous", observation: "vector" },
  entryPoint: (kw) => new PendulumEnv(kw as PendulumKwargs),
  acceptedKwargs: ["g"],
  maxEpisodeSteps: 200,
});

register({
  id: "Acrobot-v1",
  spaceKinds: { action: "discrete", observation: "vector" },
  entryPoint: (kw) => new AcrobotEnv(kw as AcrobotKwargs),
  acceptedKwargs: [],
  maxEpisodeSteps: 500,
  rewardThreshold: -100.0,
});
