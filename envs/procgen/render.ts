// The raster core: procgen's observation is what Qt 5's raster paint engine draws into a 64x64 RGB32 image with
// antialiasing and smooth pixmap transforms off. We draw straight into the 64x64x3 byte observation and follow the
// code paths Qt 5.15 (qtbase 5.15.8, the Debian build the reference was checked against) takes for procgen's calls:
//
// - `fillRect(QRectF, QColor)`: the pixel box [qRound(x), qRound(x + w)) x [qRound(y), qRound(y + h))
//   (QRasterPaintEngine::toNormalizedFillRect; qRound rounds halves up).
// - `drawImage(QRectF, QImage)` unrotated, sprite (premultiplied ARGB32) at full opacity:
//   qt_scale_image_argb32_on_argb32_sse2. Columns qRound(left) .. qRound(right) - 1 clipped to the image; the source
//   column steps by the 16.16 fixed-point ix = int(65536 / (target w / source w)), starting at
//   qCeil((x0 + 0.5 - left) * ix) - 1; rows likewise; a last row/column whose source index falls outside the image
//   is dropped. Blend: dst = src + BYTE_MUL(dst, 255 - alpha) on premultiplied 8-bit channels.
// - the same with painter opacity < 1, and backgrounds (RGB32 onto RGB32): the generic qt_scale_image_32bit. The
//   box is QRectF::toRect() (the same columns), ix = int(65536 * source w / target w), the start
//   qCeil((x0 + 0.5 - left) * (source w / target w) * 65536) - 1. With opacity the source is first scaled by
//   BYTE_MUL(src, (int(opacity * 256) * 255) >> 8). Backgrounds replace the pixel with the image's raw RGB (Qt's
//   ARGB32 -> RGB32 conversion drops alpha without premultiplying).
// - rotated images: a destination pixel is covered when its centre lies inside the rotated target rectangle and it
//   samples the source pixel under the mapped centre (Qt rasterises these as a thick line, with the same centre
//   rule up to its edge rounding).
//
// Images are premultiplied the way QImage::convertToFormat(ARGB32_Premultiplied) does: c * a / 255 rounded by
// BYTE_MUL's (t + (t >> 8) + 0x80) >> 8.

/** A decoded image: straight (non-premultiplied) RGBA bytes, row 0 at the top. */
export interface ProcgenImage {
  width: number;
  height: number;
  rgba: Uint8Array;
  /** The premultiplied RGBA bytes, made on first use. */
  premultiplied?: Uint8Array;
}

/** A rectangle in pixels: top-left corner, width, height (QRectF). */
export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Qt's BYTE_MUL on one channel: x * a / 255, rounded as Qt rounds it. */
export function byteMul(x: number, a: number): number {
  const t = x * a;
  return (t + (t >> 8) + 0x80) >> 8;
}

/** qRound: halves round up (towards +infinity). */
export function qRound(d: number): number {
  return Math.floor(d + 0.5);
}

function premultiplied(img: ProcgenImage): Uint8Array {
  if (img.premultiplied !== undefined) return img.premultiplied;
  const src = img.rgba;
  const pm = new Uint8Array(src.length);
  for (let i = 0; i < src.length; i += 4) {
    const a = src[i + 3];
    pm[i] = byteMul(src[i], a);
    pm[i + 1] = byteMul(src[i + 1], a);
    pm[i + 2] = byteMul(src[i + 2], a);
    pm[i + 3] = a;
  }
  img.premultiplied = pm;
  return pm;
}

/**
 * One axis of a Qt scaled blit: destination pixels [d0, d0 + n) read source index (base + k * step) >>> 16 for
 * k = 0 .. n - 1. `fast`: the SSE2 sprite path's arithmetic, else the generic one. null when nothing is drawn.
 */
function scaleAxis(start: number, size: number, srcSize: number, limit: number, fast: boolean): [number, number, number, number] | null {
  let d0 = qRound(start);
  let d1 = qRound(start + size);
  if (d0 < 0) d0 = 0;
  if (d1 > limit) d1 = limit;
  let n = d1 - d0;
  if (n <= 0) return null;
  let step: number;
  let first: number;
  if (fast) {
    step = Math.trunc(65536 / (size / srcSize));
    first = Math.ceil((d0 + 0.5 - start) * step) - 1;
  } else {
    const s = srcSize / size;
    step = Math.trunc(65536 * s);
    first = Math.ceil((d0 + 0.5 - start) * s * 65536) - 1;
  }
  const base = first >>> 0;
  // Floating-point rounding can put the last sample one past the image: Qt then draws one pixel less.
  if ((base + step * (n - 1)) >>> 16 >= srcSize) n--;
  if (n <= 0) return null;
  return [d0, n, base, step];
}

