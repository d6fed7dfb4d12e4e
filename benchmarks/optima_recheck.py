"""The stored optima proven close to their time limit, solved again, as JSON lines.

    python benchmarks/optima_recheck.py docs/stores/optimum-british.sqlite [--share 0.8] [--time-limit 900]

Before session 64 a CP-SAT round stopped by its limit before it had a bound was taken as
"no better grid", and the grid held was stored as proven (``optimum/cores.py``). A solve
that ended near its time limit could have begun such a round; this solves each optimum
stored as proven within ``--share`` of its limit again, with ``--time-limit`` seconds,
and prints the stored and the new score per deal, then a summary line.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import sqlite3
import sys
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stores", nargs="+", type=Path)
    parser.add_argument("--share", type=float, default=0.8, help="of the time limit: solves that took at least this")
    parser.add_argument("--time-limit", type=float, default=900.0)
    args = parser.parse_args()
    if not 0 <= args.share <= 1:
        parser.error(f"--share is a fraction of the time limit, 0 to 1, got {args.share:g}")
    if not (math.isfinite(args.time_limit) and args.time_limit > 0):
        parser.error(f"--time-limit must be a finite number of seconds more than 0, got {args.time_limit:g}")
    for path in args.stores:
        if not path.is_file():
            parser.error(f"no store at {path}")
    from pokersquares.cards import deal
    from pokersquares.optimum import solve_deal
    from pokersquares.points import PointSystem

    differ = rows = 0
    for path in args.stores:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
            try:
                stored = conn.execute("SELECT seed, system_name, points, score, seconds, time_limit FROM optima "
                                      "WHERE proven = 1 AND seconds >= ? * time_limit ORDER BY seed",
                                      (args.share,)).fetchall()
            except sqlite3.DatabaseError as e:
                parser.error(f"{path} holds no optima ({e})")
        for seed, name, points, score, seconds, limit in stored:
            system = PointSystem(tuple(json.loads(points)), name)
            t = time.perf_counter()
            now = solve_deal(deal(seed)[:25], system, time_limit=args.time_limit)
            rows += 1
            differ += now.score != score or not now.proven
            print(json.dumps({"store": str(path), "seed": seed, "system": name, "stored": score,
                              "stored_s": round(seconds, 3), "time_limit": limit, "now": now.score,
                              "bound": now.bound, "proven": now.proven,
                              "seconds": round(time.perf_counter() - t, 1)}), flush=True)
    print(json.dumps({"rechecked": rows, "differ_or_unproven": differ}))
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
