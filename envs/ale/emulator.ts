// An Atari 2600 driven the way the Arcade Learning Environment drives Stella, on the 6502.ts emulator core.
//
// 6502.ts (the Stellerator engine) emulates the CPU, RIOT and TIA cycle by cycle but is built to run in a browser
// against a wall clock. We use its chips directly and replace the two parts whose behaviour ALE defines differently:
//
// * Frames. ALE (Stella 3.x, TIA.cxx) ends a frame when the program clears VSYNC at least one scanline (228 colour
//   clocks) after setting it, or on any TIA write once more than 290 scanlines have passed without that. The next
//   frame starts at the beginning of the scanline on which the CPU stopped. The screen is the `height` scanlines
//   starting `yStart` lines into the frame (the cartridge properties Display.YStart / Display.Height; 34 / 210 unless
//   the game's properties say otherwise), 160 pixels wide, one byte per pixel holding the TIA colour value (0 during
//   VBLANK). Our `AleFrameClock` stands in for 6502.ts's FrameManager to give exactly those boundaries.
// * Paddles. ALE turns a paddle's "resistance" r into the number of CPU cycles after the dump transistor is released
//   (VBLANK bit 7 cleared) before INPTx reads high: trunc(1.6 * r * 0.01e-6 * 1.19e6) (TIA.cxx `peek`). `AlePaddle`
//   replaces 6502.ts's RC-circuit model with that rule, so paddle positions mean what they mean in ALE.
//
// One `emulateFrame()` runs the CPU until that frame boundary; `emulateFrame(false)` skips producing pixels (the
// sprites still move and collide, only the per-pixel colour writes are skipped), which is what frame-skipping
// callers want for the frames whose screen nobody looks at.

import Board from "6502.ts/lib/machine/stella/Board.js";
import Config from "6502.ts/lib/machine/stella/Config.js";
import CartridgeDetector from "6502.ts/lib/machine/stella/cartridge/CartridgeDetector.js";
import CartridgeFactory from "6502.ts/lib/machine/stella/cartridge/CartridgeFactory.js";
import CartridgeInfo from "6502.ts/lib/machine/stella/cartridge/CartridgeInfo.js";
import * as rngFactory from "6502.ts/lib/tools/rng/factory.js";

import {
  ACTION_SWITCHES,
  ALE_SYSTEM_RANDOM_SEED,
  Action,
  FIRE_BIT,
  LEFT_BIT,
  MAXIMUM_RESISTANCE,
  MINIMUM_RESISTANCE,
  Mt19937,
  PADDLE_DEFAULT_VALUE,
  PADDLE_DELTA,
  PADDLE_MAX,
  PADDLE_MIN,
  RIGHT_BIT,
  UP_BIT,
  DOWN_BIT,
  type ConsoleOptions,
} from "./controls.ts";
import { screenToGrayscale, screenToRgb } from "./palette.ts";

export {
  ACTION_MEANINGS,
  ALE_SYSTEM_RANDOM_SEED,
  Action,
  Mt19937,
  PADDLE_DEFAULT_VALUE,
  PADDLE_DELTA,
  PADDLE_MAX,
  PADDLE_MIN,
  type ConsoleOptions,
  type ControllerType,
} from "./controls.ts";


/** RIOT port B (console switches) as 6502.ts's PIA decodes it (address & 0x283), and the bits no switch drives. */
const SWCHB = 0x282;
const SWCHB_UNUSED_BITS = 0x34;
/** Status register after Stella's M6502::reset (PS(0x20)): only the unused bit 5 and B, which a 6507 always reads set. */
const CPU_FLAGS_AFTER_RESET = 0x20 | 0x10;
/** TIA register that applies horizontal motion (and may blank the line's first 8 pixels). */
const HMOVE = 0x2a;

/** NTSC: Stella 3.x ends a frame that never VSYNCs on the first TIA write after this many scanlines. */
const MAXIMUM_SCANLINES = 290;
/** Stella gives up on a frame after 25000 instructions; we bound the frame by scanlines instead (same purpose). */
const RUNAWAY_FRAME_SCANLINES = 1000;

