// The TIA as ALE's Stella 3.x emulates it (src/ale/emucore/TIA.cxx), which is what ALE's screens, collisions and
// frame boundaries are. Stella 3.x does not step the TIA per colour clock: it draws lazily. Every TIA access first
// draws the screen from where it last stopped up to the current colour clock (plus a per-register delay on writes),
// using the object state as it is, then applies the access. Each object is a precomputed mask over the 160 pixels
// of a line (position, copies, size, the player's and missile's one-pixel delays); HMOVE moves objects immediately by
// a table indexed by the CPU cycle of the strobe; collisions are latched while drawing. The screen is only drawn
// inside the window ALE shows (Display.YStart / Display.Height); outside it only the clocks advance, so objects and
// collisions outside the window are never evaluated, exactly like Stella.
//
// Frames: Stella's TIA::update runs the CPU until the program clears VSYNC at least 228 colour clocks after setting
// it, or writes to the TIA more than 290 scanlines into the frame, or 25,000 instructions pass (a "partial" frame,
// whose unfinished part Stella greys out and continues next time). A new frame starts on the line the CPU stopped
// on, at the same colour clock; the system clock is reset to 0 at each frame start, as Stella's is (values that
// depend on it, like the paddle timing, inherit Stella's 32-bit arithmetic).
//
// Rendering can be switched off per frame (`renderEnabled = false`): the drawing loop then only computes the
// collision latches, which is all that game logic can observe.

import { MAXIMUM_RESISTANCE, MINIMUM_RESISTANCE } from "./controls.ts";
import type { M6502 } from "./m6502.ts";

// Module-level copies: tsx compiles imports to getter calls, which a paddle game's every INPT read would pay.
const MIN_RESISTANCE = MINIMUM_RESISTANCE;
const MAX_RESISTANCE = MAXIMUM_RESISTANCE;

// Object bits of Stella's TIABit enum, and the CTRLPF-derived bits it ORs into the same index.
const P0 = 0x01,
  M0 = 0x02,
  P1 = 0x04,
  M1 = 0x08,
  BL = 0x10,
  PF = 0x20,
  SCORE = 0x40,
  PRIORITY = 0x80;
const HBLANK = 68;
/** The "Cosmic Ark" bug's missile-0 moves per scanline, cycled (Stella's TIA). */
const COSMIC_ARK_MOTION = Int32Array.of(18, 33, 0, 17);
/** A frame without VSYNC ends at the first TIA write after this many scanlines (NTSC; PAL 342). */
const MAXIMUM_SCANLINES_NTSC = 290;
const MAXIMUM_SCANLINES_PAL = 342;
/** Stella's TIA::update executes at most this many instructions per call. */
const INSTRUCTIONS_PER_UPDATE = 25000;
/** Spans shorter than this are drawn rather than matched against remembered ones (see updateScanline). */
const MIN_REUSED_SPAN = 16;
/** Int32 entries of a span's key (see setSpanKey). */
const SPAN_KEY_SIZE = 6;
/** Spans recorded per frame-buffer row (see updateScanline); a row drawn in more spans is drawn every frame. */
const RECORDED_SPANS = 8;
/** Int32 entries of a recorded span: its hpos, its collisions, its key. */
const RECORD_SIZE = 2 + SPAN_KEY_SIZE;
/** `owedClock` when no drawing is owed: below any clock of the frame. */
const NOTHING_OWED = -0x7fffffff;
/** Rows of Stella's frame buffers. */
const FRAME_ROWS = 300;
const FRAME_BUFFER_SIZE = 160 * FRAME_ROWS;

// ---------------------------------------------------------------------------------------------------------------
// Mask tables (TIA::compute*Table). Each object mask is 320 entries (a line and its wrap-around copy); an object at
// position p is read from offset 160 - (p & ~3) of the table for alignment p & 3.

const BALL_MASK = new Uint8Array(4 * 4 * 320);
const ballIndex = (align: number, size: number) => (align * 4 + size) * 320;
/** Missile masks, plus 640 zeros at the end for the Cosmic Ark bug's "missile off" line. */
const MISSILE_MASK = new Uint8Array(4 * 8 * 4 * 320 + 640);
const missileIndex = (align: number, number: number, size: number) => ((align * 8 + number) * 4 + size) * 320;
const MISSILE_DISABLED = 4 * 8 * 4 * 320;
const PLAYER_MASK = new Uint8Array(4 * 2 * 8 * 320);
const playerIndex = (align: number, enable: number, mode: number) => ((align * 2 + enable) * 8 + mode) * 320;
/**
 * Which bit of the 20-bit playfield register (see buildTables) each pixel shows: [x] when the right half repeats
 * the left, [160 + x] when it mirrors it. Shift counts rather than masks, so that drawing can take the bit as 0 or 1
 * without a branch (data-dependent branches mispredict on playfield patterns).
 */
const PLAYFIELD_BIT = new Int8Array(2 * 160);
const COLLISION = new Uint16Array(64);
const REFLECT = new Uint8Array(256);
/** For each NUSIZ mode, old and new position: 1 = inside a copy's pixels, -1 = inside its 4-clock start delay. */
const RESET_WHEN = new Int8Array(8 * 160 * 160);
/** Colour index (0 BK, 1 PF, 2 P0, 3 P1) for [left/right half][enabled bits | score/priority bits]. */
const PRIORITY_ENCODER = new Uint8Array(2 * 256);

/** The copies drawn by each NUSIZ mode: offsets of the copies after the first (Stella's player/missile tables). */
const COPIES: readonly (readonly number[])[] = [[], [16], [32], [16, 32], [64], [], [32, 64], []];

function buildTables(): void {
  for (let size = 0; size < 4; size++) {
    for (let x = 0; x < 160; x++) BALL_MASK[ballIndex(0, size) + x] = x < 1 << size ? 1 : 0;
    for (let x = 0; x < 160; x++) BALL_MASK[ballIndex(0, size) + x + 160] = BALL_MASK[ballIndex(0, size) + x];
  }
  for (let number = 0; number < 8; number++) {
    for (let size = 0; size < 4; size++) {
      const base = missileIndex(0, number, size);
      const width = 1 << size;
      for (let x = 0; x < 160 + 72; x++) {
        let on = x < width;
        for (const offset of COPIES[number]) if (x - offset >= 0 && x - offset < width) on = true;
        if (on) MISSILE_MASK[base + (x % 160)] = 1;
      }
      for (let x = 0; x < 160; x++) MISSILE_MASK[base + x + 160] = MISSILE_MASK[base + x];
    }
  }
  for (let enable = 0; enable < 2; enable++) {
    for (let mode = 0; mode < 8; mode++) {
      const base = playerIndex(0, enable, mode);
      for (let x = 0; x < 160 + 72; x++) {
        let bits = 0;
        if (mode === 5) {
          // Double and quad width players start one pixel late (Stella's note).
          if (enable === 0 && x > 0 && x <= 16) bits = 0x80 >> ((x - 1) >> 1);
        } else if (mode === 7) {
          if (enable === 0 && x > 0 && x <= 32) bits = 0x80 >> ((x - 1) >> 2);
        } else {
          // `enable` 1 suppresses the first copy (the one a RESPx during the line has already started).
          if (enable === 0 && x < 8) bits = 0x80 >> x;
          else for (const offset of COPIES[mode]) if (x - offset >= 0 && x - offset < 8) bits = 0x80 >> (x - offset);
        }
        if (bits) PLAYER_MASK[base + (x % 160)] = bits;
      }
      for (let x = 0; x < 160; x++) PLAYER_MASK[base + x + 160] = PLAYER_MASK[base + x];
    }
  }
  // Alignments 1..3 are alignment 0 shifted right by that many pixels.
  for (let align = 1; align < 4; align++) {
    for (let size = 0; size < 4; size++) {
      for (let x = 0; x < 320; x++)
        BALL_MASK[ballIndex(align, size) + x] = BALL_MASK[ballIndex(0, size) + ((x + 320 - align) % 320)];
    }
    for (let number = 0; number < 8; number++) {
      for (let size = 0; size < 4; size++) {
        for (let x = 0; x < 320; x++) {
          MISSILE_MASK[missileIndex(align, number, size) + x] =
            MISSILE_MASK[missileIndex(0, number, size) + ((x + 320 - align) % 320)];
        }
      }
    }
    for (let enable = 0; enable < 2; enable++) {
      for (let mode = 0; mode < 8; mode++) {
        for (let x = 0; x < 320; x++) {
          PLAYER_MASK[playerIndex(align, enable, mode) + x] =
            PLAYER_MASK[playerIndex(0, enable, mode) + ((x + 320 - align) % 320)];
        }
      }
    }
  }
  // Playfield: PF0 bits 4-7, PF1 bits 7-0, PF2 bits 0-7 as one 20-bit register, 4 pixels per bit; the right half
  // repeats (CTRLPF bit 0 clear) or mirrors the left.
  for (let x = 0; x < 160; x++) {
    const left = x % 80;
    let bit: number;
    if (left < 16) bit = left >> 2;
    else if (left < 48) bit = 11 - ((left - 16) >> 2);
    else bit = 12 + ((left - 48) >> 2);
    PLAYFIELD_BIT[x] = bit;
    if (x < 80) PLAYFIELD_BIT[160 + x] = bit;
    else if (x < 112) PLAYFIELD_BIT[160 + x] = 19 - ((x - 80) >> 2);
    else if (x < 144) PLAYFIELD_BIT[160 + x] = 4 + ((x - 112) >> 2);
    else PLAYFIELD_BIT[160 + x] = 3 - ((x - 144) >> 2);
  }
  const pairs: [number, number, number][] = [
    [M0, P1, 0x0001],
    [M0, P0, 0x0002],
    [M1, P0, 0x0004],
    [M1, P1, 0x0008],
    [P0, PF, 0x0010],
    [P0, BL, 0x0020],
    [P1, PF, 0x0040],
    [P1, BL, 0x0080],
    [M0, PF, 0x0100],
    [M0, BL, 0x0200],
    [M1, PF, 0x0400],
    [M1, BL, 0x0800],
    [BL, PF, 0x1000],
    [P0, P1, 0x2000],
    [M0, M1, 0x4000],
  ];
  for (let i = 0; i < 64; i++) for (const [a, b, bit] of pairs) if (i & a && i & b) COLLISION[i] |= bit;
  for (let i = 0; i < 256; i++) {
    let r = 0;
    for (let t = 1; t <= 128; t *= 2) r = (r << 1) | (i & t ? 1 : 0);
    REFLECT[i] = r;
  }
  for (let mode = 0; mode < 8; mode++) {
    const copies = [0, ...COPIES[mode]];
    const width = mode === 5 ? 16 : mode === 7 ? 32 : 8;
    for (let oldx = 0; oldx < 160; oldx++) {
      const base = (mode * 160 + oldx) * 160;
      for (let newx = 0; newx < 160 + 72 + 5; newx++) {
        for (const offset of copies) {
          if (newx >= oldx + offset && newx < oldx + offset + 4) RESET_WHEN[base + (newx % 160)] = -1;
        }
        for (const offset of copies) {
          if (newx >= oldx + offset + 4 && newx < oldx + offset + 4 + width) RESET_WHEN[base + (newx % 160)] = 1;
        }
      }
    }
  }
  for (let half = 0; half < 2; half++) {
    for (let enabled = 0; enabled < 256; enabled++) {
      let color = 0;
      if (enabled & PRIORITY) {
        if (enabled & (P1 | M1)) color = 3;
        if (enabled & (P0 | M0)) color = 2;
        if (enabled & BL) color = 1;
        if (enabled & PF) color = 1;
      } else {
        if (enabled & BL) color = 1;
        if (enabled & PF) color = enabled & SCORE ? (half === 0 ? 2 : 3) : 1;
        if (enabled & (P1 | M1)) color = color !== 2 ? 3 : 2;
        if (enabled & (P0 | M0)) color = 2;
      }
      PRIORITY_ENCODER[half * 256 + enabled] = color;
    }
  }
}
buildTables();
// A span's key packs mask offsets into 13 (ball), 15 (players) and 16 (missiles) bits.
if (BALL_MASK.length > 1 << 13 || PLAYER_MASK.length > 1 << 15 || MISSILE_MASK.length > 1 << 16)
  throw new Error("TIA mask tables outgrew the span key");

