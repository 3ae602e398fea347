// Per-game settings: what ALE's `src/games/supported/<Game>.cpp` says about each cartridge, as data plus a small
// per-frame function that reads RAM.
//
// ALE calls `step(system)` after every emulated frame (including the frames of the reset procedure); it computes
// the reward as the change of a score read from RAM, the terminal flag and the lives counter. RAM addresses below
// are the ones ALE's `readRam` is given: address a is RAM index a & 0x7F (0xB2 and 0x32 are the same byte), which
// `readRam` here does too. Console properties (paddles, screen window) come from ALE's Stella property database
// (src/ale/emucore/DefProps.hxx); a game without a `console` entry has none of the properties we emulate set.
//
// RomSettings::setMode runs on every reset, even in the default mode. Most games' setMode is "press SELECT until one
// RAM byte equals the mode, then soft reset" (`modeSelect`, data); the others (extra NOOP frames, menu navigation, an
// extra soft reset or SELECT press, two acceptable RAM values, two RAM bytes) give their procedure as a `selectMode`
// hook written against ModeControl, StellaEnvironmentWrapper's operations.

import { Action, type ConsoleOptions } from "./controls.ts";

/** The mutable per-episode state of one game, ALE's RomSettings instance. */
export interface GameSettings {
  /** RomSettings::reset: forget score, lives and terminal state. */
  reset(): void;
  /** RomSettings::step: called with the RIOT RAM after every emulated frame. */
  step(ram: Uint8Array): void;
  /** Score change seen by the last `step`. */
  readonly reward: number;
  readonly terminal: boolean;
  /** RomSettings::lives (0 for games without lives). */
  lives(): number;
}

/** How ALE's setMode reaches a mode: press SELECT until RAM[ramIndex] equals the mode, then press RESET. */
export interface ModeSelect {
  ramIndex: number;
  /** The RAM value that means `mode` (default: the mode itself; Surround stores mode + 1). */
  ramValue?: (mode: number) => number;
  /** Frames SELECT is held per press (`pressSelect(num_steps)`). */
  selectFrames: number;
}

/** What ALE's setMode may do to the console (StellaEnvironmentWrapper): the operations a `selectMode` hook uses. */
export interface ModeControl {
  /** RomUtils' readRam. */
  readRam(address: number): number;
  /** environment->act(a, PLAYER_B_NOOP): one agent frame (sticky actions apply; the frame counters advance). */
  act(action: number): void;
  /** environment->pressSelect(frames): SELECT held `frames` frames, then one NOOP frame. */
  pressSelect(frames?: number): void;
  /** environment->softReset(): RESET held for NUM_RESET_STEPS frames. */
  softReset(): void;
}

/** Presses SELECT (`frames` per press) until `reached()`; fails loudly instead of looping forever on a wrong table. */
export function pressSelectUntil(ctl: ModeControl, frames: number, reached: () => boolean, what: string): void {
  for (let presses = 0; !reached(); presses++) {
    if (presses >= 256) throw new Error(`${what} not reached by pressing SELECT`);
    ctl.pressSelect(frames);
  }
}

export interface GameSpec {
  /** ale-py's PascalCase id, used in env ids (`Breakout` -> `BreakoutNoFrameskip-v4`, `ALE/Breakout-v5`). */
  name: string;
  /** ALE's snake_case ROM id (`breakout`), also the ROM's file name in ale-py and AutoROM. */
  rom: string;
  /** MD5 of the only ROM image ALE accepts for this game. */
  md5: string;
  /** `getMinimalActionSet()`, in ALE's action order. */
  minimalActions: readonly number[];
  /** RomSettings::getStartingActions, emulated once each at the end of every reset. */
  startingActions?: readonly number[];
  /**
   * Actions the game's RomSettings::isLegal rejects (default: none). They are left out of getLegalActionSet (so of
   * full_action_space), and ALE's StellaEnvironment::oneStepAct plays them as NOOP if asked for (noopIllegalActions).
   */
  illegalActions?: readonly number[];
  /** getAvailableModes (default [0]); the first one is the default mode. */
  modes?: readonly number[];
  /** getAvailableDifficulties (default [0]). */
  difficulties?: readonly number[];
  /** Present when the game's RomSettings::setMode presses SELECT until one RAM byte equals the mode. */
  modeSelect?: ModeSelect;
  /** The game's own RomSettings::setMode procedure, for games whose setMode is more than `modeSelect` says. */
  selectMode?: (ctl: ModeControl, mode: number) => void;
  /** Console properties from Stella's database for this cartridge. */
  console?: ConsoleOptions;
  createSettings(): GameSettings;
}

/** RomUtils' readRam: the RAM byte at ALE address `address` (only its low 7 bits select the byte). */
export function readRam(ram: Uint8Array, address: number): number {
  return ram[address & 0x7f];
}

/** A BCD byte's value: 10 x high nibble + low nibble. */
export function bcd(v: number): number {
  return 10 * (v >> 4) + (v & 15);
}

/** RomUtils' getDecimalScore over 1-3 BCD bytes, least significant first (index -1 = absent). */
export function decimalScore(ram: Uint8Array, lower: number, middle = -1, higher = -1): number {
  let score = bcd(readRam(ram, lower));
  if (middle >= 0) score += 100 * bcd(readRam(ram, middle));
  if (higher >= 0) score += 10000 * bcd(readRam(ram, higher));
  return score;
}

/** What one RomSettings class reads from RAM on every frame: the common shape of ALE's game classes. */
interface RamRules<S extends object> {
  /** Per-episode state besides the score (lives, flags kept across frames), fresh at every reset. */
  state: () => S;
  /** The score on screen; a frame's reward is its change. */
  score: (ram: Uint8Array) => number;
  /** The terminal flag of this frame; also updates `s` (lives, flags) from the same frame. */
  terminal: (ram: Uint8Array, s: S) => boolean;
  /** RomSettings::lives (default: 0, a game without a lives counter). */
  lives?: (s: S, terminal: boolean) => number;
  /** RomSettings::reset's m_score for a cartridge that starts with points on the board (Pitfall 2000). */
  initialScore?: number;
  /** Turns a frame's score change into its reward (clamps, counter wrap-around, Skiing's negation). */
  reward?: (change: number) => number;
  /** On a terminal frame the RAM score is garbage: ALE rewards nothing and keeps the old score (Atlantis, Q*bert). */
  holdScoreWhenTerminal?: boolean;
}

class RamGame<S extends object> implements GameSettings {
  reward = 0;
  terminal = false;
  private score: number;
  private state: S;

  constructor(private readonly rules: RamRules<S>) {
    this.score = rules.initialScore ?? 0;
    this.state = rules.state();
  }

  reset(): void {
    this.reward = 0;
    this.terminal = false;
    this.score = this.rules.initialScore ?? 0;
    this.state = this.rules.state();
  }

  step(ram: Uint8Array): void {
    const score = this.rules.score(ram);
    this.terminal = this.rules.terminal(ram, this.state);
    if (this.terminal && this.rules.holdScoreWhenTerminal) {
      this.reward = 0;
      return;
    }
    const change = score - this.score;
    this.reward = this.rules.reward ? this.rules.reward(change) : change;
    this.score = score;
  }

  lives(): number {
    return this.rules.lives ? this.rules.lives(this.state, this.terminal) : 0;
  }
}

/** `createSettings` for a game described by RAM rules. */
function ramGame<S extends object>(rules: RamRules<S>): () => GameSettings {
  return () => new RamGame(rules);
}

/** Per-episode state of a game that only tracks lives, starting at RomSettings::reset's m_lives. */
const startingLives = (initial: number) => () => ({ lives: initial });
/** The Xitari-derived `lives()` of most games: `isTerminal() ? 0 : m_lives`. */
const livesUnlessTerminal = (s: { lives: number }, terminal: boolean) => (terminal ? 0 : s.lives);
/** `lives()` that returns m_lives as is (Alien, Chopper Command). */
const livesAsRead = (s: { lives: number }) => s.lives;
/** Score digits stored as the low nibble of consecutive bytes, least significant first, 0xA meaning a blank 0. */
function nibbleDigits(ram: Uint8Array, first: number, count: number): number {
  let score = 0;
  for (let i = count - 1; i >= 0; i--) {
    const digit = readRam(ram, first + i) & 0xf;
    score = 10 * score + (digit === 0xa ? 0 : digit);
  }
  return score;
}
/** The numbers 0..n-1, for games whose modes are every value below getNumModes(). */
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

const {
  NOOP,
  FIRE,
  UP,
  RIGHT,
  LEFT,
  DOWN,
  UPRIGHT,
  UPLEFT,
  DOWNRIGHT,
  DOWNLEFT,
  UPFIRE,
  RIGHTFIRE,
  LEFTFIRE,
  DOWNFIRE,
  UPRIGHTFIRE,
  UPLEFTFIRE,
  DOWNRIGHTFIRE,
  DOWNLEFTFIRE,
} = Action;
/** All 18 joystick actions: the minimal set of games whose isMinimal accepts everything. */
const ALL_ACTIONS: readonly number[] = range(18);