/** System::resets between Stella's console construction and ALE's first environment reset (each draws a timer). */
const RESETS_BEFORE_LOAD = 2;

// The parts of 6502.ts's chips we touch. They are private in its type declarations, so we describe them here.
interface TiaInternals {
  cycle(): void;
  write(address: number, value: number): void;
  _hctr: number;
  _palette: Uint32Array;
  _colorBk: number;
  _frameManager: unknown;
  _paddles: unknown[];
}
interface CpuInternals {
  cycle(): void;
  executionState: number;
  _rng: unknown;
}
interface PiaInternals {
  cycle(): void;
  ram: Uint8Array;
  _rng: unknown;
  _readIo(address: number): number;
}
interface SwitchLike {
  toggle(state: boolean): void;
}
interface BusInternals {
  read(address: number): number;
  write(address: number, value: number): void;
  event: { read: { hasHandlers: boolean }; write: { hasHandlers: boolean }; transition: { hasHandlers: boolean } };
  _cartridge: { read(a: number): number; write(a: number, v: number): void };
  _pia: { read(a: number): number; write(a: number, v: number): void };
  _tia: { read(a: number): number; write(a: number, v: number): void };
  _lastDataBusValue: number;
  _lastAddressBusValue: number;
}
interface CartridgeInternals {
  reset(): void;
  randomize(rng: unknown): void;
  setRng(rng: unknown): unknown;
}

/**
 * Stella 3.x frame timing for 6502.ts's TIA. The TIA calls `nextLine()` at the end of every scanline, `setVsync` and
 * `setVblank` when the program writes those registers, and asks `isRendering()` / `getCurrentLine()` where to put
 * each pixel; the pixel values are TIA colour bytes because the emulator installs an identity palette.
 */
class AleFrameClock {
  vblank = false;
  surfaceBuffer: Uint8Array;
  /** Scanline within the current frame; 0 is the line on which the previous frame ended. */
  line = 0;
  frameEnded = false;
  renderEnabled = true;
  private rendering = false;
  private row = 0;
  private vsyncFinishClock = Infinity;
  /** An HMOVE blank strobed outside the screen window, not yet shown (Stella 3.x's myHMOVEBlankEnabled). */
  private hmoveBlankPending = false;
  /** The screen row whose first 8 pixels are blanked when its scanline ends; -1 for none. */
  private hmoveBlankRow = -1;

  constructor(
    private readonly tia: TiaInternals,
    readonly yStart: number,
    readonly height: number,
  ) {
    this.surfaceBuffer = new Uint8Array(160 * height);
  }

  /** Power-on: the frame starts now (TIA::frameReset). */
  reset(): void {
    this.vblank = false;
    this.vsyncFinishClock = Infinity;
    this.frameEnded = false;
    this.hmoveBlankPending = false;
    this.startFrame();
  }

  /** Begins the next frame at the start of the current scanline (TIA::startFrame). */
  startFrame(): void {
    this.line = 0;
    this.frameEnded = false;
    this.hmoveBlankRow = -1;
    this.updateWindow();
  }

  nextLine(): void {
    if (this.row === this.hmoveBlankRow) {
      if (this.rendering) this.surfaceBuffer.fill(0, this.row * 160, this.row * 160 + 8);
      this.hmoveBlankRow = -1;
    }
    this.line++;
    this.updateWindow();
    if (this.hmoveBlankPending && this.row >= 0 && this.row < this.height) {
      this.hmoveBlankPending = false;
      this.hmoveBlankRow = this.row;
    }
  }

