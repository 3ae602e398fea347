# Records CleanRL's PPO update for each variant as a small JSON fixture (tests/fixtures/cleanrl/<variant>.json) that
# tests/cleanrl_equivalence.test.ts replays with the TypeScript variant. Run through benchmark/cleanrl_record.sh,
# which says what it needs (PyTorch, a CleanRL checkout).
#
# The network is CleanRL's own `Agent` class, imported from its script (the scripts' env, logging and CLI imports
# are stubbed when absent: only the class is used). Its weights and the minibatch's observations and actions come
# from a formula both sides compute bit for bit (an integer hash, `hash_unit`), so no weight file is committed. The
# update is CleanRL's minibatch step as its scripts write it: PPO loss with the variant's defaults, backward,
# clip_grad_norm_, Adam(eps=1e-5). Everything runs twice, in float32 (what CleanRL trains in) and in float64: their
# difference is float32's own error on this batch, the yardstick the replay is held to. A variant marked `every_step`
# also gets, after every step, each tensor's change projected on PROJECTIONS hash vectors: sums that involve every
# entry, so a replay holds all the parameters to that yardstick step by step, not only 8 sampled entries.
import argparse
import importlib.util
import json
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

# CleanRL's scripts: minibatch shape, observation and action spaces of their default env.
VARIANTS = {
    "ppo": dict(script="ppo.py", obs_shape=(4,), actions=2),  # CartPole-v1
    "ppo_continuous_action": dict(script="ppo_continuous_action.py", obs_shape=(17,), action_dim=6),  # HalfCheetah-v4
    "ppo_atari": dict(script="ppo_atari.py", obs_shape=(4, 84, 84), actions=4),  # Breakout
    "ppo_atari_lstm": dict(script="ppo_atari_lstm.py", obs_shape=(1, 84, 84), actions=4),
    # Every step, every entry: state a two-process run keeps between steps (Adam's, the all-reduce's) shows from step 2.
    "ppo_atari_multigpu": dict(script="ppo_atari_multigpu.py", obs_shape=(4, 84, 84), actions=4, world_size=2, every_step=True),
    "ppo_pettingzoo_ma_atari": dict(script="ppo_pettingzoo_ma_atari.py", obs_shape=(84, 84, 6), actions=6),  # pong_v3
    # CleanRL's minibatch is 2048 IMPALA-CNN samples; 128 keep the replay inside the test suite's time budget.
    # Gain 1: with √2 the residual stacks blow the activations up (value −32, entropy 1e-5: an ill-conditioned batch).
    "ppo_procgen": dict(script="ppo_procgen.py", obs_shape=(64, 64, 3), actions=15, minibatch=128, gain=1.0),  # starpilot
}
STEPS = 4  # optimizer steps recorded; parameters are compared after the first and the last
SAMPLES = 8  # parameter entries sampled per tensor
FORWARD_SAMPLES = 32  # minibatch entries whose log-prob, entropy and value are kept
PROJECTIONS = 4  # `every_step` variants: hash vectors each tensor's change is projected on


def hash_unit(seed, n):
    """n values in [-1, 1), each k / 2^23 - 1 (exact in float32): murmur3's finalizer over (index, seed)."""
    i = np.arange(n, dtype=np.uint32)
    h = (i * np.uint32(0x9E3779B1)) ^ np.uint32(((seed + 1) * 0x85EBCA77) & 0xFFFFFFFF)
    h ^= h >> np.uint32(16)
    h *= np.uint32(0x85EBCA6B)
    h ^= h >> np.uint32(13)
    h *= np.uint32(0xC2B2AE35)
    h ^= h >> np.uint32(16)
    return (h >> np.uint32(8)).astype(np.float64) / 8388608.0 - 1.0


def hash_bytes(seed, n):
    return ((hash_unit(seed, n) + 1.0) * 128.0).astype(np.uint8)


def hash_ints(seed, n, high):
    return ((hash_unit(seed, n) + 1.0) * 4194304.0).astype(np.int64) % high


def projection_vector(tensor, j, n):
    """The j-th vector tensor number `tensor`'s change is projected on (torch's row-major order): hash_unit values."""
    return hash_unit(4000 + 16 * tensor + j, n)


def f32(values):
    """float32 values as the shortest decimals that round-trip (JSON)."""
    return [float("%.9g" % v) for v in np.asarray(values, dtype=np.float32).ravel()]


def placeholder(attr):
    """Any `from stub import Name` gets a bare class; dunder lookups (inspect, pickle) see a plain module."""
    if attr.startswith("__"):
        raise AttributeError(attr)
    return type(attr, (), {})


