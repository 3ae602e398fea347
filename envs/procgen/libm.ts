// glibc's single-precision atan2f, the one function procgen calls through C++'s float overloads (entity.cpp includes
// <math.h>, so `atan2(float, float)` there is atan2f; everywhere else procgen's sources get the double functions).
// glibc 2.36 (the libm the reference build links against) computes it with fdlibm's float algorithm
// (sysdeps/ieee754/flt-32/e_atan2f.c and s_atanf.c): argument reduction to one of four intervals around atan(0.5),
// atan(1), atan(1.5), atan(inf), an odd polynomial of 11 terms split into two Horner chains, every operation in float.
// Its results differ from the correctly rounded atan2 in the last bit for some arguments; an entity's rotation (and
// so how its sprite is rasterised) follows glibc's.

const f = Math.fround;
const BITS = new DataView(new ArrayBuffer(4));

function floatBits(x: number): number {
  BITS.setFloat32(0, x);
  return BITS.getInt32(0);
}

// atan(0.5), atan(1), atan(1.5), atan(inf) as float high and low parts; the polynomial's coefficients (float).
const ATAN_HI = [f(4.6364760399e-1), f(7.8539812565e-1), f(9.8279368877e-1), f(1.5707962513)];
const ATAN_LO = [f(5.012158244e-9), f(3.7748947079e-8), f(3.447321717e-8), f(7.5497894159e-8)];
// prettier-ignore
const AT = [
  3.3333334327e-1, -2.0000000298e-1, 1.4285714924e-1, -1.1111110449e-1, 9.0908870101e-2, -7.6918758452e-2,
  6.6610731184e-2, -5.8335702866e-2, 4.9768779427e-2, -3.6531571299e-2, 1.6285819933e-2,
].map(f);
const PI = f(3.141592741);
const PI_O_2 = f(1.5707963705);
const PI_O_4 = f(7.8539818525e-1);
const PI_LO = f(-8.7422776573e-8);

/** glibc's atanf. */
export function atanf(x: number): number {
  x = f(x);
  const hx = floatBits(x);
  const ix = hx & 0x7fffffff;
  if (ix >= 0x4c000000) {
    // |x| >= 2^25 (or NaN)
    if (ix > 0x7f800000) return x;
    return hx > 0 ? f(ATAN_HI[3] + ATAN_LO[3]) : f(-ATAN_HI[3] - ATAN_LO[3]);
  }
  let id: number;
  if (ix < 0x3ee00000) {
    // |x| < 0.4375
    if (ix < 0x31000000) return x;
    id = -1;
  } else {
    x = Math.abs(x);
    if (ix < 0x3f980000) {
      if (ix < 0x3f300000) {
        id = 0;
        x = f(f(f(2 * x) - 1) / f(2 + x));
      } else {
        id = 1;
        x = f(f(x - 1) / f(x + 1));
      }
    } else if (ix < 0x401c0000) {
      id = 2;
      x = f(f(x - 1.5) / f(1 + f(1.5 * x)));
    } else {
      id = 3;
      x = f(-1 / x);
    }
  }
  const z = f(x * x);
  const w = f(z * z);
  // The odd and even terms in two Horner chains: s1 = z (a0 + w (a2 + ... w a10)), s2 = w (a1 + w (a3 + ... w a9)).
  let p1 = AT[10];
  for (let k = 8; k >= 0; k -= 2) p1 = f(AT[k] + f(w * p1));
  let p2 = AT[9];
  for (let k = 7; k >= 1; k -= 2) p2 = f(AT[k] + f(w * p2));
  const s1 = f(z * p1);
  const s2 = f(w * p2);
  const s = f(s1 + s2);
  if (id < 0) return f(x - f(x * s));
  const r = f(ATAN_HI[id] - f(f(f(x * s) - ATAN_LO[id]) - x));
  return hx < 0 ? -r : r;
}

/** glibc's atan2f(y, x). */
export function atan2f(y: number, x: number): number {
  y = f(y);
  x = f(x);
  if (Number.isNaN(x) || Number.isNaN(y)) return f(x + y);
  const hx = floatBits(x);
  const hy = floatBits(y);
  const ix = hx & 0x7fffffff;
  const iy = hy & 0x7fffffff;
  if (hx === 0x3f800000) return atanf(y);
  const m = ((hy >>> 31) & 1) | ((hx >>> 30) & 2);
  if (iy === 0) return m < 2 ? y : m === 2 ? PI : -PI;
  if (ix === 0) return hy < 0 ? -PI_O_2 : PI_O_2;
  if (ix === 0x7f800000) {
    if (iy === 0x7f800000) return [PI_O_4, -PI_O_4, f(3 * PI_O_4), f(-3 * PI_O_4)][m];
    return [0, -0, PI, -PI][m];
  }
  if (iy === 0x7f800000) return hy < 0 ? -PI_O_2 : PI_O_2;
  const k = (iy - ix) >> 23;
  let z: number;
  if (k > 60) z = f(PI_O_2 + f(0.5 * PI_LO));
  else if (hx < 0 && k < -60) z = 0;
  else z = atanf(Math.abs(f(y / x)));
  if (m === 0) return z;
  if (m === 1) return -z;
  if (m === 2) return f(PI - f(z - PI_LO));
  return f(f(z - PI_LO) - PI);
}
