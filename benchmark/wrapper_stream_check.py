"""Replays a stream from benchmark/wrapper_stream_record.ts through CleanRL's own env stack and compares outputs.

    python benchmark/wrapper_stream_check.py DIR CLEANRL_SCRIPT

CLEANRL_SCRIPT is CleanRL's ppo_continuous_action.py (its `make_env` builds the stack: RecordEpisodeStatistics,
ClipAction, NormalizeObservation, clip, NormalizeReward, clip), run on Gymnasium 0.29.1 (CleanRL's pin; the venv of
benchmark/cleanrl_side.sh). A registered env replays what ours' stack was fed: each reset returns the next recorded
reset observation, each step checks that the action it receives is the recorded (clipped) one and returns the next
recorded step. SyncVectorEnv autoresets as 0.29 does. Prints the largest differences between our vector env's
outputs (observation, reward, flags, final observation) and Gymnasium's, and where the first one above 1e-9 is.
"""

import importlib.util
import json
import os
import sys
import warnings

import gymnasium as gym
import numpy as np

warnings.filterwarnings("ignore")


def final_difference(final, ours_final) -> float:
    """Largest difference of the final observations; infinite where only one side ended an episode."""
    ours_ended = not np.isnan(ours_final).all()
    if final is None or not ours_ended:
        return np.inf if (final is not None) != ours_ended else 0.0
    return float(np.abs(final - ours_final).max())


def main(stream_dir: str, cleanrl_script: str) -> None:
    meta = json.load(open(os.path.join(stream_dir, "meta.json")))
    obs_dim, act_dim, steps = meta["obsDim"], meta["actDim"], meta["steps"]

    def load(name, width):
        return np.fromfile(os.path.join(stream_dir, name), dtype="<f8").reshape(-1, width)

    inner_resets = load("inner_resets.f64", obs_dim)
    inner_steps = load("inner_steps.f64", act_dim + obs_dim + 3)
    actions = load("actions.f64", act_dim).astype(np.float32)
    outer_reset = load("outer_reset.f64", obs_dim)[0]
    outer = load("outer_steps.f64", 2 * obs_dim + 3)

    class Replay(gym.Env):
        observation_space = gym.spaces.Box(-np.inf, np.inf, (obs_dim,), np.float64)
        action_space = gym.spaces.Box(-1.0, 1.0, (act_dim,), np.float32)

        def __init__(self):
            self.resets = iter(inner_resets)
            self.steps = iter(inner_steps)

        def reset(self, seed=None, options=None):
            super().reset(seed=seed)
            return next(self.resets).copy(), {}

        def step(self, action):
            row = next(self.steps)
            if not np.array_equal(np.asarray(action, np.float32), row[:act_dim].astype(np.float32)):
                raise SystemExit(f"ClipAction differs: Gymnasium sent {action}, ours {row[:act_dim]}")
            obs = row[act_dim : act_dim + obs_dim].copy()
            reward, terminated, truncated = row[act_dim + obs_dim :]
            return obs, float(reward), bool(terminated), bool(truncated), {}

    gym.register("ReplayedStream-v0", entry_point=Replay, max_episode_steps=None, disable_env_checker=True)
    spec = importlib.util.spec_from_file_location("cleanrl_ppo_continuous_action", cleanrl_script)
    cleanrl = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cleanrl)
    envs = gym.vector.SyncVectorEnv([cleanrl.make_env("ReplayedStream-v0", 0, False, "replay", meta["gamma"])])

    obs, _ = envs.reset(seed=meta["seed"])
    worst = {"reset observation": np.abs(obs[0] - outer_reset).max()}
    diffs = {"observation": [], "reward": [], "flags": [], "final observation": []}
    first_bad = None
    truncations = terminations = 0
    for t in range(steps):
        obs, reward, terminated, truncated, infos = envs.step(actions[t : t + 1])
        ours = outer[t]
        final = infos["final_observation"][0] if "final_observation" in infos else None
        ours_final = ours[obs_dim + 3 :]
        d = {
            "observation": np.abs(obs[0] - ours[:obs_dim]).max(),
            "reward": abs(reward[0] - ours[obs_dim]) / max(1.0, abs(ours[obs_dim])),
            "flags": float(terminated[0] != ours[obs_dim + 1] or truncated[0] != ours[obs_dim + 2]),
            "final observation": final_difference(final, ours_final),
        }
        truncations += int(truncated[0] and not terminated[0])
        terminations += int(terminated[0])
        for k, v in d.items():
            diffs[k].append(v)
        if first_bad is None and max(d.values()) > 1e-9:
            first_bad = (t, {k: float(v) for k, v in d.items()})
    for k, v in diffs.items():
        worst[k] = float(np.max(v))
    print(f"{steps} steps, {terminations} terminations, {truncations} truncations")
    print("largest difference, ours vs Gymnasium 0.29.1 (reward relative):")
    for k, v in worst.items():
        print(f"  {k}: {v:.3g}")
    late = slice(steps // 2, steps)
    print(f"  observation, second half of the stream: {np.max(diffs['observation'][late]):.3g}")
    print(f"first step with a difference above 1e-9: {first_bad}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2])
