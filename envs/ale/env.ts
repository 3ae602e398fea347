// AtariEnv: ale-py's `AtariEnv` (ale_py/env.py) over our ALEInterface, with the same kwargs, defaults, spaces,
// info and termination semantics:
//   obs:        "rgb" (210x160x3 uint8, default) | "grayscale" (210x160) | "ram" (128 bytes)
//   step:       repeats the action `frameskip` frames (an int, or [low, high) drawn per step), summing the rewards;
//               each frame may instead repeat the previous frame's action with repeat_action_probability
//   terminated: the game's own game-over test;  truncated: max_num_frames_per_episode used up
//   info:       { lives, episode_frame_number, frame_number }
// ale-py's constructor defaults are those of Machado et al. (2018): frameskip 4, repeat_action_probability 0.25.
//
// Seeding follows ale-py's `seed_game`: `reset({ seed })` splits `SeedSequence(seed).generate_state(2)` into np_seed
// and ale_seed; the env's `npRandom` becomes `np_random(np_seed)` (what NoopResetEnv and a stochastic frameskip draw
// from, so those draws equal ale-py's), and ale_seed seeds the emulator side. ALE's own generator behind sticky
// actions (Stella's, seeded with random_seed) is not reproduced: those draws come from a PCG64 stream of ale_seed,
// kept apart from `npRandom` as ALE's is from ale-py's np_random.

import {
  Env,
  type Info,
  type Metadata,
  type ResetArgs,
  type StepResult,
  type StepWithoutObservationResult,
} from "../gymnasium/core.ts";
import { Box, Discrete, type Space, type TypedArray } from "../gymnasium/spaces.ts";
import { NumpyGenerator, SeedSequence } from "../torch/numpy_random.ts";
import { ACTION_MEANINGS } from "./controls.ts";
import { findGame, type GameSpec } from "./games.ts";
import { ALEInterface } from "./interface.ts";
import { findRom, md5Hex } from "./roms.ts";

export type ObsType = "rgb" | "grayscale" | "ram";

export interface AtariEnvKwargs {
  /** ALE ROM id (`breakout`), ale-py name (`Breakout`), or a GameSpec (tests use this for their own cartridge). */
  game: string | GameSpec;
  mode?: number | null;
  difficulty?: number | null;
  obsType?: ObsType;
  /** Frames per step: a fixed count, or [low, high) to draw uniformly each step. */
  frameskip?: number | readonly [number, number];
  repeatActionProbability?: number;
  fullActionSpace?: boolean;
  /** Truncate after this many frames (null/0: unlimited). */
  maxNumFramesPerEpisode?: number | null;
  renderMode?: string | null;
  /** Folder searched first for the ROM (the variants' --rom-dir). */
  romDir?: string | null;
  /** The ROM image itself, skipping the lookup (its MD5 must still be the game's). */
  rom?: Uint8Array | null;
}

/** One RGB frame, row-major (height, width, 3): the shape classic-control renderers return, so RecordVideo works. */
export interface RgbFrame {
  width: number;
  height: number;
  data: Uint8Array;
}

export class AtariEnv extends Env<Uint8Array, number> {
  override metadata: Metadata = { renderModes: ["rgb_array"], renderFps: 60 };
  readonly observationSpace: Box & Space<Uint8Array>;
  readonly actionSpace: Discrete;
  readonly ale: ALEInterface;
  readonly game: GameSpec;
  private readonly actionSet: number[];
  private readonly obsType: ObsType;
  private readonly frameskip: number | readonly [number, number];
  private readonly rgbSize: number;
  /** The emulator side's draws (sticky actions, power-on): seeded with ale-py's ale_seed on a seeded reset. */
  private aleRandom = new NumpyGenerator();

  constructor(kwargs: AtariEnvKwargs) {
    super();
    const {
      obsType = "rgb",
      frameskip = 4,
      repeatActionProbability = 0.25,
      fullActionSpace = false,
      maxNumFramesPerEpisode = null,
      renderMode = null,
      romDir = null,
    } = kwargs;
    const game = typeof kwargs.game === "string" ? findGame(kwargs.game) : kwargs.game;
    if (game === undefined) throw new Error(`AtariEnv: unsupported game "${String(kwargs.game)}"`);
    if (!["rgb", "grayscale", "ram"].includes(obsType))
      throw new Error(`Invalid observation type: ${obsType}. Expecting: rgb, grayscale, ram.`);
    if (typeof frameskip === "number") {
      if (!Number.isInteger(frameskip) || frameskip <= 0)
        throw new Error(`Invalid frameskip of ${frameskip}, frameskip must be positive.`);
    } else if (frameskip.length !== 2 || !(frameskip[0] > 0) || frameskip[0] > frameskip[1]) {
      throw new Error(`Invalid stochastic frameskip [${frameskip.join(", ")}]: need 0 < low <= high.`);
    }
    if (renderMode !== null && renderMode !== "rgb_array")
      throw new Error(`Render mode ${renderMode} not supported (rgb_array).`);
    this.game = game;
    this.obsType = obsType;
    this.frameskip = frameskip;
    this.renderMode = renderMode;

    let rom: Uint8Array;
    if (kwargs.rom) {
      const md5 = md5Hex(kwargs.rom);
      if (md5 !== game.md5) throw new Error(`AtariEnv: the given ROM has MD5 ${md5}, not ${game.name}'s ${game.md5}`);
      rom = kwargs.rom;
    } else {
      rom = findRom(game.rom, game.md5, { romDir }).bytes;
    }
    this.ale = new ALEInterface(
      game,
      rom,
      {
        repeatActionProbability,
        maxNumFramesPerEpisode: maxNumFramesPerEpisode ?? 0,
        mode: kwargs.mode ?? undefined,
        difficulty: kwargs.difficulty ?? undefined,
      },
      () => this.aleRandom.random(),
    );
    this.actionSet = fullActionSpace ? this.ale.getLegalActionSet() : this.ale.getMinimalActionSet();
    this.actionSpace = new Discrete(this.actionSet.length);
    const [height, width] = this.ale.getScreenDims();
    this.rgbSize = height * width * 3;
    const shape = obsType === "ram" ? [128] : obsType === "grayscale" ? [height, width] : [height, width, 3];
    this.observationSpace = new Box(0, 255, shape, "uint8") as Box & Space<Uint8Array>;
  }

