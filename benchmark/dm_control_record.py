"""Records dm_control suite episodes as CleanRL sees them, for tests/dm_control.test.ts.

Each task is made the way Shimmy registers `dm_control/<domain>-<task>-v0` (`suite.load` with default kwargs, then
`DmControlCompatibilityV0`), wrapped in Gymnasium's `FlattenObservation` as CleanRL's `ppo_continuous_action.py`
does, reset with `seed`, and driven by actions drawn from `np.random.RandomState(1000 + seed).uniform(low, high)`
(bounds clipped to [-1, 1] first, so that LQR's +-1e10 bounds give usable actions) until the episode ends or 1000
steps have passed. Per task it writes one JSON file: the spaces, the control and physics timesteps, the first
observations for a few seeds, and per step the reward and the observation's sum (full observation rows at a few
steps), and how the episode ended.

Run through benchmark/dm_control_record.sh, which builds the environment this needs.
"""

import argparse
import json
import os
import sys

import numpy as np

import gymnasium as gym
from dm_control import suite
from dm_control.mujoco import engine
from shimmy.dm_control_compatibility import DmControlCompatibilityV0

# CleanRL's table of dm_control tasks (cleanrl/ppo_continuous_action.py's docs).
TASKS = """acrobot-swingup acrobot-swingup_sparse ball_in_cup-catch cartpole-balance cartpole-balance_sparse
cartpole-swingup cartpole-swingup_sparse cartpole-two_poles cartpole-three_poles cheetah-run dog-stand dog-walk
dog-trot dog-run dog-fetch finger-spin finger-turn_easy finger-turn_hard fish-upright fish-swim hopper-stand
hopper-hop humanoid-stand humanoid-walk humanoid-run humanoid-run_pure_state humanoid_CMU-stand humanoid_CMU-run
lqr-lqr_2_1 lqr-lqr_6_2 manipulator-bring_ball manipulator-bring_peg manipulator-insert_ball manipulator-insert_peg
pendulum-swingup point_mass-easy point_mass-hard quadruped-walk quadruped-run quadruped-escape quadruped-fetch
reacher-easy reacher-hard stacker-stack_2 stacker-stack_4 swimmer-swimmer6 swimmer-swimmer15 walker-stand
walker-walk walker-run""".split()

MAX_STEPS = 1000
PER_STEP = 100  # steps with a recorded reward and observation sum
ROW_STEPS = (1, 10, 100)  # steps whose full observation is recorded
RESET_SEEDS = (0, 2)

# Quadruped's escape task uploads its new terrain to the OpenGL context when there is one; with MUJOCO_GL=disable
# asking for the contexts raises instead of answering "none". Without a renderer there is nothing to upload to.
engine.Physics.contexts = property(lambda self: None)


def make(task_id, task_random=None):
    domain, task = task_id.split("-")
    task_kwargs = None if task_random is None else {"random": task_random}
    return gym.wrappers.FlattenObservation(DmControlCompatibilityV0(suite.load(domain, task, task_kwargs=task_kwargs)))


def floats(array):
    return [float(x) for x in np.asarray(array, dtype=np.float64).ravel()]


