"""Best of K independent TD learners, chosen by a greedy check on other deals, as JSON.

    python benchmarks/td_select.py [--seeds 0 1 2 3] [--learners 2] [--table-games 1000000]
        [--td-games 250000] [--deals 10000] [--check-deals 2000] [--system american]

One 300 s preparation varies by about a point from run to run (docs/results.md: six
greedy means 122.97 to 125.07, each ± 0.31), mostly through a rare bad learning run.
This measures, at fixed work, what picking the better of K learners would gain: for
each seed, K learners (each its own NARL table of ``--table-games`` games and TD
residual of ``--td-games`` games, one thread each, learning seeds ``seed * K + k``)
play the check deals (1,000,000 onwards) and the evaluation deals (0 onwards) greedily;
the *selected* learner is the one with the best check mean. The gain of selection is
the selected learner's evaluation mean minus the learners' average (what picking one
at random gives), with its standard error across seeds. Seeds run in parallel
processes, one per core.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

CHECK_FROM = 1_000_000  # the check's deals, far from the evaluation's


def _one_seed(seed: int, learners: int, table_games: int, td_games: int, deals: int, check_deals: int,
              points: list[int], table_step: float, constant_step: bool) -> dict:
    from pokersquares.evaluators.td import TdEvaluator
    from pokersquares.search.base import GreedySearch
    from pokersquares.strength import play

    pts = np.array(points, dtype=np.int64)
    greedy = GreedySearch()
    out = []
    for k in range(learners):
        t = time.perf_counter()
        steps = {"tc": False, "alpha": 0.01} if constant_step else {}
        ev = TdEvaluator(games=table_games, td_games=td_games, threads=1, table_step=table_step, **steps)
        ev.prepare(pts, 0.0, seed * learners + k)
        learn_s = time.perf_counter() - t
        check = statistics.fmean(play(ev, greedy, pts, CHECK_FROM + s) for s in range(check_deals))
        score = statistics.fmean(play(ev, greedy, pts, s) for s in range(deals))
        out.append({"learning_seed": seed * learners + k, "learn_s": round(learn_s, 1),
                    "check_mean": round(check, 3), "mean": round(score, 3)})
    chosen = max(range(learners), key=lambda k: out[k]["check_mean"])
    return {"seed": seed, "learners": out, "selected": chosen,
            "selected_mean": out[chosen]["mean"],
            "average_mean": round(statistics.fmean(o["mean"] for o in out), 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3])
    ap.add_argument("--learners", type=int, default=2)
    ap.add_argument("--table-games", type=int, default=1_000_000)
    ap.add_argument("--td-games", type=int, default=250_000)
    ap.add_argument("--deals", type=int, default=10_000)
    ap.add_argument("--check-deals", type=int, default=2_000)
    ap.add_argument("--system", default="american")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--table-step", type=float, default=0.002,
                    help="TdEvaluator's table_step (0: as before 2026-11-26 14:10)")
    ap.add_argument("--constant-step", action="store_true",
                    help="the residual's constant step 0.01 instead of temporal coherence (as before 2026-11-26 22:40)")
    args = ap.parse_args()
    if args.learners < 1 or args.deals < 1 or args.check_deals < 1:
        raise SystemExit("td_select: --learners, --deals and --check-deals must be positive")
    if not args.table_step >= 0:
        raise SystemExit(f"td_select: --table-step must be >= 0, got {args.table_step}")

    from pokersquares.points import parse_point_system
    from pokersquares.errors import PokerSquaresError

    try:
        system = parse_point_system(args.system)
    except PokerSquaresError as e:
        ap.error(str(e))
    load = os.getloadavg()[0]
    with ProcessPoolExecutor(args.workers) as pool:
        jobs = [pool.submit(_one_seed, seed, args.learners, args.table_games, args.td_games, args.deals,
                            args.check_deals, list(system.points), args.table_step, args.constant_step) for seed in args.seeds]
        runs = [job.result() for job in jobs]
    gains = [r["selected_mean"] - r["average_mean"] for r in runs]
    every = [o["mean"] for r in runs for o in r["learners"]]
    print(json.dumps({
        "system": system.name, "seeds": args.seeds, "learners": args.learners, "table_games": args.table_games,
        "td_games": args.td_games, "table_step": args.table_step,
        "constant_step": args.constant_step, "deals": args.deals, "check_deals": args.check_deals,
        "load_at_start": load, "load_at_end": os.getloadavg()[0], "runs": runs,
        "every_learner": {"mean": round(statistics.fmean(every), 3), "min": min(every), "max": max(every)},
        "selected_mean": round(statistics.fmean(r["selected_mean"] for r in runs), 3),
        "selection_gain": {"per_seed": [round(g, 3) for g in gains], "mean": round(statistics.fmean(gains), 3),
                           "stderr_across_seeds": round(statistics.stdev(gains) / math.sqrt(len(gains)), 3)
                           if len(gains) > 1 else None},
    }, indent=1))


if __name__ == "__main__":
    main()
