// SuperSuit 3.4.0's wrappers as CleanRL's `ppo_pettingzoo_ma_atari.py` chains them (PettingZoo notes 3.1-3.4):
//
//   env = atari.parallelEnv("pong_v3")
//   env = maxObservation(env, 2)        // max_observation_v0: element-wise max of the last 2 raw frames, per agent
//   env = frameSkip(env, 4)             // frame_skip_v0: 4 frames per step, rewards summed, early stop when all done
//   env = clipReward(env, -1, 1)        // clip_reward_v0
//   env = colorReduction(env, "B")      // color_reduction_v0: keep the blue channel (not luminance)
//   env = resize(env, 84, 84)           // resize_v1: TinyScaler's float32 bilinear, bit-exact
//   env = frameStack(env, 4)            // frame_stack_v1: zero-filled at reset, newest frame last
//   env = agentIndicator(env)           // agent_indicator_v0(type_only=False): one 0/1 channel per agent (3.4.0: 1)
//   game = pettingzooEnvToVecEnv(env)   // pettingzoo_env_to_vec_env_v1: one slot per agent
//   envs = concatVecEnvs(vector of games) // concat_vec_envs_v1: games side by side, slots 2c and 2c+1 for game c
//
// Per-agent wrappers keep separate state per agent, as SuperSuit's do (every agent gets the same frames here, so
// the states coincide, but the semantics stay those of the original).
//
// Speed without changing a byte of the results (benchmark/pettingzoo_throughput.ts): frame_skip takes its inner
// steps through `stepDeferred` (parallel.ts), so the raw env converts to RGB, and max_observation maxes, only the
// frames that are read (the last two of each skip; the two before an early episode end). Every frame is still drawn:
// which ones will be read is only known after the episode ends or not, and SuperSuit's max buffer runs across agent
// steps, so an unrendered frame could be needed. And where several agents are handed the very same input array (the
// raw env gives all agents one screen), a wrapper whose output depends only on that input and on state the agents
// share computes it once and hands each of them the same array, as the raw env does. No wrapper writes into an array
// it received or returned, so sharing one is safe.

import { Env, type Info, type ResetArgs, type StepResult } from "../gymnasium/core.ts";
import { Box, Discrete, MultiDiscrete, type Space } from "../gymnasium/spaces.ts";
import type { AsyncVectorEnv } from "../gymnasium/async_vector.ts";
import { LITTLE_ENDIAN } from "../ale/palette.ts";
import { maxInto } from "../gymnasium/atari_wrappers.ts";
import type { SyncVectorEnv, VectorInfo } from "../gymnasium/vector.ts";
import type { AgentDict, DeferredStepResult, ParallelEnv, ParallelStepResult } from "./parallel.ts";

type ObsArray = Uint8Array;

/** Forwards everything to the wrapped parallel env; subclasses override what they change. */
export class BaseParallelWrapper implements ParallelEnv<ObsArray, number> {
  constructor(readonly env: ParallelEnv<ObsArray, number>) {}
  get possibleAgents(): string[] {
    return this.env.possibleAgents;
  }
  get agents(): string[] {
    return this.env.agents;
  }
  set agents(agents: string[]) {
    this.env.agents = agents;
  }
  get metadata() {
    return this.env.metadata;
  }
  get renderMode(): string | null {
    return this.env.renderMode;
  }
  observationSpace(agent: string): Space {
    return this.env.observationSpace(agent);
  }
  actionSpace(agent: string): Space {
    return this.env.actionSpace(agent);
  }
  reset(
    args: { seed?: number; options?: Record<string, unknown> } = {},
  ): [AgentDict<ObsArray>, AgentDict<Record<string, unknown>>] {
    return this.env.reset(args);
  }
  step(actions: AgentDict<number>): ParallelStepResult<ObsArray> {
    return this.env.step(actions);
  }
  render(): unknown {
    return this.env.render();
  }
  close(): void {
    this.env.close();
  }
}

/**
 * A wrapper that maps each agent's observation on its own (`observation(agent, obs, isReset)`). A `pure` wrapper's
 * result depends on the input array alone: agents handed the same array in one call get the same result array.
 */
