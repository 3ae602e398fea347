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
// - rotated images: targets under 16 px a side, QRasterizer::rasterizeLine (aliased) and a 16.16 fixed-point
//   inverse-transform fetch per span; larger ones, qt_transform_image's trapezoids. A rotation whose sine is
//   negligible (180 degrees) is a scale by -1 for QTransform: the scaled blit, mirrored.
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
  /** `rgba` and `premultiplied` as one little-endian 32-bit word per pixel (R in the low byte), made on first use. */
  rgba32?: Uint32Array;
  premultiplied32?: Uint32Array;
  /** Whether every pixel has alpha 255 (then blending it at full opacity is a copy), found on first use. */
  fullyOpaque?: boolean;
  /**
   * A QImage::Format_ARGB32 image (procgen's generated sprites) rather than ARGB32_Premultiplied: Qt has no scaled
   * or transformed blit for that format, so every draw goes through its generic textured fill.
   */
  straightAlpha?: boolean;
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

/** Pixels as 32-bit words: one load per pixel in the blits. A view of the bytes, or a copy where they do not start 4-byte aligned. */
function words(bytes: Uint8Array): Uint32Array {
  if (bytes.byteOffset % 4 === 0) return new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length >> 2);
  const w = new Uint32Array(bytes.length >> 2);
  new Uint8Array(w.buffer).set(bytes.subarray(0, w.length << 2));
  return w;
}

function rgba32(img: ProcgenImage): Uint32Array {
  return (img.rgba32 ??= words(img.rgba));
}

function premultiplied32(img: ProcgenImage): Uint32Array {
  return (img.premultiplied32 ??= words(premultiplied(img)));
}

function fullyOpaque(img: ProcgenImage): boolean {
  if (img.fullyOpaque === undefined) {
    const src = rgba32(img);
    let all = true;
    for (let i = 0; i < src.length && all; i++) all = src[i] >>> 24 === 255;
    img.fullyOpaque = all;
  }
  return img.fullyOpaque;
}

/**
 * A blit's device rect as Qt's scale functions receive it: x, w, y, h (w, h < 0: mirrored). Passed through this
 * scratch rather than as arguments, which V8 would box as heap numbers on every call.
 */
const BOX = new Float64Array(4);

/**
 * One axis of a Qt scaled blit, from BOX[at] (start) and BOX[at + 1] (size): destination pixels [d0, d0 + n) read
 * source index (base + k * step) >>> 16 for k = 0 .. n - 1, written to `out` as [d0, n, base, step]. `fast`: the
 * SSE2 sprite path's arithmetic, else the generic one. False when nothing is drawn.
 */
function scaleAxis(at: number, srcSize: number, limit: number, fast: boolean, out: Float64Array): boolean {
  const start = BOX[at];
  const size = BOX[at + 1];
  const end = start + size;
  let d0 = qRound(start);
  let d1 = qRound(end);
  if (d1 < d0) {
    const t = d0;
    d0 = d1;
    d1 = t;
  }
  if (d0 < 0) d0 = 0;
  if (d1 > limit) d1 = limit;
  let n = d1 - d0;
  if (n <= 0) return false;
  // A negative size (a rect mirrored by the painter's scale of -1) samples from the image's far edge backwards.
  const mirrored = size < 0;
  const from = mirrored ? end : start;
  let step: number;
  let first: number;
  if (fast) {
    step = Math.trunc(65536 / (size / srcSize));
    first = mirrored ? Math.floor((d0 + 0.5 - from) * step) + 1 : Math.ceil((d0 + 0.5 - from) * step) - 1;
  } else {
    const s = srcSize / size;
    step = Math.trunc(65536 * s);
    first = mirrored ? Math.floor((d0 + 0.5 - from) * s * 65536) + 1 : Math.ceil((d0 + 0.5 - from) * s * 65536) - 1;
  }
  let base = ((mirrored ? srcSize * 65536 : 0) + first) >>> 0;
  // Floating-point rounding can put the first or last sample one past the image: Qt then draws one pixel less.
  if (base >>> 16 >= srcSize && step < 0) {
    base = (base + step) >>> 0;
    n--;
  }
  if ((base + step * (n - 1)) >>> 16 >= srcSize) n--;
  if (n <= 0) return false;
  out[0] = d0;
  out[1] = n;
  out[2] = base;
  out[3] = step;
  return true;
}

const AXIS_X = new Float64Array(4);
const AXIS_Y = new Float64Array(4);

