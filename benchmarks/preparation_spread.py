"""How much one preparation weighs: the same two players in several result stores (each
store a fresh preparation of each), their means and paired gap on the same deals per
store, and over the stores the spread of the gap against the paired standard error of
one store. JSON on stdout.

    python benchmarks/preparation_spread.py --system hypercorner --player champion --rival beemo \\
        --seeds 100 focus.sqlite tournament-contest-100-v10.sqlite replicate-1.sqlite

Where each preparation is a saved file, its players' specs name the file and differ from
one preparation to the next: name each preparation's two runs with ``--pair STORE PLAYER
RIVAL`` (repeatable; the player's column is then "player", the rival's "rival"). Over
the preparations the script also averages each deal's gap over them and gives that mean
gap's standard error over the deals (the deals' noise alone, beside the spread over the
preparations):

    python benchmarks/preparation_spread.py --system american --seeds 2000 \\
        --pair hybrid.sqlite "champion:load=td-0.npz,playouts=1000" "champion:evaluator=narl,load=narl-0.npz,playouts=1000" \\
        --pair preps.sqlite "champion:load=td-1.npz,playouts=1000" "champion:evaluator=narl,load=narl-1.npz,playouts=1000"
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
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
    parser.add_argument("stores", nargs="*", type=Path)
    parser.add_argument("--pair", nargs=3, action="append", default=[], metavar=("STORE", "PLAYER", "RIVAL"),
                        help="one preparation's two runs, by their player specs (repeatable)")
    parser.add_argument("--system", required=True, help="the start of the system's name in the stores")
    parser.add_argument("--player", default="champion")
    parser.add_argument("--rival", default="beemo")
    parser.add_argument("--seeds", type=int, default=100, help="only seeds 0..N-1 (the same deals in every store)")
    args = parser.parse_args()
    if bool(args.stores) == bool(args.pair):
        parser.error("give either result stores (with --player and --rival) or --pair STORE PLAYER RIVAL, one of the two")
    if args.pair:
        wanted = [(Path(path), player, rival) for path, player, rival in args.pair]
        name_a, name_b = "player", "rival"
    else:
        wanted = [(path, args.player, args.rival) for path in args.stores]
        name_a, name_b = args.player, args.rival
    try:
        opened = {path: ResultStore(path, readonly=True) for path, _, _ in wanted}
    except StoreError as e:
        parser.error(str(e))
    rows, gaps_by_deal = [], []
    for path, player, rival in wanted:
        a, b = games(opened[path], player, args.system, args.seeds), games(opened[path], rival, args.system, args.seeds)
        if a is None or b is None:
            if args.pair:
                parser.error(f"{path} holds no run of {player if a is None else rival!r} on {args.system!r}")
            continue
        seeds = sorted(set(a) & set(b))
        if len(seeds) < 2:
            continue
        gaps = [a[s] - b[s] for s in seeds]
        gaps_by_deal.append(dict(zip(seeds, gaps)))
        row = {"store": str(path), "deals": len(seeds), name_a: statistics.fmean(a[s] for s in seeds),
               name_b: statistics.fmean(b[s] for s in seeds), "gap": statistics.fmean(gaps),
               "gap_stderr": statistics.stdev(gaps) / math.sqrt(len(gaps))}
        if args.pair:
            row.update({"player_spec": player, "rival_spec": rival})
        rows.append(row)
    if not rows:
        parser.error(f"no store holds both {args.player} and {args.rival} on {args.system!r}")
    out = {"system": args.system, "player": name_a, "rival": name_b, "stores": rows}
    if len(rows) > 1:
        gaps = [r["gap"] for r in rows]
        out["over_preparations"] = {
            "preparations": len(rows), "gap_mean": statistics.fmean(gaps),
            "gap_stderr": statistics.stdev(gaps) / math.sqrt(len(gaps)), "gap_sd": statistics.stdev(gaps),
            f"{name_a}_mean": statistics.fmean(r[name_a] for r in rows),
            f"{name_b}_mean": statistics.fmean(r[name_b] for r in rows),
            f"{name_a}_sd": statistics.stdev(r[name_a] for r in rows),
            f"{name_b}_sd": statistics.stdev(r[name_b] for r in rows),
            "mean_paired_stderr_within_a_store": statistics.fmean(r["gap_stderr"] for r in rows)}
        common = sorted(set.intersection(*(set(g) for g in gaps_by_deal)))
        if len(common) > 1:  # each deal's gap averaged over the preparations: the deals' noise alone
            mean_gaps = [statistics.fmean(g[s] for g in gaps_by_deal) for s in common]
            out["over_preparations"].update({
                "deals_in_every_preparation": len(common), "gap_mean_over_those_deals": statistics.fmean(mean_gaps),
                "gap_stderr_over_those_deals": statistics.stdev(mean_gaps) / math.sqrt(len(mean_gaps))})
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
