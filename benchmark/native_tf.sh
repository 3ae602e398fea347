#!/usr/bin/env bash
# Native TensorFlow on CPU for tfjs without tfjs-node's libtensorflow download:
#   bash benchmark/native_tf.sh            # build (cached) and install into ./node_modules/@tensorflow/tfjs-node
#   bash benchmark/native_tf.sh --check    # only report whether `import("@tensorflow/tfjs-node")` works here
#
# `npm install @tensorflow/tfjs-node` downloads libtensorflow 2.9.1 and a prebuilt addon from Google's storage at
# install time; where that download is impossible npm drops the optional package. This script builds the same
# package from its npm source against the libtensorflow that the `tensorflow-cpu` 2.21 Python wheel carries:
#   1. `pip download --no-deps tensorflow-cpu==2.21.*` (274 MB; from the configured package index/mirror)
#   2. unzip tensorflow/libtensorflow_cc.so.2 (C and eager C APIs), libtensorflow_framework.so.2 and the C headers
#      tensorflow/include/tensorflow/c/** (plus the ctstring / tsl_status headers they include)
#   3. `npm pack @tensorflow/tfjs-node@4.22.0`, point its deps/ at those files (-ltensorflow resolves to
#      libtensorflow_cc.so.2, whose soname the addon then records) and build the addon with node-gyp offline
#   4. `npm install --no-save --ignore-scripts` the package (its install script would try the download), then put
#      the addon into lib/napi-v8 and the libraries into deps/lib, where the addon's rpath ($ORIGIN/../../deps/lib)
#      and node-pre-gyp's lookup expect them.
# Everything is cached under $PPO_NATIVE_TF_CACHE (default ~/.cache/ppo.ts/native-tf); a second run only
# re-installs. package.json and package-lock.json are not modified. Every failure is one `error: ...` line.
set -euo pipefail

TF_VERSION="2.21.*"
TFJS_NODE_VERSION="4.22.0"
NAPI=8 # the highest N-API version tfjs-node 4.22 lists; node-pre-gyp looks for lib/napi-v8 on Node >= 18
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${PPO_NATIVE_TF_CACHE:-$HOME/.cache/ppo.ts/native-tf}"
LOG="$CACHE/build.log"

die() { echo "error: $*" >&2; exit 1; }
step() { echo "native_tf: $*"; }
# Runs a command with its output in the log; on failure prints the message and the log's last line.
run() {
  local what="$1"; shift
  if ! "$@" >>"$LOG" 2>&1; then die "$what failed (last log line: $(tail -n 1 "$LOG" | cut -c1-160); full log: $LOG)"; fi
}

