// procgen's procedural images (assetgen.cpp), drawn when `use_generated_assets` is set: every sprite is a 64x64
// QImage::Format_ARGB32 of rectangles and ellipses in random colours, and every level's background a 500x500 RGB32
// image of the same kind. What is drawn is a pure function of the random numbers, so the draws below follow
// assetgen.cpp's order exactly, with its float and double arithmetic (C++ float expressions are rounded to float32
// at each step; `.5 * scale` and the like are doubles stored into floats).
//
// The painter is aliased: fillRect rounds the rect's edges (Canvas.fillRect) and drawEllipse takes Qt's ellipse
// paths (shapes.ts) with a pen of width 1. Sprites that are not blocks start transparent and are painted with
// CompositionMode_Source in opaque colours, so each of their pixels is either fully transparent or opaque: the
// colours are drawn on one canvas and, with the same shapes in white, the coverage on another.

import type { Mt19937 } from "./mt19937.ts";
import { Canvas, type ProcgenImage, type Rect } from "./render.ts";
import { type Color, drawEllipse } from "./shapes.ts";

const f = Math.fround;

/** Sprite side in pixels (the 64x64 QImage of initialize_asset_if_necessary). */
export const GENERATED_ASSET_SIZE = 64;
/** Side of the background procgen generates for each level (game_init's 500x500 RGB32 image). */
export const GENERATED_BACKGROUND_SIZE = 500;

/** 32-bit FNV-1a of a game's name: vecgame.cpp's hash_str_uint32, the fixed_asset_seed it picks, as an int. */
export function fixedAssetSeed(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return h | 0;
}

const WHITE: Color = { r: 255, g: 255, b: 255, a: 255 };

/** The canvases one image is painted on: colours, and (for transparent sprites) coverage. */
interface Target {
  rgb: Canvas;
  mask: Canvas | null;
}

/** assetgen.cpp's ColorGen: per-channel random ranges, rolled once per resource. */
class ColorGen {
  private readonly start = [0, 0, 0];
  private readonly len = [0, 0, 0];

  constructor(private readonly rng: Mt19937) {
    for (let i = 0; i < 3; i++) this.len[i] = rng.rand01();
    for (let i = 0; i < 3; i++) this.start[i] = f(rng.rand01() * f(1 - this.len[i]));
    rng.rand01(); // p_rect: drawn, never used
  }

  color(): Color {
    const c = [0, 0, 0];
    for (let i = 0; i < 3; i++) c[i] = Math.trunc(f(255 * f(f(this.rng.rand01() * this.len[i]) + this.start[i])));
    return { r: c[0], g: c[1], b: c[2], a: 255 };
  }
}

function fillRect(t: Target, rect: Rect, c: Color): void {
  t.rgb.fillRect(rect, c.r, c.g, c.b, c.a);
  t.mask?.fillRect(rect, 255, 255, 255);
}

function drawEllipseOn(t: Target, rect: Rect, brush: Color, pen: Color): void {
  drawEllipse(t.rgb, rect, brush, pen);
  if (t.mask !== null) drawEllipse(t.mask, rect, WHITE, WHITE);
}

class AssetGen {
  constructor(private readonly rng: Mt19937) {}

  private chooseSubRect(rect: Rect, minDim: number, maxDim: number): Rect {
    const w = Math.trunc(rect.w);
    const h = Math.trunc(rect.h);
    const smaller = w > h ? h : w;
    const del = f(maxDim - minDim);
    const rdx = f(f(f(this.rng.rand01() * del) + minDim) * smaller);
    const rdy = f(f(f(this.rng.rand01() * del) + minDim) * smaller);
    const rxOff = f(this.rng.rand01() * f(w - rdx));
    const ryOff = f(this.rng.rand01() * f(h - rdy));
    return { x: rxOff + rect.x, y: ryOff + rect.y, w: rdx, h: rdy };
  }

  private splitRect(rect: Rect, n: number, horizontal: boolean): Rect[] {
    const x = f(rect.x);
    const y = f(rect.y);
    const w = f(rect.w);
    const h = f(rect.h);
    const dw = f(w / n);
    const dh = f(h / n);
    const out: Rect[] = [];
    for (let i = 0; i < n; i++)
      out.push(horizontal ? { x: f(x + f(i * dw)), y, w: dw, h } : { x, y: f(y + f(i * dh)), w, h: dh });
    return out;
  }

  private paintShape(t: Target, main: Rect, cgen: ColorGen): void {
    const k = this.rng.randn(10);
    const splits = this.splitRect(main, Math.trunc((k * k) / 50) + 1, this.rng.randbool());
    const useRect = this.rng.randbool();
    const regen = this.rng.randbool();
    let c1 = cgen.color();
    let c2 = cgen.color();
    for (const rect of splits) {
      if (regen) {
        c1 = cgen.color();
        c2 = cgen.color();
      }
      if (useRect) fillRect(t, rect, c1);
      else drawEllipseOn(t, rect, c1, c2);
    }
  }

