// Multi-Agent ALE's game settings (Farama's multi-agent-ale-py 0.1.11, what PettingZoo's Atari envs drive): the same
// cartridges as games.ts, with the mode numbering, mode lists per player count and per-player reward, lives and
// terminal rules that Multi-Agent ALE's `src/games/supported/<Game>.cpp` read from RAM. Facts from the PettingZoo
// notes (sections 2.5 and 2.7), measured against a Multi-Agent ALE build there.
//
// A MultiAgentGameSpec is a GameSpec (so ALEInterface runs its reset and mode selection unchanged) plus
// `playerModes`; ALEInterface switches to Multi-Agent ALE's behaviour when it sees one (see interface.ts).

import { BOXING, ICE_HOCKEY, PONG, SURROUND, TENNIS, decimalScore, readRam, type GameSettings, type GameSpec } from "./games.ts";

/** Per-frame state of a multi-player game: one reward and one lives count per player slot. */
export interface MultiPlayerSettings extends GameSettings {
  /** The last frame's reward of players A, B, C, D (getReward, getRewardP2, getRewardP3, getRewardP4). */
  readonly rewards: Int32Array;
  /**
   * Lives of A-D; -1 = that player is out, 0 = the game has no lives counter. Every game here has none (Multi-Agent
   * ALE's default), so no `step` writes it and the entries stay 0; a game with a lives counter would update it there.
   */
  readonly allLives: Int32Array;
}

export interface MultiAgentGameSpec extends GameSpec {
  /** getAvailableModes(num_players) for 1, 2 and 4 players (disjoint lists). */
  playerModes: { readonly 1: readonly number[]; readonly 2: readonly number[]; readonly 4: readonly number[] };
  /** The mode ALE's loadROM resets in: the first 1-player mode, else the first 2-player, else the first 4-player. */
  defaultMode: number;
  /** numPlayersActive() in `mode`: which list holds it. */
  playersForMode(mode: number): number;
  /** Fresh settings for a game in a `players`-player mode. */
  createPlayerSettings(players: number): MultiPlayerSettings;
}

/** Builds a MultiAgentGameSpec over a single-player spec: same ROM, console and action set, Multi-Agent modes/rules. */
function multiAgentGame(
  base: GameSpec,
  playerModes: MultiAgentGameSpec["playerModes"],
  overrides: Partial<GameSpec>,
  createPlayerSettings: (players: number) => MultiPlayerSettings,
): MultiAgentGameSpec {
  const modes = [...playerModes[1], ...playerModes[2], ...playerModes[4]];
  return {
    ...base,
    ...overrides,
    modes,
    difficulties: base.difficulties ?? [0],
    playerModes,
    defaultMode: modes[0],
    playersForMode: (mode) => (playerModes[1].includes(mode) ? 1 : playerModes[2].includes(mode) ? 2 : 4),
    createPlayerSettings,
    createSettings: () => createPlayerSettings(2),
  };
}

/**
 * A game whose players share one score difference: player A's reward is its change, B's the negative; C and D (the
 * team mates of 4-player modes) get A's and B's. `penalty` may then adjust a frame's rewards (serve timers).
 */
abstract class ZeroSumSettings implements MultiPlayerSettings {
  readonly rewards = new Int32Array(4);
  readonly allLives = new Int32Array(4);
  terminal = false;
  private previous = 0;

  get reward(): number {
    return this.rewards[0];
  }

  reset(): void {
    this.rewards.fill(0);
    this.terminal = false;
    this.previous = 0;
    this.resetExtra();
  }

  step(ram: Uint8Array): void {
    const score = this.score(ram);
    const change = score - this.previous;
    this.previous = score;
    const r = this.rewards;
    r[0] = change;
    r[1] = -change;
    this.penalty(ram, r);
    r[2] = r[0];
    r[3] = r[1];
    this.terminal = this.isTerminal(ram);
  }

  lives(): number {
    return 0;
  }

  protected abstract score(ram: Uint8Array): number;
  protected abstract isTerminal(ram: Uint8Array): boolean;
  protected resetExtra(): void {}
  protected penalty(_ram: Uint8Array, _rewards: Int32Array): void {}
}

/** Frames a pong server may hold the ball before being penalised (Multi-Agent ALE's Pong.cpp). */
const PONG_SERVE_FRAMES = 120;