def stub_missing(names):
    """Empty modules for the scripts' imports this machine lacks (envs, tensorboard, CLI): the Agent needs none."""
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:
            parts = name.split(".")
            for k in range(1, len(parts) + 1):
                sub = ".".join(parts[:k])
                if sub not in sys.modules or k == len(parts):
                    mod = types.ModuleType(sub)
                    mod.__getattr__ = placeholder
                    sys.modules[sub] = mod
                if k > 1:
                    setattr(sys.modules[".".join(parts[: k - 1])], parts[k - 1], sys.modules[sub])


def load_script(path):
    stub_missing(["gymnasium", "gym", "tyro", "torch.utils.tensorboard", "cleanrl_utils.atari_wrappers", "rich.pretty", "procgen", "supersuit", "distutils.util"])
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cleanrl_args(module, variant):
    """The script's default hyperparameters (its tyro dataclass, or its argparse parser for the pettingzoo one)."""
    if hasattr(module, "Args"):
        a = module.Args()
    else:
        argv, sys.argv = sys.argv, [variant]
        a = module.parse_args()
        sys.argv = argv
    num_envs = getattr(a, "local_num_envs", None) or a.num_envs
    return dict(
        learning_rate=a.learning_rate, clip_coef=a.clip_coef, norm_adv=bool(a.norm_adv), clip_vloss=bool(a.clip_vloss),
        ent_coef=a.ent_coef, vf_coef=a.vf_coef, max_grad_norm=a.max_grad_norm, adam_eps=1e-5,
        minibatch_size=num_envs * a.num_steps // a.num_minibatches, num_steps=a.num_steps, num_minibatches=a.num_minibatches,
    )


def make_agent(module, spec):
    obs_space = types.SimpleNamespace(shape=spec["obs_shape"])
    if "action_dim" in spec:
        action_space = types.SimpleNamespace(shape=(spec["action_dim"],))
    else:
        action_space = types.SimpleNamespace(n=spec["actions"], shape=())
    envs = types.SimpleNamespace(single_observation_space=obs_space, single_action_space=action_space)
    return module.Agent(envs)


def parameter_pattern(agent, weight_gain):
    """Seed and scale of each parameter's formula: weights uniform with variance gain² / fan_in, biases ±0.1."""
    out = []
    for k, (name, p) in enumerate(agent.named_parameters()):
        shape = list(p.shape)
        if name == "actor_logstd":
            scale = 0.3
        elif name.endswith("bias") or "bias_" in name:
            scale = 0.1
        else:
            gain = 1.0 if "lstm" in name else weight_gain
            scale = gain * np.sqrt(3.0 / int(np.prod(shape[1:])))
        numel = int(np.prod(shape))
        sample = sorted(set(int(i) for i in hash_ints(3000 + k, SAMPLES, numel)))
        out.append(dict(name=name, shape=shape, seed=k, scale=float(scale), sample=sample))
    return out


def set_parameters(agent, pattern, dtype):
    with torch.no_grad():
        for (name, p), spec in zip(agent.named_parameters(), pattern):
            values = (hash_unit(spec["seed"], p.numel()) * spec["scale"]).astype(np.float32)
            p.copy_(torch.tensor(values, dtype=dtype).reshape(p.shape))


def observations(variant, spec, seed, n):
    shape = (n, *spec["obs_shape"])
    size = int(np.prod(shape))
    if len(spec["obs_shape"]) == 1:
        return (hash_unit(seed, size) * 2.0).astype(np.float32).reshape(shape)
    obs = hash_bytes(seed, size).reshape(shape).astype(np.float32)
    if variant == "ppo_pettingzoo_ma_atari":
        # channels 4-5: the agent indicator (one-hot), 0/1 where the frames are bytes
        obs[:, :, :, 4] = np.arange(n)[:, None, None] % 2
        obs[:, :, :, 5] = 1 - obs[:, :, :, 4]
    return obs


def minibatch_inputs(variant, spec, rank, n):
    """What the formula gives: observations, actions, and (LSTM) dones and the initial state."""
    seed = 1000 + 100 * rank
    mb = dict(obs_seed=seed, obs=observations(variant, spec, seed, n))
    if "action_dim" in spec:
        mb["actions_seed"] = seed + 1
        mb["actions"] = (hash_unit(seed + 1, n * spec["action_dim"]) * 1.5).astype(np.float32).reshape(n, spec["action_dim"])
    else:
        mb["actions_seed"] = seed + 1
        mb["actions"] = hash_ints(seed + 1, n, spec["actions"])
    if variant == "ppo_atari_lstm":
        envs = 2
        steps = n // envs
        dones = np.zeros((steps, envs), dtype=np.float32)
        # env 0: a new episode mid-sequence; env 1: at the first step (its non-zero initial state is dropped) and
        # on two consecutive steps
        dones[37, 0] = dones[0, 1] = dones[80, 1] = dones[81, 1] = 1
        mb["dones"] = dones.ravel()
        mb["initial_state_seed"] = seed + 2
        state = (hash_unit(seed + 2, 2 * envs * 128) * 0.5).astype(np.float32).reshape(2, 1, envs, 128)
        mb["initial_state"] = state
    return mb


