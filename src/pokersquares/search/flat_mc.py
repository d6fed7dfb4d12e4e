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

import math
import time

import numpy as np

from ..cards import is_integer, is_seconds
from ..evaluators.base import MAX_THREADS, Evaluator, _brief, wrapped_seed
from ..game import EMPTY
from .base import Search, SearchOptionError, checked_decision, last_cell_values

__all__ = ["FlatMonteCarlo"]


class FlatMonteCarlo(Search):
    """Flat Monte Carlo over the evaluator's playouts.

    ``playouts`` caps the playouts per cell (the paper's Table i used 100); ``None``
    spends the whole time budget, and then the budget must be finite. With a cap, an
    infinite budget (no clock) plays exactly the cap; a finite one binds too: only
    ``time_fraction`` of it is planned for, and each batch is sized from the cost of
    the last one with a ``safety`` factor. A batch's cost is modelled as proportional
    to cells x playouts x cards dealt per playout; the cost per unit carries over from
    move to move, so the first batch of a move is already sized to the budget (a
    third of it); before any is measured, a clocked search plays one playout a cell
    first and times it (the prior fits numba playouts, not an evaluator of one's own
    in plain Python). With no time for even one playout per cell the search falls back
    to the evaluator's greedy values; that, or fewer playouts than the cap, sets
    :attr:`~.base.Search.cut_short`. ``cores`` is what the evaluator's playouts keep
    busy (2 for the pattern evaluator's parallel kernel).
    """

    name = "flat_mc"

    def __init__(self, playouts: int | None = None, cores: int = 2, safety: float = 1.3,
                 time_fraction: float = 0.9, first_share: float = 0.3) -> None:
        # Checked here: playouts=0 or below searched nothing and played the greedy move
        # without a word (beemo:playouts=0), cores=0 or below made a player that fits no
        # machine, a share outside (0, 1] planned no time or more than the budget.
        if playouts is not None and (not is_integer(playouts) or not 1 <= playouts < 2 ** 63):
            raise SearchOptionError(f"playouts must be a whole number of playouts per cell of at least 1 (or None: "
                                    f"as many as the time allows), got {_brief(playouts)}")
        if not is_integer(cores) or cores < 1:
            raise SearchOptionError(f"cores must be a positive whole number, got {_brief(cores)}")
        if cores > MAX_THREADS:  # a million made a player no machine could give its cores
            raise SearchOptionError(f"cores must be at most {MAX_THREADS}, got {_brief(cores)}")
        for what, share in (("time_fraction", time_fraction), ("first_share", first_share)):
            if not is_seconds(share) or not 0 < share <= 1:
                raise SearchOptionError(f"{what} must be a share of the move's time in (0, 1], got {_brief(share)}")
        if not is_seconds(safety) or not 0 < safety < math.inf:
            raise SearchOptionError(f"safety must be a finite factor > 0 on a batch's expected cost, "
                                    f"got {_brief(safety)}")
        playouts = None if playouts is None else int(playouts)
        cores = int(cores)
        self.playouts = playouts
        self.cores = cores
        self.safety = safety
        self.time_fraction = time_fraction
        self.first_share = first_share
        self.unit_s = 3e-7  # seconds per cell x playout x card dealt; learned as it goes
        self.unit_measured = False  # until then a clocked search plays one playout a cell first
        self.last_playouts = 0  # playouts per cell of the last decision, for reports

    def needs_clock(self) -> str | None:
        if self.playouts is None:
            return "it plays playouts until its time is up; give it playouts=N to play N a cell without a clock"
        return None

    def choose(self, evaluator: Evaluator, grid: np.ndarray, card: int, points: np.ndarray,
               time_s: float, seed: int) -> tuple[int, np.ndarray]:
        start = time.perf_counter()
        grid, card, points = checked_decision(evaluator, grid, card, points, time_s, seed, self)
        # A busy machine can stall a batch for longer than the last one took: leave
        # part of the budget unused rather than lose a game to the clock.
        time_s *= self.time_fraction
        cells = np.flatnonzero(grid == EMPTY)
        values = np.full(25, -np.inf)
        self.last_playouts = 0
        self.cut_short = False
        if len(cells) == 0:
            raise ValueError("the grid is full")
        if len(cells) == 1:
            return last_cell_values(grid, card, points)
        totals = np.zeros(len(cells))
        work = len(cells) * (len(cells) - 1)  # cell-playouts x cards dealt, per playout per cell
        done = 0
        cap = self.playouts
        while cap is None or done < cap:
            remaining = time_s - (time.perf_counter() - start)
            per_playout = self.safety * self.unit_s * work
            share = self.first_share if done == 0 else 1.0
            # Capped before it is made whole: with no clock (an infinite budget) the time
            # plans infinitely many playouts and the cap alone decides.
            planned = share * remaining / per_playout if remaining > 0 else 0.0
            if cap is not None:
                planned = min(planned, cap - done)
            elif not self.unit_measured:
                # The prior fits numba playouts; an evaluator of one's own in plain Python
                # can be a thousand times slower, and its first batch, sized by the prior,
                # ran a minute past a 1 s budget. So one playout a cell first, timed.
                planned = min(planned, 1.0)
            batch = int(planned)
            if batch < 1:
                break
            t = time.perf_counter()
            scores = evaluator.placement_playouts(grid, card, cells, batch, wrapped_seed(seed * 7919 + done))
            self.unit_s = (time.perf_counter() - t) / (batch * work)
            self.unit_measured = True
            totals += scores.sum(axis=1)
            done += batch
        self.cut_short = done == 0 or (cap is not None and done < cap)
        if done == 0:
            values = evaluator.placement_values(grid, card)
            return int(np.argmax(values)), values
        self.last_playouts = done
        values[cells] = totals / done
        return int(cells[int(np.argmax(totals))]), values
