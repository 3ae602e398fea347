// `register`'s `acceptedKwargs`: `make` rejects a keyword argument the env constructor does not take, as Python's
// `TypeError: __init__() got an unexpected keyword argument` does, before the env is built.

import { test } from "node:test";
import assert from "node:assert/strict";

import * as gym from "../envs/gymnasium/index.ts";
import type { BipedalWalker, LunarLander } from "../envs/box2d/index.ts";
import type { PendulumEnv } from "../envs/classic_control/index.ts";
import type { MemoryCueEnv } from "../envs/memory_cue/memory_cue.ts";
import { register } from "../envs/gymnasium/registration.ts";

test("make rejects an unknown kwarg with a TypeError naming the id, the key and the accepted kwargs, in every family", () => {
  const cases: [string, string, string][] = [
    ["CartPole-v1", "suttonBarto", "renderMode, suttonBartoReward"],
    ["Pendulum-v1", "gravity", "renderMode, g"],
    ["Acrobot-v1", "g", "renderMode"],
    ["LunarLander-v3", "wind", "renderMode, continuous, gravity, enableWind, windPower, turbulencePower"],
    ["BipedalWalker-v3", "hardCore", "renderMode, hardcore"],
    ["MemoryCue-v0", "delay", "renderMode, delaySteps"],
    [
      "Hopper-v4",
      "ctrlCost",
      "renderMode, forwardRewardWeight, ctrlCostWeight, healthyReward, terminateWhenUnhealthy, healthyStateRange, healthyZRange, healthyAngleRange, resetNoiseScale, excludeCurrentPositionsFromObservation",
    ],
  ];
  for (const [id, key, accepted] of cases) {
    assert.throws(
      () => gym.make(id, { [key]: 1 }),
      (e: unknown) => {
        assert.ok(e instanceof TypeError, `${id}: ${String(e)}`);
        assert.equal(e.message, `${id}: unexpected keyword argument "${key}" (accepted: ${accepted})`);
        return true;
      },
    );
  }
});

test("the check runs before the entry point: a MuJoCo id rejects a bad kwarg even before gym.mujoco.init()", () => {
  assert.equal(gym.mujoco.isMujocoLoaded(), false);
  assert.throws(
    () => gym.make("Hopper-v4", { ctrlCost: 0.1 }),
    /^TypeError: Hopper-v4: unexpected keyword argument "ctrlCost"/,
  );
  // A good kwarg gets past the check and reaches the entry point, which then wants MuJoCo loaded.
  assert.throws(() => gym.make("Hopper-v4", { ctrlCostWeight: 0.1 }), /not loaded yet/);

  let calls = 0;
  register({
    id: "Test/AcceptedKwargs-v0",
    entryPoint: () => {
      calls++;
      return gym.make("CartPole-v1").unwrapped;
    },
    acceptedKwargs: ["a"],
    kwargs: { a: 1 },
  });
  assert.throws(
    () => gym.make("Test/AcceptedKwargs-v0", { b: 2 }),
    /unexpected keyword argument "b" \(accepted: renderMode, a\)$/,
  );
  assert.equal(calls, 0);
  gym.make("Test/AcceptedKwargs-v0", { a: 2 });
  assert.equal(calls, 1);
});

test("a bad kwarg in the registered kwargs is rejected too", () => {
  register({
    id: "Test/BadDefault-v0",
    entryPoint: () => gym.make("CartPole-v1").unwrapped,
    acceptedKwargs: [],
    kwargs: { typo: true },
  });
  assert.throws(
    () => gym.make("Test/BadDefault-v0"),
    /^TypeError: Test\/BadDefault-v0: unexpected keyword argument "typo" \(accepted: renderMode\)$/,
  );
});

test("accepted kwargs, registered defaults, renderMode and maxEpisodeSteps pass the check", () => {
  const pendulum = gym.make("Pendulum-v1", { g: 9.81 });
  assert.equal((pendulum.unwrapped as PendulumEnv).g, 9.81);
  assert.deepEqual(pendulum.spec?.kwargs, { g: 9.81 });

  const continuous = gym.make("LunarLanderContinuous-v3", { renderMode: "rgb_array", maxEpisodeSteps: 10 });
  assert.equal((continuous.unwrapped as LunarLander).continuous, true);
  assert.equal(continuous.spec?.maxEpisodeSteps, 10);
  assert.equal((gym.make("LunarLander-v3", { enableWind: true, windPower: 5 }).unwrapped as LunarLander).windPower, 5);
  assert.equal((gym.make("BipedalWalkerHardcore-v3").unwrapped as BipedalWalker).hardcore, true);
  assert.equal((gym.make("MemoryCueShort-v0", { delaySteps: 3 }).unwrapped as MemoryCueEnv).delaySteps, 3);
  gym.make("CartPole-v1", { suttonBartoReward: true, renderMode: null, maxEpisodeSteps: null });
});

test("spec() does not expose acceptedKwargs", () => {
  assert.deepEqual(Object.keys(gym.spec("Pendulum-v1")).sort(), ["id", "kwargs", "maxEpisodeSteps", "rewardThreshold"]);
});
