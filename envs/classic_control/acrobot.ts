// Acrobot, ported from Gymnasium's `gymnasium/envs/classic_control/acrobot.py` (itself from RLPy).
//
// Two links hang from a fixed pivot; only the joint between them is actuated (torque -1, 0 or +1). The goal is
// to swing the tip above a line one link-length over the pivot. Dynamics are Sutton & Barto's book equations,
// integrated with one classic RK4 step of dt = 0.2 s per env step.

import { Env, type Info, type Metadata, type ResetArgs, type StepResult } from "../gymnasium/core.ts";
import { Discrete, type Float32Box } from "../gymnasium/spaces.ts";
import { maybeParseResetBounds, symmetricFloat32Box } from "./utils.ts";
import { Canvas, type Frame, type Point, boxPolygon } from "./raster.ts";

export interface AcrobotKwargs {
  renderMode?: string | null;
}

export class AcrobotEnv extends Env<Float32Array, number> {
  override metadata: Metadata = { renderModes: ["rgb_array"], renderFps: 15 };

  readonly dt = 0.2;
  static readonly LINK_LENGTH_1 = 1.0;
  static readonly LINK_LENGTH_2 = 1.0;
  static readonly LINK_MASS_1 = 1.0;
  static readonly LINK_MASS_2 = 1.0;
  static readonly LINK_COM_POS_1 = 0.5;
  static readonly LINK_COM_POS_2 = 0.5;
  static readonly LINK_MOI = 1.0;
  static readonly MAX_VEL_1 = 4 * Math.PI;
  static readonly MAX_VEL_2 = 9 * Math.PI;
  static readonly AVAIL_TORQUE: readonly number[] = [-1.0, 0.0, +1];
  static readonly SCREEN_DIM = 500;

  /** Gymnasium's class attributes, mutable on an instance exactly like `env.unwrapped.book_or_nips = "nips"`. */
  torqueNoiseMax = 0.0;
  bookOrNips: "book" | "nips" = "book";

  readonly observationSpace: Float32Box;
  readonly actionSpace = new Discrete(3);

  /** (theta1, theta2, dtheta1, dtheta2) in float64, as `env.unwrapped.state`; theta2 is relative to link 1. */
  state: Float64Array | null = null;

  constructor(kwargs: AcrobotKwargs = {}) {
    super();
    this.renderMode = kwargs.renderMode ?? null;
    const high = [1.0, 1.0, 1.0, 1.0, AcrobotEnv.MAX_VEL_1, AcrobotEnv.MAX_VEL_2];
    this.observationSpace = symmetricFloat32Box(high);
  }

  override reset(args: ResetArgs = {}): [Float32Array, Info] {
    super.reset(args);
    const [low, high] = maybeParseResetBounds(args.options, -0.1, 0.1);
    const rng = this.npRandom;
    // Gymnasium casts the reset state with `.astype(np.float32)` (then steps in float64 because `np.append` with a
    // Python float upcasts), so the initial state carries float32 rounding and later states do not.
    this.state = Float64Array.of(
      rng.uniform(low, high),
      rng.uniform(low, high),
      rng.uniform(low, high),
      rng.uniform(low, high),
    ).map(Math.fround);
    return [this.getOb(), {}];
  }

