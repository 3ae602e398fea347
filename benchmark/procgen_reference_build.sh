#!/usr/bin/env bash
# Builds the C++ original of procgen 0.10.7 (openai/procgen at 37b521d) and the libenv driver
# benchmark/procgen_reference.cpp, outside the repository, for benchmark/procgen_fidelity.ts.
#
#   benchmark/procgen_reference_build.sh PROCGEN_GIT_DIR GYM3_GIT_DIR SCRATCH_DIR
#
# PROCGEN_GIT_DIR / GYM3_GIT_DIR: bare git directories of openai/procgen and openai/gym3 (gym3 supplies
# libenv.h, the C interface procgen implements). Needs CMake, a C++17 compiler and Qt5's Gui module
# (Debian: qtbase5-dev). Produces SCRATCH_DIR/build/libenv.so and SCRATCH_DIR/build/procgen_reference;
# the original's sources and assets stay in SCRATCH_DIR/src (never in this repository).
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "error: usage: $0 PROCGEN_GIT_DIR GYM3_GIT_DIR SCRATCH_DIR" >&2
  exit 2
fi
procgen_git=$1
gym3_git=$2
scratch=$(mkdir -p "$3" && cd "$3" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
case "$scratch/" in "$(cd "$here/.." && pwd)/"*) echo "error: SCRATCH_DIR must be outside the repository" >&2; exit 2;; esac
commit=37b521dbb530f0734fd82f72d921f5e0e715c0d1
jobs=${JOBS:-2}

if [ ! -f "$scratch/src/procgen/CMakeLists.txt" ]; then
  mkdir -p "$scratch/src"
  git --git-dir="$procgen_git" archive "$commit" | tar -x -C "$scratch/src"
fi
mkdir -p "$scratch/gym3"
git --git-dir="$gym3_git" show HEAD:gym3/libenv.h > "$scratch/gym3/libenv.h"

# procgen's builder.py configures RelWithDebInfo with LIBENV_DIR pointing at gym3's header directory.
# PROCGEN_PACKAGE=ON compiles for -march=ivybridge as the released wheels are: the default -march=native lets GCC
# fuse float multiply-adds on CPUs with FMA, which moves sprite edges and entity positions by a rounding step.
cmake -S "$scratch/src/procgen" -B "$scratch/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPROCGEN_PACKAGE=ON -DLIBENV_DIR="$scratch/gym3" > "$scratch/build.log"
nice -n 10 cmake --build "$scratch/build" -j "$jobs" >> "$scratch/build.log"
nice -n 10 g++ -O2 -std=c++17 -I"$scratch/gym3" "$here/procgen_reference.cpp" -o "$scratch/build/procgen_reference" \
  -L"$scratch/build" -lenv -Wl,-rpath,"$scratch/build"
echo "built $scratch/build/libenv.so and $scratch/build/procgen_reference (assets: $scratch/src/procgen/data/assets/)"
