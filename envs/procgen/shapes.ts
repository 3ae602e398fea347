// Qt 5.15's raster engine for the two shapes procgen draws itself: ellipses (`QPainter::drawEllipse`) and cosmetic
// lines (`drawLine` with a pen of width 0 or 1), aliased, on the RGB32 observation. Only Jumper uses them (its
// compass and the shadow under a jumping bunny), and only these paths of qtbase 5.15.8's src/gui/painting:
//
// - an ellipse whose rect is whole pixels: `drawEllipse_midpoint_i` (qpaintengine_raster.cpp), the integer midpoint
//   algorithm, spans of brush and of pen per row pair;
// - any other ellipse: `QPaintEngineEx::drawEllipse`, four cubic Béziers from `qt_curves_for_arc` (qstroker.cpp),
//   filled by QRasterizer (the path flattened by `QBezier::addToPolygon` at 0.25 px (qbezier.cpp), rounded to 26.6
//   fixed point by QOutlineMapper, scan-converted at pixel centres in 16.16 fixed point by
//   `QScanConverter::mergeLine`, qrasterizer.cpp), then stroked by the pen;
// - pens of width 0 or 1 under no transform ("fast pens"): QCosmeticStroker (qcosmeticstroker.cpp), the aliased
//   `drawLine` in 26.6 / 16.16 fixed point with its cap adjustment and dropout control between segments, Béziers
//   subdivided by `renderCubicSubdivision`; QPen's default square cap.
//
// Jumper's shapes lie inside the frame, so the scan converter's clipping of edges against the frame's left and right
// sides is not needed (spans are still clipped to the frame); everything else follows Qt's integer arithmetic.

import { byteMul, type Canvas, qRound, type Rect } from "./render.ts";

/** A solid colour: straight RGB and alpha 0-255 (QColor). */
export interface Color {
  r: number;
  g: number;
  b: number;
  a: number;
}

/** Source-over of a solid colour on pixel i (comp_func_solid_SourceOver: premultiplied colour + BYTE_MUL). */
function blendAt(c: Canvas, i: number, col: Color): void {
  const o = i * 3;
  const px = c.pixels;
  if (col.a === 255) {
    px[o] = col.r;
    px[o + 1] = col.g;
    px[o + 2] = col.b;
    return;
  }
  const inv = 255 - col.a;
  px[o] = byteMul(col.r, col.a) + byteMul(px[o], inv);
  px[o + 1] = byteMul(col.g, col.a) + byteMul(px[o + 1], inv);
  px[o + 2] = byteMul(col.b, col.a) + byteMul(px[o + 2], inv);
}

/** A horizontal span [x, x + len) of row y, clipped to the frame (qt_intersect_spans). */
function span(c: Canvas, x: number, len: number, y: number, col: Color): void {
  if (y < 0 || y >= c.height) return;
  const x1 = Math.min(c.width, x + len);
  for (let i = Math.max(0, x); i < x1; i++) blendAt(c, y * c.width + i, col);
}

/**
 * `QPainter::drawEllipse(QRectF)` with a solid brush and, unless `pen` is null, a solid pen of width 1 (or 0): the
 * midpoint algorithm when the rect is whole pixels, else the Bézier path filled and stroked.
 */
