import { test } from "node:test";
import assert from "node:assert/strict";

import { Env, type Info, type ResetArgs, type StepResult } from "../envs/gymnasium/core.ts";
import {
  AreaResize,
  ClipRewardEnv,
  EpisodicLifeEnv,
  FireResetEnv,
  FrameStack,
  GrayScaleObservation,
  MaxAndSkipEnv,
  maxInto,
  NoopResetEnv,
  ResizeObservation,
  rgbToGray,
} from "../envs/gymnasium/atari_wrappers.ts";
import { RandomGenerator, npRandom } from "../envs/torch/rng.ts";
import { Box, Discrete, type Space, type TypedArray } from "../envs/gymnasium/spaces.ts";
import { RecordEpisodeStatistics } from "../envs/gymnasium/wrappers.ts";
import { countingObservations } from "./helpers.ts";
import { referenceAreaResize } from "./reference_atari_wrappers.ts";

const HEIGHT = 210;
const WIDTH = 160;
const FRAME_SIZE = HEIGHT * WIDTH * 3;

interface FakeAtariOptions {
  meanings?: string[];
  lives?: number;
  /** Frame numbers (1-based, counted within the game) at which a life is lost. */
  lifeLostAt?: number[];
  /** The game is over (terminated) at this frame of the game. */
  gameOverAt?: number;
  /** Reward of the game's n-th frame (1-based); 0 for frames not listed. */
  rewards?: Record<number, number>;
  /** Pixel j of the game's frame t; by default it alternates between `t` and `100 + t` across pixels. */
  pixel?: (t: number, j: number) => number;
}

/**
 * An Atari-like env: 210x160x3 uint8 frames whose content is a function of the frame number within the
 * game, a lives counter reported in every info as ale-py does, scheduled life losses, rewards and game over.
 * It records every action it receives and counts its resets.
 */
class FakeAtari extends Env<Uint8Array, number> {
  observationSpace = new Box(0, 255, [HEIGHT, WIDTH, 3], "uint8") as Box & Space<Uint8Array>;
  actionSpace: Space<number>;
  readonly actions: number[] = [];
  resets = 0;
  frame = 0;
  lives: number;

  constructor(readonly options: FakeAtariOptions = {}) {
    super();
    this.actionSpace = new Discrete((options.meanings ?? ["NOOP", "FIRE", "RIGHT", "LEFT"]).length);
    this.lives = options.lives ?? 3;
  }
  getActionMeanings(): string[] {
    return this.options.meanings ?? ["NOOP", "FIRE", "RIGHT", "LEFT"];
  }
  static pixel(t: number, j: number): number {
    return (j % 2 === t % 2 ? 100 + t : t) & 255;
  }
  observe(): Uint8Array {
    const pixel = this.options.pixel ?? FakeAtari.pixel;
    return Uint8Array.from({ length: FRAME_SIZE }, (_, j) => pixel(this.frame, j));
  }
  override reset(args: ResetArgs = {}): [Uint8Array, Info] {
    super.reset(args);
    this.resets += 1;
    this.frame = 0;
    this.lives = this.options.lives ?? 3;
    return [this.observe(), { lives: this.lives }];
  }
  step(action: number): StepResult<Uint8Array> {
    this.actions.push(action);
    this.frame += 1;
    if (this.options.lifeLostAt?.includes(this.frame)) this.lives -= 1;
    const reward = this.options.rewards?.[this.frame] ?? 0;
    const terminated = this.frame === this.options.gameOverAt;
    return [this.observe(), reward, terminated, false, { lives: this.lives, frame: this.frame }];
  }
}

/** Only the first pixels vary, so these tests stay fast; the rest of the frame is 0. */
const sparse = (pixel: (t: number, j: number) => number) => (t: number, j: number) => (j < 8 ? pixel(t, j) : 0);

test("NoopResetEnv takes between 1 and 30 no-ops, drawn from the unwrapped env's generator after its reset", () => {
  const counts = new Set<number>();
  for (let seed = 0; seed < 40; seed++) {
    const inner = new FakeAtari({ pixel: sparse(FakeAtari.pixel) });
    new NoopResetEnv(inner, 30).reset({ seed });
    assert.ok(inner.actions.every((a) => a === 0));
    // The fake env draws nothing in reset, so the count is the first draw of a generator seeded with `seed`.
    assert.equal(inner.actions.length, npRandom(seed)[0].integers(1, 31), `seed ${seed}`);
    assert.ok(inner.actions.length >= 1 && inner.actions.length <= 30);
    counts.add(inner.actions.length);
  }
  assert.ok(counts.size > 5, `40 seeds gave only the counts ${[...counts]}`);
});

