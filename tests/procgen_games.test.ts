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
import {
  type BasicAbstractGame,
  type DistributionMode,
  EASY_MODE,
  type GameOptions,
  HARD_MODE,
  RES,
} from "../envs/procgen/game.ts";
import { GAMES, makeGame } from "../envs/procgen/games/index.ts";
import { MAZE_OFFSET, MazeGen } from "../envs/procgen/mazegen.ts";
import { Mt19937 } from "../envs/procgen/mt19937.ts";
import { RoomGenerator } from "../envs/procgen/roomgen.ts";

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
    for (let k = 0; k < d; k++)
      for (const i of [k, k * d, k * d + d - 1, (d - 1) * d + k]) assert.equal(gen.grid[i], WALL_OBJ);
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
      const open = (i: number) =>
        g[i] !== WALL_OBJ && !(g[i] > DOOR_OBJ && g[i] < KEY_OBJ && !opened.has(g[i] - DOOR_OBJ)) && g[i] !== DOOR_OBJ;
      const reach = reachable(agent, d, d, open);
      const target = k <= doors ? KEY_OBJ + k : EXIT_OBJ;
      assert.ok(
        [...reach].some((i) => g[i] === target),
        `seed ${seed}: ${k <= doors ? `key ${k}` : "exit"} unreachable`,
      );
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
      assert.ok(
        a.some((v) => v !== 0),
        `${name}: blank frame`,
      );
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

test("miner: a diamond pays +1; the exit pays +10 only once every diamond is collected; a falling boulder kills", () => {
  const DIRT = 9;
  const game = level("miner", 5) as BasicAbstractGame & { diamondsRemaining: number };
  const w = game.mainWidth;
  game.grid.fill(DIRT);
  game.agent.x = 4.5;
  game.agent.y = 4.5;
  game.setObj(4, 4, SPACE);
  game.setObj(6, 4, 2); // the only diamond, two cells right
  const exit = game.entities.find((e) => e.type === 6)!;
  exit.x = 3.5;
  exit.y = 4.5;
  game.advance(4); // the diamond count is taken at the end of a step
  game.advance(LEFT); // onto the exit with a diamond left: nothing
  assert.equal(game.stepData.done, false);
  assert.equal(game.stepData.reward, 0);
  game.advance(RIGHT);
  game.advance(RIGHT); // digs through dirt
  assert.equal(game.stepData.reward, 0);
  game.advance(RIGHT);
  assert.equal(game.stepData.reward, 1);
  assert.equal(game.getObj(6, 4), SPACE);
  for (let k = 0; k < 2; k++) game.advance(LEFT);
  assert.equal(game.stepData.done, false);
  game.advance(LEFT);
  assert.equal(game.stepData.reward, 10);
  assert.equal(game.stepData.done, true);
  assert.equal(game.stepData.levelComplete, true);

  const g2 = level("miner", 5);
  g2.grid.fill(DIRT);
  g2.agent.x = 4.5;
  g2.agent.y = 4.5;
  g2.setObj(4, 4, SPACE);
  g2.setObj(4, 5, SPACE);
  g2.setObj(4, 6, 1); // a boulder two cells above, nothing under it but the gap
  g2.advance(4);
  assert.equal(g2.stepData.done, false, "it falls one cell per step");
  assert.equal(g2.getObj(4, 5), 3); // now a moving boulder right above the agent
  g2.advance(4);
  assert.equal(g2.stepData.done, true);
  assert.equal(g2.stepData.levelComplete, false);
  assert.equal(w, 10);
});

