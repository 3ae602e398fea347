// envs/procgen/ against the C++ original of procgen 0.10.7, driven through libenv by benchmark/procgen_reference.cpp.
//
//   benchmark/procgen_reference_build.sh PROCGEN_GIT_DIR GYM3_GIT_DIR SCRATCH      (once: builds the original)
//   npx tsx benchmark/procgen_fidelity.ts --record --reference SCRATCH [--games ...] (runs it, writes the fixtures)
//   npx tsx benchmark/procgen_fidelity.ts [--reference SCRATCH] [--games ...] [--steps 1000]     (compares)
//   npx tsx benchmark/procgen_fidelity.ts --speed --reference SCRATCH [--games ...] [--rounds 2]  (steps/s)
//
// With `--generated-assets` the record and the comparison are of use_generated_assets (easy mode only): fixtures
// <game>_easy_generated.json, raw runs <game>_easy_generated_{first,traj}.bin. With `--render-human` they are of
// the 512x512 frames render_mode="rgb_array" draws (libenv's render_human, info "rgb"; ours: the game's render()),
// easy mode: the first frames of RENDER_FIRST_ENVS levels and RENDER_STEPS steps of the trajectory run's 5 envs,
// fixtures <game>_easy_render.json (a checksum per frame), raw runs <game>_easy_render_{first,traj}.bin.hires.
// Per game and distribution mode (easy, hard and each game's extra modes) the original runs twice with rand_seed 1
// and every other option at ProcgenGym3Env's defaults: 20 envs for their first observations (20 level seeds),
// and 5 envs for 1000 vector steps of seeded-random actions (a std::mt19937 seeded with the rand_seed, one draw per
// env per step, action = draw mod 15). Envs 0-4 of both runs get the same level seeds.
// `--record` keeps the raw runs in SCRATCH/recordings and writes the compact fixtures to tests/fixtures/procgen/
// (FNV-1a checksums of observations, the steps where reward, first or level seeds change, and a checksum chain of
// the observations every 10 steps). The comparison reads the raw runs when SCRATCH is given (then it also counts
// differing pixels), else the fixtures, and prints one Markdown row per game and mode: first frames identical,
// trajectory steps identical in rewards / dones / level seeds, steps identical in observations, pixels differing.
// `--speed` times env steps per CPU second (each side's own process CPU time, so that other work on a shared machine
// does not count), easy mode, seeded-random actions, observations rendered, one thread: our ProcgenEnv and libenv
// (num_threads 0) with 1 env (10000 steps) and with 64 envs (300 vector steps), alternating ours and the original
// `--rounds` times; it prints the medians, their ratio, and the ratio of the best rounds. Both load their images
// before the clock starts (libenv at make, ours by decoding the game's files); ours is timed as it runs in a
// training run: one game per process, warm (an untimed round per env count, 2000 untimed env steps per round).

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { bool, int, parseArgs, str } from "../envs/run/cli.ts";
import { runMain } from "../envs/run/main.ts";
import { imageLoader, loadImage, neededFiles } from "../envs/procgen/assets.ts";
import { OBS_SIZE, ProcgenEnv } from "../envs/procgen/env.ts";
import { RENDER_RES } from "../envs/procgen/game.ts";
import { ENV_NAMES } from "../envs/procgen/games/index.ts";
import { Mt19937 } from "../envs/procgen/mt19937.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const FIXTURE_DIR = join(ROOT, "tests/fixtures/procgen");
export const RAND_SEED = 1;
export const FIRST_ENVS = 20;
export const TRAJ_ENVS = 5;
export const TRAJ_STEPS = 1000;
/** Observation checksums are chained and kept every CHAIN_EVERY steps. */
export const CHAIN_EVERY = 10;
const RECORD_BYTES = 20 + OBS_SIZE;
export const RENDER_FIRST_ENVS = 4;
export const RENDER_STEPS = 10;
const HIRES_BYTES = RENDER_RES * RENDER_RES * 3;

/** procgen's distribution_mode numbers (game.h). */
export const MODE_NUMBERS: Record<string, number> = { easy: 0, hard: 1, extreme: 2, memory: 10 };
const EXTREME = ["chaser", "dodgeball", "leaper", "starpilot"];
const MEMORY = ["caveflyer", "dodgeball", "heist", "jumper", "maze", "miner"];

