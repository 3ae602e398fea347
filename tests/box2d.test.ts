// Specifications for the Box2D ports (gymnasium/envs/box2d/lunar_lander.py and bipedal_walker.py, v3): each test
// pins one documented behaviour, with expected values taken from Gymnasium's published constants and equations,
// or worked out here from the geometry, never read back from the env's own code.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import * as gym from "../envs/gymnasium/index.ts";
import { checkEnv } from "../envs/gymnasium/env_checker.ts";
import { make, spec } from "../envs/gymnasium/registration.ts";
import { Box, Discrete } from "../envs/gymnasium/spaces.ts";
import { BipedalWalker, LunarLander, heuristicLander } from "../envs/box2d/index.ts";
import { LIDAR_RANGE, TERRAIN_HEIGHT, TERRAIN_STARTPAD, TERRAIN_STEP } from "../envs/box2d/bipedal_walker.ts";

const f32 = Math.fround;
const IDS = ["LunarLander-v3", "LunarLanderContinuous-v3", "BipedalWalker-v3", "BipedalWalkerHardcore-v3"];
type Frame = { width: number; height: number; data: Uint8Array };

function pixel(frame: Frame, x: number, row: number): number[] {
  const i = (row * frame.width + x) * 3;
  return Array.from(frame.data.subarray(i, i + 3));
}

