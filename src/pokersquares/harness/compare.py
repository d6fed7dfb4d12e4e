"""Paired comparisons of recorded runs, from one or more result stores.

Two players' means over the same deals differ far less by chance than two means over
different deals: a deal that is hard for one is hard for the other. So every two runs
of one point system are compared game by game on the deals (seeds) both played: the
mean of the differences, its standard error and the 95 % interval (Student's t on the
deals less one degrees of freedom: on 3 deals it is 2.2 times as wide as the normal
± 1.96 SE, on 300 half a percent wider). This is how the figures in docs/results.md are
stated (their intervals, made before session 64, as ± 1.96 SE, over hundreds of deals
or more); ``pokersquares compare`` prints it.
"""

from __future__ import annotations

import math
import os
import statistics
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Iterable, Mapping, Sequence, cast

import numpy as np

from ..cards import as_sequence
from ..errors import InvalidPointSystemError, PokerSquaresError
from .store import GameRecord, ResultStore, RunInfo, StoreError

__all__ = ["RecordedRun", "CompareError", "load_runs", "store_paths",
           "paired_scores", "run_summary", "run_difference", "system_labels",
           "compare_runs", "t95"]


def t95(deals: int) -> float:
    """The half-width of the 95 % interval of a mean over ``deals`` (>= 2) paired
    differences, in standard errors: Student's t quantile on ``deals - 1`` degrees of
    freedom (4.30 on 3 deals, 1.97 on 300; the normal 1.96 in the limit)."""
    from scipy.stats import t

    return float(t.ppf(0.975, deals - 1))


@dataclass
class RecordedRun:
    """A run of a store and its finished games, by deal seed (without their moves: a
    comparison needs none, and a store of 100,000 games parses them in seconds)."""

    store: str
    info: RunInfo
    games: dict[int, GameRecord]

    @cached_property
    def scores(self) -> dict[int, int]:
        """The scores by deal seed, made once: a run is paired with every other run of its system."""
        return {s: g.score for s, g in self.games.items()}


def _identity(info: RunInfo) -> tuple:
    """What makes a run the run it is, wherever its store was copied to: its settings and
    the moment it was created. Not the code's version: a run made before the store kept
    versions has none, and the release that resumes it writes its own in, so a copy made
    before an upgrade was taken for another run (other code makes a new run, created then)."""
    return (info.player, tuple(info.points), info.seed, info.time_per_game, info.prep_time, info.created)


def _spec_points(system: str | None) -> tuple[int, ...] | None:
    """The points of ``system`` read as a point-system spec, or None (a name only, such as a
    stored custom system's, or no system)."""
    from ..points import parse_point_system

    try:
        return None if system is None else tuple(parse_point_system(system).points)
    except PokerSquaresError:
        return None


def load_runs(paths: Iterable[str | Path], players: Sequence[str] = (), system: str | None = None,
              duplicates: list | None = None) -> list[RecordedRun]:
    """Every run with at least one game in the stores at ``paths`` (read only), in
    store order then run order; ``players``: keep the runs whose player spec contains
    one of these; ``system``: keep the runs of this point system (its name, any case, or
    a spec of the same points: ``ameritish:34412016`` finds a contest tournament's
    "Ameritish", ``0,2,5,...`` an American run).

    A run found in two stores (a copy of a store, or of a store as it was earlier) is
    read once, with the more games of the two: compared with itself it would show a
    difference of 0 ± 0 as if measured. ``duplicates`` (a list, if given) gets
    ``(kept store, kept run id, dropped store, dropped run id)`` for each."""
    paths = store_paths(paths)
    if isinstance(players, str):
        players = (players,)  # one spec, not its letters
    if system is not None and not isinstance(system, str):
        raise InvalidPointSystemError(f"load_runs' system is a point system's name (text such as 'american'), "
                                      f"got {system!r}")
    same_points = _spec_points(system)
    out: list[RecordedRun] = []
    seen = set()
    by_identity: dict[tuple, int] = {}
    for path in paths:
        if Path(path).resolve() in seen:  # a store named twice (by any path) is read once
            continue
        seen.add(Path(path).resolve())
        with ResultStore(path, readonly=True) as store:
            for info in store.runs():  # a run's settings or games edited by hand: a StoreError naming it
                if players and not any(p in info.player for p in players):
                    continue
                if (system is not None and info.system_name.lower() != system.lower()
                        and tuple(info.points) != same_points):
                    continue
                games = {g.seed: g for g in store.iter_games(info.run_id, moves=False)}
                if not games:
                    continue
                run = RecordedRun(str(path), info, games)
                k = by_identity.get(_identity(info))
                if k is not None and _same_games(out[k], run):
                    kept, dropped = (run, out[k]) if len(games) > len(out[k].games) else (out[k], run)
                    out[k] = kept
                    if duplicates is not None:
                        duplicates.append((kept.store, kept.info.run_id, dropped.store, dropped.info.run_id))
                    continue
                by_identity[_identity(info)] = len(out)
                out.append(run)
    return out