/** An RGB canvas: `width * height * 3` bytes, row-major, row 0 at the top (the observation's layout). */
export class Canvas {
  constructor(
    readonly width: number,
    readonly height: number,
    public pixels: Uint8Array = new Uint8Array(width * height * 3),
  ) {}

  /** Black everywhere (the first thing every frame does). */
  clear(): void {
    this.pixels.fill(0);
  }

  /** `QPainter::fillRect(QRectF, QColor)` with an opaque colour. */
  fillRect(rect: Rect, r: number, g: number, b: number): void {
    let x0 = qRound(rect.x);
    let x1 = qRound(rect.x + rect.w);
    let y0 = qRound(rect.y);
    let y1 = qRound(rect.y + rect.h);
    if (x1 < x0) [x0, x1] = [x1, x0];
    if (y1 < y0) [y0, y1] = [y1, y0];
    x0 = Math.max(0, x0);
    y0 = Math.max(0, y0);
    x1 = Math.min(this.width, x1);
    y1 = Math.min(this.height, y1);
    const px = this.pixels;
    for (let y = y0; y < y1; y++) {
      let o = (y * this.width + x0) * 3;
      for (let x = x0; x < x1; x++, o += 3) {
        px[o] = r;
        px[o + 1] = g;
        px[o + 2] = b;
      }
    }
  }

  /**
   * `QPainter::drawImage(rect, image)`: the image stretched to `rect`, mirrored horizontally when `reflected`,
   * rotated by `rotation` radians (clockwise on screen) about the rect's centre, drawn with painter opacity `alpha`.
   * `opaque`: an RGB32 background (replaces the pixels with the image's raw RGB).
   */
  drawImage(img: ProcgenImage, rect: Rect, rotation = 0, reflected = false, alpha = 1, opaque = false): void {
    if (rect.w <= 0 || rect.h <= 0) return;
    if (rotation !== 0) {
      this.drawRotated(img, rect, rotation, reflected, alpha);
      return;
    }
    const opacity = Math.trunc(Math.min(1, Math.max(0, alpha)) * 256);
    if (opacity === 0) return;
    const fast = !opaque && opacity === 256;
    const ax = scaleAxis(rect.x, rect.w, img.width, this.width, fast);
    const ay = scaleAxis(rect.y, rect.h, img.height, this.height, fast);
    if (ax === null || ay === null) return;
    const [x0, nx, bx, ix] = ax;
    const [y0, ny, by, iy] = ay;
    const iw = img.width;
    const px = this.pixels;
    if (opaque) {
      const src = img.rgba;
      for (let j = 0; j < ny; j++) {
        const row = ((by + j * iy) >>> 16) * iw;
        let o = ((y0 + j) * this.width + x0) * 3;
        for (let k = 0; k < nx; k++, o += 3) {
          let sx = (bx + k * ix) >>> 16;
          if (reflected) sx = iw - 1 - sx;
          const s = (row + sx) * 4;
          px[o] = src[s];
          px[o + 1] = src[s + 1];
          px[o + 2] = src[s + 2];
        }
      }
      return;
    }
    const src = premultiplied(img);
    // Blend_ARGB32_on_ARGB32_SourceAndConstAlpha's constant alpha (255 means none).
    const m = opacity === 256 ? 255 : (opacity * 255) >> 8;
    for (let j = 0; j < ny; j++) {
      const row = ((by + j * iy) >>> 16) * iw;
      let o = ((y0 + j) * this.width + x0) * 3;
      for (let k = 0; k < nx; k++, o += 3) {
        let sx = (bx + k * ix) >>> 16;
        if (reflected) sx = iw - 1 - sx;
        blendPremultiplied(px, o, src, (row + sx) * 4, m);
      }
    }
  }

