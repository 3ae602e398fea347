// An env API checker, after `gymnasium.utils.env_checker.check_env` and the passive checker (0.29).
//
// It throws an Error naming the first violation it finds and returns (and reports through `onWarning`) the
// softer findings Gymnasium only logs. Differences from Gymnasium, all on the strict side: an observation from
// `step` that is outside the observation space, of the wrong typed-array dtype, or a non-finite reward is an
// error here (the passive checker only warns), because the PPO ports rely on those invariants.

import { Env, type Info } from "./core.ts";
import { make } from "./registration.ts";
import { Box, Dict, Discrete, Space, zerosOf } from "./spaces.ts";

export interface CheckEnvOptions {
  /** Seed of the determinism checks (Gymnasium uses 123). */
  seed?: number;
  /** Steps compared by the step determinism check (Gymnasium compares 1). */
  determinismSteps?: number;
  skipRenderCheck?: boolean;
  skipCloseCheck?: boolean;
  /** Receives each warning; default `console.warn`. */
  onWarning?: (message: string) => void;
}

export function checkEnv(env: Env, options: CheckEnvOptions = {}): string[] {
  const { seed = 123, skipRenderCheck = false, skipCloseCheck = false } = options;
  const determinismSteps = Math.max(1, options.determinismSteps ?? 5);
  const warnings: string[] = [];
  const warn = (message: string) => {
    warnings.push(message);
    (options.onWarning ?? ((m: string) => console.warn(`checkEnv: ${m}`)))(message);
  };

  if (!(env instanceof Env)) throw new TypeError(`checkEnv: the environment must extend Env, got ${describe(env)}`);
  if (env.unwrapped !== env) {
    warn(
      `${env} is wrapped; wrappers may hide problems of ${env.unwrapped} (Gymnasium recommends checking env.unwrapped)`,
    );
  }
  if (!(env.actionSpace instanceof Space))
    throw new TypeError(`checkEnv: actionSpace must be a Space, got ${describe(env.actionSpace)}`);
  if (!(env.observationSpace instanceof Space))
    throw new TypeError(`checkEnv: observationSpace must be a Space, got ${describe(env.observationSpace)}`);
  checkSpaceLimits(env.observationSpace, "observation", warn);
  checkSpaceLimits(env.actionSpace, "action", warn);

  checkResetReturn(env);
  checkResetSeedDeterminism(env, seed, warn);
  checkResetOptions(env);
  checkStepDeterminism(env, seed, determinismSteps, warn);
  if (!skipRenderCheck) checkRender(env, warn);
  if (!skipCloseCheck && env.spec !== null) {
    // Gymnasium 0.29: closing twice must be allowed; checked on a fresh env so `env` stays usable.
    const fresh = remake(env, null);
    fresh.close();
    fresh.close();
  }
  return warnings;
}

function fail(message: string): never {
  throw new Error(`checkEnv: ${message}`);
}

function describe(x: unknown): string {
  if (x === null || x === undefined) return String(x);
  if (typeof x === "object") return (x as object).constructor?.name ?? "object";
  return `${typeof x} ${String(x)}`;
}

function isPlainObject(x: unknown): x is Info {
  return typeof x === "object" && x !== null && !Array.isArray(x) && !ArrayBuffer.isView(x);
}

/** Gymnasium's `check_space_limit`: warnings about unbounded Boxes and unnormalized Box action spaces. */
function checkSpaceLimits(space: Space, kind: "observation" | "action", warn: (m: string) => void): void {
  if (!(space instanceof Box)) return;
  if (space.low.some((v) => v === -Infinity))
    warn(`a Box ${kind} space minimum value is -infinity; this is probably too low`);
  if (space.high.some((v) => v === Infinity))
    warn(`a Box ${kind} space maximum value is infinity; this is probably too high`);
  if (kind === "action" && space.shape.length === 1) {
    const unnormalized = space.low.some(
      (lo, i) => (lo !== 0 && Math.abs(lo) !== Math.abs(space.high[i])) || lo < -1 || space.high[i] > 1,
    );
    if (unnormalized) warn("for Box action spaces a symmetric, normalized range ([-1, 1] or [0, 1]) is recommended");
  }
}

