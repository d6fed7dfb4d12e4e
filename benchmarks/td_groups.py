"""TD feature groups (or other TD settings) compared on the same NARL tables and the same deals, as JSON.

    python benchmarks/td_groups.py --groups default default+cross [--seeds 0 1 2 3]
        [--table-games 500000] [--td-games 500000] [--deals 10000] [--system american]
    python benchmarks/td_groups.py --groups default "default;table_updates=true"

A variant is a group set, optionally followed by ``;`` and TD settings as in a player
spec (``alpha=``, ``lam=``, ``epsilon=``, ``table_updates=``, ``table_step=``, ``tc=``),
parted by ``;``, and
``td_games=N`` to give that variant its own number of TD games (to compare at equal
learning time a variant whose games cost more). The table's own learning settings
(``epsilon0=``, ``decay=``, as in ``td:`` and ``gettysburg:``) give a variant a table of
its own, learned with the same seed: ``"default;decay=0.9999975"``. ``threads=2`` learns
the residual on two threads into the same weights, as ``champion`` does (the table is
learned on one).
For each learning seed: one NARL table of ``--table-games`` games (one learner), then,
for each variant, the TD residual learned on a copy of that table for
``--td-games`` games with the same seed (one thread each), then greedy play of the
contest's deals 0..deals-1. The settings left out are TdEvaluator's defaults of the day
(since 2026-11-26 22:40 ``tc=true;alpha=0.3``; rows measured before it reproduce with
``;tc=false;alpha=0.01`` added to each variant). A learning run's own seed moves the result by a point or
more, so each variant is paired against the first on the same table and deals, and
the summary's standard error is taken across seeds (one paired mean per seed), not
across deals. Seeds run in parallel processes, one per core.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import os
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np


TABLE_SETTINGS = ("epsilon0", "decay", "horizon", "hand_sizes")  # a variant with these learns a table of its own


def variant_settings(variant: str) -> dict:
    """The TdEvaluator keyword arguments of a variant (``groups[;key=value...]``)."""
    from pokersquares.evaluators.td import parse_groups
    from pokersquares.harness.registry import parse_player_spec

    groups, *rest = variant.split(";")
    parse_groups(groups)  # an unknown name fails here, before any learning
    settings = parse_player_spec("td:" + ",".join(rest))[1]
    unknown = set(settings) - {"alpha", "lam", "epsilon", "init", "table_updates", "table_step", "tc", "td_games", "threads", *TABLE_SETTINGS}
    from pokersquares.errors import PokerSquaresError

    if unknown:
        raise PokerSquaresError(f"unknown TD setting(s) {', '.join(sorted(unknown))} in {variant!r}")
    from pokersquares.evaluators.narl import NarlEvaluator
    from pokersquares.evaluators.td import TdEvaluator

    try:  # a bad value fails here, before any learning
        NarlEvaluator(**{k: v for k, v in settings.items() if k in TABLE_SETTINGS})
        TdEvaluator(**{k: v for k, v in settings.items() if k not in (*TABLE_SETTINGS, "td_games")}, groups=groups)
    except (PokerSquaresError, TypeError) as e:
        raise PokerSquaresError(f"{e} in {variant!r}") from None
    return {"groups": groups, **settings}


def _one_seed(seed: int, group_sets: list[str], table_games: int, td_games: int, deals: int,
              points: list[int]) -> dict:
    from pokersquares.evaluators.narl import NarlEvaluator
    from pokersquares.evaluators.td import TdEvaluator
    from pokersquares.search.base import GreedySearch
    from pokersquares.strength import play

    pts = np.array(points, dtype=np.int64)
    tables: dict[tuple, NarlEvaluator] = {}
    out = {"seed": seed, "table_s": {}, "groups": {}}
    greedy = GreedySearch()
    for groups in group_sets:
        settings = variant_settings(groups)
        games = settings.pop("td_games", td_games)
        table = {k: settings.pop(k) for k in TABLE_SETTINGS if k in settings}
        key = tuple(sorted(table.items()))
        if key not in tables:
            t = time.perf_counter()
            tables[key] = NarlEvaluator(**table, games=table_games, threads=1)
            tables[key].prepare(pts, 0.0, seed)
            out["table_s"][str(dict(key))] = round(time.perf_counter() - t, 1)
        ev = TdEvaluator(**{"threads": 1, **settings}, games=table_games, td_games=games)
        ev.points = pts.copy()
        ev.reset(seed)
        ev.narl = copy.deepcopy(tables[key])
        t = time.perf_counter()
        ev.learn(games=games)
        learn_s = time.perf_counter() - t
        scores = [play(ev, greedy, pts, s) for s in range(deals)]
        out["groups"][groups] = {"td_s": round(learn_s, 1), "scores": scores}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--groups", nargs="+", default=["default", "default+cross"])
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3])
    ap.add_argument("--table-games", type=int, default=500_000)
    ap.add_argument("--td-games", type=int, default=500_000)
    ap.add_argument("--deals", type=int, default=10_000)
    ap.add_argument("--system", default="american")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()

    from pokersquares.points import parse_point_system
    from pokersquares.errors import PokerSquaresError

    if args.workers < 1 or args.table_games < 1 or args.td_games < 0 or args.deals < 2:
        ap.error(f"--workers and --table-games must be at least 1, --td-games at least 0 and --deals at least 2 "
                 f"(a standard error), got {args.workers}, {args.table_games}, {args.td_games} and {args.deals}")
    try:
        for g in args.groups:
            variant_settings(g)
        system = parse_point_system(args.system)
    except PokerSquaresError as e:
        ap.error(str(e))
    load = os.getloadavg()[0]
    with ProcessPoolExecutor(args.workers) as pool:
        jobs = [pool.submit(_one_seed, seed, args.groups, args.table_games, args.td_games, args.deals,
                            list(system.points)) for seed in args.seeds]
        runs = [job.result() for job in jobs]
    base = args.groups[0]
    summary = {}
    for g in args.groups:
        means = [statistics.fmean(r["groups"][g]["scores"]) for r in runs]
        row = {"mean_per_seed": [round(m, 3) for m in means], "mean": round(statistics.fmean(means), 3)}
        if g != base:
            diffs = [statistics.fmean(np.subtract(r["groups"][g]["scores"], r["groups"][base]["scores"]))
                     for r in runs]
            row["minus_" + base] = {
                "per_seed": [round(d, 3) for d in diffs], "mean": round(statistics.fmean(diffs), 3),
                "stderr_across_seeds": round(statistics.stdev(diffs) / math.sqrt(len(diffs)), 3)
                if len(diffs) > 1 else None}
        summary[g] = row
    print(json.dumps({"system": system.name, "seeds": args.seeds, "table_games": args.table_games,
                      "td_games": args.td_games, "deals": args.deals, "load_at_start": load,
                      "load_at_end": os.getloadavg()[0],
                      "seconds": {str(r["seed"]): {"table": r["table_s"],
                                                   **{g: r["groups"][g]["td_s"] for g in args.groups}}
                                  for r in runs},
                      "groups": summary}, indent=1))


if __name__ == "__main__":
    main()
