// Our own Atari 2600 core, built the way ALE's Stella 3.x is (src/ale/emucore): the M6502 "low" CPU (m6502.ts),
// the M6532 RIOT (riot.ts), the lazily drawing TIA (tia.ts) and the cartridge (cart.ts), on Stella's bus map:
//
//   A12 set                 -> cartridge            A12, A7 clear        -> TIA (reads: A0-A3, writes: A0-A5)
//   A12 clear, A7 set, A9 0 -> RIOT RAM (A0-A6)      A12 clear, A7, A9 set -> RIOT ports and timer
//
// `Atari2600` is the console ALEInterface drives. Inputs are kept per port, so both joysticks, all four paddles and
// their buttons can be driven (`setJoystick`, `setPaddle`); `applyAction` is ALE's mapping of one or two players'
// actions onto them. One `emulateFrame()` runs until Stella 3.x's frame boundary; `emulateFrame(false)` skips
// writing pixels (objects still move and collide), for the frames a frame-skipping caller never looks at.

import {
  ACTION_SWITCHES,
  ALE_SYSTEM_RANDOM_SEED,
  Action,
  DOWN_BIT,
  FIRE_BIT,
  LEFT_BIT,
  MAXIMUM_RESISTANCE,
  MINIMUM_RESISTANCE,
  PADDLE_DEFAULT_VALUE,
  PADDLE_DELTA,
  PADDLE_MAX,
  PADDLE_MIN,
  RIGHT_BIT,
  UP_BIT,
  type ConsoleOptions,
} from "./controls.ts";
import { createCartridge, detectCartridgeType, type Cartridge } from "./cart.ts";
// std::mt19937 is the generator behind Stella's Random in ALE.
import { Mt19937 } from "../torch/rng.ts";
import { M6502 } from "./m6502.ts";
import { NTSC_PALETTE, PAL_PALETTE, ScreenRgbCache, screenToGrayscale, type Palette } from "./palette.ts";
import { Riot } from "./riot.ts";
import { Tia } from "./tia.ts";

/** SWCHB bits no switch drives: Stella's Switches start from $FF and never change bits 2, 4 and 5. */
const SWCHB_UNUSED_BITS = 0x34;
/** SWCHB bit 3: colour TV (ALE's Console.TelevisionType COLOR). */
const SWCHB_COLOR = 0x08;
/** Frames Stella's Console constructor runs to tell NTSC from PAL (Console.cxx), before ALE's first reset. */
const DISPLAY_FORMAT_DETECTION_FRAMES = 60;
/** Of those, frames from this one on count, and a frame longer than PAL_SCANLINES scanlines counts as PAL. */
const DISPLAY_FORMAT_FIRST_COUNTED = 30;
const PAL_SCANLINES = 285;
/** PAL when at least this many counted frames are (Console.cxx). */
const PAL_FRAMES_NEEDED = 15;

/** ALE moves a paddle by PADDLE_DELTA per frame: RIGHT lowers the resistance, LEFT raises it. */
function paddleDelta(switches: number): number {
  return switches & RIGHT_BIT ? -PADDLE_DELTA : switches & LEFT_BIT ? PADDLE_DELTA : 0;
}

/** The joystick switches player `k`'s action presses (none for RESET or a missing player). */
function playerSwitches(actions: ArrayLike<number>, k: number): number {
  return k < actions.length && actions[k] !== Action.RESET ? ACTION_SWITCHES[actions[k]] : 0;
}

/**
 * The console with a cartridge inserted, switched off: `powerOn` switches it on (ALE's loadROM), and nothing is
 * emulated before that. ALEInterface.resetGame powers it on at the first reset, with seeds only known then, so the
 * constructor does not (its 60 detection frames would be thrown away).
 */