/** Throws unless `obs` is a value of `space` in its exact representation (number for Discrete, typed array of the dtype otherwise). */
export function checkObservation(obs: unknown, space: Space, where: string): void {
  if (space instanceof Dict) {
    // Gymnasium checks a Dict observation key by key against its subspaces.
    if (!isPlainObject(obs)) fail(`${where}: a Dict observation must be an object of arrays, got ${describe(obs)}`);
    const value = obs as Record<string, unknown>;
    const keys = Object.keys(space.spaces);
    if (Object.keys(value).length !== keys.length || !keys.every((k) => k in value))
      fail(`${where}: observation keys [${Object.keys(value).join(", ")}] are not the space's [${keys.join(", ")}]`);
    for (const key of keys) checkObservation(value[key], space.spaces[key], `${where} ["${key}"]`);
    return;
  }
  if (space instanceof Discrete) {
    if (typeof obs !== "number" || !Number.isInteger(obs))
      fail(`${where}: a Discrete observation must be an integer number, got ${describe(obs)}`);
  } else {
    const expected = zerosOf(space.dtype, 0).constructor;
    if (!ArrayBuffer.isView(obs) || obs.constructor !== expected) {
      fail(`${where}: observation must be a ${expected.name} (dtype ${space.dtype}), got ${describe(obs)}`);
    }
    const length = (obs as unknown as ArrayLike<number>).length;
    if (length !== space.size)
      fail(
        `${where}: observation has ${length} values, the space's shape [${space.shape.join(", ")}] needs ${space.size}`,
      );
  }
  if (!space.contains(obs)) fail(`${where}: observation ${format(obs)} is not within the observation space ${space}`);
}

function format(x: unknown): string {
  if (ArrayBuffer.isView(x)) return `[${Array.from(x as unknown as ArrayLike<number>).join(", ")}]`;
  return String(x);
}

function checkResetResult(result: unknown, env: Env, where: string): [unknown, Info] {
  if (!Array.isArray(result) || result.length !== 2)
    fail(`${where} must return [observation, info], got ${describe(result)}`);
  const [obs, info] = result as [unknown, unknown];
  checkObservation(obs, env.observationSpace, where);
  if (!isPlainObject(info)) fail(`${where}: info must be an object, got ${describe(info)}`);
  return [obs, info];
}

function checkResetReturn(env: Env): void {
  checkResetResult(env.reset(), env, "env.reset()");
}

function checkStepResult(result: unknown, env: Env, where: string): [unknown, number, boolean, boolean, Info] {
  if (!Array.isArray(result) || result.length !== 5) {
    fail(
      `${where} must return [observation, reward, terminated, truncated, info], got ${describe(result)}${Array.isArray(result) ? ` of length ${result.length}` : ""}`,
    );
  }
  const [obs, reward, terminated, truncated, info] = result as unknown[];
  checkObservation(obs, env.observationSpace, where);
  if (typeof reward !== "number" || !Number.isFinite(reward))
    fail(`${where}: reward must be a finite number, got ${describe(reward)}`);
  if (typeof terminated !== "boolean") fail(`${where}: terminated must be a boolean, got ${describe(terminated)}`);
  if (typeof truncated !== "boolean") fail(`${where}: truncated must be a boolean, got ${describe(truncated)}`);
  if (!isPlainObject(info)) fail(`${where}: info must be an object, got ${describe(info)}`);
  return [obs, reward, terminated, truncated, info];
}

/**
 * State of the env's own generator, or null when it has none. Gymnasium compares `env.unwrapped._np_random`
 * states (`bit_generator.state`); ours is `getState()`, the same fields.
 */
function rngState(env: Env): string | null {
  const rng = (env.unwrapped as unknown as { _npRandom: { getState(): unknown } | null })._npRandom;
  return rng === null || rng === undefined ? null : JSON.stringify(rng.getState());
}

/** Copies typed arrays so a later call that reuses the env's buffer cannot change what was recorded. */
function snapshot<T>(x: T): T {
  if (ArrayBuffer.isView(x)) return (x as unknown as Float64Array).slice() as unknown as T;
  if (Array.isArray(x)) return x.map(snapshot) as unknown as T;
  if (isPlainObject(x)) return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, snapshot(v)])) as T;
  return x;
}

