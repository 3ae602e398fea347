import { test } from "node:test";
import assert from "node:assert/strict";

import * as gym from "../envs/gymnasium/index.ts";
import { Env, type Info, type Metadata, type ResetArgs, type StepResult } from "../envs/gymnasium/core.ts";
import { RomNotFoundError } from "../envs/ale/index.ts";
import { AssetsNotFoundError } from "../envs/procgen/index.ts";
import { DogModelNotFoundError } from "../envs/dm_control/index.ts";
import { checkEnv } from "../envs/gymnasium/env_checker.ts";
import { Discrete } from "../envs/gymnasium/spaces.ts";
import { float32Box } from "./helpers.ts";

const quiet = { onWarning: () => {} };
await gym.mujoco.init(); // MuJoCo loads on request; the registry-wide checks below make MuJoCo envs too.

/** A well-behaved env: observation uniform in [-1, 1]^2 from its own generator, random walk on step. */
class GoodEnv extends Env<Float32Array, number> {
  observationSpace = float32Box(-1, 1, [2]);
  actionSpace = new Discrete(2);
  state: Float32Array = new Float32Array(2);
  protected draw(): Float32Array {
    return Float32Array.from([0, 1], () => this.npRandom.uniform(-0.05, 0.05));
  }
  override reset(args: ResetArgs = {}): [Float32Array, Info] {
    super.reset(args);
    this.state = this.draw();
    return [this.state.slice(), {}];
  }
  step(action: number): StepResult<Float32Array> {
    const noise = this.draw();
    this.state = this.state.map((v, i) => Math.max(-1, Math.min(1, v + noise[i] + (action === 1 ? 0.01 : -0.01))));
    return [this.state.slice(), 1, false, false, {}];
  }
}

/**
 * `gym.make(id)`, or null for an Atari id whose ROM is not on this machine (ROMs are never shipped; CI points
 * ALE_ROMS_DIR at the workplace's copies). The skipped ids are reported, so a run without ROMs says so.
 */
function makeUnlessRomMissing(id: string, options: gym.MakeOptions, skipped: Set<string>): gym.Env | null {
  try {
    return gym.make(id, options);
  } catch (e) {
    if (e instanceof RomNotFoundError || e instanceof AssetsNotFoundError || e instanceof DogModelNotFoundError) {
      skipped.add(id);
      return null;
    }
    throw e;
  }
}

function skippedMessage(skipped: Set<string>): string {
  const ids = [...skipped];
  return `skipped ${ids.length} ids whose ROM, images or model were not found (set ALE_ROMS_DIR / PROCGEN_ASSETS_DIR / DM_CONTROL_SUITE_DIR): ${ids.slice(0, 3).join(", ")}${ids.length > 3 ? ", ..." : ""}`;
}

test("checkEnv passes on every registered environment", (t) => {
  const ids = gym.registeredIds();
  assert.ok(ids.includes("CartPole-v1"), `registered: ${ids.join(", ")}`);
  const skipped = new Set<string>();
  for (const id of ids) {
    const env = makeUnlessRomMissing(id, {}, skipped);
    if (env) assert.doesNotThrow(() => checkEnv(env, quiet), `${id} failed the checker`);
  }
  if (skipped.size > 0) t.diagnostic(skippedMessage(skipped));
});

test("checkEnv passes on every registered environment made with renderMode rgb_array", (t) => {
  const skipped = new Set<string>();
  for (const id of gym.registeredIds()) {
    const plain = makeUnlessRomMissing(id, {}, skipped);
    if (plain === null || !plain.metadata.renderModes.includes("rgb_array")) continue;
    assert.doesNotThrow(() => checkEnv(gym.make(id, { renderMode: "rgb_array" }), quiet), `${id} failed the checker`);
  }
  if (skipped.size > 0) t.diagnostic(skippedMessage(skipped));
});

test("checkEnv passes on a well-behaved synthetic env and is reachable as gym.utils.checkEnv", () => {
  assert.deepEqual(gym.utils.checkEnv(new GoodEnv(), quiet), []);
});

test("checkEnv catches an observation outside the observation space", () => {
  class OutOfBounds extends GoodEnv {
    override step(action: number): StepResult<Float32Array> {
      const result = super.step(action);
      result[0] = Float32Array.of(5, 0);
      return result;
    }
  }
  assert.throws(() => checkEnv(new OutOfBounds(), quiet), /not within the observation space/);
});