test("leaper: a hop moves one cell over five steps, input waits for it; the finish row pays +10", () => {
  const game = level("leaper", 11);
  game.grid.fill(SPACE); // no water, no cars: only the hops and the finish line
  game.entities = game.entities.filter((e) => e.type === 0 || e.type === 5);
  let hops = 0;
  while ((hops === 0 || !game.stepData.done) && hops < 30) {
    const y0 = game.agent.y;
    game.advance(UP);
    game.advance(LEFT); // ignored: the frog is mid-hop
    for (let k = 0; k < 4; k++) game.advance(4);
    hops++;
    if (!game.stepData.done) {
      assert.ok(Math.abs(game.agent.y - y0 - 1) < 1e-6, `hop ${hops}: moved ${game.agent.y - y0}`);
      assert.equal(game.agent.vx, 0);
      assert.equal(game.agent.vy, 0);
    }
  }
  assert.equal(game.stepData.reward, 10);
  assert.equal(game.stepData.levelComplete, true);
  const goalY = (game as BasicAbstractGame & { goalY: number }).goalY;
  assert.equal(hops, goalY - 1);
});

test("leaper: landing in water without a log ends the episode, so does a car", () => {
  let seed = 0;
  let game = level("leaper", seed);
  while ((game as BasicAbstractGame & { waterLaneSpeeds: number[] }).waterLaneSpeeds.length === 0)
    game = level("leaper", ++seed);
  game.entities = game.entities.filter((e) => e.type === 0 || e.type === 5);
  for (let k = 0; k < 200 && (k === 0 || !game.stepData.done); k++) game.advance(k % 6 === 0 ? UP : 4);
  assert.equal(game.stepData.done, true);
  assert.equal(game.stepData.reward, 0);
  assert.equal(game.getObjFromFloats(game.agent.x, game.agent.y), 3); // in the river
  const g2 = level("leaper", 3);
  const car = g2.addEntityRxy(g2.agent.x, g2.agent.y, 0, 0, 0.5, 0.25, 4);
  assert.ok(car);
  g2.advance(4);
  assert.equal(g2.stepData.done, true);
});

test("chaser: each small orb pays 0.04 and the last one +10; a large orb makes enemies edible, otherwise they kill", () => {
  const game = level("chaser", 21) as BasicAbstractGame & {
    totalOrbs: number;
    orbsCollected: number;
    canEatEnemies(): boolean;
  };
  const ORB = 1002;
  const orbCells = game.getCellsWithType(ORB);
  assert.equal(orbCells.length, game.totalOrbs);
  // The agent starts on an orb; standing still eats it.
  assert.equal(game.getObjIdx(game.getAgentIndex()), ORB);
  game.entities = game.entities.filter((e) => e.type === 0);
  game.advance(4);
  assert.ok(Math.abs(game.stepData.reward - 0.04) < 1e-6);
  // Pretend all but one orb are eaten: the last one completes the level.
  for (const c of orbCells) if (c !== game.getAgentIndex()) game.setObjIdx(c, SPACE);
  const last = orbCells.find((c) => c !== game.getAgentIndex())!;
  game.setObjIdx(last, ORB);
  game.orbsCollected = game.totalOrbs - 1;
  game.agent.x = (last % game.mainWidth) + 0.5;
  game.agent.y = Math.trunc(last / game.mainWidth) + 0.5;
  game.advance(4);
  assert.ok(Math.abs(game.stepData.reward - 10.04) < 1e-5);
  assert.equal(game.stepData.done, true);
  assert.equal(game.stepData.levelComplete, true);

  const g2 = level("chaser", 21) as typeof game;
  const orb = g2.entities.find((e) => e.type === 2)!;
  const enemy = g2.addEntity(g2.agent.x, g2.agent.y, 0, 0, 0.5, 6);
  assert.equal(g2.canEatEnemies(), false);
  // Touching the large orb first (it is later in the list, so handled first) makes the enemy edible.
  g2.entities.splice(g2.entities.indexOf(orb), 1);
  const big = g2.addEntity(g2.agent.x, g2.agent.y, 0, 0, 0.4, 2);
  g2.advance(4);
  assert.equal(g2.stepData.done, false);
  assert.equal(g2.entities.includes(enemy), false, "an edible enemy is eaten");
  assert.equal(g2.entities.includes(big), false);
  const g3 = level("chaser", 21);
  g3.addEntity(g3.agent.x, g3.agent.y, 0, 0, 0.5, 6);
  g3.advance(4);
  assert.equal(g3.stepData.done, true);
  assert.equal(g3.stepData.levelComplete, false);
});