test("NoopResetEnv resets again when the episode ends during the no-ops, and keeps counting", () => {
  const inner = new FakeAtari({ gameOverAt: 3, pixel: sparse(FakeAtari.pixel) });
  const env = new NoopResetEnv(inner);
  env.overrideNumNoops = 5;
  const [obs] = env.reset();
  assert.equal(inner.actions.length, 5);
  assert.equal(inner.resets, 2); // the initial reset and the one after the game over at no-op 3
  assert.equal(inner.frame, 2); // no-ops 4 and 5 ran in the new game
  assert.equal(obs[0], FakeAtari.pixel(2, 0));
});

test("NoopResetEnv requires action 0 to be NOOP", () => {
  assert.throws(() => new NoopResetEnv(new FakeAtari({ meanings: ["FIRE", "NOOP"] })), /NOOP/);
});

test("MaxAndSkipEnv repeats the action 4 times, sums the rewards and max-pools exactly the last two frames", () => {
  // Frame t shows 100 + t on pixels of t's parity and t elsewhere, so frames 3 and 4 each win on half the
  // pixels, and frame 1 (101 on odd pixels) would win where frame 3 (103) does not if it were pooled too.
  const inner = new FakeAtari({
    rewards: { 1: 1, 2: 10, 3: 100, 4: 1000, 5: 5 },
    pixel: (t, j) => FakeAtari.pixel(t, j % 4),
  });
  const env = new MaxAndSkipEnv(inner, 4);
  env.reset();
  const [obs, reward, terminated, truncated] = env.step(3);
  assert.deepEqual(inner.actions, [3, 3, 3, 3]);
  assert.equal(reward, 1111);
  assert.equal(terminated || truncated, false);
  // Even pixels: frame 4 shows 104, frame 3 shows 3; odd pixels: frame 3 shows 103, frame 4 shows 4.
  assert.deepEqual(Array.from(obs.subarray(0, 4)), [104, 103, 104, 103]);
  assert.equal(obs.length, FRAME_SIZE);
});

test("MaxAndSkipEnv stops repeating when the episode ends", () => {
  const inner = new FakeAtari({ gameOverAt: 6, rewards: { 5: 2, 6: 3, 7: 50 }, pixel: sparse(FakeAtari.pixel) });
  const env = new MaxAndSkipEnv(inner, 4);
  env.reset();
  env.step(0);
  const [, reward, terminated] = env.step(0);
  assert.equal(inner.actions.length, 6);
  assert.equal(reward, 5);
  assert.equal(terminated, true);
});

test("MaxAndSkipEnv builds observations only for the two frames it pools", () => {
  const Counting = countingObservations(FakeAtari);
  const inner = new Counting({ rewards: { 1: 1, 2: 10, 3: 100, 4: 1000 } });
  const env = new MaxAndSkipEnv(inner, 4);
  env.reset();
  assert.equal(env.step(0)[1], 1111);
  assert.equal(inner.observations, 2);
  assert.equal(inner.actions.length, 4);
});

test("maxInto is the byte-wise max for every pair of byte values in every byte lane, aligned or not", () => {
  const a = new Uint8Array(4 * 65536 + 3);
  const b = new Uint8Array(a.length);
  for (let i = 0; i < a.length; i++) {
    // Each (x, y) pair appears in all four lanes of a 32-bit word.
    const pair = Math.floor(i / 4) % 65536;
    a[i] = pair >> 8;
    b[i] = (pair + (i % 4) * 4099) & 0xff;
  }
  for (const offset of [0, 1]) {
    const out = a.slice(offset);
    maxInto(out, b.subarray(offset));
    assert.ok(
      out.every((v, i) => v === Math.max(a[i + offset], b[i + offset])),
      `offset ${offset}`,
    );
  }
});

test("maxInto skips equal stretches and handles the words and bytes past the last sixteen-byte block", () => {
  const rng = new RandomGenerator(3);
  for (let length = 0; length < 90; length++) {
    const a = Uint8Array.from({ length }, () => rng.integers(0, 256));
    // Most words equal, as in consecutive frames, some differing in one byte.
    const b = a.slice();
    for (let i = 0; i < length; i++) if (rng.random() < 0.05) b[i] = rng.integers(0, 256);
    const out = a.slice();
    maxInto(out, b);
    assert.deepEqual(
      out,
      Uint8Array.from(a, (v, i) => Math.max(v, b[i])),
      `length ${length}`,
    );
  }
});

