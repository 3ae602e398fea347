// ppo_continuous_action.ts — PPO for continuous-action environments, CleanRL's `ppo_continuous_action.py`.
//
//   npx tsx ppo_continuous_action.ts --env-id Hopper-v4          # MuJoCo locomotion, CleanRL's defaults
//   npx tsx ppo_continuous_action.ts --env-id Pendulum-v1        # any registered Box-action env
//   npx tsx ppo_continuous_action.ts --help                      # every flag, its default and what it does
//
// The whole algorithm is in this file, top to bottom: flags, env construction, network, rollout, GAE, the PPO
// update and logging. Reference: https://docs.cleanrl.dev/rl-algorithms/ppo/#ppo_continuous_actionpy and "The 37
// Implementation Details of Proximal Policy Optimization" (Huang et al., ICLR blog track 2022). Comments name the
// detail they implement: "detail 3" for the 13 core details, "continuous detail 2" for the 9 details specific to
// continuous action spaces. `diff ppo.ts ppo_continuous_action.ts` shows exactly what changes for Box actions.
import * as tf from "@tensorflow/tfjs";
import { basename } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import * as gym from "./envs/gymnasium/index.ts";
import { setupBackend } from "./envs/torch/backend.ts";
import {
  type NamedParameter,
  type Progress,
  loadParameters,
  periodicCheckpointPath,
  pruneCheckpoints,
  readCheckpoint,
  restoreTraining,
  resumeArgs,
  storedShape,
  weightAndBias,
  writeCheckpoint,
} from "./envs/torch/checkpoint.ts";
import { type ArgValues, bool, float, int, parseArgs, str, usageError } from "./envs/run/cli.ts";
import { SummaryWriter, initTracking } from "./envs/run/logging.ts";
import { progress } from "./envs/run/progress.ts";
import { checkEnvSpaces, checkFinite, closeOnExit, pollSignals, runMain } from "./envs/run/main.ts";
import {
  type StatefulOptimizer,
  adam,
  clipGradNorm,
  getLearningRate,
  orthogonal,
  setLearningRate,
} from "./envs/torch/nn.ts";
import { RandomGenerator } from "./envs/torch/rng.ts";

export const ARGS = {
  expName: str(basename(fileURLToPath(import.meta.url), ".ts"), "the name of this experiment"),
  seed: int(1, "seed of the experiment", { ge: 0 }),
  torchDeterministic: bool(
    true,
    "if toggled, sets TF_DETERMINISTIC_OPS=1 for the native TensorFlow backend (cudnn.deterministic in CleanRL)",
  ),
  cuda: bool(
    true,
    "if toggled, `--backend auto` may pick a GPU backend (CUDA via tfjs-node-gpu, or WebGPU); --no-cuda rules both out",
  ),
  backend: str(
    "auto",
    'tensor backend: auto | webgpu | tensorflow | wasm | cpu (auto: the fastest that starts here; see README.md "Backends")',
  ),
  track: bool(false, "if toggled, this experiment will be tracked with Weights and Biases"),
  wandbProjectName: str("cleanRL", "the wandb's project name"),
  wandbEntity: str(null, "the entity (team) of wandb's project"),
  captureVideo: bool(false, "whether to capture videos of the agent performances (check out `videos` folder)"),
  saveModel: bool(
    false,
    "whether to save the trained agent (and its observation statistics) into `runs/{run_name}` and evaluate it",
  ),
  evalCheckpoint: str(null, "skip training: load this saved agent and report its episodic returns"),
  evalEpisodes: int(10, "the number of episodes the evaluation runs", { ge: 1 }),
  checkpointEvery: int(
    0,
    "write a resumable checkpoint every N iterations into `runs/{run_name}/checkpoints` (0: never)",
    { ge: 0 },
  ),
  checkpointKeep: int(3, "how many of the newest --checkpoint-every checkpoints to keep (0: all)", { ge: 0 }),
  resume: str(
    null,
    "continue the run saved in this checkpoint: its args, run directory, step, learning-rate schedule, optimizer and generator",
  ),

  // Algorithm specific arguments
  envId: str("HalfCheetah-v4", "the id of the environment"),
  totalTimesteps: int(1000000, "total timesteps of the experiments", { ge: 1 }),
  learningRate: float(3e-4, "the learning rate of the optimizer", { gt: 0 }),
  numEnvs: int(1, "the number of parallel game environments", { ge: 1 }),
  numSteps: int(2048, "the number of steps to run in each environment per policy rollout", { ge: 1 }),
  annealLr: bool(true, "Toggle learning rate annealing for policy and value networks"),
  gamma: float(0.99, "the discount factor gamma", { ge: 0, le: 1 }),
  gaeLambda: float(0.95, "the lambda for the general advantage estimation", { ge: 0, le: 1 }),
  numMinibatches: int(32, "the number of mini-batches", { ge: 1 }),
  updateEpochs: int(10, "the K epochs to update the policy", { ge: 1 }),
  normAdv: bool(true, "Toggles advantages normalization"),
  clipCoef: float(0.2, "the surrogate clipping coefficient", { gt: 0 }),
  clipVloss: bool(true, "Toggles whether or not to use a clipped loss for the value function, as per the paper."),
  entCoef: float(0.0, "coefficient of the entropy", { ge: 0 }),
  vfCoef: float(0.5, "coefficient of the value function", { ge: 0 }),
  maxGradNorm: float(0.5, "the maximum norm for the gradient clipping", { gt: 0 }),
  targetKl: float(null, "the target KL divergence threshold", { gt: 0 }),
};
type Args = ArgValues<typeof ARGS> & { batchSize: number; minibatchSize: number; numIterations: number };