/**
 * The three mask tables one after the other: drawing reads an object's mask at its offset plus its table's start
 * here, so one function with module-level tables draws them all.
 */
const PLAYER_TABLE = BALL_MASK.length;
const MISSILE_TABLE = PLAYER_TABLE + PLAYER_MASK.length;
const OBJECT_MASK = new Uint8Array(MISSILE_TABLE + MISSILE_MASK.length);
OBJECT_MASK.set(BALL_MASK, 0);
OBJECT_MASK.set(PLAYER_MASK, PLAYER_TABLE);
OBJECT_MASK.set(MISSILE_MASK, MISSILE_TABLE);
/**
 * For each position of OBJECT_MASK, the first position at or after it, in the same 320-entry row, where the mask
 * is non-zero (the row's end if none), so that drawing steps from one covered pixel to the next: an object usually
 * covers a few pixels of a span, and testing the others would cost a mispredicted branch each.
 */
const NEXT_COVERED = new Int32Array(OBJECT_MASK.length + 1);
NEXT_COVERED[OBJECT_MASK.length] = OBJECT_MASK.length;
for (let x = OBJECT_MASK.length - 1; x >= 0; x--) {
  NEXT_COVERED[x] = OBJECT_MASK[x] !== 0 ? x : x % 320 === 319 ? x + 1 : NEXT_COVERED[x + 1];
}

/**
 * Adds the object `bit` to `bits` (the objects other than the playfield covering each pixel hpos.., indexed from 0)
 * over the pixels where the object whose mask starts at offset `base` of OBJECT_MASK shows (players: where its mask
 * bit is set in the graphics `grp`), and returns the collisions it makes there with what is already drawn, the
 * playfield (`pf` with mask offset `pfBase`) included. Collisions are pairwise, so adding objects one at a time and
 * taking each new pixel's pairs gives exactly Stella's per-pixel collision table lookup.
 */
function addObject(
  bits: Uint8Array,
  base: number,
  hpos: number,
  count: number,
  bit: number,
  grp: number,
  pf: number,
  pfBase: number,
): number {
  const first = base + hpos; // mask position of pixel hpos
  const end = first + count;
  let collision = 0;
  for (let x = NEXT_COVERED[first]; x < end; x = NEXT_COVERED[x + 1]) {
    if (grp !== 0 && (grp & OBJECT_MASK[x]) === 0) continue;
    const i = x - first;
    const under = bits[i] | (((pf >>> PLAYFIELD_BIT[pfBase + i]) & 1) * PF);
    collision |= COLLISION[under | bit];
    bits[i] |= bit;
  }
  return collision;
}

/**
 * Colours the pixels of a span the object whose mask starts at offset `base` of OBJECT_MASK covers (when
 * `render`), by the priority encoder over all the objects `bits` says cover each, and clears those `bits` for the
 * next span. The first object to reach a pixel colours and clears it, so the objects after it, and the pixels a
 * player's graphics leave empty, find zero bits there and skip them.
 */
function colourObjects(
  buffer: Uint8Array,
  start: number,
  bits: Uint8Array,
  base: number,
  hpos: number,
  count: number,
  pf: number,
  pfBase: number,
  priority: number,
  color: Uint8Array,
  render: boolean,
): void {
  const first = base + hpos;
  const end = first + count;
  // Pixels left of 80 use the left-half encoder (score mode colours the playfield per half).
  const half = base + 80;
  for (let x = NEXT_COVERED[first]; x < end; x = NEXT_COVERED[x + 1]) {
    const i = x - first;
    const objects = bits[i];
    if (objects === 0) continue;
    bits[i] = 0;
    if (render)
      buffer[start + i] =
        color[
          PRIORITY_ENCODER[
            (x < half ? 0 : 256) + (objects | (((pf >>> PLAYFIELD_BIT[pfBase + i]) & 1) * PF) | priority)
          ]
        ];
  }
}

/** Stella's ourPokeDelayTable: colour clocks a write takes effect late (-1: playfield, depends on the clock). */
// prettier-ignore
const POKE_DELAY = new Int8Array([
  0, 1, 0, 0, 8, 8, 0, 0, 0, 0, 0, 1, 1, -1, -1, -1, 0, 0, 8, 8, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
]);
const PF_DELAY = Int8Array.of(4, 5, 2, 3);
/** PF_DELAY by the write's colour clock in the line (the CPU cycle's phase, without a division). */
const PF_DELAY_AT = Int8Array.from({ length: 228 }, (_, clock) => PF_DELAY[Math.floor(clock / 3) & 3]);
/** The CPU cycle of each colour clock of a line. */
const LINE_CYCLE = Uint8Array.from({ length: 228 }, (_, clock) => Math.floor(clock / 3));
/** The writes changesNothingDrawn lets through that still set a register: WSYNC, HMxx, HMCLR. */
const DEFERRED_WRITE_SETS = new Uint8Array(64);
for (const address of [0x02, 0x20, 0x21, 0x22, 0x23, 0x24, 0x2b]) DEFERRED_WRITE_SETS[address] = 1;
/** The object every pair of collision registers 0-6 (CXM0P .. CXBLPF) has (see collidesNothingOwed). */
const READ_OBJECT = Uint8Array.of(M0, M1, P0, P1, M0, M1, BL);
/**
 * The objects whose pixels a write to each register changes, for showsNothingOwed: the players' graphics (GRP0 and
 * GRP1 also load each other's and the ball's delay registers), the missiles' and the ball's enables, the players'
 * colours (also the missiles', and the playfield's in score mode). 0: the register is not decided by objects.
 */
const WRITE_OBJECTS = new Uint8Array(64);
WRITE_OBJECTS[0x06] = P0 | M0;
WRITE_OBJECTS[0x07] = P1 | M1;
WRITE_OBJECTS[0x1b] = P0 | P1;
WRITE_OBJECTS[0x1c] = P0 | P1 | BL;
WRITE_OBJECTS[0x1d] = M0;
WRITE_OBJECTS[0x1e] = M1;
WRITE_OBJECTS[0x1f] = BL;

/** Stella's ourHMOVEBlankEnableCycles: an HMOVE on these CPU cycles of a line blanks its first 8 pixels. */
const HMOVE_BLANK_CYCLES = new Uint8Array(76);
for (let cycle = 0; cycle <= 20; cycle++) HMOVE_BLANK_CYCLES[cycle] = 1;
HMOVE_BLANK_CYCLES[75] = 1;

