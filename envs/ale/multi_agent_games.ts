// Multi-Agent ALE's game settings (Farama's multi-agent-ale-py 0.1.11, what PettingZoo's Atari envs drive): the
// cartridges PettingZoo uses, with the mode numbering, mode lists per player count and per-player reward, lives and
// terminal rules that Multi-Agent ALE's `src/games/supported/<Game>.cpp` read from RAM, and the starting actions and
// mode-selection procedures its reset runs. Each is checked frame by frame against recorded Multi-Agent ALE runs
// (tests/multi_agent_ale_fidelity.test.ts).
//
// A MultiAgentGameSpec is a GameSpec (so ALEInterface runs its reset and mode selection unchanged) plus
// `playerModes`; ALEInterface switches to Multi-Agent ALE's behaviour when it sees one (see interface.ts).
//
// Several games keep flags their setMode sets (two-player scoring, cooperative Entombed, reversed checkers); here
// they come from the mode the settings are created for. Multi-Agent ALE also steps its settings through the reset
// that loadROM runs in the ROM's default mode, with the flags of that mode; every reset starts with RomSettings::
// reset, and the flags only change what the settings report during reset frames, which nobody reads.

import { Action } from "./controls.ts";
import {
  BOXING,
  DOUBLE_DUNK,
  ICE_HOCKEY,
  PONG,
  SPACE_INVADERS,
  SURROUND,
  TENNIS,
  WIZARD_OF_WOR,
  bcd,
  decimalScore,
  doubleDunkMenu,
  pressSelectUntil,
  readRam,
  type GameSettings,
  type GameSpec,
  type ModeControl,
} from "./games.ts";

/** Per-frame state of a multi-player game: one reward and one lives count per player slot. */
export interface MultiPlayerSettings extends GameSettings {
  /** The last frame's reward of players A, B, C, D (getReward, getRewardP2, getRewardP3, getRewardP4). */
  readonly rewards: Int32Array;
  /**
   * Lives of A-D as allLives() reports them: -1 = that player is out (PettingZoo removes its agent), 0 for a game
   * without a lives counter (RomSettings' default).
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
  /** Fresh settings for a game in `mode` (a `players`-player mode). */
  createPlayerSettings(players: number, mode: number): MultiPlayerSettings;
}

/** Builds a MultiAgentGameSpec over a game spec: its ROM, console and action set, Multi-Agent modes and rules. */
function multiAgentGame(
  base: GameSpec,
  playerModes: MultiAgentGameSpec["playerModes"],
  overrides: Partial<GameSpec>,
  createPlayerSettings: (players: number, mode: number) => MultiPlayerSettings,
): MultiAgentGameSpec {
  const modes = [...playerModes[1], ...playerModes[2], ...playerModes[4]];
  return {
    ...base,
    ...overrides,
    modes,
    difficulties: overrides.difficulties ?? base.difficulties ?? [0],
    playerModes,
    defaultMode: modes[0],
    playersForMode: (mode) => (playerModes[1].includes(mode) ? 1 : playerModes[2].includes(mode) ? 2 : 4),
    createPlayerSettings,
    createSettings: () => createPlayerSettings(2, modes[0]),
  };
}

/** A cartridge only PettingZoo's envs use here: no single-player settings (`createSettings` is replaced). */
function cartridge(
  rom: string,
  md5: string,
  minimalActions: readonly number[],
  extra: Partial<GameSpec> = {},
): GameSpec {
  const name = rom.replace(/(^|_)(\w)/g, (_, _u: string, c: string) => c.toUpperCase());
  return {
    name,
    rom,
    md5,
    minimalActions,
    ...extra,
    createSettings: () => {
      throw new Error(`${name}: only Multi-Agent ALE's settings exist`);
    },
  };
}

/** The settings every game shares: per-player rewards and lives, the terminal flag. */
abstract class PlayerSettings implements MultiPlayerSettings {
  readonly rewards = new Int32Array(4);
  readonly allLives = new Int32Array(4);
  terminal = false;

  get reward(): number {
    return this.rewards[0];
  }

  lives(): number {
    return this.allLives[0];
  }

  reset(): void {
    this.rewards.fill(0);
    this.allLives.fill(0);
    this.terminal = false;
    this.resetGame();
  }

