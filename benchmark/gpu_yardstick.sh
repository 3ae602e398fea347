#!/usr/bin/env bash
# The GPU yardstick in ONE device call (about 7 minutes, within 9): our WebGPU kernels checked on the real GPU,
# CleanRL's ppo_atari.py --cuda and ppo_atari.ts --backend webgpu alternated (Breakout, 8 envs, seed 1, 20,480
# steps), the per-workload rows (ours on webgpu, tfjs's own webgpu kernels, PyTorch CUDA) and the round-trip
# counters. Built on ../shared/gpu_anchor (its README has the recipe and what was learnt making it).
#
#   1. here, once per session (packs .dev, about 40 MB; needs the fetch tool's git dirs of CleanRL and ALE):
#        CLEANRL_GIT_DIR=/work/.mirror/vwxyzjn+cleanrl/repo ALE_GIT_DIR=/work/.mirror/Farama-Foundation+Arcade-Learning-Environment/repo \
#          bash benchmark/gpu_yardstick.sh prepare
#   2. on the device, one call: command `bash benchmark/gpu_yardstick.sh`, carry [".dev"], timeout_s 560.
#      Everything lands in $OUT (log, each run's output); the summary is the end of the log.
#
# Order: the kernel tests first (a wrong kernel makes every later number meaningless), then the alternated SPS runs
# (the goal: ppo_atari.ts >= 1.5x CleanRL), then the workload rows and the counters; the tfjs-kernel baseline row
# last, skipped when the call's own budget (BUDGET_S, default 520 s) is nearly spent.
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
# ../shared beside the main checkout; ../../shared beside a worktree under wt/; or ANCHOR_DIR.
anchor="${ANCHOR_DIR:-$here/../shared/gpu_anchor}"; [ -d "$anchor" ] || anchor="$here/../../shared/gpu_anchor"

if [ "${1:-}" = prepare ]; then
  [ -f "$anchor/make_bundle.sh" ] || { echo "error: gpu_anchor/make_bundle.sh not found (../shared/gpu_anchor beside the checkout, or set ANCHOR_DIR)" >&2; exit 1; }
  : "${CLEANRL_GIT_DIR:?error: set CLEANRL_GIT_DIR to the fetch tool's vwxyzjn/cleanrl git dir}"
  : "${ALE_GIT_DIR:?error: set ALE_GIT_DIR to the fetch tool's Farama-Foundation/Arcade-Learning-Environment git dir}"
  # make_bundle.sh trims the node_modules it copies with `cp -a`: a linked node_modules (a worktree's) would be
  # trimmed in place. So it packs a throwaway clone of HEAD with a real copy of node_modules.
  tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
  git clone -q --no-hardlinks "$here" "$tmp/proj" && cp -rL "$here/node_modules" "$tmp/proj/node_modules" || exit 1
  cd "$here" && TS_DIR="$tmp/proj" OUT_DIR="$here/.dev" bash "$anchor/make_bundle.sh"
  exit $?
fi

cd "$here" || exit 1
[ -f "$here/.dev/run_on_device.sh" ] || { echo "error: .dev/run_on_device.sh missing: run 'bash benchmark/gpu_yardstick.sh prepare' here and carry .dev" >&2; exit 1; }
: "${OUT:=/tmp/out}"; export OUT; mkdir -p "$OUT"
start=$(date +%s); budget="${BUDGET_S:-520}"
# Steps after the SPS rounds, run by run_on_device.sh in the project folder with the bundle's node on PATH.
# `left` is the seconds this call still has; a step that would not fit is skipped and says so.
EXTRA='left() { echo $(( '"$start"' + '"$budget"' - $(date +%s) )); }
step() { local secs=$1; shift; local name=$1; shift
  if [ "$(left)" -lt "$secs" ]; then echo "== skipped $name: $(left) s left, needs ~$secs"; return; fi
  echo "== $(date +%T) $name"; timeout "$secs" "$@" > "$OUT/$name.log" 2>&1; echo "$name rc=$?"; grep -v "^#\|^ \|Warning" "$OUT/$name.log" | tail -25; }
step 150 backends_webgpu node node_modules/tsx/dist/cli.mjs benchmark/backends.ts --backends webgpu --only cnn-forward,cnn-update,impala-update,mlp-update --reps 3
step 90 backends_torch python3 benchmark/backends_torch.py --device cuda --only cnn-forward,cnn-update,impala-update,mlp-update --reps 3
step 60 counters node node_modules/tsx/dist/cli.mjs benchmark/webgpu_counters.ts --minibatch 256 --impala-batch 256 --reps 50
step 60 counters_tfjs env PPO_TS_WEBGPU_KERNELS=0 node node_modules/tsx/dist/cli.mjs benchmark/webgpu_counters.ts --minibatch 256 --impala-batch 0 --reps 50
step 100 backends_webgpu_tfjs env PPO_TS_WEBGPU_KERNELS=0 node node_modules/tsx/dist/cli.mjs benchmark/backends.ts --backends webgpu --only cnn-forward,cnn-update,impala-update,mlp-update --reps 1'
# The kernel tests, first: run_on_device.sh has no hook before its rounds, so they run through its EXTRA of a
# zero-round call, which sets up Node, the bundle and Vulkan just the same (the ALE build it also does is reused).
EXTRA='echo "== $(date +%T) kernel tests"; PPO_TS_WEBGPU_BIG=1 timeout 150 node --import tsx --test tests/webgpu_kernels.test.ts > "$OUT/kernel_tests.log" 2>&1; echo "kernel tests rc=$?"; grep -E "^# (tests|pass|fail)|^    not ok" "$OUT/kernel_tests.log"' \
  bash "$here/.dev/run_on_device.sh" 0 20480
mv "$OUT/log" "$OUT/log_setup" 2>/dev/null
EXTRA="$EXTRA" bash "$here/.dev/run_on_device.sh" "${ROUNDS:-2}" "${STEPS:-20480}"
echo "== total $(( $(date +%s) - start )) s" | tee -a "$OUT/log"
# At most 8 files come back from $OUT: the two summaries as they are, every run's own output in one archive.
(cd "$OUT" && tar -czf runs.tar.gz --exclude=log --exclude=log_setup --exclude=runs.tar.gz -- * && find . -maxdepth 1 -name "*.log" -delete)
