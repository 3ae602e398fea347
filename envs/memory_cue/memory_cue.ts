// MemoryCue: a tiny Atari-shaped memory task, the proof that a recurrent agent (ppo_atari_lstm.ts) really
// remembers. No Atari game isolates memory: most are nearly solvable from 4 stacked frames, so "the LSTM
// variant learns Breakout" says little about whether its LSTM carries information across time. Here it must.
//
// An episode, in emulator frames (one `step` = one frame, like the NoFrameskip-v4 ids; D = `delaySteps`):
//
//   frames [0, 32)                 cue:   a large white block on the left or the right half (drawn by npRandom)
//   frames [32, 32 + 4D)           delay: an all-black screen
//   frames [Q, Q + 4), Q = 32 + 4D query: a centred orange bar, the same whichever the cue was
//   the step taken on frame Q + 3  the answer: LEFT matching a left cue or RIGHT matching a right cue earns +1,
//                                  anything else (the other side, or NOOP) -1; that step terminates the episode
//
// Actions are otherwise ignored and never change the screen, so the cue cannot be "written into the world".
// The episode is always Q + 4 frames long (68 with the default D = 8), and no TimeLimit is needed.
//
// Why the timeline works through CleanRL's Atari stack (envs/gymnasium/atari_wrappers.ts) with no special case. Let N in
// [1, 30] be NoopResetEnv's no-ops; then the agent's reset observation is frame N, and its observation after
// agent step k is the max of frames N + 4k - 1 and N + 4k (MaxAndSkipEnv, skip 4).
// - The cue lasts 32 > 30 frames, so the reset observation always shows it: agent steps 0 .. L with
//   L = floor((32 - N) / 4) see it (the max of the last cue frame and a black frame is the cue).
// - The first observation showing the query is K = ceil((Q - N) / 4). Its two frames are black or query, never
//   cue (D >= 1), and max(black, query) = query, so it is byte-identical for both cues. K - L is D when N is a
//   multiple of 4 and D + 1 otherwise, so FrameStack(4) (observations K-3 .. K) holds no cue either when D >= 4.
// - The 4 agent frames of step K + 1 are N + 4K .. N + 4K + 3, with N + 4K in [Q, Q + 3]: they always include
//   frame Q + 3. So the answer is exactly the first action chosen after seeing the query, whatever the phase
//   of the no-ops, and MaxAndSkipEnv stops its loop on that frame because the episode terminated.
//
// What a policy can score (rewards are +-1, so ClipRewardEnv leaves them unchanged):
// - Memoryless (ppo_atari.ts's FrameStack(4) with D >= 4, or any FrameStack(1) policy): its action
//   probabilities (p_noop, p_left, p_right) at the query cannot depend on the cue, so its expected return is
//   0.5 (p_left - p_right - p_noop) + 0.5 (p_right - p_left - p_noop) = -p_noop <= 0. The best it can do is 0;
//   uniformly random actions get -1/3.
// - With memory of the cue (an LSTM): +1 every episode.
// Registered ids: MemoryCue-v0 (D = 8: 10 to 17 agent steps per episode) and the positive control
// MemoryCueShort-v0 (D = 2: K - L <= 3, so a FrameStack(4) agent sees the cue at the query and can reach +1,
// while FrameStack(1) still cannot). D = 3 is in between: FrameStack(4) sees the cue only when N is a multiple of 4.
//
// To the wrappers it looks like an ale-py env: Box(0, 255, [210, 160, 3], uint8) RGB frames, Discrete actions
// with `getActionMeanings()` (["NOOP", "LEFT", "RIGHT"], no FIRE, so FireResetEnv is not applied), `lives` in
// every info (always 1, so EpisodicLifeEnv never ends an episode early), and `rgb_array` rendering.

import { Env, type Info, type Metadata, type ResetArgs, type StepResult } from "../gymnasium/core.ts";
import { Canvas, type Frame, type RGB } from "../classic_control/raster.ts";
import { register } from "../gymnasium/registration.ts";
import { Box, Discrete, type Space } from "../gymnasium/spaces.ts";

/** The Atari screen: 210 rows of 160 RGB pixels. */
export const SCREEN_HEIGHT = 210;
export const SCREEN_WIDTH = 160;

/** Frames the cue is shown for: more than NoopResetEnv's 30 no-ops, so the agent always sees it at reset. */
export const CUE_FRAMES = 32;
/** Frames per agent step in CleanRL's stack (MaxAndSkipEnv's skip); the delay is counted in these. */
export const FRAMES_PER_AGENT_STEP = 4;
/** Frames the query is shown for; the action on the last of them is the answer (see the header). */
export const QUERY_FRAMES = FRAMES_PER_AGENT_STEP;

export const ACTION_MEANINGS = ["NOOP", "LEFT", "RIGHT"] as const;
export const NOOP = 0;
export const LEFT = 1;
export const RIGHT = 2;

export type Cue = typeof LEFT | typeof RIGHT;

export interface MemoryCueKwargs {
  renderMode?: string | null;
  /** D: black agent steps (4 frames each) between the cue and the query; at least 1. */
  delaySteps?: number;
}

const BLACK: RGB = [0, 0, 0];
const WHITE: RGB = [255, 255, 255];
/** Gray 151 after COLOR_RGB2GRAY: clearly neither the background (0) nor a cue (255). */
const ORANGE: RGB = [255, 128, 0];

