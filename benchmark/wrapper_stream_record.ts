// Records a long stream through ppo_continuous_action.ts's own env stack (its `makeEnv`: RecordEpisodeStatistics,
// ClipAction, NormalizeObservation, clip, NormalizeReward, clip) inside a SyncVectorEnv, for
// benchmark/wrapper_stream_check.py to replay through CleanRL's `make_env` on Gymnasium 0.29.1:
//   npx tsx benchmark/wrapper_stream_record.ts --out DIR [--env-id Hopper-v4] [--steps 200000] [--max-episode-steps 50]
// A recorder sits right above the env (and its TimeLimit), so DIR holds what the stack was fed (each reset's
// observation; each step's action as the env received it, observation, reward, terminated, truncated) and what the
// vector env gave out (observation after autoreset, reward, terminated, truncated, final observation). Actions are
// N(0, 1) per component, as the initial policy's (log-std 0), so that ClipAction cuts about a third of them; a short
// time limit mixes truncations in with Hopper's terminations.
// Files (little-endian float64, row-major): inner_resets.f64 [resets, obs], inner_steps.f64 [steps, act + obs + 3],
// actions.f64 [steps, act], outer_reset.f64 [obs], outer_steps.f64 [steps, obs + 3 + obs] (final observation NaN
// where no episode ended), meta.json.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import * as gym from "../envs/gymnasium/index.ts";
import type { Env, Info, ResetArgs, StepResult } from "../envs/gymnasium/core.ts";
import { int, parseArgs, str, usageError } from "../envs/run/cli.ts";
import { handleExits } from "../envs/run/main.ts";
import { RandomGenerator } from "../envs/torch/rng.ts";
import { makeEnv } from "../ppo_continuous_action.ts";

handleExits();

const cli = parseArgs(
  {
    out: str(null, "directory to write the stream into"),
    envId: str("Hopper-v4", "the MuJoCo task under the stack"),
    steps: int(200_000, "vector-env steps to record", { ge: 1 }),
    maxEpisodeSteps: int(50, "time limit of the recorded env (short, so that truncations occur)", { ge: 1 }),
    seed: int(1, "seed of the env's reset and of the actions", { ge: 0 }),
  },
  "Records what ppo_continuous_action.ts's env stack is fed and gives out over a long random-action stream.",
  "benchmark/wrapper_stream_record.ts",
  process.argv.slice(2),
);
if (cli.out === null) usageError("--out is required");

/** Passes everything through, keeping a copy of what the env below it returned. */
class Recorder extends gym.Wrapper<Float64Array, Float32Array> {
  readonly resets: number[] = [];
  readonly steps: number[] = [];
  override reset(args: ResetArgs = {}): [Float64Array, Info] {
    const [obs, info] = this.env.reset(args);
    this.resets.push(...obs);
    return [obs, info];
  }
  override step(action: Float32Array): StepResult<Float64Array> {
    const result = this.env.step(action);
    const [obs, reward, terminated, truncated] = result;
    this.steps.push(...action, ...obs, reward, terminated ? 1 : 0, truncated ? 1 : 0);
    return result;
  }
}

await gym.mujoco.init();
const recordedId = `Recorded${cli.envId}`;
let recorder: Recorder | null = null;
gym.register({
  id: recordedId,
  entryPoint: () => {
    recorder = new Recorder(
      gym.make(cli.envId, { maxEpisodeSteps: cli.maxEpisodeSteps }) as Env<Float64Array, Float32Array>,
    );
    return recorder;
  },
  maxEpisodeSteps: null,
});
const envs = new gym.vector.SyncVectorEnv([makeEnv(recordedId, 0, false, "wrapper_stream", 0.99)]);
const [obsDim, actDim] = [envs.singleObservationSpace.size, envs.singleActionSpace.size];

const rng = new RandomGenerator(cli.seed);
const actions = new Float64Array(cli.steps * actDim);
const outer = new Float64Array(cli.steps * (2 * obsDim + 3)).fill(NaN);
const [resetObs] = envs.reset({ seed: cli.seed });
const outerReset = Float64Array.from(resetObs);
let episodes = 0;
for (let t = 0; t < cli.steps; t++) {
  const action = Float32Array.from({ length: actDim }, () => rng.normal());
  actions.set(action, t * actDim);
  const [obs, rewards, terminations, truncations, infos] = envs.step(action);
  const row = t * (2 * obsDim + 3);
  outer.set(obs, row);
  outer.set([rewards[0], terminations[0], truncations[0]], row + obsDim);
  const final = infos.final_observation?.[0];
  if (final != null) {
    outer.set(final as ArrayLike<number>, row + obsDim + 3);
    episodes++;
  }
}
envs.close();

const { resets, steps } = recorder as unknown as Recorder;
mkdirSync(cli.out, { recursive: true });
const write = (name: string, values: ArrayLike<number>) =>
  writeFileSync(join(cli.out as string, name), Buffer.from(Float64Array.from(values).buffer));
write("inner_resets.f64", resets);
write("inner_steps.f64", steps);
write("actions.f64", actions);
write("outer_reset.f64", outerReset);
write("outer_steps.f64", outer);
const meta = {
  envId: cli.envId,
  steps: cli.steps,
  maxEpisodeSteps: cli.maxEpisodeSteps,
  seed: cli.seed,
  obsDim,
  actDim,
};
writeFileSync(join(cli.out, "meta.json"), `${JSON.stringify({ ...meta, episodes, gamma: 0.99 })}\n`);
console.log(`${cli.out}: ${cli.steps} steps, ${episodes} episodes`);
