"""Two players' paired differences on several point systems, and their z-scores combined
into one (Stouffer's sum over the square root of their number); JSON on stdout.

    python benchmarks/combine_systems.py narl-rule.sqlite --player champion \\
        --rival champion:evaluator=narl --horizon 4

Reads the runs of ``--player`` and ``--rival`` (their exact player specs) from the
stores, and for every point system both played: the mean game-by-game difference
(player − rival) on the deals both played, its standard error and its z-score. A
tournament's per-system differences are each too noisy to resolve a small effect; the
combined z asks whether they lean one way together (each system weighs the same,
whatever its points). ``--horizon N`` keeps the systems where ``champion``'s
``depth=auto`` plays N-card playouts (4 or 8: :func:`~pokersquares.players.champion.playout_depth`);
``--systems`` names them (comma-separated, any case). A system where the two played the
same score on every deal (standard error 0) is listed but left out of the combination.
"""

from __future__ import annotations

import argparse
import json
import math

from pokersquares.harness.compare import compare_runs, load_runs
from pokersquares.harness.store import StoreError


def combine(rows: list[dict]) -> dict:
    """Stouffer's z over ``rows`` (each with ``a_minus_b`` and ``stderr``), those with a
    positive standard error; ``systems``: how many took part."""
    zs = [r["a_minus_b"] / r["stderr"] for r in rows if r["stderr"]]
    if not zs:
        return {"systems": 0, "z": None}
    return {"systems": len(zs), "z": sum(zs) / math.sqrt(len(zs))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stores", nargs="+")
    parser.add_argument("--player", required=True, help="the player's exact spec in the stores")
    parser.add_argument("--rival", required=True, help="the rival's exact spec in the stores")
    parser.add_argument("--horizon", type=int, choices=(4, 8), help="only the systems where depth=auto plays N-card playouts")
    parser.add_argument("--systems", help="only these systems (their names, comma-separated)")
    args = parser.parse_args()
    from pokersquares.players.champion import playout_depth

    try:
        runs = [r for r in load_runs(args.stores, players=[args.player, args.rival])
                if r.info.player in (args.player, args.rival)]
    except (StoreError, OSError) as exc:
        parser.error(str(exc))
    wanted = None if args.systems is None else {s.strip().lower() for s in args.systems.split(",") if s.strip()}
    rows = []
    for points in dict.fromkeys(tuple(r.info.points) for r in runs):
        pair = [next((r for r in runs if tuple(r.info.points) == points and r.info.player == who), None)
                for who in (args.player, args.rival)]
        if None in pair or (args.horizon is not None and playout_depth(points) != args.horizon):
            continue
        d = compare_runs(pair)["paired"]
        if not d or (wanted is not None and d[0]["system"].lower() not in wanted):
            continue
        d = d[0]
        rows.append({"system": d["system"], "deals": d["deals"], "a_minus_b": d["a_minus_b"], "stderr": d["stderr"],
                     "z": d["a_minus_b"] / d["stderr"] if d["stderr"] else None})
    if not rows:
        parser.error(f"no point system with runs of both {args.player!r} and {args.rival!r} (on the deals and systems asked)")
    print(json.dumps({"player": args.player, "rival": args.rival, "per_system": rows, "combined": combine(rows)}, indent=1))


if __name__ == "__main__":
    main()