/** Breakout.cpp. Score: RAM 77 (BCD units/tens) and the low nibble of RAM 76 (hundreds). Lives: RAM 57. */
export const BREAKOUT: GameSpec = {
  name: "Breakout",
  rom: "breakout",
  md5: "f34f08e5eb96e500e851a80be3277a56",
  minimalActions: [NOOP, FIRE, RIGHT, LEFT],
  modes: [0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44],
  difficulties: [0, 1],
  modeSelect: { ramIndex: 0xb2, selectFrames: 1 },
  console: { leftController: "paddles" },
  createSettings: ramGame({
    state: () => ({ started: false, lives: 5 }),
    score: (ram) => {
      const x = readRam(ram, 77);
      const y = readRam(ram, 76);
      return (x & 0x0f) + 10 * ((x & 0xf0) >> 4) + 100 * (y & 0x0f);
    },
    terminal: (ram, s) => {
      // The lives byte only reaches 5 once the game has started; terminal is "started, then 0 lives".
      const livesByte = readRam(ram, 57);
      if (!s.started && livesByte === 5) s.started = true;
      s.lives = livesByte;
      return s.started && livesByte === 0;
    },
    lives: livesUnlessTerminal,
  }),
};

/** Pong.cpp. Reward: (player score RAM 14) - (CPU score RAM 13), both plain binary; game over at 21. No lives. */
export const PONG: GameSpec = {
  name: "Pong",
  rom: "pong",
  md5: "60e0ea3cbe0913d39803477945e9e5ec",
  minimalActions: [NOOP, FIRE, RIGHT, LEFT, RIGHTFIRE, LEFTFIRE],
  modes: [0, 1],
  difficulties: [0, 1, 2, 3],
  modeSelect: { ramIndex: 0x96, selectFrames: 2 },
  // Video Olympics: paddles in both ports, paddles swapped within each jack (Controller.SwapPaddles "YES").
  console: { leftController: "paddles", rightController: "paddles", swapPaddles: true },
  createSettings: ramGame({
    state: () => ({}),
    score: (ram) => readRam(ram, 14) - readRam(ram, 13),
    terminal: (ram) => readRam(ram, 13) === 21 || readRam(ram, 14) === 21,
  }),
};

/**
 * BeamRider.cpp. Score: BCD RAM 9/10/11. Lives: RAM 0x85 + 1, but a decrease only counts once RAM 0x8C is 1 (the
 * counter blinks during the death animation). Terminal: RAM 5 == 255. Starts each episode with one RIGHT frame.
 */
export const BEAM_RIDER: GameSpec = {
  name: "BeamRider",
  rom: "beam_rider",
  md5: "79ab4123a83dc11d468fb2108ea09e2e",
  minimalActions: [NOOP, FIRE, UP, RIGHT, LEFT, UPRIGHT, UPLEFT, RIGHTFIRE, LEFTFIRE],
  startingActions: [RIGHT],
  difficulties: [0, 1],
  createSettings: ramGame({
    state: startingLives(3),
    score: (ram) => decimalScore(ram, 9, 10, 11),
    terminal: (ram, s) => {
      const newLives = readRam(ram, 0x85) + 1;
      if (newLives === s.lives - 1) {
        if (readRam(ram, 0x8c) === 0x01) s.lives = newLives;
      } else {
        s.lives = newLives;
      }
      // ALE also ORs in `(RAM[5] & 15) < 0`, which can never be true.
      return readRam(ram, 5) === 255;
    },
    lives: livesUnlessTerminal,
  }),
};

/**
 * Alien.cpp. Score digits are RAM bytes 0x8B/89/87/85/83 (units first) holding digit * 8, 0x80 for a blank; the
 * displayed number is that times 10. Lives: low nibble of RAM 0xC0, terminal at 0; lives() is not zeroed on terminal.
 */
export const ALIEN: GameSpec = {
  name: "Alien",
  rom: "alien",
  md5: "f1a0a23e6464d954e3a9579c4ccd01c8",
  minimalActions: ALL_ACTIONS,
  modes: range(4),
  difficulties: [0, 1, 2, 3],
  modeSelect: { ramIndex: 0x81, selectFrames: 1 },
  createSettings: ramGame({
    state: startingLives(3),
    score: (ram) => {
      const digit = (address: number) => {
        const byte = readRam(ram, address);
        return byte === 0x80 ? 0 : byte >> 3;
      };
      const shown = digit(0x8b) + 10 * digit(0x89) + 100 * digit(0x87) + 1000 * digit(0x85) + 10000 * digit(0x83);
      return shown * 10;
    },
    terminal: (ram, s) => {
      s.lives = readRam(ram, 0xc0) & 15;
      return s.lives <= 0;
    },
    lives: livesAsRead,
  }),
};

/** Amidar.cpp. Score: BCD RAM 0xD9/DA/DB. RAM 0xD6: 0x80 once the game is over, lives in its low nibble. */
export const AMIDAR: GameSpec = {
  name: "Amidar",
  rom: "amidar",
  md5: "acb7750b4d0c4bd34969802a7deb2990",
  minimalActions: [NOOP, FIRE, UP, RIGHT, LEFT, DOWN, UPFIRE, RIGHTFIRE, LEFTFIRE, DOWNFIRE],
  difficulties: [0, 3],
  // DefProps sets Controller.Right "NONE"; ALE's Console builds a joystick for anything but "PADDLES", as we do.
  createSettings: ramGame({
    state: startingLives(3),
    score: (ram) => decimalScore(ram, 0xd9, 0xda, 0xdb),
    terminal: (ram, s) => {
      const livesByte = readRam(ram, 0xd6);
      s.lives = livesByte & 0xf;
      return livesByte === 0x80;
    },
    lives: livesUnlessTerminal,
  }),
};

/** Assault.cpp. Score: BCD RAM 0x82/81/80. Lives: RAM 0xE5, terminal at 0. */
export const ASSAULT: GameSpec = {
  name: "Assault",
  rom: "assault",
  md5: "de78b3a064d374390ac0710f95edde92",
  minimalActions: [NOOP, FIRE, UP, RIGHT, LEFT, RIGHTFIRE, LEFTFIRE],
  createSettings: ramGame({
    state: startingLives(4),
    score: (ram) => decimalScore(ram, 0x82, 0x81, 0x80),
    terminal: (ram, s) => {
      s.lives = readRam(ram, 0xe5);
      return s.lives === 0;
    },
    lives: livesUnlessTerminal,
  }),
};

/**
 * Asterix.cpp. Score: BCD RAM 0xE0/DF/DE. Lives: low nibble of RAM 0xD3. Terminal on the last life's final death
 * frame (death counter RAM 0xC7 == 1), before FIRE could restart the game. Starts with one FIRE frame.
 */
export const ASTERIX: GameSpec = {
  name: "Asterix",
  rom: "asterix",
  md5: "89a68746eff7f266bbf08de2483abe55",
  minimalActions: [NOOP, UP, RIGHT, LEFT, DOWN, UPRIGHT, UPLEFT, DOWNRIGHT, DOWNLEFT],
  startingActions: [FIRE],
  createSettings: ramGame({
    state: startingLives(3),
    score: (ram) => decimalScore(ram, 0xe0, 0xdf, 0xde),
    terminal: (ram, s) => {
      s.lives = readRam(ram, 0xd3) & 0xf;
      return readRam(ram, 0xc7) === 0x01 && s.lives === 1;
    },
    lives: livesUnlessTerminal,
  }),
};

/**
 * Asteroids.cpp. Score: BCD RAM 0xBE/BD times 10; a negative change means the 5-digit counter wrapped and is worth
 * +100000. Lives: high nibble of RAM 0xBC. Modes 0-31 and 0x80 ("kids"), selected at RAM 0x80 with 2-frame presses.
 * Its DefProps entry also sets Emulation.HmoveBlanks "NO": no 8-pixel black comb on lines with an HMOVE (the console
 * option `hmoveBlanks`).
 */
export const ASTEROIDS: GameSpec = {
  name: "Asteroids",
  rom: "asteroids",
  md5: "ccbd36746ed4525821a8083b0d6d2c2c",
  minimalActions: [
    NOOP,
    FIRE,
    UP,
    RIGHT,
    LEFT,
    DOWN,
    UPRIGHT,
    UPLEFT,
    UPFIRE,
    RIGHTFIRE,
    LEFTFIRE,
    DOWNFIRE,
    UPRIGHTFIRE,
    UPLEFTFIRE,
  ],
  console: { hmoveBlanks: false },
  modes: [...range(32), 0x80],
  difficulties: [0, 3],
  modeSelect: { ramIndex: 0x80, selectFrames: 2 },
  createSettings: ramGame({
    state: startingLives(4),
    score: (ram) => decimalScore(ram, 0xbe, 0xbd) * 10,
    reward: (change) => (change < 0 ? change + 100000 : change),
    terminal: (ram, s) => {
      s.lives = readRam(ram, 0xbc) >> 4;
      return s.lives === 0;
    },
    lives: livesUnlessTerminal,
  }),
};

/**
 * Atlantis.cpp. Score: BCD RAM 0xA2/A3/A1 (the roll-over increments the lowest digit) times 100. Lives: RAM 0xF1,
 * 0xFF when the game is over; that frame writes garbage to 0xA1, so it earns nothing.
 */
export const ATLANTIS: GameSpec = {
  name: "Atlantis",
  rom: "atlantis",
  md5: "9ad36e699ef6f45d9eb6c4cf90475c9f",
  minimalActions: [NOOP, FIRE, RIGHTFIRE, LEFTFIRE],
  modes: range(4),
  modeSelect: { ramIndex: 0x8d, selectFrames: 2 },
  createSettings: ramGame({
    state: startingLives(6),
    score: (ram) => decimalScore(ram, 0xa2, 0xa3, 0xa1) * 100,
    holdScoreWhenTerminal: true,
    terminal: (ram, s) => {
      s.lives = readRam(ram, 0xf1);
      return s.lives === 0xff;
    },
    lives: livesUnlessTerminal,
  }),
};