export class Atari2600 {
  readonly width = 160;
  readonly height: number;
  readonly cartridgeType: string;
  readonly usesPaddles: boolean;
  /** The display format: PAL cartridges get PAL frame lengths, colour loss and ALE's PAL palette. */
  readonly displayFormat: "NTSC" | "PAL";
  /** What Stella's 60-frame detection found at the last power-on (null when the cartridge names its format). */
  detectedFormat: "NTSC" | "PAL" | null = null;
  /** ALE's palette for the display format (getScreenRGB, getScreenGrayscale). */
  readonly palette: Palette;
  /** Frames emulated since construction. */
  framesEmulated = 0;
  /**
   * Draw every frame, even those emulated with `render = false`. Stella draws each frame into the buffer two frames
   * back and leaves what the frame does not reach, so a frame that stops short of the window shows pixels of earlier
   * ones: ALEInterface sets this while a reset runs (Qbert's last reset frames repaint nothing).
   */
  drawAllFrames = false;
  /** A drawn frame came out stale (see emulateFrame): every frame is drawn from then on. */
  private framesVary = false;
  /** Stella's System data bus state: the last value read or written. */
  dataBus = 0;
  /** SWCHA as the RIOT reads it (pressed = 0). */
  swcha = 0xff;
  /** SWCHB as the RIOT reads it. */
  swchb = SWCHB_UNUSED_BITS | SWCHB_COLOR | 0x03;
  /** Resistance on INPT0..INPT3 (left jack pins 9 and 5, right jack pins 9 and 5). */
  readonly paddleResistance = new Int32Array([
    MAXIMUM_RESISTANCE,
    MAXIMUM_RESISTANCE,
    MAXIMUM_RESISTANCE,
    MAXIMUM_RESISTANCE,
  ]);
  /** INPT4 / INPT5 (left / right joystick fire) released. */
  readonly fireReleased = new Uint8Array([1, 1]);

  /** The system clock (Stella's System::cycles), shared by CPU, RIOT and TIA. */
  private readonly clock = { cycles: 0 };
  private readonly cpu: M6502;
  private readonly riot: Riot;
  private readonly tia: Tia;
  private readonly cart: Cartridge;
  private readonly cartWatchesTia: boolean;
  private readonly ramArray: Uint8Array;
  private systemRandom = new Mt19937(ALE_SYSTEM_RANDOM_SEED);
  private readonly leftPaddles: boolean;
  private readonly rightPaddles: boolean;
  private readonly swapPaddles: boolean;
  private readonly swapPorts: boolean;
  private readonly detectFormat: boolean;
  /**
   * Resistance of paddles 0-3 (players A-D). Single-player ALE only ever sets paddles 0 and 1, so 2 and 3 stay at 0
   * (minimum resistance, INPT2/3 read high) unless a caller drives four players.
   */
  private readonly paddleValues = [PADDLE_DEFAULT_VALUE, PADDLE_DEFAULT_VALUE, MINIMUM_RESISTANCE, MINIMUM_RESISTANCE];
  /** Paddle buttons of players A-D pressed. */
  private readonly paddleFire = [false, false, false, false];
  /** The RGB of the last screen converted (getScreenRGB converts only the rows that changed). */
  private readonly rgbCache: ScreenRgbCache;
  /** Reused by `applyAction` so the two-player call allocates nothing per frame. */
  private readonly twoPlayers = [0, 0];

  constructor(rom: Uint8Array, options: ConsoleOptions & { md5?: string } = {}) {
    const {
      displayFormat = "NTSC",
      yStart = 34,
      leftController = "joystick",
      rightController = "joystick",
      swapPaddles = false,
    } = options;
    // Console.cxx: a PAL cartridge whose entry leaves Display.Height at 210 shows 250 lines.
    const height = options.height ?? (displayFormat === "PAL" ? 250 : 210);
    if (!Number.isInteger(yStart) || yStart < 0 || yStart > 64)
      throw new RangeError(`Atari2600: yStart ${yStart} outside Stella's 0..64`);
    if (!Number.isInteger(height) || height < 210 || height > 256)
      throw new RangeError(`Atari2600: height ${height} outside Stella's 210..256`);
    this.height = height;
    this.displayFormat = displayFormat;
    this.detectFormat = options.detectFormat ?? true;
    this.palette = displayFormat === "PAL" ? PAL_PALETTE : NTSC_PALETTE;
    this.rgbCache = new ScreenRgbCache(160 * height, this.palette);
    this.leftPaddles = leftController === "paddles";
    this.rightPaddles = rightController === "paddles";
    this.usesPaddles = this.leftPaddles || this.rightPaddles;
    this.swapPaddles = swapPaddles;
    this.swapPorts = options.swapPorts ?? false;
    if (this.swapPorts && this.usesPaddles) throw new Error("Atari2600: swapPorts is only supported with joysticks");

    const image = new Uint8Array(rom);
    this.cartridgeType = options.cartridgeType ?? detectCartridgeType(image);
    this.cart = createCartridge(image, this.cartridgeType, options.md5);
    this.cartWatchesTia = this.cart.watchesTiaWrites;
    this.riot = new Riot(this.clock, this);
    this.ramArray = this.riot.ram;
    this.tia = new Tia(this.clock, this, yStart, height);
    this.tia.allowHmoveBlanks = options.hmoveBlanks ?? true;
    this.cpu = new M6502(this, this.clock);
    this.cart.mapper = this.cpu;
    this.cpu.mapRam(this.ramArray);
    this.tia.attachCpu(this.cpu);
  }