/** The modes a game accepts (procgen's Game::parse_options). */
export function modesOf(game: string): string[] {
  return ["easy", "hard", ...(EXTREME.includes(game) ? ["extreme"] : []), ...(MEMORY.includes(game) ? ["memory"] : [])];
}

/** 32-bit FNV-1a of `bytes`, continuing from `h`. */
export function fnv1a(bytes: Uint8Array, h = 0x811c9dc5, start = 0, end = bytes.length): number {
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h >>> 0;
}

function chainStep(chain: number, obsHash: number): number {
  return fnv1a(new Uint8Array(new Uint32Array([obsHash]).buffer), chain);
}

const hex = (h: number) => h.toString(16).padStart(8, "0");

/** One env's step as libenv reports it after the step (frame 0: before any action). */
export interface StepRecord {
  reward: number;
  first: number;
  levelSeed: number;
  prevLevelSeed: number;
  prevLevelComplete: number;
  obs: Uint8Array;
}

/** A run: frames[t][env], t = 0 the initial observation. */
export type Run = StepRecord[][];

/** A raw run written by procgen_reference.cpp's `record`. */
export function readRaw(file: string): Run {
  const buf = readFileSync(file);
  if (buf.toString("latin1", 0, 4) !== "PGR1") throw new Error(`${file}: not a procgen_reference recording`);
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const numEnvs = dv.getInt32(4, true);
  const steps = dv.getInt32(8, true);
  const run: Run = [];
  let o = 12;
  for (let t = 0; t <= steps; t++) {
    const frame: StepRecord[] = [];
    for (let e = 0; e < numEnvs; e++, o += RECORD_BYTES) {
      frame.push({
        reward: dv.getFloat32(o + 4, true),
        levelSeed: dv.getInt32(o + 8, true),
        prevLevelSeed: dv.getInt32(o + 12, true),
        first: buf[o + 16],
        prevLevelComplete: buf[o + 17],
        obs: new Uint8Array(buf.buffer, buf.byteOffset + o + 20, OBS_SIZE),
      });
    }
    run.push(frame);
  }
  return run;
}

/** The seeded-random actions of procgen_reference.cpp: one mt19937 draw per env per step, mod 15. */
export function actionSource(randSeed: number): (out: Int32Array) => void {
  const rng = new Mt19937(randSeed);
  return (out) => {
    for (let e = 0; e < out.length; e++) out[e] = rng.next() % 15;
  };
}

/**
 * Our ProcgenEnv under the same options and actions, one call of `visit(t, frame, games)` per vector step (t = 0:
 * the initial observation). The frame's observations are views into the env's buffer, valid during the call only.
 */
export function runOurs(
  game: string,
  mode: string,
  numEnvs: number,
  steps: number,
  assetsDir: string,
  visit: (t: number, frame: StepRecord[], games: ProcgenEnv["games"]) => void,
  randSeed = RAND_SEED,
  useGeneratedAssets = false,
): void {
  const env = new ProcgenEnv({
    envName: game,
    distributionMode: mode,
    randSeed,
    numEnvs,
    images: imageLoader(assetsDir),
    useGeneratedAssets,
  });
  const frame = (): StepRecord[] =>
    env.games.map((g, e) => ({
      reward: env.rewards[e],
      first: env.dones[e],
      levelSeed: g.currentLevelSeed,
      prevLevelSeed: g.prevLevelSeed,
      prevLevelComplete: g.stepData.levelComplete ? 1 : 0,
      obs: env.obs.subarray(e * OBS_SIZE, (e + 1) * OBS_SIZE),
    }));
  env.dones.fill(1);
  visit(0, frame(), env.games);
  const next = actionSource(randSeed);
  const actions = new Int32Array(numEnvs);
  for (let t = 1; t <= steps; t++) {
    next(actions);
    env.step(actions);
    visit(t, frame(), env.games);
  }
}

/** The compact recording of one game and mode (tests/fixtures/procgen/<game>_<mode>.json). */
export interface Fixture {
  game: string;
  mode: string;
  randSeed: number;
  /** Level seeds and observation checksums of the first observations of FIRST_ENVS envs. */
  first: { levelSeeds: number[]; obs: string[] };
  /** Per env of the trajectory run. */
  trajectory: {
    steps: number;
    envs: {
      levelSeed: number;
      /** [step, reward, first, prev_level_complete, level_seed, prev_level_seed] wherever one differs from a quiet step. */
      events: number[][];
      /** Observation checksum chain after steps CHAIN_EVERY, 2*CHAIN_EVERY, ... */
      chain: string[];
    }[];
  };
}

