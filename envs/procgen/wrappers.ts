// The gym 0.23 vector wrappers CleanRL's ppo_procgen.py stacks on ProcgenEnv (gym 0.23's API: reset() -> obs,
// step(a) -> [obs, rewards, dones, infos] with one info object per env). They wrap a whole vector env, which is
// what makes them differ from the single-env Gymnasium 0.29 wrappers in envs/gymnasium/wrappers.ts:
//   RecordEpisodeStatistics  per-env float32 running return of the RAW reward and step count; `infos[i].episode`
//                            = { r, l, t } on the step that ends env i's episode (the terminal step counts)
//   NormalizeReward(gamma)   one RunningMeanStd over all envs, updated with the batch of discounted returns,
//                            rewards divided by its std (not centred); returns zeroed where done AFTER scaling
//   TransformReward(f)       f applied to every reward (CleanRL clips to [-10, 10])
//   RecordVideo(folder)      videos of env 0's episodes (`--capture-video`)

import { Env, type Info, type StepResult } from "../gymnasium/core.ts";
import { RunningMeanStd } from "../gymnasium/running_mean_std.ts";
import { Box, Discrete, type Space } from "../gymnasium/spaces.ts";
import { RecordVideo as RecordSingleVideo } from "../gymnasium/video.ts";
import { NUM_ACTIONS, OBS_SHAPE, OBS_SIZE } from "./env.ts";
import { RES } from "./game.ts";

export type VecStep<Obs> = [obs: Obs, rewards: Float32Array, dones: Uint8Array, infos: VecInfo[]];
/** One env's info; RecordEpisodeStatistics adds `episode` to it on the step that ends the env's episode. */
export type VecInfo = Info & { episode?: { r: number; l: number; t: number } };

/** What the gym 0.23 vector API offers (ProcgenEnv and every wrapper below). */
export interface VecEnv<Obs = Uint8Array> {
  readonly numEnvs: number;
  readonly singleObservationSpace: Box;
  readonly singleActionSpace: Discrete;
  reset(): Obs;
  step(actions: ArrayLike<number>): VecStep<Obs>;
  close(): void;
}

abstract class VecWrapper<Obs, InnerObs = Obs> implements VecEnv<Obs> {
  readonly numEnvs: number;
  readonly singleObservationSpace: Box;
  readonly singleActionSpace: Discrete;
  constructor(readonly env: VecEnv<InnerObs>) {
    this.numEnvs = env.numEnvs;
    this.singleObservationSpace = env.singleObservationSpace;
    this.singleActionSpace = env.singleActionSpace;
  }
  abstract reset(): Obs;
  abstract step(actions: ArrayLike<number>): VecStep<Obs>;
  close(): void {
    this.env.close();
  }
}

/** `gym.wrappers.TransformObservation(envs, f)`: CleanRL's `obs -> obs["rgb"]`. */
export class TransformObservation<Obs, InnerObs> extends VecWrapper<Obs, InnerObs> {
  constructor(
    env: VecEnv<InnerObs>,
    readonly f: (obs: InnerObs) => Obs,
  ) {
    super(env);
  }
  reset(): Obs {
    return this.f(this.env.reset());
  }
  step(actions: ArrayLike<number>): VecStep<Obs> {
    const [obs, rewards, dones, infos] = this.env.step(actions);
    return [this.f(obs), rewards, dones, infos];
  }
}

export class RecordEpisodeStatistics<Obs> extends VecWrapper<Obs> {
  private readonly episodeReturns: Float32Array;
  private readonly episodeLengths: Int32Array;
  private readonly startTimes: Float64Array;

  constructor(env: VecEnv<Obs>) {
    super(env);
    this.episodeReturns = new Float32Array(this.numEnvs);
    this.episodeLengths = new Int32Array(this.numEnvs);
    this.startTimes = new Float64Array(this.numEnvs).fill(performance.now());
  }

  reset(): Obs {
    this.episodeReturns.fill(0);
    this.episodeLengths.fill(0);
    this.startTimes.fill(performance.now());
    return this.env.reset();
  }