function makeEnv(envId: string, idx: number, captureVideo: boolean, runName: string, gamma: number) {
  return () => {
    let env: gym.Env;
    if (captureVideo && idx === 0) {
      env = gym.make(envId, { renderMode: "rgb_array" });
      env = new gym.wrappers.RecordVideo(env, `videos/${runName}`);
    } else {
      env = gym.make(envId);
    }
    env = new gym.wrappers.FlattenObservation(env); // dict observations (dm_control) become one vector
    // Records each episode's raw return and length into `info.episode` (logged as charts/episodic_return):
    // it sits inside the normalizers, so the logged returns are the environment's own.
    env = new gym.wrappers.RecordEpisodeStatistics(env);
    // Continuous detail 4: the policy's Gaussian sample is clipped to the action bounds only when sent to the env;
    // the rollout stores the unclipped sample, whose log-probability is the one the policy computed.
    env = new gym.wrappers.ClipAction(env);
    // Continuous details 5 and 6: observations normalized by a running mean/std, then clipped to [-10, 10].
    env = new gym.wrappers.NormalizeObservation(env);
    env = new gym.wrappers.TransformObservation(env, (obs: Float32Array) =>
      obs.map((v) => Math.min(Math.max(v, -10), 10)),
    );
    // Continuous details 7 and 8: rewards scaled by the std of a running discounted return, then clipped.
    env = new gym.wrappers.NormalizeReward(env, gamma);
    env = new gym.wrappers.TransformReward(env, (reward) => Math.min(Math.max(reward, -10), 10));
    return env;
  };
}

interface Linear {
  weight: tf.Variable<tf.Rank.R2>;
  bias: tf.Variable<tf.Rank.R1>;
}

// Detail 2: orthogonal weights with gain sqrt(2) for hidden layers, biases 0 (baselines' `ortho_init`).
function layerInit(
  inFeatures: number,
  outFeatures: number,
  rng: RandomGenerator,
  std = Math.SQRT2,
  biasConst = 0,
): Linear {
  return {
    weight: tf.variable(tf.tensor2d(orthogonal([inFeatures, outFeatures], std, rng), [inFeatures, outFeatures])),
    bias: tf.variable(tf.fill([outFeatures], biasConst) as tf.Tensor1D),
  };
}

/** `nn.Linear`: one fused op for x·W + b. */
function linear(x: tf.Tensor2D, layer: Linear): tf.Tensor2D {
  return tf.fused.matMul({ a: x, b: layer.weight, bias: layer.bias }) as tf.Tensor2D;
}

/** Linear → Tanh → Linear → Tanh → Linear, the `nn.Sequential` of CleanRL's actor and critic. */
function mlp(layers: Linear[], x: tf.Tensor2D): tf.Tensor2D {
  let h = x;
  layers.forEach((layer, i) => {
    h = linear(h, layer);
    if (i < layers.length - 1) h = tf.tanh(h);
  });
  return h;
}

// Detail 13: separate actor and critic networks (64-64 tanh MLPs), no shared trunk, as CleanRL.
export class Agent {
  readonly critic: Linear[];
  readonly actorMean: Linear[];
  /** Continuous detail 2: a state-independent log standard deviation, one per action dimension, starting at 0. */
  readonly actorLogstd: tf.Variable<tf.Rank.R2>;

  constructor(
    readonly obsDim: number,
    readonly actionDim: number,
    rng: RandomGenerator,
  ) {
    this.critic = [layerInit(obsDim, 64, rng), layerInit(64, 64, rng), layerInit(64, 1, rng, 1.0)];
    // Detail 2: the policy head's gain 0.01 makes the initial action means close to 0.
    this.actorMean = [layerInit(obsDim, 64, rng), layerInit(64, 64, rng), layerInit(64, actionDim, rng, 0.01)];
    this.actorLogstd = tf.variable(tf.zeros([1, actionDim]));
  }

  getValue(x: tf.Tensor2D): tf.Tensor1D {
    return mlp(this.critic, x).reshape([-1]);
  }

