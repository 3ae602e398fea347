# Writes the .cleanrl_model fixtures of tests/cleanrl_model.test.ts: files made by CleanRL's own code paths, read
# back by envs/torch/torch_pickle.ts and envs/torch/flax_msgpack.ts without Python.
#
#   python3 -m venv /tmp/cm-venv && /tmp/cm-venv/bin/pip install torch numpy jax flax msgpack
#   /tmp/cm-venv/bin/python benchmark/cleanrl_model_record.py --cleanrl-dir CLEANRL_CHECKOUT --out-dir tests/fixtures/cleanrl_model
#
# For each of the six PPO networks (ppo.py's MLP, ppo_continuous_action.py's Gaussian MLP, ppo_atari.py's Nature
# CNN, ppo_atari_lstm.py's CNN + LSTM, ppo_pettingzoo_ma_atari.py's 6-channel CNN, ppo_procgen.py's IMPALA CNN):
# CleanRL's `Agent` (imported from its script as benchmark/cleanrl_record.py does), its parameters from the integer
# hash formula of cleanrl_record.py repeated with a period of PERIOD values (so that gzip shrinks the megabytes of
# the CNNs to kilobytes; PERIOD is prime, so no layer's rows line up with it), `torch.save(agent.state_dict())` as
# `ppo_continuous_action.py --save-model` does, gzipped. Beside it, the minibatch formula's log-probabilities,
# entropies and values from `agent.get_action_and_value` in float32 and float64 (their difference is float32's
# own error, the test's yardstick).
#
# For ppo_atari_envpool_xla_jax_scan.py (CleanRL's published Atari agents): its Network, Actor and Critic (flax),
# parameters from the same formula, written as its `--save-model` writes them:
# `flax.serialization.to_bytes([vars(args), [network_params, actor_params, critic_params]])`, and the logits and
# values of its `network.apply` / `actor.apply` / `critic.apply` on the Nature-CNN observations of the formula.
#
# And two files the readers must refuse: `torch.save` of a whole nn.Linear, and a float64 state dict.
import argparse
import gzip
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cleanrl_record as cr  # noqa: E402

PERIOD = 251
TORCH_VARIANTS = {
    "ppo": 8,
    "ppo_continuous_action": 8,
    "ppo_atari": 8,
    # the recorder's LSTM minibatch puts episode starts at steps 37, 80 and 81 of 2 envs: 2 × 128 samples
    "ppo_atari_lstm": 256,
    "ppo_pettingzoo_ma_atari": 8,
    "ppo_procgen": 8,
}
FLAX_SAMPLES = 8
FLAX_OBS_SEED = 1000


def periodic(seed, n, scale):
    return (np.resize(cr.hash_unit(seed, PERIOD), n) * scale).astype(np.float32)


def write_gz(path, data):
    path.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))


def record_torch(cleanrl_dir, out_dir, variant, n, commit):
    import torch

    spec = cr.VARIANTS[variant]
    module = cr.load_script(cleanrl_dir / "cleanrl" / spec["script"])
    agent = cr.make_agent(module, spec)
    pattern = cr.parameter_pattern(agent, spec.get("gain", np.sqrt(2.0)))
    with torch.no_grad():
        for (name, p), pat in zip(agent.named_parameters(), pattern):
            p.copy_(torch.tensor(periodic(pat["seed"], p.numel(), pat["scale"])).reshape(p.shape))
    model = out_dir / f"{variant}.cleanrl_model"
    torch.save(agent.state_dict(), model)
    write_gz(out_dir / f"{variant}.cleanrl_model.gz", model.read_bytes())
    model.unlink()
    mb = cr.minibatch_inputs(variant, spec, 0, n)
    outputs = {}
    for label, dtype in (("float32", torch.float32), ("float64", torch.float64)):
        agent_t = agent.to(dtype)
        with torch.no_grad():
            logprob, entropy, value = cr.forward(agent_t, variant, mb, dtype)
        outputs[label] = dict(logprob=logprob.tolist(), entropy=entropy.tolist(), value=value.tolist())
    agent.float()
    result = dict(
        variant=variant,
        cleanrl_commit=commit,
        torch=torch.__version__,
        period=PERIOD,
        minibatch_size=n,
        spaces={k: spec[k] for k in ("obs_shape", "actions", "action_dim") if k in spec},
        parameters=[dict(name=p["name"], shape=p["shape"], seed=p["seed"], scale=p["scale"]) for p in pattern],
        minibatch={k: v for k, v in mb.items() if k.endswith("_seed")},
        **outputs,
    )
    (out_dir / f"{variant}.json").write_text(json.dumps(result, separators=(",", ":")) + "\n")
    print(f"{variant}: {(out_dir / f'{variant}.cleanrl_model.gz').stat().st_size // 1024} KiB gzipped")