/** BankHeist.cpp. Score: BCD RAM 0xDA/D9/D8. Lives: RAM 0xD5; terminal when the death timer RAM 0xCE hits 1 at 0 lives. */
export const BANK_HEIST: GameSpec = {
  name: "BankHeist",
  rom: "bank_heist",
  md5: "00ce0bdd43aed84a983bef38fe7f5ee3",
  minimalActions: ALL_ACTIONS,
  modes: [0, 4, 8, 12, 16, 20, 24, 28],
  difficulties: [0, 1, 2, 3],
  modeSelect: { ramIndex: 0x80, selectFrames: 1 },
  createSettings: ramGame({
    state: startingLives(5),
    score: (ram) => decimalScore(ram, 0xda, 0xd9, 0xd8),
    terminal: (ram, s) => {
      s.lives = readRam(ram, 0xd5);
      return readRam(ram, 0xce) === 0x01 && s.lives === 0x00;
    },
    lives: livesUnlessTerminal,
  }),
};

/**
 * BattleZone.cpp. Score (thousands): high nibble of RAM 0x9D, then both nibbles of RAM 0x9E; a nibble of 10 is a
 * blank 0. Lives: low nibble of RAM 0xBA. Modes 1-3 at RAM 0xA1. DefProps sets Emulation.HmoveBlanks "NO" (see
 * Asteroids).
 */
export const BATTLE_ZONE: GameSpec = {
  name: "BattleZone",
  rom: "battle_zone",
  md5: "41f252a66c6301f1e8ab3612c19bc5d4",
  minimalActions: ALL_ACTIONS,
  console: { hmoveBlanks: false },
  modes: [1, 2, 3],
  modeSelect: { ramIndex: 0xa1, selectFrames: 2 },
  createSettings: ramGame({
    state: startingLives(5),
    score: (ram) => {
      const blankIsZero = (nibble: number) => (nibble === 10 ? 0 : nibble);
      const first = readRam(ram, 0x9d);
      const second = readRam(ram, 0x9e);
      return (blankIsZero(first >> 4) + 10 * blankIsZero(second & 15) + 100 * blankIsZero(second >> 4)) * 1000;
    },
    terminal: (ram, s) => {
      s.lives = readRam(ram, 0xba) & 0xf;
      return s.lives === 0;
    },
    lives: livesUnlessTerminal,
  }),
};

/** Bowling.cpp. Score: BCD RAM 0xA1 (units) and 0xA6 (hundreds). Over once the frame counter RAM 0xA4 passes 0x10. */
export const BOWLING: GameSpec = {
  name: "Bowling",
  rom: "bowling",
  md5: "c9b7afad3bfd922e006a6bfc1d4f3fe7",
  minimalActions: [NOOP, FIRE, UP, DOWN, UPFIRE, DOWNFIRE],
  modes: [0, 2, 4],
  difficulties: [0, 1],
  modeSelect: { ramIndex: 0x82, selectFrames: 2 },
  createSettings: ramGame({
    state: () => ({}),
    score: (ram) => decimalScore(ram, 0xa1, 0xa6),
    terminal: (ram) => readRam(ram, 0xa4) > 0x10,
  }),
};

/** Boxing.cpp: punches landed, BCD RAM 0x92 (player) and 0x93 (CPU), 0xC0 meaning a knock-out (100). */
function boxingPoints(ram: Uint8Array, address: number): number {
  return readRam(ram, address) === 0xc0 ? 100 : decimalScore(ram, address);
}

/** Boxing.cpp. Reward: change of (player points - CPU points). Over at a knock-out or when the clock reaches 0:00. */
export const BOXING: GameSpec = {
  name: "Boxing",
  rom: "boxing",
  md5: "c3ef5c4653212088eda54dc91d787870",
  minimalActions: ALL_ACTIONS,
  difficulties: [0, 1, 2, 3],
  createSettings: ramGame({
    state: () => ({}),
    score: (ram) => boxingPoints(ram, 0x92) - boxingPoints(ram, 0x93),
    terminal: (ram) => {
      if (boxingPoints(ram, 0x92) === 100 || boxingPoints(ram, 0x93) === 100) return true;
      const minutes = readRam(ram, 0x90) >> 4;
      const secondsByte = readRam(ram, 0x91);
      const seconds = (secondsByte & 0xf) + (secondsByte >> 4) * 10;
      return minutes === 0 && seconds === 0;
    },
  }),
};

/**
 * Centipede.cpp. Score: BCD RAM 118/117/116; a negative change (the score is sometimes cleared before the end) is
 * ignored. Lives: bits 4-6 of RAM 0xED plus 1. Terminal: bit 6 of RAM 0xA6. Modes 0x16 and 0x56 at RAM 0xA7.
 */
export const CENTIPEDE: GameSpec = {
  name: "Centipede",
  rom: "centipede",
  md5: "91c2098e88a6b13f977af8c003e0bca5",
  minimalActions: ALL_ACTIONS,
  modes: [0x16, 0x56],
  modeSelect: { ramIndex: 0xa7, selectFrames: 2 },
  createSettings: ramGame({
    state: startingLives(3),
    score: (ram) => decimalScore(ram, 118, 117, 116),
    reward: (change) => Math.max(change, 0),
    terminal: (ram, s) => {
      s.lives = ((readRam(ram, 0xed) >> 4) & 0x7) + 1;
      return (readRam(ram, 0xa6) & 0x40) !== 0;
    },
    lives: livesUnlessTerminal,
  }),
};

/**
 * ChopperCommand.cpp. Score: BCD RAM 0xEE/EC times 100. Lives: low nibble of RAM 0xE4. 0 lives only ends the game
 * once it has started, which RAM 0xC2 bit 0 (the chopper faced right) records; lives() is not zeroed on terminal.
 */
export const CHOPPER_COMMAND: GameSpec = {
  name: "ChopperCommand",
  rom: "chopper_command",
  md5: "c1cb228470a87beb5f36e90ac745da26",
  minimalActions: ALL_ACTIONS,
  modes: [0, 2],
  difficulties: [0, 1],
  modeSelect: { ramIndex: 0xe0, selectFrames: 2 },
  createSettings: ramGame({
    state: () => ({ lives: 3, started: false }),
    score: (ram) => decimalScore(ram, 0xee, 0xec) * 100,
    terminal: (ram, s) => {
      s.lives = readRam(ram, 0xe4) & 0xf;
      s.started ||= (readRam(ram, 0xc2) & 0x1) !== 0;
      return s.started && s.lives === 0;
    },
    lives: livesAsRead,
  }),
};

/** CrazyClimber.cpp. Score: plain decimal digits in RAM 0x82-0x85 (units first) times 100; drops are ignored. Lives: RAM 0xAA. */
export const CRAZY_CLIMBER: GameSpec = {
  name: "CrazyClimber",
  rom: "crazy_climber",
  md5: "55ef7b65066428367844342ed59f956c",
  minimalActions: [NOOP, UP, RIGHT, LEFT, DOWN, UPRIGHT, UPLEFT, DOWNRIGHT, DOWNLEFT],
  modes: range(4),
  difficulties: [0, 1],
  modeSelect: { ramIndex: 0x80, selectFrames: 2 },
  createSettings: ramGame({
    state: startingLives(5),
    score: (ram) =>
      (readRam(ram, 0x82) + 10 * readRam(ram, 0x83) + 100 * readRam(ram, 0x84) + 1000 * readRam(ram, 0x85)) * 100,
    reward: (change) => Math.max(change, 0),
    terminal: (ram, s) => {
      s.lives = readRam(ram, 0xaa);
      return s.lives === 0;
    },
    lives: livesUnlessTerminal,
  }),
};

/** Defender.cpp. Score: six digits in the low nibbles of RAM 0x9C-0xA1 (units first, 0xA blank). Lives: RAM 0xC2. */
export const DEFENDER: GameSpec = {
  name: "Defender",
  rom: "defender",
  md5: "0f643c34e40e3f1daafd9c524d3ffe64",
  minimalActions: ALL_ACTIONS,
  modes: [...range(10).slice(1), 16],
  difficulties: [0, 1],
  modeSelect: { ramIndex: 0x9b, selectFrames: 2 },
  createSettings: ramGame({
    state: startingLives(3),
    score: (ram) => nibbleDigits(ram, 0x9c, 6),
    terminal: (ram, s) => {
      s.lives = readRam(ram, 0xc2);
      return s.lives === 0;
    },
    lives: livesUnlessTerminal,
  }),
};

/**
 * DemonAttack.cpp. Score: BCD RAM 0x85/83/81, except the uninitialised pattern AB/CD/EA reads as 0. Lives: RAM 0xF2
 * (lives shown) + 1; terminal when none are shown and RAM 0xF1 is 0xBD. ALE also masks the terminal test on the first
 * frame after setMode (m_level_change); that frame's flags are overwritten before the reset ends, so it is left out.
 */
