"""The search interface, and the simplest search: greedy on the evaluator."""

from __future__ import annotations

import math
from typing import Self
from abc import ABC, abstractmethod

import numpy as np

from ..cards import is_seconds
from ..errors import PokerSquaresError
from ..game import EMPTY
from ..evaluators.base import Evaluator, _brief, checked_points, checked_position, checked_seed

__all__ = ["Search", "GreedySearch", "SearchOptionError", "round_seed", "checked_decision"]


class SearchOptionError(PokerSquaresError, ValueError):
    """A search built with an option it cannot take, or asked to decide in a time it
    cannot take (a user error: one line, exit 2)."""


def last_cell_values(grid: np.ndarray, card: int, points: np.ndarray) -> tuple[int, np.ndarray]:
    """The one empty cell of ``grid`` and the values of a search's answer there: the final
    score of the grid with ``card`` in it (a coach's "estimate of the final score"
    shown for the last card was 0), ``-inf`` elsewhere."""
    from ..kernels.core import score_grid
    cell = int(np.flatnonzero(grid == EMPTY)[0])
    full = grid.copy()
    full[cell] = card
    values = np.full(25, -np.inf)
    values[cell] = float(score_grid(full, points))
    return cell, values


def round_seed(seed: int, round_: int, thread: int) -> int:
    """The seed of one thread's playouts in one round of a decision seeded ``seed``."""
    return (seed * 1_000_003 + round_ * 7919 + thread * 104_729) & (2**63 - 1)


def checked_decision(evaluator, grid, card, points, time_s, seed,
                     search: "Search | None" = None) -> tuple[np.ndarray, int, np.ndarray]:
    """What :meth:`Search.choose` is given, checked once a decision (the searches' loops
    and kernels do not check): ``evaluator`` with a point system (prepared or loaded;
    else NotPreparedError); ``grid`` as a writable contiguous ``int8[25]`` array of
    distinct card ids 0..51 and -1, with an empty cell for the card; ``card`` a card id
    not on it; ``points`` ten integers (as ``int64[10]``); ``time_s`` a number of
    seconds >= 0, infinite (no clock) only where ``search``'s :meth:`~Search.needs_clock`
    says nothing (a search that passes no ``search`` takes infinity); ``seed`` an integer
    in int64's range. Returns ``(grid, card, points)``; else a
    :class:`~pokersquares.errors.PokerSquaresError` naming the problem (a time it cannot
    take: :class:`SearchOptionError`)."""
    if isinstance(evaluator, Evaluator):  # a search over a user's duck-typed evaluator checks no more
        evaluator._require_points()
    grid, card = checked_position(grid, card)
    points = checked_points(points)
    # NaN, a negative time and (for a search only its clock stops) infinity searched for
    # ever, failed deep in a search's arithmetic or played an unsearched move without a word.
    if not is_seconds(time_s) or time_s < 0:
        raise SearchOptionError(f"time_s must be a number of seconds >= 0, got {_brief(time_s)}")
    if math.isinf(time_s) and search is not None and (why := search.needs_clock()):
        raise SearchOptionError(f"time_s must be a finite number of seconds >= 0 for {search.name}, got inf: {why}")
    checked_seed(seed)
    return grid, card, points


class Search(ABC):
    """Chooses a cell for a card within a time budget.

    ``cores`` is how many cores one decision keeps busy (the harness schedules games
    so that the machine is never oversubscribed). ``min_search_s`` is the least
    budget worth searching in: below it a player plays its evaluator's greedy move.
    """

    name: str = "search"
    cores: int = 1
    min_search_s: float = 0.0
    #: CPU seconds numba spends compiling this search's own kernels on an empty cache
    #: (0: it has none and runs on its evaluator's); only for scheduling warm-ups
    #: (:mod:`pokersquares.harness.warm_up`), measured with ``benchmarks/compile_time.py``
    #: and the console of ``benchmarks/web_first_advice.py --cold``.
    compile_s: float = 0.0
    #: Whether the clock cut the last :meth:`choose` short: it decided on less work than
    #: it does with no clock (fewer cells, playouts or learning games), or played the
    #: evaluator's greedy move for want of time. A player counts such a move as a
    #: fallback move. A search whose work only the clock bounds (no fixed playouts,
    #: pulls or iterations) sets it only where it played the greedy move.
    cut_short: bool = False

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"

    def needs_clock(self) -> str | None:
        """Why this search cannot decide with no clock (``time_s=inf``), in a few words
        that say what would bound its work instead; ``None`` when its work per decision
        is bounded without the clock (fixed playouts or iterations, a finite tree), so
        that an infinite time is a decision at that work."""
        return None

    def warm_up_copy(self) -> Self:
        """A copy to compile this search's kernels on (a player's warm-up searches it on
        a few positions), leaving this one untouched; a search whose work is fixed
        rather than timed caps it, so the warm-up takes a moment whatever was asked."""
        import copy

        return copy.deepcopy(self)

    @abstractmethod
    def choose(self, evaluator: Evaluator, grid: np.ndarray, card: int, points: np.ndarray,
               time_s: float, seed: int) -> tuple[int, np.ndarray]:
        """Return the chosen cell index and ``float64[25]`` values per cell (``-inf``
        where occupied or not considered), on the scale of expected final score where
        the search can say so. ``time_s`` is the decision's seconds, >= 0; ``inf`` is
        no clock, which only a search whose work is bounded otherwise takes
        (:meth:`needs_clock`). What it is given is checked first (:func:`checked_decision`);
        ``grid`` is not the search's to change (work on ``grid.copy()``: a
        :class:`~pokersquares.players.SearchPlayer` refuses a move that changed it)."""


class GreedySearch(Search):
    """One ply: the evaluator's own best placement."""

    name = "greedy"

    def choose(self, evaluator, grid, card, points, time_s, seed):
        grid, card, points = checked_decision(evaluator, grid, card, points, time_s, seed, self)
        values = evaluator.placement_values(grid, card)
        return int(np.argmax(values)), values
