"""The ``greedy`` baseline's rule as numba kernels: its move, and whole games of it.

The readable reference is :class:`pokersquares.players.baseline.GreedyPlayer`: a
line is worth the points of its partial hand, plus, for a column whose 2 to 4 cards
share one suit, ``flush_weight * cards / 5`` of the flush points; a card goes where
it raises the row's and the column's worth the most, the first such cell in reading
order. The sums are taken in the reference's order so that ties break alike.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .core import LINES_ARRAY, classify_packed, line_features, score_grid

__all__ = ["greedy_rule_cell", "greedy_rule_games"]


@njit(cache=True)
def _line_value(grid, L, points, flush_weight):
    # Line L of LINES_ARRAY (5..9: columns) by index, not a literal "is column" flag:
    # numba would compile one copy per literal value.
    n, counts, rank_mask, _, suited = line_features(grid, LINES_ARRAY[L])
    value = np.float64(points[classify_packed(n, counts, rank_mask, suited)])
    if L >= 5 and 1 < n < 5 and suited:
        value += flush_weight * n / 5 * max(0, points[5])
    return value


@njit(cache=True)
def greedy_rule_cell(grid, card, points, flush_weight):
    """The empty cell of ``grid`` (``int8[25]``, ``-1`` empty) where the greedy rule
    places ``card``; ``grid`` is left as it was."""
    best, best_gain = -1, -np.inf
    for cell in range(25):
        if grid[cell] >= 0:
            continue
        row, col = cell // 5, 5 + cell % 5
        before_row = _line_value(grid, row, points, flush_weight)
        before_col = _line_value(grid, col, points, flush_weight)
        grid[cell] = card
        gain = 0.0
        gain += _line_value(grid, row, points, flush_weight) - before_row
        gain += _line_value(grid, col, points, flush_weight) - before_col
        grid[cell] = -1
        if gain > best_gain:
            best, best_gain = cell, gain
    return best


@njit(cache=True, nogil=True)
def greedy_rule_games(grid, deals, points, flush_weight):
    """``int64[len(deals)]``: the final scores of the games that go on from ``grid``
    with the cards of each row of ``deals`` (in order, as many as there are empty
    cells) placed by the greedy rule."""
    out = np.empty(deals.shape[0], dtype=np.int64)
    empty = 0
    for cell in range(25):
        empty += grid[cell] < 0
    moves = min(empty, deals.shape[1])
    g = grid.copy()
    for k in range(deals.shape[0]):
        for i in range(25):  # a loop, not g[:] = grid: slice assignment compiles its error message
            g[i] = grid[i]
        for t in range(moves):
            card = deals[k, t]
            g[greedy_rule_cell(g, card, points, flush_weight)] = card
        out[k] = score_grid(g, points)
    return out
