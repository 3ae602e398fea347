// ppo_continuous_action.ts — PPO for continuous-action environments, CleanRL's `ppo_continuous_action.py`.
//
//   npx tsx ppo_continuous_action.ts --env-id Hopper-v4   # MuJoCo, CleanRL's defaults; --help lists every flag
//
// The whole algorithm is in this file, top to bottom: flags, env construction, network, rollout, GAE, the PPO
// update and logging. Reference: https://docs.cleanrl.dev/rl-algorithms/ppo/#ppo_continuous_actionpy and "The 37
// Implementation Details of Proximal Policy Optimization" (Huang et al., ICLR blog track 2022). Comments name the
// detail they implement: "detail 3" for the 13 core details, "continuous detail 2" for the 9 details specific to
// continuous action spaces.
import * as tf from "@tensorflow/tfjs";
import { basename } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import * as gym from "./envs/gymnasium/index.ts";
import { type ArgValues, bool, float, int, str } from "./envs/run/cli.ts";
import { runMain } from "./envs/run/main.ts";
import { progress } from "./envs/run/progress.ts";
import { RUN_ARGS, evaluate, parseRunArgs, reportEvaluation, startRun } from "./envs/run/run.ts";
import { readCheckpoint } from "./envs/torch/checkpoint.ts";
import { Normal } from "./envs/torch/distributions.ts";
import * as nn from "./envs/torch/nn.ts";
import { layerInit } from "./envs/torch/nn.ts";
import { type StatefulOptimizer, adam, backward, getLearningRate, setLearningRate } from "./envs/torch/optim.ts";
import { shuffle } from "./envs/torch/rng.ts";

export const ARGS = {
  expName: str(basename(fileURLToPath(import.meta.url), ".ts"), "the name of this experiment"),
  seed: int(1, "seed of the experiment", { ge: 0 }),
  torchDeterministic: bool(true, "if toggled, sets TF_DETERMINISTIC_OPS=1 (`torch.backends.cudnn.deterministic`)"),
  cuda: bool(true, "if toggled, `--backend auto` may pick a GPU backend (CUDA or WebGPU)"),
  track: bool(false, "if toggled, this experiment will be tracked with Weights and Biases"),
  wandbProjectName: str("cleanRL", "the wandb's project name"),
  wandbEntity: str(null, "the entity (team) of wandb's project"),
  captureVideo: bool(false, "whether to capture videos of the agent performances (check out `videos` folder)"),
  ...RUN_ARGS,

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

export function makeEnv(envId: string, idx: number, captureVideo: boolean, runName: string, gamma: number) {
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
    // Continuous detail 5: the policy's Gaussian sample is clipped to the action bounds only when sent to the env;
    // the rollout stores the unclipped sample, whose log-probability is the one the policy computed.
    env = new gym.wrappers.ClipAction(env);
    // Continuous details 6 and 7: observations normalized by a running mean/std, then clipped to [-10, 10].
    env = new gym.wrappers.NormalizeObservation(env);
    env = new gym.wrappers.TransformObservation(env, (obs: Float64Array) =>
      obs.map((v) => Math.min(Math.max(v, -10), 10)),
    );
    // Continuous details 8 and 9: rewards scaled by the std of a running discounted return, then clipped.
    env = new gym.wrappers.NormalizeReward(env, gamma);
    env = new gym.wrappers.TransformReward(env, (reward) => Math.min(Math.max(reward, -10), 10));
    return env;
  };
}

// Detail 13: separate actor and critic networks (64-64 tanh MLPs), no shared trunk.
export class Agent extends nn.Module {
  readonly critic: nn.Sequential;
  readonly actorMean: nn.Sequential;
  /** Continuous detail 2: a state-independent log standard deviation per action dimension, starting at 0. */
  readonly actorLogstd: tf.Variable;

  constructor(obsDim: number, actionDim: number) {
    super();
    this.critic = new nn.Sequential(
      layerInit(new nn.Linear(obsDim, 64)),
      new nn.Tanh(),
      layerInit(new nn.Linear(64, 64)),
      new nn.Tanh(),
      layerInit(new nn.Linear(64, 1), 1.0),
    );
    // Detail 2: the policy head's gain 0.01 makes the initial action means near 0.
    this.actorMean = new nn.Sequential(
      layerInit(new nn.Linear(obsDim, 64)),
      new nn.Tanh(),
      layerInit(new nn.Linear(64, 64)),
      new nn.Tanh(),
      layerInit(new nn.Linear(64, actionDim), 0.01),
    );
    this.actorLogstd = tf.variable(tf.zeros([1, actionDim]));
  }

