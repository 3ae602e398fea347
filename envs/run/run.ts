// The plumbing of a training run, behind a few calls so that each variant's `main` shows the algorithm:
//
//   const args = parseRunArgs(ARGS, description, "ppo.ts", argv);   // CleanRL's flags, plus --resume's saved ones
//   const run = await startRun(args, { script: "ppo.ts", spaces: { action: "discrete", observation: "vector" } });
//   ... envs, agent, optimizer ...
//   const start = run.restore(agent, optimizer);                    // where a resumed run continues
//   for (iteration ...) { await run.startIteration(); ... run.guard(stats, iteration); ... run.checkpoint(...) }
//   ... run.saveModel(...) ...; await run.close();
//
// It owns: the flags every variant shares beside CleanRL's (backend, evaluation, checkpoints, resume), the usage
// checks, the run's name and folder, the tensor backend and the seeded generator, TensorBoard and wandb, closing on
// Ctrl-C / SIGTERM / errors, the NaN guard, periodic and final checkpoints, and evaluating a saved agent.

import * as gym from "../gymnasium/index.ts";
import { type SpaceKinds } from "../gymnasium/registration.ts";
import { setupBackend } from "../torch/backend.ts";
import {
  type Checkpoint,
  type NamedParameter,
  type Progress,
  loadParameters,
  periodicCheckpointPath,
  pruneCheckpoints,
  readCheckpoint,
  restoreTraining,
  resumeArgs,
  storedShape,
  writeCheckpoint,
} from "../torch/checkpoint.ts";
import type { StatefulOptimizer } from "../torch/optim.ts";
import { type RandomState, defaultGenerator, manualSeed } from "../torch/rng.ts";
import { type ArgValues, type Flag, bool, int, parseArgs, str, usageError } from "./cli.ts";
import { SummaryWriter, type Tracker, initTracking } from "./logging.ts";
import { type Closable, checkEnvSpaces, checkFinite, closeOnExit, pollSignals } from "./main.ts";

/** The flags every variant takes beside CleanRL's own. */
export const RUN_ARGS = {
  backend: str("auto", 'tensor backend: auto | webgpu | tensorflow | wasm | cpu (see README.md "Backends")'),
  saveModel: bool(false, "whether to save the trained agent into the `runs/{run_name}` folder and evaluate it"),
  evalCheckpoint: str(null, "skip training: load this saved agent and report its episodic returns"),
  evalEpisodes: int(10, "the number of episodes the evaluation runs", { ge: 1 }),
  checkpointEvery: int(0, "write a resumable checkpoint every N iterations into `runs/{run_name}/checkpoints`", {
    ge: 0,
  }),
  checkpointKeep: int(3, "how many of the newest --checkpoint-every checkpoints to keep (0: all)", { ge: 0 }),
  resume: str(null, "continue the run saved in this checkpoint (its args, run folder, step, optimizer, generator)"),
};

/** What the run needs of a variant's args. */
interface RunArgs {
  expName: string;
  seed: number;
  torchDeterministic: boolean;
  cuda: boolean;
  backend: string;
  track: boolean;
  wandbProjectName: string;
  wandbEntity: string | null;
  captureVideo: boolean;
  saveModel: boolean;
  evalCheckpoint: string | null;
  evalEpisodes: number;
  checkpointEvery: number;
  checkpointKeep: number;
  resume: string | null;
  envId: string;
  romDir?: string | null;
  batchSize?: number;
  numMinibatches?: number;
  numIterations?: number;
  totalTimesteps?: number;
}

export interface RunOptions {
  /** The variant's file name, recorded in its checkpoints. */
  script: string;
  /** The action and observation spaces the variant takes, checked against the env id before any env is built. */
  spaces?: Partial<SpaceKinds>;
  /** WASM threads (default: the backend's choice). */
  wasmThreads?: number;
  /**
   * Build the env once before training (default true), so that a missing ROM fails in one line rather than in
   * every env worker.
   */
  checkEnv?: boolean;
  /** Whether this process writes the logs and checkpoints (data-parallel ranks other than 0 do not). */
  writes?: boolean;
}

/** Checkpoints read by --resume, by path, so that `startRun` finds the one `parseRunArgs` read. */
const resumed = new Map<string, Checkpoint>();

/** `tyro.cli(Args)`: the parsed flags; with `--resume`, the saved run's args under the flags given here. */
export function parseRunArgs<S extends Record<string, Flag<unknown>>>(
  spec: S,
  description: string,
  script: string,
  argv: string[],
): ArgValues<S> {
  const args = parseArgs(spec, description, script, argv) as ArgValues<S> & { resume?: string | null };
  if (args.resume == null) return args;
  const checkpoint = readCheckpoint(args.resume, script);
  resumed.set(args.resume, checkpoint);
  return resumeArgs(checkpoint, args, argv);
}

