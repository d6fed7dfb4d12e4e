"""Average two saved NARL-keyed tables key by key, for an ensemble screen: each key's
value in the output is the mean of the two tables' values where both hold it, else the
one table's value (its count the two counts added); the hand-size tables the same. A
saved TD evaluator gives its table alone (its residual is left out). Prints JSON.

    python benchmarks/average_tables.py narl-american.npz docs/stores/td-american-v16.npz avg.npz
    pokersquares run --player "champion:evaluator=narl,load=avg.npz,playouts=1000" --system american ...
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from pokersquares.errors import PokerSquaresError
from pokersquares.evaluators.narl import NarlEvaluator, write_saved


def average(keys_a, sums_a, counts_a, keys_b, sums_b, counts_b):
    """Keys in either table, each with the mean of the values the tables hold for it."""
    keys = np.union1d(keys_a, keys_b)
    total, held, counts = np.zeros(len(keys)), np.zeros(len(keys)), np.zeros(len(keys), dtype=np.int64)
    for k, s, c in ((keys_a, sums_a, counts_a), (keys_b, sums_b, counts_b)):
        at = np.searchsorted(keys, k)
        total[at] += s / c
        held[at] += 1
        counts[at] += c
    return keys, total / held * counts, counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    try:
        first, second = NarlEvaluator().load(args.a), NarlEvaluator().load(args.b)
    except (OSError, PokerSquaresError, ValueError) as e:
        sys.exit(f"error: {e}")
    if not np.array_equal(first.points, second.points):
        sys.exit(f"error: the tables were learned for two point systems, {first.points.tolist()} and {second.points.tolist()}")
    a, b = first._arrays(), second._arrays()
    keys, sums, counts = average(a["keys"], a["sums"], a["counts"], b["keys"], b["sums"], b["counts"])
    index, size_sums, size_counts = average(a["size_index"], a["size_sums"], a["size_counts"],
                                            b["size_index"], b["size_sums"], b["size_counts"])
    merged = dict(a, keys=keys, sums=sums, counts=counts, size_index=index, size_sums=size_sums,
                  size_counts=size_counts)
    meta = json.loads(str(merged.pop("meta")))
    meta["averaged_from"] = [str(args.a), str(args.b)]
    try:
        write_saved(args.out, merged, meta)  # whole or not at all, in the format every NARL player loads
    except OSError as e:
        sys.exit(f"error: cannot write {args.out}: {e.strerror or e}")
    NarlEvaluator().load(args.out)  # the output is a table the players read
    print(json.dumps({"out": str(args.out), "keys": len(keys), "only_in_a": int(len(np.setdiff1d(a["keys"], b["keys"]))),
                      "only_in_b": int(len(np.setdiff1d(b["keys"], a["keys"]))), "in_both": int(len(np.intersect1d(a["keys"], b["keys"])))}))


if __name__ == "__main__":
    main()