/** Stella's ourCompleteMotionTable[cycle][HMxx >> 4]: how far an HMOVE strobed on each CPU cycle moves an object. */
// prettier-ignore
const MOTION_ROWS: readonly (readonly number[])[] = [
  [0, -1, -2, -3, -4, -5, -6, -7, 8, 7, 6, 5, 4, 3, 2, 1],
  [0, -1, -2, -3, -4, -5, -6, -7, 8, 7, 6, 5, 4, 3, 2, 1],
  [0, -1, -2, -3, -4, -5, -6, -7, 8, 7, 6, 5, 4, 3, 2, 1],
  [0, -1, -2, -3, -4, -5, -6, -7, 8, 7, 6, 5, 4, 3, 2, 1],
  [0, -1, -2, -3, -4, -5, -6, -6, 8, 7, 6, 5, 4, 3, 2, 1],
  [0, -1, -2, -3, -4, -5, -5, -5, 8, 7, 6, 5, 4, 3, 2, 1],
  [0, -1, -2, -3, -4, -5, -5, -5, 8, 7, 6, 5, 4, 3, 2, 1],
  [0, -1, -2, -3, -4, -4, -4, -4, 8, 7, 6, 5, 4, 3, 2, 1],
  [0, -1, -2, -3, -3, -3, -3, -3, 8, 7, 6, 5, 4, 3, 2, 1],
  [0, -1, -2, -2, -2, -2, -2, -2, 8, 7, 6, 5, 4, 3, 2, 1],
  [0, -1, -2, -2, -2, -2, -2, -2, 8, 7, 6, 5, 4, 3, 2, 1],
  [0, -1, -1, -1, -1, -1, -1, -1, 8, 7, 6, 5, 4, 3, 2, 1],
  [0, 0, 0, 0, 0, 0, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1],
  [1, 1, 1, 1, 1, 1, 1, 1, 8, 7, 6, 5, 4, 3, 2, 1],
  [1, 1, 1, 1, 1, 1, 1, 1, 8, 7, 6, 5, 4, 3, 2, 1],
  [2, 2, 2, 2, 2, 2, 2, 2, 8, 7, 6, 5, 4, 3, 2, 2],
  [3, 3, 3, 3, 3, 3, 3, 3, 8, 7, 6, 5, 4, 3, 3, 3],
  [4, 4, 4, 4, 4, 4, 4, 4, 8, 7, 6, 5, 4, 4, 4, 4],
  [4, 4, 4, 4, 4, 4, 4, 4, 8, 7, 6, 5, 4, 4, 4, 4],
  [5, 5, 5, 5, 5, 5, 5, 5, 8, 7, 6, 5, 5, 5, 5, 5],
  [6, 6, 6, 6, 6, 6, 6, 6, 8, 7, 6, 6, 6, 6, 6, 6],
  // cycles 21..54: no motion
  ...Array.from({ length: 34 }, () => new Array(16).fill(0)),
  [0, 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0, 0, 0, 0],
  [0, 0, 0, 0, 0, 0, -1, -2, 0, 0, 0, 0, 0, 0, 0, 0],
  [0, 0, 0, 0, 0, -1, -2, -3, 0, 0, 0, 0, 0, 0, 0, 0],
  [0, 0, 0, 0, 0, -1, -2, -3, 0, 0, 0, 0, 0, 0, 0, 0],
  [0, 0, 0, 0, -1, -2, -3, -4, 0, 0, 0, 0, 0, 0, 0, 0],
  [0, 0, 0, -1, -2, -3, -4, -5, 0, 0, 0, 0, 0, 0, 0, 0],
  [0, 0, -1, -2, -3, -4, -5, -6, 0, 0, 0, 0, 0, 0, 0, 0],
  [0, 0, -1, -2, -3, -4, -5, -6, 0, 0, 0, 0, 0, 0, 0, 0],
  [0, -1, -2, -3, -4, -5, -6, -7, 0, 0, 0, 0, 0, 0, 0, 0],
  [-1, -2, -3, -4, -5, -6, -7, -8, 0, 0, 0, 0, 0, 0, 0, 0],
  [-2, -3, -4, -5, -6, -7, -8, -9, 0, 0, 0, 0, 0, 0, 0, -1],
  [-2, -3, -4, -5, -6, -7, -8, -9, 0, 0, 0, 0, 0, 0, 0, -1],
  [-3, -4, -5, -6, -7, -8, -9, -10, 0, 0, 0, 0, 0, 0, -1, -2],
  [-4, -5, -6, -7, -8, -9, -10, -11, 0, 0, 0, 0, 0, -1, -2, -3],
  [-5, -6, -7, -8, -9, -10, -11, -12, 0, 0, 0, 0, -1, -2, -3, -4],
  [-5, -6, -7, -8, -9, -10, -11, -12, 0, 0, 0, 0, -1, -2, -3, -4],
  [-6, -7, -8, -9, -10, -11, -12, -13, 0, 0, 0, -1, -2, -3, -4, -5],
  [-7, -8, -9, -10, -11, -12, -13, -14, 0, 0, -1, -2, -3, -4, -5, -6],
  [-8, -9, -10, -11, -12, -13, -14, -15, 0, -1, -2, -3, -4, -5, -6, -7],
  [-8, -9, -10, -11, -12, -13, -14, -15, 0, -1, -2, -3, -4, -5, -6, -7],
  [0, -1, -2, -3, -4, -5, -6, -7, 8, 7, 6, 5, 4, 3, 2, 1],
];
const MOTION = new Int8Array(76 * 16);
MOTION_ROWS.forEach((row, cycle) => row.forEach((dx, hm) => (MOTION[cycle * 16 + hm] = dx)));
if (MOTION_ROWS.length !== 76) throw new Error("TIA motion table must have 76 rows");

/** One of Stella's two frame buffers, with what the TIA knows about its pixels. */
class FrameBuffer {
  /** 160 x 300 pixels (one TIA colour byte each) and slack: HMOVE blanks may write a little past the drawn rows. */
  readonly pixels = new Uint8Array(FRAME_BUFFER_SIZE + 256);
  /** The pixels as 32-bit words (for 4-pixel playfield stores). */
  readonly words = new Int32Array(this.pixels.buffer);
  /** The first `height` rows. */
  readonly screen: Uint8Array;
  /**
   * Where the pixels may differ from Stella's, as one range [staleFrom, staleTo) (empty: from = to): Stella draws
   * every frame into the buffer it swaps in, and whatever a frame does not reach keeps what the frame two before
   * drew. Frames emulated without rendering leave their pixels stale; rendering a frame makes the pixels it
   * reaches exact.
   */
  staleFrom = 0;
  staleTo = 0;
  /**
   * The spans each row's pixels were last drawn as (see updateScanline): up to RECORDED_SPANS per row, each
   * [hpos, collisions, key], of which the first `spanCounts[row]` still hold.
   */
  readonly spans = new Int32Array(FRAME_ROWS * RECORDED_SPANS * RECORD_SIZE);
  readonly spanCounts = new Uint8Array(FRAME_ROWS);
  /**
   * 1 for each row whose pixels were written since the reader of `Tia.rowsWritten` (the console's RGB conversion)
   * last cleared it: rows whose spans all matched their record are left as they were.
   */
  readonly rowsWritten = new Uint8Array(FRAME_ROWS).fill(1);

  constructor(height: number) {
    this.screen = this.pixels.subarray(0, 160 * height);
  }

  /** All black, nothing stale, nothing recorded, every row written. */
  clear(): void {
    this.pixels.fill(0);
    this.staleFrom = this.staleTo = 0;
    this.spanCounts.fill(0);
    this.rowsWritten.fill(1);
  }
}

/** What the TIA needs from the rest of the console. */
export interface TiaPorts {
  /** Stella's System data bus state: the last value read or written (TIA reads drive only bits 6-7). */
  dataBus: number;
  /** Paddle resistance on INPT0..3 (Stella's Controller::read(Nine/Five) of the left/right jack). */
  readonly paddleResistance: Int32Array;
  /** INPT4 / INPT5: fire button of the left / right jack released (true reads bit 7 high). */
  readonly fireReleased: Uint8Array;
  /** Called at frame start, after the system clock was reset, with the cycles it was reset from. */
  systemCyclesReset(cycles: number): void;
}

export class Tia {
  /** Set false to skip writing pixels (collisions are still computed). */
  renderEnabled = true;
  /** Stella's Emulation.HmoveBlanks property. */
  allowHmoveBlanks = true;

  /** The frame buffer being drawn (or last drawn), and the other one, drawn two frames back. */
  private frame: FrameBuffer;
  private other: FrameBuffer;
  private cpu!: M6502;

  // Frame timing, in colour clocks relative to the system clock (TIA.cxx names).
  private clockWhenFrameStarted = 0;
  private clockStartDisplay = 0;
  private clockStopDisplay = 0;
  private clockAtLastUpdate = 0;
  private clocksToEndOfScanLine = 228;
  private vsyncFinishClock = 0x7fffffff;
  private readonly startDisplayOffset: number;
  private readonly stopDisplayOffset: number;
  private framePointer = 0;
  private partialFrame = false;
  private frameGreyed = false;
  /** The colour clock Stella would have drawn up to by now, for writes whose drawing is deferred (see changesNothingDrawn). */
  private owedClock = NOTHING_OWED;
  /**
   * HMOVE blank pixels from the frame pointer up to here are owed zeros (see updateFrame): the spans drawn next
   * cover them, so only what the frame leaves uncovered is written, by flushBlank.
   */
  private blankOwedTo = 0;
  /** `renderEnabled` of the last update (see update). */
  private renderedLast = true;

  // Registers and derived drawing state.
  private enabledObjects = 0;
  private vblank = 0;
  private nusiz0 = 0;
  private nusiz1 = 0;
  /** Colours (value & 0xFE, bit 0 set under PAL colour loss) of background, playfield, player 0, player 1. */
  private readonly color = new Uint8Array(4);
  /**
   * The console's display format is PAL (set by the console; TIA::reset reads it). PAL frames may run to 342
   * scanlines, and the TIA's colour loss sets bit 0 of every colour while the previous frame had an odd number of
   * scanlines (ALE's palettes show such colours as grey).
   */
  pal = false;
  private maximumScanlines = MAXIMUM_SCANLINES_NTSC;
  private colourLoss = false;
  /** Scanlines of the last completed frame (Stella's myScanlineCountForLastFrame), for colour loss. */
  private scanlineCountForLastFrame = 0;
  private playfieldPriorityAndScore = 0;
  private ctrlpf = 0;
  private refp0 = false;
  private refp1 = false;
  private pf = 0;
  private grp0 = 0;
  private grp1 = 0;
  private dgrp0 = 0;
  private dgrp1 = 0;
  private enam0 = 0;
  private enam1 = 0;
  private enabl = 0;
  private denabl = 0;
  private hmp0 = 0;
  private hmp1 = 0;
  private hmm0 = 0;
  private hmm1 = 0;
  private hmbl = 0;
  private vdelp0 = false;
  private vdelp1 = false;
  private vdelbl = false;
  private resmp0 = 0;
  private resmp1 = 0;
  private collision = 0;
  private posp0 = 0;
  private posp1 = 0;
  private posm0 = 0;
  private posm1 = 0;
  private posbl = 0;
  private currentGRP0 = 0;
  private currentGRP1 = 0;
  // Offsets into the mask tables ("pointers" in Stella).
  private blMask = 0;
  private m0Mask = 0;
  private m1Mask = 0;
  private p0Mask = 0;
  private p1Mask = 0;
  private pfMask = 0;
  private lastHMOVEClock = 0;
  private hmoveBlankEnabled = false;
  private m0CosmicArkMotionEnabled = false;
  private m0CosmicArkCounter = 0;
  private dumpEnabled = false;
  private dumpDisabledCycle = 0;
  // Spans remembered for reuse (see updateScanline), per starting pixel: the drawing state they were drawn with,
  // where their pixels are in the frame buffer, their collisions, and the `generation` they belong to.
  private readonly spanKeys = new Int32Array(160 * SPAN_KEY_SIZE);
  private readonly spanKey = new Int32Array(SPAN_KEY_SIZE);
  private readonly spanGeneration = new Int32Array(160);
  private readonly spanStart = new Int32Array(160);
  private readonly spanCollision = new Int32Array(160);
  private generation = 1;
  /** The row being drawn, the index of its next span, and whether it has stopped matching its record. */
  private recordRow = -1;
  private recordIndex = 0;
  private recordDiverged = false;
  /** Scratch: the objects covering each pixel of the span being drawn (all zero between spans). */
  private readonly lineBits = new Uint8Array(160);

