// What the console and the env layer share: ALE's action set and how actions press joystick switches or move
// paddles, the paddle constants, the console options a game's properties set, and Stella's System random generator
// (ALE's fixed power-on state comes from it). Kept free of emulator code so that the env layer (and PettingZoo's
// Atari envs) can import it without the console.

/** ALE's `Action` enum (src/common/Constants.h): the 18 joystick actions, then the console's RESET switch. */
export const Action = {
  NOOP: 0,
  FIRE: 1,
  UP: 2,
  RIGHT: 3,
  LEFT: 4,
  DOWN: 5,
  UPRIGHT: 6,
  UPLEFT: 7,
  DOWNRIGHT: 8,
  DOWNLEFT: 9,
  UPFIRE: 10,
  RIGHTFIRE: 11,
  LEFTFIRE: 12,
  DOWNFIRE: 13,
  UPRIGHTFIRE: 14,
  UPLEFTFIRE: 15,
  DOWNRIGHTFIRE: 16,
  DOWNLEFTFIRE: 17,
  RESET: 18,
} as const;

/** Names of actions 0..17 in enum order, as ale-py's `get_action_meanings()` spells them. */
export const ACTION_MEANINGS: readonly string[] = Object.keys(Action).slice(0, 18);

export const UP_BIT = 1;
export const DOWN_BIT = 2;
export const LEFT_BIT = 4;
export const RIGHT_BIT = 8;
export const FIRE_BIT = 16;
/** Joystick switches pressed by each action 0..17 (ALEState::applyActionJoysticks). */
export const ACTION_SWITCHES: readonly number[] = ACTION_MEANINGS.map(
  (name) =>
    (name.includes("UP") ? UP_BIT : 0) |
    (name.includes("DOWN") ? DOWN_BIT : 0) |
    (name.includes("LEFT") ? LEFT_BIT : 0) |
    (name.includes("RIGHT") ? RIGHT_BIT : 0) |
    (name.includes("FIRE") ? FIRE_BIT : 0),
);

// Paddle constants from ALE's ale_state.hpp. MIN/MAX come from Stella 3.3's Paddles.cxx (1400000 * [5, 235] / 255);
// MAX was lowered by ALE's authors so that Pong's bat cannot leave the screen.
export const PADDLE_DELTA = 23000;
export const PADDLE_MIN = 27450;
export const PADDLE_MAX = 790196;
/** ALEState::resetPaddles centres both paddles at (min + max) / 2 (integer division). */
export const PADDLE_DEFAULT_VALUE = Math.trunc((PADDLE_MIN + PADDLE_MAX) / 2);
/** Stella's Controller::minimumResistance / maximumResistance: INPTx reads always high / always low. */
export const MINIMUM_RESISTANCE = 0;
export const MAXIMUM_RESISTANCE = 0x7fffffff;

/** ALE's default `system_random_seed`, which seeds Stella's System generator (ale_interface Settings). */
export const ALE_SYSTEM_RANDOM_SEED = 4753849;

export type ControllerType = "joystick" | "paddles";

export interface ConsoleOptions {
  /** Display.YStart: first frame scanline of the screen (ALE default 34). */
  yStart?: number;
  /** Display.Height: screen height in scanlines (ALE default 210). */
  height?: number;
  /** Controller.Left / Controller.Right; player A uses the left port. */
  leftController?: ControllerType;
  rightController?: ControllerType;
  /** Controller.SwapPaddles: paddle 0 (player A) is wired to the jack's second pot and button, as for Pong. */
  swapPaddles?: boolean;
  /**
   * Console.SwapPorts: the controller player A's events drive sits in the right port and player B's in the left
   * (Stella's Console swaps the jacks the two joysticks are built on). Joysticks only, as the games that set it use.
   */
  swapPorts?: boolean;
  /** Override the bank-switching scheme; by default it is detected from the image (size and signatures). */
  cartridgeType?: string;
  /** Emulation.HmoveBlanks: whether an early-line HMOVE blanks the line's first 8 pixels (default true; Stella core). */
  hmoveBlanks?: boolean;
  /**
   * The display format Stella ends up with (default NTSC). PAL lets frames run to 342 scanlines, turns on the TIA's
   * colour loss, selects ALE's PAL palette and makes the default height 250 (Console.cxx).
   */
  displayFormat?: "NTSC" | "PAL";
  /**
   * Whether the cartridge's Display.Format is AUTO-DETECT (default true): Stella's Console then runs 60 frames to
   * tell the format from the scanline count before its first reset. A cartridge whose entry names its format (Maze
   * Craze: PAL) skips them. The console records what the detection found in `detectedFormat`.
   */
  detectFormat?: boolean;
}