export const DEMON_ATTACK: GameSpec = {
  name: "DemonAttack",
  rom: "demon_attack",
  md5: "f0e0addc07971561ab80d9abe1b8d333",
  minimalActions: [NOOP, FIRE, RIGHT, LEFT, RIGHTFIRE, LEFTFIRE],
  modes: [1, 3, 5, 7],
  difficulties: [0, 1],
  modeSelect: { ramIndex: 0xea, selectFrames: 1 },
  createSettings: ramGame({
    state: startingLives(4),
    score: (ram) => {
      const uninitialised = readRam(ram, 0x81) === 0xab && readRam(ram, 0x83) === 0xcd && readRam(ram, 0x85) === 0xea;
      return uninitialised ? 0 : decimalScore(ram, 0x85, 0x83, 0x81);
    },
    terminal: (ram, s) => {
      const livesShown = readRam(ram, 0xf2);
      s.lives = livesShown + 1;
      return livesShown === 0 && readRam(ram, 0xf1) === 0xbd;
    },
    lives: livesUnlessTerminal,
  }),
};

/**
 * Enduro.cpp. Score: cars passed. Day RAM 0xAD (0 before the race); BCD RAM 0xAB/AC counts the cars still to pass
 * (200 on day 1, 300 after), each finished day counting in full. Terminal: RAM 0xAF == 0xFF. Starts with one FIRE frame.
 */
export const ENDURO: GameSpec = {
  name: "Enduro",
  rom: "enduro",
  md5: "94b92a882f6dbaa6993a46e2dcc58402",
  minimalActions: [NOOP, FIRE, RIGHT, LEFT, DOWN, DOWNRIGHT, DOWNLEFT, RIGHTFIRE, LEFTFIRE],
  startingActions: [FIRE],
  createSettings: ramGame({
    state: () => ({}),
    score: (ram) => {
      const level = readRam(ram, 0xad);
      if (level === 0) return 0;
      const toPass = decimalScore(ram, 0xab, 0xac);
      const passedToday = (level === 1 ? 200 : 300) - toPass;
      const earlierDays = level >= 2 ? 200 + (level - 2) * 300 : 0;
      return earlierDays + passedToday;
    },
    terminal: (ram) => readRam(ram, 0xaf) === 0xff,
  }),
};

/** FishingDerby.cpp. Reward: change of (BCD RAM 0xBD - BCD RAM 0xBE); over when either reaches 99. */
export const FISHING_DERBY: GameSpec = {
  name: "FishingDerby",
  rom: "fishing_derby",
  md5: "b8865f05676e64f3bec72b9defdacfa7",
  minimalActions: ALL_ACTIONS,
  difficulties: [0, 1, 2, 3],
  createSettings: ramGame({
    state: () => ({}),
    score: (ram) => decimalScore(ram, 0xbd) - decimalScore(ram, 0xbe),
    terminal: (ram) => readRam(ram, 0xbd) === 0x99 || readRam(ram, 0xbe) === 0x99,
  }),
};

/** Freeway.cpp. Score: BCD RAM 103, the reward clipped to [0, 1]. Terminal: RAM 22 == 1 (the timer ran out). */
export const FREEWAY: GameSpec = {
  name: "Freeway",
  rom: "freeway",
  md5: "8e0ab801b1705a740b476b7f588c6d16",
  minimalActions: [NOOP, UP, DOWN],
  modes: range(8),
  difficulties: [0, 1],
  modeSelect: { ramIndex: 0x80, selectFrames: 1 },
  createSettings: ramGame({
    state: () => ({}),
    score: (ram) => decimalScore(ram, 103),
    reward: (change) => Math.min(Math.max(change, 0), 1),
    terminal: (ram) => readRam(ram, 22) === 1,
  }),
};

/** Frostbite.cpp. Score: BCD RAM 0xCA/C9/C8. Lives: low nibble of RAM 0xCC + 1; terminal at 0 with RAM 0xF1 bit 7 set. */
export const FROSTBITE: GameSpec = {
  name: "Frostbite",
  rom: "frostbite",
  md5: "4ca73eb959299471788f0b685c3ba0b5",
  minimalActions: ALL_ACTIONS,
  modes: [0, 2],
  modeSelect: { ramIndex: 0x80, selectFrames: 1 },
  createSettings: ramGame({
    state: startingLives(4),
    score: (ram) => decimalScore(ram, 0xca, 0xc9, 0xc8),
    terminal: (ram, s) => {
      const livesByte = readRam(ram, 0xcc) & 0xf;
      s.lives = livesByte + 1;
      return livesByte === 0 && (readRam(ram, 0xf1) & 0x80) !== 0;
    },
    lives: livesUnlessTerminal,
  }),
};

/**
 * Gravitar.cpp. Score: BCD RAM 9/8/7. Screen RAM 0x81: 1 = game over, 0 = start screen (6 lives); else lives are
 * RAM 0x84 + 1. Modes 0-4 at RAM 0x80 with 10-frame presses. Starts with 16 FIRE frames.
 */
export const GRAVITAR: GameSpec = {
  name: "Gravitar",
  rom: "gravitar",
  md5: "8ac18076d01a6b63acf6e2cab4968940",
  minimalActions: ALL_ACTIONS,
  startingActions: Array<number>(16).fill(FIRE),
  modes: range(5),
  modeSelect: { ramIndex: 0x80, selectFrames: 10 },
  createSettings: ramGame({
    state: startingLives(6),
    score: (ram) => decimalScore(ram, 9, 8, 7),
    terminal: (ram, s) => {
      const screen = readRam(ram, 0x81);
      s.lives = screen === 0x0 ? 6 : readRam(ram, 0x84) + 1;
      return screen === 0x01;
    },
    lives: livesUnlessTerminal,
  }),
};

/** Hero.cpp. Score: BCD RAM 0xB9/B8/B7. Lives: RAM 0xB3, terminal at 0. Modes 0-4 at RAM 0x80. */
export const HERO: GameSpec = {
  name: "Hero",
  rom: "hero",
  md5: "fca4a5be1251927027f2c24774a02160",
  minimalActions: ALL_ACTIONS,
  modes: range(5),
  modeSelect: { ramIndex: 0x80, selectFrames: 1 },
  createSettings: ramGame({
    state: startingLives(4),
    score: (ram) => decimalScore(ram, 0xb9, 0xb8, 0xb7),
    terminal: (ram, s) => {
      s.lives = readRam(ram, 0xb3);
      return s.lives === 0;
    },
    lives: livesUnlessTerminal,
  }),
};

/** IceHockey.cpp. Reward: change of (BCD RAM 0x8A - BCD RAM 0x8B), capped at +1. Over when the clock RAM 0x87:0x86 is 0. */
export const ICE_HOCKEY: GameSpec = {
  name: "IceHockey",
  rom: "ice_hockey",
  md5: "a4c08c4994eb9d24fb78be1793e82e26",
  minimalActions: ALL_ACTIONS,
  modes: [0, 2],
  difficulties: [0, 1, 2, 3],
  modeSelect: { ramIndex: 0x80, selectFrames: 2 },
  createSettings: ramGame({
    state: () => ({}),
    score: (ram) => decimalScore(ram, 0x8a) - decimalScore(ram, 0x8b),
    reward: (change) => Math.min(change, 1),
    terminal: (ram) => readRam(ram, 0x87) === 0 && readRam(ram, 0x86) === 0,
  }),
};

/** Krull.cpp. Score: BCD RAM 0x9E/9D/9C. Lives: RAM 0x9F; over at 0 with RAM 0xA2 == 3 and RAM 0x80 == 0x80. */
export const KRULL: GameSpec = {
  name: "Krull",
  rom: "krull",
  md5: "4baada22435320d185c95b7dd2bcdb24",
  minimalActions: ALL_ACTIONS,
  createSettings: ramGame({
    state: startingLives(3),
    score: (ram) => decimalScore(ram, 0x9e, 0x9d, 0x9c),
    terminal: (ram, s) => {
      const livesByte = readRam(ram, 0x9f);
      s.lives = (livesByte & 0x7) + 1;
      return livesByte === 0 && readRam(ram, 0xa2) === 0x03 && readRam(ram, 0x80) === 0x80;
    },
    lives: livesUnlessTerminal,
  }),
};

/** KungFuMaster.cpp. Score: BCD RAM 0x9A/99/98. Lives: RAM 0x9D (bits 0-2) + 1; 0xFF when the game is over. */
export const KUNG_FU_MASTER: GameSpec = {
  name: "KungFuMaster",
  rom: "kung_fu_master",
  md5: "5b92a93b23523ff16e2789b820e2a4c5",
  minimalActions: [
    NOOP,
    UP,
    RIGHT,
    LEFT,
    DOWN,
    DOWNRIGHT,
    DOWNLEFT,
    RIGHTFIRE,
    LEFTFIRE,
    DOWNFIRE,
    UPRIGHTFIRE,
    UPLEFTFIRE,
    DOWNRIGHTFIRE,
    DOWNLEFTFIRE,
  ],
  createSettings: ramGame({
    state: startingLives(4),
    score: (ram) => decimalScore(ram, 0x9a, 0x99, 0x98),
    terminal: (ram, s) => {
      const livesByte = readRam(ram, 0x9d);
      s.lives = (livesByte & 0x7) + 1;
      return livesByte === 0xff;
    },
    lives: livesUnlessTerminal,
  }),
};

/** MontezumaRevenge.cpp. Score: BCD RAM 0x95/94/93. Lives: RAM 0xBA (bits 0-2) + 1; over at 0 with RAM 0xFE == 0x60. */
export const MONTEZUMA_REVENGE: GameSpec = {
  name: "MontezumaRevenge",
  rom: "montezuma_revenge",
  md5: "3347a6dd59049b15a38394aa2dafa585",
  minimalActions: ALL_ACTIONS,
  createSettings: ramGame({
    state: startingLives(6),
    score: (ram) => decimalScore(ram, 0x95, 0x94, 0x93),
    terminal: (ram, s) => {
      const livesByte = readRam(ram, 0xba);
      s.lives = (livesByte & 0x7) + 1;
      return livesByte === 0 && readRam(ram, 0xfe) === 0x60;
    },
    lives: livesUnlessTerminal,
  }),
};