  constructor(
    /** The system clock in CPU cycles since the frame started (Stella's System::cycles), shared with CPU and RIOT. */
    private readonly clock: { cycles: number },
    private readonly ports: TiaPorts,
    readonly yStart: number,
    readonly height: number,
  ) {
    this.startDisplayOffset = 228 * yStart;
    this.stopDisplayOffset = this.startDisplayOffset + 228 * height;
    this.frame = new FrameBuffer(height);
    this.other = new FrameBuffer(height);
  }

  attachCpu(cpu: M6502): void {
    this.cpu = cpu;
  }

  /** The last completed (or current) frame, one TIA colour byte per pixel, `height` rows of 160. */
  get screen(): Uint8Array {
    return this.frame.screen;
  }

  /** Rows of `screen` written since its reader last set their entries to 0 (see FrameBuffer.rowsWritten). */
  get rowsWritten(): Uint8Array {
    return this.frame.rowsWritten;
  }

  /** Whether every pixel of `screen` is the one Stella's frame buffer holds (no unrendered frame left one). */
  get screenExact(): boolean {
    return this.frame.staleFrom >= this.frame.staleTo || this.frame.staleFrom >= this.height * 160;
  }

  /** TIA::reset. */
  reset(): void {
    this.enabledObjects = 0;
    this.vblank = 0;
    this.nusiz0 = this.nusiz1 = 0;
    this.color.fill(0);
    this.playfieldPriorityAndScore = 0;
    this.ctrlpf = 0;
    this.refp0 = this.refp1 = false;
    this.pf = 0;
    this.grp0 = this.grp1 = this.dgrp0 = this.dgrp1 = 0;
    this.enam0 = this.enam1 = this.enabl = this.denabl = 0;
    this.hmp0 = this.hmp1 = this.hmm0 = this.hmm1 = this.hmbl = 0;
    this.vdelp0 = this.vdelp1 = this.vdelbl = false;
    this.resmp0 = this.resmp1 = 0;
    this.collision = 0;
    this.posp0 = this.posp1 = this.posm0 = this.posm1 = this.posbl = 0;
    this.currentGRP0 = this.currentGRP1 = 0;
    this.blMask = ballIndex(0, 0);
    this.m0Mask = this.m1Mask = missileIndex(0, 0, 0);
    this.p0Mask = this.p1Mask = playerIndex(0, 0, 0);
    this.pfMask = 0;
    this.lastHMOVEClock = 0;
    this.hmoveBlankEnabled = false;
    this.m0CosmicArkMotionEnabled = false;
    this.m0CosmicArkCounter = 0;
    this.dumpEnabled = false;
    this.dumpDisabledCycle = 0;
    this.maximumScanlines = this.pal ? MAXIMUM_SCANLINES_PAL : MAXIMUM_SCANLINES_NTSC;
    this.colourLoss = this.pal;
    this.frameReset();
  }

  /** TIA::frameReset: clear both buffers and start a frame now. */
  private frameReset(): void {
    this.frame.clear();
    this.other.clear();
    this.blankOwedTo = 0;
    this.recordRow = -1;
    this.framePointer = 0;
    this.clockWhenFrameStarted = this.clock.cycles * 3;
    this.clockStartDisplay = this.clockWhenFrameStarted + this.startDisplayOffset;
    this.clockStopDisplay = this.clockWhenFrameStarted + this.stopDisplayOffset;
    this.clockAtLastUpdate = this.clockWhenFrameStarted;
    this.clocksToEndOfScanLine = 228;
    this.vsyncFinishClock = 0x7fffffff;
    this.owedClock = NOTHING_OWED;
    this.scanlineCountForLastFrame = 0;
    this.forgetSpans();
  }

  /** Stella's resetCycles for the TIA's own clock-based state (TIA::systemCyclesReset). */
  private systemCyclesReset(cycles: number): void {
    this.dumpDisabledCycle = (this.dumpDisabledCycle - cycles) | 0;
    const clocks = cycles * 3;
    this.clockWhenFrameStarted -= clocks;
    this.clockStartDisplay -= clocks;
    this.clockStopDisplay -= clocks;
    this.clockAtLastUpdate -= clocks;
    this.vsyncFinishClock = (this.vsyncFinishClock - clocks) | 0;
    this.lastHMOVEClock = (this.lastHMOVEClock - clocks) | 0;
  }

  /** TIA::update: emulate until the frame ends (or 25,000 instructions pass). Returns false if the CPU is dead. */
  update(): boolean {
    if (!this.partialFrame) this.startFrame();
    // Spans remembered without pixels have none to copy (a partial frame may go on with rendering switched).
    else if (this.renderEnabled !== this.renderedLast) this.forgetSpans();
    this.renderedLast = this.renderEnabled;
    this.partialFrame = true;
    const ok = this.cpu.execute(INSTRUCTIONS_PER_UPDATE);
    if (this.partialFrame) {
      // Out of instructions mid-frame: Stella has drawn up to the last write (see changesNothingDrawn).
      this.updateFrame(this.owedClock);
      this.flushBlank();
      if (!this.frameGreyed) this.greyOutFrame();
      this.frameGreyed = true;
    } else {
      this.flushBlank();
      this.frameGreyed = false;
      this.scanlineCountForLastFrame = this.scanline;
    }
    return ok;
  }

  /** Writes the owed HMOVE blank zeros no span covered (the frame stopped first). */
  private flushBlank(): void {
    const buffer = this.frame.pixels;
    for (let p = this.framePointer; p < this.blankOwedTo; p++) {
      buffer[p] = 0;
      const row = Math.floor(p / 160);
      this.frame.rowsWritten[row] = 1;
      this.forgetRecordedRow(row);
    }
    this.blankOwedTo = 0;
  }

  /** Scanline of the current frame the CPU is on. */
  get scanline(): number {
    return Math.floor((this.clock.cycles * 3 - this.clockWhenFrameStarted) / 228);
  }

  private startFrame(): void {
    const frame = this.other;
    this.other = this.frame;
    this.frame = frame;
    this.recordRow = -1;
    // Keep the colour clock within the line: objects positioned during VSYNC stay where they were.
    const clocks = (this.clock.cycles * 3 - this.clockWhenFrameStarted) % 228;
    const cycles = this.clock.cycles;
    this.clock.cycles = 0;
    this.systemCyclesReset(cycles);
    this.ports.systemCyclesReset(cycles);
    // `0 - clocks`, not `-clocks`: -0 would make V8 keep this field (and all clock arithmetic) as doubles.
    this.clockWhenFrameStarted = 0 - clocks;
    this.clockStartDisplay = this.clockWhenFrameStarted + this.startDisplayOffset;
    this.clockStopDisplay = this.clockWhenFrameStarted + this.stopDisplayOffset;
    this.clockAtLastUpdate = this.clockStartDisplay;
    this.clocksToEndOfScanLine = 228;
    this.framePointer = 0;
    this.frameGreyed = false;
    // Frames end on a write or a read that drew everything owed (or in update(), for partial frames).
    this.owedClock = NOTHING_OWED;
    if (this.colourLoss) {
      const odd = this.scanlineCountForLastFrame & 1;
      for (let i = 0; i < 4; i++) this.color[i] = (this.color[i] & 0xfe) | odd;
    }
    this.forgetSpans();
  }

  /** Stella dims the not-yet-drawn part of a frame that did not finish within its instruction budget. */
  private greyOutFrame(): void {
    let line = this.scanline;
    if (line < this.yStart) line = this.yStart;
    if (!this.renderEnabled) {
      this.markStale((line - this.yStart) * 160, this.height * 160);
      return;
    }
    this.forgetSpans();
    const buffer = this.frame.pixels;
    for (let s = line; s < this.height + this.yStart; s++) {
      this.forgetRecordedRow(s - this.yStart);
      this.frame.rowsWritten[s - this.yStart] = 1;
      const row = (s - this.yStart) * 160;
      for (let i = 0; i < 160; i++) buffer[row + i] = (buffer[row + i] & 0x0f) >> 1;
    }
  }

  /** TIA::updateFrame: draw (or just collide) from the last update up to `clock`. */
  private updateFrame(clock: number): void {
    if (
      clock < this.clockStartDisplay ||
      this.clockAtLastUpdate >= this.clockStopDisplay ||
      this.clockAtLastUpdate >= clock
    )
      return;
    // Up to a clock in the horizontal blank of the line the last update stopped on, there is nothing to draw: the
    // next update starts from here just as well (an HMOVE blank's owed pixels are left to the loop below).
    const ahead = clock - this.clockAtLastUpdate;
    if (
      ahead < this.clocksToEndOfScanLine &&
      228 - this.clocksToEndOfScanLine + ahead <= HBLANK &&
      !this.hmoveBlankEnabled
    )
      return;
    if (clock > this.clockStopDisplay) clock = this.clockStopDisplay;
    const from = this.framePointer;
    let to = from;
    do {
      let clocksToUpdate: number;
      let clocksFromStartOfScanLine = 228 - this.clocksToEndOfScanLine;
      if (clock > this.clockAtLastUpdate + this.clocksToEndOfScanLine) {
        clocksToUpdate = this.clocksToEndOfScanLine;
        this.clocksToEndOfScanLine = 228;
        this.clockAtLastUpdate += clocksToUpdate;
      } else {
        clocksToUpdate = clock - this.clockAtLastUpdate;
        this.clocksToEndOfScanLine -= clocksToUpdate;
        this.clockAtLastUpdate = clock;
      }
      if (clocksFromStartOfScanLine < HBLANK) {
        const skip = Math.min(HBLANK - clocksFromStartOfScanLine, clocksToUpdate);
        clocksFromStartOfScanLine += skip;
        clocksToUpdate -= skip;
      }
      const oldFramePointer = this.framePointer;
      const blanked = this.hmoveBlankEnabled && clocksFromStartOfScanLine < HBLANK + 8;
      const kept =
        clocksToUpdate !== 0 && this.updateScanline(clocksToUpdate, clocksFromStartOfScanLine - HBLANK, blanked);
      if (blanked) {
        const blanks = HBLANK + 8 - clocksFromStartOfScanLine;
        if (this.renderEnabled) {
          // Stella zeroes `blanks` pixels from the span's start. Over the span, a span kept from its record already
          // holds them. Past it (or with no span, the update ending inside HBLANK), they are pixels the next spans
          // draw over, blanked themselves: they are owed, and written only if the frame stops before (flushBlank).
          const spanEnd = this.framePointer;
          const end = oldFramePointer + blanks;
          if (!kept && spanEnd > oldFramePointer) {
            const buffer = this.frame.pixels;
            for (let p = oldFramePointer; p < spanEnd && p < end; p++) buffer[p] = 0;
          }
          if (end > spanEnd && end > this.blankOwedTo) this.blankOwedTo = end;
        }
        if (oldFramePointer + blanks > to) to = oldFramePointer + blanks;
        if (clocksToUpdate + clocksFromStartOfScanLine >= HBLANK + 8) this.hmoveBlankEnabled = false;
      }
      if (this.clocksToEndOfScanLine === 228) this.endOfScanline();
    } while (this.clockAtLastUpdate < clock);
    if (this.framePointer > to) to = this.framePointer;
    if (this.renderEnabled) this.markDrawn(from, to);
    else this.markStale(from, to);
  }

