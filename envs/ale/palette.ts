// ALE's colour palettes: the Stella "standard" palettes that `ale::ColourPalette` picks by the console's display
// format, NTSC for most games and PAL for the PAL cartridges (Combat, Maze Craze, Space War among PettingZoo's).
//
// The TIA colour registers hold a 7-bit colour (bits 1-7), so a screen pixel is normally an even byte 0x00..0xFE
// and there are 128 colours. ALE's tables have 256 entries: the even ones are these RGB colours and the odd ones the
// grey of the colour below them, `round(0.2989 r + 0.5870 g + 0.1140 b)` (ColourPalette.cpp's `convertGrayscale`).
// `getScreenRGB` looks the screen byte up directly and `getScreenGrayscale` takes the blue byte of entry byte + 1.
// Odd screen bytes do occur: a PAL TIA sets bit 0 of every colour after a frame with an odd number of scanlines
// (Stella's colour loss), and a frame cut short greys its unfinished part into values 0..7. For them ALE's lookups
// give the grey of the colour below (RGB) and the blue of the colour above (grayscale); the tables here do the same.
// We store the 128 colours of each format and derive the lookup tables, indexed by the raw screen byte.

/** The 128 NTSC colours as 0xRRGGBB, in TIA colour order (hue in the high nibble, luminance in bits 1-3). */
const NTSC_RGB: readonly number[] = [
  0x000000, 0x4a4a4a, 0x6f6f6f, 0x8e8e8e, 0xaaaaaa, 0xc0c0c0, 0xd6d6d6, 0xececec, 0x484800, 0x69690f, 0x86861d,
  0xa2a22a, 0xbbbb35, 0xd2d240, 0xe8e84a, 0xfcfc54, 0x7c2c00, 0x904811, 0xa26221, 0xb47a30, 0xc3903d, 0xd2a44a,
  0xdfb755, 0xecc860, 0x901c00, 0xa33915, 0xb55328, 0xc66c3a, 0xd5824a, 0xe39759, 0xf0aa67, 0xfcbc74, 0x940000,
  0xa71a1a, 0xb83232, 0xc84848, 0xd65c5c, 0xe46f6f, 0xf08080, 0xfc9090, 0x840064, 0x97197a, 0xa8308f, 0xb846a2,
  0xc659b3, 0xd46cc3, 0xe07cd2, 0xec8ce0, 0x500084, 0x68199a, 0x7d30ad, 0x9246c0, 0xa459d0, 0xb56ce0, 0xc57cee,
  0xd48cfc, 0x140090, 0x331aa3, 0x4e32b5, 0x6848c6, 0x7f5cd5, 0x956fe3, 0xa980f0, 0xbc90fc, 0x000094, 0x181aa7,
  0x2d32b8, 0x4248c8, 0x545cd6, 0x656fe4, 0x7580f0, 0x8490fc, 0x001c88, 0x183b9d, 0x2d57b0, 0x4272c2, 0x548ad2,
  0x65a0e1, 0x75b5ef, 0x84c8fc, 0x003064, 0x185080, 0x2d6d98, 0x4288b0, 0x54a0c5, 0x65b7d9, 0x75cceb, 0x84e0fc,
  0x004030, 0x18624e, 0x2d8169, 0x429e82, 0x54b899, 0x65d1ae, 0x75e7c2, 0x84fcd4, 0x004400, 0x1a661a, 0x328432,
  0x48a048, 0x5cba5c, 0x6fd26f, 0x80e880, 0x90fc90, 0x143c00, 0x355f18, 0x527e2d, 0x6e9c42, 0x87b754, 0x9ed065,
  0xb4e775, 0xc8fc84, 0x303800, 0x505916, 0x6d762b, 0x88923e, 0xa0ab4f, 0xb7c25f, 0xccd86e, 0xe0ec7c, 0x482c00,
  0x694d14, 0x866a26, 0xa28638, 0xbb9f47, 0xd2b656, 0xe8cc63, 0xfce070,
];

