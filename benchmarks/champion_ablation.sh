#!/usr/bin/env bash
# The champion's ablation table on one learned TD evaluator (issue 16): every row plays
# the same saved evaluator on the same deals, so a paired difference is the search
# component alone. Resumable: every row is a run in the store; rerun to finish it.
#
#   bash benchmarks/champion_ablation.sh [STORE] [TABLE] [GAMES] [SECONDS_PER_GAME]
#   python benchmarks/paired_runs.py STORE
#
# Defaults: champion-ablation.sqlite, td-american.npz (learned here in 300 s if
# missing), 200 games (seeds 0..199), 5 s per game; American.
set -euo pipefail
STORE=${1:-champion-ablation.sqlite}
TABLE=${2:-td-american.npz}
GAMES=${3:-200}
SECONDS_PER_GAME=${4:-5}
if [ ! -f "$TABLE" ]; then
    pokersquares train --player champion --system american --prep-time 300 --out "$TABLE" --json
fi
run() {
    pokersquares run --player "$1" --system american --games "$GAMES" --seed 0 \
        --time-per-game "$SECONDS_PER_GAME" --prep-time 0 --db "$STORE" --json -q
}
run "td:load=$TABLE,search=greedy"                # the evaluator alone
run "td:load=$TABLE,search=expectimax"            # GettysburgPlayer's depth-2 expectimax on it
run "champion:load=$TABLE"                        # the default
run "champion:load=$TABLE,clock=usage"            # the clock plans with each move's learned use
run "champion:load=$TABLE,stop_z=1000"            # no early stop
run "champion:load=$TABLE,crn=false"              # independent futures per cell
run "champion:load=$TABLE,halving=false"          # one round over the searched cells
run "champion:load=$TABLE,depth=8"                # playouts of 8 cards before the estimate
run "champion:load=$TABLE,depth=2"                # of 2
run "champion:load=$TABLE,exact=false"            # no exact end game
