// ppo_procgen.ts — PPO on the Procgen benchmark (64x64 RGB, 15 actions), CleanRL's `ppo_procgen.py` in TypeScript.
//
//   npx tsx ppo_procgen.ts --env-id starpilot                          # CleanRL's defaults (25M steps, easy levels)
//   npx tsx ppo_procgen.ts --env-id starpilot --use-monochrome-assets  # no image files needed
//   npx tsx ppo_procgen.ts --help                                      # every flag, its default and doc
//
// The whole algorithm is in this file, top to bottom: flags, env construction, network, rollout, GAE, the PPO
// update and logging. Reference: https://docs.cleanrl.dev/rl-algorithms/ppo/#ppo_procgenpy and "The 37 Implementation
// Details of Proximal Policy Optimization" (Huang et al., ICLR blog track 2022). Comments name the detail they
// implement: "detail 3" for the 13 core details, "Procgen detail 1" for the ones this file adds.
// `diff ppo_atari.ts ppo_procgen.ts` shows exactly what changes: procgen's own vector env and gym 0.23 wrappers,
// the IMPALA CNN, CleanRL's Procgen hyperparameters.
// The games are the project's TypeScript port of procgen 0.10.7 (envs/procgen/). Its images are not included: they
// are looked up (--procgen-assets-dir, PROCGEN_ASSETS_DIR, an installed Python procgen, ~/.cache/ppo.ts/procgen)
// and downloaded from procgen's repository when missing; --use-monochrome-assets draws solid rectangles instead.
// Unlike CleanRL, --seed also seeds the level sequence (procgen's rand_seed), so a run is reproducible.
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
import { checkFinite, closeOnExit, pollSignals, runMain } from "./envs/run/main.ts";
import {
  type StatefulOptimizer,
  adam,
  clipGradNorm,
  getLearningRate,
  orthogonal,
  setLearningRate,
} from "./envs/torch/nn.ts";
import * as procgenWrappers from "./envs/procgen/wrappers.ts";
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
  procgenAssetsDir: str(
    null,
    "the folder holding procgen's images (data/assets); else PROCGEN_ASSETS_DIR, else found or downloaded",
  ),
  useMonochromeAssets: bool(
    false,
    "draw procgen's sprites as solid rectangles (procgen's use_monochrome_assets): no image files needed",
  ),

  // Algorithm specific arguments
  envId: str("starpilot", "the id of the environment"),
  totalTimesteps: int(25000000, "total timesteps of the experiments", { ge: 1 }),
  learningRate: float(5e-4, "the learning rate of the optimizer", { gt: 0 }),
  numEnvs: int(64, "the number of parallel game environments", { ge: 1 }),
  numSteps: int(256, "the number of steps to run in each environment per policy rollout", { ge: 1 }),
  annealLr: bool(false, "Toggle learning rate annealing for policy and value networks"),
  gamma: float(0.999, "the discount factor gamma", { ge: 0, le: 1 }),
  gaeLambda: float(0.95, "the lambda for the general advantage estimation", { ge: 0, le: 1 }),
  numMinibatches: int(8, "the number of mini-batches", { ge: 1 }),
  updateEpochs: int(3, "the K epochs to update the policy", { ge: 1 }),
  normAdv: bool(true, "Toggles advantages normalization"),
  clipCoef: float(0.2, "the surrogate clipping coefficient", { gt: 0 }),
  clipVloss: bool(true, "Toggles whether or not to use a clipped loss for the value function, as per the paper."),
  entCoef: float(0.01, "coefficient of the entropy", { ge: 0 }),
  vfCoef: float(0.5, "coefficient of the value function", { ge: 0 }),
  maxGradNorm: float(0.5, "the maximum norm for the gradient clipping", { gt: 0 }),
  targetKl: float(null, "the target KL divergence threshold", { gt: 0 }),
  // Not in CleanRL (a TypeScript-port detail): gradient accumulation, so that CleanRL's minibatch of 2048 frames
  // fits the WASM backend's heap (its activations alone are several GB at once; 1024 fails too). Same update.
  gradChunkSize: int(
    256,
    "samples per forward/backward pass: each minibatch's gradient is summed over chunks of this size (0: the whole minibatch at once); the update is the same, only the peak memory changes",
    { ge: 0 },
  ),
};
type Args = ArgValues<typeof ARGS> & { batchSize: number; minibatchSize: number; numIterations: number };