/**
 * Pong.cpp (Multi-Agent): score = RAM 0x8E (player A's side) - RAM 0x8D. A serve timer counts the frames in which
 * the ball is not moving (high nibble of RAM 0x8C is 0); at 120 the server (RAM 0x92 = 0: player B, else A) gets -1
 * and the count restarts. Over when either score is 21.
 */
class PongSettings extends ZeroSumSettings {
  private serveFrames = 0;
  protected score(ram: Uint8Array): number {
    return readRam(ram, 0x8e) - readRam(ram, 0x8d);
  }
  protected isTerminal(ram: Uint8Array): boolean {
    return readRam(ram, 0x8d) === 21 || readRam(ram, 0x8e) === 21;
  }
  protected override resetExtra(): void {
    this.serveFrames = 0;
  }
  protected override penalty(ram: Uint8Array, r: Int32Array): void {
    if (readRam(ram, 0x8c) >> 4 === 0) this.serveFrames++;
    else this.serveFrames = 0;
    if (this.serveFrames >= PONG_SERVE_FRAMES) {
      if (readRam(ram, 0x92) === 0) r[1] -= 1;
      else r[0] -= 1;
      this.serveFrames = 0;
    }
  }
}

/** Surround.cpp (Multi-Agent): score = BCD RAM 0xF7 - BCD RAM 0xF6; over when either reaches 10. */
class SurroundSettings extends ZeroSumSettings {
  protected score(ram: Uint8Array): number {
    return decimalScore(ram, 0xf7) - decimalScore(ram, 0xf6);
  }
  protected isTerminal(ram: Uint8Array): boolean {
    return decimalScore(ram, 0xf6) === 10 || decimalScore(ram, 0xf7) === 10;
  }
}

/** Boxing.cpp (Multi-Agent): punches landed, BCD RAM 0x92 (A) and 0x93 (B), 0xC0 a knock-out (100). */
function boxingPoints(ram: Uint8Array, address: number): number {
  return readRam(ram, address) === 0xc0 ? 100 : decimalScore(ram, address);
}

/** Boxing: score = A's points - B's; over at a knock-out or when the clock (RAM 0x90 minutes, BCD 0x91 seconds) is 0:00. */
class BoxingSettings extends ZeroSumSettings {
  protected score(ram: Uint8Array): number {
    return boxingPoints(ram, 0x92) - boxingPoints(ram, 0x93);
  }
  protected isTerminal(ram: Uint8Array): boolean {
    if (boxingPoints(ram, 0x92) === 100 || boxingPoints(ram, 0x93) === 100) return true;
    return readRam(ram, 0x90) >> 4 === 0 && decimalScore(ram, 0x91) === 0;
  }
}

/** IceHockey.cpp (Multi-Agent): score = BCD RAM 0x8A - BCD RAM 0x8B (uncapped); over when the clock RAM 0x87:0x86 is 0. */
class IceHockeySettings extends ZeroSumSettings {
  protected score(ram: Uint8Array): number {
    return decimalScore(ram, 0x8a) - decimalScore(ram, 0x8b);
  }
  protected isTerminal(ram: Uint8Array): boolean {
    return readRam(ram, 0x87) === 0 && readRam(ram, 0x86) === 0;
  }
}

/** Tennis.cpp's max_turn_time default (60 * 3 frames): a server stalling this long is penalised in 2-player modes. */
const TENNIS_MAX_TURN_FRAMES = 180;

/**
 * Tennis.cpp (Multi-Agent). Games g = RAM 0xC7 - 0xC8, points p = RAM 0xC5 - 0xC6: a change of g is A's reward (and
 * the next turn), else a change of p, else 0; B gets the negative. In 2-player modes a stall counter, cleared on any
 * frame with RAM 0xCC = 0, penalises the server at 180 frames instead (even turn: A -1, odd: B -1). A set ends at 6
 * games with a 2-game lead, or at 7.
 */
class TennisSettings implements MultiPlayerSettings {
  readonly rewards = new Int32Array(4);
  readonly allLives = new Int32Array(4);
  terminal = false;
  private prevGameLead = 0;
  private prevPointLead = 0;
  private turn = 0;
  private stall = 0;

  constructor(private readonly players: number) {}

  get reward(): number {
    return this.rewards[0];
  }

