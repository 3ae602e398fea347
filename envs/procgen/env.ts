// The Python side of procgen: `ProcgenEnv` (the vector env CleanRL trains on) and the Gymnasium ids
// `procgen-{game}-v0` (one game, Gymnasium's reset/step API, checked by the env checker).
//
// ProcgenEnv reproduces gym3's `ToBaselinesVecEnv(ProcgenGym3Env)` as CleanRL uses it (gym 0.23 vector API):
//   reset()        -> obs: the CURRENT observation of every env (gym3 has no real reset)
//   step(actions)  -> [obs, rewards, dones, infos]
// An env whose episode ended resets itself inside the same step: the returned observation is the new level's
// first frame while the reward is the terminal step's (procgen's `Game::step`). Observations are uint8
// [numEnvs, 64, 64, 3] (HWC, row 0 at the top) under `obs.rgb`, rewards float32, infos one object per env with
// `level_seed`, `prev_level_seed`, `prev_level_complete`.
//
// Seeding: `randSeed` seeds one mt19937 whose successive raw outputs seed each env's level-seed generator
// (procgen's VecGame). Python draws `rand_seed` from the OS when not given, and so do we; passing one makes the
// whole level sequence, and so a training run, reproducible (CleanRL cannot: its --seed never reaches procgen).

import { Env, type Info, type ResetArgs, type StepResult } from "../gymnasium/core.ts";
import { Box, Discrete, type Space } from "../gymnasium/spaces.ts";
import { AssetsNotFoundError } from "./assets.ts";
import { randomSeed } from "../torch/rng.ts";
import {
  type BasicAbstractGame,
  type DistributionMode,
  EASY_MODE,
  EXTREME_MODE,
  type GameOptions,
  HARD_MODE,
  type ImageLoader,
  MEMORY_MODE,
  RENDER_RES,
  RES,
} from "./game.ts";
import { makeGame } from "./games/index.ts";
import { Mt19937 } from "./mt19937.ts";

export const OBS_SHAPE = [RES, RES, 3] as const;
export const OBS_SIZE = RES * RES * 3;
export const NUM_ACTIONS = 15;
const INT32_MAX = 2147483647;

/** procgen's Python mode names; "exploration" is hard mode on one fixed level per game (env.py). */
const MODES: Record<string, DistributionMode> = {
  easy: EASY_MODE,
  hard: HARD_MODE,
  extreme: EXTREME_MODE,
  memory: MEMORY_MODE,
  exploration: HARD_MODE,
};
const EXPLORATION_LEVEL_SEEDS: Record<string, number> = {
  coinrun: 1949448038,
  caveflyer: 1259048185,
  leaper: 1318677581,
  jumper: 1434825276,
  maze: 158988835,
  heist: 876640971,
  climber: 1561126160,
  ninja: 1123500215,
};

/** ProcgenGym3Env's keyword arguments (camelCase), Python's defaults. */
export interface ProcgenOptions {
  envName: string;
  numLevels?: number;
  startLevel?: number;
  distributionMode?: string;
  /** Seeds the level sequence; default: a fresh OS-random seed, as procgen. */
  randSeed?: number | null;
  useBackgrounds?: boolean;
  restrictThemes?: boolean;
  useMonochromeAssets?: boolean;
  centerAgent?: boolean;
  paintVelInfo?: boolean;
  useSequentialLevels?: boolean;
  /** Sprites and backgrounds generated procedurally (assetgen.ts) rather than read: no image file is needed. */
  useGeneratedAssets?: boolean;
  /** `"rgb_array"`: every step also draws the 512x512 frame into each env's info `rgb` (procgen's render_human). */
  renderMode?: string | null;
  /**
   * How images are read. `null` (only allowed with `useMonochromeAssets`) draws sprites as procgen's monochrome
   * rectangles and leaves backgrounds black, so no image file is needed.
   */
  images?: ImageLoader | null;
}

