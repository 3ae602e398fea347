// Feeds the actions of a CleanRL training run, recorded by benchmark/env_replay_record.py, to
// ppo_continuous_action.ts's own env stack (its `makeEnv`: RecordEpisodeStatistics, ClipAction, NormalizeObservation,
// clip, NormalizeReward, clip, over gym.make's TimeLimit, in a SyncVectorEnv with autoreset) and compares what it
// gives out with what CleanRL's stack gave out, to the last bit:
//   npx tsx benchmark/env_replay_check.ts --dir DIR [--steps N]
// Three replays, each from `reset({ seed })` with the recording's seed:
// - the wrappers: the stack over a stand-in for MuJoCo that gives back the recorded raw observation, reward and
//   termination of each step (and the recorded reset observations), its TimeLimit ours: every output of the vector
//   env (observation after autoreset, reward, terminated, truncated, final observation) must have CleanRL's bits,
//   and ClipAction must hand down the recorded action clipped in float32;
// - the physics one step at a time: a Hopper is put into each recorded state before the step (qpos, qvel,
//   qacc_warmstart) and stepped once with the recorded action, clipped, so that every step of the run is compared
//   on its own, whatever the steps before it did;
// - open loop: the whole stack over our MuJoCo, fed every recorded action in turn; per step the vector env's
//   outputs and, below the wrappers, the MuJoCo state before the step and the raw observation and reward. The
//   first step at which anything differs is where the two runs part; the physics is chaotic, so from there the
//   difference grows until episodes end at different steps.
// Exits 0 when the wrapper replay matched every step to the last bit and the one-step physics stayed within
// --physics-tolerance with the same terminations, 1 when not, 2 on bad input.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

import * as gym from "../envs/gymnasium/index.ts";
import type { Env, Info, ResetArgs, StepResult } from "../envs/gymnasium/core.ts";
import type { Box } from "../envs/gymnasium/spaces.ts";
import type { MujocoEnv } from "../envs/mujoco/mujoco_env.ts";
import { float, int, parseArgs, str, usageError } from "../envs/run/cli.ts";
import { handleExits } from "../envs/run/main.ts";
import { makeEnv } from "../ppo_continuous_action.ts";

handleExits();

const cli = parseArgs(
  {
    dir: str(null, "directory written by benchmark/env_replay_record.py"),
    steps: int(null, "replay only the first N recorded steps", { ge: 1 }),
    physicsTolerance: float(1e-9, "largest |difference| a one-step replay may show for the exit code 0", { ge: 0 }),
  },
  "Replays a CleanRL run's recorded actions through ppo_continuous_action.ts's env stack and compares every output.",
  "benchmark/env_replay_check.ts",
  process.argv.slice(2),
);
if (cli.dir === null) usageError("--dir is required");
const dir = cli.dir;

interface Meta {
  envId: string;
  reset_seed: number;
  gamma: number;
  steps: number;
  episodes: number;
  inner_resets: number;
  nq: number;
  nv: number;
  obsDim: number;
  actDim: number;
  versions?: Record<string, string>;
}

const metaPath = join(dir, "meta.json");
if (!existsSync(metaPath)) usageError(`${metaPath} is missing (the recording is unfinished or not there)`);
let meta: Meta;
try {
  meta = JSON.parse(readFileSync(metaPath, "utf8"));
} catch (e) {
  usageError(`${metaPath}: ${(e as Error).message}`);
}
const keys = ["envId", "reset_seed", "gamma", "steps", "episodes", "inner_resets", "nq", "nv", "obsDim", "actDim"];
for (const key of keys) if (meta[key as keyof Meta] == null) usageError(`${metaPath} lacks "${key}"`);
const { nq, nv, obsDim, actDim } = meta;
const stateWidth = nq + 2 * nv; // qpos, qvel, qacc_warmstart
const innerWidth = stateWidth + obsDim + 1;

