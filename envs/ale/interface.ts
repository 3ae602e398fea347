// ALE's environment layer (StellaEnvironment + ALEInterface) over our console: the reset procedure, sticky actions,
// frame counters, terminal/truncation, and per-game reward/lives from RAM. AtariEnv (env.ts) puts the Gymnasium API
// on top, as ale-py's AtariEnv does over ALEInterface.
//
// The same class is Multi-Agent ALE's interface (multi_agent_ale_py, what PettingZoo's Atari envs drive) when the
// game spec lists modes per player count (`playerModes`, see multi_agent_games.ts). Then: `numPlayersActive()` comes
// from the mode, `actPlayers` takes one action per player and returns one reward per player, `allLives()` gives each
// player's lives, every reset centres all four paddles and ends with Multi-Agent ALE's extra frames, the ROM load
// resets in the ROM's default mode, and the system generator is seeded by `randomSeed` (PettingZoo notes 2.4-2.6).

import { Atari2600 } from "./console.ts";
import { Action } from "./controls.ts";
import { pressSelectUntil, type GameSettings, type GameSpec, type ModeControl } from "./games.ts";
import type { MultiAgentGameSpec, MultiPlayerSettings } from "./multi_agent_games.ts";

/** StellaEnvironment::m_num_reset_steps: frames RESET is held by every soft reset. */
export const NUM_RESET_STEPS = 4;
/** StellaEnvironment::reset: NOOP frames after the power cycle, before the first soft reset. */
export const NUM_RESET_NOOP_STEPS = 60;

export interface AleSettings {
  /** Probability that a frame repeats the previous frame's action instead of the requested one. */
  repeatActionProbability: number;
  /** Frame budget per episode; 0 = unlimited (ALE's max_num_frames_per_episode). */
  maxNumFramesPerEpisode: number;
  /** Game mode; undefined = the game's default (its first available mode). */
  mode?: number;
  difficulty?: number;
  /**
   * Multi-Agent ALE's `random_seed`: seeds the system generator behind power-on RAM and RIOT timers (only for
   * multi-agent game specs; single-player ALE 0.12 uses its fixed system_random_seed whatever the seed).
   */
  randomSeed?: number;
}

export class ALEInterface {
  readonly console: Atari2600;
  readonly settings: GameSettings;
  private frameNumber = 0;
  /** Whether the console has been switched on and reset once (ALE's loadROM). */
  private loaded = false;
  private episodeFrameNumber = 0;
  /** The action actually applied on the previous frame (what sticky actions repeat). */
  private stickyAction: number = Action.NOOP;
  private readonly mode: number;
  private readonly difficulty: number;
  /** Players the mode is for (1 for single-player specs). */
  private readonly players: number;
  /** The Multi-Agent ALE spec when this is a multi-player interface. */
  private readonly multi: MultiAgentGameSpec | undefined;
  /** One action per controller slot for the next frames: A, B (and C, D for Multi-Agent ALE). */
  private readonly inputs: number[];
  private readonly playerRewards = new Int32Array(4);
  /** Per action 0..17: the action itself, or NOOP where the game's isLegal rejects it (StellaEnvironment::noopIllegalAction). */
  private readonly played: Int32Array;

