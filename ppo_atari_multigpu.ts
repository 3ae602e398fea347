// ppo_atari_multigpu.ts — data-parallel PPO on Atari over several processes, CleanRL's `ppo_atari_multigpu.py`.
//
//   npx tsx envs/run/torchrun.ts --standalone --nnodes=1 --nproc-per-node=2 ppo_atari_multigpu.ts --env-id BreakoutNoFrameskip-v4 --rom-dir ~/roms
//   npx tsx ppo_atari_multigpu.ts --env-id BreakoutNoFrameskip-v4 --rom-dir ~/roms   # run directly: world size 1
//   npx tsx ppo_atari_multigpu.ts --help                                             # every flag, its default and doc
//
// `diff ppo_atari.ts ppo_atari_multigpu.ts` is the whole of data parallelism (https://docs.cleanrl.dev/rl-algorithms/ppo/#ppo_atari_multigpupy):
// envs/run/torchrun.ts starts one process ("rank") per core or GPU; each rank steps its own --local-num-envs envs with
// seed `seed + rank` and computes gradients on its own local minibatch; one all-reduce (envs/torch/distributed.ts, a
// TCP ring, torch.distributed's role) sums the flattened gradients of all parameters, each rank divides by the
// world size and applies the same clipping and Adam step, so the weights, identical at init (same seed on every
// rank), stay identical (`--debug-sync` checks it). Only rank 0 logs. On a CPU this is how training uses every
// core: each process runs its own single-threaded WASM backend and its own emulators.
// The rest is ppo_atari.ts: comments name the detail they implement, "detail 3" for the 13 core details of "The 37
// Implementation Details of Proximal Policy Optimization" (Huang et al. 2022), "Atari detail 2" for the 9 Atari ones.
// ROMs are not included: point --rom-dir (or ALE_ROMS_DIR) at a folder of ALE's ROM images.
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
import {
  ClipRewardEnv,
  EpisodicLifeEnv,
  FireResetEnv,
  FrameStack,
  GrayScaleObservation,
  MaxAndSkipEnv,
  NoopResetEnv,
  ResizeObservation,
  actionMeanings,
} from "./envs/gymnasium/atari_wrappers.ts";
import { RandomGenerator, type RandomState } from "./envs/torch/rng.ts";
import * as dist from "./envs/torch/distributed.ts";

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
  saveModel: bool(false, "whether to save the trained agent into the `runs/{run_name}` folder and evaluate it"),
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
  romDir: str(null, "the folder holding the Atari ROM images (else ALE_ROMS_DIR, else an installed ale-py's roms/)"),

  // Algorithm specific arguments
  envId: str("BreakoutNoFrameskip-v4", "the id of the environment"),
  totalTimesteps: int(10000000, "total timesteps of the experiments", { ge: 1 }),
  learningRate: float(2.5e-4, "the learning rate of the optimizer", { gt: 0 }),
  localNumEnvs: int(8, "the number of parallel game environments (in the local rank)", { ge: 1 }),
  numSteps: int(128, "the number of steps to run in each environment per policy rollout", { ge: 1 }),
  annealLr: bool(true, "Toggle learning rate annealing for policy and value networks"),
  gamma: float(0.99, "the discount factor gamma", { ge: 0, le: 1 }),
  gaeLambda: float(0.95, "the lambda for the general advantage estimation", { ge: 0, le: 1 }),
  numMinibatches: int(4, "the number of mini-batches", { ge: 1 }),
  updateEpochs: int(4, "the K epochs to update the policy", { ge: 1 }),
  normAdv: bool(true, "Toggles advantages normalization"),
  clipCoef: float(0.1, "the surrogate clipping coefficient", { gt: 0 }),
  clipVloss: bool(true, "Toggles whether or not to use a clipped loss for the value function, as per the paper."),
  entCoef: float(0.01, "coefficient of the entropy", { ge: 0 }),
  vfCoef: float(0.5, "coefficient of the value function", { ge: 0 }),
  maxGradNorm: float(0.5, "the maximum norm for the gradient clipping", { gt: 0 }),
  targetKl: float(null, "the target KL divergence threshold", { gt: 0 }),
  deviceIds: str(
    null,
    "the GPU ids the ranks use, comma-separated, one per local rank (e.g. 0,1); needs the tensorflow GPU backend",
  ),
  // CleanRL's `--backend gloo|nccl|mpi`; named apart from the tfjs backend. "tcp" is gloo's role (envs/torch/distributed.ts).
  distBackend: str("tcp", "the backend for distributed training"),
  debugSync: bool(
    false,
    "check that every rank's parameters are bit-identical to rank 0's after init and after each update",
  ),
};
// Filled in at runtime, as CleanRL's `# to be filled in runtime` fields.
type Args = ArgValues<typeof ARGS> & {
  localBatchSize: number;
  localMinibatchSize: number;
  numEnvs: number;
  batchSize: number;
  minibatchSize: number;
  numIterations: number;
  worldSize: number;
};

