// Specifications for the MuJoCo "-v4" tasks (gymnasium/envs/mujoco/*_v4.py, Gymnasium 0.29) and their base env.
// Expected values come from Gymnasium's documentation and registry, from the published reward formulas, or from
// hand computations on the MJCF geometry, never from running the env's own code.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { describe, test } from "node:test";

import * as gym from "../envs/gymnasium/index.ts";
import type { Env } from "../envs/gymnasium/core.ts";
import { checkEnv } from "../envs/gymnasium/env_checker.ts";
import type { Box } from "../envs/gymnasium/spaces.ts";
import { type MujocoEnv, mujocoModule, numpySum, sumOfSquares } from "../envs/mujoco/mujoco_env.ts";

await gym.mujoco.init();

const quiet = { onWarning: () => {} };

function assertClose(actual: number, expected: number, tol: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: got ${actual}, expected ${expected} (tol ${tol})`);
}

/** The innermost MujocoEnv of a made env. */
function inner(env: Env): MujocoEnv {
  return env.unwrapped as unknown as MujocoEnv;
}

/** Sum of squares of an action, in float64 (the env's float32 rounding is far below the tolerances used here). */
function sumSq(a: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * a[i];
  return s;
}

interface Documented {
  obs: number;
  act: number;
  dt: number;
  ctrl: [number, number];
  maxSteps: number;
  threshold: number | null;
}

// Gymnasium's documentation (observation/action tables, dt in the reward sections) and gymnasium/envs/__init__.py.
const DOCUMENTED: Record<string, Documented> = {
  "Hopper-v4": { obs: 11, act: 3, dt: 4 * 0.002, ctrl: [-1, 1], maxSteps: 1000, threshold: 3800 },
  "HalfCheetah-v4": { obs: 17, act: 6, dt: 5 * 0.01, ctrl: [-1, 1], maxSteps: 1000, threshold: 4800 },
  "InvertedPendulum-v4": { obs: 4, act: 1, dt: 2 * 0.02, ctrl: [-3, 3], maxSteps: 1000, threshold: 950 },
  "Walker2d-v4": { obs: 17, act: 6, dt: 4 * 0.002, ctrl: [-1, 1], maxSteps: 1000, threshold: null },
  "InvertedDoublePendulum-v4": { obs: 11, act: 1, dt: 5 * 0.01, ctrl: [-1, 1], maxSteps: 1000, threshold: 9100 },
  "Swimmer-v4": { obs: 8, act: 2, dt: 4 * 0.01, ctrl: [-1, 1], maxSteps: 1000, threshold: 360 },
  "Reacher-v4": { obs: 11, act: 2, dt: 2 * 0.01, ctrl: [-1, 1], maxSteps: 50, threshold: -3.75 },
  "Pusher-v4": { obs: 23, act: 7, dt: 5 * 0.01, ctrl: [-2, 2], maxSteps: 100, threshold: 0 },
  "Ant-v4": { obs: 27, act: 8, dt: 5 * 0.01, ctrl: [-1, 1], maxSteps: 1000, threshold: 6000 },
  "Humanoid-v4": { obs: 376, act: 17, dt: 5 * 0.003, ctrl: [-0.4, 0.4], maxSteps: 1000, threshold: null },
};
const IDS = Object.keys(DOCUMENTED);

/** Steps `env` with seeded random actions, calling `check(action, step result, previous observation)` each step. */
function rollout(
  env: Env,
  steps: number,
  seed: number,
  check: (action: Float32Array, result: gym.StepResult<unknown>, previous: Float64Array) => void,
): void {
  env.actionSpace.seed(seed);
  let [obs] = env.reset({ seed }) as [Float64Array, unknown];
  for (let t = 0; t < steps; t++) {
    const action = env.actionSpace.sample() as Float32Array;
    const result = env.step(action);
    check(action, result, obs);
    obs = result[2] || result[3] ? (env.reset()[0] as Float64Array) : (result[0] as Float64Array);
  }
}

describe("registration and spaces", () => {
  test("every v4 task is registered with Gymnasium's time limit and reward threshold", () => {
    for (const [id, doc] of Object.entries(DOCUMENTED)) {
      assert.equal(gym.spec(id).maxEpisodeSteps, doc.maxSteps, id);
      assert.equal(gym.spec(id).rewardThreshold, doc.threshold, id);
    }
  });

  test("observation and action spaces have the documented sizes, float64 observations and ctrlrange-bounded float32 actions", () => {
    for (const [id, doc] of Object.entries(DOCUMENTED)) {
      const env = gym.make(id);
      const obsSpace = env.observationSpace as Box;
      const actSpace = env.actionSpace as Box;
      assert.deepEqual([obsSpace.shape, obsSpace.dtype], [[doc.obs], "float64"], id);
      assert.ok(
        obsSpace.low.every((v) => v === -Infinity) && obsSpace.high.every((v) => v === Infinity),
        `${id}: observations are unbounded`,
      );
      assert.deepEqual([actSpace.shape, actSpace.dtype], [[doc.act], "float32"], id);
      assert.ok(
        actSpace.low.every((v) => v === Math.fround(doc.ctrl[0])),
        `${id} action low ${actSpace.low}`,
      );
      assert.ok(
        actSpace.high.every((v) => v === Math.fround(doc.ctrl[1])),
        `${id} action high ${actSpace.high}`,
      );
      env.close();
    }
  });

  test("dt is the model timestep times frame_skip", () => {
    for (const [id, doc] of Object.entries(DOCUMENTED)) {
      const env = gym.make(id);
      assertClose(inner(env).dt, doc.dt, 1e-12, `${id} dt`);
      env.close();
    }
  });

  test("every task passes checkEnv", () => {
    for (const id of IDS) assert.doesNotThrow(() => checkEnv(gym.make(id), quiet), `${id} failed the checker`);
  });

  test("rgb_array rendering is refused: the WASM build has no renderer", () => {
    assert.throws(() => gym.make("Hopper-v4", { renderMode: "rgb_array" }), /render mode "rgb_array" not supported/);
  });

  test("make rejects a keyword argument the task does not take, as Python's TypeError would", () => {
    assert.throws(() => gym.make("Hopper-v4", { ctrlCost: 0.1 }), /unexpected keyword argument "ctrlCost"/);
    assert.throws(() => gym.make("InvertedPendulum-v4", { resetNoiseScale: 0.1 }), /unexpected keyword argument/);
  });

  test("making a MuJoCo env before gym.mujoco.init() fails with an error that says what to do", () => {
    const require = createRequire(import.meta.url);
    const script =
      'import * as gym from "./envs/gymnasium/index.ts"; try { gym.make("Hopper-v4"); console.log("made"); } catch (e) { console.log(e.message); }';
    const output = execFileSync(
      process.execPath,
      ["--import", require.resolve("tsx"), "--input-type=module", "-e", script],
      {
        encoding: "utf8",
        cwd: new URL("..", import.meta.url),
      },
    );
    assert.match(output, /await gym\.mujoco\.init\(\)/);
  });
});

describe("models carry Gymnasium's physical parameters", () => {
  test("Hopper's torso mass is its capsule's volume times density 1000 (r = 0.05, half-length 0.2)", () => {
    const env = gym.make("Hopper-v4");
    const m = inner(env);
    const volume = Math.PI * 0.05 ** 2 * 0.4 + (4 / 3) * Math.PI * 0.05 ** 3;
    assertClose((m.model.body_mass as Float64Array)[m.bodyId("torso")], 1000 * volume, 1e-9, "torso mass");
    env.close();
  });

  test("HalfCheetah's masses are rescaled to a total of 14 kg (compiler settotalmass)", () => {
    const env = gym.make("HalfCheetah-v4");
    const total = (inner(env).model.body_mass as Float64Array).reduce((a, b) => a + b, 0);
    assertClose(total, 14, 1e-9, "total mass");
    env.close();
  });

  test("Ant's torso is a sphere of radius 0.25 at density 5", () => {
    const env = gym.make("Ant-v4");
    const m = inner(env);
    assertClose(
      (m.model.body_mass as Float64Array)[m.bodyId("torso")],
      5 * (4 / 3) * Math.PI * 0.25 ** 3,
      1e-9,
      "torso mass",
    );
    env.close();
  });

  test("Hopper's and Walker2d's hinge ranges are the original's -150..0 and -45..45 degrees to full precision", () => {
    // Gymnasium's files give them in degrees; a 6-digit radian rounding (-2.61799) made trajectories drift.
    for (const id of ["Hopper-v4", "Walker2d-v4"]) {
      const env = gym.make(id);
      const range = inner(env).model.jnt_range as Float64Array;
      const legs = id === "Hopper-v4" ? 1 : 2;
      for (let leg = 0; leg < legs; leg++) {
        const first = 3 + 3 * leg; // joints 0-2 are rootx, rootz, rooty
        const expected = [
          [-150, 0],
          [-150, 0],
          [-45, 45],
        ];
        for (let k = 0; k < 3; k++) {
          for (let side = 0; side < 2; side++) {
            assertClose(
              range[2 * (first + k) + side],
              (expected[k][side] * Math.PI) / 180,
              1e-15,
              `${id} joint ${first + k} range[${side}]`,
            );
          }
        }
      }
      env.close();
    }
  });

  test("Humanoid uses the PGS constraint solver with 50 iterations, as Gymnasium's humanoid.xml sets", () => {
    const env = gym.make("Humanoid-v4");
    const opt = inner(env).model.opt;
    assert.equal(opt.solver, mujocoModule().mjtSolver.mjSOL_PGS.value);
    assert.equal(opt.iterations, 50);
    env.close();
  });

  test("initial states are the models' qpos0: Hopper and Walker2d stand at z = 1.25, Ant at 0.75, Humanoid at 1.4", () => {
    for (const [id, z] of [
      ["Hopper-v4", 1.25],
      ["Walker2d-v4", 1.25],
      ["Ant-v4", 0.75],
      ["Humanoid-v4", 1.4],
    ] as const) {
      const env = gym.make(id);
      const zIndex = id === "Ant-v4" || id === "Humanoid-v4" ? 2 : 1;
      assert.equal(inner(env).initQpos[zIndex], z, id);
      assert.ok(
        inner(env).initQvel.every((v) => v === 0),
        `${id} initQvel`,
      );
      env.close();
    }
  });
});

describe("numpy's summation order", () => {
  // numpy sums with pairwise summation: from 8 values on, 8 running partial sums. Hand-worked cases where that
  // order and a left-to-right loop round differently: one big square then eight 1s.
  test("sumOfSquares of float64 [2^27, 1 x 8] is 2^54 + 4, as numpy's pairwise sum gives (a running sum stays at 2^54)", () => {
    // Partials p0..p7 = 2^54, 1, ..., 1; ((2^54 + 1) + 2) + (2 + 2): 2^54 + 1 -> 2^54 (the float64 spacing there
    // is 4), 2^54 + 2 -> 2^54 (tie, to even), + 4 = 2^54 + 4; then the 9th value: 2^54 + 5 -> 2^54 + 4.
    assert.equal(sumOfSquares(Float64Array.of(2 ** 27, 1, 1, 1, 1, 1, 1, 1, 1)), 2 ** 54 + 4);
  });

  test("sumOfSquares of float32 [2^12, 1 x 8] is 2^24 + 8, rounding every partial sum to float32", () => {
    // Float32 spacing at 2^24 is 2: 2^24 + 1 -> 2^24 (tie, to even), + 2 -> 2^24 + 2, + 4 -> 2^24 + 6, then
    // + 1 -> 2^24 + 7, a tie between 2^24 + 6 and 2^24 + 8, to even: 2^24 + 8.
    assert.equal(sumOfSquares(Float32Array.of(2 ** 12, 1, 1, 1, 1, 1, 1, 1, 1)), 2 ** 24 + 8);
  });

  test("fewer than 8 values are summed left to right", () => {
    // float64: 2^54 + 1 -> 2^54, six times over.
    assert.equal(numpySum(Float64Array.of(2 ** 54, 1, 1, 1, 1, 1, 1)), 2 ** 54);
  });
});

describe("rewards, info and termination", () => {
  test("Hopper with zero action falls over and terminates through the health check", () => {
    const env = gym.make("Hopper-v4");
    env.reset({ seed: 0 });
    const zero = new Float32Array(3);
    for (let t = 1; t <= 500; t++) {
      const [obs, , terminated, truncated] = env.step(zero) as [Float64Array, number, boolean, boolean, unknown];
      assert.equal(truncated, false);
      // Unhealthy: z <= 0.7, |angle| >= 0.2, or some qpos[2:]/qvel entry outside (-100, 100).
      const unhealthy = !(obs[0] > 0.7) || !(Math.abs(obs[1]) < 0.2);
      if (terminated) {
        assert.ok(unhealthy, `terminated at step ${t} with z ${obs[0]} and angle ${obs[1]}`);
        return;
      }
      assert.ok(!unhealthy, `step ${t}: z ${obs[0]}, angle ${obs[1]} is unhealthy but the episode goes on`);
    }
    assert.fail("Hopper did not fall within 500 steps of zero action");
  });

  test("Hopper and Walker2d pay x_velocity + 1 - 0.001 * sum(action^2), x_velocity being the x displacement over dt", () => {
    for (const id of ["Hopper-v4", "Walker2d-v4"]) {
      const env = gym.make(id);
      const dt = inner(env).dt;
      let previousX: number | null = null;
      rollout(env, 300, 3, (action, [, reward, terminated, truncated, info]) => {
        const { x_position, x_velocity } = info as { x_position: number; x_velocity: number };
        assertClose(reward, x_velocity + 1 - 0.001 * sumSq(action), 1e-6, `${id} reward`);
        if (previousX !== null) assertClose(x_velocity, (x_position - previousX) / dt, 1e-9, `${id} x_velocity`);
        previousX = terminated || truncated ? null : x_position;
      });
      env.close();
    }
  });

  test("HalfCheetah's reward is reward_run + reward_ctrl, with reward_run = x_velocity and reward_ctrl = -0.1 * sum(action^2)", () => {
    const env = gym.make("HalfCheetah-v4");
    rollout(env, 200, 4, (action, [, reward, terminated, , info]) => {
      const i = info as Record<string, number>;
      assert.equal(terminated, false);
      assertClose(i.reward_run, i.x_velocity, 1e-12, "reward_run");
      assertClose(i.reward_ctrl, -0.1 * sumSq(action), 1e-6, "reward_ctrl");
      assertClose(reward, i.reward_run + i.reward_ctrl, 1e-12, "reward");
    });
    env.close();
  });

  test("Swimmer, Reacher, Ant and Humanoid rewards are the sums of their info terms", () => {
    const terms: Record<string, string[]> = {
      "Swimmer-v4": ["reward_fwd", "reward_ctrl"],
      "Reacher-v4": ["reward_dist", "reward_ctrl"],
      "Ant-v4": ["reward_forward", "reward_ctrl", "reward_survive"],
      "Humanoid-v4": ["reward_linvel", "reward_quadctrl", "reward_alive"],
    };
    for (const [id, keys] of Object.entries(terms)) {
      const env = gym.make(id);
      rollout(env, 60, 5, (_action, [, reward, , , info]) => {
        const sum = keys.reduce((s, k) => s + (info as Record<string, number>)[k], 0);
        assertClose(reward, sum, 1e-9, `${id} reward`);
      });
      env.close();
    }
  });

  test("Ant and Humanoid pay their alive bonus (1 and 5) and charge 0.5 and 0.1 times the squared action", () => {
    for (const [id, alive, ctrlWeight, ctrlKey, aliveKey] of [
      ["Ant-v4", 1, 0.5, "reward_ctrl", "reward_survive"],
      ["Humanoid-v4", 5, 0.1, "reward_quadctrl", "reward_alive"],
    ] as const) {
      const env = gym.make(id);
      rollout(env, 30, 6, (action, [, , , , info]) => {
        const i = info as Record<string, number>;
        assert.equal(i[aliveKey], alive, id);
        assertClose(i[ctrlKey], -ctrlWeight * sumSq(action), 1e-6, `${id} ctrl cost`);
      });
      env.close();
    }
  });

  test("Pusher's reward adds a non-positive 0.5-weighted 'near' term to reward_dist + 0.1 * reward_ctrl", () => {
    const env = gym.make("Pusher-v4");
    rollout(env, 60, 7, (action, [, reward, , , info]) => {
      const i = info as Record<string, number>;
      assertClose(i.reward_ctrl, -sumSq(action), 1e-6 * sumSq(action), "reward_ctrl (float32 sum)");
      assert.ok(
        reward <= i.reward_dist + 0.1 * i.reward_ctrl + 1e-12,
        `reward ${reward} exceeds the dist and ctrl terms`,
      );
    });
    env.close();
  });

  test("Reacher rewards the state before the action: reward_dist is minus the distance in the previous observation", () => {
    const env = gym.make("Reacher-v4");
    rollout(env, 50, 8, (_action, [, , , , info], previous) => {
      const distance = Math.hypot(previous[8], previous[9], previous[10]);
      assertClose((info as Record<string, number>).reward_dist, -distance, 1e-12, "reward_dist");
    });
    env.close();
  });

  test("InvertedPendulum pays 1 per step and terminates exactly when |pole angle| > 0.2", () => {
    const env = gym.make("InvertedPendulum-v4");
    let terminations = 0;
    rollout(env, 400, 9, (_action, [obs, reward, terminated]) => {
      assert.equal(reward, 1);
      assert.equal(terminated, Math.abs((obs as Float64Array)[1]) > 0.2);
      if (terminated) terminations++;
    });
    assert.ok(terminations > 0, "random actions should topple the pole at least once");
    env.close();
  });

  test("InvertedDoublePendulum pays 10 - (0.01 x^2 + (z - 2)^2) - (1e-3 v1^2 + 5e-3 v2^2) for tip (x, z) and ends when z <= 1", () => {
    const env = gym.make("InvertedDoublePendulum-v4");
    const data = inner(env).data;
    let terminations = 0;
    rollout(env, 200, 10, (_action, [o, reward, terminated]) => {
      // The tip site's position as MuJoCo left it after the last physics step (Gymnasium reads data.site_xpos[0]).
      const site = data.site_xpos as Float64Array;
      const qvel = data.qvel as Float64Array;
      const [x, z] = [site[0], site[2]];
      const expected = 10 - (0.01 * x ** 2 + (z - 2) ** 2) - (1e-3 * qvel[1] ** 2 + 5e-3 * qvel[2] ** 2);
      assertClose(reward, expected, 1e-9, "reward");
      assert.equal(terminated, z <= 1);
      if (terminated) terminations++;
      // Geometry: both hinges turn about +y and each pole is 0.6 long, so the observed angles put the tip at
      // (x0 + 0.6 sin a1 + 0.6 sin(a1 + a2), 0.6 cos a1 + 0.6 cos(a1 + a2)). The site lags the observed state by
      // one 0.01 s physics substep (it is computed before mj_step's final integration), hence the tolerance.
      const obs = o as Float64Array;
      const [x0, s1, s2, c1, c2] = [obs[0], obs[1], obs[2], obs[3], obs[4]];
      assertClose(0.6 * c1 + 0.6 * (c1 * c2 - s1 * s2), z, 0.05, "tip height from the observed angles");
      assertClose(x0 + 0.6 * s1 + 0.6 * (s1 * c2 + c1 * s2), x, 0.05, "tip x from the observed angles");
    });
    assert.ok(terminations > 0);
    env.close();
  });

  test("excludeCurrentPositionsFromObservation: false puts x first (Hopper: 12 values, obs[0] = info.x_position)", () => {
    const env = gym.make("Hopper-v4", { excludeCurrentPositionsFromObservation: false });
    assert.deepEqual(env.observationSpace.shape, [12]);
    env.reset({ seed: 0 });
    const [obs, , , , info] = env.step(new Float32Array(3)) as [
      Float64Array,
      number,
      boolean,
      boolean,
      Record<string, number>,
    ];
    assert.equal(obs[0], info.x_position);
    env.close();
  });
});

describe("resets and determinism", () => {
  test("reset noise stays within the documented ranges", () => {
    const hopper = gym.make("Hopper-v4");
    const init = Float64Array.of(1.25, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    for (let seed = 0; seed < 20; seed++) {
      const [obs] = hopper.reset({ seed }) as [Float64Array, unknown];
      obs.forEach((v, i) => assert.ok(Math.abs(v - init[i]) <= 5e-3, `Hopper obs[${i}] = ${v}`));
    }
    hopper.close();

    const reacher = gym.make("Reacher-v4");
    for (let seed = 0; seed < 20; seed++) {
      const [obs] = reacher.reset({ seed }) as [Float64Array, unknown];
      assert.ok(Math.hypot(obs[4], obs[5]) < 0.2, `target (${obs[4]}, ${obs[5]}) outside the 0.2 disc`);
      assert.ok(Math.abs(obs[6]) <= 0.005 && Math.abs(obs[7]) <= 0.005, "arm velocities");
    }
    reacher.close();
  });

  test("the same seed and actions reproduce a trajectory exactly; another seed does not", () => {
    const trajectory = (seed: number): number[] => {
      const env = gym.make("Hopper-v4");
      const values: number[] = [];
      rollout(env, 200, seed, (_a, [obs, reward]) => values.push(...(obs as Float64Array), reward));
      env.close();
      return values;
    };
    const first = trajectory(11);
    assert.deepEqual(trajectory(11), first);
    assert.notDeepEqual(trajectory(12), first);
  });
});

describe("WASM memory", () => {
  test("observations stay right across WASM heap growth (stale typed-array views are re-fetched)", () => {
    const actions = Array.from({ length: 20 }, (_, t) => Float32Array.from({ length: 6 }, (_, i) => Math.sin(t + i)));
    const run = (growHeapAfter: number | null): number[] => {
      const env = gym.make("HalfCheetah-v4");
      env.reset({ seed: 5 });
      const values: number[] = [];
      const keep: Env[] = [];
      for (let t = 0; t < actions.length; t++) {
        if (t === growHeapAfter) {
          const before = gym.mujoco.wasmHeapBytes();
          // Each mjData reserves about 1 MB, so a few dozen envs force the heap to grow.
          while (gym.mujoco.wasmHeapBytes() === before) keep.push(gym.make("Humanoid-v4"));
        }
        values.push(...(env.step(actions[t])[0] as Float64Array));
      }
      for (const e of keep) e.close();
      env.close();
      return values;
    };
    assert.deepEqual(run(10), run(null));
  });

  test("20,000 steps with resets do not grow the WASM heap", () => {
    const env = gym.make("HalfCheetah-v4");
    env.actionSpace.seed(0);
    env.reset({ seed: 0 });
    for (let t = 0; t < 1000; t++) env.step(env.actionSpace.sample()); // warm-up
    const before = gym.mujoco.wasmHeapBytes();
    for (let t = 0; t < 20_000; t++) {
      const [, , terminated, truncated] = env.step(env.actionSpace.sample());
      if (terminated || truncated || t % 997 === 0) env.reset();
    }
    assert.equal(gym.mujoco.wasmHeapBytes(), before);
    env.close();
  });

  test("close() frees the model and data: making and closing 200 envs keeps the heap flat", () => {
    gym.make("Humanoid-v4").close(); // let the allocator settle on one env's worth of memory
    const before = gym.mujoco.wasmHeapBytes();
    for (let i = 0; i < 200; i++) gym.make("Humanoid-v4").close();
    assert.equal(gym.mujoco.wasmHeapBytes(), before);
  });

  test("close() twice is safe, and a closed env refuses to step", () => {
    const env = gym.make("Hopper-v4");
    env.reset({ seed: 0 });
    env.close();
    assert.doesNotThrow(() => env.close());
    assert.throws(() => env.step(new Float32Array(3)), /closed/);
  });
});