export function drawEllipse(c: Canvas, rect: Rect, brush: Color, pen: Color | null): void {
  if (!(rect.w > 0 && rect.h > 0)) return;
  // QRasterPaintEngine::drawEllipse: QRect(int(x), int(y), int(x + w) - int(x), ...) compared with the QRectF by
  // QRectF's operator==, which is qFuzzyCompare on each member.
  const ix = Math.trunc(rect.x);
  const iy = Math.trunc(rect.y);
  const iw = Math.trunc(rect.x + rect.w) - ix;
  const ih = Math.trunc(rect.y + rect.h) - iy;
  if (fuzzyEqual(ix, rect.x) && fuzzyEqual(iy, rect.y) && fuzzyEqual(iw, rect.w) && fuzzyEqual(ih, rect.h)) {
    ellipseMidpoint(c, ix, iy, iw, ih, brush, pen);
    return;
  }
  const key = `${c.width}x${c.height} ${rect.x} ${rect.y} ${rect.w} ${rect.h}`;
  let path = PATH_CACHE.get(key);
  if (path === undefined) {
    // The pixels depend on the rect alone: Jumper redraws the same compass every frame.
    if (PATH_CACHE.size >= 64) PATH_CACHE.clear();
    const curve = ellipseCurves(rect);
    const fill: number[] = [];
    const stroke: number[] = [];
    fillPolygon(flatten(curve), c.width, c.height, fill);
    new CosmeticStroker(c.width, c.height, (x, y) => stroke.push(y * c.width + x)).drawClosedCurves(curve);
    path = { fill: Int32Array.from(fill), stroke: Int32Array.from(stroke) };
    PATH_CACHE.set(key, path);
  }
  for (const i of path.fill) blendAt(c, i, brush);
  if (pen !== null) for (const i of path.stroke) blendAt(c, i, pen);
}

/** qFuzzyCompare for doubles: equal to 12 significant digits (and 0 equals only 0). */
function fuzzyEqual(p: number, q: number): boolean {
  return Math.abs(p - q) * 1e12 <= Math.min(Math.abs(p), Math.abs(q));
}

/** Pixel indices (y * width + x, in drawing order) of a Bézier ellipse's fill and of its 1-pixel outline, per rect. */
const PATH_CACHE = new Map<string, { fill: Int32Array; stroke: Int32Array }>();

/** `QPainter::drawLine(int, int, int, int)` with a solid pen of width 0 or 1 (QCosmeticStroker::drawLine). */
export function drawLine(c: Canvas, x1: number, y1: number, x2: number, y2: number, pen: Color): void {
  const s = new CosmeticStroker(c.width, c.height, (x, y) => blendAt(c, y * c.width + x, pen));
  if (x1 === x2 && y1 === y2) {
    s.pixel(x1, y1);
    return;
  }
  s.stroke(x1, y1, x2, y2, CAP_BEGIN | CAP_END);
}

// ---------------------------------------------------------------- midpoint ellipse (whole-pixel rects)

function ellipsePoints(
  c: Canvas,
  x: number,
  y: number,
  length: number,
  rx: number,
  ry: number,
  w: number,
  h: number,
  brush: Color,
  pen: Color | null,
): void {
  if (length === 0) return;
  const midx = rx + Math.trunc((w + 1) / 2);
  const midy = ry + Math.trunc((h + 1) / 2);
  x += midx;
  y = midy - y;
  const leftX = midx + (midx - x) - (length - 1) - (w & 1);
  const leftLen = Math.min(length, x - leftX);
  const bottomY = midy + (midy - y) - (h & 1);
  // The fill starts on the left outline's last pixel and stops before the right outline.
  if (leftX + leftLen < x) {
    const fx = leftX + leftLen - 1;
    const flen = Math.max(0, x - fx);
    span(c, fx, flen, y, brush);
    if (y < bottomY) span(c, fx, flen, bottomY, brush);
  }
  if (pen !== null) {
    span(c, leftX, leftLen, y, pen);
    span(c, x, length, y, pen);
    if (y < bottomY) {
      span(c, leftX, leftLen, bottomY, pen);
      span(c, x, length, bottomY, pen);
    }
  }
}