/** An RGB canvas: `width * height * 3` bytes, row-major, row 0 at the top (the observation's layout). */
export class Canvas {
  /** Scratch: a blit's source pixel index per destination column. */
  private readonly cols: Int32Array;
  private bytes: Uint8Array;
  /** The same memory as 32-bit words (null when it does not start 4-byte aligned): 4 RGB pixels in 3 stores. */
  private words: Uint32Array | null = null;

  constructor(
    readonly width: number,
    readonly height: number,
    pixels: Uint8Array = new Uint8Array(width * height * 3),
  ) {
    this.cols = new Int32Array(width);
    this.bytes = pixels;
    this.pixels = pixels;
  }

  get pixels(): Uint8Array {
    return this.bytes;
  }

  set pixels(p: Uint8Array) {
    this.bytes = p;
    const w = this.words;
    if (w !== null && w.buffer === p.buffer && w.byteOffset === p.byteOffset && w.length === p.length >> 2) return;
    this.words = p.byteOffset % 4 === 0 ? new Uint32Array(p.buffer, p.byteOffset, p.length >> 2) : null;
  }

  /** Black everywhere (the first thing every frame does). */
  clear(): void {
    this.pixels.fill(0);
  }

  /** `QPainter::fillRect(QRectF, QColor)`: source-over of colour (r, g, b) with alpha `a`. */
  fillRect(rect: Rect, r: number, g: number, b: number, a = 255): void {
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
    if (a !== 255) {
      // comp_func_solid_SourceOver: the premultiplied colour plus the pixel times 255 - alpha.
      const pr = byteMul(r, a);
      const pg = byteMul(g, a);
      const pb = byteMul(b, a);
      const inv = 255 - a;
      for (let y = y0; y < y1; y++) {
        let o = (y * this.width + x0) * 3;
        for (let x = x0; x < x1; x++, o += 3) {
          px[o] = pr + byteMul(px[o], inv);
          px[o + 1] = pg + byteMul(px[o + 1], inv);
          px[o + 2] = pb + byteMul(px[o + 2], inv);
        }
      }
      return;
    }
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
    if (img.straightAlpha && !opaque) {
      this.drawTextured(img, rect, reflected, alpha);
      return;
    }
    // The engine passes the rect rebuilt from its corners (qt_mapRect_non_normalizing): the size becomes
    // (start + size) - start, which can differ from size in the last bit.
    BOX[0] = rect.x;
    BOX[1] = rect.x + rect.w - rect.x;
    BOX[2] = rect.y;
    BOX[3] = rect.y + rect.h - rect.y;
    this.blit(img, reflected, Math.trunc(Math.min(1, Math.max(0, alpha)) * 256), opaque);
  }

  /** A scaled blit to the device rect in BOX, at painter opacity `opacity` / 256. */
  private blit(img: ProcgenImage, reflected: boolean, opacity: number, opaque: boolean): void {
    if (opacity === 0) return;
    const fast = !opaque && opacity === 256;
    if (!scaleAxis(0, img.width, this.width, fast, AXIS_X) || !scaleAxis(2, img.height, this.height, fast, AXIS_Y))
      return;
    const x0 = AXIS_X[0];
    const nx = AXIS_X[1];
    const bx = AXIS_X[2];
    const ix = AXIS_X[3];
    const y0 = AXIS_Y[0];
    const ny = AXIS_Y[1];
    const by = AXIS_Y[2];
    const iy = AXIS_Y[3];
    const iw = img.width;
    const px = this.pixels;
    // Source pixel index of each destination column (mirrored images read from the far side).
    const cols = this.cols;
    for (let k = 0; k < nx; k++) {
      const sx = (bx + k * ix) >>> 16;
      cols[k] = reflected ? iw - 1 - sx : sx;
    }
    // Words are little-endian RGBA: a Uint8Array store keeps the low byte of what it is given. A background, and a
    // sprite without transparent pixels at full opacity (premultiplying by 255 changes nothing), are copies.
    if (opaque || (opacity === 256 && fullyOpaque(img))) {
      const src = rgba32(img);
      const words = this.words;
      for (let j = 0; j < ny; j++) {
        const row = ((by + j * iy) >>> 16) * iw;
        let p = (y0 + j) * this.width + x0;
        let k = 0;
        if (words !== null) {
          // Single pixels up to a 4-pixel (12-byte, 3-word) boundary, then 4 pixels packed into 3 word stores.
          for (; k < nx && (p & 3) !== 0; k++, p++) {
            const v = src[row + cols[k]];
            px[3 * p] = v;
            px[3 * p + 1] = v >>> 8;
            px[3 * p + 2] = v >>> 16;
          }
          for (let w = (3 * p) >> 2; k + 4 <= nx; k += 4, p += 4, w += 3) {
            const a = src[row + cols[k]];
            const b = src[row + cols[k + 1]];
            const c = src[row + cols[k + 2]];
            const d = src[row + cols[k + 3]];
            words[w] = (a & 0xffffff) | (b << 24);
            words[w + 1] = ((b >>> 8) & 0xffff) | (c << 16);
            words[w + 2] = ((c >>> 16) & 0xff) | (d << 8);
          }
        }
        for (; k < nx; k++, p++) {
          const v = src[row + cols[k]];
          px[3 * p] = v;
          px[3 * p + 1] = v >>> 8;
          px[3 * p + 2] = v >>> 16;
        }
      }
      return;
    }
    const src = premultiplied32(img);
    // Blend_ARGB32_on_ARGB32_SourceAndConstAlpha's constant alpha (255 means none).
    const m = opacity === 256 ? 255 : (opacity * 255) >> 8;
    for (let j = 0; j < ny; j++) {
      const row = ((by + j * iy) >>> 16) * iw;
      let o = ((y0 + j) * this.width + x0) * 3;
      for (let k = 0; k < nx; k++, o += 3) {
        const v = src[row + cols[k]];
        // The common cases inline: opaque source pixels replace, transparent ones leave the pixel alone.
        const a = v >>> 24;
        if (m === 255) {
          if (a === 255) {
            px[o] = v;
            px[o + 1] = v >>> 8;
            px[o + 2] = v >>> 16;
          } else if (a !== 0) {
            const k2 = 255 - a;
            px[o] = (v & 255) + byteMul(px[o], k2);
            px[o + 1] = ((v >>> 8) & 255) + byteMul(px[o + 1], k2);
            px[o + 2] = ((v >>> 16) & 255) + byteMul(px[o + 2], k2);
          }
        } else blendPremultiplied(px, o, src, row + cols[k], m);
      }
    }
  }

