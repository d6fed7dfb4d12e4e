"""Flat Monte Carlo: judge each legal cell by the mean final score of playouts.

For every empty cell the card is placed there and the game is completed many times
by the evaluator's greedy policy, each time on a fresh shuffle of the unseen cards;
the cell with the best mean wins (Castro-Wunsch et al. 2016, after Furtak and Buro's
imperfect-information Monte Carlo). Playouts are spread evenly over the cells, in
batches: between batches the clock is checked, and a batch is only started when
the previous one's duration says it will end within the budget. Written against the
``Evaluator`` interface, so any evaluator's playouts drive it; the evaluator's
``placement_playouts`` decides how the batch uses the cores.
"""

from __future__ import annotations

import time

import numpy as np

from ..evaluators.base import Evaluator
from ..game import EMPTY
from .base import Search

__all__ = ["FlatMonteCarlo"]


class FlatMonteCarlo(Search):
    """Flat Monte Carlo over the evaluator's playouts.

    ``playouts`` caps the playouts per cell (the paper's Table i used 100); ``None``
    spends the whole time budget. The budget binds either way. ``cores`` is what the evaluator's playouts keep
    busy (2 for the pattern evaluator's parallel kernel). With no time for even one
    batch the search falls back to the evaluator's greedy values. Only
    ``time_fraction`` of the time given is planned for (batches are checked against
    it with a ``safety`` factor on their predicted duration).
    """

    name = "flat_mc"

    def __init__(self, playouts: int | None = None, cores: int = 2, first_batch: int = 2,
                 max_batch_s: float = 0.05, safety: float = 1.3, time_fraction: float = 0.9) -> None:
        self.playouts = playouts
        self.cores = cores
        self.first_batch = max(1, first_batch)
        self.max_batch_s = max_batch_s
        self.safety = safety
        self.time_fraction = time_fraction
        self.last_playouts = 0  # playouts per cell of the last decision, for reports

    def choose(self, evaluator: Evaluator, grid: np.ndarray, card: int, points: np.ndarray,
               time_s: float, seed: int) -> tuple[int, np.ndarray]:
        start = time.perf_counter()
        # A busy machine can stall a batch for longer than the last one took: leave
        # part of the budget unused rather than lose a game to the clock.
        time_s *= self.time_fraction
        grid = np.asarray(grid, dtype=np.int8)
        cells = np.flatnonzero(grid == EMPTY)
        values = np.full(25, -np.inf)
        self.last_playouts = 0
        if len(cells) == 0:
            raise ValueError("the grid is full")
        if len(cells) == 1:
            values[cells[0]] = 0.0
            return int(cells[0]), values
        totals = np.zeros(len(cells))
        done = 0
        batch = self.first_batch
        per_playout = None  # seconds per playout per cell, measured on the last batch
        cap = self.playouts
        while cap is None or done < cap:
            if cap is not None:
                batch = min(batch, cap - done)
            elapsed = time.perf_counter() - start
            if per_playout is None:
                if time_s <= 0.0:
                    break
            elif elapsed + self.safety * per_playout * batch > time_s:
                # Shared cores make batches slower than the last one said: keep a margin.
                batch = int((time_s - elapsed) / (self.safety * per_playout))
                if batch < 1:
                    break
            t = time.perf_counter()
            scores = evaluator.placement_playouts(grid, card, cells, batch, seed * 7919 + done)
            totals += scores.sum(axis=1)
            done += batch
            per_playout = (time.perf_counter() - t) / batch
            # Grow batches while they stay short: fewer calls, same clock checks.
            longest = min(self.max_batch_s, time_s / 8)
            batch = max(1, min(batch * 2, int(longest / max(per_playout, 1e-9))))
        if done == 0:
            values = evaluator.placement_values(grid, card)
            return int(np.argmax(values)), values
        self.last_playouts = done
        values[cells] = totals / done
        return int(cells[int(np.argmax(totals))]), values
