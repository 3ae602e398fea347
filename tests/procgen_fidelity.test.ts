// Our Procgen against the C++ original of procgen 0.10.7, through the recordings in tests/fixtures/procgen/ (made by
// benchmark/procgen_fidelity.ts --record from a build of openai/procgen at 37b521d; command and options in
// tests/fixtures/procgen/README.md). For every recorded game and mode: the first observations of 20 envs (20 level
// seeds) must be pixel-identical (FNV-1a checksums), and the trajectories of 5 envs under the recorded
// seeded-random actions must agree in rewards, dones, level seeds and observation checksums. The suite replays the
// first TEST_STEPS steps of each trajectory (the time budget); `npx tsx benchmark/procgen_fidelity.ts` replays all
// 1000. With use_generated_assets (fixtures <game>_easy_generated.json) it checks the first frames of the
// trajectory run's 5 levels and its first GENERATED_TEST_STEPS steps, with no image file. The rest needs procgen's
// images (PROCGEN_ASSETS_DIR or ../shared/procgen_assets) and skips without them.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import {
  CHAIN_EVERY,
  type Fixture,
  FIRST_ENVS,
  TRAJ_ENVS,
  TrajectoryDigest,
  fixturePath,
  fnv1a,
  modesOf,
  runOurs,
  trajectoryAgreement,
} from "../benchmark/procgen_fidelity.ts";
import { ENV_NAMES } from "../envs/procgen/games/index.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const ASSETS = process.env.PROCGEN_ASSETS_DIR || resolve(ROOT, "../shared/procgen_assets");
const SKIP = existsSync(resolve(ASSETS, "misc_assets"))
  ? false
  : "procgen images not found (PROCGEN_ASSETS_DIR or ../shared/procgen_assets)";
/** Trajectory steps replayed per game and mode in the suite. */
const TEST_STEPS = 100;
/** With use_generated_assets every level draws a 500x500 background: the suite replays these steps of its fixtures. */
const GENERATED_TEST_STEPS = 10;

const hex = (h: number) => h.toString(16).padStart(8, "0");

for (const game of ENV_NAMES) {
  describe(`procgen ${game} against the original`, { skip: SKIP }, () => {
    for (const mode of modesOf(game)) {
      const file = fixturePath(game, mode);
      if (!existsSync(file)) continue;
      const fixture: Fixture = JSON.parse(readFileSync(file, "utf8"));

      test(`${mode}: first frames of ${FIRST_ENVS} levels pixel-identical`, () => {
        const seeds: number[] = [];
        const obs: string[] = [];
        runOurs(game, mode, FIRST_ENVS, 0, ASSETS, (_t, frame) => {
          for (const r of frame) {
            seeds.push(r.levelSeed);
            obs.push(hex(fnv1a(r.obs)));
          }
        });
        assert.deepEqual(seeds, fixture.first.levelSeeds, "level seeds");
        const differing = obs.flatMap((h, e) => (h === fixture.first.obs[e] ? [] : [`env ${e} (level ${seeds[e]})`]));
        assert.deepEqual(differing, [], "first frames that differ from the original");
      });

      test(`${mode}: ${TRAJ_ENVS} trajectories identical for ${TEST_STEPS} steps`, () => {
        let digest: TrajectoryDigest | null = null;
        runOurs(game, mode, TRAJ_ENVS, TEST_STEPS, ASSETS, (t, frame) => {
          if (t === 0) digest = new TrajectoryDigest(frame);
          else digest!.add(t, frame);
        });
        const ref = fixture.trajectory.envs.map((env) => ({
          ...env,
          events: env.events.filter((ev) => ev[0] <= TEST_STEPS),
          chain: env.chain.slice(0, TEST_STEPS / CHAIN_EVERY),
        }));
        const { infoSteps, obsSteps } = trajectoryAgreement(ref, digest!.envs, TEST_STEPS);
        assert.deepEqual(
          infoSteps,
          Array(TRAJ_ENVS).fill(TEST_STEPS),
          "steps (per env) before rewards, dones or level seeds differ",
        );
        assert.deepEqual(
          obsSteps,
          Array(TRAJ_ENVS).fill(TEST_STEPS),
          "steps (per env, in tens) before observations differ",
        );
      });
    }
  });
}

// Generated assets read no image file: these run without procgen's images (a folder that does not exist proves it).
describe("procgen use_generated_assets against the original (easy)", () => {
  for (const game of ENV_NAMES) {
    const file = fixturePath(game, "easy", true);
    if (!existsSync(file)) continue;
    test(`${game}: first frames of ${TRAJ_ENVS} levels and their trajectories for ${GENERATED_TEST_STEPS} steps identical`, () => {
      const fixture: Fixture = JSON.parse(readFileSync(file, "utf8"));
      let digest: TrajectoryDigest | null = null;
      const first: string[] = [];
      runOurs(
        game,
        "easy",
        TRAJ_ENVS,
        GENERATED_TEST_STEPS,
        resolve(ROOT, "no-procgen-images-here"),
        (t, frame) => {
          if (t > 0) return digest!.add(t, frame);
          digest = new TrajectoryDigest(frame);
          for (const r of frame) first.push(hex(fnv1a(r.obs)));
        },
        fixture.randSeed,
        true,
      );
      // The first run's envs get the trajectory run's level seeds in the same order (one seed generator).
      assert.deepEqual(first, fixture.first.obs.slice(0, TRAJ_ENVS), "first frames");
      const ref = fixture.trajectory.envs.map((env) => ({
        ...env,
        events: env.events.filter((ev) => ev[0] <= GENERATED_TEST_STEPS),
        chain: env.chain.slice(0, GENERATED_TEST_STEPS / CHAIN_EVERY),
      }));
      const { infoSteps, obsSteps } = trajectoryAgreement(ref, digest!.envs, GENERATED_TEST_STEPS);
      assert.deepEqual(
        infoSteps,
        Array(TRAJ_ENVS).fill(GENERATED_TEST_STEPS),
        "steps (per env) before rewards, dones or level seeds differ",
      );
      assert.deepEqual(
        obsSteps,
        Array(TRAJ_ENVS).fill(GENERATED_TEST_STEPS),
        "steps (per env, in tens) before observations differ",
      );
    });
  }
});
