// SciPy's `ndimage.zoom(image, factor)` for a 2-D float64 image with its defaults (cubic spline, mode "constant",
// prefilter on, grid_mode off), which dm_control's quadruped escape task uses to smooth its random terrain bumps.
//
// 1. Prefilter: the image becomes cubic B-spline coefficients, one axis after the other (rows of axis 0 first):
//    each line is multiplied by the gain (1 - z)(1 - 1/z) of the cubic pole z = sqrt(3) - 2, then filtered by a
//    causal and an anticausal first-order recursion whose first values come from the mirror-symmetric extension
//    (the initial values SciPy uses for modes "constant", "nearest" and "mirror").
// 2. Output sample (i, j) sits at input coordinates (i, j) * (n_in - 1) / (n_out - 1) (grid_mode off: corners map
//    to corners). Its value is the sum over the 4 x 4 neighbouring coefficients starting at floor(coordinate) - 1,
//    indices beyond an edge mirrored back inside, of coefficient x weight along axis 0 x weight along axis 1, with
//    the cubic B-spline weights of the coordinate's fractional part (the last weight being 1 minus the others).
// The output size along each axis is round(n_in * factor).

/** The pole of the cubic B-spline prefilter, sqrt(3) - 2. */
const POLE = -0.267949192431122706472553658494127633;

function filterLine(c: Float64Array, n: number, z: number): void {
  const gain = (1 - z) * (1 - 1 / z);
  for (let i = 0; i < n; i++) c[i] *= gain;
  if (n < 2) return;
  // Causal initial value for the mirror extension.
  const zn1 = z ** (n - 1);
  let zi = z;
  c[0] = c[0] + zn1 * c[n - 1];
  for (let i = 1; i < n - 1; i++) {
    c[0] += zi * (c[i] + zn1 * c[n - 1 - i]);
    zi *= z;
  }
  c[0] /= 1 - zn1 * zn1;
  for (let i = 1; i < n; i++) c[i] += z * c[i - 1];
  // Anticausal initial value for the mirror extension.
  c[n - 1] = ((z * c[n - 2] + c[n - 1]) * z) / (z * z - 1);
  for (let i = n - 2; i >= 0; i--) c[i] = z * (c[i + 1] - c[i]);
}

/** Cubic B-spline coefficients of a row-major `rows x cols` image. */
export function splineFilter2d(image: ArrayLike<number>, rows: number, cols: number): Float64Array {
  const out = Float64Array.from(image);
  const line = new Float64Array(Math.max(rows, cols));
  for (let c = 0; c < cols; c++) {
    for (let r = 0; r < rows; r++) line[r] = out[r * cols + c];
    filterLine(line, rows, POLE);
    for (let r = 0; r < rows; r++) out[r * cols + c] = line[r];
  }
  for (let r = 0; r < rows; r++) {
    const row = out.subarray(r * cols, (r + 1) * cols);
    line.set(row);
    filterLine(line, cols, POLE);
    row.set(line.subarray(0, cols));
  }
  return out;
}

/** The four cubic B-spline weights for coordinate `x` (relative to floor(x) - 1 ... floor(x) + 2). */
function cubicWeights(x: number, out: Float64Array): void {
  const y = x - Math.floor(x);
  const z = 1.0 - y;
  out[1] = (y * y * (y - 2.0) * 3.0 + 4.0) / 6.0;
  out[2] = (z * z * (z - 2.0) * 3.0 + 4.0) / 6.0;
  out[0] = (z * z * z) / 6.0;
  out[3] = 1.0 - out[0] - out[1] - out[2];
}

function mirror(index: number, n: number): number {
  if (n <= 1) return 0;
  const period = 2 * n - 2;
  let i = index;
  if (i < 0) {
    i = period * Math.trunc(-i / period) + i;
    i = i <= 1 - n ? i + period : -i;
  } else if (i >= n) {
    i -= period * Math.trunc(i / period);
    if (i >= n) i = period - i;
  }
  return i;
}

interface AxisSamples {
  starts: Int32Array;
  weights: Float64Array[];
}

function axisSamples(nIn: number, nOut: number): AxisSamples {
  const zoom = nOut > 1 ? (nIn - 1) / (nOut - 1) : 1;
  const starts = new Int32Array(nOut);
  const weights: Float64Array[] = [];
  for (let k = 0; k < nOut; k++) {
    const x = k * zoom;
    starts[k] = Math.floor(x) - 1;
    const w = new Float64Array(4);
    cubicWeights(x, w);
    weights.push(w);
  }
  return { starts, weights };
}

/** `scipy.ndimage.zoom(image, factor)` of a row-major `rows x cols` float64 image; returns [output, rows, cols]. */
export function zoom2d(
  image: ArrayLike<number>,
  rows: number,
  cols: number,
  factor: number,
): [Float64Array, number, number] {
  const outRows = Math.round(rows * factor);
  const outCols = Math.round(cols * factor);
  const coefficients = splineFilter2d(image, rows, cols);
  const rowSamples = axisSamples(rows, outRows);
  const colSamples = axisSamples(cols, outCols);
  const out = new Float64Array(outRows * outCols);
  for (let i = 0; i < outRows; i++) {
    const r0 = rowSamples.starts[i];
    const wr = rowSamples.weights[i];
    for (let j = 0; j < outCols; j++) {
      const c0 = colSamples.starts[j];
      const wc = colSamples.weights[j];
      let t = 0;
      for (let a = 0; a < 4; a++) {
        const r = mirror(r0 + a, rows);
        for (let b = 0; b < 4; b++) t += coefficients[r * cols + mirror(c0 + b, cols)] * wr[a] * wc[b];
      }
      out[i * outCols + j] = t;
    }
  }
  return [out, outRows, outCols];
}