/**
 * Procgen detail 1: procgen's own vector env (all games of the batch in one object, each resetting itself inside the
 * step that ends its episode), on CleanRL's settings: easy levels, an unlimited level set (num_levels 0).
 * Procgen detail 2: CleanRL's gym 0.23 wrappers, in its order: the observation dict's `rgb`, episode statistics of
 * the RAW reward (so the logged return is the game score), reward normalization by the std of the discounted
 * return (gamma 0.999), and rewards clipped to [-10, 10].
 */
export function makeEnvs(
  envId: string,
  numEnvs: number,
  seed: number,
  images: gym.procgen.ImageLoader | null,
  useMonochromeAssets: boolean,
  gamma: number,
  captureVideo: boolean,
  runName: string,
) {
  const procgen = new gym.procgen.ProcgenEnv({
    numEnvs,
    envName: envId,
    numLevels: 0,
    startLevel: 0,
    distributionMode: "easy",
    randSeed: seed,
    images,
    useMonochromeAssets,
  });
  let envs: procgenWrappers.VecEnv = new procgenWrappers.TransformObservation(
    procgen,
    (obs: { rgb: Uint8Array }) => obs.rgb,
  );
  envs = new procgenWrappers.RecordEpisodeStatistics(envs);
  if (captureVideo) envs = new procgenWrappers.RecordVideo(envs, `videos/${runName}`);
  envs = new procgenWrappers.NormalizeReward(envs, gamma);
  envs = new procgenWrappers.TransformReward(envs, (reward) => Math.max(-10, Math.min(10, reward)));
  return envs;
}

interface Linear {
  weight: tf.Variable<tf.Rank.R2>;
  bias: tf.Variable<tf.Rank.R1>;
}
interface Conv2d {
  weight: tf.Variable<tf.Rank.R4>;
  bias: tf.Variable<tf.Rank.R1>;
}
interface ConvSequence {
  conv: Conv2d;
  resBlocks: [Conv2d, Conv2d][];
}

// Detail 2: orthogonal weights, biases 0 (baselines' `ortho_init`): here only for the actor and critic heads.
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

/**
 * PyTorch's default init, which CleanRL leaves on the IMPALA trunk: weight and bias uniform in ±1/sqrt(fan_in)
 * (`kaiming_uniform_(a=sqrt(5))` works out to that bound), drawn from the run's seeded generator.
 */
function torchDefault(shape: number[], fanIn: number, rng: RandomGenerator): tf.Variable {
  const bound = 1 / Math.sqrt(fanIn);
  const size = shape.reduce((a, b) => a * b, 1);
  return tf.variable(
    tf.tensor(
      Float32Array.from({ length: size }, () => rng.uniform(-bound, bound)),
      shape,
    ),
  );
}

/** `nn.Conv2d(in, out, kernel_size=3, padding=1)` with torch's default init; weights [3, 3, in, out] for tfjs. */
function conv3x3(inChannels: number, outChannels: number, rng: RandomGenerator): Conv2d {
  const fanIn = inChannels * 9;
  return {
    weight: torchDefault([3, 3, inChannels, outChannels], fanIn, rng) as tf.Variable<tf.Rank.R4>,
    bias: torchDefault([outChannels], fanIn, rng) as tf.Variable<tf.Rank.R1>,
  };
}

/** `nn.Linear(in, out)` with torch's default init. */
function linearDefault(inFeatures: number, outFeatures: number, rng: RandomGenerator): Linear {
  return {
    weight: torchDefault([inFeatures, outFeatures], inFeatures, rng) as tf.Variable<tf.Rank.R2>,
    bias: torchDefault([outFeatures], inFeatures, rng) as tf.Variable<tf.Rank.R1>,
  };
}

/** `nn.Linear`: one fused op for x·W + b, optionally followed by ReLU. */
function linear(x: tf.Tensor2D, layer: Linear, activation: "linear" | "relu" = "linear"): tf.Tensor2D {
  return tf.fused.matMul({ a: x, b: layer.weight, bias: layer.bias, activation }) as tf.Tensor2D;
}

