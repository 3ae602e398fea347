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

export interface ParallelEnv<Obs = unknown, Act = unknown> {
  /** Every agent that may ever appear, in a fixed order. */
  readonly possibleAgents: string[];
  /** The agents still in the episode. */
  agents: string[];
  readonly metadata: { renderModes: string[]; name: string };
  readonly renderMode: string | null;
  observationSpace(agent: string): import("../spaces.ts").Space;
  actionSpace(agent: string): import("../spaces.ts").Space;
  reset(args?: { seed?: number; options?: Record<string, unknown> }): [AgentDict<Obs>, AgentDict<Record<string, unknown>>];
  step(actions: AgentDict<Act>): ParallelStepResult<Obs>;
  render(): unknown;
  close(): void;
}
