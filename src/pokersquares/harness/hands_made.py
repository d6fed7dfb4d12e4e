"""Which hands a player's final grids made, and where two players' points differ.

A mean score says how much; this says from what. Each finished grid's 10 lines are
classified; per hand type a run gets the lines per game that made it (the ten sum to
10) and the points per game they brought (the ten sum to the mean score of those
games). Two runs of one point system, or a run and the deals' perfect-information
optima (``pokersquares optimum``), are compared per hand type on the deals both hold:
the mean difference of points per game and its paired standard error. Where the
champion falls short of the optimum, the hand types say what its evaluation misses.

Games that ended in a penalty (or hold fewer than 25 placements) have no grid and are
left out; the summary says how many.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Iterable, Sequence, Sized

import numpy as np

from ..cards import NUM_CARDS
from ..errors import InvalidCardError
from ..hands import HAND_NAMES, NUM_HANDS
from ..kernels.core import LINES_ARRAY, classify_batch
from .store import ResultStore

__all__ = ["GridSet", "grid_from_placements", "grid_set", "hand_counts", "grids_of_run", "grids_of_optima", "mix_summary",
           "mix_difference", "HAND_ABBREVIATIONS"]

HAND_ABBREVIATIONS: tuple[str, ...] = ("HC", "1P", "2P", "3K", "St", "Fl", "FH", "4K", "SF", "RF")


@dataclass
class GridSet:
    """The final grids of one run (or the optima) of one point system, by deal seed.

    ``seeds``: shape ``(n,)``; ``grids``: ``(n, 25)`` card ids, row-major; ``left_out``:
    the games without a grid (penalties, unfinished); ``scores``: the scores recorded
    with the grids (a game's score, an optimum's best score), if known; ``unproven``: of
    the optima, the grids only found best, not proven optimal."""

    label: str
    points: tuple[int, ...]
    seeds: np.ndarray
    grids: np.ndarray
    left_out: int = 0
    scores: np.ndarray | None = None
    unproven: int = 0

    @cached_property
    def counts(self) -> np.ndarray:
        """Lines of each hand type in each grid, ``(n, 10)``."""
        return hand_counts(self.grids)


def grid_from_placements(placements: Sequence[Sequence[int]]) -> np.ndarray | None:
    """The 25-card grid of a game's ``(card, row, col)`` placements; None unless they
    place 25 different cards (ids 0..51) on all 25 cells once each (a store written by
    hand may hold anything: the kernel that classifies the grid trusts its card ids)."""
    if not isinstance(placements, Sized) or len(placements) != 25:
        return None
    grid = np.full(25, -1, dtype=np.int64)
    for placement in placements:
        if len(placement) != 3 or not all(type(x) is int for x in placement):
            return None
        card, row, col = placement
        if not (0 <= card < 52 and 0 <= row < 5 and 0 <= col < 5) or grid[5 * row + col] != -1:
            return None
        grid[5 * row + col] = card
    return grid if len(set(grid.tolist())) == 25 else None


def hand_counts(grids: np.ndarray) -> np.ndarray:
    """``(n, 10)``: for each of ``n`` full grids (``(n, 25)`` card ids), how many of its 10
    lines (rows and columns) are of each hand type (classified by the numba kernel)."""
    grids = np.asarray(grids)
    if grids.size % 25 or not (grids.dtype.kind in "iu" or (grids.size == 0 and grids.dtype.kind == "f")):
        raise InvalidCardError(f"grids are rows of 25 card ids, got an array of {grids.dtype} and shape {grids.shape}")
    grids = grids.astype(np.int64).reshape(-1, 25)
    # The kernel trusts its card ids: one outside 0..51 would be read off its tables.
    if grids.size and (grids.min() < 0 or grids.max() >= NUM_CARDS):
        raise InvalidCardError(f"grids hold card ids 0..51, got {int(grids.min())}..{int(grids.max())}")
    n = grids.shape[0]
    hands = grids[:, LINES_ARRAY].reshape(n * 10, 5)  # (n, 10 lines, 5 cells) -> one hand a row
    ids = classify_batch(np.ascontiguousarray(hands)).astype(np.int64).reshape(n, 10)
    counts = np.zeros((n, NUM_HANDS), dtype=np.int64)
    np.add.at(counts, (np.repeat(np.arange(n), 10), ids.ravel()), 1)
    return counts


def grid_set(label: str, points: Sequence[int], records: Iterable) -> GridSet:
    """The final grids of ``records`` (``GameRecord``s with their placements); games
    with a penalty or without 25 placements are counted as left out."""
    seeds, grids, scores, left_out = [], [], [], 0
    for game in records:
        grid = None if game.penalty else grid_from_placements(game.placements)
        if grid is None:
            left_out += 1
            continue
        seeds.append(game.seed)
        grids.append(grid)
        scores.append(game.score)
    return GridSet(label, tuple(points), np.array(seeds, dtype=np.int64),
                   np.array(grids, dtype=np.int64).reshape(-1, 25), left_out, np.array(scores, dtype=np.int64))


def grids_of_run(store: str | Path, run_id: int, label: str | None = None) -> GridSet:
    """The final grids of a run of a result store (read only)."""
    with ResultStore(store, readonly=True) as db:
        info = db.run(run_id)
        return grid_set(label or f"{info.player} (run {run_id})", info.points, db.iter_games(run_id))


def grids_of_optima(stores: Iterable[str | Path], seeds: Iterable[int], points: Sequence[int]) -> GridSet:
    """The best grids of the optimum stores for ``seeds`` under ``points`` (a proven
    optimum preferred where two stores hold a deal); deals without one are left out, and
    a stored grid that is not 25 different cards is counted as left out."""
    from ..optimum.store import optima_from
    from .compare import store_paths
    found = optima_from(store_paths(stores), seeds, list(points))
    grids = {s: grid_from_placements([(c, i // 5, i % 5) for i, c in enumerate(found[s].grid)])
             for s in sorted(found) if isinstance(found[s].grid, list)}
    held = [s for s, g in grids.items() if g is not None]
    return GridSet("optimum", tuple(points), np.array(held, dtype=np.int64),
                   np.array([grids[s] for s in held], dtype=np.int64).reshape(-1, 25), len(found) - len(held),
                   np.array([found[s].score for s in held], dtype=np.int64),
                   sum(1 for s in held if not found[s].proven))


def _mean_se(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column means and their standard errors (0 with fewer than two rows)."""
    n = values.shape[0]
    mean = values.mean(axis=0) if n else np.zeros(values.shape[1:])
    se = values.std(axis=0, ddof=1) / math.sqrt(n) if n > 1 else np.zeros(values.shape[1:])
    return mean, se


