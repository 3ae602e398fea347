// The raster core: procgen's observation is what Qt's QPainter draws into a 64x64 RGB32 image with antialiasing
// and smooth pixmap transforms off. We draw straight into the 64x64x3 byte observation with the same rules:
// nearest-neighbour sampling, source-over blending, painter opacity. Qt's exact edge rounding is not reproduced;
// a destination pixel is covered when its centre lies inside the (possibly rotated) target rectangle, and it
// samples the source pixel under the mapped centre (at most 1 px difference at sprite edges).

/** A decoded image: straight (non-premultiplied) RGBA bytes, row 0 at the top. */
export interface ProcgenImage {
  width: number;
  height: number;
  rgba: Uint8Array;
}

/** A rectangle in pixels: top-left corner, width, height (QRectF). */
export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** An RGB canvas: `width * height * 3` bytes, row-major, row 0 at the top (the observation's layout). */
export class Canvas {
  constructor(
    readonly width: number,
    readonly height: number,
    public pixels: Uint8Array = new Uint8Array(width * height * 3),
  ) {}

  /** Pixel index range [lo, hi) whose centres lie in [start, start + size). */
  private span(start: number, size: number, limit: number): [number, number] {
    const lo = Math.max(0, Math.ceil(start - 0.5));
    const hi = Math.min(limit, Math.ceil(start + size - 0.5));
    return [lo, hi];
  }

  /** Black everywhere (the first thing every frame does). */
  clear(): void {
    this.pixels.fill(0);
  }

  /** `QPainter::fillRect` with an opaque colour. */
  fillRect(rect: Rect, r: number, g: number, b: number): void {
    const [x0, x1] = this.span(rect.x, rect.w, this.width);
    const [y0, y1] = this.span(rect.y, rect.h, this.height);
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
   * rotated by `rotation` radians (clockwise on screen) about the rect's centre, blended with opacity `alpha`.
   * `opaque` replaces instead of blending (backgrounds, which procgen converts to RGB32).
   */
  drawImage(img: ProcgenImage, rect: Rect, rotation = 0, reflected = false, alpha = 1, opaque = false): void {
    if (rect.w <= 0 || rect.h <= 0) return;
    const src = img.rgba;
    const iw = img.width;
    const ih = img.height;
    const px = this.pixels;
    const sxScale = iw / rect.w;
    const syScale = ih / rect.h;
    if (rotation === 0) {
      const [x0, x1] = this.span(rect.x, rect.w, this.width);
      const [y0, y1] = this.span(rect.y, rect.h, this.height);
      for (let y = y0; y < y1; y++) {
        const sy = Math.min(ih - 1, Math.floor((y + 0.5 - rect.y) * syScale));
        let o = (y * this.width + x0) * 3;
        for (let x = x0; x < x1; x++, o += 3) {
          let sx = Math.min(iw - 1, Math.floor((x + 0.5 - rect.x) * sxScale));
          if (reflected) sx = iw - 1 - sx;
          blendPixel(px, o, src, (sy * iw + sx) * 4, alpha, opaque);
        }
      }
      return;
    }
    // Rotated: map each destination pixel centre back into the unrotated rect.
    const cx = rect.x + rect.w / 2;
    const cy = rect.y + rect.h / 2;
    const cos = Math.cos(rotation);
    const sin = Math.sin(rotation);
    const hw = rect.w / 2;
    const hh = rect.h / 2;
    const ex = Math.abs(hw * cos) + Math.abs(hh * sin);
    const ey = Math.abs(hw * sin) + Math.abs(hh * cos);
    const [x0, x1] = this.span(cx - ex, 2 * ex, this.width);
    const [y0, y1] = this.span(cy - ey, 2 * ey, this.height);
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
        blendPixel(px, (y * this.width + x) * 3, src, (sy * iw + sx) * 4, alpha, opaque);
      }
    }
  }

  /**
   * procgen's `tile_image`: `ratio` 0 draws once; > 0 repeats the image horizontally in tiles of aspect `ratio`
   * (width / height); < 0 repeats it vertically.
   */
  tileImage(img: ProcgenImage, rect: Rect, ratio: number, opaque = false, reflected = false, alpha = 1): void {
    if (ratio === 0) {
      this.drawImage(img, rect, 0, reflected, alpha, opaque);
    } else if (ratio < 0) {
      const n = Math.max(1, Math.trunc(rect.h / (rect.w * -ratio)));
      const th = rect.h / n;
      for (let i = 0; i < n; i++) this.drawImage(img, { x: rect.x, y: rect.y + th * i, w: rect.w, h: th }, 0, reflected, alpha, opaque);
    } else {
      const n = Math.max(1, Math.trunc(rect.w / (rect.h * ratio)));
      const tw = rect.w / n;
      for (let i = 0; i < n; i++) this.drawImage(img, { x: rect.x + tw * i, y: rect.y, w: tw, h: rect.h }, 0, reflected, alpha, opaque);
    }
  }
}

/**
 * One source pixel (straight RGBA at `s`) over one opaque destination pixel (RGB at `o`), with painter opacity.
 * `opaque`: the pixel replaces the destination, composited over black (procgen's RGB32 backgrounds).
 */
function blendPixel(px: Uint8Array, o: number, src: Uint8Array, s: number, alpha: number, opaque: boolean): void {
  if (opaque) {
    const k = src[s + 3] / 255;
    px[o] = Math.round(src[s] * k);
    px[o + 1] = Math.round(src[s + 1] * k);
    px[o + 2] = Math.round(src[s + 2] * k);
    return;
  }
  const a = (src[s + 3] / 255) * alpha;
  if (a <= 0) return;
  if (a >= 1) {
    px[o] = src[s];
    px[o + 1] = src[s + 1];
    px[o + 2] = src[s + 2];
  } else {
    // Source-over on an opaque destination.
    px[o] = Math.round(src[s] * a + px[o] * (1 - a));
    px[o + 1] = Math.round(src[s + 1] * a + px[o + 1] * (1 - a));
    px[o + 2] = Math.round(src[s + 2] * a + px[o + 2] * (1 - a));
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
