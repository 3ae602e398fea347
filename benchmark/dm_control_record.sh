#!/usr/bin/env bash
# Builds dm_control's suite from its git source and records the fixtures of tests/dm_control.test.ts.
#
#   benchmark/dm_control_record.sh DM_CONTROL_GIT_DIR DM_ENV_GIT_DIR SHIMMY_GIT_DIR SCRATCH [TASK ...]
#   benchmark/dm_control_record.sh DM_CONTROL_GIT_DIR DM_ENV_GIT_DIR SHIMMY_GIT_DIR SCRATCH --throughput [TASK ...]
#
# The three git dirs are clones (or bare mirrors) of google-deepmind/dm_control, google-deepmind/dm_env and
# Farama-Foundation/Shimmy; SCRATCH is a folder outside the repository. Set up there: a venv with MuJoCo 3.14 and
# Gymnasium 1.3 from the package index, and the three sources at their HEADs with dm_control's own bindings and a
# dm-tree stand-in, by benchmark/dm_control_build.sh. Writes tests/fixtures/dm_control/<domain>-<task>.json; with
# --throughput it runs benchmark/dm_control_throughput.py instead.
set -euo pipefail
if [ $# -lt 4 ]; then
  echo "usage: $0 DM_CONTROL_GIT_DIR DM_ENV_GIT_DIR SHIMMY_GIT_DIR SCRATCH [TASK ...]" >&2
  exit 2
fi
DMC_GIT=$1 DMENV_GIT=$2 SHIMMY_GIT=$3 SCRATCH=$4
shift 4
REPO=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$SCRATCH"
cd "$SCRATCH"
PIP_INDEX=(--index-url file:///opt/pypi/simple --extra-index-url file:///opt/pypi-more/simple)

if [ ! -x venv/bin/python ]; then
  python3 -m venv venv
  venv/bin/pip install -q "${PIP_INDEX[@]}" mujoco==3.14.0 numpy==2.4.6 lxml scipy absl-py pyparsing \
    gymnasium==1.3.0 imageio packaging 2>&1 | { grep -v "^WARNING: Location" || true; }
fi

bash "$REPO/benchmark/dm_control_build.sh" venv/bin/python "$DMC_GIT" "$DMENV_GIT" "$SHIMMY_GIT" "$PWD"
export PYTHONPATH="$SCRATCH/dm_control:$SCRATCH/dm_env:$SCRATCH/shimmy:$SCRATCH/stubs" MUJOCO_GL=disable
if [ "${1:-}" = "--throughput" ]; then
  shift
  exec venv/bin/python "$REPO/benchmark/dm_control_throughput.py" "$@"
fi
exec venv/bin/python "$REPO/benchmark/dm_control_record.py" --out "$REPO/tests/fixtures/dm_control" "$@"
