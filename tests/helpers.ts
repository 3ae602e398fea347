// Synthetic envs and small builders shared by several test files. Not a test file itself (no `.test.ts`), so
// `npm test` only runs it through the files that import it; async_vector.test.ts's worker threads import it too.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { Env, type Info, type ResetArgs, type StepResult } from "../envs/gymnasium/core.ts";
import { Box, Discrete, type Space, type TypedArray } from "../envs/gymnasium/spaces.ts";

/**
 * Where tests look for the Atari ROMs (never shipped with the project): ALE_ROMS_DIR when set and not empty, else
 * ../shared/roms beside the repository, where CI keeps them.
 */
export const ROM_DIR = process.env.ALE_ROMS_DIR || fileURLToPath(new URL("../../shared/roms", import.meta.url));

/** For a test's `skip` option: false when `${rom}.bin` is in ROM_DIR, else the reason the test is skipped. */
export function skipWithoutRom(rom: string): string | false {
  return existsSync(join(ROM_DIR, `${rom}.bin`)) ? false : `${rom}.bin not in ${ROM_DIR} (set ALE_ROMS_DIR)`;
}

/** A float32 Box typed as holding Float32Arrays (Box itself is typed for any TypedArray). */
export function float32Box(
  low: number | number[],
  high: number | number[],
  shape: number[],
): Box & Space<Float32Array> {
  return new Box(low, high, shape, "float32") as Box & Space<Float32Array>;
}

/**
 * Observation [id, episode, t, seed-or--1]; the episode ends when t reaches `episodeLength` (terminated, or
 * truncated with `truncate`); reward = 10 * id + t. Step info carries `t`; reset info carries `resets`. Every
 * action received is kept in `actions`. Each of these is visible from outside, so vector-env tests can tell
 * which sub-env, episode, step and seed produced a row.
 */
export class CounterEnv extends Env<Float32Array, number> {
  observationSpace: Space<Float32Array> = float32Box(-Infinity, Infinity, [4]);
  actionSpace: Space<number> = new Discrete(3);
  episode = -1;
  t = 0;
  lastSeed = -1;
  actions: number[] = [];
  constructor(
    readonly id: number,
    readonly episodeLength = Infinity,
    readonly truncate = false,
  ) {
    super();
  }
  protected obs(): Float32Array {
    return Float32Array.of(this.id, this.episode, this.t, this.lastSeed);
  }
  override reset(args: ResetArgs = {}): [Float32Array, Info] {
    super.reset(args);
    this.lastSeed = args.seed ?? -1;
    this.episode += 1;
    this.t = 0;
    return [this.obs(), { resets: this.episode + 1 }];
  }
  step(action: number): StepResult<Float32Array> {
    this.actions.push(action);
    this.t += 1;
    const done = this.t >= this.episodeLength;
    return [this.obs(), 10 * this.id + this.t, done && !this.truncate, done && this.truncate, { t: this.t }];
  }
}

/** Records the (Box) actions it receives in `received`; observation space Box(-1, 1, (1,)). */
export class BoxActionEnv extends Env<Float32Array, TypedArray> {
  observationSpace = float32Box(-1, 1, [1]);
  received: TypedArray[] = [];
  constructor(readonly actionSpace: Box & Space<Float32Array> = float32Box(-1, 1, [2])) {
    super();
  }
  override reset(args: ResetArgs = {}): [Float32Array, Info] {
    super.reset(args);
    return [new Float32Array(1), {}];
  }
  step(action: TypedArray): StepResult<Float32Array> {
    this.received.push(action);
    return [new Float32Array(1), 0, false, false, {}];
  }
}

/**
 * `Base` with a count of the observations it builds: each `step` builds one, `stepInto` builds one only when given
 * a buffer (the way AtariEnv skips drawing), so a test sees which frames a wrapper asked to see.
 */
export function countingObservations<
  Obs extends TypedArray,
  B extends new (
    ...args: any[]
  ) => { step(action: number): StepResult<Obs> },
>(Base: B) {
  return class extends Base {
    observations = 0;
    override step(action: number): StepResult<Obs> {
      this.observations++;
      return super.step(action);
    }
    stepInto(action: number, out: TypedArray | null): [number, boolean, boolean, Info] {
      const [obs, reward, terminated, truncated, info] = super.step(action);
      if (out !== null) {
        this.observations++;
        out.set(obs);
      }
      return [reward, terminated, truncated, info];
    }
  };
}
