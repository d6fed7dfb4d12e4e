#!/bin/bash
# champion:learn_in_game=true on a busy machine: two spinning processes beside the run
# (docs/results.md, "learn_in_game on a busy machine"). Usage: bash benchmarks/learn_in_game_busy.sh [DIR]
# writes DIR/busy-lig.sqlite and DIR/busy-lig-T.json; python benchmarks/paired_runs.py DIR/busy-lig.sqlite reads it.
set -u
cd "${1:-.}"
python -c 'while True: pass' & A=$!
python -c 'while True: pass' & B=$!
trap 'kill $A $B 2>/dev/null' EXIT
uptime
for T in 1 5; do
  pokersquares run --player champion:learn_in_game=true --system american --games 30 --seed 0 --time-per-game "$T" \
      --prep-time 20 --db busy-lig.sqlite --json > "busy-lig-$T.json" 2> "busy-lig-$T.err"
  uptime
done