  paintRectResource(t: Target, rect: Rect, numRecurse: number, blotchScale: number): void {
    const cgen = new ColorGen(this.rng);
    const bg = cgen.color();
    fillRect(t, rect, bg);
    const scale = f(0.3 + 0.7 * this.rng.rand01());
    const maxDim = f(0.5 * scale);
    const minDim = f(0.05 * scale);
    const blotches = this.rng.randint(blotchScale, 2 * blotchScale);
    const pRecurse = f(this.rng.rand01() * 0.75);
    for (let j = 0; j < blotches; j++) {
      const sub = this.chooseSubRect(rect, minDim, maxDim);
      if (numRecurse > 0 && this.rng.rand01() < pRecurse) this.paintRectResource(t, sub, numRecurse - 1, 10);
      else this.paintShape(t, sub, cgen);
    }
    fillRect(t, rect, { ...bg, a: 200 });
  }

  private createBar(rect: Rect, horizontal: boolean): Rect {
    const k1 = f(0.45 + this.rng.rand01() * 0.4);
    const k2 = f(0.45 + this.rng.rand01() * 0.4);
    const w = f(rect.w * k1 * k1);
    const h = f(rect.h * k2 * k2);
    const pct = this.rng.rand01();
    // As assetgen.cpp writes it: a vertical bar's offset uses the rect's height (the rect is square).
    return horizontal ? { x: (rect.h - w) * pct, y: 0, w, h: rect.h } : { x: 0, y: (rect.h - h) * pct, w: rect.w, h };
  }

  paintShapeResource(t: Target, rect: Rect): void {
    const cgen = new ColorGen(this.rng);
    const horizontalFirst = this.rng.randbool();
    const nbar1 = Math.trunc(this.rng.randn(3) / 2) + 1;
    const nbar2 = Math.trunc(this.rng.randn(3) / 2) + 1;
    // CompositionMode_Source with a transparent colour: the canvases start cleared.
    for (let i = 0; i < nbar1; i++) this.paintShape(t, this.createBar(rect, horizontalFirst), cgen);
    for (let i = 0; i < nbar2; i++) this.paintShape(t, this.createBar(rect, !horizontalFirst), cgen);
    const blotches = this.rng.randint(1, 5);
    for (let j = 0; j < blotches; j++) this.paintShape(t, this.chooseSubRect(rect, f(0.1), f(0.6)), cgen);
  }
}

/**
 * A generated sprite (initialize_asset_if_necessary): `rng` is the game's asset generator, reseeded with
 * fixed_asset_seed + type; `block` is the game's use_block_asset(type) (an opaque tile rather than a shape).
 */
export function generateAsset(rng: Mt19937, seed: number, block: boolean): ProcgenImage {
  rng.seed(seed);
  const n = GENERATED_ASSET_SIZE;
  const rect = { x: 0, y: 0, w: n, h: n };
  const t: Target = { rgb: new Canvas(n, n), mask: block ? null : new Canvas(n, n) };
  const gen = new AssetGen(rng);
  if (block) gen.paintRectResource(t, rect, 0, 5);
  else gen.paintShapeResource(t, rect);
  const rgba = new Uint8Array(n * n * 4);
  for (let i = 0; i < n * n; i++) {
    if (t.mask !== null && t.mask.pixels[i * 3] === 0) continue;
    rgba[i * 4] = t.rgb.pixels[i * 3];
    rgba[i * 4 + 1] = t.rgb.pixels[i * 3 + 1];
    rgba[i * 4 + 2] = t.rgb.pixels[i * 3 + 2];
    rgba[i * 4 + 3] = 255;
  }
  return { width: n, height: n, rgba, straightAlpha: true };
}

/** A level's background (game_reset's generate_resource with its defaults), drawn with the level's generator. */
export function generateBackground(rng: Mt19937): ProcgenImage {
  const n = GENERATED_BACKGROUND_SIZE;
  const t: Target = { rgb: new Canvas(n, n), mask: null };
  new AssetGen(rng).paintRectResource(t, { x: 0, y: 0, w: n, h: n }, 1, 50);
  const rgba = new Uint8Array(n * n * 4).fill(255);
  for (let i = 0; i < n * n; i++) {
    rgba[i * 4] = t.rgb.pixels[i * 3];
    rgba[i * 4 + 1] = t.rgb.pixels[i * 3 + 1];
    rgba[i * 4 + 2] = t.rgb.pixels[i * 3 + 2];
  }
  return { width: n, height: n, rgba };
}
