// Atari preprocessing wrappers: stable-baselines3's `atari_wrappers.py` (NoopResetEnv, MaxAndSkipEnv,
// EpisodicLifeEnv, FireResetEnv, ClipRewardEnv) and Gymnasium 0.29's image wrappers (ResizeObservation,
// GrayScaleObservation, FrameStack), with the semantics CleanRL's `ppo_atari.py` relies on.
//
// CleanRL's `make_env` stacks them in this order, innermost first:
//
//   gym.make(env_id)                      # e.g. BreakoutNoFrameskip-v4: 210x160x3 uint8 frames
//   RecordEpisodeStatistics               # innermost, so the logged returns are raw game scores
//   NoopResetEnv(noop_max=30)             # random number of no-ops on reset
//   MaxAndSkipEnv(skip=4)                 # repeat each action 4 frames, max-pool the last two
//   EpisodicLifeEnv                       # a lost life ends the (training) episode
//   FireResetEnv                          # only if "FIRE" is among the action meanings
//   ClipRewardEnv                         # reward -> sign(reward)
//   ResizeObservation((84, 84))           # cv2.resize(..., INTER_AREA)
//   GrayScaleObservation                  # cv2.cvtColor(..., COLOR_RGB2GRAY)
//   FrameStack(4)                         # observation [4, 84, 84] uint8
//
// The image wrappers reproduce OpenCV's integer results bit for bit (cv2 is what Gymnasium calls), so a
// network trained here sees the pixels a Python agent would.

import {
  type Env,
  type Info,
  ObservationWrapper,
  type ResetArgs,
  RewardWrapper,
  type StepResult,
  Wrapper,
} from "./core.ts";
import { Box, type TypedArray, zerosOf } from "./spaces.ts";

/** What the wrappers need from the innermost env (ale-py's `AtariEnv.get_action_meanings`). */
interface HasActionMeanings {
  getActionMeanings(): string[];
}

/** The unwrapped env's action meanings, e.g. ["NOOP", "FIRE", "RIGHT", "LEFT"]; an error if it has none. */
export function actionMeanings(env: Env): string[] {
  const unwrapped = env.unwrapped as Partial<HasActionMeanings>;
  if (typeof unwrapped.getActionMeanings !== "function")
    throw new TypeError(`${env.unwrapped} has no getActionMeanings(): not an Atari env`);
  return unwrapped.getActionMeanings();
}

/**
 * The lives counter, read as SB3 does from `env.unwrapped.ale.lives()` (our AtariEnv has the same `ale`), so it
 * does not matter which wrappers sit in between; an env without an `ale` may report it as `info.lives`, which
 * ale-py (and our AtariEnv) also put in every reset and step info.
 */
function livesOf(env: Env, info: Info): number {
  const ale = (env.unwrapped as { ale?: { lives?: () => number } }).ale;
  const lives = typeof ale?.lives === "function" ? ale.lives() : info.lives;
  if (typeof lives !== "number")
    throw new TypeError("EpisodicLifeEnv: the env has neither ale.lives() nor a numeric info.lives");
  return lives;
}

/** Checks that `env` has a Box observation space, as the image wrappers assert. */
function boxOf(env: Env, wrapper: string): Box {
  if (!(env.observationSpace instanceof Box))
    throw new TypeError(`${wrapper}: expected a Box observation space, got ${env.observationSpace}`);
  return env.observationSpace;
}

type AtariEnv = Env<Uint8Array, number>;

/**
 * Samples a number of no-ops in [1, noopMax] on reset and takes them (SB3 `NoopResetEnv`), so episodes start
 * from varied states even though ALE is deterministic. The count is drawn from the *unwrapped* env's
 * generator after the inner reset (`self.unwrapped.np_random.integers(1, self.noop_max + 1)`), so a seeded
 * reset gives a reproducible count. An episode that ends during the no-ops is reset again and the no-ops go on.
 */
export class NoopResetEnv extends Wrapper<Uint8Array, number> {
  /** SB3's `override_num_noops`: a fixed count instead of a random one. */
  overrideNumNoops: number | null = null;
  readonly noopAction = 0;

  constructor(
    env: AtariEnv | Env,
    readonly noopMax = 30,
  ) {
    super(env as AtariEnv);
    const meanings = actionMeanings(env);
    if (meanings[0] !== "NOOP") throw new Error(`NoopResetEnv: action 0 must be NOOP, got ${meanings[0]}`);
  }

  override reset(args: ResetArgs = {}): [Uint8Array, Info] {
    let [obs, info] = this.env.reset(args);
    const noops = this.overrideNumNoops ?? this.unwrapped.npRandom.integers(1, this.noopMax + 1);
    if (!(noops > 0)) throw new RangeError(`NoopResetEnv: the number of no-ops must be positive, got ${noops}`);
    for (let i = 0; i < noops; i++) {
      let terminated: boolean, truncated: boolean;
      [obs, , terminated, truncated, info] = this.env.step(this.noopAction);
      if (terminated || truncated) [obs, info] = this.env.reset(args);
    }
    return [obs, info];
  }
}

