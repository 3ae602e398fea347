// ppo_pettingzoo_ma_atari.ts — self-play PPO on multi-player Atari games (PettingZoo), CleanRL's
// `ppo_pettingzoo_ma_atari.py` in TypeScript.
//
//   npx tsx ppo_pettingzoo_ma_atari.ts --env-id pong_v3 --rom-dir ~/roms   # CleanRL's defaults
//   npx tsx ppo_pettingzoo_ma_atari.ts --help                              # every flag, its default and doc
//
// One policy plays every side: each game's agents are slots of the vector env (8 games x 2 agents = 16; the 4-player
// games give 4 x 4), each with its own reward, done flag and GAE. Reference: https://docs.cleanrl.dev/rl-algorithms/ppo/#ppo_pettingzoo_ma_ataripy.
// `diff ppo_atari.ts ppo_pettingzoo_ma_atari.ts` shows what changes: the PettingZoo + SuperSuit env stack (no
// no-op/fire reset, no episodic life), 16 slots, 20M steps, 6 input channels (4 frames + 2 agent-indicator channels,
// only the frames divided by 255; one indicator channel per agent, so 8 for 4 players), and episode statistics logged
// per player.
// ROMs are not included: point --rom-dir (or ALE_ROMS_DIR) at a folder holding pong.bin, surround.bin, tennis.bin...
import * as tf from "@tensorflow/tfjs";
import { basename } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import * as gym from "./envs/gymnasium/index.ts";
import * as pettingzoo from "./envs/pettingzoo/index.ts";
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
  romDir: str(null, "the folder holding the Atari ROM images (else ALE_ROMS_DIR, else an installed ale-py's roms/)"),

  // Algorithm specific arguments
  envId: str("pong_v3", "the id of the environment"),
  totalTimesteps: int(20000000, "total timesteps of the experiments", { ge: 1 }),
  learningRate: float(2.5e-4, "the learning rate of the optimizer", { gt: 0 }),
  numEnvs: int(16, "the number of parallel game environments (agent slots: one per agent of each game)", { ge: 1 }),
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
};
type Args = ArgValues<typeof ARGS> & { batchSize: number; minibatchSize: number; numIterations: number };

/**
 * One game: the raw PettingZoo env under SuperSuit's wrappers, as one vector-env member with a slot per agent.
 * Exported (and its arguments kept serializable) because each game runs in a worker thread: the worker imports
 * this module and calls `makeEnv(...args)()` itself (CleanRL's concat_vec_envs_v1 pickles the chain instead).
 */
