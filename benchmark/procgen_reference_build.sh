#!/usr/bin/env bash
# Builds the C++ original of procgen 0.10.7 (openai/procgen at 37b521d) and the libenv driver
# benchmark/procgen_reference.cpp, outside the repository, for benchmark/procgen_fidelity.ts.
#
#   benchmark/procgen_reference_build.sh PROCGEN_GIT_DIR GYM3_GIT_DIR SCRATCH_DIR
#
# With PROCGEN_DUMP_ENTITIES=1 the copy in SCRATCH_DIR/src is instrumented before it is built (use a SCRATCH_DIR of
# its own): before rendering each observation, the game prints its level seed, cur_time and every entity's fields
# to stderr when the variable is set at run time too (benchmark/procgen_entities.ts reads them). The results are
# otherwise unchanged: the same recordings, byte for byte.
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
if [ "${PROCGEN_DUMP_ENTITIES:-}" = 1 ] && ! grep -q dump_entities "$scratch/src/procgen/src/game.h"; then
  src="$scratch/src/procgen/src"
  # A virtual hook on Game, called before the observation is rendered; BasicAbstractGame prints its entities with
  # %a (exact floats): "F level_seed cur_time", then "E type image_type x y vx vy rx ry rotation alpha" per entity.
  perl -0pi -e 's/(virtual void game_draw\(QPainter &p, const QRect &rect\) = 0;)/$1\n    virtual void dump_entities() {}/' "$src/game.h"
  perl -0pi -e 's/(\n\s*void set_pen_brush_color\()/\n    void dump_entities() override;$1/' "$src/basic-abstract-game.h"
  perl -0pi -e 's/^/#include <cstdlib>\n/; s/(\n(\s*)render_to_buf\(render_buf, RES_W, RES_H, false\);)/\n$2if (std::getenv("PROCGEN_DUMP_ENTITIES")) dump_entities();$1/' "$src/game.cpp"
  cat >> "$src/basic-abstract-game.cpp" <<'CPP'

void BasicAbstractGame::dump_entities() {
    fprintf(stderr, "F %d %d\n", current_level_seed, cur_time);
    for (const auto &e : entities)
        fprintf(stderr, "E %d %d %a %a %a %a %a %a %a %a\n", e->type, e->image_type, e->x, e->y, e->vx, e->vy, e->rx, e->ry, e->rotation, e->alpha);
}
CPP
  grep -q dump_entities "$src/basic-abstract-game.h" && grep -q dump_entities "$src/game.cpp" || { echo "error: could not instrument $src" >&2; exit 1; }
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