/**
 * Repeats each action `skip` times, summing the rewards, and returns the pixel-wise max of the last two
 * frames (SB3 `MaxAndSkipEnv`): Atari games draw some sprites only on every other frame, and the max removes
 * that flicker. The loop stops early when the episode ends, and then, as in SB3, the two-frame buffer still
 * holds frames of an earlier step in the slots this step did not reach ("the observation on the done=True frame
 * doesn't matter"). The buffer is deliberately not cleared on reset either, which SB3 does not do.
 *
 * Only the last two frames' observations are ever looked at, so every frame goes through `stepInto`: the frames
 * before those two without an observation (AtariEnv then neither draws nor converts their screens, about half of a
 * step's cost with skip 4), the last two straight into the two-frame buffer (no array per frame, no copy); the
 * wrappers in between (RecordEpisodeStatistics, TimeLimit ...) keep their bookkeeping.
 */
export class MaxAndSkipEnv extends Wrapper<Uint8Array, number> {
  /** SB3's `_obs_buffer`: [second-to-last frame, last frame], each `size` values. */
  private readonly obsBuffer: [TypedArray, TypedArray];

  constructor(
    env: AtariEnv | Env,
    readonly skip = 4,
  ) {
    super(env as AtariEnv);
    const box = boxOf(env, "MaxAndSkipEnv");
    this.obsBuffer = [zerosOf(box.dtype, box.size), zerosOf(box.dtype, box.size)];
  }

  override step(action: number): StepResult<Uint8Array> {
    let totalReward = 0;
    let terminated = false;
    let truncated = false;
    let info: Info = {};
    const skip = this.skip;
    for (let i = 0; i < skip; i++) {
      const out = i < skip - 2 ? null : this.obsBuffer[i === skip - 2 ? 0 : 1];
      let reward: number;
      [reward, terminated, truncated, info] = this.env.stepInto(action, out);
      totalReward += reward;
      if (terminated || truncated) break;
    }
    return [this.maxFrame(), totalReward, terminated, truncated, info];
  }

  /** The element-wise max of the two buffered frames, as a new array. */
  private maxFrame(): Uint8Array {
    const [a, b] = this.obsBuffer;
    const maxFrame = zerosOf(this.observationSpace.dtype, a.length) as Uint8Array;
    if (a instanceof Uint8Array && b instanceof Uint8Array) {
      maxFrame.set(a);
      maxInto(maxFrame, b);
      return maxFrame;
    }
    for (let j = 0; j < a.length; j++) maxFrame[j] = a[j] > b[j] ? a[j] : b[j];
    return maxFrame;
  }
}

/**
 * `out[i] = max(out[i], other[i])` for every byte: MaxAndSkipEnv's pooling here, SuperSuit's max_observation in
 * envs/pettingzoo. Consecutive Atari frames mostly agree, and equal words are left as they are: sixteen bytes are
 * compared at once first.
 */
export function maxInto(out: Uint8Array, other: Uint8Array): void {
  const n = out.length;
  let start = 0;
  if (out.byteOffset % 4 === 0 && other.byteOffset % 4 === 0) {
    const words = n >>> 2;
    const a32 = new Uint32Array(out.buffer, out.byteOffset, words);
    const b32 = new Uint32Array(other.buffer, other.byteOffset, words);
    let i = 0;
    for (; i + 4 <= words; i += 4) {
      if (((a32[i] ^ b32[i]) | (a32[i + 1] ^ b32[i + 1]) | (a32[i + 2] ^ b32[i + 2]) | (a32[i + 3] ^ b32[i + 3])) === 0)
        continue;
      for (let j = i; j < i + 4; j++) maxWord(a32, b32, j);
    }
    for (; i < words; i++) maxWord(a32, b32, i);
    start = words << 2;
  }
  for (let i = start; i < n; i++) if (other[i] > out[i]) out[i] = other[i];
}

/**
 * maxInto for the four bytes of word `i` (byte order does not matter: every byte is compared with its own
 * counterpart). Per byte, with a7/b7 the top bits: (a | 0x80) - (b & 0x7f) never borrows from the next byte, and
 * its top bit says low7(a) >= low7(b); a >= b when a7 > b7, or a7 == b7 and low7(a) >= low7(b). That bit, times
 * 0xff, selects a or b.
 */
function maxWord(a32: Uint32Array, b32: Uint32Array, i: number): void {
  const a = a32[i];
  const b = b32[i];
  if (a === b) return;
  const low = (a | 0x80808080) - (b & 0x7f7f7f7f);
  const ge = ((a & ~b) | (~(a ^ b) & low)) & 0x80808080;
  const mask = Math.imul(ge >>> 7, 0xff);
  a32[i] = (a & mask) | (b & ~mask);
}