/**
 * Exported (and its arguments kept serializable) because each env runs in a worker thread: the worker imports
 * this module and calls `makeEnv(...args)()` itself, the way Python's AsyncVectorEnv pickles the thunk.
 */
export function makeEnv(envId: string, idx: number, captureVideo: boolean, runName: string) {
  return () => {
    let env: gym.Env;
    if (captureVideo && idx === 0) {
      env = gym.make(envId, { renderMode: "rgb_array" });
      env = new gym.wrappers.RecordVideo(env, `videos/${runName}`);
    } else {
      env = gym.make(envId);
    }
    // Records each episode's raw return and length into `info.episode` (logged as charts/episodic_return).
    // Innermost, so the logged return is the game score: unclipped, over all lives.
    env = new gym.wrappers.RecordEpisodeStatistics(env);
    env = new NoopResetEnv(env, 30); // Atari detail 1: up to 30 random no-ops at reset
    env = new MaxAndSkipEnv(env, 4); // Atari detail 2: act every 4th frame, max over the last 2 frames
    env = new EpisodicLifeEnv(env); // Atari detail 3: a lost life ends the training episode
    if (actionMeanings(env).includes("FIRE")) env = new FireResetEnv(env); // Atari detail 4: press FIRE to start
    env = new ClipRewardEnv(env); // Atari detail 5: rewards clipped to their sign
    env = new ResizeObservation(env, [84, 84]); // Atari detail 6: 84x84 grayscale...
    env = new GrayScaleObservation(env);
    env = new FrameStack(env, 4); // Atari detail 7: ...and the last 4 frames stacked
    return env;
  };
}

interface Linear {
  weight: tf.Variable<tf.Rank.R2>;
  bias: tf.Variable<tf.Rank.R1>;
}
interface Conv2d {
  weight: tf.Variable<tf.Rank.R4>;
  bias: tf.Variable<tf.Rank.R1>;
  stride: number;
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

/** `layer_init(nn.Conv2d(...))`: the same orthogonal init over the kernel's [kh, kw, in] fan-in. */
function conv2dInit(
  inChannels: number,
  outChannels: number,
  kernelSize: number,
  stride: number,
  rng: RandomGenerator,
  std = Math.SQRT2,
): Conv2d {
  const shape: [number, number, number, number] = [kernelSize, kernelSize, inChannels, outChannels];
  return {
    weight: tf.variable(tf.tensor4d(orthogonal(shape, std, rng), shape)),
    bias: tf.variable(tf.zeros([outChannels]) as tf.Tensor1D),
    stride,
  };
}

/** `nn.Linear`: one fused op for x·W + b, optionally followed by ReLU. */
function linear(x: tf.Tensor2D, layer: Linear, activation: "linear" | "relu" = "linear"): tf.Tensor2D {
  return tf.fused.matMul({ a: x, b: layer.weight, bias: layer.bias, activation }) as tf.Tensor2D;
}

/** `nn.Conv2d` (valid padding) + `nn.ReLU` as one fused op. */
function conv2dRelu(x: tf.Tensor4D, layer: Conv2d): tf.Tensor4D {
  return tf.fused.conv2d({
    x,
    filter: layer.weight,
    strides: layer.stride,
    pad: "valid",
    bias: layer.bias,
    activation: "relu",
  });
}

// Atari detail 8: the Nature-DQN CNN (Mnih et al. 2015) as a shared trunk for actor and critic.
export class Agent {
  readonly network: { convs: Conv2d[]; fc: Linear };
  readonly actor: Linear;
  readonly critic: Linear;

  constructor(
    readonly numActions: number,
    rng: RandomGenerator,
  ) {
    this.network = {
      convs: [conv2dInit(4, 32, 8, 4, rng), conv2dInit(32, 64, 4, 2, rng), conv2dInit(64, 64, 3, 1, rng)],
      fc: layerInit(64 * 7 * 7, 512, rng),
    };
    // Detail 2: policy head gain 0.01 (near-uniform initial policy), value head gain 1.
    this.actor = layerInit(512, numActions, rng, 0.01);
    this.critic = layerInit(512, 1, rng, 1);
  }

  /** `x`: frames from `framesToInput`, [N, 84, 84, 4] float32 in [0, 1] (torch's `x / 255.0`, channels last). */
  hidden(x: tf.Tensor4D): tf.Tensor2D {
    let h = x;
    for (const conv of this.network.convs) h = conv2dRelu(h, conv);
    return linear(tf.reshape(h, [h.shape[0], -1]) as tf.Tensor2D, this.network.fc, "relu");
  }