  /**
   * An unrotated Format_ARGB32 image: QRasterPaintEngine::drawImage's fallback under an identity painter transform.
   * The texture matrix is translate(rect corner) scale(rect / image) with setupMatrix's 1/65536 nudge, inverted as
   * QTransform inverts a scale; QRasterizer::rasterizeLine covers the rect (aliased) and each span samples the image
   * at its pixel centres in 16.16 fixed point (fetchTransformed, clamped to the image).
   */
  private drawTextured(img: ProcgenImage, rect: Rect, reflected: boolean, alpha: number): void {
    const opacity = Math.trunc(Math.min(1, Math.max(0, alpha)) * 256);
    if (opacity === 0) return;
    const m = opacity === 256 ? 255 : (opacity * 255) >> 8;
    const { x, y, w, h } = rect;
    const sx = w / img.width;
    const sy = h / img.height;
    const e = 1 / 65536;
    const i11 = 1 / sx;
    const i22 = 1 / sy;
    const idx = -(e * sx + x) * i11;
    const idy = -(e * sy + y) * i22;
    const my = (y + (y + h)) * 0.5;
    const spans = rasterizeLine((x + x) * 0.5, my, (x + w + (x + w)) * 0.5, my, h / w, this.width, this.height);
    this.fetchSpans(img, spans, i11, 0, 0, i22, idx, idy, reflected, m);
  }

  /**
   * A Format_ARGB32 image under a painter transform that QTransform calls a scale (a rotation by a multiple of 180
   * degrees: m11 = m22 = cos, the negligible sine ignored): drawImage's fallback fills the mapped rect with its edges
   * rounded (fillRect_normalized) and samples through the texture matrix, built and inverted as a scale.
   */
  private drawTexturedScaled(
    img: ProcgenImage,
    rx: number,
    ry: number,
    w: number,
    h: number,
    cos: number,
    cx: number,
    cy: number,
    reflected: boolean,
    m: number,
  ): void {
    const c11 = cos * (w / img.width);
    const c22 = cos * (h / img.height);
    const e = 1 / 65536;
    const i11 = 1 / c11;
    const i22 = 1 / c22;
    const idx = -(e * c11 + (cx + rx * cos)) * i11;
    const idy = -(e * c22 + (cy + ry * cos)) * i22;
    // QTransform::mapRect of a scale: the corner and size mapped, a negative size flipped.
    let x = cos * rx + cx;
    let y = cos * ry + cy;
    let bw = cos * w;
    let bh = cos * h;
    if (bw < 0) {
      bw = -bw;
      x -= bw;
    }
    if (bh < 0) {
      bh = -bh;
      y -= bh;
    }
    const x0 = Math.max(0, qRound(x));
    const x1 = Math.min(this.width, qRound(x + bw));
    const y0 = Math.max(0, qRound(y));
    const y1 = Math.min(this.height, qRound(y + bh));
    const src = premultiplied32(img);
    const iw = img.width;
    const ih = img.height;
    const fdx = Math.trunc(i11 * 65536);
    for (let row = y0; row < y1; row++) {
      const syi = Math.min(ih - 1, Math.max(0, Math.trunc((i22 * (row + 0.5) + 0 * (x0 + 0.5) + idy) * 65536) >> 16));
      let fx = Math.trunc((0 * (row + 0.5) + i11 * (x0 + 0.5) + idx) * 65536);
      let o = (row * this.width + x0) * 3;
      for (let k = x0; k < x1; k++, o += 3) {
        let sxi = Math.min(iw - 1, Math.max(0, fx >> 16));
        if (reflected) sxi = iw - 1 - sxi;
        blendPremultiplied(this.pixels, o, src, syi * iw + sxi, m);
        fx = (fx + fdx) | 0;
      }
    }
  }

