#!/usr/bin/env bash
# Builds dm_control's suite from its git source and records the fixtures of tests/dm_control.test.ts.
#
#   benchmark/dm_control_record.sh DM_CONTROL_GIT_DIR DM_ENV_GIT_DIR SHIMMY_GIT_DIR SCRATCH [TASK ...]
#   benchmark/dm_control_record.sh DM_CONTROL_GIT_DIR DM_ENV_GIT_DIR SHIMMY_GIT_DIR SCRATCH --throughput [TASK ...]
#
# The three git dirs are clones (or bare mirrors) of google-deepmind/dm_control, google-deepmind/dm_env and
# Farama-Foundation/Shimmy; SCRATCH is a folder outside the repository. Set up there: a venv with MuJoCo 3.14 and
# Gymnasium 1.3 from the package index, the three sources checked out (dm_control's large binary assets that a
# partial mirror lacks are skipped: none of the suite's tasks reads them), dm_control's ctypes bindings generated
# by its own autowrap from the wheel's headers (what its setup.py's build_mjbindings does), and an import-only
# stand-in for dm-tree (not in the package mirror; Shimmy imports dm_control.composer, which imports it, but the
# suite never calls it). Writes tests/fixtures/dm_control/<domain>-<task>.json; with --throughput it runs
# benchmark/dm_control_throughput.py instead.
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

checkout() { # git dir, target folder, paths to check out (less the files whose contents the clone lacks)
  local src=$1 dst=$2
  shift 2
  if [ ! -d "$dst/.git" ]; then
    git clone -q --no-checkout "$src" "$dst"
    local missing
    mapfile -t missing < <(git -C "$dst" ls-tree -r HEAD --format='%(objectname) %(path)' -- "$@" |
      while read -r oid path; do git -C "$dst" cat-file -e "$oid" 2>/dev/null || echo ":!$path"; done)
    git -C "$dst" restore --source=HEAD -- "$@" "${missing[@]}"
  fi
}
checkout "$DMC_GIT" dm_control dm_control setup.py
checkout "$DMENV_GIT" dm_env dm_env
checkout "$SHIMMY_GIT" shimmy shimmy

BINDINGS=dm_control/dm_control/mujoco/wrapper/mjbindings
if [ ! -f "$BINDINGS/constants.py" ]; then
  HEADERS=$(venv/bin/python -c "import mujoco; print(mujoco.HEADERS_DIR)")
  PATHS=""
  for h in mjdata.h mjmodel.h mjrender.h mjtype.h mjui.h mjvisualize.h mjxmacro.h mujoco.h; do PATHS+="$HEADERS/$h "; done
  (cd dm_control && PYTHONPATH=. ../venv/bin/python dm_control/autowrap/autowrap.py --header_paths="$PATHS" \
    --output_dir=dm_control/mujoco/wrapper/mjbindings)
fi

mkdir -p stubs/tree
cat >stubs/tree/__init__.py <<'PY'
"""Import-only stand-in for dm-tree: any call fails loudly."""
def __getattr__(name):
    def missing(*args, **kwargs):
        raise NotImplementedError(f"dm-tree stand-in: tree.{name} called")
    return missing
PY

echo "dm_control $(git -C dm_control rev-parse HEAD), dm_env $(git -C dm_env rev-parse HEAD), Shimmy $(git -C shimmy rev-parse HEAD)"
export PYTHONPATH="$SCRATCH/dm_control:$SCRATCH/dm_env:$SCRATCH/shimmy:$SCRATCH/stubs" MUJOCO_GL=disable
if [ "${1:-}" = "--throughput" ]; then
  shift
  exec venv/bin/python "$REPO/benchmark/dm_control_throughput.py" "$@"
fi
exec venv/bin/python "$REPO/benchmark/dm_control_record.py" --out "$REPO/tests/fixtures/dm_control" "$@"