/** A recorded file as a typed array of `rows` rows of `width`; one-line error when its size is not that. */
function load<T>(name: string, make: (b: ArrayBuffer) => T, bytes: number, rows: number, width: number): T {
  const path = join(dir, name);
  if (!existsSync(path)) usageError(`${path} is missing`);
  const buffer = readFileSync(path);
  if (buffer.length !== rows * width * bytes) {
    usageError(`${path}: ${buffer.length} bytes, expected ${rows} rows of ${width} × ${bytes} bytes`);
  }
  return make(buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.length));
}
const f64 = (b: ArrayBuffer) => new Float64Array(b);
const actions = load("actions.f32", (b) => new Float32Array(b), 4, meta.steps, actDim);
const recObs = load("obs.f64", f64, 8, meta.steps, obsDim);
const recRewards = load("rewards.f64", f64, 8, meta.steps, 1);
const recFlags = load("flags.u8", (b) => new Uint8Array(b), 1, meta.steps, 1);
const recFinal = load("final_obs.f64", f64, 8, meta.episodes, obsDim);
const recReset = load("reset_obs.f64", f64, 8, 1, obsDim);
const inner = load("inner.f64", f64, 8, meta.steps, innerWidth);
const innerResets = load("inner_resets.f64", f64, 8, meta.inner_resets, obsDim);
const steps = Math.min(cli.steps ?? meta.steps, meta.steps);
const rowOf = (array: Float64Array, t: number, width: number, from = 0, to = width) =>
  array.subarray(t * width + from, t * width + to);
const stateBefore = (t: number) => rowOf(inner, t, innerWidth, 0, stateWidth);
const rawObs = (t: number) => rowOf(inner, t, innerWidth, stateWidth, stateWidth + obsDim);
const rawReward = (t: number) => inner[(t + 1) * innerWidth - 1];
const actionAt = (t: number) => actions.subarray(t * actDim, (t + 1) * actDim);

type Comparison = { same: boolean; diff: number; at: number };
/** Largest |a - b| over two rows, and whether every pair has the same bits (Object.is, so -0 and 0 differ). */
function compare(a: ArrayLike<number>, b: ArrayLike<number>): Comparison {
  let [same, diff, at] = [a.length === b.length, 0, -1];
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (Object.is(a[i], b[i])) continue;
    same = false;
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= diff)) [diff, at] = [d, i];
  }
  return { same, diff, at };
}

/** The first difference of each field over a replay, and the number of steps before the first of any. */
class Differences {
  readonly first = new Map<string, { step: number } & Comparison>();
  identicalSteps = -1;
  constructor(readonly fields: string[]) {}
  note(field: string, step: number, c: Comparison): void {
    if (!c.same && !this.first.has(field)) this.first.set(field, { step, ...c });
  }
  endStep(step: number): void {
    if (this.identicalSteps < 0 && this.first.size > 0) this.identicalSteps = step;
  }
  get allSame(): boolean {
    return this.first.size === 0;
  }
  print(title: string): void {
    console.log(
      `${title}: ${this.allSame ? `all ${steps} steps identical to the last bit` : `identical for ${this.identicalSteps} steps`}`,
    );
    for (const field of this.fields) {
      const d = this.first.get(field);
      const where =
        d === undefined
          ? field.includes("more than")
            ? "never"
            : "same bits throughout"
          : `first differs at step ${d.step} by ${d.diff.toExponential(3)} (component ${d.at})`;
      console.log(`  ${field}: ${where}`);
    }
  }
}

/** Steps a vector env built by `makeEnv` through the recorded actions, comparing its outputs with the recording. */
function replayVector(envId: string, differences: Differences, probe?: () => Probe) {
  const envs = new gym.vector.SyncVectorEnv([makeEnv(envId, 0, false, "env_replay", meta.gamma)]);
  const counts = { episodes: 0, terminations: 0, truncations: 0 };
  const [resetObs] = envs.reset({ seed: meta.reset_seed });
  differences.note("reset observation", -1, compare(resetObs, recReset));
  let finalRow = 0;
  for (let t = 0; t < steps; t++) {
    const p = probe?.();
    if (p) differences.note("MuJoCo state before the step", t, compare(p.state(), stateBefore(t)));
    const [obs, rewards, terminations, truncations, infos] = envs.step(actionAt(t));
    if (p) {
      differences.note("raw observation", t, compare(p.lastObs, rawObs(t)));
      differences.note("raw reward", t, compare([p.lastReward], [rawReward(t)]));
    }
    const o = compare(obs, rowOf(recObs, t, obsDim));
    differences.note("observation", t, o);
    // Where the runs part visibly rather than in the last bits.
    differences.note("observation by more than 1e-6", t, { ...o, same: !(o.diff > 1e-6) });
    differences.note("reward", t, compare(rewards, [recRewards[t]]));
    const flags = (terminations[0] ? 1 : 0) | (truncations[0] ? 2 : 0);
    differences.note("terminated, truncated", t, {
      same: flags === recFlags[t],
      diff: Math.abs(flags - recFlags[t]),
      at: 0,
    });
    const final = infos.final_observation?.[0] as ArrayLike<number> | undefined;
    if (final != null) {
      counts.episodes++;
      if (terminations[0]) counts.terminations++;
      else counts.truncations++;
    }
    if (final != null || recFlags[t] !== 0) {
      const both = final != null && recFlags[t] !== 0;
      differences.note(
        "final observation",
        t,
        both ? compare(final, rowOf(recFinal, finalRow, obsDim)) : { same: false, diff: Infinity, at: -1 },
      );
    }
    if (recFlags[t] !== 0) finalRow++;
    differences.endStep(t);
  }
  envs.close();
  return counts;
}
const vectorFields = [
  "reset observation",
  "observation",
  "observation by more than 1e-6",
  "reward",
  "terminated, truncated",
  "final observation",
];