  override reset(args: ResetArgs = {}): [Uint8Array, Info] {
    if (args.seed === undefined) super.reset(args);
    else {
      const [npSeed, aleSeed] = new SeedSequence(args.seed).generateState(2);
      super.reset({ ...args, seed: npSeed });
      this.aleRandom = new NumpyGenerator(aleSeed);
    }
    // Power-on RIOT RAM and timer are ALE's fixed ones (see Atari2600.powerOn); the generator's draw only seeds what
    // lies beyond them (SC cartridges' extra RAM), so `reset({ seed })` reproduces the episode exactly.
    this.ale.resetGame(this.aleRandom.integers(0, 2 ** 31), args.seed !== undefined);
    return [this.observation(), this.info()];
  }

  step(action: number): StepResult<Uint8Array> {
    const [reward, terminated, truncated, info] = this.stepFrames(action, true);
    return [this.observation(), reward, terminated, truncated, info];
  }

  /**
   * `step` with the observation written into `out` (no new array), or without one (`out` null): then the frames
   * run with pixel output switched off (the console still draws them if its screens would otherwise go stale, see
   * Atari2600.emulateFrame). For frame-skipping wrappers (MaxAndSkip), which keep their own frame
   * buffers and discard most screens; the screen the next `step` shows is unaffected.
   */
  override stepInto(action: number, out: TypedArray | null): StepWithoutObservationResult {
    // A wrong buffer is refused before anything is emulated.
    if (out !== null && !(out instanceof Uint8Array && out.length === this.observationSpace.size)) {
      throw new RangeError(
        `AtariEnv.stepInto: an observation is ${this.observationSpace.size} values, got a ${out.constructor.name} of ${out.length}`,
      );
    }
    const result = this.stepFrames(action, out !== null);
    if (out !== null) this.observe(out as Uint8Array);
    return result;
  }

  private stepFrames(action: number, observed: boolean): [number, boolean, boolean, Info] {
    if (!this.actionSpace.contains(action))
      throw new Error(`${action} isn't within the action space (${this.actionSpace})`);
    const frames =
      typeof this.frameskip === "number"
        ? this.frameskip
        : this.npRandom.integers(this.frameskip[0], this.frameskip[1]);
    const aleAction = this.actionSet[action];
    // The observation shows the last frame emulated, which is any of the step's frames when the game ends on it
    // (ALE emulates nothing after game over), so all are drawn if the observation (or a renderer) shows pixels.
    const pixels = observed && (this.obsType !== "ram" || this.renderMode !== null);
    let reward = 0;
    for (let i = 0; i < frames; i++) reward += this.ale.act(aleAction, pixels);
    return [reward, this.ale.gameOver(false), this.ale.gameTruncated(), this.info()];
  }

  private observation(): Uint8Array {
    return this.observe(new Uint8Array(this.observationSpace.size));
  }

  /** Writes the observation into `out` (exactly one observation's size). */
  private observe(out: Uint8Array): Uint8Array {
    if (this.obsType === "ram") return this.ale.getRAM(out);
    if (this.obsType === "grayscale") return this.ale.getScreenGrayscale(out);
    return this.ale.getScreenRGB(out);
  }

  private info(): Info {
    return {
      lives: this.ale.lives(),
      episode_frame_number: this.ale.getEpisodeFrameNumber(),
      frame_number: this.ale.getFrameNumber(),
    };
  }

  /** The current screen as an RGB frame (`render_mode="rgb_array"`). */
  override render(): RgbFrame | null {
    if (this.renderMode !== "rgb_array") return null;
    const [height, width] = this.ale.getScreenDims();
    return { width, height, data: this.ale.getScreenRGB(new Uint8Array(this.rgbSize)) };
  }

  /** ale-py's `get_action_meanings()`: the names of this env's actions, in action-index order. */
  getActionMeanings(): string[] {
    return this.actionSet.map((a) => ACTION_MEANINGS[a]);
  }
}
