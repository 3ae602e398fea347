// PettingZoo multi-agent Atari and the SuperSuit wrappers against the fixtures recorded with real Multi-Agent ALE
// 0.1.11 + PettingZoo 1.27 + SuperSuit/TinyScaler (../shared/notes/pettingzoo_atari.md, sections 4.2-4.4). Policies
// are agent action indices; "cycle" t is the number of steps already taken. The ROM tests need pong.bin,
// surround.bin and tennis.bin (ALE_ROMS_DIR or ../shared/roms) and skip without them. To keep the suite fast they
// check prefixes of the recorded runs, except surround's no-op run, which goes to its end.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import { Box, Discrete } from "../envs/gymnasium/spaces.ts";
import { ROM_DIR, skipWithoutRom } from "./helpers.ts";
import { SyncVectorEnv } from "../envs/gymnasium/vector.ts";
import { ATARI_ENVS, parallelEnv, type ParallelAtariEnv } from "../envs/pettingzoo/atari.ts";
import { MULTI_AGENT_GAMES } from "../envs/ale/multi_agent_games.ts";
import type { AgentDict, ParallelEnv, ParallelStepResult } from "../envs/pettingzoo/parallel.ts";
import * as ss from "../envs/pettingzoo/supersuit.ts";
import { main } from "../ppo_pettingzoo_ma_atari.ts";
import { usageErrorLine } from "./usage_helpers.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const md5 = (bytes: Uint8Array) => createHash("md5").update(bytes).digest("hex");

type Policy = (t: number, n: number) => [number, number];
const scripted = {
  noop: (): [number, number] => [0, 0],
  /** first_0 FIRE (index 1) every cycle, second_0 (t div 50) mod n. */
  fire: (t: number, n: number): [number, number] => [1, Math.floor(t / 50) % n],
  /** first_0 (t div 37) mod n, second_0 (t div 50) mod n. */
  cycle: (t: number, n: number): [number, number] => [Math.floor(t / 37) % n, Math.floor(t / 50) % n],
};

interface RawRun {
  rewards: [number, number, number][];
  totals: [number, number];
  endCycle: number | null;
  ram: Map<number, string>;
  obs: Map<number, string>;
  env: ParallelAtariEnv;
}