  /**
   * Stella 3.x (TIA.cxx) only draws, and so only clears its HMOVE-blank flag, inside the screen window: an HMOVE
   * strobed outside it on a blank-enabling cycle (CPU cycle 0-20 or 75 of the line) blacks out the first 8 pixels
   * of the next line drawn, which is the window's first line (Pong's top border shows this on every frame).
   * Strobes inside the window are left to 6502.ts's TIA, whose per-line HMOVE blank agrees with Stella's there.
   */
  hmoveStrobed(): void {
    const row = this.line - this.yStart;
    if (row >= 0 && row < this.height) return;
    const cycle = Math.floor(this.tia._hctr / 3);
    if (cycle <= 20 || cycle === 75) this.hmoveBlankPending = true;
  }

  private updateWindow(): void {
    const row = this.line - this.yStart;
    this.row = row;
    this.rendering = this.renderEnabled && row >= 0 && row < this.height;
  }

  isRendering(): boolean {
    return this.rendering;
  }

  getCurrentLine(): number {
    return this.row;
  }

  getHeight(): number {
    return this.height;
  }

  setVblank(vblank: boolean): void {
    this.vblank = vblank;
  }

  /** TIA.cxx, VSYNC: clearing VSYNC at least 228 colour clocks after setting it ends the frame. */
  setVsync(vsync: boolean): void {
    const clock = this.line * 228 + this.tia._hctr;
    if (vsync) {
      this.vsyncFinishClock = clock + 228;
    } else if (clock >= this.vsyncFinishClock) {
      this.vsyncFinishClock = Infinity;
      this.frameEnded = true;
    }
  }

  /** Called before every TIA write, like the scanline check at the top of Stella's TIA::poke. */
  checkRunaway(): void {
    if (this.line > MAXIMUM_SCANLINES) this.frameEnded = true;
  }

  setSurfaceFactory(): void {}
  getDebugState(): string {
    return `line ${this.line}`;
  }
}

/** One paddle input (INPT0..INPT3) with ALE's resistance-to-delay rule. */
class AlePaddle {
  private resistance = MAXIMUM_RESISTANCE;
  private neededCycles = 0;
  private dumped = false;
  private dumpReleasedAt = 0;

  constructor(private readonly clock: { cpuCycles: number }) {}

  setResistance(r: number): void {
    this.resistance = r;
    // Evaluated in the same order as TIA.cxx so the truncation lands on the same cycle.
    const t = 1.6 * r * 0.01e-6;
    this.neededCycles = Math.trunc(t * 1.19e6);
  }

  inpt(): number {
    const r = this.resistance;
    if (r === MINIMUM_RESISTANCE) return 0x80;
    if (r === MAXIMUM_RESISTANCE || this.dumped) return 0;
    return this.clock.cpuCycles > this.dumpReleasedAt + this.neededCycles ? 0x80 : 0;
  }

  /** Called on every VBLANK write; bit 7 grounds the paddle capacitors. */
  vblank(value: number): void {
    const dump = (value & 0x80) !== 0;
    if (dump === this.dumped) return;
    this.dumped = dump;
    if (!dump) this.dumpReleasedAt = this.clock.cpuCycles;
  }

  reset(): void {
    this.dumped = false;
    this.dumpReleasedAt = 0;
  }

  setCpuTimeProvider(): void {}
}

/** Detects the cartridge type from the image, as 6502.ts's factory does. */
export function detectCartridgeType(rom: Uint8Array): string {
  return new CartridgeDetector.default().detectCartridgeType(rom);
}

/**
 * An Atari 2600 console with ALE's frame, screen and input conventions.
 *
 * `ram` and `screen` are live views: they change as frames are emulated. Inputs are set with `applyAction` and hold
 * until the next call, exactly like ALE's event object between `emulate` calls.
 */
export class Atari2600 {
  readonly width = 160;
  readonly height: number;
  /** The 128 bytes of RIOT RAM ($80-$FF), live. */
  readonly ram: Uint8Array;
  /** The screen, one TIA colour byte per pixel, row-major `height x 160`, live. */
  readonly screen: Uint8Array;
  readonly cartridgeType: string;
  readonly usesPaddles: boolean;
  /** CPU cycles since power-on (read by the paddle inputs). */
  cpuCycles = 0;
  /** Frames emulated since construction. */
  framesEmulated = 0;