abstract class PerAgentObservationWrapper extends BaseParallelWrapper {
  protected abstract observation(agent: string, obs: ObsArray, isReset: boolean): ObsArray;
  protected readonly pure: boolean = false;
  override reset(
    args: { seed?: number; options?: Record<string, unknown> } = {},
  ): [AgentDict<ObsArray>, AgentDict<Record<string, unknown>>] {
    const [observations, infos] = this.env.reset(args);
    return [this.mapAll(observations, true), infos];
  }
  override step(actions: AgentDict<number>): ParallelStepResult<ObsArray> {
    const [observations, rewards, terminations, truncations, infos] = this.env.step(actions);
    return [this.mapAll(observations, false), rewards, terminations, truncations, infos];
  }
  /** Called before each batch of `observation` calls (one reset or step). */
  protected startBatch(): void {}
  private mapAll(observations: AgentDict<ObsArray>, isReset: boolean): AgentDict<ObsArray> {
    this.startBatch();
    const out: AgentDict<ObsArray> = {};
    let lastIn: ObsArray | null = null;
    let lastOut: ObsArray | null = null;
    for (const agent in observations) {
      const obs = observations[agent];
      if (this.pure && obs === lastIn) {
        out[agent] = lastOut!;
        continue;
      }
      lastIn = obs;
      lastOut = out[agent] = this.observation(agent, obs, isReset);
    }
    return out;
  }
}

/**
 * The internal `stepDeferred` of an env (parallel.ts), or its `step` wrapped to look like one for an env without it
 * (then every observation is built, exactly as before; such an env may reuse its arrays, so a caller keeping them
 * past its next step must check for `env.stepDeferred` itself, as max_observation does).
 */
function stepDeferred(env: ParallelEnv<ObsArray, number>, actions: AgentDict<number>): DeferredStepResult<ObsArray> {
  if (env.stepDeferred !== undefined) return env.stepDeferred(actions);
  const [observations, rewards, terminations, truncations, infos] = env.step(actions);
  const thunks: AgentDict<() => ObsArray> = {};
  for (const agent in observations) {
    const obs = observations[agent];
    thunks[agent] = () => obs;
  }
  return [thunks, rewards, terminations, truncations, infos];
}

/** A uint8 Box of `shape`, the space every wrapper here produces. */
function byteBox(shape: number[]): Box {
  return new Box(0, 255, shape, "uint8");
}

/** The shape of a Box space (what the image wrappers need to know of their input). */
function boxShape(space: Space, who: string): readonly number[] {
  if (!(space instanceof Box)) throw new TypeError(`${who}: needs a Box observation space, got ${space}`);
  return space.shape;
}

/** One buffered frame of max_observation: a copy taken at once, or a deferred observation built on first use. */
class BufferedFrame {
  private value: ObsArray | null;
  constructor(
    value: ObsArray | null,
    private readonly build: (() => ObsArray) | null = null,
  ) {
    this.value = value;
  }
  get(): ObsArray {
    return (this.value ??= this.build!());
  }
}

/**
 * max_observation_v0(env, memory): each agent's observation is the element-wise maximum of its last `memory` raw
 * observations (copies); a reset empties the buffer and pushes the reset frame.
 *
 * `stepDeferred` (for frame_skip) buffers the inner env's deferred observations and defers the max as well: under
 * frame_skip(4) only the max of frames 3 and 4 is ever computed, and only their screens are built. Agents whose
 * buffers hold the same frames (all of them, with the raw env's one shared screen) share one max.
 */
