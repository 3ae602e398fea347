#!/usr/bin/env bash
# CleanRL's own PPO scripts on this machine, for the side-by-side learning curves of benchmark/curves.ts.
#   bash benchmark/cleanrl_side.sh setup
#   bash benchmark/cleanrl_side.sh setup-dm-control     (after setup; only for the dm_control/<domain>-<task>-v0 ids)
#   bash benchmark/cleanrl_side.sh run SCRIPT ENV_ID SEED TOTAL_TIMESTEPS RUN_PARENT [EXTRA_FLAGS...]
# `setup` builds, under $CURVES_DIR (default /work/scratch/curves):
#   venv/          Python 3.11 venv: the local torch CPU wheel ($TORCH_WHEEL), Gymnasium 0.29.1 built from its git
#                  source (CleanRL's pin: 1.x changed autoreset and renamed the wrappers ppo_atari.py uses), numpy
#                  1.26 (Gymnasium 0.29 predates numpy 2), mujoco and ale-py from the package mirror, tensorboard
#                  for torch's SummaryWriter, and tyro, or, when the mirror has none, benchmark/cleanrl_tyro_shim.py
#                  installed as `tyro` (the scripts call only `tyro.cli(Args)`).
#   gymnasium/     Gymnasium's tree at tag v0.29.1 ($GYMNASIUM_GIT: a git directory of Farama-Foundation/Gymnasium)
#   cleanrl/       CleanRL's tree at $CLEANRL_REV of $CLEANRL_GIT (a git directory of vwxyzjn/cleanrl); the commit
#                  is written to cleanrl/COMMIT
# `setup-dm-control` adds what CleanRL's `--env-id dm_control/cartpole-balance-v0` runs need (its dm_control extra),
# under $CURVES_DIR/dm_control by benchmark/dm_control_build.sh: dm_control and dm_env from their git sources
# ($DM_CONTROL_GIT, $DM_ENV_GIT) with dm_control's own bindings generated from the venv's mujoco 3.14 headers and a
# dm-tree stand-in, on the venv's path through a .pth file; Shimmy at $SHIMMY_REV (default v1.1.0, the version
# CleanRL's requirements-dm_control.txt locks; Shimmy 2.x needs Gymnasium 1.x) of $SHIMMY_GIT, installed with pip so
# that Gymnasium 0.29 registers the dm_control/* ids through Shimmy's plugin entry point, as in CleanRL's own venv;
# lxml, scipy and pyparsing from the package mirror.
# `run` starts cleanrl/SCRIPT (ppo.py, ppo_continuous_action.py, ppo_atari.py) in RUN_PARENT, so its TensorBoard run
# lands in RUN_PARENT/runs/ENV_ID__SCRIPT__SEED__TIME/, with CleanRL's defaults except env id, seed and budget, and
# one torch thread, as CleanRL benchmarks.
# Atari ROMs: ale-py 0.12 ships them in its wheel (`setup` makes BreakoutNoFrameskip-v4 to check); $ALE_ROMS_DIR is
# not needed. ppo_atari.py at fe8d8a03 takes its Atari wrappers from cleanrl_utils, so stable-baselines3 is not needed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CURVES_DIR="${CURVES_DIR:-/work/scratch/curves}"
TORCH_WHEEL="${TORCH_WHEEL:-/opt/wheels/torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl}"
GYMNASIUM_GIT="${GYMNASIUM_GIT:-/work/.mirror/Farama-Foundation+Gymnasium/repo}"
CLEANRL_GIT="${CLEANRL_GIT:-/work/.mirror/vwxyzjn+cleanrl/repo}"
CLEANRL_REV="${CLEANRL_REV:-HEAD}"
DM_CONTROL_GIT="${DM_CONTROL_GIT:-/work/.mirror/google-deepmind+dm_control/repo}"
DM_ENV_GIT="${DM_ENV_GIT:-/work/.mirror/google-deepmind+dm_env/repo}"
SHIMMY_GIT="${SHIMMY_GIT:-/work/.mirror/Farama-Foundation+Shimmy/repo}"
SHIMMY_REV="${SHIMMY_REV:-v1.1.0}"
PYTHON="${PYTHON:-python3.11}"
PIP_INDEX=(--index-url file:///opt/pypi/simple --extra-index-url file:///opt/pypi-more/simple)
VENV="$CURVES_DIR/venv"
# Once setup-dm-control has installed Shimmy, every `import gymnasium` runs Shimmy's plugin: it registers the suite's
# dm_control/* ids, then imports dm_control's locomotion examples, which need labmaze (not in the package mirror), and
# Gymnasium reports that ImportError as a warning with its traceback. The suite's ids are registered by then; the
# locomotion and manipulation ids are not, nor Shimmy's Atari ids (registered after them), so the Atari runs keep
# ale-py's own. This line, run before CleanRL's script, silences that one warning.
QUIET_SHIMMY='import warnings; warnings.filterwarnings("ignore", message=r"(?s).*shimmy\.registration.*No module named .labmaze.")'

die() {
  echo "error: $*" >&2
  exit 1
}

# pip warns once per package that the second index lacks; those lines say nothing about this install.
pip_quiet() {
  "$VENV/bin/pip" "$@" 2> >(grep -v "is neither a file nor a directory" >&2)
}

setup() {
  [ -f "$TORCH_WHEEL" ] || die "no torch wheel at $TORCH_WHEEL (set TORCH_WHEEL)"
  git --git-dir="$GYMNASIUM_GIT" rev-parse -q --verify v0.29.1 >/dev/null ||
    die "$GYMNASIUM_GIT has no tag v0.29.1 (set GYMNASIUM_GIT to a git directory of Farama-Foundation/Gymnasium)"
  git --git-dir="$CLEANRL_GIT" rev-parse -q --verify "$CLEANRL_REV^{commit}" >/dev/null ||
    die "$CLEANRL_GIT has no commit $CLEANRL_REV (set CLEANRL_GIT to a git directory of vwxyzjn/cleanrl)"
  mkdir -p "$CURVES_DIR"

  rm -rf "$CURVES_DIR/gymnasium" "$CURVES_DIR/cleanrl"
  mkdir -p "$CURVES_DIR/gymnasium" "$CURVES_DIR/cleanrl"
  # Only the paths the build and the runs read: the mirrored git directories lack some large doc assets, and git
  # names each missing blob it walks past on stderr even when the pathspec leaves it out.
  git --git-dir="$GYMNASIUM_GIT" archive v0.29.1 -- gymnasium pyproject.toml setup.py README.md LICENSE 2>/dev/null |
    tar -x -C "$CURVES_DIR/gymnasium"
  git --git-dir="$CLEANRL_GIT" archive "$CLEANRL_REV" -- cleanrl cleanrl_utils docs/rl-algorithms/ppo.md 2>/dev/null |
    tar -x -C "$CURVES_DIR/cleanrl"
  [ -f "$CURVES_DIR/gymnasium/gymnasium/envs/mujoco/hopper_v4.py" ] || die "Gymnasium v0.29.1 did not unpack"
  [ -f "$CURVES_DIR/cleanrl/cleanrl/ppo_atari.py" ] || die "CleanRL $CLEANRL_REV did not unpack"
  git --git-dir="$CLEANRL_GIT" rev-parse "$CLEANRL_REV^{commit}" >"$CURVES_DIR/cleanrl/COMMIT"

  [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
  local pip=(pip_quiet install -q "${PIP_INDEX[@]}")
  "${pip[@]}" "$TORCH_WHEEL" "numpy==1.26.4"
  # --no-deps: 0.29.1's dependencies are listed here so pip never swaps numpy for a 2.x.
  "${pip[@]}" cloudpickle typing-extensions farama-notifications
  "${pip[@]}" --no-deps "$CURVES_DIR/gymnasium"
  # ale-py 0.12 declares gymnasium>=1.0; its environments run on 0.29's API (reset/step with info dicts). Pinned: `run`
  # registers the v0-v4 ids through its ale_py.registration.register_v0_v4_envs, whose kwargs for {Game}NoFrameskip-v4
  # (frameskip 1, no sticky actions, minimal action set, 108k frames per episode) are those of 0.8.1, CleanRL's pin.
  "${pip[@]}" --no-deps "ale-py==0.12.1"
  # imageio: Gymnasium 0.29's MuJoCo renderer imports it at module load (CleanRL's mujoco extra lists it).
  "${pip[@]}" mujoco imageio "numpy==1.26.4"
  "${pip[@]}" tensorboard "numpy==1.26.4"
  # Gymnasium 0.29's ResizeObservation and GrayScaleObservation call OpenCV. The mirror's OpenCV wheels declare
  # numpy>=2 but are built against numpy 2's backward-compatible ABI, so they load under numpy 1.26.
  "${pip[@]}" --no-deps "opencv-python-headless==4.14.0.94"
  if ! "${pip[@]}" tyro 2>/dev/null; then
    cp "$ROOT/benchmark/cleanrl_tyro_shim.py" "$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/tyro.py"
  fi
  # What the three scripts import and make, down to ppo_atari.py's Breakout with its wrappers (cleanrl_utils'
  # atari_wrappers and Gymnasium's ResizeObservation both need OpenCV) and the ROM that ale-py's wheel carries.
  PYTHONPATH="$CURVES_DIR/cleanrl" "$VENV/bin/python" - <<'EOF' || exit 1
import sys
try:
    import gymnasium, numpy, torch, mujoco, ale_py, tyro, cv2
    from torch.utils.tensorboard import SummaryWriter
    from ale_py.registration import register_v0_v4_envs
    from cleanrl_utils.atari_wrappers import ClipRewardEnv, EpisodicLifeEnv, FireResetEnv, MaxAndSkipEnv, NoopResetEnv
    ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)  # no emulator banner
    register_v0_v4_envs()
    env = gymnasium.wrappers.ResizeObservation(gymnasium.make("BreakoutNoFrameskip-v4"), (84, 84))
    env = gymnasium.wrappers.FrameStack(gymnasium.wrappers.GrayScaleObservation(env), 4)
    obs, _ = env.reset(seed=1)
    assert obs.shape == (4, 84, 84), f"BreakoutNoFrameskip-v4 observations are {obs.shape}, not (4, 84, 84)"
    gymnasium.make("Hopper-v4").reset(seed=1)
except Exception as e:
    print(f"error: the venv at {sys.prefix} is incomplete: {type(e).__name__}: {e}".splitlines()[0], file=sys.stderr)
    sys.exit(1)
print(f"gymnasium {gymnasium.__version__}, numpy {numpy.__version__}, torch {torch.__version__}, "
      f"mujoco {mujoco.__version__}, ale-py {ale_py.__version__}, opencv {cv2.__version__}, "
      f"tyro {getattr(tyro, '__version__', 'shim')}")
EOF
  echo "CleanRL $(cat "$CURVES_DIR/cleanrl/COMMIT") in $CURVES_DIR/cleanrl"
}

setup_dm_control() {
  [ -x "$VENV/bin/python" ] || die "no venv at $VENV: run 'bash benchmark/cleanrl_side.sh setup' first"
  local git_dir
  for git_dir in "$DM_CONTROL_GIT" "$DM_ENV_GIT" "$SHIMMY_GIT"; do
    git --git-dir="$git_dir" rev-parse -q --verify HEAD >/dev/null || die "$git_dir is not a git directory"
  done
  git --git-dir="$SHIMMY_GIT" rev-parse -q --verify "$SHIMMY_REV^{commit}" >/dev/null ||
    die "$SHIMMY_GIT has no revision $SHIMMY_REV (set SHIMMY_GIT to a git directory of Farama-Foundation/Shimmy)"
  local pip=(pip_quiet install -q "${PIP_INDEX[@]}")
  # dm_control's imports beyond what the venv has; pyparsing also runs its autowrap.
  "${pip[@]}" lxml scipy pyparsing "numpy==1.26.4"
  bash "$ROOT/benchmark/dm_control_build.sh" "$VENV/bin/python" "$DM_CONTROL_GIT" "$DM_ENV_GIT" "$SHIMMY_GIT" \
    "$CURVES_DIR/dm_control" "$SHIMMY_REV"
  local purelib
  purelib="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  printf '%s\n' "$CURVES_DIR/dm_control/dm_control" "$CURVES_DIR/dm_control/dm_env" "$CURVES_DIR/dm_control/stubs" \
    >"$purelib/dm_control_source.pth"
  # --no-build-isolation: the venv's setuptools builds it, nothing is fetched.
  "${pip[@]}" --no-deps --no-build-isolation --force-reinstall "$CURVES_DIR/dm_control/shimmy"
  local check='
import gymnasium as gym, shimmy
env = gym.wrappers.FlattenObservation(gym.make("dm_control/cartpole-balance-v0"))
obs, _ = env.reset(seed=1)
print(f"shimmy {shimmy.__version__}: dm_control/cartpole-balance-v0 observation {obs.shape}, action {env.action_space}")'
  MUJOCO_GL=disable "$VENV/bin/python" -c "$QUIET_SHIMMY$check"
}

run() {
  [ $# -ge 5 ] || die "usage: bash benchmark/cleanrl_side.sh run SCRIPT ENV_ID SEED TOTAL_TIMESTEPS RUN_PARENT [FLAGS...]"
  local script="$1" env_id="$2" seed="$3" steps="$4" parent="$5"
  shift 5
  [ -x "$VENV/bin/python" ] || die "no venv at $VENV: run 'bash benchmark/cleanrl_side.sh setup' first"
  [ -f "$CURVES_DIR/cleanrl/cleanrl/$script" ] || die "no cleanrl/$script in $CURVES_DIR/cleanrl"
  mkdir -p "$parent"
  cd "$parent"
  # CleanRL's ppo_atari.py never imports ale_py (ale-py 0.8, its pin, registered through a Gymnasium plugin entry
  # point). ale-py 0.12 registers on import instead, and there only after importing its vector env, which needs
  # Gymnasium 1.x's AutoresetMode and so fails on 0.29: `-c` registers the v0-v4 ids (NoFrameskip-v4 among them)
  # itself before running the script.
  # OMP_NUM_THREADS=1 as in CleanRL's own benchmark commands (its benchmark/ppo.sh); $OMP_NUM_THREADS overrides.
  # MUJOCO_GL=disable: dm_control picks an OpenGL backend when imported (by Shimmy's plugin, in every run once
  # setup-dm-control is done) and warns where there is no display; no run here renders.
  OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}" MUJOCO_GL="${MUJOCO_GL:-disable}" \
    PYTHONPATH="$CURVES_DIR/cleanrl${PYTHONPATH:+:$PYTHONPATH}" exec "$VENV/bin/python" -c \
    "$QUIET_SHIMMY"'; import runpy, sys; from ale_py.registration import register_v0_v4_envs; register_v0_v4_envs(); sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name="__main__")' \
    "$CURVES_DIR/cleanrl/cleanrl/$script" --env-id "$env_id" --seed "$seed" --total-timesteps "$steps" "$@"
}

case "${1:-}" in
setup) setup ;;
setup-dm-control) setup_dm_control ;;
run)
  shift
  run "$@"
  ;;
*) die "usage: bash benchmark/cleanrl_side.sh setup | setup-dm-control | run SCRIPT ENV_ID SEED TOTAL_TIMESTEPS RUN_PARENT [FLAGS...]" ;;
esac