  /** The 128 bytes of RIOT RAM ($80-$FF), live. */
  get ram(): Uint8Array {
    return this.ramArray;
  }

  /** The last frame's screen, one TIA colour byte per pixel, row-major `height x 160`. */
  get screen(): Uint8Array {
    return this.tia.screen;
  }

  // ---- the bus (Stella's System::peek / poke with the 2600's page map) ----

  peek(address: number): number {
    const a = address & 0x1fff;
    let value: number;
    if (a & 0x1000) value = this.cart.peek(address);
    else if (a & 0x80) value = a & 0x200 ? this.riot.peek(a) : this.ramArray[a & 0x7f];
    else value = this.tia.peek(a);
    this.dataBus = value;
    return value;
  }

  poke(address: number, value: number): void {
    const a = address & 0x1fff;
    if (a & 0x1000) {
      this.cart.poke(address, value);
    } else if (a & 0x80) {
      if (a & 0x200) this.riot.poke(a, value);
      else this.ramArray[a & 0x7f] = value;
    } else {
      if (this.cartWatchesTia && a < 0x40) this.cart.poke(address, value);
      this.tia.poke(a, value);
    }
    this.dataBus = value;
  }

  peekTimerQuietly(address: number, cycles: number): number {
    return this.riot.peekTimerQuietly(address, cycles);
  }

  /** Stella's System::resetCycles tells the RIOT (the TIA adjusts itself). */
  systemCyclesReset(cycles: number): void {
    this.riot.systemCyclesReset(cycles);
  }

  // ---- power and reset ----

  /**
   * Switches the console on, as ALE does when it loads a ROM: Stella's System generator is seeded with ALE's fixed
   * `system_random_seed` and the RIOT's constructor fills RAM with 128 draws. Stella's Console constructor then
   * auto-detects NTSC/PAL (Display.Format AUTO-DETECT, the default): a System::reset, 60 frames with nothing pressed,
   * another System::reset; one more follows before ALE's first environment reset (found by matching ale-py 0.12.1's
   * post-reset RAM and RIOT timer), and each draws a RIOT timer. The 60 frames matter to games that never clear some
   * RAM: Surround's frame counter at $FD, which its computer player's moves depend on. `seed` fills the
   * cartridge RAM of SC carts, which ALE draws from another generator. Multi-Agent ALE (`multiAgent`) seeds the
   * generator with its random_seed instead (`systemRandomSeed`), its RIOT constructor draws one more number after the
   * RAM (M6532's constructor resets the timer; this moves the detection frames' timers by one draw, which shows in
   * Surround's frame counter for some seeds), and it re-seeds the generator once the console is built, so the first
   * reset's timer is the seed's first draw. The detection runs with an NTSC TIA (the format is not known
   * yet); a cartridge whose entry names its format skips it and the System::reset before it.
   */
  powerOn(seed: number, systemRandomSeed = ALE_SYSTEM_RANDOM_SEED, multiAgent = false): void {
    this.systemRandom = new Mt19937(systemRandomSeed);
    for (let i = 0; i < 128; i++) this.ramArray[i] = this.systemRandom.next() & 0xff;
    if (multiAgent) this.systemRandom.next();
    const cartRam = this.cart.ram;
    if (cartRam !== null) {
      const random = new Mt19937(seed);
      for (let i = 0; i < cartRam.length; i++) cartRam[i] = random.next() & 0xff;
    }
    if (this.detectFormat) {
      this.tia.pal = false;
      this.systemReset();
      let palFrames = 0;
      for (let i = 0; i < DISPLAY_FORMAT_DETECTION_FRAMES; i++) {
        this.emulateFrame(false);
        if (i >= DISPLAY_FORMAT_FIRST_COUNTED && this.tia.scanline > PAL_SCANLINES) palFrames++;
      }
      this.detectedFormat = palFrames >= PAL_FRAMES_NEEDED ? "PAL" : "NTSC";
    }
    this.tia.pal = this.displayFormat === "PAL";
    this.systemReset();
    this.systemReset();
    if (multiAgent) this.systemRandom = new Mt19937(systemRandomSeed);
  }