  abstract step(ram: Uint8Array): void;
  protected abstract resetGame(): void;
}

/**
 * A game whose players share one score difference: player A's reward is its change, B's the negative; C and D (the
 * team mates of 4-player modes) get A's and B's. `penalty` may then adjust a frame's rewards (serve timers).
 */
abstract class ZeroSumSettings extends PlayerSettings {
  private previous = 0;

  protected resetGame(): void {
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

  protected abstract score(ram: Uint8Array): number;
  protected abstract isTerminal(ram: Uint8Array): boolean;
  protected resetExtra(): void {}
  protected penalty(_ram: Uint8Array, _rewards: Int32Array): void {}
}

/**
 * A game where each player's reward is the change of its own score (Joust, Mario Bros, Space Invaders, Wizard of
 * Wor, Flag Capture); `update` reads the scores, lives and terminal flag of the frame.
 */
abstract class OwnScoreSettings extends PlayerSettings {
  protected readonly scores = new Int32Array(2);
  private readonly previous = new Int32Array(2);

  constructor(protected readonly twoPlayers: boolean) {
    super();
  }

  protected resetGame(): void {
    this.previous.fill(0);
    this.scores.fill(0);
    this.resetLives(this.allLives);
  }

  step(ram: Uint8Array): void {
    this.terminal = this.update(ram, this.scores, this.allLives);
    for (let k = 0; k < 2; k++) {
      this.rewards[k] = this.change(this.scores[k] - this.previous[k], this.previous[k], this.scores[k]);
      this.previous[k] = this.scores[k];
    }
  }

  /** RomSettings::reset's lives. */
  protected abstract resetLives(lives: Int32Array): void;
  /** Writes this frame's scores (and lives, kept in `lives` when unchanged); returns the terminal flag. */
  protected abstract update(ram: Uint8Array, scores: Int32Array, lives: Int32Array): boolean;
  /** A frame's reward from its score change (Space Invaders turns a wrapped counter around). */
  protected change(difference: number, _previous: number, _score: number): number {
    return difference;
  }
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
class TennisSettings extends PlayerSettings {
  private prevGameLead = 0;
  private prevPointLead = 0;
  private turn = 0;
  private stall = 0;

  constructor(private readonly players: number) {
    super();
  }