/** Fills columns [x0, x1) of rows [y0, y1). */
function fillRect(canvas: Canvas, x0: number, y0: number, x1: number, y1: number, color: RGB): void {
  for (let y = y0; y < y1; y++) canvas.hline(x0, x1 - 1, y, color);
}

/**
 * The four screens, drawn once. The cue blocks are 64 x 128 pixels (about 34 x 51 cells after the 84x84 resize,
 * so most of a block stays pure white), each inside its own half with an 8-pixel margin from the centre line,
 * so a resized left cue has no lit pixel in the right half of the image and vice versa.
 */
function drawScreen(content: "blank" | "left" | "right" | "query"): Uint8Array {
  const canvas = new Canvas(SCREEN_WIDTH, SCREEN_HEIGHT, BLACK);
  if (content === "left") fillRect(canvas, 8, 41, 72, 169, WHITE);
  if (content === "right") fillRect(canvas, 88, 41, 152, 169, WHITE);
  if (content === "query") fillRect(canvas, 8, 89, 152, 121, ORANGE);
  return canvas.data;
}

const SCREENS = {
  blank: drawScreen("blank"),
  [LEFT]: drawScreen("left"),
  [RIGHT]: drawScreen("right"),
  query: drawScreen("query"),
} as const;

export class MemoryCueEnv extends Env<Uint8Array, number> {
  /** ale-py's metadata: rgb_array at the Atari's 60 frames per second. */
  override metadata: Metadata = { renderModes: ["rgb_array"], renderFps: 60 };
  readonly observationSpace = new Box(0, 255, [SCREEN_HEIGHT, SCREEN_WIDTH, 3], "uint8") as Box & Space<Uint8Array>;
  readonly actionSpace = new Discrete(ACTION_MEANINGS.length);

  readonly delaySteps: number;
  /** Q: the first frame of the query. */
  readonly queryStart: number;
  /** This episode's cue (LEFT or RIGHT), drawn on reset; the answer that earns +1. */
  cue: Cue = LEFT;
  /** Frames stepped since reset (ale-py's `episode_frame_number`); the screen shown is a function of it. */
  frame = 0;
  private answered = false;

  constructor(kwargs: MemoryCueKwargs = {}) {
    super();
    const { renderMode = null, delaySteps = 8 } = kwargs;
    // D = 0 would put the last cue frame and the first query frame into one max-pooled observation.
    if (!Number.isInteger(delaySteps) || delaySteps < 1)
      throw new RangeError(`MemoryCue: delaySteps must be an integer >= 1, got ${delaySteps}`);
    if (renderMode !== null && renderMode !== "rgb_array")
      throw new Error(`MemoryCue: render mode ${renderMode} not supported (rgb_array).`);
    this.renderMode = renderMode;
    this.delaySteps = delaySteps;
    this.queryStart = CUE_FRAMES + FRAMES_PER_AGENT_STEP * delaySteps;
  }

  /** The frame of the answer: the last query frame; the step taken on it ends the episode. */
  get answerFrame(): number {
    return this.queryStart + QUERY_FRAMES - 1;
  }

  override reset(args: ResetArgs = {}): [Uint8Array, Info] {
    super.reset(args);
    this.cue = this.npRandom.integers(0, 2) === 0 ? LEFT : RIGHT;
    this.frame = 0;
    this.answered = false;
    return [this.screen().slice(), this.info()];
  }

  step(action: number): StepResult<Uint8Array> {
    if (!this.actionSpace.contains(action)) throw new Error(`${String(action)} (${typeof action}) invalid`);
    // After the answer the episode stays over (like a game-over screen): no reward, terminated again.
    if (this.answered) return [this.screen().slice(), 0, true, false, this.info()];
    let reward = 0;
    if (this.frame === this.answerFrame) {
      reward = action === this.cue ? 1 : -1;
      this.answered = true;
    }
    this.frame += 1;
    return [this.screen().slice(), reward, this.answered, false, this.info()];
  }

  /** The screen at the current frame (shared; copy before handing out). */
  private screen(): Uint8Array {
    if (this.frame < CUE_FRAMES) return SCREENS[this.cue];
    if (this.frame < this.queryStart) return SCREENS.blank;
    return SCREENS.query;
  }

  private info(): Info {
    return { lives: 1, episode_frame_number: this.frame };
  }

  override render(): Frame | null {
    if (this.renderMode !== "rgb_array") return null;
    return { width: SCREEN_WIDTH, height: SCREEN_HEIGHT, data: this.screen().slice() };
  }

  /** ale-py's `get_action_meanings()`, which NoopResetEnv and CleanRL's FIRE check read. */
  getActionMeanings(): string[] {
    return [...ACTION_MEANINGS];
  }
}

const entryPoint = (kw: Record<string, unknown>) => new MemoryCueEnv(kw as MemoryCueKwargs);
register({
  id: "MemoryCue-v0",
  entryPoint,
  kwargs: { delaySteps: 8 },
  acceptedKwargs: ["delaySteps"],
  spaceKinds: { action: "discrete", observation: "image" },
});
register({
  id: "MemoryCueShort-v0",
  entryPoint,
  kwargs: { delaySteps: 2 },
  acceptedKwargs: ["delaySteps"],
  spaceKinds: { action: "discrete", observation: "image" },
});