  /** Pixels [from, to) of the current buffer now hold what Stella's hold. */
  private markDrawn(from: number, to: number): void {
    const frame = this.frame;
    if (frame.staleFrom >= frame.staleTo) return;
    if (from <= frame.staleFrom && to > frame.staleFrom) frame.staleFrom = to;
    else if (from < frame.staleTo && to >= frame.staleTo) frame.staleTo = from;
    if (frame.staleFrom >= frame.staleTo) frame.staleFrom = frame.staleTo = 0;
  }

  /** Pixels [from, to) of the current buffer were not written where Stella writes them. */
  private markStale(from: number, to: number): void {
    if (from >= to) return;
    const frame = this.frame;
    if (frame.staleFrom >= frame.staleTo) {
      frame.staleFrom = from;
      frame.staleTo = to;
    } else {
      if (from < frame.staleFrom) frame.staleFrom = from;
      if (to > frame.staleTo) frame.staleTo = to;
    }
  }

  /** Per-line state refreshes Stella makes when a drawn line ends. */
  private endOfScanline(): void {
    this.pfMask = (this.ctrlpf & 1) * 160;
    this.p0Mask = playerIndex(this.posp0 & 3, 0, this.nusiz0 & 7) + 160 - (this.posp0 & 0xfc);
    this.p1Mask = playerIndex(this.posp1 & 3, 0, this.nusiz1 & 7) + 160 - (this.posp1 & 0xfc);
    if (this.m0CosmicArkMotionEnabled) {
      // The "Cosmic Ark" starfield bug: HMM0 changed 7 -> 6 right after HMOVE keeps moving missile 0 every line.
      this.m0CosmicArkCounter = (this.m0CosmicArkCounter + 1) & 3;
      this.posm0 -= COSMIC_ARK_MOTION[this.m0CosmicArkCounter];
      if (this.posm0 >= 160) this.posm0 -= 160;
      else if (this.posm0 < 0) this.posm0 += 160;
      const size = (this.nusiz0 & 0x30) >> 4;
      if (this.m0CosmicArkCounter === 1) {
        this.m0Mask = missileIndex(this.posm0 & 3, this.nusiz0 & 7, size | 1) + 160 - (this.posm0 & 0xfc);
      } else if (this.m0CosmicArkCounter === 2) {
        this.m0Mask = MISSILE_DISABLED;
      } else {
        this.m0Mask = missileIndex(this.posm0 & 3, this.nusiz0 & 7, size) + 160 - (this.posm0 & 0xfc);
      }
    }
  }

  /**
   * TIA::updateFrameScanline: `count` pixels of the current line starting at pixel `hpos` (`blanked`: an HMOVE
   * blank will cover its first pixels once drawn).
   *
   * A span's pixels and collisions are a function of its position, its length and the drawing state alone (its
   * key, see setSpanKey), and Atari pictures change little: a rendered span whose row of the frame buffer was drawn,
   * two frames ago, as the same sequence of spans with the same keys so far still holds its pixels, and only its
   * collisions are taken (see FrameBuffer.spans); a frame run without pixels takes
   * the collisions of a recorded span with the same key too. Failing that, a span with objects
   * that matches the last span drawn from the same `hpos` in this frame (a paddle, a row of bricks) copies that
   * span's pixels and collisions instead of drawing them again. Returns whether the span kept its pixels from its
   * record.
   */
  private updateScanline(count: number, hpos: number, blanked: boolean): boolean {
    const start = this.framePointer;
    this.framePointer = start + count;
    const render = this.renderEnabled;
    const vblank = (this.vblank & 0x02) !== 0;
    const objects = this.enabledObjects & ~PF;
    // The background and playfield alone are cheap to draw (word stores); spans with objects are worth matching.
    const reusable = !vblank && objects !== 0 && count >= MIN_REUSED_SPAN;
    const row = ((start - hpos) / 160) | 0;
    if (row !== this.recordRow) {
      this.recordRow = row;
      this.recordIndex = 0;
      this.recordDiverged = false;
    }
    const index = this.recordIndex++;
    const counts = this.frame.spanCounts;
    if (!render) {
      // Without pixels only collisions count (none without two things drawn), and a span recorded with the same
      // key had the same ones; the record itself stays what the buffer holds.
      if (vblank || objects === 0 || ((objects & (objects - 1)) === 0 && this.pf === 0)) return false;
      this.setSpanKey(count, blanked, vblank);
      if (index < counts[row] && this.matchesRecordedSpan(row, index, hpos)) {
        this.collision |= this.frame.spans[(row * RECORDED_SPANS + index) * RECORD_SIZE + 1];
      } else {
        this.collision |= this.drawSpan(start, count, hpos, vblank, objects, reusable);
      }
      return false;
    }
    this.setSpanKey(count, blanked, vblank);
    if (!this.recordDiverged) {
      if (index < counts[row] && this.matchesRecordedSpan(row, index, hpos)) {
        this.collision |= this.frame.spans[(row * RECORDED_SPANS + index) * RECORD_SIZE + 1];
        return true;
      }
      // From here on this row is drawn, and recorded anew.
      this.recordDiverged = true;
      counts[row] = index;
    }
    const collision = this.drawSpan(start, count, hpos, vblank, objects, reusable);
    this.collision |= collision;
    this.frame.rowsWritten[row] = 1;
    if (index === counts[row] && index < RECORDED_SPANS) {
      const spans = this.frame.spans;
      const base = (row * RECORDED_SPANS + index) * RECORD_SIZE;
      spans[base] = hpos;
      spans[base + 1] = collision;
      const key = this.spanKey;
      spans[base + 2] = key[0];
      spans[base + 3] = key[1];
      spans[base + 4] = key[2];
      spans[base + 5] = key[3];
      spans[base + 6] = key[4];
      spans[base + 7] = key[5];
      counts[row] = index + 1;
    }
    return false;
  }

  /** Whether recorded span `index` of frame-buffer row `row` starts at `hpos` and has the key in `spanKey`. */
  private matchesRecordedSpan(row: number, index: number, hpos: number): boolean {
    const spans = this.frame.spans;
    const base = (row * RECORDED_SPANS + index) * RECORD_SIZE;
    const key = this.spanKey;
    return (
      spans[base] === hpos &&
      spans[base + 2] === key[0] &&
      spans[base + 3] === key[1] &&
      spans[base + 4] === key[2] &&
      spans[base + 5] === key[3] &&
      spans[base + 6] === key[4] &&
      spans[base + 7] === key[5]
    );
  }

  /**
   * Pixels of frame-buffer row `row` were written outside the span they belong to (an HMOVE blank reaching past
   * its span, a greyed-out partial frame): nothing recorded for the row holds, and nothing more is recorded for it
   * in this frame.
   */
  private forgetRecordedRow(row: number): void {
    this.frame.spanCounts[row] = 0;
    this.recordRow = row;
    this.recordDiverged = true;
    this.recordIndex = RECORDED_SPANS;
  }

  /**
   * Draws (or, not rendering, only collides) a span with the key in `spanKey`; returns its collisions. `objects`:
   * the enabled objects but the playfield; `reusable`: worth matching against this frame's remembered spans.
   */
  private drawSpan(
    start: number,
    count: number,
    hpos: number,
    vblank: boolean,
    objects: number,
    reusable: boolean,
  ): number {
    const render = this.renderEnabled;
    const buffer = this.frame.pixels;
    if (vblank) {
      if (render) for (let p = start; p < start + count; p++) buffer[p] = 0;
      return 0;
    }
    if (reusable && this.matchesRememberedSpan(hpos)) {
      if (render) {
        // Loops rather than copyWithin, whose call costs more than copying a line's worth of bytes. Both spans
        // start at `hpos` of their row, so their bytes have the same place in their words.
        const offset = this.spanStart[hpos] - start;
        const end = start + count;
        const wordsFrom = (start + 3) >> 2;
        const wordsTo = end >> 2;
        if (wordsFrom >= wordsTo) {
          for (let p = start; p < end; p++) buffer[p] = buffer[p + offset];
        } else {
          const words = this.frame.words;
          const wordOffset = offset >> 2;
          for (let p = start; p < wordsFrom << 2; p++) buffer[p] = buffer[p + offset];
          for (let w = wordsFrom; w < wordsTo; w++) words[w] = words[w + wordOffset];
          for (let p = wordsTo << 2; p < end; p++) buffer[p] = buffer[p + offset];
        }
      }
      return this.spanCollision[hpos];
    }
    // The background and playfield first, straight into the frame; objects are drawn over them below.
    if (render) this.drawPlayfield(start, count, hpos);
    if (objects === 0) return 0;
    const single = (objects & (objects - 1)) === 0 && this.pf === 0;
    if (single && !render) return 0; // one object alone collides with nothing
    const bits = this.lineBits;
    const pf = this.pf;
    const pfBase = this.pfMask + hpos;
    let collision = 0;
    if (objects & BL) collision |= addObject(bits, this.blMask, hpos, count, BL, 0, pf, pfBase);
    if (objects & P1)
      collision |= addObject(bits, PLAYER_TABLE + this.p1Mask, hpos, count, P1, this.currentGRP1, pf, pfBase);
    if (objects & M1) collision |= addObject(bits, MISSILE_TABLE + this.m1Mask, hpos, count, M1, 0, pf, pfBase);
    if (objects & P0)
      collision |= addObject(bits, PLAYER_TABLE + this.p0Mask, hpos, count, P0, this.currentGRP0, pf, pfBase);
    if (objects & M0) collision |= addObject(bits, MISSILE_TABLE + this.m0Mask, hpos, count, M0, 0, pf, pfBase);
    if (reusable) this.rememberSpan(hpos, start, collision);
    const priority = this.playfieldPriorityAndScore;
    const color = this.color;
    if (objects & BL) colourObjects(buffer, start, bits, this.blMask, hpos, count, pf, pfBase, priority, color, render);
    if (objects & P1)
      colourObjects(buffer, start, bits, PLAYER_TABLE + this.p1Mask, hpos, count, pf, pfBase, priority, color, render);
    if (objects & M1)
      colourObjects(buffer, start, bits, MISSILE_TABLE + this.m1Mask, hpos, count, pf, pfBase, priority, color, render);
    if (objects & P0)
      colourObjects(buffer, start, bits, PLAYER_TABLE + this.p0Mask, hpos, count, pf, pfBase, priority, color, render);
    if (objects & M0)
      colourObjects(buffer, start, bits, MISSILE_TABLE + this.m0Mask, hpos, count, pf, pfBase, priority, color, render);
    return collision;
  }

