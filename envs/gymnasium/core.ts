// The Env API, as `gymnasium.Env` / `gymnasium.Wrapper` (0.29):
//   reset({ seed, options }) -> [observation, info]
//   step(action)             -> [observation, reward, terminated, truncated, info]
// `terminated` means the MDP reached a terminal state (no bootstrapping past it); `truncated` means an outside
// limit (usually TimeLimit) cut the episode short. PPO treats both as the end of an episode, as CleanRL does.

import { type NumpyGenerator, npRandom } from "../torch/rng.ts";
import type { Space, TypedArray } from "./spaces.ts";

export type Info = Record<string, unknown>;
export type StepResult<Obs> = [observation: Obs, reward: number, terminated: boolean, truncated: boolean, info: Info];
/** What `stepInto` and `stepWithoutObservation` return: a StepResult without its observation. */
export type StepWithoutObservationResult = [reward: number, terminated: boolean, truncated: boolean, info: Info];
export interface ResetArgs {
  seed?: number;
  options?: Record<string, unknown>;
}

/** What `gymnasium.envs.registration.EnvSpec` records about a registered env. */
export interface EnvSpec {
  id: string;
  maxEpisodeSteps: number | null;
  rewardThreshold: number | null;
  kwargs: Record<string, unknown>;
}

export interface Metadata {
  renderModes: string[];
  renderFps?: number;
}

export abstract class Env<Obs = unknown, Act = unknown> {
  abstract observationSpace: Space<Obs>;
  abstract actionSpace: Space<Act>;
  metadata: Metadata = { renderModes: [] };
  renderMode: string | null = null;
  spec: EnvSpec | null = null;
  private _npRandom: NumpyGenerator | null = null;

  /** The env's own generator; lazily seeded from entropy if `reset` was never given a seed (as Gymnasium). */
  get npRandom(): NumpyGenerator {
    if (this._npRandom === null) this._npRandom = npRandom()[0];
    return this._npRandom;
  }

  /**
   * Subclasses call `super.reset(args)` first, exactly like `super().reset(seed=seed)` in Gymnasium: a given
   * seed re-seeds the env's generator; no seed keeps the current stream going.
   */
  reset(args: ResetArgs = {}): [Obs, Info] {
    if (args.seed !== undefined) this._npRandom = npRandom(args.seed)[0];
    return undefined as unknown as [Obs, Info];
  }

  abstract step(action: Act): StepResult<Obs>;

  /**
   * `step` for a caller that wants the observation in a buffer of its own, or not at all (`out` null):
   * MaxAndSkipEnv's frames. The same reward, termination, truncation and info as `step`, the observation
   * written into `out` (it must hold the observation's values), and the same state afterwards, so the next
   * `step` returns exactly what it would have. This default is `step` and a copy; an env that can do better
   * overrides it (AtariEnv: no new array per frame, and without `out` the screen is neither drawn nor
   * converted), and wrappers pass it down (see Wrapper).
   */
  stepInto(action: Act, out: TypedArray | null): StepWithoutObservationResult {
    const [obs, reward, terminated, truncated, info] = this.step(action);
    if (out !== null) out.set(obs as unknown as ArrayLike<number>);
    return [reward, terminated, truncated, info];
  }

  /** `stepInto(action, null)`: a step whose observation nobody looks at. */
  stepWithoutObservation(action: Act): StepWithoutObservationResult {
    return this.stepInto(action, null);
  }

  render(): unknown {
    return null;
  }

  close(): void {}

  /** The innermost env, below every wrapper. */
  get unwrapped(): Env {
    return this;
  }

  toString(): string {
    return `<${this.constructor.name}${this.spec ? `<${this.spec.id}>` : ""}>`;
  }
}

/**
 * Base wrapper: forwards everything to `env`. Subclasses override what they change. Spaces default to the
 * inner env's; a wrapper that changes them assigns its own in the constructor.
 */
export class Wrapper<Obs = unknown, Act = unknown, InnerObs = Obs, InnerAct = Act> extends Env<Obs, Act> {
  observationSpace: Space<Obs>;
  actionSpace: Space<Act>;

  constructor(readonly env: Env<InnerObs, InnerAct>) {
    super();
    this.observationSpace = env.observationSpace as unknown as Space<Obs>;
    this.actionSpace = env.actionSpace as unknown as Space<Act>;
    this.metadata = env.metadata;
    this.renderMode = env.renderMode;
    this.spec = env.spec;
  }

  override get npRandom(): NumpyGenerator {
    return this.env.npRandom;
  }

  override reset(args: ResetArgs = {}): [Obs, Info] {
    return this.env.reset(args) as unknown as [Obs, Info];
  }

  step(action: Act): StepResult<Obs> {
    return this.env.step(action as unknown as InnerAct) as unknown as StepResult<Obs>;
  }

  /**
   * A wrapper that keeps the base `step` (it only forwards) changes nothing about a step, so it passes `stepInto`
   * down and the innermost env can write the observation where it is wanted, or skip it. A wrapper with its own
   * `step` may depend on the observation or keep per-step state: it gets Env's default (its own `step`, then a
   * copy) unless it overrides this too, as the bookkeeping wrappers (TimeLimit, RecordEpisodeStatistics ...) do.
   */
  override stepInto(action: Act, out: TypedArray | null): StepWithoutObservationResult {
    if (this.step !== Wrapper.prototype.step) return super.stepInto(action, out);
    return this.env.stepInto(action as unknown as InnerAct, out);
  }

  override render(): unknown {
    return this.env.render();
  }

  override close(): void {
    this.env.close();
  }

  override get unwrapped(): Env {
    return this.env.unwrapped;
  }

  override toString(): string {
    return `<${this.constructor.name}${this.env.toString()}>`;
  }
}

/** Changes observations only: implement `observation(obs)`. */
export abstract class ObservationWrapper<Obs, Act = unknown, InnerObs = Obs> extends Wrapper<Obs, Act, InnerObs, Act> {
  abstract observation(obs: InnerObs): Obs;
  override reset(args: ResetArgs = {}): [Obs, Info] {
    const [obs, info] = this.env.reset(args);
    return [this.observation(obs), info];
  }
  override step(action: Act): StepResult<Obs> {
    const [obs, reward, terminated, truncated, info] = this.env.step(action);
    return [this.observation(obs), reward, terminated, truncated, info];
  }
}

/** Changes rewards only: implement `reward(r)`. */
export abstract class RewardWrapper<Obs, Act = unknown> extends Wrapper<Obs, Act> {
  abstract reward(reward: number): number;
  override step(action: Act): StepResult<Obs> {
    const [obs, reward, terminated, truncated, info] = this.env.step(action);
    return [obs, this.reward(reward), terminated, truncated, info];
  }
}

/** Changes actions before they reach the env: implement `action(a)`. */
export abstract class ActionWrapper<Obs, Act, InnerAct = Act> extends Wrapper<Obs, Act, Obs, InnerAct> {
  abstract action(action: Act): InnerAct;
  override step(action: Act): StepResult<Obs> {
    return this.env.step(this.action(action));
  }
}