  /** The next 32-bit draw of the system generator (Multi-Agent ALE draws one per active player per frame). */
  systemRandomNext(): number {
    return this.systemRandom.next();
  }

  /**
   * Stella's System::reset (every ALE reset_game starts with one): clock to 0, RIOT (timer redrawn, RAM kept), TIA,
   * cartridge bank, then the CPU from the reset vector.
   */
  systemReset(): void {
    this.clock.cycles = 0;
    this.riot.reset(this.systemRandom.next());
    this.tia.reset();
    this.cart.reset();
    this.cpu.reset();
    this.paddleValues[0] = this.paddleValues[1] = PADDLE_DEFAULT_VALUE;
    this.applyAction(Action.NOOP);
  }

  // ---- inputs ----

  /** Joystick `port` (0 left, 1 right): UP/DOWN/LEFT/RIGHT/FIRE bits of controls.ts; paddle buttons are separate. */
  setJoystick(port: number, switches: number): void {
    const shift = port === 0 ? 4 : 0;
    let bits = 0x0f;
    if (switches & UP_BIT) bits &= ~0x01;
    if (switches & DOWN_BIT) bits &= ~0x02;
    if (switches & LEFT_BIT) bits &= ~0x04;
    if (switches & RIGHT_BIT) bits &= ~0x08;
    this.swcha = (this.swcha & ~(0x0f << shift)) | (bits << shift);
    this.fireReleased[port] = switches & FIRE_BIT ? 0 : 1;
  }

  /**
   * Paddle `index` 0-3 (0/1 on the left jack's pins 9/5 and buttons on pins 4/3, 2/3 on the right jack): its
   * resistance (Stella's units; MINIMUM/MAXIMUM_RESISTANCE read always high/low) and whether its button is pressed.
   */
  setPaddle(index: number, resistance: number, fire: boolean): void {
    this.paddleResistance[index] = resistance;
    // Buttons: paddle 0 -> pin 4 (SWCHA bit 7 / 3), paddle 1 -> pin 3 (bit 6 / 2).
    const bit = (index & 1 ? 0x40 : 0x80) >> (index & 2 ? 4 : 0);
    this.swcha = fire ? this.swcha & ~bit : this.swcha | bit;
  }

  /** The console switches: RESET, SELECT, and the difficulty switches (bit 0: left A, bit 1: right A). */
  setSwitches(reset: boolean, select: boolean, difficulty: number): void {
    this.swchb =
      SWCHB_UNUSED_BITS |
      SWCHB_COLOR |
      (reset ? 0 : 0x01) |
      (select ? 0 : 0x02) |
      (difficulty & 1 ? 0x40 : 0) |
      (difficulty & 2 ? 0x80 : 0);
  }

  /**
   * ALEState::resetPaddles: the first `count` paddles to the middle of their range (single-player ALE: 2;
   * Multi-Agent ALE: 4).
   */
  resetPaddles(count = 2): void {
    const centre = Math.trunc((PADDLE_MIN + PADDLE_MAX) / 2);
    for (let p = 0; p < count; p++) this.paddleValues[p] = centre;
    this.updatePaddles();
  }

  /**
   * Wires the paddle values and buttons to INPT0-3 and SWCHA. Stella's Paddles.cxx: without swapping, a jack's
   * paddle 0 is pin 9 (INPT0 / INPT2) with its button on pin 4, paddle 1 pin 5 (INPT1 / INPT3) with pin 3;
   * Controller.SwapPaddles exchanges them within each jack. Players A/B are the left jack's paddles, C/D the right's.
   */
  private updatePaddles(): void {
    const v = this.paddleValues;
    const fire = this.paddleFire;
    const r = this.paddleResistance;
    const swap = this.swapPaddles ? 1 : 0;
    for (let jack = 0; jack < 2; jack++) {
      const wired = jack === 0 ? this.leftPaddles : this.rightPaddles;
      for (let pin = 0; pin < 2; pin++) {
        const player = jack * 2 + (pin ^ swap);
        if (wired) this.setPaddle(jack * 2 + pin, v[player], fire[player]);
        else r[jack * 2 + pin] = MAXIMUM_RESISTANCE;
      }
    }
  }