/** Sets up the run; see the top of this file. */
export async function startRun<A extends RunArgs>(args: A, options: RunOptions): Promise<Run<A>> {
  const { batchSize, numMinibatches, numIterations, totalTimesteps } = args;
  if (batchSize !== undefined && numMinibatches !== undefined && batchSize % numMinibatches !== 0)
    usageError(
      `batch size ${batchSize} (num-envs × num-steps) is not divisible by --num-minibatches ${numMinibatches}`,
    );
  if (numIterations !== undefined && numIterations < 1)
    usageError(`--total-timesteps ${totalTimesteps} is less than one batch (${batchSize} steps)`);
  if (args.evalCheckpoint === null && !gym.registeredIds().includes(args.envId))
    usageError(`unknown --env-id ${args.envId}; registered: ${gym.registeredIds().join(", ")}`);
  // Before any env is built: a wrong id fails here, in one line.
  if (options.spaces !== undefined) checkEnvSpaces(args.envId, options.spaces);
  const checkpoint =
    args.resume === null ? null : (resumed.get(args.resume) ?? readCheckpoint(args.resume, options.script));
  const name =
    checkpoint?.progress?.runName ?? `${args.envId}__${args.expName}__${args.seed}__${Math.floor(Date.now() / 1000)}`;
  // The ROM folder travels as ALE_ROMS_DIR, which the env workers inherit and the ALE envs read.
  if (args.romDir != null) process.env.ALE_ROMS_DIR = args.romDir;

  // Seeding and backend (CleanRL's `device`), before any tensor exists.
  if (args.torchDeterministic) process.env.TF_DETERMINISTIC_OPS = "1";
  await setupBackend(args.backend, { cuda: args.cuda, wasmThreads: options.wasmThreads });
  manualSeed(args.seed);
  if (args.evalCheckpoint !== null) return new Run(args, options, name, null, null);

  const writes = options.writes ?? true;
  const tracker =
    args.track && writes
      ? await initTracking({ project: args.wandbProjectName, entity: args.wandbEntity, name, config: { ...args } })
      : null;
  let writer: SummaryWriter | null = null;
  if (writes) {
    // A resumed run appends to its run folder; TensorBoard drops what the old files logged past the checkpoint.
    const purgeStep = checkpoint === null ? undefined : checkpoint.progress!.globalStep + 1;
    writer = new SummaryWriter(`runs/${name}`, tracker, { purgeStep });
    const rows = Object.entries(args).map(([k, v]) => `|${k}|${v}|`);
    writer.addText("hyperparameters", `|param|value|\n|-|-|\n${rows.join("\n")}`);
  }
  closeOnExit(writer, tracker);
  if (options.checkEnv ?? true) {
    try {
      gym.make(args.envId).close();
    } catch (e) {
      usageError((e as Error).message);
    }
  }
  return new Run(args, options, name, checkpoint, writer, tracker);
}

/** Names of the metrics `updateStep` returns, in order (the NaN guard names the one that failed). */
export const UPDATE_METRICS = [
  "policy_loss",
  "value_loss",
  "entropy",
  "old_approx_kl",
  "approx_kl",
  "clipfrac",
  "grad_norm",
] as const;

interface Trainable {
  namedParameters(): NamedParameter[];
}

export class Run<A extends RunArgs> {
  private agent: Trainable | null = null;
  private optimizer: StatefulOptimizer | null = null;
  private globalStep = 0;
  /** The generators' states a checkpoint saves (one per rank in a data-parallel run). */
  rngStates: () => RandomState[] = () => [defaultGenerator.getState()];
  /** What a variant saves beside the agent (observation statistics, for one). */
  extra: (() => Record<string, unknown>) | null = null;

  constructor(
    readonly args: A,
    private readonly options: RunOptions,
    /** `{env_id}__{exp_name}__{seed}__{unix_time}`, as CleanRL names runs. */
    readonly name: string,
    private readonly resumed: Checkpoint | null,
    private readonly summaryWriter: SummaryWriter | null,
    readonly tracker: Tracker | null = null,
  ) {}

  /** `SummaryWriter(f"runs/{run_name}")`. */
  get writer(): SummaryWriter {
    if (this.summaryWriter === null) throw new Error("this process writes no logs");
    return this.summaryWriter;
  }

  /** Closes `resources` too on Ctrl-C, SIGTERM or an error (the vector envs: workers, videos). */
  closeOnExit(...resources: Closable[]): void {
    closeOnExit(...resources);
  }

  /**
   * Takes the agent and its optimizer into the run (for the guard and the checkpoints); with --resume, loads their
   * state and the generator's. Returns the iteration and global step to continue after.
   */
  restore(agent: Trainable, optimizer: StatefulOptimizer, rank = 0): { iteration: number; globalStep: number } {
    this.agent = agent;
    this.optimizer = optimizer;
    if (this.resumed === null) return { iteration: 0, globalStep: 0 };
    const progress = restoreTraining(this.resumed, agent.namedParameters(), optimizer, defaultGenerator, rank);
    return { iteration: progress.iteration, globalStep: progress.globalStep };
  }

  /** The checkpoint --resume read (a variant restores what it saved as `extra` from it). */
  get resumedFrom(): Checkpoint | null {
    return this.resumed;
  }

