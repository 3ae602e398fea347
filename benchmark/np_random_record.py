"""Records numpy's PCG64 Generator and Gymnasium's seeded streams for tests/np_random.test.ts.

    /work/scratch/curves/venv/bin/python benchmark/np_random_record.py --out tests/fixtures/np_random.json

Needs numpy 1.26 and gymnasium 0.29.1 (mujoco for the MuJoCo resets, ale-py for the Atari draws; each part is left
out when its package is missing). Long float streams are stored as the SHA-256 of their little-endian float64
bytes plus the first values; everything else as exact values (integers, or floats whose repr round-trips).
"""

import argparse
import hashlib
import json
import sys

import numpy as np
import gymnasium as gym
from gymnasium import spaces

COMMAND = "/work/scratch/curves/venv/bin/python benchmark/np_random_record.py --out tests/fixtures/np_random.json"
SEEDS = [0, 1, 42, 123456789, 2**53 - 1]
ENV_SEEDS = [0, 1, 42, 123456789]


def f64_digest(values):
    return hashlib.sha256(np.asarray(values, dtype="<f8").tobytes()).hexdigest()


def floats(values):
    return [float(v) for v in np.asarray(values).ravel()]


def gen(seed):
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))


def core():
    out = {}
    out["raw"] = [
        {"seed": s, "uint64": [str(int(v)) for v in gen(s).bit_generator.random_raw(8)]} for s in SEEDS
    ]
    big = 2**100 + 12345
    out["seed_sequence"] = [
        {"entropy": str(e), "words": [int(w) for w in np.random.SeedSequence(e).generate_state(8)]}
        for e in SEEDS + [2**32, 2**32 + 5, big]
    ]
    out["random"] = [{"seed": s, "values": floats(gen(s).random(10))} for s in SEEDS]
    g = gen(7)
    bounds = [(-0.05, 0.05), (0.0, 1.0), (-2.5, 10.0), (-1e6, 3.0)]
    out["uniform"] = {"seed": 7, "bounds": bounds, "values": [floats(g.uniform(lo, hi, size=5)) for lo, hi in bounds]}
    n = 50000
    out["standard_normal"] = []
    for s in [0, 3, 2**53 - 1]:
        g = gen(s)
        draws = g.standard_normal(n)
        after = g.random()
        out["standard_normal"].append(
            {"seed": s, "n": n, "sha256": f64_digest(draws), "first": floats(draws[:8]), "random_after": after}
        )
    g = gen(11)
    out["normal"] = {"seed": 11, "loc": 1.5, "scale": 0.25, "values": floats(g.normal(1.5, 0.25, size=6))}
    out["exponential"] = []
    for s in [0, 4]:
        g = gen(s)
        draws = g.exponential(size=n)
        out["exponential"].append(
            {"seed": s, "n": n, "sha256": f64_digest(draws), "first": floats(draws[:8]), "random_after": g.random()}
        )
    # integers with the default int64 dtype: ranges of 1, 2, small, 2^31, 2^32 (next_uint32 as is), above 2^32 (the
    # 64-bit Lemire path), each followed by one random() so the 32-bit buffer's state is part of what is compared.
    ranges = [(0, 1), (0, 2), (1, 31), (-9999, 9999), (0, 2**31), (0, 2**32), (3, 2**32 + 3 + 1), (0, 2**40 + 7), (-(2**52), 2**52)]
    g = gen(5)
    calls = []
    for lo, hi in ranges:
        calls.append({"low": lo, "high": hi, "values": [int(g.integers(lo, hi)) for _ in range(25)], "random_after": g.random()})
    out["integers"] = {"seed": 5, "calls": calls}
    g = gen(6)
    out["integers_int8"] = {
        "seed": 6,
        "calls": [[int(v) for v in g.integers(0, 2, size=k, dtype=np.int8)] for k in [13, 1, 4, 7]],
        "random_after": g.random(),
    }
    return out


