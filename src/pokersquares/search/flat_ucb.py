"""Flat Monte Carlo and flat UCB1 with depth-limited playouts, over any evaluator
(the searches the GettysburgPlayer was compared with, Neller et al. 2016, sect. 6.2).

Each cell for the card in hand is an arm. Pulling an arm places the card there and
plays ``depth`` more cards from a fresh shuffle of the undealt cards by the
evaluator's greedy policy, then takes the evaluator's estimate of the final score
(:meth:`Evaluator.limited_playouts`); near the end of a game the playouts reach the
full grid and its exact score. Flat Monte Carlo pulls the arms in turn; flat UCB1
pulls the arm with the highest ``mean + exploration * sqrt(2 ln n / n_j)``, the
paper multiplying the usual term by 20 (in points of the point system). Both
choose the cell with the highest mean.
"""

from __future__ import annotations

import math
import time

import numpy as np

from ..cards import is_integer
from ..game import EMPTY
from .base import Search, SearchOptionError, checked_decision

__all__ = ["DepthLimitedFlatMC", "FlatUCB1"]


def _playout_seed(seed: int, pull: int) -> int:
    return (seed * 1_000_003 + pull) & (2**63 - 1)


class _FlatSearch(Search):
    def __init__(self, depth: int = 5, batch: int = 1, pulls: int | None = None) -> None:
        # Below 2**63 too: the kernels take them as int64 (2**64 failed in every pull, not here).
        if not (is_integer(depth) and is_integer(batch) and (pulls is None or is_integer(pulls))) or (
                depth < 0 or batch < 1 or (pulls is not None and pulls < 1)) or max(depth, batch, pulls or 0) >= 2 ** 63:
            raise SearchOptionError(f"depth must be an integer >= 0, batch and pulls integers >= 1, each below 2**63; "
                             f"got depth={depth!r}, batch={batch!r}, pulls={pulls!r}")
        self.depth = int(depth)
        self.batch = int(batch)  # checked here: a pull passes them to the evaluator unchecked
        self.pulls = None if pulls is None else int(pulls)  # fixed work per decision instead of the clock (None: the clock)

    def needs_clock(self) -> str | None:
        if self.pulls is None:
            return "it pulls arms until its time is up; give it pulls=N to pull N arms a move without a clock"
        return None

    def _more(self, deadline: float, pulls_done: int, next_s: float = 0.0) -> bool:
        if self.pulls is not None:
            return pulls_done < self.pulls
        return time.perf_counter() + next_s < deadline

    def _arms(self, evaluator, grid, card, time_s):
        self.cut_short = False
        greedy = evaluator.placement_values(grid, card)
        empty = np.flatnonzero(grid == EMPTY)
        return greedy, empty, time.perf_counter() + time_s

    def _pull(self, evaluator, grid, card, cell, seed) -> np.ndarray:
        after = grid.copy()
        after[cell] = card
        # ``grid`` and ``card`` were checked once this decision (``_arms``), the counts at construction
        return evaluator._unchecked_limited_playouts(after, self.batch, self.depth, seed)

    last_playouts: np.ndarray = np.zeros(25)  # playouts per cell in the last decision

    def _result(self, empty, sums, counts, greedy):
        self.last_playouts = np.zeros(25)
        self.last_playouts[empty] = counts
        values = np.full(25, -np.inf)
        pulled = counts > 0
        if not pulled.all():
            # Too little time (or pulls) to try every cell once: the greedy move.
            self.cut_short = self.pulls is None
            return int(np.argmax(greedy)), greedy
        values[empty] = sums / counts
        return int(np.argmax(values)), values


class DepthLimitedFlatMC(_FlatSearch):
    """Flat Monte Carlo: every cell gets the same number of depth-limited playouts
    (:class:`~pokersquares.search.flat_mc.FlatMonteCarlo` plays to the end instead).
    ``pulls`` fixes the pulls per decision (rounded up to whole rounds)."""

    name = "depth_mc"

    def choose(self, evaluator, grid, card, points, time_s, seed):
        grid, card, points = checked_decision(evaluator, grid, card, points, time_s, seed, self)
        greedy, empty, deadline = self._arms(evaluator, grid, card, time_s)
        if len(empty) <= 1:
            return int(np.argmax(greedy)), greedy
        sums = np.zeros(len(empty))
        counts = np.zeros(len(empty))
        round_s = 0.0
        rounds = 0
        # Whole rounds only, so that every cell gets the same number of playouts; a round
        # is started only if the last one's duration still fits before the deadline.
        while self._more(deadline, rounds * len(empty), round_s):
            t = time.perf_counter()
            for i, cell in enumerate(empty):
                sums[i] += self._pull(evaluator, grid, card, cell, _playout_seed(seed, rounds * 25 + i)).sum()
                counts[i] += self.batch
            rounds += 1
            round_s = time.perf_counter() - t
        return self._result(empty, sums, counts, greedy)


class FlatUCB1(_FlatSearch):
    """Flat UCB1: each pull goes to the cell with the highest upper confidence bound."""

    name = "flat_ucb"

    def __init__(self, depth: int = 5, exploration: float = 20.0, batch: int = 1,
                 pulls: int | None = None) -> None:
        super().__init__(depth, batch, pulls)
        self.exploration = exploration

    def choose(self, evaluator, grid, card, points, time_s, seed):
        grid, card, points = checked_decision(evaluator, grid, card, points, time_s, seed, self)
        greedy, empty, deadline = self._arms(evaluator, grid, card, time_s)
        if len(empty) <= 1:
            return int(np.argmax(greedy)), greedy
        k = len(empty)
        sums = np.zeros(k)
        counts = np.zeros(k)
        pull = 0
        while self._more(deadline, pull):
            if pull < k:
                i = pull
            else:
                means = sums / counts
                bonus = self.exploration * np.sqrt(2.0 * math.log(counts.sum()) / counts)
                i = int(np.argmax(means + bonus))
            sums[i] += self._pull(evaluator, grid, card, empty[i], _playout_seed(seed, pull)).sum()
            counts[i] += self.batch
            pull += 1
        return self._result(empty, sums, counts, greedy)