export class MaxObservation extends BaseParallelWrapper {
  private readonly buffers = new Map<string, BufferedFrame[]>();
  /** The frames and result of the last max computed (agents with the same frames get the same array). */
  private lastFrames: ObsArray[] = [];
  private lastMax: ObsArray | null = null;
  constructor(
    env: ParallelEnv<ObsArray, number>,
    readonly memory = 2,
  ) {
    super(env);
  }
  override reset(
    args: { seed?: number; options?: Record<string, unknown> } = {},
  ): [AgentDict<ObsArray>, AgentDict<Record<string, unknown>>] {
    this.lastMax = null;
    const [observations, infos] = this.env.reset(args);
    return [this.pushCopies(observations, true), infos];
  }
  override step(actions: AgentDict<number>): ParallelStepResult<ObsArray> {
    this.lastMax = null;
    const [observations, rewards, terminations, truncations, infos] = this.env.step(actions);
    return [this.pushCopies(observations, false), rewards, terminations, truncations, infos];
  }
  stepDeferred(actions: AgentDict<number>): DeferredStepResult<ObsArray> {
    if (this.env.stepDeferred === undefined) {
      // An inner env without it may reuse its arrays: the eager step copies them.
      const [observations, rewards, terminations, truncations, infos] = this.step(actions);
      const out: AgentDict<() => ObsArray> = {};
      for (const agent in observations) out[agent] = () => observations[agent];
      return [out, rewards, terminations, truncations, infos];
    }
    this.lastMax = null;
    const [observations, rewards, terminations, truncations, infos] = this.env.stepDeferred(actions);
    const out: AgentDict<() => ObsArray> = {};
    for (const agent in observations) {
      // Deferred observations are never written to by the env, so they need no copy.
      const frames = this.push(agent, new BufferedFrame(null, observations[agent]), false);
      out[agent] = () => this.maxOf(frames);
    }
    return [out, rewards, terminations, truncations, infos];
  }
  /** The eager path: copy each agent's frame (one copy for agents handed the same array) and max at once. */
  private pushCopies(observations: AgentDict<ObsArray>, isReset: boolean): AgentDict<ObsArray> {
    const out: AgentDict<ObsArray> = {};
    let lastIn: ObsArray | null = null;
    let lastCopy: BufferedFrame | null = null;
    for (const agent in observations) {
      const obs = observations[agent];
      if (obs !== lastIn) {
        lastIn = obs;
        lastCopy = new BufferedFrame(obs.slice());
      }
      out[agent] = this.maxOf(this.push(agent, lastCopy!, isReset));
    }
    return out;
  }
  /** Appends a frame to the agent's buffer; returns the buffer's frames now (a snapshot, oldest first). */
  private push(agent: string, frame: BufferedFrame, isReset: boolean): BufferedFrame[] {
    let buffer = this.buffers.get(agent);
    if (buffer === undefined || isReset) {
      buffer = [];
      this.buffers.set(agent, buffer);
    }
    buffer.push(frame);
    if (buffer.length > this.memory) buffer.shift();
    return buffer.slice();
  }
  private maxOf(buffered: BufferedFrame[]): ObsArray {
    const frames = buffered.map((f) => f.get());
    const last = this.lastFrames;
    if (this.lastMax !== null && frames.length === last.length && frames.every((f, i) => f === last[i]))
      return this.lastMax;
    const out = frames[0].slice();
    for (let b = 1; b < frames.length; b++) maxInto(out, frames[b]);
    this.lastFrames = frames;
    this.lastMax = out;
    return out;
  }
}

/**
 * frame_skip_v0(env, n) on a parallel env: the same actions for n inner steps, stopping early once every agent is
 * done (terminated or truncated); rewards summed per agent; observations, done flags and infos of the last step.
 */
export class FrameSkip extends BaseParallelWrapper {
  constructor(
    env: ParallelEnv<ObsArray, number>,
    readonly numFrames = 4,
  ) {
    super(env);
    if (!(Number.isInteger(numFrames) && numFrames >= 1))
      throw new RangeError(`frame_skip: need a positive integer, got ${numFrames}`);
  }
  /**
   * The inner steps go through `stepDeferred`: only the observations of the step that ends the skip are built (and,
   * below max_observation, those of the step before it).
   */
  override step(actions: AgentDict<number>): ParallelStepResult<ObsArray> {
    // Per agent, the sum of its rewards and its last inner step's results: an agent removed before the last inner
    // step keeps its final observation and done flags (frame_skip_par's total_* dicts).
    const total: AgentDict<number> = {};
    const lastObs: AgentDict<() => ObsArray> = {};
    const allTerminations: AgentDict<boolean> = {};
    const allTruncations: AgentDict<boolean> = {};
    const allInfos: AgentDict<Record<string, unknown>> = {};
    for (let i = 0; ; i++) {
      const [deferred, rewards, terminations, truncations, infos] = stepDeferred(this.env, actions);
      let allDone = true;
      for (const agent in rewards) {
        total[agent] = (total[agent] ?? 0) + rewards[agent];
        allTerminations[agent] = terminations[agent];
        allTruncations[agent] = truncations[agent];
        allInfos[agent] = infos[agent];
        if (deferred[agent] !== undefined) lastObs[agent] = deferred[agent];
        if (!(terminations[agent] || truncations[agent])) allDone = false;
      }
      if (allDone || i === this.numFrames - 1) {
        const observations: AgentDict<ObsArray> = {};
        for (const agent in lastObs) observations[agent] = lastObs[agent]();
        return [observations, total, allTerminations, allTruncations, allInfos];
      }
    }
  }
}

/** clip_reward_v0(env, lower, upper): each agent's (frame-skipped) reward clamped to [lower, upper]. */
export class ClipReward extends BaseParallelWrapper {
  constructor(
    env: ParallelEnv<ObsArray, number>,
    readonly lower = -1,
    readonly upper = 1,
  ) {
    super(env);
  }
  override step(actions: AgentDict<number>): ParallelStepResult<ObsArray> {
    const [observations, rewards, terminations, truncations, infos] = this.env.step(actions);
    const clipped: AgentDict<number> = {};
    for (const agent in rewards) clipped[agent] = Math.min(this.upper, Math.max(this.lower, rewards[agent]));
    return [observations, clipped, terminations, truncations, infos];
  }
}

