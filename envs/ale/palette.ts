// ALE's NTSC palette: the Stella "standard" palette that `ale::ColourPalette` uses for every NTSC game.
//
// The TIA colour registers hold a 7-bit colour (bits 1-7; bit 0 is ignored), so a screen pixel is an even byte
// 0x00..0xFE and there are 128 colours. ALE's table has 256 entries: the even ones are these RGB colours and the odd
// ones the grey level that `getScreenGrayscale` returns for the colour below them, computed as
// `round(0.2989 r + 0.5870 g + 0.1140 b)` (ColourPalette.cpp's `convertGrayscale`). We store the 128 colours and
// derive both lookup tables from them, indexed by the raw screen byte so no shift is needed in the hot loop.

/** The 128 NTSC colours as 0xRRGGBB, in TIA colour order (hue in the high nibble, luminance in bits 1-3). */
const NTSC_RGB: readonly number[] = [
  0x000000, 0x4a4a4a, 0x6f6f6f, 0x8e8e8e, 0xaaaaaa, 0xc0c0c0, 0xd6d6d6, 0xececec,
  0x484800, 0x69690f, 0x86861d, 0xa2a22a, 0xbbbb35, 0xd2d240, 0xe8e84a, 0xfcfc54,
  0x7c2c00, 0x904811, 0xa26221, 0xb47a30, 0xc3903d, 0xd2a44a, 0xdfb755, 0xecc860,
  0x901c00, 0xa33915, 0xb55328, 0xc66c3a, 0xd5824a, 0xe39759, 0xf0aa67, 0xfcbc74,
  0x940000, 0xa71a1a, 0xb83232, 0xc84848, 0xd65c5c, 0xe46f6f, 0xf08080, 0xfc9090,
  0x840064, 0x97197a, 0xa8308f, 0xb846a2, 0xc659b3, 0xd46cc3, 0xe07cd2, 0xec8ce0,
  0x500084, 0x68199a, 0x7d30ad, 0x9246c0, 0xa459d0, 0xb56ce0, 0xc57cee, 0xd48cfc,
  0x140090, 0x331aa3, 0x4e32b5, 0x6848c6, 0x7f5cd5, 0x956fe3, 0xa980f0, 0xbc90fc,
  0x000094, 0x181aa7, 0x2d32b8, 0x4248c8, 0x545cd6, 0x656fe4, 0x7580f0, 0x8490fc,
  0x001c88, 0x183b9d, 0x2d57b0, 0x4272c2, 0x548ad2, 0x65a0e1, 0x75b5ef, 0x84c8fc,
  0x003064, 0x185080, 0x2d6d98, 0x4288b0, 0x54a0c5, 0x65b7d9, 0x75cceb, 0x84e0fc,
  0x004030, 0x18624e, 0x2d8169, 0x429e82, 0x54b899, 0x65d1ae, 0x75e7c2, 0x84fcd4,
  0x004400, 0x1a661a, 0x328432, 0x48a048, 0x5cba5c, 0x6fd26f, 0x80e880, 0x90fc90,
  0x143c00, 0x355f18, 0x527e2d, 0x6e9c42, 0x87b754, 0x9ed065, 0xb4e775, 0xc8fc84,
  0x303800, 0x505916, 0x6d762b, 0x88923e, 0xa0ab4f, 0xb7c25f, 0xccd86e, 0xe0ec7c,
  0x482c00, 0x694d14, 0x866a26, 0xa28638, 0xbb9f47, 0xd2b656, 0xe8cc63, 0xfce070,
];

/** 0xRRGGBB for each screen byte 0..255 (odd bytes share the colour of the even byte below them). */
export const SCREEN_BYTE_TO_RGB = new Uint32Array(256);
/** ALE's grey level for each screen byte, as `getScreenGrayscale` returns it. */
export const SCREEN_BYTE_TO_GRAY = new Uint8Array(256);

for (let value = 0; value < 256; value++) {
  const rgb = NTSC_RGB[value >> 1];
  SCREEN_BYTE_TO_RGB[value] = rgb;
  const r = (rgb >> 16) & 0xff;
  const g = (rgb >> 8) & 0xff;
  const b = rgb & 0xff;
  // C's round() rounds halves away from zero; the weighted sum is never negative, so floor(x + 0.5) matches.
  SCREEN_BYTE_TO_GRAY[value] = Math.floor(r * 0.2989 + g * 0.587 + b * 0.114 + 0.5);
}

/** Each screen byte's colour as its three bytes R, G, B in memory order of a little-endian 32-bit word. */
const SCREEN_BYTE_TO_RGB_LE = new Uint32Array(256);
for (let value = 0; value < 256; value++) {
  const rgb = SCREEN_BYTE_TO_RGB[value];
  SCREEN_BYTE_TO_RGB_LE[value] = (rgb >>> 16) | (rgb & 0xff00) | ((rgb & 0xff) << 16);
}
/** Whether this machine stores a Uint32's low byte first (every platform Node runs on in practice). */
export const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Pixels in a screen row. */
const ROW = 160;

/** Whether the 40 words of the rows starting at words `a` and `b` are equal. */
function sameRow(words: Uint32Array, a: number, b: number): boolean {
  for (let i = 0; i < ROW / 4; i++) if (words[a + i] !== words[b + i]) return false;
  return true;
}

