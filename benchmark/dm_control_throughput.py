"""Env steps per second of dm_control suite tasks as CleanRL steps them (Shimmy's DmControlCompatibilityV0 in
Gymnasium's FlattenObservation), for comparison with benchmark/dm_control_throughput.ts.

Run through benchmark/dm_control_record.sh DMC DMENV SHIMMY SCRATCH --throughput [TASK ...].
"""

import sys
import time

import numpy as np

import gymnasium as gym
from dm_control import suite
from dm_control.mujoco import engine
from shimmy.dm_control_compatibility import DmControlCompatibilityV0

engine.Physics.contexts = property(lambda self: None)  # no renderer (see dm_control_record.py)

STEPS = 2000
TASKS = sys.argv[1:] or ["cartpole-balance", "cheetah-run", "walker-walk", "humanoid-run", "quadruped-walk"]

for task_id in TASKS:
    domain, task = task_id.split("-")
    env = gym.wrappers.FlattenObservation(DmControlCompatibilityV0(suite.load(domain, task)))
    rng = np.random.RandomState(0)
    actions = [rng.uniform(-1, 1, env.action_space.shape) for _ in range(1000)]
    env.reset(seed=0)
    start = time.perf_counter()
    for t in range(STEPS):
        _, _, terminated, truncated, _ = env.step(actions[t % len(actions)])
        if terminated or truncated:
            env.reset()
    elapsed = time.perf_counter() - start
    print(f"{task_id}: {STEPS / elapsed:.0f} steps/s")
    env.close()