/**
 * Makes the loss of a life look like the end of an episode to the learner, while the game itself goes on
 * (SB3 `EpisodicLifeEnv`; Mnih et al. 2015). `terminated` is set when the lives counter drops but is still
 * above 0 (Q*bert sits at 0 lives for a few frames before the real game over, which must not end the episode
 * twice). `reset` after such a fake end only takes a no-op step (action 0) instead of resetting the game; a
 * real reset happens only after a real game over (or if that no-op step itself ends the game).
 * RecordEpisodeStatistics sits below this wrapper, so logged returns are still whole games.
 */
export class EpisodicLifeEnv extends Wrapper<Uint8Array, number> {
  lives = 0;
  /** True when the last step really ended the game (SB3's `was_real_done`); the first reset is a real one. */
  wasRealDone = true;

  constructor(env: AtariEnv | Env) {
    super(env as AtariEnv);
  }

  override step(action: number): StepResult<Uint8Array> {
    const result = this.env.step(action);
    const [, , terminated, truncated, info] = result;
    this.wasRealDone = terminated || truncated;
    const lives = livesOf(this.env, info);
    // Compare with the previous count before updating it, so a bonus life (lives going up) is not a loss.
    if (lives > 0 && lives < this.lives) result[2] = true;
    this.lives = lives;
    return result;
  }

  override reset(args: ResetArgs = {}): [Uint8Array, Info] {
    let obs: Uint8Array, info: Info;
    if (this.wasRealDone) {
      [obs, info] = this.env.reset(args);
    } else {
      let terminated: boolean, truncated: boolean;
      [obs, , terminated, truncated, info] = this.env.step(0);
      // The no-op can itself end the game; reset then, rather than hand back a finished episode.
      if (terminated || truncated) [obs, info] = this.env.reset(args);
    }
    this.lives = livesOf(this.env, info);
    return [obs, info];
  }
}

/**
 * Presses FIRE on reset, for games that wait for it before starting (SB3 `FireResetEnv`): after the inner
 * reset it takes action 1 (FIRE) and then action 2, resetting again if either ends the episode, and returns
 * the last observation with an empty info, as SB3 does.
 */
export class FireResetEnv extends Wrapper<Uint8Array, number> {
  constructor(env: AtariEnv | Env) {
    super(env as AtariEnv);
    const meanings = actionMeanings(env);
    if (meanings[1] !== "FIRE") throw new Error(`FireResetEnv: action 1 must be FIRE, got ${meanings[1]}`);
    if (meanings.length < 3) throw new Error(`FireResetEnv: needs at least 3 actions, got ${meanings.length}`);
  }

  override reset(args: ResetArgs = {}): [Uint8Array, Info] {
    this.env.reset(args);
    let [obs, , terminated, truncated] = this.env.step(1);
    if (terminated || truncated) this.env.reset(args);
    [obs, , terminated, truncated] = this.env.step(2);
    if (terminated || truncated) this.env.reset(args);
    return [obs, {}];
  }
}

/**
 * Bins rewards to {-1, 0, +1} by their sign (SB3 `ClipRewardEnv`, `np.sign(float(reward))`), so one set of
 * hyperparameters fits games whose scores differ by orders of magnitude.
 */
export class ClipRewardEnv<Obs = Uint8Array, Act = number> extends RewardWrapper<Obs, Act> {
  constructor(env: Env<Obs, Act> | Env) {
    super(env as Env<Obs, Act>);
  }
  reward(reward: number): number {
    // `+ 0` turns -0 into 0; NaN stays NaN, as np.sign does.
    return Math.sign(reward) + 0;
  }
}

/**
 * OpenCV's `computeResizeAreaTab` for one axis: every (destination cell, source pixel) pair that overlaps,
 * with the fraction of the cell the pixel covers. Cell `d` spans [d * scale, (d + 1) * scale) in source
 * coordinates; a source pixel partly inside it gets its overlap over the cell width, a pixel wholly inside
 * gets 1 / cellWidth. Overlaps under 1e-3 are dropped and the last cell is clipped to the image, exactly as
 * OpenCV does, and every weight is rounded to float32 as OpenCV stores it. Source indices come multiplied by
 * `stride` (the channel count along x, as OpenCV's table holds them).
 */