  constructor(
    readonly game: GameSpec,
    rom: Uint8Array,
    private readonly aleSettings: AleSettings,
    /** Uniform [0, 1) source for sticky actions (AtariEnv's emulator-side stream, apart from its npRandom). */
    private readonly random: () => number,
  ) {
    const modes = game.modes ?? [0];
    const difficulties = game.difficulties ?? [0];
    this.mode = aleSettings.mode ?? modes[0];
    this.difficulty = aleSettings.difficulty ?? 0;
    if (!modes.includes(this.mode))
      throw new Error(`${game.name}: invalid game mode ${this.mode}; available: ${modes.join(", ")}`);
    if (!difficulties.includes(this.difficulty)) {
      throw new Error(`${game.name}: invalid difficulty ${this.difficulty}; available: ${difficulties.join(", ")}`);
    }
    const p = aleSettings.repeatActionProbability;
    if (!(p >= 0 && p <= 1)) throw new RangeError(`repeat_action_probability must be in [0, 1], got ${p}`);
    this.console = new Atari2600(rom, { ...game.console, md5: game.md5 });
    this.multi = "playerModes" in game ? (game as MultiAgentGameSpec) : undefined;
    this.players = this.multi ? this.multi.playersForMode(this.mode) : 1;
    this.inputs = new Array(this.multi ? 4 : 2).fill(Action.NOOP);
    this.settings = this.multi ? this.multi.createPlayerSettings(this.players, this.mode) : game.createSettings();
    this.played = Int32Array.from({ length: 18 }, (_, a) => (game.illegalActions?.includes(a) ? Action.NOOP : a));
  }

  /** Multi-Agent ALE's `setInt("random_seed", seed)`: takes effect at the next ROM load (`resetGame(_, true)`). */
  setRandomSeed(seed: number): void {
    this.aleSettings.randomSeed = seed;
  }

  /** Multi-Agent ALE's `numPlayersActive()`: how many players the current mode is for. */
  numPlayersActive(): number {
    return this.players;
  }

  /** ALE's `getMinimalActionSet()`. */
  getMinimalActionSet(): number[] {
    return [...this.game.minimalActions];
  }

  /** ALE's `getLegalActionSet()`: the 18 joystick actions in ALE's order, less those the game's isLegal rejects. */
  getLegalActionSet(): number[] {
    const illegal = this.game.illegalActions ?? [];
    return Array.from({ length: 18 }, (_, i) => i).filter((a) => !illegal.includes(a));
  }

  /**
   * ale-py's reset. A ROM (re)load switches the console on and runs StellaEnvironment::reset once (ALE's loadROM
   * does that); every reset then runs it again (`reset_game`). ale-py loads the ROM when the env is made and again
   * on every seeded reset, so `reload` (a seeded reset, or the first reset) gives power-on + two resets, and other
   * resets one, which keeps the RAM the last episode left (see Atari2600.systemReset). `powerOnSeed` seeds only what
   * lies beyond ALE's fixed power-on state (SC cartridges' extra RAM); a reload also restarts the cumulative frame
   * counter, as a fresh ALE's is 0.
   */
  resetGame(powerOnSeed: number, reload = false): void {
    if (reload || !this.loaded) {
      this.frameNumber = 0;
      if (this.multi) {
        // multi_agent_ale_py: the system generator is seeded with random_seed, and re-seeded once the console exists.
        this.console.powerOn(powerOnSeed, this.aleSettings.randomSeed ?? 0, true);
        // Its loadROM resets in the ROM's default mode; the chosen mode only takes effect at the next reset.
        this.resetEnvironment(this.multi.defaultMode);
      } else {
        this.console.powerOn(powerOnSeed);
        this.resetEnvironment(this.mode);
      }
      this.loaded = true;
    }
    this.resetEnvironment(this.mode);
  }

  /**
   * StellaEnvironment::reset: system reset, 60 NOOP frames, soft reset, reset the game settings, select the mode
   * (and soft reset again), soft reset, then the game's starting actions.
   */
  private resetEnvironment(mode: number): void {
    this.episodeFrameNumber = 0;
    const emu = this.console;
    // The reset's screen can be what any of its frames drew (the system reset clears both frame buffers first).
    emu.drawAllFrames = true;
    emu.systemReset();
    // Multi-Agent ALE centres all four paddles; single-player ALE only A's and B's.
    emu.resetPaddles(this.multi ? 4 : 2);
    this.emulate(Action.NOOP, NUM_RESET_NOOP_STEPS);
    this.softReset();
    this.settings.reset();
    this.setMode(mode);
    this.softReset();
    const starting = this.game.startingActions ?? [];
    for (const action of starting) this.emulate(action, 1);
    if (this.multi) {
      // Multi-Agent ALE's additions: a NOOP frame, player B's starting actions (RESET excepted), another NOOP frame.
      this.emulate(Action.NOOP, 1);
      for (const action of starting) if (action !== Action.RESET) this.emulate(Action.NOOP, 1, true, action);
      this.emulate(Action.NOOP, 1);
    }
    emu.drawAllFrames = false;
  }