def forward(agent, variant, mb, dtype):
    obs = torch.tensor(mb["obs"], dtype=dtype)
    if np.asarray(mb["actions"]).dtype.kind == "f":
        actions = torch.tensor(mb["actions"], dtype=dtype)
    else:
        actions = torch.tensor(mb["actions"], dtype=torch.long)
    if variant == "ppo_atari_lstm":
        state = tuple(torch.tensor(s, dtype=dtype) for s in mb["initial_state"])
        _, logprob, entropy, value, _ = agent.get_action_and_value(obs, state, torch.tensor(mb["dones"], dtype=dtype), actions)
    else:
        _, logprob, entropy, value = agent.get_action_and_value(obs, actions)
    return logprob, entropy, value.view(-1)


def rollout_values(variant, spec, agent64, mb, rank):
    """The rollout's stored quantities, near the network's own outputs so that clipping is active on some samples."""
    with torch.no_grad():
        logprob, _, value = forward(agent64, variant, mb, torch.float64)
    n = logprob.shape[0]
    seed = 2000 + 100 * rank
    mb["logprobs"] = (logprob.numpy() + 0.3 * hash_unit(seed, n)).astype(np.float32)
    mb["values"] = (value.numpy() + 0.3 * hash_unit(seed + 1, n)).astype(np.float32)
    mb["returns"] = (mb["values"] + hash_unit(seed + 2, n) + 0.2).astype(np.float32)
    mb["advantages"] = (hash_unit(seed + 3, n) + 0.3).astype(np.float32)


def ppo_loss(agent, variant, mb, a, dtype):
    """CleanRL's minibatch loss, as its update loop computes it."""
    newlogprob, entropy, newvalue = forward(agent, variant, mb, dtype)
    t = lambda x: torch.tensor(x, dtype=dtype)
    logratio = newlogprob - t(mb["logprobs"])
    ratio = logratio.exp()
    with torch.no_grad():
        old_approx_kl = (-logratio).mean()
        approx_kl = ((ratio - 1) - logratio).mean()
        clipfrac = ((ratio - 1.0).abs() > a["clip_coef"]).to(dtype).mean()
    mb_advantages = t(mb["advantages"])
    if a["norm_adv"]:
        mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)
    pg_loss1 = -mb_advantages * ratio
    pg_loss2 = -mb_advantages * torch.clamp(ratio, 1 - a["clip_coef"], 1 + a["clip_coef"])
    pg_loss = torch.max(pg_loss1, pg_loss2).mean()
    returns, values = t(mb["returns"]), t(mb["values"])
    if a["clip_vloss"]:
        v_loss_unclipped = (newvalue - returns) ** 2
        v_clipped = values + torch.clamp(newvalue - values, -a["clip_coef"], a["clip_coef"])
        v_loss_clipped = (v_clipped - returns) ** 2
        v_loss = 0.5 * torch.max(v_loss_unclipped, v_loss_clipped).mean()
    else:
        v_loss = 0.5 * ((newvalue - returns) ** 2).mean()
    entropy_loss = entropy.mean()
    loss = pg_loss - a["ent_coef"] * entropy_loss + v_loss * a["vf_coef"]
    terms = [pg_loss, v_loss, entropy_loss, old_approx_kl, approx_kl, clipfrac]
    return loss, [float(x.detach()) for x in terms]