/** The 128 PAL colours as 0xRRGGBB, in TIA colour order (Stella's PAL table: hues 0, 1, 14 and 15 are greys). */
const PAL_RGB: readonly number[] = [
  0x000000, 0x2b2b2b, 0x525252, 0x767676, 0x979797, 0xb6b6b6, 0xd2d2d2, 0xececec, 0x000000, 0x2b2b2b, 0x525252,
  0x767676, 0x979797, 0xb6b6b6, 0xd2d2d2, 0xececec, 0x805800, 0x96711a, 0xab8732, 0xbe9c48, 0xcfaf5c, 0xdfc06f,
  0xeed180, 0xfce090, 0x445c00, 0x5e791a, 0x769332, 0x8cac48, 0xa0c25c, 0xb3d76f, 0xc4ea80, 0xd4fc90, 0x703400,
  0x89511a, 0xa06b32, 0xb68448, 0xc99a5c, 0xdcaf6f, 0xecc280, 0xfcd490, 0x006414, 0x1a8035, 0x329852, 0x48b06e,
  0x5cc587, 0x6fd99e, 0x80ebb4, 0x90fcc8, 0x700014, 0x891a35, 0xa03252, 0xb6486e, 0xc95c87, 0xdc6f9e, 0xec80b4,
  0xfc90c8, 0x005c5c, 0x1a7676, 0x328e8e, 0x48a4a4, 0x5cb8b8, 0x6fcbcb, 0x80dcdc, 0x90ecec, 0x70005c, 0x841a74,
  0x963289, 0xa8489e, 0xb75cb0, 0xc66fc1, 0xd380d1, 0xe090e0, 0x003c70, 0x195a89, 0x2f75a0, 0x448eb6, 0x57a5c9,
  0x68badc, 0x79ceec, 0x88e0fc, 0x580070, 0x6e1a89, 0x8332a0, 0x9648b6, 0xa75cc9, 0xb76fdc, 0xc680ec, 0xd490fc,
  0x002070, 0x193f89, 0x2f5aa0, 0x4474b6, 0x578bc9, 0x68a1dc, 0x79b5ec, 0x88c8fc, 0x340080, 0x4a1a96, 0x5f32ab,
  0x7248be, 0x835ccf, 0x936fdf, 0xa280ee, 0xb090fc, 0x000088, 0x1a1a9d, 0x3232b0, 0x4848c2, 0x5c5cd2, 0x6f6fe1,
  0x8080ef, 0x9090fc, 0x000000, 0x2b2b2b, 0x525252, 0x767676, 0x979797, 0xb6b6b6, 0xd2d2d2, 0xececec, 0x000000,
  0x2b2b2b, 0x525252, 0x767676, 0x979797, 0xb6b6b6, 0xd2d2d2, 0xececec,
];

/** One display format's lookup tables, indexed by the screen byte. */
export interface Palette {
  /** 0xRRGGBB, what `getScreenRGB` writes. */
  readonly rgb: Uint32Array;
  /** The same colours as the bytes R, G, B in memory order of a little-endian 32-bit word. */
  readonly rgbLE: Uint32Array;
  /** What `getScreenGrayscale` writes. */
  readonly gray: Uint8Array;
}

/** ColourPalette.cpp's convertGrayscale (C's round() rounds halves away from zero; the sum is never negative). */
function grey(rgb: number): number {
  return Math.floor(((rgb >> 16) & 0xff) * 0.2989 + ((rgb >> 8) & 0xff) * 0.587 + (rgb & 0xff) * 0.114 + 0.5);
}

function buildPalette(colours: readonly number[]): Palette {
  // ALE's 256-entry table: colour, grey of that colour, next colour, ...
  const table = new Uint32Array(257);
  for (let i = 0; i < 128; i++) {
    const g = grey(colours[i]);
    table[2 * i] = colours[i];
    table[2 * i + 1] = (g << 16) | (g << 8) | g;
  }
  const rgb = table.slice(0, 256);
  // Entry 256 lies past ALE's array (only screen byte 0xFF would read it); 0 here.
  const gray = Uint8Array.from({ length: 256 }, (_, v) => table[v + 1] & 0xff);
  const rgbLE = rgb.map((c) => (c >>> 16) | (c & 0xff00) | ((c & 0xff) << 16));
  return { rgb, rgbLE, gray };
}

export const NTSC_PALETTE: Palette = buildPalette(NTSC_RGB);
export const PAL_PALETTE: Palette = buildPalette(PAL_RGB);
/** 0xRRGGBB for each screen byte 0..255 under the NTSC palette. */
export const SCREEN_BYTE_TO_RGB = NTSC_PALETTE.rgb;