  reset(): void {
    this.rewards.fill(0);
    this.terminal = false;
    this.prevGameLead = this.prevPointLead = this.turn = this.stall = 0;
  }

  step(ram: Uint8Array): void {
    const aGames = readRam(ram, 0xc7);
    const bGames = readRam(ram, 0xc8);
    const gameLead = aGames - bGames;
    const pointLead = readRam(ram, 0xc5) - readRam(ram, 0xc6);
    let a = 0;
    if (gameLead !== this.prevGameLead) {
      a = gameLead - this.prevGameLead;
      this.turn++;
    } else if (pointLead !== this.prevPointLead) {
      a = pointLead - this.prevPointLead;
    }
    this.prevGameLead = gameLead;
    this.prevPointLead = pointLead;
    let b = -a;
    if (this.players === 2) {
      if (readRam(ram, 0xcc) === 0) this.stall = 0;
      this.stall++;
      if (this.stall >= TENNIS_MAX_TURN_FRAMES) {
        [a, b] = this.turn % 2 === 0 ? [-1, 0] : [0, -1];
        this.stall = 0;
      }
    }
    const r = this.rewards;
    r[0] = r[2] = a;
    r[1] = r[3] = b;
    this.terminal = (aGames >= 6 && gameLead >= 2) || (bGames >= 6 && gameLead <= -2) || aGames === 7 || bGames === 7;
  }

  lives(): number {
    return 0;
  }
}

const span = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Video Olympics: Multi-Agent mode m is RAM 0x96 = m - 1 (upstream ALE's mode m is RAM m). */
export const PONG_MA: MultiAgentGameSpec = multiAgentGame(
  PONG,
  {
    1: [1, 2],
    2: [3, 4, 9, 10, 13, 14, 19, 20, ...span(23, 28), 35, 36, 39, 40, ...span(43, 46)],
    4: [...span(5, 8), 11, 12, ...span(15, 18), 21, 22, ...span(29, 34), 37, 38, 41, 42, ...span(47, 50)],
  },
  { modeSelect: { ramIndex: 0x96, selectFrames: 2, ramValue: (m) => m - 1 } },
  () => new PongSettings(),
);

/** Surround: Multi-Agent mode m is RAM 0xF9 = m - 1 (upstream stores its mode + 1). */
export const SURROUND_MA: MultiAgentGameSpec = multiAgentGame(
  SURROUND,
  { 1: [2, 4], 2: span(1, 12).filter((m) => m !== 2 && m !== 3 && m !== 4), 4: [] },
  { modeSelect: { ramIndex: 0xf9, selectFrames: 2, ramValue: (m) => m - 1 } },
  () => new SurroundSettings(),
);

/** Tennis: Multi-Agent mode m is RAM 0x80 = m - 1. */
export const TENNIS_MA: MultiAgentGameSpec = multiAgentGame(
  TENNIS,
  { 1: [1, 3], 2: [2, 4], 4: [] },
  { modeSelect: { ramIndex: 0x80, selectFrames: 2, ramValue: (m) => m - 1 } },
  (players) => new TennisSettings(players),
);

/** Boxing: mode m is RAM 0x92 = m, 1-frame SELECT presses. Checked to construct and play only (no recorded run). */
export const BOXING_MA: MultiAgentGameSpec = multiAgentGame(
  BOXING,
  { 1: [1], 2: [2], 4: [] },
  { modeSelect: { ramIndex: 0x92, selectFrames: 1 } },
  () => new BoxingSettings(),
);

/** Ice Hockey: mode m is RAM 0x80 = m, 2-frame presses. Checked to construct and play only (no recorded run). */
export const ICE_HOCKEY_MA: MultiAgentGameSpec = multiAgentGame(
  ICE_HOCKEY,
  { 1: [0, 2], 2: [1, 3], 4: [] },
  { modeSelect: { ramIndex: 0x80, selectFrames: 2 } },
  () => new IceHockeySettings(),
);

/** The Multi-Agent ALE games implemented here, by ROM id. */
export const MULTI_AGENT_GAMES: ReadonlyMap<string, MultiAgentGameSpec> = new Map(
  [PONG_MA, SURROUND_MA, TENNIS_MA, BOXING_MA, ICE_HOCKEY_MA].map((g) => [g.rom, g]),
);