  /**
   * Sets the inputs for the following frames for players A and B, as ALEState::applyActionJoysticks /
   * applyActionPaddles do: `applyInputs` with two players.
   */
  applyAction(playerA: number, playerB: number = Action.NOOP, difficulty = 0, select = false): void {
    this.twoPlayers[0] = playerA;
    this.twoPlayers[1] = playerB;
    this.applyInputs(this.twoPlayers, difficulty, select);
  }

  /**
   * Sets the inputs for the following frames from one action per player (`actions[k]` drives player k: A, B, C, D;
   * 1 to 4 entries): every key is released first, then the actions' keys pressed. `difficulty` sets the switches
   * (bit 0: left A, bit 1: right A); RESET from any player presses the console's reset switch, `select` its select
   * switch. Joysticks: A drives the left port's stick and B the right one's (exchanged by Console.SwapPorts).
   * Paddles: LEFT/RIGHT move paddle k by PADDLE_DELTA (RIGHT lowers the resistance) and FIRE presses its button, so
   * call this once per frame for paddle games, as ALE does; only the paddles of the players given move.
   */
  applyInputs(actions: ArrayLike<number>, difficulty = 0, select = false): void {
    const n = actions.length;
    if (n < 1 || n > 4) throw new RangeError(`applyInputs: 1 to 4 players, got ${n}`);
    let reset = false;
    for (let k = 0; k < n; k++) {
      if (actions[k] === Action.RESET) reset = true;
      else if (ACTION_SWITCHES[actions[k]] === undefined)
        throw new RangeError(`applyAction: invalid action ${actions[k]}`);
    }
    this.setSwitches(reset, select, difficulty);
    if (this.usesPaddles) {
      this.swcha = 0xff;
      this.fireReleased[0] = this.fireReleased[1] = 1;
      for (let k = 0; k < n; k++) {
        const bits = playerSwitches(actions, k);
        this.paddleValues[k] = this.clampPaddle(this.paddleValues[k] + paddleDelta(bits));
        this.paddleFire[k] = (bits & FIRE_BIT) !== 0;
      }
      this.updatePaddles();
      return;
    }
    const a = playerSwitches(actions, 0);
    const b = playerSwitches(actions, 1);
    this.setJoystick(0, this.swapPorts ? b : a);
    this.setJoystick(1, this.swapPorts ? a : b);
  }

  private clampPaddle(value: number): number {
    return Math.min(PADDLE_MAX, Math.max(PADDLE_MIN, value));
  }

  // ---- running ----

  /**
   * Runs the console for one video frame (Stella's TIA::update); `render = false` skips writing pixels unless
   * `drawAllFrames` is set, or a drawn frame has come out with pixels no frame since a skipped one repainted (its
   * frames vary in length): from then on this console draws every frame, so its screens are Stella's again once
   * each buffer has been repainted.
   */
  emulateFrame(render = true): void {
    const draw = render || this.drawAllFrames || this.framesVary;
    this.tia.renderEnabled = draw;
    this.tia.update();
    this.framesEmulated++;
    if (draw && !this.tia.screenExact) this.framesVary = true;
  }

  /** Whether every pixel of `screen` is the one Stella's would be (see Tia.screenExact). */
  get screenExact(): boolean {
    return this.tia.screenExact;
  }

  /** The screen as RGB (height x 160 x 3) into `out`, ALE's getScreenRGB. */
  getScreenRGB(out: Uint8Array): Uint8Array {
    this.rgbCache.convert(this.screen, out, this.tia.rowsWritten);
    return out;
  }

  /** The screen as ALE's grey levels (height x 160) into `out`, ALE's getScreenGrayscale. */
  getScreenGrayscale(out: Uint8Array): Uint8Array {
    screenToGrayscale(this.screen, out, this.palette);
    return out;
  }

  /** A RIOT RAM byte by ALE's index 0..127 (address $80 + index), as RomUtils' readRam. */
  readRam(index: number): number {
    return this.ramArray[index & 0x7f];
  }
}
