// The raster core's fast paths against its plain ones: a canvas whose bytes start 4-byte aligned stores 4 RGB
// pixels as 3 words, one that does not stores byte by byte; sprites without transparent pixels are copied rather
// than blended. Both must draw the same bytes at every offset, size, mirroring and opacity.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Mt19937 } from "../envs/procgen/mt19937.ts";
import { Canvas, type ProcgenImage } from "../envs/procgen/render.ts";

function image(width: number, height: number, seed: number, alpha: (rand: Mt19937) => number): ProcgenImage {
  const rand = new Mt19937(seed);
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0; i < rgba.length; i += 4) {
    rgba[i] = rand.randn(256);
    rgba[i + 1] = rand.randn(256);
    rgba[i + 2] = rand.randn(256);
    rgba[i + 3] = alpha(rand);
  }
  return { width, height, rgba };
}

/** A canvas over `bytes` starting `shift` bytes into a larger buffer, filled with the same grey pattern. */
function canvasAt(shift: number): Canvas {
  const buffer = new Uint8Array(64 * 64 * 3 + 8);
  const pixels = buffer.subarray(shift, shift + 64 * 64 * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 7) & 255;
  return new Canvas(64, 64, pixels);
}

test("procgen render: word stores and the opaque-sprite copy draw what byte stores and blending draw", () => {
  const solid = image(24, 20, 1, () => 255);
  // Three kinds of pixel in one image: transparent, opaque and partly transparent.
  const mixed = image(24, 20, 2, (r) => [0, 255, r.randn(256)][r.randn(3)]);
  // The same pixels as `solid` with one pixel a shade off opaque: drawn by blending, where `solid` is copied.
  const almost = { ...solid, rgba: solid.rgba.slice() };
  almost.rgba[3] = 254;
  const background = image(400, 300, 3, (r) => r.randn(256));
  let drawn = 0;
  for (const [img, opaque] of [
    [solid, false],
    [mixed, false],
    [background, true],
  ] as const) {
    for (let x = -5; x < 12; x++) {
      for (const w of [1, 3, 4, 5, 7.5, 9, 13, 37, 80]) {
        for (const [reflected, alpha] of [
          [false, 1],
          [true, 1],
          [false, 0.5],
        ] as const) {
          const rect = { x: x + 0.25, y: x - 2.5, w, h: w * 0.75 + 1 };
          const aligned = canvasAt(0);
          const unaligned = canvasAt(1);
          aligned.drawImage(img, rect, 0, reflected, alpha, opaque);
          unaligned.drawImage(img, rect, 0, reflected, alpha, opaque);
          assert.deepEqual(
            aligned.pixels,
            unaligned.pixels,
            `x=${x} w=${w} reflected=${reflected} alpha=${alpha} opaque=${opaque}`,
          );
          if (img === solid && alpha === 1) {
            // Changing one alpha byte leaves the rest of the sprite's pixels drawn alike by blending.
            const blended = canvasAt(0);
            blended.drawImage(almost, rect, 0, reflected, alpha, false);
            const differ = aligned.pixels.reduce((n, v, i) => n + (v === blended.pixels[i] ? 0 : 1), 0);
            assert.ok(
              differ <= 3 * Math.ceil(w / 24 + 1) * Math.ceil((w * 0.75 + 1) / 20 + 1),
              `x=${x} w=${w}: ${differ} bytes differ`,
            );
          }
          drawn++;
        }
      }
    }
  }
  assert.equal(drawn, 3 * 17 * 9 * 3);
  // Colour under alpha 0 is never drawn: a sprite with transparent pixels is blended, not copied.
  const clear = image(24, 20, 4, () => 0);
  for (const shift of [0, 1]) {
    const c = canvasAt(shift);
    const before = c.pixels.slice();
    c.drawImage(clear, { x: 1, y: 2, w: 40, h: 30 });
    assert.deepEqual(c.pixels, before);
  }
});
