# How far apart float32 and float64 put CleanRL's ppo_atari_multigpu.py gradients on the recorded fixture's
# minibatches (benchmark/cleanrl_record.py's weights and data), and how much of that is ReLUs whose input lies within
# float32 rounding of 0: each minibatch's gradient at the initial weights in float64, in float32, and in float32 with
# every ReLU taking float64's decision (active or not). Also counts the ReLU inputs x with |x| < 2^-24 · Σ|terms|
# (the size of float32's rounding of that input), the ones float32 may put on the other side of 0.
#   PYTHON=/path/to/venv/bin/python; $PYTHON benchmark/relu_kinks.py --cleanrl-dir /path/to/cleanrl
import argparse
import sys
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).parent))
import cleanrl_record as R  # noqa: E402


class Trunk(nn.Module):
    """CleanRL's `network` (the Nature CNN) with every ReLU taking its decision from `masks` (one per ReLU)."""

    def __init__(self, network, masks):
        super().__init__()
        self.network, self.masks = network, masks

    def forward(self, x):
        k = 0
        for layer in self.network:
            if isinstance(layer, nn.ReLU):
                x, k = x * self.masks[k], k + 1
            else:
                x = layer(x)
        return x


def relu_inputs(network, x):
    """Each ReLU's input and Σ|terms| of the sums that made it (the scale of their float32 rounding)."""
    out = []
    for layer in network:
        if isinstance(layer, nn.Conv2d):
            size = F.conv2d(x.abs(), layer.weight.abs(), layer.bias.abs(), layer.stride)
        elif isinstance(layer, nn.Linear):
            size = F.linear(x.abs(), layer.weight.abs(), layer.bias.abs())
        elif isinstance(layer, nn.ReLU):
            out.append((x, size))
        x = layer(x)
    return out


def gradient(agent, mb, a, dtype, masks=None):
    """The flat gradient of CleanRL's minibatch loss (cleanrl_record.ppo_loss), ReLUs decided by `masks` if given."""
    agent.zero_grad()
    network = agent.network
    if masks is not None:
        agent.network = Trunk(network, masks)
    loss, _ = R.ppo_loss(agent, "ppo_atari_multigpu", mb, a, dtype)
    loss.backward()
    agent.network = network
    return torch.cat([p.grad.detach().double().view(-1) for p in agent.parameters()])


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cleanrl-dir", required=True)
    opts = parser.parse_args()
    torch.set_num_threads(1)
    variant = "ppo_atari_multigpu"
    spec = R.VARIANTS[variant]
    module = R.load_script(Path(opts.cleanrl_dir) / "cleanrl" / spec["script"])
    a = R.cleanrl_args(module, variant)
    agents = {}
    for dtype in (torch.float32, torch.float64):
        agent = R.make_agent(module, spec).to(dtype)
        pattern = R.parameter_pattern(agent, np.sqrt(2.0))
        R.set_parameters(agent, pattern, dtype)
        agents[dtype] = agent
    names = [n for n, _ in agents[torch.float64].named_parameters()]
    sizes = [p.numel() for p in agents[torch.float64].parameters()]
    for rank in range(spec["world_size"]):
        mb = R.minibatch_inputs(variant, spec, rank, a["minibatch_size"])
        R.rollout_values(variant, spec, agents[torch.float64], mb, rank)
        with torch.no_grad():
            inputs = relu_inputs(agents[torch.float64].network, torch.tensor(mb["obs"], dtype=torch.float64) / 255.0)
        masks64 = [(x > 0).to(torch.float32) for x, _ in inputs]
        near = [int((x.abs() < size * 2.0**-24).sum()) for x, size in inputs]
        g64 = gradient(agents[torch.float64], mb, a, torch.float64)
        g32 = gradient(agents[torch.float32], mb, a, torch.float32)
        g32_masked = gradient(agents[torch.float32], mb, a, torch.float32, masks64)
        worst = lambda g: max(
            (float((g[o : o + s] - g64[o : o + s]).norm() / g64[o : o + s].norm()), n)
            for n, o, s in zip(names, np.cumsum([0] + sizes[:-1]), sizes)
        )
        print(f"minibatch {rank}: ReLU inputs within float32 rounding of 0, per ReLU: {near}")
        print(f"  float32 gradient vs float64, worst tensor (relative ℓ2): {worst(g32)[0]:.1e} ({worst(g32)[1]})")
        print(f"  the same with float64's ReLU decisions:                 {worst(g32_masked)[0]:.1e} ({worst(g32_masked)[1]})")


if __name__ == "__main__":
    main()
