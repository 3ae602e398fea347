// ppo_atari_lstm.ts — PPO with an LSTM on Atari 2600 games, CleanRL's `ppo_atari_lstm.py` in TypeScript.
//
//   npx tsx ppo_atari_lstm.ts --env-id BreakoutNoFrameskip-v4 --rom-dir ~/roms   # --help lists every flag
//   npx tsx ppo_atari_lstm.ts --env-id MemoryCue-v0                              # a task only memory solves
//
// The whole algorithm is in this file, top to bottom: flags, env construction, network, rollout, GAE, the PPO
// update, logging. Reference: https://docs.cleanrl.dev/rl-algorithms/ppo/#ppo_atari_lstmpy and "The 37 Implementation
// Details of Proximal Policy Optimization" (Huang et al., ICLR blog track 2022). Comments name the detail they
// implement: "detail 3" for the 13 core details in that post, "LSTM detail 3" for its 5 LSTM ones. Beside
// ppo_atari.ts: one frame, not four; an LSTM after the CNN, its state carried through the rollout; minibatches of
// whole envs' sequences, which training replays from the state they started in.
import * as tf from "@tensorflow/tfjs";
import { basename } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import * as gym from "./envs/gymnasium/index.ts";
import * as atari from "./envs/gymnasium/atari_wrappers.ts";
import { type ArgValues, bool, float, int, str, usageError } from "./envs/run/cli.ts";
import { runMain } from "./envs/run/main.ts";
import { progress } from "./envs/run/progress.ts";
import { RUN_ARGS, evaluate, parseRunArgs, reportEvaluation, startRun } from "./envs/run/run.ts";
import { Categorical } from "./envs/torch/distributions.ts";
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
  romDir: str(null, "the folder holding the Atari ROM images (else ALE_ROMS_DIR, else an installed ale-py's roms/)"),

  // Algorithm specific arguments
  envId: str("BreakoutNoFrameskip-v4", "the id of the environment"),
  totalTimesteps: int(10000000, "total timesteps of the experiments", { ge: 1 }),
  learningRate: float(2.5e-4, "the learning rate of the optimizer", { gt: 0 }),
  numEnvs: int(8, "the number of parallel game environments", { ge: 1 }),
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
    env = new gym.wrappers.RecordEpisodeStatistics(env);
    env = new atari.NoopResetEnv(env, 30); // Atari detail 1: up to 30 random no-ops at reset
    env = new atari.MaxAndSkipEnv(env, 4); // Atari detail 2: act every 4th frame, max over the last 2 frames
    env = new atari.EpisodicLifeEnv(env); // Atari detail 3: a lost life ends the training episode
    if (atari.actionMeanings(env).includes("FIRE")) env = new atari.FireResetEnv(env); // Atari detail 4: FIRE to start
    env = new atari.ClipRewardEnv(env); // Atari detail 5: rewards clipped to their sign (not the logged returns)
    env = new atari.ResizeObservation(env, [84, 84]); // Atari detail 6: 84x84 grayscale...
    env = new atari.GrayScaleObservation(env);
    env = new atari.FrameStack(env, 1); // one frame: memory must come from the LSTM, not from stacked frames
    return env;
  };
}

// Atari detail 8: the Nature-DQN CNN (Mnih et al. 2015), a shared trunk for actor and critic, on nn.framesToInput's
// [N, 84, 84, 1] frames in [0, 1] (Atari detail 9: CleanRL's `x / 255.0`), and after it an LSTM.
export class Agent extends nn.Module {
  readonly network: nn.Sequential;
  readonly lstm: nn.LSTM;
  readonly actor: nn.Linear;
  readonly critic: nn.Linear;

  constructor(numActions: number) {
    super();
    this.network = new nn.Sequential(
      layerInit(new nn.Conv2d(1, 32, 8, 4)),
      new nn.ReLU(),
      layerInit(new nn.Conv2d(32, 64, 4, 2)),
      new nn.ReLU(),
      layerInit(new nn.Conv2d(64, 64, 3, 1)),
      new nn.ReLU(),
      new nn.Flatten([64, 7, 7]),
      layerInit(new nn.Linear(64 * 7 * 7, 512)),
      new nn.ReLU(),
    );
    this.lstm = new nn.LSTM(512, 128);
    // LSTM detail 1: weights orthogonal with gain 1, biases 0 (torch's own init of an LSTM is uniform).
    for (const { name, variable } of this.lstm.namedParameters()) {
      if (name.includes("bias")) nn.init.constant(variable, 0);
      else if (name.includes("weight")) nn.init.orthogonal(variable, 1.0);
    }
    // Detail 2: the policy head's gain 0.01 makes the initial action probabilities near-uniform.
    this.actor = layerInit(new nn.Linear(128, numActions), 0.01);
    this.critic = layerInit(new nn.Linear(128, 1), 1);
  }

