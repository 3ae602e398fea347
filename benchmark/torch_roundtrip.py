"""The PyTorch half of benchmark/torch_roundtrip.ts: CleanRL's own Agent classes and our safetensors checkpoints.

    python benchmark/torch_roundtrip.py --cleanrl-dir DIR --work DIR

Run by torch_roundtrip.ts (which says how) with a Python that has torch (CPU) and safetensors; a reference to check
against, never a dependency of the project. For each case the .ts side wrote into --work:
    <case>.ours.safetensors   our checkpoint (parameters under CleanRL's names, plus optimizer.* entries)
    <case>.io.safetensors     an input batch and our agent's logits (or action means) and values on it
this script
  1. takes `layer_init`, `Agent` (and procgen's `ResidualBlock`, `ConvSequence`) from CleanRL's script in
     --cleanrl-dir, by their source (CleanRL's scripts import gymnasium, tyro, tensorboard... at the top, which a
     state dict does not need), and builds the Agent for the case's spaces;
  2. loads our checkpoint with `agent.load_state_dict(..., strict=True)` (the optimizer.* entries left out), runs
     the input through CleanRL's forward code and records the largest difference from our outputs;
  3. seeds torch, builds a fresh Agent, saves its `state_dict()` as <case>.cleanrl.safetensors and its outputs on
     the same input as <case>.cleanrl_io.safetensors, for the .ts side to load into ours.
Prints one JSON line: {case: {"max_abs_diff": ..., "keys": ...}}.
"""

import argparse
import ast
import json
import os
import types

import numpy as np
import torch
import torch.nn as nn
from safetensors.torch import load_file, save_file
from torch.distributions.categorical import Categorical
from torch.distributions.normal import Normal

# case -> (CleanRL script, the definitions taken from it)
SCRIPTS = {
    "ppo": ("ppo.py", ["layer_init", "Agent"]),
    "ppo_atari": ("ppo_atari.py", ["layer_init", "Agent"]),
    "ppo_continuous_action": ("ppo_continuous_action.py", ["layer_init", "Agent"]),
    "ppo_atari_lstm": ("ppo_atari_lstm.py", ["layer_init", "Agent"]),
    "ppo_procgen": ("ppo_procgen.py", ["layer_init", "ResidualBlock", "ConvSequence", "Agent"]),
    "ppo_pettingzoo_ma_atari": ("ppo_pettingzoo_ma_atari.py", ["layer_init", "Agent"]),
}


def cleanrl_definitions(cleanrl_dir, script, names):
    """The named top-level functions and classes of CleanRL's script, executed with torch, nn and numpy in scope."""
    path = os.path.join(cleanrl_dir, "cleanrl", script)
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    nodes = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name in names]
    missing = set(names) - {n.name for n in nodes}
    if missing:
        raise SystemExit(f"error: {path} has no {', '.join(sorted(missing))}")
    scope = {"torch": torch, "nn": nn, "np": np, "Categorical": Categorical, "Normal": Normal}
    exec(compile(ast.Module(body=nodes, type_ignores=[]), path, "exec"), scope)
    return scope


def spaces(obs_shape, n=None, action_shape=None):
    """The `envs` CleanRL's Agent reads: single_observation_space.shape and single_action_space.n (or .shape)."""
    action = types.SimpleNamespace(n=n, shape=action_shape)
    return types.SimpleNamespace(single_observation_space=types.SimpleNamespace(shape=obs_shape), single_action_space=action)


# case -> (envs stub, forward(agent, x) -> (logits or action mean, value)), with CleanRL's own preprocessing
def forward_ppo(agent, x):
    return agent.actor(x), agent.get_value(x)


def forward_atari(agent, x):
    hidden = agent.network(x / 255.0)
    return agent.actor(hidden), agent.critic(hidden)


def forward_continuous(agent, x):
    return agent.actor_mean(x), agent.get_value(x)


def forward_lstm(agent, x):
    n = x.shape[0]
    state = (torch.zeros(1, n, agent.lstm.hidden_size), torch.zeros(1, n, agent.lstm.hidden_size))
    hidden, _ = agent.get_states(x, state, torch.zeros(n))
    return agent.actor(hidden), agent.critic(hidden)


def forward_procgen(agent, x):
    hidden = agent.network(x.permute((0, 3, 1, 2)) / 255.0)
    return agent.actor(hidden), agent.critic(hidden)


def forward_pettingzoo(agent, x):
    x = x.clone()
    x[:, :, :, [0, 1, 2, 3]] /= 255.0
    hidden = agent.network(x.permute((0, 3, 1, 2)))
    return agent.actor(hidden), agent.critic(hidden)


CASES = {
    "ppo": (spaces((4,), n=2), forward_ppo),
    "ppo_atari": (spaces((4, 84, 84), n=4), forward_atari),
    "ppo_continuous_action": (spaces((17,), action_shape=(6,)), forward_continuous),
    "ppo_atari_lstm": (spaces((1, 84, 84), n=4), forward_lstm),
    "ppo_procgen": (spaces((64, 64, 3), n=15), forward_procgen),
    "ppo_pettingzoo_ma_atari": (spaces((84, 84, 6), n=6), forward_pettingzoo),
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cleanrl-dir", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--cases", default=",".join(CASES))
    args = parser.parse_args()
    results = {}
    for case in args.cases.split(","):
        script, names = SCRIPTS[case]
        scope = cleanrl_definitions(args.cleanrl_dir, script, names)
        envs, forward = CASES[case]
        io = load_file(os.path.join(args.work, f"{case}.io.safetensors"))
        x = io["input"].float()
        # 2. ours into CleanRL's Agent
        agent = scope["Agent"](envs)
        state = {k: v for k, v in load_file(os.path.join(args.work, f"{case}.ours.safetensors")).items() if not k.startswith("optimizer.")}
        agent.load_state_dict(state, strict=True)
        with torch.no_grad():
            logits, value = forward(agent, x)
        diff = max((logits - io["logits"]).abs().max().item(), (value.flatten() - io["value"].flatten()).abs().max().item())
        if case == "ppo_continuous_action":
            diff = max(diff, (agent.actor_logstd - io["logstd"]).abs().max().item())
        # 3. a fresh CleanRL Agent's state dict, and its outputs, for ours
        torch.manual_seed(1)
        fresh = scope["Agent"](envs)
        save_file(fresh.state_dict(), os.path.join(args.work, f"{case}.cleanrl.safetensors"))
        with torch.no_grad():
            logits, value = forward(fresh, x)
        out = {"logits": logits.contiguous(), "value": value.flatten().contiguous()}
        if case == "ppo_continuous_action":
            out["logstd"] = fresh.actor_logstd.detach().clone()
        save_file(out, os.path.join(args.work, f"{case}.cleanrl_io.safetensors"))
        results[case] = {"max_abs_diff": diff, "keys": len(state), "torch": torch.__version__}
    print(json.dumps(results))


if __name__ == "__main__":
    main()