/** Gymnasium's `data_equivalence`: same structure and types; numbers equal, or within 1e-5 (`np.allclose`) unless `exact`. */
export function dataEquivalence(a: unknown, b: unknown, exact = false): boolean {
  if (typeof a === "number" && typeof b === "number") {
    if (Number.isNaN(a) || Number.isNaN(b)) return false;
    return exact ? a === b : Math.abs(a - b) <= 1e-5 + 1e-5 * Math.abs(b);
  }
  if (ArrayBuffer.isView(a) || ArrayBuffer.isView(b)) {
    if (!ArrayBuffer.isView(a) || !ArrayBuffer.isView(b) || a.constructor !== b.constructor) return false;
    const x = a as unknown as ArrayLike<number>;
    const y = b as unknown as ArrayLike<number>;
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!dataEquivalence(x[i], y[i], exact)) return false;
    return true;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => dataEquivalence(v, b[i], exact));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => k in b && dataEquivalence(a[k], b[k], exact));
  }
  return a === b;
}

/** Gymnasium's `check_reset_seed`: the same seed gives the same observations and generator state, a new seed a new state. */
function checkResetSeedDeterminism(env: Env, seed: number, warn: (m: string) => void): void {
  const [obs1] = checkResetResult(env.reset({ seed }), env, `env.reset({ seed: ${seed} })`).map(snapshot);
  const rng1 = rngState(env);
  if (rng1 === null)
    fail(`env.reset({ seed: ${seed} }) left the env without a random generator; does reset call super.reset(args)?`);
  const [obs2] = checkResetResult(env.reset(), env, "env.reset()").map(snapshot);
  const [obs3] = checkResetResult(env.reset({ seed }), env, `env.reset({ seed: ${seed} })`).map(snapshot);
  const rng3 = rngState(env);
  const [obs4] = checkResetResult(env.reset(), env, "env.reset()").map(snapshot);

  if (!dataEquivalence(obs1, obs3)) {
    fail(`env.reset({ seed: ${seed} }) is non-deterministic: observations ${format(obs1)} and ${format(obs3)} differ`);
  }
  if (!dataEquivalence(obs2, obs4)) {
    fail(
      `env.reset({ seed: ${seed} }) then env.reset() is non-deterministic: observations ${format(obs2)} and ${format(obs4)} differ`,
    );
  }
  if (!dataEquivalence(obs1, obs3, true))
    warn(`env.reset({ seed: ${seed} }) observations are not equal although similar`);
  if (!dataEquivalence(obs2, obs4, true))
    warn(`env.reset({ seed: ${seed} }) then env.reset() observations are not equal although similar`);
  if (rng1 !== rng3)
    fail(
      `the env's random generator differs after two env.reset({ seed: ${seed} }); does reset call super.reset(args)?`,
    );

  const otherSeed = seed + 333;
  const [obs5] = checkResetResult(env.reset({ seed: otherSeed }), env, `env.reset({ seed: ${otherSeed} })`).map(
    snapshot,
  );
  if (rngState(env) === rng1)
    fail(
      `the env's random generator is the same for seeds ${seed} and ${otherSeed}; does reset call super.reset(args)?`,
    );
  if (dataEquivalence(obs1, obs5, true))
    warn(`seeds ${seed} and ${otherSeed} gave the same initial observation ${format(obs1)}`);
}

function checkResetOptions(env: Env): void {
  checkResetResult(env.reset({ options: {} }), env, "env.reset({ options: {} })");
}

interface Transition {
  obs: unknown;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  info: Info;
}

function rollout(env: Env, seed: number, steps: number): { transitions: Transition[]; rng: string | null } {
  env.actionSpace.seed(seed);
  env.reset({ seed });
  const transitions: Transition[] = [];
  for (let k = 0; k < steps; k++) {
    const action = env.actionSpace.sample();
    const [obs, reward, terminated, truncated, info] = checkStepResult(
      env.step(action),
      env,
      `env.step(${format(action)}) at step ${k}`,
    );
    transitions.push(snapshot({ obs, reward, terminated, truncated, info }));
    if (terminated || truncated) break;
  }
  return { transitions, rng: rngState(env) };
}

/**
 * Gymnasium's `check_step_determinism`, over a few steps: with the same reset seed and the same action stream
 * (an identically seeded action space), the env must produce the same transitions and generator state.
 */
