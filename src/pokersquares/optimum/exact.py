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
import time
from dataclasses import dataclass

import numpy as np

from ..errors import PokerSquaresError
from ..kernels.core import classify_batch

__all__ = ["SolverNotInstalledError", "ExactResult", "solve_exact", "greedy_partition", "line_subsets",
           "require_solver", "SUBSETS"]

SUBSETS = np.array(list(itertools.combinations(range(25), 5)), dtype=np.int64)  # (53130, 5)
_PAIR_ID = np.full((25, 25), -1, dtype=np.int64)
for _k, (_a, _b) in enumerate(itertools.combinations(range(25), 2)):
    _PAIR_ID[_a, _b] = _k
_SUBSET_PAIRS = np.stack([_PAIR_ID[SUBSETS[:, i], SUBSETS[:, j]]
                          for i, j in itertools.combinations(range(5), 2)], axis=1)  # (53130, 10)


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
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            h = highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    return h


def _partition_matrix(highspy, n_copies: int, with_pairs: bool):
    """Column-wise matrix of ``n_copies`` blocks of the 53,130 subsets: block k covers
    card rows ``25 k .. 25 k + 24``; with ``with_pairs`` every block also covers the
    300 pair rows after them."""
    n = len(SUBSETS)
    blocks = []
    for k in range(n_copies):
        parts = [SUBSETS + 25 * k]
        if with_pairs:
            parts.append(25 * n_copies + _SUBSET_PAIRS)
        blocks.append(np.concatenate(parts, axis=1))
    index = np.concatenate(blocks).ravel()
    width = blocks[0].shape[1]
    m = highspy.HighsSparseMatrix()
    m.format_ = highspy.MatrixFormat.kColwise
    m.num_col_ = n_copies * n
    m.num_row_ = 25 * n_copies + (300 if with_pairs else 0)
    m.start_ = np.arange(0, n_copies * n * width + 1, width, dtype=np.int32)
    m.index_ = index.astype(np.int32)
    m.value_ = np.ones(index.shape[0])
    return m