export function makeEnv(envId: string, idx: number, captureVideo: boolean, runName: string) {
  return () => {
    const ss = pettingzoo.ss;
    let env: pettingzoo.ParallelEnv<Uint8Array, number> = pettingzoo.atari.parallelEnv(envId, {
      renderMode: captureVideo && idx === 0 ? "rgb_array" : null,
    });
    env = ss.maxObservation(env, 2); // Atari detail 2, as SuperSuit splits it: max over the last 2 frames...
    env = ss.frameSkip(env, 4); // ...of every 4 (each agent's rewards summed)
    env = ss.clipReward(env, -1, 1); // Atari detail 5: rewards clipped to [-1, 1]
    env = ss.colorReduction(env, "B"); // Atari detail 6: one channel (the blue one, not luminance)...
    env = ss.resize(env, 84, 84); // ...at 84x84 (TinyScaler's bilinear)
    env = ss.frameStack(env, 4); // Atari detail 7: the last 4 frames stacked (zeros at reset)
    env = ss.agentIndicator(env); // one more channel per agent saying which player this observation is for
    // black_death: in joust, mario_bros, maze_craze, warlords and wizard_of_wor a player can leave before the game
    // ends; its slot then sees zeros and no reward until the game resets. Agents that leave together (pong_v3,
    // surround_v2, tennis_v3, CleanRL's games) never trigger it.
    let game: gym.Env = ss.pettingzooEnvToVecEnv(env, true);
    // The whole screen shows both players: one game's video covers both agents.
    if (captureVideo && idx === 0) game = new gym.wrappers.RecordVideo(game, `videos/${runName}`);
    return game;
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

  /** Input channels: 4 frames and one agent-indicator channel per agent of a game. */
  readonly channels: number;
  /** Bytes of one observation, 84 x 84 x channels. */
  readonly obsSize: number;
  /** What each input channel is divided by: 255 for the 4 frames, 1 for the indicator channels. */
  private readonly channelScale: number[];

  constructor(
    readonly numActions: number,
    rng: RandomGenerator,
    readonly numAgents = 2,
  ) {
    this.channels = 4 + numAgents;
    this.obsSize = 84 * 84 * this.channels;
    this.channelScale = [255, 255, 255, 255, ...new Array<number>(numAgents).fill(1)];
    this.network = {
      convs: [conv2dInit(this.channels, 32, 8, 4, rng), conv2dInit(32, 64, 4, 2, rng), conv2dInit(64, 64, 3, 1, rng)],
      fc: layerInit(64 * 7 * 7, 512, rng),
    };
    // Detail 2: policy head gain 0.01 (near-uniform initial policy), value head gain 1.
    this.actor = layerInit(512, numActions, rng, 0.01);
    this.critic = layerInit(512, 1, rng, 1);
  }

  /**
   * Observations arrive as stored, [N, 84, 84, 4 + agents] bytes (channels last, which tfjs convolutions want;
   * CleanRL permutes to channels first for torch). Atari detail 9: the 4 frame channels scaled to [0, 1]; the
   * agent-indicator channels stay 0/1.
   */
  hidden(x: tf.Tensor4D): tf.Tensor2D {
    let h = tf.div(x, this.channelScale) as tf.Tensor4D;
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
   * The rollout's `agent.get_action_and_value(next_obs)` under `torch.no_grad()`: one forward pass for all envs,
   * one readback of [logits | value], then `Categorical(logits).sample()` and its log-prob in plain JS.
   */
  sampleActionAndValue(
    obs: Uint8Array,
    rng: RandomGenerator,
  ): { action: Int32Array; logprob: Float32Array; value: Float32Array } {
    const n = obs.length / this.obsSize;
    const out = tf.tidy(() => {
      const hidden = this.hidden(tf.tensor4d(obs, [n, 84, 84, this.channels], "int32"));
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

/** A safetensors checkpoint (envs/torch/checkpoint.ts): the agent under CleanRL's names, Adam's state, the progress. */
function saveAgent(path: string, agent: Agent, optimizer: StatefulOptimizer | null, progress: Progress): string {
  return writeCheckpoint(path, "ppo_pettingzoo_ma_atari.ts", agent.namedParameters(), optimizer, progress);
}

/** An agent from a checkpoint of ours (safetensors or the older JSON) or a CleanRL `ppo_pettingzoo_ma_atari.py` state dict. */
function loadAgent(path: string, envId: string): { agent: Agent; envId: string } {
  const checkpoint = readCheckpoint(path, "ppo_pettingzoo_ma_atari.ts");
  const numActions = checkpoint.legacy
    ? (checkpoint.fields.numActions as number)
    : storedShape(checkpoint, "actor.weight")[0];
  // The first conv sees 4 frames and one indicator channel per agent (torch's [out, in, kh, kw]).
  const numAgents = checkpoint.legacy
    ? ((checkpoint.fields.numAgents as number | undefined) ?? 2)
    : storedShape(checkpoint, "network.0.weight")[1] - 4;
  const agent = new Agent(numActions, new RandomGenerator(0), numAgents);
  loadParameters(checkpoint, agent.namedParameters());
  return { agent, envId: checkpoint.envId ?? envId };
}

/**
 * CleanRL's `ppo_eval.evaluate`, in self-play: the (stochastic) policy plays both sides of one game for
 * `evalEpisodes` episodes; returns first_0's episodic returns (second_0's are logged beside them).
 */
export function evaluate(
  agent: Agent,
  envId: string,
  evalEpisodes: number,
  runName: string,
  captureVideo: boolean,
  seed: number,
): number[] {
  const envs = new pettingzoo.ss.RecordEpisodeStatistics(
    new pettingzoo.ss.ConcatVecEnv(new gym.vector.SyncVectorEnv([makeEnv(envId, 0, captureVideo, runName)])),
  );
  const rng = new RandomGenerator(seed);
  let [obs] = envs.reset({ seed });
  const episodicReturns: number[] = [];
  while (episodicReturns.length < evalEpisodes) {
    const { action } = agent.sampleActionAndValue(obs, rng);
    const [nextObs, , , , infos] = envs.step(action);
    const [first, second] = [
      infos[0].episode as pettingzoo.ss.SlotEpisode | undefined,
      infos[1].episode as pettingzoo.ss.SlotEpisode | undefined,
    ];
    if (first) {
      console.log(
        `eval_episode=${episodicReturns.length}, episodic_return-player0=${first.r}, episodic_return-player1=${second?.r}, episodic_length=${first.l}`,
      );
      episodicReturns.push(first.r);
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
      "Self-play PPO on PettingZoo's multi-player Atari games (CleanRL's ppo_pettingzoo_ma_atari.py).",
      "ppo_pettingzoo_ma_atari.ts",
      argv,
    ),
    batchSize: 0,
    minibatchSize: 0,
    numIterations: 0,
  };
  // --resume continues a saved run: its args (but the flags given here), its run directory.
  const resumed = args.resume === null ? null : readCheckpoint(args.resume, "ppo_pettingzoo_ma_atari.ts");
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
  const envIds = Object.keys(pettingzoo.atari.ATARI_ENVS);
  if (args.evalCheckpoint === null && !envIds.includes(args.envId))
    usageError(`unknown --env-id ${args.envId}; one of: ${envIds.join(", ")}`);
  const runName =
    resumed?.progress?.runName ?? `${args.envId}__${args.expName}__${args.seed}__${Math.floor(Date.now() / 1000)}`;
  const modelPath = `runs/${runName}/${args.expName}.safetensors`;

  // The ROM folder travels as ALE_ROMS_DIR, which the env workers inherit and the ALE envs read.
  if (args.romDir !== null) process.env.ALE_ROMS_DIR = args.romDir;

  // TRY NOT TO MODIFY: seeding and backend (CleanRL's `device`), before any tensor exists.
  if (args.torchDeterministic) process.env.TF_DETERMINISTIC_OPS = "1";
  await setupBackend(args.backend, { cuda: args.cuda });
  const rng = new RandomGenerator(args.seed);

  if (args.evalCheckpoint !== null) {
    const { agent, envId } = loadAgent(args.evalCheckpoint, args.envId);
    const returns = evaluate(agent, envId, args.evalEpisodes, runName, args.captureVideo, args.seed);
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

  // A missing ROM (or an env not ported yet) fails here, in one line, rather than inside every env worker.
  let agentsPerGame = 2;
  try {
    const probe = pettingzoo.atari.parallelEnv(args.envId);
    agentsPerGame = probe.possibleAgents.length;
    probe.close();
  } catch (e) {
    usageError((e as Error).message);
  }
  if (args.numEnvs % agentsPerGame !== 0)
    usageError(`--num-envs ${args.numEnvs} is not a multiple of ${args.envId}'s ${agentsPerGame} agents`);
  // env setup. Detail 1: vectorized environments, stepped in lockstep, reset automatically at episode end.
  // Every agent of every game is one slot (concat_vec_envs_v1): game c's k agents are slots kc..kc+k-1. Each game
  // steps in its own worker thread: emulation is the bottleneck, so the games must spread over the cores.
  const games = new gym.vector.AsyncVectorEnv(
    Array.from({ length: args.numEnvs / agentsPerGame }, (_, i) => ({
      module: import.meta.url,
      exportName: "makeEnv",
      args: [args.envId, i, args.captureVideo, runName],
    })),
  );
  const envs = new pettingzoo.ss.RecordEpisodeStatistics(new pettingzoo.ss.ConcatVecEnv(games));
  closeOnExit(envs, writer, tracker); // on Ctrl-C, SIGTERM or an error: close the envs (workers, videos), flush the logs
  const numActions = envs.singleActionSpace.n;

  const agent = new Agent(numActions, rng, agentsPerGame);
  const optimizer = makeOptimizer(args.learningRate);
  // --resume: the parameters, Adam's moments and step, and the generator's stream where the checkpoint left them.
  const start =
    resumed === null
      ? { iteration: 0, globalStep: 0 }
      : restoreTraining(resumed, agent.namedParameters(), optimizer, rng);

  // ALGO Logic: Storage setup. [numSteps, numEnvs] row-major, so the flattened arrays are already `b_*`.
  // Atari detail 9's division by 255 happens in the network, so observations are stored as the bytes they are.
  const obs = new Uint8Array(args.numSteps * args.numEnvs * agent.obsSize);
  const actions = new Int32Array(args.numSteps * args.numEnvs);
  const logprobs = new Float32Array(args.numSteps * args.numEnvs);
  const rewards = new Float32Array(args.numSteps * args.numEnvs);
  const dones = new Float32Array(args.numSteps * args.numEnvs);
  const values = new Float32Array(args.numSteps * args.numEnvs);

  // TRY NOT TO MODIFY: start the game
  let globalStep = start.globalStep;
  const progressAt = (iteration: number): Progress => ({ runName, iteration, globalStep, rng: [rng.getState()], args });
  const startTime = performance.now();
  // CleanRL resets without a seed: each game's emulator draws its own (its `--seed` seeds only the learner).
  let [nextObs] = envs.reset();
  let nextDone = new Float32Array(args.numEnvs);

  const mbObs = new Uint8Array(args.minibatchSize * agent.obsSize);
  const mbActions = new Int32Array(args.minibatchSize);
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
      obs.set(nextObs, step * args.numEnvs * agent.obsSize);
      dones.set(nextDone, step * args.numEnvs);

      // ALGO LOGIC: action logic
      const { action, logprob, value } = agent.sampleActionAndValue(nextObs, rng);
      values.set(value, step * args.numEnvs);
      actions.set(action, step * args.numEnvs);
      logprobs.set(logprob, step * args.numEnvs);

      // TRY NOT TO MODIFY: execute the game and log data.
      const [stepObs, reward, terminations, truncations, infos] = envs.step(action);
      nextObs = stepObs;
      rewards.set(reward, step * args.numEnvs);
      // An episode ends on termination or truncation alike (CleanRL's `np.logical_or`): the next obs is a reset.
      nextDone = Float32Array.from(terminations, (term, i) => (term || truncations[i] ? 1 : 0));

      // Each slot's episode is logged under its player: slot i is player i mod k of game i div k (k agents a game).
      infos.forEach((info, idx) => {
        const episode = info.episode as pettingzoo.ss.SlotEpisode | undefined;
        if (episode) {
          const player = idx % agentsPerGame;
          console.log(`global_step=${globalStep}, ${player}-episodic_return=${episode.r}`);
          writer.addScalar(`charts/episodic_return-player${player}`, episode.r, globalStep);
          writer.addScalar(`charts/episodic_length-player${player}`, episode.l, globalStep);
        }
      });
    }

    // bootstrap value if not done
    const nextValue = tf.tidy(
      () =>
        agent
          .getValue(tf.tensor4d(nextObs, [args.numEnvs, 84, 84, agent.channels], "int32"))
          .dataSync() as Float32Array,
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
          mbObs.set(obs.subarray(b * agent.obsSize, (b + 1) * agent.obsSize), j * agent.obsSize);
          mbActions[j] = actions[b];
          mbLogprobs[j] = logprobs[b];
          mbAdvantages[j] = advantages[b];
          mbReturns[j] = returns[b];
          mbValues[j] = values[b];
        }
        const mb = tf.tidy(() => ({
          obs: tf.tensor4d(mbObs, [args.minibatchSize, 84, 84, agent.channels], "int32"),
          actions: tf.tensor1d(mbActions, "int32"),
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
    saveAgent(modelPath, agent, optimizer, progressAt(args.numIterations));
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
