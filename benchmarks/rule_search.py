"""The greedy rule played as it is, and flat Monte Carlo over it, on the same deals; JSON.

    python benchmarks/rule_search.py [--systems american,british] [--games 100] [--per-move 0.04]

What a searching player plays when its learning lost the small-budget guard's check
(players.greedy_guard): each cell's mean final score over the rule's games on the same
sampled deals, in ``--per-move`` seconds a move (one core, as the player runs it), against
the rule's own move.
Game i is dealt from seed i; the difference is paired game by game.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time

import numpy as np

from pokersquares.errors import PokerSquaresError
from pokersquares.players.greedy_guard import RULE_FIRST_GAMES, greedy_rule_move, greedy_rule_values
from pokersquares.points import parse_point_system
from pokersquares.strength import play_deal


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--systems", default="american,british")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--per-move", type=float, default=0.04)
    args = ap.parse_args()
    if args.games < 2:  # a standard error needs two games; said before any is played
        ap.error(f"--games must be at least 2 (a standard error needs two games), got {args.games}")
    if not (math.isfinite(args.per_move) and args.per_move > 0):
        ap.error(f"--per-move must be a finite number of seconds more than 0, got {args.per_move:g}")
    systems = {}
    for name in args.systems.split(","):  # every system checked before the first is played
        try:
            systems[name] = np.array(parse_point_system(name).points, dtype=np.int64)
        except PokerSquaresError as e:
            ap.error(str(e))
    out = {"games": args.games, "per_move_s": args.per_move, "systems": {}}
    for name, points in systems.items():
        greedy_rule_values(np.full(25, -1, dtype=np.int8), 3, points, 0, games=16)  # compile before timing
        rule, searched, seconds = [], [], []
        for seed in range(args.games):
            rule.append(play_deal(lambda g, c, m: greedy_rule_move(g, c, points), points, seed))
            start = time.perf_counter()
            searched.append(play_deal(lambda g, c, m, s=seed: int(np.argmax(greedy_rule_values(
                g, c, points, s * 31 + m, games=100_000, seconds=args.per_move, first=RULE_FIRST_GAMES))), points, seed))
            seconds.append(time.perf_counter() - start)
        diff = [b - a for a, b in zip(rule, searched)]
        se = lambda xs: statistics.stdev(xs) / math.sqrt(len(xs))  # noqa: E731
        out["systems"][name] = {"rule": round(statistics.fmean(rule), 2), "rule_se": round(se(rule), 2),
                                "searched": round(statistics.fmean(searched), 2), "searched_se": round(se(searched), 2),
                                "diff": round(statistics.fmean(diff), 2), "diff_se": round(se(diff), 2),
                                "seconds_per_game": round(statistics.fmean(seconds), 3)}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