/** Builds the trajectory part of a fixture, one frame at a time (reference and ours alike). */
export class TrajectoryDigest {
  readonly envs: Fixture["trajectory"]["envs"];
  private chains: number[];

  constructor(frame0: StepRecord[]) {
    this.envs = frame0.map((r) => ({ levelSeed: r.levelSeed, events: [], chain: [] }));
    this.chains = frame0.map((r) => fnv1a(r.obs));
  }

  add(t: number, frame: StepRecord[]): void {
    frame.forEach((r, e) => {
      const env = this.envs[e];
      const seed = env.events.length > 0 ? env.events[env.events.length - 1][4] : env.levelSeed;
      if (r.reward !== 0 || r.first || r.prevLevelComplete || r.levelSeed !== seed || r.prevLevelSeed !== seed) {
        env.events.push([t, r.reward, r.first, r.prevLevelComplete, r.levelSeed, r.prevLevelSeed]);
      }
      this.chains[e] = chainStep(this.chains[e], fnv1a(r.obs));
      if (t % CHAIN_EVERY === 0) env.chain.push(hex(this.chains[e]));
    });
  }
}

/** Where two trajectory digests first disagree, per env: info (rewards, dones, seeds) and observations. */
export function trajectoryAgreement(
  ref: Fixture["trajectory"]["envs"],
  ours: Fixture["trajectory"]["envs"],
  steps: number,
): { infoSteps: number[]; obsSteps: number[] } {
  const infoSteps: number[] = [];
  const obsSteps: number[] = [];
  ref.forEach((r, e) => {
    const o = ours[e];
    let info = steps;
    if (r.levelSeed !== o.levelSeed) info = 0;
    else {
      const n = Math.max(r.events.length, o.events.length);
      for (let i = 0; i < n; i++) {
        const a = r.events[i];
        const b = o.events[i];
        if (a === undefined || b === undefined || a.some((v, k) => v !== b[k])) {
          info = Math.min(a?.[0] ?? steps + 1, b?.[0] ?? steps + 1) - 1;
          break;
        }
      }
    }
    infoSteps.push(info);
    let obs = steps;
    const k = r.chain.findIndex((c, i) => c !== o.chain[i]);
    if (k >= 0) obs = k * CHAIN_EVERY;
    obsSteps.push(obs);
  });
  return { infoSteps, obsSteps };
}

/** The fixture file of a game and mode. */
export function fixturePath(game: string, mode: string, generated = false): string {
  return join(FIXTURE_DIR, `${game}_${mode}${generated ? "_generated" : ""}.json`);
}

function rawPaths(reference: string, game: string, mode: string, generated: boolean): { first: string; traj: string } {
  const dir = join(reference, "recordings");
  const name = `${game}_${mode}${generated ? "_generated" : ""}`;
  return { first: join(dir, `${name}_first.bin`), traj: join(dir, `${name}_traj.bin`) };
}

function referenceBinary(reference: string): string {
  const bin = join(reference, "build", "procgen_reference");
  if (!existsSync(bin)) throw new Error(`${bin} not found: build it with benchmark/procgen_reference_build.sh`);
  return bin;
}

function runReference(reference: string, args: string[]): string {
  const r = spawnSync(referenceBinary(reference), args, { encoding: "utf8", maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`procgen_reference ${args.join(" ")}: ${(r.stderr || r.stdout || "").trim()}`);
  return r.stdout;
}

function record(
  reference: string,
  game: string,
  mode: string,
  steps: number,
  reuse: boolean,
  generated: boolean,
): Fixture {
  const root = join(reference, "src/procgen/data/assets");
  const paths = rawPaths(reference, game, mode, generated);
  mkdirSync(dirname(paths.first), { recursive: true });
  const m = String(MODE_NUMBERS[mode]);
  const flags = generated ? ["--generated-assets"] : [];
  if (!reuse || !existsSync(paths.first))
    runReference(reference, [
      "record",
      game,
      m,
      String(RAND_SEED),
      String(FIRST_ENVS),
      "0",
      root,
      paths.first,
      ...flags,
    ]);
  if (!reuse || !existsSync(paths.traj))
    runReference(reference, [
      "record",
      game,
      m,
      String(RAND_SEED),
      String(TRAJ_ENVS),
      String(steps),
      root,
      paths.traj,
      ...flags,
    ]);
  const first = readRaw(paths.first)[0];
  const traj = readRaw(paths.traj);
  const digest = new TrajectoryDigest(traj[0]);
  for (let t = 1; t < traj.length; t++) digest.add(t, traj[t]);
  return {
    game,
    mode,
    randSeed: RAND_SEED,
    first: { levelSeeds: first.map((r) => r.levelSeed), obs: first.map((r) => hex(fnv1a(r.obs))) },
    trajectory: { steps, envs: digest.envs },
  };
}

/** Pixels (positions, any channel) where two RGB frames of the same size differ. */
export function differingPixels(a: Uint8Array, b: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < a.length; i += 3) if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2]) n++;
  return n;
}

