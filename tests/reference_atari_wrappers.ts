// The unoptimised image path of CleanRL's Atari stack (as in commit 2578d23's envs/gymnasium/atari_wrappers.ts): MaxAndSkip
// stepping every frame with its observation and maxing byte by byte, INTER_AREA resizing straight from the float
// formulas, cv2's RGB -> gray, and FrameStack. Not a test file itself;
// atari_stack_trajectory.test.ts runs a long trajectory through this and through the real wrappers and requires
// identical observations. Being a plain reference, none of it is tuned: keep it simple, not fast.

import {
  type Env,
  type Info,
  ObservationWrapper,
  type ResetArgs,
  type StepResult,
  Wrapper,
} from "../envs/gymnasium/core.ts";
import { Box } from "../envs/gymnasium/spaces.ts";

/** SB3's MaxAndSkipEnv: `skip` full steps, the pixel-wise max of the last two observations. */
export class ReferenceMaxAndSkip extends Wrapper<Uint8Array, number> {
  private readonly buffers: [Uint8Array, Uint8Array];
  constructor(
    env: Env,
    readonly skip = 4,
  ) {
    super(env as Env<Uint8Array, number>);
    const size = (env.observationSpace as Box).size;
    this.buffers = [new Uint8Array(size), new Uint8Array(size)];
  }
  override step(action: number): StepResult<Uint8Array> {
    let total = 0;
    let terminated = false;
    let truncated = false;
    let info: Info = {};
    for (let i = 0; i < this.skip; i++) {
      let obs: Uint8Array, reward: number;
      [obs, reward, terminated, truncated, info] = this.env.step(action);
      if (i === this.skip - 2) this.buffers[0].set(obs);
      if (i === this.skip - 1) this.buffers[1].set(obs);
      total += reward;
      if (terminated || truncated) break;
    }
    const [a, b] = this.buffers;
    const out = new Uint8Array(a.length);
    for (let j = 0; j < a.length; j++) out[j] = Math.max(a[j], b[j]);
    return [out, total, terminated, truncated, info];
  }
}

/** OpenCV's area table for one axis: (destination, source, float32 weight) triples in OpenCV's order. */
function areaTable(srcSize: number, dstSize: number, scale: number): { d: number; s: number; w: number }[] {
  const table: { d: number; s: number; w: number }[] = [];
  for (let d = 0; d < dstSize; d++) {
    const start = d * scale;
    const end = start + scale;
    const cellWidth = Math.min(scale, srcSize - start);
    const last = Math.min(Math.floor(end), srcSize - 1);
    const first = Math.min(Math.ceil(start), last);
    if (first - start > 1e-3) table.push({ d, s: first - 1, w: Math.fround((first - start) / cellWidth) });
    for (let s = first; s < last; s++) table.push({ d, s, w: Math.fround(1 / cellWidth) });
    if (end - last > 1e-3)
      table.push({ d, s: last, w: Math.fround(Math.min(Math.min(end - last, 1), cellWidth) / cellWidth) });
  }
  return table;
}

/**
 * cv2.resize(INTER_AREA) for non-integer shrink ratios (resizeArea_<uchar, float>): every source row reduced
 * horizontally in float32, rows accumulated vertically in float32, then rounded half-to-even and saturated.
 */
export function referenceAreaResize(
  image: Uint8Array,
  h: number,
  w: number,
  dh: number,
  dw: number,
  cn: number,
): Uint8Array {
  const xs = areaTable(w, dw, 1 / (dw / w));
  const ys = areaTable(h, dh, 1 / (dh / h));
  const f = Math.fround;
  const reduced = (sy: number): Float32Array => {
    const row = new Float32Array(dw * cn);
    for (const { d, s, w: alpha } of xs) {
      for (let c = 0; c < cn; c++) row[d * cn + c] = f(row[d * cn + c] + f(image[(sy * w + s) * cn + c] * alpha));
    }
    return row;
  };
  const out = new Uint8ClampedArray(dh * dw * cn);
  const sum = new Float32Array(dw * cn);
  let current = -1;
  for (const { d, s, w: beta } of ys) {
    if (d !== current) {
      if (current >= 0) out.set(sum, current * dw * cn);
      sum.fill(0);
      current = d;
    }
    const row = reduced(s);
    for (let x = 0; x < dw * cn; x++) sum[x] = f(sum[x] + f(beta * row[x]));
  }
  out.set(sum, current * dw * cn);
  return new Uint8Array(out.buffer);
}

export class ReferenceResize extends ObservationWrapper<Uint8Array, number> {
  private readonly src: readonly number[];
  constructor(
    env: Env,
    readonly size: [number, number],
  ) {
    super(env as Env<Uint8Array, number>);
    this.src = (env.observationSpace as Box).shape;
    this.observationSpace = new Box(0, 255, [...size, ...this.src.slice(2)], "uint8") as typeof this.observationSpace;
  }
  observation(obs: Uint8Array): Uint8Array {
    return referenceAreaResize(obs, this.src[0], this.src[1], this.size[0], this.size[1], this.src[2] ?? 1);
  }
}

/** cv2.cvtColor(COLOR_RGB2GRAY) for uint8: OpenCV's fixed-point BT.601 weights. */
export class ReferenceGrayScale extends ObservationWrapper<Uint8Array, number> {
  constructor(env: Env) {
    super(env as Env<Uint8Array, number>);
    const [h, w] = (env.observationSpace as Box).shape;
    this.observationSpace = new Box(0, 255, [h, w], "uint8") as typeof this.observationSpace;
  }
  observation(obs: Uint8Array): Uint8Array {
    const out = new Uint8Array(obs.length / 3);
    for (let i = 0; i < out.length; i++)
      out[i] = (obs[3 * i] * 9798 + obs[3 * i + 1] * 19235 + obs[3 * i + 2] * 3735 + 16384) >> 15;
    return out;
  }
}

/** Gymnasium's FrameStack: the last `n` observations, oldest first; reset repeats the first one. */
export class ReferenceFrameStack extends Wrapper<Uint8Array, number> {
  private frames: Uint8Array[] = [];
  constructor(
    env: Env,
    readonly n: number,
  ) {
    super(env as Env<Uint8Array, number>);
  }
  override reset(args: ResetArgs = {}): [Uint8Array, Info] {
    const [obs, info] = this.env.reset(args);
    this.frames = Array.from({ length: this.n }, () => obs.slice());
    return [this.stacked(), info];
  }
  override step(action: number): StepResult<Uint8Array> {
    const result = this.env.step(action);
    this.frames = [...this.frames.slice(1), result[0].slice()];
    result[0] = this.stacked();
    return result;
  }
  private stacked(): Uint8Array {
    const out = new Uint8Array(this.n * this.frames[0].length);
    this.frames.forEach((frame, i) => out.set(frame, i * frame.length));
    return out;
  }
}