  /**
   * `x`: T steps of B envs, time-major; `done[t * B + e]`: that obs starts an episode. LSTM detail 3: the state is
   * zeroed before such a step, in the rollout (T = 1) and in training's replay. Returns T * B outputs, the last state.
   */
  getStates(x: tf.Tensor, lstmState: nn.LstmState, done: tf.Tensor1D): [tf.Tensor, nn.LstmState] {
    const batchSize = lstmState[0].shape[0];
    // The CNN's features of all T * B frames, multiplied into the LSTM's gates in one product.
    const hidden = this.lstm.inputGates(this.network.forward(x));
    const notDone = tf.sub(1, done).reshape([-1, batchSize, 1]);
    const newHidden: tf.Tensor[] = [];
    for (let t = 0; t < notDone.shape[0]; t++) {
      const d = tf.squeeze(tf.slice(notDone, [t, 0, 0], [1, batchSize, 1]), [0]);
      const h = tf.slice(hidden, [t * batchSize, 0], [batchSize, -1]);
      lstmState = this.lstm.cell(h, [tf.mul(d, lstmState[0]), tf.mul(d, lstmState[1])]);
      newHidden.push(lstmState[0]);
    }
    return [tf.concat(newHidden), lstmState];
  }

  getValue(x: tf.Tensor, lstmState: nn.LstmState, done: tf.Tensor1D): tf.Tensor1D {
    return this.critic.forward(this.getStates(x, lstmState, done)[0]).reshape([-1]);
  }

  /** Samples an action when none is given (the rollout); returns it, its log-probability, entropy, value, new state. */
  getActionAndValue(
    x: tf.Tensor,
    lstmState: nn.LstmState,
    done: tf.Tensor1D,
    action?: tf.Tensor1D,
  ): [tf.Tensor1D, tf.Tensor1D, tf.Tensor1D, tf.Tensor1D, nn.LstmState] {
    const [hidden, nextLstmState] = this.getStates(x, lstmState, done);
    const probs = new Categorical(this.actor.forward(hidden) as tf.Tensor2D);
    action ??= probs.sample();
    return [action, probs.logProb(action), probs.entropy(), this.critic.forward(hidden).reshape([-1]), nextLstmState];
  }
}

/** Detail 3: Adam with epsilon 1e-5 (openai/baselines), not PyTorch's 1e-8; torch's default betas. */
export function makeOptimizer(learningRate: number): StatefulOptimizer {
  return adam(learningRate, 0.9, 0.999, 1e-5);
}