/** Whether this machine stores a Uint32's low byte first (every platform Node runs on in practice). */
export const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Pixels in a screen row. */
const ROW = 160;

/**
 * Whether the rows starting at pixel `a` of one screen and pixel `b` of another are equal, given each screen as
 * doubles (`x`, `y`) and as 32-bit words (`xw`, `yw`) over the same bytes: 8 pixels per comparison. Equal bytes
 * are equal doubles but for NaNs, which then only cost a needless conversion; unequal bytes are unequal doubles but
 * for +0 and -0, told apart by their high words.
 */
function sameRow(x: Float64Array, xw: Int32Array, a: number, y: Float64Array, yw: Int32Array, b: number): boolean {
  for (let i = a >> 3, j = b >> 3, end = (a + ROW) >> 3; i < end; i++, j++) {
    const v = x[i];
    if (v !== y[j] || (v === 0 && xw[2 * i + 1] !== yw[2 * j + 1])) return false;
  }
  return true;
}

/**
 * The RGB of four pixels (one little-endian word of the screen) into the three aligned words of the RGB picture
 * from word `w`.
 */
function groupToRgb(pixels: number, words: Int32Array, w: number, lut: Uint32Array): void {
  const x0 = lut[pixels & 0xff];
  const x1 = lut[(pixels >>> 8) & 0xff];
  const x2 = lut[(pixels >>> 16) & 0xff];
  const x3 = lut[pixels >>> 24];
  words[w] = x0 | (x1 << 24);
  words[w + 1] = (x1 >>> 8) | (x2 << 16);
  words[w + 2] = (x2 >>> 16) | (x3 << 8);
}

/** The RGB of the screen row starting at pixel `row` (screen as words) into `words` (the RGB picture as words). */
function rowToRgb(screenWords: Int32Array, words: Int32Array, row: number, lut: Uint32Array): void {
  for (let k = row >> 2, end = (row + ROW) >> 2; k < end; k++) groupToRgb(screenWords[k], words, 3 * k, lut);
}

/**
 * Brings the row starting at pixel `row` of `kept` (a screen as words) and of `words` (its RGB picture) up to date
 * with `screenWords`, converting only the groups of four pixels that differ: a changed row of a game picture
 * differs in a few groups (a sprite, the digits of a score), seldom all forty. Sixteen pixels are compared at once.
 */
function updateRow(screenWords: Int32Array, kept: Int32Array, words: Int32Array, row: number, lut: Uint32Array): void {
  for (let k = row >> 2, end = (row + ROW) >> 2; k < end; k += 4) {
    const differ =
      (screenWords[k] ^ kept[k]) |
      (screenWords[k + 1] ^ kept[k + 1]) |
      (screenWords[k + 2] ^ kept[k + 2]) |
      (screenWords[k + 3] ^ kept[k + 3]);
    if (differ === 0) continue;
    for (let j = k; j < k + 4; j++) {
      const pixels = screenWords[j];
      if (pixels === kept[j]) continue;
      kept[j] = pixels;
      groupToRgb(pixels, words, 3 * j, lut);
    }
  }
}

/** Whether `screen` and `out` allow the word-wise conversion (aligned, whole rows, little-endian). */
function wordWise(screen: Uint8Array, out: Uint8Array): boolean {
  return LITTLE_ENDIAN && out.byteOffset % 4 === 0 && screen.byteOffset % 8 === 0 && screen.length % ROW === 0;
}

/** Writes the RGB triplets of `screen` (one byte per pixel) into `out` (3 bytes per pixel) under `palette`. */
export function screenToRgb(screen: Uint8Array, out: Uint8Array, palette: Palette = NTSC_PALETTE): void {
  if (out.length < screen.length * 3)
    throw new RangeError(`screenToRgb: out has ${out.length} bytes, needs ${screen.length * 3}`);
  if (wordWise(screen, out)) {
    const words = new Int32Array(out.buffer, out.byteOffset, (screen.length * 3) / 4);
    // Atari pictures repeat rows a lot: a row equal to the one above (compared 8 pixels at a time) is a copy of its RGB.
    const screenWords = new Int32Array(screen.buffer, screen.byteOffset, screen.length / 4);
    const screenDoubles = new Float64Array(screen.buffer, screen.byteOffset, screen.length / 8);
    const lut = palette.rgbLE;
    for (let row = 0; row < screen.length; row += ROW) {
      if (row > 0 && sameRow(screenDoubles, screenWords, row - ROW, screenDoubles, screenWords, row))
        out.copyWithin(row * 3, (row - ROW) * 3, row * 3);
      else rowToRgb(screenWords, words, row, lut);
    }
    return;
  }
  const lut = palette.rgb;
  for (let i = 0, o = 0; i < screen.length; i++, o += 3) {
    const rgb = lut[screen[i]];
    out[o] = rgb >>> 16;
    out[o + 1] = (rgb >>> 8) & 0xff;
    out[o + 2] = rgb & 0xff;
  }
}