  private readonly board: InstanceType<typeof Board.default>;
  private readonly tia: TiaInternals;
  private readonly cpu: CpuInternals;
  private readonly pia: PiaInternals;
  private readonly cartridge: CartridgeInternals;
  private readonly frame: AleFrameClock;
  private readonly paddles: AlePaddle[];
  /** Stella's System random generator (ALE seeds it with system_random_seed at every ROM load). */
  private systemRandom = new Mt19937(ALE_SYSTEM_RANDOM_SEED);
  private readonly joystick0: { up: SwitchLike; down: SwitchLike; left: SwitchLike; right: SwitchLike; fire: SwitchLike };
  private readonly joystick1: { up: SwitchLike; down: SwitchLike; left: SwitchLike; right: SwitchLike; fire: SwitchLike };
  private readonly resetSwitch: SwitchLike;
  private readonly selectSwitch: SwitchLike;
  private readonly difficultyP0: SwitchLike;
  private readonly difficultyP1: SwitchLike;
  private readonly leftPaddles: boolean;
  private readonly rightPaddles: boolean;
  private readonly swapPaddles: boolean;
  private readonly swapPorts: boolean;
  /**
   * Resistance of paddles 0-3 (players A-D). Single-player ALE only ever sets paddles 0 and 1, so 2 and 3 stay at 0
   * (minimum resistance) there; Multi-Agent ALE centres all four at every reset (`resetPaddles(4)`).
   */
  private readonly paddleValues = [PADDLE_DEFAULT_VALUE, PADDLE_DEFAULT_VALUE, MINIMUM_RESISTANCE, MINIMUM_RESISTANCE];
  /** Reused by `applyAction` so the two-player call allocates nothing per frame. */
  private readonly twoPlayers = [0, 0];
  private paddleMin = PADDLE_MIN;
  private paddleMax = PADDLE_MAX;

