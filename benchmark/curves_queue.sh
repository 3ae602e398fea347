#!/usr/bin/env bash
# The side-by-side learning runs behind benchmark/curves.ts, one at a time, resumable:
#   nohup bash benchmark/curves_queue.sh >/work/scratch/curves/queue.log 2>&1 &
# Each job is one (variant, env, side, seed) run at CleanRL's defaults except the budget; its CSV is
# benchmark/results/<variant>/<env>/<side>_seed<N>.csv in this checkout (a namespaced env id is a folder per part:
# benchmark/results/ppo_continuous_action/dm_control/cartpole-balance-v0/). A job whose CSV exists is skipped, so the
# queue picks up where a stopped one left off; a run cut short is started again from scratch. Each finished CSV is
# committed on its own (only that path), so the branch keeps every run that landed.
# Ours runs from a detached checkout at a fixed commit ($SNAPSHOT, made by `git worktree add --detach`, with its own
# node_modules), so edits to this checkout never change a run in flight; CleanRL's side runs through
# benchmark/cleanrl_side.sh (its `setup` first, and `setup-dm-control` for the dm_control/* ids; ours needs a
# snapshot with envs/dm_control). Ours runs on WASM, named on the command line so that building native
# TensorFlow later changes no MLP run; Atari on native TensorFlow, the fastest CPU backend here. Every run is
# `nice -n 19`: the machine is shared. `touch $CURVES_DIR/STOP` ends the queue after the current run.
# Queues may run side by side, one per core: each claims a job before it starts it (a folder $parent.claim holding
# the queue's pid), so two queues never run the same job, and a claim whose queue has died is taken over.
# `SIDES=ours bash ...` and `SIDES=cleanrl bash ...` split the sides; two plain queues share all the jobs.
# Edit this file only by replacing it (write a new file, then mv), never in place: a running bash reads its script
# as it goes.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CURVES_DIR="${CURVES_DIR:-/work/scratch/curves}"
SNAPSHOT="${SNAPSHOT:-$CURVES_DIR/main_snapshot}"
ROMS="${ROMS:-/work/shared/roms}"
MACHINE="${MACHINE:-2-core Intel Xeon VM, 23 GiB, no GPU, shared with other work}"
SIDES="${SIDES:-ours cleanrl}"
export CURVES_DIR

die() {
  echo "error: $*" >&2
  exit 1
}
[ -x "$SNAPSHOT/node_modules/.bin/tsx" ] ||
  die "no checkout with node_modules at $SNAPSHOT (git worktree add --detach $SNAPSHOT main; link node_modules)"
[ -x "$CURVES_DIR/venv/bin/python" ] || die "no CleanRL venv: run 'bash benchmark/cleanrl_side.sh setup' first"
# Each finished run is read back into its CSV by benchmark/curves_record.ts, run from this checkout.
[ -x "$ROOT/node_modules/.bin/tsx" ] || die "no node_modules in $ROOT (npm ci there, or link another checkout's)"

# variant env seed steps, in the order they run; each line runs ours, then CleanRL's.
JOBS="
ppo CartPole-v1 1 500000
ppo CartPole-v1 2 500000
ppo CartPole-v1 3 500000
ppo Acrobot-v1 1 500000
ppo Acrobot-v1 2 500000
ppo Acrobot-v1 3 500000
ppo MountainCar-v0 1 500000
ppo MountainCar-v0 2 500000
ppo MountainCar-v0 3 500000
ppo_continuous_action Hopper-v4 1 1000000
ppo_continuous_action Hopper-v4 2 1000000
ppo_continuous_action dm_control/cartpole-balance-v0 1 1000000
ppo_continuous_action Hopper-v4 3 1000000
ppo_continuous_action dm_control/walker-walk-v0 1 1000000
ppo_continuous_action dm_control/cheetah-run-v0 1 1000000
ppo_continuous_action Hopper-v4 4 1000000
ppo_continuous_action HalfCheetah-v4 1 1000000
ppo_continuous_action Walker2d-v4 1 1000000
ppo_continuous_action HalfCheetah-v4 2 1000000
ppo_continuous_action Walker2d-v4 2 1000000
ppo_continuous_action HalfCheetah-v4 3 1000000
ppo_continuous_action Walker2d-v4 3 1000000
ppo_continuous_action Hopper-v4 5 1000000
ppo_continuous_action Hopper-v4 6 1000000
ppo_atari BreakoutNoFrameskip-v4 1 1000000
ppo_atari BreakoutNoFrameskip-v4 2 1000000
ppo_continuous_action Hopper-v4 7 1000000
ppo_continuous_action HalfCheetah-v4 4 1000000
ppo_continuous_action HalfCheetah-v4 5 1000000
ppo_continuous_action Hopper-v4 8 1000000
"

commit_csv() {
  local csv="$1" message="$2"
  # Another git command in this checkout may hold the index lock for a moment.
  for _ in 1 2 3 4 5 6; do
    if git -C "$ROOT" add -- "$csv" && git -C "$ROOT" commit -q -m "$message" -- "$csv"; then return 0; fi
    sleep 10
  done
  echo "warning: could not commit $csv" >&2
}