/** Builds one game per env from the Python options, with the level range and per-env level-seed generators. */
export function makeGames(options: ProcgenOptions, numEnvs: number): BasicAbstractGame[] {
  const { envName, startLevel = 0, useSequentialLevels = false } = options;
  let { numLevels = 0, distributionMode = "hard" } = options;
  distributionMode = distributionMode.toLowerCase();
  const mode = MODES[distributionMode];
  if (mode === undefined)
    throw new Error(`unknown distribution_mode "${distributionMode}" (easy, hard, extreme, memory, exploration)`);
  let levelStart = startLevel;
  if (distributionMode === "exploration") {
    const seed = EXPLORATION_LEVEL_SEEDS[envName];
    if (seed === undefined) throw new Error(`procgen game "${envName}" has no exploration mode`);
    levelStart = seed;
    numLevels = 1;
  }
  if (!Number.isInteger(numLevels) || numLevels < 0)
    throw new Error(`num_levels must be a non-negative integer, got ${numLevels}`);
  if (!Number.isInteger(levelStart) || levelStart < 0)
    throw new Error(`start_level must be a non-negative integer, got ${levelStart}`);
  const images = options.images ?? null;
  if (images === null && !options.useMonochromeAssets && !options.useGeneratedAssets) {
    throw new AssetsNotFoundError(
      "procgen: no image loader; pass images (see envs/procgen/assets.ts), useMonochromeAssets or useGeneratedAssets",
    );
  }
  const gameOptions: Partial<GameOptions> = {
    distributionMode: mode,
    useBackgrounds: options.useBackgrounds ?? true,
    restrictThemes: options.restrictThemes ?? false,
    useMonochromeAssets: options.useMonochromeAssets ?? false,
    centerAgent: options.centerAgent ?? true,
    paintVelInfo: options.paintVelInfo ?? false,
    useSequentialLevels,
    useGeneratedAssets: options.useGeneratedAssets ?? false,
    images,
  };
  // VecGame: num_levels 0 means every int32 seed; otherwise [start_level, start_level + num_levels).
  const [low, high] = numLevels === 0 ? [0, INT32_MAX] : [levelStart, levelStart + numLevels];
  const seeder = new Mt19937(options.randSeed ?? randomSeed());
  return Array.from({ length: numEnvs }, () => {
    const game = makeGame(envName, gameOptions);
    game.seedLevels(seeder.randintRaw(), low, high);
    return game;
  });
}

function levelInfo(game: BasicAbstractGame, renderHuman = false): Info {
  const info: Info = {
    level_seed: game.currentLevelSeed,
    prev_level_seed: game.prevLevelSeed,
    prev_level_complete: game.stepData.levelComplete ? 1 : 0,
  };
  if (renderHuman) info.rgb = game.render();
  return info;
}

/** `procgen.ProcgenEnv(num_envs, env_name, ...)`: N games stepped in lockstep with in-step resets. */
export class ProcgenEnv {
  readonly numEnvs: number;
  readonly singleObservationSpace = new Box(0, 255, OBS_SHAPE, "uint8");
  readonly singleActionSpace = new Discrete(NUM_ACTIONS);
  readonly games: BasicAbstractGame[];
  /** One buffer for all observations, overwritten by every step (callers copy what they keep). */
  readonly obs: Uint8Array;
  readonly rewards: Float32Array;
  readonly dones: Uint8Array;
  infos: Info[];
  private readonly renderHuman: boolean;

  constructor(options: ProcgenOptions & { numEnvs: number }) {
    if (!Number.isInteger(options.numEnvs) || options.numEnvs < 1)
      throw new Error(`num_envs must be a positive integer, got ${options.numEnvs}`);
    // procgen's env.py accepts None or "rgb_array" and raises on anything else.
    if (options.renderMode != null && options.renderMode !== "rgb_array")
      throw new Error(
        `procgen: invalid render mode ${JSON.stringify(options.renderMode)}; expected "rgb_array" or null`,
      );
    this.numEnvs = options.numEnvs;
    this.games = makeGames(options, this.numEnvs);
    this.renderHuman = options.renderMode === "rgb_array";
    this.obs = new Uint8Array(this.numEnvs * OBS_SIZE);
    this.rewards = new Float32Array(this.numEnvs);
    this.dones = new Uint8Array(this.numEnvs);
    // VecGame resets and observes every game once before the first action; that first observation has first = 1.
    this.games.forEach((g, i) => {
      g.reset();
      g.observe(this.obs, i * OBS_SIZE);
    });
    this.infos = this.games.map((g) => levelInfo(g, this.renderHuman));
  }

