// PettingZoo's multi-agent Atari (pettingzoo.atari) and the SuperSuit wrappers CleanRL's ppo_pettingzoo_ma_atari.py
// uses: `import * as pettingzoo from "./envs/pettingzoo/index.ts"` gives `pettingzoo.atari.parallelEnv("pong_v3")`
// and `pettingzoo.ss.frameSkip(...)`.

export * as atari from "./atari.ts";
export * as ss from "./supersuit.ts";
export type { AgentDict, ParallelEnv, ParallelStepResult } from "./parallel.ts";
