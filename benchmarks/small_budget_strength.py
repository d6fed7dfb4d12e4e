"""Learning players at small preparation budgets beside greedy (American and British, or
``--systems contest`` for the 12 contest systems); JSON on stdout (one line per run on
stderr as it finishes).

    python benchmarks/small_budget_strength.py --games 200 --preps 1,2,10 --time-per-game 0.2 \\
        --db small-budgets.sqlite
    python benchmarks/small_budget_strength.py --players champion --systems contest --games 100 \\
        --preps 2 --time-per-game 1 --db champion-small.sqlite

Every run goes to the result store (``--db``), so rerunning resumes. Each row: player,
preparation seconds, system, games, mean, its standard error, and the difference to
greedy's mean on the same deals with the standard error of the paired differences.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys

from pokersquares.errors import PokerSquaresError
from pokersquares.harness.registry import make_player, split_player_list
from pokersquares.harness.runner import RunSpec, record_run
from pokersquares.harness.spec import check_seconds
from pokersquares.harness.store import ResultStore
from pokersquares.points import parse_point_systems

PLAYERS = "og,beemo,gettysburg,hybrid,champion"


def _seconds(text: str, option: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise PokerSquaresError(f"{option} takes seconds separated by commas, got {text.strip()!r}") from None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--preps", default="1,2,10")
    parser.add_argument("--time-per-game", type=float, default=0.2)
    parser.add_argument("--players", default=PLAYERS)
    parser.add_argument("--db", default="small-budgets.sqlite")
    parser.add_argument("--systems", default="american,british",
                        help="'contest' (the 12 systems of 2016) or point-system specs separated by commas")
    args = parser.parse_args()
    if args.games < 2:  # a standard error needs two games; checked before any is played
        parser.error(f"--games must be at least 2 (a standard error needs two games), got {args.games}")
    try:  # everything checked before the first game: a bad player or budget costs no greedy run
        systems = parse_point_systems(args.systems)
        players = split_player_list(args.players)
        for spec in players:
            make_player(spec)
        preps = [check_seconds(_seconds(p, "--preps"), "a preparation budget (--preps)", zero_ok=True)
                 for p in args.preps.split(",")]
        check_seconds(args.time_per_game, "the time per game (--time-per-game)", zero_ok=False)
    except PokerSquaresError as error:
        parser.error(str(error))
    rows = []
    with ResultStore(args.db) as store:
        greedy = {system.name: [r.score for r in record_run(
            RunSpec("greedy", system, args.games, 0, args.time_per_game, 0.0), store)[1]] for system in systems}
        for prep in preps:
            for system in systems:
                g = greedy[system.name]
                for player in players:
                    _, recs = record_run(RunSpec(player, system, args.games, 0, args.time_per_game, prep), store)
                    s = [r.score for r in recs]
                    diff = [a - b for a, b in zip(s, g)]
                    row = {"player": player, "prep_s": prep, "system": system.name, "games": len(s),
                           "mean": round(statistics.fmean(s), 2),
                           "stderr": round(statistics.stdev(s) / math.sqrt(len(s)), 2),
                           "greedy_mean": round(statistics.fmean(g), 2),
                           "minus_greedy": round(statistics.fmean(diff), 2),
                           "minus_greedy_stderr": round(statistics.stdev(diff) / math.sqrt(len(diff)), 2),
                           "penalties": sum(1 for r in recs if r.penalty),
                           "fallback_moves_per_game": round(statistics.fmean(r.fallback_moves for r in recs), 2)}
                    rows.append(row)
                    print(json.dumps(row), file=sys.stderr, flush=True)
    print(json.dumps({"time_per_game": args.time_per_game, "loadavg": os.getloadavg()[0], "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
