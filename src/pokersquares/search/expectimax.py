"""Depth-2 expectimax over any evaluator (the GettysburgPlayer's search, Neller et al. 2016, sect. 6.2).

A choice over the cells for the card in hand, then chance over the next card (every
undealt card, equally likely), then a choice over the cells for that card, judged
by the evaluator's static value of the grid reached. The chance level is one call
of :meth:`Evaluator.best_placement_values` per cell, which evaluators with a fast
path answer in a single kernel call.
"""

from __future__ import annotations

import time

import numpy as np

from ..game import EMPTY
from .base import Search, checked_decision

__all__ = ["Expectimax"]


class Expectimax(Search):
    """Expectimax to depth 2 (choice, chance, choice, static value).

    Cells are searched in the order of their greedy value, so that when ``time_s``
    runs out part way the best greedy candidates have been searched; when it cannot
    cover even one cell (judged by the cost of the previous searches) the move is the
    greedy one; with no clock (``time_s=inf``) every cell is searched, a bounded work.
    Either shortfall sets :attr:`~.base.Search.cut_short`. Values are estimated final
    scores; cells not searched are ``-inf``.
    """

    name = "expectimax"

    def __init__(self) -> None:
        self._seconds_per_card = 0.0  # measured cost of one chance outcome

    def choose(self, evaluator, grid, card, points, time_s, seed):
        start = time.perf_counter()
        grid, card, points = checked_decision(evaluator, grid, card, points, time_s, seed, self)
        self.cut_short = False
        greedy = evaluator.placement_values(grid, card)
        empty = np.flatnonzero(grid == EMPTY)
        if len(empty) <= 1:
            return int(np.argmax(greedy)), greedy
        deadline = start + time_s
        on_grid = grid[grid != EMPTY].astype(np.int64)
        undealt = np.setdiff1d(np.arange(52), np.append(on_grid, card))
        per_cell = self._seconds_per_card * len(undealt)
        if time.perf_counter() + per_cell > deadline:
            # Let the estimate shrink while unused, so that one slow measurement (a
            # busy machine, a first call) does not turn the search off for good.
            self._seconds_per_card *= 0.8
            self.cut_short = True
            return int(np.argmax(greedy)), greedy
        values = np.full(25, -np.inf)
        after = grid.copy()
        for cell in empty[np.argsort(-greedy[empty], kind="stable")]:
            t = time.perf_counter()
            if t + per_cell > deadline and np.isfinite(values).any():
                self.cut_short = True
                break
            after[cell] = card
            values[cell] = evaluator.best_placement_values(after, undealt).mean()
            after[cell] = EMPTY
            spent = time.perf_counter() - t
            per_cell = spent if per_cell == 0 else 0.7 * per_cell + 0.3 * min(spent, 3 * per_cell)
        self._seconds_per_card = per_cell / len(undealt)
        return int(np.argmax(values)), values
