#!/bin/bash
# learn_in_game on a busy machine: two spinning processes beside the run
cd "${1:-.}"
python -c 'while True: pass' & A=$!
python -c 'while True: pass' & B=$!
uptime
for T in 1 5; do
  pokersquares run --player champion:learn_in_game=true --system american --games 30 --seed 0 --time-per-game $T --prep-time 20 --db busy-lig.sqlite --json > busy-lig-$T.json 2> busy-lig-$T.err
  uptime
done
kill $A $B