  constructor(rom: Uint8Array, options: ConsoleOptions = {}) {
    const { yStart = 34, height = 210, leftController = "joystick", rightController = "joystick", swapPaddles = false } = options;
    if (!Number.isInteger(yStart) || yStart < 0 || yStart > 64) throw new RangeError(`Atari2600: yStart ${yStart} outside Stella's 0..64`);
    if (!Number.isInteger(height) || height < 210 || height > 256) throw new RangeError(`Atari2600: height ${height} outside Stella's 210..256`);
    this.height = height;
    this.leftPaddles = leftController === "paddles";
    this.rightPaddles = rightController === "paddles";
    this.usesPaddles = this.leftPaddles || this.rightPaddles;
    this.swapPaddles = swapPaddles;
    this.swapPorts = options.swapPorts ?? false;
    if (this.swapPorts && this.usesPaddles) throw new Error("Atari2600: swapPorts is only supported with joysticks");

    const image = new Uint8Array(rom); // 6502.ts keeps a reference; never alias the caller's buffer
    const type = options.cartridgeType ?? detectCartridgeType(image);
    const types = CartridgeInfo.default.CartridgeType;
    if (type === types.unknown) throw new Error(`Atari2600: unrecognised cartridge image (${image.length} bytes)`);
    if (type === types.bankswitch_dpc_plus || type === types.bankswitch_cdf) {
      throw new Error(`Atari2600: cartridge type ${type} needs an ARM coprocessor, which this driver does not support`);
    }
    this.cartridgeType = type;
    const factory = new CartridgeFactory.default() as unknown as { _createCartridge(buffer: Uint8Array, type: string): unknown };
    const cartridge = factory._createCartridge(image, type);

    // Audio off (we never read it) and paddles on (our AlePaddle objects answer INPT0-3). The seed is replaced at
    // every power-on, see `powerOn`.
    const config = Config.default.create({ tvMode: 0, enableAudio: false, randomSeed: 0, emulatePaddles: true, pcmAudio: false });
    this.board = new Board.default(config, cartridge as ConstructorParameters<typeof Board.default>[1]);
    const board = this.board as unknown as { _tia: TiaInternals; _cpu: CpuInternals; _pia: PiaInternals; _bus: BusInternals };
    this.tia = board._tia;
    this.cpu = board._cpu;
    this.pia = board._pia;
    this.cartridge = cartridge as CartridgeInternals;
    this.ram = this.pia.ram;

    // Identity palette: colour register value v becomes pixel byte (v & 0xFE), ALE's screen format. 6502.ts writes
    // 0xFF000000 for blanked pixels; stored into a Uint8Array that is 0, ALE's VBLANK colour.
    const identity = new Uint32Array(128);
    for (let i = 0; i < 128; i++) identity[i] = i << 1;
    this.tia._palette = identity;
    this.tia._colorBk = 0;

    this.frame = new AleFrameClock(this.tia, yStart, height);
    this.tia._frameManager = this.frame;
    this.screen = this.frame.surfaceBuffer;
    this.paddles = [0, 1, 2, 3].map(() => new AlePaddle(this));
    this.tia._paddles = this.paddles;

    const tiaWrite = this.tia.write.bind(this.tia);
    const frame = this.frame;
    this.tia.write = (address: number, value: number) => {
      frame.checkRunaway();
      if ((address & 0x3f) === HMOVE) frame.hmoveStrobed();
      tiaWrite(address, value);
    };
    installLeanBus(board._bus);

    // SWCHB's bits 2, 4 and 5 are not wired to any switch. Stella's Switches start from 0xFF and only ever change
    // bits 0, 1, 3, 6 and 7, so those three read 1; 6502.ts reads them as 0. Pong keeps SWCHB in RAM ($8F), which
    // real ALE shows as 0x3F where 6502.ts alone gives 0x0B.
    const readIo = this.pia._readIo.bind(this.pia);
    this.pia._readIo = (address: number) => ((address & 0x0283) === SWCHB ? readIo(address) | SWCHB_UNUSED_BITS : readIo(address));

    const j0 = this.board.getJoystick0();
    const j1 = this.board.getJoystick1();
    this.joystick0 = { up: j0.getUp(), down: j0.getDown(), left: j0.getLeft(), right: j0.getRight(), fire: j0.getFire() };
    this.joystick1 = { up: j1.getUp(), down: j1.getDown(), left: j1.getLeft(), right: j1.getRight(), fire: j1.getFire() };
    const panel = this.board.getControlPanel();
    this.resetSwitch = panel.getResetButton();
    this.selectSwitch = panel.getSelectSwitch();
    this.difficultyP0 = panel.getDifficultySwitchP0();
    this.difficultyP1 = panel.getDifficultySwitchP1();
    panel.getColorSwitch().toggle(false); // colour TV (Console.TelevisionType "COLOR")
    this.powerOn(0);
  }

  /**
   * Switches the console on, as ALE does when it loads a ROM (a fresh Stella System). ALE seeds the System's
   * mt19937 with the fixed `system_random_seed` 4753849, so its "random" power-on state is the same on every load,
   * whatever ALE's random_seed: M6532's constructor fills RAM with the low bytes of 128 draws and its reset draws the
   * RIOT timer. We replay that stream, so RAM and timer match ALE's. `seed` only feeds what 6502.ts randomizes
   * beyond that (cartridge RAM, which ALE draws from the same stream; not replayed here).
   */
  powerOn(seed: number, systemRandomSeed = ALE_SYSTEM_RANDOM_SEED, reseedAfterCreation = false): void {
    const rng = rngFactory.createRng(seed);
    this.pia._rng = rng;
    this.cpu._rng = rng;
    this.cartridge.setRng(rng);
    this.cartridge.randomize(rng);
    this.systemRandom = new Mt19937(systemRandomSeed);
    this.board.reset();
    for (let i = 0; i < 128; i++) this.ram[i] = this.systemRandom.next() & 0xff;
    // Two System::resets (two timer draws) run before ALE's loadROM resets the environment; found by matching
    // ale-py 0.12.1's post-reset RAM over the Atari-57 set (21 games identical for 2, 17 for 1).
    for (let i = 0; i < RESETS_BEFORE_LOAD; i++) this.systemRandom.next();
    this.afterChipReset();
    // Multi-Agent ALE re-seeds its generator (the OS layer's, seeded with random_seed) once the console is built, so
    // the first reset's timer is the seed's first draw.
    if (reseedAfterCreation) this.systemRandom = new Mt19937(systemRandomSeed);
  }