def space_samples():
    inf = np.inf
    made = {
        "Discrete(5)": lambda: spaces.Discrete(5),
        "Discrete(3, start=-1)": lambda: spaces.Discrete(3, start=-1),
        "Box(-1, 2, (3,), float32)": lambda: spaces.Box(-1.0, 2.0, (3,), np.float32),
        "Box(mixed, float64)": lambda: spaces.Box(
            np.array([-inf, 0.0, -inf, -1.0, -inf, 2.0]), np.array([inf, inf, 0.5, 1.0, inf, inf]), dtype=np.float64
        ),
        "Box(mixed, float32)": lambda: spaces.Box(
            np.array([-1.0, -inf, 0.0], dtype=np.float32), np.array([1.0, inf, inf], dtype=np.float32), dtype=np.float32
        ),
        "Box(0, 10, (4,), int64)": lambda: spaces.Box(0, 10, (4,), np.int64),
        "MultiDiscrete([3, 5, 2])": lambda: spaces.MultiDiscrete([3, 5, 2]),
        "MultiBinary(7)": lambda: spaces.MultiBinary(7),
    }
    out = []
    for name, make in made.items():
        for s in [0, 7, 123]:
            space = make()
            space.seed(s)
            out.append({"space": name, "seed": s, "samples": [np.asarray(space.sample()).astype(float).tolist() for _ in range(5)]})
    return out


def env_resets():
    ids = ["CartPole-v1", "Acrobot-v1", "MountainCar-v0", "MountainCarContinuous-v0", "Pendulum-v1"]
    try:
        import mujoco  # noqa: F401

        ids += ["Hopper-v4", "HalfCheetah-v4", "Ant-v4", "Walker2d-v4", "Humanoid-v4", "Reacher-v4", "Pusher-v4",
                "InvertedPendulum-v4", "InvertedDoublePendulum-v4", "Swimmer-v4"]
    except ImportError:
        print("mujoco missing: MuJoCo resets left out", file=sys.stderr)
    out = []
    for env_id in ids:
        try:
            env = gym.make(env_id)
        except ValueError as error:  # Swimmer-v4's XML does not load in MuJoCo 3.x
            print(f"{env_id} left out: {error}", file=sys.stderr)
            continue
        for s in ENV_SEEDS:
            obs, _ = env.reset(seed=s)
            # A second, unseeded reset continues the same stream.
            obs2, _ = env.reset()
            out.append({"env": env_id, "seed": s, "obs": floats(obs), "next_reset_obs": floats(obs2)})
        env.close()
    return out


def rollouts():
    out = []
    env = gym.make("CartPole-v1")
    for s in [0, 42]:
        obs, _ = env.reset(seed=s)
        steps = [floats(obs)]
        for t in range(30):
            obs, reward, terminated, truncated, _ = env.step(t % 3 % 2)
            steps.append(floats(obs))
            if terminated:
                break
        out.append({"env": "CartPole-v1", "seed": s, "actions": "t % 3 % 2", "obs": steps})
    env.close()
    # Acrobot's torque noise draws from np_random at every step.
    env = gym.make("Acrobot-v1")
    env.unwrapped.torque_noise_max = 0.5
    obs, _ = env.reset(seed=3)
    steps = [floats(obs)]
    for t in range(20):
        obs, *_ = env.step(t % 3)
        steps.append(floats(obs))
    out.append({"env": "Acrobot-v1", "seed": 3, "torque_noise_max": 0.5, "actions": "t % 3", "obs": steps})
    env.close()
    try:
        import mujoco  # noqa: F401
    except ImportError:
        return out
    env = gym.make("Hopper-v4")
    obs, _ = env.reset(seed=0)
    steps = [floats(obs)]
    for t in range(20):
        action = np.array([0.5, -0.3, 0.2]) * (1 if t % 2 == 0 else -1)
        obs, *_ = env.step(action)
        steps.append(floats(obs))
    out.append({"env": "Hopper-v4", "seed": 0, "actions": "[0.5, -0.3, 0.2] * (t % 2 ? -1 : 1)", "obs": steps})
    env.close()
    return out


def atari_draws():
    """ale-py's seeding: reset(seed=S) seeds np_random from SeedSequence(S).generate_state(2)[0]."""
    try:
        import ale_py
        from ale_py.env import AtariEnv
    except ImportError:
        print("ale-py missing: Atari draws left out", file=sys.stderr)
        return None
    out = {"ale_py": ale_py.__version__, "draws": []}
    env = AtariEnv(game="breakout", frameskip=1, repeat_action_probability=0.0)
    for s in ENV_SEEDS:
        env.reset(seed=s)
        out["draws"].append({"seed": s, "noops": [int(env.np_random.integers(1, 31)) for _ in range(5)]})
    env.close()
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    fixture = {
        "command": COMMAND,
        "numpy": np.__version__,
        "gymnasium": gym.__version__,
        **core(),
        "spaces": space_samples(),
        "resets": env_resets(),
        "rollouts": rollouts(),
    }
    atari = atari_draws()
    if atari is not None:
        fixture["atari"] = atari
    with open(args.out, "w") as f:
        json.dump(fixture, f, indent=None, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