  /**
   * Continuous detail 1: a diagonal Gaussian policy, `Normal(action_mean, exp(logstd))`. Returns the log-probability
   * of `action` and the entropy, each summed over action dimensions (independent components), and the value.
   */
  getActionAndValue(
    x: tf.Tensor2D,
    action: tf.Tensor2D,
  ): { logprob: tf.Tensor1D; entropy: tf.Tensor1D; value: tf.Tensor1D } {
    const actionMean = mlp(this.actorMean, x);
    const actionLogstd = tf.broadcastTo(this.actorLogstd, actionMean.shape);
    // log N(a; mu, sigma) = -(a - mu)^2 / (2 sigma^2) - log sigma - log sqrt(2 pi), as torch.distributions.Normal.
    const z = tf.div(tf.sub(action, actionMean), tf.exp(actionLogstd));
    const logprob = tf.sum(
      tf.sub(tf.sub(tf.mul(-0.5, tf.square(z)), actionLogstd), 0.5 * Math.log(2 * Math.PI)),
      1,
    ) as tf.Tensor1D;
    // Entropy of a Gaussian: 0.5 + 0.5 log(2 pi) + log sigma.
    const entropy = tf.sum(tf.add(actionLogstd, 0.5 + 0.5 * Math.log(2 * Math.PI)), 1) as tf.Tensor1D;
    return { logprob, entropy, value: this.getValue(x) };
  }

  /**
   * The rollout's `agent.get_action_and_value(next_obs)` under `torch.no_grad()`: one forward pass for all envs,
   * one readback of [mean | logstd | value], then `Normal(mean, std).sample()` and its log-prob in plain JS. At a
   * few envs the cost is per-op overhead and GPU/WASM round trips, not arithmetic, so one readback is the fast path.
   */
  sampleActionAndValue(
    obs: Float32Array,
    rng: RandomGenerator,
  ): { action: Float32Array; logprob: Float32Array; value: Float32Array } {
    const n = obs.length / this.obsDim;
    const out = tf.tidy(() => {
      const x = tf.tensor2d(obs, [n, this.obsDim]);
      const actionMean = mlp(this.actorMean, x);
      return tf.concat([actionMean, tf.broadcastTo(this.actorLogstd, actionMean.shape), mlp(this.critic, x)], 1);
    });
    const meanLogstdValue = out.dataSync();
    out.dispose();
    const d = this.actionDim;
    const action = new Float32Array(n * d);
    const logprob = new Float32Array(n);
    const value = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      const row = i * (2 * d + 1);
      let sum = 0;
      for (let j = 0; j < d; j++) {
        const logstd = meanLogstdValue[row + d + j];
        const noise = rng.normal();
        action[i * d + j] = meanLogstdValue[row + j] + Math.exp(logstd) * noise;
        sum += -0.5 * noise * noise - logstd - 0.5 * Math.log(2 * Math.PI);
      }
      logprob[i] = sum;
      value[i] = meanLogstdValue[row + 2 * d];
    }
    return { action, logprob, value };
  }

  parameters(): tf.Variable[] {
    return [...[...this.critic, ...this.actorMean].flatMap((l) => [l.weight, l.bias]), this.actorLogstd];
  }

  /** `parameters()` under the names of CleanRL's `Agent.state_dict()` (envs/torch/checkpoint.ts converts the layouts). */
  namedParameters(): NamedParameter[] {
    const sequential = (prefix: string, layers: Linear[]) =>
      layers.flatMap((l, i) => weightAndBias(`${prefix}.${2 * i}`, l, "linear"));
    return [
      ...sequential("critic", this.critic),
      ...sequential("actor_mean", this.actorMean),
      { name: "actor_logstd", variable: this.actorLogstd, layout: "same" },
    ];
  }
}

/**
 * Detail 5: Generalized Advantage Estimation (Schulman et al. 2016), computed backwards over the rollout.
 * Arrays are [numSteps, numEnvs] row-major; `dones[t]` says obs[t] is the first of a new episode, so the
 * bootstrap from step t to t+1 is cut by `1 - dones[t + 1]` (and by `1 - nextDone` past the last step).
 */
export function computeGae(
  rewards: Float32Array,
  values: Float32Array,
  dones: Float32Array,
  nextValue: Float32Array,
  nextDone: Float32Array,
  gamma: number,
  gaeLambda: number,
): { advantages: Float32Array; returns: Float32Array } {
  const numEnvs = nextValue.length;
  const numSteps = rewards.length / numEnvs;
  const advantages = new Float32Array(rewards.length);
  const returns = new Float32Array(rewards.length);
  for (let e = 0; e < numEnvs; e++) {
    let lastGaeLam = 0;
    for (let t = numSteps - 1; t >= 0; t--) {
      const i = t * numEnvs + e;
      const nextNonTerminal = t === numSteps - 1 ? 1 - nextDone[e] : 1 - dones[i + numEnvs];
      const nextValues = t === numSteps - 1 ? nextValue[e] : values[i + numEnvs];
      const delta = rewards[i] + gamma * nextValues * nextNonTerminal - values[i];
      lastGaeLam = delta + gamma * gaeLambda * nextNonTerminal * lastGaeLam;
      advantages[i] = lastGaeLam;
      returns[i] = lastGaeLam + values[i];
    }
  }
  return { advantages, returns };
}

