// The env registry: `gymnasium.register` / `gymnasium.make`.
//
// `make(id)` builds the env from its entry point with the registered kwargs (overridable per call), then adds
// the wrappers Gymnasium's `make` adds: OrderEnforcing (step before reset is an error) and TimeLimit when the
// spec has `maxEpisodeSteps`. That TimeLimit is where CartPole-v1's 500-step truncation comes from.

import type { Env, EnvSpec } from "./core.ts";
import { OrderEnforcing, TimeLimit } from "./wrappers.ts";

export interface EnvCreator {
  (kwargs: Record<string, unknown> & { renderMode?: string | null }): Env;
}

/**
 * The kinds of an env's spaces, declared at registration so that a script can check an id against what it supports
 * before building anything (CleanRL asserts on the built env's space; a MuJoCo env cannot even be built before
 * MuJoCo is loaded, and an Atari env needs its ROM).
 */
export interface SpaceKinds {
  /** "discrete": a Discrete action space; "continuous": a Box of floats. */
  action: "discrete" | "continuous";
  /** "vector": a flat Box of numbers (a state, or Atari RAM); "image": an [H, W, C] uint8 frame. */
  observation: "vector" | "image";
}

interface Registration extends EnvSpec {
  entryPoint: EnvCreator;
  acceptedKwargs: readonly string[] | null;
  spaceKinds: SpaceKinds | null;
}

const registry = new Map<string, Registration>();

export function register(spec: {
  id: string;
  entryPoint: EnvCreator;
  maxEpisodeSteps?: number | null;
  rewardThreshold?: number | null;
  kwargs?: Record<string, unknown>;
  /**
   * The env constructor's keyword arguments besides `renderMode`. When given, `make` rejects any other kwarg (from
   * the registered `kwargs` or the call's options) with a `TypeError` naming the id, the bad key and the accepted
   * ones, before the entry point is called, as Python's `TypeError: __init__() got an unexpected keyword argument`
   * would: a misspelt kwarg (`gravity` for Pendulum's `g`) fails loudly instead of being ignored. `renderMode` and
   * `maxEpisodeSteps` are make's own options, always allowed. Omitted: no check (the entry point gets everything).
   */
  acceptedKwargs?: readonly string[];
  /** The kinds of its spaces (see SpaceKinds); `spaceKinds(id)` returns them, or null when not declared. */
  spaceKinds?: SpaceKinds;
}): void {
  if (registry.has(spec.id)) throw new Error(`register: ${spec.id} is already registered`);
  registry.set(spec.id, {
    id: spec.id,
    entryPoint: spec.entryPoint,
    maxEpisodeSteps: spec.maxEpisodeSteps ?? null,
    rewardThreshold: spec.rewardThreshold ?? null,
    kwargs: spec.kwargs ?? {},
    acceptedKwargs: spec.acceptedKwargs ?? null,
    spaceKinds: spec.spaceKinds ?? null,
  });
}

export interface MakeOptions {
  renderMode?: string | null;
  /** Overrides the registered limit; `null` disables TimeLimit (like `max_episode_steps=None` on an unlimited spec). */
  maxEpisodeSteps?: number | null;
  /** Env-specific keyword arguments, merged over the registered ones (e.g. `{ g: 9.81 }` for Pendulum). */
  [kwarg: string]: unknown;
}

export function make(id: string, options: MakeOptions = {}): Env {
  const reg = registry.get(id);
  if (reg === undefined) {
    const known = [...registry.keys()].sort().join(", ");
    throw new Error(`make: no environment registered as "${id}". Registered: ${known}`);
  }
  const { renderMode = null, maxEpisodeSteps, ...overrides } = options;
  const kwargs = { ...reg.kwargs, ...overrides };
  if (reg.acceptedKwargs !== null) checkKwargs(id, kwargs, reg.acceptedKwargs);
  let env: Env = reg.entryPoint({ ...kwargs, renderMode });
  if (renderMode !== null && !env.metadata.renderModes.includes(renderMode)) {
    throw new Error(
      `make(${id}): render mode "${renderMode}" not supported; supported: ${env.metadata.renderModes.join(", ") || "none"}`,
    );
  }
  const limit = maxEpisodeSteps === undefined ? reg.maxEpisodeSteps : maxEpisodeSteps;
  const spec: EnvSpec = { id, maxEpisodeSteps: limit, rewardThreshold: reg.rewardThreshold, kwargs };
  env.spec = spec;
  env = new OrderEnforcing(env);
  if (limit !== null) env = new TimeLimit(env, limit);
  env.spec = spec;
  return env;
}

/** Throws Python's TypeError for a kwarg the env constructor does not take (`renderMode` is always accepted). */
function checkKwargs(id: string, kwargs: Record<string, unknown>, accepted: readonly string[]): void {
  for (const key of Object.keys(kwargs)) {
    if (key !== "renderMode" && !accepted.includes(key)) {
      throw new TypeError(
        `${id}: unexpected keyword argument "${key}" (accepted: ${["renderMode", ...accepted].join(", ")})`,
      );
    }
  }
}

/** The spec of a registered id, without building the env. */
export function spec(id: string): EnvSpec {
  const reg = registry.get(id);
  if (reg === undefined) throw new Error(`spec: no environment registered as "${id}"`);
  const { entryPoint: _entryPoint, acceptedKwargs: _acceptedKwargs, spaceKinds: _spaceKinds, ...rest } = reg;
  return rest;
}

/** The space kinds `id` was registered with, without building the env; null for an unknown id or none declared. */
export function spaceKinds(id: string): SpaceKinds | null {
  return registry.get(id)?.spaceKinds ?? null;
}

/** Every registered id, sorted (the env checker test iterates over these). */
export function registeredIds(): string[] {
  return [...registry.keys()].sort();
}
