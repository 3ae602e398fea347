// AsyncVectorEnv's workers import this file for `makeEnv` (its env factories below), so the tests are only
// registered on the main thread; with ASYNC_VECTOR_CHILD set it is instead the script of a child process.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { isMainThread, threadId } from "node:worker_threads";

import { Env, type Info, type ResetArgs, type StepResult } from "../envs/gymnasium/core.ts";
import type { TypedArray } from "../envs/gymnasium/spaces.ts";
import { AsyncVectorEnv, type AsyncVectorEnvOptions, type EnvFnSpec } from "../envs/gymnasium/async_vector.ts";
import { errorLine } from "../envs/run/main.ts";
import { SyncVectorEnv } from "../envs/gymnasium/vector.ts";
import { CounterEnv as BaseCounterEnv, float32Box } from "./helpers.ts";

/**
 * helpers.ts's CounterEnv (observation [id, episode, t, seed-or--1], reward 10 * id + t, info `t`, reset info
 * `resets`) that also reports the last action: it is appended to the observation, action / 4 is added to the
 * reward, and the info of even steps carries `even: true`, so every step result depends on what was sent.
 */
class CounterEnv extends BaseCounterEnv {
  override observationSpace = float32Box(-Infinity, Infinity, [5]);
  lastAction = -1;
  protected override obs(): Float32Array {
    return Float32Array.of(...super.obs(), this.lastAction);
  }
  override step(action: number): StepResult<Float32Array> {
    this.lastAction = action;
    const [obs, reward, terminated, truncated, info] = super.step(action);
    return [obs, reward + action / 4, terminated, truncated, this.t % 2 === 0 ? { ...info, even: true } : info];
  }
}

/** Echoes its (float32 Box) action as the observation. */
class EchoEnv extends Env<Float32Array, TypedArray> {
  observationSpace = float32Box(-10, 10, [2]);
  actionSpace = float32Box(-10, 10, [2]);
  override reset(args: ResetArgs = {}): [Float32Array, Info] {
    super.reset(args);
    return [new Float32Array(2), {}];
  }
  step(action: TypedArray): StepResult<Float32Array> {
    assert.ok(action instanceof Float32Array);
    return [Float32Array.from(action), 0, false, false, {}];
  }
  describe(prefix: string): string {
    return `${prefix}:echo`;
  }
  /** The id of the thread hosting this env. */
  thread(): number {
    return threadId;
  }
}

/** Throws a recognizable error in `phase`. */
class FaultyEnv extends CounterEnv {
  constructor(readonly phase: "construct" | "reset" | "step") {
    super(0, 100, false);
    if (phase === "construct") throw new RangeError("broken on purpose in the constructor");
  }
  override reset(args: ResetArgs = {}): [Float32Array, Info] {
    if (this.phase === "reset") throw new Error("broken on purpose in reset");
    return super.reset(args);
  }
  override step(action: number): StepResult<Float32Array> {
    if (this.phase === "step" && this.t === 2) explodeInStep();
    return super.step(action);
  }
}

function explodeInStep(): never {
  throw new Error("broken on purpose in step");
}

/** Ends its worker thread in the middle of a step, as a crash would, without throwing. */
class ExitingEnv extends CounterEnv {
  override step(action: number): StepResult<Float32Array> {
    if (this.t === 1) process.exit(3);
    return super.step(action);
  }
}

/** Loops `iterations` times per step: CPU work that, unlike a deadline, does not finish while the process is stopped. */
export function spin(iterations: number): number {
  let x = 0;
  for (let i = 0; i < iterations; i++) x = (x + Math.sqrt(i)) % 1e6;
  return x;
}

class SpinEnv extends BaseCounterEnv {
  sink = 0;
  constructor(readonly iterations: number) {
    super(0, 1_000_000, false);
  }
  override step(action: number): StepResult<Float32Array> {
    this.sink += spin(this.iterations);
    return super.step(action);
  }
}

