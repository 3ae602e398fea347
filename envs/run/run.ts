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

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import * as tf from "@tensorflow/tfjs";
import * as gym from "../gymnasium/index.ts";
import { type SpaceKinds, spaceKinds } from "../gymnasium/registration.ts";
import { setupBackend } from "../torch/backend.ts";
import {
  type Checkpoint,
  CheckpointError,
  type NamedParameter,
  type Progress,
  loadParameters,
  periodicCheckpointPath,
  readCheckpoint,
  restoreTraining,
  resumeArgs,
  storedShape,
  writeCheckpoint,
} from "../torch/checkpoint.ts";
import type { StatefulOptimizer } from "../torch/optim.ts";
import { type RandomState, defaultGenerator, manualSeed } from "../torch/rng.ts";
import { type ArgValues, type Flag, bool, float, int, kebab, parseArgs, str, usageError } from "./cli.ts";
import { uploadModel } from "./hub.ts";
import { SummaryWriter, type Tracker, initTracking } from "./logging.ts";
import { type Closable, TrainingError, checkEnvSpaces, checkFinite, closeOnExit, pollSignals } from "./main.ts";

/** The flags every variant takes beside CleanRL's own. */
export const RUN_ARGS = {
  backend: str("auto", 'tensor backend: auto | webgpu | tensorflow | wasm | cpu (see README.md "Backends")'),
  saveModel: bool(false, "whether to save the trained agent into the `runs/{run_name}` folder and evaluate it"),
  uploadModel: bool(false, "whether to upload the saved model to huggingface (needs --save-model and HF_TOKEN)"),
  hfEntity: str("", "the user or org name of the model repository from the Hugging Face Hub"),
  evalCheckpoint: str(null, "skip training: load this saved agent and report its episodic returns"),
  evalEpisodes: int(10, "the number of episodes the evaluation runs", { ge: 1 }),
  checkpointEvery: int(0, "write a resumable checkpoint every N iterations into `runs/{run_name}/checkpoints`", {
    ge: 0,
  }),
  checkpointKeep: int(3, "how many of the newest --checkpoint-every checkpoints to keep (0: all)", { ge: 0 }),
  resume: str(
    null,
    "continue the run saved in this checkpoint, in a new run folder named after it; of the flags that shape the run " +
      "only --total-timesteps may change (and how the run logs, saves and computes: --backend, --track, ...)",
  ),
  guardValueLoss: float(1e12, "stop when value_loss exceeds this for --guard-iterations iterations in a row", {
    gt: 0,
  }),
  guardApproxKl: float(10, "stop when approx_kl exceeds this for --guard-iterations iterations in a row", { gt: 0 }),
  guardIterations: int(3, "how many diverging iterations in a row stop the run", { ge: 1 }),
  listEnvs: bool(false, "print the env ids this script takes, and exit"),
};

/**
 * The flags a resumed run may give anew: the length of the run, and how it logs, saves and computes. Every other
 * flag shapes the run (its env, sizes, schedule, seed), so a value other than the checkpoint's is refused.
 */
const RESUMABLE = new Set([
  "totalTimesteps",
  "backend",
  "cuda",
  "torchDeterministic",
  "track",
  "wandbProjectName",
  "wandbEntity",
  "captureVideo",
  "saveModel",
  "uploadModel",
  "hfEntity",
  "evalEpisodes",
  "checkpointEvery",
  "checkpointKeep",
  "resume",
  "guardValueLoss",
  "guardApproxKl",
  "guardIterations",
  "romDir",
  "procgenAssetsDir",
  "gradChunkSize",
  "deviceIds",
  "distBackend",
  "debugSync",
]);