  /**
   * A rotated image, as procgen draws it: `translate(centre)`, `rotate(degrees)`, `drawImage(QRectF(-w/2, -h/2, w,
   * h))`. Targets under 16 px a side go through Qt's generic path: QRasterizer::rasterizeLine covers the rotated
   * rect (aliased), and each covered span samples the image through the inverse transform in 16.16 fixed point,
   * stepping from the span's first pixel centre. Larger targets (qt_transform_image's path) use the pixel-centre rule.
   */
  private drawRotated(img: ProcgenImage, rect: Rect, rotation: number, reflected: boolean, alpha: number): void {
    const opacity = Math.trunc(Math.min(1, Math.max(0, alpha)) * 256);
    if (opacity === 0) return;
    const m = opacity === 256 ? 255 : (opacity * 255) >> 8;
    const f = Math.fround;
    // QTransform::rotate: exact for multiples of 90 degrees; procgen's angle is float32 degrees.
    const deg = f(f(f(rotation) * 180) / f(Math.PI));
    let sin: number;
    let cos: number;
    if (deg === 90 || deg === -270) [sin, cos] = [1, 0];
    else if (deg === 270 || deg === -90) [sin, cos] = [-1, 0];
    else if (deg === 180) [sin, cos] = [0, -1];
    else {
      const rad = DEG2RAD * deg;
      sin = Math.sin(rad);
      cos = Math.cos(rad);
    }
    const w = rect.w;
    const h = rect.h;
    const cx = rect.x + w / 2;
    const cy = rect.y + h / 2;
    const rx = -w / 2;
    const ry = -h / 2;
    if (Math.abs(sin) <= 1e-12 && img.straightAlpha) {
      this.drawTexturedScaled(img, rx, ry, w, h, cos, cx, cy, reflected, m);
      return;
    }
    if (Math.abs(sin) <= 1e-12) {
      // QTransform calls a rotation with a negligible sine a scale (by -1 at 180 degrees): the scaled-blit path,
      // on the rect mapped corner by corner.
      const x0 = cos * rx + cx;
      const y0 = cos * ry + cy;
      BOX[0] = x0;
      BOX[1] = cos * (rx + w) + cx - x0;
      BOX[2] = y0;
      BOX[3] = cos * (ry + h) + cy - y0;
      this.blit(img, reflected, opacity, false);
      return;
    }
    // The target's device bounds (QTransform::mapRect of the four corners), centred on (cx, cy).
    const boundsW = Math.abs(cos * w) + Math.abs(sin * h);
    const boundsH = Math.abs(sin * w) + Math.abs(cos * h);
    if (boundsW >= 16 && boundsH >= 16 && !img.straightAlpha) {
      this.drawTransformed(img, rx, ry, w, h, cos, sin, cx, cy, reflected, m);
      return;
    }
    // The image-to-device transform: translate(centre) rotate translate(rect corner) scale(rect / image), with
    // QSpanData::setupMatrix's 1/65536 nudge, inverted as QMatrix::inverted does.
    const sx = w / img.width;
    const sy = h / img.height;
    const m11 = cos * sx;
    const m12 = sin * sx;
    const m21 = -sin * sy;
    const m22 = cos * sy;
    const tdx = cx + (rx * cos + ry * -sin);
    const tdy = cy + (ry * cos + rx * sin);
    const e = 1 / 65536;
    const dx = e * m11 + e * m21 + tdx;
    const dy = e * m12 + e * m22 + tdy;
    const dinv = 1 / (m11 * m22 - m12 * m21);
    const i11 = m22 * dinv;
    const i12 = -m12 * dinv;
    const i21 = -m21 * dinv;
    const i22 = m11 * dinv;
    const idx = (m21 * dy - m22 * dx) * dinv;
    const idy = (m12 * dx - m11 * dy) * dinv;
    // The thick line through the midpoints of the rect's left and right edges (painter transform only).
    const my = (ry + (ry + h)) * 0.5;
    const ax = (rx + rx) * 0.5;
    const bx = (rx + w + (rx + w)) * 0.5;
    const spans = rasterizeLine(
      cos * ax + -sin * my + cx,
      sin * ax + cos * my + cy,
      cos * bx + -sin * my + cx,
      sin * bx + cos * my + cy,
      h / w,
      this.width,
      this.height,
    );
    this.fetchSpans(img, spans, i11, i12, i21, i22, idx, idy, reflected, m);
  }