test("plunder: a cannonball sinking a target pays +1 and juice, a friend costs juice; empty juice ends, 20 targets pay +10", () => {
  type P = BasicAbstractGame & { imagePermutation: number[]; juiceLeft: number; targetsHit: number };
  const game = level("plunder", 8) as P;
  const shipAt = (g: P, theme: number) => {
    const s = g.addEntity(g.agent.x, g.agent.y + 3, 0, 0, 1, 7);
    s.imageTheme = theme;
    return s;
  };
  const target = shipAt(game, game.imagePermutation[0]);
  game.juiceLeft = 0.5; // below the cap of 1, so the +0.1 shows
  game.advance(9); // too early: the first shot waits for step 3
  assert.equal(game.entities.filter((e) => e.type === 1).length, 0);
  game.advance(4);
  game.advance(9);
  let reward = 0;
  for (let k = 0; k < 4; k++) {
    const before = game.juiceLeft;
    game.advance(4);
    reward += game.stepData.reward;
    if (!game.entities.includes(target)) {
      assert.ok(Math.abs(game.juiceLeft - before - 0.1 + 0.0015) < 1e-5);
      break;
    }
  }
  assert.equal(reward, 1);
  assert.equal(game.targetsHit, 1);
  const friend = shipAt(game, game.imagePermutation[1]);
  game.advance(9);
  let juiceDrop = 0;
  for (let k = 0; k < 4 && game.entities.includes(friend); k++) {
    const before = game.juiceLeft;
    game.advance(4);
    assert.equal(game.stepData.reward, 0);
    juiceDrop = before - game.juiceLeft;
  }
  assert.ok(Math.abs(juiceDrop - 0.1015) < 1e-5, `friend: ${juiceDrop}`);
  game.targetsHit = 19;
  shipAt(game, game.imagePermutation[0]);
  game.advance(9);
  let total = 0;
  for (let k = 0; k < 4 && !game.stepData.done; k++) {
    game.advance(4);
    total += game.stepData.reward;
  }
  assert.equal(total, 11);
  assert.equal(game.stepData.levelComplete, true);
  const g2 = level("plunder", 8) as P;
  g2.juiceLeft = 0.001;
  g2.advance(4);
  assert.equal(g2.stepData.done, true);
  assert.equal(g2.stepData.levelComplete, false);
});

test("fruitbot: drifts up; fruit +1, other food -4, a wall ends it, presents pay +10; a key thrown into a lock opens its gate", () => {
  const game = level("fruitbot", 2);
  const y0 = game.agent.y;
  game.entities = game.entities.filter((e) => e.type === 0);
  for (let k = 0; k < 5; k++) game.advance(4);
  assert.ok(game.agent.y > y0 + 0.2, "the robot always moves up");
  for (const [type, reward, done] of [
    [7, 1, false],
    [4, -4, false],
    [1, 0, true],
    [12, 10, true],
  ] as const) {
    const g = level("fruitbot", 2);
    g.entities = g.entities.filter((e) => e.type === 0);
    g.addEntity(g.agent.x, g.agent.y + 0.5, 0, 0, 0.5, type);
    g.advance(4);
    assert.equal(g.stepData.reward, reward, `type ${type}`);
    assert.equal(g.stepData.done, done, `type ${type}`);
    assert.equal(g.stepData.levelComplete, type === 12);
  }
  let seed = 0;
  let g = level("fruitbot", seed, { distributionMode: HARD_MODE });
  while (!g.entities.some((e) => e.type === 11) && seed < 200)
    g = level("fruitbot", ++seed, { distributionMode: HARD_MODE });
  const lock = g.entities.find((e) => e.type === 11)!;
  const gate = g.entities.find((e) => e.type === 10 && Math.abs(e.y - lock.y) < 1)!;
  g.agent.x = lock.x;
  g.agent.y = lock.y - 3;
  // Keys can be thrown every 8 steps, the first at step 8.
  for (let k = 1; k <= 12; k++) g.advance(k === 8 ? 9 : 4);
  assert.equal(g.entities.includes(lock), false);
  assert.equal(g.entities.includes(gate), false);
});