  protected resetGame(): void {
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
}

/** SpaceInvaders.cpp counts its 4-digit scores modulo this: a drop is the counter wrapping. */
const SPACE_INVADERS_SCORE_WRAP = 10000;

/**
 * SpaceInvaders.cpp (Multi-Agent): A's score BCD RAM 0xE8 (units) / 0xE6 (hundreds), B's 0xE9 / 0xE7, each rewarded
 * to its owner. The lives both players report are RAM 0xC9 - 1 (starting at 2); over at -1 or with RAM 0x98 bit 7.
 */
class SpaceInvadersSettings extends OwnScoreSettings {
  protected resetLives(lives: Int32Array): void {
    lives[0] = lives[1] = 2;
  }
  protected update(ram: Uint8Array, scores: Int32Array, lives: Int32Array): boolean {
    scores[0] = decimalScore(ram, 0xe8, 0xe6);
    scores[1] = decimalScore(ram, 0xe9, 0xe7);
    lives[0] = lives[1] = readRam(ram, 0xc9) - 1;
    return (readRam(ram, 0x98) & 0x80) !== 0 || lives[0] === -1;
  }
  protected override change(difference: number, previous: number, score: number): number {
    return difference < 0 ? SPACE_INVADERS_SCORE_WRAP - previous + score : difference;
  }
}

/**
 * Warlords.cpp (4 players): RAM 0xEE bits 7, 6, 5, 4 are players A, B, C, D knocked out; lives 0 alive, -1 out, and
 * -1 reward on the frame a player goes out. Over when at most one is left, who then gets +1.
 */
class WarlordsSettings extends PlayerSettings {
  protected resetGame(): void {}
  step(ram: Uint8Array): void {
    const out = readRam(ram, 0xee);
    let alive = 4;
    for (let k = 0; k < 4; k++) {
      const lives = out & (0x80 >> k) ? -1 : 0;
      alive += lives;
      this.rewards[k] = lives < this.allLives[k] ? -1 : 0;
      this.allLives[k] = lives;
    }
    this.terminal = alive <= 1;
    if (this.terminal) for (let k = 0; k < 4; k++) if (this.allLives[k] === 0) this.rewards[k] = 1;
  }
}

/** RAM as a signed byte (Joust's lives counters go to -1). */
const signedRam = (ram: Uint8Array, address: number) => (readRam(ram, address) << 24) >> 24;

/**
 * Joust.cpp (Multi-Agent): scores BCD RAM 0x87/0x85/0x83 (A) and 0x88/0x86/0x84 (B); lives RAM 0x81 / 0x82 as
 * signed bytes (starting at 5). Two players: over at 990000 points or when both are at -1; one player: A alone.
 */
class JoustSettings extends OwnScoreSettings {
  protected resetLives(lives: Int32Array): void {
    lives[0] = lives[1] = 5;
  }
  protected update(ram: Uint8Array, scores: Int32Array, lives: Int32Array): boolean {
    scores[0] = decimalScore(ram, 0x87, 0x85, 0x83);
    scores[1] = decimalScore(ram, 0x88, 0x86, 0x84);
    lives[0] = signedRam(ram, 0x81);
    lives[1] = signedRam(ram, 0x82);
    if (!this.twoPlayers) return scores[0] >= 990000 || lives[0] === -1;
    return scores[0] >= 990000 || scores[1] >= 990000 || (lives[0] === -1 && lives[1] === -1);
  }
}

/**
 * MarioBros.cpp (Multi-Agent): scores 100 x BCD RAM 0x8A/0x89 (A) and 0x8C/0x8B (B); lives RAM 0x87 - 1 and
 * 0x88 - 1 (starting at 5). Over when A is at -1 (two players: both).
 */
class MarioBrosSettings extends OwnScoreSettings {
  protected resetLives(lives: Int32Array): void {
    lives[0] = lives[1] = 5;
  }
  protected update(ram: Uint8Array, scores: Int32Array, lives: Int32Array): boolean {
    scores[0] = decimalScore(ram, 0x8a, 0x89) * 100;
    scores[1] = decimalScore(ram, 0x8c, 0x8b) * 100;
    lives[0] = readRam(ram, 0x87) - 1;
    lives[1] = readRam(ram, 0x88) - 1;
    return lives[0] === -1 && (!this.twoPlayers || lives[1] === -1);
  }
}

/** Wizard of Wor shows at most 999 x 100 points; a shown value >= 8000 has wrapped (WizardOfWor.cpp). */
function wizardScore(ram: Uint8Array, lower: number, higher: number): number {
  const shown = decimalScore(ram, lower, higher);
  return (shown >= 8000 ? shown - 8000 : shown) * 100;
}

/**
 * WizardOfWor.cpp (Multi-Agent): scores from BCD RAM 0x86/0x88 (A) and 0x85/0x87 (B); lives (RAM 0x8D / 0x8C low
 * nibble) - 1, taken only while that player waits to enter the maze (RAM 0xD7 / 0xD6 bit 0 clear), starting at 2.
 * Over when A's counter is at -1 with RAM 0xF4 = 0xF8 and (two players) B's too.
 */
class WizardOfWorSettings extends OwnScoreSettings {
  protected resetLives(lives: Int32Array): void {
    lives[0] = lives[1] = 2;
  }
  protected update(ram: Uint8Array, scores: Int32Array, lives: Int32Array): boolean {
    scores[0] = wizardScore(ram, 0x86, 0x88);
    scores[1] = wizardScore(ram, 0x85, 0x87);
    const a = (readRam(ram, 0x8d) & 15) - 1;
    const b = (readRam(ram, 0x8c) & 15) - 1;
    if ((readRam(ram, 0xd7) & 1) === 0) lives[0] = a;
    if ((readRam(ram, 0xd6) & 1) === 0) lives[1] = b;
    return a === -1 && readRam(ram, 0xf4) === 0xf8 && (b === -1 || !this.twoPlayers);
  }
}

/**
 * FlagCapture.cpp (Multi-Agent), two players: A's reward is the change of BCD RAM 0xAB, B's of BCD RAM 0xEB; over
 * at 99. One player: BCD RAM 0xEA, over at 99 or when the BCD RAM 0xEB timer is 0.
 */
class FlagCaptureSettings extends OwnScoreSettings {
  protected resetLives(): void {}
  protected update(ram: Uint8Array, scores: Int32Array): boolean {
    if (!this.twoPlayers) {
      scores[0] = decimalScore(ram, 0xea);
      return decimalScore(ram, 0xeb) === 0 || scores[0] === 99;
    }
    scores[0] = decimalScore(ram, 0xab);
    scores[1] = decimalScore(ram, 0xeb);
    return scores[0] === 99 || scores[1] === 99;
  }
}

/** DoubleDunk.cpp's default max_turn_time (60 * 2 frames): the play-selection timer of two-player modes. */
const DOUBLE_DUNK_MAX_TURN_FRAMES = 120;

/**
 * DoubleDunk.cpp (Multi-Agent): score BCD RAM 0xF6 - BCD RAM 0xF7, over once either has 24 with RAM 0xFE = 0xE7.
 * Two players: a counter of frames in which RAM 0x89 (the play choice) is 0 or has bit 7 or 6 set, cleared on any
 * other frame; past 120 frames it penalises instead of the score: 0 -> both -1, bit 6 -> B -1, bit 7 -> A -1.
 */
class DoubleDunkSettings extends ZeroSumSettings {
  private noChoice = 0;
  constructor(private readonly twoPlayers: boolean) {
    super();
  }
  protected score(ram: Uint8Array): number {
    return decimalScore(ram, 0xf6) - decimalScore(ram, 0xf7);
  }
  protected isTerminal(ram: Uint8Array): boolean {
    return (decimalScore(ram, 0xf6) >= 24 || decimalScore(ram, 0xf7) >= 24) && readRam(ram, 0xfe) === 0xe7;
  }
  protected override resetExtra(): void {
    this.noChoice = 0;
  }
  protected override penalty(ram: Uint8Array, r: Int32Array): void {
    if (!this.twoPlayers) return;
    const choice = readRam(ram, 0x89);
    if (!(choice === 0 || choice & 0x80 || choice & 0x40)) this.noChoice = 0;
    this.noChoice++;
    if (this.noChoice <= DOUBLE_DUNK_MAX_TURN_FRAMES) return;
    if (choice === 0) [r[0], r[1]] = [-1, -1];
    else if (choice & 0x40) [r[0], r[1]] = [0, -1];
    else if (choice & 0x80) [r[0], r[1]] = [-1, 0];
    this.noChoice = 0;
  }
}

/**
 * Entombed.cpp (Multi-Agent): lives A = RAM 0xC7 bits 0-1, B = bits 4-5; over when either has none. Competitive:
 * score = A's lives - B's, A gets its change and B the negative. Cooperative: both get +1 on every frame the
 * sub-stage RAM 0xEF exceeds the last one seen. One player: the depth RAM 0xE3 is the score, over at 0 lives.
 */
class EntombedSettings extends PlayerSettings {
  private score = 0;
  private depth = 0;
  constructor(
    private readonly twoPlayers: boolean,
    private readonly cooperative: boolean,
  ) {
    super();
  }
  protected resetGame(): void {
    this.score = this.depth = 0;
  }
  step(ram: Uint8Array): void {
    const lives = this.allLives;
    lives[0] = readRam(ram, 0xc7) & 3;
    lives[1] = (readRam(ram, 0xc7) & 0x30) >> 4;
    let reward: number;
    if (this.twoPlayers && this.cooperative) {
      const substage = readRam(ram, 0xef);
      reward = substage > this.depth ? 1 : 0;
      this.depth = substage;
    } else {
      const score = this.twoPlayers ? lives[0] - lives[1] : readRam(ram, 0xe3);
      reward = score - this.score;
      this.score = score;
    }
    this.rewards[0] = reward;
    this.rewards[1] = this.cooperative ? reward : -reward;
    this.terminal = lives[0] === 0 || (this.twoPlayers && lives[1] === 0);
  }
}

/** Othello.cpp's default max_turn_time (60 * 10 frames) and the frames without a cursor that end the game. */
const OTHELLO_MAX_TURN_FRAMES = 600;
const OTHELLO_CURSOR_GONE_FRAMES = 75;

/**
 * Othello.cpp (Multi-Agent): score BCD RAM 0xCE (white, A) - BCD RAM 0xD0 (black, B); over once RAM 0xC0 (the
 * cursor) has been 0 for more than 75 frames. Two players: a frame counter, cleared whenever A's reward is nonzero,
 * penalises at 600 the player to move (RAM 0xC0 = 0xFF: A, else B) with -1 and restarts.
 */
class OthelloSettings extends ZeroSumSettings {
  private cursorGone = 0;
  private sameTurn = 0;
  constructor(private readonly twoPlayers: boolean) {
    super();
  }
  protected score(ram: Uint8Array): number {
    return decimalScore(ram, 0xce) - decimalScore(ram, 0xd0);
  }
  protected isTerminal(_ram: Uint8Array): boolean {
    return this.cursorGone > OTHELLO_CURSOR_GONE_FRAMES;
  }
  protected override resetExtra(): void {
    this.cursorGone = this.sameTurn = 0;
  }
  protected override penalty(ram: Uint8Array, r: Int32Array): void {
    const cursor = readRam(ram, 0xc0);
    this.cursorGone = cursor === 0 ? this.cursorGone + 1 : 0;
    if (!this.twoPlayers) return;
    if (r[0] !== 0) this.sameTurn = 0;
    this.sameTurn++;
    if (this.sameTurn >= OTHELLO_MAX_TURN_FRAMES) {
      if (cursor === 0xff) r[0] = -1;
      else r[1] = -1;
      this.sameTurn = 0;
    }
  }
}

/** VideoCheckers.cpp's default max_turn_time (60 * 10 frames). */
const CHECKERS_MAX_TURN_FRAMES = 600;
/** The board: RAM 0x80-0x87, 0x89-0x90, 0x92-0x99, 0x9B-0xA2 (VideoCheckers.cpp). */
const CHECKERS_SQUARES = [0x80, 0x89, 0x92, 0x9b].flatMap((first) => Array.from({ length: 8 }, (_, i) => first + i));

/**
 * VideoCheckers.cpp (Multi-Agent): a square holding 0x10/0x20 is a black piece (A's), 0x90/0xA0 a white one (B's).
 * The side to move is RAM 0xC0 >> 4 (nonzero: white); a side that keeps the move past 600 frames gets -1 and the
 * count restarts. When a colour has no pieces left the game is over: A +1 if white has none, -1 if black has none (the
 * other way round in the reversed modes 11-19), B the negative.
 */
class VideoCheckersSettings extends PlayerSettings {
  private whiteTurn = false;
  private sameTurn = 0;
  constructor(private readonly reversed: boolean) {
    super();
  }
  protected resetGame(): void {
    this.whiteTurn = false;
    this.sameTurn = 0;
  }
  step(ram: Uint8Array): void {
    let black = 0;
    let white = 0;
    for (const square of CHECKERS_SQUARES) {
      const v = readRam(ram, square);
      if (v === 0x10 || v === 0x20) black++;
      else if (v === 0x90 || v === 0xa0) white++;
    }
    const whiteTurn = readRam(ram, 0xc0) >> 4 !== 0;
    if (whiteTurn !== this.whiteTurn) this.sameTurn = 0;
    this.sameTurn++;
    this.whiteTurn = whiteTurn;
    const r = this.rewards;
    r[0] = r[1] = 0;
    if (this.sameTurn > CHECKERS_MAX_TURN_FRAMES) {
      if (whiteTurn) r[1] = -1;
      else r[0] = -1;
      this.sameTurn = 0;
    }
    if (black === 0 || white === 0) {
      r[0] = (black === 0) === this.reversed ? 1 : -1;
      r[1] = -r[0];
      this.terminal = true;
    }
  }
}

/** Combat.cpp (Multi-Agent): score BCD RAM 0xA1 - BCD RAM 0xA2; over at 99 points or when RAM 0x88 is 0. */
class CombatSettings extends ZeroSumSettings {
  protected score(ram: Uint8Array): number {
    return decimalScore(ram, 0xa1) - decimalScore(ram, 0xa2);
  }
  protected isTerminal(ram: Uint8Array): boolean {
    return decimalScore(ram, 0xa1) === 99 || decimalScore(ram, 0xa2) === 99 || readRam(ram, 0x88) === 0;
  }
}

/**
 * MazeCraze.cpp: a player is caught when RAM 0xEA (A) / 0xEB (B) bit 6 sets (-1 once, lives then -1) and has
 * escaped when RAM 0xEC / 0xED is 0xFF. An escape ends the game: if a player was caught the other gets +1, else the
 * escaper +1 and the other -1. Also over when both are caught.
 */
class MazeCrazeSettings extends PlayerSettings {
  protected resetGame(): void {}
  step(ram: Uint8Array): void {
    const r = this.rewards;
    const lives = this.allLives;
    r[0] = r[1] = 0;
    for (let k = 0; k < 2; k++) {
      if (lives[k] === 0 && readRam(ram, 0xea + k) & 0x40) {
        lives[k] = -1;
        r[k] = -1;
      }
    }
    const escaped = (readRam(ram, 0xec) === 0xff ? 1 : 0) - (readRam(ram, 0xed) === 0xff ? 1 : 0);
    if (escaped !== 0) {
      if (lives[0] < 0) r[1] = 1;
      else if (lives[1] < 0) r[0] = 1;
      else [r[0], r[1]] = [escaped, -escaped];
    }
    this.terminal = escaped !== 0 || (lives[0] < 0 && lives[1] < 0);
  }
}

/**
 * SpaceWar.cpp (Multi-Agent): A's reward is the change of BCD RAM 0xA7 minus (two players) the change of BCD RAM
 * 0xA8; B gets the negative. Over at 10 points or when the RAM 0x80 timer is 0.
 */
class SpaceWarSettings extends PlayerSettings {
  private scoreA = 0;
  private scoreB = 0;
  constructor(private readonly twoPlayers: boolean) {
    super();
  }
  protected resetGame(): void {
    this.scoreA = this.scoreB = 0;
  }
  step(ram: Uint8Array): void {
    const a = decimalScore(ram, 0xa7);
    let reward = a - this.scoreA;
    this.scoreA = a;
    if (this.twoPlayers) {
      const b = decimalScore(ram, 0xa8);
      reward -= b - this.scoreB;
      this.scoreB = b;
    }
    this.rewards[0] = reward;
    this.rewards[1] = -reward;
    this.terminal = this.scoreA === 10 || this.scoreB === 10 || readRam(ram, 0x80) === 0;
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

/** Boxing: mode m is RAM 0x92 = m, 1-frame SELECT presses. */
export const BOXING_MA: MultiAgentGameSpec = multiAgentGame(
  BOXING,
  { 1: [1], 2: [2], 4: [] },
  { modeSelect: { ramIndex: 0x92, selectFrames: 1 } },
  () => new BoxingSettings(),
);

/** Ice Hockey: mode m is RAM 0x80 = m, 2-frame presses. */
export const ICE_HOCKEY_MA: MultiAgentGameSpec = multiAgentGame(
  ICE_HOCKEY,
  { 1: [0, 2], 2: [1, 3], 4: [] },
  { modeSelect: { ramIndex: 0x80, selectFrames: 2 } },
  () => new IceHockeySettings(),
);

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
} = Action;
const ALL_ACTIONS = span(0, 17);
/** The joystick without fire: NOOP and the eight directions, plus FIRE (ALE ids 0-9). */
const FIRE_AND_DIRECTIONS = span(0, 9);

/** Press SELECT (`frames` per press) until `reached`, then the soft reset: the usual RomSettings::setMode. */
function selectUntil(frames: number, reached: (ctl: ModeControl, mode: number) => boolean) {
  return (ctl: ModeControl, mode: number) => {
    pressSelectUntil(ctl, frames, () => reached(ctl, mode), `mode ${mode}`);
    ctl.softReset();
  };
}

/** Space Invaders: 2-player modes 33-64 (33 + moving shields 1, zigzag bombs 2, fast bombs 4, invisible 8, alternating 16). */
export const SPACE_INVADERS_MA: MultiAgentGameSpec = multiAgentGame(
  SPACE_INVADERS,
  { 1: span(1, 16), 2: span(33, 64), 4: [] },
  { modeSelect: { ramIndex: 0xdc, selectFrames: 2, ramValue: (m) => m - 1 } },
  () => new SpaceInvadersSettings(false),
);

/** Warlords: paddles in both ports, not swapped; mode m is RAM 0xD9 = m - 1, 1-frame presses. */
export const WARLORDS_MA: MultiAgentGameSpec = multiAgentGame(
  cartridge("warlords", "cbe5a166550a8129a5e6d374901dffad", [NOOP, FIRE, RIGHT, LEFT, RIGHTFIRE, LEFTFIRE], {
    console: { leftController: "paddles", rightController: "paddles" },
  }),
  { 1: [4, 9, 14, 19], 2: [3, 5, 8, 10, 13, 15, 18, 20, 23], 4: [1, 6, 11, 16, 21] },
  { modeSelect: { ramIndex: 0xd9, selectFrames: 1, ramValue: (m) => m - 1 } },
  () => new WarlordsSettings(),
);

/** Joust: mode m is RAM 0xF8 mod 4 = m, 1-frame presses. */
export const JOUST_MA: MultiAgentGameSpec = multiAgentGame(
  cartridge("joust", "3276c777cbe97cdd2b4a63ffc16b7151", ALL_ACTIONS),
  { 1: [0, 2], 2: [1, 3], 4: [] },
  { selectMode: selectUntil(1, (ctl, m) => ctl.readRam(0xf8) % 4 === m) },
  (players) => new JoustSettings(players === 2),
);

/** Mario Bros: mode m is RAM 0x80 = m - 1, 5-frame presses; every episode starts with 10 NOOP and 7 FIRE frames. */
export const MARIO_BROS_MA: MultiAgentGameSpec = multiAgentGame(
  cartridge("mario_bros", "e908611d99890733be31733a979c62d8", ALL_ACTIONS, {
    startingActions: [...Array(10).fill(NOOP), ...Array(7).fill(FIRE)],
  }),
  { 1: [1, 3, 5, 7], 2: [2, 4, 6, 8], 4: [] },
  { modeSelect: { ramIndex: 0x80, selectFrames: 5, ramValue: (m) => m - 1 } },
  (players) => new MarioBrosSettings(players === 2),
);

/** Double Dunk: modes 16-31 are 0-15 with the two-player option on (the option menu, games.ts). */
export const DOUBLE_DUNK_MA: MultiAgentGameSpec = multiAgentGame(
  DOUBLE_DUNK,
  { 1: span(0, 15), 2: span(16, 31), 4: [] },
  { selectMode: (ctl, mode) => doubleDunkMenu(ctl, mode, true) },
  (players) => new DoubleDunkSettings(players === 2),
);

/** Wizard of Wor: mode m is BCD RAM 0x81 = m, 1-frame presses; no NOOP in Multi-Agent ALE's minimal set. */
export const WIZARD_OF_WOR_MA: MultiAgentGameSpec = multiAgentGame(
  WIZARD_OF_WOR,
  { 1: [0], 2: [1], 4: [] },
  {
    minimalActions: [FIRE, UP, RIGHT, LEFT, DOWN, UPFIRE, RIGHTFIRE, LEFTFIRE, DOWNFIRE],
    selectMode: selectUntil(1, (ctl, m) => bcd(ctl.readRam(0x81)) === m),
  },
  (players) => new WizardOfWorSettings(players === 2),
);

/** Entombed: RAM 0xF4 is 1 in the 1-player mode and 0 in both 2-player ones; starts with FIRE and 5 NOOPs. */
export const ENTOMBED_MA: MultiAgentGameSpec = multiAgentGame(
  cartridge("entombed", "6b683be69f92958abe0e2a9945157ad5", ALL_ACTIONS, {
    startingActions: [FIRE, NOOP, NOOP, NOOP, NOOP, NOOP],
  }),
  { 1: [1], 2: [2, 3], 4: [] },
  { difficulties: [0, 2], selectMode: selectUntil(1, (ctl, m) => ctl.readRam(0xf4) === (m === 1 ? 1 : 0)) },
  (players, mode) => new EntombedSettings(players === 2, mode === 3),
);

/** Flag Capture: mode m is RAM 0xD6 = m, 10-frame presses; starts with 10 FIRE frames. */
export const FLAG_CAPTURE_MA: MultiAgentGameSpec = multiAgentGame(
  cartridge("flag_capture", "30512e0e83903fc05541d2f6a6a62654", FIRE_AND_DIRECTIONS, {
    startingActions: Array(10).fill(FIRE),
  }),
  { 1: [8, 9, 10], 2: [1, 2, 3, 4], 4: [] },
  { modeSelect: { ramIndex: 0xd6, selectFrames: 10 } },
  (players) => new FlagCaptureSettings(players === 2),
);

/** Othello: mode m is RAM 0xDE = m, 2-frame presses. */
export const OTHELLO_MA: MultiAgentGameSpec = multiAgentGame(
  cartridge("othello", "113cd09c9771ac278544b7e90efe7df2", FIRE_AND_DIRECTIONS),
  { 1: [1, 2, 3], 2: [4], 4: [] },
  { difficulties: [0, 2], modeSelect: { ramIndex: 0xde, selectFrames: 2 } },
  (players) => new OthelloSettings(players === 2),
);

/** Video Checkers: mode m is BCD RAM 0xF6 = m, 1-frame presses; no NOOP in the minimal set. */
export const VIDEO_CHECKERS_MA: MultiAgentGameSpec = multiAgentGame(
  cartridge("video_checkers", "539d26b6e9df0da8e7465f0f5ad863b7", [FIRE, UPRIGHT, UPLEFT, DOWNRIGHT, DOWNLEFT]),
  { 1: [...span(1, 9), ...span(11, 19)], 2: [10], 4: [] },
  { selectMode: selectUntil(1, (ctl, m) => bcd(ctl.readRam(0xf6)) === m) },
  (_players, mode) => new VideoCheckersSettings(mode >= 11),
);

/**
 * Combat (the PAL 32-in-1 dump): its entry sets YStart 39 and height 256 and leaves the format to detection, which
 * finds PAL. Mode m is RAM 0x80 = m - 1, 1-frame presses; 27 two-player modes (tanks, biplanes, jets).
 */
export const COMBAT_MA: MultiAgentGameSpec = multiAgentGame(
  cartridge("combat", "0ef64cdbecccb7049752a3de0b7ade14", ALL_ACTIONS, {
    console: { yStart: 39, height: 256, displayFormat: "PAL" },
  }),
  { 1: [], 2: span(1, 27), 4: [] },
  { difficulties: [0, 1, 2, 3], modeSelect: { ramIndex: 0x80, selectFrames: 1, ramValue: (m) => m - 1 } },
  () => new CombatSettings(),
);

/** Maze Craze: its entry names the format PAL (no detection frames); mode m is RAM 0xBD = m, 2-frame presses. */
export const MAZE_CRAZE_MA: MultiAgentGameSpec = multiAgentGame(
  cartridge("maze_craze", "ed2218b3075d15eaa34e3356025ccca3", ALL_ACTIONS, {
    console: { displayFormat: "PAL", detectFormat: false },
  }),
  { 1: [], 2: span(0, 63), 4: [] },
  { modeSelect: { ramIndex: 0xbd, selectFrames: 2 } },
  () => new MazeCrazeSettings(),
);

/** Space War (the PAL 32-in-1 dump, detected as PAL): mode m is BCD RAM 0xA7 = m, 2-frame presses. */
export const SPACE_WAR_MA: MultiAgentGameSpec = multiAgentGame(
  cartridge("space_war", "b702641d698c60bcdc922dbd8c9dd49c", ALL_ACTIONS, { console: { displayFormat: "PAL" } }),
  { 1: span(6, 17), 2: span(1, 5), 4: [] },
  { selectMode: selectUntil(2, (ctl, m) => bcd(ctl.readRam(0xa7)) === m) },
  (players) => new SpaceWarSettings(players === 2),
);

/** The Multi-Agent ALE games, by ROM id: the 18 cartridges of PettingZoo's 24 Atari envs. */
export const MULTI_AGENT_GAMES: ReadonlyMap<string, MultiAgentGameSpec> = new Map(
  [
    PONG_MA,
    SURROUND_MA,
    TENNIS_MA,
    BOXING_MA,
    ICE_HOCKEY_MA,
    SPACE_INVADERS_MA,
    WARLORDS_MA,
    JOUST_MA,
    MARIO_BROS_MA,
    DOUBLE_DUNK_MA,
    WIZARD_OF_WOR_MA,
    ENTOMBED_MA,
    FLAG_CAPTURE_MA,
    OTHELLO_MA,
    VIDEO_CHECKERS_MA,
    COMBAT_MA,
    MAZE_CRAZE_MA,
    SPACE_WAR_MA,
  ].map((g) => [g.rom, g]),
);
