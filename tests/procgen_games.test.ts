// The maze generator and the Procgen games beyond the three benchmark ones: each constructs, resets, renders a
// 64x64x3 frame, reaches its main reward / termination rule through scripted actions, and gives the same first
// frame for the same level seed. Runs without images (monochrome); with $PROCGEN_ASSETS_DIR or
// ../shared/procgen_assets present, frames are also rendered from the real images.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { imageLoader } from "../envs/procgen/assets.ts";
import { AGENT_OBJ, DOOR_OBJ, EXIT_OBJ, KEY_OBJ, SPACE, WALL_OBJ } from "../envs/procgen/entity.ts";
import { type BasicAbstractGame, type DistributionMode, EASY_MODE, type GameOptions, HARD_MODE, RES } from "../envs/procgen/game.ts";
import { GAMES, makeGame } from "../envs/procgen/games/index.ts";
import { MAZE_OFFSET, MazeGen } from "../envs/procgen/mazegen.ts";
import { Mt19937 } from "../envs/procgen/mt19937.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const ASSETS = process.env.PROCGEN_ASSETS_DIR || resolve(ROOT, "../shared/procgen_assets");
const HAVE_ASSETS = existsSync(resolve(ASSETS, "misc_assets"));

// Actions (procgen's combos): 1 LEFT, 3 DOWN, 4 none, 5 UP, 7 RIGHT, 9 "D".
const LEFT = 1;
const DOWN = 3;
const UP = 5;
const RIGHT = 7;

