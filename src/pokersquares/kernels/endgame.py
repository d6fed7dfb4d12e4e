"""Exact expectimax over a game's last cards.

With ``e`` empty cells and a card in hand, the value of placing it in a cell is the
expected final score when every later card is drawn uniformly from the undealt
cards and placed optimally: a choice over the ``e`` cells, then chance over the
next card and a choice over the ``e - 1`` cells left, and so on until the grid is
full. It is exact (no evaluator is involved) and costs about
``e! * 52!/(52 - 25 + e - 1)!`` scorings of a line pair, so it is used for the
last three or four cards. The readable reference, a plain recursion over the same
rule, is :func:`pokersquares.search.endgame.exact_values_reference`.

Only the row and column of a placement change, so a grid's score is kept as the
sum of its ten lines' points and updated from those two lines.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .core import LINES_ARRAY, classify_line

__all__ = ["exact_values", "leaves"]


@njit(cache=True)  # compiled once, not inlined at its five call sites
def _line_points(grid, line, points):
    return points[classify_line(grid, LINES_ARRAY[line])]


@njit(cache=True)
def _after(grid, undealt, n_undealt, empty, n_empty, line_pts, total, points):
    """Expected final score of ``grid`` (no card in hand, ``total`` its points so far)
    under optimal play, every next card drawn uniformly from ``undealt[:n_undealt]``
    and placed in one of ``empty[:n_empty]``."""
    if n_empty == 0:
        return np.float64(total)
    acc = 0.0
    for i in range(n_undealt):
        card = undealt[i]
        # The card leaves the deck for the rest of this branch: swap it to the end.
        undealt[i] = undealt[n_undealt - 1]
        undealt[n_undealt - 1] = card
        best = -np.inf
        for k in range(n_empty):
            cell = empty[k]
            r = cell // 5
            c = 5 + cell % 5
            grid[cell] = card
            old_r = line_pts[r]
            old_c = line_pts[c]
            line_pts[r] = _line_points(grid, r, points)
            line_pts[c] = _line_points(grid, c, points)
            # The cell leaves the empty list (swapped with the last) for the branch.
            empty[k] = empty[n_empty - 1]
            empty[n_empty - 1] = cell
            v = _after(grid, undealt, n_undealt - 1, empty, n_empty - 1, line_pts,
                       total - old_r - old_c + line_pts[r] + line_pts[c], points)
            empty[n_empty - 1] = empty[k]
            empty[k] = cell
            line_pts[r] = old_r
            line_pts[c] = old_c
            grid[cell] = -1
            if v > best:
                best = v
        acc += best
        undealt[n_undealt - 1] = undealt[i]
        undealt[i] = card
    return acc / n_undealt


@njit(cache=True)
def exact_values(grid, card, points):
    """``float64[25]``: the exact expected final score of placing ``card`` in each
    empty cell of ``grid`` and playing the rest optimally (``-inf`` where occupied)."""
    g = grid.copy()
    out = np.full(25, -np.inf)
    empty = np.empty(25, dtype=np.int64)
    n_empty = 0
    seen = np.zeros(52, dtype=np.bool_)
    seen[card] = True
    for i in range(25):
        if g[i] < 0:
            empty[n_empty] = i
            n_empty += 1
        else:
            seen[g[i]] = True
    undealt = np.empty(52, dtype=np.int64)
    n_undealt = np.int64(0)  # not a literal 0: numba compiled _after for that type as well
    for c in range(52):
        if not seen[c]:
            undealt[n_undealt] = c
            n_undealt += 1
    line_pts = np.empty(10, dtype=np.int64)
    total = 0
    for L in range(10):
        line_pts[L] = _line_points(g, L, points)
        total += line_pts[L]
    rest = np.empty(25, dtype=np.int64)
    for k in range(n_empty):
        cell = empty[k]
        r = cell // 5
        c = 5 + cell % 5
        g[cell] = card
        m = 0
        for j in range(n_empty):  # the other empty cells, in order
            if j != k:
                rest[m] = empty[j]
                m += 1
        after = line_pts.copy()
        after[r] = _line_points(g, r, points)
        after[c] = _line_points(g, c, points)
        out[cell] = _after(g, undealt, n_undealt, rest, n_empty - 1, after,
                           total - line_pts[r] - line_pts[c] + after[r] + after[c], points)
        g[cell] = -1
    return out


def leaves(empty: int, cards_on_grid: int) -> int:
    """How many full grids :func:`exact_values` scores with ``empty`` cells to fill
    (the card in hand included) and ``cards_on_grid`` cards placed: its cost."""
    total, undealt = 1, 52 - cards_on_grid - 1
    for e in range(empty, 0, -1):
        total *= e
        if e > 1:
            total *= undealt
            undealt -= 1
    return total