/** The env factories workers build from: CleanRL's `make_env(...)` shape, returning a thunk. */
export function makeEnv(kind: string, ...params: number[]): () => Env {
  switch (kind) {
    case "counter":
      return () => new CounterEnv(params[0], params[1], params[2] === 1);
    case "echo":
      return () => new EchoEnv();
    case "construct":
    case "reset":
    case "step":
      return () => new FaultyEnv(kind);
    case "exit":
      return () => new ExitingEnv(0, 100, false);
    case "spin":
      return () => new SpinEnv(params[0]);
  }
  throw new Error(`makeEnv: unknown kind ${kind}`);
}

const HERE = import.meta.url;
const spec = (kind: string, ...params: number[]): EnvFnSpec => ({
  module: HERE,
  exportName: "makeEnv",
  args: [kind, ...params],
});

if (isMainThread && process.env.ASYNC_VECTOR_CHILD === "1") runChild();
else if (isMainThread && process.env.ASYNC_VECTOR_CHILD === "suspend") runSuspendedChild();
else if (isMainThread) registerTests();

/**
 * The child process of the suspension test: one step of ~1.5 s of CPU work under a 6 s timeout, during which
 * the parent stops the whole process for 8 s. Prints "stepping" when the step starts and "suspend ok" after it.
 */
function runSuspendedChild(): void {
  const t0 = performance.now();
  spin(2_000_000);
  const perMs = 2_000_000 / Math.max(1, performance.now() - t0);
  const envs = new AsyncVectorEnv([spec("spin", Math.round(1500 * perMs))], { timeoutMs: 6000 });
  envs.reset();
  console.log("stepping");
  envs.step([0]);
  envs.close();
  console.log("suspend ok");
}

/** The child process of the tsx CLI test: one env vector closed, one forgotten; the process must still exit. */
function runChild(): void {
  const closed = new AsyncVectorEnv([spec("counter", 0, 3, 0), spec("counter", 1, 3, 0)]);
  const [obs] = closed.reset({ seed: 5 });
  closed.step([0, 1]);
  closed.close();
  const forgotten = new AsyncVectorEnv([spec("counter", 0, 3, 0)]);
  forgotten.reset();
  console.log(`child ok ${obs[3]} ${obs[8]}`);
}

