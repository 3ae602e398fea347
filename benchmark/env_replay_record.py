# Records what the env stack of CleanRL's own ppo_continuous_action.py is fed and gives out over a whole training
# run, so that benchmark/env_replay_check.ts can feed the same actions to ppo_continuous_action.ts's env stack and
# compare. Where benchmark/wrapper_stream_record.ts drives the stacks with N(0, 1) actions, here the actions are
# those of a policy as it trains, which reach the states of a late run: long episodes and 1000-step truncations.
#
#   mkdir -p OUT && cd OUT && MUJOCO_GL=disable <CleanRL venv>/bin/python \
#     <repo>/benchmark/env_replay_record.py <CleanRL checkout>/cleanrl/ppo_continuous_action.py OUT [TOTAL_TIMESTEPS]
#
# The script runs unchanged (runpy, as `__main__`: Hopper-v4, seed 1, one env, 1M steps unless TOTAL_TIMESTEPS is
# given; its runs/ folder lands in the working directory); hooks installed before it runs record:
# - per vector-env step (SyncVectorEnv.step): the action batch as the script hands it over (float32, before
#   ClipAction), then the observation after autoreset, reward, terminated, truncated and, where an episode ended,
#   the final observation;
# - the vector env's reset: its seed and observation;
# - per step of the env under the wrappers (TimeLimit.step, the outermost layer of `gym.make`): the MuJoCo state
#   before the step (qpos, qvel, qacc_warmstart: everything mj_step reads that Hopper changes) and the raw
#   observation and reward after it, so that a difference found above the wrappers can be placed in the physics or
#   in the wrappers, and each step can be replayed from the recorded state on its own;
# - every reset of that env: its raw observation.
# Files (little-endian, row-major; `steps` rows unless said): actions.f32 [act], obs.f64 [obs], rewards.f64,
# flags.u8 (bit 0 terminated, bit 1 truncated), final_obs.f64 [episodes, obs], reset_obs.f64 [obs],
# inner.f64 [nq + 2 nv + obs + 1], inner_resets.f64 [resets, obs], meta.json (written last: a run cut short has none).
#
#   MUJOCO_GL=disable <CleanRL venv>/bin/python <repo>/benchmark/env_replay_record.py --one-step OUT
# checks that a recorded state is all a step depends on: Gymnasium's own Hopper, put into each recorded state before
# the step and stepped once with the recorded action clipped, must give the recorded raw observation and reward to
# the last bit (env_replay_check.ts's one-step replay does the same on our MuJoCo).
import json
import os
import runpy
import sys

import gymnasium
import mujoco
import numpy as np
import torch

ARGV = ["--env-id", "Hopper-v4", "--seed", "1", "--total-timesteps", "1000000", "--num-envs", "1"]


