// Specifications for the classic-control ports: each test pins one behaviour of Gymnasium's original
// (gymnasium/envs/classic_control/*.py), with expected values worked out here from the published equations rather
// than by calling the env's own code.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import type { Env } from "../envs/gymnasium/core.ts";
import { make, spec } from "../envs/gymnasium/registration.ts";
import { Box, Discrete } from "../envs/gymnasium/spaces.ts";
import {
  AcrobotEnv,
  CartPoleEnv,
  Continuous_MountainCarEnv,
  MountainCarEnv,
  PendulumEnv,
} from "../envs/classic_control/index.ts";
import { bound, wrap } from "../envs/classic_control/acrobot.ts";

const f32 = Math.fround;
const ALL_IDS = [
  "CartPole-v0",
  "CartPole-v1",
  "Acrobot-v1",
  "MountainCar-v0",
  "MountainCarContinuous-v0",
  "Pendulum-v1",
];

function assertClose(actual: number, expected: number, tol: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: got ${actual}, expected ${expected} (tol ${tol})`);
}

/** A deterministic action for any of the envs, from a seeded action space. */
function sampleAction(env: Env): unknown {
  return env.actionSpace.sample();
}

/** Steps `env` (from `make`) with `keepAlive` run before each step, and returns the step at which it truncated. */
function stepsUntilTruncated(env: Env, action: unknown, keepAlive: () => void, limit: number): number {
  env.reset({ seed: 0 });
  for (let t = 1; t <= limit + 1; t++) {
    keepAlive();
    const [, , terminated, truncated] = env.step(action);
    assert.equal(terminated, false, `terminated unexpectedly at step ${t}`);
    if (truncated) return t;
  }
  return -1;
}

describe("registration", () => {
  test("every classic-control id is registered with Gymnasium's time limit and reward threshold", () => {
    const expected: Record<string, [number, number | null]> = {
      "CartPole-v0": [200, 195],
      "CartPole-v1": [500, 475],
      "Acrobot-v1": [500, -100],
      "MountainCar-v0": [200, -110],
      "MountainCarContinuous-v0": [999, 90],
      "Pendulum-v1": [200, null],
    };
    for (const [id, [steps, threshold]] of Object.entries(expected)) {
      assert.equal(spec(id).maxEpisodeSteps, steps, id);
      assert.equal(spec(id).rewardThreshold, threshold, id);
    }
  });

  test("make rejects a keyword argument the env does not take, as Python's TypeError would", () => {
    assert.throws(() => make("Pendulum-v1", { gravity: 9.81 }), /unexpected keyword argument "gravity"/);
  });

  test("every env declares rgb_array rendering at Gymnasium's frame rate", () => {
    const fps: Record<string, number> = {
      "CartPole-v1": 50,
      "Acrobot-v1": 15,
      "MountainCar-v0": 30,
      "MountainCarContinuous-v0": 30,
      "Pendulum-v1": 30,
    };
    for (const [id, renderFps] of Object.entries(fps)) {
      const env = make(id);
      assert.deepEqual(env.metadata.renderModes, ["rgb_array"], id);
      assert.equal(env.metadata.renderFps, renderFps, id);
    }
  });
});

describe("all classic-control envs", () => {
  test("observations are Float32Array values inside the observation space over random rollouts", () => {
    for (const id of ALL_IDS) {
      const env = make(id);
      env.actionSpace.seed(1);
      let [obs] = env.reset({ seed: 1 });
      for (let t = 0; t < 300; t++) {
        assert.ok(obs instanceof Float32Array, `${id} obs is not a Float32Array`);
        assert.ok(
          env.observationSpace.contains(obs),
          `${id} obs ${Array.from(obs as Float32Array)} outside ${env.observationSpace}`,
        );
        const [next, , terminated, truncated] = env.step(sampleAction(env));
        obs = terminated || truncated ? env.reset()[0] : next;
      }
    }
  });

  test("the same seed gives the same reset and the same trajectory", () => {
    for (const id of ALL_IDS) {
      const run = () => {
        const env = make(id);
        env.actionSpace.seed(7);
        const out: number[] = Array.from(env.reset({ seed: 123 })[0] as Float32Array);
        for (let t = 0; t < 50; t++) {
          const [obs, reward, terminated, truncated] = env.step(sampleAction(env));
          out.push(...(obs as Float32Array), reward);
          if (terminated || truncated) out.push(...(env.reset()[0] as Float32Array));
        }
        return out;
      };
      assert.deepEqual(run(), run(), id);
    }
  });

  test("different seeds give different initial states", () => {
    for (const id of ALL_IDS) {
      const env = make(id);
      const a = Array.from(env.reset({ seed: 1 })[0] as Float32Array);
      const b = Array.from(env.reset({ seed: 2 })[0] as Float32Array);
      assert.notDeepEqual(a, b, id);
    }
  });

  test("render returns an RGB frame of Gymnasium's screen size, and warns without a render mode", (t) => {
    const sizes: Record<string, [number, number]> = {
      "CartPole-v1": [600, 400],
      "Acrobot-v1": [500, 500],
      "MountainCar-v0": [600, 400],
      "MountainCarContinuous-v0": [600, 400],
      "Pendulum-v1": [500, 500],
    };
    for (const [id, [width, height]] of Object.entries(sizes)) {
      const env = make(id, { renderMode: "rgb_array" });
      env.reset({ seed: 0 });
      const frame = env.render() as { width: number; height: number; data: Uint8Array };
      assert.equal(frame.width, width, id);
      assert.equal(frame.height, height, id);
      assert.equal(frame.data.length, width * height * 3, id);
      const nonWhite = frame.data.some((v) => v !== 255);
      assert.ok(nonWhite, `${id} frame is blank`);
    }
    const warn = t.mock.method(console, "warn", () => {});
    const env = make("CartPole-v1");
    env.reset({ seed: 0 });
    assert.equal(env.render(), null);
    assert.equal(warn.mock.callCount(), 1);
  });

  test("CartPole's frame draws the cart black near the bottom and the pole above it", () => {
    const env = new CartPoleEnv({ renderMode: "rgb_array" });
    env.reset({ seed: 0 });
    env.state = Float64Array.of(0, 0, 0, 0);
    const frame = env.render()!;
    const px = (x: number, y: number) => Array.from(frame.data.subarray((y * 600 + x) * 3, (y * 600 + x) * 3 + 3));
    // Cart centre: x = 300, 100 px above the bottom (y-up) minus half its height -> row 400 - 1 - 95.
    assert.deepEqual(px(300, 400 - 1 - 95), [0, 0, 0]);
    // Upright pole directly above the axle, halfway up its 125 px length.
    assert.deepEqual(px(300, 400 - 1 - 170), [202, 152, 101]);
    // Far corner stays background.
    assert.deepEqual(px(5, 5), [255, 255, 255]);
  });
});

describe("CartPole", () => {
  test("CartPole has Gymnasium's spaces: Discrete(2) and a float32 Box of [4.8, f32 max, 24 degrees, f32 max]", () => {
    const env = new CartPoleEnv();
    assert.ok(env.actionSpace instanceof Discrete && env.actionSpace.n === 2);
    assert.ok(env.observationSpace instanceof Box);
    assert.equal(env.observationSpace.dtype, "float32");
    const f32max = 3.4028234663852886e38;
    assert.deepEqual(Array.from(env.observationSpace.high), [f32(4.8), f32max, f32(0.41887902047863906), f32max]);
    assert.deepEqual(Array.from(env.observationSpace.low), [-f32(4.8), -f32max, -f32(0.41887902047863906), -f32max]);
  });

  test("CartPole-v1 one step from a known state matches the Euler equations computed by hand", () => {
    const env = new CartPoleEnv();
    env.reset({ seed: 0 });
    env.state = Float64Array.of(0.1, -0.2, 0.05, 0.3);
    const [obs, reward, terminated, truncated] = env.step(0); // push left: F = -10 N

    // Florian's frictionless cart-pole with g = 9.8, m_c = 1, m_p = 0.1, half-length l = 0.5, tau = 0.02.
    const sin = Math.sin(0.05);
    const cos = Math.cos(0.05);
    const temp = (-10 + 0.1 * 0.5 * 0.3 * 0.3 * sin) / 1.1;
    const thetaacc = (9.8 * sin - cos * temp) / (0.5 * (4 / 3 - (0.1 * cos * cos) / 1.1));
    const xacc = temp - (0.1 * 0.5 * thetaacc * cos) / 1.1;
    // Explicit Euler: positions use the old velocities.
    const expected = [0.1 + 0.02 * -0.2, -0.2 + 0.02 * xacc, 0.05 + 0.02 * 0.3, 0.3 + 0.02 * thetaacc];
    // Sanity check on the magnitudes (evaluated separately in Python: thetaacc = 15.40117, xacc = -9.78988).
    assertClose(thetaacc, 15.40117, 1e-5, "thetaacc");
    assertClose(xacc, -9.78988, 1e-5, "xacc");

    for (let i = 0; i < 4; i++) assertClose(env.state![i], expected[i], 1e-12, `state[${i}]`);
    assert.ok(obs instanceof Float32Array);
    assert.deepEqual(Array.from(obs), expected.map(f32));
    assert.equal(reward, 1);
    assert.equal(terminated, false);
    assert.equal(truncated, false);
  });

  test("CartPole keeps its state in float64 and returns float32 copies", () => {
    const env = new CartPoleEnv();
    const [obs] = env.reset({ seed: 3 });
    assert.ok(env.state instanceof Float64Array);
    assert.deepEqual(Array.from(obs), Array.from(env.state!).map(f32));
    obs[0] = 99;
    assert.notEqual(env.state![0], 99);
  });

  test("CartPole resets all four state variables uniformly in [-0.05, 0.05)", () => {
    const env = new CartPoleEnv();
    let spread = 0;
    for (let seed = 0; seed < 200; seed++) {
      env.reset({ seed });
      for (const v of env.state!) {
        assert.ok(v >= -0.05 && v < 0.05, `state ${v} outside [-0.05, 0.05)`);
        spread = Math.max(spread, Math.abs(v));
      }
    }
    assert.ok(spread > 0.045, "reset values should fill the range");
  });

  test("CartPole reset options low/high override the reset range", () => {
    const env = new CartPoleEnv();
    env.reset({ seed: 0, options: { low: 0.5, high: 0.6 } });
    for (const v of env.state!) assert.ok(v >= 0.5 && v < 0.6);
    assert.throws(() => env.reset({ options: { low: 1, high: 0 } }), /Lower bound/);
  });

  test("CartPole terminates when |theta| exceeds 12 degrees, and the failing step still pays +1", () => {
    const threshold = (12 * 2 * Math.PI) / 360;
    for (const sign of [1, -1]) {
      const env = new CartPoleEnv();
      env.reset({ seed: 0 });
      // theta moves by tau * theta_dot = 0.02 rad this step, from just inside the threshold.
      env.state = Float64Array.of(0, 0, sign * (threshold - 0.01), sign * 1.0);
      const [, reward, terminated] = env.step(sign === 1 ? 0 : 1);
      assert.equal(terminated, true);
      assert.equal(reward, 1);
    }
    const env = new CartPoleEnv();
    env.reset({ seed: 0 });
    env.state = Float64Array.of(0, 0, threshold - 0.01, 0);
    assert.equal(env.step(0)[2], false, "inside the threshold is not terminal");
  });

  test("CartPole terminates when the cart leaves [-2.4, 2.4]", () => {
    for (const sign of [1, -1]) {
      const env = new CartPoleEnv();
      env.reset({ seed: 0 });
      env.state = Float64Array.of(sign * 2.395, sign * 1.0, 0, 0); // x moves by 0.02 this step
      assert.equal(env.step(1)[2], true);
    }
  });

  test("CartPole stepping past termination pays 0 and warns exactly once", (t) => {
    const warn = t.mock.method(console, "warn", () => {});
    const env = new CartPoleEnv();
    env.reset({ seed: 0 });
    env.state = Float64Array.of(2.5, 0, 0, 0);
    assert.deepEqual(env.step(1).slice(1, 3), [1, true]);
    assert.deepEqual(env.step(1).slice(1, 3), [0, true]);
    assert.deepEqual(env.step(1).slice(1, 3), [0, true]);
    assert.equal(warn.mock.callCount(), 1);
    assert.equal(env.stepsBeyondTerminated, 2);
    env.reset();
    assert.equal(env.stepsBeyondTerminated, null);
  });

  test("CartPole suttonBartoReward (Gymnasium 1.0) pays 0 per step and -1 on failure", () => {
    const env = make("CartPole-v1", { suttonBartoReward: true });
    env.reset({ seed: 0 });
    assert.equal(env.step(0)[1], 0);
    (env.unwrapped as CartPoleEnv).state = Float64Array.of(2.5, 0, 0, 0);
    assert.equal(env.step(0)[1], -1);
  });

  test("CartPole rejects actions outside Discrete(2)", () => {
    const env = new CartPoleEnv();
    env.reset({ seed: 0 });
    assert.throws(() => env.step(2), /invalid/);
    assert.throws(() => env.step(0.5), /invalid/);
  });

  test("CartPole-v1 truncates at 500 steps and CartPole-v0 at 200", () => {
    for (const [id, limit] of [
      ["CartPole-v1", 500],
      ["CartPole-v0", 200],
    ] as const) {
      const env = make(id);
      const inner = env.unwrapped as CartPoleEnv;
      assert.equal(
        stepsUntilTruncated(env, 1, () => (inner.state = Float64Array.of(0, 0, 0, 0)), limit),
        limit,
        id,
      );
    }
  });
});

describe("Acrobot", () => {
  /** The book's equations of motion solved as a 2x2 linear system by Cramer's rule (not Gymnasium's elimination). */
  function acrobotDerivative(s: readonly number[], torque: number): number[] {
    const [t1, t2, w1, w2] = s;
    const g = 9.8;
    // m1 = m2 = 1, l1 = 1, lc1 = lc2 = 0.5, I1 = I2 = 1.
    const d11 = 0.25 + (1 + 0.25 + Math.cos(t2)) + 2; // m1 lc1^2 + m2 (l1^2 + lc2^2 + 2 l1 lc2 cos t2) + I1 + I2
    const d12 = 0.25 + 0.5 * Math.cos(t2) + 1; // m2 (lc2^2 + l1 lc2 cos t2) + I2
    const d22 = 0.25 + 1; // m2 lc2^2 + I2
    const phi2 = 0.5 * g * Math.sin(t1 + t2); // cos(a - pi/2) = sin(a)
    const phi1 = -0.5 * w2 * w2 * Math.sin(t2) - 2 * 0.5 * w2 * w1 * Math.sin(t2) + 1.5 * g * Math.sin(t1) + phi2;
    // d11 a1 + d12 a2 = -phi1 ;  d12 a1 + d22 a2 = torque - 0.5 w1^2 sin t2 - phi2
    const r1 = -phi1;
    const r2 = torque - 0.5 * w1 * w1 * Math.sin(t2) - phi2;
    const det = d11 * d22 - d12 * d12;
    const a1 = (r1 * d22 - d12 * r2) / det;
    const a2 = (d11 * r2 - d12 * r1) / det;
    return [w1, w2, a1, a2];
  }

  function rk4Step(s: number[], torque: number, h: number): number[] {
    const add = (a: number[], b: number[], k: number) => a.map((v, i) => v + k * b[i]);
    const k1 = acrobotDerivative(s, torque);
    const k2 = acrobotDerivative(add(s, k1, h / 2), torque);
    const k3 = acrobotDerivative(add(s, k2, h / 2), torque);
    const k4 = acrobotDerivative(add(s, k3, h), torque);
    return s.map((v, i) => v + (h / 6) * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]));
  }

  test("Acrobot has Gymnasium's spaces: Discrete(3) and a float32 Box of [1, 1, 1, 1, 4 pi, 9 pi]", () => {
    const env = new AcrobotEnv();
    assert.equal(env.actionSpace.n, 3);
    assert.deepEqual(Array.from(env.observationSpace.high), [1, 1, 1, 1, f32(4 * Math.PI), f32(9 * Math.PI)]);
    assert.deepEqual(Array.from(env.observationSpace.low), [-1, -1, -1, -1, -f32(4 * Math.PI), -f32(9 * Math.PI)]);
  });

  test("Acrobot-v1 one step is one RK4 step of dt = 0.2 of the book dynamics, checked against an independent RK4", () => {
    for (const [action, torque] of [
      [0, -1],
      [1, 0],
      [2, 1],
    ]) {
      const env = new AcrobotEnv();
      env.reset({ seed: 0 });
      const s0 = [0.3, -0.4, 0.5, -0.6];
      env.state = Float64Array.from(s0);
      const [obs, reward, terminated] = env.step(action);
      const expected = rk4Step(s0, torque, 0.2);
      for (let i = 0; i < 4; i++) assertClose(env.state![i], expected[i], 1e-12, `torque ${torque} state[${i}]`);
      const [t1, t2, w1, w2] = expected;
      assert.deepEqual(Array.from(obs), [Math.cos(t1), Math.sin(t1), Math.cos(t2), Math.sin(t2), w1, w2].map(f32));
      assert.equal(reward, -1);
      assert.equal(terminated, false);
    }
  });

  test("Acrobot's nips dynamics drop the dtheta1^2 coupling term from the book equation", () => {
    const book = new AcrobotEnv();
    const nips = new AcrobotEnv();
    nips.bookOrNips = "nips";
    const s = Float64Array.of(0.3, -0.4, 0.5, -0.6, 1);
    const term = 1 * 1 * 0.5 * 0.5 * 0.5 * Math.sin(-0.4); // m2 l1 lc2 dtheta1^2 sin(theta2), dtheta1 = 0.5
    const d1 = 0.25 + (1 + 0.25 + Math.cos(-0.4)) + 2;
    const d2 = 0.25 + 0.5 * Math.cos(-0.4) + 1;
    // ddtheta2(book) - ddtheta2(nips) = -term / (m2 lc2^2 + I2 - d2^2 / d1)
    assertClose(book.dsdt(s)[3] - nips.dsdt(s)[3], -term / (1.25 - (d2 * d2) / d1), 1e-12, "ddtheta2 difference");
  });

  test("Acrobot wraps angles into [-pi, pi] and bounds velocities at 4 pi and 9 pi", () => {
    const env = new AcrobotEnv();
    env.reset({ seed: 0 });
    env.state = Float64Array.of(0, 0, -4 * Math.PI, -9 * Math.PI);
    env.step(0);
    const [t1, t2, w1, w2] = env.state!;
    assert.equal(w1, -4 * Math.PI);
    assert.equal(w2, -9 * Math.PI);
    for (const t of [t1, t2]) assert.ok(t >= -Math.PI && t <= Math.PI);
    assert.ok(t1 > 0, "theta1 went below -pi and was wrapped by a full turn");

    assertClose(wrap(3 * Math.PI + 0.1, -Math.PI, Math.PI), Math.PI + 0.1 - 2 * Math.PI, 1e-12, "wrap above");
    assertClose(wrap(-Math.PI - 0.1, -Math.PI, Math.PI), Math.PI - 0.1, 1e-12, "wrap below");
    assert.equal(wrap(Math.PI, -Math.PI, Math.PI), Math.PI, "the end points are kept, not wrapped");
    assert.equal(bound(50, -4, 4), 4);
    assert.equal(bound(-50, -4, 4), -4);
  });

  test("Acrobot terminates with reward 0 once -cos(theta1) - cos(theta1 + theta2) > 1, else pays -1", () => {
    const env = new AcrobotEnv();
    env.reset({ seed: 0 });
    env.state = Float64Array.of(Math.PI, 0, 0, 0); // both links straight up: height 2
    assert.deepEqual(env.step(1).slice(1, 3), [0, true]);
    env.state = Float64Array.of(Math.PI / 2, 0, 0, 0); // horizontal: height 0
    assert.deepEqual(env.step(1).slice(1, 3), [-1, false]);
  });

  test("Acrobot resets to float32-rounded values uniform in [-0.1, 0.1)", () => {
    const env = new AcrobotEnv();
    for (let seed = 0; seed < 200; seed++) {
      const [obs] = env.reset({ seed });
      for (const v of env.state!) {
        assert.ok(v >= -0.1 && v <= 0.1);
        assert.equal(v, f32(v), "Gymnasium casts the reset state to float32");
      }
      assert.equal(obs[4], env.state![2]);
    }
  });

  test("Acrobot-v1 truncates at 500 steps", () => {
    const env = make("Acrobot-v1");
    const inner = env.unwrapped as AcrobotEnv;
    assert.equal(
      stepsUntilTruncated(env, 1, () => (inner.state = Float64Array.of(0, 0, 0, 0)), 500),
      500,
    );
  });
});

describe("MountainCar", () => {
  test("MountainCar has Gymnasium's spaces: Discrete(3) and a float32 Box [-1.2, -0.07] to [0.6, 0.07]", () => {
    const env = new MountainCarEnv();
    assert.equal(env.actionSpace.n, 3);
    assert.deepEqual(Array.from(env.observationSpace.low), [f32(-1.2), f32(-0.07)]);
    assert.deepEqual(Array.from(env.observationSpace.high), [f32(0.6), f32(0.07)]);
  });

  test("MountainCar-v0 one step from a known state matches the update computed by hand", () => {
    const env = new MountainCarEnv();
    env.reset({ seed: 0 });
    env.state = Float64Array.of(-0.5, 0.01);
    const [obs, reward, terminated] = env.step(2); // push right: +0.001
    const v = 0.01 + 0.001 - 0.0025 * Math.cos(3 * -0.5); // ~ 0.010823
    const p = -0.5 + v; // the position moves with the new velocity
    assertClose(v, 0.0108232, 1e-7, "velocity by hand");
    assertClose(env.state![1], v, 1e-15, "velocity");
    assertClose(env.state![0], p, 1e-15, "position");
    assert.deepEqual(Array.from(obs), [f32(p), f32(v)]);
    assert.equal(reward, -1);
    assert.equal(terminated, false);
  });

  test("MountainCar clips the velocity to +-0.07", () => {
    const env = new MountainCarEnv();
    env.reset({ seed: 0 });
    env.state = Float64Array.of(-0.5, 0.0699);
    env.step(2);
    assert.equal(env.state![1], 0.07);
    assertClose(env.state![0], -0.43, 1e-15, "position moved by the clipped velocity");
  });

  test("MountainCar hitting the left wall clips the position to -1.2 and zeroes the velocity", () => {
    const env = new MountainCarEnv();
    env.reset({ seed: 0 });
    env.state = Float64Array.of(-1.19, -0.05);
    const [obs] = env.step(0);
    assert.equal(env.state![0], -1.2);
    assert.equal(env.state![1], 0);
    assert.deepEqual(Array.from(obs), [f32(-1.2), 0]);
  });

  test("MountainCar terminates at position >= 0.5 with velocity >= 0, still paying -1", () => {
    const env = new MountainCarEnv();
    env.reset({ seed: 0 });
    env.state = Float64Array.of(0.49, 0.02);
    assert.deepEqual(env.step(2).slice(1, 3), [-1, true]);
    // Past the flag but rolling back: not a success under goal_velocity = 0.
    env.state = Float64Array.of(0.56, -0.001);
    const [, , terminated] = env.step(0);
    assert.ok(env.state![0] >= 0.5 && env.state![1] < 0);
    assert.equal(terminated, false);
  });

  test("MountainCar goalVelocity kwarg demands a minimum speed at the flag", () => {
    const env = make("MountainCar-v0", { goalVelocity: 0.05 });
    env.reset({ seed: 0 });
    (env.unwrapped as MountainCarEnv).state = Float64Array.of(0.49, 0.02);
    assert.equal(env.step(2)[2], false);
  });

  test("MountainCar resets the position uniformly in [-0.6, -0.4) with zero velocity", () => {
    const env = new MountainCarEnv();
    for (let seed = 0; seed < 200; seed++) {
      env.reset({ seed });
      assert.ok(env.state![0] >= -0.6 && env.state![0] < -0.4);
      assert.equal(env.state![1], 0);
    }
  });

  test("MountainCar-v0 truncates at 200 steps when the car just idles in the valley", () => {
    assert.equal(
      stepsUntilTruncated(make("MountainCar-v0"), 1, () => {}, 200),
      200,
    );
  });
});

describe("MountainCarContinuous", () => {
  test("MountainCarContinuous has a float32 action Box(-1, 1, (1,)) and observation Box [-1.2, -0.07] to [0.6, 0.07]", () => {
    const env = new Continuous_MountainCarEnv();
    assert.deepEqual(
      [Array.from(env.actionSpace.low), Array.from(env.actionSpace.high), env.actionSpace.shape],
      [[-1], [1], [1]],
    );
    assert.equal(env.actionSpace.dtype, "float32");
    assert.deepEqual(Array.from(env.observationSpace.low), [f32(-1.2), f32(-0.07)]);
    assert.deepEqual(Array.from(env.observationSpace.high), [f32(0.6), f32(0.07)]);
  });

  test("MountainCarContinuous one step matches the update by hand and pays -0.1 a^2", () => {
    const env = new Continuous_MountainCarEnv();
    env.reset({ seed: 0 });
    env.state = Float64Array.of(-0.5, 0.01);
    const [obs, reward, terminated] = env.step(Float32Array.of(0.5));
    const v = 0.01 + 0.5 * 0.0015 - 0.0025 * Math.cos(3 * -0.5);
    const p = -0.5 + v;
    assert.deepEqual(Array.from(obs), [f32(p), f32(v)]);
    assertClose(reward, -0.1 * 0.25, 1e-15, "reward");
    assert.equal(terminated, false);
  });

  test("MountainCarContinuous stores its state as float32 after a step, as Gymnasium does", () => {
    const env = new Continuous_MountainCarEnv();
    env.reset({ seed: 0 });
    env.state = Float64Array.of(-0.5, 0.01);
    env.step(Float32Array.of(0.3));
    for (const v of env.state!) assert.equal(v, f32(v));
  });

  test("MountainCarContinuous clips the force to [-1, 1] but charges the unclipped action", () => {
    const a = new Continuous_MountainCarEnv();
    const b = new Continuous_MountainCarEnv();
    for (const env of [a, b]) {
      env.reset({ seed: 0 });
      env.state = Float64Array.of(-0.5, 0);
    }
    const [obsA, rewardA] = a.step([3]);
    const [obsB, rewardB] = b.step([1]);
    assert.deepEqual(obsA, obsB);
    assertClose(rewardA, -0.9, 1e-15, "reward for a = 3");
    assertClose(rewardB, -0.1, 1e-15, "reward for a = 1");
  });

  test("MountainCarContinuous pays +100 (minus the action cost) on reaching 0.45", () => {
    const env = new Continuous_MountainCarEnv();
    env.reset({ seed: 0 });
    env.state = Float64Array.of(0.44, 0.02);
    const [, reward, terminated] = env.step(Float32Array.of(0.5));
    assert.equal(terminated, true);
    assertClose(reward, 100 - 0.025, 1e-12, "reward");
  });

  test("MountainCarContinuous resets the position uniformly in [-0.6, -0.4) with zero velocity", () => {
    const env = new Continuous_MountainCarEnv();
    for (let seed = 0; seed < 200; seed++) {
      env.reset({ seed });
      assert.ok(env.state![0] >= -0.6 && env.state![0] < -0.4);
      assert.equal(env.state![1], 0);
    }
  });

  test("MountainCarContinuous-v0 truncates at 999 steps", () => {
    assert.equal(
      stepsUntilTruncated(make("MountainCarContinuous-v0"), Float32Array.of(0), () => {}, 999),
      999,
    );
  });
});

describe("Pendulum", () => {
  test("Pendulum has a float32 action Box(-2, 2, (1,)) and observation Box of [1, 1, 8]", () => {
    const env = new PendulumEnv();
    assert.deepEqual([Array.from(env.actionSpace.low), Array.from(env.actionSpace.high)], [[-2], [2]]);
    assert.deepEqual(Array.from(env.observationSpace.high), [1, 1, 8]);
    assert.deepEqual(Array.from(env.observationSpace.low), [-1, -1, -8]);
  });

  test("Pendulum-v1 one step from a known state matches the update and cost computed by hand", () => {
    const env = new PendulumEnv();
    env.reset({ seed: 0 });
    env.state = Float64Array.of(1.0, 2.0);
    const [obs, reward, terminated, truncated] = env.step(Float32Array.of(1.5));
    // Cost on the pre-step state: th^2 + 0.1 thdot^2 + 0.001 u^2 = 1 + 0.4 + 0.00225.
    assertClose(reward, -1.40225, 1e-12, "reward");
    // g = 10, m = l = 1, dt = 0.05: thdot' = thdot + (3g/2 sin th + 3 u) dt, th' = th + thdot' dt.
    const newthdot = 2.0 + (15 * Math.sin(1.0) + 4.5) * 0.05;
    const newth = 1.0 + newthdot * 0.05;
    assertClose(newthdot, 2.8561, 1e-4, "thdot by hand");
    assertClose(env.state![1], newthdot, 1e-14, "thdot");
    assertClose(env.state![0], newth, 1e-14, "theta");
    assert.deepEqual(Array.from(obs), [Math.cos(newth), Math.sin(newth), newthdot].map(f32));
    assert.equal(terminated, false);
    assert.equal(truncated, false);
  });

  test("Pendulum's cost normalises the angle into [-pi, pi) but the state keeps the raw angle", () => {
    const rewardAt = (th: number) => {
      const env = new PendulumEnv();
      env.reset({ seed: 0 });
      env.state = Float64Array.of(th, 0);
      return env.step(Float32Array.of(0))[1];
    };
    assertClose(rewardAt(0.5 + 2 * Math.PI), rewardAt(0.5), 1e-12, "one turn later");
    assertClose(rewardAt(-0.5 - 4 * Math.PI), rewardAt(-0.5), 1e-12, "two turns earlier");
    assertClose(rewardAt(4.0), -((4.0 - 2 * Math.PI) ** 2), 1e-12, "4 rad is 2.28 rad from upright");
    const env = new PendulumEnv();
    env.reset({ seed: 0 });
    env.state = Float64Array.of(7.0, 0);
    env.step(Float32Array.of(0));
    assert.ok(env.state![0] > 7.0, "theta itself is never wrapped");
  });

  test("Pendulum clips the torque to [-2, 2] in both dynamics and cost, and the speed to [-8, 8]", () => {
    const a = new PendulumEnv();
    const b = new PendulumEnv();
    for (const env of [a, b]) {
      env.reset({ seed: 0 });
      env.state = Float64Array.of(0.3, 7.9);
    }
    const [obsA, rewardA] = a.step(Float32Array.of(5));
    const [obsB, rewardB] = b.step(Float32Array.of(2));
    assert.deepEqual(obsA, obsB);
    assert.equal(rewardA, rewardB);
    assert.equal(a.state![1], 8);
  });

  test("Pendulum's g kwarg (default 10, not 9.81) changes the dynamics", () => {
    const env = make("Pendulum-v1", { g: 9.81 });
    env.reset({ seed: 0 });
    const inner = env.unwrapped as PendulumEnv;
    assert.equal(inner.g, 9.81);
    assert.equal(new PendulumEnv().g, 10.0);
    inner.state = Float64Array.of(1.0, 0);
    env.step(Float32Array.of(0));
    assertClose(inner.state![1], 1.5 * 9.81 * Math.sin(1.0) * 0.05, 1e-14, "thdot with g = 9.81");
  });

  test("Pendulum resets theta in [-pi, pi) and thdot in [-1, 1), or in +-x_init / +-y_init", () => {
    const env = new PendulumEnv();
    let maxTh = 0;
    for (let seed = 0; seed < 200; seed++) {
      env.reset({ seed });
      const [th, thdot] = env.state!;
      assert.ok(th >= -Math.PI && th < Math.PI && thdot >= -1 && thdot < 1);
      maxTh = Math.max(maxTh, Math.abs(th));
    }
    assert.ok(maxTh > 3, "theta should cover the whole circle");
    env.reset({ seed: 0, options: { x_init: 0.1, y_init: 0.01 } });
    assert.ok(Math.abs(env.state![0]) <= 0.1 && Math.abs(env.state![1]) <= 0.01);
  });

  test("Pendulum never terminates and Pendulum-v1 truncates at 200 steps", () => {
    const env = make("Pendulum-v1");
    env.actionSpace.seed(0);
    env.reset({ seed: 0 });
    for (let t = 1; t <= 200; t++) {
      const [, , terminated, truncated] = env.step(env.actionSpace.sample());
      assert.equal(terminated, false);
      assert.equal(truncated, t === 200, `step ${t}`);
    }
  });
});