/** drawEllipse_midpoint_i: region 1 steps x (spans of several pixels), region 2 steps y. */
function ellipseMidpoint(
  c: Canvas,
  rx: number,
  ry: number,
  w: number,
  h: number,
  brush: Color,
  pen: Color | null,
): void {
  const a = w / 2;
  const b = h / 2;
  let d = b * b - a * a * b + 0.25 * a * a;
  let x = 0;
  let y = Math.trunc((h + 1) / 2);
  let startx = x;
  while (a * a * (2 * y - 1) > 2 * b * b * (x + 1)) {
    if (d < 0) {
      d += b * b * (2 * x + 3);
      ++x;
    } else {
      d += b * b * (2 * x + 3) + a * a * (-2 * y + 2);
      ellipsePoints(c, startx, y, x - startx + 1, rx, ry, w, h, brush, pen);
      startx = ++x;
      --y;
    }
  }
  ellipsePoints(c, startx, y, x - startx + 1, rx, ry, w, h, brush, pen);
  d = b * b * (x + 0.5) * (x + 0.5) + a * a * ((y - 1) * (y - 1) - b * b);
  const miny = h & 1;
  while (y > miny) {
    if (d < 0) {
      d += b * b * (2 * x + 2) + a * a * (-2 * y + 3);
      ++x;
    } else {
      d += a * a * (-2 * y + 3);
    }
    --y;
    ellipsePoints(c, x, y, 1, rx, ry, w, h, brush, pen);
  }
}

// ---------------------------------------------------------------- the Bézier ellipse, filled

/** qt_curves_for_arc(rect, 0, -360): the start point, then 4 cubics (12 points), as x, y pairs. */
function ellipseCurves(r: Rect): Float64Array {
  const KAPPA = 0.5522847498;
  const { x, y, w, h } = r;
  const w2 = w / 2;
  const w2k = w2 * KAPPA;
  const h2 = h / 2;
  const h2k = h2 * KAPPA;
  // prettier-ignore
  return new Float64Array([
    x + w,
    y + h2,
    x + w,
    y + h2 + h2k,
    x + w2 + w2k,
    y + h,
    x + w2,
    y + h,
    x + w2 - w2k,
    y + h,
    x,
    y + h2 + h2k,
    x,
    y + h2,
    x,
    y + h2 - h2k,
    x + w2 - w2k,
    y,
    x + w2,
    y,
    x + w2 + w2k,
    y,
    x + w,
    y + h2 - h2k,
    x + w,
    y + h2,
  ]);
}

/**
 * QOutlineMapper: the start point and each cubic flattened by QBezier::addToPolygon (threshold 0.25, at most 9
 * halvings), every point rounded to 26.6 fixed point. Returns x, y pairs.
 */
function flatten(curve: Float64Array): Int32Array {
  const out: number[] = [qRound(curve[0] * 64), qRound(curve[1] * 64)];
  const stack = new Float64Array(10 * 8);
  const levels = new Int32Array(10);
  for (let k = 2; k < curve.length; k += 6) {
    stack.set(
      [curve[k - 2], curve[k - 1], curve[k], curve[k + 1], curve[k + 2], curve[k + 3], curve[k + 4], curve[k + 5]],
      0,
    );
    levels[0] = 9;
    let top = 0;
    while (top >= 0) {
      const o = top * 8;
      const [x1, y1, x2, y2, x3, y3, x4, y4] = stack.subarray(o, o + 8);
      const y4y1 = y4 - y1;
      const x4x1 = x4 - x1;
      let l = Math.abs(x4x1) + Math.abs(y4y1);
      let d: number;
      if (l > 1) {
        d = Math.abs(x4x1 * (y1 - y2) - y4y1 * (x1 - x2)) + Math.abs(x4x1 * (y1 - y3) - y4y1 * (x1 - x3));
      } else {
        d = Math.abs(x1 - x2) + Math.abs(y1 - y2) + Math.abs(x1 - x3) + Math.abs(y1 - y3);
        l = 1;
      }
      if (d < 0.25 * l || levels[top] === 0) {
        out.push(qRound(x4 * 64), qRound(y4 * 64));
        --top;
      } else {
        // QBezier::split: the first half goes on top of the stack, the second half stays below it.
        const m12x = (x1 + x2) * 0.5,
          m12y = (y1 + y2) * 0.5;
        const m23x = (x2 + x3) * 0.5,
          m23y = (y2 + y3) * 0.5;
        const m34x = (x3 + x4) * 0.5,
          m34y = (y3 + y4) * 0.5;
        const ax = (m12x + m23x) * 0.5,
          ay = (m12y + m23y) * 0.5;
        const bx = (m23x + m34x) * 0.5,
          by = (m23y + m34y) * 0.5;
        const mx = (ax + bx) * 0.5,
          my = (ay + by) * 0.5;
        stack.set([x1, y1, m12x, m12y, ax, ay, mx, my], o + 8);
        stack.set([mx, my, bx, by, m34x, m34y, x4, y4], o);
        levels[top + 1] = --levels[top];
        ++top;
      }
    }
  }
  return Int32Array.from(out);
}

