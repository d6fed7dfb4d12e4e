#!/usr/bin/env bash
# The champion's ablation table on one learned TD evaluator (issue 16): every row plays
# the same saved evaluator on the same deals, so a paired difference is the search
# component alone. Resumable: every row is a run in the store; rerun to finish it.
#
#   bash benchmarks/champion_ablation.sh [STORE] [TABLE] [GAMES] [SECONDS_PER_GAME] [SYSTEM]
#   python benchmarks/paired_runs.py STORE
#
# Defaults: champion-ablation.sqlite, td-american.npz (learned here in 300 s for SYSTEM
# if missing), 200 games (seeds 0..199), 5 s per game; american (any --system value).
# ROWS="greedy default depth=8" picks rows by the names in the comments below (all
# by default), e.g. the British rows of docs/results.md:
#   ROWS="greedy default flat_ucb depth=8 stop_z=1000 depth=25" \
#       bash benchmarks/champion_ablation.sh british-abl.sqlite td-british.npz 100 5 british
# FIXED=N plays every champion row at fixed work (champion:...,playouts=N: at most N
# playouts a move); with SECONDS_PER_GAME large enough that the clock never binds, the
# rows' games then do not depend on the machine's speed or load:
#   FIXED=5000 ROWS="default crn=false halving=false stop_z=1000" \
#       bash benchmarks/champion_ablation.sh fixed-abl.sqlite td-american.npz 500 10
set -euo pipefail
STORE=${1:-champion-ablation.sqlite}
TABLE=${2:-td-american.npz}
GAMES=${3:-200}
SECONDS_PER_GAME=${4:-5}
SYSTEM=${5:-american}
ROWS=${ROWS:-all}
FIXED=${FIXED:-}
if [ ! -f "$TABLE" ]; then
    pokersquares train --player champion --system "$SYSTEM" --prep-time 300 --out "$TABLE" --json
fi
# run ROW SPEC: play SPEC unless ROWS names other rows only.
run() {
    case " $ROWS " in
        *" all "*|*" $1 "*) ;;
        *) return 0 ;;
    esac
    local spec=$2
    if [ -n "$FIXED" ] && [[ $spec == champion:* ]]; then
        spec="$spec,playouts=$FIXED"
    fi
    pokersquares run --player "$spec" --system "$SYSTEM" --games "$GAMES" --seed 0 \
        --time-per-game "$SECONDS_PER_GAME" --prep-time 0 --db "$STORE" --json -q
}
run greedy        "td:load=$TABLE,search=greedy"                # the evaluator alone
run expectimax    "td:load=$TABLE,search=expectimax"            # GettysburgPlayer's depth-2 expectimax on it
run flat_ucb      "td:load=$TABLE,search=flat_ucb"              # flat UCB1, 5-card playouts, the whole clock
run default       "champion:load=$TABLE"                        # the default
run clock=usage   "champion:load=$TABLE,clock=usage"            # the clock plans with each move's learned use
run stop_z=1000   "champion:load=$TABLE,stop_z=1000"            # no early stop
run crn=false     "champion:load=$TABLE,crn=false"              # independent futures per cell
run halving=false "champion:load=$TABLE,halving=false"          # one round over the searched cells
run depth=8       "champion:load=$TABLE,depth=8"                # playouts of 8 cards before the estimate
run depth=25      "champion:load=$TABLE,depth=25"               # playouts to the end
run search_from=10 "champion:load=$TABLE,search_from=10"        # greedy moves while fewer than 10 cards are placed
run depth=2       "champion:load=$TABLE,depth=2"                # of 2
run exact=false   "champion:load=$TABLE,exact=false"            # no exact end game
