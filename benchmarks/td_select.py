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

``--ensemble`` also plays the K learners together on the evaluation deals: each card
goes to the cell where the *sum* of their placement values is highest (an ensemble of
the learners instead of a pick), and reports its gain over the learners' average and
over the selected learner, with standard errors across seeds. NARL's keys tell rows
from columns, and each learner settles which orientation its flushes and its pairs go
to on its own, so a learner after the first joins the ensemble either as it is or
transposed (it sees the grid with rows and columns swapped), whichever the check deals
score higher; ``orientations`` in each run says which (``"T"`` transposed) and
``orientation_checks`` what the check deals scored each way.
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


TRANSPOSE = np.array([(i % 5) * 5 + i // 5 for i in range(25)])  # cell (r, c) <-> (c, r)


def _values(evaluator, grid: np.ndarray, card: int, transposed: bool) -> np.ndarray:
    """Placement values of ``card`` on ``grid``, or, transposed, of the evaluator looking
    at the grid with rows and columns swapped (mapped back to the grid's cells)."""
    if not transposed:
        return evaluator.placement_values(grid, card)
    return evaluator.placement_values(grid[TRANSPOSE].copy(), card)[TRANSPOSE]


def _play_ensemble(evaluators: list, points: np.ndarray, seed: int, transposed: tuple = ()) -> int:
    """One game on the deal of ``seed`` as :func:`pokersquares.strength.play` plays it
    greedily, each card to the cell with the highest sum of the evaluators' values
    (``transposed[k]``: evaluator k sees the grid transposed)."""
    from pokersquares.strength import play_deal

    flags = tuple(transposed) + (False,) * (len(evaluators) - len(transposed))
    return play_deal(lambda grid, card, move: int(np.argmax(sum(_values(ev, grid, card, t)
                                                               for ev, t in zip(evaluators, flags)))), points, seed)


def _one_seed(seed: int, learners: int, table_games: int, td_games: int, deals: int, check_deals: int,
              points: list[int], table_step: float, constant_step: bool, ensemble: bool = False) -> dict:
    from pokersquares.evaluators.td import TdEvaluator
    from pokersquares.search.base import GreedySearch
    from pokersquares.strength import play

    pts = np.array(points, dtype=np.int64)
    greedy = GreedySearch()
    out = []
    evaluators = []
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
        evaluators.append(ev)
    chosen = max(range(learners), key=lambda k: out[k]["check_mean"])
    run = {"seed": seed, "learners": out, "selected": chosen,
           "selected_mean": out[chosen]["mean"],
           "average_mean": round(statistics.fmean(o["mean"] for o in out), 3)}
    if ensemble:
        flags: list[bool] = [False]
        run["orientation_checks"] = []
        for k in range(1, learners):  # each further learner as it is or transposed, by the check
            checks = {t: statistics.fmean(_play_ensemble(evaluators[:k + 1], pts, CHECK_FROM + s, (*flags, t))
                                          for s in range(check_deals)) for t in (False, True)}
            flags.append(checks[True] > checks[False])
            run["orientation_checks"].append({"as_is": round(checks[False], 3), "transposed": round(checks[True], 3)})
        run["orientations"] = "".join("T" if t else "-" for t in flags)
        run["ensemble_mean"] = round(statistics.fmean(_play_ensemble(evaluators, pts, s, tuple(flags))
                                                      for s in range(deals)), 3)
    return run


def _gain(values: list[float]) -> dict:
    return {"per_seed": [round(g, 3) for g in values], "mean": round(statistics.fmean(values), 3),
            "stderr_across_seeds": round(statistics.stdev(values) / math.sqrt(len(values)), 3)
            if len(values) > 1 else None}


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
    ap.add_argument("--ensemble", action="store_true",
                    help="also play the learners together (each card to the highest sum of their values)")
    args = ap.parse_args()
    if args.learners < 1 or args.deals < 1 or args.check_deals < 1 or args.workers < 1:
        ap.error("--learners, --deals, --check-deals and --workers must be positive")
    if args.table_games < 1 or args.td_games < 0:
        ap.error(f"--table-games must be at least 1 and --td-games at least 0, got {args.table_games} and {args.td_games}")
    if not 0 <= args.table_step < math.inf:
        ap.error(f"--table-step must be a finite number >= 0, got {args.table_step}")

    from pokersquares.points import parse_point_system
    from pokersquares.errors import PokerSquaresError

    try:
        system = parse_point_system(args.system)
    except PokerSquaresError as e:
        ap.error(str(e))
    load = os.getloadavg()[0]
    with ProcessPoolExecutor(args.workers) as pool:
        jobs = [pool.submit(_one_seed, seed, args.learners, args.table_games, args.td_games, args.deals,
                            args.check_deals, list(system.points), args.table_step, args.constant_step, args.ensemble)
                for seed in args.seeds]
        runs = [job.result() for job in jobs]
    gains = [r["selected_mean"] - r["average_mean"] for r in runs]
    every = [o["mean"] for r in runs for o in r["learners"]]
    ensemble = {}
    if args.ensemble:
        ensemble = {"ensemble_mean": round(statistics.fmean(r["ensemble_mean"] for r in runs), 3),
                    "ensemble_gain_over_average": _gain([r["ensemble_mean"] - r["average_mean"] for r in runs]),
                    "ensemble_gain_over_selected": _gain([r["ensemble_mean"] - r["selected_mean"] for r in runs])}
    print(json.dumps({
        "system": system.name, "seeds": args.seeds, "learners": args.learners, "table_games": args.table_games,
        "td_games": args.td_games, "table_step": args.table_step,
        "constant_step": args.constant_step, "deals": args.deals, "check_deals": args.check_deals,
        "load_at_start": load, "load_at_end": os.getloadavg()[0], "runs": runs,
        "every_learner": {"mean": round(statistics.fmean(every), 3), "min": min(every), "max": max(every)},
        "selected_mean": round(statistics.fmean(r["selected_mean"] for r in runs), 3),
        "selection_gain": _gain(gains), **ensemble,
    }, indent=1))


if __name__ == "__main__":
    main()