/** A batch larger than this many steps is a mistake in the flags, not a run (typed arrays stop at 2^32 bytes). */
const MAX_BATCH = 2 ** 27;

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
  uploadModel: boolean;
  hfEntity: string;
  evalCheckpoint: string | null;
  evalEpisodes: number;
  guardValueLoss: number;
  guardApproxKl: number;
  guardIterations: number;
  listEnvs: boolean;
  checkpointEvery: number;
  checkpointKeep: number;
  resume: string | null;
  envId: string;
  romDir?: string | null;
  batchSize?: number;
  /** A data-parallel rank's share of the batch, which its minibatches split (ppo_atari_multigpu.ts). */
  localBatchSize?: number;
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
  /** The number of data-parallel ranks (default 1); a resumed checkpoint must come from as many. */
  worldSize?: number;
  /**
   * The env ids the variant takes, where they are not Gymnasium's registered ids (procgen's game names,
   * PettingZoo's env ids): what --env-id is checked against and --list-envs prints. A variant that names its
   * `spaces` takes registered ids; one that names neither is not checked here.
   */
  envIds?: readonly string[];
}

/** What `parseRunArgs` learnt beside the args: the flags given, and the checkpoint --resume read. */
const parsed = new WeakMap<object, { given: Set<string>; checkpoint: Checkpoint | null }>();

/** `tyro.cli(Args)`: the parsed flags; with `--resume`, the saved run's args under the flags given here. */
export function parseRunArgs<S extends Record<string, Flag<unknown>>>(
  spec: S,
  description: string,
  script: string,
  argv: string[],
): ArgValues<S> {
  const args = parseArgs(spec, description, script, argv) as ArgValues<S> & Partial<RunArgs>;
  const given = givenFlags(argv);
  if (args.resume == null) {
    parsed.set(args, { given, checkpoint: null });
    return args;
  }
  if (args.evalCheckpoint != null)
    usageError("--resume continues training and --eval-checkpoint evaluates without training: give one of them");
  const checkpoint = readCheckpoint(args.resume, script);
  const saved = checkpoint.progress?.args ?? {};
  for (const key of Object.keys(args)) {
    const [ours, theirs] = [(args as Record<string, unknown>)[key], saved[key]];
    if (given.has(key) && key in saved && !RESUMABLE.has(key) && JSON.stringify(ours) !== JSON.stringify(theirs))
      usageError(
        `--${kebab(key)} ${ours} differs from the checkpoint's ${theirs}: a resumed run keeps the flags that shape it`,
      );
  }
  const merged = resumeArgs(checkpoint, args, argv);
  parsed.set(merged, { given, checkpoint });
  return merged;
}

/** The args named on the command line (camelCase). */
function givenFlags(argv: string[]): Set<string> {
  const names = argv.filter((a) => a.startsWith("--")).map((a) => a.slice(2).split("=")[0].replace(/^no-/, ""));
  return new Set(names.map((n) => n.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())));
}