/** color_reduction_v0(env, mode): "R", "G" or "B" keeps that channel of an RGB image; "full" is luminance (not ported). */
export class ColorReduction extends PerAgentObservationWrapper {
  protected override readonly pure = true;
  private readonly channel: number;
  private readonly space: Box;
  constructor(env: ParallelEnv<ObsArray, number>, mode: "R" | "G" | "B" | "full" = "full") {
    super(env);
    const channel = (["R", "G", "B"] as const).indexOf(mode as "R");
    if (channel < 0) throw new Error(`color_reduction: mode ${mode} is not ported (R, G or B)`);
    this.channel = channel;
    const shape = boxShape(env.observationSpace(env.possibleAgents[0]), "color_reduction");
    if (shape.length !== 3 || shape[2] !== 3)
      throw new Error(`color_reduction: needs (H, W, 3) images, got (${shape.join(", ")})`);
    this.space = byteBox([shape[0], shape[1]]);
  }
  override observationSpace(): Space {
    return this.space;
  }
  protected observation(_agent: string, obs: ObsArray): ObsArray {
    return pickChannel(obs, this.channel);
  }
}

/** Channel `channel` of an interleaved 3-channel image. */
export function pickChannel(rgb: Uint8Array, channel: number): Uint8Array {
  const n = rgb.length / 3;
  const out = new Uint8Array(n);
  let start = 0;
  if (LITTLE_ENDIAN && rgb.byteOffset % 4 === 0) {
    // Four pixels are three 32-bit words in, one out: byte m of the 12 sits in word m >> 2 at bit 8 * (m & 3).
    const words = n >>> 2;
    const src = new Uint32Array(rgb.buffer, rgb.byteOffset, words * 3);
    const dst = new Uint32Array(out.buffer, 0, words);
    const [m0, m1, m2, m3] = [channel, channel + 3, channel + 6, channel + 9];
    const [w0, w1, w2, w3] = [m0 >> 2, m1 >> 2, m2 >> 2, m3 >> 2];
    const [s0, s1, s2, s3] = [8 * (m0 & 3), 8 * (m1 & 3), 8 * (m2 & 3), 8 * (m3 & 3)];
    for (let i = 0, k = 0; i < words; i++, k += 3) {
      dst[i] =
        ((src[k + w0] >>> s0) & 0xff) |
        (((src[k + w1] >>> s1) & 0xff) << 8) |
        (((src[k + w2] >>> s2) & 0xff) << 16) |
        (((src[k + w3] >>> s3) & 0xff) << 24);
    }
    start = words << 2;
  }
  for (let i = start, j = 3 * start + channel; i < n; i++, j += 3) out[i] = rgb[j];
  return out;
}

const f32 = Math.fround;
/** float32(1/255), TinyScaler's byte-to-float factor. */
const INV_255 = f32(1 / 255);

/**
 * TinyScaler's bilinear scaling of an H x W single-channel byte image to h x w, bit-exact (notes 3.3): every
 * arithmetic step in float32 (Math.fround after each operation, no fused multiply-add), vertical interpolation
 * first, and the result truncated to a byte. `out` receives h * w bytes.
 */
export function tinyScalerBilinear(
  src: Uint8Array,
  H: number,
  W: number,
  h: number,
  w: number,
  out = new Uint8Array(h * w),
): Uint8Array {
  const rows = samplePoints(H, h);
  const cols = samplePoints(W, w);
  const value = BYTE_TO_UNIT;
  for (let j = 0; j < h; j++) {
    const top = rows.index[j] * W;
    const bottom = top + W;
    const fy = rows.frac[j];
    const gy = rows.rest[j];
    for (let i = 0; i < w; i++) {
      const x0 = cols.index[i];
      const fx = cols.frac[i];
      const gx = cols.rest[i];
      const left = f32(f32(value[src[top + x0]] * gy) + f32(value[src[bottom + x0]] * fy));
      const right = f32(f32(value[src[top + x0 + 1]] * gy) + f32(value[src[bottom + x0 + 1]] * fy));
      const v = f32(f32(left * gx) + f32(right * fx));
      out[j * w + i] = Math.trunc(f32(v * 255));
    }
  }
  return out;
}

/** Each byte as TinyScaler's float32 `byte * float32(1/255)` (a Float32Array holds exactly the float32 values). */
const BYTE_TO_UNIT = Float32Array.from({ length: 256 }, (_, v) => f32(v * INV_255));

/** TinyScaler's sample points along one axis of `size` pixels scaled to `n`: floor index, fraction, 1 - fraction. */
interface SamplePoints {
  index: Int32Array;
  frac: Float32Array;
  rest: Float32Array;
}
const samplePointCache = new Map<string, SamplePoints>();