  /**
   * The key of a span (`count` pixels, `blanked`, in VBLANK) with the current drawing state, into `spanKey`: all
   * its pixels and collisions depend on, given its position. A VBLANK span is black whatever the state.
   */
  private setSpanKey(count: number, blanked: boolean, vblank: boolean): void {
    const key = this.spanKey;
    const flags = (blanked ? 1 : 0) | (vblank ? 2 : 0);
    if (vblank) {
      key[0] = count | (flags << 8);
      key[1] = key[2] = key[3] = key[4] = key[5] = 0;
      return;
    }
    // Objects not shown leave no trace: their positions (a ball moving through lines without it) are left out.
    // Packed into few words so that matching is cheap (the mask offsets' widths are checked after buildTables).
    const c = this.color;
    const on = this.enabledObjects;
    key[0] =
      count |
      (flags << 8) |
      (on << 10) |
      (on & PF && this.pfMask ? 1 << 16 : 0) |
      ((this.playfieldPriorityAndScore >> 6) << 17);
    key[1] = this.pf;
    key[2] = c[0] | (c[1] << 8) | (c[2] << 16) | (c[3] << 24);
    key[3] = (on & BL ? this.blMask : 0) | (this.currentGRP0 << 13) | (this.currentGRP1 << 21);
    key[4] = (on & P0 ? this.p0Mask : 0) | ((on & P1 ? this.p1Mask : 0) << 15);
    key[5] = (on & M0 ? this.m0Mask : 0) | ((on & M1 ? this.m1Mask : 0) << 16);
  }

  /** Whether the span with the key in `spanKey` is the one remembered for `hpos` in this frame. */
  private matchesRememberedSpan(hpos: number): boolean {
    if (this.spanGeneration[hpos] !== this.generation) return false;
    const key = this.spanKey;
    const remembered = this.spanKeys;
    const base = hpos * SPAN_KEY_SIZE;
    return (
      remembered[base] === key[0] &&
      remembered[base + 1] === key[1] &&
      remembered[base + 2] === key[2] &&
      remembered[base + 3] === key[3] &&
      remembered[base + 4] === key[4] &&
      remembered[base + 5] === key[5]
    );
  }

  /** Remembers the span just drawn at `hpos` (key in `spanKey`) for the lines below. */
  private rememberSpan(hpos: number, start: number, collision: number): void {
    const key = this.spanKey;
    const remembered = this.spanKeys;
    const base = hpos * SPAN_KEY_SIZE;
    remembered[base] = key[0];
    remembered[base + 1] = key[1];
    remembered[base + 2] = key[2];
    remembered[base + 3] = key[3];
    remembered[base + 4] = key[4];
    remembered[base + 5] = key[5];
    this.spanGeneration[hpos] = this.generation;
    this.spanStart[hpos] = start;
    this.spanCollision[hpos] = collision;
  }

  /** Forgets every remembered span: a new frame buffer, or pixels of this one changed after drawing. */
  private forgetSpans(): void {
    this.generation++;
  }

  /** Background and playfield (score mode: the players' colours per half) for `count` pixels from `hpos`. */
  private drawPlayfield(start: number, count: number, hpos: number): void {
    const color = this.color;
    const pf = this.pf;
    const end = start + count;
    const score = (this.playfieldPriorityAndScore & SCORE) !== 0;
    const background = color[0];
    const left = score ? color[2] : color[1];
    const right = score ? color[3] : color[1];
    // The playfield changes only every 4 pixels, at multiples of 4 of hpos, and the frame pointer is row * 160 +
    // hpos, so each 4-pixel group is one aligned 32-bit word of the buffer: word w is group w - lineWord of its line.
    // Bit g of `leftBits` is group g's playfield bit, bit g of `rightBits` group 20 + g's.
    const leftBits = playfieldGroups(pf);
    const rightBits = this.pfMask === 0 ? leftBits : mirroredGroups(leftBits);
    const lineWord = (start - hpos) >> 2;
    const middle = lineWord + 20; // words from here on are the right half
    // Whole words, the background word with the colour's difference flipped in where the bit is 1 (no branch); the
    // span's ends may cut a word, whose bytes outside the span are put back after.
    const words = this.frame.words;
    const firstWord = start >> 2;
    const endWord = (end + 3) >> 2;
    const headBytes = start & 3;
    const tailBytes = end & 3;
    const headKept = words[firstWord] & ((1 << (headBytes * 8)) - 1);
    const tailKept = words[endWord - 1] & ~((1 << (tailBytes * 8)) - 1);
    const backgroundWord = Math.imul(background, 0x01010101);
    const leftFlip = Math.imul(left ^ background, 0x01010101);
    const rightFlip = Math.imul(right ^ background, 0x01010101);
    const leftEnd = endWord < middle ? endWord : middle;
    for (let w = firstWord, bits = leftBits >>> (firstWord - lineWord); w < leftEnd; w++, bits >>>= 1)
      words[w] = backgroundWord ^ (leftFlip & -(bits & 1));
    const rightStart = firstWord > middle ? firstWord : middle;
    for (let w = rightStart, bits = rightBits >>> (rightStart - middle); w < endWord; w++, bits >>>= 1)
      words[w] = backgroundWord ^ (rightFlip & -(bits & 1));
    // Little-endian words: pixel 4w + k is byte k of word w.
    if (headBytes !== 0) words[firstWord] = (words[firstWord] & ~((1 << (headBytes * 8)) - 1)) | headKept;
    if (tailBytes !== 0) words[endWord - 1] = (words[endWord - 1] & ((1 << (tailBytes * 8)) - 1)) | tailKept;
  }

  /** TIA::peek: collision latches and input ports; bits 0-5 float (the last data bus value). */
  peek(address: number): number {
    const clock = this.clock.cycles * 3;
    // Stella draws up to the read. Nothing drawn decides the input ports (0x08-0x0f); a collision read needs the
    // owed pixels only where they could set its bits (see changesNothingDrawn for owing).
    const register = address & 0x0f;
    if (register >= 0x08 || this.collidesNothingOwed(register, clock)) {
      if (clock > this.owedClock) this.owedClock = clock;
    } else {
      this.updateFrame(clock > this.owedClock ? clock : this.owedClock);
    }
    const noise = this.ports.dataBus & 0x3f;
    const c = this.collision;
    switch (address & 0x0f) {
      case 0x00:
        return (c & 0x0001 ? 0x80 : 0) | (c & 0x0002 ? 0x40 : 0) | noise;
      case 0x01:
        return (c & 0x0004 ? 0x80 : 0) | (c & 0x0008 ? 0x40 : 0) | noise;
      case 0x02:
        return (c & 0x0010 ? 0x80 : 0) | (c & 0x0020 ? 0x40 : 0) | noise;
      case 0x03:
        return (c & 0x0040 ? 0x80 : 0) | (c & 0x0080 ? 0x40 : 0) | noise;
      case 0x04:
        return (c & 0x0100 ? 0x80 : 0) | (c & 0x0200 ? 0x40 : 0) | noise;
      case 0x05:
        return (c & 0x0400 ? 0x80 : 0) | (c & 0x0800 ? 0x40 : 0) | noise;
      case 0x06:
        return (c & 0x1000 ? 0x80 : 0) | noise;
      case 0x07:
        return (c & 0x2000 ? 0x80 : 0) | (c & 0x4000 ? 0x40 : 0) | noise;
      case 0x08:
      case 0x09:
      case 0x0a:
      case 0x0b:
        return this.paddle(address & 3) | noise;
      case 0x0c:
        return (this.ports.fireReleased[0] ? 0x80 : 0) | noise;
      case 0x0d:
        return (this.ports.fireReleased[1] ? 0x80 : 0) | noise;
      default:
        return noise;
    }
  }

  /**
   * INPT0-3: a paddle's capacitor charges `1.6 * r * 0.01e-6 * 1.19e6` CPU cycles after the dump is released. The
   * comparison is Stella's: `cycles > dumpDisabledCycle + needed` in unsigned 32-bit arithmetic, with the release
   * cycle counted from this frame's start (negative if it happened in an earlier frame).
   */
  private paddle(index: number): number {
    const r = this.ports.paddleResistance[index];
    if (r === MIN_RESISTANCE) return 0x80;
    if (r === MAX_RESISTANCE || this.dumpEnabled) return 0;
    const t = 1.6 * r * 0.01e-6;
    const needed = Math.trunc(t * 1.19e6);
    return this.clock.cycles > (this.dumpDisabledCycle + needed) >>> 0 ? 0x80 : 0;
  }

  /** What a COLUxx write stores: the 7-bit colour, plus bit 0 under colour loss after an odd frame. */
  private colourValue(value: number): number {
    return (value & 0xfe) | (this.colourLoss ? this.scanlineCountForLastFrame & 1 : 0);
  }