test("EpisodicLifeEnv ends the episode on a life loss without resetting the game", () => {
  const inner = new FakeAtari({ lives: 3, lifeLostAt: [2], pixel: sparse(FakeAtari.pixel) });
  const env = new EpisodicLifeEnv(inner);
  env.reset();
  assert.equal(env.step(2)[2], false);
  const [, , terminated, , info] = env.step(2);
  assert.equal(terminated, true);
  assert.equal(info.lives, 2);
  // The "reset" after a lost life only takes a no-op step: same game, one frame further.
  const [obs] = env.reset();
  assert.equal(inner.resets, 1);
  assert.deepEqual(inner.actions, [2, 2, 0]);
  assert.equal(obs[0], FakeAtari.pixel(3, 0));
});

test("EpisodicLifeEnv resets the game for real after a game over", () => {
  const inner = new FakeAtari({ lives: 1, gameOverAt: 2, pixel: sparse(FakeAtari.pixel) });
  const env = new EpisodicLifeEnv(inner);
  env.reset();
  env.step(1);
  assert.equal(env.step(1)[2], true);
  env.reset();
  assert.equal(inner.resets, 2);
  assert.deepEqual(inner.actions, [1, 1]);
});

test("EpisodicLifeEnv does not signal a life loss that leaves 0 lives (the game over comes from the game)", () => {
  const inner = new FakeAtari({ lives: 1, lifeLostAt: [1], gameOverAt: 3, pixel: sparse(FakeAtari.pixel) });
  const env = new EpisodicLifeEnv(inner);
  env.reset();
  assert.equal(env.step(0)[2], false);
  assert.equal(env.step(0)[2], false);
  assert.equal(env.step(0)[2], true);
});

test("EpisodicLifeEnv treats a bonus life as no loss", () => {
  const inner = new FakeAtari({ lives: 2, lifeLostAt: [2], pixel: sparse(FakeAtari.pixel) });
  const env = new EpisodicLifeEnv(inner);
  env.reset();
  inner.lives = 4; // a bonus life between steps
  assert.equal(env.step(0)[2], false);
  assert.equal(env.step(0)[2], true); // 4 -> 3
});

test("EpisodicLifeEnv reads the lives from unwrapped.ale.lives() when the env has an ALE, as SB3", () => {
  // The info says nothing about lives here (FireResetEnv below it would hand up an empty reset info, too).
  class WithAle extends FakeAtari {
    readonly ale = { lives: () => this.lives };
    override step(action: number): StepResult<Uint8Array> {
      const result = super.step(action);
      result[4] = {};
      return result;
    }
  }
  const env = new EpisodicLifeEnv(new WithAle({ lives: 3, lifeLostAt: [2], pixel: sparse(FakeAtari.pixel) }));
  env.reset();
  assert.equal(env.step(0)[2], false);
  assert.equal(env.step(0)[2], true);
});

test("FireResetEnv presses FIRE (action 1) and then action 2 after each reset", () => {
  const inner = new FakeAtari({ pixel: sparse(FakeAtari.pixel) });
  const env = new FireResetEnv(inner);
  const [obs, info] = env.reset();
  assert.deepEqual(inner.actions, [1, 2]);
  assert.deepEqual(info, {});
  assert.equal(obs[0], FakeAtari.pixel(2, 0));
});

test("FireResetEnv requires FIRE as action 1 and at least 3 actions", () => {
  assert.throws(() => new FireResetEnv(new FakeAtari({ meanings: ["NOOP", "RIGHT", "LEFT"] })), /FIRE/);
  assert.throws(() => new FireResetEnv(new FakeAtari({ meanings: ["NOOP", "FIRE"] })), /3 actions/);
});

test("ClipRewardEnv bins rewards to their sign", () => {
  const inner = new FakeAtari({ rewards: { 1: 5, 2: -3, 3: 0, 4: 0.5 }, pixel: sparse(FakeAtari.pixel) });
  const env = new ClipRewardEnv(inner);
  env.reset();
  const rewards = [1, 2, 3, 4].map(() => env.step(0)[1]);
  assert.deepEqual(rewards, [1, -1, 0, 1]);
});

