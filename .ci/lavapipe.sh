#!/usr/bin/env bash
# Fetches Mesa's lavapipe (a software Vulkan driver) so the WebGPU backend can be tested on a machine without a GPU.
#
#   .ci/lavapipe.sh [DIR]      # default DIR: .cache/lavapipe in the repository (git-ignored)
#
# Prints the two environment variables the WebGPU path needs, as `export` lines for `eval`, and exits 0; exits 1
# (with a message on stderr) when the packages cannot be had. Nothing is installed: the two .debs are unpacked
# into DIR. Why these packages (see shared/notes/webgpu-in-node.md): Dawn (the `webgpu` npm package) loads
# libvulkan.so.1 at run time and needs a Vulkan driver; Debian bookworm's own Mesa 22.3 lavapipe lacks features
# Dawn requires (shaderUniform*ArrayDynamicIndexing), Mesa 25.0 from bookworm-backports works.
# apt runs with a private source list and state folder, so the system's apt configuration is left untouched.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${1:-$root/.cache/lavapipe}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
icd="$dir/usr/share/vulkan/icd.d/lvp_icd.json"
lib="$dir/usr/lib/x86_64-linux-gnu"

if [ ! -f "$icd" ] || [ ! -f "$lib/libvulkan_lvp.so" ] || [ ! -e "$lib/libvulkan.so.1" ]; then
  [ "$(uname -m)" = x86_64 ] || { echo "lavapipe: only x86_64 is set up here" >&2; exit 1; }
  apt="$dir/apt"
  mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$dir/debs"
  printf "deb http://deb.debian.org/debian bookworm main\ndeb http://deb.debian.org/debian bookworm-backports main\n" > "$apt/sources.list"
  opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
        -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache::Archives=$apt/archives" -o "Debug::NoLocking=1")
  apt-get "${opts[@]}" update -qq >&2 || { echo "lavapipe: apt-get update (bookworm-backports) failed" >&2; exit 1; }
  (cd "$dir/debs" && apt-get "${opts[@]}" download libvulkan1 mesa-vulkan-drivers/bookworm-backports >&2) \
    || { echo "lavapipe: apt-get download failed" >&2; exit 1; }
  for deb in "$dir"/debs/*.deb; do dpkg -x "$deb" "$dir"; done
  # The packaged ICD file names the library by its installed path; point it at the unpacked copy.
  sed -i "s#\"library_path\": *\"[^\"]*\"#\"library_path\": \"$lib/libvulkan_lvp.so\"#" "$icd"
fi
echo "export LD_LIBRARY_PATH=\"$lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}\""
echo "export VK_DRIVER_FILES=\"$icd\""
