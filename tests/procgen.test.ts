// The Procgen engine and the three benchmark games: procgen's random numbers, level seeding, the games' reward
// and termination rules driven by scripted actions, time limits, the vector env's in-step resets, monochrome
// rendering. Everything here runs without image files (monochrome); image rendering is covered where assets exist.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";

import { Entity } from "../envs/procgen/entity.ts";
import { EASY_MODE, RES } from "../envs/procgen/game.ts";
import { makeGame } from "../envs/procgen/games/index.ts";
import { BigFish } from "../envs/procgen/games/bigfish.ts";
import { BossFight } from "../envs/procgen/games/bossfight.ts";
import { StarPilot } from "../envs/procgen/games/starpilot.ts";
import { Mt19937 } from "../envs/procgen/mt19937.ts";
import { OBS_SIZE, ProcgenEnv, ProcgenGymEnv } from "../envs/procgen/env.ts";
import { Canvas, monochromeColor } from "../envs/procgen/render.ts";
import * as gym from "../envs/gymnasium/index.ts";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { imageLoader } from "../envs/procgen/assets.ts";
import { checkEnv } from "../envs/gymnasium/env_checker.ts";

const MONO = { useMonochromeAssets: true } as const;
/** procgen's images, when this machine has them (CI: ../shared/procgen_assets); never shipped with the project. */
const ASSETS_DIR = [
  process.env.PROCGEN_ASSETS_DIR,
  fileURLToPath(new URL("../../shared/procgen_assets", import.meta.url)),
].find((d) => d && existsSync(`${d}/misc_assets/playerShip2_blue.png`));
const NO_ASSETS = ASSETS_DIR ? false : "procgen images not found (set PROCGEN_ASSETS_DIR)";
const BENCHMARK_GAMES = ["starpilot", "bossfight", "bigfish"] as const;

function firstOutputs(seed: number, n: number): number[] {
  const mt = new Mt19937(seed);
  return Array.from({ length: n }, () => mt.next());
}