/** The sample points for `size` -> `n` (the same float32 steps as the per-pixel formula, computed once per size). */
function samplePoints(size: number, n: number): SamplePoints {
  const key = `${size}:${n}`;
  let points = samplePointCache.get(key);
  if (points === undefined) {
    const ratio = f32(f32(size - 1) / f32(n));
    points = { index: new Int32Array(n), frac: new Float32Array(n), rest: new Float32Array(n) };
    for (let k = 0; k < n; k++) {
      const s = f32(f32(k + 0.5) * ratio);
      const s0 = Math.trunc(s);
      points.index[k] = s0;
      points.frac[k] = f32(s - s0);
      points.rest[k] = f32(1 - f32(s - s0));
    }
    samplePointCache.set(key, points);
  }
  return points;
}

/** resize_v1(env, x_size, y_size) with linear interpolation (TinyScaler "bilinear"), for 2-D (grey) images. */
export class Resize extends PerAgentObservationWrapper {
  protected override readonly pure = true;
  private readonly space: Box;
  private readonly inH: number;
  private readonly inW: number;
  constructor(
    env: ParallelEnv<ObsArray, number>,
    readonly xSize: number,
    readonly ySize: number,
  ) {
    super(env);
    const shape = boxShape(env.observationSpace(env.possibleAgents[0]), "resize");
    if (shape.length !== 2)
      throw new Error(`resize: only single-channel (H, W) images are ported, got (${shape.join(", ")})`);
    [this.inH, this.inW] = shape;
    this.space = byteBox([ySize, xSize]);
  }
  override observationSpace(): Space {
    return this.space;
  }
  protected observation(_agent: string, obs: ObsArray): ObsArray {
    return tinyScalerBilinear(obs, this.inH, this.inW, this.ySize, this.xSize);
  }
}

/**
 * frame_stack_v1(env, n) for 2-D images: each agent's observation is (H, W, n), the newest frame last; a reset
 * fills the stack with zeros and then pushes the reset frame.
 */
export class FrameStack extends PerAgentObservationWrapper {
  /** Each agent's stack; never written once stored, so agents with the same history share one. */
  private readonly stacks = new Map<string, Uint8Array>();
  private readonly space: Box;
  private readonly pixels: number;
  /** The last (stack, frame) -> (new stack, observation) of this batch: agents with the same pair share the result. */
  private memo: { stack: Uint8Array | null; frame: ObsArray; next: Uint8Array; out: ObsArray } | null = null;
  constructor(
    env: ParallelEnv<ObsArray, number>,
    readonly stackSize = 4,
  ) {
    super(env);
    const shape = boxShape(env.observationSpace(env.possibleAgents[0]), "frame_stack");
    if (shape.length !== 2) throw new Error(`frame_stack: only (H, W) images are ported, got (${shape.join(", ")})`);
    this.pixels = shape[0] * shape[1];
    this.space = byteBox([shape[0], shape[1], stackSize]);
  }
  override observationSpace(): Space {
    return this.space;
  }
  protected override startBatch(): void {
    this.memo = null;
  }
  protected observation(agent: string, frame: ObsArray, isReset: boolean): ObsArray {
    const n = this.stackSize;
    // null: the zero-filled stack a reset starts from.
    const stack = isReset ? null : (this.stacks.get(agent) ?? null);
    const memo = this.memo;
    if (memo !== null && memo.stack === stack && memo.frame === frame) {
      this.stacks.set(agent, memo.next);
      return memo.out;
    }
    // Channels move one toward index 0 (pixel p's channels c + 1 -> c is the whole array shifted by one byte, the
    // last pixel's channel n - 1 then overwritten); the new frame goes to channel n - 1.
    const next = new Uint8Array(this.pixels * n);
    if (stack !== null) next.set(stack.subarray(1));
    for (let p = 0, at = n - 1; p < this.pixels; p++, at += n) next[at] = frame[p];
    this.stacks.set(agent, next);
    // The caller gets a copy, so that writing into it cannot change the stack.
    const out = next.slice();
    this.memo = { stack, frame, next, out };
    return out;
  }
}

/**
 * agent_indicator_v0(env, type_only=False): appends one channel per possible agent to an (H, W, C) image; agent i's
 * channel C + i holds `value`, the others 0. SuperSuit 3.4.0 (CleanRL's) writes 1; 3.5.0 and later write 255.
 */