run_job() {
  local variant="$1" env_id="$2" seed="$3" steps="$4" side="$5"
  local rel="benchmark/results/$variant/$env_id/${side}_seed$seed.csv"
  local csv="$ROOT/$rel"
  [ -f "$csv" ] && return 0
  local parent="$CURVES_DIR/runs/$variant/$env_id/${side}_seed$seed"
  local command commit load_start extra=(--backend wasm)
  if [ "$variant" = ppo_atari ] && [ "$side" = ours ]; then
    # The fastest CPU backend here is native TensorFlow (benchmark/native_tf.sh, built into the snapshot's
    # node_modules); without it the run waits for a later queue rather than run on a slower backend.
    if ! (cd "$SNAPSHOT" && bash benchmark/native_tf.sh --check 2>/dev/null | grep -q "backend=tensorflow"); then
      echo "$(date -u +%FT%TZ) skipped $rel: no native TensorFlow in $SNAPSHOT (bash $SNAPSHOT/benchmark/native_tf.sh)"
      return 0
    fi
    extra=(--backend tensorflow --rom-dir "$ROMS")
  fi
  # A dm_control run waits for a snapshot that has the suite, as CleanRL's waits for setup-dm-control.
  if [[ "$env_id" == dm_control/* ]]; then
    if [ "$side" = ours ] && [ ! -d "$SNAPSHOT/envs/dm_control" ]; then
      echo "$(date -u +%FT%TZ) skipped $rel: no envs/dm_control in $SNAPSHOT"
      return 0
    fi
    if [ "$side" = cleanrl ] && ! "$CURVES_DIR/venv/bin/python" -c "import shimmy, dm_control" 2>/dev/null; then
      echo "$(date -u +%FT%TZ) skipped $rel: no Shimmy and dm_control in $CURVES_DIR/venv (bash benchmark/cleanrl_side.sh setup-dm-control)"
      return 0
    fi
  fi
  # Claim the job: mkdir is atomic, so of two queues reaching it together one wins; a claim left by a queue that
  # is no longer running is taken over.
  local claim="$parent.claim"
  mkdir -p "$(dirname "$parent")"
  if ! mkdir "$claim" 2>/dev/null; then
    local owner
    owner="$(cat "$claim/pid" 2>/dev/null || true)"
    [ -n "$owner" ] || { sleep 2; owner="$(cat "$claim/pid" 2>/dev/null || true)"; }
    if [ -n "$owner" ] && [ "$owner" != "$$" ] && grep -qs curves_queue.sh "/proc/$owner/cmdline"; then
      return 0
    fi
  fi
  echo "$$" >"$claim/pid"
  if [ ! -f "$parent/.done" ]; then
    rm -rf "$parent"
    mkdir -p "$parent"
    load_start="$(cut -d' ' -f1-3 /proc/loadavg)"
    if [ "$side" = ours ]; then
      command="npx tsx $variant.ts --env-id $env_id --seed $seed --total-timesteps $steps ${extra[*]}"
      echo "$(date -u +%FT%TZ) start $rel: $command"
      (cd "$parent" && nice -n 19 "$SNAPSHOT/node_modules/.bin/tsx" "$SNAPSHOT/$variant.ts" --env-id "$env_id" \
        --seed "$seed" --total-timesteps "$steps" "${extra[@]}") >"$parent/stdout.log" 2>&1 ||
        {
          echo "$(date -u +%FT%TZ) failed $rel (see $parent/stdout.log)"
          return 0
        }
      commit="ppo.ts $(git -C "$SNAPSHOT" rev-parse HEAD)"
    else
      command="bash benchmark/cleanrl_side.sh run $variant.py $env_id $seed $steps DIR"
      echo "$(date -u +%FT%TZ) start $rel: $command"
      nice -n 19 bash "$ROOT/benchmark/cleanrl_side.sh" run "$variant.py" "$env_id" "$seed" "$steps" "$parent" \
        >"$parent/stdout.log" 2>&1 ||
        {
          echo "$(date -u +%FT%TZ) failed $rel (see $parent/stdout.log)"
          return 0
        }
      commit="vwxyzjn/cleanrl $(cat "$CURVES_DIR/cleanrl/COMMIT")"
    fi
    # The machine's load averages when the run started and ended: the wall-clock curves depend on them.
    printf '%s\n%s\n%s\n' "$command" "$commit" \
      "load averages (1, 5, 15 min) $load_start at start, $(cut -d' ' -f1-3 /proc/loadavg) at end" >"$parent/.done"
  fi
  command="$(sed -n 1p "$parent/.done")"
  commit="$(sed -n 2p "$parent/.done")"
  local load
  load="$(sed -n 3p "$parent/.done")"
  # Both sides name a run folder after the env id, so a namespaced id (dm_control/cartpole-balance-v0) nests it in
  # runs/<namespace>/.
  local run_dir
  run_dir="$(find "$parent/runs/$(dirname "$env_id")" -mindepth 1 -maxdepth 1 -type d -name "${env_id##*/}__*" |
    sort | tail -n 1)"
  (cd "$ROOT" && nice -n 19 npx tsx benchmark/curves_record.ts --run-dir "$run_dir" --out "$csv" \
    --command "$command" --commit "$commit" --machine "$MACHINE" --load "$load")
  commit_csv "$rel" "benchmark/results: $variant $env_id $side seed $seed ($steps steps)"
  rm -rf "$claim"
  echo "$(date -u +%FT%TZ) done $rel"
}

while read -r variant env_id seed steps; do
  [ -n "$variant" ] || continue
  for side in $SIDES; do
    [ -f "$CURVES_DIR/STOP" ] && {
      echo "$(date -u +%FT%TZ) stopped ($CURVES_DIR/STOP)"
      exit 0
    }
    # stdin from /dev/null: the job list is this loop's stdin, and no run may read it.
    run_job "$variant" "$env_id" "$seed" "$steps" "$side" </dev/null
  done
done <<<"$JOBS"
echo "$(date -u +%FT%TZ) queue finished"