export interface Minibatch {
  obs: tf.Tensor2D;
  actions: tf.Tensor2D;
  logprobs: tf.Tensor1D;
  advantages: tf.Tensor1D;
  returns: tf.Tensor1D;
  values: tf.Tensor1D;
}
type LossArgs = Pick<Args, "clipCoef" | "normAdv" | "clipVloss" | "entCoef" | "vfCoef">;

/** The PPO loss of one minibatch and its diagnostics (the `losses/*` metrics). */
export function ppoLoss(agent: Agent, mb: Minibatch, args: LossArgs) {
  const { logprob: newlogprob, entropy, value: newvalue } = agent.getActionAndValue(mb.obs, mb.actions);
  const logratio = tf.sub(newlogprob, mb.logprobs);
  const ratio = tf.exp(logratio);
  // Detail 12: debug variables. approx_kl is the low-variance k3 estimator (http://joschu.net/blog/kl-approx.html),
  // clipfrac the share of samples whose ratio left the trust region.
  const oldApproxKl = tf.mean(tf.neg(logratio));
  const approxKl = tf.mean(tf.sub(tf.sub(ratio, 1), logratio));
  const clipfrac = tf.mean(tf.cast(tf.greater(tf.abs(tf.sub(ratio, 1)), args.clipCoef), "float32"));

  let mbAdvantages: tf.Tensor1D = mb.advantages;
  if (args.normAdv) {
    // Detail 7: per-minibatch advantage normalization; torch's .std() is the unbiased (n - 1) estimator.
    const n = mbAdvantages.size;
    const { mean, variance } = tf.moments(mbAdvantages);
    const std = tf.sqrt(tf.mul(variance, n / Math.max(n - 1, 1)));
    mbAdvantages = tf.div(tf.sub(mbAdvantages, mean), tf.add(std, 1e-8));
  }

  // Detail 8: clipped surrogate objective (a loss, so negated and maximized pessimistically).
  const pgLoss1 = tf.mul(tf.neg(mbAdvantages), ratio);
  const pgLoss2 = tf.mul(tf.neg(mbAdvantages), tf.clipByValue(ratio, 1 - args.clipCoef, 1 + args.clipCoef));
  const pgLoss = tf.mean(tf.maximum(pgLoss1, pgLoss2));

  // Detail 9: value loss clipping around the rollout's value predictions.
  let vLoss: tf.Scalar;
  if (args.clipVloss) {
    const vLossUnclipped = tf.square(tf.sub(newvalue, mb.returns));
    const vClipped = tf.add(mb.values, tf.clipByValue(tf.sub(newvalue, mb.values), -args.clipCoef, args.clipCoef));
    const vLossClipped = tf.square(tf.sub(vClipped, mb.returns));
    vLoss = tf.mul(0.5, tf.mean(tf.maximum(vLossUnclipped, vLossClipped)));
  } else {
    vLoss = tf.mul(0.5, tf.mean(tf.square(tf.sub(newvalue, mb.returns))));
  }

  // Detail 10: entropy bonus. Overall loss = policy loss - entropy * ent_coef + value loss * vf_coef.
  const entropyLoss = tf.mean(entropy);
  const loss = tf.add(tf.sub(pgLoss, tf.mul(args.entCoef, entropyLoss)), tf.mul(vLoss, args.vfCoef)) as tf.Scalar;
  return { loss, pgLoss, vLoss, entropyLoss, oldApproxKl, approxKl, clipfrac };
}

/** Detail 3: Adam with epsilon 1e-5 (openai/baselines), not PyTorch's 1e-8; torch's default betas. */
export function makeOptimizer(learningRate: number): StatefulOptimizer {
  return adam(learningRate, 0.9, 0.999, 1e-5);
}

/** What `updateStep` returns, in order (named by the NaN guard). */
const UPDATE_METRICS = ["policy_loss", "value_loss", "entropy", "old_approx_kl", "approx_kl", "clipfrac", "grad_norm"];

/**
 * One gradient step on one minibatch. Everything runs inside one `tf.tidy`, so the tensor count stays flat.
 * Returns [pg_loss, v_loss, entropy, old_approx_kl, approx_kl, clipfrac, grad_norm] in one readback, taken before
 * the step so that a NaN or infinite value skips it: the NaN guard in the loop then stops with the last good agent.
 */