/** Whether the 40 words of the rows starting at word `a` of `x` and word `b` of `y` are equal. */
function sameRowOf(x: Uint32Array, a: number, y: Uint32Array, b: number): boolean {
  for (let i = 0; i < ROW / 4; i++) if (x[a + i] !== y[b + i]) return false;
  return true;
}

/**
 * The RGB of the screen row starting at pixel `row` (screen as words) into `words` (the RGB picture as words).
 * Four pixels are one little-endian word of the screen and twelve bytes, three aligned words, of the picture.
 */
function rowToRgb(screenWords: Uint32Array, words: Uint32Array, row: number): void {
  const lut = SCREEN_BYTE_TO_RGB_LE;
  for (let k = row >> 2, w = (row * 3) >> 2, end = (row + ROW) >> 2; k < end; k++, w += 3) {
    const pixels = screenWords[k];
    const x0 = lut[pixels & 0xff];
    const x1 = lut[(pixels >>> 8) & 0xff];
    const x2 = lut[(pixels >>> 16) & 0xff];
    const x3 = lut[pixels >>> 24];
    words[w] = x0 | (x1 << 24);
    words[w + 1] = (x1 >>> 8) | (x2 << 16);
    words[w + 2] = (x2 >>> 16) | (x3 << 8);
  }
}

/** Whether `screen` and `out` allow the word-wise conversion (aligned, whole rows, little-endian). */
function wordWise(screen: Uint8Array, out: Uint8Array): boolean {
  return LITTLE_ENDIAN && out.byteOffset % 4 === 0 && screen.byteOffset % 4 === 0 && screen.length % ROW === 0;
}

/** Writes the RGB triplets of `screen` (one byte per pixel) into `out` (3 bytes per pixel). */
export function screenToRgb(screen: Uint8Array, out: Uint8Array): void {
  if (out.length < screen.length * 3) throw new RangeError(`screenToRgb: out has ${out.length} bytes, needs ${screen.length * 3}`);
  if (wordWise(screen, out)) {
    const words = new Uint32Array(out.buffer, out.byteOffset, (screen.length * 3) / 4);
    // Atari pictures repeat rows a lot: a row equal to the one above (compared as 40 words) is a copy of its RGB.
    const screenWords = new Uint32Array(screen.buffer, screen.byteOffset, screen.length / 4);
    for (let row = 0; row < screen.length; row += ROW) {
      if (row > 0 && sameRow(screenWords, (row - ROW) >> 2, row >> 2)) out.copyWithin(row * 3, (row - ROW) * 3, row * 3);
      else rowToRgb(screenWords, words, row);
    }
    return;
  }
  const lut = SCREEN_BYTE_TO_RGB;
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
  readonly screenWords: Uint32Array;
  readonly picture: Uint8Array;
  readonly pictureWords: Uint32Array;
}

/**
 * screenToRgb for one console's successive screens (`size` pixels each). Consecutive frames repeat most rows, and
 * games that draw some objects only on alternate frames repeat the frame two back even more: the console shows its
 * two frame buffers in turn, so the cache keeps, per buffer, the last screen converted from it with its RGB
 * picture, converts only the rows that differ, and copies the picture out.
 */
export class ScreenRgbCache {
  private readonly slots: [CachedPicture, CachedPicture];
  /** The slot used last (the other one is replaced by a screen from a third buffer). */
  private last = 0;

  constructor(readonly size: number) {
    const slot = (): CachedPicture => {
      const picture = new Uint8Array(size * 3);
      return { source: null, screenWords: new Uint32Array(Math.ceil(size / 4)), picture, pictureWords: new Uint32Array(picture.buffer) };
    };
    this.slots = [slot(), slot()];
  }

  convert(screen: Uint8Array, out: Uint8Array): void {
    if (screen.length !== this.size || !wordWise(screen, this.slots[0].picture)) {
      screenToRgb(screen, out);
      return;
    }
    if (out.length < screen.length * 3) throw new RangeError(`screenToRgb: out has ${out.length} bytes, needs ${screen.length * 3}`);
    const source = screen.buffer;
    const index = this.slots[this.last].source === source ? this.last : this.slots[1 - this.last].source === source ? 1 - this.last : -1;
    const slot = this.slots[index >= 0 ? index : 1 - this.last];
    this.last = index >= 0 ? index : 1 - this.last;
    const filled = slot.source === source;
    slot.source = source;
    const screenWords = new Uint32Array(source, screen.byteOffset, screen.length / 4);
    const kept = slot.screenWords;
    for (let row = 0; row < screen.length; row += ROW) {
      const word = row >> 2;
      if (filled && sameRowOf(screenWords, word, kept, word)) continue;
      rowToRgb(screenWords, slot.pictureWords, row);
      for (let i = 0; i < ROW / 4; i++) kept[word + i] = screenWords[word + i];
    }
    out.set(slot.picture);
  }
}

/** Writes ALE's grey level of each pixel of `screen` into `out`. */
export function screenToGrayscale(screen: Uint8Array, out: Uint8Array): void {
  if (out.length < screen.length) throw new RangeError(`screenToGrayscale: out has ${out.length} bytes, needs ${screen.length}`);
  const lut = SCREEN_BYTE_TO_GRAY;
  for (let i = 0; i < screen.length; i++) out[i] = lut[screen[i]];
}