/**
 * QRasterizer::rasterize on a closed polygon of 26.6 points: QScanConverter's edges sampled at pixel centres in
 * 16.16 fixed point; a pixel is filled when the winding number (odd-even) left of its centre is odd.
 */
function fillPolygon(pts: Int32Array, width: number, height: number, out: number[]): void {
  const n = pts.length / 2;
  if (n < 3) return;
  let minY = pts[1];
  let maxY = pts[1];
  for (let i = 1; i < n; i++) {
    minY = Math.min(minY, pts[2 * i + 1]);
    maxY = Math.max(maxY, pts[2 * i + 1]);
  }
  const top = Math.max(0, (minY + 32) >> 6);
  const bottom = Math.min(height - 1, (maxY - 32) >> 6);
  if (top > bottom) return;
  // Edges as [x (16.16 at row `from`), delta per row, from, to, winding].
  const edges: number[][] = [];
  for (let i = 0; i + 1 < n; i++) {
    let ax = pts[2 * i],
      ay = pts[2 * i + 1],
      bx = pts[2 * i + 2],
      by = pts[2 * i + 3];
    let winding = 1;
    if (ay > by) {
      [ax, ay, bx, by] = [bx, by, ax, ay];
      winding = -1;
    }
    const iTop = Math.max(top, (ay + 32) >> 6);
    const iBottom = Math.min(bottom, (by - 32) >> 6);
    if (iTop > iBottom) continue;
    const aFP = 32768 + ax * 1024;
    if (bx === ax) {
      edges.push([aFP, 0, iTop, iBottom, winding]);
    } else {
      const slopeFP = Math.trunc(((bx - ax) / (by - ay)) * 65536);
      // Q16Dot16Multiply: a 64-bit product shifted right by 16.
      const xFP = aFP + Math.floor((slopeFP * (iTop * 65536 + 32768 - ay * 1024)) / 65536);
      edges.push([xFP, slopeFP, iTop, iBottom, winding]);
    }
  }
  const cross: number[] = [];
  for (let y = top; y <= bottom; y++) {
    cross.length = 0;
    for (const [x, delta, from, to, winding] of edges)
      if (y >= from && y <= to) cross.push(((x + delta * (y - from)) >> 16) * 4 + (winding + 1));
    cross.sort((p, q) => p - q);
    let x = 0;
    let w = 0;
    for (const v of cross) {
      const cx = Math.floor(v / 4);
      if (w & 1) for (let i = Math.max(0, x); i < Math.min(width, cx); i++) out.push(y * width + i);
      x = cx;
      w += (v & 3) - 1;
    }
  }
}

// ---------------------------------------------------------------- QCosmeticStroker

const INT_MIN = -2147483648;
const CAP_BEGIN = 1;
const CAP_END = 2;
const TOP_TO_BOTTOM = 1;
const BOTTOM_TO_TOP = 2;
const LEFT_TO_RIGHT = 4;
const RIGHT_TO_LEFT = 8;
const VERTICAL_MASK = 3;
const HORIZONTAL_MASK = 12;

/** toF26Dot6: truncation towards zero. */
const to26Dot6 = (v: number) => Math.trunc(v * 64);

/** F16Dot16FixedDiv: x / y in 16.16, truncated. */
const fixedDiv = (x: number, y: number) => Math.trunc((x * 65536) / y);

