"""What the small-budget guard decides after real preparations: each player prepared
``--repeats`` times on each system (each preparation on its own seed), with the check's
report and the decision of the rule now (the table is dropped only when it scored more
than ``MARGIN_Z`` standard errors below the greedy rule) and of the rule before it (the
table had to score more). JSON on stdout, one line per preparation on stderr.

    python benchmarks/guard_decisions.py --players beemo,gettysburg \\
        --systems "hypercorner:34412016;single:high_card" --prep-time 30 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import sys

from pokersquares.errors import PokerSquaresError
from pokersquares.harness.registry import make_player, split_player_list
from pokersquares.players.greedy_guard import MARGIN_Z
from pokersquares.points import parse_point_systems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="beemo,gettysburg,champion")
    parser.add_argument("--systems", default="hypercorner:34412016;single:high_card;single:flush")
    parser.add_argument("--prep-time", type=float, default=30.0)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    try:
        players = split_player_list(args.players)
        systems = parse_point_systems(args.systems)
        for spec in players:
            make_player(spec)
        if args.repeats < 1 or not args.prep_time > 0:
            raise PokerSquaresError("--repeats must be at least 1 and --prep-time more than 0")
    except PokerSquaresError as e:
        parser.error(str(e))
    rows = []
    for system in systems:
        for spec in players:
            for repeat in range(args.repeats):
                player = make_player(spec)
                player.warm_up()  # as the harness does, before the preparation's clock
                player.set_seed(1000 + repeat)
                player.set_point_system(system, args.prep_time)
                g = player.guard
                row = {"player": spec, "system": system.name, "repeat": repeat, "games": g.games,
                       "learned_mean": round(g.learned_mean, 3), "greedy_mean": round(g.greedy_mean, 3),
                       "diff_se": round(g.diff_se, 3), "plays_greedy_rule": g.plays_greedy_rule,
                       "plays_greedy_rule_before": g.games > 0 and not g.learned_mean > g.greedy_mean}
                rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
    print(json.dumps({"prep_time": args.prep_time, "margin_z": MARGIN_Z, "rows": rows,
                      "greedy_rule_now": sum(r["plays_greedy_rule"] for r in rows),
                      "greedy_rule_before": sum(r["plays_greedy_rule_before"] for r in rows)}, indent=1))


if __name__ == "__main__":
    main()