/** Sets up the run; see the top of this file. */
export async function startRun<A extends RunArgs>(args: A, options: RunOptions): Promise<Run<A>> {
  if (args.listEnvs) listEnvs(options);
  const { given, checkpoint } = parsed.get(args) ?? { given: new Set<string>(), checkpoint: null };
  const { batchSize, numMinibatches, numIterations, totalTimesteps } = args;
  if (batchSize !== undefined && batchSize > MAX_BATCH)
    usageError(`a batch of ${batchSize} steps (--num-envs × --num-steps) is too large to hold; at most ${MAX_BATCH}`);
  if (batchSize !== undefined && numMinibatches !== undefined && batchSize % numMinibatches !== 0)
    usageError(
      `batch size ${batchSize} (num-envs × num-steps) is not divisible by --num-minibatches ${numMinibatches}`,
    );
  const { localBatchSize } = args;
  if (localBatchSize !== undefined && numMinibatches !== undefined && localBatchSize % numMinibatches !== 0)
    usageError(
      `a rank's batch of ${localBatchSize} steps (--local-num-envs × --num-steps) is not divisible by --num-minibatches ${numMinibatches}`,
    );
  if (numIterations !== undefined && numIterations < 1)
    usageError(`--total-timesteps ${totalTimesteps} is less than one batch (${batchSize} steps)`);
  const knownIds = options.envIds ?? (options.spaces !== undefined ? gym.registeredIds() : null);
  if (knownIds !== null && !knownIds.includes(args.envId) && (args.evalCheckpoint === null || given.has("envId")))
    usageError(
      `unknown --env-id ${args.envId}; did you mean ${nearestIds(args.envId, knownIds).join(", ")}? (--list-envs lists them all)`,
    );
  // Before any env is built: a wrong id fails here, in one line.
  if (options.spaces !== undefined && (args.evalCheckpoint === null || given.has("envId")))
    checkEnvSpaces(args.envId, options.spaces);
  const ranks = checkpoint?.progress?.rng.length ?? 1;
  if (checkpoint !== null && ranks !== (options.worldSize ?? 1))
    usageError(`${checkpoint.path} was written by ${ranks} rank(s); this run has ${options.worldSize ?? 1}`);
  if (checkpoint !== null && (checkpoint.progress === null || checkpoint.optimizerStep === null))
    usageError(`${checkpoint.path} holds parameters only (no optimizer state or progress): it can be evaluated`);
  const done = checkpoint?.progress?.iteration ?? 0;
  if (checkpoint !== null && numIterations !== undefined && numIterations <= done)
    usageError(
      `${checkpoint.path} is at iteration ${done} of ${numIterations}: give a larger --total-timesteps to continue it`,
    );
  // The ROM folder travels as ALE_ROMS_DIR, which the env workers inherit and the ALE envs read.
  if (args.romDir != null) {
    // A missing folder is reported by the ROM lookup, with every place it searched.
    if (fs.existsSync(args.romDir) && !fs.statSync(args.romDir).isDirectory())
      usageError(`--rom-dir ${args.romDir} is a file: give the folder that holds the ROM images`);
    process.env.ALE_ROMS_DIR = args.romDir;
  }
  const time = Math.floor(Date.now() / 1000);
  const writes = options.writes ?? true;
  // A resumed run continues in a new folder named after its parent: nothing the parent wrote is touched.
  const parent = checkpoint?.progress?.runName;
  const wanted =
    parent === undefined
      ? `${args.envId}__${args.expName}__${args.seed}__${time}`
      : `${parent}__resumed_at_iteration_${checkpoint!.progress!.iteration}`;
  if (checkpoint !== null) removeStaleTemporaries(runFolderOf(checkpoint.path));
  // The env is built once here, before anything is written: a missing ROM fails in one line, not in every worker.
  if ((options.checkEnv ?? true) && args.evalCheckpoint === null) {
    try {
      gym.make(args.envId).close();
    } catch (e) {
      usageError((e as Error).message);
    }
  }
  const name = args.evalCheckpoint === null && writes ? createRunFolder(wanted) : wanted;

  // Seeding and backend (CleanRL's `device`), before any tensor exists.
  if (args.torchDeterministic) process.env.TF_DETERMINISTIC_OPS = "1";
  await setupBackend(args.backend, { cuda: args.cuda, wasmThreads: options.wasmThreads, quiet: !writes });
  manualSeed(args.seed);
  if (args.evalCheckpoint !== null) return new Run(args, options, given, name, null, null);

  const tracker =
    args.track && writes
      ? await initTracking({
          project: args.wandbProjectName,
          entity: args.wandbEntity,
          id: checkpoint?.progress?.trackingRunId,
          name,
          config: args as unknown as Record<string, unknown>,
        })
      : null;
  let writer: SummaryWriter | null = null;
  if (writes) {
    writer = new SummaryWriter(`runs/${name}`, tracker);
    const rows = Object.entries(args).map(([k, v]) => `|${k}|${v}|`);
    if (parent !== undefined) rows.push(`|resumed from|${checkpoint!.path}|`);
    writer.addText("hyperparameters", `|param|value|\n|-|-|\n${rows.join("\n")}`);
  }
  closeOnExit(writer, tracker);
  return new Run(args, options, given, name, checkpoint, writer, tracker);
}

/** --list-envs: the variant's own ids, or the registered ids with the spaces it takes. */
function listEnvs({ envIds, spaces = {} }: RunOptions): never {
  const fits = (id: string) => {
    const kinds = spaceKinds(id);
    return kinds === null || Object.entries(spaces).every(([k, v]) => kinds[k as keyof SpaceKinds] === v);
  };
  console.log((envIds ?? gym.registeredIds().filter(fits)).join("\n"));
  process.exit(0);
}