/** A screen the cache converted last from one frame buffer, and its RGB picture. */
interface CachedPicture {
  /** The frame buffer the screen is a view of. */
  source: ArrayBufferLike | null;
  /** That screen's pixels as 32-bit words: the picture is always their RGB, whichever buffer they came from. */
  readonly screenWords: Int32Array;
  readonly picture: Uint8Array;
  readonly pictureWords: Int32Array;
}

/**
 * screenToRgb for one console's successive screens (`size` pixels each). Consecutive frames repeat most rows, and
 * games that draw some objects only on alternate frames repeat the frame two back even more: the console shows its
 * two frame buffers in turn, so the cache keeps, per buffer, the last screen converted from it with its RGB
 * picture, converts only the groups of four pixels that differ, and copies the picture out.
 */
export class ScreenRgbCache {
  private readonly slots: [CachedPicture, CachedPicture];
  /** The slot used last (the other one is replaced by a screen from a third buffer). */
  private last = 0;

  constructor(
    readonly size: number,
    readonly palette: Palette = NTSC_PALETTE,
  ) {
    const slot = (): CachedPicture => {
      const picture = new Uint8Array(size * 3);
      const screenWords = new Int32Array(Math.ceil(size / 4));
      const pictureWords = new Int32Array(picture.buffer);
      // An all-black screen and its RGB (colour 0), so that every slot starts as a screen with its picture.
      for (let row = 0; row + ROW <= size; row += ROW) rowToRgb(screenWords, pictureWords, row, palette.rgbLE);
      return { source: null, screenWords, picture, pictureWords };
    };
    this.slots = [slot(), slot()];
  }

  /**
   * `rowsWritten`, when given, belongs to the frame buffer `screen` views: 1 for each row written since this cache
   * last converted it (the cache sets entries to 0 as it converts), so the others need no comparison.
   */
  convert(screen: Uint8Array, out: Uint8Array, rowsWritten?: Uint8Array): void {
    if (screen.length !== this.size || !wordWise(screen, this.slots[0].picture)) {
      screenToRgb(screen, out, this.palette);
      return;
    }
    if (out.length < screen.length * 3)
      throw new RangeError(`screenToRgb: out has ${out.length} bytes, needs ${screen.length * 3}`);
    const source = screen.buffer;
    const index =
      this.slots[this.last].source === source
        ? this.last
        : this.slots[1 - this.last].source === source
          ? 1 - this.last
          : -1;
    const slot = this.slots[index >= 0 ? index : 1 - this.last];
    this.last = index >= 0 ? index : 1 - this.last;
    // A slot taken over from another buffer holds that buffer's screen: every row is compared once.
    const trustFlags = rowsWritten !== undefined && slot.source === source;
    slot.source = source;
    const screenWords = new Int32Array(source, screen.byteOffset, screen.length / 4);
    const lut = this.palette.rgbLE;
    for (let row = 0, r = 0; row < screen.length; row += ROW, r++) {
      if (rowsWritten !== undefined) {
        if (trustFlags && rowsWritten[r] === 0) continue;
        rowsWritten[r] = 0;
      }
      updateRow(screenWords, slot.screenWords, slot.pictureWords, row, lut);
    }
    out.set(slot.picture);
  }
}

/** Writes ALE's grey level of each pixel of `screen` into `out` under `palette`. */
export function screenToGrayscale(screen: Uint8Array, out: Uint8Array, palette: Palette = NTSC_PALETTE): void {
  if (out.length < screen.length)
    throw new RangeError(`screenToGrayscale: out has ${out.length} bytes, needs ${screen.length}`);
  const lut = palette.gray;
  for (let i = 0; i < screen.length; i++) out[i] = lut[screen[i]];
}