  step(action: number): StepResult<Float32Array> {
    // Gymnasium indexes AVAIL_TORQUE without a check; an out-of-range index must not silently become NaN here.
    if (!this.actionSpace.contains(action)) throw new Error(`${String(action)} (${typeof action}) invalid`);
    const s = this.state;
    if (s === null) throw new Error("Call reset before using AcrobotEnv object.");
    let torque = AcrobotEnv.AVAIL_TORQUE[action];
    if (this.torqueNoiseMax > 0) torque += this.npRandom.uniform(-this.torqueNoiseMax, this.torqueNoiseMax);

    // The torque rides along as a fifth state component whose derivative is 0, as in Gymnasium's `s_augmented`.
    const sAugmented = Float64Array.of(s[0], s[1], s[2], s[3], torque);
    const ns = rk4((y) => this.dsdt(y), sAugmented, [0, this.dt]);

    ns[0] = wrap(ns[0], -Math.PI, Math.PI);
    ns[1] = wrap(ns[1], -Math.PI, Math.PI);
    ns[2] = bound(ns[2], -AcrobotEnv.MAX_VEL_1, AcrobotEnv.MAX_VEL_1);
    ns[3] = bound(ns[3], -AcrobotEnv.MAX_VEL_2, AcrobotEnv.MAX_VEL_2);
    this.state = ns;
    const terminated = this.terminal();
    // Only steps that do not reach the goal cost -1, so the return is minus the number of steps to the goal.
    const reward = !terminated ? -1.0 : 0.0;
    return [this.getOb(), reward, terminated, false, {}];
  }

  private getOb(): Float32Array {
    const s = this.state!;
    return Float32Array.of(Math.cos(s[0]), Math.sin(s[0]), Math.cos(s[1]), Math.sin(s[1]), s[2], s[3]);
  }

  /** The tip is higher than one link length above the pivot (angles measured from hanging straight down). */
  private terminal(): boolean {
    const s = this.state!;
    return -Math.cos(s[0]) - Math.cos(s[1] + s[0]) > 1.0;
  }

  /**
   * Time derivative of (theta1, theta2, dtheta1, dtheta2, torque). Transcribed term by term, keeping Gymnasium's
   * operation order so float64 results match.
   */
  dsdt(sAugmented: Float64Array): Float64Array {
    const m1 = AcrobotEnv.LINK_MASS_1;
    const m2 = AcrobotEnv.LINK_MASS_2;
    const l1 = AcrobotEnv.LINK_LENGTH_1;
    const lc1 = AcrobotEnv.LINK_COM_POS_1;
    const lc2 = AcrobotEnv.LINK_COM_POS_2;
    const I1 = AcrobotEnv.LINK_MOI;
    const I2 = AcrobotEnv.LINK_MOI;
    const g = 9.8;
    const a = sAugmented[4];
    const theta1 = sAugmented[0];
    const theta2 = sAugmented[1];
    const dtheta1 = sAugmented[2];
    const dtheta2 = sAugmented[3];
    const d1 = m1 * (lc1 * lc1) + m2 * (l1 * l1 + lc2 * lc2 + 2 * l1 * lc2 * Math.cos(theta2)) + I1 + I2;
    const d2 = m2 * (lc2 * lc2 + l1 * lc2 * Math.cos(theta2)) + I2;
    const phi2 = m2 * lc2 * g * Math.cos(theta1 + theta2 - Math.PI / 2.0);
    const phi1 =
      -m2 * l1 * lc2 * (dtheta2 * dtheta2) * Math.sin(theta2) -
      2 * m2 * l1 * lc2 * dtheta2 * dtheta1 * Math.sin(theta2) +
      (m1 * lc1 + m2 * l1) * g * Math.cos(theta1 - Math.PI / 2) +
      phi2;
    let ddtheta2: number;
    if (this.bookOrNips === "nips") {
      // The NIPS paper's equation, which omits the dtheta1^2 coupling term.
      ddtheta2 = (a + (d2 / d1) * phi1 - phi2) / (m2 * (lc2 * lc2) + I2 - (d2 * d2) / d1);
    } else {
      // The book's (and the Java implementation's) equation; Sutton confirmed the published results used it.
      ddtheta2 =
        (a + (d2 / d1) * phi1 - m2 * l1 * lc2 * (dtheta1 * dtheta1) * Math.sin(theta2) - phi2) /
        (m2 * (lc2 * lc2) + I2 - (d2 * d2) / d1);
    }
    const ddtheta1 = -(d2 * ddtheta2 + phi1) / d1;
    return Float64Array.of(dtheta1, dtheta2, ddtheta1, ddtheta2, 0.0);
  }