def store_paths(paths) -> list:
    """``paths`` as a list of store paths: one path (text or a Path) is one store, not
    the letters of its name; None or anything not iterable is a StoreError."""
    if isinstance(paths, (str, os.PathLike)):
        return [paths]
    try:
        return list(paths)
    except TypeError:
        raise StoreError(f"result stores are a list of paths, got {paths!r}") from None


def _same_games(a: RecordedRun, b: RecordedRun) -> bool:
    """Whether the deals both runs played went the same way in both (one run, copied): the
    same scores, then the same moves (read only for runs of one identity)."""
    common = set(a.games) & set(b.games)
    if any(a.games[s].score != b.games[s].score for s in common):
        return False
    moves = []
    for run in (a, b):
        with ResultStore(run.store, readonly=True) as store:
            stored = store.moves_as_stored(run.info.run_id)
        moves.append({s: stored.get(s) for s in common})
    return moves[0] == moves[1]


def _se(xs: Sequence[float]) -> float | None:
    """The standard error of the mean; None for one value (so the JSON stays JSON).

    Scores are integers: their variance is computed exactly with integers, as
    ``statistics.stdev`` does with fractions at several times the cost (14 s of the 19 s
    that comparing a store of 200 runs of 500 games, 9,900 pairs, took)."""
    n = len(xs)
    if n < 2:
        return None
    if all(type(x) is int for x in xs):
        ints = cast(Sequence[int], xs)
        return _integer_se(n, sum(ints), sum(x * x for x in ints))
    return statistics.stdev(xs) / math.sqrt(n)


def games_summary(scores: Sequence[float], seconds: Sequence[float], penalties: int) -> dict:
    """Mean with its standard error, spread, extremes, time a game and penalties of some
    games' ``scores`` and decision ``seconds``: what ``run`` prints and the Results page
    shows. One game tells no spread: its ``stdev`` and ``stderr`` are None (not 0)."""
    n = len(scores)
    sd = statistics.stdev(scores) if n > 1 else None
    return {"games": n, "mean": statistics.fmean(scores) if n else None, "stdev": sd,
            "stderr": None if sd is None else sd / math.sqrt(n), "min": min(scores, default=None),
            "max": max(scores, default=None), "seconds_per_game": statistics.fmean(seconds) if n else None,
            "penalties": penalties}


def records_summary(records: Sequence[GameRecord]) -> dict:
    """:func:`games_summary` of recorded games."""
    return games_summary([r.score for r in records], [r.decision_s for r in records],
                         sum(1 for r in records if r.penalty))


def _integer_se(n: int, total: int, squares: int) -> float:
    """The standard error of the mean of ``n >= 2`` integers from their exact sum and sum
    of squares."""
    return math.sqrt((n * squares - total * total) / (n * (n - 1))) / math.sqrt(n)


def paired_scores(a: Mapping[int, float], b: Mapping[int, float]) -> tuple[float, float | None, int]:
    """Mean and standard error of ``a - b`` (scores by deal seed) over the seeds both
    hold, and their number: the mean is nan with none in common, the error None below two."""
    diffs = [a[s] - b[s] for s in sorted(set(a) & set(b))]
    return (statistics.fmean(diffs) if diffs else math.nan), _se(diffs), len(diffs)


def run_summary(run: RecordedRun, system: str | None = None) -> dict:
    """The run's games, mean ± standard error (None for one game), seconds per game (mean and largest),
    penalties and fallback moves per game; ``system``: the name to give its point system
    (default: its own; :func:`compare_runs` tells apart two systems of one name)."""
    games = list(run.games.values())
    scores = [g.score for g in games]
    return {"store": run.store, "run": run.info.run_id, "player": run.info.player,
            "player_name": run.info.player_name, "version": run.info.version,
            "system": run.info.system_name if system is None else system, "points": list(run.info.points),
            "time_per_game": run.info.time_per_game, "prep_time": run.info.prep_time, "games": len(scores),
            "mean": statistics.fmean(scores), "stderr": _se(scores),
            "seconds_per_game": statistics.fmean(g.decision_s for g in games),
            "max_seconds": max(g.decision_s for g in games),
            "penalties": sum(1 for g in games if g.penalty),
            "fallback_moves_per_game": statistics.fmean(g.fallback_moves for g in games)}