function areaTable(srcSize: number, dstSize: number, scale: number, stride = 1): AreaTable {
  const src: number[] = [];
  const dst: number[] = [];
  const weight: number[] = [];
  for (let d = 0; d < dstSize; d++) {
    const start = d * scale;
    const end = start + scale;
    const cellWidth = Math.min(scale, srcSize - start);
    let first = Math.ceil(start);
    const last = Math.min(Math.floor(end), srcSize - 1);
    first = Math.min(first, last);
    if (first - start > 1e-3) {
      src.push(first - 1);
      dst.push(d);
      weight.push((first - start) / cellWidth);
    }
    for (let s = first; s < last; s++) {
      src.push(s);
      dst.push(d);
      weight.push(1 / cellWidth);
    }
    if (end - last > 1e-3) {
      src.push(last);
      dst.push(d);
      weight.push(Math.min(Math.min(end - last, 1), cellWidth) / cellWidth);
    }
  }
  const cellStart = new Int32Array(dstSize + 1);
  for (let k = 0; k < dst.length; k++) cellStart[dst[k] + 1] = k + 1;
  for (let d = 1; d <= dstSize; d++) cellStart[d] = Math.max(cellStart[d], cellStart[d - 1]);
  return {
    src: Int32Array.from(src, (s) => s * stride),
    dst: Int32Array.from(dst),
    weight: Float32Array.from(weight),
    cellStart,
  };
}

/** One axis of area weights: entry k adds `weight[k]` times source `src[k]` (times the stride) to cell `dst[k]`. */
interface AreaTable {
  src: Int32Array;
  dst: Int32Array;
  weight: Float32Array;
  /** Entries of cell d are cellStart[d] .. cellStart[d + 1] - 1 (they come in cell order). */
  cellStart: Int32Array;
}

/**
 * `cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA)` for uint8 images that shrink (or keep)
 * both sides, bit-exact with OpenCV's CPU path. The weights are computed once, in the constructor.
 *
 * - Non-integer ratios (210 -> 84 is 2.5, 160 -> 84 is 1.905) use OpenCV's `resizeArea_<uchar, float>`: each
 *   output pixel is the coverage-weighted mean of the source pixels under its cell. Rows are first reduced
 *   horizontally into a float32 buffer, then accumulated vertically, every product and sum rounded to float32
 *   in OpenCV's order, and finally rounded half-to-even and saturated (`saturate_cast<uchar>`), which is
 *   exactly the conversion a Uint8ClampedArray store performs.
 * - Integer ratios use `resizeAreaFast_`: a plain block mean, `(sum + 2) >> 2` for 2x2 blocks of 1, 3 or 4
 *   channels (OpenCV's `ResizeAreaFastVec` fast mode), otherwise `sum * (1 / area)` in float32, rounded
 *   half-to-even.
 *
 * Checked bit-exact against opencv-python-headless 4.14.0 and 5.0.0 (random, binary and few-level images; 1
 * and 3 channels; 210x160 -> 84x84, 110x84, 105x80 from 250x160, 168x168 -> 84x84, 6x6 -> 3x3, 9x9 -> 3x3 ...).
 *
 * Enlarging is not supported: OpenCV switches INTER_AREA to a bilinear variant there, which Atari never needs.
 */
export class AreaResize {
  private readonly xTable: AreaTable;
  private readonly yTable: AreaTable;
  /** Every source row after the horizontal pass, [srcHeight, dstWidth * channels]. */
  private readonly reducedRows: Float32Array;
  private readonly rowSums: Float32Array;
  /** The horizontal sums of one-colour cells, [dstWidth, 256] (see reduceRow). */
  private readonly uniformCells: Float32Array;
  /** Per source row of the last image: the first row of its run of equal rows (see coverageMean). */
  private readonly rowRun: Int32Array;
  /** Per source row of the last image: equal to the row above (1) or not (0). */
  private readonly equalAbove: Uint8Array;
  /** Per source row: changed from the image before the last one (coverageMean's scratch). */
  private readonly rowChanged: Uint8Array;
  /** The last image coverageMean resized (`keptWords`: as 32-bit words when rows are whole words), and its output. */
  private readonly kept: Uint8Array;
  private readonly keptWords: Uint32Array | null;
  private readonly picture: Uint8Array;
  /** `picture` as clamped bytes: a store rounds and saturates as OpenCV's saturate_cast (see the class comment). */
  private readonly clampedPicture: Uint8ClampedArray;
  /** Whether `kept` and `picture` hold an image yet. */
  private hasKept = false;
  private readonly fast: { x: number; y: number } | null;