const versions = Object.entries(meta.versions ?? {})
  .map(([k, v]) => `${k} ${v}`)
  .join(", ");
console.log(`recording: ${dir} (${meta.envId}, reset seed ${meta.reset_seed}, ${meta.steps} steps; ${versions})`);

// The recording's episodes: how long, how they end, per fifth of the replayed steps.
const episodes: { end: number; length: number; terminated: boolean; truncated: boolean }[] = [];
for (let t = 0, length = 0; t < steps; t++) {
  length++;
  if (recFlags[t] !== 0) {
    episodes.push({ end: t, length, terminated: (recFlags[t] & 1) === 1, truncated: (recFlags[t] & 2) === 2 });
    length = 0;
  }
}
const tally = (list: typeof episodes) => ({
  episodes: list.length,
  terminations: list.filter((e) => e.terminated).length,
  truncations: list.filter((e) => e.truncated && !e.terminated).length,
});
const describe = (c: ReturnType<typeof tally>) =>
  `${c.episodes} episodes (${c.terminations} terminated, ${c.truncations} truncated at the time limit)`;
console.log(`recorded over ${steps} steps: ${describe(tally(episodes))}; per fifth of the steps:`);
for (let k = 0; k < 5; k++) {
  const [from, to] = [Math.floor((k * steps) / 5), Math.floor(((k + 1) * steps) / 5)];
  const fifth = episodes.filter((e) => e.end >= from && e.end < to);
  const mean = fifth.reduce((s, e) => s + e.length, 0) / Math.max(1, fifth.length);
  console.log(`  steps ${from}–${to - 1}: ${describe(tally(fifth))}, mean length ${mean.toFixed(1)}`);
}

await gym.mujoco.init();
const real = gym.make(meta.envId);
if (real.observationSpace.size !== obsDim || real.actionSpace.size !== actDim) {
  usageError(`${meta.envId}'s spaces here are ${real.observationSpace} and ${real.actionSpace}, not the recording's`);
}
const limit = real.spec?.maxEpisodeSteps ?? null;
const clip = new gym.wrappers.ClipAction(real);

// 1. The wrappers over the recorded raw env.
let replayedResets = 0;
let replayedSteps = 0;
class RecordedRaw extends gym.Env<Float64Array, Float32Array> {
  readonly observationSpace = real.observationSpace as Box as gym.Env<Float64Array, Float32Array>["observationSpace"];
  readonly actionSpace = real.actionSpace as Box as gym.Env<Float64Array, Float32Array>["actionSpace"];
  override reset(args: ResetArgs = {}): [Float64Array, Info] {
    super.reset(args);
    if (replayedResets >= meta.inner_resets) throw new Error("the stack reset the env more often than CleanRL's");
    return [rowOf(innerResets, replayedResets++, obsDim).slice(), {}];
  }
  step(action: Float32Array): StepResult<Float64Array> {
    const t = replayedSteps++;
    if (!compare(action, clip.action(actionAt(t))).same) {
      throw new Error(`step ${t}: ClipAction handed down ${action}, not the recorded ${actionAt(t)} clipped`);
    }
    return [rawObs(t).slice(), rawReward(t), (recFlags[t] & 1) === 1, false, {}];
  }
}
gym.register({ id: `EnvReplayRecorded${meta.envId}`, entryPoint: () => new RecordedRaw(), maxEpisodeSteps: limit });
const wrappers = new Differences(vectorFields);
const wrapperCounts = replayVector(`EnvReplayRecorded${meta.envId}`, wrappers);
wrappers.print(`1. the wrappers, over the recorded raw env (our TimeLimit ${limit})`);
console.log(`  episodes: ${describe(wrapperCounts)}`);

