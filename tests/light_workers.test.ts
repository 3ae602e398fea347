// AsyncVectorEnv's workers import the training script for its makeEnv, but must not load tfjs with it
// (envs/gymnasium/worker_stubs.ts). The workers of these tests import this file, which imports the Atari variants as the
// workers of a real run do, and call `probeEnv`; the tests are only registered on the main thread. MemoryCue-v0
// looks like an ALE game to the Atari wrappers, so no ROM is needed; the PettingZoo variant's games need pong.bin
// (ALE_ROMS_DIR or ../shared/roms) and its test skips without it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { isMainThread } from "node:worker_threads";

import * as tf from "@tensorflow/tfjs";

import * as ppoAtari from "../ppo_atari.ts";
import * as ppoAtariLstm from "../ppo_atari_lstm.ts";
import * as ppoAtariMultigpu from "../ppo_atari_multigpu.ts";
import * as ppoPettingzooMaAtari from "../ppo_pettingzoo_ma_atari.ts";
import { Wrapper } from "../envs/gymnasium/core.ts";
import { AsyncVectorEnv } from "../envs/gymnasium/async_vector.ts";
import { ROM_DIR, skipWithoutRom } from "./helpers.ts";

const VARIANTS = {
  "ppo_atari.ts": ppoAtari,
  "ppo_atari_lstm.ts": ppoAtariLstm,
  "ppo_atari_multigpu.ts": ppoAtariMultigpu,
  "ppo_pettingzoo_ma_atari.ts": ppoPettingzooMaAtari,
};
type Variant = keyof typeof VARIANTS;

/** The variant's env, able to report from inside its worker what that worker has loaded. */
class ProbeWrapper extends Wrapper {
  /** Whether tfjs ran in this thread: tfjs-core makes its engine global when it loads, and it is CommonJS. */
  tfjsLoaded(): { engine: boolean; modules: string[] } {
    const cache = createRequire(import.meta.url).cache;
    return {
      engine: "_tfengine" in globalThis,
      modules: Object.keys(cache).filter((path) => path.includes("@tensorflow")),
    };
  }
  /** What a makeEnv that (wrongly) computed with tensors would do. */
  useTensor(): number {
    return tf.tensor([1, 2]).size;
  }
}

export function probeEnv(variant: Variant, envId: string) {
  return () => new ProbeWrapper(VARIANTS[variant].makeEnv(envId, 0, false, "probe")());
}

const spec = (variant: Variant, envId = "MemoryCue-v0") => ({
  module: import.meta.url,
  exportName: "probeEnv",
  args: [variant, envId],
});

if (isMainThread) {
  for (const variant of ["ppo_atari.ts", "ppo_atari_lstm.ts", "ppo_atari_multigpu.ts"] as const) {
    test(`a worker running ${variant}'s makeEnv does not load tfjs, and its env steps`, () => {
      const envs = new AsyncVectorEnv([spec(variant)]);
      try {
        assert.deepEqual(envs.call("tfjsLoaded"), [{ engine: false, modules: [] }]);
        envs.reset({ seed: 1 });
        const [, rewards] = envs.step([0]);
        assert.equal(rewards.length, 1);
      } finally {
        envs.close();
      }
    });
  }

  const noPong = skipWithoutRom("pong");
  test(
    "a worker running ppo_pettingzoo_ma_atari.ts's makeEnv (one pong_v3 game) does not load tfjs, and its game steps",
    { skip: noPong },
    () => {
      // Workers copy process.env when they start: this is how the game in the worker finds its ROM.
      const saved = process.env.ALE_ROMS_DIR;
      process.env.ALE_ROMS_DIR = ROM_DIR;
      const envs = new AsyncVectorEnv([spec("ppo_pettingzoo_ma_atari.ts", "pong_v3")]);
      if (saved === undefined) delete process.env.ALE_ROMS_DIR;
      else process.env.ALE_ROMS_DIR = saved;
      try {
        assert.deepEqual(envs.call("tfjsLoaded"), [{ engine: false, modules: [] }]);
        envs.reset({ seed: 1 });
        const [, rewards] = envs.step([0, 0]); // one game, both agents (MultiDiscrete, flat);
        assert.equal(rewards.length, 1);
      } finally {
        envs.close();
      }
    },
  );

  test("with stubTfjs: false a worker loads the real tfjs (the check above can fail)", () => {
    const envs = new AsyncVectorEnv([spec("ppo_atari.ts")], { stubTfjs: false });
    try {
      const [loaded] = envs.call("tfjsLoaded") as { engine: boolean; modules: string[] }[];
      assert.equal(loaded.engine, true);
      assert.ok(
        loaded.modules.some((path) => path.includes("tfjs-core")),
        loaded.modules.join(", "),
      );
      assert.equal(envs.call("useTensor")[0], 2);
    } finally {
      envs.close();
    }
  });

  test("using a tensor inside a worker fails with one clear line naming what was used", () => {
    assert.equal(typeof tf.tensor, "function"); // the main thread's tfjs is the real one
    const envs = new AsyncVectorEnv([spec("ppo_atari.ts")]);
    assert.throws(
      () => envs.call("useTensor"),
      (error: Error) => {
        const first = error.message.split("\n")[0];
        assert.match(
          first,
          /^AsyncVectorEnv: env 0 \(worker thread \d+\) failed in call\(useTensor\): Error: tfjs is not available in env worker threads: makeEnv and the envs it builds must not use tensors \(@tensorflow\/tfjs: tensor\)$/,
        );
        return true;
      },
    );
    assert.equal(envs.closed, true);
  });
}