  getValue(x: tf.Tensor4D): tf.Tensor1D {
    return linear(this.hidden(x), this.critic).reshape([-1]);
  }

  /**
   * Log-probability of `action`, policy entropy and value for a batch of observations: what the PPO loss needs.
   * Categorical log-probs as sum(logSoftmax · oneHot): tfjs-wasm has no gradient kernel for a batched gather.
   */
  getActionAndValue(
    x: tf.Tensor4D,
    action: tf.Tensor1D,
  ): { logprob: tf.Tensor1D; entropy: tf.Tensor1D; value: tf.Tensor1D } {
    const hidden = this.hidden(x);
    const logProbs = tf.logSoftmax(linear(hidden, this.actor));
    const logprob = tf.sum(tf.mul(logProbs, tf.oneHot(action, this.numActions)), -1) as tf.Tensor1D;
    const entropy = tf.neg(tf.sum(tf.mul(tf.exp(logProbs), logProbs), -1)) as tf.Tensor1D;
    return { logprob, entropy, value: linear(hidden, this.critic).reshape([-1]) };
  }

  /**
   * The rollout's `agent.get_action_and_value(next_obs)` under `torch.no_grad()`: one forward pass for all envs
   * (`x` from `framesToInput`), one readback of [logits | value], then `Categorical(logits).sample()` and its
   * log-prob in plain JS.
   */
  sampleActionAndValue(
    x: tf.Tensor4D,
    rng: RandomGenerator,
  ): { action: Int32Array; logprob: Float32Array; value: Float32Array } {
    const n = x.shape[0];
    const out = tf.tidy(() => {
      const hidden = this.hidden(x);
      return tf.concat([linear(hidden, this.actor), linear(hidden, this.critic)], 1);
    });
    const logitsAndValue = out.dataSync();
    out.dispose();
    const width = this.numActions + 1;
    const action = new Int32Array(n);
    const logprob = new Float32Array(n);
    const value = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      const row = i * width;
      let max = -Infinity;
      for (let a = 0; a < this.numActions; a++) max = Math.max(max, logitsAndValue[row + a]);
      let sumExp = 0;
      for (let a = 0; a < this.numActions; a++) sumExp += Math.exp(logitsAndValue[row + a] - max);
      const logSumExp = max + Math.log(sumExp);
      // Inverse-CDF sampling; the last action absorbs float round-off so a sample always lands.
      let u = rng.random();
      let chosen = this.numActions - 1;
      for (let a = 0; a < this.numActions - 1; a++) {
        u -= Math.exp(logitsAndValue[row + a] - logSumExp);
        if (u < 0) {
          chosen = a;
          break;
        }
      }
      action[i] = chosen;
      logprob[i] = logitsAndValue[row + chosen] - logSumExp;
      value[i] = logitsAndValue[row + this.numActions];
    }
    return { action, logprob, value };
  }

  parameters(): tf.Variable[] {
    return [...this.network.convs, this.network.fc, this.actor, this.critic].flatMap((l) => [l.weight, l.bias]);
  }

  /** `parameters()` under the names of CleanRL's `Agent.state_dict()` (envs/torch/checkpoint.ts converts the layouts). */
  namedParameters(): NamedParameter[] {
    const convs = this.network.convs.flatMap((c, i) => weightAndBias(`network.${2 * i}`, c, "conv2d"));
    return [
      ...convs,
      ...weightAndBias("network.7", this.network.fc, { flattened: [7, 7, 64] }),
      ...weightAndBias("actor", this.actor, "linear"),
      ...weightAndBias("critic", this.critic, "linear"),
    ];
  }
}

/** One observation: 4 stacked 84x84 grayscale frames. */
const OBS_SIZE = 4 * 84 * 84;
const PLANE = 84 * 84;

/** Atari detail 9 as a table: byte v -> v / 255 in float32 (computed in float64 and rounded: the same float32 as torch's division). */
const PIXEL_SCALE = Float32Array.from({ length: 256 }, (_, v) => v / 255);

/**
 * Network input for `frames` ([n, 4, 84, 84] bytes, FrameStack's channel-first layout as torch sees them):
 * [n, 84, 84, 4] float32 in [0, 1], channels last as tfjs convolutions want. Doing the scaling and the layout
 * change here, in one pass over the bytes, saves four tensor kernels (int32 upload, cast, divide, 4-D transpose:
 * ~5% of a WASM update step, measured with benchmark/profile_atari.ts).
 */