export function updateStep(
  agent: Agent,
  optimizer: tf.Optimizer,
  mb: Minibatch,
  args: LossArgs & Pick<Args, "maxGradNorm">,
): Float32Array {
  return tf.tidy(() => {
    let stats: tf.Tensor1D | null = null;
    const { grads } = tf.variableGrads(() => {
      const terms = ppoLoss(agent, mb, args);
      // variableGrads disposes what its function made except the loss: keep the diagnostics out of its reach.
      stats = tf.keep(
        tf.stack([
          terms.pgLoss,
          terms.vLoss,
          terms.entropyLoss,
          terms.oldApproxKl,
          terms.approxKl,
          terms.clipfrac,
        ]) as tf.Tensor1D,
      );
      return terms.loss;
    }, agent.parameters());
    // Detail 11: global gradient clipping, the norm of all parameters' gradients together at most 0.5.
    const clipped = clipGradNorm(grads, args.maxGradNorm);
    const metrics = tf.concat([stats!, tf.reshape(clipped.norm, [1])]);
    tf.dispose(stats!);
    const values = metrics.dataSync() as Float32Array;
    if (values.every(Number.isFinite)) optimizer.applyGradients(clipped.grads);
    return values;
  });
}

/** The wrapper of class `kind` inside an env's stack (the normalizers, whose statistics a checkpoint keeps). */
function findWrapper<W>(env: gym.Env, kind: abstract new (...args: never[]) => W): W {
  for (let e: gym.Env = env; e instanceof gym.Wrapper; e = e.env) if (e instanceof kind) return e as W;
  throw new Error(`no ${kind.name} wrapper in the env stack`);
}
const obsNormalizer = (env: gym.Env) => findWrapper(env, gym.wrappers.NormalizeObservation);

/**
 * The normalizers' statistics of every env, which a checkpoint carries: the agent is only half the policy, it acts
 * on normalized observations (CleanRL's evaluation starts fresh statistics, which makes early evaluation episodes
 * act on badly scaled inputs; saving them reproduces the trained policy), and a resumed run goes on scaling its
 * rewards as before.
 */
type NormalizerStates = { obsRms: gym.wrappers.RunningMeanStdState[]; returnRms: gym.wrappers.RunningMeanStdState[] };
function normalizerStates(envs: gym.vector.SyncVectorEnv): NormalizerStates {
  return {
    obsRms: envs.envs.map((e) => obsNormalizer(e).obsRms.state()),
    returnRms: envs.envs.map((e) => findWrapper(e, gym.wrappers.NormalizeReward).returnRms.state()),
  };
}

/** A safetensors checkpoint (envs/torch/checkpoint.ts): the agent under CleanRL's names, Adam's state, the progress. */
function saveAgent(path: string, agent: Agent, optimizer: StatefulOptimizer | null, progress: Progress): string {
  return writeCheckpoint(path, "ppo_continuous_action.ts", agent.namedParameters(), optimizer, progress);
}

/**
 * An agent from a checkpoint of ours (safetensors or the older JSON) or a CleanRL `ppo_continuous_action.py` state
 * dict, with env 0's observation statistics where the checkpoint has them (null: evaluation starts fresh ones).
 */
function loadAgent(
  path: string,
  args: Args,
): { agent: Agent; envId: string; gamma: number; obsRms: gym.wrappers.RunningMeanStdState | null } {
  const checkpoint = readCheckpoint(path, "ppo_continuous_action.ts");
  const fields = checkpoint.legacy ? checkpoint.fields : null;
  const [actionDim, obsDim] = fields
    ? [fields.actionDim as number, fields.obsDim as number]
    : [storedShape(checkpoint, "actor_logstd")[1], storedShape(checkpoint, "critic.0.weight")[1]];
  const agent = new Agent(obsDim, actionDim, new RandomGenerator(0));
  loadParameters(checkpoint, agent.namedParameters());
  const saved = checkpoint.progress;
  const obsRms = fields
    ? (fields.obsRms as gym.wrappers.RunningMeanStdState)
    : ((saved?.extra as NormalizerStates | undefined)?.obsRms[0] ?? null);
  const gamma = fields ? (fields.gamma as number) : ((saved?.args.gamma as number | undefined) ?? args.gamma);
  return { agent, envId: checkpoint.envId ?? args.envId, gamma, obsRms };
}

/**
 * CleanRL's `ppo_eval.evaluate`: runs the (stochastic) policy for `evalEpisodes` episodes, returns their returns.
 * Observations are normalized with the saved statistics, frozen (fresh ones, updated, for a CleanRL state dict).
 */
export function evaluate(
  agent: Agent,
  envId: string,
  evalEpisodes: number,
  runName: string,
  captureVideo: boolean,
  seed: number,
  gamma: number,
  obsRms: gym.wrappers.RunningMeanStdState | null,
): number[] {
  const envs = new gym.vector.SyncVectorEnv([makeEnv(envId, 0, captureVideo, runName, gamma)]);
  const normalizer = obsNormalizer(envs.envs[0]);
  if (obsRms !== null) {
    normalizer.obsRms.loadState(obsRms);
    normalizer.updateRunningMean = false;
  }
  const rng = new RandomGenerator(seed);
  let obs = Float32Array.from(envs.reset({ seed })[0]);
  const episodicReturns: number[] = [];
  while (episodicReturns.length < evalEpisodes) {
    const { action } = agent.sampleActionAndValue(obs, rng);
    const [nextObs, , , , infos] = envs.step(action);
    for (const info of infos.final_info ?? []) {
      if (info?.episode) {
        console.log(`eval_episode=${episodicReturns.length}, episodic_return=${info.episode.r}`);
        episodicReturns.push(info.episode.r);
      }
    }
    obs = Float32Array.from(nextObs);
  }
  envs.close();
  return episodicReturns;
}

