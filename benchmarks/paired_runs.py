"""Each run's mean, and the paired difference of every two runs on the deals they share,
from one or more result stores; JSON on stdout.

    python benchmarks/paired_runs.py champion-5s.sqlite [more.sqlite ...]

For every run: player, system, per-game and preparation seconds, games, mean ± standard
error, mean and largest decision seconds per game, penalties, fallback moves per game.
For every two runs on the same point system that share at least two deals: the mean
of the game-by-game differences, its standard error and the 95% interval, with the
store and run id of each side (a store may hold two runs of one player).

The same as ``pokersquares compare STORE... --json`` (:mod:`pokersquares.harness.compare`),
with its figures rounded to three decimals.
"""

from __future__ import annotations

import argparse
import json
import sqlite3

from pokersquares.errors import PokerSquaresError
from pokersquares.harness.compare import compare_runs, load_runs


def _rounded(x):
    if isinstance(x, float):
        return round(x, 3)
    if isinstance(x, list):
        return [_rounded(v) for v in x]
    if isinstance(x, dict):
        return {k: _rounded(v) for k, v in x.items()}
    return x


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stores", nargs="+")
    args = parser.parse_args()
    try:
        result = compare_runs(load_runs(args.stores))
    except (PokerSquaresError, OSError, sqlite3.Error) as e:  # a missing, unreadable or foreign file: one line
        parser.error(str(e))
    print(json.dumps(_rounded(result), indent=1))


if __name__ == "__main__":
    main()