  /** Gymnasium's scene: two cyan links with yellow joints and the black goal line; 500x500, y flipped. */
  override render(): Frame | null {
    if (this.renderMode === null) {
      console.warn("You are calling render method without specifying any render mode.");
      return null;
    }
    const s = this.state;
    if (s === null) return null;
    const dim = AcrobotEnv.SCREEN_DIM;
    const L1 = AcrobotEnv.LINK_LENGTH_1;
    const L2 = AcrobotEnv.LINK_LENGTH_2;
    const boundary = L1 + L2 + 0.2;
    const scale = dim / (boundary * 2);
    const offset = dim / 2;
    const canvas = new Canvas(dim, dim);

    const p1: Point = [-L1 * Math.cos(s[0]) * scale, L1 * Math.sin(s[0]) * scale];
    const p2: Point = [p1[0] - L2 * Math.cos(s[0] + s[1]) * scale, p1[1] + L2 * Math.sin(s[0] + s[1]) * scale];
    // Gymnasium swaps each point's coordinates (`[:, ::-1]`) so that "down" in the physics is -y on screen.
    const xys: Point[] = [
      [0, 0],
      [p1[1], p1[0]],
      [p2[1], p2[0]],
    ];
    const thetas = [s[0] - Math.PI / 2, s[0] + s[1] - Math.PI / 2];
    const linkLengths = [L1 * scale, L2 * scale];

    canvas.line([-2.2 * scale + offset, 1 * scale + offset], [2.2 * scale + offset, 1 * scale + offset], [0, 0, 0]);
    for (let i = 0; i < 2; i++) {
      const x = xys[i][0] + offset;
      const y = xys[i][1] + offset;
      canvas.fillPolygon(boxPolygon([0, linkLengths[i], 0.1 * scale, -0.1 * scale], thetas[i], [x, y]), [0, 204, 204]);
      canvas.fillCircle(x, y, 0.1 * scale, [204, 204, 0]);
    }
    canvas.flipVertical();
    return canvas.toFrame();
  }
}

/** Wraps `x` into [m, M] by whole periods (M - m), as Gymnasium's `wrap` (a loop, not a modulo). */
export function wrap(x: number, m: number, M: number): number {
  const diff = M - m;
  while (x > M) x = x - diff;
  while (x < m) x = x + diff;
  return x;
}

/** Clamps `x` into [m, M], as Gymnasium's `bound`. */
export function bound(x: number, m: number, M: number): number {
  return Math.min(Math.max(x, m), M);
}

/**
 * Classic fourth-order Runge-Kutta over the sample times `t`, returning the state at the last time with the
 * augmented torque component dropped, exactly what Gymnasium's `rk4` returns for Acrobot.
 */
export function rk4(derivs: (y: Float64Array) => Float64Array, y0: Float64Array, t: readonly number[]): Float64Array {
  const n = y0.length;
  let y = Float64Array.from(y0);
  const tmp = new Float64Array(n);
  for (let i = 0; i < t.length - 1; i++) {
    const dt = t[i + 1] - t[i];
    const dt2 = dt / 2.0;
    const k1 = derivs(y);
    for (let j = 0; j < n; j++) tmp[j] = y[j] + dt2 * k1[j];
    const k2 = derivs(tmp);
    for (let j = 0; j < n; j++) tmp[j] = y[j] + dt2 * k2[j];
    const k3 = derivs(tmp);
    for (let j = 0; j < n; j++) tmp[j] = y[j] + dt * k3[j];
    const k4 = derivs(tmp);
    const next = new Float64Array(n);
    // numpy evaluates `y0 + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)` left to right; same here.
    for (let j = 0; j < n; j++) next[j] = y[j] + (dt / 6.0) * (k1[j] + 2 * k2[j] + 2 * k3[j] + k4[j]);
    y = next;
  }
  return y.slice(0, 4);
}
