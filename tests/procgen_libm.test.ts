// envs/procgen/libm.ts against glibc 2.36's atan2f (Debian bookworm's libm, the one procgen's reference build links
// against). The expected bit patterns were printed by a C program calling atan2f on each (y, x) pair
// (`gcc -O2 -march=ivybridge probe.c -lm`); they are arguments where the correctly rounded atan2 differs from glibc's.

import assert from "node:assert/strict";
import { test } from "node:test";

import { atan2f } from "../envs/procgen/libm.ts";

const bits = (x: number) => {
  const dv = new DataView(new ArrayBuffer(4));
  dv.setFloat32(0, x);
  return dv.getUint32(0);
};

test("atan2f matches glibc's float atan2f bit for bit where the correctly rounded result differs", () => {
  const cases: [number, number, number][] = [
    [-9.672157287597656, -3.216423511505127, 0xbff227b5],
    [7.411526203155518, -4.616031646728516, 0x40082e48],
    [7.399998188018799, 6.33012056350708, 0x3f5cf83f],
    [-3.375302314758301, 9.54907512664795, 0xbeadf547],
    [8.456650733947754, -8.597900390625, 0x40175396],
    [4.857342720031738, -6.828671932220459, 0x40217df4],
  ];
  for (const [y, x, expected] of cases) {
    assert.notEqual(bits(Math.atan2(y, x)), expected, "the case must be one where rounding differs");
    assert.equal(bits(atan2f(y, x)).toString(16), expected.toString(16), `atan2f(${y}, ${x})`);
  }
});

test("atan2f's special cases: axes, signed zeros and infinities", () => {
  const pi = Math.fround(Math.PI);
  assert.equal(atan2f(0, 1), 0);
  assert.ok(Object.is(atan2f(-0, 1), -0));
  assert.equal(atan2f(0, -1), pi);
  assert.equal(atan2f(-0, -1), -pi);
  assert.equal(atan2f(1, 0), Math.fround(Math.PI / 2));
  assert.equal(atan2f(-1, 0), -Math.fround(Math.PI / 2));
  assert.equal(atan2f(Infinity, Infinity), Math.fround(Math.PI / 4));
  assert.equal(atan2f(1, -Infinity), pi);
  assert.ok(Number.isNaN(atan2f(Number.NaN, 1)));
});
