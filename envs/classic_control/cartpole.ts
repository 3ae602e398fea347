// CartPole, ported from Gymnasium's `gymnasium/envs/classic_control/cartpole.py` (identical in 0.29 and 1.x).
//
// The cart-pole of Barto, Sutton & Anderson (1983): push a cart left or right with a fixed force to keep the pole
// on it upright. Dynamics follow Florian's corrected equations (https://coneural.org/florian/papers/05_cart_pole.pdf),
// stepped with explicit Euler every 0.02 s. CartPole-v0 / -v1 differ only in the TimeLimit (200 / 500 steps).

import { Env, type Info, type Metadata, type ResetArgs, type StepResult } from "../gymnasium/core.ts";
import { Discrete, type Float32Box } from "../gymnasium/spaces.ts";
import { Canvas, type Frame, boxPolygon, warnRenderModeNotSet } from "./raster.ts";
import { FLOAT32_MAX, maybeParseResetBounds, symmetricFloat32Box } from "./utils.ts";

export interface CartPoleKwargs {
  renderMode?: string | null;
  /**
   * Gymnasium 1.0's `sutton_barto_reward`: 0 per step and -1 on failure instead of +1 per step. Off by default, so
   * the default rewards are 0.29's (and those of CleanRL's published runs).
   */
  suttonBartoReward?: boolean;
}

export class CartPoleEnv extends Env<Float32Array, number> {
  override metadata: Metadata = { renderModes: ["rgb_array"], renderFps: 50 };

  readonly gravity = 9.8;
  readonly masscart = 1.0;
  readonly masspole = 0.1;
  readonly totalMass = this.masspole + this.masscart;
  readonly length = 0.5; // half the pole's length, as in the original C code
  readonly polemassLength = this.masspole * this.length;
  readonly forceMag = 10.0;
  readonly tau = 0.02;
  /** Gymnasium exposes the integrator as a mutable attribute; "euler" is what every registered version uses. */
  kinematicsIntegrator: "euler" | "semi-implicit euler" = "euler";

  readonly thetaThresholdRadians = (12 * 2 * Math.PI) / 360;
  readonly xThreshold = 2.4;

  readonly observationSpace: Float32Box;
  readonly actionSpace = new Discrete(2);

  /**
   * (x, x_dot, theta, theta_dot), as `env.unwrapped.state`. Gymnasium keeps it in float64 and only casts the
   * returned observation to float32, so the dynamics never see float32 rounding; assign it in tests to start
   * from a known state.
   */
  state: Float64Array | null = null;
  /** `None` until the step that terminates, then counts the (undefined-behaviour) steps taken after it. */
  stepsBeyondTerminated: number | null = null;

  readonly screenWidth = 600;
  readonly screenHeight = 400;
  private readonly suttonBartoReward: boolean;

  constructor(kwargs: CartPoleKwargs = {}) {
    super();
    this.renderMode = kwargs.renderMode ?? null;
    this.suttonBartoReward = kwargs.suttonBartoReward ?? false;
    // The angle bound is twice the failure threshold so that the observation that ends an episode is still
    // inside the space; velocities are unbounded in practice (float32 max).
    const high = [this.xThreshold * 2, FLOAT32_MAX, this.thetaThresholdRadians * 2, FLOAT32_MAX];
    this.observationSpace = symmetricFloat32Box(high);
  }

  override reset(args: ResetArgs = {}): [Float32Array, Info] {
    super.reset(args);
    const [low, high] = maybeParseResetBounds(args.options, -0.05, 0.05);
    const rng = this.npRandom;
    this.state = Float64Array.of(
      rng.uniform(low, high),
      rng.uniform(low, high),
      rng.uniform(low, high),
      rng.uniform(low, high),
    );
    this.stepsBeyondTerminated = null;
    return [Float32Array.from(this.state), {}];
  }

