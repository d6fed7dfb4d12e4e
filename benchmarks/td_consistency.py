"""How far a learned evaluator agrees with its own one-step lookahead, as JSON.

    python benchmarks/td_consistency.py FILE [--games 60] [--seed 0] [--from-card 3] [--to-card 20]

Why a search on top of the TD evaluator pays about a point (docs/results.md): TD
learning pulls a grid's value towards the value of the best placement of the next
card, averaged over the cards that can come, so a well-learned evaluator already holds
what a one-step lookahead would tell it. This plays ``--games`` deals (contest seeds
``--seed`` onwards) with the saved evaluator ``FILE`` (``pokersquares train --player
champion --out FILE``) greedily, and at every decision from card ``--from-card`` to
``--to-card`` (0-based) compares, for each empty cell, the evaluator's value of placing
the card there with the one-step backup of that afterstate (GettysburgPlayer's
depth-2 expectimax: the mean over the undealt cards of their best placement's value).
It reports the decisions where the backup's choice is the greedy one, the backup minus
the value (mean and root mean square over all cells; a shift common to every cell
changes no decision), the root mean square of the final score minus the chosen
placement's value (the evaluator's error against the outcome), and, where the two
choices differ, what the backup says the greedy choice loses.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from pokersquares.cards import deal
from pokersquares.errors import PokerSquaresError
from pokersquares.evaluators.td import TdEvaluator
from pokersquares.game import EMPTY
from pokersquares.search.expectimax import Expectimax


def one_step_backups(evaluator, grid: np.ndarray, card: int, cells: np.ndarray) -> np.ndarray:
    """For each of ``cells``: the mean over the undealt cards of the best placement's value
    after ``card`` is placed there (the depth-2 expectimax's values, with no time limit)."""
    _, values = Expectimax().choose(evaluator, grid, card, evaluator.points, float("inf"), 0)
    return values[cells]


def measure(evaluator, games: int, seed: int, from_card: int, to_card: int) -> dict:
    shift, errors, losses = [], [], []
    decisions = agree = 0
    for game in range(games):
        cards = deal(seed + game)
        grid = np.full(25, EMPTY, dtype=np.int8)
        chosen_values = []
        for t, card in enumerate(cards[:25]):
            values = evaluator.placement_values(grid, card)
            cells = np.flatnonzero(grid == EMPTY)
            best = int(np.argmax(values[cells]))
            if from_card <= t <= to_card and len(cells) > 1:
                backups = one_step_backups(evaluator, grid, card, cells)
                decisions += 1
                choice = int(np.argmax(backups))
                agree += choice == best
                if choice != best:
                    losses.append(float(backups[choice] - backups[best]))
                shift.extend(backups - values[cells])
                chosen_values.append(float(values[cells[best]]))
            grid[cells[best]] = card
        final = evaluator.state_value(grid)
        errors.extend(final - v for v in chosen_values)
    shift, errors = np.array(shift), np.array(errors)
    return {"games": games, "decisions": decisions, "backup_agrees_with_greedy": agree / decisions,
            "backup_minus_value_mean": float(shift.mean()), "backup_minus_value_rms": float(np.sqrt(np.mean(shift**2))),
            "final_minus_value_rms": float(np.sqrt(np.mean(errors**2))),
            "greedy_loss_by_the_backup_where_they_differ": float(np.mean(losses)) if losses else 0.0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", help="a saved TD evaluator (pokersquares train --player champion --out FILE)")
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--from-card", type=int, default=3)
    ap.add_argument("--to-card", type=int, default=20)
    args = ap.parse_args()
    if args.games < 1 or not 0 <= args.from_card <= args.to_card <= 23:
        ap.error("--games must be positive and 0 <= --from-card <= --to-card <= 23")
    try:
        evaluator = TdEvaluator().load(args.file)
    except PokerSquaresError as e:
        ap.error(str(e))
    start = time.perf_counter()
    result = measure(evaluator, args.games, args.seed, args.from_card, args.to_card)
    result.update({"file": args.file, "points": [int(p) for p in evaluator.points], "seed": args.seed,
                   "cards": [args.from_card, args.to_card], "seconds": round(time.perf_counter() - start, 1)})
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
