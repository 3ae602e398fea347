// The fixed-seed short runs whose logged numbers tests/behaviour.test.ts holds bit for bit (recorded by
// benchmark/record_behaviour.ts). Small batches, a few iterations each: enough to cross episode ends, the
// learning-rate schedule, several epochs of shuffled minibatches and the logging of every scalar.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { readRunDir } from "../envs/run/logging.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const ROM_DIR = process.env.ALE_ROMS_DIR || fileURLToPath(new URL("../../shared/roms", import.meta.url));

export interface BehaviourCase {
  name: string;
  /** The script and its flags, run from a scratch folder with node --import tsx. */
  argv: string[];
  /** ROM files the case needs (skipped without them). */
  roms?: string[];
}

// Two iterations of small batches for the CNN variants (their updates are the slow part); more for the MLPs.
const short = (numEnvs: number, numSteps: number) => {
  const sizes = ["--num-steps", String(numSteps), "--total-timesteps", String(2 * numEnvs * numSteps)];
  return ["--backend", "wasm", ...sizes];
};
const hopper = ["--env-id", "Hopper-v4", "--num-steps", "128", "--total-timesteps", "512"];
export const BEHAVIOUR_CASES: BehaviourCase[] = [
  { name: "ppo_cartpole_wasm", argv: ["ppo.ts", "--backend", "wasm", "--total-timesteps", "2048"] },
  { name: "ppo_cartpole_cpu", argv: ["ppo.ts", "--backend", "cpu", "--total-timesteps", "2048"] },
  { name: "ppo_continuous_hopper_wasm", argv: ["ppo_continuous_action.ts", "--backend", "wasm", ...hopper] },
  { name: "ppo_continuous_hopper_cpu", argv: ["ppo_continuous_action.ts", "--backend", "cpu", ...hopper] },
  {
    name: "ppo_atari_breakout_wasm",
    argv: ["ppo_atari.ts", ...short(2, 16), "--num-envs", "2", "--rom-dir", ROM_DIR],
    roms: ["breakout.bin"],
  },
  {
    name: "ppo_atari_lstm_memorycue_wasm",
    argv: ["ppo_atari_lstm.ts", ...short(4, 32), "--env-id", "MemoryCue-v0", "--num-envs", "4"],
  },
  {
    name: "ppo_atari_lstm_breakout_wasm",
    argv: ["ppo_atari_lstm.ts", ...short(4, 16), "--num-envs", "4", "--rom-dir", ROM_DIR],
    roms: ["breakout.bin"],
  },
  {
    name: "ppo_procgen_starpilot_wasm",
    argv: ["ppo_procgen.ts", ...short(2, 16), "--env-id", "starpilot", "--use-monochrome-assets", "--num-envs", "2"],
  },
  {
    name: "ppo_atari_multigpu_breakout_wasm",
    argv: ["ppo_atari_multigpu.ts", ...short(2, 16), "--local-num-envs", "2", "--rom-dir", ROM_DIR],
    roms: ["breakout.bin"],
  },
  {
    name: "ppo_pettingzoo_pong_wasm",
    argv: [
      "ppo_pettingzoo_ma_atari.ts",
      ...short(4, 16),
      "--env-id",
      "pong_v3",
      "--num-envs",
      "2",
      "--rom-dir",
      ROM_DIR,
    ],
    roms: ["pong.bin"],
  },
];

export interface LoggedScalar {
  tag: string;
  step: number;
  value: number;
}

/** Why the case cannot run here, or false. */
export function missing(c: BehaviourCase): string | false {
  const absent = (c.roms ?? []).filter((rom) => !existsSync(join(ROM_DIR, rom)));
  return absent.length > 0 ? `needs ${absent.join(", ")} in ${ROM_DIR} (ALE_ROMS_DIR)` : false;
}

/**
 * The environment of a recorded run: no wandb, and no procgen image folder (the procgen case was recorded with
 * the monochrome sprites, and images found through PROCGEN_ASSETS_DIR would be drawn instead).
 */
function hermetic(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, WANDB_MODE: "disabled" };
  delete env.PROCGEN_ASSETS_DIR;
  return env;
}

/** Runs the case in a scratch folder and returns every scalar it logged but charts/SPS, in file order. */
export function runCase(c: BehaviourCase): LoggedScalar[] {
  const cwd = mkdtempSync(join(tmpdir(), `behaviour-${c.name}-`));
  try {
    const [script, ...flags] = c.argv;
    const result = spawnSync(process.execPath, ["--import", import.meta.resolve("tsx"), join(ROOT, script), ...flags], {
      cwd,
      encoding: "utf8",
      env: hermetic(),
    });
    if (result.status !== 0)
      throw new Error(`${c.argv.join(" ")} exited ${result.status}: ${result.stderr.slice(-2000)}`);
    const [run] = readdirSync(join(cwd, "runs"));
    return readRunDir(join(cwd, "runs", run))
      .filter((e) => e.text === undefined && e.tag !== "charts/SPS")
      .map(({ tag, step, value }) => ({ tag, step, value }));
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}