test("AreaResize 5x5 -> 2x2 weighs each pixel by the part of the output cell it covers", () => {
  // Scale 2.5: output cell 0 covers pixels 0 and 1 fully and half of pixel 2 (weights .4 .4 .2 of the cell),
  // cell 1 covers the other half of pixel 2 and pixels 3 and 4 (.2 .4 .4). With a[y][x] = 10 y + x, a cell's
  // mean is 10 * mean(y) + mean(x), and mean(coordinate) is .4*0 + .4*1 + .2*2 = 0.8 for cell 0 and
  // .2*2 + .4*3 + .4*4 = 3.2 for cell 1: [[8.8, 11.2], [32.8, 35.2]], rounded.
  const image = Uint8Array.from({ length: 25 }, (_, i) => 10 * Math.floor(i / 5) + (i % 5));
  assert.deepEqual(Array.from(new AreaResize(5, 5, 2, 2, 1).apply(image)), [9, 11, 33, 35]);
});

test("AreaResize keeps channels apart and a constant image constant", () => {
  const image = Uint8Array.from({ length: HEIGHT * WIDTH * 3 }, (_, i) => [137, 0, 255][i % 3]);
  const out = new AreaResize(HEIGHT, WIDTH, 84, 84, 3).apply(image);
  for (let i = 0; i < out.length; i++) assert.equal(out[i], [137, 0, 255][i % 3]);
});

/** The box-filter definition: the mean of `values` over [start, start + width), pixel i spanning [i, i + 1). */
function coverageMean(values: (i: number) => number, size: number, start: number, width: number): number {
  let total = 0;
  for (let i = 0; i < size; i++) total += Math.max(0, Math.min(i + 1, start + width) - Math.max(i, start)) * values(i);
  return total / width;
}

test("AreaResize 210x160 -> 84x84 matches the coverage-weighted mean on gradients (non-integer ratios)", () => {
  const resize = new AreaResize(HEIGHT, WIDTH, 84, 84, 1);
  const horizontal = resize.apply(Uint8Array.from({ length: HEIGHT * WIDTH }, (_, i) => i % WIDTH));
  const vertical = resize.apply(Uint8Array.from({ length: HEIGHT * WIDTH }, (_, i) => Math.floor(i / WIDTH)));
  let compared = 0;
  for (let d = 0; d < 84; d++) {
    const expectedX = coverageMean((i) => i, WIDTH, (d * WIDTH) / 84, WIDTH / 84);
    const expectedY = coverageMean((i) => i, HEIGHT, (d * HEIGHT) / 84, HEIGHT / 84);
    // Near-ties (x.5) depend on float32 rounding inside OpenCV's sums; every other value is unambiguous.
    if (Math.abs((expectedX % 1) - 0.5) > 0.01) {
      for (let y = 0; y < 84; y++) assert.equal(horizontal[y * 84 + d], Math.round(expectedX), `column ${d}`);
      compared++;
    }
    if (Math.abs((expectedY % 1) - 0.5) > 0.01) {
      for (let x = 0; x < 84; x++) assert.equal(vertical[d * 84 + x], Math.round(expectedY), `row ${d}`);
      compared++;
    }
  }
  assert.ok(compared > 120, `only ${compared} rows/columns were unambiguous`);
});

test("AreaResize reuses equal rows and output rows bit-exactly (runs of equal rows, random contents)", () => {
  // Images made of runs of equal rows (1 to 12 long, some runs repeating earlier content) exercise the row reuse;
  // the frozen reference recomputes everything.
  const rng = new RandomGenerator(5);
  const resize = new AreaResize(HEIGHT, WIDTH, 84, 84, 3);
  const gray = new AreaResize(HEIGHT, WIDTH, 84, 84, 1);
  for (let k = 0; k < 20; k++) {
    const image = new Uint8Array(FRAME_SIZE);
    const levels = 1 + rng.integers(0, 255);
    let row = new Uint8Array(WIDTH * 3);
    for (let y = 0; y < HEIGHT; ) {
      if (rng.random() < 0.7)
        row = Uint8Array.from(row, () => (rng.integers(0, levels) * 255) / Math.max(1, levels - 1));
      for (let n = 1 + rng.integers(0, 12); n > 0 && y < HEIGHT; n--, y++) image.set(row, y * WIDTH * 3);
    }
    assert.deepEqual(resize.apply(image), referenceAreaResize(image, HEIGHT, WIDTH, 84, 84, 3));
    const plane = image.subarray(1, 1 + HEIGHT * WIDTH); // not 4-byte aligned: rows compare byte by byte
    assert.deepEqual(gray.apply(plane), referenceAreaResize(plane, HEIGHT, WIDTH, 84, 84, 1));
  }
});