  /** TIA::poke. */
  poke(address: number, value: number): void {
    address &= 0x3f;
    const clock = this.clock.cycles * 3;
    let delay = POKE_DELAY[address];
    if (delay === -1) delay = PF_DELAY_AT[(clock - this.clockWhenFrameStarted) % 228];
    // `trunc(sinceFrameStart / 228) > maximumScanlines` without the division (the clock is past the frame start).
    const frameOver = clock - this.clockWhenFrameStarted >= (this.maximumScanlines + 1) * 228;
    if (!frameOver && this.changesNothingDrawn(address, value, clock)) {
      // Stella draws up to clock + delay here; the pixels come out the same drawn later, so only note the debt.
      if (clock + delay > this.owedClock) this.owedClock = clock + delay;
      // A rewrite with the current value leaves every register as it is.
      if (!DEFERRED_WRITE_SETS[address]) return;
    } else if (!frameOver && address !== 0x00 && this.showsNothingOwed(address, value, clock + delay)) {
      if (clock + delay > this.owedClock) this.owedClock = clock + delay;
    } else {
      this.updateFrame(clock + delay > this.owedClock ? clock + delay : this.owedClock);
    }

    if (frameOver) {
      this.cpu.stop();
      this.partialFrame = false;
    }

    switch (address) {
      case 0x00: // VSYNC
        if (value & 0x02) {
          // Stella accepts one scanline of VSYNC (games do not all give the documented three).
          this.vsyncFinishClock = clock + 228;
        } else if (clock >= this.vsyncFinishClock) {
          this.vsyncFinishClock = 0x7fffffff;
          this.cpu.stop();
          this.partialFrame = false;
        }
        break;
      case 0x01: // VBLANK; bit 7 grounds the paddle capacitors
        if (!(this.vblank & 0x80) && value & 0x80) this.dumpEnabled = true;
        if (this.vblank & 0x80 && !(value & 0x80)) {
          this.dumpEnabled = false;
          this.dumpDisabledCycle = this.clock.cycles;
        }
        this.vblank = value;
        break;
      case 0x02: // WSYNC: the 6507 halts only on a read cycle, so writes right after writes do not wait
        if (this.cpu.lastAccessWasRead) {
          // The frame starts on a CPU cycle (a multiple of 3 colour clocks), so this is Stella's
          // `76 - (cycles - frameStartClock / 3) % 76`.
          const cyclesToEndOfLine = 76 - LINE_CYCLE[(clock - this.clockWhenFrameStarted) % 228];
          if (cyclesToEndOfLine < 76) this.clock.cycles += cyclesToEndOfLine;
        }
        break;
      case 0x04:
        this.nusiz0 = value;
        this.p0Mask = this.playerMask(this.posp0, 0, value);
        this.m0Mask = this.missileMask(this.posm0, value);
        break;
      case 0x05:
        this.nusiz1 = value;
        this.p1Mask = this.playerMask(this.posp1, 0, value);
        this.m1Mask = this.missileMask(this.posm1, value);
        break;
      case 0x06:
      case 0x07:
      case 0x08:
      case 0x09: {
        // COLUP0, COLUP1, COLUPF, COLUBK -> colour slots 2, 3, 1, 0
        const slot = address === 0x06 ? 2 : address === 0x07 ? 3 : address === 0x08 ? 1 : 0;
        this.color[slot] = this.colourValue(value);
        break;
      }
      case 0x0a: // CTRLPF
        this.ctrlpf = value;
        this.playfieldPriorityAndScore = (value & 0x06) << 5;
        if ((clock - this.clockWhenFrameStarted) % 228 < 68 + 79) this.pfMask = (value & 1) * 160;
        this.blMask = ballIndex(this.posbl & 3, (value & 0x30) >> 4) + 160 - (this.posbl & 0xfc);
        break;
      case 0x0b: // REFP0
        if (!!(value & 0x08) !== this.refp0) {
          this.refp0 = (value & 0x08) !== 0;
          this.currentGRP0 = REFLECT[this.currentGRP0];
        }
        break;
      case 0x0c:
        if (!!(value & 0x08) !== this.refp1) {
          this.refp1 = (value & 0x08) !== 0;
          this.currentGRP1 = REFLECT[this.currentGRP1];
        }
        break;
      case 0x0d:
        this.setPF((this.pf & 0x000ffff0) | ((value >> 4) & 0x0f));
        break;
      case 0x0e:
        this.setPF((this.pf & 0x000ff00f) | (value << 4));
        break;
      case 0x0f:
        this.setPF((this.pf & 0x00000fff) | (value << 12));
        break;
      case 0x10:
        this.resetPlayer(0, clock);
        break;
      case 0x11:
        this.resetPlayer(1, clock);
        break;
      case 0x12: {
        const hpos = (clock - this.clockWhenFrameStarted) % 228;
        this.posm0 = hpos < HBLANK ? 2 : (hpos - HBLANK + 4) % 160;
        // Stella's special case for Dolphin (RESM0 20 cycles after HMOVE).
        if (clock - this.lastHMOVEClock === 20 * 3 && hpos === 69) this.posm0 = 8;
        this.m0Mask = this.missileMask(this.posm0, this.nusiz0);
        break;
      }
      case 0x13: {
        const hpos = (clock - this.clockWhenFrameStarted) % 228;
        this.posm1 = hpos < HBLANK ? 2 : (hpos - HBLANK + 4) % 160;
        // Stella's special case for Pitfall II (RESM1 3 cycles after HMOVE).
        if (clock - this.lastHMOVEClock === 3 * 3 && hpos === 18) this.posm1 = 3;
        this.m1Mask = this.missileMask(this.posm1, this.nusiz1);
        break;
      }
      case 0x14: {
        const hpos = (clock - this.clockWhenFrameStarted) % 228;
        this.posbl = hpos < HBLANK ? 2 : (hpos - HBLANK + 4) % 160;
        // Stella's special cases for RESBL shortly after HMOVE (Escape from the Mindmaster, Decathlon, Robot Tank,
        // Hole Hunter).
        const sinceHmove = clock - this.lastHMOVEClock;
        if (sinceHmove === 18 * 3 && (hpos === 60 || hpos === 69)) this.posbl = 10;
        else if (sinceHmove === 3 * 3 && hpos === 18) this.posbl = 3;
        else if (sinceHmove === 7 * 3 && hpos === 30) this.posbl = 6;
        else if (sinceHmove === 6 * 3 && hpos === 27) this.posbl = 5;
        this.blMask = ballIndex(this.posbl & 3, (this.ctrlpf & 0x30) >> 4) + 160 - (this.posbl & 0xfc);
        break;
      }
      case 0x1b: // GRP0: also latches GRP1 into its delay register
        this.grp0 = value;
        this.dgrp1 = this.grp1;
        this.updateGraphics();
        break;
      case 0x1c: // GRP1: also latches GRP0 and ENABL
        this.grp1 = value;
        this.dgrp0 = this.grp0;
        this.denabl = this.enabl;
        this.updateGraphics();
        this.updateBall();
        break;
      case 0x1d:
        this.enam0 = value & 0x02;
        this.setObject(M0, this.enam0 !== 0 && this.resmp0 === 0);
        break;
      case 0x1e:
        this.enam1 = value & 0x02;
        this.setObject(M1, this.enam1 !== 0 && this.resmp1 === 0);
        break;
      case 0x1f:
        this.enabl = value & 0x02;
        this.updateBall();
        break;
      case 0x20:
        this.hmp0 = value >> 4;
        break;
      case 0x21:
        this.hmp1 = value >> 4;
        break;
      case 0x22: {
        const hm = value >> 4;
        if (clock === this.lastHMOVEClock + 21 * 3 && this.hmm0 === 7 && hm === 6) {
          this.m0CosmicArkMotionEnabled = true;
          this.m0CosmicArkCounter = 0;
        }
        this.hmm0 = hm;
        break;
      }
      case 0x23:
        this.hmm1 = value >> 4;
        break;
      case 0x24:
        this.hmbl = value >> 4;
        break;
      case 0x25:
        this.vdelp0 = (value & 1) !== 0;
        this.updateGraphics();
        break;
      case 0x26:
        this.vdelp1 = (value & 1) !== 0;
        this.updateGraphics();
        break;
      case 0x27:
        this.vdelbl = (value & 1) !== 0;
        this.updateBall();
        break;
      case 0x28:
        if (this.resmp0 && !(value & 0x02)) {
          const mode = this.nusiz0 & 7;
          this.posm0 = (this.posp0 + (mode === 5 ? 8 : mode === 7 ? 16 : 4)) % 160;
          this.m0Mask = this.missileMask(this.posm0, this.nusiz0);
        }
        this.resmp0 = value & 0x02;
        this.setObject(M0, this.enam0 !== 0 && this.resmp0 === 0);
        break;
      case 0x29:
        if (this.resmp1 && !(value & 0x02)) {
          const mode = this.nusiz1 & 7;
          this.posm1 = (this.posp1 + (mode === 5 ? 8 : mode === 7 ? 16 : 4)) % 160;
          this.m1Mask = this.missileMask(this.posm1, this.nusiz1);
        }
        this.resmp1 = value & 0x02;
        this.setObject(M1, this.enam1 !== 0 && this.resmp1 === 0);
        break;
      case 0x2a:
        this.hmove(clock);
        break;
      case 0x2b:
        this.hmp0 = this.hmp1 = this.hmm0 = this.hmm1 = this.hmbl = 0;
        break;
      case 0x2c:
        this.collision = 0;
        break;
    }
  }

  /**
   * Whether writing `value` to `address` leaves everything drawing reads as it is (registers that do not draw:
   * WSYNC, RSYNC, audio, the motion registers HMOVE reads, unused addresses; or a drawing register rewritten with
   * its current value, which Atari kernels do on every line). Stella draws up to the write's clock before every
   * write, but drawing is lazy and a span drawn in two pieces gives the same pixels and collisions as drawn in one
   * (lines end at the same clocks, HMOVE blanks cover the same first 8 pixels), so for such writes poke only notes
   * the clock it owes the drawing up to (`owedClock`), and the next access that needs the picture (a write that
   * changes it, a read, the end of a frame) draws up to that clock first. HMM0 counts unless it starts the Cosmic
   * Ark case, which changes what line ends do. NUSIZx and VDELxx rewrites are rare and left out.
   */
  private changesNothingDrawn(address: number, value: number, clock: number): boolean {
    switch (address) {
      case 0x22:
        return !(clock === this.lastHMOVEClock + 21 * 3 && this.hmm0 === 7 && value >> 4 === 6);
      case 0x02: // WSYNC: only stops the CPU
      case 0x03: // RSYNC: not emulated (Stella 3.x ignores it)
      case 0x15:
      case 0x16:
      case 0x17:
      case 0x18:
      case 0x19:
      case 0x1a: // audio
      case 0x20:
      case 0x21:
      case 0x23:
      case 0x24: // HMP0, HMP1, HMM1, HMBL
      case 0x2b: // HMCLR
        return true;
      case 0x06:
        return this.color[2] === this.colourValue(value);
      case 0x07:
        return this.color[3] === this.colourValue(value);
      case 0x08:
        return this.color[1] === this.colourValue(value);
      case 0x09:
        return this.color[0] === this.colourValue(value);
      case 0x0b:
        return ((value & 0x08) !== 0) === this.refp0;
      case 0x0c:
        return ((value & 0x08) !== 0) === this.refp1;
      case 0x0d:
        return ((this.pf & 0x000ffff0) | ((value >> 4) & 0x0f)) === this.pf;
      case 0x0e:
        return ((this.pf & 0x000ff00f) | (value << 4)) === this.pf;
      case 0x0f:
        return ((this.pf & 0x00000fff) | (value << 12)) === this.pf;
      case 0x1b: // GRP0 also latches GRP1 into its delay register
        return value === this.grp0 && this.dgrp1 === this.grp1;
      case 0x1c: // GRP1 also latches GRP0 and ENABL
        return value === this.grp1 && this.dgrp0 === this.grp0 && this.denabl === this.enabl;
      case 0x1d:
        return (value & 0x02) === this.enam0;
      case 0x1e:
        return (value & 0x02) === this.enam1;
      case 0x1f:
        return (value & 0x02) === this.enabl;
      default:
        // 0x2d-0x3f are not registers.
        return address >= 0x2d;
    }
  }