interface Row {
  game: string;
  mode: string;
  firstSame: number;
  firstPixels: number | null;
  infoSteps: number[];
  obsSteps: number[];
  trajPixels: number | null;
}

/** Ours against one game and mode: the raw runs in `reference` when given, else the fixture. */
export function compare(
  game: string,
  mode: string,
  assetsDir: string,
  reference: string | null,
  steps = TRAJ_STEPS,
  generated = false,
): Row {
  const fixture: Fixture = JSON.parse(readFileSync(fixturePath(game, mode, generated), "utf8"));
  steps = Math.min(steps, fixture.trajectory.steps);
  const raw = reference ? rawPaths(reference, game, mode, generated) : null;
  let firstSame = 0;
  let firstPixels: number | null = null;
  const refFirst = raw ? readRaw(raw.first)[0] : null;
  runOurs(
    game,
    mode,
    FIRST_ENVS,
    0,
    assetsDir,
    (_t, frame) => {
      frame.forEach((r, e) => {
        if (r.levelSeed === fixture.first.levelSeeds[e] && hex(fnv1a(r.obs)) === fixture.first.obs[e]) firstSame++;
        if (refFirst) firstPixels = (firstPixels ?? 0) + differingPixels(r.obs, refFirst[e].obs);
      });
    },
    RAND_SEED,
    generated,
  );
  const refTraj = raw ? readRaw(raw.traj) : null;
  let trajPixels: number | null = refTraj ? 0 : null;
  let digest: TrajectoryDigest | null = null;
  runOurs(
    game,
    mode,
    TRAJ_ENVS,
    steps,
    assetsDir,
    (t, frame) => {
      if (t === 0) digest = new TrajectoryDigest(frame);
      else digest!.add(t, frame);
      if (refTraj && t > 0) frame.forEach((r, e) => (trajPixels! += differingPixels(r.obs, refTraj[t][e].obs)));
    },
    RAND_SEED,
    generated,
  );
  const refEnvs = fixture.trajectory.envs.map((env) => ({
    ...env,
    events: env.events.filter((ev) => ev[0] <= steps),
    chain: env.chain.slice(0, Math.floor(steps / CHAIN_EVERY)),
  }));
  const { infoSteps, obsSteps } = trajectoryAgreement(refEnvs, digest!.envs, steps);
  return { game, mode, firstSame, firstPixels, infoSteps, obsSteps, trajPixels };
}

/** The 512x512 frames of one game (easy): first frames, then the trajectory run's frames per step. */
export interface RenderFixture {
  game: string;
  randSeed: number;
  /** Level seeds and 512x512 frame checksums of RENDER_FIRST_ENVS envs. */
  first: { levelSeeds: number[]; frames: string[] };
  /** frames[t][env]: checksums of the trajectory run's 512x512 frames, t = 0 before any action. */
  trajectory: { steps: number; frames: string[][] };
}

export function renderFixturePath(game: string): string {
  return join(FIXTURE_DIR, `${game}_easy_render.json`);
}

/** Our 512x512 frames under the recorded options and actions: `visit(t, frames)` per vector step. */
export function runOursRender(
  game: string,
  numEnvs: number,
  steps: number,
  assetsDir: string,
  visit: (t: number, frames: Uint8Array[], levelSeeds: number[]) => void,
): void {
  const env = new ProcgenEnv({
    envName: game,
    distributionMode: "easy",
    randSeed: RAND_SEED,
    numEnvs,
    images: imageLoader(assetsDir),
  });
  const report = (t: number) =>
    visit(
      t,
      env.games.map((g) => g.render()),
      env.games.map((g) => g.currentLevelSeed),
    );
  report(0);
  const next = actionSource(RAND_SEED);
  const actions = new Int32Array(numEnvs);
  for (let t = 1; t <= steps; t++) {
    next(actions);
    env.step(actions);
    report(t);
  }
}