export async function main(argv = process.argv.slice(2)): Promise<void> {
  const args = parseRunArgs(ARGS, "PPO with an LSTM (CleanRL's ppo_atari_lstm.py).", "ppo_atari_lstm.ts", argv) as Args;
  args.batchSize = args.numEnvs * args.numSteps;
  args.minibatchSize = Math.floor(args.batchSize / args.numMinibatches);
  args.numIterations = Math.floor(args.totalTimesteps / args.batchSize);
  // LSTM detail 4: a minibatch holds whole envs' sequences, so the envs must split evenly into minibatches.
  if (args.numEnvs % args.numMinibatches !== 0)
    usageError(`--num-envs ${args.numEnvs} is not divisible by --num-minibatches ${args.numMinibatches}`);
  // Run name, seeding and backend, TensorBoard and wandb, checkpoints: envs/run/run.ts.
  const run = await startRun(args, {
    script: "ppo_atari_lstm.ts",
    spaces: { action: "discrete", observation: "image" },
  });

  // What CleanRL's `ppo_eval.evaluate` runs: observations in, sampled actions out; the LSTM state carries over.
  const policy = (agent: Agent) => {
    let lstmState: nn.LstmState = [tf.zeros([1, 128]), tf.zeros([1, 128])];
    return (obs: Uint8Array, done: Float32Array) =>
      tf.tidy(() => {
        const x = nn.framesToInput(obs, [1, 84, 84], "chw");
        const [action, , , , next] = agent.getActionAndValue(x, lstmState, tf.tensor1d(done));
        tf.dispose(lstmState);
        lstmState = [tf.keep(next[0]), tf.keep(next[1])];
        return action.dataSync();
      });
  };
  if (args.evalCheckpoint !== null) {
    const { agent, envId } = run.loadAgent((shape) => new Agent(shape("actor.weight")[0]));
    const env = makeEnv(envId, 0, args.captureVideo, run.name);
    return reportEvaluation(evaluate(env, args.evalEpisodes, args.seed, policy(agent)));
  }
  const writer = run.writer;

  // env setup. Detail 1: vectorized environments, stepped in lockstep, reset automatically at episode end.
  const envArgs = Array.from({ length: args.numEnvs }, (_, i) => [args.envId, i, args.captureVideo, run.name]);
  const envs = gym.vector.AsyncVectorEnv.fromModule(import.meta.url, "makeEnv", envArgs);
  run.closeOnExit(envs);
  const numActions = (envs.singleActionSpace as gym.spaces.Discrete).n;

  const agent = new Agent(numActions);
  const optimizer = makeOptimizer(args.learningRate);
  const start = run.restore(agent, optimizer); // with --resume: the saved iteration, step, Adam and generator

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
  let nextObs = nn.framesToInput(envs.reset({ seed: args.seed })[0] as Uint8Array, [1, 84, 84], "chw");
  let nextDone = new Float32Array(args.numEnvs);
  // LSTM detail 2: the hidden and cell states start at zero (see https://youtu.be/8HyCNIVRbSU).
  let nextLstmState: nn.LstmState = [tf.zeros([args.numEnvs, 128]), tf.zeros([args.numEnvs, 128])];

  for (let iteration = start.iteration + 1; iteration <= args.numIterations; iteration++) {
    await run.startIteration(iteration, globalStep);
    // LSTM detail 5: training replays the rollout's sequences from the state it starts in.
    const initialLstmState = nextLstmState.map((s) => s.clone()) as nn.LstmState;
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
      const [action, logprob, entropy, value, lstmState] = tf.tidy(() =>
        agent.getActionAndValue(nextObs, nextLstmState, tf.tensor1d(nextDone)),
      );
      [actions[step], logprobs[step], values[step]] = [action, logprob, value];
      tf.dispose([entropy, ...nextLstmState]);
      nextLstmState = lstmState;

      // TRY NOT TO MODIFY: execute the game and log data.
      const [stepObs, reward, terminations, truncations, infos] = envs.step(action.dataSync());
      // An episode ends on termination or truncation alike (CleanRL's `np.logical_or`): the next obs is a reset.
      nextDone = Float32Array.from(terminations, (term, i) => (term || truncations[i] ? 1 : 0));
      rewards.set(reward, step * args.numEnvs);
      nextObs = nn.framesToInput(stepObs as Uint8Array, [1, 84, 84], "chw");

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
      () => agent.getValue(nextObs, nextLstmState, tf.tensor1d(nextDone)).dataSync() as Float32Array,
    );
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
    const b: Omit<Minibatch, "initialState"> = {
      obs: tf.concat(obs),
      dones: tf.tensor1d(dones),
      actions: tf.concat(actions) as tf.Tensor1D,
      logprobs: tf.concat(logprobs) as tf.Tensor1D,
      advantages: tf.tensor1d(advantages),
      returns: tf.tensor1d(returns),
      values: bValues as tf.Tensor1D,
    };
    tf.dispose([...obs, ...actions, ...logprobs, ...values]);

    // Optimizing the policy and value network. Detail 6: shuffled minibatches, several epochs over the batch.
    // LSTM detail 4: what is shuffled is the envs; a minibatch holds a few envs' whole sequences in time order.
    const envsPerBatch = args.numEnvs / args.numMinibatches;
    const envInds = Int32Array.from({ length: args.numEnvs }, (_, i) => i);
    const flatInds = tf.tidy(() => tf.range(0, args.batchSize, 1, "int32").reshape([args.numSteps, args.numEnvs]));
    const clipfracs: number[] = [];
    let stats: Float32Array = new Float32Array(7);
    for (let epoch = 0; epoch < args.updateEpochs; epoch++) {
      shuffle(envInds);
      for (let start = 0; start < args.numEnvs; start += envsPerBatch) {
        const mbEnvInds = envInds.slice(start, start + envsPerBatch);
        const mb = tf.tidy(() => ({
          ...gather(b, tf.gather(flatInds, mbEnvInds, 1).reshape([-1])), // `flatinds[:, mbenvinds].ravel()`
          initialState: initialLstmState.map((s) => tf.gather(s, mbEnvInds)) as nn.LstmState,
        }));
        stats = updateStep(agent, optimizer, mb, args);
        tf.dispose(Object.values(mb));
        run.guard(stats, iteration); // NaN guard: a non-finite loss or gradient norm stops the run before its step
        clipfracs.push(stats[5]);
      }
      // Early stopping at the epoch level once the policy moved too far (approx_kl of the last minibatch).
      if (args.targetKl !== null && stats[4] > args.targetKl) break;
    }
    tf.dispose([...Object.values(b), ...initialLstmState, flatInds]);
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
    const env = makeEnv(args.envId, 0, args.captureVideo, `${run.name}-eval`);
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
  /** LSTM detail 5: the minibatch's envs' state at the start of the rollout, to replay their sequences from. */
  initialState: nn.LstmState;
  dones: tf.Tensor1D;
  actions: tf.Tensor1D;
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
      const [, newlogprob, entropy, newvalue] = agent.getActionAndValue(mb.obs, mb.initialState, mb.dones, mb.actions);
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

// `if __name__ == "__main__":` — run when executed, not when a test imports the functions above.
// runMain (envs/run/main.ts): any error is one `error:` line (exit 2 for a bad command line, 1 otherwise; the
// stack with --debug), and Ctrl-C / SIGTERM close what the run registered, then exit 130 / 143.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runMain(main);
}