def record(task_id, seed, task_random=None):
    """One episode. With `task_random`, the task is made with `task_kwargs={"random": task_random}` and reset
    without a seed: LQR draws its model from the task's RandomState when it is made, so only then is the model
    reproducible."""
    env = make(task_id, task_random)
    inner = env.unwrapped
    dm_env = inner._env
    obs_spec = dm_env.observation_spec()
    act_space = env.action_space
    out = {
        "id": f"dm_control/{task_id}-v0",
        "seed": seed,
        "observation_keys": {k: list(obs_spec[k].shape) for k in sorted(obs_spec)},
        "observation_size": int(env.observation_space.shape[0]),
        "action_low": floats(act_space.low),
        "action_high": floats(act_space.high),
        "control_timestep": float(dm_env.control_timestep()),
        "physics_timestep": float(dm_env.physics.timestep()),
        "step_limit": None if np.isinf(dm_env._step_limit) else float(dm_env._step_limit),  # JSON has no inf
        "reset_observations": {},
    }
    if task_random is None:
        for s in RESET_SEEDS:
            obs, _ = env.reset(seed=s)
            out["reset_observations"][str(s)] = floats(obs)
        obs, info = env.reset(seed=seed)
    else:
        out["task_random"] = task_random
        obs, info = env.reset()
    out["first_observation"] = floats(obs)
    low = np.clip(act_space.low, -1, 1)
    high = np.clip(act_space.high, -1, 1)
    action_rng = np.random.RandomState(1000 + seed)
    rewards, sums, rows, actions_sum = [], [], {}, 0.0
    total = 0.0
    steps = 0
    terminated = truncated = False
    while steps < MAX_STEPS and not (terminated or truncated):
        action = action_rng.uniform(low, high)
        actions_sum += float(np.sum(action))
        obs, reward, terminated, truncated, info = env.step(action)
        steps += 1
        total += float(reward)
        if steps <= PER_STEP:
            rewards.append(float(reward))
            sums.append(float(np.sum(obs)))
        if steps in ROW_STEPS:
            rows[str(steps)] = floats(obs)
    out.update(
        rewards=rewards,
        observation_sums=sums,
        rows=rows,
        episode_steps=steps,
        episode_return=total,
        terminated=bool(terminated),
        truncated=bool(truncated),
        last_discount=None if info["timestep.discount"] is None else float(info["timestep.discount"]),
        last_observation=floats(obs),
        actions_sum=actions_sum,
    )
    env.close()
    return out


def record_random_state():
    """Draws of NumPy's legacy RandomState for tests of envs/dm_control/random_state.ts."""
    out = []
    for seed in (0, 1, 12345, 2**32 - 1):
        r = np.random.RandomState(seed)
        out.append(
            {
                "seed": seed,
                "random_sample": floats(r.random_sample(5)),
                "uniform": floats(r.uniform(-2, 3, size=3)),
                "randn": floats(r.randn(5)),  # an odd count: the next randn comes from the cache
                "randn_after": float(r.randn()),
                "randint_7": [int(x) for x in r.randint(0, 7, size=5)],
                "randint_1000": [int(r.randint(3, 1000)) for _ in range(3)],
                "choice_4": [int(r.choice([0, 1, 2, 3])) for _ in range(3)],
                "random_sample_after_700": floats(r.random_sample(700)[-2:]),  # past one MT19937 regeneration
            }
        )
    array_seeded = np.random.RandomState([1, 2, 3])
    return {"int_seeds": out, "array_seed_1_2_3": floats(array_seeded.random_sample(3))}


def record_spline_zoom():
    """SciPy's ndimage.zoom of a random 30 x 30 bump map to 201 x 201, as quadruped escape builds its terrain."""
    from scipy import ndimage

    bumps = np.random.RandomState(5).uniform(0.15, 1, (30, 30))
    zoomed = ndimage.zoom(bumps, 201 / 30.0)
    picks = [(0, 0), (0, 1), (1, 0), (3, 198), (100, 57), (200, 0), (200, 200)] + [(7 * k, 13 * k) for k in range(1, 16)]
    return {
        "bumps_seed": 5,
        "shape": list(zoomed.shape),
        "samples": [[i, j, float(zoomed[i, j])] for i, j in picks],
        "row_100": floats(zoomed[100]),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("tasks", nargs="*", default=TASKS)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "random_state.json"), "w") as f:
        json.dump(record_random_state(), f, separators=(",", ":"))
    with open(os.path.join(args.out, "spline_zoom.json"), "w") as f:
        json.dump(record_spline_zoom(), f, separators=(",", ":"))
    for task_id in args.tasks:
        try:
            result = record(task_id, args.seed)
        except Exception as error:  # a task that cannot run here is reported, not fatal for the others
            print(f"{task_id}: FAILED {type(error).__name__}: {error}", file=sys.stderr)
            continue
        with open(os.path.join(args.out, f"{task_id}.json"), "w") as f:
            json.dump(result, f, separators=(",", ":"))
        print(f"{task_id}: {result['episode_steps']} steps, return {result['episode_return']:.6f}")
        if task_id.startswith("lqr-"):
            result = record(task_id, args.seed, task_random=args.seed)
            with open(os.path.join(args.out, f"{task_id}.model_seeded.json"), "w") as f:
                json.dump(result, f, separators=(",", ":"))
            print(f"{task_id} (model from seed {args.seed}): {result['episode_steps']} steps")


if __name__ == "__main__":
    main()
