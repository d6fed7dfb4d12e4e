"""The exact part: a deal's best grid as an integer program, solved by HiGHS.

Every line of a grid is a 5-card subset of the deal's 25 cards (C(25, 5) = 53,130
subsets, each worth ``points[hand id]``). A grid is 5 *row* subsets partitioning
the cards and 5 *column* subsets partitioning them, such that no two cards share
both a row and a column: then each row meets each column in exactly one card, and
the rows and columns can be laid out as a 5x5 grid. With binaries ``y_S`` (S is a
row) and ``z_S`` (S is a column):

    maximise  sum_S v_S (y_S + z_S)
    s.t.      sum_{S ∋ c} y_S = 1,  sum_{S ∋ c} z_S = 1              for each card c
              sum_{S ⊇ {c,d}} (y_S + z_S) <= 1                         for each pair {c, d}
              R_s / floor(n_s / 5) + C_t / floor(n_t / 5) <= 1        for suits s != t

where ``R_s`` counts rows all of suit ``s`` and ``C_t`` columns all of suit ``t``
(``n_s`` cards of suit s in the deal): a row and a column always share a card, so a
row in one suit and a column in another cannot both exist. This last family is not
needed for correctness; it tightens the linear relaxation. The model holds for any
point system, negative values included.

Its linear relaxation is a proven upper bound on its own (the solver's dual bound);
the local search's grid is passed as the starting solution.
"""

from __future__ import annotations

import itertools
import threading
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ..errors import PokerSquaresError
from ..evaluators.base import checked_points
from ..kernels.core import classify_batch, classify_cards
from .search import check_deal, check_start, check_time_limit, local_search

__all__ = ["SolverNotInstalledError", "ExactResult", "solve_exact", "greedy_partition", "line_subsets",
           "require_solver", "subsets"]