function assertClose(actual: number, expected: number, tol: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: got ${actual}, expected ${expected} (tol ${tol})`);
}

/** Gymnasium's LunarLander shaping potential, from its published formula, evaluated on an observation. */
function landerShaping(s: ArrayLike<number>): number {
  return -100 * Math.hypot(s[0], s[1]) - 100 * Math.hypot(s[2], s[3]) - 100 * Math.abs(s[4]) + 10 * s[6] + 10 * s[7];
}

/** Runs Gymnasium's heuristic lander for one seeded episode; returns the return and the last step's reward. */
function heuristicEpisode(id: string, seed: number): { ret: number; last: number; asleep: boolean } {
  const env = make(id);
  const continuous = id === "LunarLanderContinuous-v3";
  let [s] = env.reset({ seed }) as [Float32Array, unknown];
  let ret = 0;
  for (;;) {
    const [next, reward, terminated, truncated] = env.step(heuristicLander(continuous, s));
    ret += reward;
    s = next as Float32Array;
    if (terminated || truncated) {
      const lander = (env.unwrapped as LunarLander).lander!;
      return { ret, last: reward, asleep: !lander.isAwake() };
    }
  }
}

describe("registration", () => {
  test("the v3 ids are registered with Gymnasium 1.0's kwargs, time limits and reward thresholds", () => {
    const expected: Record<string, [number, number, Record<string, unknown>]> = {
      "LunarLander-v3": [1000, 200, {}],
      "LunarLanderContinuous-v3": [1000, 200, { continuous: true }],
      "BipedalWalker-v3": [1600, 300, {}],
      "BipedalWalkerHardcore-v3": [2000, 300, { hardcore: true }],
    };
    for (const [id, [steps, threshold, kwargs]] of Object.entries(expected)) {
      assert.equal(spec(id).maxEpisodeSteps, steps, id);
      assert.equal(spec(id).rewardThreshold, threshold, id);
      assert.deepEqual(spec(id).kwargs, kwargs, id);
    }
  });

  test("LunarLander-v2 is not registered: v3 changed its observation bounds and wind seeding", () => {
    assert.throws(() => make("LunarLander-v2"), /no environment registered/);
  });

  test("the env checker passes for every Box2D id, without and with rgb_array rendering", () => {
    const quiet = { onWarning: () => {} };
    for (const id of IDS) {
      assert.ok(gym.registeredIds().includes(id), id);
      assert.doesNotThrow(() => checkEnv(make(id), quiet), id);
      assert.doesNotThrow(() => checkEnv(make(id, { renderMode: "rgb_array" }), quiet), `${id} rgb_array`);
    }
  });
});

describe("LunarLander", () => {
  test("has Gymnasium's spaces: Discrete(4) or Box(-1, 1, (2,)), and v3's 8-dim observation bounds", () => {
    const discrete = new LunarLander();
    const continuous = new LunarLander({ continuous: true });
    assert.ok(discrete.actionSpace instanceof Discrete && discrete.actionSpace.n === 4);
    assert.ok(continuous.actionSpace instanceof Box);
    assert.deepEqual(continuous.actionSpace.shape, [2]);
    assert.deepEqual(Array.from(continuous.actionSpace.low), [-1, -1]);
    assert.deepEqual(Array.from(continuous.actionSpace.high), [1, 1]);
    const obs = discrete.observationSpace;
    assert.equal(obs.dtype, "float32");
    assert.deepEqual(Array.from(obs.low), [-2.5, -2.5, -10, -10, -f32(2 * Math.PI), -10, -0, -0]);
    assert.deepEqual(Array.from(obs.high), [2.5, 2.5, 10, 10, f32(2 * Math.PI), 10, 1, 1]);
  });

  test("rejects a gravity outside (-12, 0), as Gymnasium's assertion does", () => {
    assert.throws(() => new LunarLander({ gravity: -12 }), /gravity/);
    assert.throws(() => new LunarLander({ gravity: 0.5 }), /gravity/);
    assert.doesNotThrow(() => new LunarLander({ gravity: -11.99 }));
  });

  test("starts at the top centre of the viewport, level, with no leg touching", () => {
    const env = new LunarLander();
    for (let seed = 0; seed < 5; seed++) {
      const [s] = env.reset({ seed });
      // Start (W/2, H) = (10, 40/3) m; the pad is at H/4 and y is measured from H/4 + LEG_DOWN/SCALE = 10/3 + 0.6 m,
      // in units of H/2: (40/3 - 10/3 - 0.6) / (20/3) = 1.41. The observation comes after one 20 ms step, in which
      // the random push (<= 1000 N per axis on the 4.8 kg hull: 867 px^2 of polygon at density 5) moves it by at
      // most 1000 / 4.8 * 0.02^2 = 0.083 m: 0.0083 units of x (W/2 = 10 m), 0.0125 units of y (H/2 = 6.67 m).
      assertClose(s[0], 0, 0.0085, `x (seed ${seed})`);
      assertClose(s[1], 1.41, 0.013, `y (seed ${seed})`);
      assertClose(s[4], 0, 0.01, `angle (seed ${seed})`);
      assert.deepEqual([s[6], s[7]], [0, 0]);
    }
  });

  test("each reward is the change of the published shaping potential minus 0.3 (main) or 0.03 (side) of fuel", () => {
    const env = new LunarLander();
    let [prev] = env.reset({ seed: 4 });
    const fuel = [0, 0.03, 0.3, 0.03];
    for (let t = 0; t < 40; t++) {
      const action = t % 4;
      const [s, reward, terminated] = env.step(action);
      assert.equal(terminated, false);
      // Observations are float32 roundings of the float64 state the env shapes with, hence the tolerance.
      assertClose(reward, landerShaping(s) - landerShaping(prev) - fuel[action], 2e-3, `step ${t}, action ${action}`);
      prev = s;
    }
  });

  test("continuous throttles: main 50%..100% above 0, side engines only beyond |0.5|, as their fuel cost shows", () => {
    const env = new LunarLander({ continuous: true });
    let [prev] = env.reset({ seed: 2 });
    // [main, lateral] -> fuel 0.3 * m_power + 0.03 * s_power, m_power = (main + 1) / 2, s_power = |lateral|.
    const cases: [number, number, number][] = [
      [0.5, 0, 0.3 * 0.75],
      [-0.5, 0.4, 0],
      [0, 0, 0], // main must be > 0 to fire
      [1, -0.75, 0.3 * 1 + 0.03 * 0.75],
      [0.2, 0.6, 0.3 * 0.6 + 0.03 * 0.6],
      [2, 3, 0.3 * 1 + 0.03 * 1], // out-of-range actions are clipped to [-1, 1]
    ];
    for (const [main, lateral, cost] of cases) {
      const [s, reward] = env.step([main, lateral]);
      assertClose(landerShaping(s) - landerShaping(prev) - reward, cost, 2e-3, `action [${main}, ${lateral}]`);
      prev = s;
    }
  });

  test("dropped with no action, the lander crashes: the hull hits the moon and the episode ends with -100", () => {
    // Free fall from 40/3 m to the pad region takes it to about sqrt(2 * 10 * 9) = 13 m/s; stopping ~5 kg from there
    // takes ~400 J, while the leg springs (40 N m over at most 0.5 rad each) absorb at most 40 J. So the hull must
    // touch the ground, which Gymnasium documents as a crash. The sideways push (<= 4 m/s for ~1.5 s) cannot reach
    // the viewport's edge 10 m away first.
    for (let seed = 0; seed < 5; seed++) {
      const env = make("LunarLander-v3");
      env.reset({ seed });
      let last: [unknown, number, boolean, boolean, unknown] | null = null;
      let steps = 0;
      do {
        last = env.step(0);
        steps++;
      } while (!last[2] && !last[3]);
      assert.equal(last[2], true, `seed ${seed} terminated`);
      assert.equal(last[1], -100, `seed ${seed} final reward`);
      assert.equal((env.unwrapped as LunarLander).gameOver, true, `seed ${seed} hull contact`);
      assert.ok(steps < 200, `seed ${seed} took ${steps} steps`);
    }
  });

  test("leaving the viewport sideways (|x| >= 1) ends the episode with -100", () => {
    const env = new LunarLander();
    env.reset({ seed: 0 });
    const lander = env.lander!;
    lander.setPosition({ x: 20.5, y: lander.getPosition().y }); // x = 20 m is the right edge: s[0] = 1
    const [s, reward, terminated] = env.step(0);
    assert.ok(s[0] >= 1);
    assert.equal(terminated, true);
    assert.equal(reward, -100);
  });

  for (const id of ["LunarLander-v3", "LunarLanderContinuous-v3"]) {
    test(`${id}: Gymnasium's heuristic lander scores above 200 on at least 8 of 10 seeds, ending at rest with +100`, () => {
      const episodes = Array.from({ length: 10 }, (_, seed) => heuristicEpisode(id, seed));
      const solved = episodes.filter((e) => e.ret > 200);
      assert.ok(solved.length >= 8, `returns: ${episodes.map((e) => e.ret.toFixed(1)).join(", ")}`);
      // A solved episode ends because the lander fell asleep on the ground, which Gymnasium rewards with +100.
      for (const e of solved) {
        assert.equal(e.last, 100);
        assert.equal(e.asleep, true);
      }
    });
  }

  test("with wind on, the wind phase comes from the seeded generator (v3), and wind changes the flight", () => {
    const windy = new LunarLander({ enableWind: true });
    windy.reset({ seed: 5 });
    const first = [windy.windIdx, windy.torqueIdx];
    windy.reset({ seed: 5 });
    assert.deepEqual([windy.windIdx, windy.torqueIdx], first);
    for (const v of first) assert.ok(Number.isInteger(v) && v >= -9999 && v < 9999, `phase ${v}`);

    const calm = new LunarLander();
    calm.reset({ seed: 5 });
    let a: Float32Array = new Float32Array(8);
    let b: Float32Array = new Float32Array(8);
    for (let t = 0; t < 20; t++) {
      a = windy.step(0)[0];
      b = calm.step(0)[0];
    }
    assert.notDeepEqual(Array.from(a), Array.from(b));
  });

  test("renders Gymnasium's scene: black sky, white ground, yellow flags at the pad's edges", () => {
    const env = make("LunarLander-v3", { renderMode: "rgb_array" });
    env.reset({ seed: 0 });
    const frame = env.render() as Frame;
    assert.deepEqual([frame.width, frame.height, frame.data.length], [600, 400, 600 * 400 * 3]);
    // Terrain heights are below H/2 (200 px), so the top rows are sky; y = 0 (the bottom row) is ground.
    assert.deepEqual(pixel(frame, 30, 10), [0, 0, 0]);
    assert.deepEqual(pixel(frame, 30, 399), [255, 255, 255]);
    // Flags: pad edges at chunk 4 and 6 of 10 across 600 px (240 and 360 px), pole from the pad (H/4 = 100 px) up
    // 50 px, pennant pointing right from its top: 5 px right of the pole, 5 px below its top, is pennant.
    for (const x of [240, 360]) assert.deepEqual(pixel(frame, x + 5, 399 - 145), [204, 204, 0], `flag at ${x}`);
  });
});