def mix_summary(gs: GridSet) -> dict:
    """Per hand type: lines per game and points per game (each with its SE) over the
    run's grids (None without a grid), and the mean score they add up to with its SE
    (None below two grids: one game measures no spread); ``unproven``: of the optima, the
    grids not proven optimal."""
    counts = gs.counts.astype(float)
    pts = counts * np.asarray(gs.points, dtype=float)
    lines, lines_se = _mean_se(counts)
    points, points_se = _mean_se(pts)
    score, score_se = _mean_se(pts.sum(axis=1, keepdims=True))
    # A grid that does not score what its game recorded: a store edited by hand, or
    # written under other points; the table then describes the grids, not the scores.
    mismatched = 0 if gs.scores is None else int((pts.sum(axis=1) != gs.scores).sum())

    def held(x) -> float | None:  # no grid: no figure, rather than a measured 0
        return float(x) if len(gs.seeds) else None

    def spread(x) -> float | None:  # one grid: no standard error, rather than 0
        return float(x) if len(gs.seeds) > 1 else None

    return {"label": gs.label, "games": int(len(gs.seeds)), "left_out": gs.left_out, "score_mismatches": mismatched,
            "mean": float(score[0]) if len(gs.seeds) else None,
            "stderr": float(score_se[0]) if len(gs.seeds) > 1 else None, "unproven": gs.unproven,
            "hands": [{"hand": HAND_NAMES[h], "points": int(gs.points[h]), "lines_per_game": held(lines[h]),
                       "lines_stderr": spread(lines_se[h]), "points_per_game": held(points[h]),
                       "points_stderr": spread(points_se[h])} for h in range(NUM_HANDS)]}