  /**
   * fetchTransformed over the `spans` rasterizeLine left in SPANS: each pixel centre mapped through the inverse
   * transform (i11, i12; i21, i22; idx, idy) to a 16.16 fixed-point image position, stepped per pixel, clamped to
   * the image, and blended at opacity `m`.
   */
  private fetchSpans(
    img: ProcgenImage,
    spans: number,
    i11: number,
    i12: number,
    i21: number,
    i22: number,
    idx: number,
    idy: number,
    reflected: boolean,
    m: number,
  ): void {
    const fdx = Math.trunc(i11 * 65536);
    const fdy = Math.trunc(i12 * 65536);
    const src = premultiplied32(img);
    const iw = img.width;
    const ih = img.height;
    const px = this.pixels;
    const width = this.width;
    for (let i = 0; i < spans; i++) {
      const y = SPANS[3 * i];
      const x0 = SPANS[3 * i + 1];
      const len = SPANS[3 * i + 2];
      const cxp = x0 + 0.5;
      const cyp = y + 0.5;
      let fx = Math.trunc((i21 * cyp + i11 * cxp + idx) * 65536);
      let fy = Math.trunc((i22 * cyp + i12 * cxp + idy) * 65536);
      let o = (y * width + x0) * 3;
      for (let k = 0; k < len; k++, o += 3) {
        let sxi = Math.min(iw - 1, Math.max(0, fx >> 16));
        const syi = Math.min(ih - 1, Math.max(0, fy >> 16));
        if (reflected) sxi = iw - 1 - sxi;
        blendPremultiplied(px, o, src, syi * iw + sxi, m);
        fx = (fx + fdx) | 0;
        fy = (fy + fdy) | 0;
      }
    }
  }

