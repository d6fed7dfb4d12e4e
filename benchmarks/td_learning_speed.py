"""Learning games per second of the TD residual's kernel beside NARL's, as JSON.

    python benchmarks/td_learning_speed.py [--table-games 200000] [--games 20000] [--rounds 3] [--table-step 0.002]
        [--groups default+draws] [--tc true]

Learns a NARL table of ``--table-games`` games (American, one learner), then times,
in alternating rounds on the same table so that a busy machine slows both alike:
NARL's learning kernel (one thread) and the TD kernel (``--groups``, by default
``champion``'s) on one thread and on two threads learning into the same weights. Reports each one's best
round and the ratios, with the load average at the start and the end. ``--table-step``
is the TD games' step on the table's line values (``td:table_step``; 0.002 is the
default of ``td`` and ``champion``, 0 the version 9 evaluator); ``--tc`` whether its steps
are temporal-coherence steps (``td:tc``, the default since version 13) or constant.
"""

import argparse
import json
import math
import os
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from pokersquares.errors import PokerSquaresError
from pokersquares.evaluators.narl import NarlEvaluator
from pokersquares.evaluators.td import parse_groups
from pokersquares.kernels import narl as N
from pokersquares.kernels import td as K
from pokersquares.kernels.core import rng_seed
from pokersquares.players.champion import DEFAULT_GROUPS
from pokersquares.points import AMERICAN


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--table-games", type=int, default=200_000)
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--table-step", type=float, default=0.002)
    ap.add_argument("--groups", default=DEFAULT_GROUPS)
    ap.add_argument("--tc", choices=["true", "false"], default="true")
    args = ap.parse_args()
    try:
        groups = parse_groups(args.groups)
    except PokerSquaresError as e:
        ap.error(str(e))
    # Checked before the table is learned (a minute at the defaults): games per second of
    # no game or no round divided by zero after it.
    if args.table_games < 1 or args.games < 1 or args.rounds < 1:
        ap.error(f"--table-games, --games and --rounds must be at least 1, got {args.table_games}, {args.games} "
                 f"and {args.rounds}")
    if not (math.isfinite(args.table_step) and args.table_step >= 0):
        ap.error(f"--table-step must be a finite number of at least 0, got {args.table_step:g}")
    load_start = os.getloadavg()[0]
    points = np.array(AMERICAN.points, dtype=np.int64)
    narl = NarlEvaluator(games=args.table_games, threads=1)
    narl.prepare(points, 0.0, 0)
    table = narl._tables()
    theta = np.zeros(K.N_WEIGHTS)
    step = args.table_step
    tc = (np.zeros(K.N_WEIGHTS), np.zeros(K.N_WEIGHTS)) if args.tc == "true" else (np.empty(0), np.empty(0))
    alpha = 0.3 if args.tc == "true" else 0.01  # td's defaults with and without temporal coherence
    # Compile both kernels off the clock (NARL's on a scratch copy: the timed games must not grow the table TD reads).
    K.learn_games(4, rng_seed(1), alpha, 0.5, 0.0, *table, theta, groups, False, step, *tc)
    N.learn_games(1, rng_seed(1), 0.0, 1.0, points, narl.keys.copy(), narl.sums.copy(), narl.counts.copy(),
                  narl.used.copy(), narl.size_sums.copy(), narl.size_counts.copy(), True, int(0.7 * len(narl.keys)))
    best = {"narl_1_thread": 0.0, "td_1_thread": 0.0, "td_2_threads": 0.0}
    n = args.games
    with ThreadPoolExecutor(2) as pool:
        for r in range(args.rounds):
            # NARL on a scratch copy of its table: the timed games must not grow the one TD reads.
            keys, sums, counts, used = narl.keys.copy(), narl.sums.copy(), narl.counts.copy(), narl.used.copy()
            t = time.perf_counter()
            N.learn_games(n, rng_seed(10 + r), 0.0, 1.0, points, keys, sums, counts, used,
                          narl.size_sums.copy(), narl.size_counts.copy(), True, int(0.7 * len(keys)))
            best["narl_1_thread"] = max(best["narl_1_thread"], n / (time.perf_counter() - t))
            t = time.perf_counter()
            K.learn_games(n, rng_seed(20 + r), alpha, 0.5, 0.0, *table, theta, groups, False, step, *tc)
            best["td_1_thread"] = max(best["td_1_thread"], n / (time.perf_counter() - t))
            t = time.perf_counter()
            parts = [pool.submit(K.learn_games, n // 2, rng_seed(30 + 2 * r + k), alpha, 0.5, 0.0, *table, theta,
                                 groups, False, step, *tc) for k in range(2)]
            [f.result() for f in parts]
            best["td_2_threads"] = max(best["td_2_threads"], n / (time.perf_counter() - t))
    print(json.dumps({"games_per_round": n, "rounds": args.rounds, "table_games": args.table_games,
                      "table_step": step, "groups": args.groups, "tc": args.tc == "true",
                      **{k: round(v) for k, v in best.items()},
                      "td_over_narl_1_thread": round(best["td_1_thread"] / best["narl_1_thread"], 3),
                      "loadavg_start": load_start, "loadavg_end": os.getloadavg()[0]}))


if __name__ == "__main__":
    main()
