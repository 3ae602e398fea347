"""The reference row of benchmark/backends.ts: the same PPO workloads in PyTorch, as CleanRL runs them.

    python benchmark/backends_torch.py [--only cnn-forward,cnn-update,impala-update,mlp-update,sps] [--reps 3]
        [--impala-batch 2048] [--iterations 20] [--cleanrl-dir DIR] [--device cpu|cuda]

Run it with a Python that has torch (CPU) and numpy, e.g. a scratch venv (`python -m venv /tmp/torch-venv &&
/tmp/torch-venv/bin/pip install torch numpy`); it is a reference to measure against, never a dependency of the
project. `npx tsx benchmark/backends.ts --torch /tmp/torch-venv/bin/python` runs it as one more row of its table.

The networks, losses and optimizer steps are CleanRL's (ppo_atari.py's Nature CNN, ppo_procgen.py's IMPALA CNN,
ppo.py's two MLPs; PPO's clipped loss with advantage normalisation and clipped value loss, global-norm clipping at
0.5, Adam with eps 1e-5), timed like backends.ts: the mean over --reps runs after one warm-up run. `sps` runs
CleanRL's own ppo_atari.py from --cleanrl-dir (it needs gymnasium and ale-py besides) for --iterations iterations
and reports the last SPS it prints. Prints one JSON line {"backend", "label", "results"} (ms, or SPS for sps).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn as nn

WORKLOADS = ["cnn-forward", "cnn-update", "impala-update", "mlp-update", "sps"]
DEVICE = torch.device("cpu")  # --device; CleanRL's `device`, where agent and minibatch live


def init(layer, std=np.sqrt(2), bias=0.0):
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias)
    return layer


class NatureAgent(nn.Module):
    def __init__(self, n_actions):
        super().__init__()
        self.network = nn.Sequential(
            init(nn.Conv2d(4, 32, 8, stride=4)), nn.ReLU(),
            init(nn.Conv2d(32, 64, 4, stride=2)), nn.ReLU(),
            init(nn.Conv2d(64, 64, 3, stride=1)), nn.ReLU(),
            nn.Flatten(), init(nn.Linear(64 * 7 * 7, 512)), nn.ReLU(),
        )
        self.actor = init(nn.Linear(512, n_actions), std=0.01)
        self.critic = init(nn.Linear(512, 1), std=1)

    def hidden(self, x):
        return self.network(x / 255.0)


class Residual(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv0 = nn.Conv2d(channels, channels, 3, padding=1)
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x):
        return x + self.conv1(torch.relu(self.conv0(torch.relu(x))))


def conv_sequence(c_in, c_out):
    return nn.Sequential(nn.Conv2d(c_in, c_out, 3, padding=1), nn.MaxPool2d(3, stride=2, padding=1), Residual(c_out), Residual(c_out))


class ImpalaAgent(nn.Module):
    def __init__(self, n_actions):
        super().__init__()
        self.network = nn.Sequential(
            conv_sequence(3, 16), conv_sequence(16, 32), conv_sequence(32, 32),
            nn.Flatten(), nn.ReLU(), nn.Linear(32 * 8 * 8, 256), nn.ReLU(),
        )
        self.actor = init(nn.Linear(256, n_actions), std=0.01)
        self.critic = init(nn.Linear(256, 1), std=1)

    def hidden(self, x):
        return self.network(x.permute(0, 3, 1, 2) / 255.0)  # procgen frames are HWC


class MlpAgent(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.critic_net = nn.Sequential(init(nn.Linear(obs_dim, 64)), nn.Tanh(), init(nn.Linear(64, 64)), nn.Tanh(), init(nn.Linear(64, 1), std=1.0))
        self.actor_net = nn.Sequential(init(nn.Linear(obs_dim, 64)), nn.Tanh(), init(nn.Linear(64, 64)), nn.Tanh(), init(nn.Linear(64, n_actions), std=0.01))

    def heads(self, x):
        return self.actor_net(x), self.critic_net(x)


def heads(agent, x):
    if isinstance(agent, MlpAgent):
        return agent.heads(x)
    h = agent.hidden(x)
    return agent.actor(h), agent.critic(h)


def ppo_step(agent, optimizer, mb, clip_coef, ent_coef=0.01, vf_coef=0.5, max_grad_norm=0.5):
    """One CleanRL minibatch step: clipped surrogate, clipped value loss, entropy bonus, clip_grad_norm_, Adam."""
    logits, value = heads(agent, mb["obs"])
    dist = torch.distributions.Categorical(logits=logits)
    newlogprob, entropy, newvalue = dist.log_prob(mb["actions"]), dist.entropy(), value.view(-1)
    logratio = newlogprob - mb["logprobs"]
    ratio = logratio.exp()
    with torch.no_grad():
        approx_kl = ((ratio - 1) - logratio).mean()
    adv = mb["advantages"]
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    pg_loss = torch.max(-adv * ratio, -adv * torch.clamp(ratio, 1 - clip_coef, 1 + clip_coef)).mean()
    v_unclipped = (newvalue - mb["returns"]) ** 2
    v_clipped = mb["values"] + torch.clamp(newvalue - mb["values"], -clip_coef, clip_coef)
    v_loss = 0.5 * torch.max(v_unclipped, (v_clipped - mb["returns"]) ** 2).mean()
    loss = pg_loss - ent_coef * entropy.mean() + v_loss * vf_coef
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(agent.parameters(), max_grad_norm)
    optimizer.step()
    return approx_kl.item()


def timed(reps, f):
    f()
    t0 = time.perf_counter()
    for _ in range(reps):
        f()
    return (time.perf_counter() - t0) / reps * 1000


def fields(n, n_actions, rng):
    f = lambda: torch.tensor(rng.standard_normal(n), dtype=torch.float32)
    fs = {"actions": torch.tensor(rng.integers(0, n_actions, n)), "logprobs": 0.1 * f() - 1.4, "advantages": f(), "returns": f(), "values": f()}
    return {k: v.to(DEVICE) for k, v in fs.items()}


def cnn_forward(reps):
    rng = np.random.default_rng(1)
    agent = NatureAgent(4).to(DEVICE)
    obs = rng.integers(0, 256, (8, 4, 84, 84), dtype=np.uint8)

    def act():  # the rollout step of ppo_atari.py: numpy frames in, sampled actions out
        with torch.no_grad():
            logits, value = heads(agent, torch.Tensor(obs).to(DEVICE))
            dist = torch.distributions.Categorical(logits=logits)
            action = dist.sample()
            return action.cpu().numpy(), dist.log_prob(action).cpu().numpy(), value.cpu().numpy()

    return timed(reps, act)


def cnn_update(reps):
    rng = np.random.default_rng(2)
    agent = NatureAgent(4).to(DEVICE)
    opt = torch.optim.Adam(agent.parameters(), lr=2.5e-4, eps=1e-5)
    mb = {"obs": torch.tensor(rng.integers(0, 256, (256, 4, 84, 84)), dtype=torch.float32).to(DEVICE), **fields(256, 4, rng)}
    return timed(reps, lambda: ppo_step(agent, opt, mb, 0.1))


def impala_update(reps, batch):
    rng = np.random.default_rng(4)
    agent = ImpalaAgent(15).to(DEVICE)
    opt = torch.optim.Adam(agent.parameters(), lr=5e-4, eps=1e-5)
    mb = {"obs": torch.tensor(rng.integers(0, 256, (batch, 64, 64, 3)), dtype=torch.float32).to(DEVICE), **fields(batch, 15, rng)}
    return timed(reps, lambda: ppo_step(agent, opt, mb, 0.2))


def mlp_update(reps):
    rng = np.random.default_rng(3)
    agent = MlpAgent(4, 2).to(DEVICE)
    opt = torch.optim.Adam(agent.parameters(), lr=2.5e-4, eps=1e-5)
    mb = {"obs": torch.tensor(rng.standard_normal((128, 4)), dtype=torch.float32).to(DEVICE), **fields(128, 2, rng)}
    return timed(max(reps, 20), lambda: ppo_step(agent, opt, mb, 0.2))


def sps(iterations, cleanrl_dir):
    if cleanrl_dir is None:
        return "skipped (no --cleanrl-dir)"
    cmd = [sys.executable, "ppo_atari.py", "--total-timesteps", str(iterations * 8 * 128)]
    r = subprocess.run(cmd, cwd=cleanrl_dir, capture_output=True, text=True)
    found = re.findall(r"SPS: (\d+)", r.stdout)
    if r.returncode != 0 or not found:
        return "failed (" + (r.stderr.strip().splitlines() or [""])[-1][:80] + ")"
    return int(found[-1])


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", default=",".join(WORKLOADS))
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--impala-batch", type=int, default=2048)
    p.add_argument("--iterations", type=int, default=20)
    p.add_argument("--cleanrl-dir", default=None, help="a folder with CleanRL's ppo_atari.py, for sps")
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"], help="where the networks run (every workload reads its result back, which synchronises)")
    a = p.parse_args()
    global DEVICE
    DEVICE = torch.device(a.device)
    results = {}
    for w in a.only.split(","):
        if w not in WORKLOADS:
            p.error(f"unknown workload {w}")
        if w == "cnn-forward":
            results[w] = cnn_forward(a.reps)
        elif w == "cnn-update":
            results[w] = cnn_update(a.reps)
        elif w == "impala-update":
            results[w] = impala_update(a.reps, a.impala_batch)
        elif w == "mlp-update":
            results[w] = mlp_update(a.reps)
        else:
            results[w] = sps(a.iterations, a.cleanrl_dir)
        print(f"  torch {w}: {results[w]}", file=sys.stderr)
    where = f"CUDA, {torch.cuda.get_device_name()}" if DEVICE.type == "cuda" else f"CPU, {torch.get_num_threads()} threads"
    label = f"PyTorch {torch.__version__} ({where})"
    print(json.dumps({"backend": "torch", "label": label, "results": results}))


if __name__ == "__main__":
    main()