  /**
   * qt_transform_image (targets of at least 16 x 16 px): the rotated rect's corners mapped to the device, split into
   * three trapezoids from the topmost corner; each row covers [x_l >> 16, x_r >> 16) in 16.16 fixed point and samples
   * the source at u, v stepped in fixed point from the first pixel, clamped to the image.
   */
  private drawTransformed(
    img: ProcgenImage,
    rx: number,
    ry: number,
    w: number,
    h: number,
    cos: number,
    sin: number,
    dx: number,
    dy: number,
    reflected: boolean,
    m: number,
  ): void {
    const iw = img.width;
    const ih = img.height;
    const map = (x: number, y: number): [number, number] => [cos * x + -sin * y + dx, sin * x + cos * y + dy];
    // Vertices: device x, y and source u, v; order top-left, top-right, bottom-right, bottom-left.
    const corners: [number, number, number, number][] = [
      [...map(rx, ry), 0, 0],
      [...map(rx + w, ry), iw, 0],
      [...map(rx + w, ry + h), iw, ih],
      [...map(rx, ry + h), 0, ih],
    ];
    let top = 0;
    for (let i = 1; i < 4; i++) if (corners[i][1] < corners[top][1]) top = i;
    const v = [0, 1, 2, 3].map((i) => corners[(i + top) % 4]);
    if ((v[1][0] - v[0][0]) * (v[3][1] - v[0][1]) - (v[3][0] - v[0][0]) * (v[1][1] - v[0][1]) > 0)
      [v[1], v[3]] = [v[3], v[1]];
    const u = v[1].map((c, k) => c - v[0][k]);
    const q = v[2].map((c, k) => c - v[0][k]);
    const det = u[0] * q[1] - u[1] * q[0];
    if (det === 0) return;
    const invDet = 1.0 / det;
    const m11 = (u[2] * q[1] - u[1] * q[2]) * invDet;
    const m12 = (u[0] * q[2] - u[2] * q[0]) * invDet;
    const m21 = (u[3] * q[1] - u[1] * q[3]) * invDet;
    const m22 = (u[0] * q[3] - u[3] * q[0]) * invDet;
    const mdx = v[0][2] - m11 * v[0][0] - m12 * v[0][1];
    const mdy = v[0][3] - m21 * v[0][0] - m22 * v[0][1];
    const dudx = Math.trunc(m11 * 0x10000);
    const dvdx = Math.trunc(m21 * 0x10000);
    const dudy = Math.trunc(m12 * 0x10000);
    const dvdy = Math.trunc(m22 * 0x10000);
    const u0 = Math.ceil((0.5 * m11 + 0.5 * m12 + mdx) * 0x10000) - 1;
    const v0 = Math.ceil((0.5 * m21 + 0.5 * m22 + mdy) * 0x10000) - 1;
    const src = premultiplied32(img);
    const px = this.pixels;
    const trapezoid = (tl: number[], bl: number[], tr: number[], br: number[], topY: number, bottomY: number) => {
      const fromY = Math.max(qRound(topY), 0);
      const toY = Math.min(qRound(bottomY), this.height);
      if (fromY >= toY) return;
      const leftSlope = (bl[0] - tl[0]) / (bl[1] - tl[1]);
      const rightSlope = (br[0] - tr[0]) / (br[1] - tr[1]);
      const dxl = toInt(leftSlope * 0x10000);
      const dxr = toInt(rightSlope * 0x10000);
      let xl = toInt((tl[0] + (0.5 + fromY - tl[1]) * leftSlope + 0.5) * 0x10000);
      let xr = toInt((tr[0] + (0.5 + fromY - tr[1]) * rightSlope + 0.5) * 0x10000);
      for (let y = fromY; y < toY; y++) {
        const fromX = Math.max(xl >> 16, 0);
        const toX = Math.min(xr >> 16, this.width);
        let uu = (Math.imul(fromX, dudx) + Math.imul(y, dudy) + u0) | 0;
        let vv = (Math.imul(fromX, dvdx) + Math.imul(y, dvdy) + v0) | 0;
        for (let x = fromX; x < toX; x++) {
          let sx = Math.min(iw - 1, Math.max(0, uu >> 16));
          const sy = Math.min(ih - 1, Math.max(0, vv >> 16));
          if (reflected) sx = iw - 1 - sx;
          blendPremultiplied(px, (y * this.width + x) * 3, src, sy * iw + sx, m);
          uu = (uu + dudx) | 0;
          vv = (vv + dvdx) | 0;
        }
        xl = (xl + dxl) | 0;
        xr = (xr + dxr) | 0;
      }
    };
    if (v[1][1] < v[3][1]) {
      trapezoid(v[0], v[1], v[0], v[3], v[0][1], v[1][1]);
      trapezoid(v[1], v[2], v[0], v[3], v[1][1], v[3][1]);
      trapezoid(v[1], v[2], v[3], v[2], v[3][1], v[2][1]);
    } else {
      trapezoid(v[0], v[1], v[0], v[3], v[0][1], v[3][1]);
      trapezoid(v[0], v[1], v[3], v[2], v[3][1], v[1][1]);
      trapezoid(v[1], v[2], v[3], v[2], v[1][1], v[2][1]);
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
      const x = rect.x;
      const y = rect.y;
      for (let i = 0; i < n; i++) this.drawImage(img, tile(x, y + f(th * i), tw, th), 0, reflected, alpha, opaque);
    } else {
      const n = Math.max(1, Math.trunc(rect.w / (rect.h * ratio)));
      const tw = f(rect.w / n);
      const th = f(rect.h);
      const x = rect.x;
      const y = rect.y;
      for (let i = 0; i < n; i++) this.drawImage(img, tile(x + f(tw * i), y, tw, th), 0, reflected, alpha, opaque);
    }
  }
}

/** Scratch for tileImage's tiles (drawImage never keeps its rect). */
const TILE: Rect = { x: 0.5, y: 0.5, w: 0.5, h: 0.5 };

function tile(x: number, y: number, w: number, h: number): Rect {
  TILE.x = x;
  TILE.y = y;
  TILE.w = w;
  TILE.h = h;
  return TILE;
}

const DEG2RAD = 0.017453292519943295769;

/** C++ double-to-int conversion on x86: truncation, and INT_MIN for what does not fit. */
function toInt(x: number): number {
  return x >= -2147483648 && x < 2147483648 ? Math.trunc(x) : -2147483648;
}
const INT_MAX = 2147483647;

/** qSafeFloatToQ16Dot16: to 16.16 fixed point, truncated, saturated. */
function toQ16(x: number): number {
  const t = x * 65536;
  if (t > INT_MAX) return INT_MAX;
  if (t < -2147483648) return -INT_MAX;
  return Math.trunc(t);
}