def record_flax(cleanrl_dir, out_dir, commit):
    import flax
    import jax
    import jax.numpy as jnp

    cr.stub_missing(["envpool"])
    module = cr.load_script(cleanrl_dir / "cleanrl" / "ppo_atari_envpool_xla_jax_scan.py")
    args = module.Args()
    actions = 4  # Breakout-v5's minimal action set, the script's default env
    obs = jnp.zeros((1, 4, 84, 84), dtype=jnp.float32)
    network, actor, critic = module.Network(), module.Actor(action_dim=actions), module.Critic()
    key = jax.random.PRNGKey(0)
    network_params = network.init(key, obs)
    hidden = network.apply(network_params, obs)
    actor_params = actor.init(key, hidden)
    critic_params = critic.init(key, hidden)
    # Every leaf from the formula, in the order of its path (module name, then "kernel"/"bias").
    layout = []
    seed = 0

    def fill(tree, prefix):
        nonlocal seed
        out = {}
        for name in sorted(tree):
            leaf = tree[name]
            if isinstance(leaf, dict) or hasattr(leaf, "keys"):
                out[name] = fill(dict(leaf), f"{prefix}/{name}")
                continue
            shape = tuple(leaf.shape)
            fan_in = int(np.prod(shape[:-1])) if name == "kernel" else 1
            scale = 0.1 if name == "bias" else float(np.sqrt(2.0) * np.sqrt(3.0 / fan_in))
            out[name] = jnp.asarray(periodic(seed, int(np.prod(shape)), scale).reshape(shape))
            layout.append(dict(path=f"{prefix}/{name}", shape=list(shape), seed=seed, scale=scale))
            seed += 1
        return out

    network_params = fill(dict(network_params), "network")
    actor_params = fill(dict(actor_params), "actor")
    critic_params = fill(dict(critic_params), "critic")
    data = flax.serialization.to_bytes([vars(args), [network_params, actor_params, critic_params]])
    write_gz(out_dir / "ppo_atari_envpool_xla_jax_scan.cleanrl_model.gz", data)
    frames = cr.hash_bytes(FLAX_OBS_SEED, FLAX_SAMPLES * 4 * 84 * 84).reshape(FLAX_SAMPLES, 4, 84, 84)
    outputs = {}
    for label, dtype in (("float32", jnp.float32), ("float64", jnp.float64)):
        cast = lambda tree: jax.tree_util.tree_map(lambda x: x.astype(dtype), tree)  # noqa: E731
        h = network.apply(cast(network_params), jnp.asarray(frames, dtype=dtype))
        logits = actor.apply(cast(actor_params), h)
        value = critic.apply(cast(critic_params), h)
        outputs[label] = dict(logits=np.asarray(logits).tolist(), value=np.asarray(value).ravel().tolist())
    result = dict(
        script="ppo_atari_envpool_xla_jax_scan.py",
        cleanrl_commit=commit,
        flax=flax.__version__,
        jax=jax.__version__,
        period=PERIOD,
        actions=actions,
        env_id=args.env_id,
        parameters=layout,
        obs_seed=FLAX_OBS_SEED,
        samples=FLAX_SAMPLES,
        **outputs,
    )
    (out_dir / "ppo_atari_envpool_xla_jax_scan.json").write_text(json.dumps(result, separators=(",", ":")) + "\n")
    size = (out_dir / "ppo_atari_envpool_xla_jax_scan.cleanrl_model.gz").stat().st_size // 1024
    print(f"ppo_atari_envpool_xla_jax_scan: {size} KiB gzipped")


def record_foreign(out_dir):
    """Two torch.save files that are not a float32 state dict: a whole module (pickled by class), float64 tensors."""
    import torch
    import torch.nn as nn

    torch.manual_seed(0)
    torch.save(nn.Linear(2, 1), out_dir / "module.cleanrl_model")
    torch.save(nn.Linear(2, 1).double().state_dict(), out_dir / "float64.cleanrl_model")
    print("module.cleanrl_model, float64.cleanrl_model")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cleanrl-dir", required=True, help="a CleanRL checkout (its cleanrl/ folder holds the scripts)")
    parser.add_argument("--out-dir", required=True)
    parser.add_argument("--variants", default=",".join([*TORCH_VARIANTS, "ppo_atari_envpool_xla_jax_scan", "foreign"]))
    opts = parser.parse_args()
    cleanrl_dir = Path(opts.cleanrl_dir)
    out_dir = Path(opts.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    try:
        commit = subprocess.run(["git", "-C", str(cleanrl_dir), "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    except Exception:
        commit = "unknown"
    import jax

    jax.config.update("jax_enable_x64", True)
    for variant in opts.variants.split(","):
        if variant == "ppo_atari_envpool_xla_jax_scan":
            record_flax(cleanrl_dir, out_dir, commit)
        elif variant == "foreign":
            record_foreign(out_dir)
        else:
            record_torch(cleanrl_dir, out_dir, variant, TORCH_VARIANTS[variant], commit)


if __name__ == "__main__":
    main()
