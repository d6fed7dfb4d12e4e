"""How far a player's scores fall from the deals' optima: regret and fraction of optimum.

Regret is ``optimum - score`` per deal; its mean and standard error. The fraction of
optimum is the ratio of means ``mean(score) / mean(optimum)`` (a per-deal ratio is
undefined where a deal's optimum is 0 or negative), with its delta-method standard
error; it is given only where the mean optimum is positive. Where an optimum is not
proven, the best grid found stands in for it, so regret is then a lower bound.
"""

from __future__ import annotations

import math
from typing import Iterable, Mapping

from ..cards import is_integer, is_seconds
from ..errors import PokerSquaresError
from . import Optimum

__all__ = ["regret_summary", "format_regret"]


def regret_summary(scores: Iterable[tuple[int, float]], optima: Mapping[int, Optimum]) -> dict | None:
    """Regret and fraction of optimum of ``(seed, score)`` pairs over the deals with a
    known optimum; None if there are none."""
    if isinstance(scores, (str, bytes, Mapping)) or not isinstance(scores, Iterable):
        raise PokerSquaresError(f"regret needs (seed, score) pairs, got {scores!r}")
    scores = list(scores)
    for pair in scores:
        if (not isinstance(pair, (tuple, list)) or len(pair) != 2 or not is_integer(pair[0])
                or not is_seconds(pair[1]) or not math.isfinite(pair[1])):
            raise PokerSquaresError(f"regret needs (seed, score) pairs of an integer and a finite number, got {pair!r}")
    pairs = [(float(score), float(optima[seed].score), optima[seed].proven)
             for seed, score in scores if seed in optima]
    n = len(pairs)
    if n == 0:
        return None
    regrets = [o - s for s, o, _ in pairs]
    mean_regret = sum(regrets) / n
    mean_opt = sum(o for _, o, _ in pairs) / n
    mean_score = sum(s for s, _, _ in pairs) / n

    def stderr(values, mean):
        if n < 2:
            return None  # one deal has no spread to tell (not "± 0.00")
        return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)

    out = {"deals": n, "proven": sum(p for _, _, p in pairs), "mean_optimum": mean_opt,
           "mean_optimum_stderr": stderr([o for _, o, _ in pairs], mean_opt),
           "mean_score": mean_score, "regret": mean_regret, "regret_stderr": stderr(regrets, mean_regret),
           "fraction": None, "fraction_stderr": None}
    if mean_opt > 0:
        ratio = mean_score / mean_opt
        residuals = [s - ratio * o for s, o, _ in pairs]
        out["fraction"] = ratio
        out["fraction_stderr"] = stderr(residuals, 0.0) / mean_opt if n > 1 else None
    return out


def format_regret(summary: dict) -> str:
    """One line: ``fraction 0.62 ± 0.02 of the optimum, regret 71.3 ± 4.1 (40 deals, 12 proven)``."""
    def se(key: str, digits: int) -> str:
        return "" if summary.get(key) is None else f" ± {summary[key]:.{digits}f}"  # None: one deal

    frac = (f"{summary['fraction']:.3f}{se('fraction_stderr', 3)} of the optimum, "
            if summary["fraction"] is not None else "")
    return (f"{frac}regret {summary['regret']:.2f}{se('regret_stderr', 2)} "
            f"(optimum {summary['mean_optimum']:.2f} on {summary['deals']} deals, {summary['proven']} proven)")


def run_regrets(db, runs, optima_db=None) -> dict[int, dict]:
    """Regret summaries of the result store's ``runs`` (``RunInfo``s) whose deals have
    stored optima, by run id (runs without any are left out). The optima are read
    from ``optima_db`` if given (a store, or a list of stores: one store of optima can
    serve many stores of games, and a report over several point systems can read each
    system's optima from its own store), else from ``db`` itself. Where two stores hold
    a deal's optimum under the same points, the proven one (else the first) counts."""
    from ..harness.store import ResultStore
    from .store import OptimaStore, optima_from
    from pathlib import Path
    if optima_db is None:
        stores = [db]
    elif isinstance(optima_db, (str, Path)):
        stores = [optima_db]
    else:
        stores = list(optima_db)
    stores = [s for s in stores if Path(s).exists()]
    if not Path(db).exists() or not stores:
        return {}
    # Only the runs of a point system the stores hold optima for are read, and of their
    # games only seeds and scores: a listing of a store of millions of games without
    # optima reads none of them.
    held: set[tuple[int, ...]] = set()
    for path in stores:
        with OptimaStore(path, readonly=True) as optima:
            held.update(tuple(points) for _, points, _ in optima.systems())
    runs = [run for run in runs if tuple(run.points) in held]
    out = {}
    with ResultStore(db, readonly=True) as games:
        scores = {run.run_id: games.seed_scores(run.run_id) for run in runs}
    for run in runs:
        known = optima_from(stores, [seed for seed, _ in scores[run.run_id]], run.points)
        summary = regret_summary(scores[run.run_id], known) if known else None
        if summary:
            out[run.run_id] = summary
    return out


def regret_lines(db, runs, optima_db=None) -> list[str]:
    """One line per run with stored optima: ``run N, player on system: <format_regret>``,
    the system named as the table of runs names it (two sets of ten points are both
    "custom": ``custom`` and ``custom (2)``), and the run's id: two runs of one player on
    one system (two versions, two settings) had two lines alike."""
    from ..harness.compare import system_labels
    runs = list(runs)
    regrets = run_regrets(db, runs, optima_db)
    labels = system_labels(runs)
    return [f"run {run.run_id}, {run.player} on {labels[tuple(run.points)]}: {format_regret(regrets[run.run_id])}"
            for run in runs if run.run_id in regrets]
