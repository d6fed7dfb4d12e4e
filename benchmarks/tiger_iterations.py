"""MCTS iterations per move of the ``tiger`` player at a given per-game budget, as JSON.

    python benchmarks/tiger_iterations.py [--time-per-game 5] [--games 3] [--system american]

Plays the contest deals of seeds 0..games-1 in this process (one core, as the
harness runs tiger) and reports the mean iterations per searched move over all
games, per move number (1 = the second card; the first, second, next-to-last and
last moves follow the paper's simple rules and are not searched), with the score
of each game. The Tiger paper does not report its own iteration count.
"""

import argparse
import json
import math

import numpy as np

from pokersquares.harness.game_play import play_game, prepare_player
from pokersquares.players.tiger import TigerPlayer
from pokersquares.points import parse_point_system
from pokersquares.errors import PokerSquaresError


class _Counting(TigerPlayer):
    """Tiger that remembers the iterations of each searched move, by move number."""

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.per_move: dict[int, list[int]] = {}

    def choose(self, grid, card, seconds_left):
        before = self.search.moves_total
        cell = super().choose(grid, card, seconds_left)
        if self.search.moves_total > before:
            placed = int((grid != -1).sum())
            self.per_move.setdefault(placed, []).append(self.search.last_iterations)
        return cell


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--time-per-game", type=float, default=5.0)
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--system", default="american")
    args = ap.parse_args()
    try:
        system = parse_point_system(args.system)
    except PokerSquaresError as e:
        ap.error(str(e))
    if args.games < 1:  # a mean of no searched move, after compiling every kernel
        ap.error(f"--games must be at least 1, got {args.games}")
    if not (math.isfinite(args.time_per_game) and args.time_per_game > 0):
        ap.error(f"--time-per-game must be a finite number of seconds more than 0, got {args.time_per_game:g}")
    player = _Counting(time_per_game=args.time_per_game)
    player.warm_up()  # compile the kernels first, as the harness does
    prepare_player(player, system, 1.0)
    scores = [play_game(player, system, seed, args.time_per_game + 1.0).score for seed in range(args.games)]
    all_iterations = [n for ns in player.per_move.values() for n in ns]
    print(json.dumps({
        "time_per_game_s": args.time_per_game, "games": args.games, "system": args.system, "scores": scores,
        "iterations_per_searched_move": round(float(np.mean(all_iterations))),
        "searched_moves": len(all_iterations),
        "iterations_by_cards_placed": {k: round(float(np.mean(v))) for k, v in sorted(player.per_move.items())},
    }))


if __name__ == "__main__":
    main()