/** Steps a raw env under `policy` for up to `cycles` cycles, recording nonzero rewards and checksums at `marks`. */
function rawRun(
  envId: string,
  seed: number,
  policy: Policy,
  cycles: number,
  marks: number[] = [],
  obsType: "rgb_image" | "ram" = "rgb_image",
): RawRun {
  const env = parallelEnv(envId, { romDir: ROM_DIR, obsType });
  env.reset({ seed });
  const n = env.actionSpace("first_0").n;
  const run: RawRun = { rewards: [], totals: [0, 0], endCycle: null, ram: new Map(), obs: new Map(), env };
  for (let t = 0; t < cycles; t++) {
    const [a, b] = policy(t, n);
    const [obs, rewards, terminations, truncations] = env.step({ first_0: a, second_0: b });
    const c = t + 1;
    const r: [number, number] = [rewards.first_0, rewards.second_0];
    if (r[0] !== 0 || r[1] !== 0) run.rewards.push([c, ...r]);
    run.totals[0] += r[0];
    run.totals[1] += r[1];
    if (marks.includes(c)) {
      run.ram.set(c, md5(env.ale.getRAM(new Uint8Array(128))));
      run.obs.set(c, md5(obs.first_0));
    }
    if (terminations.first_0 || truncations.first_0) {
      run.endCycle = c;
      break;
    }
  }
  return run;
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

describe("raw PettingZoo Atari envs vs Multi-Agent ALE", () => {
  test("pong_v3 reset: mode 4, episode frame 3, the recorded RAM and screen", { skip: skipWithoutRom("pong") }, () => {
    const env = parallelEnv("pong_v3", { romDir: ROM_DIR });
    const [obs, infos] = env.reset({ seed: 0 });
    assert.equal(env.mode, 4);
    assert.equal(env.ale.getEpisodeFrameNumber(), 3);
    assert.equal(md5(obs.first_0), "e4eafde4a5623bd36a746d9b61a0f565");
    assert.equal(obs.first_0, obs.second_0, "every agent gets the same screen array");
    assert.deepEqual(infos, { first_0: {}, second_0: {} });
    assert.equal(
      hex(env.ale.getRAM(new Uint8Array(128))),
      "c00000006e6e00070b0100390000003fff00fffd0006038800200156f756f756f786f3f5f3f0f0f2f22020404040bc41bd006d6d6d6d00000000006d6d6d6dc0c0c0c001c0caf7caf7caf7caf70000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000036ecf279f0",
    );
  });

  test(
    "pong_v3 no-ops: the point at cycle 133, then first_0's serve penalty every 120 cycles",
    { skip: skipWithoutRom("pong") },
    () => {
      const run = rawRun("pong_v3", 0, scripted.noop, 500, [1, 100]);
      assert.deepEqual(run.rewards, [
        [133, 1, -1],
        [252, -1, 0],
        [372, -1, 0],
        [492, -1, 0],
      ]);
      assert.equal(run.ram.get(1), "fa71eee67208233435b859a4a52f7350");
      assert.equal(run.ram.get(100), "0efc80390cb255371092af4d64f44de8");
      assert.equal(run.obs.get(100), "b7de7c2f19cae64c8c83700fe6d284ae");
    },
  );

  test(
    "pong_v3 all no-ops: truncated at cycle 100000 (max_cycles) with -835 / +3 and the recorded final RAM",
    { skip: skipWithoutRom("pong") },
    () => {
      // The whole recorded run, not a prefix. RAM observations: the screen is still emulated, but not converted to
      // RGB, which halves the time (~15 s here); this fixture records rewards and RAM, not screens.
      const run = rawRun("pong_v3", 0, scripted.noop, 100_001, [], "ram");
      assert.equal(run.endCycle, 100_000);
      assert.deepEqual(run.totals, [-835, 3]);
      assert.equal(run.rewards.length, 834);
      assert.deepEqual(
        run.rewards.find(([c]) => c === 65270),
        [65270, -4, 4],
      );
      assert.equal(md5(run.env.ale.getRAM(new Uint8Array(128))), "0c458fcb75a2ec14ed872b5bc5a4bf8b");
      assert.equal(run.env.ale.getEpisodeFrameNumber(), 100_003);
    },
  );

  test(
    "pong_v3 'fire' script: first_0 scores every 139 cycles from 133; the recorded RAM and screen",
    { skip: skipWithoutRom("pong") },
    () => {
      // The whole recorded run ends at cycle 5079 (-8 / +8, final RAM dee8f397...); 1000 cycles keep the suite fast.
      const run = rawRun("pong_v3", 0, scripted.fire, 1000, [1, 100, 1000]);
      assert.deepEqual(
        run.rewards,
        Array.from({ length: 7 }, (_, k) => [133 + 139 * k, 1, -1]),
      );
      assert.equal(run.ram.get(1), "4f22122f2e08c64950f30a09c307910c");
      assert.equal(run.ram.get(100), "17e3f8765306830efcf33538fe1ddcbd");
      assert.equal(run.ram.get(1000), "5cc4f2cb7f999b7e04af560ce8b54622");
      assert.equal(run.obs.get(1000), "0d8264490475a755b7525395bab25a3d");
    },
  );

  test(
    "pong_v3 'cycle' script: the recorded reward cycles and checksums over the first 1000 cycles",
    { skip: skipWithoutRom("pong") },
    () => {
      const run = rawRun("pong_v3", 0, scripted.cycle, 1000, [100, 1000]);
      assert.deepEqual(run.rewards, [
        [133, 1, -1],
        [393, -1, 1],
        [579, -1, 1],
        [729, -1, 1],
        [879, -1, 1],
      ]);
      assert.equal(run.ram.get(100), "505c132c7bbcbbfd33f7b637b13ac03e");
      assert.equal(run.obs.get(100), "41a7a68b2adc861e093c195d0b4a63ad");
      assert.equal(run.ram.get(1000), "7550878505bebb914224814360ce95fe");
      assert.equal(run.obs.get(1000), "fe22431e0da88b3000370a74cc401d26");
    },
  );

  test(
    "surround_v2 no-ops: episode frame 0 at reset, terminated at cycle 3773 without a reward",
    { skip: skipWithoutRom("surround") },
    () => {
      const env = parallelEnv("surround_v2", { romDir: ROM_DIR });
      const [obs] = env.reset({ seed: 1 });
      assert.equal(env.mode, 1);
      assert.equal(env.ale.getEpisodeFrameNumber(), 0);
      assert.equal(md5(obs.first_0), "cc8a40b4d071b4cbae39d75716c49ad6");
      // The recorded RAM, byte 0xFD included: Surround's never-cleared frame counter counts the power-on detection
      // frames, whose RIOT timers depend on Multi-Agent ALE's extra draw at RIOT construction (console.ts powerOn).
      const ram = hex(env.ale.getRAM(new Uint8Array(128)));
      assert.equal(
        ram,
        "ff010101010101010101010101010101010101ffff000000000000000000000000000000000000ffff000000000000000000000000000000000000ffff000000000000000000000000000000000000ffff808080808080808080808080808080808080ff03f8530e0e20a20acf0a0a0a1ea0804000020000ff000f1eff1b9ff3",
      );
      const run = rawRun("surround_v2", 1, scripted.noop, 5000);
      assert.equal(run.endCycle, 3773);
      assert.deepEqual(run.rewards, []);
      assert.deepEqual(run.env.agents, [], "terminated agents leave `agents`");
    },
  );

  test("surround_v2 'cycle' script: the first recorded reward cycles", { skip: skipWithoutRom("surround") }, () => {
    const run = rawRun("surround_v2", 2, scripted.cycle, 1300);
    assert.deepEqual(run.rewards, [
      [404, -1, 1],
      [834, 1, -1],
      [1283, -1, 1],
    ]);
  });

  test(
    "tennis_v3: reset RAM for seed 1, score and serve-stall rewards, screen at cycle 1000",
    { skip: skipWithoutRom("tennis") },
    () => {
      const env = parallelEnv("tennis_v3", { romDir: ROM_DIR });
      env.reset({ seed: 1 });
      assert.equal(env.mode, 2);
      assert.equal(env.ale.getEpisodeFrameNumber(), 2);
      assert.equal(
        hex(env.ale.getRAM(new Uint8Array(128))),
        "010100ff4f000000000f530d0000808e4d020000020000608e07484884849c9cff07402084f69cf683f69bf6e1f7e8f7eff7f6f70107918f000000d40d4c8c4c8c0000000000000000ff00ff000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000030f6f45e3f",
      );
      const run = rawRun("tennis_v3", 1, scripted.cycle, 1107, [1000]);
      assert.deepEqual(run.rewards, [
        [108, 1, -1],
        [442, 1, -1],
        [639, 1, -1],
        [984, -1, 0],
        [1107, 1, -1],
      ]);
      assert.equal(run.obs.get(1000), "d80f4a3dfd77535979ff6991ecbcdfa2");
    },
  );
});

describe("the Parallel API", () => {
  test("agents, spaces, and dicts keyed by agent for every observation type", { skip: skipWithoutRom("pong") }, () => {
    for (const [obsType, shape] of [
      ["rgb_image", [210, 160, 3]],
      ["grayscale_image", [210, 160, 1]],
      ["ram", [128]],
    ] as const) {
      const env = parallelEnv("pong_v3", { romDir: ROM_DIR, obsType });
      assert.deepEqual(env.possibleAgents, ["first_0", "second_0"]);
      assert.deepEqual([...(env.observationSpace("first_0") as unknown as { shape: number[] }).shape], shape);
      const [obs] = env.reset({ seed: 3 });
      assert.deepEqual(env.agents, ["first_0", "second_0"]);
      assert.equal(
        obs.first_0.length,
        (shape as readonly number[]).reduce((a, b) => a * b, 1),
      );
      const result = env.step({ first_0: 0, second_0: 0 });
      for (const dict of result) assert.deepEqual(Object.keys(dict), ["first_0", "second_0"]);
    }
  });

  test("action spaces: pong's 6 minimal actions, 18 with full_action_space", { skip: skipWithoutRom("pong") }, () => {
    const env = parallelEnv("pong_v3", { romDir: ROM_DIR });
    assert.deepEqual(env.getActionMeanings(), ["NOOP", "FIRE", "RIGHT", "LEFT", "RIGHTFIRE", "LEFTFIRE"]);
    assert.equal(parallelEnv("pong_v3", { romDir: ROM_DIR, fullActionSpace: true }).actionSpace("first_0").n, 18);
  });

  test("max_cycles truncates every agent at that frame", { skip: skipWithoutRom("pong") }, () => {
    const env = parallelEnv("pong_v3", { romDir: ROM_DIR, maxCycles: 5 });
    env.reset({ seed: 1 });
    const truncated: boolean[] = [];
    for (let t = 0; t < 5; t++) truncated.push(env.step({ first_0: 0, second_0: 0 })[3].second_0);
    assert.deepEqual(truncated, [false, false, false, false, true]);
  });

  test("render_mode rgb_array returns the screen", { skip: skipWithoutRom("tennis") }, () => {
    const env = parallelEnv("tennis_v3", { romDir: ROM_DIR, renderMode: "rgb_array" });
    const [obs] = env.reset({ seed: 1 });
    const frame = env.render()!;
    assert.deepEqual([frame.height, frame.width], [210, 160]);
    assert.deepEqual(frame.data, obs.first_0);
  });

  test(
    "every ported pong-family env constructs with its mode and player count, resets and steps",
    { skip: skipWithoutRom("pong") },
    () => {
      const expected: Record<string, [number, number]> = {
        pong_v3: [4, 2],
        basketball_pong_v3: [45, 2],
        foozpong_v3: [21, 4],
        quadrapong_v4: [33, 4],
        volleyball_pong_v3: [41, 4],
      };
      for (const [envId, [mode, players]] of Object.entries(expected)) {
        const env = parallelEnv(envId, { romDir: ROM_DIR, maxCycles: 3 });
        assert.equal(env.mode, mode, envId);
        assert.equal(env.possibleAgents.length, players, envId);
        env.reset({ seed: 1 });
        const actions: AgentDict<number> = Object.fromEntries(env.possibleAgents.map((a) => [a, 3]));
        const [, rewards] = env.step(actions);
        assert.deepEqual(Object.keys(rewards), env.possibleAgents, envId);
      }
    },
  );

  for (const [envId, rom, mode] of [
    ["boxing_v2", "boxing", 2],
    ["ice_hockey_v2", "ice_hockey", 1],
  ] as const) {
    test(`${envId} constructs in 2-player mode ${mode}, resets and steps`, { skip: skipWithoutRom(rom) }, () => {
      const env = parallelEnv(envId, { romDir: ROM_DIR });
      assert.equal(env.mode, mode);
      env.reset({ seed: 1 });
      for (let t = 0; t < 10; t++) env.step({ first_0: 3, second_0: 4 });
      assert.deepEqual(env.agents, ["first_0", "second_0"]);
    });
  }

  test("the table lists PettingZoo's 24 Atari envs, each on a ported cartridge; an unknown one fails with one clear message", () => {
    assert.equal(Object.keys(ATARI_ENVS).length, 24);
    for (const [envId, entry] of Object.entries(ATARI_ENVS))
      assert.ok(MULTI_AGENT_GAMES.has(entry.rom), `${envId}: ${entry.rom}`);
    assert.throws(() => parallelEnv("chess_v6"), /unknown PettingZoo Atari env "chess_v6"/);
  });

  test("a missing ROM is the single-player lookup's error", () => {
    const saved = process.env.ALE_ROMS_DIR;
    process.env.ALE_ROMS_DIR = ""; // the lookup would fall back to it
    try {
      assert.throws(() => parallelEnv("pong_v3", { romDir: "/nonexistent-roms" }), /ROM for "pong" not found/);
    } finally {
      if (saved === undefined) delete process.env.ALE_ROMS_DIR;
      else process.env.ALE_ROMS_DIR = saved;
    }
  });
});

/** A scripted parallel env for wrapper semantics: 2 agents, 2x2 RGB frames whose pixels hold the step count. */
class TickEnv implements ParallelEnv<Uint8Array, number> {
  readonly possibleAgents = ["first_0", "second_0"];
  agents: string[] = [];
  readonly metadata = { renderModes: [], name: "tick" };
  readonly renderMode = null;
  t = 0;
  constructor(
    readonly doneAt = Infinity,
    readonly frames: (t: number) => Uint8Array = (t) => new Uint8Array(12).fill(t),
    readonly shape = [2, 2, 3],
  ) {}
  observationSpace() {
    return new Box(0, 255, this.shape, "uint8");
  }
  actionSpace() {
    return new Discrete(3);
  }
  reset(): [AgentDict<Uint8Array>, AgentDict<Record<string, unknown>>] {
    this.t = 0;
    this.agents = [...this.possibleAgents];
    const obs = this.frames(0);
    return [
      { first_0: obs, second_0: obs },
      { first_0: {}, second_0: {} },
    ];
  }
  step(actions: AgentDict<number>): ParallelStepResult<Uint8Array> {
    this.t++;
    const obs = this.frames(this.t);
    const done = this.t >= this.doneAt;
    return [
      { first_0: obs, second_0: obs },
      { first_0: actions.first_0, second_0: -1 },
      { first_0: done, second_0: done },
      { first_0: false, second_0: false },
      { first_0: {}, second_0: {} },
    ];
  }
  render() {
    return null;
  }
  close() {}
}

/** TickEnv whose second_0 is removed (terminated) at step `leaveAt`, as agents of joust or warlords are. */
class LeaveEnv extends TickEnv {
  constructor(
    readonly leaveAt: number,
    doneAt: number,
  ) {
    super(doneAt);
  }
  override step(actions: AgentDict<number>): ParallelStepResult<Uint8Array> {
    const [obs, rewards, terminations, truncations, infos] = super.step(actions);
    if (!this.agents.includes("second_0")) {
      for (const d of [obs, rewards, terminations, truncations, infos] as Record<string, unknown>[]) delete d.second_0;
    } else if (this.t >= this.leaveAt) {
      terminations.second_0 = true;
    }
    this.agents = this.agents.filter((a) => !terminations[a]);
    return [obs, rewards, terminations, truncations, infos];
  }
}

describe("SuperSuit wrappers", () => {
  test("TinyScaler bilinear reproduces the recorded 210x160 -> 84x84 test vectors", () => {
    const a = new Uint8Array(210 * 160);
    const b = new Uint8Array(210 * 160);
    for (let y = 0; y < 210; y++) {
      for (let x = 0; x < 160; x++) {
        a[y * 160 + x] = (7 * x + 13 * y) % 256;
        b[y * 160 + x] = (x * x + 3 * y * y + x * y) % 251;
      }
    }
    const outA = ss.tinyScalerBilinear(a, 210, 160, 84, 84);
    assert.equal(md5(outA), "af78dbed4d8795a5d28c8c63ac61d7f0");
    const at = (o: Uint8Array, r: number, c: number) => o[r * 84 + c];
    assert.deepEqual(
      [
        at(outA, 0, 0),
        at(outA, 0, 1),
        at(outA, 1, 0),
        at(outA, 5, 7),
        at(outA, 41, 42),
        at(outA, 83, 83),
        at(outA, 83, 0),
        at(outA, 0, 83),
      ],
      [22, 36, 55, 21, 113, 223, 147, 98],
    );
    const outB = ss.tinyScalerBilinear(b, 210, 160, 84, 84);
    assert.equal(md5(outB), "b647f2c080541f1ccd3344ed94d5c313");
    assert.deepEqual([at(outB, 0, 0), at(outB, 10, 20), at(outB, 50, 60), at(outB, 83, 83)], [7, 92, 119, 149]);
  });

  test("TinyScaler keeps 236 but loses 1 at some pixels of a constant 5 (float32 truncation)", () => {
    const out236 = ss.tinyScalerBilinear(new Uint8Array(210 * 160).fill(236), 210, 160, 84, 84);
    assert.ok(out236.every((v) => v === 236));
    const out5 = ss.tinyScalerBilinear(new Uint8Array(210 * 160).fill(5), 210, 160, 84, 84);
    assert.ok(out5.some((v) => v === 4) && out5.every((v) => v === 4 || v === 5));
  });

  test("frame_skip sums each agent's rewards over 4 steps and stops early once everyone is done", () => {
    const env = new ss.FrameSkip(new TickEnv(6), 4);
    env.reset();
    const [obs1, r1, d1] = env.step({ first_0: 2, second_0: 0 });
    assert.deepEqual([obs1.first_0[0], r1.first_0, r1.second_0, d1.first_0], [4, 8, -4, false]);
    const [obs2, r2, d2] = env.step({ first_0: 1, second_0: 0 });
    assert.deepEqual([obs2.first_0[0], r2.first_0, r2.second_0, d2.first_0], [6, 2, -2, true]);
  });

  test("frame_skip keeps an agent removed mid-skip: its summed reward, done flag and last observation", () => {
    const env = new ss.FrameSkip(new LeaveEnv(2, 9), 4);
    env.reset();
    const [obs, r, d] = env.step({ first_0: 1, second_0: 0 });
    assert.deepEqual(
      [obs.first_0[0], obs.second_0[0], r.first_0, r.second_0, d.first_0, d.second_0],
      [4, 2, 4, -2, false, true],
    );
    const [obs2, r2, d2] = env.step({ first_0: 1 });
    assert.deepEqual([Object.keys(obs2), r2.second_0, d2.second_0], [["first_0"], undefined, undefined]);
  });

  test("pettingzoo_env_to_vec_env refuses an agent leaving early unless black_death keeps its slot", () => {
    const strict = ss.pettingzooEnvToVecEnv(new LeaveEnv(2, 4));
    strict.reset();
    strict.step(Int32Array.of(1, 1));
    assert.throws(() => strict.step(Int32Array.of(1, 1)), /an agent left before the others/);
    const env = ss.pettingzooEnvToVecEnv(new LeaveEnv(2, 4), true);
    env.reset();
    const flags = (info: Record<string, unknown>) => [...(info.terminations as Uint8Array)];
    const [, , over1, , info1] = env.step(Int32Array.of(1, 1));
    const [obs2, , over2, , info2] = env.step(Int32Array.of(1, 1));
    const [obs3, , over3, , info3] = env.step(Int32Array.of(1, 1));
    const [, , over4, , info4] = env.step(Int32Array.of(1, 1));
    assert.deepEqual(
      [flags(info1), flags(info2), flags(info3), flags(info4)],
      [
        [0, 0],
        [0, 1],
        [0, 0],
        [1, 0],
      ],
    );
    assert.deepEqual([over1, over2, over3, over4], [false, false, false, true]);
    assert.deepEqual([obs2[12], obs3[12], [...(info3.rewards as Float32Array)]], [2, 0, [1, 0]]);
  });

  test("max_observation shows the element-wise max of the last 2 frames, the reset frame alone after a reset", () => {
    const frames = (t: number) => Uint8Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? 10 * t : 100 - 10 * t));
    const env = new ss.MaxObservation(new TickEnv(Infinity, frames), 2);
    const [reset] = env.reset();
    assert.deepEqual([reset.first_0[0], reset.first_0[1]], [0, 100]);
    const [obs] = env.step({ first_0: 0, second_0: 0 });
    assert.deepEqual([obs.first_0[0], obs.first_0[1]], [10, 100]);
    const [obs2] = env.step({ first_0: 0, second_0: 0 });
    assert.deepEqual([obs2.first_0[0], obs2.first_0[1]], [20, 90]);
  });

  test("clip_reward clamps to [-1, 1]; color_reduction B keeps the blue channel", () => {
    const frames = (t: number) => Uint8Array.from({ length: 12 }, (_, i) => i + t);
    const env = new ss.ColorReduction(new ss.ClipReward(new TickEnv(Infinity, frames), -1, 1), "B");
    env.reset();
    const [obs, rewards] = env.step({ first_0: 2, second_0: 0 });
    assert.deepEqual(rewards, { first_0: 1, second_0: -1 });
    assert.deepEqual([...obs.first_0], [3, 6, 9, 12]);
  });

  test("pickChannel is the strided copy of each channel, for any length and alignment", () => {
    const rgb = Uint8Array.from({ length: 3 * 103 }, (_, i) => (i * 37 + 11) & 0xff);
    for (const view of [rgb, rgb.subarray(3), rgb.subarray(0, 3 * 101)]) {
      for (const channel of [0, 1, 2]) {
        const want = Uint8Array.from({ length: view.length / 3 }, (_, i) => view[3 * i + channel]);
        assert.deepEqual(ss.pickChannel(view, channel), want);
      }
    }
  });

  test("frame_stack starts from zeros with the reset frame last; agent_indicator marks each agent with 1", () => {
    const grey = (t: number) => new Uint8Array(4).fill(t + 1);
    const env = new ss.AgentIndicator(new ss.FrameStack(new TickEnv(Infinity, grey, [2, 2]), 4));
    const [reset] = env.reset();
    assert.deepEqual([...reset.first_0.subarray(0, 6)], [0, 0, 0, 1, 1, 0]);
    assert.deepEqual([...reset.second_0.subarray(0, 6)], [0, 0, 0, 1, 0, 1]);
    const [obs] = env.step({ first_0: 0, second_0: 0 });
    assert.deepEqual([...obs.first_0.subarray(0, 6)], [0, 0, 1, 2, 1, 0]);
  });
});