  /**
   * Whether a write to `address` of `value`, taking effect at clock `target`, leaves every pixel owed so far as it
   * is (see changesNothingDrawn): the owed pixels (from the last update up to `target` or the clock owed, if later)
   * lie in one line of the window, and they are none (a horizontal blank), or the write's objects (WRITE_OBJECTS,
   * wherever their masks put them, shown or not) cover none of them, or a playfield write changes no bit they show.
   * Such a write is drawn later: the owed pixels come out as Stella drew them before the write.
   */
  private showsNothingOwed(address: number, value: number, target: number): boolean {
    const owed = this.owedPixels(target);
    if (owed === -1) return false;
    const from = owed & 0xff;
    const to = owed >> 8;
    if (to <= from) return true;
    if (address >= 0x0d && address <= 0x0f) {
      const pf = this.pf;
      const next =
        address === 0x0d
          ? (pf & 0x000ffff0) | ((value >> 4) & 0x0f)
          : address === 0x0e
            ? (pf & 0x000ff00f) | (value << 4)
            : (pf & 0x00000fff) | (value << 12);
      const leftChanged = playfieldGroups(pf ^ next);
      const rightChanged = this.pfMask === 0 ? leftChanged : mirroredGroups(leftChanged);
      // Groups [groupFrom, groupTo) of the 40 hold the owed pixels.
      const groupFrom = from >> 2;
      const groupTo = (to + 3) >> 2;
      const leftShown = groupFrom < 20 ? ((1 << (groupTo < 20 ? groupTo : 20)) - 1) ^ ((1 << groupFrom) - 1) : 0;
      const rightShown =
        groupTo > 20 ? ((1 << (groupTo - 20)) - 1) ^ ((1 << (groupFrom > 20 ? groupFrom - 20 : 0)) - 1) : 0;
      return (leftChanged & leftShown) === 0 && (rightChanged & rightShown) === 0;
    }
    const objects = WRITE_OBJECTS[address];
    if (objects === 0 || (address <= 0x07 && this.playfieldPriorityAndScore & SCORE)) return false;
    return (this.objectsCovering(from, to) & objects) === 0;
  }

  /**
   * The pixels owed up to clock `end` (from the last update, or up to the clock owed if later): `from | to << 8`,
   * pixels [from, to) of one line of the window (none if to <= from: a horizontal blank), or -1 if they reach past
   * the line or the window.
   */
  private owedPixels(end: number): number {
    if (this.owedClock > end) end = this.owedClock;
    const ahead = end - this.clockAtLastUpdate;
    if (
      ahead >= this.clocksToEndOfScanLine ||
      this.clockAtLastUpdate < this.clockStartDisplay ||
      this.clockAtLastUpdate >= this.clockStopDisplay
    )
      return -1;
    const lineClock = 228 - this.clocksToEndOfScanLine;
    const from = lineClock > HBLANK ? lineClock - HBLANK : 0;
    const to = lineClock + ahead - HBLANK;
    return to <= from ? from : from | (to << 8);
  }

  /** The objects (not the playfield) whose masks cover a pixel in [from, to) of the line, shown or not. */
  private objectsCovering(from: number, to: number): number {
    return (
      (NEXT_COVERED[PLAYER_TABLE + this.p0Mask + from] < PLAYER_TABLE + this.p0Mask + to ? P0 : 0) |
      (NEXT_COVERED[PLAYER_TABLE + this.p1Mask + from] < PLAYER_TABLE + this.p1Mask + to ? P1 : 0) |
      (NEXT_COVERED[MISSILE_TABLE + this.m0Mask + from] < MISSILE_TABLE + this.m0Mask + to ? M0 : 0) |
      (NEXT_COVERED[MISSILE_TABLE + this.m1Mask + from] < MISSILE_TABLE + this.m1Mask + to ? M1 : 0) |
      (NEXT_COVERED[this.blMask + from] < this.blMask + to ? BL : 0)
    );
  }

  /**
   * Whether reading collision register `register` at clock `clock` can leave the owed pixels undrawn: they lie in
   * one line, and for each of the register's pairs one of the objects covers none of them (nothing there could set
   * its bits). CXM0P, CXM1P, CXP0FB, CXP1FB, CXM0FB, CXM1FB and CXBLPF pair one object with two others; CXPPMM
   * pairs the players and the missiles.
   */
  private collidesNothingOwed(register: number, clock: number): boolean {
    const owed = this.owedPixels(clock);
    if (owed === -1) return false;
    const from = owed & 0xff;
    const to = owed >> 8;
    if (to <= from) return true;
    const covering = this.objectsCovering(from, to);
    if (register === 7) return (covering & (P0 | P1)) !== (P0 | P1) && (covering & (M0 | M1)) !== (M0 | M1);
    return (covering & READ_OBJECT[register]) === 0;
  }

  private playerMask(pos: number, enable: number, nusiz: number): number {
    return playerIndex(pos & 3, enable, nusiz & 7) + 160 - (pos & 0xfc);
  }

  private missileMask(pos: number, nusiz: number): number {
    return missileIndex(pos & 3, nusiz & 7, (nusiz & 0x30) >> 4) + 160 - (pos & 0xfc);
  }

  private setObject(bit: number, on: boolean): void {
    if (on) this.enabledObjects |= bit;
    else this.enabledObjects &= ~bit;
  }

  private setPF(pf: number): void {
    this.pf = pf;
    this.setObject(PF, pf !== 0);
  }

  /** The player graphics actually drawn: the delayed or new register, reflected if REFPx. */
  private updateGraphics(): void {
    const grp0 = this.vdelp0 ? this.dgrp0 : this.grp0;
    this.currentGRP0 = this.refp0 ? REFLECT[grp0] : grp0;
    const grp1 = this.vdelp1 ? this.dgrp1 : this.grp1;
    this.currentGRP1 = this.refp1 ? REFLECT[grp1] : grp1;
    this.setObject(P0, this.currentGRP0 !== 0);
    this.setObject(P1, this.currentGRP1 !== 0);
  }

  private updateBall(): void {
    this.setObject(BL, (this.vdelbl ? this.denabl : this.enabl) !== 0);
  }

  /** RESP0 / RESP1: where the write lands relative to the player's copies decides which copies still show. */
  private resetPlayer(player: number, clock: number): void {
    const hpos = (clock - this.clockWhenFrameStarted) % 228;
    const newx = hpos < HBLANK ? 3 : (hpos - HBLANK + 5) % 160;
    const nusiz = player === 0 ? this.nusiz0 : this.nusiz1;
    const oldx = player === 0 ? this.posp0 : this.posp1;
    const when = RESET_WHEN[((nusiz & 7) * 160 + oldx) * 160 + newx];
    if (when === 1) this.updateFrame(clock + 11);
    const mask = this.playerMask(newx, when === -1 ? 0 : 1, nusiz);
    if (player === 0) {
      this.posp0 = newx;
      this.p0Mask = mask;
    } else {
      this.posp1 = newx;
      this.p1Mask = mask;
    }
  }

  private hmove(clock: number): void {
    const x = LINE_CYCLE[(clock - this.clockWhenFrameStarted) % 228];
    if (this.allowHmoveBlanks && HMOVE_BLANK_CYCLES[x]) this.hmoveBlankEnabled = true;
    const row = x * 16;
    this.posp0 = wrap160(this.posp0 + MOTION[row + this.hmp0]);
    this.posp1 = wrap160(this.posp1 + MOTION[row + this.hmp1]);
    this.posm0 = wrap160(this.posm0 + MOTION[row + this.hmm0]);
    this.posm1 = wrap160(this.posm1 + MOTION[row + this.hmm1]);
    this.posbl = wrap160(this.posbl + MOTION[row + this.hmbl]);
    this.blMask = ballIndex(this.posbl & 3, (this.ctrlpf & 0x30) >> 4) + 160 - (this.posbl & 0xfc);
    this.p0Mask = this.playerMask(this.posp0, 0, this.nusiz0);
    this.p1Mask = this.playerMask(this.posp1, 0, this.nusiz1);
    this.m0Mask = this.missileMask(this.posm0, this.nusiz0);
    this.m1Mask = this.missileMask(this.posm1, this.nusiz1);
    this.lastHMOVEClock = clock;
    this.m0CosmicArkMotionEnabled = false;
  }
}

function wrap160(pos: number): number {
  return pos >= 160 ? pos - 160 : pos < 0 ? pos + 160 : pos;
}

/** The 20 playfield bits of register value `pf` in the order of the groups of 4 pixels that show them (PF0 in order, PF1 reversed, PF2 in order). */
function playfieldGroups(pf: number): number {
  return (pf & 0x0000f) | (REFLECT[(pf >> 4) & 0xff] << 4) | (pf & 0xff000);
}

/** Group-ordered playfield bits (see playfieldGroups) in reverse: the right half of a mirrored playfield. */
function mirroredGroups(groups: number): number {
  return (REFLECT[groups & 0xff] << 12) | (REFLECT[(groups >> 8) & 0xff] << 4) | (REFLECT[groups >> 16] >> 4);
}
