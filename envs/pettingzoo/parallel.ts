// PettingZoo's Parallel API (pettingzoo.utils.env.ParallelEnv, current version): every live agent acts at once,
// and everything is a dict keyed by agent name.

/** A value per agent name, like PettingZoo's `{agent: value}` dicts. */
export type AgentDict<T> = Record<string, T>;

export type ParallelStepResult<Obs> = [
  observations: AgentDict<Obs>,
  rewards: AgentDict<number>,
  terminations: AgentDict<boolean>,
  truncations: AgentDict<boolean>,
  infos: AgentDict<Record<string, unknown>>,
];

/**
 * What `stepDeferred` returns: `step`'s result with each agent's observation as a function that produces it on
 * demand. Calling it (at any later time, any number of times) gives the observation that step produced, and the env
 * never writes into an array it handed out this way.
 */
export type DeferredStepResult<Obs> = [
  observations: AgentDict<() => Obs>,
  rewards: AgentDict<number>,
  terminations: AgentDict<boolean>,
  truncations: AgentDict<boolean>,
  infos: AgentDict<Record<string, unknown>>,
];

export interface ParallelEnv<Obs = unknown, Act = unknown> {
  /** Every agent that may ever appear, in a fixed order. */
  readonly possibleAgents: string[];
  /** The agents still in the episode. */
  agents: string[];
  readonly metadata: { renderModes: string[]; name: string };
  readonly renderMode: string | null;
  observationSpace(agent: string): import("../gymnasium/spaces.ts").Space;
  actionSpace(agent: string): import("../gymnasium/spaces.ts").Space;
  reset(args?: {
    seed?: number;
    options?: Record<string, unknown>;
  }): [AgentDict<Obs>, AgentDict<Record<string, unknown>>];
  step(actions: AgentDict<Act>): ParallelStepResult<Obs>;
  /**
   * Not part of PettingZoo: an internal fast path for frame_skip, which throws away the observations of all but its
   * last inner step (or the last two, under max_observation), unless the episode ends early. `step` with the
   * observations deferred, so an env only builds the ones somebody reads. Only envs whose observations can be
   * rebuilt later implement it (the raw Atari env, max_observation); a wrapper must not inherit it, since it would
   * bypass what the wrapper's `step` does. Callers use `stepDeferred()` from supersuit.ts, which falls back to `step`.
   */
  stepDeferred?(actions: AgentDict<Act>): DeferredStepResult<Obs>;
  render(): unknown;
  close(): void;
}
