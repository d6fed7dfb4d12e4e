"""How much one preparation weighs: the same two players in several result stores (each
store a fresh preparation of each), their means and paired gap on the same deals per
store, and over the stores the spread of the gap against the paired standard error of
one store. JSON on stdout.

    python benchmarks/preparation_spread.py --system hypercorner --player champion --rival beemo \\
        --seeds 100 focus.sqlite tournament-contest-100-v10.sqlite replicate-1.sqlite
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path

from pokersquares.harness.store import ResultStore, StoreError


def games(store: ResultStore, player: str, system: str, seeds: int) -> dict[int, int] | None:
    """Seed -> score (a penalised game's score is its penalty) of ``player``'s run on the
    system whose name starts with ``system`` (case-insensitive), seeds below ``seeds``;
    None when the store has no such run."""
    for run in store.runs():
        if run.player == player and run.system_name.lower().startswith(system.lower()):
            return {g.seed: g.score for g in store.games(run.run_id) if g.seed < seeds}
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stores", nargs="+", type=Path)
    parser.add_argument("--system", required=True, help="the start of the system's name in the stores")
    parser.add_argument("--player", default="champion")
    parser.add_argument("--rival", default="beemo")
    parser.add_argument("--seeds", type=int, default=100, help="only seeds 0..N-1 (the same deals in every store)")
    args = parser.parse_args()
    try:
        stores = [ResultStore(path, readonly=True) for path in args.stores]
    except StoreError as e:
        sys.exit(f"error: {e}")
    rows = []
    for path, store in zip(args.stores, stores):
        a, b = games(store, args.player, args.system, args.seeds), games(store, args.rival, args.system, args.seeds)
        if a is None or b is None:
            continue
        seeds = sorted(set(a) & set(b))
        if len(seeds) < 2:
            continue
        gaps = [a[s] - b[s] for s in seeds]
        rows.append({"store": str(path), "deals": len(seeds), args.player: statistics.fmean(a[s] for s in seeds),
                     args.rival: statistics.fmean(b[s] for s in seeds), "gap": statistics.fmean(gaps),
                     "gap_stderr": statistics.stdev(gaps) / math.sqrt(len(gaps))})
    if not rows:
        sys.exit(f"error: no store holds both {args.player} and {args.rival} on {args.system!r}")
    out = {"system": args.system, "player": args.player, "rival": args.rival, "stores": rows}
    if len(rows) > 1:
        gaps = [r["gap"] for r in rows]
        out["over_preparations"] = {
            "preparations": len(rows), "gap_mean": statistics.fmean(gaps),
            "gap_stderr": statistics.stdev(gaps) / math.sqrt(len(gaps)), "gap_sd": statistics.stdev(gaps),
            f"{args.player}_sd": statistics.stdev(r[args.player] for r in rows),
            f"{args.rival}_sd": statistics.stdev(r[args.rival] for r in rows),
            "mean_paired_stderr_within_a_store": statistics.fmean(r["gap_stderr"] for r in rows)}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