function safeDivide(x: number, y: number): number {
  return y === 0 ? (x > 0 ? 1e20 : -1e20) : x / y;
}

/** Whether two coordinates agree in 26.6 fixed point (q26Dot6Compare). */
function same26Dot6(p1: number, p2: number): boolean {
  return Math.trunc((p2 - p1) * 64) === 0;
}

const snap26Dot6 = (v: number) => Math.floor(v * 64) * (1 / 64);

/** rasterizeLine's spans: (row, first pixel, length) triples, at most one per device row. */
let SPANS = new Int32Array(3 * 64);

/**
 * QRasterizer::rasterizeLine, aliased, no square cap, clipped to the width x height device: the spans covered by
 * the line from a to b of thickness `width` times its length, written to SPANS; returns how many.
 */
function rasterizeLine(
  ax: number,
  ay: number,
  bx: number,
  by: number,
  width: number,
  devW: number,
  devH: number,
): number {
  if ((ax === bx && ay === by) || !(width > 0)) return 0;
  if (SPANS.length < 3 * devH) SPANS = new Int32Array(3 * devH);
  const spans = SPANS;
  let n = 0;
  let pax = ax;
  let pay = ay;
  let pbx = bx;
  let pby = by;
  // Clip the line to the device grown by the line's half thickness (Liang-Barsky).
  const ox = Math.abs(by - ay) * width * 0.5;
  const oy = Math.abs(bx - ax) * width * 0.5;
  const cl = -ox;
  const ct = -oy;
  const cr = cl + (devW + ox - cl);
  const cb = ct + (devH + oy - ct);
  if (!(pax >= cl && pax <= cr && pay >= ct && pay <= cb) || !(pbx >= cl && pbx <= cr && pby >= ct && pby <= cb)) {
    let t1 = 0;
    let t2 = 1;
    for (let i = 0; i < 2; i++) {
      const o = i === 0 ? pax : pay;
      const d = i === 0 ? pbx - pax : pby - pay;
      const low = i === 0 ? cl : ct;
      const high = i === 0 ? cr : cb;
      if (d === 0) {
        if (o <= low || o >= high) return 0;
        continue;
      }
      const dInv = 1 / d;
      let tLow = (low - o) * dInv;
      let tHigh = (high - o) * dInv;
      if (tLow > tHigh) {
        const t = tLow;
        tLow = tHigh;
        tHigh = t;
      }
      if (t1 < tLow) t1 = tLow;
      if (t2 > tHigh) t2 = tHigh;
      if (t1 >= t2) return 0;
    }
    const dx = pbx - pax;
    const dy = pby - pay;
    const x0 = pax;
    const y0 = pay;
    pax = x0 + dx * t1;
    pay = y0 + dy * t1;
    pbx = x0 + dx * t2;
    pby = y0 + dy * t2;
  }
  {
    const w0 = (ax - bx) * (ax - bx) + (ay - by) * (ay - by);
    const w = (pax - pbx) * (pax - pbx) + (pay - pby) * (pay - pby);
    if (w === 0) return 0;
    width *= Math.sqrt(w0 / w);
  }
  const right = devW - 1;
  const bottom = devH - 1;
  if (same26Dot6(pay, pby)) {
    // Horizontal: the same rectangle as a vertical line.
    const x = (pax + pbx) * 0.5;
    const dx = Math.abs(pbx - pax) * 0.5;
    const y = pay;
    const dy = width * dx;
    pax = x;
    pay = y - dy;
    pbx = x;
    pby = y + dy;
    width = 1 / width;
  }
  // Both cases below go from the upper end down.
  if (pay > pby) {
    const x = pax;
    const y = pay;
    pax = pbx;
    pay = pby;
    pbx = x;
    pby = y;
  }
  if (same26Dot6(pax, pbx)) {
    const halfWidth = 0.5 * width * (pby - pay);
    const left = Math.max(0, Math.min(pax - halfWidth, right + 1));
    const rightX = Math.max(0, Math.min(pax + halfWidth, right + 1));
    pay = Math.max(0, Math.min(pay, bottom + 1));
    pby = Math.max(0, Math.min(pby, bottom + 1));
    if (same26Dot6(left, rightX) || same26Dot6(pay, pby)) return 0;
    const iTop = Math.trunc(pay + 0.5);
    const iBottom = pby < 0.5 ? -1 : Math.trunc(pby - 0.5);
    const iLeft = Math.trunc(left + 0.5);
    const iRight = rightX < 0.5 ? -1 : Math.trunc(rightX - 0.5);
    const iWidth = iRight - iLeft + 1;
    if (iWidth > 0) {
      for (let y = iTop; y <= iBottom; y++, n++) {
        spans[3 * n] = y;
        spans[3 * n + 1] = iLeft;
        spans[3 * n + 2] = iWidth;
      }
    }
    return n;
  }
  const k = 0.5 * width;
  const ddx = (pbx - pax) * k;
  const ddy = (pby - pay) * k;
  const perpX = ddy;
  const perpY = -ddx;
  const forward = pax < pbx;
  const topX = snap26Dot6(forward ? pax + perpX : pax - perpX);
  const topY = snap26Dot6(forward ? pay + perpY : pay - perpY);
  const leftX = snap26Dot6(forward ? pax - perpX : pbx - perpX);
  const leftY = snap26Dot6(forward ? pay - perpY : pby - perpY);
  const rightPX = snap26Dot6(forward ? pbx + perpX : pax + perpX);
  const rightPY = snap26Dot6(forward ? pby + perpY : pay + perpY);
  const botX = snap26Dot6(forward ? pbx - perpX : pbx + perpX);
  const botY = snap26Dot6(forward ? pby - perpY : pby + perpY);
  const topLeftSlope = safeDivide(leftX - topX, leftY - topY);
  const bottomLeftSlope = safeDivide(botX - leftX, botY - leftY);
  const topRightSlope = safeDivide(rightPX - topX, rightPY - topY);
  const bottomRightSlope = safeDivide(botX - rightPX, botY - rightPY);
  const topLeftFP = toQ16(topLeftSlope);
  const topRightFP = toQ16(topRightSlope);
  const bottomLeftFP = toQ16(bottomLeftSlope);
  const bottomRightFP = toQ16(bottomRightSlope);
  const iTop = Math.trunc(topY + 0.5);
  const iLeft = leftY < 0.5 ? -1 : Math.trunc(leftY - 0.5);
  const iRight = rightPY < 0.5 ? -1 : Math.trunc(rightPY - 0.5);
  const iBottom = botY < 0.5 ? -1 : Math.trunc(botY - 0.5);
  const iMiddle = Math.min(iLeft, iRight);
  let leftA = toQ16(topX + 0.5 + (iTop + 0.5 - topY) * topLeftSlope);
  let leftB = toQ16(leftX + 0.5 + (iLeft + 1.5 - leftY) * bottomLeftSlope);
  let rightA = toQ16(topX - 0.5 + (iTop + 0.5 - topY) * topRightSlope);
  let rightB = toQ16(rightPX - 0.5 + (iRight + 1.5 - rightPY) * bottomRightSlope);
  let y = iTop;
  // Four trapezoids of rows, down to iMiddle, iRight, iLeft and iBottom, the left edge following the top-left
  // then the bottom-left side, the right edge the top-right then the bottom-right one (Qt's DO_SEGMENT).
  for (let seg = 0; seg < 4; seg++) {
    let next = seg === 0 ? iMiddle : seg === 1 ? iRight : seg === 2 ? iLeft : iBottom;
    const useLeftB = seg === 1 || seg === 3;
    const useRightB = seg >= 2;
    const ls = useLeftB ? bottomLeftFP : topLeftFP;
    const rs = useRightB ? bottomRightFP : topRightFP;
    let li = useLeftB ? leftB : leftA;
    let ri = useRightB ? rightB : rightA;
    const ny = Math.min(next + 1, 0);
    if (y < ny) {
      li = (li + Math.imul(ls, ny - y)) | 0;
      ri = (ri + Math.imul(rs, ny - y)) | 0;
      y = ny;
    }
    if (next > bottom) next = bottom;
    for (; y <= next; y++) {
      const x1 = Math.max(li >> 16, 0);
      const x2 = Math.min(ri >> 16, right);
      if (x2 >= x1) {
        spans[3 * n] = y;
        spans[3 * n + 1] = x1;
        spans[3 * n + 2] = x2 - x1 + 1;
        n++;
      }
      li = (li + ls) | 0;
      ri = (ri + rs) | 0;
    }
    if (useLeftB) leftB = li;
    else leftA = li;
    if (useRightB) rightB = ri;
    else rightA = ri;
  }
  return n;
}

/**
 * Premultiplied source pixel (word `s`) over an opaque destination pixel (RGB at `o`), with constant alpha `m`
 * (255: none): Qt's blend_pixel.
 */
function blendPremultiplied(px: Uint8Array, o: number, src: Uint32Array, s: number, m: number): void {
  const v = src[s];
  if (v === 0) return;
  let r = v & 255;
  let g = (v >>> 8) & 255;
  let b = (v >>> 16) & 255;
  let a = v >>> 24;
  if (m !== 255) {
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