// 2. The physics, one step from each recorded state.
const single = gym.make(meta.envId).unwrapped as MujocoEnv;
single.reset({ seed: meta.reset_seed }); // so that it may step; each step then starts from the recorded state
const physics = { same: 0, terminations: 0, worstObs: 0, worstObsStep: -1, worstReward: 0, bias: 0, biasSq: 0 };
const physicsPerFifth = [0, 0, 0, 0, 0];
let firstPhysics: string | null = null;
for (let t = 0; t < steps; t++) {
  const before = stateBefore(t);
  const d = single.data;
  d.qpos.set(before.subarray(0, nq));
  d.qvel.set(before.subarray(nq, nq + nv));
  d.qacc_warmstart.set(before.subarray(nq + nv, stateWidth));
  const [obs, reward, terminated] = single.step(clip.action(actionAt(t)) as Float32Array);
  const o = compare(obs, rawObs(t));
  const r = compare([reward], [rawReward(t)]);
  const terminationSame = terminated === ((recFlags[t] & 1) === 1);
  if (o.same && r.same && terminationSame) physics.same++;
  else if (firstPhysics === null) {
    firstPhysics = `step ${t}, observation by ${o.diff.toExponential(3)} (component ${o.at}), reward by ${r.diff.toExponential(3)}`;
  }
  if (!terminationSame) physics.terminations++;
  if (o.diff > physics.worstObs) [physics.worstObs, physics.worstObsStep] = [o.diff, t];
  physics.worstReward = Math.max(physics.worstReward, r.diff);
  const k = Math.floor((5 * t) / steps);
  physicsPerFifth[k] = Math.max(physicsPerFifth[k], o.diff, r.diff);
  const signed = reward - rawReward(t);
  physics.bias += signed;
  physics.biasSq += signed * signed;
}
single.close();
const biasMean = physics.bias / steps;
const biasSe = Math.sqrt(Math.max(0, physics.biasSq / steps - biasMean ** 2) / steps);
console.log(
  `2. the physics, one step from each recorded state: ${physics.same} of ${steps} steps identical to the last bit`,
);
console.log(`  first difference: ${firstPhysics ?? "none"}`);
console.log(
  `  largest |difference|: raw observation ${physics.worstObs.toExponential(3)} (step ${physics.worstObsStep}), ` +
    `raw reward ${physics.worstReward.toExponential(3)}; per fifth of the steps ${physicsPerFifth.map((v) => v.toExponential(1)).join(", ")}`,
);
console.log(
  `  raw reward, ours − CleanRL's: mean ${biasMean.toExponential(2)} ± ${biasSe.toExponential(2)} (standard error); ` +
    `termination differs on ${physics.terminations} steps`,
);

// 3. Open loop: the whole stack over our MuJoCo.
/** Passes everything through, keeping the raw output of the last step and reading the MuJoCo state. */
class Probe extends gym.Wrapper<Float64Array, Float32Array> {
  lastObs = new Float64Array(0);
  lastReward = Number.NaN;
  state(): Float64Array {
    const d = (this.env.unwrapped as MujocoEnv).data;
    return Float64Array.from([...d.qpos, ...d.qvel, ...d.qacc_warmstart]);
  }
  override step(action: Float32Array): StepResult<Float64Array> {
    const result = this.env.step(action);
    this.lastObs = Float64Array.from(result[0]);
    this.lastReward = result[1];
    return result;
  }
}
let probe: Probe | null = null;
gym.register({
  id: `EnvReplay${meta.envId}`,
  entryPoint: () => {
    probe = new Probe(gym.make(meta.envId) as Env<Float64Array, Float32Array>);
    return probe;
  },
  maxEpisodeSteps: null,
});
const openFields = ["MuJoCo state before the step", "raw observation", "raw reward", ...vectorFields];
const open = new Differences(openFields);
const openCounts = replayVector(`EnvReplay${meta.envId}`, open, () => probe as unknown as Probe);
open.print("3. open loop, the stack over our MuJoCo");
console.log(`  episodes: ${describe(openCounts)}`);

const physicsOk = physics.worstObs <= cli.physicsTolerance && physics.worstReward <= cli.physicsTolerance;
process.exitCode = wrappers.allSame && physicsOk && physics.terminations === 0 ? 0 : 1;