export function framesToInput(frames: Uint8Array): tf.Tensor4D {
  const n = frames.length / OBS_SIZE;
  const out = new Float32Array(n * OBS_SIZE);
  for (let j = 0; j < n; j++) {
    const src = j * OBS_SIZE;
    for (let p = 0, o = j * OBS_SIZE; p < PLANE; p++, o += 4) {
      out[o] = PIXEL_SCALE[frames[src + p]];
      out[o + 1] = PIXEL_SCALE[frames[src + PLANE + p]];
      out[o + 2] = PIXEL_SCALE[frames[src + 2 * PLANE + p]];
      out[o + 3] = PIXEL_SCALE[frames[src + 3 * PLANE + p]];
    }
  }
  return tf.tensor4d(out, [n, 84, 84, 4]);
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
  obs: tf.Tensor4D;
  actions: tf.Tensor1D;
  logprobs: tf.Tensor1D;
  advantages: tf.Tensor1D;
  returns: tf.Tensor1D;
  values: tf.Tensor1D;
}
export type LossArgs = Pick<Args, "clipCoef" | "normAdv" | "clipVloss" | "entCoef" | "vfCoef">;

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
 * One gradient step on one local minibatch, data-parallel: this rank's gradients, averaged over all ranks, then
 * clipping and Adam, identical on every rank. Tensors live inside `tf.tidy`, so the tensor count stays flat.
 * Returns this rank's [pg_loss, v_loss, entropy, old_approx_kl, approx_kl, clipfrac] and the averaged gradients'
 * norm (the same on every rank), read back before the step so that a NaN or infinite value skips it: the NaN
 * guard in the loop then stops every rank with the last good agent.
 */
export async function updateStep(
  agent: Agent,
  optimizer: tf.Optimizer,
  mb: Minibatch,
  args: LossArgs & Pick<Args, "maxGradNorm" | "worldSize">,
): Promise<Float32Array> {
  const params = agent.parameters();
  const { grads, stats } = tf.tidy(() => {
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
    }, params);
    return { grads, stats: stats! };
  });
  let averaged = grads;
  if (args.worldSize > 1) {
    // CleanRL's "batch allreduce ops" (entity-neural-network/incubator#220): all gradients flattened into one
    // buffer, one all_reduce(SUM) for the whole network instead of one per parameter, then divided by the world
    // size. The average of equal-sized local minibatches' mean-loss gradients is the gradient of the mean loss
    // over their union: one update with world size W on W local minibatches is one update on the global minibatch.
    const flat = tf.tidy(() => tf.concat(params.map((p) => tf.reshape(grads[p.name], [-1]))));
    const allGrads = new Float32Array(flat.dataSync());
    tf.dispose([flat, grads]);
    await dist.allReduce(allGrads, "sum");
    for (let i = 0; i < allGrads.length; i++) allGrads[i] /= args.worldSize;
    averaged = tf.tidy(() => {
      const all = tf.tensor1d(allGrads);
      const out: tf.NamedTensorMap = {};
      let offset = 0;
      for (const p of params) {
        out[p.name] = tf.reshape(tf.slice(all, offset, p.size), p.shape);
        offset += p.size;
      }
      return out;
    });
  }
  const values = tf.tidy(() => {
    // Detail 11: global gradient clipping, the norm of all parameters' (averaged) gradients at most 0.5.
    const clipped = clipGradNorm(averaged, args.maxGradNorm);
    const values = tf.concat([stats, tf.reshape(clipped.norm, [1])]).dataSync() as Float32Array;
    // A non-finite local loss makes the averaged gradients, hence their norm, non-finite on every rank alike.
    if (values.every(Number.isFinite)) optimizer.applyGradients(clipped.grads);
    return values;
  });
  tf.dispose([averaged, stats]);
  return values;
}

/**
 * `--debug-sync`, what CleanRL's per-iteration print of `agent.actor.weight.sum()` on every rank is for: each
 * rank hashes its parameters' bytes (FNV-1a) and one all-reduce gathers every rank's hash (as two exact 16-bit
 * halves per rank, so summing cannot round them). Data parallelism is only correct if they are all equal.
 */
async function checkSync(agent: Agent, rank: number, worldSize: number, when: string): Promise<void> {
  let hash = 0x811c9dc5;
  for (const p of agent.parameters()) {
    const words = new Uint32Array((p.dataSync() as Float32Array).slice().buffer);
    for (let i = 0; i < words.length; i++) hash = Math.imul(hash ^ words[i], 0x01000193) >>> 0;
  }
  const hashes = new Float32Array(2 * worldSize);
  hashes[2 * rank] = hash >>> 16;
  hashes[2 * rank + 1] = hash & 0xffff;
  await dist.allReduce(hashes, "sum");
  const all = Array.from({ length: worldSize }, (_, r) => ((hashes[2 * r] << 16) | hashes[2 * r + 1]) >>> 0);
  const hex = (h: number) => `0x${h.toString(16).padStart(8, "0")}`;
  const differ = all.flatMap((h, r) => (h !== all[0] ? [r] : []));
  if (differ.length > 0)
    throw new dist.DistributedError(
      `--debug-sync: ${when}, the parameters of rank ${differ.join(", ")} differ from rank 0's (checksums ${all.map(hex).join(", ")})`,
    );
  if (rank === 0) console.log(`debug-sync: ${when}, parameter checksum ${hex(all[0])} on all ${worldSize} ranks`);
}