/** The raw 512x512 frames of a recording: [t][env]. */
function readHires(file: string, numEnvs: number): Uint8Array[][] {
  const buf = readFileSync(file);
  const out: Uint8Array[][] = [];
  for (let o = 0; o < buf.length; o += numEnvs * HIRES_BYTES) {
    out.push(
      Array.from(
        { length: numEnvs },
        (_, e) => new Uint8Array(buf.buffer, buf.byteOffset + o + e * HIRES_BYTES, HIRES_BYTES),
      ),
    );
  }
  return out;
}

function recordRender(reference: string, game: string, reuse: boolean): RenderFixture {
  const root = join(reference, "src/procgen/data/assets");
  const dir = join(reference, "recordings");
  mkdirSync(dir, { recursive: true });
  const first = join(dir, `${game}_easy_render_first.bin`);
  const traj = join(dir, `${game}_easy_render_traj.bin`);
  if (!reuse || !existsSync(`${first}.hires`))
    runReference(reference, [
      "record",
      game,
      "0",
      String(RAND_SEED),
      String(RENDER_FIRST_ENVS),
      "0",
      root,
      first,
      "--render-human",
    ]);
  if (!reuse || !existsSync(`${traj}.hires`))
    runReference(reference, [
      "record",
      game,
      "0",
      String(RAND_SEED),
      String(TRAJ_ENVS),
      String(RENDER_STEPS),
      root,
      traj,
      "--render-human",
    ]);
  return {
    game,
    randSeed: RAND_SEED,
    first: {
      levelSeeds: readRaw(first)[0].map((r) => r.levelSeed),
      frames: readHires(`${first}.hires`, RENDER_FIRST_ENVS)[0].map((f) => hex(fnv1a(f))),
    },
    trajectory: {
      steps: RENDER_STEPS,
      frames: readHires(`${traj}.hires`, TRAJ_ENVS).map((fs) => fs.map((f) => hex(fnv1a(f)))),
    },
  };
}

/** Ours against one game's 512x512 frames: identical frames, and differing pixels when the raw runs are at hand. */
function compareRender(game: string, assetsDir: string, reference: string | null): string {
  const fixture: RenderFixture = JSON.parse(readFileSync(renderFixturePath(game), "utf8"));
  const dir = reference ? join(reference, "recordings") : null;
  const refFirst = dir ? readHires(join(dir, `${game}_easy_render_first.bin.hires`), RENDER_FIRST_ENVS)[0] : null;
  const refTraj = dir ? readHires(join(dir, `${game}_easy_render_traj.bin.hires`), TRAJ_ENVS) : null;
  let firstSame = 0;
  let firstPixels = 0;
  runOursRender(game, RENDER_FIRST_ENVS, 0, assetsDir, (_t, frames) =>
    frames.forEach((f, e) => {
      if (hex(fnv1a(f)) === fixture.first.frames[e]) firstSame++;
      if (refFirst) firstPixels += differingPixels(f, refFirst[e]);
    }),
  );
  let trajSame = 0;
  let trajPixels = 0;
  runOursRender(game, TRAJ_ENVS, fixture.trajectory.steps, assetsDir, (t, frames) =>
    frames.forEach((f, e) => {
      if (hex(fnv1a(f)) === fixture.trajectory.frames[t][e]) trajSame++;
      if (refTraj) trajPixels += differingPixels(f, refTraj[t][e]);
    }),
  );
  const px = RENDER_RES * RENDER_RES;
  const pct = (n: number, of: number) => (reference ? `${n} (${((100 * n) / of).toFixed(2)} %)` : "n/a");
  const frames = TRAJ_ENVS * (fixture.trajectory.steps + 1);
  return `| ${game} | ${firstSame} | ${pct(firstPixels, RENDER_FIRST_ENVS * px)} | ${trajSame} | ${pct(trajPixels, frames * px)} |`;
}

