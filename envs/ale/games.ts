// Per-game settings: what ALE's `src/games/supported/<Game>.cpp` says about each cartridge, as data plus a small
// per-frame function that reads RAM.
//
// ALE calls `step(system)` after every emulated frame (including the frames of the reset procedure); it computes
// the reward as the change of a score read from RAM, the terminal flag and the lives counter. RAM indices below are
// ALE's `readRam` offsets: index i is address $80 + i (ALE masks the address with 0x7F, so 0xB2 and 0x32 are the
// same byte). Console properties (paddles, screen window) come from ALE's Stella property database (DefProps.hxx).

import { Action, type ConsoleOptions } from "./emulator.ts";

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
  /** Frames SELECT is held per press (`pressSelect(num_steps)`). */
  selectFrames: number;
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
  /** getAvailableModes (default [0]); the first one is the default mode. */
  modes?: readonly number[];
  /** getAvailableDifficulties (default [0]). */
  difficulties?: readonly number[];
  /** Present when the game overrides RomSettings::setMode with SELECT presses. */
  modeSelect?: ModeSelect;
  /** Console properties from Stella's database for this cartridge. */
  console?: ConsoleOptions;
  /** Frames per agent step in ale-py's legacy Deterministic ids (4, SpaceInvaders 3); sets NoFrameskip-v4's limit. */
  legacyFrameskip?: number;
  createSettings(): GameSettings;
}

/** RomUtils' getDecimalScore over 1-3 BCD bytes, least significant first (index -1 = absent). */
export function decimalScore(ram: Uint8Array, lower: number, middle = -1, higher = -1): number {
  const bcd = (v: number) => 10 * (v >> 4) + (v & 15);
  let score = bcd(ram[lower & 0x7f]);
  if (middle >= 0) score += 100 * bcd(ram[middle & 0x7f]);
  if (higher >= 0) score += 10000 * bcd(ram[higher & 0x7f]);
  return score;
}

/** A settings object from three small functions: the common shape of most RomSettings classes. */
class ScoreSettings<State extends object> implements GameSettings {
  reward = 0;
  terminal = false;
  private score = 0;
  private state: State;

  constructor(
    private readonly initialState: () => State,
    private readonly readScore: (ram: Uint8Array) => number,
    private readonly update: (ram: Uint8Array, state: State) => boolean,
    private readonly readLives: (state: State, terminal: boolean) => number,
  ) {
    this.state = initialState();
  }

  reset(): void {
    this.reward = 0;
    this.score = 0;
    this.terminal = false;
    this.state = this.initialState();
  }

  step(ram: Uint8Array): void {
    const score = this.readScore(ram);
    this.reward = score - this.score;
    this.score = score;
    this.terminal = this.update(ram, this.state);
  }

  lives(): number {
    return this.readLives(this.state, this.terminal);
  }
}

const { NOOP, FIRE, UP, RIGHT, LEFT, UPRIGHT, UPLEFT, RIGHTFIRE, LEFTFIRE } = Action;

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
  legacyFrameskip: 4,
  createSettings: () =>
    new ScoreSettings(
      () => ({ started: false, lives: 5 }),
      (ram) => {
        const x = ram[77];
        const y = ram[76];
        return (x & 0x0f) + 10 * ((x & 0xf0) >> 4) + 100 * (y & 0x0f);
      },
      (ram, s) => {
        // The lives byte only reaches 5 once the game has started; terminal is "started, then 0 lives".
        const livesByte = ram[57];
        if (!s.started && livesByte === 5) s.started = true;
        s.lives = livesByte;
        return s.started && livesByte === 0;
      },
      (s, terminal) => (terminal ? 0 : s.lives),
    ),
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
  legacyFrameskip: 4,
  createSettings: () =>
    new ScoreSettings(
      () => ({}),
      (ram) => ram[14] - ram[13],
      (ram) => ram[13] === 21 || ram[14] === 21,
      () => 0,
    ),
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
  legacyFrameskip: 4,
  createSettings: () =>
    new ScoreSettings(
      () => ({ lives: 3 }),
      (ram) => decimalScore(ram, 9, 10, 11),
      (ram, s) => {
        const newLives = ram[0x85 & 0x7f] + 1;
        if (newLives === s.lives - 1) {
          if (ram[0x8c & 0x7f] === 0x01) s.lives = newLives;
        } else {
          s.lives = newLives;
        }
        // ALE also ORs in `(RAM[5] & 15) < 0`, which can never be true.
        return ram[5] === 255;
      },
      (s, terminal) => (terminal ? 0 : s.lives),
    ),
};

/** Every supported game by ALE ROM id. */
export const GAMES: ReadonlyMap<string, GameSpec> = new Map([BREAKOUT, PONG, BEAM_RIDER].map((g) => [g.rom, g]));

/** Finds a game by ROM id (`beam_rider`) or ale-py name (`BeamRider`), case-insensitively. */
export function findGame(game: string): GameSpec | undefined {
  const key = game.toLowerCase();
  for (const spec of GAMES.values()) if (spec.rom === key || spec.name.toLowerCase() === key) return spec;
  return undefined;
}