  /** A rotated image: pixel centres inside the rotated rect sample the source under them. */
  private drawRotated(img: ProcgenImage, rect: Rect, rotation: number, reflected: boolean, alpha: number): void {
    const opacity = Math.trunc(Math.min(1, Math.max(0, alpha)) * 256);
    if (opacity === 0) return;
    const m = opacity === 256 ? 255 : (opacity * 255) >> 8;
    const src = premultiplied(img);
    const iw = img.width;
    const ih = img.height;
    const px = this.pixels;
    const sxScale = iw / rect.w;
    const syScale = ih / rect.h;
    const cx = rect.x + rect.w / 2;
    const cy = rect.y + rect.h / 2;
    const cos = Math.cos(rotation);
    const sin = Math.sin(rotation);
    const hw = rect.w / 2;
    const hh = rect.h / 2;
    const ex = Math.abs(hw * cos) + Math.abs(hh * sin);
    const ey = Math.abs(hw * sin) + Math.abs(hh * cos);
    const x0 = Math.max(0, Math.ceil(cx - ex - 0.5));
    const x1 = Math.min(this.width, Math.ceil(cx + ex - 0.5));
    const y0 = Math.max(0, Math.ceil(cy - ey - 0.5));
    const y1 = Math.min(this.height, Math.ceil(cy + ey - 0.5));
    for (let y = y0; y < y1; y++) {
      const dy = y + 0.5 - cy;
      for (let x = x0; x < x1; x++) {
        const dx = x + 0.5 - cx;
        // Inverse of a clockwise (y-down) rotation by `rotation`.
        const ux = dx * cos + dy * sin;
        const uy = -dx * sin + dy * cos;
        if (ux < -hw || ux >= hw || uy < -hh || uy >= hh) continue;
        let sx = Math.min(iw - 1, Math.floor((ux + hw) * sxScale));
        const sy = Math.min(ih - 1, Math.floor((uy + hh) * syScale));
        if (reflected) sx = iw - 1 - sx;
        blendPremultiplied(px, (y * this.width + x) * 3, src, (sy * iw + sx) * 4, m);
      }
    }
  }

  /**
   * procgen's `tile_image`: `ratio` 0 draws once; > 0 repeats the image horizontally in tiles of aspect `ratio`
   * (width / height); < 0 repeats it vertically. Tile sizes are float32, as procgen computes them.
   */
  tileImage(img: ProcgenImage, rect: Rect, ratio: number, opaque = false, reflected = false, alpha = 1): void {
    const f = Math.fround;
    if (ratio === 0) {
      this.drawImage(img, rect, 0, reflected, alpha, opaque);
    } else if (ratio < 0) {
      const n = Math.max(1, Math.trunc(rect.h / (rect.w * f(-ratio))));
      const th = f(rect.h / n);
      const tw = f(rect.w);
      for (let i = 0; i < n; i++) this.drawImage(img, { x: rect.x, y: rect.y + f(th * i), w: tw, h: th }, 0, reflected, alpha, opaque);
    } else {
      const n = Math.max(1, Math.trunc(rect.w / (rect.h * ratio)));
      const tw = f(rect.w / n);
      const th = f(rect.h);
      for (let i = 0; i < n; i++) this.drawImage(img, { x: rect.x + f(tw * i), y: rect.y, w: tw, h: th }, 0, reflected, alpha, opaque);
    }
  }
}

/**
 * Premultiplied source pixel (at `s`) over an opaque destination pixel (RGB at `o`), with constant alpha `m`
 * (255: none): Qt's blend_pixel.
 */
function blendPremultiplied(px: Uint8Array, o: number, src: Uint8Array, s: number, m: number): void {
  let r = src[s];
  let g = src[s + 1];
  let b = src[s + 2];
  let a = src[s + 3];
  if (m !== 255) {
    if ((r | g | b | a) === 0) return;
    r = byteMul(r, m);
    g = byteMul(g, m);
    b = byteMul(b, m);
    a = byteMul(a, m);
  }
  if (a === 255) {
    px[o] = r;
    px[o + 1] = g;
    px[o + 2] = b;
  } else {
    const k = 255 - a;
    px[o] = r + byteMul(px[o], k);
    px[o + 1] = g + byteMul(px[o + 1], k);
    px[o + 2] = b + byteMul(px[o + 2], k);
  }
}

/**
 * Monochrome colour of (type, theme) (`use_monochrome_assets`): 64 colours on a 4x4x4 grid, indexed so that
 * distinct types (same theme) and distinct themes (same type) never collide.
 */
export function monochromeColor(type: number, theme: number): [number, number, number] {
  let i = (29 * (type + 1)) % 64;
  i = (i + 19 * theme) % 64;
  return [64 * (Math.floor(i / 16) + 1) - 1, 64 * ((Math.floor(i / 4) % 4) + 1) - 1, 64 * ((i % 4) + 1) - 1];
}

/** `to_shade`: [0, 1] to a grey level, clamped. */
export function toShade(f: number): number {
  return Math.max(0, Math.min(255, Math.trunc(f * 255)));
}