function sha(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** A game on one fixed level seed, reset. */
function level(name: string, levelSeed: number, options: Partial<GameOptions> = {}): BasicAbstractGame {
  const game = makeGame(name, { distributionMode: EASY_MODE, useMonochromeAssets: true, ...options });
  game.seedLevels(0, levelSeed, levelSeed + 1);
  game.reset();
  return game;
}

function frame(game: BasicAbstractGame): Uint8Array {
  const out = new Uint8Array(RES * RES * 3);
  game.observe(out);
  return out;
}

/** Cells reachable from `start` through cells where `open(i)` holds (4-neighbourhood, a w x h grid). */
function reachable(start: number, w: number, h: number, open: (i: number) => boolean): Set<number> {
  const seen = new Set([start]);
  const queue = [start];
  while (queue.length > 0) {
    const c = queue.shift()!;
    const x = c % w;
    const y = Math.trunc(c / w);
    for (const [dx, dy] of [
      [1, 0],
      [-1, 0],
      [0, 1],
      [0, -1],
    ]) {
      const nx = x + dx;
      const ny = y + dy;
      const n = ny * w + nx;
      if (nx >= 0 && ny >= 0 && nx < w && ny < h && !seen.has(n) && open(n)) {
        seen.add(n);
        queue.push(n);
      }
    }
  }
  return seen;
}

/** Shortest path of grid moves from `start` to `goal` through open cells, as procgen actions. */
function pathActions(start: number, goal: number, w: number, h: number, open: (i: number) => boolean): number[] {
  const prev = new Map<number, number>([[start, -1]]);
  const queue = [start];
  while (queue.length > 0 && !prev.has(goal)) {
    const c = queue.shift()!;
    for (const n of [c + 1, c - 1, c + w, c - w]) {
      const ok = n >= 0 && n < w * h && (n === c + 1 || n === c - 1 ? Math.trunc(n / w) === Math.trunc(c / w) : true);
      if (ok && !prev.has(n) && open(n)) {
        prev.set(n, c);
        queue.push(n);
      }
    }
  }
  assert.ok(prev.has(goal), "goal unreachable");
  const actions: number[] = [];
  for (let c = goal; prev.get(c)! !== -1; c = prev.get(c)!) {
    const p = prev.get(c)!;
    actions.unshift(c === p + 1 ? RIGHT : c === p - 1 ? LEFT : c === p + w ? UP : DOWN);
  }
  return actions;
}

test("mazegen: a Kruskal maze is a spanning tree of its rooms, and the same seed gives the same maze", () => {
  for (const dim of [3, 5, 11, 25]) {
    const gen = new MazeGen(new Mt19937(dim), dim);
    gen.generateMaze();
    const d = gen.arrayDim;
    const isSpace = (i: number) => gen.grid[i] === SPACE;
    let spaces = 0;
    for (let i = 0; i < gen.grid.length; i++) if (isSpace(i)) spaces++;
    // Rooms at even maze coordinates; a tree over R rooms opens R - 1 walls, so 2R - 1 free cells in all.
    const rooms = ((dim + 1) / 2) ** 2;
    assert.equal(spaces, 2 * rooms - 1);
    const first = MAZE_OFFSET * d + MAZE_OFFSET;
    assert.equal(reachable(first, d, d, isSpace).size, spaces);
    // The outer ring stays wall.
    for (let k = 0; k < d; k++) for (const i of [k, k * d, k * d + d - 1, (d - 1) * d + k]) assert.equal(gen.grid[i], WALL_OBJ);
    const again = new MazeGen(new Mt19937(dim), dim);
    again.generateMaze();
    assert.deepEqual(again.grid, gen.grid);
  }
  const other = new MazeGen(new Mt19937(99), 25);
  other.generateMaze();
  const ref = new MazeGen(new Mt19937(25), 25);
  ref.generateMaze();
  assert.notDeepEqual(other.grid, ref.grid);
});

test("mazegen: with doors, each key is reachable before its door and the exit only after the last door", () => {
  let doorsSeen = 0;
  for (let seed = 0; seed < 40; seed++) {
    const gen = new MazeGen(new Mt19937(seed), 9);
    const doors = gen.generateMazeWithDoors(3);
    doorsSeen += doors;
    const d = gen.arrayDim;
    const g = gen.grid;
    const agent = g.indexOf(AGENT_OBJ);
    assert.ok(agent >= 0);
    const opened = new Set<number>();
    for (let k = 1; k <= doors + 1; k++) {
      const open = (i: number) => g[i] !== WALL_OBJ && !(g[i] > DOOR_OBJ && g[i] < KEY_OBJ && !opened.has(g[i] - DOOR_OBJ)) && g[i] !== DOOR_OBJ;
      const reach = reachable(agent, d, d, open);
      const target = k <= doors ? KEY_OBJ + k : EXIT_OBJ;
      assert.ok([...reach].some((i) => g[i] === target), `seed ${seed}: ${k <= doors ? `key ${k}` : "exit"} unreachable`);
      if (k <= doors) {
        // Door k is still shut: the exit must not be reachable yet.
        assert.ok(![...reach].some((i) => g[i] === EXIT_OBJ), `seed ${seed}: exit reachable before door ${k}`);
        opened.add(k);
      }
    }
  }
  assert.ok(doorsSeen > 40, "levels should have doors");
});

test("every game registered here renders 64x64x3, and the same level seed gives the same first frame", () => {
  for (const name of Object.keys(GAMES)) {
    for (const mode of [EASY_MODE, HARD_MODE] as DistributionMode[]) {
      const a = frame(level(name, 1234, { distributionMode: mode }));
      const b = frame(level(name, 1234, { distributionMode: mode }));
      assert.equal(a.length, 64 * 64 * 3);
      assert.equal(sha(a), sha(b), `${name} mode ${mode}`);
      assert.ok(a.some((v) => v !== 0), `${name}: blank frame`);
      const c = frame(level(name, 4321, { distributionMode: mode }));
      assert.notEqual(sha(a), sha(c), `${name}: another seed should differ`);
    }
  }
});

test("games render from the real images too", { skip: HAVE_ASSETS ? false : `no procgen images at ${ASSETS}` }, () => {
  for (const name of Object.keys(GAMES)) {
    const game = level(name, 7, { useMonochromeAssets: false, images: imageLoader(ASSETS) });
    const a = frame(game);
    assert.equal(sha(a), sha(frame(level(name, 7, { useMonochromeAssets: false, images: imageLoader(ASSETS) }))), name);
    assert.notEqual(sha(a), sha(frame(level(name, 7))), `${name}: images should change the frame`);
  }
});

test("maze: walking the shortest path to the cheese pays +10 and ends the level; walls block", () => {
  for (const seed of [1, 2, 3]) {
    const game = level("maze", seed);
    const w = game.mainWidth;
    const goal = game.grid.indexOf(2);
    const start = game.getAgentIndex();
    // Walking into the wall below the start does nothing (the maze sits inside a wall frame).
    game.step(DOWN);
    assert.equal(game.getAgentIndex(), start);
    const actions = pathActions(start, goal, w, game.mainHeight, (i) => game.grid[i] !== WALL_OBJ);
    for (let k = 0; k < actions.length; k++) {
      game.advance(actions[k]);
      const last = k === actions.length - 1;
      assert.equal(game.stepData.done, last, `seed ${seed} step ${k}`);
      assert.equal(game.stepData.reward, last ? 10 : 0);
    }
    assert.equal(game.stepData.levelComplete, true);
  }
});

test("heist: a key opens its lock (a shut lock blocks), the gem pays 10 and ends the level", () => {
  let checked = 0;
  for (let seed = 0; seed < 30 && checked < 2; seed++) {
    const game = level("heist", seed, { distributionMode: HARD_MODE }) as BasicAbstractGame & { hasKeys: boolean[] };
    const lock = game.entities.find((e) => e.type === 1);
    const key = game.entities.find((e) => e.type === 2 && e.imageTheme === lock?.imageTheme);
    if (lock === undefined || key === undefined) continue;
    // Put the agent just left of the lock and push right: it does not pass while the key is missing.
    game.agent.x = lock.x - 1;
    game.agent.y = lock.y;
    for (let k = 0; k < 10; k++) game.advance(RIGHT);
    assert.ok(game.agent.x < lock.x - lock.rx, "a shut lock blocks");
    assert.equal(game.entities.includes(lock), true);
    // Touching the key picks it up; the lock then opens on contact.
    game.agent.x = key.x;
    game.agent.y = key.y;
    game.advance(4);
    assert.equal(game.hasKeys[key.imageTheme], true);
    assert.equal(game.entities.includes(key), false);
    game.agent.x = lock.x - 0.8;
    game.agent.y = lock.y;
    for (let k = 0; k < 5; k++) game.advance(RIGHT);
    assert.equal(game.entities.includes(lock), false, "the lock opens once its key is held");
    const gem = game.entities.find((e) => e.type === 9)!;
    game.agent.x = gem.x;
    game.agent.y = gem.y;
    game.advance(4);
    assert.equal(game.stepData.reward, 10);
    assert.equal(game.stepData.done, true);
    assert.equal(game.stepData.levelComplete, true);
    checked++;
  }
  assert.equal(checked, 2);
});