  /** The next 32-bit draw of the system generator (Multi-Agent ALE draws one per active player per frame). */
  systemRandomNext(): number {
    return this.systemRandom.next();
  }

  /**
   * Stella's System::reset, which starts every ALE reset_game: CPU, RIOT timer, TIA and cartridge bank return to
   * their reset state but RAM keeps its contents (Stella's M6532 randomizes RAM only when it is constructed). Some
   * games read RAM they did not clear at boot, so an episode after a reset_game starts from what the previous one
   * left: BeamRider's does. M6532::reset draws the timer from the System's generator, see `afterChipReset`.
   */
  systemReset(): void {
    const ram = this.ram.slice();
    this.board.reset(); // 6502.ts's RIOT reset refills RAM with random bytes: put the old contents back
    this.ram.set(ram);
    this.afterChipReset();
  }

  private afterChipReset(): void {
    // M6532::reset: the timer counts down from 25 + (draw % 75) in 64-cycle intervals, as if just written to TIM64T.
    const pia = this.pia as unknown as { _timerValue: number; _timerDivide: number; _subTimer: number };
    pia._timerValue = 25 + (this.systemRandom.next() % 75);
    pia._timerDivide = 64;
    pia._subTimer = 0;
    // M6502::reset in ALE's Stella clears A, X, Y and the status flags (decimal mode off); 6502.ts draws them at random.
    const state = (this.cpu as unknown as { state: { a: number; x: number; y: number; flags: number } }).state;
    state.a = state.x = state.y = 0;
    state.flags = CPU_FLAGS_AFTER_RESET;
    // Board.reset sets the switches its own way; ALE sets every input before every frame, see applyAction.
    this.frame.reset();
    for (const paddle of this.paddles) paddle.reset();
    this.cpuCycles = 0;
    this.paddleValues[0] = this.paddleValues[1] = PADDLE_DEFAULT_VALUE;
    this.updatePaddles();
    this.applyAction(Action.NOOP);
  }

  /** ALE's `setPaddleLimits` (settings paddle_min / paddle_max). */
  setPaddleLimits(min: number, max: number): void {
    this.paddleMin = min;
    this.paddleMax = max;
  }

  /**
   * ALEState::resetPaddles: the first `count` paddles to the middle of their range. Single-player ALE centres
   * paddles 0 and 1 (count 2); Multi-Agent ALE centres all four (count 4), see the PettingZoo notes 2.2.
   */
  resetPaddles(count = 2): void {
    const centre = Math.trunc((this.paddleMin + this.paddleMax) / 2);
    for (let p = 0; p < count; p++) this.paddleValues[p] = centre;
    this.updatePaddles();
  }

  /** Current paddle resistances of players A-D. */
  get paddlePositions(): number[] {
    return [...this.paddleValues];
  }