/** The three of `ids` nearest to `id` by edit distance, ignoring case. */
function nearestIds(id: string, ids: readonly string[]): string[] {
  const distance = (a: string, b: string) => {
    let row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const next = [i];
      for (let j = 1; j <= b.length; j++)
        next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      row = next;
    }
    return row[b.length];
  };
  const scored = ids.map((other) => ({ other, d: distance(id.toLowerCase(), other.toLowerCase()) }));
  return scored
    .sort((x, y) => x.d - y.d)
    .slice(0, 3)
    .map((x) => x.other);
}

/**
 * Creates `runs/<name>` and returns the name; a folder that exists already (another run started in the same second
 * with the same env and seed) gets the next free `-2`, `-3`, ... suffix. `mkdir` fails on an existing folder, so two
 * processes can never take the same one. An env id with a namespace (`dm_control/cartpole-balance-v0`) nests the
 * run one folder deeper, as torch's SummaryWriter does for CleanRL's `runs/{run_name}`.
 */
function createRunFolder(name: string): string {
  fs.mkdirSync(path.dirname(path.join("runs", name)), { recursive: true });
  for (let k = 1; ; k++) {
    const candidate = k === 1 ? name : `${name}-${k}`;
    try {
      fs.mkdirSync(path.join("runs", candidate));
      return candidate;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
  }
}

/** The run folder a checkpoint lies in: `runs/<run>` for `runs/<run>/checkpoints/*` and `runs/<run>/<model>`. */
function runFolderOf(checkpointPath: string): string {
  const dir = path.dirname(checkpointPath);
  return path.basename(dir) === "checkpoints" ? path.dirname(dir) : dir;
}

/**
 * Removes the `<checkpoint>.safetensors.tmp-<pid>` files that writes interrupted by a killed process left in a run
 * folder (atomicWrite's temporaries, envs/torch/checkpoint.ts).
 */
function removeStaleTemporaries(runDir: string): void {
  for (const dir of [runDir, path.join(runDir, "checkpoints")]) {
    if (!fs.existsSync(dir)) continue;
    for (const file of fs.readdirSync(dir)) {
      const pid = Number(/\.safetensors\.tmp-(\d+)$/.exec(file)?.[1]);
      if (!pid || processAlive(pid)) continue;
      fs.rmSync(path.join(dir, file), { force: true });
      console.log(`removed ${path.join(dir, file)}, left by an interrupted write (process ${pid})`);
    }
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Names of the metrics `updateStep` returns, in order (the NaN guard names the one that failed). */
const UPDATE_METRICS = [
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
  /** The parameters at the start of the last iteration that began finite and after no diverging one. */
  private lastGood: { parameters: tf.Tensor[]; iteration: number; globalStep: number } | null = null;
  /** The iteration the guard saw last, whether it diverged, and how many diverging iterations in a row ended. */
  private guarded = { iteration: 0, diverging: "", streak: 0 };
  /** The periodic checkpoints this process wrote: the only ones it may rotate away. */
  private readonly written: string[] = [];
  /** The generators' states a checkpoint saves (one per rank in a data-parallel run). */
  rngStates: () => RandomState[] = () => [defaultGenerator.getState()];
  /** What a variant saves beside the agent (observation statistics, for one). */
  extra: (() => Record<string, unknown>) | null = null;

  constructor(
    readonly args: A,
    private readonly options: RunOptions,
    /** The flags named on the command line. */
    private readonly given: Set<string>,
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

  /**
   * Call at the top of each iteration: a pending Ctrl-C / SIGTERM runs here (the loop never yields otherwise), and
   * the guard keeps the agent's parameters if they are finite and no divergence is under way.
   */
  async startIteration(iteration: number, globalStep: number): Promise<void> {
    this.globalStep = globalStep;
    await pollSignals();
    this.closeGuardedIteration();
    if (this.agent === null || this.guarded.streak > 0) return;
    const parameters = this.agent.namedParameters().map((p) => p.variable);
    const finite = tf.tidy(() => tf.addN(parameters.map((p) => tf.sum(tf.mul(p, 0)))).dataSync()[0] === 0);
    if (!finite) this.stop(`the parameters became non-finite during iteration ${iteration - 1}`);
    tf.dispose(this.lastGood?.parameters ?? []);
    this.lastGood = { parameters: parameters.map((p) => tf.mul(p, 1)), iteration: iteration - 1, globalStep };
  }

  /**
   * The guard, after each update step. A non-finite metric stops training (that step was not applied), and so do
   * --guard-iterations iterations in a row whose value_loss or approx_kl passed --guard-value-loss or
   * --guard-approx-kl: a run diverging with finite numbers. Either way the last good agent is saved.
   */
  guard(metrics: ArrayLike<number>, iteration: number): void {
    try {
      checkFinite(metrics, UPDATE_METRICS, iteration, null);
    } catch (e) {
      this.stop((e as Error).message.split(": training stopped")[0]);
    }
    this.guarded.iteration = iteration; // startIteration counts it once it is over
    const [valueLoss, approxKl, limit] = [metrics[1], metrics[4], this.args.guardValueLoss];
    if (valueLoss > this.args.guardValueLoss)
      this.guarded.diverging = `value_loss ${valueLoss.toExponential(2)} > --guard-value-loss ${limit.toExponential()}`;
    else if (approxKl > this.args.guardApproxKl)
      this.guarded.diverging = `approx_kl ${approxKl.toExponential(2)} > --guard-approx-kl ${this.args.guardApproxKl}`;
  }

  /** Counts the iteration the guard watched as diverging or not; too many in a row stop the run. */
  private closeGuardedIteration(): void {
    const { iteration, diverging } = this.guarded;
    if (iteration === 0) return;
    this.guarded.streak = diverging === "" ? 0 : this.guarded.streak + 1;
    this.guarded.diverging = "";
    const streak = this.guarded.streak;
    if (streak >= this.args.guardIterations)
      this.stop(
        `training diverged in ${streak === 1 ? `iteration ${iteration}` : `iterations ${iteration - streak + 1}-${iteration}`}: ${diverging}`,
      );
  }

  /** Saves the last good agent (finite, checked when it was kept) and stops with one line saying where it is. */
  private stop(why: string): never {
    let saved = "";
    if (this.lastGood !== null && this.agent !== null && this.summaryWriter !== null) {
      const { parameters, iteration: goodIteration, globalStep: goodStep } = this.lastGood;
      const current = this.agent
        .namedParameters()
        .map((p) => p.variable)
        .map((p) => tf.mul(p, 1));
      this.agent
        .namedParameters()
        .map((p) => p.variable)
        .forEach((p, i) => p.assign(parameters[i]));
      const file = this.save(this.modelPath, false, goodIteration, goodStep);
      this.agent
        .namedParameters()
        .map((p) => p.variable)
        .forEach((p, i) => p.assign(current[i]));
      tf.dispose(current);
      saved = `; the agent after iteration ${goodIteration} is saved in ${file}`;
    }
    throw new TrainingError(
      `${why}: training stopped${saved}. Try a lower --learning-rate or --max-grad-norm, ` +
        "and check the env's rewards and observations",
    );
  }

  /** --checkpoint-every: what --resume needs, after the iteration's scalars reached the event file. */
  checkpoint(iteration: number, globalStep: number): void {
    if (this.args.checkpointEvery === 0 || iteration % this.args.checkpointEvery !== 0) return;
    this.globalStep = globalStep;
    if (this.summaryWriter === null) return;
    this.summaryWriter.flush();
    this.written.push(this.save(periodicCheckpointPath(`runs/${this.name}`, iteration), true, iteration));
    const keep = this.args.checkpointKeep;
    if (keep > 0) for (const file of this.written.splice(0, Math.max(0, this.written.length - keep))) fs.rmSync(file);
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

  private save(path: string, withOptimizer: boolean, iteration: number, globalStep = this.globalStep): string {
    const progress: Progress = {
      runName: this.name,
      iteration,
      globalStep,
      rng: this.rngStates(),
      args: this.args as unknown as Record<string, unknown>,
      trackingRunId: this.tracker?.runId ?? null,
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
    const nonFinite = agent
      .namedParameters()
      .find((p) => !(p.variable.dataSync() as Float32Array).every(Number.isFinite));
    if (nonFinite !== undefined)
      throw new CheckpointError(
        `${checkpoint.path} holds non-finite parameters (${nonFinite.name}): not an agent to run`,
      );
    const envId = checkpoint.envId ?? this.args.envId;
    if (checkpoint.envId !== null && this.given.has("envId") && this.args.envId !== checkpoint.envId)
      usageError(`${checkpoint.path} was trained on ${checkpoint.envId}, not --env-id ${this.args.envId}`);
    if (checkpoint.envId !== null && !this.given.has("envId"))
      console.log(`evaluating on ${envId}, the checkpoint's env`);
    evaluating = checkpoint.path;
    return { agent, envId };
  }

  /**
   * With --upload-model: pushes the saved agent, the run's event files, the evaluation's videos and the script to
   * the Hugging Face Hub (envs/run/hub.ts), with a model card holding `episodicReturns`. A refusal is one line.
   */
  async upload(episodicReturns: number[]): Promise<void> {
    if (!this.args.uploadModel) return;
    this.summaryWriter?.flush(); // the pushed event file then holds the evaluation's returns
    const script = fileURLToPath(new URL(`../../${this.options.script}`, import.meta.url));
    const args = this.args as unknown as Parameters<typeof uploadModel>[0];
    await uploadModel(args, episodicReturns, this.name, script);
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

/** The checkpoint `Run.loadAgent` loaded for --eval-checkpoint, which `evaluate` then runs. */
let evaluating: string | null = null;

/**
 * CleanRL's `ppo_eval.evaluate`: runs the policy `act` (observations and done flags in, actions out) on one env
 * built by `makeEnv` for `evalEpisodes` episodes; returns their returns. The generator is seeded anew with `seed`.
 * A loaded checkpoint whose agent cannot act on the env's first observation (one that records no env, evaluated
 * on an env of other spaces) stops in one line naming both.
 */
export function evaluate<Obs>(
  makeEnv: () => gym.Env,
  evalEpisodes: number,
  seed: number,
  act: (obs: Obs, done: Float32Array) => ArrayLike<number>,
): number[] {
  const envs = new gym.vector.SyncVectorEnv([makeEnv]);
  manualSeed(seed);
  let [obs] = envs.reset({ seed });
  let done = new Float32Array(1); // whether `obs` starts a new episode (a recurrent policy resets its state)
  const checkpoint = evaluating;
  evaluating = null;
  /** The first action: an agent loaded from a checkpoint that does not fit the env fails here. */
  const firstAction = (): ArrayLike<number> => {
    try {
      return act(obs as Obs, done);
    } catch (e) {
      if (checkpoint === null) throw e;
      envs.close();
      const spaces = `observations ${envs.singleObservationSpace}, actions ${envs.singleActionSpace}`;
      usageError(
        `the agent in ${checkpoint} does not fit ${envs.envs[0].spec?.id ?? "this env"} (${spaces}; ${(e as Error).message}): evaluate it on the env it was trained on`,
      );
    }
  };
  let action = firstAction();
  const episodicReturns: number[] = [];
  while (episodicReturns.length < evalEpisodes) {
    const [nextObs, , terminations, truncations, infos] = envs.step(action as never);
    done = Float32Array.of(terminations[0] || truncations[0] ? 1 : 0);
    for (const info of infos.final_info ?? []) {
      if (!info?.episode) continue;
      console.log(`eval_episode=${episodicReturns.length}, episodic_return=${info.episode.r}`);
      episodicReturns.push(info.episode.r);
    }
    obs = nextObs;
    if (episodicReturns.length < evalEpisodes) action = act(obs as Obs, done);
  }
  envs.close();
  return episodicReturns;
}

/** --eval-checkpoint's last line. */
export function reportEvaluation(returns: number[]): void {
  const mean = returns.reduce((a, b) => a + b, 0) / returns.length;
  console.log(`mean episodic_return over ${returns.length} episodes: ${mean.toFixed(2)}`);
}