const swapCaps = (caps: number) => ((caps & CAP_BEGIN) << 1) | ((caps & CAP_END) >> 1);

class CosmeticStroker {
  private lastX = INT_MIN;
  private lastY = INT_MIN;
  private lastDir = 0;
  private lastAxisAligned = false;
  // Lines are clipped in floating point to one pixel beyond the frame (QCosmeticStroker::setup).
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: read through destructuring in clipLine
  private readonly xmax: number;
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: read through destructuring in clipLine
  private readonly ymax: number;
  private readonly clipped = new Float64Array(4);

  /** `plot` receives each pixel inside the width x height frame, in drawing order. */
  constructor(
    private readonly width: number,
    private readonly height: number,
    private readonly plot: (x: number, y: number) => void,
  ) {
    this.xmax = width + 1;
    this.ymax = height + 1;
  }

  pixel(x: number, y: number): void {
    if (x >= 0 && x < this.width && y >= 0 && y < this.height) this.plot(x, y);
  }

  /** drawPath of one closed subpath of cubics (start point, then 3 points per cubic). */
  drawClosedCurves(pts: Float64Array): void {
    const m = pts.length;
    this.lastPoint(pts[m - 4], pts[m - 3], pts[m - 2], pts[m - 1]);
    for (let k = 2; k < m; k += 6) {
      // renderCubic keeps the points end first: [p4, p3, p2, p1] at indices 0..3.
      const p = new Float64Array(2 * (3 * 6 + 4));
      p.set([pts[k + 4], pts[k + 5], pts[k + 2], pts[k + 3], pts[k], pts[k + 1], pts[k - 2], pts[k - 1]]);
      this.cubic(p, 0, 6, 0);
    }
  }

  private cubic(p: Float64Array, o: number, level: number, caps: number): void {
    if (level) {
      const dx = p[o + 6] - p[o];
      const dy = p[o + 7] - p[o + 1];
      const len = 0.25 * (Math.abs(dx) + Math.abs(dy));
      if (
        Math.abs(dx * (p[o + 1] - p[o + 5]) - dy * (p[o] - p[o + 4])) >= len ||
        Math.abs(dx * (p[o + 1] - p[o + 3]) - dy * (p[o] - p[o + 2])) >= len
      ) {
        splitCubic(p, o);
        --level;
        this.cubic(p, o + 6, level, caps & CAP_BEGIN);
        this.cubic(p, o, level, caps & CAP_END);
        return;
      }
    }
    this.stroke(p[o + 6], p[o + 7], p[o], p[o + 1], caps);
  }

  /** clipLine: false when the whole line is outside; the clipped ends are left in `this.clipped`. */
  private clipLine(x1: number, y1: number, x2: number, y2: number): boolean {
    const xmin = -1;
    const ymin = -1;
    const { xmax, ymax } = this;
    if (x1 < xmin) {
      if (x2 <= xmin) return this.outside();
      y1 += ((y2 - y1) / (x2 - x1)) * (xmin - x1);
      x1 = xmin;
    } else if (x1 > xmax) {
      if (x2 >= xmax) return this.outside();
      y1 += ((y2 - y1) / (x2 - x1)) * (xmax - x1);
      x1 = xmax;
    }
    if (x2 < xmin) {
      this.lastX = INT_MIN;
      y2 += ((y2 - y1) / (x2 - x1)) * (xmin - x2);
      x2 = xmin;
    } else if (x2 > xmax) {
      this.lastX = INT_MIN;
      y2 += ((y2 - y1) / (x2 - x1)) * (xmax - x2);
      x2 = xmax;
    }
    if (y1 < ymin) {
      if (y2 <= ymin) return this.outside();
      x1 += ((x2 - x1) / (y2 - y1)) * (ymin - y1);
      y1 = ymin;
    } else if (y1 > ymax) {
      if (y2 >= ymax) return this.outside();
      x1 += ((x2 - x1) / (y2 - y1)) * (ymax - y1);
      y1 = ymax;
    }
    if (y2 < ymin) {
      this.lastX = INT_MIN;
      x2 += ((x2 - x1) / (y2 - y1)) * (ymin - y2);
      y2 = ymin;
    } else if (y2 > ymax) {
      this.lastX = INT_MIN;
      x2 += ((x2 - x1) / (y2 - y1)) * (ymax - y2);
      y2 = ymax;
    }
    const cl = this.clipped;
    cl[0] = x1;
    cl[1] = y1;
    cl[2] = x2;
    cl[3] = y2;
    return true;
  }