def run_difference(a: RecordedRun, b: RecordedRun, system: str | None = None) -> dict | None:
    """``a`` minus ``b`` game by game on the deals both played, or None when they are
    of different point systems or share fewer than two deals. ``system``: the name to
    give their point system (default: its own)."""
    if list(a.info.points) != list(b.info.points):
        return None
    return _difference(a, b, system, *paired_scores(a.scores, b.scores))


def _difference(a: RecordedRun, b: RecordedRun, system: str | None, mean: float, se: float | None,
                deals: int) -> dict | None:
    """:func:`run_difference`'s record of a pairing already computed."""
    if se is None:
        return None
    return {"a": a.info.player, "b": b.info.player, "a_run": [a.store, a.info.run_id],
            "b_run": [b.store, b.info.run_id], "system": a.info.system_name if system is None else system,
            "points": list(a.info.points), "deals": deals,
            "a_minus_b": mean, "stderr": se, "ci95": [mean - t95(deals) * se, mean + t95(deals) * se]}


def system_labels(runs: Iterable[RunInfo]) -> dict[tuple[int, ...], str]:
    """A name for each point system of ``runs``, by its points: its own, numbered where two
    systems of different points share one (``custom``, ``custom (2)``: two sets of ten
    integers are both "custom")."""
    labels: dict[tuple[int, ...], str] = {}
    for run in runs:
        points = tuple(run.points)
        if points not in labels:
            name, k = run.system_name, 2
            while name in labels.values():
                name, k = f"{run.system_name} ({k})", k + 1
            labels[points] = name
    return labels


def _aligned_scores(runs: Sequence[RecordedRun]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each run's scores on one axis, the deal seeds of its point system's runs:
    ``(int64 scores, bool played)``, in the order of ``runs``."""
    axes: dict[tuple[int, ...], dict[int, int]] = {}
    for run in runs:
        axis = axes.setdefault(tuple(run.info.points), {})
        for seed in run.scores:
            axis.setdefault(seed, len(axis))
    out = []
    for run in runs:
        axis = axes[tuple(run.info.points)]
        scores, played = np.zeros(len(axis), dtype=np.int64), np.zeros(len(axis), dtype=bool)
        at = np.fromiter((axis[s] for s in run.scores), dtype=np.int64, count=len(run.scores))
        scores[at] = np.fromiter(run.scores.values(), dtype=np.int64, count=len(run.scores))
        played[at] = True
        out.append((scores, played))
    return out


def _paired_aligned(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> tuple[float, float | None, int]:
    """:func:`paired_scores` of two runs' aligned integer scores, with exact integer sums
    (the same figures; about 40 times faster than over dicts, for the 19,900 pairs of
    200 runs)."""
    both = a[1] & b[1]
    diffs = a[0][both] - b[0][both]
    n = len(diffs)
    if n == 0:
        return math.nan, None, 0
    total, squares = int(diffs.sum()), int(np.dot(diffs, diffs))
    se = None if n < 2 else _integer_se(n, total, squares)
    return total / n, se, n


class CompareError(PokerSquaresError):
    """What is compared is not recorded runs (:func:`load_runs`'s)."""


def compare_runs(runs: Sequence[RecordedRun]) -> dict:
    """``{"runs": [run_summary...], "paired": [run_difference of every two runs...]}``."""
    runs = as_sequence(runs, "the runs to compare (load_runs' RecordedRuns)", CompareError)
    for run in runs:
        if not isinstance(run, RecordedRun):
            raise CompareError(f"the runs to compare are load_runs' RecordedRuns, got {run!r}")
    labels = system_labels(r.info for r in runs)
    aligned = _aligned_scores(runs)
    paired = [d for i, a in enumerate(runs) for j in range(i + 1, len(runs))
              if list(a.info.points) == list(runs[j].info.points)
              and (d := _difference(a, runs[j], labels[tuple(a.info.points)],
                                    *_paired_aligned(aligned[i], aligned[j]))) is not None]
    return {"runs": [run_summary(r, labels[tuple(r.info.points)]) for r in runs], "paired": paired}
