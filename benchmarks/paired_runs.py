"""Each run's mean, and the paired difference of every two runs on the deals they share,
from one or more result stores; JSON on stdout.

    python benchmarks/paired_runs.py champion-5s.sqlite [more.sqlite ...]

For every run: player, system, per-game and preparation seconds, games, mean ± standard
error, mean and largest decision seconds per game, penalties, fallback moves per game.
For every two runs on the same point system that share at least two deals: the mean
of the game-by-game differences, its standard error and the 95% interval, with the
store and run id of each side (a store may hold two runs of one player).
"""

from __future__ import annotations

import argparse
import json
import math
import sqlite3
import statistics


def _se(xs: list[float]) -> float:
    return statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stores", nargs="+")
    args = parser.parse_args()
    runs = []
    for path in args.stores:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            for run_id, player, system, tpg, prep in db.execute(
                    "select run_id, player, system_name, time_per_game, prep_time from runs"):
                games = {seed: (score, used, penalty, fallback) for seed, score, used, penalty, fallback in db.execute(
                    "select seed, score, decision_s, penalty, fallback_moves from games where run_id = ? and finished",
                    (run_id,))}
                if games:
                    runs.append(({"store": path, "run": run_id, "player": player, "system": system,
                                  "time_per_game": tpg, "prep_time": prep}, games))
    out = {"runs": [], "paired": []}
    for info, games in runs:
        scores = [g[0] for g in games.values()]
        out["runs"].append({**info, "games": len(scores), "mean": round(statistics.fmean(scores), 2),
                            "stderr": round(_se(scores), 2),
                            "seconds_per_game": round(statistics.fmean(g[1] for g in games.values()), 3),
                            "max_seconds": round(max(g[1] for g in games.values()), 3),
                            "penalties": sum(1 for g in games.values() if g[2]),
                            "fallback_moves_per_game": round(statistics.fmean(g[3] for g in games.values()), 2)})
    for i, (a, ga) in enumerate(runs):
        for b, gb in runs[i + 1:]:
            common = sorted(set(ga) & set(gb))
            if a["system"] != b["system"] or len(common) < 2:
                continue
            d = [ga[s][0] - gb[s][0] for s in common]
            m, e = statistics.fmean(d), _se(d)
            out["paired"].append({"a": a["player"], "b": b["player"], "a_run": [a["store"], a["run"]],
                                  "b_run": [b["store"], b["run"]], "system": a["system"], "deals": len(d),
                                  "a_minus_b": round(m, 2), "stderr": round(e, 2),
                                  "ci95": [round(m - 1.96 * e, 2), round(m + 1.96 * e, 2)]})
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