  /** Call at the top of each iteration: a pending Ctrl-C / SIGTERM runs here (the loop never yields otherwise). */
  async startIteration(_iteration: number, globalStep: number): Promise<void> {
    this.globalStep = globalStep;
    await pollSignals();
  }

  /**
   * The NaN guard, after each update step: a non-finite metric stops training (the step was not applied) and,
   * with --save-model, saves the agent as it was before that step.
   */
  guard(metrics: ArrayLike<number>, iteration: number): void {
    const save = this.args.saveModel ? () => this.save(this.modelPath, false, iteration - 1) : null;
    checkFinite(metrics, UPDATE_METRICS, iteration, save);
  }

  /** --checkpoint-every: what --resume needs, after the iteration's scalars reached the event file. */
  checkpoint(iteration: number, globalStep: number): void {
    if (this.args.checkpointEvery === 0 || iteration % this.args.checkpointEvery !== 0) return;
    this.globalStep = globalStep;
    if (this.summaryWriter === null) return;
    this.summaryWriter.flush();
    this.save(periodicCheckpointPath(`runs/${this.name}`, iteration), true, iteration);
    pruneCheckpoints(`runs/${this.name}`, this.args.checkpointKeep);
  }

  get modelPath(): string {
    return `runs/${this.name}/${this.args.expName}.safetensors`;
  }

  /** `torch.save(agent.state_dict(), model_path)`, with Adam's state and the progress so the run can go on. */
  saveModel(iteration: number, globalStep: number): string {
    this.globalStep = globalStep;
    const path = this.save(this.modelPath, true, iteration);
    console.log(`model saved to ${path}`);
    return path;
  }

  private save(path: string, withOptimizer: boolean, iteration: number): string {
    const progress: Progress = {
      runName: this.name,
      iteration,
      globalStep: this.globalStep,
      rng: this.rngStates(),
      args: this.args as unknown as Record<string, unknown>,
    };
    if (this.extra !== null) progress.extra = this.extra();
    const optimizer = withOptimizer ? this.optimizer : null;
    return writeCheckpoint(path, this.options.script, this.agent!.namedParameters(), optimizer, progress);
  }

  /**
   * --eval-checkpoint: the saved agent, built by `makeAgent` from the stored parameters' torch shapes, loaded.
   * Returns it with the env id it was trained on (the checkpoint's, where it names one).
   */
  loadAgent<T extends Trainable>(makeAgent: (shape: (name: string) => number[]) => T): { agent: T; envId: string } {
    const checkpoint = readCheckpoint(this.args.evalCheckpoint!, this.options.script);
    const shape =
      checkpoint.legacy === null ? (name: string) => storedShape(checkpoint, name) : legacyShapes(checkpoint);
    const agent = makeAgent(shape);
    loadParameters(checkpoint, agent.namedParameters());
    return { agent, envId: checkpoint.envId ?? this.args.envId };
  }

  /** Flushes and closes the logs and the wandb run. */
  async close(): Promise<void> {
    this.summaryWriter?.close();
    await this.tracker?.finish();
  }
}

/**
 * The older JSON checkpoints hold the agent's sizes as fields rather than named tensors: the torch shapes the
 * variants' loaders ask for, made from them.
 */
function legacyShapes(checkpoint: Checkpoint): (name: string) => number[] {
  const { numActions, obsDim, actionDim, numAgents = 2 } = checkpoint.fields as Record<string, number>;
  const shapes: Record<string, number[]> = {
    "actor.weight": [numActions, 512],
    "actor.4.weight": [numActions, 64],
    "critic.0.weight": [64, obsDim],
    "actor_mean.4.weight": [actionDim, 64],
    "network.0.weight": [32, 4 + numAgents, 8, 8],
  };
  return (name) => shapes[name];
}

/**
 * CleanRL's `ppo_eval.evaluate`: runs the policy `act` (observations → actions) on one env built by `makeEnv`
 * for `evalEpisodes` episodes; returns their returns. The generator is seeded anew with `seed`.
 */
export function evaluate<Obs>(
  makeEnv: () => gym.Env,
  evalEpisodes: number,
  seed: number,
  act: (obs: Obs) => ArrayLike<number>,
): number[] {
  const envs = new gym.vector.SyncVectorEnv([makeEnv]);
  manualSeed(seed);
  let [obs] = envs.reset({ seed });
  const episodicReturns: number[] = [];
  while (episodicReturns.length < evalEpisodes) {
    const [nextObs, , , , infos] = envs.step(act(obs as Obs) as never);
    for (const info of infos.final_info ?? []) {
      if (!info?.episode) continue;
      console.log(`eval_episode=${episodicReturns.length}, episodic_return=${info.episode.r}`);
      episodicReturns.push(info.episode.r);
    }
    obs = nextObs;
  }
  envs.close();
  return episodicReturns;
}

/** --eval-checkpoint's last line. */
export function reportEvaluation(returns: number[]): void {
  const mean = returns.reduce((a, b) => a + b, 0) / returns.length;
  console.log(`mean episodic_return over ${returns.length} episodes: ${mean.toFixed(2)}`);
}