  /** Presses the console's RESET switch for NUM_RESET_STEPS frames and forgets the last action. */
  private softReset(): void {
    this.emulate(Action.RESET, NUM_RESET_STEPS);
    this.stickyAction = Action.NOOP;
  }

  /**
   * RomSettings::setMode: the game's own procedure (`selectMode`), or SELECT presses until a RAM byte shows the mode
   * followed by a soft reset (`modeSelect`); a no-op for games with neither (RomSettings' default).
   */
  private setMode(mode: number): void {
    if (this.game.selectMode) {
      this.game.selectMode(this.modeControl, mode);
      return;
    }
    const select = this.game.modeSelect;
    if (select === undefined) return;
    const target = select.ramValue ? select.ramValue(mode) : mode;
    const what = `${this.game.name}: mode ${mode}`;
    pressSelectUntil(
      this.modeControl,
      select.selectFrames,
      () => this.console.readRam(select.ramIndex) === target,
      what,
    );
    this.softReset();
  }

  /** StellaEnvironmentWrapper: what a game's setMode may do during the reset. */
  private readonly modeControl: ModeControl = {
    readRam: (address) => this.console.readRam(address),
    act: (action) => {
      // Multi-Agent ALE's act(a, b) draws the sticky-action number of both players first.
      if (this.multi) {
        this.console.systemRandomNext();
        this.console.systemRandomNext();
      }
      this.act(action, false);
    },
    pressSelect: (frames = 1) => this.pressSelect(frames),
    softReset: () => this.softReset(),
  };

  /** StellaEnvironment::pressSelect: hold SELECT (frames not stepped by the game settings), then one NOOP frame. */
  private pressSelect(frames: number): void {
    const emu = this.console;
    emu.applyAction(Action.NOOP, Action.NOOP, this.difficulty, true);
    for (let i = 0; i < frames; i++) emu.emulateFrame(false);
    this.emulate(Action.NOOP, 1);
    this.frameNumber++;
    this.episodeFrameNumber++;
  }

  /** StellaEnvironment::emulate: `frames` frames of `action`, stepping the game settings after each. */
  private emulate(action: number, frames: number, renderLast = true, actionB: number = Action.NOOP): void {
    const inputs = this.inputs;
    inputs.fill(Action.NOOP);
    inputs[0] = action;
    inputs[1] = actionB;
    this.emulateInputs(frames, renderLast);
  }

  /** `emulate` with the actions already in `inputs` (one per controller slot). */
  private emulateInputs(frames: number, renderLast: boolean): void {
    const emu = this.console;
    for (let t = 0; t < frames; t++) {
      // Paddle positions move every frame, so inputs are applied per frame (joysticks just repeat the same keys).
      emu.applyInputs(this.inputs, this.difficulty);
      emu.emulateFrame(renderLast && t === frames - 1);
      this.settings.step(emu.ram);
    }
  }

  /**
   * ALE's `act(action)`: one frame (ale-py keeps ALE's own frame_skip at 1). With probability
   * repeat_action_probability the previous frame's action is applied instead (sticky actions, Machado et al. 2018).
   * Returns that frame's reward; once the episode is over (terminal or out of frames) nothing is emulated and 0 is
   * returned. `render = false` skips writing the screen for this frame.
   */
  act(action: number, render = true): number {
    if (!Number.isInteger(action) || action < 0 || action >= 18) throw new RangeError(`act: invalid action ${action}`);
    if (this.random() >= this.aleSettings.repeatActionProbability) this.stickyAction = action;
    if (this.isTerminal()) return 0;
    // The sticky action is the one asked for; an illegal one is played as NOOP (ALE's oneStepAct).
    this.emulate(this.played[this.stickyAction], 1, render);
    this.frameNumber++;
    this.episodeFrameNumber++;
    return this.settings.reward;
  }

