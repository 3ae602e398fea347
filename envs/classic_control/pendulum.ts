// Pendulum, ported from Gymnasium's `gymnasium/envs/classic_control/pendulum.py` (v1).
//
// Swing a torque-limited pendulum up and hold it upright. theta = 0 is upright; the cost penalises the angle from
// upright, the angular velocity and the torque. There is no terminal state: episodes end only by the TimeLimit.

import { Env, type Info, type Metadata, type ResetArgs, type StepResult } from "../gymnasium/core.ts";
import { Box, type Float32Box } from "../gymnasium/spaces.ts";
import { symmetricFloat32Box, verifyNumberAndCast } from "./utils.ts";
import { Canvas, type Frame, boxPolygon, rotate } from "./raster.ts";

/** Gymnasium's default reset half-widths: theta ~ U(-pi, pi), theta_dot ~ U(-1, 1). */
export const DEFAULT_X = Math.PI;
export const DEFAULT_Y = 1.0;

export interface PendulumKwargs {
  renderMode?: string | null;
  /** Gravity (m/s^2); Gymnasium's default is 10.0, not 9.81. */
  g?: number;
}

/**
 * Maps an angle into [-pi, pi), as Gymnasium's `((x + pi) % (2 pi)) - pi`. Python's `%` takes the sign of the
 * divisor, JavaScript's takes the dividend's; this reproduces numpy's float remainder exactly (fmod, then shift).
 */
export function angleNormalize(x: number): number {
  const period = 2 * Math.PI;
  let r = (x + Math.PI) % period;
  if (r < 0) r += period;
  return r - Math.PI;
}

export class PendulumEnv extends Env<Float32Array, Float32Array> {
  override metadata: Metadata = { renderModes: ["rgb_array"], renderFps: 30 };

  readonly maxSpeed = 8;
  readonly maxTorque = 2.0;
  readonly dt = 0.05;
  readonly g: number;
  readonly m = 1.0;
  readonly l = 1.0;

  readonly observationSpace: Float32Box;
  readonly actionSpace: Float32Box;

  /** (theta, theta_dot) in float64, as `env.unwrapped.state`. theta is not wrapped: only the cost normalises it. */
  state: Float64Array | null = null;
  /** The last clipped torque, kept (as in Gymnasium) only for rendering. */
  lastU: number | null = null;

  readonly screenDim = 500;

  constructor(kwargs: PendulumKwargs = {}) {
    super();
    this.renderMode = kwargs.renderMode ?? null;
    this.g = kwargs.g ?? 10.0;
    const high = [1.0, 1.0, this.maxSpeed];
    this.actionSpace = new Box(-this.maxTorque, this.maxTorque, [1], "float32") as Float32Box;
    this.observationSpace = symmetricFloat32Box(high);
  }

  override reset(args: ResetArgs = {}): [Float32Array, Info] {
    super.reset(args);
    // Pendulum reads its own option names (`x_init`, `y_init`), symmetric around 0, not the `low`/`high` of the
    // other classic-control envs.
    let x = DEFAULT_X;
    let y = DEFAULT_Y;
    if (args.options !== undefined) {
      x = verifyNumberAndCast("x_init" in args.options ? args.options.x_init : DEFAULT_X);
      y = verifyNumberAndCast("y_init" in args.options ? args.options.y_init : DEFAULT_Y);
    }
    const rng = this.npRandom;
    this.state = Float64Array.of(rng.uniform(-x, x), rng.uniform(-y, y));
    this.lastU = null;
    return [this.getObs(), {}];
  }

  /** Accepts any array-like action; the torque is clipped to [-2, 2] before it enters both cost and dynamics. */
  step(action: ArrayLike<number>): StepResult<Float32Array> {
    if (this.state === null) throw new Error("Call reset before using step method.");
    const th = this.state[0];
    const thdot = this.state[1];
    const { g, m, l, dt } = this;

    const u = Math.min(Math.max(action[0], -this.maxTorque), this.maxTorque);
    this.lastU = u;
    // u is a float32 value, but with NumPy 1.x (Gymnasium 0.29, CleanRL's runs) every product with a Python float
    // is promoted to float64, so the whole cost and update are float64. (NumPy 2 would square u in float32; the
    // difference is below 1e-9 in the reward.)
    const normTh = angleNormalize(th);
    const costs = normTh * normTh + 0.1 * (thdot * thdot) + 0.001 * (u * u);

    // The cost is charged on the state *before* the update. Velocity is updated first and clipped to +-8, and the
    // angle then moves with the new velocity (semi-implicit Euler).
    let newthdot = thdot + (((3 * g) / (2 * l)) * Math.sin(th) + (3.0 / (m * (l * l))) * u) * dt;
    newthdot = Math.min(Math.max(newthdot, -this.maxSpeed), this.maxSpeed);
    const newth = th + newthdot * dt;

    this.state = Float64Array.of(newth, newthdot);
    return [this.getObs(), -costs, false, false, {}];
  }

  private getObs(): Float32Array {
    const [theta, thetadot] = this.state!;
    return Float32Array.of(Math.cos(theta), Math.sin(theta), thetadot);
  }

  /**
   * Gymnasium's scene: a red rod with rounded ends on a black axle, 500x500, y flipped. The clockwise-arrow image
   * Gymnasium overlays to show the torque is a PNG asset and is not drawn here.
   */
  override render(): Frame | null {
    if (this.renderMode === null) {
      console.warn("You are calling render method without specifying any render mode.");
      return null;
    }
    if (this.state === null) return null;
    const dim = this.screenDim;
    const bound = 2.2;
    const scale = dim / (bound * 2);
    const offset = Math.floor(dim / 2);
    const canvas = new Canvas(dim, dim);
    const red = [204, 77, 77] as const;

    const rodLength = 1 * scale;
    const rodWidth = 0.2 * scale;
    const angle = this.state[0] + Math.PI / 2; // theta = 0 is upright, i.e. +y on the y-up surface
    canvas.fillPolygon(boxPolygon([0, rodLength, rodWidth / 2, -rodWidth / 2], angle, [offset, offset]), red);
    canvas.fillCircle(offset, offset, rodWidth / 2, red);
    const [ex, ey] = rotate([rodLength, 0], angle);
    canvas.fillCircle(Math.trunc(ex + offset), Math.trunc(ey + offset), rodWidth / 2, red);
    canvas.fillCircle(offset, offset, 0.05 * scale, [0, 0, 0]);

    canvas.flipVertical();
    return canvas.toFrame();
  }
}
