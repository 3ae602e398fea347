// Records what ppo_atari.ts's env stack gives out under a stream of actions, so that
// benchmark/atari_stack_check.py can feed the same actions to CleanRL's own stack (ppo_atari.py's `make_env`:
// cleanrl_utils's NoopReset, MaxAndSkip, EpisodicLife, FireReset and ClipReward, Gymnasium 0.29's ResizeObservation,
// GrayScaleObservation and FrameStack, over ale-py) and compare every step:
//   npx tsx benchmark/atari_stack_record.ts --out DIR [--env-id BreakoutNoFrameskip-v4] [--steps 4000] [--rom-dir D]
// Both sides are a SyncVectorEnv of --num-envs envs reset once with --seed, as in the training scripts, so the
// no-op draws and the autoresets after lost lives and game overs come from the same place on both sides.
// The actions: with --policy track (Breakout only) the paddle follows the ball, read from the RAM (ball x at 99,
// paddle x at 72, as annotated by AtariARI), and FIRE serves; a share --epsilon of the actions is uniform instead.
// Tracking reaches what random play does not: many bricks broken, the faster ball, long games. --policy random is
// uniform throughout. The files (row-major [steps, numEnvs] unless said): actions.u8, rewards.f32,
// flags.u8 (bit 0 terminated, bit 1 truncated), obs.sha1 (one hex digest per line of the whole observation batch:
// the reset's, then each step's), episodes.json (per finished game: step, env, return, length) and meta.json
// (written last).
// tests/atari_stack_cleanrl.test.ts replays a short recording whose digest CleanRL's stack made (the checker's
// --fixture).

import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

import type { AtariEnv } from "../envs/ale/env.ts";
import * as gym from "../envs/gymnasium/index.ts";
import type { Discrete } from "../envs/gymnasium/spaces.ts";
import { float, int, parseArgs, str, usageError } from "../envs/run/cli.ts";
import { runMain } from "../envs/run/main.ts";
import { RandomGenerator } from "../envs/torch/rng.ts";
import { makeEnv } from "../ppo_atari.ts";

export interface StackOptions {
  envId: string;
  numEnvs: number;
  steps: number;
  seed: number;
  policy: "track" | "random";
  epsilon: number;
}

export interface StackRecording {
  actions: Uint8Array; // [steps, numEnvs]
  rewards: Float32Array; // [steps, numEnvs]
  flags: Uint8Array; // [steps, numEnvs]: bit 0 terminated, bit 1 truncated
  digests: string[]; // SHA-1 of the observation batch: the reset's, then each step's
  episodes: { step: number; env: number; r: number; l: number }[];
}

const BALL_X = 99;
const PADDLE_X = 72;
const [NOOP, FIRE, RIGHT, LEFT] = [0, 1, 2, 3];

/** Steps ppo_atari.ts's env stack (its `makeEnv`, in a SyncVectorEnv) under the action stream and records it. */
export function recordStack(o: StackOptions): StackRecording {
  const envs = new gym.vector.SyncVectorEnv(
    Array.from({ length: o.numEnvs }, (_, i) => makeEnv(o.envId, i, false, "atari-stack-record")),
  );
  const numActions = (envs.singleActionSpace as Discrete).n;
  const ales = envs.envs.map((env) => (env.unwrapped as AtariEnv).ale);
  const ram = new Uint8Array(128);
  const rng = new RandomGenerator(o.seed);

  /** One env's action: uniform, or toward the ball (FIRE when no ball is in play). */
  const act = (e: number): number => {
    if (o.policy === "random" || rng.random() < o.epsilon) return Math.floor(rng.random() * numActions);
    ales[e].getRAM(ram);
    const ball = ram[BALL_X];
    if (ball === 0) return FIRE;
    const paddle = ram[PADDLE_X];
    if (ball > paddle + 10) return RIGHT;
    if (ball < paddle + 4) return LEFT;
    return NOOP;
  };
  const digest = (obs: Uint8Array) => createHash("sha1").update(obs).digest("hex");

  const n = o.numEnvs;
  const rec: StackRecording = {
    actions: new Uint8Array(o.steps * n),
    rewards: new Float32Array(o.steps * n),
    flags: new Uint8Array(o.steps * n),
    digests: [],
    episodes: [],
  };
  const [resetObs] = envs.reset({ seed: o.seed });
  rec.digests.push(digest(resetObs as Uint8Array));
  for (let t = 0; t < o.steps; t++) {
    const action = Uint8Array.from({ length: n }, (_, e) => act(e));
    rec.actions.set(action, t * n);
    const [obs, reward, terminated, truncated, infos] = envs.step(action);
    rec.digests.push(digest(obs as Uint8Array));
    for (let e = 0; e < n; e++) {
      rec.rewards[t * n + e] = reward[e];
      rec.flags[t * n + e] = (terminated[e] ? 1 : 0) | (truncated[e] ? 2 : 0);
      const episode = infos.final_info?.[e]?.episode;
      if (episode) rec.episodes.push({ step: t, env: e, r: episode.r, l: episode.l });
    }
  }
  envs.close();
  return rec;
}

