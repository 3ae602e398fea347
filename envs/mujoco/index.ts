// Registers Gymnasium's MuJoCo "-v4" tasks under their Gymnasium ids, with the time limits and reward thresholds
// of `gymnasium/envs/__init__.py` (0.29). Importing this module is what makes `make("Hopper-v4")` work.
//
// MuJoCo is WebAssembly, and instantiating a WASM module is asynchronous, while `make` / `reset` / `step` are
// synchronous (as in Gymnasium). So this module finishes loading MuJoCo at top level before anything that
// imports it runs: `import * as gym from "./envs/index.ts"` returns with MuJoCo ready. The cost is paid once
// per process, by every importer of envs/index.ts; it is measured in the report (about 0.15 s).

import type { Env } from "../core.ts";
import { register } from "../registration.ts";
import { HALF_CHEETAH_KWARGS, HalfCheetahEnv, type HalfCheetahKwargs } from "./half_cheetah.ts";
import { HOPPER_KWARGS, HopperEnv, type HopperKwargs } from "./hopper.ts";
import { InvertedDoublePendulumEnv } from "./inverted_double_pendulum.ts";
import { InvertedPendulumEnv } from "./inverted_pendulum.ts";
import { loadMujoco } from "./mujoco_env.ts";
import { WALKER2D_KWARGS, Walker2dEnv, type Walker2dKwargs } from "./walker2d.ts";

export { HalfCheetahEnv, HopperEnv, InvertedDoublePendulumEnv, InvertedPendulumEnv, Walker2dEnv };
export type { HalfCheetahKwargs, HopperKwargs, Walker2dKwargs };
export { MujocoEnv, isMujocoLoaded, loadMujoco, wasmHeapBytes } from "./mujoco_env.ts";

await loadMujoco();

/** `gym.make` with a keyword argument the constructor does not take fails, as Python's TypeError would. */
function accepting<K>(id: string, allowed: readonly string[], construct: (kwargs: K) => Env) {
  return (kwargs: Record<string, unknown>): Env => {
    for (const key of Object.keys(kwargs)) {
      if (key !== "renderMode" && !allowed.includes(key)) {
        throw new TypeError(`${id}: unexpected keyword argument "${key}" (accepted: renderMode${allowed.map((a) => `, ${a}`).join("")})`);
      }
    }
    return construct(kwargs as K);
  };
}

register({
  id: "Hopper-v4",
  entryPoint: accepting<HopperKwargs>("Hopper-v4", HOPPER_KWARGS, (kw) => new HopperEnv(kw)),
  maxEpisodeSteps: 1000,
  rewardThreshold: 3800.0,
});

register({
  id: "HalfCheetah-v4",
  entryPoint: accepting<HalfCheetahKwargs>("HalfCheetah-v4", HALF_CHEETAH_KWARGS, (kw) => new HalfCheetahEnv(kw)),
  maxEpisodeSteps: 1000,
  rewardThreshold: 4800.0,
});

register({
  id: "InvertedPendulum-v4",
  entryPoint: accepting("InvertedPendulum-v4", [], (kw: { renderMode?: string | null }) => new InvertedPendulumEnv(kw)),
  maxEpisodeSteps: 1000,
  rewardThreshold: 950.0,
});

register({
  id: "Walker2d-v4",
  entryPoint: accepting<Walker2dKwargs>("Walker2d-v4", WALKER2D_KWARGS, (kw) => new Walker2dEnv(kw)),
  maxEpisodeSteps: 1000,
});

register({
  id: "InvertedDoublePendulum-v4",
  entryPoint: accepting("InvertedDoublePendulum-v4", [], (kw: { renderMode?: string | null }) => new InvertedDoublePendulumEnv(kw)),
  maxEpisodeSteps: 1000,
  rewardThreshold: 9100.0,
});
