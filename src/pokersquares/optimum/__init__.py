"""The perfect-information optimum of a deal: the best grid its first 25 cards allow.

If all 25 cards were known in advance their order would not matter, so the best
any player can score on a deal is the best arrangement of those cards on the grid.
:func:`solve_deal` finds a grid by local search (:mod:`.search`), then proves an
upper bound, and optimality when it can: with the core model and CP-SAT
(:mod:`.cores`) for monotone point systems (American, British, single-hand
systems from straight up), with the integer program over all five-card lines and HiGHS
(:mod:`.exact`) for the others. A local search's grid whose ten lines each score as much
as the deal's best five cards (often so under high card and one pair) is proven at once.
Rules-level: nothing here knows about players.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Set as AbstractSet
from dataclasses import asdict, dataclass

import numpy as np

from ..cards import card_name, check_seed, deal
from ..errors import InvalidPointSystemError
from ..machine import check_compiler
from ..points import PointSystem
from .cores import CoresResult, CpSatNotInstalledError, is_monotone, require_cp_sat, solve_cores
from .exact import ExactResult, SolverNotInstalledError, greedy_partition, line_subsets, solve_exact
from .exact import require_solver as require_highs
from .search import check_deal, check_time_limit, grid_score, local_search

__all__ = ["Optimum", "solve_deal", "solve_seed", "SolverNotInstalledError", "CpSatNotInstalledError",
           "require_solver", "DEFAULT_TIME_LIMIT"]


def require_solver(points=None):
    """The exact solver ``points`` needs (both without ``points``), or a one-line error
    naming the extra to install."""
    if points is None or not is_monotone(points):
        require_highs()
    if points is None or is_monotone(points):
        require_cp_sat()


DEFAULT_TIME_LIMIT = 60.0
GREEDY_STARTS = 8  # local searches that keep the rows of a greedy split (see greedy_partition)


@dataclass
class Optimum:
    """The best grid found for a deal under a point system, and what is proven."""

    seed: int | None
    system: str
    points: tuple[int, ...]
    score: int               # the best grid's score
    bound: int               # a proven upper bound on every grid's score
    proven: bool             # score == the optimum
    grid: list[int]          # card ids, row-major
    seconds: float           # wall clock
    heuristic_score: int     # what the local search alone found
    cpu_seconds: float | None = None  # this process's CPU time (the figure on a shared machine)
    method: str = ""         # "cores" (CP-SAT), "lines" (HiGHS), see the module docstring, or "search"
    #                          (the local search's grid reached the ceiling, ten times the best line)

    @property
    def grid_names(self) -> list[str]:
        return [card_name(c) for c in self.grid]

    def to_json(self) -> dict:
        out = asdict(self)
        out["points"] = list(self.points)
        out["grid"] = self.grid_names
        return out


@functools.cache
def warm_kernels() -> None:
    """Compile, or load from numba's cache, the kernels a deal's solving calls: once a
    process, before the first deal's clock starts. On a cold cache that takes seconds
    (about 5 on this project's machine), which the deal's time limit paid: a worker's
    first deal was left unproven, and stored so, where a warm one is proven in a second."""
    cards = list(range(25))
    points = np.zeros(10, dtype=np.int64)
    local_search(cards, points, restarts=1, steps=1, history=1)
    line_subsets(np.asarray(cards), points)


def solve_deal(cards, point_system: PointSystem, *, time_limit: float = DEFAULT_TIME_LIMIT,
               seed: int | None = None) -> Optimum:
    """The optimum of the 25 ``cards`` (ids) under ``point_system`` within ``time_limit``
    seconds, the local search's included; that search always runs to its end (about a
    second on this project's machine), so a smaller limit takes that long. The
    kernels' compiling on a cold cache comes before the clock (:func:`warm_kernels`)."""
    check_time_limit(time_limit)
    if not isinstance(point_system, PointSystem):
        raise InvalidPointSystemError(f"an optimum's point system is a PointSystem (parse_point_system('american'), "
                                      f"...), got {point_system!r}")
    if seed is not None:
        seed = check_seed(seed, "the deal's seed")
    # Their order does not matter here (a set will do), but they must be cards: not text, not a dict's keys.
    cards = check_deal(list(cards) if isinstance(cards, AbstractSet) else cards)
    require_solver(point_system.points)
    check_compiler("nothing was solved")  # its local search, uncompiled, ran minutes past any time limit
    warm_kernels()
    t0 = time.perf_counter()
    c0 = time.process_time()
    points = np.asarray(point_system.points, dtype=np.int64)
    found, grid = local_search(cards, points)
    values = line_subsets(np.asarray(cards), points)
    rng = np.random.default_rng(0)
    for k in range(GREEDY_STARTS):
        rows = [cards[p] for p in greedy_partition(values, rng)]
        score, cells = local_search(rows, points, seed=1 + k, restarts=1, within_rows=True)
        if score > found:
            found, grid = score, cells
    ceiling = 10 * int(values.max())  # each of the 10 lines at most the deal's best five cards
    if found >= ceiling:  # every line as good as any can be: proven without a model (one took the whole limit)
        return Optimum(seed, point_system.name, tuple(point_system.points), found, found, True, list(grid),
                       round(time.perf_counter() - t0, 3), found, round(time.process_time() - c0, 3), "search")
    position = {c: i for i, c in enumerate(cards)}
    left = max(0.01, time_limit - (time.perf_counter() - t0))
    start = [position[c] for c in grid]
    exact: CoresResult | ExactResult
    if is_monotone(point_system.points):
        exact = solve_cores(cards, points, time_limit=left, start_grid=start, start_score=found)
        method = "cores"
    else:
        exact = solve_exact(cards, points, time_limit=left, start_grid=start, start_score=found)
        method = "lines"
    assert exact.grid is not None  # given a start grid, a solver answers one
    best_grid = [cards[p] for p in exact.grid]
    score = grid_score(best_grid, point_system.points)
    if score != exact.score:
        raise RuntimeError(f"the solver's grid scores {score}, not {exact.score}")
    return Optimum(seed, point_system.name, tuple(point_system.points), score, max(exact.bound, score),
                   exact.proven, best_grid, round(time.perf_counter() - t0, 3), found,
                   round(time.process_time() - c0, 3), method)


def solve_seed(seed: int, point_system: PointSystem, *, time_limit: float = DEFAULT_TIME_LIMIT) -> Optimum:
    """The optimum of the deal of ``seed`` (its first 25 cards)."""
    return solve_deal(deal(seed)[:25], point_system, time_limit=time_limit, seed=seed)
