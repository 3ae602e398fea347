// Registers Gymnasium's MuJoCo "-v4" tasks under their Gymnasium ids, with the time limits and reward thresholds
// of `gymnasium/envs/__init__.py` (0.29). envs/gymnasium/index.ts re-exports this module as `gym.mujoco`.
//
// MuJoCo itself (WebAssembly) is loaded on request, not at import: run `await gym.mujoco.init()` once before
// `gym.make("Hopper-v4")`. Making a MuJoCo env earlier throws an error saying so. See envs/mujoco/mujoco_env.ts
// for why (instantiating the WASM module takes time that processes which never use MuJoCo should not pay).

import { register } from "../gymnasium/registration.ts";
import { ANT_KWARGS, AntEnv, type AntKwargs } from "./ant.ts";
import { HALF_CHEETAH_KWARGS, HalfCheetahEnv, type HalfCheetahKwargs } from "./half_cheetah.ts";
import { HOPPER_KWARGS, HopperEnv, type HopperKwargs } from "./hopper.ts";
import { HUMANOID_KWARGS, HumanoidEnv, type HumanoidKwargs } from "./humanoid.ts";
import { InvertedDoublePendulumEnv } from "./inverted_double_pendulum.ts";
import { InvertedPendulumEnv } from "./inverted_pendulum.ts";
import { loadMujoco } from "./mujoco_env.ts";
import { PusherEnv } from "./pusher.ts";
import { ReacherEnv } from "./reacher.ts";
import { SWIMMER_KWARGS, SwimmerEnv, type SwimmerKwargs } from "./swimmer.ts";
import { WALKER2D_KWARGS, Walker2dEnv, type Walker2dKwargs } from "./walker2d.ts";

export {
  AntEnv,
  HalfCheetahEnv,
  HopperEnv,
  HumanoidEnv,
  InvertedDoublePendulumEnv,
  InvertedPendulumEnv,
  PusherEnv,
  ReacherEnv,
  SwimmerEnv,
  Walker2dEnv,
};
export type { AntKwargs, HalfCheetahKwargs, HopperKwargs, HumanoidKwargs, SwimmerKwargs, Walker2dKwargs };
export { MujocoEnv, isMujocoLoaded, loadMujoco, wasmHeapBytes } from "./mujoco_env.ts";

/** Loads MuJoCo's WASM module (once per process). Await it before making a MuJoCo env. */
export const init = loadMujoco;

register({
  id: "Hopper-v4",
  spaceKinds: { action: "continuous", observation: "vector" },
  entryPoint: (kw) => new HopperEnv(kw as HopperKwargs),
  acceptedKwargs: HOPPER_KWARGS,
  maxEpisodeSteps: 1000,
  rewardThreshold: 3800.0,
});

register({
  id: "HalfCheetah-v4",
  spaceKinds: { action: "continuous", observation: "vector" },
  entryPoint: (kw) => new HalfCheetahEnv(kw as HalfCheetahKwargs),
  acceptedKwargs: HALF_CHEETAH_KWARGS,
  maxEpisodeSteps: 1000,
  rewardThreshold: 4800.0,
});

register({
  id: "InvertedPendulum-v4",
  spaceKinds: { action: "continuous", observation: "vector" },
  entryPoint: (kw) => new InvertedPendulumEnv(kw),
  acceptedKwargs: [],
  maxEpisodeSteps: 1000,
  rewardThreshold: 950.0,
});

register({
  id: "Walker2d-v4",
  spaceKinds: { action: "continuous", observation: "vector" },
  entryPoint: (kw) => new Walker2dEnv(kw as Walker2dKwargs),
  acceptedKwargs: WALKER2D_KWARGS,
  maxEpisodeSteps: 1000,
});

register({
  id: "InvertedDoublePendulum-v4",
  spaceKinds: { action: "continuous", observation: "vector" },
  entryPoint: (kw) => new InvertedDoublePendulumEnv(kw),
  acceptedKwargs: [],
  maxEpisodeSteps: 1000,
  rewardThreshold: 9100.0,
});

register({
  id: "Swimmer-v4",
  spaceKinds: { action: "continuous", observation: "vector" },
  entryPoint: (kw) => new SwimmerEnv(kw as SwimmerKwargs),
  acceptedKwargs: SWIMMER_KWARGS,
  maxEpisodeSteps: 1000,
  rewardThreshold: 360.0,
});

register({
  id: "Reacher-v4",
  spaceKinds: { action: "continuous", observation: "vector" },
  entryPoint: (kw) => new ReacherEnv(kw),
  acceptedKwargs: [],
  maxEpisodeSteps: 50,
  rewardThreshold: -3.75,
});

// Gymnasium refuses Pusher-v4 on MuJoCo >= 3; registered here with that caveat (see envs/mujoco/pusher.ts).
register({
  id: "Pusher-v4",
  spaceKinds: { action: "continuous", observation: "vector" },
  entryPoint: (kw) => new PusherEnv(kw),
  acceptedKwargs: [],
  maxEpisodeSteps: 100,
  rewardThreshold: 0.0,
});

register({
  id: "Ant-v4",
  spaceKinds: { action: "continuous", observation: "vector" },
  entryPoint: (kw) => new AntEnv(kw as AntKwargs),
  acceptedKwargs: ANT_KWARGS,
  maxEpisodeSteps: 1000,
  rewardThreshold: 6000.0,
});

register({
  id: "Humanoid-v4",
  spaceKinds: { action: "continuous", observation: "vector" },
  entryPoint: (kw) => new HumanoidEnv(kw as HumanoidKwargs),
  acceptedKwargs: HUMANOID_KWARGS,
  maxEpisodeSteps: 1000,
});