/**
 * A 3x3 convolution with zero padding 1 ("same" at stride 1, as torch's padding=1). One fused op, except on the
 * network's input: tf.fused.conv2d's gradient also computes the gradient for its input, which for the frames
 * nobody needs (~4% of an update on wasm); a plain conv2d's gradient is computed only where asked.
 */
function conv(x: tf.Tensor4D, layer: Conv2d, isInput = false): tf.Tensor4D {
  if (isInput) return tf.add(tf.conv2d(x, layer.weight, 1, "same"), layer.bias);
  return tf.fused.conv2d({ x, filter: layer.weight, strides: 1, pad: "same", bias: layer.bias });
}

/** IMPALA's residual block: x + conv1(relu(conv0(relu(x)))). */
function residualBlock(x: tf.Tensor4D, [conv0, conv1]: [Conv2d, Conv2d]): tf.Tensor4D {
  const h = conv(tf.relu(conv(tf.relu(x), conv0)), conv1);
  return tf.add(h, x);
}

/**
 * IMPALA's ConvSequence: conv, then max-pool 3x3 stride 2 with padding 1 on every side (torch's `padding=1`;
 * tfjs's "same" would pad only the far side and shift every window), then two residual blocks.
 * Spatial size goes h -> (h + 1) / 2: 64 -> 32 -> 16 -> 8.
 * The padding is explicit, with -Infinity as torch pads a max-pool: native TensorFlow's MaxPool takes only
 * "valid" or "same", and every window still holds at least one real value, so outputs and gradients are torch's.
 */
function convSequence(x: tf.Tensor4D, seq: ConvSequence, isInput: boolean): tf.Tensor4D {
  const padded = tf.pad(
    conv(x, seq.conv, isInput),
    [
      [0, 0],
      [1, 1],
      [1, 1],
      [0, 0],
    ],
    -Infinity,
  );
  let h = tf.maxPool(padded, 3, 2, "valid");
  for (const block of seq.resBlocks) h = residualBlock(h, block);
  return h;
}

// Procgen detail 3: the IMPALA CNN (Espeholt et al. 2018), channels 16/32/32, as a shared trunk for actor and critic.
export class Agent {
  readonly network: { convSeqs: ConvSequence[]; fc: Linear };
  readonly actor: Linear;
  readonly critic: Linear;

  constructor(
    readonly numActions: number,
    rng: RandomGenerator,
  ) {
    let channels = 3;
    const convSeqs: ConvSequence[] = [];
    for (const outChannels of [16, 32, 32]) {
      convSeqs.push({
        conv: conv3x3(channels, outChannels, rng),
        resBlocks: [0, 1].map(
          () => [conv3x3(outChannels, outChannels, rng), conv3x3(outChannels, outChannels, rng)] as [Conv2d, Conv2d],
        ),
      });
      channels = outChannels;
    }
    this.network = { convSeqs, fc: linearDefault(32 * 8 * 8, 256, rng) };
    // Detail 2: policy head gain 0.01 (near-uniform initial policy), value head gain 1.
    this.actor = layerInit(256, numActions, rng, 0.01);
    this.critic = layerInit(256, 1, rng, 1);
  }