def main(script, out_dir, total_timesteps=None):
    if total_timesteps is not None:
        ARGV[ARGV.index("--total-timesteps") + 1] = str(int(total_timesteps))
    os.makedirs(out_dir, exist_ok=True)
    names = ["actions.f32", "obs.f64", "rewards.f64", "flags.u8", "final_obs.f64", "reset_obs.f64", "inner.f64"]
    files = {name: open(os.path.join(out_dir, name), "wb") for name in names + ["inner_resets.f64"]}
    counts = {"steps": 0, "episodes": 0, "terminations": 0, "truncations": 0, "inner_steps": 0, "inner_resets": 0}
    meta = {}

    vector_env = gymnasium.vector.SyncVectorEnv
    real_reset, real_step = vector_env.reset, vector_env.step

    def recording_reset(self, *, seed=None, options=None):
        obs, infos = real_reset(self, seed=seed, options=options)
        assert self.num_envs == 1 and "reset_seed" not in meta, "one env, reset once"
        meta["reset_seed"] = seed
        files["reset_obs.f64"].write(np.ascontiguousarray(obs[0], "<f8").tobytes())
        return obs, infos

    def recording_step(self, actions):
        actions = np.asarray(actions)
        assert actions.dtype == np.float32 and actions.shape[0] == 1, f"unexpected actions {actions.dtype}"
        files["actions.f32"].write(np.ascontiguousarray(actions[0], "<f4").tobytes())
        obs, rewards, terminations, truncations, infos = real_step(self, actions)
        assert obs.dtype == np.float64 and rewards.dtype == np.float64
        files["obs.f64"].write(np.ascontiguousarray(obs[0], "<f8").tobytes())
        files["rewards.f64"].write(np.ascontiguousarray(rewards[:1], "<f8").tobytes())
        terminated, truncated = bool(terminations[0]), bool(truncations[0])
        files["flags.u8"].write(bytes([int(terminated) | int(truncated) << 1]))
        ended = "final_observation" in infos and infos["_final_observation"][0]
        assert ended == (terminated or truncated)
        if ended:
            files["final_obs.f64"].write(np.ascontiguousarray(infos["final_observation"][0], "<f8").tobytes())
            counts["episodes"] += 1
        counts["steps"] += 1
        counts["terminations"] += terminated
        counts["truncations"] += truncated and not terminated
        return obs, rewards, terminations, truncations, infos

    vector_env.reset, vector_env.step = recording_reset, recording_step

    time_limit = gymnasium.wrappers.TimeLimit
    real_inner_reset, real_inner_step = time_limit.reset, time_limit.step

    def recording_inner_reset(self, **kwargs):
        obs, info = real_inner_reset(self, **kwargs)
        files["inner_resets.f64"].write(np.ascontiguousarray(obs, "<f8").tobytes())
        counts["inner_resets"] += 1
        return obs, info

    def recording_inner_step(self, action):
        data = self.unwrapped.data
        before = np.concatenate([data.qpos, data.qvel, data.qacc_warmstart])
        obs, reward, terminated, truncated, info = real_inner_step(self, action)
        files["inner.f64"].write(np.concatenate([before, obs, [reward]]).astype("<f8").tobytes())
        counts["inner_steps"] += 1
        if "nq" not in meta:
            model = self.unwrapped.model
            meta.update(nq=int(model.nq), nv=int(model.nv), obsDim=int(obs.shape[0]), actDim=int(len(action)))
        return obs, reward, terminated, truncated, info

    time_limit.reset, time_limit.step = recording_inner_reset, recording_inner_step

    sys.argv = [script, *ARGV]
    runpy.run_path(script, run_name="__main__")
    vector_env.reset, vector_env.step = real_reset, real_step
    time_limit.reset, time_limit.step = real_inner_reset, real_inner_step
    for f in files.values():
        f.close()

    meta.update(
        command="MUJOCO_GL=disable python benchmark/env_replay_record.py <cleanrl>/cleanrl/ppo_continuous_action.py "
        f"{out_dir} {ARGV[ARGV.index('--total-timesteps') + 1]}  # runs ppo_continuous_action.py " + " ".join(ARGV),
        argv=ARGV,
        envId=ARGV[ARGV.index("--env-id") + 1],
        gamma=0.99,
        versions={
            "gymnasium": gymnasium.__version__,
            "mujoco": mujoco.__version__,
            "numpy": np.__version__,
            "torch": torch.__version__,
        },
        innerColumns="qpos, qvel, qacc_warmstart before the step; observation, reward after it",
        **counts,
    )
    with open(os.path.join(out_dir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    print(f"{out_dir}: {counts['steps']} steps, {counts['episodes']} episodes ({counts['truncations']} truncated)")


def one_step(out_dir):
    meta = json.load(open(os.path.join(out_dir, "meta.json")))
    nq, nv, obs_dim = meta["nq"], meta["nv"], meta["obsDim"]
    inner = np.fromfile(os.path.join(out_dir, "inner.f64"), "<f8").reshape(meta["steps"], -1)
    actions = np.fromfile(os.path.join(out_dir, "actions.f32"), "<f4").reshape(meta["steps"], meta["actDim"])
    env = gymnasium.make(meta["envId"])
    env.reset(seed=meta["reset_seed"])
    clip = gymnasium.wrappers.ClipAction(env)
    hopper = env.unwrapped
    same = 0
    for t in range(meta["steps"]):
        state = inner[t]
        hopper.data.qpos[:] = state[:nq]
        hopper.data.qvel[:] = state[nq : nq + nv]
        hopper.data.qacc_warmstart[:] = state[nq + nv : nq + 2 * nv]
        obs, reward, *_ = hopper.step(clip.action(actions[t]))
        raw = state[nq + 2 * nv :]
        same += bool(np.array_equal(obs, raw[:obs_dim]) and reward == raw[obs_dim])
    print(f"{out_dir}: {same} of {meta['steps']} steps identical to the last bit when stepped from the recorded state")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--one-step":
        one_step(sys.argv[2])
        sys.exit(0)
    if len(sys.argv) not in (3, 4):
        raise SystemExit(
            "usage: env_replay_record.py CLEANRL_PPO_CONTINUOUS_ACTION_PY OUT_DIR [TOTAL_TIMESTEPS]\n"
            "       env_replay_record.py --one-step OUT_DIR"
        )
    main(*sys.argv[1:])