/** A safetensors checkpoint (envs/torch/checkpoint.ts): the agent under CleanRL's names, Adam's state, the progress. */
function saveAgent(path: string, agent: Agent, optimizer: StatefulOptimizer | null, progress: Progress): string {
  return writeCheckpoint(path, "ppo_atari_multigpu.ts", agent.namedParameters(), optimizer, progress);
}

/** An agent from a checkpoint of ours (safetensors or the older JSON) or a CleanRL `ppo_atari_multigpu.py` state dict. */
function loadAgent(path: string, envId: string): { agent: Agent; envId: string } {
  const checkpoint = readCheckpoint(path, "ppo_atari_multigpu.ts");
  const numActions = checkpoint.legacy
    ? (checkpoint.fields.numActions as number)
    : storedShape(checkpoint, "actor.weight")[0];
  const agent = new Agent(numActions, new RandomGenerator(0));
  loadParameters(checkpoint, agent.namedParameters());
  return { agent, envId: checkpoint.envId ?? envId };
}

/** CleanRL's `ppo_eval.evaluate`: runs the (stochastic) policy for `evalEpisodes` episodes, returns their returns. */
export function evaluate(
  agent: Agent,
  envId: string,
  evalEpisodes: number,
  runName: string,
  captureVideo: boolean,
  seed: number,
): number[] {
  const envs = new gym.vector.SyncVectorEnv([makeEnv(envId, 0, captureVideo, runName)]);
  const rng = new RandomGenerator(seed);
  let [obs] = envs.reset({ seed });
  const episodicReturns: number[] = [];
  while (episodicReturns.length < evalEpisodes) {
    const x = framesToInput(obs as Uint8Array);
    const { action } = agent.sampleActionAndValue(x, rng);
    x.dispose();
    const [nextObs, , , , infos] = envs.step(action);
    for (const info of infos.final_info ?? []) {
      if (info?.episode) {
        console.log(`eval_episode=${episodicReturns.length}, episodic_return=${info.episode.r}`);
        episodicReturns.push(info.episode.r);
      }
    }
    obs = nextObs;
  }
  envs.close();
  return episodicReturns;
}