check() {
  (cd "$ROOT" && TF_CPP_MIN_LOG_LEVEL="${TF_CPP_MIN_LOG_LEVEL:-2}" node -e '
    const tf = require("@tensorflow/tfjs-node");
    tf.setBackend("tensorflow").then(() => {
      const s = tf.add(tf.tensor([1, 2]), 1).dataSync();
      console.log(`native_tf: tfjs-node ${tf.version["tfjs-node"]} backend=${tf.getBackend()} libtensorflow=${tf.backend().binding.TF_Version} check=${Array.from(s)}`);
    });' 2>&1 | grep -E "^native_tf:|Error" | tail -n 3)
}

if [[ "${1:-}" == "--check" ]]; then check; exit 0; fi

mkdir -p "$CACHE"
: >"$LOG"
command -v pip >/dev/null || command -v pip3 >/dev/null || die "pip is needed to fetch the tensorflow-cpu wheel"
PIP="$(command -v pip || command -v pip3)"
command -v unzip >/dev/null || die "unzip is needed (apt-get install unzip)"
command -v c++ >/dev/null || die "a C++ compiler is needed for node-gyp (apt-get install g++ make)"
NODE_GYP="$(npm root -g 2>/dev/null)/npm/node_modules/node-gyp/bin/node-gyp.js"
[[ -f "$NODE_GYP" ]] || NODE_GYP="$(command -v node-gyp || true)"
[[ -n "$NODE_GYP" ]] || die "node-gyp not found (it ships with npm; or npm install -g node-gyp)"
# node-gyp needs Node's headers; without network they must be local (e.g. /usr/include/node with nodedir=/usr).
NODEDIR="${npm_config_nodedir:-$(npm config get nodedir 2>/dev/null || true)}"
[[ "$NODEDIR" == "undefined" || "$NODEDIR" == "null" ]] && NODEDIR=""
GYP_NODEDIR=()
[[ -n "$NODEDIR" ]] && GYP_NODEDIR=(--nodedir="$NODEDIR")

# 1. The wheel.
WHEEL="$(ls "$CACHE"/wheel/tensorflow_cpu-*.whl 2>/dev/null | head -n 1 || true)"
if [[ -z "$WHEEL" ]]; then
  step "downloading tensorflow-cpu==$TF_VERSION (274 MB)"
  mkdir -p "$CACHE/wheel"
  # --retries 0: an unreachable default index fails fast and pip goes on to the configured mirror.
  run "pip download tensorflow-cpu==$TF_VERSION" "$PIP" download --retries 0 --timeout 20 --no-deps \
    --only-binary=:all: "tensorflow-cpu==$TF_VERSION" -d "$CACHE/wheel"
  WHEEL="$(ls "$CACHE"/wheel/tensorflow_cpu-*.whl 2>/dev/null | head -n 1 || true)"
  [[ -n "$WHEEL" ]] || die "pip download succeeded but left no tensorflow_cpu wheel in $CACHE/wheel"
fi

# 2. Libraries and C headers.
TF="$CACHE/libtensorflow"
if [[ ! -f "$TF/lib/libtensorflow_cc.so.2" || ! -f "$TF/include/xla/tsl/c/tsl_status.h" ]]; then
  step "extracting libtensorflow from $(basename "$WHEEL")"
  rm -rf "$TF" "$CACHE/unzip"
  # The C API headers and the few headers they include from outside tensorflow/c (TF_TString, TSL_Status).
  run "unzip of the wheel" unzip -q -o "$WHEEL" "tensorflow/libtensorflow_cc.so.2" "tensorflow/libtensorflow_framework.so.2" \
    "tensorflow/include/tensorflow/c/*" "tensorflow/include/tensorflow/core/platform/ctstring*" \
    "tensorflow/include/tsl/platform/ctstring*" "tensorflow/include/xla/tsl/c/*" -d "$CACHE/unzip"
  mkdir -p "$TF/lib" "$TF/include"
  mv "$CACHE"/unzip/tensorflow/libtensorflow_cc.so.2 "$CACHE"/unzip/tensorflow/libtensorflow_framework.so.2 "$TF/lib/"
  mv "$CACHE"/unzip/tensorflow/include/* "$TF/include/"
  rm -rf "$CACHE/unzip"
  [[ -f "$TF/include/tensorflow/c/eager/c_api.h" ]] || die "the wheel has no tensorflow/c/eager/c_api.h"
fi

# 3. tfjs-node source and its addon.
PKG="$CACHE/tfjs-node-$TFJS_NODE_VERSION"
TGZ="$CACHE/tensorflow-tfjs-node-$TFJS_NODE_VERSION.tgz"
ADDON="$PKG/lib/napi-v$NAPI/tfjs_binding.node"
if [[ ! -f "$ADDON" ]]; then
  if [[ ! -f "$TGZ" ]]; then
    step "npm pack @tensorflow/tfjs-node@$TFJS_NODE_VERSION"
    run "npm pack @tensorflow/tfjs-node@$TFJS_NODE_VERSION" npm pack "@tensorflow/tfjs-node@$TFJS_NODE_VERSION" --pack-destination "$CACHE"
  fi
  rm -rf "$PKG" && mkdir -p "$PKG"
  run "unpacking $TGZ" tar xzf "$TGZ" -C "$PKG" --strip-components=1
  mkdir -p "$PKG/deps/lib"
  ln -sfn "$TF/include" "$PKG/deps/include"
  # The link names -ltensorflow / -ltensorflow_framework look for; the sonames inside stay *.so.2.
  ln -sf "$TF/lib/libtensorflow_cc.so.2" "$PKG/deps/lib/libtensorflow.so"
  ln -sf "$TF/lib/libtensorflow_framework.so.2" "$PKG/deps/lib/libtensorflow_framework.so"
  step "building the tfjs-node addon with node-gyp (a minute or two)"
  (cd "$PKG" && run "node-gyp build of the tfjs-node addon" node "$NODE_GYP" rebuild "${GYP_NODEDIR[@]}" \
    -- -Dnapi_build_version=$NAPI -Dmodule_name=tfjs_binding -Dmodule_path="$PKG/lib/napi-v$NAPI")
  [[ -f "$ADDON" ]] || die "node-gyp finished but $ADDON is missing (log: $LOG)"
fi

# 4. Install into this project's node_modules.
DEST="$ROOT/node_modules/@tensorflow/tfjs-node"
if [[ ! -f "$DEST/package.json" ]] || ! grep -q "\"version\": \"$TFJS_NODE_VERSION\"" "$DEST/package.json"; then
  step "installing @tensorflow/tfjs-node $TFJS_NODE_VERSION into node_modules (scripts ignored, package.json untouched)"
  # npm install also adds package.json's missing optional dependencies (tfjs-node-gpu), scripts ignored, so without
  # their native addon: remove any that this install added, or they would be found but fail to load.
  added=()
  for opt in tfjs-node-gpu; do [[ -e "$ROOT/node_modules/@tensorflow/$opt" ]] || added+=("$opt"); done
  (cd "$ROOT" && run "npm install --no-save of tfjs-node" npm install --no-save --ignore-scripts --no-audit --no-fund "$TGZ")
  for opt in "${added[@]}"; do rm -rf "$ROOT/node_modules/@tensorflow/$opt"; done
fi
[[ -d "$DEST" ]] || die "npm install left no $DEST"
mkdir -p "$DEST/lib/napi-v$NAPI" "$DEST/deps/lib"
cp -f "$ADDON" "$DEST/lib/napi-v$NAPI/"
ln -sf "$TF/lib/libtensorflow_cc.so.2" "$DEST/deps/lib/libtensorflow_cc.so.2"
ln -sf "$TF/lib/libtensorflow_framework.so.2" "$DEST/deps/lib/libtensorflow_framework.so.2"

out="$(check)"
echo "$out"
grep -q "backend=tensorflow" <<<"$out" || die "tfjs-node is installed but does not load: $(tail -n 1 <<<"$out" | cut -c1-200)"
