"""Paired comparisons of recorded runs, from one or more result stores.

Two players' means over the same deals differ far less by chance than two means over
different deals: a deal that is hard for one is hard for the other. So every two runs
of one point system are compared game by game on the deals (seeds) both played: the
mean of the differences, its standard error and the 95 % interval (normal). This is
how the figures in docs/results.md are stated; ``pokersquares compare`` prints it.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from .store import GameRecord, ResultStore, RunInfo

__all__ = ["RecordedRun", "load_runs", "paired_scores", "run_summary", "run_difference", "compare_runs"]

Z95 = 1.96


@dataclass
class RecordedRun:
    """A run of a store and its finished games, by deal seed."""

    store: str
    info: RunInfo
    games: dict[int, GameRecord]


def load_runs(paths: Iterable[str | Path], players: Sequence[str] = (), system: str | None = None) -> list[RecordedRun]:
    """Every run with at least one game in the stores at ``paths`` (read only), in
    store order then run order; ``players``: keep the runs whose player spec contains
    one of these; ``system``: keep the runs of this point system (its name, any case)."""
    out = []
    seen = set()
    for path in paths:
        if Path(path).resolve() in seen:  # a store named twice (by any path) is read once
            continue
        seen.add(Path(path).resolve())
        with ResultStore(path, readonly=True) as store:
            for info in store.runs():
                if players and not any(p in info.player for p in players):
                    continue
                if system is not None and info.system_name.lower() != system.lower():
                    continue
                games = {g.seed: g for g in store.games(info.run_id)}
                if games:
                    out.append(RecordedRun(str(path), info, games))
    return out


def _se(xs: Sequence[float]) -> float | None:
    """The standard error of the mean; None for one value (so the JSON stays JSON)."""
    return statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else None


def paired_scores(a: Mapping[int, float], b: Mapping[int, float]) -> tuple[float, float | None, int]:
    """Mean and standard error of ``a - b`` (scores by deal seed) over the seeds both
    hold, and their number: the mean is nan with none in common, the error None below two."""
    diffs = [a[s] - b[s] for s in sorted(set(a) & set(b))]
    return (statistics.fmean(diffs) if diffs else math.nan), _se(diffs), len(diffs)


def run_summary(run: RecordedRun) -> dict:
    """The run's games, mean ± standard error (None for one game), seconds per game (mean and largest),
    penalties and fallback moves per game."""
    games = list(run.games.values())
    scores = [g.score for g in games]
    return {"store": run.store, "run": run.info.run_id, "player": run.info.player, "system": run.info.system_name,
            "time_per_game": run.info.time_per_game, "prep_time": run.info.prep_time, "games": len(scores),
            "mean": statistics.fmean(scores), "stderr": _se(scores),
            "seconds_per_game": statistics.fmean(g.decision_s for g in games),
            "max_seconds": max(g.decision_s for g in games),
            "penalties": sum(1 for g in games if g.penalty),
            "fallback_moves_per_game": statistics.fmean(g.fallback_moves for g in games)}


def run_difference(a: RecordedRun, b: RecordedRun) -> dict | None:
    """``a`` minus ``b`` game by game on the deals both played, or None when they are
    of different point systems or share fewer than two deals."""
    if list(a.info.points) != list(b.info.points):
        return None
    mean, se, deals = paired_scores({s: g.score for s, g in a.games.items()}, {s: g.score for s, g in b.games.items()})
    if se is None:
        return None
    return {"a": a.info.player, "b": b.info.player, "a_run": [a.store, a.info.run_id],
            "b_run": [b.store, b.info.run_id], "system": a.info.system_name, "deals": deals,
            "a_minus_b": mean, "stderr": se, "ci95": [mean - Z95 * se, mean + Z95 * se]}


def compare_runs(runs: Sequence[RecordedRun]) -> dict:
    """``{"runs": [run_summary...], "paired": [run_difference of every two runs...]}``."""
    paired = [d for i, a in enumerate(runs) for b in runs[i + 1:] if (d := run_difference(a, b)) is not None]
    return {"runs": [run_summary(r) for r in runs], "paired": paired}
