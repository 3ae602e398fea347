#!/usr/bin/env bash
# Records the CleanRL-equivalence fixtures (tests/fixtures/cleanrl/<variant>.json) that tests/cleanrl_mlp.test.ts
# and tests/cleanrl_cnn.test.ts replay; CI only replays them, it never runs PyTorch.
#   bash benchmark/cleanrl_record.sh CLEANRL_CHECKOUT [VARIANT,...]
# CLEANRL_CHECKOUT: a clone of vwxyzjn/cleanrl (its cleanrl/ folder holds the ppo*.py scripts; their commit goes
# into the fixtures). Python: $PYTHON (default python3) with torch and numpy installed, e.g.
#   python3 -m venv /tmp/cleanrl-venv && /tmp/cleanrl-venv/bin/pip install torch numpy
#   PYTHON=/tmp/cleanrl-venv/bin/python bash benchmark/cleanrl_record.sh ~/src/cleanrl
# Gymnasium, ale-py, procgen, pettingzoo and tensorboard are not needed: only the scripts' Agent classes are used.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-python3}"
die() { echo "error: $*" >&2; exit 1; }

[ $# -ge 1 ] || die "usage: bash benchmark/cleanrl_record.sh CLEANRL_CHECKOUT [VARIANT,...]"
[ -f "$1/cleanrl/ppo.py" ] || die "$1 is not a CleanRL checkout (no cleanrl/ppo.py)"
"$PYTHON" -c "import torch, numpy" 2>/dev/null || die "$PYTHON cannot import torch and numpy (set PYTHON to a venv's python that has them)"
mkdir -p "$ROOT/tests/fixtures/cleanrl"
exec "$PYTHON" "$ROOT/benchmark/cleanrl_record.py" --cleanrl-dir "$1" --out-dir "$ROOT/tests/fixtures/cleanrl" ${2:+--variants "$2"}