test("climber: jumps only from support and falls back; a star pays +1 and the last one +10; enemies kill", () => {
  type C = BasicAbstractGame & { coinQuota: number; coinsCollected: number };
  const game = level("climber", 4) as C;
  game.entities = game.entities.filter((e) => e.type === 0);
  game.coinQuota = 5; // keep the level running while the jump is checked
  const y0 = game.agent.y;
  game.advance(UP);
  assert.ok(game.agent.y > y0 + 1, "the jump starts at 1.5 per step");
  game.advance(UP); // no support in the air: no second jump
  const vyAfter = game.agent.vy;
  assert.ok(vyAfter < 1.5);
  let landed = false;
  for (let k = 0; k < 30; k++) {
    game.advance(4);
    if (Math.abs(game.agent.y - y0) < 1e-6) landed = true;
  }
  assert.ok(landed, "gravity brings the agent back to the floor");
  const g2 = level("climber", 4) as C;
  g2.entities = g2.entities.filter((e) => e.type === 0);
  g2.coinQuota = 2;
  g2.addEntity(g2.agent.x, g2.agent.y, 0, 0, 0.3, 1);
  g2.advance(4);
  assert.equal(g2.stepData.reward, 1);
  assert.equal(g2.stepData.done, false);
  g2.addEntity(g2.agent.x, g2.agent.y, 0, 0, 0.3, 1);
  g2.advance(4);
  assert.equal(g2.stepData.reward, 11);
  assert.equal(g2.stepData.done, true);
  assert.equal(g2.stepData.levelComplete, true);
  const g3 = level("climber", 4);
  g3.addEntity(g3.agent.x, g3.agent.y, 0, 0, 0.5, 5);
  g3.advance(4);
  assert.equal(g3.stepData.done, true);
  assert.equal(g3.stepData.levelComplete, false);
});

test("ninja: holding up charges a jump released with up; stars blow up bombs; bombs and fire kill; the mushroom pays +10", () => {
  const BOMB = 6;
  const FIRE = 14;
  const game = level("ninja", 3) as BasicAbstractGame & { jumpCharge: number };
  const y0 = game.agent.y;
  game.advance(UP);
  assert.equal(game.jumpCharge, 1, "easy: one step charges fully");
  assert.ok(Math.abs(game.agent.y - y0) < 1e-9, "no jump while charging");
  game.advance(4);
  assert.ok(game.agent.y > y0 + 0.5, "released: the jump");
  // A star thrown right clears a bomb two cells ahead.
  const g2 = level("ninja", 3);
  const bx = Math.trunc(g2.agent.x) + 3;
  const by = Math.trunc(g2.agent.y);
  g2.setObj(bx, by, BOMB);
  for (let k = 1; k <= 6; k++) g2.advance(k === 3 ? 9 : 4);
  assert.equal(g2.getObj(bx, by), SPACE);
  for (const cell of [BOMB, FIRE]) {
    const g = level("ninja", 3);
    g.setObj(Math.trunc(g.agent.x), Math.trunc(g.agent.y), cell);
    g.advance(4);
    assert.equal(g.stepData.done, true, `cell ${cell}`);
    assert.equal(g.stepData.reward, 0);
  }
  const g3 = level("ninja", 3);
  g3.addEntity(g3.agent.x, g3.agent.y, 0, 0, 0.5, 1);
  g3.advance(4);
  assert.equal(g3.stepData.reward, 10);
  assert.equal(g3.stepData.levelComplete, true);
});