function checkStepDeterminism(env: Env, seed: number, steps: number, warn: (m: string) => void): void {
  const first = rollout(env, seed, steps);
  const second = rollout(env, seed, steps);
  if (first.transitions[0].truncated) fail("the env truncates after 1 step, something has gone very wrong");
  if (first.transitions.length !== second.transitions.length) {
    fail(
      `with the same seed and actions one rollout ended after ${first.transitions.length} steps, the other after ${second.transitions.length}`,
    );
  }
  for (let k = 0; k < first.transitions.length; k++) {
    const a = first.transitions[k];
    const b = second.transitions[k];
    const at = `step ${k} after env.reset({ seed: ${seed} })`;
    if (!dataEquivalence(a.obs, b.obs))
      fail(`${at}: observations ${format(a.obs)} and ${format(b.obs)} differ for the same seed and actions`);
    if (!dataEquivalence(a.reward, b.reward))
      fail(`${at}: rewards ${a.reward} and ${b.reward} differ for the same seed and actions`);
    if (a.terminated !== b.terminated || a.truncated !== b.truncated)
      fail(`${at}: terminated/truncated differ for the same seed and actions`);
    if (!dataEquivalence(a.info, b.info)) fail(`${at}: infos differ for the same seed and actions`);
    if (!dataEquivalence(a.obs, b.obs, true) || a.reward !== b.reward)
      warn(`${at}: transitions are not equal although similar`);
  }
  if (first.rng !== second.rng) fail("the env's random generator is in a different state after the same seeded steps");
}

/** Checks an `rgb_array` frame: `{ width, height, data }` (or `{ shape: [height, width, 3], data }`) with 3 bytes per pixel. */
export function checkRgbFrame(frame: unknown, where: string): void {
  if (typeof frame !== "object" || frame === null)
    fail(`${where}: an rgb_array render must return a frame object, got ${describe(frame)}`);
  const f = frame as { width?: unknown; height?: unknown; shape?: unknown; data?: unknown };
  let height: unknown = f.height;
  let width: unknown = f.width;
  if (Array.isArray(f.shape)) {
    if (f.shape.length !== 3 || f.shape[2] !== 3)
      fail(`${where}: frame shape must be [height, width, 3], got [${f.shape.join(", ")}]`);
    [height, width] = f.shape;
  }
  if (!Number.isInteger(width) || !Number.isInteger(height) || (width as number) <= 0 || (height as number) <= 0) {
    fail(`${where}: frame width/height must be positive integers, got ${String(width)} x ${String(height)}`);
  }
  if (!(f.data instanceof Uint8Array || f.data instanceof Uint8ClampedArray))
    fail(`${where}: frame data must be a Uint8Array, got ${describe(f.data)}`);
  const expected = (width as number) * (height as number) * 3;
  if (f.data.length !== expected)
    fail(`${where}: frame data has ${f.data.length} bytes, ${String(width)} x ${String(height)} RGB needs ${expected}`);
}

function remake(env: Env, renderMode: string | null): Env {
  const spec = env.spec!;
  return make(spec.id, { ...spec.kwargs, renderMode, maxEpisodeSteps: spec.maxEpisodeSteps });
}

/** Gymnasium's render checks: the mode is declared in metadata, and an `rgb_array` env renders a well-formed frame. */
function checkRender(env: Env, warn: (m: string) => void): void {
  const modes = env.metadata.renderModes;
  if (!Array.isArray(modes)) fail(`metadata.renderModes must be an array, got ${describe(modes)}`);
  if (modes.length > 0 && env.metadata.renderFps === undefined)
    warn("metadata.renderFps is not declared, rendering may not be at the right speed");
  if (env.renderMode !== null) {
    if (!modes.includes(env.renderMode))
      fail(`renderMode "${env.renderMode}" is not one of metadata.renderModes [${modes.join(", ")}]`);
    env.reset({ seed: 0 });
    const frame = env.render();
    if (env.renderMode === "rgb_array") checkRgbFrame(frame, "env.render()");
    return;
  }
  // Like 0.29's check_env, an env built without a render mode is re-made from its spec to check rendering.
  if (!modes.includes("rgb_array")) return;
  if (env.spec === null) {
    warn("cannot check the rgb_array render mode: the env has no spec to re-make it from");
    return;
  }
  const rendering = remake(env, "rgb_array");
  try {
    rendering.reset({ seed: 0 });
    checkRgbFrame(rendering.render(), `make("${env.spec.id}", { renderMode: "rgb_array" }).render()`);
  } finally {
    rendering.close();
  }
}
