// Registers Gymnasium's Box2D environments (LunarLander and BipedalWalker, as in Gymnasium 1.0's
// `gymnasium/envs/__init__.py`) with the same kwargs, time limits and reward thresholds. CarRacing is not ported.
//
// Only the v3 ids are registered. LunarLander-v2 is not an alias of v3 (v3 changed the observation bounds, the
// wind seeding and the world rebuild on reset, see lunar_lander.ts), and BipedalWalker has no other version in
// Gymnasium 0.29 / 1.0.

import { register } from "../gymnasium/registration.ts";
import { BipedalWalker, type BipedalWalkerKwargs } from "./bipedal_walker.ts";
import { LunarLander, type LunarLanderKwargs, heuristicLander } from "./lunar_lander.ts";

export { BipedalWalker, LunarLander, heuristicLander };
export type { BipedalWalkerKwargs, LunarLanderKwargs };

// The constructors' kwargs besides renderMode; `make` rejects any other (a misspelt kwarg fails, as in Python).
const LUNAR_LANDER_KWARGS = [
  "continuous",
  "gravity",
  "enableWind",
  "windPower",
  "turbulencePower",
] as const satisfies readonly (keyof LunarLanderKwargs)[];
const BIPEDAL_WALKER_KWARGS = ["hardcore"] as const satisfies readonly (keyof BipedalWalkerKwargs)[];

register({
  id: "LunarLander-v3",
  spaceKinds: { action: "discrete", observation: "vector" },
  entryPoint: (kw) => new LunarLander(kw as LunarLanderKwargs),
  acceptedKwargs: LUNAR_LANDER_KWARGS,
  maxEpisodeSteps: 1000,
  rewardThreshold: 200,
});

register({
  id: "LunarLanderContinuous-v3",
  spaceKinds: { action: "continuous", observation: "vector" },
  entryPoint: (kw) => new LunarLander(kw as LunarLanderKwargs),
  acceptedKwargs: LUNAR_LANDER_KWARGS,
  kwargs: { continuous: true },
  maxEpisodeSteps: 1000,
  rewardThreshold: 200,
});

register({
  id: "BipedalWalker-v3",
  spaceKinds: { action: "continuous", observation: "vector" },
  entryPoint: (kw) => new BipedalWalker(kw as BipedalWalkerKwargs),
  acceptedKwargs: BIPEDAL_WALKER_KWARGS,
  maxEpisodeSteps: 1600,
  rewardThreshold: 300,
});

register({
  id: "BipedalWalkerHardcore-v3",
  spaceKinds: { action: "continuous", observation: "vector" },
  entryPoint: (kw) => new BipedalWalker(kw as BipedalWalkerKwargs),
  acceptedKwargs: BIPEDAL_WALKER_KWARGS,
  kwargs: { hardcore: true },
  maxEpisodeSteps: 2000,
  rewardThreshold: 300,
});
