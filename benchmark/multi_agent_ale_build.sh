#!/usr/bin/env bash
# Builds Farama's Multi-Agent ALE (the C++ library PettingZoo's Atari envs drive) and the recorder
# benchmark/multi_agent_ale_record.cpp against it, into a scratch folder outside the repository:
#
#   benchmark/multi_agent_ale_build.sh <Multi-Agent-ALE git dir> <scratch dir>
#
# The git dir is a clone (bare or not) of Farama-Foundation/Multi-Agent-ALE; its HEAD is exported into
# <scratch>/src, configured with CMake (C++ library only, no SDL) and built in <scratch>/build; the recorder lands
# at <scratch>/multi_agent_ale_record. Needs cmake, g++ and the zlib headers. JOBS (default 2) sets make's -j.
set -euo pipefail
if [ $# -ne 2 ]; then echo "usage: $0 <Multi-Agent-ALE git dir> <scratch dir>" >&2; exit 2; fi
git_dir=$1
scratch=$(mkdir -p "$2" && cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -f "$scratch/src/CMakeLists.txt" ]; then
  mkdir -p "$scratch/src"
  git --git-dir="$git_dir" archive HEAD | tar -x -C "$scratch/src"
  git --git-dir="$git_dir" rev-parse HEAD > "$scratch/src/COMMIT"
fi
cmake -S "$scratch/src" -B "$scratch/build" -DCMAKE_BUILD_TYPE=Release -DUSE_SDL=OFF -DBUILD_CPP_LIB=ON \
  -DBUILD_C_LIB=OFF >/dev/null
cmake --build "$scratch/build" --target ale-lib -- -j"${JOBS:-2}"
lib=$(find "$scratch/build" -name 'libale.a' | head -n 1)
g++ -O2 -std=c++17 -I"$scratch/src/src" -I"$scratch/build/src" "$here/multi_agent_ale_record.cpp" "$lib" -lz -lpthread \
  -o "$scratch/multi_agent_ale_record"
echo "built $scratch/multi_agent_ale_record (Multi-Agent-ALE $(cat "$scratch/src/COMMIT"))"
