"""Simulations per move of openspiel:mcts at a per-game budget, as JSON (the median over
the searched moves of a few games, played in this process as the harness plays them).

    python benchmarks/openspiel_mcts.py [--player openspiel:mcts] [--games 3] [--time-per-game 1]
"""

import argparse
import json
import math
import os
import statistics

from pokersquares import AMERICAN
from pokersquares.errors import PokerSquaresError
from pokersquares.harness.game_play import play_game
from pokersquares.harness.registry import make_player


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--player", default="openspiel:mcts")
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--time-per-game", type=float, default=1.0)
    args = ap.parse_args()
    if args.games < 1:
        ap.error(f"--games must be at least 1, got {args.games}")
    if not (math.isfinite(args.time_per_game) and args.time_per_game > 0):
        ap.error(f"--time-per-game must be a finite number of seconds more than 0, got {args.time_per_game:g}")
    try:
        player = make_player(args.player)
    except PokerSquaresError as e:
        ap.error(str(e))
    if not hasattr(player, "simulations"):  # the figure this script reports
        ap.error(f"--player {args.player!r} does not count its simulations: give openspiel:mcts (with its parameters)")
    player.warm_up()
    player.set_point_system(AMERICAN, 1.0)
    sims, scores, used = [], [], []
    choose = player.choose

    def counted(grid, card, seconds_left):
        cell = choose(grid, card, seconds_left)
        if (grid == -1).sum() > 1:
            sims.append(player.simulations)
        return cell

    player.choose = counted
    for seed in range(args.games):
        record = play_game(player, AMERICAN, seed, args.time_per_game)
        scores.append(record.score)
        used.append(record.decision_s)
    print(json.dumps({"player": args.player, "time_per_game": args.time_per_game, "games": args.games,
                      "simulations_per_move_median": statistics.median(sims), "simulations_per_move_max": max(sims),
                      "scores": scores, "decision_s_max": round(max(used), 3),
                      "load_average_1min": os.getloadavg()[0]}))


if __name__ == "__main__":
    main()