export async function main(argv = process.argv.slice(2)): Promise<void> {
  const args: Args = {
    ...parseArgs(
      ARGS,
      "PPO for continuous-action environments (CleanRL's ppo_continuous_action.py).",
      "ppo_continuous_action.ts",
      argv,
    ),
    batchSize: 0,
    minibatchSize: 0,
    numIterations: 0,
  };
  // --resume continues a saved run: its args (but the flags given here), its run directory.
  const resumed = args.resume === null ? null : readCheckpoint(args.resume, "ppo_continuous_action.ts");
  if (resumed !== null) Object.assign(args, resumeArgs(resumed, args, argv));
  args.batchSize = args.numEnvs * args.numSteps;
  args.minibatchSize = Math.floor(args.batchSize / args.numMinibatches);
  args.numIterations = Math.floor(args.totalTimesteps / args.batchSize);
  if (args.batchSize % args.numMinibatches !== 0)
    usageError(
      `batch size ${args.batchSize} (num-envs × num-steps) is not divisible by --num-minibatches ${args.numMinibatches}`,
    );
  if (args.numIterations < 1)
    usageError(`--total-timesteps ${args.totalTimesteps} is less than one batch (${args.batchSize} steps)`);
  if (args.evalCheckpoint === null && !gym.registeredIds().includes(args.envId))
    usageError(`unknown --env-id ${args.envId}; registered: ${gym.registeredIds().join(", ")}`);
  checkEnvSpaces(args.envId, { action: "continuous", observation: "vector" }); // before any env is built: a wrong id fails here, in one line
  const runName =
    resumed?.progress?.runName ?? `${args.envId}__${args.expName}__${args.seed}__${Math.floor(Date.now() / 1000)}`;
  const modelPath = `runs/${runName}/${args.expName}.safetensors`;

  // TRY NOT TO MODIFY: seeding and backend (CleanRL's `device`), before any tensor exists.
  if (args.torchDeterministic) process.env.TF_DETERMINISTIC_OPS = "1";
  // One WASM thread: this MLP's matMuls are too small to share (2 threads are slower: benchmark/README.md, "WASM threads").
  await setupBackend(args.backend, { cuda: args.cuda, wasmThreads: 1 });
  const rng = new RandomGenerator(args.seed);

  if (args.evalCheckpoint !== null) {
    await gym.mujoco.init();
    const { agent, envId, gamma, obsRms } = loadAgent(args.evalCheckpoint, args);
    const returns = evaluate(agent, envId, args.evalEpisodes, runName, args.captureVideo, args.seed, gamma, obsRms);
    console.log(
      `mean episodic_return over ${returns.length} episodes: ${(returns.reduce((a, b) => a + b, 0) / returns.length).toFixed(2)}`,
    );
    return;
  }

  const tracker = args.track
    ? await initTracking({ project: args.wandbProjectName, entity: args.wandbEntity, name: runName, config: args })
    : null;
  // A resumed run appends to its run directory; TensorBoard drops what the old files logged past the checkpoint.
  const writer = new SummaryWriter(`runs/${runName}`, tracker, {
    purgeStep: resumed === null ? undefined : resumed.progress!.globalStep + 1,
  });
  writer.addText(
    "hyperparameters",
    `|param|value|\n|-|-|\n${Object.entries(args)
      .map(([k, v]) => `|${k}|${v}|`)
      .join("\n")}`,
  );

  // MuJoCo's WASM module loads asynchronously, once, before any `gym.make` (Python does it on `import mujoco`).
  await gym.mujoco.init();
  // Checked on a bare env first: ClipAction inside makeEnv would otherwise fail less clearly on a Discrete space.
  const probe = gym.make(args.envId);
  if (!(probe.actionSpace instanceof gym.spaces.Box))
    usageError(`only continuous action space is supported; ${args.envId} has ${probe.actionSpace}`);
  if (args.captureVideo && !probe.metadata.renderModes.includes("rgb_array"))
    usageError(`--capture-video: ${args.envId} cannot render rgb_array frames`);
  probe.close();
  // env setup. Detail 1: vectorized environments, stepped in lockstep, reset automatically at episode end.
  const envs = new gym.vector.SyncVectorEnv(
    Array.from({ length: args.numEnvs }, (_, i) => makeEnv(args.envId, i, args.captureVideo, runName, args.gamma)),
  );
  closeOnExit(envs, writer, tracker); // on Ctrl-C, SIGTERM or an error: close the envs (workers, videos), flush the logs
  const obsDim = envs.singleObservationSpace.size;
  const actionDim = envs.singleActionSpace.size;

  const agent = new Agent(obsDim, actionDim, rng);
  const optimizer = makeOptimizer(args.learningRate);
  // --resume: the parameters, Adam's moments and step, and the generator's stream where the checkpoint left them.
  const start =
    resumed === null
      ? { iteration: 0, globalStep: 0 }
      : restoreTraining(resumed, agent.namedParameters(), optimizer, rng);
  // ...and every env's normalization statistics.
  if (resumed !== null) {
    const saved = resumed.progress!.extra as NormalizerStates;
    envs.envs.forEach((e, i) => {
      obsNormalizer(e).obsRms.loadState(saved.obsRms[i]);
      findWrapper(e, gym.wrappers.NormalizeReward).returnRms.loadState(saved.returnRms[i]);
    });
  }

  // ALGO Logic: Storage setup. [numSteps, numEnvs] row-major, so the flattened arrays are already `b_*`.
  const obs = new Float32Array(args.numSteps * args.numEnvs * obsDim);
  const actions = new Float32Array(args.numSteps * args.numEnvs * actionDim);
  const logprobs = new Float32Array(args.numSteps * args.numEnvs);
  const rewards = new Float32Array(args.numSteps * args.numEnvs);
  const dones = new Float32Array(args.numSteps * args.numEnvs);
  const values = new Float32Array(args.numSteps * args.numEnvs);

  // TRY NOT TO MODIFY: start the game
  let globalStep = start.globalStep;
  const progressAt = (iteration: number): Progress => ({
    runName,
    iteration,
    globalStep,
    rng: [rng.getState()],
    args,
    extra: normalizerStates(envs),
  });
  const startTime = performance.now();
  // `torch.Tensor(next_obs)`: whatever the env's dtype (MuJoCo's is float64), the agent sees float32.
  let nextObs = Float32Array.from(envs.reset({ seed: args.seed })[0]);
  let nextDone = new Float32Array(args.numEnvs);

  const mbObs = new Float32Array(args.minibatchSize * obsDim);
  const mbActions = new Float32Array(args.minibatchSize * actionDim);
  const mbLogprobs = new Float32Array(args.minibatchSize);
  const mbAdvantages = new Float32Array(args.minibatchSize);
  const mbReturns = new Float32Array(args.minibatchSize);
  const mbValues = new Float32Array(args.minibatchSize);

  for (let iteration = start.iteration + 1; iteration <= args.numIterations; iteration++) {
    await pollSignals(); // a pending Ctrl-C / SIGTERM runs here: the loop itself never yields to the event loop
    // Detail 4: learning rate annealed linearly from its initial value to 0 over the run.
    if (args.annealLr) {
      const frac = 1.0 - (iteration - 1.0) / args.numIterations;
      setLearningRate(optimizer, frac * args.learningRate);
    }

    for (let step = 0; step < args.numSteps; step++) {
      globalStep += args.numEnvs;
      obs.set(nextObs, step * args.numEnvs * obsDim);
      dones.set(nextDone, step * args.numEnvs);

      // ALGO LOGIC: action logic
      const { action, logprob, value } = agent.sampleActionAndValue(nextObs, rng);
      values.set(value, step * args.numEnvs);
      actions.set(action, step * args.numEnvs * actionDim);
      logprobs.set(logprob, step * args.numEnvs);

      // TRY NOT TO MODIFY: execute the game and log data.
      const [stepObs, reward, terminations, truncations, infos] = envs.step(action);
      nextObs = Float32Array.from(stepObs);
      rewards.set(reward, step * args.numEnvs);
      // An episode ends on termination or truncation alike (CleanRL's `np.logical_or`): the next obs is a reset.
      nextDone = Float32Array.from(terminations, (term, i) => (term || truncations[i] ? 1 : 0));

      for (const info of infos.final_info ?? []) {
        if (info?.episode) {
          console.log(`global_step=${globalStep}, episodic_return=${info.episode.r}`);
          writer.addScalar("charts/episodic_return", info.episode.r, globalStep);
          writer.addScalar("charts/episodic_length", info.episode.l, globalStep);
        }
      }
    }

    // bootstrap value if not done
    const nextValue = tf.tidy(
      () => agent.getValue(tf.tensor2d(nextObs, [args.numEnvs, obsDim])).dataSync() as Float32Array,
    );
    const { advantages, returns } = computeGae(rewards, values, dones, nextValue, nextDone, args.gamma, args.gaeLambda);

    // Optimizing the policy and value network. Detail 6: shuffled minibatches, several epochs over the batch.
    // CleanRL's `np.arange` anew each iteration: the shuffled order depends on the generator alone, which a checkpoint saves.
    const bInds = Int32Array.from({ length: args.batchSize }, (_, i) => i);
    const clipfracs: number[] = [];
    let stats: Float32Array = new Float32Array(UPDATE_METRICS.length);
    for (let epoch = 0; epoch < args.updateEpochs; epoch++) {
      shuffle(bInds, rng);
      for (let start = 0; start < args.batchSize; start += args.minibatchSize) {
        for (let j = 0; j < args.minibatchSize; j++) {
          const b = bInds[start + j];
          mbObs.set(obs.subarray(b * obsDim, (b + 1) * obsDim), j * obsDim);
          mbActions.set(actions.subarray(b * actionDim, (b + 1) * actionDim), j * actionDim);
          mbLogprobs[j] = logprobs[b];
          mbAdvantages[j] = advantages[b];
          mbReturns[j] = returns[b];
          mbValues[j] = values[b];
        }
        const mb = tf.tidy(() => ({
          obs: tf.tensor2d(mbObs, [args.minibatchSize, obsDim]),
          actions: tf.tensor2d(mbActions, [args.minibatchSize, actionDim]),
          logprobs: tf.tensor1d(mbLogprobs),
          advantages: tf.tensor1d(mbAdvantages),
          returns: tf.tensor1d(mbReturns),
          values: tf.tensor1d(mbValues),
        }));
        stats = updateStep(agent, optimizer, mb, args);
        tf.dispose(mb);
        // NaN guard: a non-finite loss or gradient norm stops training (the step was not applied).
        checkFinite(
          stats,
          UPDATE_METRICS,
          iteration,
          args.saveModel ? () => saveAgent(modelPath, agent, null, progressAt(iteration - 1)) : null,
        );
        clipfracs.push(stats[5]);
      }
      // Early stopping at the epoch level once the policy moved too far (approx_kl of the last minibatch).
      if (args.targetKl !== null && stats[4] > args.targetKl) break;
    }
    const [pgLoss, vLoss, entropyLoss, oldApproxKl, approxKl] = stats;

    const explainedVar = explainedVariance(values, returns);

    // TRY NOT TO MODIFY: record rewards for plotting purposes
    writer.addScalar("charts/learning_rate", getLearningRate(optimizer), globalStep);
    writer.addScalar("losses/value_loss", vLoss, globalStep);
    writer.addScalar("losses/policy_loss", pgLoss, globalStep);
    writer.addScalar("losses/entropy", entropyLoss, globalStep);
    writer.addScalar("losses/old_approx_kl", oldApproxKl, globalStep);
    writer.addScalar("losses/approx_kl", approxKl, globalStep);
    writer.addScalar("losses/clipfrac", clipfracs.reduce((a, b) => a + b, 0) / clipfracs.length, globalStep);
    writer.addScalar("losses/explained_variance", explainedVar, globalStep);
    const sps = Math.floor((globalStep - start.globalStep) / ((performance.now() - startTime) / 1000));
    console.log(`SPS: ${sps}  ${progress(globalStep, args.numIterations * args.batchSize, sps)}`);
    writer.addScalar("charts/SPS", sps, globalStep);

    // --checkpoint-every: what --resume needs, after the iteration's scalars reached the event file.
    if (args.checkpointEvery > 0 && iteration % args.checkpointEvery === 0) {
      writer.flush();
      saveAgent(periodicCheckpointPath(`runs/${runName}`, iteration), agent, optimizer, progressAt(iteration));
      pruneCheckpoints(`runs/${runName}`, args.checkpointKeep);
    }
  }

  if (args.saveModel) {
    const obsRms = obsNormalizer(envs.envs[0]).obsRms.state();
    saveAgent(modelPath, agent, optimizer, progressAt(args.numIterations));
    console.log(`model saved to ${modelPath}`);
    const episodicReturns = evaluate(
      agent,
      args.envId,
      args.evalEpisodes,
      `${runName}-eval`,
      args.captureVideo,
      args.seed,
      args.gamma,
      obsRms,
    );
    episodicReturns.forEach((r, idx) => writer.addScalar("eval/episodic_return", r, idx));
  }

  envs.close();
  writer.close();
  await tracker?.finish();
}