/** NameThisGame.cpp. Score: BCD RAM 0xC6/C5/C4. Lives: RAM 0xC7 bits 0-2, terminal at 0. Modes 0x08/18/28 at RAM 0xDE. */
export const NAME_THIS_GAME: GameSpec = {
  name: "NameThisGame",
  rom: "name_this_game",
  md5: "36306070f0c90a72461551a7a4f3a209",
  minimalActions: [NOOP, FIRE, RIGHT, LEFT, RIGHTFIRE, LEFTFIRE],
  modes: [0x08, 0x18, 0x28],
  difficulties: [0, 1],
  modeSelect: { ramIndex: 0xde, selectFrames: 2 },
  createSettings: ramGame({
    state: startingLives(3),
    score: (ram) => decimalScore(ram, 0xc6, 0xc5, 0xc4),
    terminal: (ram, s) => {
      s.lives = readRam(ram, 0xc7) & 0x7;
      return s.lives === 0;
    },
    lives: livesUnlessTerminal,
  }),
};

/** Phoenix.cpp. Score: BCD RAM 0xC8/C9, then the high nibble of RAM 0xC7, then a 0. Terminal: RAM 0xCC == 0x80. Lives: RAM 0xCB bits 0-2. */
export const PHOENIX: GameSpec = {
  name: "Phoenix",
  rom: "phoenix",
  md5: "7e52a95074a66640fcfde124fffd491a",
  minimalActions: [NOOP, FIRE, RIGHT, LEFT, DOWN, RIGHTFIRE, LEFTFIRE, DOWNFIRE],
  createSettings: ramGame({
    state: startingLives(5),
    score: (ram) => (decimalScore(ram, 0xc8, 0xc9) * 10 + (readRam(ram, 0xc7) >> 4)) * 10,
    terminal: (ram, s) => {
      s.lives = readRam(ram, 0xcb) & 0x7;
      return readRam(ram, 0xcc) === 0x80;
    },
    lives: livesUnlessTerminal,
  }),
};

/**
 * Pitfall.cpp. The game starts with 2000 points, so that is the score at reset. Score: BCD RAM 0xD7/D6/D5. Lives:
 * high nibble of RAM 0x80 (0xA = 3, 0x8 = 2, else 1); over at 0 once the logo timer RAM 0x9E runs. Starts with UP.
 */
export const PITFALL: GameSpec = {
  name: "Pitfall",
  rom: "pitfall",
  md5: "3e90cf23106f2e08b2781e41299de556",
  minimalActions: ALL_ACTIONS,
  startingActions: [UP],
  createSettings: ramGame({
    state: startingLives(3),
    initialScore: 2000,
    score: (ram) => decimalScore(ram, 0xd7, 0xd6, 0xd5),
    terminal: (ram, s) => {
      const livesByte = readRam(ram, 0x80) >> 4;
      s.lives = livesByte === 0xa ? 3 : livesByte === 0x8 ? 2 : 1;
      return livesByte === 0 && readRam(ram, 0x9e) !== 0;
    },
    lives: livesUnlessTerminal,
  }),
};

/** PrivateEye.cpp. Starts with 1000 points. Score: BCD RAM 0xCA/C9/C8. Over unless the timer RAM 0xC2 is 0 or 1. Starts with UP. */
export const PRIVATE_EYE: GameSpec = {
  name: "PrivateEye",
  rom: "private_eye",
  md5: "ef3a4f64b6494ba770862768caf04b86",
  minimalActions: ALL_ACTIONS,
  startingActions: [UP],
  modes: range(5),
  difficulties: [0, 1, 2, 3],
  modeSelect: { ramIndex: 0x80, selectFrames: 2 },
  createSettings: ramGame({
    state: () => ({}),
    initialScore: 1000,
    score: (ram) => decimalScore(ram, 0xca, 0xc9, 0xc8),
    terminal: (ram) => {
      const copyrightTimer = readRam(ram, 0xc2);
      return copyrightTimer !== 0x00 && copyrightTimer !== 0x01;
    },
  }),
};

/**
 * QBert.cpp. Lives byte RAM 0x88 counts 2, 1, 0 down to 0xFE (game over); dying and restarting within one frame shows
 * as 2 right after -1. lives() counts the decrements of the byte read as a signed char (as on x86, where the published
 * results ran). Score: BCD RAM 0xDB/DA/D9, not read on the terminal frame. Screen starts at scanline 40.
 */
export const QBERT: GameSpec = {
  name: "Qbert",
  rom: "qbert",
  md5: "484b0076816a104875e00467d431c2d2",
  minimalActions: [NOOP, FIRE, UP, RIGHT, LEFT, DOWN],
  difficulties: [0, 1],
  console: { yStart: 40 },
  createSettings: ramGame({
    state: () => ({ lives: 4, lastLives: 2 }),
    score: (ram) => decimalScore(ram, 0xdb, 0xda, 0xd9),
    holdScoreWhenTerminal: true,
    terminal: (ram, s) => {
      const livesValue = readRam(ram, 0x88);
      const terminal = livesValue === 0xfe || (livesValue === 0x02 && s.lastLives === -1);
      const signedLives = livesValue >= 0x80 ? livesValue - 0x100 : livesValue;
      if (s.lastLives - 1 === signedLives) s.lives--;
      s.lastLives = signedLives;
      return terminal;
    },
    lives: livesUnlessTerminal,
  }),
};

/** Riverraid.cpp: a score digit is stored as digit * 8; any other byte reads as 0 (its std::map default). */
function riverraidDigit(ram: Uint8Array, address: number): number {
  const byte = readRam(ram, address);
  return byte % 8 === 0 && byte <= 72 ? byte / 8 : 0;
}

/**
 * RiverRaid.cpp. Score: six digits at RAM 87, 85, 83, 81, 79, 77 (units first). Lives byte RAM 0xC0: 0x58 at the
 * start (4 lives), 0x59 on the last life, else byte / 8 + 1; the game ends when it goes from 0x59 to 0x58.
 */
export const RIVERRAID: GameSpec = {
  name: "Riverraid",
  rom: "riverraid",
  md5: "393948436d1f4cc3192410bb918f9724",
  minimalActions: ALL_ACTIONS,
  difficulties: [0, 1],
  createSettings: ramGame({
    state: () => ({ livesByte: 0x58 }),
    score: (ram) =>
      [87, 85, 83, 81, 79, 77].reduceRight((score, address) => 10 * score + riverraidDigit(ram, address), 0),
    terminal: (ram, s) => {
      const byte = readRam(ram, 0xc0);
      const terminal = byte === 0x58 && s.livesByte === 0x59;
      s.livesByte = byte;
      return terminal;
    },
    lives: (s, terminal) => {
      if (terminal) return 0;
      if (s.livesByte === 0x58) return 4;
      return s.livesByte === 0x59 ? 1 : Math.floor(s.livesByte / 8) + 1;
    },
  }),
};

/**
 * RoadRunner.cpp. Score: four digits in the low nibbles of RAM 0xC9-0xCC (units first, 0xA blank) times 100. Lives:
 * RAM 0xC4 bits 0-2 + 1; over at 0 while the death animation moves (RAM 0xB9 or 0xBD nonzero). No DefProps entry.
 */
export const ROAD_RUNNER: GameSpec = {
  name: "RoadRunner",
  rom: "road_runner",
  md5: "ce5cc62608be2cd3ed8abd844efb8919",
  minimalActions: ALL_ACTIONS,
  createSettings: ramGame({
    state: startingLives(3),
    score: (ram) => nibbleDigits(ram, 0xc9, 4) * 100,
    terminal: (ram, s) => {
      const livesByte = readRam(ram, 0xc4) & 0x7;
      s.lives = livesByte + 1;
      return livesByte === 0 && (readRam(ram, 0xb9) !== 0 || readRam(ram, 0xbd) !== 0);
    },
    lives: livesUnlessTerminal,
  }),
};

/** RoboTank.cpp. Score: enemies killed, 12 per squadron (RAM 0xB6) plus tanks (RAM 0xB5). Lives: RAM 0xA8 low nibble + 1. */
export const ROBOTANK: GameSpec = {
  name: "Robotank",
  rom: "robotank",
  md5: "4f618c2429138e0280969193ed6c107e",
  minimalActions: ALL_ACTIONS,
  createSettings: ramGame({
    state: startingLives(4),
    score: (ram) => readRam(ram, 0xb6) * 12 + readRam(ram, 0xb5),
    terminal: (ram, s) => {
      const livesByte = readRam(ram, 0xa8);
      s.lives = (livesByte & 0xf) + 1;
      return livesByte === 0 && readRam(ram, 0xb4) === 0xff;
    },
    lives: livesUnlessTerminal,
  }),
};

/** Seaquest.cpp. Score: BCD RAM 0xBA/B9/B8. Terminal: RAM 0xA3 nonzero. Lives: RAM 0xBB + 1. */
export const SEAQUEST: GameSpec = {
  name: "Seaquest",
  rom: "seaquest",
  md5: "240bfbac5163af4df5ae713985386f92",
  minimalActions: ALL_ACTIONS,
  difficulties: [0, 1],
  createSettings: ramGame({
    state: startingLives(4),
    score: (ram) => decimalScore(ram, 0xba, 0xb9, 0xb8),
    terminal: (ram, s) => {
      s.lives = readRam(ram, 0xbb) + 1;
      return readRam(ram, 0xa3) !== 0;
    },
    lives: livesUnlessTerminal,
  }),
};

