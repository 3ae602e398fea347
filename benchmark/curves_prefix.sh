#!/usr/bin/env bash
# The first STOP_STEP steps of a full-budget run, ours or CleanRL's, for more seeds of a side-by-side comparison at a
# fraction of its cost (benchmark/curves_scalars.ts reads the result):
#   bash benchmark/curves_prefix.sh ours|cleanrl VARIANT ENV_ID SEED TOTAL_TIMESTEPS STOP_STEP RUN_PARENT
# Runs what benchmark/curves_queue.sh runs (ours: `npx tsx VARIANT.ts ... --backend wasm`; CleanRL's: its
# VARIANT.py from benchmark/cleanrl_side.sh's checkout and venv, one torch thread) with the full TOTAL_TIMESTEPS, so
# the learning-rate schedule is the full run's, and stops it with SIGTERM once its stdout reports an episode past
# STOP_STEP + 2 batches (by then the iteration that reached STOP_STEP has logged its scalars). Ours closes its
# TensorBoard writer on SIGTERM; CleanRL's torch SummaryWriter would drop what it buffered, so its `flush_secs` is
# set to 1 (the only change to CleanRL's run). Marks RUN_PARENT/.done when stopped as planned, at nice 19 throughout.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CURVES_DIR="${CURVES_DIR:-/work/scratch/curves}"
[ $# -eq 7 ] || {
  echo "usage: bash benchmark/curves_prefix.sh ours|cleanrl VARIANT ENV_ID SEED TOTAL_TIMESTEPS STOP_STEP RUN_PARENT" >&2
  exit 2
}
side="$1" variant="$2" env_id="$3" seed="$4" total="$5" stop="$6" parent="$7"
batch=2048 # CleanRL's num_envs * num_steps for ppo_continuous_action; ours takes the same defaults
mkdir -p "$parent"
rm -f "$parent/.done"
cd "$parent"
case "$side" in
ours)
  setsid nice -n 19 "$ROOT/node_modules/.bin/tsx" "$ROOT/$variant.ts" --env-id "$env_id" --seed "$seed" \
    --total-timesteps "$total" --backend wasm >stdout.log 2>&1 &
  ;;
cleanrl)
  OMP_NUM_THREADS=1 MUJOCO_GL=disable PYTHONPATH="$CURVES_DIR/cleanrl" setsid nice -n 19 "$CURVES_DIR/venv/bin/python" \
    -c 'import functools, runpy, sys, warnings; warnings.filterwarnings("ignore"); import torch.utils.tensorboard as tb; tb.SummaryWriter = functools.partial(tb.SummaryWriter, flush_secs=1); sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name="__main__")' \
    "$CURVES_DIR/cleanrl/cleanrl/$variant.py" --env-id "$env_id" --seed "$seed" --total-timesteps "$total" \
    >stdout.log 2>&1 &
  ;;
*)
  echo "error: side must be ours or cleanrl, got $side" >&2
  exit 2
  ;;
esac
pid=$!
past=$((stop + 2 * batch))
while kill -0 "$pid" 2>/dev/null; do
  sleep 5
  last=$(grep -o 'global_step=[0-9]*' stdout.log | tail -1 | cut -d= -f2 || true)
  if [ -n "$last" ] && [ "$last" -ge "$past" ]; then
    sleep 2 # CleanRL's writer flushes every second
    kill -TERM -- "-$pid"
    wait "$pid" 2>/dev/null || true
    echo "stopped at global_step $last (past $stop)" >"$parent/.done"
    exit 0
  fi
done
echo "error: the run ended before step $stop; see $parent/stdout.log" >&2
exit 1