test("checkEnv catches an observation of the wrong dtype", () => {
  class WrongDtype extends GoodEnv {
    override reset(args: ResetArgs = {}): [Float32Array, Info] {
      const [obs, info] = super.reset(args);
      return [Float64Array.from(obs) as unknown as Float32Array, info];
    }
  }
  assert.throws(() => checkEnv(new WrongDtype(), quiet), /must be a Float32Array/);
});

test("checkEnv catches a non-integer Discrete observation", () => {
  class FractionalDiscrete extends Env<number, number> {
    observationSpace = new Discrete(4);
    actionSpace = new Discrete(2);
    override reset(args: ResetArgs = {}): [number, Info] {
      super.reset(args);
      return [1.5, {}];
    }
    step(): StepResult<number> {
      return [1, 0, false, false, {}];
    }
  }
  assert.throws(() => checkEnv(new FractionalDiscrete(), quiet), /integer/);
});

test("checkEnv catches seeding that is ignored (non-deterministic reset)", () => {
  class IgnoresSeed extends GoodEnv {
    protected override draw(): Float32Array {
      return Float32Array.from([0, 1], () => Math.random() * 0.1 - 0.05);
    }
  }
  assert.throws(() => checkEnv(new IgnoresSeed(), quiet), /non-deterministic/);
});

test("checkEnv catches a reset that never seeds the env's generator", () => {
  class NoSuperReset extends GoodEnv {
    override reset(): [Float32Array, Info] {
      return [new Float32Array(2), {}];
    }
  }
  assert.throws(() => checkEnv(new NoSuperReset(), quiet), /super\.reset/);
});

test("checkEnv catches non-deterministic steps", () => {
  class NoisySteps extends GoodEnv {
    override step(action: number): StepResult<Float32Array> {
      const result = super.step(action);
      result[1] = Math.random();
      return result;
    }
  }
  assert.throws(() => checkEnv(new NoisySteps(), quiet), /rewards .* differ/);
});

test("checkEnv catches a non-finite reward", () => {
  class NaNReward extends GoodEnv {
    override step(action: number): StepResult<Float32Array> {
      const result = super.step(action);
      result[1] = NaN;
      return result;
    }
  }
  assert.throws(() => checkEnv(new NaNReward(), quiet), /finite number/);
});

test("checkEnv catches a terminated flag that is not a boolean", () => {
  class NumericDone extends GoodEnv {
    override step(action: number): StepResult<Float32Array> {
      const result = super.step(action);
      (result as unknown[])[2] = 0;
      return result;
    }
  }
  assert.throws(() => checkEnv(new NumericDone(), quiet), /terminated must be a boolean/);
});

test("checkEnv catches a step that does not return a 5-tuple", () => {
  class OldApi extends GoodEnv {
    override step(action: number): StepResult<Float32Array> {
      const [obs, reward, terminated, , info] = super.step(action);
      return [obs, reward, terminated, info] as unknown as StepResult<Float32Array>;
    }
  }
  assert.throws(() => checkEnv(new OldApi(), quiet), /\[observation, reward, terminated, truncated, info\]/);
});

test("checkEnv catches an rgb_array frame of the wrong size", () => {
  class BadFrame extends GoodEnv {
    override metadata: Metadata = { renderModes: ["rgb_array"], renderFps: 30 };
    override renderMode: string | null = "rgb_array";
    override render(): unknown {
      return { width: 4, height: 3, data: new Uint8Array(4 * 3 * 4) };
    }
  }
  assert.throws(() => checkEnv(new BadFrame(), quiet), /4 x 3 RGB needs 36/);
});

test("checkEnv warns, without failing, when different seeds give the same initial observation", () => {
  class ConstantStart extends GoodEnv {
    override reset(args: ResetArgs = {}): [Float32Array, Info] {
      super.reset(args);
      this.state = new Float32Array(2);
      return [this.state.slice(), {}];
    }
  }
  const warnings = checkEnv(new ConstantStart(), quiet);
  assert.ok(
    warnings.some((w) => w.includes("same initial observation")),
    warnings.join("\n"),
  );
});
