// The `gym` namespace: `import * as gym from "./envs/gymnasium/index.ts"` makes the PPO files read like their Python
// originals (`gym.make(id)`, `gym.vector.SyncVectorEnv`, `gym.wrappers.RecordEpisodeStatistics`,
// `gym.spaces.Discrete`). Importing it registers the bundled environments, as `import gymnasium` does.

import "../classic_control/index.ts";
import "../ale/index.ts";
import "../box2d/index.ts";
import "../memory_cue/memory_cue.ts";

export { ActionWrapper, Env, ObservationWrapper, RewardWrapper, Wrapper } from "./core.ts";
export type { EnvSpec, Info, Metadata, ResetArgs, StepResult } from "./core.ts";
export { make, register, registeredIds, spaceKinds, spec } from "./registration.ts";
export type { EnvCreator, MakeOptions, SpaceKinds } from "./registration.ts";
export { Space } from "./spaces.ts";
export * as spaces from "./spaces.ts";
export * as wrappers from "./wrappers.ts";
export * as vector from "./vector.ts";
/** `gym.utils.checkEnv`, Gymnasium's `gymnasium.utils.env_checker.check_env`. */
export * as utils from "./env_checker.ts";
/** `gym.mujoco`: registers the MuJoCo "-v4" tasks; `await gym.mujoco.init()` loads MuJoCo before `gym.make`. */
export * as mujoco from "../mujoco/index.ts";
/** `gym.dm_control`: registers `dm_control/<domain>-<task>-v0` (Shimmy's ids); MuJoCo must be loaded first. */
export * as dm_control from "../dm_control/index.ts";
/** `gym.procgen`: registers `procgen-{game}-v0`; `gym.procgen.ProcgenEnv` is procgen's vector env. */
export * as procgen from "../procgen/index.ts";