def greedy_partition(values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """5 disjoint subsets covering the 25 positions, taken greedily by value (ties in
    random order): a start for the local search where its swaps meet plateaus
    (single-hand systems, where most lines are worth the same)."""
    order = np.lexsort((rng.random(values.size), -values))
    masks = (np.int64(1) << SUBSETS).sum(axis=1)
    used = 0
    chosen = []
    for j in order:
        if not masks[j] & used:
            chosen.append(SUBSETS[j])
            used |= int(masks[j])
            if len(chosen) == 5:
                break
    return np.concatenate(chosen)


def line_subsets(cards: np.ndarray, points: np.ndarray) -> np.ndarray:
    """The value of each of the 53,130 five-card subsets of ``cards`` (positions into
    the 25 cards, in ``SUBSETS`` order)."""
    hand_ids = classify_batch(np.asarray(cards, dtype=np.int8)[SUBSETS])
    return np.asarray(points, dtype=np.int64)[hand_ids]


@dataclass
class ExactResult:
    score: int | None       # best grid's score the solver holds (None if it found none)
    bound: int              # proven upper bound (integer: scores are integers)
    proven: bool
    grid: list[int] | None  # positions 0..24 into the deal's cards, row-major
    seconds: float


def _grid_from_partitions(rows: list[np.ndarray], cols: list[np.ndarray]) -> list[int]:
    where_col = {int(p): k for k, col in enumerate(cols) for p in col}
    grid = [-1] * 25
    for r, row in enumerate(rows):
        for p in row:
            grid[r * 5 + where_col[int(p)]] = int(p)
    if -1 in grid:
        raise RuntimeError("the solver's rows and columns do not form a grid")
    return grid


def _subset_index(positions) -> int:
    """Index into ``SUBSETS`` of 5 sorted positions (the combinatorial number system)."""
    from math import comb
    a = sorted(int(p) for p in positions)
    # lexicographic rank of a among combinations(range(25), 5)
    rank, prev = 0, -1
    for i, x in enumerate(a):
        for y in range(prev + 1, x):
            rank += comb(25 - 1 - y, 5 - 1 - i)
        prev = x
    return rank


def solve_exact(cards, points, *, time_limit: float, start_grid: list[int] | None = None,
                start_score: int | None = None) -> ExactResult:
    """Solve the model above for the 25 ``cards`` within ``time_limit`` seconds.

    ``start_grid`` (positions 0..24, row-major) is handed to the solver as its first
    solution. A limit that runs out leaves ``proven`` false and the bound the solver
    had proven by then."""
    highspy = require_solver()
    t0 = time.perf_counter()
    cards = np.asarray(cards, dtype=np.int64)
    values = line_subsets(cards, points)
    n = len(SUBSETS)
    # Columns 0..n-1 are y (rows), n..2n-1 are z (columns). Matrix rows: 25 card
    # rows for y, 25 for z, 300 pair rows.
    inf = highspy.kHighsInf
    lp = highspy.HighsLp()
    lp.num_col_ = 2 * n
    lp.num_row_ = 350
    lp.col_cost_ = -np.concatenate([values, values]).astype(np.float64)
    lp.col_lower_ = np.zeros(2 * n)
    lp.col_upper_ = np.ones(2 * n)
    lp.row_lower_ = np.concatenate([np.ones(50), np.full(300, -inf)])
    lp.row_upper_ = np.ones(350)
    lp.a_matrix_ = _partition_matrix(highspy, 2, True)
    lp.integrality_ = [highspy.HighsVarType.kInteger] * (2 * n)
    h = _new_highs(highspy)
    h.setOptionValue("presolve", "off")  # presolve of this model takes minutes and gains nothing
    h.setOptionValue("mip_abs_gap", 0.999)  # scores are integers
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_heuristic_effort", 0.01)  # the local search's grid is the start
    h.passModel(lp)
    suits = cards // 13
    n_suit = np.bincount(suits, minlength=4)
    mono_suit = np.where((suits[SUBSETS] == suits[SUBSETS[:, :1]]).all(axis=1), suits[SUBSETS[:, 0]], -1)
    for s in range(4):
        for t in range(4):
            if s == t or n_suit[s] < 5 or n_suit[t] < 5:
                continue
            rows_s = np.flatnonzero(mono_suit == s)
            cols_t = np.flatnonzero(mono_suit == t) + n
            idx = np.concatenate([rows_s, cols_t]).astype(np.int32)
            val = np.concatenate([np.full(rows_s.size, 1.0 / (n_suit[s] // 5)),
                                  np.full(cols_t.size, 1.0 / (n_suit[t] // 5))])
            h.addRow(-inf, 1.0, idx.size, idx, val)
    # The linear relaxation first: a bound in seconds, and often a proof already.
    h.changeColsIntegrality(2 * n, np.arange(2 * n, dtype=np.int32),
                            np.full(2 * n, highspy.HighsVarType.kContinuous))
    h.setOptionValue("time_limit", max(0.01, time_limit - (time.perf_counter() - t0)))
    h.run()
    bound = _trivial_bound(values)
    if h.getModelStatus() == highspy.HighsModelStatus.kOptimal:
        bound = min(bound, int(np.floor(-h.getInfo().objective_function_value + 1e-6)))
    score, grid = start_score, start_grid
    left = time_limit - (time.perf_counter() - t0)
    if (score is None or score < bound) and left > 1.0:
        h.changeColsIntegrality(2 * n, np.arange(2 * n, dtype=np.int32),
                                np.full(2 * n, highspy.HighsVarType.kInteger))
        if start_grid is not None:
            start = np.zeros(2 * n)
            for r in range(5):
                start[_subset_index(start_grid[r * 5:r * 5 + 5])] = 1.0
                start[n + _subset_index(start_grid[r::5])] = 1.0
            sol = highspy.HighsSolution()
            sol.col_value = list(start)
            sol.value_valid = True
            h.setSolution(sol)
        h.setOptionValue("time_limit", left)
        h.run()
        info = h.getInfo()
        if np.isfinite(info.mip_dual_bound):
            bound = min(bound, int(np.floor(-info.mip_dual_bound + 1e-6)))
        if info.primal_solution_status == 2:  # feasible
            chosen = np.flatnonzero(np.asarray(h.getSolution().col_value) > 0.5)
            mip_score = int(values[chosen % n].sum())
            if score is None or mip_score > score:
                score = mip_score
                grid = _grid_from_partitions([SUBSETS[j] for j in chosen if j < n],
                                             [SUBSETS[j - n] for j in chosen if j >= n])
    proven = score is not None and score >= bound
    return ExactResult(score, max(bound, score) if score is not None else bound, proven, grid,
                       time.perf_counter() - t0)


def _trivial_bound(values: np.ndarray) -> int:
    """Ten lines, each worth at most the best subset."""
    return int(10 * values.max())