describe("CleanRL's wrapper chain (notes 4.3)", () => {
  function chain(envId: string, maxCycles?: number, under = (env: ParallelEnv<Uint8Array, number>) => env) {
    let env: ParallelEnv<Uint8Array, number> = under(parallelEnv(envId, { romDir: ROM_DIR, maxCycles }));
    env = ss.maxObservation(env, 2);
    env = ss.frameSkip(env, 4);
    env = ss.clipReward(env, -1, 1);
    env = ss.colorReduction(env, "B");
    env = ss.resize(env, 84, 84);
    env = ss.frameStack(env, 4);
    return ss.agentIndicator(env);
  }
  /** The 4 frame channels of an (84, 84, 6) observation. */
  const frames = (obs: Uint8Array) =>
    Uint8Array.from({ length: 84 * 84 * 4 }, (_, i) => obs[Math.floor(i / 4) * 6 + (i % 4)]);
  const sum = (bytes: Uint8Array) => bytes.reduce((a, v) => a + v, 0);

  const recorded: Record<
    string,
    { reset: string; resetSum: number; samples: number[]; stacks: [number, string, number][] }
  > = {
    pong_v3: {
      reset: "f88a5420b439ee44101e95a5dc42c3d9",
      resetSum: 311684,
      samples: [17, 236, 17, 17, 17, 236],
      stacks: [
        [1, "038821e698fe749bd076686a7dcde788", 623368],
        [2, "16f804f49010bb2f7a2baa1bb0d0837e", 935052],
        [10, "e6246c81d91689df956026496bd69eaa", 1246736],
        [100, "6f511a701472824c2f79df5dd13cb235", 1243140],
      ],
    },
    surround_v2: {
      reset: "235d0f0fbcbbe307e76df1b979f368bf",
      resetSum: 397199,
      samples: [50, 54, 50, 50, 50, 88],
      stacks: [
        [1, "3840fc6a0f297e8e6de383db6d036786", 794398],
        [2, "56769bdba2f1ace9b8c3e025df4811c2", 1191597],
        [10, "a45050bf38eecc20f3244fd47bed6da8", 1593356],
      ],
    },
    tennis_v3: {
      reset: "8f9e9ed92bd985ff164bac41cbc75206",
      resetSum: 374896,
      samples: [0, 45, 45, 214, 45, 45],
      stacks: [
        [1, "3cfcf844930738182ccae9acd01549b2", 750131],
        [2, "f41b6388a3f1702a109baf9522242361", 1125296],
        [10, "fac317e7a14d90085538a7339f75427a", 1500715],
      ],
    },
  };
  for (const [envId, want] of Object.entries(recorded)) {
    const rom = envId.split("_")[0];
    test(
      `${envId}: the recorded reset frame and frame stacks through max/skip/clip/B/resize/stack/indicator`,
      { skip: skipWithoutRom(rom) },
      () => {
        const env = chain(envId);
        const [obs] = env.reset({ seed: 1 });
        const newest = Uint8Array.from({ length: 84 * 84 }, (_, p) => obs.first_0[p * 6 + 3]);
        assert.equal(md5(newest), want.reset);
        assert.equal(sum(frames(obs.first_0)), want.resetSum);
        assert.deepEqual(
          [
            [0, 0],
            [10, 10],
            [20, 40],
            [42, 42],
            [60, 20],
            [83, 83],
          ].map(([r, c]) => newest[r * 84 + c]),
          want.samples,
        );
        const n = (env.actionSpace("first_0") as Discrete).n;
        const last = want.stacks[want.stacks.length - 1][0];
        for (let t = 0; t < last; t++) {
          const [o] = env.step({ first_0: Math.floor(t / 37) % n, second_0: Math.floor(t / 50) % n });
          const mark = want.stacks.find(([step]) => step === t + 1);
          if (mark) {
            const f = frames(o.first_0);
            assert.deepEqual([md5(f), sum(f)], [mark[1], mark[2]], `${envId} after step ${t + 1}`);
            assert.deepEqual(frames(o.second_0), f, "both agents see the same frames");
          }
        }
      },
    );
  }

  /** Hands each agent its own copy and has no `stepDeferred`: every wrapper above takes its plain per-agent path. */
  class SeparateCopies extends ss.BaseParallelWrapper {
    override reset(args = {}): [AgentDict<Uint8Array>, AgentDict<Record<string, unknown>>] {
      const [obs, infos] = this.env.reset(args);
      return [copies(obs), infos];
    }
    override step(actions: AgentDict<number>): ParallelStepResult<Uint8Array> {
      const [obs, ...rest] = this.env.step(actions);
      return [copies(obs), ...rest];
    }
  }
  const copies = (obs: AgentDict<Uint8Array>) =>
    Object.fromEntries(Object.entries(obs).map(([agent, o]) => [agent, o.slice()]));

  test(
    "the fast paths (deferred frames, results shared by agents) step exactly like the plain composition, also when max_cycles ends an episode mid-skip",
    { skip: skipWithoutRom("pong") },
    () => {
      // max_cycles 9..12 end the third agent step after 1, 2, 3 or 4 of its frames.
      for (const maxCycles of [9, 10, 11, 12]) {
        const fast = chain("pong_v3", maxCycles);
        const plain = chain("pong_v3", maxCycles, (env) => new SeparateCopies(env));
        const seen: [Uint8Array, Uint8Array][] = [];
        const same = (a: AgentDict<Uint8Array>, b: AgentDict<Uint8Array>, where: string) => {
          assert.deepEqual(Object.keys(a), Object.keys(b), where);
          for (const agent in a) {
            assert.deepEqual(a[agent], b[agent], `${where} ${agent}`);
            seen.push([a[agent], a[agent].slice()]);
          }
        };
        same(fast.reset({ seed: 3 })[0], plain.reset({ seed: 3 })[0], `max_cycles ${maxCycles} reset`);
        for (let t = 0; t < 8; t++) {
          const actions = { first_0: (t * 5) % 6, second_0: (t * 7 + 1) % 6 };
          const [obsA, ...restA] = fast.step(actions);
          const [obsB, ...restB] = plain.step(actions);
          same(obsA, obsB, `max_cycles ${maxCycles} step ${t + 1}`);
          assert.deepEqual(restA, restB);
          if (restA[1].first_0 || restA[2].first_0) {
            same(fast.reset()[0], plain.reset()[0], `max_cycles ${maxCycles} reset after step ${t + 1}`);
          }
        }
        // Nothing the fast chain returned was written to afterwards.
        for (const [array, copy] of seen) assert.deepEqual(array, copy);
      }
    },
  );

  test(
    "pettingzoo_env_to_vec_env + concat_vec_envs + RecordEpisodeStatistics: slots 2c/2c+1, per-agent episodes, autoreset",
    { skip: skipWithoutRom("pong") },
    () => {
      // max_cycles 40 truncates every game at agent step 10.
      const envs = new ss.RecordEpisodeStatistics(
        new ss.ConcatVecEnv(new SyncVectorEnv([0, 1].map(() => () => ss.pettingzooEnvToVecEnv(chain("pong_v3", 40))))),
      );
      assert.equal(envs.numEnvs, 4);
      assert.deepEqual([...envs.singleObservationSpace.shape], [84, 84, 6]);
      assert.equal(envs.singleActionSpace.n, 6);
      const [obs] = envs.reset({ seed: 5 });
      const slot = (o: Uint8Array, i: number) => o.subarray(i * 84 * 84 * 6, (i + 1) * 84 * 84 * 6);
      assert.deepEqual(
        [slot(obs, 0)[4], slot(obs, 0)[5], slot(obs, 1)[4], slot(obs, 1)[5], slot(obs, 2)[4], slot(obs, 3)[5]],
        [1, 0, 0, 1, 1, 1],
      );
      let last: ss.SlotStepResult | null = null;
      for (let t = 0; t < 10; t++) last = envs.step(new Int32Array(4));
      const [nextObs, , terminations, truncations, infos] = last!;
      assert.deepEqual([...terminations], [0, 0, 0, 0]);
      assert.deepEqual([...truncations], [1, 1, 1, 1]);
      for (const info of infos) assert.equal((info.episode as ss.SlotEpisode).l, 10);
      // The game was reset at once: the returned observation is a fresh stack (three zero frames, then the reset
      // frame); the episode's last observation, a full stack, is in the info.
      const fresh = frames(slot(nextObs, 0));
      assert.ok(fresh.every((v, i) => i % 4 === 3 || v === 0));
      const terminal = frames(infos[0].terminal_observation as Uint8Array);
      assert.ok(terminal.some((v, i) => i % 4 === 0 && v !== 0));
      envs.close();
    },
  );
});