  constructor(
    readonly srcHeight: number,
    readonly srcWidth: number,
    readonly dstHeight: number,
    readonly dstWidth: number,
    readonly channels: number,
  ) {
    for (const v of [srcHeight, srcWidth, dstHeight, dstWidth, channels]) {
      if (!Number.isInteger(v) || v <= 0)
        throw new RangeError(
          `AreaResize: sizes must be positive integers, got ${[srcHeight, srcWidth, dstHeight, dstWidth, channels]}`,
        );
    }
    // OpenCV computes the inverse scale first and inverts it; the same double operations give the same tables.
    const scaleX = 1 / (dstWidth / srcWidth);
    const scaleY = 1 / (dstHeight / srcHeight);
    if (scaleX < 1 || scaleY < 1)
      throw new RangeError(
        `AreaResize: only downscaling is supported, got ${srcHeight}x${srcWidth} -> ${dstHeight}x${dstWidth}`,
      );
    const intX = Math.round(scaleX);
    const intY = Math.round(scaleY);
    const isFast = Math.abs(scaleX - intX) < Number.EPSILON && Math.abs(scaleY - intY) < Number.EPSILON;
    this.fast = isFast ? { x: intX, y: intY } : null;
    this.xTable = areaTable(srcWidth, dstWidth, scaleX, channels);
    this.yTable = areaTable(srcHeight, dstHeight, scaleY);
    this.reducedRows = new Float32Array(srcHeight * dstWidth * channels);
    this.rowSums = new Float32Array(dstWidth * channels);
    this.rowRun = new Int32Array(srcHeight);
    this.equalAbove = new Uint8Array(srcHeight);
    this.rowChanged = new Uint8Array(srcHeight);
    const srcRowLength = srcWidth * channels;
    this.kept = new Uint8Array(Math.ceil((srcHeight * srcRowLength) / 4) * 4);
    this.keptWords = srcRowLength % 4 === 0 ? new Uint32Array(this.kept.buffer) : null;
    this.picture = new Uint8Array(dstHeight * dstWidth * channels);
    this.clampedPicture = new Uint8ClampedArray(this.picture.buffer);
    // Per output column d and value v: the horizontal pass's sum for a cell whose pixels all have value v, with
    // the very operations reduceRow does (so the table and the loop agree to the bit).
    const { weight, cellStart } = this.xTable;
    this.uniformCells = new Float32Array(dstWidth * 256);
    for (let d = 0; d < dstWidth; d++) {
      for (let v = 0; v < 256; v++) {
        let t = 0;
        for (let k = cellStart[d]; k < cellStart[d + 1]; k++) t = Math.fround(t + Math.fround(v * weight[k]));
        this.uniformCells[d * 256 + v] = t;
      }
    }
  }

  /** Whether output row `dy` reads the same source row contents with the same weights as row `dy - back`. */
  private sameOutputRow(dy: number, back: number): boolean {
    if (dy < back) return false;
    const { src, weight, cellStart } = this.yTable;
    const first = cellStart[dy];
    const other = cellStart[dy - back];
    const count = cellStart[dy + 1] - first;
    if (cellStart[dy - back + 1] - other !== count) return false;
    const run = this.rowRun;
    for (let j = 0; j < count; j++) {
      if (run[src[first + j]] !== run[src[other + j]] || weight[first + j] !== weight[other + j]) return false;
    }
    return true;
  }

  /** Resizes one row-major [srcHeight, srcWidth, channels] image into `out` (a new array if not given). */
  apply(image: ArrayLike<number>, out = new Uint8Array(this.dstHeight * this.dstWidth * this.channels)): Uint8Array {
    const expected = this.srcHeight * this.srcWidth * this.channels;
    if (image.length !== expected) throw new RangeError(`AreaResize: expected ${expected} values, got ${image.length}`);
    // The pixel loops only ever see Uint8Arrays, which keeps them monomorphic (and fast) in V8.
    const bytes = image instanceof Uint8Array ? image : Uint8Array.from(image);
    if (this.fast !== null) this.blockMean(bytes, out, this.fast.x, this.fast.y);
    else this.coverageMean(bytes, out);
    return out;
  }

