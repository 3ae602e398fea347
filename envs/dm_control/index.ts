// Registers dm_control's suite tasks under Shimmy's ids, `dm_control/<domain>-<task>-v0`, each made as Shimmy makes
// it: `suite.load(domain, task)` wrapped in DmControlCompatibilityV0 (see suite.ts), with no TimeLimit wrapper
// (dm_control ends its episodes itself). envs/gymnasium/index.ts re-exports this module as `gym.dm_control`.
// MuJoCo must be loaded first (`await gym.mujoco.init()`), as for the MuJoCo v4 tasks.

import { register } from "../gymnasium/registration.ts";
import { ACROBOT_TASKS, loadAcrobot } from "./acrobot.ts";
import { BALL_IN_CUP_TASKS, loadBallInCup } from "./ball_in_cup.ts";
import { CARTPOLE_TASKS, loadCartpole } from "./cartpole.ts";
import { CHEETAH_TASKS, loadCheetah } from "./cheetah.ts";
import { DOG_TASKS, loadDog } from "./dog.ts";
import { FINGER_TASKS, loadFinger } from "./finger.ts";
import { FISH_TASKS, loadFish } from "./fish.ts";
import { HOPPER_TASKS, loadHopper } from "./hopper.ts";
import { HUMANOID_CMU_TASKS, HUMANOID_TASKS, loadHumanoid, loadHumanoidCMU } from "./humanoid.ts";
import { LQR_TASKS, loadLqr } from "./lqr.ts";
import { MANIPULATOR_TASKS, loadManipulator } from "./manipulator.ts";
import { STACKER_TASKS, loadStacker } from "./stacker.ts";
import { SWIMMER_TASKS, loadSwimmer } from "./swimmer.ts";
import { WALKER_TASKS, loadWalker } from "./walker.ts";
import { PENDULUM_TASKS, loadPendulum } from "./pendulum.ts";
import { POINT_MASS_TASKS, loadPointMass } from "./point_mass.ts";
import { QUADRUPED_TASKS, loadQuadruped } from "./quadruped.ts";
import { REACHER_TASKS, loadReacher } from "./reacher.ts";
import type { Environment } from "./control.ts";
import type { RandomState } from "./random_state.ts";
import { DmControlCompatibilityV0 } from "./suite.ts";

export { DmControlCompatibilityV0 } from "./suite.ts";
export { DogModelNotFoundError } from "./dog.ts";
export { Environment, StepType, Task } from "./control.ts";
export { RandomState } from "./random_state.ts";
export { tolerance } from "./rewards.ts";

type Loader = (task: string, random?: RandomState | number) => Environment;

const DOMAINS: Record<string, { tasks: readonly string[]; load: Loader }> = {
  acrobot: { tasks: ACROBOT_TASKS, load: loadAcrobot },
  ball_in_cup: { tasks: BALL_IN_CUP_TASKS, load: loadBallInCup },
  cartpole: { tasks: CARTPOLE_TASKS, load: loadCartpole },
  cheetah: { tasks: CHEETAH_TASKS, load: loadCheetah },
  dog: { tasks: DOG_TASKS, load: loadDog },
  finger: { tasks: FINGER_TASKS, load: loadFinger },
  fish: { tasks: FISH_TASKS, load: loadFish },
  hopper: { tasks: HOPPER_TASKS, load: loadHopper },
  humanoid: { tasks: HUMANOID_TASKS, load: loadHumanoid },
  humanoid_CMU: { tasks: HUMANOID_CMU_TASKS, load: loadHumanoidCMU },
  lqr: { tasks: LQR_TASKS, load: loadLqr },
  manipulator: { tasks: MANIPULATOR_TASKS, load: loadManipulator },
  pendulum: { tasks: PENDULUM_TASKS, load: loadPendulum },
  point_mass: { tasks: POINT_MASS_TASKS, load: loadPointMass },
  quadruped: { tasks: QUADRUPED_TASKS, load: loadQuadruped },
  reacher: { tasks: REACHER_TASKS, load: loadReacher },
  stacker: { tasks: STACKER_TASKS, load: loadStacker },
  swimmer: { tasks: SWIMMER_TASKS, load: loadSwimmer },
  walker: { tasks: WALKER_TASKS, load: loadWalker },
};

/** `suite.load(domain, task)`: the dm_env environment of a task. */
export function load(domain: string, task: string, random?: RandomState | number): Environment {
  const entry = DOMAINS[domain];
  if (entry === undefined || !entry.tasks.includes(task)) throw new Error(`dm_control: unknown task ${domain}-${task}`);
  return entry.load(task, random);
}

/** The (domain, task) pairs this port has, in the suite's order. */
export const ALL_TASKS: readonly [string, string][] = Object.entries(DOMAINS).flatMap(([domain, { tasks }]) =>
  tasks.map((task): [string, string] => [domain, task]),
);

for (const [domain, task] of ALL_TASKS) {
  register({
    id: `dm_control/${domain}-${task}-v0`,
    spaceKinds: { action: "continuous", observation: "vector" }, // a Dict that FlattenObservation makes one vector
    entryPoint: () => new DmControlCompatibilityV0(load(domain, task)),
    acceptedKwargs: [],
  });
}
