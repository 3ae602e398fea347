// Env steps per second of dm_control suite tasks as ppo_continuous_action.ts steps them (gym.make, then
// FlattenObservation): `npx tsx benchmark/dm_control_throughput.ts [--steps 2000] [--tasks a-b,c-d]`.
// benchmark/dm_control_throughput.py measures dm_control itself the same way (Shimmy, FlattenObservation, the same
// number of steps with uniform random actions drawn beforehand, resets counted). Compare runs made side by side.

import * as gym from "../envs/gymnasium/index.ts";
import { RandomState } from "../envs/dm_control/random_state.ts";
import { int, parseArgs, str } from "../envs/run/cli.ts";
import { runMain } from "../envs/run/main.ts";

const ARGS = {
  steps: int(2000, "env steps per task", { ge: 1 }),
  tasks: str("cartpole-balance,cheetah-run,walker-walk,humanoid-run,quadruped-walk", "comma-separated domain-task"),
};

await runMain(async () => {
  const args = parseArgs(ARGS, "dm_control env steps per second", "benchmark/dm_control_throughput.ts");
  await gym.mujoco.init();
  for (const task of args.tasks.split(",")) {
    const env = new gym.wrappers.FlattenObservation(gym.make(`dm_control/${task}-v0`));
    const rng = new RandomState(0);
    const actions = Array.from({ length: 1000 }, () => rng.uniformArray(-1, 1, env.actionSpace.size));
    env.reset({ seed: 0 });
    const start = performance.now();
    for (let t = 0; t < args.steps; t++) {
      const [, , terminated, truncated] = env.step(actions[t % actions.length]);
      if (terminated || truncated) env.reset();
    }
    const elapsed = (performance.now() - start) / 1000;
    console.log(`${task}: ${Math.round(args.steps / elapsed)} steps/s`);
    env.close();
  }
});