  /**
   * Atari screens repeat rows a lot (objects are several lines tall, the background is blank), in space and in time,
   * and equal source rows reduce to equal rows. So a row equal to the same row of the last image keeps its reduced
   * values, and a row equal to the one above copies them, instead of recomputing them. `rowRun[sy]` is then the
   * first row of sy's run of equal rows; an output row none of whose source rows changed since the last image keeps
   * its bytes, and one whose source rows and weights are those of an output row one or two above (equal runs, equal
   * weights) is a copy of it, as the same float operations on the same values give the same bytes.
   */
  private coverageMean(image: Uint8Array, out: Uint8Array): void {
    const rowLength = this.dstWidth * this.channels;
    const srcRowLength = this.srcWidth * this.channels;
    const { src: ySrc, weight: yWeight, cellStart } = this.yTable;
    const rows = this.reducedRows;
    const sum = this.rowSums;
    const run = this.rowRun;
    const equalAbove = this.equalAbove;
    const changed = this.rowChanged;
    const kept = this.kept;
    const keptWords = this.keptWords;
    const picture = this.picture;
    const fresh = !this.hasKept;
    this.hasKept = true;
    const clamped = this.clampedPicture;
    const fround = Math.fround;
    // Rows compare four bytes at a time when they are whole words and the image starts on a 4-byte boundary.
    const n = srcRowLength >> 2;
    const words =
      keptWords !== null && image.byteOffset % 4 === 0
        ? new Uint32Array(image.buffer, image.byteOffset, image.length >> 2)
        : null;
    // Every changed source row is reduced once; OpenCV reduces a row shared by two output rows twice, identically.
    for (let sy = 0, start = 0; sy < this.srcHeight; sy++, start += srcRowLength) {
      const same =
        !fresh &&
        (words !== null
          ? sameWords(words, sy * n, keptWords!, sy * n, n)
          : sameBytes(image, start, kept, start, srcRowLength));
      changed[sy] = same ? 0 : 1;
      if (!same) kept.set(image.subarray(start, start + srcRowLength), start);
      // `kept` holds this image up to row sy now.
      if (sy > 0 && (!same || changed[sy - 1] === 1)) {
        const above =
          keptWords !== null
            ? sameWords(keptWords, (sy - 1) * n, keptWords, sy * n, n)
            : sameBytes(kept, start - srcRowLength, kept, start, srcRowLength);
        equalAbove[sy] = above ? 1 : 0;
      }
      if (sy > 0 && equalAbove[sy] === 1) {
        run[sy] = run[sy - 1];
        if (!same) rows.copyWithin(sy * rowLength, (sy - 1) * rowLength, sy * rowLength);
      } else {
        run[sy] = sy;
        if (!same) this.reduceRow(image, start, sy * rowLength);
      }
    }
    for (let dy = 0; dy < this.dstHeight; dy++) {
      const first = cellStart[dy];
      const end = cellStart[dy + 1];
      if (!fresh && !this.anyChanged(first, end)) continue;
      const outStart = dy * rowLength;
      const same = this.sameOutputRow(dy, 1) ? 1 : this.sameOutputRow(dy, 2) ? 2 : 0;
      if (same !== 0) {
        picture.copyWithin(outStart, outStart - same * rowLength, outStart - (same - 1) * rowLength);
        continue;
      }
      if (end - first === 3) {
        // The common case (210 -> 84 rows: every output row spans 3 source rows), unrolled.
        const r0 = ySrc[first] * rowLength;
        const r1 = ySrc[first + 1] * rowLength;
        const r2 = ySrc[first + 2] * rowLength;
        const b0 = yWeight[first];
        const b1 = yWeight[first + 1];
        const b2 = yWeight[first + 2];
        for (let x = 0; x < rowLength; x++) {
          let t = fround(b0 * rows[r0 + x]);
          t = fround(t + fround(b1 * rows[r1 + x]));
          clamped[outStart + x] = fround(t + fround(b2 * rows[r2 + x]));
        }
        continue;
      }
      // Vertical pass in OpenCV's order: the first row's weighted values, then each further row's added.
      const r0 = ySrc[first] * rowLength;
      const b0 = yWeight[first];
      for (let x = 0; x < rowLength; x++) sum[x] = b0 * rows[r0 + x];
      for (let j = first + 1; j < end; j++) {
        const r = ySrc[j] * rowLength;
        const beta = yWeight[j];
        for (let x = 0; x < rowLength; x++) sum[x] = fround(sum[x] + fround(beta * rows[r + x]));
      }
      for (let x = 0; x < rowLength; x++) clamped[outStart + x] = sum[x];
    }
    out.set(picture);
  }

  /** Whether any of the source rows of vertical table entries first..end-1 changed (see coverageMean). */
  private anyChanged(first: number, end: number): boolean {
    const src = this.yTable.src;
    for (let j = first; j < end; j++) if (this.rowChanged[src[j]] === 1) return true;
    return false;
  }