/**
 * Skiing.cpp. The "score" is the clock, RAM 0xE8 minutes and BCD RAM 0xEA/E9 centiseconds, and the reward is minus
 * its change: every frame costs time. Over when RAM 0x91 is 0xFF. Starts with 16 DOWN frames. isLegal rejects the
 * nine FIRE actions (on the cartridge FIRE restarts the run): ale-py 0.12's legal set (full_action_space) has the
 * other 9, and a FIRE action passed to act() is played as NOOP.
 */
export const SKIING: GameSpec = {
  name: "Skiing",
  rom: "skiing",
  md5: "b76fbadc8ffb1f83e2ca08b6fb4d6c9f",
  minimalActions: [NOOP, RIGHT, LEFT],
  startingActions: Array<number>(16).fill(DOWN),
  illegalActions: [FIRE, UPFIRE, RIGHTFIRE, LEFTFIRE, DOWNFIRE, UPRIGHTFIRE, UPLEFTFIRE, DOWNRIGHTFIRE, DOWNLEFTFIRE],
  createSettings: ramGame({
    state: () => ({}),
    score: (ram) => readRam(ram, 0xe8) * 6000 + decimalScore(ram, 0xea, 0xe9),
    reward: (change) => -change,
    terminal: (ram) => readRam(ram, 0x91) === 0xff,
  }),
};

/** Solaris.cpp. Score: BCD RAM 0xDC/DD/DE times 10. Lives: RAM 0xD9 low nibble; terminal when the byte is 0. */
export const SOLARIS: GameSpec = {
  name: "Solaris",
  rom: "solaris",
  md5: "e72eb8d4410152bdcb69e7fba327b420",
  minimalActions: ALL_ACTIONS,
  createSettings: ramGame({
    state: startingLives(3),
    score: (ram) => decimalScore(ram, 0xdc, 0xdd, 0xde) * 10,
    terminal: (ram, s) => {
      const livesByte = readRam(ram, 0xd9);
      s.lives = livesByte & 0xf;
      return livesByte === 0;
    },
    lives: livesUnlessTerminal,
  }),
};

/**
 * SpaceInvaders.cpp. Score: BCD RAM 0xE8 (units) and 0xE6 (hundreds); a negative change is the 4-digit counter
 * wrapping past 10000. Lives: RAM 0xC9; terminal at 0 lives or with RAM 0x98 bit 7. Modes 0-15 at RAM 0xDC.
 */
export const SPACE_INVADERS: GameSpec = {
  name: "SpaceInvaders",
  rom: "space_invaders",
  md5: "72ffbef6504b75e69ee1045af9075f66",
  minimalActions: [NOOP, FIRE, RIGHT, LEFT, RIGHTFIRE, LEFTFIRE],
  modes: range(16),
  difficulties: [0, 1],
  modeSelect: { ramIndex: 0xdc, selectFrames: 2 },
  createSettings: ramGame({
    state: startingLives(3),
    score: (ram) => decimalScore(ram, 0xe8, 0xe6),
    reward: (change) => (change < 0 ? change + 10000 : change),
    terminal: (ram, s) => {
      s.lives = readRam(ram, 0xc9);
      return (readRam(ram, 0x98) & 0x80) !== 0 || s.lives === 0;
    },
    lives: livesUnlessTerminal,
  }),
};

/**
 * StarGunner.cpp. Score: four digits in the low nibbles of RAM 0x83-0x86 (units first, 10 blank) times 100. Lives:
 * RAM 0x87 low nibble, terminal when the byte is 0; reported as 5 until it first reads 5 (it starts at 6).
 */
export const STAR_GUNNER: GameSpec = {
  name: "StarGunner",
  rom: "star_gunner",
  md5: "a3c1c70024d7aabb41381adbfb6d3b25",
  minimalActions: ALL_ACTIONS,
  modes: range(4),
  modeSelect: { ramIndex: 0xf4, selectFrames: 15 },
  createSettings: ramGame({
    state: () => ({ lives: 5, started: false }),
    score: (ram) => nibbleDigits(ram, 0x83, 4) * 100,
    terminal: (ram, s) => {
      const livesByte = readRam(ram, 0x87);
      s.started ||= livesByte === 0x05;
      s.lives = s.started ? livesByte & 0xf : 5;
      return livesByte === 0;
    },
    lives: livesUnlessTerminal,
  }),
};

/**
 * Tennis.cpp. No score counter: a won or lost game (RAM 0xC7 player, 0xC8 CPU) is worth +-1, else a won or lost
 * point (RAM 0xC5, 0xC6) is. A set ends at 6 games with a 2-game lead, or at 7.
 */
class TennisSettings implements GameSettings {
  reward = 0;
  terminal = false;
  private prevGameLead = 0;
  private prevPointLead = 0;

  reset(): void {
    this.reward = 0;
    this.terminal = false;
    this.prevGameLead = 0;
    this.prevPointLead = 0;
  }

  step(ram: Uint8Array): void {
    const myGames = readRam(ram, 0xc7);
    const cpuGames = readRam(ram, 0xc8);
    const gameLead = myGames - cpuGames;
    const pointLead = readRam(ram, 0xc5) - readRam(ram, 0xc6);
    if (gameLead !== this.prevGameLead) this.reward = gameLead - this.prevGameLead;
    else if (pointLead !== this.prevPointLead) this.reward = pointLead - this.prevPointLead;
    else this.reward = 0;
    this.prevGameLead = gameLead;
    this.prevPointLead = pointLead;
    this.terminal =
      (myGames >= 6 && gameLead >= 2) || (cpuGames >= 6 && -gameLead >= 2) || myGames === 7 || cpuGames === 7;
  }

  lives(): number {
    return 0;
  }
}

export const TENNIS: GameSpec = {
  name: "Tennis",
  rom: "tennis",
  md5: "42cdd6a9e42a3639e190722b8ea3fc51",
  minimalActions: ALL_ACTIONS,
  modes: [0, 2],
  difficulties: [0, 1, 2, 3],
  modeSelect: { ramIndex: 0x80, selectFrames: 2 },
  createSettings: () => new TennisSettings(),
};

/**
 * TimePilot.cpp. Score: BCD RAM 0x8D (units) and 0x8F (hundreds) times 100. Terminal: RAM 0xA0 nonzero. Lives: RAM
 * 0x8B bits 0-2 + 1, only read while flying (RAM 0x80 low nibble == 2).
 */
export const TIME_PILOT: GameSpec = {
  name: "TimePilot",
  rom: "time_pilot",
  md5: "fc2104dd2dadf9a6176c1c1c8f87ced9",
  minimalActions: [NOOP, FIRE, UP, RIGHT, LEFT, DOWN, UPFIRE, RIGHTFIRE, LEFTFIRE, DOWNFIRE],
  difficulties: [0, 1, 2],
  createSettings: ramGame({
    state: startingLives(5),
    score: (ram) => decimalScore(ram, 0x8d, 0x8f) * 100,
    terminal: (ram, s) => {
      if ((readRam(ram, 0x80) & 0xf) === 2) s.lives = (readRam(ram, 0x8b) & 0x7) + 1;
      return readRam(ram, 0xa0) !== 0;
    },
    lives: livesUnlessTerminal,
  }),
};

/** Tutankham.cpp. Score: BCD RAM 0x9C (units) and 0x9A (hundreds). Lives: RAM 0x9E bits 0-1; over at 0 unless RAM 0x81 is 0x84 (power-on). */
export const TUTANKHAM: GameSpec = {
  name: "Tutankham",
  rom: "tutankham",
  md5: "085322bae40d904f53bdcc56df0593fc",
  minimalActions: [NOOP, UP, RIGHT, LEFT, DOWN, UPFIRE, RIGHTFIRE, LEFTFIRE],
  modes: [0, 4, 8, 12],
  modeSelect: { ramIndex: 0xab, selectFrames: 2 },
  createSettings: ramGame({
    state: startingLives(3),
    score: (ram) => decimalScore(ram, 0x9c, 0x9a),
    terminal: (ram, s) => {
      const livesByte = readRam(ram, 0x9e);
      s.lives = livesByte & 0x3;
      return livesByte === 0 && readRam(ram, 0x81) !== 0x84;
    },
    lives: livesUnlessTerminal,
  }),
};

/** UpNDown.cpp. Score: BCD RAM 0x82/81/80. Lives: RAM 0x86 low nibble + 1; over at 0 once the death timer RAM 0x94 passes 0x40. Starts with FIRE; screen starts at scanline 30. */
export const UP_N_DOWN: GameSpec = {
  name: "UpNDown",
  rom: "up_n_down",
  md5: "a499d720e7ee35c62424de882a3351b6",
  minimalActions: [NOOP, FIRE, UP, DOWN, UPFIRE, DOWNFIRE],
  startingActions: [FIRE],
  difficulties: [0, 1, 2, 3],
  console: { yStart: 30 },
  createSettings: ramGame({
    state: startingLives(5),
    score: (ram) => decimalScore(ram, 0x82, 0x81, 0x80),
    terminal: (ram, s) => {
      const livesByte = readRam(ram, 0x86) & 0xf;
      s.lives = livesByte + 1;
      return readRam(ram, 0x94) > 0x40 && livesByte === 0;
    },
    lives: livesUnlessTerminal,
  }),
};