  /** gym3 ignores resets: this returns the current observations, `{ rgb }` as procgen's dict space. */
  reset(): { rgb: Uint8Array } {
    return { rgb: this.obs };
  }

  step(actions: ArrayLike<number>): [{ rgb: Uint8Array }, Float32Array, Uint8Array, Info[]] {
    if (actions.length !== this.numEnvs)
      throw new RangeError(`ProcgenEnv.step: expected ${this.numEnvs} actions, got ${actions.length}`);
    for (let i = 0; i < this.numEnvs; i++) {
      const a = actions[i];
      if (!Number.isInteger(a) || a < 0 || a >= NUM_ACTIONS)
        throw new RangeError(`ProcgenEnv.step: action ${a} of env ${i} is not in Discrete(${NUM_ACTIONS})`);
      const g = this.games[i];
      g.step(a);
      g.observe(this.obs, i * OBS_SIZE);
      this.rewards[i] = g.stepData.reward;
      this.dones[i] = g.stepData.done ? 1 : 0;
    }
    this.infos = this.games.map((g) => levelInfo(g, this.renderHuman));
    return [{ rgb: this.obs }, this.rewards, this.dones, this.infos];
  }

  close(): void {}
}

/**
 * `procgen-{game}-v0` with Gymnasium semantics: `reset({ seed })` seeds the level sequence (as `rand_seed`),
 * `step` returns the terminal frame when the episode ends (procgen's own gym env would already show the next
 * level), `terminated` on death or completion, `truncated` at the game's time limit; the next level starts at
 * the next `reset`. Info carries `level_seed`, `prev_level_seed`, `prev_level_complete`.
 */
export class ProcgenGymEnv extends Env<Uint8Array, number> {
  observationSpace = new Box(0, 255, OBS_SHAPE, "uint8") as Box & Space<Uint8Array>;
  actionSpace = new Discrete(NUM_ACTIONS);
  override metadata = { renderModes: ["rgb_array"], renderFps: 15 };
  private game: BasicAbstractGame;
  private readonly frame = new Uint8Array(OBS_SIZE);
  /** Whether the level sequence has been seeded (by `randSeed`, a reset seed, or the first reset's entropy). */
  private seeded: boolean;

  constructor(
    private readonly procgenOptions: ProcgenOptions,
    renderMode: string | null = null,
  ) {
    super();
    this.renderMode = renderMode;
    this.seeded = procgenOptions.randSeed != null;
    this.game = makeGames({ ...procgenOptions, randSeed: procgenOptions.randSeed ?? 0 }, 1)[0];
  }

  override reset(args: ResetArgs = {}): [Uint8Array, Info] {
    super.reset(args);
    if (args.seed !== undefined || !this.seeded) {
      // A seed restarts the level sequence (procgen's rand_seed); unseeded, it comes from the env's entropy.
      const randSeed = args.seed ?? this.npRandom.integers(0, INT32_MAX);
      this.game = makeGames({ ...this.procgenOptions, randSeed }, 1)[0];
      this.seeded = true;
    }
    this.game.reset();
    this.game.observe(this.frame);
    return [this.frame.slice(), { level_seed: this.game.currentLevelSeed }];
  }

  step(action: number): StepResult<Uint8Array> {
    const g = this.game;
    g.advance(action);
    g.observe(this.frame);
    return [this.frame.slice(), g.stepData.reward, g.stepData.done && !g.timedOut, g.timedOut, levelInfo(g)];
  }

  /** procgen's rgb_array frame: the current state redrawn at 512x512 (BasicAbstractGame.render). */
  override render(): { width: number; height: number; data: Uint8Array } | null {
    return this.renderMode === "rgb_array" ? { width: RENDER_RES, height: RENDER_RES, data: this.game.render() } : null;
  }

  /** The game inside (tests script it). */
  get unwrappedGame(): BasicAbstractGame {
    return this.game;
  }
}
