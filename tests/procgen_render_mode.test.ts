// procgen's render_mode="rgb_array": the gym env's render() and ProcgenEnv's info `rgb` are the game redrawn at
// 512x512 (BasicAbstractGame.render), after every step, without disturbing the 64x64 observations. Monochrome assets,
// so no image file is needed. How close the 512x512 frame is to the original's: benchmark/procgen_fidelity.ts
// --render-human (envs/procgen/README.md, "Generated assets and the 512×512 render").

import assert from "node:assert/strict";
import { test } from "node:test";

import * as gym from "../envs/gymnasium/index.ts";
import { ProcgenEnv } from "../envs/procgen/env.ts";
import type { ProcgenGymEnv } from "../envs/procgen/env.ts";
import { RENDER_RES } from "../envs/procgen/game.ts";

const FRAME = RENDER_RES * RENDER_RES * 3;

test("gym procgen render() returns the 512x512 frame of the current state", () => {
  const env = gym.make("procgen-coinrun-v0", {
    useMonochromeAssets: true,
    renderMode: "rgb_array",
    distributionMode: "easy",
  });
  env.reset({ seed: 3 });
  env.step(1);
  const frame = env.render() as { width: number; height: number; data: Uint8Array };
  assert.equal(frame.width, 512);
  assert.equal(frame.height, 512);
  assert.equal(frame.data.length, FRAME);
  const game = (env.unwrapped as ProcgenGymEnv).unwrappedGame;
  assert.deepEqual(frame.data, game.render(), "render() is the game's 512x512 redraw");
  assert.ok(new Set(frame.data).size > 2, "the frame shows the level, not a blank canvas");
});

test("ProcgenEnv renderMode rgb_array puts the 512x512 frame in every info, observations unchanged", () => {
  const opts = { envName: "starpilot", distributionMode: "easy", randSeed: 5, numEnvs: 2, useMonochromeAssets: true };
  const plain = new ProcgenEnv(opts);
  const human = new ProcgenEnv({ ...opts, renderMode: "rgb_array" });
  assert.equal(plain.infos[0].rgb, undefined);
  for (let t = 0; t < 3; t++) {
    plain.step([t, 4]);
    const [obs, , , infos] = human.step([t, 4]);
    assert.deepEqual(obs.rgb, plain.obs, `step ${t}: observations`);
    infos.forEach((info, e) => {
      assert.equal((info.rgb as Uint8Array).length, FRAME);
      assert.deepEqual(info.rgb, human.games[e].render(), `step ${t}, env ${e}: info rgb`);
    });
  }
});

test("ProcgenEnv refuses a render mode procgen does not have", () => {
  assert.throws(
    () =>
      new ProcgenEnv({
        envName: "starpilot",
        distributionMode: "easy",
        numEnvs: 1,
        useMonochromeAssets: true,
        renderMode: "human",
      }),
    /invalid render mode "human"/,
  );
});
