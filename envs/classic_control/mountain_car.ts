// MountainCar (discrete actions), ported from Gymnasium's `gymnasium/envs/classic_control/mountain_car.py`.
//
// Moore (1990): an under-powered car in a valley shaped like sin(3x) must rock back and forth to reach the flag at
// x = 0.5. Actions: 0 push left, 1 no push, 2 push right. -1 per step until the goal, so returns count steps.

import { Env, type Info, type Metadata, type ResetArgs, type StepResult } from "../gymnasium/core.ts";
import type { NumpyGenerator } from "../torch/rng.ts";
import { Box, Discrete, type Float32Box } from "../gymnasium/spaces.ts";
import { maybeParseResetBounds } from "./utils.ts";
import { Canvas, type Frame, type Point, boxPolygon, rotate } from "./raster.ts";

export interface MountainCarKwargs {
  renderMode?: string | null;
  /** Gymnasium's `goal_velocity` (default 0): the car must also be at least this fast at the flag. */
  goalVelocity?: number;
}

/**
 * The initial state both MountainCar variants reset to: position ~ U(-0.6, -0.4) (or the `low` / `high` reset
 * options) and velocity 0, since the car always starts at rest.
 */
export function mountainCarStartState(rng: NumpyGenerator, options: Record<string, unknown> | undefined): Float64Array {
  const [low, high] = maybeParseResetBounds(options, -0.6, -0.4);
  return Float64Array.of(rng.uniform(low, high), 0);
}

/** What `renderMountainCar` reads from either MountainCar variant. */
export interface MountainCarScene {
  readonly renderMode: string | null;
  /** (position, velocity), or null before the first reset. */
  readonly state: Float64Array | null;
  readonly goalPosition: number;
  readonly minPosition: number;
  readonly maxPosition: number;
}

/**
 * `render()` of both MountainCar variants (Gymnasium duplicates the same pygame code in each file): a warning and
 * null without a render mode, null before the first reset, else the valley, the car and the flag.
 */
export function renderMountainCar(env: MountainCarScene): Frame | null {
  if (env.renderMode === null) {
    console.warn("You are calling render method without specifying any render mode.");
    return null;
  }
  if (env.state === null) return null;
  const position = env.state[0];
  const { goalPosition, minPosition, maxPosition } = env;
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
  canvas.fillPolygon(boxPolygon([-carwidth / 2, carwidth / 2, carheight, 0], angle, [baseX, baseY]), [0, 0, 0]);
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
    this.observationSpace = new Box(
      [this.minPosition, -this.maxSpeed],
      [this.maxPosition, this.maxSpeed],
      [2],
      "float32",
    ) as Float32Box;
  }

  override reset(args: ResetArgs = {}): [Float32Array, Info] {
    super.reset(args);
    this.state = mountainCarStartState(this.npRandom, args.options);
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
    return renderMountainCar(this);
  }
}
