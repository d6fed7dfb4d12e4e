"""Is NARL's table noisy where play looks? Its sample counts, and greedy play with each
entry shrunk toward its neighbours' mean, as JSON.

    python benchmarks/narl_shrinkage.py [--system american] [--seconds 120] [--deals 20000] [--seed 0]

One NARL table learned for ``--seconds`` on both cores (as ``gettysburg`` and the
champion learn it), then: the share of its entries, and of all its samples, held by
entries with fewer than k samples; and greedy playouts from the empty grid (the same
``--deals`` shuffles for every variant) with each entry's mean replaced by
``(sum + k * prior) / (count + k)``, ``prior`` the pooled mean of the same abstraction
one card earlier, the same, and one card later (NARL's key holds the cards played, so
its neighbours are the nearest data). If thin entries misled the greedy choice, some k
would gain.
"""

from __future__ import annotations

import argparse
import json
import math

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--system", choices=("american", "british"), default="american")
    ap.add_argument("--seconds", type=float, default=120.0)
    ap.add_argument("--deals", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if not 0 < args.seconds < math.inf or args.deals < 2:
        ap.error(f"--seconds must be a finite number > 0 and --deals >= 2, got {args.seconds:g} and {args.deals}")
    from pokersquares.evaluators.narl import NarlEvaluator
    from pokersquares.points import AMERICAN, BRITISH

    points = np.array({"american": AMERICAN, "british": BRITISH}[args.system].points, dtype=np.int64)
    ev = NarlEvaluator(budget_share=1.0)
    ev.prepare(points, args.seconds + 0.1, seed=args.seed)
    keys, sums, counts = ev.keys.copy(), ev.sums.copy(), ev.counts.copy()
    slots = np.nonzero(keys != -1)[0]
    c = counts[slots]
    thin = {str(k): {"entries": float(np.mean(c < k)), "samples": float(c[c < k].sum() / c.sum())}
            for k in (2, 10, 100, 1000)}
    where = {int(key): i for i, key in zip(slots, keys[slots])}
    pooled_sums, pooled_counts = sums[slots].copy(), counts[slots].astype(float)
    for j, key in enumerate(keys[slots]):
        n = int(key) & 31
        for m in (n - 1, n + 1):
            i = where.get((int(key) & ~31) | m) if 0 <= m <= 24 else None
            if i is not None:
                pooled_sums[j] += sums[i]
                pooled_counts[j] += counts[i]
    prior = pooled_sums / pooled_counts
    empty = np.full(25, -1, dtype=np.int8)

    def play(s, n):
        ev.sums, ev.counts = s, n
        return ev.playouts(empty, args.deals, 12345)

    base = play(sums, counts)
    rows = []
    for k in (1, 3, 10, 30):
        s2, c2 = sums.copy(), counts.copy()
        s2[slots] = sums[slots] + k * prior
        c2[slots] = counts[slots] + k
        d = play(s2, c2) - base
        rows.append({"k": k, "paired": float(d.mean()), "paired_se": float(d.std(ddof=1) / math.sqrt(len(d)))})
    print(json.dumps({"system": args.system, "seconds": args.seconds, "games_learned": ev.games_learned,
                      "entries": ev.entries, "thin": thin, "deals": args.deals, "greedy_mean": float(base.mean()),
                      "greedy_se": float(base.std(ddof=1) / math.sqrt(len(base))), "shrunk": rows}, indent=1))


if __name__ == "__main__":
    main()