/** CPU seconds this process has used (user + system, all its threads: V8's collector and compiler included). */
function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/**
 * Env steps per CPU second of our ProcgenEnv: `numEnvs` envs for `steps` vector steps after WARMUP_ENV_STEPS untimed
 * env steps (at least 50 vector steps).
 */
function oursSpeed(game: string, numEnvs: number, steps: number, assetsDir: string): number {
  for (const e of neededFiles([game])) loadImage(assetsDir, e.path);
  const env = new ProcgenEnv({
    envName: game,
    distributionMode: "easy",
    randSeed: RAND_SEED,
    numEnvs,
    images: imageLoader(assetsDir),
  });
  const next = actionSource(RAND_SEED);
  const actions = new Int32Array(numEnvs);
  for (let t = 0; t < Math.max(50, Math.ceil(WARMUP_ENV_STEPS / numEnvs)); t++) {
    next(actions);
    env.step(actions);
  }
  const c0 = cpuSeconds();
  for (let t = 0; t < steps; t++) {
    next(actions);
    env.step(actions);
  }
  return (steps * numEnvs) / (cpuSeconds() - c0);
}

/** Env steps per CPU second of libenv (procgen_reference bench). */
function referenceSpeed(reference: string, game: string, numEnvs: number, steps: number): number {
  const out = runReference(reference, [
    "bench",
    game,
    "0",
    String(RAND_SEED),
    String(numEnvs),
    String(steps),
    join(reference, "src/procgen/data/assets"),
  ]);
  const m = /env_steps_per_cpu_s ([\d.]+)/.exec(out);
  if (m === null)
    throw new Error(
      `procgen_reference bench: unexpected output ${out.trim()} (rebuild it with procgen_reference_build.sh)`,
    );
  return Number(m[1]);
}

/** Untimed env steps before each timed round of ours. */
const WARMUP_ENV_STEPS = 2000;

function speedRow(reference: string, game: string, assetsDir: string, rounds: number): string {
  const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  const cells: string[] = [];
  for (const [numEnvs, steps] of [
    [1, 10000],
    [64, 300],
  ]) {
    const ours: number[] = [];
    const ref: number[] = [];
    // V8 compiles the hot paths over the first few thousand steps (on its own threads, counted in our CPU time):
    // one untimed round first, so that the rounds compare steady states.
    oursSpeed(game, numEnvs, steps, assetsDir);
    for (let r = 0; r < rounds; r++) {
      ours.push(oursSpeed(game, numEnvs, steps, assetsDir));
      ref.push(referenceSpeed(reference, game, numEnvs, steps));
    }
    const o = median(ours);
    const l = median(ref);
    cells.push(
      o.toFixed(0),
      l.toFixed(0),
      `${(o / l).toFixed(2)}×`,
      `${(Math.max(...ours) / Math.max(...ref)).toFixed(2)}×`,
    );
  }
  return `| ${game} | ${cells.join(" | ")} |`;
}

/**
 * One process per game, as in a training run: V8 compiles the shared engine for the game classes it has seen, and
 * code that has served other games first is slower.
 */
function speedTable(reference: string, games: readonly string[], assetsDir: string, rounds: number): void {
  referenceSpeed(reference, games[0], 1, 1); // an old driver fails here, before any game is timed
  console.log("| game | ours, 1 env | libenv, 1 env | ratio | best | ours, 64 envs | libenv, 64 envs | ratio | best |");
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const game of games) {
    const args = [
      fileURLToPath(import.meta.url),
      "--speed-row",
      "--reference",
      reference,
      "--games",
      game,
      "--rounds",
      String(rounds),
      "--procgen-assets-dir",
      assetsDir,
    ];
    const r = spawnSync(process.execPath, [...process.execArgv, ...args], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    // The child's own `error:` line says what failed.
    if (r.status !== 0)
      throw new Error((r.stderr || `--speed-row ${game} exited with ${r.status}`).trim().replace(/^error: /, ""));
    process.stdout.write(r.stdout);
  }
}