  private outside(): boolean {
    this.lastX = INT_MIN;
    return false;
  }

  /** calculateLastPoint: the direction and last pixel of a closed contour's last segment, for dropout control. */
  private lastPoint(rx1: number, ry1: number, rx2: number, ry2: number): void {
    this.lastX = INT_MIN;
    this.lastY = INT_MIN;
    if (!this.clipLine(rx1, ry1, rx2, ry2)) return;
    const cl = this.clipped;
    const x1 = to26Dot6(cl[0]);
    const y1 = to26Dot6(cl[1]);
    const x2 = to26Dot6(cl[2]);
    const y2 = to26Dot6(cl[3]);
    const dx = Math.abs(x2 - x1);
    const dy = Math.abs(y2 - y1);
    if (dx < dy) this.lastPointAlong(y1, y2, x1, x2, true);
    else if (dx) this.lastPointAlong(x1, x2, y1, y2, false);
  }

  /**
   * calculateLastPoint along the major axis `a` (y for a steep segment, x for a shallow one; `b` the other). Qt
   * writes the steep and shallow cases out twice; they differ only in which of x and y is which.
   */
  private lastPointAlong(a1: number, a2: number, b1: number, b2: number, vertical: boolean): void {
    let swapped = false;
    if (a1 > a2) {
      swapped = true;
      [a1, a2, b1, b2] = [a2, a1, b2, b1];
    }
    const inc = fixedDiv(b2 - b1, a2 - a1);
    const a = (a1 + 32) >> 6;
    const aEnd = (a2 + 32) >> 6;
    if (a === aEnd) return;
    const round = inc > 0 ? 32 : 0;
    const b = b1 * 1024 + ((((a << 6) + round - a1) * inc) >> 6);
    const lastA = swapped ? a : aEnd - 1;
    const lastB = swapped ? b >> 16 : (b + (aEnd - a - 1) * inc) >> 16;
    this.lastX = vertical ? lastB : lastA;
    this.lastY = vertical ? lastA : lastB;
    this.lastDir = vertical ? (swapped ? BOTTOM_TO_TOP : TOP_TO_BOTTOM) : swapped ? RIGHT_TO_LEFT : LEFT_TO_RIGHT;
    this.lastAxisAligned = Math.abs(inc) < 1 << 14;
  }

  /** The aliased drawLine<drawPixel, NoDasher>: one pixel per row (steep) or per column (shallow). */
  stroke(rx1: number, ry1: number, rx2: number, ry2: number, caps: number): void {
    if (!this.clipLine(rx1, ry1, rx2, ry2)) return;
    const cl = this.clipped;
    const x1 = to26Dot6(cl[0]);
    const y1 = to26Dot6(cl[1]);
    const x2 = to26Dot6(cl[2]);
    const y2 = to26Dot6(cl[3]);
    const dx = Math.abs(x2 - x1);
    const dy = Math.abs(y2 - y1);
    if (dx < dy) this.strokeAlong(y1, y2, x1, x2, caps, true);
    else if (dx) this.strokeAlong(x1, x2, y1, y2, caps, false);
  }

