// The shortcuts between the TIA's frame buffer and getScreenRGB: screenToRgb's row comparison (8 pixels at a time as
// doubles, where +0 and -0 compare equal), the RGB cache's comparison of 4-pixel groups with the screen it kept per
// buffer, its `rowsWritten` contract (rows the TIA did not write since the last conversion are not looked at, unless
// the buffer's slot last held another buffer's screen), and, on real games, that a console's cached RGB is the direct conversion of its
// screen on every frame, rendered or not, across resets (a row the TIA writes without flagging would show here).
// Whether the pixels themselves are Stella's is ale_fidelity.test.ts and ale_frameskip.test.ts.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";

import { findGame } from "../envs/ale/games.ts";
import { ALEInterface } from "../envs/ale/interface.ts";
import { ScreenRgbCache, screenToRgb } from "../envs/ale/palette.ts";
import { ROM_DIR, skipWithoutRom } from "./helpers.ts";

/** The RGB screenToRgb gives for `screen`. */
function direct(screen: Uint8Array): Uint8Array {
  const rgb = new Uint8Array(screen.length * 3);
  screenToRgb(screen, rgb);
  return rgb;
}

describe("screen to RGB shortcuts", () => {
  test("8 black pixels and 7 black pixels before colour 0x80 (+0 and -0 as a double) are different rows", () => {
    // Row 1 repeats row 0 but for pixel 7 of its first group: the row-above copy must not take it.
    const screen = new Uint8Array(160 * 2);
    screen[160 + 7] = 0x80;
    assert.deepEqual(
      direct(screen).subarray(480, 504),
      Uint8Array.from([...new Array(21).fill(0), ...direct(Uint8Array.of(0x80))]),
    );
    // The cache, comparing a frame with the one its buffer showed before.
    const cache = new ScreenRgbCache(160 * 2);
    const out = new Uint8Array(screen.length * 3);
    screen.fill(0);
    cache.convert(screen, out);
    screen[7] = 0x80;
    cache.convert(screen, out);
    assert.deepEqual(out, direct(screen));
  });

  test("rowsWritten: unflagged rows keep their RGB without a look, flagged rows are converted and cleared", () => {
    const cache = new ScreenRgbCache(160 * 3);
    const screen = Uint8Array.from({ length: 160 * 3 }, (_, i) => (i * 7) & 0xfe);
    const written = Uint8Array.of(1, 1, 1);
    const out = new Uint8Array(screen.length * 3);
    cache.convert(screen, out, written);
    assert.deepEqual([...written], [0, 0, 0]);
    assert.deepEqual(out, direct(screen));
    const before = direct(screen);
    screen[10] ^= 0x3e; // row 0 changes, flagged
    screen[170] ^= 0x3e; // row 1 changes, not flagged: the cache must not look
    written[0] = 1;
    cache.convert(screen, out, written);
    assert.deepEqual([...written], [0, 0, 0]);
    const expected = direct(screen);
    expected.set(before.subarray(480, 960), 480);
    assert.deepEqual(out, expected);
  });

  test("three buffers in random turns, changed groups anywhere in flagged rows: always the direct conversion", () => {
    const rows = 6;
    const buffers = Array.from({ length: 3 }, () => new Uint8Array(160 * rows));
    const flags = buffers.map(() => new Uint8Array(rows).fill(1));
    const cache = new ScreenRgbCache(160 * rows);
    const out = new Uint8Array(160 * rows * 3);
    let seed = 11;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    for (let frame = 0; frame < 300; frame++) {
      // Mostly the two buffers in turn, now and then the third (which takes over the slot not used last).
      const b = next(8) === 0 ? 2 : frame & 1;
      for (let change = next(12); change > 0; change--) {
        const pixel = next(160 * rows);
        buffers[b][pixel] = next(4) === 0 ? 0 : next(256);
        flags[b][Math.floor(pixel / 160)] = 1;
      }
      cache.convert(buffers[b], out, flags[b]);
      assert.deepEqual([...flags[b]], new Array(rows).fill(0), `frame ${frame}: flags cleared`);
      assert.ok(Buffer.from(out).equals(direct(buffers[b])), `frame ${frame} (buffer ${b})`);
    }
  });

  for (const id of ["breakout", "pong"]) {
    const game = findGame(id)!;
    test(
      `${game.name}: getScreenRGB is the screen's direct conversion every frame (rendered or not, across resets)`,
      { skip: skipWithoutRom(game.rom) },
      () => {
        const rom = new Uint8Array(readFileSync(join(ROM_DIR, `${game.rom}.bin`)));
        const ale = new ALEInterface(game, rom, { repeatActionProbability: 0, maxNumFramesPerEpisode: 0 }, () => 0.5);
        ale.resetGame(0, true);
        const actions = ale.getMinimalActionSet();
        const rgb = new Uint8Array(210 * 160 * 3);
        let seed = 7;
        for (let frame = 0; frame < 200; frame++) {
          seed = (seed * 1103515245 + 12345) >>> 0;
          // Unrendered frames in runs of up to three, as MaxAndSkip and frame skipping leave them.
          ale.act(actions[(seed >>> 16) % actions.length], (seed & 3) === 0 || frame % 4 === 3);
          if (frame === 120) ale.resetGame(0);
          ale.getScreenRGB(rgb);
          assert.ok(
            Buffer.from(rgb).equals(direct(ale.console.screen)),
            `frame ${frame}: getScreenRGB differs from screenToRgb`,
          );
        }
      },
    );
  }
});
