// Every screen an observation shows, against ale-py 0.12.1: the screen and RAM right after the ROM load's reset
// (Qbert's post-reset frame is drawn by an earlier reset frame than the last), then 4-frame steps through
// AtariEnv(frameskip=4) (the screen after each step, game-over steps included) and through MaxAndSkipEnv over
// AtariEnv(frameskip=1) (the two pooled frames; the others run without pixels), with RAM, rewards, lives, game over
// and the screens of the resets that follow. tests/fixtures/ale_frameskip.json holds ale-py's running digests every
// 50 steps, made with
//
//   python benchmark/ale_reference.py --steps 400 --frameskip-out tests/fixtures/ale_frameskip.json
//
// (ale-py 0.12.1, its ROMs). Every game of the table whose ROM is present is replayed: CI has five; with
// ALE_ROMS_DIR holding ale-py's ROMs all 57 are. ALE_FRAMESKIP_STEPS (a multiple of 50) shortens the replay.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";

import { stepDigests, type SteppedReference } from "../benchmark/ale_fidelity.ts";
import { GAMES } from "../envs/ale/games.ts";
import { md5Hex } from "../envs/ale/roms.ts";
import { ROM_DIR } from "./helpers.ts";

const FIXTURE = JSON.parse(readFileSync(new URL("./fixtures/ale_frameskip.json", import.meta.url), "utf8")) as {
  ale_py: string;
  steps: number;
  checkpoint: number;
  games: Record<string, SteppedReference>;
};
const STEPS = Number(process.env.ALE_FRAMESKIP_STEPS || FIXTURE.steps);
if (!(STEPS > 0 && STEPS <= FIXTURE.steps && STEPS % FIXTURE.checkpoint === 0)) {
  throw new Error(
    `ALE_FRAMESKIP_STEPS must be a multiple of ${FIXTURE.checkpoint} up to ${FIXTURE.steps}, got ${STEPS}`,
  );
}
const CHECKPOINTS = STEPS / FIXTURE.checkpoint;

describe(`observed screens against ale-py ${FIXTURE.ale_py}: after reset, at frameskip 4 and in MaxAndSkip`, () => {
  test("the recording covers every game of the table", () => {
    assert.deepEqual(Object.keys(FIXTURE.games).sort(), [...GAMES.values()].map((g) => g.rom).sort());
  });
  for (const game of GAMES.values()) {
    const path = join(ROM_DIR, `${game.rom}.bin`);
    const present = existsSync(path);
    test(`${game.name}`, { skip: present ? false : `${game.rom}.bin not in ${ROM_DIR} (set ALE_ROMS_DIR)` }, (t) => {
      const rom = new Uint8Array(readFileSync(path));
      if (md5Hex(rom) !== game.md5) return t.skip(`${path} is not the ROM ALE accepts`);
      const real = FIXTURE.games[game.rom];
      const last = stepDigests(game, rom, STEPS, FIXTURE.checkpoint, "last");
      assert.deepEqual(last.reset, real.reset, "screen and RAM after the ROM load's reset");
      assert.deepEqual(last.last, real.last.slice(0, CHECKPOINTS), "AtariEnv(frameskip=4): digests every 50 steps");
      const pooled = stepDigests(game, rom, STEPS, FIXTURE.checkpoint, "pooled");
      assert.deepEqual(
        pooled.pooled,
        real.pooled.slice(0, CHECKPOINTS),
        "MaxAndSkipEnv(skip=4): digests every 50 steps",
      );
      if (STEPS === FIXTURE.steps) assert.deepEqual([last.reward, last.resets], [real.reward, real.resets]);
    });
  }
});