/** `np.random.shuffle` (Fisher–Yates) with the run's seeded generator. */
function shuffle(array: Int32Array, rng: RandomGenerator): void {
  for (let i = array.length - 1; i > 0; i--) {
    const j = rng.integers(0, i + 1);
    [array[i], array[j]] = [array[j], array[i]];
  }
}

/** 1 - Var[returns - values] / Var[returns]: how much of the return variance the critic explains (NaN if none). */
export function explainedVariance(yPred: Float32Array, yTrue: Float32Array): number {
  const variance = (f: (i: number) => number) => {
    let mean = 0;
    for (let i = 0; i < yTrue.length; i++) mean += f(i);
    mean /= yTrue.length;
    let sq = 0;
    for (let i = 0; i < yTrue.length; i++) sq += (f(i) - mean) ** 2;
    return sq / yTrue.length;
  };
  const varY = variance((i) => yTrue[i]);
  return varY === 0 ? NaN : 1 - variance((i) => yTrue[i] - yPred[i]) / varY;
}

// `if __name__ == "__main__":` — run when executed, not when a test imports the functions above.
// runMain (envs/run/main.ts): any error is one `error:` line (exit 2 for a bad command line, 1 otherwise; the stack
// with --debug), and Ctrl-C / SIGTERM close what closeOnExit registered, then exit 130 / 143.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runMain(main);
}
