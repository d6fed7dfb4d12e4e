"""Exact play over a game's last cards: the readable reference and the entry point.

:func:`exact_values_reference` is the rule in plain Python (a recursion over cells and
undealt cards, scoring full grids with :func:`pokersquares.hands.classify`);
:func:`exact_values` answers the same question with the kernel
(:mod:`pokersquares.kernels.endgame`), and :func:`exact_cost` says how many full grids
that takes, so that a search can tell whether it fits its time.
"""

from __future__ import annotations

import numpy as np

from ..evaluators.base import checked_points
from ..game import EMPTY, LINES
from ..hands import classify
from ..kernels import endgame as K

__all__ = ["exact_values", "exact_values_reference", "exact_cost"]


def _score(grid: list[int], points) -> int:
    return sum(int(points[classify([grid[i] for i in line])]) for line in LINES)


def exact_values_reference(grid, card: int, points) -> np.ndarray:
    """``float64[25]``: expected final score of placing ``card`` in each empty cell and
    then every later card (drawn uniformly from the undealt ones) optimally; ``-inf``
    where occupied. Plain Python; for a few empty cells only."""
    grid = [int(c) for c in grid]
    undealt = sorted(set(range(52)) - {c for c in grid if c != EMPTY} - {int(card)})

    def after(g: list[int], deck: list[int]) -> float:
        if EMPTY not in g:
            return float(_score(g, points))
        # Chance: the next card is any undealt one; choice: its best cell.
        total = 0.0
        for i, nxt in enumerate(deck):
            rest = deck[:i] + deck[i + 1:]
            total += max(place(g, nxt, cell, rest) for cell in range(25) if g[cell] == EMPTY)
        return total / len(deck)

    def place(g: list[int], c: int, cell: int, deck: list[int]) -> float:
        child = list(g)
        child[cell] = c
        return after(child, deck)

    out = np.full(25, -np.inf)
    for cell in range(25):
        if grid[cell] == EMPTY:
            out[cell] = place(grid, int(card), cell, undealt)
    return out


def exact_values(grid: np.ndarray, card: int, points: np.ndarray) -> np.ndarray:
    """The kernel's answer to :func:`exact_values_reference`. ``points``: ten integers in
    [-128, 127] (the kernel adds them unchecked; else InvalidPointSystemError)."""
    return K.exact_values(np.asarray(grid, dtype=np.int8), int(card), checked_points(points))


def exact_cost(grid: np.ndarray) -> int:
    """Full grids :func:`exact_values` scores for ``grid`` (with a card in hand)."""
    empty = int((np.asarray(grid) == EMPTY).sum())
    return K.leaves(empty, 25 - empty)