/** Venture.cpp. Score: BCD RAM 0xC8/C7 times 100. Lives: RAM 0xC6 bits 0-2 + 1; over at 0 with RAM 0xCD == 0xFF and RAM 0xBF bit 7. */
export const VENTURE: GameSpec = {
  name: "Venture",
  rom: "venture",
  md5: "3e899eba0ca8cd2972da1ae5479b4f0d",
  minimalActions: ALL_ACTIONS,
  difficulties: [0, 1, 2, 3],
  createSettings: ramGame({
    state: startingLives(4),
    score: (ram) => decimalScore(ram, 0xc8, 0xc7) * 100,
    terminal: (ram, s) => {
      const livesByte = readRam(ram, 0xc6);
      s.lives = (livesByte & 0x7) + 1;
      return livesByte === 0 && readRam(ram, 0xcd) === 0xff && (readRam(ram, 0xbf) & 0x80) !== 0;
    },
    lives: livesUnlessTerminal,
  }),
};

/** VideoPinball.cpp. Score: BCD RAM 0xB0/B2/B4. Terminal: RAM 0xAF bit 0. Lives: 4 + extra ball (RAM 0xA8 bit 0) - ball number (RAM 0x99 bits 0-2). */
export const VIDEO_PINBALL: GameSpec = {
  name: "VideoPinball",
  rom: "video_pinball",
  md5: "107cc025334211e6d29da0b6be46aec7",
  minimalActions: [NOOP, FIRE, UP, RIGHT, LEFT, DOWN, UPFIRE, RIGHTFIRE, LEFTFIRE],
  modes: [0, 2],
  difficulties: [0, 1],
  modeSelect: { ramIndex: 0xc1, selectFrames: 2 },
  createSettings: ramGame({
    state: startingLives(3),
    score: (ram) => decimalScore(ram, 0xb0, 0xb2, 0xb4),
    terminal: (ram, s) => {
      s.lives = 4 + (readRam(ram, 0xa8) & 0x1) - (readRam(ram, 0x99) & 0x7);
      return (readRam(ram, 0xaf) & 0x1) !== 0;
    },
    lives: livesUnlessTerminal,
  }),
};

/** Zaxxon.cpp. Score: BCD RAM 0xE9/E8 times 100. Lives: RAM 0xEA bits 0-2, terminal at 0. Modes 0/8/16/24 at RAM 0x82, 10-frame presses. */
export const ZAXXON: GameSpec = {
  name: "Zaxxon",
  rom: "zaxxon",
  md5: "eea0da9b987d661264cce69a7c13c3bd",
  minimalActions: ALL_ACTIONS,
  modes: [0, 8, 16, 24],
  modeSelect: { ramIndex: 0x82, selectFrames: 10 },
  createSettings: ramGame({
    state: startingLives(5),
    score: (ram) => decimalScore(ram, 0xe9, 0xe8) * 100,
    terminal: (ram, s) => {
      s.lives = readRam(ram, 0xea) & 0x7;
      return s.lives === 0;
    },
    lives: livesUnlessTerminal,
  }),
};

/**
 * Berzerk.cpp. Score: BCD RAM 95/94/93. Lives: RAM 0xDA + 1; over when it reads 0xFF. Modes 1-9 and 0x10-0x12
 * (Atari-decimal 1-12) at RAM 0x80; setMode first lets the game settle for 20 NOOP agent frames.
 */
export const BERZERK: GameSpec = {
  name: "Berzerk",
  rom: "berzerk",
  md5: "136f75c4dd02c29283752b7e5799f978",
  minimalActions: ALL_ACTIONS,
  modes: [...range(9).map((i) => i + 1), 0x10, 0x11, 0x12],
  selectMode: (ctl, mode) => {
    for (let i = 0; i < 20; i++) ctl.act(NOOP);
    pressSelectUntil(ctl, 2, () => ctl.readRam(0x80) === mode, `Berzerk mode ${mode}`);
    ctl.softReset();
  },
  createSettings: ramGame({
    state: startingLives(3),
    score: (ram) => decimalScore(ram, 95, 94, 93),
    terminal: (ram, s) => {
      const livesByte = readRam(ram, 0xda);
      s.lives = livesByte + 1;
      return livesByte === 0xff;
    },
    lives: livesUnlessTerminal,
  }),
};

/**
 * DoubleDunk's option menu: the cursor row is RAM 0xB0, the options are bits of RAM 0x80. Bits 0-3 of `mode` switch
 * four options. Multi-Agent ALE (`twoPlayerOption`) also sets the first row's two-player option (0x40) from bit 4 and
 * ends with the soft reset; single-player ALE then plays one UPFIRE and one NOOP frame.
 */
export function doubleDunkMenu(ctl: ModeControl, mode: number, twoPlayerOption = false): void {
  // Each menu move is one agent frame of the joystick direction and one NOOP frame, repeated until RAM shows it.
  const stepUntil = (action: number, reached: () => boolean, what: string) => {
    for (let tries = 0; !reached(); tries++) {
      if (tries >= 256) throw new Error(`DoubleDunk menu: ${what} not reached`);
      ctl.act(action);
      ctl.act(NOOP);
    }
  };
  const goDown = () => {
    const row = ctl.readRam(0xb0);
    stepUntil(DOWN, () => ctl.readRam(0xb0) !== row, "next option");
  };
  const setOption = (bit: number, on: boolean) =>
    on
      ? stepUntil(RIGHT, () => (ctl.readRam(0x80) & bit) === bit, `option ${bit} on`)
      : stepUntil(LEFT, () => (ctl.readRam(0x80) & bit) !== bit, `option ${bit} off`);
  ctl.pressSelect(1);
  if (twoPlayerOption) setOption(0x40, (mode & 16) !== 0);
  goDown();
  goDown(); // the first two rows are not part of the mode
  setOption(0x08, (mode & 1) !== 0); // 3-point shots
  goDown();
  setOption(0x10, (mode & 2) !== 0); // 10-second shot clock
  goDown();
  setOption(0x04, (mode & 4) !== 0); // 3 seconds in the lane
  goDown();
  setOption(0x20, (mode & 8) !== 0); // fouls
  ctl.softReset();
  if (twoPlayerOption) return;
  ctl.act(UPFIRE);
  ctl.act(NOOP);
}

/**
 * DoubleDunk.cpp. Reward: change of (player BCD RAM 0xF6) - (CPU BCD RAM 0xF7). Over once either has 24 and RAM
 * 0xFE is 0xE7. No lives. The 16 modes are the on/off combinations of four menu options. Starts with UPFIRE.
 */
export const DOUBLE_DUNK: GameSpec = {
  name: "DoubleDunk",
  rom: "double_dunk",
  md5: "368d88a6c071caba60b4f778615aae94",
  minimalActions: ALL_ACTIONS,
  startingActions: [UPFIRE],
  modes: range(16),
  selectMode: (ctl, mode) => doubleDunkMenu(ctl, mode),
  createSettings: ramGame({
    state: () => ({}),
    score: (ram) => decimalScore(ram, 0xf6) - decimalScore(ram, 0xf7),
    terminal: (ram) => {
      const mine = decimalScore(ram, 0xf6);
      const theirs = decimalScore(ram, 0xf7);
      return (mine >= 24 || theirs >= 24) && readRam(ram, 0xfe) === 0xe7;
    },
  }),
};

/** Gopher.cpp. Score: BCD RAM 0xB2/B1/B0. Lives: carrots left, the popcount of RAM 0xB4 bits 0-2; over at none. Starts with FIRE. */
export const GOPHER: GameSpec = {
  name: "Gopher",
  rom: "gopher",
  md5: "c16c79aad6272baffb8aae9a7fff0864",
  minimalActions: [NOOP, FIRE, UP, RIGHT, LEFT, UPFIRE, RIGHTFIRE, LEFTFIRE],
  startingActions: [FIRE],
  modes: [0, 2],
  difficulties: [0, 1],
  // setMode soft-resets once more before its SELECT loop (5-frame presses, RAM 0xD3).
  selectMode: (ctl, mode) => {
    ctl.softReset();
    pressSelectUntil(ctl, 5, () => ctl.readRam(0xd3) === mode, `Gopher mode ${mode}`);
    ctl.softReset();
  },
  createSettings: ramGame({
    state: startingLives(3),
    score: (ram) => decimalScore(ram, 0xb2, 0xb1, 0xb0),
    terminal: (ram, s) => {
      const carrots = readRam(ram, 0xb4) & 0x7;
      s.lives = (carrots & 1) + ((carrots >> 1) & 1) + ((carrots >> 2) & 1);
      return carrots === 0;
    },
    lives: livesUnlessTerminal,
  }),
};

/**
 * JamesBond.cpp. Score: BCD RAM 0xDC/DD/DE. Lives: RAM 0x86 low nibble + 1 (6 at reset); over at 0 when the screen
 * byte RAM 0x8C is 0x68. Modes 0/1 at RAM 0x8C, which the title screen shows as mode + 0x48; 20-frame presses.
 */