describe("ppo_pettingzoo_ma_atari.ts", () => {
  const run = (args: string[], cwd: string) =>
    // PPO_TS_WASM_THREADS=1: the single-thread WASM module, whose start-up is ~1.5 CPU s cheaper than the threaded
    // one's 8 pthread workers; this run checks the game workers and the logging, not the backend's threads.
    spawnSync(
      process.execPath,
      ["--import", import.meta.resolve("tsx"), join(ROOT, "ppo_pettingzoo_ma_atari.ts"), ...args],
      { cwd, encoding: "utf8", timeout: 240_000, env: { ...process.env, ALE_ROMS_DIR: "", PPO_TS_WASM_THREADS: "1" } },
    );

  test(
    "trains through game workers and logs the PPO metrics (quadrapong_v4: 4 agents, 8 input channels)",
    { skip: skipWithoutRom("pong") },
    () => {
      const cwd = mkdtempSync(join(tmpdir(), "ppo-pz-test-"));
      try {
        const result = run(
          [
            "--env-id",
            "quadrapong_v4",
            "--rom-dir",
            ROM_DIR,
            "--num-envs",
            "4",
            "--num-steps",
            "8",
            "--total-timesteps",
            "32",
            "--num-minibatches",
            "2",
            "--update-epochs",
            "1",
          ],
          cwd,
        );
        assert.equal(result.status, 0, result.stderr);
        assert.match(result.stdout, /SPS: \d+/);
      } finally {
        rmSync(cwd, { recursive: true, force: true });
      }
    },
  );

  // In-process, without the workplace's ROMs (as in `run`).
  test("stops with one clear line when the ROM is missing or the env is unknown", async () => {
    const noRoms = { ALE_ROMS_DIR: "" };
    const emptyRomDir = mkdtempSync(join(tmpdir(), "no-roms-here-"));
    try {
      assert.match(
        await usageErrorLine(main, ["--env-id", "joust_v3", "--rom-dir", emptyRomDir], noRoms),
        /error: ROM for "joust" not found\./,
      );
    } finally {
      rmSync(emptyRomDir, { recursive: true, force: true });
    }
    assert.match(await usageErrorLine(main, ["--env-id", "chess_v6"], noRoms), /error: unknown --env-id chess_v6/);
  });
});
