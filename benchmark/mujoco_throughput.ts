// Env-steps per second of the MuJoCo v4 tasks: `npx tsx benchmark/mujoco_throughput.ts [--steps 10000] [--env-ids A,B]`.
//
// One process, one env at a time, made with gym.make (so TimeLimit and OrderEnforcing are included), uniform
// random actions drawn beforehand (the policy's cost is not the env's), resets counted as part of the run, as in
// a training loop. A second pass over the same seeded run times MuJoCo's own calls (mj_step and
// mj_rnePostConstraint, through the bindings) to split each step into physics and everything else (action
// copy, observation, reward, wrappers). Compare runs on an otherwise idle machine.

import * as gym from "../envs/gymnasium/index.ts";
import { int, parseArgs, str, usageError } from "../envs/run/cli.ts";
import { runMain } from "../envs/run/main.ts";
import { mujocoModule } from "../envs/mujoco/mujoco_env.ts";

const ALL = [
  "Hopper-v4",
  "HalfCheetah-v4",
  "InvertedPendulum-v4",
  "Walker2d-v4",
  "InvertedDoublePendulum-v4",
  "Swimmer-v4",
  "Reacher-v4",
  "Pusher-v4",
  "Ant-v4",
  "Humanoid-v4",
];
const ARGS = {
  steps: int(10000, "env steps per task", { ge: 1 }),
  envIds: str(ALL.join(","), "comma-separated MuJoCo env ids"),
};
/** Env steps per task (--steps), set by main before any run. */
let steps = 0;

/** Runs `steps` env steps with pre-drawn random actions; returns the elapsed milliseconds. */
function run(id: string): number {
  const env = gym.make(id);
  env.actionSpace.seed(0);
  const actions = Array.from({ length: 1000 }, () => env.actionSpace.sample());
  env.reset({ seed: 0 });
  const start = performance.now();
  for (let t = 0; t < steps; t++) {
    const [, , terminated, truncated] = env.step(actions[t % actions.length]);
    if (terminated || truncated) env.reset();
  }
  const elapsed = performance.now() - start;
  env.close();
  return elapsed;
}

/** Wraps the module's mj_step and mj_rnePostConstraint to accumulate their time; returns the reader and the undo. */
function timePhysics(): { read: () => number; restore: () => void } {
  const mj = mujocoModule() as unknown as Record<string, (...args: unknown[]) => unknown>;
  const originals = { mj_step: mj.mj_step, mj_rnePostConstraint: mj.mj_rnePostConstraint };
  let total = 0;
  for (const [name, original] of Object.entries(originals)) {
    mj[name] = (...args: unknown[]) => {
      const start = performance.now();
      const result = original(...args);
      total += performance.now() - start;
      return result;
    };
  }
  return { read: () => total, restore: () => Object.assign(mj, originals) };
}

async function main(): Promise<void> {
  const cli = parseArgs(ARGS, "Env-steps per second of the MuJoCo v4 tasks.", "benchmark/mujoco_throughput.ts");
  steps = cli.steps;
  const ids = cli.envIds.split(",");
  for (const id of ids)
    if (!ALL.includes(id)) usageError(`--env-ids: ${id} is not a MuJoCo v4 task (${ALL.join(", ")})`);
  const t0 = performance.now();
  await gym.mujoco.init();
  console.log(`MuJoCo WASM load: ${(performance.now() - t0).toFixed(0)} ms`);

  const rows: string[] = [];
  for (const id of ids) {
    run(id); // warm-up: lets V8 tier up the WASM and the JS step path
    const elapsed = run(id);
    const timer = timePhysics();
    const instrumented = run(id);
    const physics = timer.read();
    timer.restore();
    const usPerStep = (elapsed * 1000) / steps;
    const physicsShare = physics / instrumented;
    rows.push(
      `| ${id.padEnd(25)} | ${Math.round((steps * 1000) / elapsed)
        .toString()
        .padStart(7)} | ${usPerStep.toFixed(1).padStart(7)} | ` +
        `${(usPerStep * physicsShare).toFixed(1).padStart(7)} | ${(100 * physicsShare).toFixed(0).padStart(3)}% |`,
    );
    console.log(rows[rows.length - 1]);
  }

  console.log(`\n${steps} steps per task, random actions, single process (node ${process.version})\n`);
  console.log("| task                      | steps/s | us/step | physics | share |");
  console.log("|---------------------------|---------|---------|---------|-------|");
  for (const row of rows) console.log(row);
}

await runMain(main);
