"""How long a player's games take on each backend: decision seconds per game, as JSON.

    python benchmarks/game_decision_times.py                       # greedy, 200 games, local then two Ray runs
    python benchmarks/game_decision_times.py --player champion --games 40 --time-per-game 1 --prep-time 2

One local run, then ``--ray-runs`` runs in one Ray session (the first of them while Ray
is still starting its worker processes), all of the same spec and deals. For each run:
the median, 99th percentile and largest decision seconds of a game, the number of
penalties, and the slowest games (index, seconds). The games are not recorded; this
measures the backends' overhead, not the player's strength.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys

from pokersquares.errors import PokerSquaresError
from pokersquares.harness import local_backend
from pokersquares.harness.runner import RunSpec
from pokersquares.points import parse_point_system


def summary(name: str, records) -> dict:
    seconds = sorted(r.decision_s for r in records)
    slowest = sorted(records, key=lambda r: -r.decision_s)[:5]
    return {"run": name, "games": len(records), "median_s": statistics.median(seconds),
            "p99_s": seconds[min(len(seconds) - 1, int(0.99 * len(seconds)))], "max_s": seconds[-1],
            "penalties": sum(r.penalty is not None for r in records),
            "slowest": [[r.game_index, round(r.decision_s, 4)] for r in slowest]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", default="greedy")
    parser.add_argument("--system", default="american")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--time-per-game", type=float, default=1.0)
    parser.add_argument("--prep-time", type=float, default=1.0)
    parser.add_argument("--ray-runs", type=int, default=2, help="runs in the one Ray session (0: local only)")
    args = parser.parse_args()
    try:
        if args.games < 1 or args.ray_runs < 0:
            raise PokerSquaresError("--games must be at least 1 and --ray-runs at least 0")
        spec = RunSpec(args.player, parse_point_system(args.system), args.games, args.seed, args.time_per_game,
                       args.prep_time)
        runs = [summary("local", local_backend.run_games(spec, range(args.games)))]
        if args.ray_runs:
            from pokersquares.harness import ray_backend
            with ray_backend.session():
                runs += [summary(f"ray {k + 1}", ray_backend.run_games(spec, range(args.games)))
                         for k in range(args.ray_runs)]
    except PokerSquaresError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
    print(json.dumps({"player": args.player, "system": args.system, "time_per_game": args.time_per_game,
                      "runs": runs}, indent=1))


if __name__ == "__main__":
    main()