  /**
   * `x`: frames from `framesToInput`, [N, 64, 64, 3] float32 in [0, 1] (torch's `x / 255.0`), channels last, which
   * is what tfjs convolutions want (torch permutes them to NCHW). Flatten -> ReLU -> Linear 256 -> ReLU after the convs.
   */
  hidden(x: tf.Tensor4D): tf.Tensor2D {
    let h = x;
    for (const seq of this.network.convSeqs) h = convSequence(h, seq, h === x);
    const flat = tf.relu(tf.reshape(h, [h.shape[0], -1])) as tf.Tensor2D;
    return linear(flat, this.network.fc, "relu");
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
   * The rollout's `agent.get_action_and_value(next_obs)` under `torch.no_grad()`: one forward pass for all envs,
   * one readback of [logits | value], then `Categorical(logits).sample()` and its log-prob in plain JS.
   */
  sampleActionAndValue(
    obs: Uint8Array,
    rng: RandomGenerator,
  ): { action: Int32Array; logprob: Float32Array; value: Float32Array } {
    const n = obs.length / OBS_SIZE;
    const out = tf.tidy(() => {
      const hidden = this.hidden(framesToInput(obs));
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
    const convs = this.network.convSeqs.flatMap((seq) => [seq.conv, ...seq.resBlocks.flat()]);
    return [...convs, this.network.fc, this.actor, this.critic].flatMap((l) => [l.weight, l.bias]);
  }

  /** `parameters()` under the names of CleanRL's `Agent.state_dict()` (envs/torch/checkpoint.ts converts the layouts). */
  namedParameters(): NamedParameter[] {
    // ConvSequence i is network.i (its conv, res_block0.conv0/conv1, res_block1...); Flatten, ReLU, then Linear at 5.
    const convs = this.network.convSeqs.flatMap((seq, i) => [
      ...weightAndBias(`network.${i}.conv`, seq.conv, "conv2d"),
      ...seq.resBlocks.flatMap(([conv0, conv1], b) => [
        ...weightAndBias(`network.${i}.res_block${b}.conv0`, conv0, "conv2d"),
        ...weightAndBias(`network.${i}.res_block${b}.conv1`, conv1, "conv2d"),
      ]),
    ]);
    return [
      ...convs,
      ...weightAndBias("network.5", this.network.fc, { flattened: [8, 8, 32] }),
      ...weightAndBias("actor", this.actor, "linear"),
      ...weightAndBias("critic", this.critic, "linear"),
    ];
  }
}

/** One observation: a 64x64 RGB frame. */
const OBS_SIZE = 64 * 64 * 3;

/** Byte v -> v / 255 in float32 (computed in float64 and rounded: the same float32 as torch's division). */
const PIXEL_SCALE = Float32Array.from({ length: 256 }, (_, v) => v / 255);

/**
 * Network input for observations `inds` (default: all) of `frames` ([*, 64, 64, 3] bytes, procgen's layout, already
 * channels last): [n, 64, 64, 3] float32 in [0, 1]. Scaling here, in one pass over the bytes while gathering the
 * minibatch, saves three tensor kernels per minibatch (int32 upload, cast, divide).
 */
export function framesToInput(frames: Uint8Array, inds?: Int32Array): tf.Tensor4D {
  const n = inds?.length ?? frames.length / OBS_SIZE;
  const out = new Float32Array(n * OBS_SIZE);
  for (let j = 0; j < n; j++) {
    const src = (inds?.[j] ?? j) * OBS_SIZE;
    for (let p = 0, o = j * OBS_SIZE; p < OBS_SIZE; p++, o++) out[o] = PIXEL_SCALE[frames[src + p]];
  }
  return tf.tensor4d(out, [n, 64, 64, 3]);
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

/** The rollout's storage, flattened to `b_*` ([numSteps * numEnvs] samples): what the update draws minibatches from. */
export interface Batch {
  obs: Uint8Array;
  actions: Int32Array;
  logprobs: Float32Array;
  advantages: Float32Array;
  returns: Float32Array;
  values: Float32Array;
}
/** One forward/backward pass's worth of samples, as tensors; `advantages` already normalized (detail 7). */
export interface Minibatch {
  obs: tf.Tensor4D;
  actions: tf.Tensor1D;
  logprobs: tf.Tensor1D;
  advantages: tf.Tensor1D;
  returns: tf.Tensor1D;
  values: tf.Tensor1D;
}
type LossArgs = Pick<Args, "clipCoef" | "normAdv" | "clipVloss" | "entCoef" | "vfCoef">;
type UpdateArgs = LossArgs & Pick<Args, "maxGradNorm" | "gradChunkSize">;

/**
 * Detail 7: per-minibatch advantage normalization, `(adv - adv.mean()) / (adv.std() + 1e-8)` with torch's unbiased
 * (n - 1) std. In JS, over the whole minibatch, before it is split into gradient chunks (each chunk then sees the
 * minibatch's statistics, exactly as the unsplit update does).
 */
export function normalizeAdvantages(adv: Float32Array): Float32Array {
  const n = adv.length;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += adv[i];
  mean /= n;
  let sq = 0;
  for (let i = 0; i < n; i++) sq += (adv[i] - mean) ** 2;
  const std = Math.sqrt(sq / Math.max(n - 1, 1));
  return Float32Array.from(adv, (a) => (a - mean) / (std + 1e-8));
}

/** The PPO loss of one minibatch (or chunk of it) and its diagnostics (the `losses/*` metrics), all means. */
export function ppoLoss(agent: Agent, mb: Minibatch, args: LossArgs) {
  const { logprob: newlogprob, entropy, value: newvalue } = agent.getActionAndValue(mb.obs, mb.actions);
  const logratio = tf.sub(newlogprob, mb.logprobs);
  const ratio = tf.exp(logratio);
  // Detail 12: debug variables. approx_kl is the low-variance k3 estimator (http://joschu.net/blog/kl-approx.html),
  // clipfrac the share of samples whose ratio left the trust region.
  const oldApproxKl = tf.mean(tf.neg(logratio));
  const approxKl = tf.mean(tf.sub(tf.sub(ratio, 1), logratio));
  const clipfrac = tf.mean(tf.cast(tf.greater(tf.abs(tf.sub(ratio, 1)), args.clipCoef), "float32"));

  // Detail 8: clipped surrogate objective (a loss, so negated and maximized pessimistically).
  const mbAdvantages = mb.advantages;
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
 * The gradient of the PPO loss over the minibatch `mbInds` of `batch`, and its six diagnostics (UPDATE_METRICS
 * without grad_norm), both as the whole minibatch's values.
 * Gradient accumulation (a TypeScript-port detail, see --grad-chunk-size): the minibatch runs through the network
 * in chunks; every loss term and metric is a mean over samples, so weighting a chunk's loss and metrics by
 * chunk / minibatch and summing over chunks gives exactly the minibatch's mean, and its gradient. Only one chunk's
 * activations are alive at a time.
 */
export function minibatchGradients(
  agent: Agent,
  batch: Batch,
  mbInds: Int32Array,
  args: UpdateArgs,
): { grads: tf.NamedTensorMap; stats: tf.Tensor1D } {
  const n = mbInds.length;
  const advantages = Float32Array.from(mbInds, (b) => batch.advantages[b]);
  const mbAdvantages = args.normAdv ? normalizeAdvantages(advantages) : advantages;
  const chunkSize = args.gradChunkSize > 0 ? Math.min(args.gradChunkSize, n) : n;
  let grads: tf.NamedTensorMap | null = null;
  let stats: tf.Tensor1D | null = null;
  for (let start = 0; start < n; start += chunkSize) {
    const inds = mbInds.subarray(start, Math.min(start + chunkSize, n));
    const weight = inds.length / n;
    const prevGrads: tf.NamedTensorMap | null = grads;
    const prevStats: tf.Tensor1D | null = stats;
    const sums: { grads: tf.NamedTensorMap; stats: tf.Tensor1D } = tf.tidy(() => {
      const chunk: Minibatch = {
        obs: framesToInput(batch.obs, inds),
        actions: tf.tensor1d(
          Int32Array.from(inds, (b) => batch.actions[b]),
          "int32",
        ),
        logprobs: tf.tensor1d(Float32Array.from(inds, (b) => batch.logprobs[b])),
        advantages: tf.tensor1d(mbAdvantages.subarray(start, start + inds.length)),
        returns: tf.tensor1d(Float32Array.from(inds, (b) => batch.returns[b])),
        values: tf.tensor1d(Float32Array.from(inds, (b) => batch.values[b])),
      };
      let kept: tf.Tensor1D | null = null;
      const { grads: g } = tf.variableGrads(() => {
        const terms = ppoLoss(agent, chunk, args);
        // variableGrads disposes what its function made except the loss: keep the diagnostics out of its reach.
        kept = tf.keep(
          tf.mul(
            tf.stack([terms.pgLoss, terms.vLoss, terms.entropyLoss, terms.oldApproxKl, terms.approxKl, terms.clipfrac]),
            weight,
          ) as tf.Tensor1D,
        );
        return weight === 1 ? terms.loss : (tf.mul(terms.loss, weight) as tf.Scalar);
      }, agent.parameters());
      const chunkStats: tf.Tensor1D = kept!;
      const out: { grads: tf.NamedTensorMap; stats: tf.Tensor1D } = {
        grads:
          prevGrads === null ? g : Object.fromEntries(Object.entries(g).map(([k, v]) => [k, tf.add(prevGrads[k], v)])),
        stats: prevStats === null ? chunkStats : (tf.add(prevStats, chunkStats) as tf.Tensor1D),
      };
      if (prevStats !== null) chunkStats.dispose();
      return out;
    });
    if (prevGrads !== null) tf.dispose(prevGrads);
    if (prevStats !== null) prevStats.dispose();
    grads = sums.grads;
    stats = sums.stats;
  }
  return { grads: grads!, stats: stats! };
}

/**
 * One gradient step on the minibatch `mbInds` of `batch`: its gradient (`minibatchGradients`), one global-norm
 * clip, one Adam step. The tensor count stays flat.
 * Returns [pg_loss, v_loss, entropy, old_approx_kl, approx_kl, clipfrac, grad_norm] in one readback, taken before
 * the step so that a NaN or infinite value skips it: the NaN guard in the loop then stops with the last good agent.
 */
export function updateStep(
  agent: Agent,
  optimizer: tf.Optimizer,
  batch: Batch,
  mbInds: Int32Array,
  args: UpdateArgs,
): Float32Array {
  const { grads, stats } = minibatchGradients(agent, batch, mbInds, args);
  const values = tf.tidy(() => {
    // Detail 11: global gradient clipping, the norm of all parameters' gradients together at most 0.5.
    const clipped = clipGradNorm(grads, args.maxGradNorm);
    const metrics = tf.concat([stats, tf.reshape(clipped.norm, [1])]).dataSync() as Float32Array;
    if (metrics.every(Number.isFinite)) optimizer.applyGradients(clipped.grads);
    return metrics;
  });
  tf.dispose([grads, stats]);
  return values;
}
/** A safetensors checkpoint (envs/torch/checkpoint.ts): the agent under CleanRL's names, Adam's state, the progress. */
function saveAgent(path: string, agent: Agent, optimizer: StatefulOptimizer | null, progress: Progress): string {
  return writeCheckpoint(path, "ppo_procgen.ts", agent.namedParameters(), optimizer, progress);
}

/** An agent from a checkpoint of ours (safetensors or the older JSON) or a CleanRL `ppo_procgen.py` state dict. */
function loadAgent(path: string, envId: string): { agent: Agent; envId: string } {
  const checkpoint = readCheckpoint(path, "ppo_procgen.ts");
  const numActions = checkpoint.legacy
    ? (checkpoint.fields.numActions as number)
    : storedShape(checkpoint, "actor.weight")[0];
  const agent = new Agent(numActions, new RandomGenerator(0));
  loadParameters(checkpoint, agent.namedParameters());
  return { agent, envId: checkpoint.envId ?? envId };
}

/**
 * The env evaluation runs on: the single-game Gymnasium id on easy levels, recorded with RecordVideo when asked,
 * its raw returns recorded by RecordEpisodeStatistics.
 */
export function makeEvalEnv(
  envId: string,
  captureVideo: boolean,
  runName: string,
  assetsDir: string | null,
  useMonochromeAssets: boolean,
) {
  return () => {
    const options = { distributionMode: "easy", assetsDir, useMonochromeAssets };
    let env: gym.Env;
    if (captureVideo) {
      env = gym.make(`procgen-${envId}-v0`, { ...options, renderMode: "rgb_array" });
      env = new gym.wrappers.RecordVideo(env, `videos/${runName}`);
    } else {
      env = gym.make(`procgen-${envId}-v0`, options);
    }
    return new gym.wrappers.RecordEpisodeStatistics(env);
  };
}

/** CleanRL's `ppo_eval.evaluate`: runs the (stochastic) policy for `evalEpisodes` episodes, returns their returns. */
export function evaluate(
  agent: Agent,
  envId: string,
  evalEpisodes: number,
  runName: string,
  captureVideo: boolean,
  seed: number,
  assetsDir: string | null,
  useMonochromeAssets: boolean,
): number[] {
  const envs = new gym.vector.SyncVectorEnv([
    makeEvalEnv(envId, captureVideo, runName, assetsDir, useMonochromeAssets),
  ]);
  const rng = new RandomGenerator(seed);
  let [obs] = envs.reset({ seed });
  const episodicReturns: number[] = [];
  while (episodicReturns.length < evalEpisodes) {
    const { action } = agent.sampleActionAndValue(obs as Uint8Array, rng);
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
  const args: Args = {
    ...parseArgs(
      ARGS,
      "PPO on the Procgen benchmark with the IMPALA CNN (CleanRL's ppo_procgen.py).",
      "ppo_procgen.ts",
      argv,
    ),
    batchSize: 0,
    minibatchSize: 0,
    numIterations: 0,
  };
  // --resume continues a saved run: its args (but the flags given here), its run directory.
  const resumed = args.resume === null ? null : readCheckpoint(args.resume, "ppo_procgen.ts");
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
  // --env-id is a procgen game name; one not (yet) ported fails here in one line.
  if (args.evalCheckpoint === null) {
    try {
      gym.procgen.makeGame(args.envId, { distributionMode: gym.procgen.EASY_MODE, useMonochromeAssets: true });
    } catch (e) {
      usageError((e as Error).message);
    }
  }
  const runName =
    resumed?.progress?.runName ?? `${args.envId}__${args.expName}__${args.seed}__${Math.floor(Date.now() / 1000)}`;
  const modelPath = `runs/${runName}/${args.expName}.safetensors`;

  // Procgen detail 4: the game images, found (or downloaded) once, before anything else; with
  // --use-monochrome-assets the games need none.
  // (Monochrome runs still draw procgen's backgrounds when the images are at hand; without them, black.)
  let assetsDir: string | null = null;
  try {
    assetsDir = await gym.procgen.resolveAssetsDir({
      assetsDir: args.procgenAssetsDir,
      download: !args.useMonochromeAssets,
      log: console.log,
      games: args.evalCheckpoint === null ? [args.envId] : undefined,
    });
  } catch (e) {
    if (!(e instanceof gym.procgen.AssetsNotFoundError)) throw e;
    if (!args.useMonochromeAssets) usageError(e.message);
    console.log("procgen images not found: monochrome sprites on black backgrounds");
  }
  const images = assetsDir === null ? null : gym.procgen.imageLoader(assetsDir);

  // TRY NOT TO MODIFY: seeding and backend (CleanRL's `device`), before any tensor exists.
  if (args.torchDeterministic) process.env.TF_DETERMINISTIC_OPS = "1";
  await setupBackend(args.backend, { cuda: args.cuda });
  const rng = new RandomGenerator(args.seed);

  if (args.evalCheckpoint !== null) {
    const { agent, envId } = loadAgent(args.evalCheckpoint, args.envId);
    const returns = evaluate(
      agent,
      envId,
      args.evalEpisodes,
      runName,
      args.captureVideo,
      args.seed,
      assetsDir,
      args.useMonochromeAssets,
    );
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

  // env setup. Detail 1: vectorized environments, stepped in lockstep, reset automatically at episode end.
  // Unlike CleanRL (procgen draws its rand_seed from the OS), --seed seeds the level sequence: runs are reproducible.
  const envs = makeEnvs(
    args.envId,
    args.numEnvs,
    args.seed,
    images,
    args.useMonochromeAssets,
    args.gamma,
    args.captureVideo,
    runName,
  );
  closeOnExit(envs, writer, tracker); // on Ctrl-C, SIGTERM or an error: close the envs (videos), flush the logs
  if (!(envs.singleActionSpace instanceof gym.spaces.Discrete))
    usageError(`only discrete action space is supported; ${args.envId} has ${envs.singleActionSpace}`);
  const numActions = envs.singleActionSpace.n;

  const agent = new Agent(numActions, rng);
  const optimizer = makeOptimizer(args.learningRate);
  // --resume: the parameters, Adam's moments and step, and the generator's stream where the checkpoint left them.
  const start =
    resumed === null
      ? { iteration: 0, globalStep: 0 }
      : restoreTraining(resumed, agent.namedParameters(), optimizer, rng);

  // ALGO Logic: Storage setup. [numSteps, numEnvs] row-major, so the flattened arrays are already `b_*`.
  // The division by 255 happens in the network, so observations are stored as the bytes they are.
  const obs = new Uint8Array(args.numSteps * args.numEnvs * OBS_SIZE);
  const actions = new Int32Array(args.numSteps * args.numEnvs);
  const logprobs = new Float32Array(args.numSteps * args.numEnvs);
  const rewards = new Float32Array(args.numSteps * args.numEnvs);
  const dones = new Float32Array(args.numSteps * args.numEnvs);
  const values = new Float32Array(args.numSteps * args.numEnvs);

  // TRY NOT TO MODIFY: start the game
  let globalStep = start.globalStep;
  const progressAt = (iteration: number): Progress => ({ runName, iteration, globalStep, rng: [rng.getState()], args });
  const startTime = performance.now();
  let nextObs = envs.reset();
  let nextDone = new Float32Array(args.numEnvs);

  for (let iteration = start.iteration + 1; iteration <= args.numIterations; iteration++) {
    await pollSignals(); // a pending Ctrl-C / SIGTERM runs here: the loop itself never yields to the event loop
    // Detail 4: learning rate annealed linearly from its initial value to 0 over the run.
    if (args.annealLr) {
      const frac = 1.0 - (iteration - 1.0) / args.numIterations;
      setLearningRate(optimizer, frac * args.learningRate);
    }

    for (let step = 0; step < args.numSteps; step++) {
      globalStep += args.numEnvs;
      obs.set(nextObs as Uint8Array, step * args.numEnvs * OBS_SIZE);
      dones.set(nextDone, step * args.numEnvs);

      // ALGO LOGIC: action logic
      const { action, logprob, value } = agent.sampleActionAndValue(nextObs as Uint8Array, rng);
      values.set(value, step * args.numEnvs);
      actions.set(action, step * args.numEnvs);
      logprobs.set(logprob, step * args.numEnvs);

      // TRY NOT TO MODIFY: execute the game and log data.
      // gym 0.23's 4-tuple: procgen has one `done` (a time-limit end included), and the obs is already the reset one.
      const [stepObs, reward, done, infos] = envs.step(action);
      nextObs = stepObs;
      rewards.set(reward, step * args.numEnvs);
      nextDone = Float32Array.from(done);

      // As CleanRL: only the first env (lowest index) that finished an episode this step is logged.
      for (const info of infos) {
        const episode = info.episode as { r: number; l: number } | undefined;
        if (episode) {
          console.log(`global_step=${globalStep}, episodic_return=${episode.r}`);
          writer.addScalar("charts/episodic_return", episode.r, globalStep);
          writer.addScalar("charts/episodic_length", episode.l, globalStep);
          break;
        }
      }
    }

    // bootstrap value if not done
    const nextValue = tf.tidy(() => agent.getValue(framesToInput(nextObs as Uint8Array)).dataSync() as Float32Array);
    const { advantages, returns } = computeGae(rewards, values, dones, nextValue, nextDone, args.gamma, args.gaeLambda);
    const batch: Batch = { obs, actions, logprobs, advantages, returns, values };

    // Optimizing the policy and value network. Detail 6: shuffled minibatches, several epochs over the batch.
    // CleanRL's `np.arange` anew each iteration: the shuffled order depends on the generator alone, which a checkpoint saves.
    const bInds = Int32Array.from({ length: args.batchSize }, (_, i) => i);
    const clipfracs: number[] = [];
    let stats: Float32Array = new Float32Array(UPDATE_METRICS.length);
    for (let epoch = 0; epoch < args.updateEpochs; epoch++) {
      shuffle(bInds, rng);
      for (let start = 0; start < args.batchSize; start += args.minibatchSize) {
        stats = updateStep(agent, optimizer, batch, bInds.subarray(start, start + args.minibatchSize), args);
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
    saveAgent(modelPath, agent, optimizer, progressAt(args.numIterations));
    console.log(`model saved to ${modelPath}`);
    const episodicReturns = evaluate(
      agent,
      args.envId,
      args.evalEpisodes,
      `${runName}-eval`,
      args.captureVideo,
      args.seed,
      assetsDir,
      args.useMonochromeAssets,
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