test("coinrun: jumps from the ground and lands; the coin pays +10 and completes; lava and saws kill", () => {
  const GOAL = 1;
  const LAVA_TOP = 18;
  const game = level("coinrun", 6);
  const y0 = game.agent.y;
  game.advance(4); // settle: support needs vy == 0
  game.advance(UP);
  assert.ok(game.agent.y > y0 + 1, `jumped to ${game.agent.y}`);
  let landed = false;
  for (let k = 0; k < 40 && !landed; k++) {
    game.advance(4);
    landed = Math.abs(game.agent.y - y0) < 1e-6;
  }
  assert.ok(landed);
  for (const [cell, reward] of [
    [GOAL, 10],
    [LAVA_TOP, 0],
  ]) {
    const g = level("coinrun", 6);
    g.setObj(Math.trunc(g.agent.x) + 1, Math.trunc(g.agent.y), cell);
    for (let k = 0; k < 10 && (k === 0 || !g.stepData.done); k++) g.advance(RIGHT);
    assert.equal(g.stepData.done, true, `cell ${cell}`);
    assert.equal(g.stepData.reward, reward);
    assert.equal(g.stepData.levelComplete, cell === GOAL);
  }
  const g2 = level("coinrun", 6);
  g2.addEntity(g2.agent.x + 1, g2.agent.y, 0, 0, 0.5, 2);
  for (let k = 0; k < 10 && (k === 0 || !g2.stepData.done); k++) g2.advance(RIGHT);
  assert.equal(g2.stepData.done, true);
  assert.equal(g2.stepData.reward, 0);
});

test("dodgeball: a thrown ball knocking out the last enemy pays +2 and opens the door (+10); lava walls and enemy balls kill", () => {
  const game = level("dodgeball", 9);
  const door = game.entities.find((e) => e.type === 5)!;
  game.entities = [game.agent, door];
  game.agent.x = 5;
  game.agent.y = 10;
  const enemy = game.addEntity(8.5, 10, 0, 0, 1, 4);
  enemy.collidesWithEntities = true;
  enemy.spawnTime = 1000; // keeps still
  enemy.fireTime = 10;
  let reward = 0;
  for (let k = 1; k <= 12; k++) {
    game.advance(k === 7 ? 9 : 4); // balls every 7 steps; the first at step 7, thrown right (the last move)
    reward += game.stepData.reward;
  }
  assert.equal(reward, 2);
  assert.equal(game.entities.includes(enemy), false);
  game.agent.x = door.x;
  game.agent.y = door.y;
  game.advance(4);
  assert.equal(game.stepData.reward, 10);
  assert.equal(game.stepData.levelComplete, true);
  for (const type of [1, 6]) {
    const g = level("dodgeball", 9);
    g.addEntity(g.agent.x, g.agent.y, 0, 0, 0.5, type);
    g.advance(4);
    assert.equal(g.stepData.done, true, `type ${type}`);
    assert.equal(g.stepData.reward, 0);
  }
});

