// A tiny software rasterizer for the classic-control `rgb_array` renderers.
//
// Gymnasium draws these scenes with pygame (`gfxdraw.filled_polygon`, `filled_circle`, `hline`, ...) on a surface
// whose y axis points *up* in world terms, and then flips the surface vertically before returning it. We keep the
// same convention: draw in pygame's coordinates, call `flipVertical()` last, so the geometry code in each env reads
// like its Python original. Anti-aliasing (`aapolygon`, `aacircle`, `aalines`) is not reproduced: frames are for
// looking at and recording videos, not for pixel-exact comparison.

export type RGB = readonly [r: number, g: number, b: number];
export type Point = readonly [x: number, y: number];

/**
 * The warning Gymnasium's CartPole, LunarLander and BipedalWalker log when `render()` is called on an env made
 * without a render mode (they then return None), naming the id to pass to `make`.
 */
export function warnRenderModeNotSet(id: string): void {
  console.warn(
    "You are calling render method without specifying any render mode. " +
      `You can specify the render_mode at initialization, e.g. make("${id}", { renderMode: "rgb_array" })`,
  );
}

/** One RGB frame, row-major (height, width, 3) like the numpy array Gymnasium's `render()` returns. */
export interface Frame {
  width: number;
  height: number;
  data: Uint8Array;
}

/** `pygame.math.Vector2(p).rotate_rad(angle)`: counter-clockwise rotation in the surface's coordinates. */
export function rotate(p: Point, angle: number): Point {
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  return [p[0] * c - p[1] * s, p[0] * s + p[1] * c];
}

/**
 * Gymnasium's box polygon `[(l, b), (l, t), (r, t), (r, b)]` with each corner rotated by `angle` (`rotate_rad`)
 * and then moved by `offset`: how every classic-control scene places its cart, pole, links, rod and car body.
 * One function, so the corner order (which decides the polygon's winding) cannot drift between scenes.
 */
export function boxPolygon(
  [l, r, t, b]: readonly [l: number, r: number, t: number, b: number],
  angle: number,
  offset: Point,
): Point[] {
  const corners: Point[] = [
    [l, b],
    [l, t],
    [r, t],
    [r, b],
  ];
  return corners.map((c) => {
    const [px, py] = rotate(c, angle);
    return [px + offset[0], py + offset[1]] as const;
  });
}

export class Canvas {
  readonly data: Uint8Array;

  constructor(
    readonly width: number,
    readonly height: number,
    background: RGB = [255, 255, 255],
  ) {
    this.data = new Uint8Array(width * height * 3);
    this.fill(background);
  }

  fill(color: RGB): void {
    for (let i = 0; i < this.data.length; i += 3) this.data.set(color, i);
  }

  /** Pixels outside the surface are dropped silently, as pygame clips to the surface. */
  setPixel(x: number, y: number, color: RGB): void {
    if (x < 0 || y < 0 || x >= this.width || y >= this.height) return;
    this.data.set(color, (y * this.width + x) * 3);
  }

  hline(x0: number, x1: number, y: number, color: RGB): void {
    y = Math.trunc(y);
    if (y < 0 || y >= this.height) return;
    const lo = Math.max(0, Math.trunc(Math.min(x0, x1)));
    const hi = Math.min(this.width - 1, Math.trunc(Math.max(x0, x1)));
    for (let x = lo; x <= hi; x++) this.data.set(color, (y * this.width + x) * 3);
  }

  vline(x: number, y0: number, y1: number, color: RGB): void {
    x = Math.trunc(x);
    const lo = Math.trunc(Math.min(y0, y1));
    const hi = Math.trunc(Math.max(y0, y1));
    for (let y = lo; y <= hi; y++) this.setPixel(x, y, color);
  }

  /** A one-pixel line (Bresenham), the non-anti-aliased analogue of `pygame.draw.line` / `aalines`. */
  line(p0: Point, p1: Point, color: RGB): void {
    let x0 = Math.round(p0[0]);
    let y0 = Math.round(p0[1]);
    const x1 = Math.round(p1[0]);
    const y1 = Math.round(p1[1]);
    const dx = Math.abs(x1 - x0);
    const dy = -Math.abs(y1 - y0);
    const sx = x0 < x1 ? 1 : -1;
    const sy = y0 < y1 ? 1 : -1;
    let err = dx + dy;
    for (;;) {
      this.setPixel(x0, y0, color);
      if (x0 === x1 && y0 === y1) return;
      const e2 = 2 * err;
      if (e2 >= dy) {
        err += dy;
        x0 += sx;
      }
      if (e2 <= dx) {
        err += dx;
        y0 += sy;
      }
    }
  }

  polyline(points: readonly Point[], color: RGB): void {
    for (let i = 1; i < points.length; i++) this.line(points[i - 1], points[i], color);
  }

  /**
   * Scanline fill with the even-odd rule, sampling each integer row. Vertices are truncated to integers first,
   * as `gfxdraw.filled_polygon` does, so thin shapes (the cart pole is 10 px wide) keep their width.
   */
  fillPolygon(points: readonly Point[], color: RGB): void {
    const pts = points.map(([x, y]) => [Math.trunc(x), Math.trunc(y)] as const);
    let minY = Infinity;
    let maxY = -Infinity;
    for (const [, y] of pts) {
      minY = Math.min(minY, y);
      maxY = Math.max(maxY, y);
    }
    minY = Math.max(0, minY);
    maxY = Math.min(this.height - 1, maxY);
    const xs: number[] = [];
    for (let y = minY; y <= maxY; y++) {
      xs.length = 0;
      for (let i = 0; i < pts.length; i++) {
        const [xa, ya] = pts[i];
        const [xb, yb] = pts[(i + 1) % pts.length];
        if (ya === yb) continue;
        // Half-open in y so a vertex shared by two edges is counted once; the top row is added back below.
        const [lo, hi] = ya < yb ? [ya, yb] : [yb, ya];
        if (y >= lo && (y < hi || (y === maxY && y === hi))) xs.push(xa + ((y - ya) * (xb - xa)) / (yb - ya));
      }
      xs.sort((a, b) => a - b);
      for (let k = 0; k + 1 < xs.length; k += 2) this.hline(Math.round(xs[k]), Math.round(xs[k + 1]), y, color);
    }
  }

  /** Filled disc of integer radius centred on an integer pixel, like `gfxdraw.filled_circle`. */
  fillCircle(cx: number, cy: number, r: number, color: RGB): void {
    cx = Math.trunc(cx);
    cy = Math.trunc(cy);
    r = Math.trunc(r);
    for (let dy = -r; dy <= r; dy++) {
      const dx = Math.floor(Math.sqrt(r * r - dy * dy));
      this.hline(cx - dx, cx + dx, cy + dy, color);
    }
  }

  /** `pygame.transform.flip(surf, False, True)`: turns pygame's y-up drawing into image rows top to bottom. */
  flipVertical(): void {
    const row = this.width * 3;
    const tmp = new Uint8Array(row);
    for (let top = 0, bottom = this.height - 1; top < bottom; top++, bottom--) {
      const a = top * row;
      const b = bottom * row;
      tmp.set(this.data.subarray(a, a + row));
      this.data.copyWithin(a, b, b + row);
      this.data.set(tmp, b);
    }
  }

  toFrame(): Frame {
    return { width: this.width, height: this.height, data: this.data };
  }
}
