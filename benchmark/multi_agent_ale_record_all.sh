#!/usr/bin/env bash
# Records the Multi-Agent ALE fixtures of tests/multi_agent_ale_fidelity.test.ts with the recorder that
# benchmark/multi_agent_ale_build.sh built:
#
#   benchmark/multi_agent_ale_record_all.sh <scratch dir> <rom dir> [frames]
#
# One file per trajectory, tests/fixtures/multi_agent_ale/<rom>_m<mode>_<policy>.json (format in that folder's
# README.md). Rows: ROM, mode, policies. Every PettingZoo env's default mode is recorded under the scripted policy
# and a seeded random one (pong's variants: scripted only); one further mode per ROM where Multi-Agent ALE has one.
# The LONG rows record the random policy over LONG_FRAMES frames instead, with checksums every 100th frame
# (<rom>_m<mode>_<policy>_long.json), for the games whose rewards, removals and game overs a 2000-frame run barely
# reaches.
set -euo pipefail
if [ $# -lt 2 ]; then echo "usage: $0 <scratch dir> <rom dir> [frames]" >&2; exit 2; fi
recorder=$1/multi_agent_ale_record
roms=$2
frames=${3:-2000}
LONG_FRAMES=30000
out=$(cd "$(dirname "$0")/.." && pwd)/tests/fixtures/multi_agent_ale
mkdir -p "$out"
while read -r rom mode policies; do
  [ -z "$rom" ] && continue
  long=
  if [ "$rom" = LONG ]; then long=1; rom=$mode; mode=${policies%% *}; policies=${policies#* }; fi
  for policy in $policies; do
    name=${policy/:/}
    if [ -n "$long" ]; then
      "$recorder" "$roms/$rom.bin" "$mode" "$LONG_FRAMES" "$policy" 1 100 > "$out/${rom}_m${mode}_${name}_long.json"
    else
      "$recorder" "$roms/$rom.bin" "$mode" "$frames" "$policy" 1 > "$out/${rom}_m${mode}_${name}.json"
    fi
    echo "$rom mode $mode $policy${long:+ (long)}"
  done
done <<'TABLE'
pong 4 scripted random:1
pong 45 scripted
pong 21 scripted
pong 33 scripted
pong 41 scripted
boxing 2 scripted random:1
combat 15 scripted random:1
combat 9 scripted random:1
combat 1 scripted
double_dunk 16 scripted random:1
double_dunk 21 scripted
entombed 2 scripted random:1
entombed 3 scripted random:1
flag_capture 1 scripted
flag_capture 3 scripted
ice_hockey 1 scripted random:1
ice_hockey 3 scripted
joust 1 scripted
joust 3 scripted
mario_bros 2 scripted
mario_bros 4 scripted
maze_craze 4 scripted
maze_craze 45 scripted
othello 4 scripted random:1
space_invaders 34 scripted random:1
space_invaders 51 scripted
space_war 1 scripted random:1
space_war 3 scripted
surround 1 scripted random:1
surround 5 scripted
tennis 2 scripted random:1
tennis 4 scripted
video_checkers 10 scripted random:1
warlords 1 scripted
warlords 6 scripted
wizard_of_wor 1 scripted random:1
LONG flag_capture 1 random:1
LONG maze_craze 4 random:1
LONG mario_bros 2 random:1
LONG warlords 1 random:1
LONG joust 1 random:1
TABLE