export async function main(argv = process.argv.slice(2)): Promise<void> {
  const parsed = parseArgs(
    ARGS,
    "Data-parallel PPO on Atari games from pixels (CleanRL's ppo_atari_multigpu.py).",
    "ppo_atari_multigpu.ts",
    argv,
  );
  const args: Args = {
    ...parsed,
    localBatchSize: 0,
    localMinibatchSize: 0,
    numEnvs: 0,
    batchSize: 0,
    minibatchSize: 0,
    numIterations: 0,
    worldSize: 0,
  };
  // --resume continues a saved run: its args (but the flags given here), its run directory.
  const resumed = args.resume === null ? null : readCheckpoint(args.resume, "ppo_atari_multigpu.ts");
  if (resumed !== null) Object.assign(args, resumeArgs(resumed, args, argv));
  // The launcher's environment: torchrun (envs/run/torchrun.ts or torch's), a PyTorchJob, mpirun or srun (envs/torch/distributed.ts
  // `launchEnv`); a script run directly is rank 0 of 1. CleanRL uses LOCAL_RANK as the rank because it runs on one
  // machine; the global rank is the same there and right on several.
  const { rank, localRank, localWorldSize, worldSize } = dist.launchEnv();
  // The local/global sizes: every rank has a local batch of local_num_envs × num_steps; the global numbers
  // (what ppo_atari.ts would call them) are W times larger. Global steps are counted over all ranks.
  args.worldSize = worldSize;
  args.localBatchSize = args.localNumEnvs * args.numSteps;
  args.localMinibatchSize = Math.floor(args.localBatchSize / args.numMinibatches);
  args.numEnvs = args.localNumEnvs * args.worldSize;
  args.batchSize = args.numEnvs * args.numSteps;
  args.minibatchSize = Math.floor(args.batchSize / args.numMinibatches);
  args.numIterations = Math.floor(args.totalTimesteps / args.batchSize);
  if (args.localBatchSize % args.numMinibatches !== 0)
    usageError(
      `local batch size ${args.localBatchSize} (local-num-envs × num-steps) is not divisible by --num-minibatches ${args.numMinibatches}`,
    );
  if (args.numIterations < 1)
    usageError(
      `--total-timesteps ${args.totalTimesteps} is less than one batch (${args.batchSize} steps over ${args.worldSize} ranks)`,
    );
  if (args.evalCheckpoint === null && !gym.registeredIds().includes(args.envId))
    usageError(`unknown --env-id ${args.envId}; registered: ${gym.registeredIds().join(", ")}`);
  checkEnvSpaces(args.envId, { action: "discrete", observation: "image" }); // before any env is built: a wrong id fails here, in one line
  const deviceIds = args.deviceIds === null ? [] : args.deviceIds.split(",").map(Number);
  if (deviceIds.some((d) => !Number.isInteger(d) || d < 0))
    usageError(`--device-ids expects comma-separated GPU numbers, got "${args.deviceIds}"`);
  if (deviceIds.length > 0 && deviceIds.length !== localWorldSize)
    usageError(
      `you must specify the same number of --device-ids (${deviceIds.length}) as --nproc-per-node (${localWorldSize})`,
    );
  if (args.distBackend !== "tcp") usageError(`--dist-backend must be tcp (gloo's role), got ${args.distBackend}`);
  // At world size 1 the group is free (no sockets) and every collective returns at once.
  await dist.initProcessGroup({ backend: "tcp", rank, worldSize: args.worldSize });
  if (args.worldSize === 1) {
    console.warn(
      "note: not using distributed mode; for several processes run: npx tsx envs/run/torchrun.ts --standalone --nnodes=1 --nproc-per-node=2 ppo_atari_multigpu.ts",
    );
  }
  // Rank 0's name for the run; the other ranks write nothing under it.
  const runName =
    resumed?.progress?.runName ?? `${args.envId}__${args.expName}__${args.seed}__${Math.floor(Date.now() / 1000)}`;
  const modelPath = `runs/${runName}/${args.expName}.safetensors`;

  // The ROM folder travels as ALE_ROMS_DIR, which the env workers inherit and the ALE envs read.
  if (args.romDir !== null) process.env.ALE_ROMS_DIR = args.romDir;

  // TRY NOT TO MODIFY: seeding and backend (CleanRL's `device`), before any tensor exists.
  // CRUCIAL (CleanRL): each data-parallel worker needs its own seed, for different env episodes and actions...
  const initRng = new RandomGenerator(args.seed); // ...but the weights come from the shared seed: identical on every rank
  args.seed += rank;
  if (args.torchDeterministic) process.env.TF_DETERMINISTIC_OPS = "1";
  // --device-ids: rank -> GPU, by making only that GPU visible to libtensorflow (read when the backend loads).
  if (deviceIds.length > 0) process.env.CUDA_VISIBLE_DEVICES = String(deviceIds[localRank]);
  await setupBackend(args.backend, { cuda: args.cuda, quiet: rank !== 0 });
  const rng = new RandomGenerator(args.seed);

  if (args.evalCheckpoint !== null) {
    if (rank !== 0) return void (await dist.destroyProcessGroup()); // evaluation is rank 0's alone
    const { agent, envId } = loadAgent(args.evalCheckpoint, args.envId);
    const returns = evaluate(agent, envId, args.evalEpisodes, runName, args.captureVideo, args.seed);
    console.log(
      `mean episodic_return over ${returns.length} episodes: ${(returns.reduce((a, b) => a + b, 0) / returns.length).toFixed(2)}`,
    );
    await dist.destroyProcessGroup();
    return;
  }

  // Only rank 0 logs (TensorBoard, wandb, episodic returns, SPS); the others have no writer.
  const tracker =
    args.track && rank === 0
      ? await initTracking({ project: args.wandbProjectName, entity: args.wandbEntity, name: runName, config: args })
      : null;
  // A resumed run appends to its run directory; TensorBoard drops what the old files logged past the checkpoint.
  const writer =
    rank === 0
      ? new SummaryWriter(`runs/${runName}`, tracker, {
          purgeStep: resumed === null ? undefined : resumed.progress!.globalStep + 1,
        })
      : null;
  writer?.addText(
    "hyperparameters",
    `|param|value|\n|-|-|\n${Object.entries(args)
      .map(([k, v]) => `|${k}|${v}|`)
      .join("\n")}`,
  );

  // A missing ROM fails here, in one line, rather than inside every env worker.
  try {
    gym.make(args.envId).close();
  } catch (e) {
    usageError((e as Error).message);
  }
  // env setup. Detail 1: vectorized environments, stepped in lockstep, reset automatically at episode end.
  // Each env steps in its own worker thread: emulation is the bottleneck, so the envs must spread over the cores.
  // Videos only from rank 0's first env (CleanRL records one per rank, into directories that may collide).
  const envs = new gym.vector.AsyncVectorEnv(
    Array.from({ length: args.localNumEnvs }, (_, i) => ({
      module: import.meta.url,
      exportName: "makeEnv",
      args: [args.envId, i, args.captureVideo && rank === 0, runName],
    })),
  );
  closeOnExit(envs, writer, tracker); // on Ctrl-C, SIGTERM or an error: close the envs (workers, videos), flush the logs
  if (!(envs.singleActionSpace instanceof gym.spaces.Discrete))
    usageError(`only discrete action space is supported; ${args.envId} has ${envs.singleActionSpace}`);
  const numActions = (envs.singleActionSpace as gym.spaces.Discrete).n;

  const agent = new Agent(numActions, initRng);
  const optimizer = makeOptimizer(args.learningRate);
  // --resume: the parameters, Adam's moments and step, and the generator's stream where the checkpoint left them.
  const start =
    resumed === null
      ? { iteration: 0, globalStep: 0 }
      : restoreTraining(resumed, agent.namedParameters(), optimizer, rng, rank);
  if (args.debugSync) await checkSync(agent, rank, args.worldSize, "after init");

  // ALGO Logic: Storage setup, this rank's share. [numSteps, localNumEnvs] row-major, so flattened it is `b_*`.
  // obs[step] is that step's network input ([localNumEnvs, 84, 84, 4] float32, Atari detail 9's scaling done),
  // made once for the rollout's forward pass and kept on the backend as torch keeps its obs buffer on `device`.
  const obs: tf.Tensor4D[] = new Array(args.numSteps);
  const actions = new Int32Array(args.numSteps * args.localNumEnvs);
  const logprobs = new Float32Array(args.numSteps * args.localNumEnvs);
  const rewards = new Float32Array(args.numSteps * args.localNumEnvs);
  const dones = new Float32Array(args.numSteps * args.localNumEnvs);
  const values = new Float32Array(args.numSteps * args.localNumEnvs);

  // TRY NOT TO MODIFY: start the game
  let globalStep = start.globalStep;
  // A checkpoint holds every rank's generator (`rngs`, gathered by all ranks), so each rank resumes its own stream.
  const progressAt = (iteration: number, rngs: RandomState[]): Progress => ({
    runName,
    iteration,
    globalStep,
    rng: rngs,
    args,
  });
  const startTime = performance.now();
  let [nextObs] = envs.reset({ seed: args.seed });
  let nextDone = new Float32Array(args.localNumEnvs);

  const mbActions = new Int32Array(args.localMinibatchSize);
  const mbLogprobs = new Float32Array(args.localMinibatchSize);
  const mbAdvantages = new Float32Array(args.localMinibatchSize);
  const mbReturns = new Float32Array(args.localMinibatchSize);
  const mbValues = new Float32Array(args.localMinibatchSize);

  for (let iteration = start.iteration + 1; iteration <= args.numIterations; iteration++) {
    await pollSignals(); // a pending Ctrl-C / SIGTERM runs here: the loop itself never yields to the event loop
    // Detail 4: learning rate annealed linearly from its initial value to 0 over the run.
    if (args.annealLr) {
      const frac = 1.0 - (iteration - 1.0) / args.numIterations;
      setLearningRate(optimizer, frac * args.learningRate);
    }

    for (let step = 0; step < args.numSteps; step++) {
      globalStep += args.numEnvs; // all ranks' steps
      obs[step] = framesToInput(nextObs as Uint8Array);
      dones.set(nextDone, step * args.localNumEnvs);

      // ALGO LOGIC: action logic
      const { action, logprob, value } = agent.sampleActionAndValue(obs[step], rng);
      values.set(value, step * args.localNumEnvs);
      actions.set(action, step * args.localNumEnvs);
      logprobs.set(logprob, step * args.localNumEnvs);

      // TRY NOT TO MODIFY: execute the game and log data.
      const [stepObs, reward, terminations, truncations, infos] = envs.step(action);
      nextObs = stepObs;
      rewards.set(reward, step * args.localNumEnvs);
      // An episode ends on termination or truncation alike (CleanRL's `np.logical_or`): the next obs is a reset.
      nextDone = Float32Array.from(terminations, (term, i) => (term || truncations[i] ? 1 : 0));

      if (!writer) continue;
      for (const info of infos.final_info ?? []) {
        if (info?.episode) {
          console.log(`global_step=${globalStep}, episodic_return=${info.episode.r}`);
          writer.addScalar("charts/episodic_return", info.episode.r, globalStep);
          writer.addScalar("charts/episodic_length", info.episode.l, globalStep);
        }
      }
    }

    // bootstrap value if not done
    const nextValue = tf.tidy(() => agent.getValue(framesToInput(nextObs as Uint8Array)).dataSync() as Float32Array);
    const { advantages, returns } = computeGae(rewards, values, dones, nextValue, nextDone, args.gamma, args.gaeLambda);

    // flatten the batch: b_obs as one tensor of the rollout's inputs; each minibatch gathers its rows from it
    // (torch's b_obs[mb_inds]). The rollout's input tensors are kept and concatenated because converting the
    // batch's bytes again would redo the JS conversion and upload 115 MB per iteration.
    const bObs = tf.concat(obs) as tf.Tensor4D;
    tf.dispose(obs);

    // Optimizing the policy and value network. Detail 6: shuffled minibatches, several epochs over the batch; each
    // rank shuffles its own local batch (its own seed) and all ranks step through their minibatches in lockstep.
    // CleanRL's `np.arange` anew each iteration: the shuffled order depends on the generator alone, which a checkpoint saves.
    const bInds = Int32Array.from({ length: args.localBatchSize }, (_, i) => i);
    const clipfracs: number[] = [];
    let stats: Float32Array = new Float32Array(UPDATE_METRICS.length);
    for (let epoch = 0; epoch < args.updateEpochs; epoch++) {
      shuffle(bInds, rng);
      for (let start = 0; start < args.localBatchSize; start += args.localMinibatchSize) {
        for (let j = 0; j < args.localMinibatchSize; j++) {
          const b = bInds[start + j];
          mbActions[j] = actions[b];
          mbLogprobs[j] = logprobs[b];
          mbAdvantages[j] = advantages[b];
          mbReturns[j] = returns[b];
          mbValues[j] = values[b];
        }
        const mb = tf.tidy(() => ({
          obs: tf.gather(bObs, tf.tensor1d(bInds.subarray(start, start + args.localMinibatchSize), "int32")),
          actions: tf.tensor1d(mbActions, "int32"),
          logprobs: tf.tensor1d(mbLogprobs),
          advantages: tf.tensor1d(mbAdvantages),
          returns: tf.tensor1d(mbReturns),
          values: tf.tensor1d(mbValues),
        }));
        stats = await updateStep(agent, optimizer, mb, args);
        tf.dispose(mb);
        // NaN guard: a non-finite loss or gradient norm stops training (the step was not applied).
        checkFinite(
          stats,
          UPDATE_METRICS,
          iteration,
          args.saveModel && rank === 0
            ? () => saveAgent(modelPath, agent, null, progressAt(iteration - 1, [rng.getState()]))
            : null,
        );
        clipfracs.push(stats[5]);
      }
      // Early stopping at the epoch level once the policy moved too far (approx_kl of the last minibatch).
      // CleanRL tests each rank's own approx_kl, so ranks can disagree and one waits forever in the next
      // all-reduce; here the ranks decide together on their mean approx_kl.
      if (args.targetKl !== null) {
        const kl = Float32Array.of(stats[4] / args.worldSize);
        await dist.allReduce(kl, "sum");
        if (kl[0] > args.targetKl) break;
      }
    }
    bObs.dispose();
    if (args.debugSync) await checkSync(agent, rank, args.worldSize, `after update ${iteration}`);
    const [pgLoss, vLoss, entropyLoss, oldApproxKl, approxKl] = stats;

    const explainedVar = explainedVariance(values, returns);

    // --checkpoint-every: every rank's generator state goes to rank 0, which writes the checkpoint below.
    const checkpointNow = args.checkpointEvery > 0 && iteration % args.checkpointEvery === 0;
    const rngs = checkpointNow ? ((await dist.allGatherObject(rng.getState())) as RandomState[]) : [];

    // TRY NOT TO MODIFY: record rewards for plotting purposes. Rank 0's own losses, as CleanRL logs them.
    if (!writer) continue;
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
    if (checkpointNow) {
      writer.flush();
      saveAgent(periodicCheckpointPath(`runs/${runName}`, iteration), agent, optimizer, progressAt(iteration, rngs));
      pruneCheckpoints(`runs/${runName}`, args.checkpointKeep);
    }
  }

  const finalRngs = args.saveModel ? ((await dist.allGatherObject(rng.getState())) as RandomState[]) : [];
  if (args.saveModel && writer) {
    saveAgent(modelPath, agent, optimizer, progressAt(args.numIterations, finalRngs));
    console.log(`model saved to ${modelPath}`);
    const episodicReturns = evaluate(
      agent,
      args.envId,
      args.evalEpisodes,
      `${runName}-eval`,
      args.captureVideo,
      args.seed,
    );
    episodicReturns.forEach((r, idx) => writer.addScalar("eval/episodic_return", r, idx));
  }

  envs.close();
  writer?.close();
  await tracker?.finish();
  await dist.destroyProcessGroup();
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
// with --debug; a lost or mismatched rank names the rank), and Ctrl-C / SIGTERM close what closeOnExit
// registered, then exit 130 / 143 (envs/run/torchrun.ts forwards each signal to every rank once).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runMain(main);
}