/**
 * One SHA-1 over a whole recording: the observation digests (hex, one per line), then the rewards as float32 and
 * the flags as bytes, little-endian. benchmark/atari_stack_check.py computes the same over CleanRL's stack.
 */
export function trajectoryDigest(rec: StackRecording): string {
  return createHash("sha1")
    .update(`${rec.digests.join("\n")}\n`)
    .update(rec.rewards)
    .update(rec.flags)
    .digest("hex");
}

async function main(): Promise<void> {
  const cli = parseArgs(
    {
      out: str(null, "directory to write the recording to"),
      envId: str("BreakoutNoFrameskip-v4", "the Atari id (ppo_atari.ts's --env-id)"),
      numEnvs: int(8, "the number of envs in the vector env", { ge: 1 }),
      steps: int(4000, "the number of vector-env steps", { ge: 1 }),
      seed: int(1, "the seed of the vector env's reset and of the action stream", { ge: 0 }),
      policy: str("track", "track (the paddle follows the ball; Breakout only) or random"),
      epsilon: float(0.2, "with --policy track, the share of uniform random actions", { ge: 0, le: 1 }),
      romDir: str(null, "the folder holding the Atari ROM images (else ALE_ROMS_DIR)"),
    },
    "Records ppo_atari.ts's env stack under an action stream, for benchmark/atari_stack_check.py.",
    "benchmark/atari_stack_record.ts",
    process.argv.slice(2),
  );
  if (cli.out === null) usageError("--out is required");
  if (cli.policy !== "track" && cli.policy !== "random")
    usageError(`--policy must be track or random, not ${cli.policy}`);
  if (cli.policy === "track" && !cli.envId.startsWith("Breakout"))
    usageError("--policy track reads Breakout's RAM: use --policy random for other games");
  if (cli.romDir !== null) process.env.ALE_ROMS_DIR = cli.romDir;

  const options: StackOptions = { ...cli, policy: cli.policy };
  const rec = recordStack(options);
  mkdirSync(cli.out, { recursive: true });
  writeFileSync(join(cli.out, "actions.u8"), rec.actions);
  writeFileSync(join(cli.out, "rewards.f32"), rec.rewards);
  writeFileSync(join(cli.out, "flags.u8"), rec.flags);
  writeFileSync(join(cli.out, "obs.sha1"), `${rec.digests.join("\n")}\n`);
  writeFileSync(join(cli.out, "episodes.json"), JSON.stringify(rec.episodes));
  const { envId, numEnvs, steps, seed, policy, epsilon } = options;
  writeFileSync(join(cli.out, "meta.json"), JSON.stringify({ envId, numEnvs, steps, seed, policy, epsilon }));
  const returns = rec.episodes.map((x) => x.r);
  const mean = returns.reduce((a, b) => a + b, 0) / Math.max(1, returns.length);
  console.log(
    `${steps} steps of ${numEnvs} envs: ${returns.length} games, return mean ${mean.toFixed(2)}, max ${Math.max(0, ...returns)}; written to ${cli.out}`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await runMain(main);