def mix_difference(a: GridSet, b: GridSet) -> dict | None:
    """``a − b`` per hand type, paired on the deals both hold: lines per game and points
    per game, each mean difference with its SE; None if they share fewer than two deals
    or score with different points."""
    if tuple(a.points) != tuple(b.points):
        return None
    common, ia, ib = np.intersect1d(a.seeds, b.seeds, return_indices=True)
    if len(common) < 2:
        return None
    dl = (a.counts[ia] - b.counts[ib]).astype(float)
    dp = dl * np.asarray(a.points, dtype=float)
    lines, lines_se = _mean_se(dl)
    points, points_se = _mean_se(dp)
    total, total_se = _mean_se(dp.sum(axis=1, keepdims=True))
    return {"a": a.label, "b": b.label, "deals": int(len(common)), "a_minus_b": float(total[0]),
            "stderr": float(total_se[0]),
            "hands": [{"hand": HAND_NAMES[h], "lines": float(lines[h]), "lines_stderr": float(lines_se[h]),
                       "points": float(points[h]), "points_stderr": float(points_se[h])}
                      for h in range(NUM_HANDS)]}


def compare_hands(runs: Sequence, optima: Sequence[str | Path] = (), against: str | None = None) -> list[dict]:
    """Per point system of ``runs`` (``RecordedRun``s, as ``compare.load_runs`` gives
    them): every run's :func:`mix_summary`, and each other's :func:`mix_difference`
    against a reference: the system's first run with a grid whose player spec contains
    ``against`` (``"optimum"``: the optima) if given and found; else the deals' optima
    where the ``optima`` stores hold the system's deals (so the differences say where each
    player falls short of perfect play); else the system's first run with a grid.

    A run without a grid (every game a penalty) is listed with its games left out, not
    dropped, and is nobody's reference (``against`` None where no run has one); an
    ``against`` that names no run with a grid on any system is a CompareError, not a
    silent other reference."""
    from .compare import CompareError, store_paths, system_labels
    optima = store_paths(optima)
    labels = system_labels(r.info for r in runs)
    one_store = len({str(Path(r.store).resolve()) for r in runs}) == 1
    out, found = [], False
    for points in dict.fromkeys(tuple(r.info.points) for r in runs):
        # (what names it for --against, its grids): the optima are named "optimum".
        sets = [(r.info.player, grids_of_run(r.store, r.info.run_id,
                                             f"{r.info.player} (run {r.info.run_id})" if one_store
                                             else f"{r.info.player} ({r.store}:{r.info.run_id})"))
                for r in runs if tuple(r.info.points) == points]
        seeds = sorted({int(s) for _, gs in sets for s in gs.seeds})
        if optima and seeds:
            best = grids_of_optima(optima, seeds, points)
            if len(best.seeds):
                sets.insert(0, ("optimum", best))
        graded = [(name, gs) for name, gs in sets if len(gs.seeds)]  # the runs with a grid
        chosen = [gs for name, gs in graded if against is not None and against in name]
        found = found or bool(chosen)
        reference = chosen[0] if chosen else graded[0][1] if graded else None
        out.append({"system": labels[points], "points": list(points),
                    "against": None if reference is None else reference.label,
                    "runs": [mix_summary(gs) for _, gs in sets],
                    "differences": [d for _, gs in graded if reference is not None and gs is not reference
                                    and (d := mix_difference(gs, reference)) is not None]})
    if against is not None and not found:
        if any(against in r.info.player for r in runs):
            raise CompareError(f"no run whose player spec contains {against!r} has a full grid (its games are "
                               "penalties or unfinished)")
        raise CompareError("the optima stores hold none of the deals played" if optima and against in "optimum"
                           else f"no run's player spec contains {against!r}")
    return out
