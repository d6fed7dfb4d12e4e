"""Pick the best of several saved TD evaluators by greedy play on common deals, as JSON.

    python benchmarks/pick_prior.py american-1.npz american-2.npz ... [--deals 100000]
        [--seed 1000000] [--workers 2] [--out src/pokersquares/priors/american.npz]

How the shipped priors of ``pretrained`` (:mod:`pokersquares.priors`) were chosen. One
preparation of a learner varies by about half a point played greedily (docs/results.md,
"Picking the better of two learners"); offline, nothing stops one from learning several
and keeping the best. Each candidate plays ``--deals`` games greedily from the empty grid
(its own policy, the kernel's ``playouts`` to the end) on the same sampled deals (one
seed for all: the deal of each game is drawn before the policy acts, so the candidates
are paired), far from the contest's deals 0..N. Prints each candidate's mean ± SE and
its paired difference from the best, ± SE; ``--out`` copies the best file there.
Candidates must have been learned for the same points.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np


def _scores(path: str, deals: int, seed: int) -> list[int]:
    from pokersquares.evaluators.td import TdEvaluator
    from pokersquares.game import EMPTY

    evaluator = TdEvaluator(threads=1).load(path)
    empty = np.full(25, EMPTY, dtype=np.int8)
    return [int(s) for s in evaluator.playouts(empty, deals, seed)]


def _meta(path: str) -> dict:
    from pokersquares.priors import read_prior

    prior = read_prior(path)
    return {"points": list(prior.points), "system": prior.name, "table_games": prior.meta.get("narl_games_learned"),
            "td_games": prior.meta.get("td_games_learned")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("candidates", nargs="+")
    ap.add_argument("--deals", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1_000_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    from pokersquares.errors import PokerSquaresError

    try:
        metas = {c: _meta(c) for c in args.candidates}
    except PokerSquaresError as e:
        ap.error(str(e))
    if len({tuple(m["points"]) for m in metas.values()}) != 1:
        ap.error("the candidates were learned for different points")
    if args.deals < 2:
        ap.error("--deals must be at least 2")
    start = time.perf_counter()
    with ProcessPoolExecutor(max(1, args.workers)) as pool:
        scores = dict(zip(args.candidates, pool.map(_scores, args.candidates, [args.deals] * len(args.candidates),
                                                     [args.seed] * len(args.candidates))))
    means = {c: float(np.mean(s)) for c, s in scores.items()}
    best = max(means, key=means.get)
    rows = []
    for c in args.candidates:
        s = np.asarray(scores[c], dtype=float)
        diff = s - np.asarray(scores[best], dtype=float)
        rows.append({"file": c, **{k: v for k, v in metas[c].items() if k != "points"}, "mean": round(means[c], 3),
                     "se": round(float(s.std(ddof=1) / math.sqrt(len(s))), 3),
                     "minus_best": round(float(diff.mean()), 3),
                     "minus_best_se": round(float(diff.std(ddof=1) / math.sqrt(len(s))), 3)})
    if args.out:
        shutil.copyfile(best, args.out)
    print(json.dumps({"points": metas[best]["points"], "deals": args.deals, "seed": args.seed, "best": best, "out": args.out,
                      "seconds": round(time.perf_counter() - start, 1), "candidates": rows}, indent=1))


if __name__ == "__main__":
    main()