  step(action: number): StepResult<Float32Array> {
    if (!this.actionSpace.contains(action)) throw new Error(`${String(action)} (${typeof action}) invalid`);
    if (this.state === null) throw new Error("Call reset before using step method.");
    let [x, xDot, theta, thetaDot] = this.state;
    const force = action === 1 ? this.forceMag : -this.forceMag;
    const costheta = Math.cos(theta);
    const sintheta = Math.sin(theta);

    // Florian (2007), eqs. 23-24 with the friction terms dropped; the expression order follows Gymnasium's so the
    // float64 results agree to the last bit wherever Math.sin/cos agree with libm.
    const temp = (force + this.polemassLength * (thetaDot * thetaDot) * sintheta) / this.totalMass;
    const thetaacc =
      (this.gravity * sintheta - costheta * temp) /
      (this.length * (4.0 / 3.0 - (this.masspole * (costheta * costheta)) / this.totalMass));
    const xacc = temp - (this.polemassLength * thetaacc * costheta) / this.totalMass;

    if (this.kinematicsIntegrator === "euler") {
      // Explicit Euler: positions advance with the *old* velocities.
      x = x + this.tau * xDot;
      xDot = xDot + this.tau * xacc;
      theta = theta + this.tau * thetaDot;
      thetaDot = thetaDot + this.tau * thetaacc;
    } else {
      xDot = xDot + this.tau * xacc;
      x = x + this.tau * xDot;
      thetaDot = thetaDot + this.tau * thetaacc;
      theta = theta + this.tau * thetaDot;
    }
    this.state = Float64Array.of(x, xDot, theta, thetaDot);

    const terminated =
      x < -this.xThreshold ||
      x > this.xThreshold ||
      theta < -this.thetaThresholdRadians ||
      theta > this.thetaThresholdRadians;

    // The step that makes the pole fall still earns +1 (so an episode of n steps returns n); stepping a terminated
    // env is undefined behaviour that Gymnasium tolerates with a one-time warning and zero reward.
    let reward: number;
    if (!terminated) {
      reward = this.suttonBartoReward ? 0.0 : 1.0;
    } else if (this.stepsBeyondTerminated === null) {
      this.stepsBeyondTerminated = 0;
      reward = this.suttonBartoReward ? -1.0 : 1.0;
    } else {
      if (this.stepsBeyondTerminated === 0) {
        console.warn(
          "You are calling 'step()' even though this environment has already returned terminated = True. " +
            "You should always call 'reset()' once you receive 'terminated = True' -- any further steps are undefined behavior.",
        );
      }
      this.stepsBeyondTerminated += 1;
      reward = this.suttonBartoReward ? -1.0 : 0.0;
    }

    return [Float32Array.from(this.state), reward, terminated, false, {}];
  }

  /** Gymnasium's pygame scene: black cart on a track line, brown pole, blue-grey axle; 600x400, y flipped. */
  override render(): Frame | null {
    if (this.renderMode === null) {
      warnRenderModeNotSet(this.spec?.id ?? "CartPole-v1");
      return null;
    }
    if (this.state === null) return null;

    const worldWidth = this.xThreshold * 2;
    const scale = this.screenWidth / worldWidth;
    const polewidth = 10.0;
    const polelen = scale * (2 * this.length);
    const cartwidth = 50.0;
    const cartheight = 30.0;
    const canvas = new Canvas(this.screenWidth, this.screenHeight);

    const axleoffset = cartheight / 4.0;
    const cartx = this.state[0] * scale + this.screenWidth / 2.0;
    const carty = 100; // top of the cart, in y-up pixels
    // The cart is not rotated (angle 0 leaves every corner exactly where it is).
    canvas.fillPolygon(
      boxPolygon([-cartwidth / 2, cartwidth / 2, cartheight / 2, -cartheight / 2], 0, [cartx, carty]),
      [0, 0, 0],
    );
    // Negative angle: theta is measured clockwise from upright, pygame rotates counter-clockwise.
    const pole = boxPolygon([-polewidth / 2, polewidth / 2, polelen - polewidth / 2, -polewidth / 2], -this.state[2], [
      cartx,
      carty + axleoffset,
    ]);
    canvas.fillPolygon(pole, [202, 152, 101]);
    canvas.fillCircle(Math.trunc(cartx), Math.trunc(carty + axleoffset), Math.trunc(polewidth / 2), [129, 132, 203]);
    canvas.hline(0, this.screenWidth, carty, [0, 0, 0]);

    canvas.flipVertical();
    return canvas.toFrame();
  }
}