test("roomgen: the best room is the largest 4-connected cave, paths are shortest, widening stays within n cells", () => {
  const game = level("caveflyer", 1);
  const w = game.mainWidth;
  const rand = new Mt19937(42);
  for (let i = 0; i < game.grid.length; i++) game.grid[i] = rand.rand01() < 0.45 ? WALL_OBJ : SPACE;
  const rooms = new RoomGenerator(game);
  for (let k = 0; k < 2; k++) rooms.update();
  const open = (i: number) => game.grid[i] === SPACE;
  const best = rooms.findBestRoom();
  // Compare with every component found independently.
  const seen = new Set<number>();
  let largest = 0;
  for (let i = 0; i < game.grid.length; i++) {
    if (!open(i) || seen.has(i)) continue;
    const comp = reachable(i, w, game.mainHeight, open);
    for (const c of comp) seen.add(c);
    if (comp.size > 1) largest = Math.max(largest, comp.size);
  }
  assert.equal(best.length, largest);
  const src = best[0];
  const dst = best[best.length - 1];
  const path = rooms.findPath(src, dst);
  assert.equal(path[0], src);
  assert.equal(path.at(-1), dst);
  for (let k = 1; k < path.length; k++) {
    const d = Math.abs(path[k] - path[k - 1]);
    assert.ok(d === 1 || d === w, "4-adjacent steps");
  }
  assert.equal(path.length - 1, pathActions(src, dst, w, game.mainHeight, open).length, "shortest");
  const wide = new Set([src]);
  rooms.expandRoom(wide, 2);
  for (const c of wide) {
    assert.ok(open(c));
    assert.ok(Math.max(Math.abs((c % w) - (src % w)), Math.abs(Math.trunc(c / w) - Math.trunc(src / w))) <= 2);
  }
});

test("caveflyer: lasers take a red UFO down in 5 hits (+3); meteors kill; the green UFO pays +10", () => {
  const game = level("caveflyer", 5);
  game.entities = [game.agent];
  game.grid.fill(SPACE);
  game.agent.rotation = 0; // nose up
  const target = game.addEntity(game.agent.x, game.agent.y + 3, 0, 0, 0.5, 3);
  target.health = 5;
  target.collidesWithEntities = true;
  let reward = 0;
  for (let k = 0; k < 12 && game.entities.includes(target); k++) {
    game.advance(9);
    reward += game.stepData.reward;
  }
  assert.equal(game.entities.includes(target), false);
  assert.equal(reward, 3);
  for (const [type, r, complete] of [
    [2, 0, false],
    [1, 10, true],
  ] as const) {
    const g = level("caveflyer", 5);
    g.addEntity(g.agent.x, g.agent.y, 0, 0, 0.5, type);
    g.advance(4);
    assert.equal(g.stepData.done, true);
    assert.equal(g.stepData.reward, r);
    assert.equal(g.stepData.levelComplete, complete);
  }
});

test("jumper: a double jump (the second in the air), gravity back down; spikes kill; the carrot pays +10", () => {
  let seed = 0;
  const game = level("jumper", seed);
  game.entities = [game.agent];
  // An open world with a floor, so no ceiling cuts the jumps short.
  game.grid.fill(SPACE);
  for (let x = 0; x < game.mainWidth; x++) game.setObj(x, 0, 7);
  game.agent.x = game.mainWidth / 2;
  game.agent.y = 1 + game.agent.ry;
  const y0 = game.agent.y;
  for (let k = 0; k < 3; k++) game.advance(4); // jumps are 3 steps apart, counted from step 0
  assert.ok(Math.abs(game.agent.y - y0) < 1e-6, "standing on the ground");
  game.advance(UP);
  const afterFirst = game.agent.y;
  assert.ok(afterFirst > y0 + 0.5, "first jump");
  for (let k = 0; k < 3; k++) game.advance(4);
  const vyBefore = game.agent.vy;
  game.advance(UP); // in the air, after the 3-step cooldown: the second jump
  assert.ok(game.agent.vy > vyBefore, "second jump resets the vertical speed");
  game.advance(4);
  game.advance(UP); // no third jump
  const vy3 = game.agent.vy;
  game.advance(4);
  assert.ok(game.agent.vy < vy3);
  for (const [type, r] of [
    [2, 0],
    [1, 10],
  ] as const) {
    const g = level("jumper", ++seed);
    g.addEntity(g.agent.x, g.agent.y, 0, 0, 0.4, type);
    g.advance(4);
    assert.equal(g.stepData.done, true);
    assert.equal(g.stepData.reward, r);
  }
});