  /** drawLine along the major axis `a` (see lastPointAlong); the gap and overlap rules compare pixels in x, y. */
  private strokeAlong(a1: number, a2: number, b1: number, b2: number, caps: number, vertical: boolean): void {
    let dir = vertical ? TOP_TO_BOTTOM : LEFT_TO_RIGHT;
    let swapped = false;
    if (a1 > a2) {
      swapped = true;
      [a1, a2, b1, b2] = [a2, a1, b2, b1];
      caps = swapCaps(caps);
      dir = vertical ? BOTTOM_TO_TOP : RIGHT_TO_LEFT;
    }
    const inc = fixedDiv(b2 - b1, a2 - a1);
    let b = b1 * 1024;
    if ((this.lastDir ^ (vertical ? VERTICAL_MASK : HORIZONTAL_MASK)) === dir) caps |= swapped ? CAP_END : CAP_BEGIN;
    // capAdjust: half a pixel more at each capped end.
    if (caps & CAP_BEGIN) {
      a1 -= 32;
      b -= inc >> 1;
    }
    if (caps & CAP_END) a2 += 32;
    let a = (a1 + 32) >> 6;
    let aEnd = (a2 + 32) >> 6;
    const round = inc > 0 ? 32 : 0;
    if (caps & CAP_BEGIN && (vertical ? this.lastY : this.lastX) === a + 1) a++;
    let lastX = this.lastX;
    let lastY = this.lastY;
    if (a !== aEnd) {
      b += (((a << 6) + round - a1) * inc) >> 6;
      let firstA = a;
      let firstB = b >> 16;
      let lastA = aEnd - 1;
      let lastB = (b + (aEnd - a - 1) * inc) >> 16;
      if (swapped) [firstA, firstB, lastA, lastB] = [lastA, lastB, firstA, firstB];
      const firstX = vertical ? firstB : firstA;
      const firstY = vertical ? firstA : firstB;
      lastX = vertical ? lastB : lastA;
      lastY = vertical ? lastA : lastB;
      const axisAligned = Math.abs(inc) < 1 << 14;
      if (this.lastX > INT_MIN) {
        if (firstX === this.lastX && firstY === this.lastY) {
          // the previous segment's last pixel: not drawn twice
          if (swapped) --aEnd;
          else {
            ++a;
            b += inc;
          }
        } else if (
          this.lastDir !== dir &&
          ((axisAligned && this.lastAxisAligned && this.lastX !== firstX && this.lastY !== firstY) ||
            Math.abs(this.lastX - firstX) > 1 ||
            Math.abs(this.lastY - firstY) > 1)
        ) {
          // a gap at the corner: one pixel more
          if (swapped) ++aEnd;
          else {
            --a;
            b -= inc;
          }
        } else if (this.lastDir === dir && Math.abs(this.lastX - firstX) <= 1 && Math.abs(this.lastY - firstY) > 1) {
          b += inc >> 1;
          lastB = swapped ? b >> 16 : (b + (aEnd - a - 1) * inc) >> 16;
          if (vertical) lastX = lastB;
          else lastY = lastB;
        }
      }
      this.lastDir = dir;
      this.lastAxisAligned = axisAligned;
      do {
        if (vertical) this.pixel(b >> 16, a);
        else this.pixel(a, b >> 16);
        b += inc;
      } while (++a < aEnd);
    }
    this.lastX = lastX;
    this.lastY = lastY;
  }
}

/** splitCubic on the end-first points at `o`: [o, o + 3] becomes the second half, [o + 3, o + 6] the first. */
function splitCubic(p: Float64Array, o: number): void {
  for (let k = 0; k < 2; k++) {
    const i = o + k;
    p[i + 12] = p[i + 6];
    const c0 = p[i + 2];
    const d0 = p[i + 4];
    let a = (p[i] + c0) * 0.5;
    let b = (p[i + 6] + d0) * 0.5;
    p[i + 2] = a;
    p[i + 10] = b;
    const c = (c0 + d0) * 0.5;
    a = (a + c) * 0.5;
    b = (b + c) * 0.5;
    p[i + 4] = a;
    p[i + 8] = b;
    p[i + 6] = (a + b) * 0.5;
  }
}