  step(actions: ArrayLike<number>): VecStep<Obs> {
    const [obs, rewards, dones, infos] = this.env.step(actions);
    const out = infos.slice(); // an info is copied only when the episode statistics are added to it (as gym 0.23)
    for (let i = 0; i < this.numEnvs; i++) {
      this.episodeReturns[i] += rewards[i];
      this.episodeLengths[i] += 1;
      if (dones[i]) {
        const now = performance.now();
        out[i] = {
          ...infos[i],
          episode: {
            r: this.episodeReturns[i],
            l: this.episodeLengths[i],
            t: Math.round((now - this.startTimes[i]) * 1000) / 1e6,
          },
        };
        this.episodeReturns[i] = 0;
        this.episodeLengths[i] = 0;
        this.startTimes[i] = now;
      }
    }
    return [obs, rewards, dones, out];
  }
}

export class NormalizeReward<Obs> extends VecWrapper<Obs> {
  readonly returnRms = new RunningMeanStd([]);
  readonly returns: Float64Array;

  constructor(
    env: VecEnv<Obs>,
    readonly gamma = 0.99,
    readonly epsilon = 1e-8,
  ) {
    super(env);
    this.returns = new Float64Array(this.numEnvs);
  }

  reset(): Obs {
    this.returns.fill(0);
    return this.env.reset();
  }

  step(actions: ArrayLike<number>): VecStep<Obs> {
    const [obs, rewards, dones, infos] = this.env.step(actions);
    for (let i = 0; i < this.numEnvs; i++) this.returns[i] = this.returns[i] * this.gamma + rewards[i];
    this.returnRms.update(this.returns, this.numEnvs);
    const scale = Math.sqrt(this.returnRms.var[0] + this.epsilon);
    const scaled = new Float32Array(this.numEnvs);
    for (let i = 0; i < this.numEnvs; i++) {
      scaled[i] = rewards[i] / scale;
      if (dones[i]) this.returns[i] = 0;
    }
    return [obs, scaled, dones, infos];
  }
}

export class TransformReward<Obs> extends VecWrapper<Obs> {
  constructor(
    env: VecEnv<Obs>,
    readonly f: (reward: number) => number,
  ) {
    super(env);
  }
  reset(): Obs {
    return this.env.reset();
  }
  step(actions: ArrayLike<number>): VecStep<Obs> {
    const [obs, rewards, dones, infos] = this.env.step(actions);
    return [obs, Float32Array.from(rewards, this.f), dones, infos];
  }
}

/** Env 0 of a vector env seen as a single Gymnasium env, so the Gymnasium RecordVideo wrapper can film it. */
class FirstEnvView extends Env<Uint8Array, number> {
  observationSpace = new Box(0, 255, OBS_SHAPE, "uint8") as Box & Space<Uint8Array>;
  actionSpace = new Discrete(NUM_ACTIONS);
  override metadata = { renderModes: ["rgb_array"], renderFps: 15 };
  override renderMode = "rgb_array";
  frame = new Uint8Array(OBS_SIZE);
  pending: StepResult<Uint8Array> | null = null;

  override reset(): [Uint8Array, Info] {
    return [this.frame, {}];
  }
  step(): StepResult<Uint8Array> {
    return this.pending!;
  }
  override render(): { width: number; height: number; data: Uint8Array } {
    return { width: RES, height: RES, data: this.frame.slice() };
  }
}

/**
 * `gym.wrappers.RecordVideo(envs, folder)` on procgen's vector env: procgen renders env 0, so env 0's episodes are
 * filmed (on the capped-cubic schedule). Env 0 resets inside the step that ends its episode, so a video's last
 * frame is the next level's first, as with procgen itself.
 */
export class RecordVideo extends VecWrapper<Uint8Array> {
  private readonly view = new FirstEnvView();
  private readonly recorder: RecordSingleVideo<Uint8Array, number>;

  constructor(env: VecEnv<Uint8Array>, videoFolder: string) {
    super(env);
    this.recorder = new RecordSingleVideo(this.view, videoFolder);
  }

  reset(): Uint8Array {
    const obs = this.env.reset();
    this.view.frame = obs.slice(0, OBS_SIZE);
    this.recorder.reset();
    return obs;
  }

  step(actions: ArrayLike<number>): VecStep<Uint8Array> {
    const result = this.env.step(actions);
    const [obs, rewards, dones, infos] = result;
    this.view.frame = obs.slice(0, OBS_SIZE);
    this.view.pending = [this.view.frame, rewards[0], dones[0] === 1, false, infos[0]];
    this.recorder.step(actions[0]);
    if (dones[0]) this.recorder.reset();
    return result;
  }

  override close(): void {
    this.recorder.close();
    this.env.close();
  }
}