  /**
   * OpenCV's horizontal pass over one source row into `reducedRows` at `outStart`: per output value, the
   * weighted sum of its source pixels in table order, each product and each partial sum rounded to float32
   * (`fround`), as OpenCV's float accumulation does. Accumulating in locals instead of the buffer is the same
   * arithmetic.
   */
  private reduceRow(image: Uint8Array, rowStart: number, outStart: number): void {
    const cn = this.channels;
    const buf = this.reducedRows;
    const { src, weight, cellStart } = this.xTable;
    const fround = Math.fround;
    if (cn === 3) {
      const uniform = this.uniformCells;
      for (let d = 0, o = outStart; d < this.dstWidth; d++, o += 3) {
        const first = cellStart[d];
        const end = cellStart[d + 1];
        // A cell whose source pixels are all one colour (most of an Atari picture) reads its sums from the table.
        const s0 = rowStart + src[first];
        const r = image[s0];
        const g = image[s0 + 1];
        const b = image[s0 + 2];
        let k = first + 1;
        for (; k < end; k++) {
          const s = rowStart + src[k];
          if (image[s] !== r || image[s + 1] !== g || image[s + 2] !== b) break;
        }
        if (k === end) {
          buf[o] = uniform[d * 256 + r];
          buf[o + 1] = uniform[d * 256 + g];
          buf[o + 2] = uniform[d * 256 + b];
          continue;
        }
        let t0 = 0;
        let t1 = 0;
        let t2 = 0;
        for (let k = first; k < end; k++) {
          const s = rowStart + src[k];
          const alpha = weight[k];
          t0 = fround(t0 + fround(image[s] * alpha));
          t1 = fround(t1 + fround(image[s + 1] * alpha));
          t2 = fround(t2 + fround(image[s + 2] * alpha));
        }
        buf[o] = t0;
        buf[o + 1] = t1;
        buf[o + 2] = t2;
      }
      return;
    }
    for (let d = 0, o = outStart; d < this.dstWidth; d++, o += cn) {
      for (let c = 0; c < cn; c++) {
        let t = 0;
        for (let k = cellStart[d], end = cellStart[d + 1]; k < end; k++)
          t = fround(t + fround(image[rowStart + src[k] + c] * weight[k]));
        buf[o + c] = t;
      }
    }
  }

  private blockMean(image: Uint8Array, out: Uint8Array, scaleX: number, scaleY: number): void {
    const cn = this.channels;
    const srcRowLength = this.srcWidth * cn;
    const area = scaleX * scaleY;
    const inverseArea = Math.fround(1 / area);
    // OpenCV's vectorized fast mode covers 2x2 blocks of 1, 3 or 4 channels; the rest takes the scalar path.
    const twoByTwo = scaleX === 2 && scaleY === 2 && cn !== 2;
    const clamped = new Uint8ClampedArray(out.buffer, out.byteOffset, out.length);
    let o = 0;
    for (let dy = 0; dy < this.dstHeight; dy++) {
      for (let dx = 0; dx < this.dstWidth; dx++) {
        for (let c = 0; c < cn; c++) {
          let total = 0;
          for (let sy = dy * scaleY; sy < (dy + 1) * scaleY; sy++) {
            const rowStart = sy * srcRowLength + c;
            for (let sx = dx * scaleX; sx < (dx + 1) * scaleX; sx++) total += image[rowStart + sx * cn];
          }
          if (twoByTwo) out[o++] = (total + 2) >> 2;
          else clamped[o++] = Math.fround(total * inverseArea);
        }
      }
    }
  }
}

/** Whether words a..a+n of `x` equal words b..b+n of `y` (compared four at a time while four remain). */
function sameWords(x: Uint32Array, a: number, y: Uint32Array, b: number, n: number): boolean {
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    if (
      ((x[a + i] ^ y[b + i]) |
        (x[a + i + 1] ^ y[b + i + 1]) |
        (x[a + i + 2] ^ y[b + i + 2]) |
        (x[a + i + 3] ^ y[b + i + 3])) !==
      0
    )
      return false;
  }
  for (; i < n; i++) if (x[a + i] !== y[b + i]) return false;
  return true;
}

/** Whether bytes a..a+n of `x` equal bytes b..b+n of `y`. */
function sameBytes(x: Uint8Array, a: number, y: Uint8Array, b: number, n: number): boolean {
  for (let i = 0; i < n; i++) if (x[a + i] !== y[b + i]) return false;
  return true;
}

/**
 * OpenCV's fixed-point RGB -> gray for uint8 (`cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)`, OpenCV 4):
 * Y = (9798 R + 19235 G + 3735 B + 2^14) >> 15, the BT.601 weights 0.299 / 0.587 / 0.114 scaled by 2^15 and
 * rounded (they sum to exactly 2^15, so white stays 255). Writes one gray value per pixel into `out`. Checked
 * against cv2 4.14.0 and 5.0.0 on 200,000 random pixels.
 */
export function rgbToGray(rgb: ArrayLike<number>, out = new Uint8Array(rgb.length / 3)): Uint8Array {
  const pixels = out.length;
  if (rgb.length !== pixels * 3) throw new RangeError(`rgbToGray: ${rgb.length} values are not ${pixels} RGB pixels`);
  for (let i = 0, j = 0; i < pixels; i++, j += 3)
    out[i] = (rgb[j] * 9798 + rgb[j + 1] * 19235 + rgb[j + 2] * 3735 + 16384) >> 15;
  return out;
}

/**
 * Resizes image observations to `shape` = [height, width] with area interpolation, as Gymnasium 0.29's
 * `ResizeObservation` (`cv2.resize(obs, shape[::-1], interpolation=cv2.INTER_AREA)`; see AreaResize). Takes
 * [H, W] or [H, W, C] uint8 Boxes; the new space is `Box(0, 255, [height, width, ...C], uint8)`.
 */