export class AgentIndicator extends PerAgentObservationWrapper {
  private readonly space: Box;
  private readonly channels: number;
  private readonly pixels: number;
  constructor(
    env: ParallelEnv<ObsArray, number>,
    readonly value = 1,
  ) {
    super(env);
    const shape = boxShape(env.observationSpace(env.possibleAgents[0]), "agent_indicator");
    if (shape.length !== 3) throw new Error(`agent_indicator: needs (H, W, C) images, got (${shape.join(", ")})`);
    this.channels = shape[2];
    this.pixels = shape[0] * shape[1];
    this.space = byteBox([shape[0], shape[1], shape[2] + env.possibleAgents.length]);
  }
  override observationSpace(): Space {
    return this.space;
  }
  protected override startBatch(): void {
    this.lastIn = null;
  }
  /** The last input and result of this batch, with its agent's index. */
  private lastIn: ObsArray | null = null;
  private lastOut: ObsArray | null = null;
  private lastIndex = 0;
  protected observation(agent: string, obs: ObsArray): ObsArray {
    const c = this.channels;
    const total = c + this.possibleAgents.length;
    const index = this.possibleAgents.indexOf(agent);
    let out: Uint8Array;
    if (obs === this.lastIn) {
      // The same image as the previous agent's: its result with the indicator moved.
      out = this.lastOut!.slice();
      for (let at = c + this.lastIndex; at < out.length; at += total) out[at] = 0;
      for (let at = c + index; at < out.length; at += total) out[at] = this.value;
    } else {
      out = new Uint8Array(this.pixels * total);
      for (let p = 0, i = 0, o = 0; p < this.pixels; p++, o += total) {
        for (let k = 0; k < c; k++) out[o + k] = obs[i++];
        out[o + c + index] = this.value;
      }
    }
    this.lastIn = obs;
    this.lastOut = out;
    this.lastIndex = index;
    return out;
  }
}

/** SuperSuit's names, for chains written as in CleanRL. */
export const maxObservation = (env: ParallelEnv<ObsArray, number>, memory: number) => new MaxObservation(env, memory);
export const frameSkip = (env: ParallelEnv<ObsArray, number>, numFrames: number) => new FrameSkip(env, numFrames);
export const clipReward = (env: ParallelEnv<ObsArray, number>, lower: number, upper: number) =>
  new ClipReward(env, lower, upper);
export const colorReduction = (env: ParallelEnv<ObsArray, number>, mode: "R" | "G" | "B") =>
  new ColorReduction(env, mode);
export const resize = (env: ParallelEnv<ObsArray, number>, xSize: number, ySize: number) =>
  new Resize(env, xSize, ySize);
export const frameStack = (env: ParallelEnv<ObsArray, number>, stackSize: number) => new FrameStack(env, stackSize);
export const agentIndicator = (env: ParallelEnv<ObsArray, number>, value = 1) => new AgentIndicator(env, value);

/**
 * pettingzoo_env_to_vec_env_v1 (SuperSuit's MarkovVectorEnv), as one Gymnasium env per game so that a vector env
 * (SyncVectorEnv, or AsyncVectorEnv's worker threads) can host it: the observation is every possible agent's
 * observation stacked ([numAgents, ...agent shape], agent order = possibleAgents = slot order), the action one index
 * per agent (MultiDiscrete). The game ends (terminated, or truncated when any agent was truncated) once every agent
 * is done; the vector env then resets it at once without a seed, as MarkovVectorEnv does, and the last observation
 * goes to the info (`final_observation`, SuperSuit's `terminal_observation`). Per-agent results travel in the info:
 * `rewards` (Float32Array), `terminations` / `truncations` (Uint8Array), and `agent_infos`. The scalar reward is the
 * agents' sum. Without `blackDeath` an agent leaving before the others is an error, as in SuperSuit. With it
 * (SuperSuit's `black_death=True`) a removed agent's slot stays: zero observations, reward 0 and done flags 0 after
 * the step that removed it (its done flag is 1 on that step only), and the game ends once every agent still playing
 * is done in the same step.
 */
export class MarkovVectorEnv extends Env<Uint8Array, Int32Array> {
  readonly observationSpace: Box & Space<Uint8Array>;
  readonly actionSpace: MultiDiscrete;
  readonly numAgents: number;
  override metadata = { renderModes: ["rgb_array"], renderFps: 60 };
  private readonly agentSize: number;
  private readonly actionDict: AgentDict<number> = {};