  getValue(x: tf.Tensor): tf.Tensor1D {
    return this.critic.forward(x).reshape([-1]);
  }

  /**
   * Continuous details 1 and 3: a Gaussian policy, `Normal(action_mean, exp(action_logstd))` (given its log-std),
   * with independent action components. Samples an action when none is given (the rollout); returns it, its
   * log-probability and the entropy, each summed over the components (CleanRL's `.sum(1)`), and the value.
   */
  getActionAndValue(x: tf.Tensor, action?: tf.Tensor2D): [tf.Tensor2D, tf.Tensor1D, tf.Tensor1D, tf.Tensor1D] {
    const actionMean = this.actorMean.forward(x) as tf.Tensor2D;
    const actionLogstd = tf.broadcastTo(this.actorLogstd, actionMean.shape) as tf.Tensor2D;
    const probs = new Normal(actionMean, actionLogstd);
    action ??= probs.sample();
    return [action, probs.logProb(action), probs.entropy(), this.getValue(x)];
  }
}

/** Detail 3: Adam with epsilon 1e-5 (openai/baselines), not PyTorch's 1e-8; torch's default betas. */
export function makeOptimizer(learningRate: number): StatefulOptimizer {
  return adam(learningRate, 0.9, 0.999, 1e-5);
}

export async function main(argv = process.argv.slice(2)): Promise<void> {
  const description = "PPO for continuous actions (CleanRL's ppo_continuous_action.py).";
  const args = parseRunArgs(ARGS, description, "ppo_continuous_action.ts", argv) as Args;
  args.batchSize = args.numEnvs * args.numSteps;
  args.minibatchSize = Math.floor(args.batchSize / args.numMinibatches);
  args.numIterations = Math.floor(args.totalTimesteps / args.batchSize);
  // MuJoCo's WASM module loads once, before any `gym.make` (Python loads it on `import mujoco`).
  await gym.mujoco.init();
  // Run name, seeding and backend, TensorBoard and wandb, checkpoints: envs/run/run.ts.
  const run = await startRun(args, {
    script: "ppo_continuous_action.ts",
    spaces: { action: "continuous", observation: "vector" },
    wasmThreads: 1, // this MLP's matMuls are too small to share between threads
  });

  // What CleanRL's `ppo_eval.evaluate` runs: observations in, sampled actions out. The agent acts on normalized
  // observations, so the env normalizes them with the statistics it was trained with, frozen.
  const policy = (agent: Agent) => (obs: ArrayLike<number>) =>
    tf.tidy(() => agent.getActionAndValue(tf.tensor2d(Float32Array.from(obs), [1, obs.length]))[0].dataSync());
  const evalEnv = (envId: string, runName: string, saved?: Partial<gym.wrappers.NormalizerStates>) => () => {
    const env = makeEnv(envId, 0, args.captureVideo, runName, args.gamma)();
    if (saved) gym.wrappers.loadNormalizerStates([env], saved, true);
    return env;
  };
  if (args.evalCheckpoint !== null) {
    const { agent, envId } = run.loadAgent(
      (shape) => new Agent(shape("critic.0.weight")[1], shape("actor_mean.4.weight")[0]),
    );
    const env = evalEnv(envId, run.name, savedNormalizerStates(args.evalCheckpoint));
    return reportEvaluation(evaluate(env, args.evalEpisodes, args.seed, policy(agent)));
  }
  const writer = run.writer;

  // env setup. Detail 1: vectorized environments, stepped in lockstep, reset automatically at episode end.
  const envs = new gym.vector.SyncVectorEnv(
    Array.from({ length: args.numEnvs }, (_, i) => makeEnv(args.envId, i, args.captureVideo, run.name, args.gamma)),
  );
  run.closeOnExit(envs);
  const obsDim = envs.singleObservationSpace.size;
  const actionDim = envs.singleActionSpace.size;

  const agent = new Agent(obsDim, actionDim);
  const optimizer = makeOptimizer(args.learningRate);
  const start = run.restore(agent, optimizer); // with --resume: the saved iteration, step, Adam and generator
  // Checkpoints carry every env's normalizer statistics too: a resumed run goes on normalizing as before.
  run.extra = () => gym.wrappers.normalizerStates(envs.envs);
  const resumed = run.resumedFrom?.progress?.extra;
  if (resumed) gym.wrappers.loadNormalizerStates(envs.envs, resumed);

  // ALGO Logic: Storage setup. One tensor per step for what the network reads or produced; rewards and dones,
  // which GAE reads, as [numSteps, numEnvs] row-major arrays, already flattened.
  const obs: tf.Tensor[] = new Array(args.numSteps);
  const actions: tf.Tensor[] = new Array(args.numSteps);
  const logprobs: tf.Tensor[] = new Array(args.numSteps);
  const values: tf.Tensor[] = new Array(args.numSteps);
  const rewards = new Float32Array(args.numSteps * args.numEnvs);
  const dones = new Float32Array(args.numSteps * args.numEnvs);

  // TRY NOT TO MODIFY: start the game
  let globalStep = start.globalStep;
  const startTime = performance.now();
  let nextObs = tf.tensor2d(Float32Array.from(envs.reset({ seed: args.seed })[0]), [args.numEnvs, obsDim]);
  let nextDone = new Float32Array(args.numEnvs);

  for (let iteration = start.iteration + 1; iteration <= args.numIterations; iteration++) {
    await run.startIteration(iteration, globalStep);
    // Detail 4: learning rate annealed linearly from its initial value to 0 over the run.
    if (args.annealLr) {
      const frac = 1.0 - (iteration - 1.0) / args.numIterations;
      setLearningRate(optimizer, frac * args.learningRate);
    }

    for (let step = 0; step < args.numSteps; step++) {
      globalStep += args.numEnvs;
      obs[step] = nextObs;
      dones.set(nextDone, step * args.numEnvs);

      // ALGO LOGIC: action logic
      const [action, logprob, entropy, value] = tf.tidy(() => agent.getActionAndValue(nextObs));
      [actions[step], logprobs[step], values[step]] = [action, logprob, value];
      entropy.dispose();

      // TRY NOT TO MODIFY: execute the game and log data.
      const [stepObs, reward, terminations, truncations, infos] = envs.step(action.dataSync());
      // An episode ends on termination or truncation alike (CleanRL's `np.logical_or`): the next obs is a reset.
      nextDone = Float32Array.from(terminations, (term, i) => (term || truncations[i] ? 1 : 0));
      rewards.set(reward, step * args.numEnvs);
      nextObs = tf.tensor2d(Float32Array.from(stepObs), [args.numEnvs, obsDim]);

      for (const info of infos.final_info ?? []) {
        if (info?.episode) {
          console.log(`global_step=${globalStep}, episodic_return=${info.episode.r}`);
          writer.addScalar("charts/episodic_return", info.episode.r, globalStep);
          writer.addScalar("charts/episodic_length", info.episode.l, globalStep);
        }
      }
    }

    // bootstrap value if not done
    const nextValue = tf.tidy(() => agent.getValue(nextObs).dataSync() as Float32Array);
    const bValues = tf.concat(values);
    const valuesData = bValues.dataSync() as Float32Array;
    const { advantages, returns } = computeGae(
      rewards,
      valuesData,
      dones,
      nextValue,
      nextDone,
      args.gamma,
      args.gaeLambda,
    );

    // flatten the batch
    const b: Minibatch = {
      obs: tf.concat(obs),
      actions: tf.concat(actions) as tf.Tensor2D,
      logprobs: tf.concat(logprobs) as tf.Tensor1D,
      advantages: tf.tensor1d(advantages),
      returns: tf.tensor1d(returns),
      values: bValues as tf.Tensor1D,
    };
    tf.dispose([...obs, ...actions, ...logprobs, ...values]);

    // Optimizing the policy and value network. Detail 6: shuffled minibatches, several epochs over the batch.
    const bInds = Int32Array.from({ length: args.batchSize }, (_, i) => i);
    const clipfracs: number[] = [];
    let stats: Float32Array = new Float32Array(7);
    for (let epoch = 0; epoch < args.updateEpochs; epoch++) {
      shuffle(bInds);
      for (let start = 0; start < args.batchSize; start += args.minibatchSize) {
        const mbInds = bInds.subarray(start, start + args.minibatchSize);
        const mb = tf.tidy(() => gather(b, tf.tensor1d(mbInds, "int32")));
        stats = updateStep(agent, optimizer, mb, args);
        tf.dispose(Object.values(mb));
        run.guard(stats, iteration); // NaN guard: a non-finite loss or gradient norm stops the run before its step
        clipfracs.push(stats[5]);
      }
      // Early stopping at the epoch level once the policy moved too far (approx_kl of the last minibatch).
      if (args.targetKl !== null && stats[4] > args.targetKl) break;
    }
    tf.dispose(Object.values(b));
    const [pgLoss, vLoss, entropyLoss, oldApproxKl, approxKl] = stats;

    const explainedVar = explainedVariance(valuesData, returns);

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
    run.checkpoint(iteration, globalStep); // --checkpoint-every
  }

  if (args.saveModel) {
    run.saveModel(args.numIterations, globalStep);
    const env = evalEnv(args.envId, `${run.name}-eval`, gym.wrappers.normalizerStates(envs.envs));
    const episodicReturns = evaluate(env, args.evalEpisodes, args.seed, policy(agent));
    episodicReturns.forEach((r, idx) => writer.addScalar("eval/episodic_return", r, idx));
    await run.upload(episodicReturns); // --upload-model: to the Hugging Face Hub
  }

  envs.close();
  await run.close();
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

export type Minibatch = {
  obs: tf.Tensor;
  actions: tf.Tensor2D;
  logprobs: tf.Tensor1D;
  advantages: tf.Tensor1D;
  returns: tf.Tensor1D;
  values: tf.Tensor1D;
};

type LossArgs = Pick<Args, "clipCoef" | "normAdv" | "clipVloss" | "entCoef" | "vfCoef" | "maxGradNorm">;

/** `b_obs[mb_inds]`, `b_actions[mb_inds]`, ...: the minibatch's rows of every batch tensor. */
function gather<B extends object>(batch: B, mbInds: tf.Tensor1D): B {
  return Object.fromEntries(Object.entries(batch).map(([k, t]) => [k, tf.gather(t, mbInds)])) as B;
}

/**
 * One gradient step on one minibatch: the PPO loss, then `loss.backward()`, `clip_grad_norm_` and
 * `optimizer.step()`. Returns [pg_loss, v_loss, entropy, old_approx_kl, approx_kl, clipfrac, grad_norm] in one
 * readback, taken before the step so that a NaN or infinite value skips it (the run's NaN guard then stops).
 */
export function updateStep(agent: Agent, optimizer: tf.Optimizer, mb: Minibatch, args: LossArgs): Float32Array {
  return tf.tidy(() => {
    const { grads, kept } = backward(agent.parameters(), () => {
      const [, newlogprob, entropy, newvalue] = agent.getActionAndValue(mb.obs, mb.actions);
      const logratio = tf.sub(newlogprob, mb.logprobs);
      const ratio = tf.exp(logratio);
      // Detail 12: debug variables. approx_kl is the low-variance k3 estimator (http://joschu.net/blog/kl-approx.html),
      // clipfrac the share of samples whose ratio left the trust region.
      const oldApproxKl = tf.mean(tf.neg(logratio));
      const approxKl = tf.mean(tf.sub(tf.sub(ratio, 1), logratio));
      const clipfrac = tf.mean(tf.cast(tf.greater(tf.abs(tf.sub(ratio, 1)), args.clipCoef), "float32"));

      let mbAdvantages: tf.Tensor = mb.advantages;
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
      return [loss, tf.stack([pgLoss, vLoss, entropyLoss, oldApproxKl, approxKl, clipfrac])];
    });
    // Detail 11: global gradient clipping, the norm of all parameters' gradients together at most 0.5.
    const clipped = nn.clipGradNorm(grads, args.maxGradNorm);
    const values = tf.concat([kept[0], tf.reshape(clipped.norm, [1])]).dataSync() as Float32Array;
    if (values.every(Number.isFinite)) optimizer.applyGradients(clipped.grads);
    return values;
  });
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

/**
 * The normalizer statistics saved with the agent at `path` (none in a CleanRL state dict: the evaluation starts
 * fresh ones, as CleanRL's does). `run.loadAgent` reads the parameters; this reads the statistics beside them.
 */
function savedNormalizerStates(path: string): Partial<gym.wrappers.NormalizerStates> | undefined {
  const checkpoint = readCheckpoint(path, "ppo_continuous_action.ts");
  if (checkpoint.legacy !== null) return { obsRms: [checkpoint.fields.obsRms as gym.wrappers.RunningMeanStdState] };
  return checkpoint.progress?.extra;
}

// `if __name__ == "__main__":` — run when executed, not when a test imports the functions above.
// runMain (envs/run/main.ts): any error is one `error:` line (exit 2 for a bad command line, 1 otherwise; the
// stack with --debug), and Ctrl-C / SIGTERM close what the run registered, then exit 130 / 143.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runMain(main);
}