  /**
   * Multi-Agent ALE's `act(actions)`: one frame with one action per active player (exactly numPlayersActive()
   * entries, ALE action ids). Returns each player's reward for that frame (a view, valid until the next call);
   * nothing is emulated once the episode is over. As in multi_agent_ale_py, each active player draws one number from
   * the system generator per frame (sticky actions; the draws move the RIOT timer of later resets).
   */
  actPlayers(actions: ArrayLike<number>, render = true): Int32Array {
    const multi = this.multi;
    if (!multi) throw new Error(`${this.game.name}: actPlayers needs a multi-agent game spec`);
    if (actions.length !== this.players)
      throw new RangeError(`act: expected ${this.players} actions, got ${actions.length}`);
    const inputs = this.inputs;
    const p = this.aleSettings.repeatActionProbability;
    for (let k = 0; k < this.players; k++) {
      const action = actions[k];
      if (!Number.isInteger(action) || action < 0 || action >= 18)
        throw new RangeError(`act: invalid action ${action}`);
      // Uniform draw in [0, 1): mt19937's 32 bits over 2^32; an action is kept when the draw is >= p.
      if (this.console.systemRandomNext() / 4294967296 >= p) inputs[k] = action;
    }
    const rewards = this.playerRewards;
    rewards.fill(0);
    if (this.isTerminal()) return rewards;
    this.emulateInputs(1, render);
    this.frameNumber++;
    this.episodeFrameNumber++;
    rewards.set((this.settings as MultiPlayerSettings).rewards);
    return rewards;
  }

  /**
   * Multi-Agent ALE's `allLives()`: one entry per active player; -1 = that player is out, 0 = no lives counter.
   * Given `out`, fills its first numPlayersActive() entries and returns it instead of a new array, so a caller that
   * asks every frame (PettingZoo's step) allocates nothing.
   */
  allLives(out: number[] = new Array<number>(this.players)): number[] {
    if (!this.multi) {
      out[0] = this.lives();
      return out;
    }
    const lives = (this.settings as MultiPlayerSettings).allLives;
    for (let k = 0; k < this.players; k++) out[k] = lives[k];
    return out;
  }

  /** Terminal or truncated: StellaEnvironment::isTerminal. */
  private isTerminal(): boolean {
    return this.settings.terminal || this.gameTruncated();
  }

  /** ale.game_over(with_truncation). */
  gameOver(withTruncation = true): boolean {
    return this.settings.terminal || (withTruncation && this.gameTruncated());
  }

  /** ale.game_truncated(): the episode used up max_num_frames_per_episode. */
  gameTruncated(): boolean {
    const max = this.aleSettings.maxNumFramesPerEpisode;
    return max > 0 && this.episodeFrameNumber >= max;
  }

  lives(): number {
    return this.settings.lives();
  }

  getFrameNumber(): number {
    return this.frameNumber;
  }

  getEpisodeFrameNumber(): number {
    return this.episodeFrameNumber;
  }

  getScreenDims(): [height: number, width: number] {
    return [this.console.height, this.console.width];
  }

  getScreenRGB(out: Uint8Array): Uint8Array {
    return this.console.getScreenRGB(out);
  }

  getScreenGrayscale(out: Uint8Array): Uint8Array {
    return this.console.getScreenGrayscale(out);
  }

  /** Copies the 128 bytes of RAM into `out`. */
  getRAM(out: Uint8Array): Uint8Array {
    out.set(this.console.ram);
    return out;
  }
}