export class ResizeObservation<Act = number> extends ObservationWrapper<Uint8Array, Act, Uint8Array> {
  readonly shape: [height: number, width: number];
  private readonly resizer: AreaResize;

  constructor(env: Env<Uint8Array, Act> | Env, shape: number | readonly [number, number]) {
    const box = boxOf(env, "ResizeObservation");
    super(env as Env<Uint8Array, Act>);
    this.shape = typeof shape === "number" ? [shape, shape] : [shape[0], shape[1]];
    if (!this.shape.every((v) => Number.isInteger(v) && v > 0))
      throw new RangeError(`ResizeObservation: expected 2 positive integers, got ${shape}`);
    const dims = box.shape.length;
    if (dims !== 2 && dims !== 3)
      throw new RangeError(
        `ResizeObservation: expected a 2 or 3 dimensional observation space, got ${dims} dimensions`,
      );
    const channels = dims === 3 ? box.shape[2] : 1;
    this.resizer = new AreaResize(box.shape[0], box.shape[1], this.shape[0], this.shape[1], channels);
    this.observationSpace = new Box(0, 255, [...this.shape, ...box.shape.slice(2)], "uint8") as Box &
      typeof this.observationSpace;
  }

  observation(obs: Uint8Array): Uint8Array {
    return this.resizer.apply(obs);
  }
}

/**
 * Converts RGB observations to grayscale, as Gymnasium 0.29's `GrayScaleObservation` (cv2's COLOR_RGB2GRAY;
 * see rgbToGray). Takes a [H, W, 3] uint8 Box; the new space is Box(0, 255, [H, W], uint8), or [H, W, 1]
 * with `keepDim`.
 */
export class GrayScaleObservation<Act = number> extends ObservationWrapper<Uint8Array, Act, Uint8Array> {
  constructor(
    env: Env<Uint8Array, Act> | Env,
    readonly keepDim = false,
  ) {
    const box = boxOf(env, "GrayScaleObservation");
    if (box.shape.length !== 3 || box.shape[2] !== 3)
      throw new RangeError(`GrayScaleObservation: expected a [H, W, 3] observation space, got [${box.shape}]`);
    super(env as Env<Uint8Array, Act>);
    const [height, width] = box.shape;
    this.observationSpace = new Box(0, 255, keepDim ? [height, width, 1] : [height, width], "uint8") as Box &
      typeof this.observationSpace;
  }

  observation(obs: Uint8Array): Uint8Array {
    return rgbToGray(obs);
  }
}

/**
 * Stacks the last `numStack` observations along a new first axis, as Gymnasium 0.29's `FrameStack`: the
 * observation is [numStack, ...shape], oldest frame first, and `reset` fills every slot with the reset
 * observation. Instead of LazyFrames each observation is one contiguous array of the space's dtype, built
 * from a ring of the last frames (one copy per frame in, one per observation out).
 */
export class FrameStack<Act = number> extends Wrapper<TypedArray, Act, TypedArray, Act> {
  private readonly frames: TypedArray[];
  /** Ring index of the oldest frame. */
  private oldest = 0;
  private readonly frameSize: number;

  constructor(
    env: Env<TypedArray, Act> | Env,
    readonly numStack: number,
  ) {
    const box = boxOf(env, "FrameStack");
    super(env as Env<TypedArray, Act>);
    if (!Number.isInteger(numStack) || numStack < 1)
      throw new RangeError(`FrameStack: numStack must be a positive integer, got ${numStack}`);
    this.frameSize = box.size;
    this.frames = Array.from({ length: numStack }, () => zerosOf(box.dtype, box.size));
    const repeat = (values: TypedArray) => {
      const out = zerosOf(box.dtype, values.length * numStack);
      for (let i = 0; i < numStack; i++) out.set(values, i * values.length);
      return out;
    };
    this.observationSpace = new Box(repeat(box.low), repeat(box.high), [numStack, ...box.shape], box.dtype);
  }

  override reset(args: ResetArgs = {}): [TypedArray, Info] {
    const [obs, info] = this.env.reset(args);
    for (const frame of this.frames) frame.set(obs);
    this.oldest = 0;
    return [this.stacked(), info];
  }

  override step(action: Act): StepResult<TypedArray> {
    const result = this.env.step(action);
    // The new frame replaces the oldest, which makes the next slot the oldest.
    this.frames[this.oldest].set(result[0]);
    this.oldest = (this.oldest + 1) % this.numStack;
    result[0] = this.stacked();
    return result;
  }

  private stacked(): TypedArray {
    const out = zerosOf(this.observationSpace.dtype, this.numStack * this.frameSize);
    for (let i = 0; i < this.numStack; i++) out.set(this.frames[(this.oldest + i) % this.numStack], i * this.frameSize);
    return out;
  }
}