const ARGS = {
  reference: str(
    null,
    "folder of the original's build (procgen_reference_build.sh's SCRATCH_DIR); compares against its raw runs",
  ),
  record: bool(false, "run the original and write tests/fixtures/procgen/ (needs --reference)"),
  reuseRuns: bool(
    false,
    "with --record: digest the raw runs already in SCRATCH/recordings instead of rerunning the original",
  ),
  procgenAssetsDir: str(null, "procgen's images (else PROCGEN_ASSETS_DIR / ../shared/procgen_assets)"),
  games: str(null, "comma-separated games (default: all 16)"),
  modes: str(null, "comma-separated modes (default: every mode each game has)"),
  steps: int(TRAJ_STEPS, "trajectory steps compared", { ge: 1, le: TRAJ_STEPS }),
  speed: bool(false, "time steps/s of ours and of libenv instead (needs --reference)"),
  rounds: int(2, "alternating timing rounds per game and env count (the median and the best are printed)", { ge: 1 }),
  speedRow: bool(
    false,
    "--speed for the one game of --games in this process, the table row only (--speed runs one such process per game)",
  ),
  generatedAssets: bool(false, "record / compare use_generated_assets instead (easy mode)"),
  renderHuman: bool(false, 'record / compare the 512x512 render_mode="rgb_array" frames instead (easy mode)'),
};

async function main(): Promise<void> {
  const cli = parseArgs(
    ARGS,
    "Procgen: ours against the C++ original (fixtures or a reference build).",
    "benchmark/procgen_fidelity.ts",
  );
  const games = cli.games ? cli.games.split(",") : ENV_NAMES;
  const pick = (game: string) =>
    (cli.generatedAssets ? ["easy"] : modesOf(game)).filter((m) => !cli.modes || cli.modes.split(",").includes(m));
  if (cli.record && cli.renderHuman) {
    if (!cli.reference) throw new Error("--record needs --reference");
    for (const game of games) {
      writeFileSync(renderFixturePath(game), `${JSON.stringify(recordRender(cli.reference, game, cli.reuseRuns))}\n`);
      console.log(`recorded ${game} 512x512`);
    }
    return;
  }
  if (cli.record) {
    if (!cli.reference) throw new Error("--record needs --reference");
    mkdirSync(FIXTURE_DIR, { recursive: true });
    for (const game of games) {
      for (const mode of pick(game)) {
        writeFileSync(
          fixturePath(game, mode, cli.generatedAssets),
          `${JSON.stringify(record(cli.reference, game, mode, TRAJ_STEPS, cli.reuseRuns, cli.generatedAssets))}\n`,
        );
        console.log(`recorded ${game} ${mode}`);
      }
    }
    return;
  }
  const assetsDir = cli.procgenAssetsDir || process.env.PROCGEN_ASSETS_DIR || resolve(ROOT, "../shared/procgen_assets");
  if (!existsSync(join(assetsDir, "misc_assets"))) throw new Error(`procgen images not found in ${assetsDir}`);
  if (cli.speed || cli.speedRow) {
    if (!cli.reference) throw new Error("--speed needs --reference");
    if (cli.speedRow) console.log(speedRow(cli.reference, games[0], assetsDir, cli.rounds));
    else speedTable(cli.reference, games, assetsDir, cli.rounds);
    return;
  }
  if (cli.renderHuman) {
    console.log(
      `| game | 512x512 first frames identical (of ${RENDER_FIRST_ENVS}) | pixels differing | trajectory frames identical (of ${TRAJ_ENVS}×${RENDER_STEPS + 1}) | pixels differing |`,
    );
    console.log("| --- | --- | --- | --- | --- |");
    for (const game of games) console.log(compareRender(game, assetsDir, cli.reference));
    return;
  }
  const px = FIRST_ENVS * 4096;
  console.log(
    `| game | mode | first frames identical (of ${FIRST_ENVS}) | first-frame pixels differing | steps identical: rewards, dones, level seeds (of ${TRAJ_ENVS}×${cli.steps}) | steps identical: observations | trajectory pixels differing |`,
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- |");
  const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
  const pct = (n: number | null, of: number) => (n === null ? "n/a" : `${n} (${((100 * n) / of).toFixed(2)} %)`);
  for (const game of games) {
    for (const mode of pick(game)) {
      const r = compare(game, mode, assetsDir, cli.reference, cli.steps, cli.generatedAssets);
      console.log(
        `| ${game} | ${mode} | ${r.firstSame} | ${pct(r.firstPixels, px)} | ${sum(r.infoSteps)} (${r.infoSteps.join(", ")}) | ${sum(r.obsSteps)} (${r.obsSteps.join(", ")}) | ${pct(r.trajPixels, TRAJ_ENVS * cli.steps * 4096)} |`,
      );
    }
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await runMain(main);