  constructor(
    readonly par: ParallelEnv<ObsArray, number>,
    readonly blackDeath = false,
  ) {
    super();
    const agents = par.possibleAgents;
    this.numAgents = agents.length;
    const space = par.observationSpace(agents[0]);
    const shape = boxShape(space, "pettingzoo_env_to_vec_env");
    for (const agent of agents) {
      if (par.observationSpace(agent).toString() !== space.toString())
        throw new Error("pettingzoo_env_to_vec_env: agents' observation spaces differ");
    }
    const act = par.actionSpace(agents[0]);
    if (!(act instanceof Discrete))
      throw new Error(`pettingzoo_env_to_vec_env: only Discrete action spaces are ported, got ${act}`);
    this.agentSize = space.size;
    this.observationSpace = new Box(0, 255, [this.numAgents, ...shape], "uint8") as Box & Space<Uint8Array>;
    this.actionSpace = new MultiDiscrete(new Array<number>(this.numAgents).fill(act.n));
    this.renderMode = par.renderMode;
  }

  override reset(args: ResetArgs = {}): [Uint8Array, Info] {
    const [observations] = this.par.reset(args);
    return [this.stack(observations), {}];
  }

  step(actions: Int32Array): StepResult<Uint8Array> {
    const agents = this.par.possibleAgents;
    for (let k = 0; k < agents.length; k++) this.actionDict[agents[k]] = actions[k];
    const [observations, rewards, terminations, truncations, infos] = this.par.step(this.actionDict);
    const r = new Float32Array(agents.length);
    const term = new Uint8Array(agents.length);
    const trunc = new Uint8Array(agents.length);
    let allDone = true;
    let anyDone = false;
    let anyTruncated = false;
    let total = 0;
    for (let k = 0; k < agents.length; k++) {
      const agent = agents[k];
      r[k] = rewards[agent] ?? 0;
      total += r[k];
      term[k] = terminations[agent] ? 1 : 0;
      trunc[k] = truncations[agent] ? 1 : 0;
      const done = term[k] === 1 || trunc[k] === 1;
      // With black death only the agents that played this step count (SuperSuit: all(dones.values())).
      if (this.blackDeath && !(agent in terminations)) continue;
      allDone &&= done;
      anyDone ||= done;
      anyTruncated ||= trunc[k] === 1;
    }
    if (anyDone && !allDone && !this.blackDeath)
      throw new Error("pettingzoo_env_to_vec_env: an agent left before the others (pass black_death to keep its slot)");
    const info: Info = {
      rewards: r,
      terminations: term,
      truncations: trunc,
      agent_infos: agents.map((a) => infos[a] ?? {}),
    };
    return [this.stack(observations), total, allDone && !anyTruncated, allDone && anyTruncated, info];
  }

  private stack(observations: AgentDict<ObsArray>): Uint8Array {
    const out = new Uint8Array(this.numAgents * this.agentSize);
    this.par.possibleAgents.forEach((agent, k) => {
      const obs = observations[agent];
      if (obs !== undefined) out.set(obs, k * this.agentSize);
    });
    return out;
  }

  override render(): unknown {
    return this.par.render();
  }

  override close(): void {
    this.par.close();
  }
}

/** pettingzoo_env_to_vec_env_v1(env, black_death). */
export const pettingzooEnvToVecEnv = (env: ParallelEnv<ObsArray, number>, blackDeath = false) =>
  new MarkovVectorEnv(env, blackDeath);

/** What a ConcatVecEnv step returns: one entry per slot (game c's agent k is slot c * numAgents + k). */
export type SlotStepResult = [
  observations: Uint8Array,
  rewards: Float32Array,
  terminations: Uint8Array,
  truncations: Uint8Array,
  infos: Info[],
];

/**
 * concat_vec_envs_v1: games side by side, each agent one slot. Takes a vector env whose sub-envs are
 * MarkovVectorEnvs (SyncVectorEnv in-process, SuperSuit's num_cpus=0; AsyncVectorEnv for one worker thread per
 * game) and flattens games x agents into slots. Rewards are float32 per slot; a finished slot's info carries
 * `terminal_observation`.
 */
export class ConcatVecEnv {
  readonly numEnvs: number;
  readonly numAgents: number;
  readonly singleObservationSpace: Box;
  readonly singleActionSpace: Discrete;
  private readonly slotSize: number;

  constructor(readonly vec: SyncVectorEnv | AsyncVectorEnv) {
    const game = vec.singleObservationSpace;
    if (!(game instanceof Box) || !(vec.singleActionSpace instanceof MultiDiscrete)) {
      throw new TypeError("concat_vec_envs: the sub-envs must be pettingzoo_env_to_vec_env games (MarkovVectorEnv)");
    }
    this.numAgents = game.shape[0];
    this.numEnvs = vec.numEnvs * this.numAgents;
    this.singleObservationSpace = new Box(0, 255, game.shape.slice(1), "uint8");
    this.slotSize = this.singleObservationSpace.size;
    this.singleActionSpace = new Discrete(vec.singleActionSpace.nvec[0]);
  }

