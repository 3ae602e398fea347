// Speed, not behaviour: `npm test` runs the files in tests/timing/ after the others, one at a time, so that no other
// test file takes the second core while they measure. AsyncVectorEnv's workers import this file for `makeEnv`, so
// the test is only registered on the main thread.
import assert from "node:assert/strict";
import { availableParallelism, loadavg } from "node:os";
import { test } from "node:test";
import { isMainThread } from "node:worker_threads";

import { AsyncVectorEnv } from "../../envs/gymnasium/async_vector.ts";
import type { StepResult } from "../../envs/gymnasium/core.ts";
import { SyncVectorEnv } from "../../envs/gymnasium/vector.ts";
import { CounterEnv } from "../helpers.ts";

/** About `work` milliseconds of pure computation per step. */
class BusyEnv extends CounterEnv {
  sink = 0;
  constructor(readonly work: number) {
    super(0, 1_000_000, false);
  }
  override step(action: number): StepResult<Float32Array> {
    const end = performance.now() + this.work;
    while (performance.now() < end) for (let i = 0; i < 1000; i++) this.sink += Math.sqrt(i + this.sink);
    return super.step(action);
  }
}

/** The env factory the workers build from: CleanRL's `make_env(...)` shape, returning a thunk. */
export function makeEnv(work: number): () => BusyEnv {
  return () => new BusyEnv(work);
}

const spec = (work: number) => ({ module: import.meta.url, exportName: "makeEnv", args: [work] });

if (isMainThread) {
  test("two workers step a CPU-bound env in parallel, faster than SyncVectorEnv", (t) => {
    if (availableParallelism() < 2) return t.skip("needs 2 cores");
    const steps = 60;
    const work = 4; // ms per step per env
    const syncEnvs = new SyncVectorEnv([makeEnv(work), makeEnv(work)]);
    const asyncEnvs = new AsyncVectorEnv([spec(work), spec(work)]);
    try {
      const time = (envs: { reset(): unknown; step(a: number[]): unknown }) => {
        envs.reset();
        envs.step([0, 0]);
        const start = performance.now();
        for (let i = 0; i < steps; i++) envs.step([0, 0]);
        return performance.now() - start;
      };
      // Best of two rounds, so one burst of outside load does not decide.
      let syncMs = time(syncEnvs);
      let asyncMs = time(asyncEnvs);
      if (syncMs / asyncMs < 1.3) {
        syncMs = time(syncEnvs);
        asyncMs = time(asyncEnvs);
      }
      const speedup = syncMs / asyncMs;
      const load = loadavg()[0];
      // Other processes can take the second core; only an idle-enough machine can be held to the speed-up.
      if (speedup < 1.3 && load > 1)
        return t.skip(
          `speed-up ${speedup.toFixed(2)}x with load average ${load.toFixed(1)}: machine too busy to judge`,
        );
      assert.ok(speedup > 1.3, `sync ${syncMs.toFixed(0)} ms, async ${asyncMs.toFixed(0)} ms: ${speedup.toFixed(2)}x`);
    } finally {
      asyncEnvs.close();
    }
  });
}