function sha(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** A game on one fixed level seed, reset, with its first frame. */
function levelOf(name: string, levelSeed: number) {
  const game = makeGame(name, { distributionMode: EASY_MODE, useMonochromeAssets: true });
  game.seedLevels(0, levelSeed, levelSeed + 1);
  game.reset();
  const frame = new Uint8Array(OBS_SIZE);
  game.observe(frame);
  return { game, frame };
}

test("mt19937 matches the C++ standard's vectors (seeds 5489, 0, 1 and the 10000th output)", () => {
  assert.deepEqual(firstOutputs(5489, 5), [3499211612, 581869302, 3890346734, 3586334585, 545404204]);
  assert.equal(firstOutputs(5489, 10000)[9999], 4123659995);
  assert.deepEqual(firstOutputs(0, 5), [2357136044, 2546248239, 3071714933, 3626093760, 2588848963]);
  assert.deepEqual(firstOutputs(1, 5), [1791095845, 4282876139, 3093770124, 4005303368, 491263]);
});

test("procgen's helper draws are the documented functions of the raw outputs", () => {
  const raw = firstOutputs(7, 8);
  const mt = new Mt19937(7);
  assert.equal(mt.randint(-5, 5), -5 + (raw[0] % 10));
  assert.equal(mt.randn(9), raw[1] % 9);
  assert.equal(mt.rand01(), Math.fround(raw[2] / 2 ** 32));
  assert.equal(mt.randintRaw(), raw[3] | 0);
  assert.equal(mt.randbool(), Math.fround(raw[4] / 2 ** 32) > 0.5);
  // float32 rounding: the largest outputs give exactly 1.0, which rand01 must reproduce.
  assert.equal(Math.fround((2 ** 32 - 1) / 2 ** 32), 1);
  // choose_n of more elements than there are returns them all without drawing.
  const a = new Mt19937(3);
  assert.deepEqual(a.chooseN([1, 2, 3], 5), [1, 2, 3]);
  assert.equal(a.next(), firstOutputs(3, 1)[0]);
});

for (const name of BENCHMARK_GAMES) {
  test(`${name}: the same level seed gives an identical level and first frame, another seed a different one`, () => {
    const a = levelOf(name, 12345);
    const b = levelOf(name, 12345);
    const c = levelOf(name, 54321);
    assert.equal(sha(a.frame), sha(b.frame));
    const layout = (g: typeof a.game) =>
      JSON.stringify(g.entities.map((e) => [e.type, e.x, e.y, e.rx, e.ry, e.imageTheme]));
    assert.equal(layout(a.game), layout(b.game));
    assert.notEqual(layout(a.game) + a.game.backgroundIndex, layout(c.game) + c.game.backgroundIndex);
    assert.notEqual(sha(a.frame), sha(c.frame));
  });
}

test("ProcgenEnv: the same rand_seed gives identical level seeds and observations over 200 steps; another seed differs", () => {
  const run = (randSeed: number) => {
    const env = new ProcgenEnv({ numEnvs: 3, envName: "bigfish", distributionMode: "easy", randSeed, ...MONO });
    const hash = createHash("sha256");
    const seeds: number[] = [];
    for (let t = 0; t < 200; t++) {
      const [obs, , , infos] = env.step([t % 15, (t * 7) % 15, 4]);
      hash.update(obs.rgb);
      seeds.push(...infos.map((i) => i.level_seed as number));
    }
    return { digest: hash.digest("hex"), seeds: seeds.join() };
  };
  assert.deepEqual(run(42), run(42));
  assert.notEqual(run(42).digest, run(43).digest);
});

test("starpilot: a flyer takes two hits and pays +1; the finish line pays +10 and completes the level", () => {
  const game = new StarPilot({ distributionMode: EASY_MODE, ...MONO });
  game.seedLevels(0, 7, 8);
  game.reset();
  game.spawners = []; // no scheduled enemies: the agent survives until the finish line
  const flyer = new Entity(game.agent.x + 3, game.agent.y, 0, 0, 0.5, 0.5, 4);
  flyer.health = 2;
  game.entities.push(flyer);
  let total = 0;
  let t = 0;
  for (; t < 12; t++) {
    game.step(9); // "D": shoot right
    total += game.stepData.reward;
  }
  assert.equal(total, 1);
  assert.ok(!game.entities.includes(flyer));
  while (!game.stepData.done) {
    game.step(4);
    t++;
    total += game.stepData.reward;
  }
  assert.equal(total, 11);
  assert.equal(game.stepData.levelComplete, true);
  // The finish line appears at step 500 at the right edge and scrolls left at 0.2 units per step.
  assert.ok(t > 500 && t < 500 + 16 / 0.2, `ended at step ${t}`);
});

test("starpilot: touching an enemy bullet ends the episode without reward", () => {
  const game = new StarPilot({ distributionMode: EASY_MODE, ...MONO });
  game.seedLevels(0, 7, 8);
  game.reset();
  game.spawners = [];
  game.entities.push(new Entity(game.agent.x, game.agent.y, 0, 0, 0.4, 0.4, 2));
  game.step(4);
  assert.equal(game.stepData.done, true);
  assert.equal(game.stepData.reward, 0);
  assert.equal(game.stepData.levelComplete, false);
});

test("bossfight: beating every round pays +1 per round and +10 for the kill (rounds + 10)", () => {
  for (const levelSeed of [1, 2, 3]) {
    const game = new BossFight({ distributionMode: EASY_MODE, ...MONO });
    game.seedLevels(0, levelSeed, levelSeed + 1);
    game.reset();
    const rounds = game.numRounds;
    let total = 0;
    // (stepData still holds the done of the previous episode until the first step, as in procgen.)
    for (let t = 0; t < 4000 && (t === 0 || !game.stepData.done); t++) {
      // Scripted: barriers and boss bullets removed, shield kept down, agent teleported under the boss, firing.
      game.entities = game.entities.filter((e) => e.type !== 7 && e.type !== 4);
      game.shieldsAreUp = false;
      game.agent.x = game.boss.x;
      game.agent.y = game.agent.ry;
      game.step(9);
      total += game.stepData.reward;
    }
    assert.equal(game.stepData.levelComplete, true, `level ${levelSeed} not won`);
    assert.equal(total, rounds + 10);
    assert.ok(rounds >= 1 && rounds <= 5);
  }
});

test("bigfish: +1 per smaller fish (the agent grows), death by a wider fish, +10 at 30 fish", () => {
  const game = new BigFish({ distributionMode: EASY_MODE, ...MONO });
  game.seedLevels(0, 5, 6);
  game.reset();
  const r0 = game.agent.rx;
  game.entities.push(new Entity(game.agent.x, game.agent.y, 0, 0, r0 * 0.5, r0 * 0.5, 2));
  game.step(4);
  assert.equal(game.stepData.reward, 1);
  assert.equal(game.fishEaten, 1);
  // Entity sizes are float32, as procgen's: the sum is rounded once.
  assert.equal(game.agent.rx, Math.fround(r0 + game.rInc));
  game.fishEaten = 29;
  game.entities.push(new Entity(game.agent.x, game.agent.y, 0, 0, 0.3, 0.3, 2));
  game.step(4);
  assert.equal(game.stepData.reward, 11);
  assert.equal(game.stepData.levelComplete, true);
  assert.equal(game.stepData.done, true);

  const other = new BigFish({ distributionMode: EASY_MODE, ...MONO });
  other.seedLevels(0, 5, 6);
  other.reset();
  other.entities.push(new Entity(other.agent.x, other.agent.y, 0, 0, other.agent.rx + 0.1, 0.5, 2));
  other.step(4);
  assert.equal(other.stepData.done, true);
  assert.equal(other.stepData.reward, 0);
});

test("time limits: starpilot 1000, bossfight 4000, bigfish 6000 steps, reported as truncation by the gym env", () => {
  const limits = { starpilot: 1000, bossfight: 4000, bigfish: 6000 };
  for (const [name, limit] of Object.entries(limits)) {
    const env = new ProcgenGymEnv({ envName: name, distributionMode: "easy", ...MONO });
    env.reset({ seed: 1 });
    const game = env.unwrappedGame;
    assert.equal(game.timeout, limit);
    // Keep the agent alive: nothing else in the world, fast-forwarded to the last step.
    game.entities = [game.agent];
    if (game instanceof StarPilot) game.spawners = [];
    game.curTime = limit - 2;
    let [, , terminated, truncated] = env.step(4);
    assert.equal(terminated || truncated, false, name);
    if (game instanceof StarPilot) game.entities = [game.agent];
    [, , terminated, truncated] = env.step(4);
    assert.equal(terminated, false, name);
    assert.equal(truncated, true, name);
  }
});

test("ProcgenEnv resets inside the step: new level's first frame, the terminal reward, done, level seeds in info", () => {
  const env = new ProcgenEnv({ numEnvs: 2, envName: "bigfish", distributionMode: "easy", randSeed: 9, ...MONO });
  const game = env.games[0] as BigFish;
  const oldSeed = game.currentLevelSeed;
  game.fishEaten = 29;
  game.entities.push(new Entity(game.agent.x, game.agent.y, 0, 0, 0.3, 0.3, 2));
  const [obs, rewards, dones, infos] = env.step([4, 4]);
  assert.equal(rewards[0], 11);
  assert.equal(dones[0], 1);
  assert.equal(dones[1], 0);
  assert.equal(infos[0].prev_level_seed, oldSeed);
  assert.equal(infos[0].prev_level_complete, 1);
  assert.notEqual(infos[0].level_seed, oldSeed);
  assert.equal(game.curTime, 0);
  // The returned observation is exactly a fresh reset of the new level.
  const fresh = levelOf("bigfish", infos[0].level_seed as number);
  assert.equal(sha(obs.rgb.subarray(0, OBS_SIZE)), sha(fresh.frame));
});

test("num_levels and start_level bound the level seeds", () => {
  const env = new ProcgenEnv({
    numEnvs: 4,
    envName: "starpilot",
    numLevels: 3,
    startLevel: 100,
    distributionMode: "easy",
    randSeed: 1,
    ...MONO,
  });
  for (let t = 0; t < 50; t++) {
    for (const g of env.games) g.stepData.done = false;
    env.games.forEach((g) => (g.entities = [g.agent, new Entity(g.agent.x, g.agent.y, 0, 0, 0.4, 0.4, 2)]));
    const [, , dones, infos] = env.step([4, 4, 4, 4]);
    assert.deepEqual([...dones], [1, 1, 1, 1]);
    for (const info of infos) assert.ok((info.level_seed as number) >= 100 && (info.level_seed as number) < 103);
  }
});

test("monochrome rendering without assets: black background, the agent a solid rectangle of its (type, theme) colour", () => {
  const { game, frame } = levelOf("bigfish", 77);
  const [r, g, b] = monochromeColor(0, game.agent.imageTheme);
  const px = (x: number, y: number) => [
    frame[(y * RES + x) * 3],
    frame[(y * RES + x) * 3 + 1],
    frame[(y * RES + x) * 3 + 2],
  ];
  // BigFish shows the whole 20x20 world: 3.2 pixels per unit, y flipped.
  const ax = Math.floor(game.agent.x * 3.2);
  const ay = Math.floor((20 - game.agent.y) * 3.2);
  assert.deepEqual(px(ax, ay), [r, g, b]);
  const counts = new Map<string, number>();
  for (let i = 0; i < RES * RES; i++)
    counts.set(px(i % RES, Math.floor(i / RES)).join(), (counts.get(px(i % RES, Math.floor(i / RES)).join()) ?? 0) + 1);
  assert.ok((counts.get("0,0,0") ?? 0) > RES * RES * 0.5, "mostly black background");
});

test("the Gymnasium ids procgen-{game}-v0 pass the env checker (monochrome, no image files)", () => {
  const ids = gym.registeredIds().filter((id) => id.startsWith("procgen-"));
  for (const g of BENCHMARK_GAMES) assert.ok(ids.includes(`procgen-${g}-v0`), `registered: ${ids.join(", ")}`);
  for (const id of ids) {
    assert.doesNotThrow(
      () => checkEnv(gym.make(id, { useMonochromeAssets: true, distributionMode: "easy" }), { onWarning: () => {} }),
      id,
    );
    assert.doesNotThrow(
      () => checkEnv(gym.make(id, { useMonochromeAssets: true, renderMode: "rgb_array" }), { onWarning: () => {} }),
      id,
    );
  }
});

test(
  "with procgen's images: same seed, same frame; sprites and backgrounds differ from monochrome",
  { skip: NO_ASSETS },
  () => {
    const images = imageLoader(ASSETS_DIR!);
    for (const name of BENCHMARK_GAMES) {
      const frameOf = (opts: { images: typeof images; useMonochromeAssets?: boolean }) => {
        const game = makeGame(name, { distributionMode: EASY_MODE, ...opts });
        game.seedLevels(0, 31, 32);
        game.reset();
        for (let t = 0; t < 30; t++) game.step(t % 15);
        const frame = new Uint8Array(OBS_SIZE);
        game.observe(frame);
        return frame;
      };
      const a = frameOf({ images });
      assert.equal(sha(a), sha(frameOf({ images })), name);
      assert.notEqual(sha(a), sha(frameOf({ images, useMonochromeAssets: true })), name);
      // A background image fills the frame: hardly any pure black pixels, unlike monochrome without backgrounds.
      let black = 0;
      for (let i = 0; i < OBS_SIZE; i += 3) if (a[i] + a[i + 1] + a[i + 2] === 0) black++;
      assert.ok(black < RES * RES * 0.5, `${name}: ${black} black pixels`);
    }
    for (const name of BENCHMARK_GAMES) {
      assert.doesNotThrow(
        () => checkEnv(gym.make(`procgen-${name}-v0`, { assetsDir: ASSETS_DIR }), { onWarning: () => {} }),
        name,
      );
    }
  },
);

test("starpilot's cached scrolling background draws the same pixels as tiling the image", { skip: NO_ASSETS }, () => {
  const images = imageLoader(ASSETS_DIR!);
  const game = new StarPilot({ distributionMode: EASY_MODE, images });
  game.seedLevels(0, 3, 4);
  game.reset();
  const img = game.backgroundImage()!;
  for (const t of [0, 1, 2, 3, 4, 5, 17, 239, 240, 241, 499, 997]) {
    game.curTime = t;
    const fast = new Canvas(RES, RES);
    game.drawScrollingBackground(fast, img);
    const slow = new Canvas(RES, RES);
    slow.tileImage(img, { x: -0.8 * t, y: -RES, w: RES * 3 * 18, h: RES * 3 }, 1, true);
    assert.equal(sha(fast.pixels), sha(slow.pixels), `t=${t}`);
  }
});

test("starpilot's schedule: easy levels bring only flyers, in groups of 1-5, from the right, all before step 520", () => {
  const typesHard = new Set<number>();
  for (let level = 0; level < 30; level++) {
    const easy = new StarPilot({ distributionMode: EASY_MODE, ...MONO });
    easy.seedLevels(0, level, level + 1);
    easy.reset();
    const times = easy.spawners.map((e) => e.spawnTime);
    assert.ok(easy.spawners.length > 0);
    assert.ok(
      easy.spawners.every((e) => e.type === 4 && e.x > 16 && e.vx < 0 && e.health === 2),
      `level ${level}`,
    );
    // Sorted descending; the first group arrives at 11..30; a group of 5 starting at 500 ends at 520.
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
    );
    assert.ok(times[times.length - 1] >= 11 && times[times.length - 1] <= 30 && times[0] <= 520);
    const hard = new StarPilot({ distributionMode: 1, ...MONO });
    hard.seedLevels(0, level, level + 1);
    hard.reset();
    for (const e of hard.spawners) typesHard.add(e.type);
  }
  assert.deepEqual([...typesHard].sort(), [4, 5, 6, 7, 8]);
});

test("bossfight levels: 1-5 rounds of 1-9 health, the boss's health their product, 1-3 barriers", () => {
  const rounds = new Set<number>();
  const healths = new Set<number>();
  for (let level = 0; level < 200; level++) {
    const game = new BossFight({ distributionMode: EASY_MODE, ...MONO });
    game.seedLevels(0, level, level + 1);
    game.reset();
    rounds.add(game.numRounds);
    healths.add(game.roundHealth);
    assert.equal(game.boss.health, game.numRounds * game.roundHealth);
    const barriers = game.entities.filter((e) => e.type === 7).length;
    assert.ok(barriers <= 3);
    assert.ok(game.invulnerableDuration >= 2 && game.invulnerableDuration <= 3);
  }
  assert.deepEqual([...rounds].sort(), [1, 2, 3, 4, 5]);
  assert.deepEqual([...healths].sort(), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
});