function registerTests(): void {
  test(
    "a process stopped mid-step (Ctrl-Z, SIGSTOP) and resumed does not count the stop against the worker timeout",
    { timeout: 90_000 },
    async () => {
      const { spawn } = await import("node:child_process");
      const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(HERE)], {
        env: { ...process.env, ASYNC_VECTOR_CHILD: "suspend" },
      });
      let out = "";
      let err = "";
      child.stderr.on("data", (d) => {
        err += d;
      });
      const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
      const stepping = new Promise<void>((resolve) =>
        child.stdout.on("data", (d) => {
          out += d;
          if (out.includes("stepping")) resolve();
        }),
      );
      await Promise.race([stepping, exited]); // a child that dies before stepping fails below instead of hanging
      if (child.exitCode === null) {
        await new Promise((r) => setTimeout(r, 300));
        child.kill("SIGSTOP");
        await new Promise((r) => setTimeout(r, 8000)); // longer than the 6 s timeout
        child.kill("SIGCONT");
      }
      const code = await exited;
      assert.equal(
        code,
        0,
        `child exited ${code}: ${
          err
            .trim()
            .split("\n")
            .find((l) => l.includes("Error")) ?? err
        }`,
      );
      assert.match(out, /suspend ok/);
    },
  );

  test("AsyncVectorEnv is gym.vector.AsyncVectorEnv", async () => {
    // Imported here, not at the top: workers load this file and need none of the registered env families.
    const gym = await import("../envs/gymnasium/index.ts");
    assert.equal(gym.vector.AsyncVectorEnv, AsyncVectorEnv);
  });

  /** Runs the same episodes through AsyncVectorEnv (with `options`) and SyncVectorEnv and compares every result. */
  function compareWithSync(options: AsyncVectorEnvOptions) {
    // Episodes of 3, 4 and 5 steps (the last one truncated), so autoresets fall on different steps.
    const params: [number, number, number][] = [
      [0, 3, 0],
      [1, 4, 0],
      [2, 5, 1],
    ];
    const asyncEnvs = new AsyncVectorEnv(
      params.map((p) => spec("counter", ...p)),
      options,
    );
    const syncEnvs = new SyncVectorEnv(params.map((p) => makeEnv("counter", ...p)));
    try {
      assert.equal(asyncEnvs.observationSpace.toString(), syncEnvs.observationSpace.toString());
      assert.equal(asyncEnvs.actionSpace.toString(), syncEnvs.actionSpace.toString());
      assert.deepEqual(asyncEnvs.reset({ seed: 7 }), syncEnvs.reset({ seed: 7 }));
      let finals = 0;
      for (let t = 0; t < 60; t++) {
        const actions = [t % 3, (t + 1) % 3, (2 * t) % 3];
        const expected = syncEnvs.step(actions);
        assert.deepEqual(asyncEnvs.step(actions), expected, `step ${t}`);
        finals += expected[4]._final_observation?.filter(Boolean).length ?? 0;
      }
      assert.equal(finals, 20 + 15 + 12);
      assert.deepEqual(asyncEnvs.reset({ seed: [3, null, 4] }), syncEnvs.reset({ seed: [3, null, 4] }));
    } finally {
      asyncEnvs.close();
    }
  }

  test("AsyncVectorEnv gives SyncVectorEnv's results, step for step, across autoresets", () => compareWithSync({}));

  test("with several envs per worker (numWorkers: 2 for 3 envs) the results are still SyncVectorEnv's, autoresets included", () =>
    compareWithSync({ numWorkers: 2 }));

  test("numWorkers splits the envs into contiguous runs, one thread each, and call() answers in env order", () => {
    const envs = new AsyncVectorEnv([spec("echo"), spec("echo"), spec("echo")], { numWorkers: 2 });
    try {
      const threads = envs.call("thread") as number[];
      assert.equal(threads.length, 3);
      assert.equal(threads[0], threads[1]);
      assert.notEqual(threads[1], threads[2]);
      assert.ok(!threads.includes(threadId));
      envs.reset();
      const [obs] = envs.step([1, 2, 3, 4, 5, 6]);
      assert.deepEqual(Array.from(obs), [1, 2, 3, 4, 5, 6]);
    } finally {
      envs.close();
    }
  });

  test("numWorkers must be a positive integer", () => {
    assert.throws(
      () => new AsyncVectorEnv([spec("echo")], { numWorkers: 0 }),
      /numWorkers must be a positive integer, got 0/,
    );
  });

  test("with several envs per worker, an env that fails is named by its own index", () => {
    assert.throws(
      () => new AsyncVectorEnv([spec("counter", 0, 3, 0), spec("construct")], { numWorkers: 1 }),
      /env 1 \(worker thread \d+\) failed in construction: RangeError: broken on purpose/,
    );
    const envs = new AsyncVectorEnv([spec("counter", 0, 3, 0), spec("step"), spec("counter", 1, 3, 0)], {
      numWorkers: 2,
    });
    envs.reset();
    envs.step([0, 0, 0]);
    envs.step([0, 0, 0]);
    assert.throws(
      () => envs.step([0, 0, 0]),
      /env 1 \(worker thread \d+\) failed in step: Error: broken on purpose in step/,
    );
    assert.equal(envs.closed, true);
  });

  test("a worker hosting several envs that exits is reported for all of them", () => {
    const envs = new AsyncVectorEnv([spec("exit"), spec("counter", 0, 3, 0)], { numWorkers: 1, timeoutMs: 20_000 });
    envs.reset();
    envs.step([0, 0]);
    assert.throws(
      () => envs.step([0, 0]),
      /envs 0-1 \(worker thread \d+\) failed in step: its worker exited \(code 3\)/,
    );
  });

  test("AsyncVectorEnv hands Box actions to each env as its own slice in the action dtype, and forwards call()", () => {
    const envs = new AsyncVectorEnv([spec("echo"), spec("echo")]);
    try {
      envs.reset();
      const [obs] = envs.step([1, 2, 3.5, -4]);
      assert.ok(obs instanceof Float32Array);
      assert.deepEqual(Array.from(obs), [1, 2, 3.5, -4]);
      assert.deepEqual(envs.call("describe", "env"), ["env:echo", "env:echo"]);
      assert.deepEqual(envs.call("renderMode"), [null, null]);
    } finally {
      envs.close();
    }
  });

  test("AsyncVectorEnv with copy: false returns the one shared batch, overwritten by each step", () => {
    const envs = new AsyncVectorEnv([spec("counter", 0, 100, 0)], { copy: false });
    try {
      const [first] = envs.reset();
      const [second] = envs.step([0]);
      assert.equal(first, second);
      assert.equal(first[2], 1);
    } finally {
      envs.close();
    }
  });

  test("an env that throws while being built surfaces as an Error naming the env index and the message", () => {
    assert.throws(
      () => new AsyncVectorEnv([spec("counter", 0, 3, 0), spec("construct")]),
      /env 1 \(worker thread \d+\) failed in construction: RangeError: broken on purpose in the constructor/,
    );
  });

  test("an env that throws in reset surfaces as an Error naming the env index and the message", () => {
    const envs = new AsyncVectorEnv([spec("reset"), spec("counter", 0, 3, 0)]);
    assert.throws(() => envs.reset(), /env 0 \(worker thread \d+\) failed in reset: Error: broken on purpose in reset/);
  });

  test("an env that throws in step surfaces with the worker's stack, and the vector env is then closed", () => {
    const envs = new AsyncVectorEnv([spec("counter", 0, 3, 0), spec("step")]);
    envs.reset();
    envs.step([0, 0]);
    envs.step([0, 0]);
    assert.throws(
      () => envs.step([0, 0]),
      (error: Error) =>
        /env 1 \(worker thread \d+\) failed in step: Error: broken on purpose in step/.test(error.message) &&
        /explodeInStep/.test(error.message),
    );
    assert.equal(envs.closed, true);
    assert.throws(() => envs.step([0, 0]), /after close/);
  });

  test("a worker that exits mid-step is reported as an Error, not waited for", () => {
    const envs = new AsyncVectorEnv([spec("exit")], { timeoutMs: 20_000 });
    envs.reset();
    envs.step([0]);
    const start = performance.now();
    assert.throws(() => envs.step([0]), /env 0 \(worker thread \d+\) failed in step: its worker exited \(code 3\)/);
    assert.ok(performance.now() - start < 10_000);
  });

  test("a worker whose env hangs in step ends in one error line naming the env and its worker, after the timeout", () => {
    const envs = new AsyncVectorEnv([spec("spin", 10), spec("spin", 1e15)], {
      numWorkers: 2,
      timeoutMs: 2000,
      startupTimeoutMs: 60_000,
    });
    envs.reset();
    const start = performance.now();
    assert.throws(
      () => envs.step([0, 0]),
      (e: Error) =>
        /^AsyncVectorEnv: env 1 \(worker thread 1\) failed in step: no answer from its worker within 2000 ms$/.test(
          errorLine(e).replace(/^error: | \(rerun with --debug for the stack trace\)$/g, ""),
        ),
    );
    assert.ok(performance.now() - start < 10_000);
    assert.equal(envs.closed, true);
  });

  test("step after close throws, and closing twice is fine", () => {
    const envs = new AsyncVectorEnv([spec("counter", 0, 3, 0)]);
    envs.reset();
    envs.close();
    envs.close();
    assert.throws(() => envs.step([0]), /after close/);
    assert.throws(() => envs.reset(), /after close/);
  });

  test("under the tsx CLI the workers load TypeScript too, and the process exits after close (or a forgotten env)", () => {
    const tsxCli = fileURLToPath(import.meta.resolve("tsx/cli"));
    const child = spawnSync(process.execPath, [tsxCli, fileURLToPath(HERE)], {
      env: { ...process.env, ASYNC_VECTOR_CHILD: "1" },
      encoding: "utf8",
      timeout: 60_000,
    });
    assert.equal(child.status, 0, `exit ${child.status} ${child.signal ?? ""}\n${child.stdout}\n${child.stderr}`);
    // The seeds 5 and 6 reached the two envs: the observation's fourth value is the seed.
    assert.match(child.stdout, /child ok 5 6/);
  });
}