def record(module, variant, spec, a, pattern, mbs, dtype):
    torch.manual_seed(0)
    agent = make_agent(module, spec)
    if dtype == torch.float64:
        agent = agent.double()
    set_parameters(agent, pattern, dtype)
    params = list(agent.parameters())
    initial = [p.detach().clone().double() for p in params]
    out = dict(forward=[], steps=[], after={})
    with torch.no_grad():
        for mb in mbs:
            logprob, entropy, value = forward(agent, variant, mb, dtype)
            n = logprob.shape[0]
            idx = list(range(0, n, max(1, n // FORWARD_SAMPLES)))[:FORWARD_SAMPLES]
            out["forward"].append(dict(
                index=idx,
                logprob=[float(logprob[i]) for i in idx], entropy=[float(entropy[i]) for i in idx], value=[float(value[i]) for i in idx],
                logprob_sum=float(logprob.double().sum()), entropy_sum=float(entropy.double().sum()), value_sum=float(value.double().sum()),
            ))
    optimizer = optim.Adam(agent.parameters(), lr=a["learning_rate"], eps=1e-5)
    for step in range(1, STEPS + 1):
        rank_terms = []
        rank_grads = []
        for mb in mbs:
            optimizer.zero_grad()
            loss, terms = ppo_loss(agent, variant, mb, a, dtype)
            loss.backward()
            rank_terms.append(terms)
            rank_grads.append(torch.cat([p.grad.view(-1) for p in params]))
        if len(mbs) > 1:
            # ppo_atari_multigpu.py: one all_reduce(SUM) over the flattened gradients, divided by the world size
            all_grads = torch.stack(rank_grads).sum(0) / len(mbs)
            offset = 0
            for p in params:
                p.grad.data.copy_(all_grads[offset : offset + p.numel()].view_as(p.grad.data))
                offset += p.numel()
        grad_norm = nn.utils.clip_grad_norm_(agent.parameters(), a["max_grad_norm"])
        optimizer.step()
        out["steps"].append(dict(terms=rank_terms, grad_norm=float(grad_norm)))
        if step in (1, STEPS) or spec.get("every_step"):
            deltas = [(p.detach().double() - p0).view(-1) for p, p0 in zip(params, initial)]
            after = dict(
                delta_sum=[float(d.sum()) for d in deltas],
                delta_abs_sum=[float(d.abs().sum()) for d in deltas],
                delta_sample=[[float(d[i]) for i in spec_p["sample"]] for d, spec_p in zip(deltas, pattern)],
            )
            if spec.get("every_step"):
                after["delta_norm"] = [float(d.norm()) for d in deltas]
                after["delta_projection"] = [
                    [float(d @ torch.tensor(projection_vector(k, j, d.numel()))) for j in range(PROJECTIONS)]
                    for k, d in enumerate(deltas)
                ]
            out["after"][str(step)] = after
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cleanrl-dir", required=True, help="a CleanRL checkout (its cleanrl/ folder holds the scripts)")
    parser.add_argument("--out-dir", required=True)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    opts = parser.parse_args()
    torch.set_num_threads(1)
    cleanrl_dir = Path(opts.cleanrl_dir)
    try:
        commit = subprocess.run(["git", "-C", str(cleanrl_dir), "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    except Exception:
        commit = (cleanrl_dir / "COMMIT").read_text().strip() if (cleanrl_dir / "COMMIT").exists() else "unknown"
    for variant in opts.variants.split(","):
        spec = VARIANTS[variant]
        module = load_script(cleanrl_dir / "cleanrl" / spec["script"])
        a = cleanrl_args(module, variant)
        n = spec.get("minibatch", a["minibatch_size"])
        ranks = spec.get("world_size", 1)
        agent64 = make_agent(module, spec).double()
        pattern = parameter_pattern(agent64, spec.get("gain", np.sqrt(2.0)))
        set_parameters(agent64, pattern, torch.float64)
        mbs = []
        for rank in range(ranks):
            mb = minibatch_inputs(variant, spec, rank, n)
            rollout_values(variant, spec, agent64, mb, rank)
            mbs.append(mb)
        result = dict(
            variant=variant,
            cleanrl_commit=commit,
            torch=torch.__version__,
            hyperparameters=a,
            minibatch_size=n,
            world_size=ranks,
            spaces={k: spec[k] for k in ("obs_shape", "actions", "action_dim") if k in spec},
            parameters=pattern,
            minibatches=[
                {k: (f32(v) if k in ("logprobs", "values", "returns", "advantages", "dones") else v) for k, v in mb.items() if k not in ("obs", "actions", "initial_state")}
                for mb in mbs
            ],
            float32=record(module, variant, spec, a, pattern, mbs, torch.float32),
            float64=record(module, variant, spec, a, pattern, mbs, torch.float64),
        )
        path = Path(opts.out_dir) / f"{variant}.json"
        path.write_text(json.dumps(result, separators=(",", ":")) + "\n")
        print(f"{variant}: {path} ({path.stat().st_size // 1024} KiB), grad norm float32 {result['float32']['steps'][0]['grad_norm']:.7g}, float64 {result['float64']['steps'][0]['grad_norm']:.7g}")


if __name__ == "__main__":
    main()