  /**
   * Wires the four paddle values to INPT0-3. Stella's Paddles.cxx: without swapping, a jack's paddle 0 is pin 9
   * (INPT0 / INPT2) and paddle 1 pin 5 (INPT1 / INPT3); Controller.SwapPaddles exchanges them within each jack.
   * Players A/B are the left jack's paddles, C/D the right jack's.
   */
  private updatePaddles(): void {
    const v = this.paddleValues;
    const [l0, l1, r0, r1] = this.swapPaddles ? [v[1], v[0], v[3], v[2]] : [v[0], v[1], v[2], v[3]];
    this.paddles[0].setResistance(this.leftPaddles ? l0 : MAXIMUM_RESISTANCE);
    this.paddles[1].setResistance(this.leftPaddles ? l1 : MAXIMUM_RESISTANCE);
    this.paddles[2].setResistance(this.rightPaddles ? r0 : MAXIMUM_RESISTANCE);
    this.paddles[3].setResistance(this.rightPaddles ? r1 : MAXIMUM_RESISTANCE);
  }

  /**
   * Sets the inputs for the following frames for players A and B (single-player ALE's applyActionJoysticks /
   * applyActionPaddles): `applyInputs` with two players.
   */
  applyAction(playerA: number, playerB: number = Action.NOOP, difficulty = 0, select = false): void {
    this.twoPlayers[0] = playerA;
    this.twoPlayers[1] = playerB;
    this.applyInputs(this.twoPlayers, difficulty, select);
  }

  /**
   * Sets the inputs for the following frames from one action per player (`actions[k]` drives player k: A, B, C, D;
   * 1 to 4 entries), as ALEState::applyActionJoysticks / applyActionPaddles do: every key is released first, then
   * the actions' keys pressed. `difficulty` sets the switches (bit 0: left A, bit 1: right A); RESET from any player
   * presses the console's reset switch, `select` its select switch.
   * Joysticks: A drives the left port's stick and B the right one's (exchanged by Console.SwapPorts); C and D are
   * never wired to a joystick. Paddles: LEFT/RIGHT move paddle k by PADDLE_DELTA (RIGHT lowers the resistance) and
   * FIRE presses its button, so call this once per frame for paddle games, as ALE does. Only the paddles of the
   * players given move, which is how single-player ALE leaves paddles 2 and 3 alone.
   */
  applyInputs(actions: ArrayLike<number>, difficulty = 0, select = false): void {
    const n = actions.length;
    if (n < 1 || n > 4) throw new RangeError(`applyInputs: 1 to 4 players, got ${n}`);
    let reset = false;
    let a = 0;
    let b = 0;
    let c = 0;
    let d = 0;
    for (let k = 0; k < n; k++) {
      const action = actions[k];
      if (action === Action.RESET) {
        reset = true;
        continue;
      }
      const bits = ACTION_SWITCHES[action];
      if (bits === undefined) throw new RangeError(`applyInputs: invalid action ${action}`);
      if (k === 0) a = bits;
      else if (k === 1) b = bits;
      else if (k === 2) c = bits;
      else d = bits;
    }
    this.resetSwitch.toggle(reset);
    this.selectSwitch.toggle(select);
    // 6502.ts reads a pressed difficulty switch as B (SWCHB bit low).
    this.difficultyP0.toggle((difficulty & 1) === 0);
    this.difficultyP1.toggle((difficulty & 2) === 0);
    const j0 = this.joystick0;
    const j1 = this.joystick1;
    if (this.usesPaddles) {
      const v = this.paddleValues;
      const move = (p: number, bits: number) => {
        const delta = bits & RIGHT_BIT ? -PADDLE_DELTA : bits & LEFT_BIT ? PADDLE_DELTA : 0;
        v[p] = Math.min(this.paddleMax, Math.max(this.paddleMin, v[p] + delta));
      };
      move(0, a);
      if (n > 1) move(1, b);
      if (n > 2) move(2, c);
      if (n > 3) move(3, d);
      this.updatePaddles();
      // Paddle buttons are a jack's pins 4 (paddle 0) and 3 (paddle 1): SWCHA bits 7/6 on the left jack (the
      // joystick-0 right/left lines), 3/2 on the right jack (joystick-1 right/left); SwapPaddles exchanges them.
      const fire = (bits: number) => (bits & FIRE_BIT) !== 0;
      const [pin4L, pin3L, pin4R, pin3R] = this.swapPaddles ? [fire(b), fire(a), fire(d), fire(c)] : [fire(a), fire(b), fire(c), fire(d)];
      j0.right.toggle(this.leftPaddles && pin4L);
      j0.left.toggle(this.leftPaddles && pin3L);
      j0.up.toggle(false);
      j0.down.toggle(false);
      j0.fire.toggle(false);
      j1.right.toggle(this.rightPaddles && pin4R);
      j1.left.toggle(this.rightPaddles && pin3R);
      j1.up.toggle(false);
      j1.down.toggle(false);
      j1.fire.toggle(false);
      return;
    }
    const [left, right] = this.swapPorts ? [b, a] : [a, b];
    j0.up.toggle((left & UP_BIT) !== 0);
    j0.down.toggle((left & DOWN_BIT) !== 0);
    j0.left.toggle((left & LEFT_BIT) !== 0);
    j0.right.toggle((left & RIGHT_BIT) !== 0);
    j0.fire.toggle((left & FIRE_BIT) !== 0);
    j1.up.toggle((right & UP_BIT) !== 0);
    j1.down.toggle((right & DOWN_BIT) !== 0);
    j1.left.toggle((right & LEFT_BIT) !== 0);
    j1.right.toggle((right & RIGHT_BIT) !== 0);
    j1.fire.toggle((right & FIRE_BIT) !== 0);
  }