test("AreaResize over a sequence of images that change a few rows at a time, rows equal to the one above or not", () => {
  // Each image is the last one with a few rows changed: rewritten, made a copy of the row above or below, or one
  // pixel touched. The resizer keeps what it computed for unchanged rows; the frozen reference recomputes everything.
  const rng = new RandomGenerator(9);
  const rowBytes = WIDTH * 3;
  const resize = new AreaResize(HEIGHT, WIDTH, 84, 84, 3);
  const unaligned = new AreaResize(HEIGHT, WIDTH, 84, 84, 3);
  const backing = new Uint8Array(FRAME_SIZE + 1);
  const image = backing.subarray(1); // not 4-byte aligned: rows compare byte by byte
  const check = (label: string) => {
    const expected = referenceAreaResize(image, HEIGHT, WIDTH, 84, 84, 3);
    assert.deepEqual(resize.apply(image.slice()), expected, label);
    assert.deepEqual(unaligned.apply(image), expected, `${label} (unaligned)`);
  };
  // Rows 5-8 stay the same while rows 2-4 above them change: whether row 5 equals the row above must be looked at
  // again (output row 3, over rows 7-9, is recomputed for row 9 and would copy output row 1 if rows 2-9 seemed one run).
  image.fill(10);
  image.fill(200, 9 * rowBytes, 10 * rowBytes);
  check("rows 0-8 equal");
  image.fill(90, 2 * rowBytes, 5 * rowBytes);
  image.fill(10, 9 * rowBytes, 10 * rowBytes);
  check("rows 2-4 and 9 changed");
  for (let y = 0; y < HEIGHT; y++) image.fill(rng.integers(0, 4) * 60, y * rowBytes, (y + 1) * rowBytes);
  for (let k = 0; k < 40; k++) {
    for (let c = rng.integers(0, 6); c > 0; c--) {
      const y = rng.integers(1, HEIGHT - 1);
      const kind = rng.integers(0, 4);
      if (kind === 0) image.copyWithin(y * rowBytes, (y - 1) * rowBytes, y * rowBytes);
      else if (kind === 1) image.copyWithin(y * rowBytes, (y + 1) * rowBytes, (y + 2) * rowBytes);
      else if (kind === 2) image[y * rowBytes + rng.integers(0, rowBytes)] ^= 0x40;
      else for (let x = 0; x < rowBytes; x++) image[y * rowBytes + x] = rng.integers(0, 256);
    }
    check(`image ${k}`);
  }
});

test("AreaResize with an integer ratio is the block mean", () => {
  // 4x6 -> 2x2: 2x3 blocks; block sums 0+1+2+6+7+8 = 24 (mean 4), 3+4+5+9+10+11 = 42 (mean 7), and +72 for the
  // blocks below (means 16 and 19).
  const image = Uint8Array.from({ length: 24 }, (_, i) => i);
  assert.deepEqual(Array.from(new AreaResize(4, 6, 2, 2, 1).apply(image)), [4, 7, 16, 19]);
});

test("AreaResize refuses to enlarge", () => {
  assert.throws(() => new AreaResize(10, 10, 20, 5, 1), /downscaling/);
});

test("rgbToGray uses OpenCV's 15-bit fixed-point weights and rounding", () => {
  // (9798 R + 19235 G + 3735 B + 16384) >> 15, by hand:
  //   (255, 0, 0):   2498490 + 16384 = 2514874; 76 * 32768 = 2490368 <= it < 77 * 32768 -> 76
  //   (0, 5, 119):   96175 + 444465 + 16384 = 557024 < 17 * 32768 = 557056 -> 16 (float 16.501 would give 17)
  //   (5, 5, 255):   48990 + 96175 + 952425 + 16384 = 1113974 < 34 * 32768 = 1114112 -> 33 (float 33.5)
  //   (255, 255, 255): 32768 * 255 + 16384 -> 255
  const rgb = Uint8Array.of(255, 0, 0, 0, 5, 119, 5, 5, 255, 255, 255, 255);
  assert.deepEqual(Array.from(rgbToGray(rgb)), [76, 16, 33, 255]);
});