  /** An integer seed gives game i the seed `seed + i` (SuperSuit's rule); none leaves each game unseeded. */
  reset(args: { seed?: number } = {}): [Uint8Array, Info[]] {
    const [obs] = this.vec.reset(args.seed === undefined ? {} : { seed: args.seed });
    return [obs as Uint8Array, Array.from({ length: this.numEnvs }, () => ({}))];
  }

  step(actions: ArrayLike<number>): SlotStepResult {
    const [obs, , gameTerminated, gameTruncated, gameInfos] = this.vec.step(actions);
    const n = this.numAgents;
    const rewards = new Float32Array(this.numEnvs);
    const terminations = new Uint8Array(this.numEnvs);
    const truncations = new Uint8Array(this.numEnvs);
    const infos: Info[] = [];
    for (let g = 0; g < this.vec.numEnvs; g++) {
      const ended = gameTerminated[g] === 1 || gameTruncated[g] === 1;
      // A finished game's step info is its final_info (the vector env already reset it).
      const info = (ended ? (gameInfos as VectorInfo).final_info?.[g] : perGame(gameInfos, g)) as
        | Info
        | null
        | undefined;
      if (!info) throw new Error(`concat_vec_envs: game ${g} returned no per-agent results`);
      const final = ended ? ((gameInfos as VectorInfo).final_observation?.[g] as Uint8Array) : null;
      const r = info.rewards as Float32Array;
      const term = info.terminations as Uint8Array;
      const trunc = info.truncations as Uint8Array;
      const agentInfos = (info.agent_infos as Info[] | undefined) ?? [];
      for (let k = 0; k < n; k++) {
        const slot = g * n + k;
        rewards[slot] = r[k];
        terminations[slot] = term[k];
        truncations[slot] = trunc[k];
        const slotInfo: Info = { ...(agentInfos[k] ?? {}) };
        if (final) slotInfo.terminal_observation = final.subarray(k * this.slotSize, (k + 1) * this.slotSize);
        infos.push(slotInfo);
      }
    }
    return [obs as Uint8Array, rewards, terminations, truncations, infos];
  }

  close(): void {
    this.vec.close();
  }
}

/** Game g's step info out of a batched VectorInfo (each key an array over games). */
function perGame(infos: VectorInfo, g: number): Info {
  const out: Info = {};
  for (const key of ["rewards", "terminations", "truncations", "agent_infos"]) {
    const values = infos[key] as unknown[] | undefined;
    if (values !== undefined) out[key] = values[g];
  }
  return out;
}

/** The episode summary `RecordEpisodeStatistics` puts in a finished slot's info. */
export interface SlotEpisode {
  r: number;
  l: number;
  t: number;
}

/**
 * gym 0.23.1's RecordEpisodeStatistics in vector mode over the slots (notes 3.4): per slot a float32 return and an
 * int32 length, zeroed at reset; a slot whose done flag is set gets `episode = { r, l, t }` in its info (t: seconds
 * since construction) and starts over. Both agents of a game finish together, so they report the same length.
 */
export class RecordEpisodeStatistics {
  readonly numEnvs: number;
  readonly singleObservationSpace: Box;
  readonly singleActionSpace: Discrete;
  private readonly returns: Float32Array;
  private readonly lengths: Int32Array;
  private readonly start = performance.now();

  constructor(readonly env: ConcatVecEnv) {
    this.numEnvs = env.numEnvs;
    this.singleObservationSpace = env.singleObservationSpace;
    this.singleActionSpace = env.singleActionSpace;
    this.returns = new Float32Array(this.numEnvs);
    this.lengths = new Int32Array(this.numEnvs);
  }

  reset(args: { seed?: number } = {}): [Uint8Array, Info[]] {
    this.returns.fill(0);
    this.lengths.fill(0);
    return this.env.reset(args);
  }

  step(actions: ArrayLike<number>): SlotStepResult {
    const result = this.env.step(actions);
    const [, rewards, terminations, truncations, infos] = result;
    for (let i = 0; i < this.numEnvs; i++) {
      this.returns[i] += rewards[i];
      this.lengths[i] += 1;
      if (terminations[i] || truncations[i]) {
        infos[i].episode = {
          r: this.returns[i],
          l: this.lengths[i],
          t: Math.round(((performance.now() - this.start) / 1000) * 1e6) / 1e6,
        } satisfies SlotEpisode;
        this.returns[i] = 0;
        this.lengths[i] = 0;
      }
    }
    return result;
  }

  close(): void {
    this.env.close();
  }
}
