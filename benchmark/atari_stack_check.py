"""Replays a recording of benchmark/atari_stack_record.ts through CleanRL's own Atari env stack and compares.

    <CleanRL venv>/bin/python benchmark/atari_stack_check.py DIR <CleanRL checkout>/cleanrl/ppo_atari.py [--fixture F]

The stack is ppo_atari.py's own `make_env` (the script is loaded without running its `__main__` block): ale-py's
NoFrameskip-v4 env, cleanrl_utils's NoopReset, MaxAndSkip, EpisodicLife, FireReset and ClipReward, Gymnasium's
ResizeObservation (cv2, INTER_AREA), GrayScaleObservation and FrameStack, on Gymnasium 0.29.1 (CleanRL's pin; the
venv of benchmark/cleanrl_side.sh). A SyncVectorEnv of the recording's number of envs is reset once with its seed
and fed its actions. Per step the whole observation batch's SHA-1, the clipped rewards, the terminated and
truncated flags and the finished games' returns and lengths must equal the recording's. Prints the first
difference and exits 1 at the first step that differs, else prints what was compared and exits 0.
With --fixture F, a run that matched writes F: the recording's settings with one SHA-1 over CleanRL's side of it
(its observation digests, one hex per line, then its rewards as float32 and its flags as bytes) and CleanRL's games,
which tests/atari_stack_cleanrl.test.ts requires of ours.
"""

import hashlib
import json
import os
import runpy
import sys
import warnings

# Before gymnasium's import: its plugin loader warns about the venv's optional extras.
warnings.filterwarnings("ignore")

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
from ale_py.registration import register_v0_v4_envs  # noqa: E402


def main(rec_dir: str, cleanrl_script: str, fixture: str | None) -> int:
    meta = json.load(open(os.path.join(rec_dir, "meta.json")))
    n, steps = meta["numEnvs"], meta["steps"]
    actions = np.fromfile(os.path.join(rec_dir, "actions.u8"), np.uint8).reshape(steps, n)
    rewards = np.fromfile(os.path.join(rec_dir, "rewards.f32"), np.float32).reshape(steps, n)
    flags = np.fromfile(os.path.join(rec_dir, "flags.u8"), np.uint8).reshape(steps, n)
    digests = open(os.path.join(rec_dir, "obs.sha1")).read().split()
    episodes = {(e["step"], e["env"]): (e["r"], e["l"]) for e in json.load(open(os.path.join(rec_dir, "episodes.json")))}

    register_v0_v4_envs()
    # ppo_atari.py imports cleanrl_utils from the checkout's root, as when run from there.
    checkout = os.path.dirname(os.path.dirname(os.path.abspath(cleanrl_script)))
    sys.path.insert(0, checkout)
    # CleanRL's scripts keep their training under `if __name__ == "__main__"`: loading one defines make_env only.
    make_env = runpy.run_path(cleanrl_script, run_name="cleanrl_script")["make_env"]
    envs = gym.vector.SyncVectorEnv([make_env(meta["envId"], i, False, "atari-stack-check") for i in range(n)])

    def sha1(obs) -> str:
        return hashlib.sha1(np.ascontiguousarray(obs, dtype=np.uint8).tobytes()).hexdigest()

    obs, _ = envs.reset(seed=meta["seed"])
    if sha1(obs) != digests[0]:
        print(f"the reset observations differ (shape {np.asarray(obs).shape})")
        return 1
    theirs_digests, theirs_rewards, theirs_flags, theirs_games = [sha1(obs)], [], [], []
    for t in range(steps):
        obs, reward, terminated, truncated, infos = envs.step(actions[t].astype(np.int64))
        what = []
        theirs_digests.append(sha1(obs))
        theirs_rewards.append(np.asarray(reward, np.float32))
        theirs_flags.append(np.asarray(terminated, np.uint8) | (np.asarray(truncated, np.uint8) << 1))
        if theirs_digests[-1] != digests[t + 1]:
            what.append("observation")
        if not np.array_equal(theirs_rewards[-1], rewards[t]):
            what.append(f"reward {list(reward)} against {list(rewards[t])}")
        if not np.array_equal(theirs_flags[-1], flags[t]):
            what.append(f"flags {list(theirs_flags[-1])} against {list(flags[t])}")
        for e, info in enumerate(infos.get("final_info", [None] * n)):
            theirs = (float(info["episode"]["r"][0]), int(info["episode"]["l"][0])) if info and "episode" in info else None
            if theirs != episodes.get((t, e)):
                what.append(f"env {e}'s game {theirs} against {episodes.get((t, e))}")
            if theirs is not None:
                theirs_games.append({"step": t, "env": e, "r": theirs[0], "l": theirs[1]})
        if what:
            print(f"step {t} (actions {list(actions[t])}) differs: {'; '.join(what)}")
            return 1
    returns = [r for r, _ in episodes.values()]
    print(
        f"{steps} steps of {n} envs ({steps * n} env steps, {int((flags & 1).sum())} terminations including lost lives,"
        f" {int((flags & 2).sum())} truncations, {len(theirs_games)} games, returns mean {np.mean(returns) if returns else 0:.2f},"
        f" max {max(returns, default=0):.0f}): every observation, reward, flag and game equal to the recording"
    )
    if fixture:
        whole = hashlib.sha1(("\n".join(theirs_digests) + "\n").encode())
        whole.update(np.stack(theirs_rewards).astype("<f4").tobytes())
        whole.update(np.stack(theirs_flags).astype(np.uint8).tobytes())
        versions = {m: __import__(m).__version__ for m in ("gymnasium", "ale_py", "cv2", "numpy")}
        cleanrl_commit = os.path.join(checkout, "COMMIT")
        if os.path.exists(cleanrl_commit):
            versions["cleanrl"] = open(cleanrl_commit).read().strip()
        record = {
            "made_by": "benchmark/atari_stack_record.ts, then benchmark/atari_stack_check.py --fixture",
            **{k: meta[k] for k in ("envId", "numEnvs", "steps", "seed", "policy", "epsilon")},
            "versions": versions,
            "digest": whole.hexdigest(),
            "games": theirs_games,
        }
        with open(fixture, "w") as f:
            json.dump(record, f, indent=1)
            f.write("\n")
        print(f"wrote {fixture}")
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    fixture_path = None
    if len(args) == 4 and args[2] == "--fixture":
        fixture_path = args[3]
        args = args[:2]
    if len(args) != 2:
        sys.exit("usage: python benchmark/atari_stack_check.py DIR CLEANRL_PPO_ATARI_PY [--fixture F]")
    sys.exit(main(*args, fixture_path))
