"""How many choices a move really has: empty cells against kinds of alike cells, as JSON.

    python benchmarks/symmetry_choices.py docs/stores/champion-5s-v17.sqlite
    python benchmarks/symmetry_choices.py STORE --run 2

For each run of the store (or the one named), replays each recorded game's placements
and counts, before every move, the empty cells and the classes of cells the grid's
symmetries make alike (:func:`pokersquares.symmetry.cell_classes`): what a search with
``symmetry=true`` judges. Prints, per cards placed, the mean number of classes over the
run's games beside the empty cells, and the share of all moves' cells that are the
first of their kind.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from pokersquares.errors import PokerSquaresError
from pokersquares.game import EMPTY
from pokersquares.harness.store import ResultStore
from pokersquares.symmetry import cell_classes


def choices_per_move(placements) -> list[int]:
    """The kinds of alike empty cells before each of a game's moves, in order."""
    grid = np.full(25, EMPTY, dtype=np.int8)
    kinds = []
    for card, row, col in placements:
        classes = cell_classes(grid)
        kinds.append(len(np.unique(classes[classes >= 0])))
        grid[row * 5 + col] = card
    return kinds


def run_summary(store: ResultStore, run) -> dict:
    totals, games = np.zeros(25), 0
    for record in store.iter_games(run.run_id):
        if len(record.placements) != 25:
            continue  # a penalised game's moves stop early: not counted
        totals += choices_per_move(record.placements)
        games += 1
    if not games:
        return {"run": run.run_id, "player": run.player, "games": 0}
    means = totals / games
    empty = np.arange(25, 0, -1)
    return {"run": run.run_id, "player": run.player, "system": run.system_name, "games": games,
            "choices_by_cards_placed": [round(float(m), 2) for m in means],
            "empty_cells_by_cards_placed": empty.tolist(),
            "searched_share": round(float(means[1:24].sum() / empty[1:24].sum()), 4)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", help="a result store (SQLite)")
    parser.add_argument("--run", type=int, default=None, help="one run's id (default: every run)")
    args = parser.parse_args(argv)
    try:
        with ResultStore(args.store, readonly=True) as store:
            runs = [r for r in store.runs() if args.run is None or r.run_id == args.run]
            if not runs:
                raise PokerSquaresError(f"no run {args.run} in {args.store}" if args.run is not None
                                        else f"no runs in {args.store}")
            print(json.dumps({"store": args.store, "runs": [run_summary(store, r) for r in runs]}, indent=1))
    except PokerSquaresError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