@lru_cache(maxsize=None)
def subsets(size: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """The ``size``-subsets of ``size**2`` positions in lexicographic order, and for
    each the ids of the pairs of positions it contains. The game is ``size`` 5; the
    model works for any square grid, and the tests check it by brute force at 3."""
    cells = size * size
    subs = np.array(list(itertools.combinations(range(cells), size)), dtype=np.int64)
    pair_id = np.full((cells, cells), -1, dtype=np.int64)
    for k, (a, b) in enumerate(itertools.combinations(range(cells), 2)):
        pair_id[a, b] = k
    pairs = np.stack([pair_id[subs[:, i], subs[:, j]] for i, j in itertools.combinations(range(size), 2)], axis=1)
    return subs, pairs


# HiGHS spends seconds setting up branch and bound on this model before it first looks
# at its clock, so with less time left than this the relaxation's bound is final.
MIN_MIP_SECONDS = 5.0


class SolverNotInstalledError(PokerSquaresError):
    """The exact solver's library is missing."""


def require_solver():
    """The ``highspy`` module, or a one-line error naming the extra to install."""
    try:
        import highspy
    except ImportError:
        raise SolverNotInstalledError(
            "the optimum's exact solver needs HiGHS: pip install 'pokersquares[optimum]' (or pip install highspy)"
        ) from None
    return highspy


def _new_highs(highspy):
    """A silent single-threaded solver (its constructor prints a banner on stdout,
    which would break ``--json``)."""
    import os
    import sys
    if sys.stdout is not None:  # None where the process has none (started with it closed)
        sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no standard output at all (closed): the banner has nowhere to go
        return _quiet(highspy.Highs())
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            h = highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    return _quiet(h)


def _quiet(h):
    """``h`` silent (no log on standard output) and on one thread."""
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    return h


def _run(h, deadline: float) -> None:
    """``h.run()``, stopped at ``deadline`` (``time.perf_counter``) as well as by the
    ``time_limit`` HiGHS was given. HiGHS times a solve on clocks of its own that leave
    some of its work out (the search that repairs a start solution, before the branch
    and bound's clock starts) and looks at them between LP solves of seconds each:
    ``solve_deal`` given 15 s took 16.1 and 20.6 s, given 30 s 33.1 and 36.7 s
    (``random:7``, deal 1, 2026-12-05; with this, 15.2 to 17.0 s and 30.6 s). Its
    interrupt callbacks look at our clock whenever HiGHS allows (about every second in
    branch and bound, every simplex iteration in the relaxation).

    The solve runs in a thread of its own, so its callbacks run there: Python delivers
    a Ctrl-C to the main thread, which waits here, stops the solve at its next callback
    and raises when it has returned. (In the main thread the callback itself received
    the KeyboardInterrupt, inside HiGHS, and the solve answered a bound of 0.) A highspy
    without callbacks to subscribe to runs the solve as it is, on HiGHS's clocks alone."""
    events: list[Any] = [getattr(h, name, None) for name in ("cbSimplexInterrupt", "cbMipInterrupt")]
    if not all(hasattr(e, "subscribe") for e in events):
        h.run()
        return
    stop, done = threading.Event(), threading.Event()
    failed: list[BaseException] = []

    def check(event) -> None:
        if stop.is_set() or time.perf_counter() >= deadline:
            event.data_in.user_interrupt = True

    def solve() -> None:
        try:
            h.run()
        except BaseException as e:  # raised in the caller's thread
            failed.append(e)
        finally:
            done.set()

    for e in events:
        e.subscribe(check)
    # Waited for on an Event, not by Thread.join: a join that a Ctrl-C interrupts can
    # take the thread for ended (Python 3.11), and the solve went on past the exception.
    threading.Thread(target=solve, name="highs", daemon=True).start()
    try:
        while not done.wait(0.1):
            pass
    except BaseException:  # Ctrl-C, SIGTERM's exception: the solve stops at its next callback
        stop.set()
        done.wait()
        raise
    finally:
        if done.is_set():  # else (a second Ctrl-C) the callback stays, to stop the solve
            for e in events:
                e.unsubscribe(check)
    if failed:
        raise failed[0]


def _partition_matrix(highspy, size: int):
    """Column-wise matrix of the model: the y block then the z block of subsets; card
    rows ``0 .. cells-1`` for y, ``cells .. 2 cells-1`` for z, then the pair rows."""
    subs, pairs = subsets(size)
    cells = size * size
    blocks = [np.concatenate([subs + cells * k, 2 * cells + pairs], axis=1) for k in range(2)]
    index = np.concatenate(blocks).ravel()
    width = blocks[0].shape[1]
    m = highspy.HighsSparseMatrix()
    m.format_ = highspy.MatrixFormat.kColwise
    m.num_col_ = 2 * len(subs)
    m.num_row_ = 2 * cells + cells * (cells - 1) // 2
    m.start_ = np.arange(0, 2 * len(subs) * width + 1, width, dtype=np.int32)
    m.index_ = index.astype(np.int32)
    m.value_ = np.ones(index.shape[0])
    return m


def greedy_partition(values: np.ndarray, rng: np.random.Generator, priority: np.ndarray | None = None) -> np.ndarray:
    """5 disjoint subsets covering the 25 positions, concatenated: rows for the local
    search where its swaps meet plateaus (single-hand systems, where most lines are
    worth the same). Subsets are taken by ``priority`` (default: value), ties broken
    first by how little the subset's cards are wanted elsewhere (so quads take a
    spare card as their fifth, not a card another hand needs), then at random."""
    subs, _ = subsets(5)
    if priority is None:
        priority = values
    gain = np.maximum(values - values.min(), 0).astype(np.float64)
    demand = np.bincount(subs.ravel(), weights=np.repeat(gain, 5), minlength=25)
    order = np.lexsort((rng.random(values.size), demand[subs].sum(axis=1), -priority))
    masks = (np.int64(1) << subs).sum(axis=1)
    used = 0
    chosen = []
    for j in order:
        if not masks[j] & used:
            chosen.append(subs[j])
            used |= int(masks[j])
            if len(chosen) == 5:
                break
    return np.concatenate(chosen)


def line_subsets(cards, points, size: int = 5) -> np.ndarray:
    """The value of each ``size``-subset of ``cards`` (in ``subsets(size)`` order)."""
    subs, _ = subsets(size)
    hands = np.asarray(cards, dtype=np.int8)[subs]
    if size == 5:
        hand_ids = classify_batch(hands)
    else:  # classify_batch reads exactly 5 cards per hand
        hand_ids = np.array([classify_cards(h) for h in hands], dtype=np.int64)
    return np.asarray(points, dtype=np.int64)[hand_ids]


@dataclass
class ExactResult:
    score: int | None       # best grid's score the solver holds (None if it found none)
    bound: int              # proven upper bound (integer: scores are integers)
    proven: bool
    grid: list[int] | None  # positions into the deal's cards, row-major
    seconds: float


def _grid_from_partitions(rows: list[np.ndarray], cols: list[np.ndarray], size: int) -> list[int]:
    where_col = {int(p): k for k, col in enumerate(cols) for p in col}
    grid = [-1] * (size * size)
    for r, row in enumerate(rows):
        for p in row:
            grid[r * size + where_col[int(p)]] = int(p)
    if -1 in grid or len(rows) != size or len(cols) != size:
        raise RuntimeError("the solver's rows and columns do not form a grid")
    return grid


def _subset_index(positions, size: int) -> int:
    """Index into ``subsets(size)`` of a subset: its lexicographic rank."""
    from math import comb
    cells = size * size
    rank, prev = 0, -1
    for i, x in enumerate(sorted(int(p) for p in positions)):
        for y in range(prev + 1, x):
            rank += comb(cells - 1 - y, size - 1 - i)
        prev = x
    return rank


def solve_exact(cards, points, *, time_limit: float, start_grid: list[int] | None = None,
                start_score: int | None = None, size: int = 5) -> ExactResult:
    """Solve the model above for the ``size**2`` ``cards`` within ``time_limit`` seconds.

    ``start_grid`` (positions into ``cards``, row-major) is handed to the solver as
    its first solution. The linear relaxation is solved first (a bound in seconds,
    often a proof already); the integer program then gets the time left. A limit
    that runs out leaves ``proven`` false and the bound proven by then. ``cards`` that
    are not ``size**2`` distinct card ids are an InvalidCardError, ``points`` that are
    not 10 integers an InvalidPointSystemError."""
    cards = check_deal(cards, size)
    points = checked_points(points)
    time_limit = check_time_limit(time_limit)
    start_grid, start_score = check_start(cards, points, start_grid, start_score, size)
    cards = np.asarray(cards, dtype=np.int64)
    highspy = require_solver()
    t0 = time.perf_counter()
    subs, _ = subsets(size)
    cells = size * size
    values = line_subsets(cards, points, size)
    n = len(subs)
    n_rows = 2 * cells + cells * (cells - 1) // 2
    inf = highspy.kHighsInf
    lp = highspy.HighsLp()
    lp.num_col_ = 2 * n
    lp.num_row_ = n_rows
    lp.col_cost_ = -np.concatenate([values, values]).astype(np.float64)
    lp.col_lower_ = np.zeros(2 * n)
    lp.col_upper_ = np.ones(2 * n)
    lp.row_lower_ = np.concatenate([np.ones(2 * cells), np.full(n_rows - 2 * cells, -inf)])
    lp.row_upper_ = np.ones(n_rows)
    lp.a_matrix_ = _partition_matrix(highspy, size)
    h = _new_highs(highspy)
    h.setOptionValue("presolve", "off")  # presolve of this model takes minutes and gains nothing
    h.setOptionValue("mip_abs_gap", 0.999)  # scores are integers
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_heuristic_effort", 0.01)  # the local search's grid is the start
    h.passModel(lp)
    suits = cards // 13
    n_suit = np.bincount(suits, minlength=4)
    mono_suit = np.where((suits[subs] == suits[subs[:, :1]]).all(axis=1), suits[subs[:, 0]], -1)
    for s in range(4):
        for t in range(4):
            if s == t or n_suit[s] < size or n_suit[t] < size:
                continue
            rows_s = np.flatnonzero(mono_suit == s)
            cols_t = np.flatnonzero(mono_suit == t) + n
            idx = np.concatenate([rows_s, cols_t]).astype(np.int32)
            val = np.concatenate([np.full(rows_s.size, 1.0 / (n_suit[s] // size)),
                                  np.full(cols_t.size, 1.0 / (n_suit[t] // size))])
            h.addRow(-inf, 1.0, idx.size, idx, val)
    h.setOptionValue("time_limit", max(0.01, time_limit - (time.perf_counter() - t0)))
    _run(h, t0 + time_limit)
    bound = _trivial_bound(values, size)
    if h.getModelStatus() == highspy.HighsModelStatus.kOptimal:
        bound = min(bound, int(np.floor(-h.getInfo().objective_function_value + 1e-6)))
    score, grid = start_score, start_grid
    if size == 5 and (score is None or score < bound) and h.getModelStatus() == highspy.HighsModelStatus.kOptimal:
        # rows from the relaxation's favourite subsets, columns by local search
        x = np.asarray(h.getSolution().col_value)
        weight = np.maximum(x[:n], x[n:])
        rng = np.random.default_rng(0)
        for k in range(4):
            rows = greedy_partition(values, rng, priority=weight + 1e-9 * values)
            found, placed = local_search(cards[rows], points, seed=100 + k, restarts=2, within_rows=True)
            if score is None or found > score:
                position = {int(c): i for i, c in enumerate(cards)}
                score, grid = found, [position[c] for c in placed]
    left = time_limit - (time.perf_counter() - t0)
    if (score is None or score < bound) and left > MIN_MIP_SECONDS:
        h.changeColsIntegrality(2 * n, np.arange(2 * n, dtype=np.int32),
                                np.full(2 * n, highspy.HighsVarType.kInteger))
        if start_grid is not None:
            start = np.zeros(2 * n)
            for r in range(size):
                start[_subset_index(start_grid[r * size:(r + 1) * size], size)] = 1.0
                start[n + _subset_index(start_grid[r::size], size)] = 1.0
            sol = highspy.HighsSolution()
            sol.col_value = list(start)
            sol.value_valid = True
            h.setSolution(sol)
        h.setOptionValue("time_limit", left)
        _run(h, t0 + time_limit)
        info = h.getInfo()
        if np.isfinite(info.mip_dual_bound):
            bound = min(bound, int(np.floor(-info.mip_dual_bound + 1e-6)))
        if info.primal_solution_status == 2:  # feasible
            chosen = np.flatnonzero(np.asarray(h.getSolution().col_value) > 0.5)
            mip_score = int(values[chosen % n].sum())
            if score is None or mip_score > score:
                score = mip_score
                grid = _grid_from_partitions([subs[j] for j in chosen if j < n],
                                             [subs[j - n] for j in chosen if j >= n], size)
    if score is not None and score > bound:
        raise RuntimeError(f"a grid scores {score}, above the proven bound {bound}: the model is wrong")
    return ExactResult(score, bound, score is not None and score >= bound, grid, time.perf_counter() - t0)


def _trivial_bound(values: np.ndarray, size: int) -> int:
    """Every line worth at most the best subset."""
    return int(2 * size * values.max())