describe("BipedalWalker", () => {
  test("has Gymnasium's spaces: Box(-1, 1, (4,)) actions and the 24-dim observation bounds", () => {
    const env = new BipedalWalker();
    assert.deepEqual(env.actionSpace.shape, [4]);
    assert.deepEqual(Array.from(env.actionSpace.low), [-1, -1, -1, -1]);
    assert.deepEqual(Array.from(env.actionSpace.high), [1, 1, 1, 1]);
    const pi = f32(Math.PI);
    assert.equal(env.observationSpace.dtype, "float32");
    assert.deepEqual(Array.from(env.observationSpace.low), [
      -pi,
      -5,
      -5,
      -5,
      -pi,
      -5,
      -pi,
      -5,
      -0,
      -pi,
      -5,
      -pi,
      -5,
      -0,
      ...new Array(10).fill(-1),
    ]);
    assert.deepEqual(Array.from(env.observationSpace.high), [
      pi,
      5,
      5,
      5,
      pi,
      5,
      pi,
      5,
      5,
      pi,
      5,
      pi,
      5,
      5,
      ...new Array(10).fill(1),
    ]);
  });

  test("observations have 24 entries and lidar fractions stay in [0, 1] over random rollouts", () => {
    for (const id of ["BipedalWalker-v3", "BipedalWalkerHardcore-v3"]) {
      const env = make(id);
      env.actionSpace.seed(3);
      let [obs] = env.reset({ seed: 3 }) as [Float32Array, unknown];
      for (let t = 0; t < 300; t++) {
        assert.equal(obs.length, 24);
        for (let i = 14; i < 24; i++) assert.ok(obs[i] >= 0 && obs[i] <= 1, `${id} lidar ${i - 14} = ${obs[i]}`);
        assert.ok(env.observationSpace.contains(obs), `${id} step ${t}`);
        const [next, , terminated, truncated] = env.step(env.actionSpace.sample());
        obs = (terminated || truncated ? env.reset()[0] : next) as Float32Array;
      }
    }
  });

  test("each lidar ray reports where it meets the flat start pad, as a fraction of LIDAR_RANGE", () => {
    // The first TERRAIN_STARTPAD steps of terrain are flat at TERRAIN_HEIGHT (the grass walk only starts after
    // them). Ray i leaves the hull at 1.5 i / 10 rad from straight down, so it meets that ground after
    // (hull y - TERRAIN_HEIGHT) / cos(angle) metres, if that is within range and still over the pad.
    const env = new BipedalWalker();
    const [obs] = env.reset({ seed: 0 });
    const { x, y } = env.hull!.getPosition();
    let checked = 0;
    for (let i = 0; i < 10; i++) {
      const angle = (1.5 * i) / 10;
      const distance = (y - TERRAIN_HEIGHT) / Math.cos(angle);
      const hitX = x + distance * Math.sin(angle);
      if (distance > LIDAR_RANGE || hitX >= TERRAIN_STARTPAD * TERRAIN_STEP) continue;
      assertClose(obs[14 + i], distance / LIDAR_RANGE, 1e-5, `ray ${i}`);
      checked++;
    }
    assert.ok(checked >= 5, `only ${checked} rays land on the pad`);
  });

  test("each reward is 130 dx / SCALE - 5 d|hull angle| - 0.00035 * 80 * sum(min(|a|, 1))", () => {
    const env = new BipedalWalker();
    let [prev] = env.reset({ seed: 1 });
    let prevX = env.hull!.getPosition().x;
    const actions = [
      [0.5, -0.5, 0.25, 1],
      [-1, 1, -1, 1],
      [2, 0, -3, 0.1], // |a| is clipped to 1 in the cost
      [0, 0, 0, 0],
    ];
    for (let t = 0; t < 20; t++) {
      const action = actions[t % actions.length];
      const [s, reward, terminated] = env.step(action);
      assert.equal(terminated, false);
      const x = env.hull!.getPosition().x;
      const torqueCost = 0.00035 * 80 * action.reduce((sum, a) => sum + Math.min(Math.abs(a), 1), 0);
      const expected = (130 * (x - prevX)) / 30 - 5 * (Math.abs(s[0]) - Math.abs(prev[0])) - torqueCost;
      assertClose(reward, expected, 1e-5, `step ${t}`); // s[0] is the float32 hull angle
      prev = s;
      prevX = x;
    }
  });

  test("with zero torque the limp walker falls: the hull touches the ground and the episode ends with -100", () => {
    for (let seed = 0; seed < 3; seed++) {
      const env = make("BipedalWalker-v3");
      env.reset({ seed });
      let last: [unknown, number, boolean, boolean, unknown];
      do last = env.step([0, 0, 0, 0]);
      while (!last[2] && !last[3]);
      assert.equal(last[2], true, `seed ${seed}: truncated instead of falling`);
      assert.equal(last[1], -100);
      assert.equal((env.unwrapped as BipedalWalker).gameOver, true);
    }
  });

  test("hardcore terrain contains obstacles (stumps, pits, stairs) and the normal terrain none", () => {
    // Gymnasium's own test: obstacle bodies are the ones drawn white with a grey outline.
    for (let seed = 0; seed < 5; seed++) {
      const normal = new BipedalWalker();
      const hardcore = new BipedalWalker({ hardcore: true });
      normal.reset({ seed });
      hardcore.reset({ seed });
      const isObstacle = (t: { color1: readonly number[]; color2: readonly number[] }) =>
        t.color1.join() === "255,255,255" && t.color2.join() === "153,153,153";
      assert.equal(normal.terrain.filter(isObstacle).length, 0, `seed ${seed}`);
      assert.ok(hardcore.terrain.filter(isObstacle).length > 0, `seed ${seed}`);
      // Obstacles are polygons in the ground's collision category, so the lidar sees them.
      for (const t of hardcore.terrain.filter(isObstacle))
        assert.equal(t.body.getFixtureList()!.getFilterCategoryBits() & 1, 1);
    }
  });

  test("renders a 600x400 frame with Gymnasium's sky and the earth colour under the terrain", () => {
    const env = make("BipedalWalker-v3", { renderMode: "rgb_array" });
    env.reset({ seed: 0 });
    const frame = env.render() as Frame;
    assert.deepEqual([frame.width, frame.height, frame.data.length], [600, 400, 600 * 400 * 3]);
    // The terrain polygons reach down to y = 0, the bottom row; just above the start pad (TERRAIN_HEIGHT = 100 px)
    // at the far left, where no cloud is drawn that low (clouds sit around 3/4 of the height), is sky.
    for (const x of [0, 150, 300, 599]) assert.deepEqual(pixel(frame, x, 399), [102, 153, 76], `x=${x}`);
    assert.deepEqual(pixel(frame, 2, 399 - 110), [215, 215, 255]);
  });
});
