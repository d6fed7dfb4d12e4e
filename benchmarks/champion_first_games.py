"""The first games of fresh champion processes: moves left greedy by the clock, and the
four-card end games played exact, as JSON.

Each process builds the player, warms it up, prepares it with no time (a player given a
saved evaluator with ``load=`` plays it as it is) and plays its games through the
harness's own game loop (``harness.game_play.play_game``), on the deals from ``--seed``
on (process i plays seeds seed + i * games ...). What a search learns about its costs
lives in the process, so a process's first game is where a mistimed first batch shows.

    python benchmarks/champion_first_games.py --processes 12 --games 3 --time-per-game 2

Run it with ``PYTHONPATH=OTHER/src`` to measure another checkout (session 77 compared
versions 20 and 21 so: docs/results.md, "Session 77").
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

DEFAULT_LOAD = Path(__file__).resolve().parent.parent / "docs" / "stores" / "td-american-v16.npz"

CHILD = r"""
import json, sys
from pokersquares.game import EMPTY
from pokersquares.harness.game_play import play_game
from pokersquares.harness.registry import make_player
from pokersquares.points import parse_point_system

spec, system, games, time_per_game, first_seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
points = parse_point_system(system)
player = make_player(spec)
player.warm_up()
player.set_point_system(points, 0.0)
four = {"moves": 0, "exact": 0}
choose = player.search.choose

def counted(evaluator, grid, *args, **kwargs):
    answer = choose(evaluator, grid, *args, **kwargs)
    if int((grid == EMPTY).sum()) == 4:
        four["moves"] += 1
        four["exact"] += bool(player.search.last["exact"])
    return answer

player.search.choose = counted
records = [play_game(player, points, first_seed + g, time_per_game) for g in range(games)]
print(json.dumps({"games": [[r.score, r.fallback_moves, r.penalty, r.decision_s] for r in records], **four}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--processes", type=int, default=12)
    ap.add_argument("--games", type=int, default=3, help="games each process plays")
    ap.add_argument("--time-per-game", type=float, default=2.0)
    ap.add_argument("--player", default=f"champion:load={DEFAULT_LOAD}",
                    help="a player whose search is CrnHalving (default: champion on a saved evaluator)")
    ap.add_argument("--system", default="american")
    ap.add_argument("--seed", type=int, default=1000, help="the first deal's seed")
    args = ap.parse_args()
    if args.processes < 1 or args.games < 1 or not 0 < args.time_per_game < float("inf"):
        ap.error(f"--processes and --games must be at least 1 and --time-per-game above 0, got {args.processes}, "
                 f"{args.games} and {args.time_per_game}")
    from pokersquares.errors import PokerSquaresError
    from pokersquares.harness.registry import checked_player
    from pokersquares.points import parse_point_system

    try:  # said before any process starts
        parse_point_system(args.system)
        checked_player(args.player)
    except PokerSquaresError as e:
        ap.error(str(e))
    games, four_moves, four_exact = [], 0, 0
    for i in range(args.processes):
        done = subprocess.run([sys.executable, "-c", CHILD, args.player, args.system, str(args.games),
                               str(args.time_per_game), str(args.seed + i * args.games)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
            sys.exit(f"error: process {i} failed: {tail}")
        out = json.loads(done.stdout.strip().splitlines()[-1])
        games += [dict(process=i, game=j, score=s, fallback_moves=f, penalty=p, seconds=u)
                  for j, (s, f, p, u) in enumerate(out["games"])]
        four_moves += out["moves"]
        four_exact += out["exact"]
    first = [g for g in games if g["game"] == 0]
    print(json.dumps({
        "player": args.player, "system": args.system, "processes": args.processes, "games_each": args.games,
        "time_per_game": args.time_per_game,
        "fallback_moves_first_games": sum(g["fallback_moves"] for g in first),
        "first_games_with_fallback_moves": sum(g["fallback_moves"] > 0 for g in first),
        "fallback_moves_later_games": sum(g["fallback_moves"] for g in games if g["game"] > 0),
        "four_empty_moves": four_moves, "four_empty_exact": four_exact,
        "penalties": sum(g["penalty"] is not None for g in games),
        "max_seconds": max(g["seconds"] for g in games),
        "mean_score": sum(g["score"] for g in games) / len(games),
    }, indent=1))


if __name__ == "__main__":
    main()
