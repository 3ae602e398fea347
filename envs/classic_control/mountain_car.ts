// MountainCar (discrete actions), ported from Gymnasium's `gymnasium/envs/classic_control/mountain_car.py`.
//
// Moore (1990): an under-powered car in a valley shaped like sin(3x) must rock back and forth to reach the flag at
// x = 0.5. Actions: 0 push left, 1 no push, 2 push right. -1 per step until the goal, so returns count steps.

import { Env, type Info, type Metadata, type ResetArgs, type StepResult } from "../core.ts";
import { Box, Discrete } from "../spaces.ts";
import { type Float32Box, maybeParseResetBounds } from "./cartpole.ts";
import { Canvas, type Frame, type Point, rotate } from "./raster.ts";

export interface MountainCarKwargs {
  renderMode?: string | null;
  /** Gymnasium's `goal_velocity` (default 0): the car must also be at least this fast at the flag. */
  goalVelocity?: number;
}

/** The scene both MountainCar variants share (Gymnasium duplicates the same pygame code in each file). */
export function renderMountainCar(position: number, goalPosition: number, minPosition: number, maxPosition: number): Frame {
  const screenWidth = 600;
  const screenHeight = 400;
  const worldWidth = maxPosition - minPosition;
  const scale = screenWidth / worldWidth;
  const carwidth = 40;
  const carheight = 20;
  const height = (x: number) => Math.sin(3 * x) * 0.45 + 0.55;
  const canvas = new Canvas(screenWidth, screenHeight);

  // The hill: 100 samples joined by straight segments, like `np.linspace(min, max, 100)` + `aalines`.
  const track: Point[] = [];
  for (let i = 0; i < 100; i++) {
    const x = minPosition + ((maxPosition - minPosition) * i) / 99;
    track.push([(x - minPosition) * scale, height(x) * scale]);
  }
  canvas.polyline(track, [0, 0, 0]);

  const clearance = 10;
  const angle = Math.cos(3 * position); // Gymnasium tilts the car by cos(3x), the slope's direction, in radians
  const baseX = (position - minPosition) * scale;
  const baseY = clearance + height(position) * scale;
  const [l, r, t, b] = [-carwidth / 2, carwidth / 2, carheight, 0];
  const body: Point[] = [
    [l, b],
    [l, t],
    [r, t],
    [r, b],
  ];
  canvas.fillPolygon(
    body.map((c) => {
      const [px, py] = rotate(c, angle);
      return [px + baseX, py + baseY] as const;
    }),
    [0, 0, 0],
  );
  for (const c of [
    [carwidth / 4, 0],
    [-carwidth / 4, 0],
  ] as const) {
    const [px, py] = rotate(c, angle);
    canvas.fillCircle(Math.trunc(px + baseX), Math.trunc(py + baseY), Math.trunc(carheight / 2.5), [128, 128, 128]);
  }

  const flagx = Math.trunc((goalPosition - minPosition) * scale);
  const flagy1 = Math.trunc(height(goalPosition) * scale);
  const flagy2 = flagy1 + 50;
  canvas.vline(flagx, flagy1, flagy2, [0, 0, 0]);
  canvas.fillPolygon(
    [
      [flagx, flagy2],
      [flagx, flagy2 - 10],
      [flagx + 25, flagy2 - 5],
    ],
    [204, 204, 0],
  );

  canvas.flipVertical();
  return canvas.toFrame();
}

export class MountainCarEnv extends Env<Float32Array, number> {
  override metadata: Metadata = { renderModes: ["rgb_array"], renderFps: 30 };

  readonly minPosition = -1.2;
  readonly maxPosition = 0.6;
  readonly maxSpeed = 0.07;
  readonly goalPosition = 0.5;
  readonly goalVelocity: number;
  readonly force = 0.001;
  readonly gravity = 0.0025;

  readonly observationSpace: Float32Box;
  readonly actionSpace = new Discrete(3);

  /** (position, velocity) in float64, as `env.unwrapped.state`; Gymnasium never rounds it to float32. */
  state: Float64Array | null = null;

  constructor(kwargs: MountainCarKwargs = {}) {
    super();
    this.renderMode = kwargs.renderMode ?? null;
    this.goalVelocity = kwargs.goalVelocity ?? 0;
    this.observationSpace = new Box([this.minPosition, -this.maxSpeed], [this.maxPosition, this.maxSpeed], [2], "float32") as Float32Box;
  }

  override reset(args: ResetArgs = {}): [Float32Array, Info] {
    super.reset(args);
    const [low, high] = maybeParseResetBounds(args.options, -0.6, -0.4);
    // Only the position is random; the car always starts at rest.
    this.state = Float64Array.of(this.npRandom.uniform(low, high), 0);
    return [Float32Array.from(this.state), {}];
  }

  step(action: number): StepResult<Float32Array> {
    if (!this.actionSpace.contains(action)) throw new Error(`${String(action)} (${typeof action}) invalid`);
    if (this.state === null) throw new Error("Call reset before using step method.");
    let [position, velocity] = this.state;
    // Velocity first, then position moves by the *new* velocity (semi-implicit), both clipped.
    velocity += (action - 1) * this.force + Math.cos(3 * position) * -this.gravity;
    velocity = Math.min(Math.max(velocity, -this.maxSpeed), this.maxSpeed);
    position += velocity;
    position = Math.min(Math.max(position, this.minPosition), this.maxPosition);
    // The left wall is inelastic: hitting it kills the velocity, so the car cannot "stick" with speed into it.
    if (position === this.minPosition && velocity < 0) velocity = 0;

    const terminated = position >= this.goalPosition && velocity >= this.goalVelocity;
    const reward = -1.0;
    this.state = Float64Array.of(position, velocity);
    return [Float32Array.from(this.state), reward, terminated, false, {}];
  }

  override render(): Frame | null {
    if (this.renderMode === null) {
      console.warn("You are calling render method without specifying any render mode.");
      return null;
    }
    if (this.state === null) return null;
    return renderMountainCar(this.state[0], this.goalPosition, this.minPosition, this.maxPosition);
  }
}
