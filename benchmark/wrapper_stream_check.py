"""Replays a stream from benchmark/wrapper_stream_record.ts through CleanRL's own env stack and compares outputs.

    MUJOCO_GL=disable python benchmark/wrapper_stream_check.py DIR CLEANRL_SCRIPT

CLEANRL_SCRIPT is CleanRL's ppo_continuous_action.py (its `make_env` builds the stack: RecordEpisodeStatistics,
ClipAction, NormalizeObservation, clip, NormalizeReward, clip), run on Gymnasium 0.29.1 (CleanRL's pin; the venv of
benchmark/cleanrl_side.sh). A registered env replays what ours' stack was fed: each reset returns the next recorded
reset observation, each step checks that the action it receives is the recorded (clipped) one and returns the next
recorded step. SyncVectorEnv autoresets as 0.29 does. Prints the largest differences between our vector env's
outputs (observation, reward, flags, final observation) and Gymnasium's, and where the first one above 1e-9 is.
Then, as a check of the env under the stack, the episodes of the recorded (ours) env beside as many steps of
Gymnasium's own env under the same kind of actions (N(0, 1) per component, clipped; its own seed): episode length
and return, mean and standard error.
"""

import importlib.util
import json
import os
import sys
import warnings

# Before gymnasium's import: its plugin loader warns about the venv's optional dm_control extras.
warnings.filterwarnings("ignore")

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402


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

    env = gym.make(meta["envId"], max_episode_steps=meta["maxEpisodeSteps"])
    rng = np.random.default_rng(meta["seed"])
    env.reset(seed=meta["seed"])
    theirs = []
    for _ in range(steps):
        action = np.clip(rng.standard_normal(act_dim).astype(np.float32), -1, 1)
        _, reward, terminated, truncated, _ = env.step(action)
        theirs.append((reward, terminated, truncated))
        if terminated or truncated:
            env.reset()
    ours = inner_steps[:, act_dim + obs_dim :]
    print(f"episodes under N(0, 1) actions, {steps} steps each side (mean ± standard error):")
    for name, stream in (("ours", ours), ("Gymnasium", np.array(theirs, dtype=np.float64))):
        lengths, returns = episode_statistics(stream)
        print(
            f"  {name}: {len(lengths)} episodes, length {lengths.mean():.2f} ± {sem(lengths):.2f}, "
            f"return {returns.mean():.2f} ± {sem(returns):.2f}"
        )


def episode_statistics(stream):
    """Lengths and returns of the episodes that end in a stream of (reward, terminated, truncated) rows."""
    lengths, returns, length, total = [], [], 0, 0.0
    for reward, terminated, truncated in stream:
        length, total = length + 1, total + reward
        if terminated or truncated:
            lengths.append(length)
            returns.append(total)
            length, total = 0, 0.0
    return np.array(lengths), np.array(returns)


def sem(values):
    return values.std(ddof=1) / np.sqrt(len(values))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2])
