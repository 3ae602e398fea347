#!/usr/bin/env bash
# Fetches Mesa's lavapipe (a software Vulkan driver) so the WebGPU backend can be tested on a machine without a GPU.
#
#   .ci/lavapipe.sh [DIR]      # default DIR: .cache/lavapipe in the repository (git-ignored)
#   .ci/lavapipe.sh --sources  # only print the private apt source list it would use
#
# Prints the two environment variables the WebGPU path needs, as `export` lines for `eval`, and exits 0; exits 1
# (with a message on stderr) when the packages cannot be had. Nothing is installed: the two .debs are unpacked
# into DIR. Why these packages: Dawn (the `webgpu` npm package) loads libvulkan.so.1 at run time and needs a Vulkan
# driver; Debian bookworm's own Mesa 22.3 lavapipe lacks features Dawn requires
# (shaderUniform*ArrayDynamicIndexing), Mesa 25.0 from bookworm-backports works (envs/torch/README.md, "WebGPU (Vulkan)").
# apt runs with a private source list and state folder, so the system's apt configuration is left untouched: the
# list holds the Debian mirror this machine's apt already uses for bookworm, plus that mirror's bookworm-backports.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
apt_etc="${LAVAPIPE_APT_ETC:-/etc/apt}" # the apt configuration to read the mirror from (a test points it elsewhere)

# The first enabled `deb` source of suite bookworm in the machine's apt configuration, as "URI<TAB>signed-by":
# one-line entries in sources.list and sources.list.d/*.list, deb822 stanzas in sources.list.d/*.sources.
bookworm_mirror() {
  local files=()
  [ -f "$apt_etc/sources.list" ] && files+=("$apt_etc/sources.list")
  for f in "$apt_etc"/sources.list.d/*.list; do [ -f "$f" ] && files+=("$f"); done
  for f in "$apt_etc"/sources.list.d/*.sources; do [ -f "$f" ] && files+=("$f"); done
  [ "${#files[@]}" -gt 0 ] || return 0
  awk '
    function found(uri, key) { if (!done) { print uri "\t" key; done = 1 } }
    function flush() {
      if (types ~ /(^| )deb( |$)/ && suites ~ /(^| )bookworm( |$)/ && enabled !~ /^no$/ && uri != "") found(uri, signed)
      types = ""; suites = ""; uri = ""; signed = ""; enabled = ""
    }
    FNR == 1 { flush(); deb822 = (FILENAME ~ /\.sources$/) }
    /^[ \t]*#/ { next }
    !deb822 {
      if ($1 != "deb") next
      key = ""; i = 2
      if ($2 ~ /^\[/) {   # options: [arch=amd64 signed-by=/usr/share/keyrings/x.gpg]
        for (; i <= NF; i++) {
          if ($i ~ /signed-by=/) { key = $i; sub(/.*signed-by=/, "", key); sub(/\].*/, "", key) }
          if ($i ~ /\]$/) { i++; break }
        }
      }
      if ($(i + 1) == "bookworm") found($i, key)
      next
    }
    /^[ \t]*$/ { flush(); next }
    {
      field = tolower($1); $1 = ""; sub(/^[ \t]+/, "")
      if (field == "types:") types = $0
      else if (field == "uris:") { split($0, u, /[ \t]+/); uri = u[1] }
      else if (field == "suites:") suites = $0
      else if (field == "signed-by:") signed = $0
      else if (field == "enabled:") enabled = tolower($0)
    }
    END { flush() }
  ' "${files[@]}"
}

# The private source list: bookworm (for libvulkan1) and bookworm-backports (for Mesa 25) from that mirror.
private_sources() {
  local mirror uri key opt=""
  mirror="$(bookworm_mirror)"
  [ -n "$mirror" ] || { echo "lavapipe: no Debian bookworm source in $apt_etc/sources.list or $apt_etc/sources.list.d/: the packages come from that mirror's bookworm-backports" >&2; return 1; }
  uri="${mirror%%$'\t'*}"
  key="${mirror#*$'\t'}"
  # A key given inline (a deb822 Signed-By block) has no file name to pass on; apt's default keyrings then apply.
  if [ -n "$key" ] && [ -f "$key" ]; then opt="[signed-by=$key] "; fi
  printf "deb %s%s bookworm main\ndeb %s%s bookworm-backports main\n" "$opt" "$uri" "$opt" "$uri"
}

if [ "${1:-}" = --sources ]; then private_sources; exit; fi

dir="${1:-$root/.cache/lavapipe}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
icd="$dir/usr/share/vulkan/icd.d/lvp_icd.json"
lib="$dir/usr/lib/x86_64-linux-gnu"

if [ ! -f "$icd" ] || [ ! -f "$lib/libvulkan_lvp.so" ] || [ ! -e "$lib/libvulkan.so.1" ]; then
  [ "$(uname -m)" = x86_64 ] || { echo "lavapipe: only x86_64 is set up here" >&2; exit 1; }
  apt="$dir/apt"
  mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$dir/debs"
  private_sources > "$apt/sources.list" || exit 1
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