export const JAMESBOND: GameSpec = {
  name: "Jamesbond",
  rom: "jamesbond",
  md5: "e51030251e440cffaab1ac63438b44ae",
  minimalActions: ALL_ACTIONS,
  modes: [0, 1],
  selectMode: (ctl, mode) => {
    pressSelectUntil(
      ctl,
      20,
      () => ctl.readRam(0x8c) === mode || ctl.readRam(0x8c) === mode + 0x48,
      `Jamesbond mode ${mode}`,
    );
    ctl.softReset();
  },
  createSettings: ramGame({
    state: startingLives(6),
    score: (ram) => decimalScore(ram, 0xdc, 0xdd, 0xde),
    terminal: (ram, s) => {
      const livesByte = readRam(ram, 0x86) & 0xf;
      s.lives = livesByte + 1;
      return livesByte === 0 && readRam(ram, 0x8c) === 0x68;
    },
    lives: livesUnlessTerminal,
  }),
};

/**
 * Kangaroo.cpp. Score: BCD RAM 0xA8/A7 times 100. Lives: RAM 0xAD bits 0-2 + 1; over when it reads 0xFF. Modes 0/1
 * at RAM 0xBA, which the title screen shows as mode + 0x80; 2-frame presses.
 */
export const KANGAROO: GameSpec = {
  name: "Kangaroo",
  rom: "kangaroo",
  md5: "4326edb70ff20d0ee5ba58fa5cb09d60",
  minimalActions: ALL_ACTIONS,
  modes: [0, 1],
  selectMode: (ctl, mode) => {
    pressSelectUntil(
      ctl,
      2,
      () => ctl.readRam(0xba) === mode || ctl.readRam(0xba) === mode + 0x80,
      `Kangaroo mode ${mode}`,
    );
    ctl.softReset();
  },
  createSettings: ramGame({
    state: startingLives(3),
    score: (ram) => decimalScore(ram, 0xa8, 0xa7) * 100,
    terminal: (ram, s) => {
      const livesByte = readRam(ram, 0xad);
      s.lives = (livesByte & 0x7) + 1;
      return livesByte === 0xff;
    },
    lives: livesUnlessTerminal,
  }),
};

/**
 * MsPacman.cpp. Score: BCD RAM 0xF8/F9/FA. Lives: RAM 0xFB bits 0-2 + 1; over at 0 lives when the death timer RAM
 * 0xA7 is 0x53. The mode is two bytes, game RAM 0x99 and variation RAM 0xA1: mode 0 is game 1 variation 1, mode m
 * game m variation 0; 10-frame presses.
 */
export const MS_PACMAN: GameSpec = {
  name: "MsPacman",
  rom: "ms_pacman",
  md5: "87e79cd41ce136fd4f72cc6e2c161bee",
  minimalActions: [NOOP, UP, RIGHT, LEFT, DOWN, UPRIGHT, UPLEFT, DOWNRIGHT, DOWNLEFT],
  // No HMOVE comb in ALE's screens: its property entry turns Emulation.HmoveBlanks off (with blanks on, the first 8
  // pixels of every HMOVE line would differ from ale-py's screens).
  console: { hmoveBlanks: false },
  modes: range(4),
  selectMode: (ctl, mode) => {
    const [game, variation] = mode === 0 ? [1, 1] : [mode, 0];
    pressSelectUntil(
      ctl,
      10,
      () => ctl.readRam(0x99) === game && ctl.readRam(0xa1) === variation,
      `MsPacman mode ${mode}`,
    );
    ctl.softReset();
  },
  createSettings: ramGame({
    state: startingLives(3),
    score: (ram) => decimalScore(ram, 0xf8, 0xf9, 0xfa),
    terminal: (ram, s) => {
      const livesByte = readRam(ram, 0xfb) & 0xf;
      s.lives = (livesByte & 0x7) + 1;
      return livesByte === 0 && readRam(ram, 0xa7) === 0x53;
    },
    lives: livesUnlessTerminal,
  }),
};

/**
 * Surround.cpp. Reward: change of (player BCD RAM 0xF7) - (CPU BCD RAM 0xF6); over when either reaches 10. Modes 0/2
 * (the one-player games) at RAM 0xF9 holding mode + 1; 2-frame presses. Its property entry sets Console.SwapPorts,
 * so player A's joystick is in the right port. ale-py 0.12.1 reports 1 life while the game runs (its recordings
 * show it, though Surround.cpp has no lives counter and other games without one report 0).
 */
export const SURROUND: GameSpec = {
  name: "Surround",
  rom: "surround",
  md5: "4d7517ae69f95cfbc053be01312b7dba",
  minimalActions: [NOOP, UP, RIGHT, LEFT, DOWN],
  modes: [0, 2],
  difficulties: [0, 1, 2, 3],
  modeSelect: { ramIndex: 0xf9, selectFrames: 2, ramValue: (mode) => mode + 1 },
  console: { swapPorts: true },
  createSettings: ramGame({
    state: () => ({}),
    score: (ram) => decimalScore(ram, 0xf7) - decimalScore(ram, 0xf6),
    terminal: (ram) => decimalScore(ram, 0xf6) === 10 || decimalScore(ram, 0xf7) === 10,
    lives: (_s, terminal) => (terminal ? 0 : 1),
  }),
};

/**
 * WizardOfWor.cpp. Score: BCD RAM 0x86/88 (minus 8000 when the display wraps) times 100. Over at 0 lives with RAM
 * 0xF4 == 0xF8. Lives: RAM 0x8D low nibble, only taken while waiting to enter the maze (RAM 0xD7 bit 0 clear), as
 * the counter drops on entering it. Its property entry sets Console.SwapPorts: player A's joystick is in the right port.
 */
export const WIZARD_OF_WOR: GameSpec = {
  name: "WizardOfWor",
  rom: "wizard_of_wor",
  md5: "7e8aa18bc9502eb57daaf5e7c1e94da7",
  minimalActions: [NOOP, FIRE, UP, RIGHT, LEFT, DOWN, UPFIRE, RIGHTFIRE, LEFTFIRE, DOWNFIRE],
  difficulties: [0, 1],
  console: { swapPorts: true },
  createSettings: ramGame({
    state: startingLives(3),
    score: (ram) => {
      const shown = decimalScore(ram, 0x86, 0x88);
      return (shown >= 8000 ? shown - 8000 : shown) * 100;
    },
    terminal: (ram, s) => {
      const newLives = readRam(ram, 0x8d) & 15;
      if ((readRam(ram, 0xd7) & 0x1) === 0) s.lives = newLives;
      return newLives === 0 && readRam(ram, 0xf4) === 0xf8;
    },
    lives: livesUnlessTerminal,
  }),
};

/**
 * YarsRevenge.cpp. Score: BCD RAM 0xE2/E1/E0. Lives: high nibble of RAM 0x9E, over at 0. Modes 0/0x20/0x40/0x60 at
 * RAM 0xE3; setMode first enters the selection screen with one 2-frame SELECT press. Starts with FIRE.
 */
export const YARS_REVENGE: GameSpec = {
  name: "YarsRevenge",
  rom: "yars_revenge",
  md5: "c5930d0e8cdae3e037349bfa08e871be",
  minimalActions: ALL_ACTIONS,
  startingActions: [FIRE],
  modes: [0, 0x20, 0x40, 0x60],
  difficulties: [0, 1],
  selectMode: (ctl, mode) => {
    ctl.pressSelect(2);
    pressSelectUntil(ctl, 1, () => ctl.readRam(0xe3) === mode, `YarsRevenge mode ${mode}`);
    ctl.softReset();
  },
  createSettings: ramGame({
    state: startingLives(4),
    score: (ram) => decimalScore(ram, 0xe2, 0xe1, 0xe0),
    terminal: (ram, s) => {
      s.lives = readRam(ram, 0x9e) >> 4;
      return s.lives === 0;
    },
    lives: livesUnlessTerminal,
  }),
};

/** Every supported game by ALE ROM id. */
export const GAMES: ReadonlyMap<string, GameSpec> = new Map(
  [
    BREAKOUT,
    PONG,
    BEAM_RIDER,
    ALIEN,
    AMIDAR,
    ASSAULT,
    ASTERIX,
    ASTEROIDS,
    ATLANTIS,
    BANK_HEIST,
    BATTLE_ZONE,
    BOWLING,
    BOXING,
    CENTIPEDE,
    CHOPPER_COMMAND,
    CRAZY_CLIMBER,
    DEFENDER,
    DEMON_ATTACK,
    ENDURO,
    FISHING_DERBY,
    FREEWAY,
    FROSTBITE,
    GRAVITAR,
    HERO,
    ICE_HOCKEY,
    KRULL,
    KUNG_FU_MASTER,
    MONTEZUMA_REVENGE,
    NAME_THIS_GAME,
    PHOENIX,
    PITFALL,
    PRIVATE_EYE,
    QBERT,
    RIVERRAID,
    ROAD_RUNNER,
    ROBOTANK,
    SEAQUEST,
    SKIING,
    SOLARIS,
    SPACE_INVADERS,
    STAR_GUNNER,
    TENNIS,
    TIME_PILOT,
    TUTANKHAM,
    UP_N_DOWN,
    VENTURE,
    VIDEO_PINBALL,
    ZAXXON,
    BERZERK,
    DOUBLE_DUNK,
    GOPHER,
    JAMESBOND,
    KANGAROO,
    MS_PACMAN,
    SURROUND,
    WIZARD_OF_WOR,
    YARS_REVENGE,
  ].map((g) => [g.rom, g]),
);

/** Finds a game by ROM id (`beam_rider`) or ale-py name (`BeamRider`), case-insensitively. */
export function findGame(game: string): GameSpec | undefined {
  const key = game.toLowerCase();
  for (const spec of GAMES.values()) if (spec.rom === key || spec.name.toLowerCase() === key) return spec;
  return undefined;
}
