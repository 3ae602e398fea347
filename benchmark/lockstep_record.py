# Records what CleanRL's own ppo_continuous_action.py draws and produces over a few whole iterations, so that
# tests/lockstep_continuous.test.ts can replay the same run with ppo_continuous_action.ts: the agent's only random
# numbers (initial weights, action noise, minibatch permutations) are taken from here, so the two runs must then
# coincide up to float32 rounding.
#
#   cd <scratch dir> && MUJOCO_GL=disable <CleanRL venv>/bin/python \
#     <repo>/benchmark/lockstep_record.py <CleanRL checkout>/cleanrl/ppo_continuous_action.py \
#     <repo>/tests/fixtures/lockstep/ppo_continuous_action_hopper.json
#
# The script runs unchanged (runpy, as `__main__`); hooks installed before it runs record:
# - every `torch.normal(mean, std)` (torch's `Normal.sample` under no_grad): the standard normal z it used, so
#   that the sample is mean + std * z;
# - every `np.random.shuffle` of the batch indices: the array after the shuffle;
# - the parameters when the optimizer is built (the initial ones) and when "charts/learning_rate" is logged (the
#   first scalar written after each iteration's update);
# - every `SummaryWriter.add_scalar` (tag, value, step) but the wall-clock SPS;
# - per minibatch step: the script's loss terms, clipfrac, the gradient norm before clipping and the log-std after
#   the step, to find the first step at which the two runs part.
# Arrays are base64 of little-endian float32 (int32 for the permutations).
import base64
import json
import runpy
import sys

import numpy as np
import torch
import torch.utils.tensorboard

ARGV = ["--env-id", "Hopper-v4", "--seed", "1", "--total-timesteps", "6144", "--num-envs", "1"]
# An optional third argument: other total timesteps, for a longer run than the fixture's.


def b64(array, dtype):
    return base64.b64encode(np.ascontiguousarray(array, dtype=dtype).tobytes()).decode("ascii")


def main(script, out_path):
    noise, permutations, snapshots, scalars = [], [], [], []
    agent_holder = {}

    def snapshot():
        agent = agent_holder["agent"]
        return {name: b64(p.detach().numpy(), "<f4") for name, p in agent.named_parameters()}

    real_normal = torch.normal

    def recording_normal(mean, std, *args, **kwargs):
        assert not args and not kwargs and isinstance(mean, torch.Tensor), "unexpected torch.normal call"
        z = torch.randn_like(mean)
        noise.append(z.detach().numpy().astype(np.float32).ravel())
        return mean + std * z

    torch.normal = recording_normal

    real_shuffle = np.random.shuffle

    def recording_shuffle(x):
        real_shuffle(x)
        permutations.append(np.array(x, dtype=np.int32))

    np.random.shuffle = recording_shuffle

    real_adam_init = torch.optim.Adam.__init__

    def recording_adam_init(self, params, *args, **kwargs):
        params = list(params)
        # The script's module globals hold the agent; its parameters are the ones handed to the optimizer.
        agent = sys._getframe(1).f_globals["agent"]
        assert [id(p) for p in agent.parameters()] == [id(p) for p in params]
        agent_holder["agent"] = agent
        snapshots.append(snapshot())
        real_adam_init(self, params, *args, **kwargs)

    torch.optim.Adam.__init__ = recording_adam_init

    # Per minibatch: the script's loss terms (module globals of `__main__`), the gradient norm before clipping and
    # the log-std after the step, to find the first step where two runs part.
    grad_norms = []
    real_clip = torch.nn.utils.clip_grad_norm_

    def recording_clip(*args, **kwargs):
        norm = real_clip(*args, **kwargs)
        grad_norms.append(float(norm))
        return norm

    torch.nn.utils.clip_grad_norm_ = recording_clip

    real_adam_step = torch.optim.Adam.step

    def recording_adam_step(self, *args, **kwargs):
        result = real_adam_step(self, *args, **kwargs)
        # torch wraps `step` in its profiling hook: the script's frame is further up.
        frame = sys._getframe(1)
        while "clipfracs" not in frame.f_globals:
            frame = frame.f_back
        g = frame.f_globals
        terms = [g["pg_loss"], g["v_loss"], g["entropy_loss"], g["old_approx_kl"], g["approx_kl"]]
        stats = [float(t) for t in terms] + [float(g["clipfracs"][-1]), grad_norms[-1]]
        steps.append(stats + agent_holder["agent"].actor_logstd.detach().numpy().ravel().tolist())
        return result

    steps = []
    torch.optim.Adam.step = recording_adam_step

    real_add_scalar = torch.utils.tensorboard.SummaryWriter.add_scalar

    def recording_add_scalar(self, tag, value, step=None, *args, **kwargs):
        if tag == "charts/learning_rate":
            snapshots.append(snapshot())
        # SPS is wall-clock; episodic returns arrive as 1-element arrays.
        if tag != "charts/SPS":
            scalars.append([tag, float(np.asarray(value).ravel()[0]), int(step)])
        return real_add_scalar(self, tag, value, step, *args, **kwargs)

    torch.utils.tensorboard.SummaryWriter.add_scalar = recording_add_scalar

    sys.argv = [script, *ARGV]
    runpy.run_path(script, run_name="__main__")
    torch.normal = real_normal
    np.random.shuffle = real_shuffle

    agent = agent_holder["agent"]
    record = {
        "command": "MUJOCO_GL=disable python benchmark/lockstep_record.py <cleanrl>/cleanrl/ppo_continuous_action.py "
        "tests/fixtures/lockstep/ppo_continuous_action_hopper.json  # runs ppo_continuous_action.py " + " ".join(ARGV),
        "argv": ARGV,
        "versions": {"torch": torch.__version__, "numpy": np.__version__},
        "parameter_shapes": {name: list(p.shape) for name, p in agent.named_parameters()},
        "noise": b64(np.concatenate(noise), "<f4"),
        "noise_calls": len(noise),
        "permutations": [b64(p, "<i4") for p in permutations],
        "parameters": snapshots,
        "scalars": scalars,
        # All float32 values (the loss terms and norm are float32 tensors' items, clipfrac k / 64).
        "steps_columns": ["pg_loss", "v_loss", "entropy", "old_approx_kl", "approx_kl", "clipfrac", "grad_norm"]
        + [f"actor_logstd[{i}]" for i in range(agent.actor_logstd.numel())],
        "steps": b64(np.array(steps, dtype=np.float64), "<f4"),
    }
    with open(out_path, "w") as f:
        json.dump(record, f)
        f.write("\n")


if __name__ == "__main__":
    if len(sys.argv) > 3:
        ARGV[ARGV.index("--total-timesteps") + 1] = sys.argv[3]
    main(sys.argv[1], sys.argv[2])