test("ResizeObservation and GrayScaleObservation give uint8 Boxes of the new shapes", () => {
  const resized = new ResizeObservation(new FakeAtari(), [84, 84]);
  assert.equal(resized.observationSpace.toString(), "Box(0, 255, (84, 84, 3), uint8)");
  assert.equal(new GrayScaleObservation(resized).observationSpace.toString(), "Box(0, 255, (84, 84), uint8)");
  assert.equal(new GrayScaleObservation(resized, true).observationSpace.toString(), "Box(0, 255, (84, 84, 1), uint8)");
  assert.equal(
    new ResizeObservation(new FakeAtari(), 42).observationSpace.toString(),
    "Box(0, 255, (42, 42, 3), uint8)",
  );
});

test("GrayScaleObservation requires [H, W, 3] observations", () => {
  const gray = new GrayScaleObservation(new FakeAtari());
  assert.throws(() => new GrayScaleObservation(gray), /\[H, W, 3\]/);
});

/** A tiny Box env whose observation is [t, t + 0.5] after t steps. */
class Counter extends Env<Float32Array, number> {
  observationSpace = new Box([-1, 0], [10, 20], [2], "float32") as Box & Space<Float32Array>;
  actionSpace = new Discrete(2);
  t = 0;
  override reset(args: ResetArgs = {}): [Float32Array, Info] {
    super.reset(args);
    this.t = 0;
    return [Float32Array.of(0, 0.5), {}];
  }
  step(): StepResult<Float32Array> {
    this.t += 1;
    return [Float32Array.of(this.t, this.t + 0.5), 0, false, false, {}];
  }
}

test("FrameStack repeats the reset observation and then stacks the last frames, oldest first", () => {
  const env = new FrameStack(new Counter(), 3);
  const [obs] = env.reset();
  assert.deepEqual(Array.from(obs), [0, 0.5, 0, 0.5, 0, 0.5]);
  env.step(0);
  assert.deepEqual(Array.from(env.step(0)[0]), [0, 0.5, 1, 1.5, 2, 2.5]);
  assert.deepEqual(Array.from(env.step(0)[0]), [1, 1.5, 2, 2.5, 3, 3.5]);
  assert.ok(env.step(0)[0] instanceof Float32Array);
  assert.deepEqual(Array.from(env.reset()[0]), [0, 0.5, 0, 0.5, 0, 0.5]);
});

test("FrameStack's space stacks the inner bounds along a new first axis", () => {
  const space = new FrameStack(new Counter(), 3).observationSpace as Box;
  assert.deepEqual(space.shape, [3, 2]);
  assert.deepEqual(Array.from(space.low), [-1, 0, -1, 0, -1, 0]);
  assert.deepEqual(Array.from(space.high), [10, 20, 10, 20, 10, 20]);
});

test("CleanRL's wrapper stack gives [4, 84, 84] uint8 observations and logs raw, unclipped scores", () => {
  const inner = new FakeAtari({ lives: 2, lifeLostAt: [9], gameOverAt: 30, rewards: { 2: 7, 10: -3, 20: 40 } });
  let env: Env = new RecordEpisodeStatistics(inner);
  env = new NoopResetEnv(env, 30);
  env = new MaxAndSkipEnv(env, 4);
  env = new EpisodicLifeEnv(env);
  env = new FireResetEnv(env);
  env = new ClipRewardEnv(env);
  env = new ResizeObservation(env, [84, 84]);
  env = new GrayScaleObservation(env);
  env = new FrameStack(env, 4);
  assert.equal(env.observationSpace.toString(), "Box(0, 255, (4, 84, 84), uint8)");
  env.reset({ seed: 1 });
  const episodes: number[] = [];
  for (let i = 0; i < 40 && episodes.length === 0; i++) {
    const [obs, reward, terminated, truncated, info] = env.step(2) as StepResult<TypedArray>;
    assert.ok(obs instanceof Uint8Array && env.observationSpace.contains(obs));
    assert.ok([-1, 0, 1].includes(reward));
    const episode = info.episode as { r: number } | undefined;
    if (episode !== undefined) episodes.push(episode.r);
    if (terminated || truncated) env.reset();
  }
  assert.deepEqual(episodes, [7 - 3 + 40]);
});