  /**
   * Runs the console for one video frame (Stella's TIA::update). With `render = false` the TIA skips writing pixels,
   * leaving `screen` as it was; game logic (RAM, collisions, timers) is identical either way.
   */
  emulateFrame(render = true): void {
    const frame = this.frame;
    const tia = this.tia;
    const pia = this.pia;
    const cpu = this.cpu;
    frame.renderEnabled = render;
    frame.startFrame();
    for (;;) {
      tia.cycle();
      tia.cycle();
      tia.cycle();
      pia.cycle();
      cpu.cycle();
      this.cpuCycles++;
      if (frame.frameEnded) {
        // Stella stops the CPU after the instruction that ended the frame.
        if (cpu.executionState === 1) break;
      } else if (frame.line > RUNAWAY_FRAME_SCANLINES) {
        break;
      }
    }
    this.framesEmulated++;
  }

  /** The screen as RGB (height x 160 x 3) into `out`, ALE's getScreenRGB. */
  getScreenRGB(out: Uint8Array): Uint8Array {
    screenToRgb(this.screen, out);
    return out;
  }

  /** The screen as ALE's grey levels (height x 160) into `out`, ALE's getScreenGrayscale. */
  getScreenGrayscale(out: Uint8Array): Uint8Array {
    screenToGrayscale(this.screen, out);
    return out;
  }

  /** A RIOT RAM byte by ALE's index 0..127 (address $80 + index), as RomUtils' readRam. */
  readRam(index: number): number {
    return this.ram[index & 0x7f];
  }
}

/**
 * 6502.ts's bus announces every access through events, which only some bank-switching schemes listen to. When none
 * does, route reads and writes straight to the chips: this is the hottest call in the emulator (once per CPU cycle).
 */
function installLeanBus(bus: BusInternals): void {
  if (bus.event.read.hasHandlers || bus.event.write.hasHandlers || bus.event.transition.hasHandlers) return;
  const cartridge = bus._cartridge;
  const pia = bus._pia;
  const tia = bus._tia;
  bus.read = (address: number): number => {
    address &= 0x1fff;
    bus._lastAddressBusValue = address;
    const value = address & 0x1000 ? cartridge.read(address) : address & 0x80 ? pia.read(address) : tia.read(address);
    bus._lastDataBusValue = value;
    return value;
  };
  bus.write = (address: number, value: number): void => {
    bus._lastDataBusValue = value;
    address &= 0x1fff;
    bus._lastAddressBusValue = address;
    if (address & 0x1000) cartridge.write(address, value);
    else if (address & 0x80) pia.write(address, value);
    else tia.write(address, value);
  };
}
