"""Baseline players: uniform random placement, a simple greedy player, and flat Monte
Carlo over that greedy rule (nothing learned)."""

from __future__ import annotations

import math
import random

import numpy as np

from ..cards import Card, is_integer, is_seconds
from ..errors import PokerSquaresError
from ..game import EMPTY, LINES
from ..harness.player import BasePlayer
from . import greedy_guard
from .catalog import register_player
from .move_clock import MoveClock
from ..hands import hand_id

__all__ = ["RandomPlayer", "GreedyPlayer", "GreedyMcPlayer"]


@register_player("random", "uniformly random empty cell (American mean about 14.4); its seed parameter draws "
                 "other random moves on the same deals, each seed reproducible")
class RandomPlayer(BasePlayer):
    """Places each card in a uniformly random empty cell. Its generator restarts each
    game from the game's seed (:meth:`set_seed`, which the harness calls with a keyed hash
    of the deal under the run's secret) combined with ``seed``: ``random:seed=5`` and
    ``random:seed=6`` play other moves on the same deals, and each plays the same moves
    again under the same secret. Without ``seed``, the game's seed alone."""

    name = "random"
    version = "2"  # 2: the seed parameter counts (each game's seed replaced it)

    def __init__(self, seed: int | None = None) -> None:
        super().__init__()
        if seed is not None and not is_integer(seed):
            raise PokerSquaresError(f"random's seed must be an integer, got {seed!r}")
        self.own_seed = None if seed is None else int(seed)
        self._rng = random.Random(self.own_seed)

    def set_seed(self, seed: int) -> None:
        super().set_seed(seed)
        self._rng.seed(self.seed if self.own_seed is None else f"{self.own_seed}:{self.seed}")

    def choose(self, grid: np.ndarray, card: Card, seconds_left: float) -> int:
        grid, card = self.checked_position(grid, card)
        return self._rng.choice(np.flatnonzero(grid == EMPTY).tolist())


def _compile_rule_kernels() -> None:
    """Compile (or load) the greedy rule's move and games kernels."""
    grid = np.full(25, EMPTY, dtype=np.int8)
    grid[:22] = np.arange(22)
    greedy_guard.greedy_rule_values(grid, 30, np.zeros(10, dtype=np.int64), 0, games=1)
    greedy_guard.greedy_rule_move(grid, 30, np.zeros(10, dtype=np.int64))


# The largest flush weight greedy takes: far beyond it the flush term overflows.
MAX_FLUSH_WEIGHT = 1e12

# Lines through each cell: its row (index r) and its column (index 5 + c).
_CELL_LINES = [(i // 5, 5 + i % 5) for i in range(25)]


@register_player("greedy", "one-ply greedy on partial-hand points, suits kept to columns (American mean about 81)")
class GreedyPlayer(BasePlayer):
    """Places each card where the resulting grid's static value is highest.

    The static value of a line is the points of its partial hand (pairs, trips, ...)
    under the game's point system, plus, for a column whose cards all share one suit,
    a fraction of the flush points that grows with its length: rows collect ranks,
    columns collect suits, the strategy the 2013 challenge slides suggest.
    Ties go to the first cell in reading order, so play is deterministic.
    """

    name = "greedy"
    version = "2"  # flush weight 0.3

    def __init__(self, flush_weight: float = 0.3) -> None:
        super().__init__()
        # A weight of about 1e307 or more made the flush term infinite, every gain inf - inf
        # or -inf, and the rule played into an occupied cell (the game scored the penalty);
        # far below that (points are clamped to [-128, 127]) the flush term already
        # outweighs every hand, so the bound changes no play a weight could ask for.
        if not is_seconds(flush_weight) or not abs(flush_weight) <= MAX_FLUSH_WEIGHT:
            raise PokerSquaresError(f"flush_weight must be a number from {-MAX_FLUSH_WEIGHT:g} to "
                                    f"{MAX_FLUSH_WEIGHT:g}, got {flush_weight!r}")
        self.flush_weight = float(flush_weight)

    def _line_value(self, cards: list[int], is_column: bool) -> float:
        value = float(self.points[hand_id(cards)])
        if is_column and 1 < len(cards) < 5 and len({c // 13 for c in cards}) == 1:
            value += self.flush_weight * len(cards) / 5 * max(0, self.points[5])
        return value

    def gains(self, grid: np.ndarray, card: Card) -> np.ndarray:
        """How much placing ``card`` in each empty cell raises the grid's static value
        (NaN where occupied)."""
        gains = np.full(25, np.nan)
        for cell in np.flatnonzero(grid == EMPTY):
            gain = 0.0
            for line in _CELL_LINES[cell]:
                cards = [int(grid[j]) for j in LINES[line] if grid[j] != EMPTY]
                is_col = line >= 5
                gain += self._line_value(cards + [card], is_col) - self._line_value(cards, is_col)
            gains[cell] = gain
        return gains

    def choose(self, grid: np.ndarray, card: Card, seconds_left: float) -> int:
        grid, card = self.checked_position(grid, card)
        gains = self.gains(grid, card)
        # nanargmax keeps the first of equal gains: reading order breaks ties.
        return int(np.nanargmax(gains))

    def cell_values(self, grid: np.ndarray, card: Card, seconds: float) -> np.ndarray:
        """The estimated final score when ``card`` goes in each cell and this rule plays
        on: the mean of sampled futures, the same for every cell, as many as ``seconds``
        allow (at most 200). Its own move is one ply (:meth:`advised_cell`), so the best
        of these numbers can differ from it."""
        grid, card = self.checked_position(grid, card, "cell_values")
        return greedy_guard.greedy_rule_values(grid, int(card), self.points, self.seed, games=200,
                                               seconds=seconds, flush_weight=self.flush_weight)

    def advised_cell(self, grid: np.ndarray, card: Card) -> int:
        """The cell this player would play: its one-ply rule, not the best of its
        :meth:`cell_values`."""
        return self.choose(grid, card, 0.0)

    def warm_up(self) -> None:
        """Compile the greedy rule's kernels (off every clock), for :meth:`cell_values`,
        and the position check (a cold cache compiled it in the first game's clock)."""
        super().warm_up()
        _compile_rule_kernels()


@register_player("greedy_mc", "flat Monte Carlo over greedy's rule, nothing learned: each cell's mean final score "
                 "over the rule's games on the same sampled deals, in the game's clock (American about 122 at "
                 "1 s a game); time_per_game=, reserve=")
class GreedyMcPlayer(greedy_guard.RuleSearching, BasePlayer):
    """Searches over the ``greedy`` rule and learns nothing: for each card, every empty
    cell is judged by the mean final score of the rule's games from there on the same
    sampled deals (:func:`.greedy_guard.rule_searched_cell`), in the share of the game's
    clock a :class:`~.move_clock.MoveClock` gives the move (``reserve`` of the clock
    kept back; ``time_per_game`` caps the game's clock below the harness's). Below
    ``RULE_MIN_SEARCH_S`` a move, the rule's own move. What a searching player falls
    back to when its learning lost the small-budget guard's check; on its own, the
    yardstick for what learning adds to a search.
    """

    name = "greedy_mc"

    def __init__(self, time_per_game: float | None = None, reserve: float = 0.08) -> None:
        super().__init__()
        if time_per_game is not None and not time_per_game > 0:
            raise PokerSquaresError(f"greedy_mc needs time_per_game > 0 (seconds), got {time_per_game!r}")
        if not 0 <= reserve < 1:
            raise PokerSquaresError(f"greedy_mc needs reserve in [0, 1) (a share of the game's clock), got {reserve!r}")
        self.clock = MoveClock(reserve, math.inf, time_per_game)
        self._moves = 0
        self.fallback_moves = 0  # this game's moves left to the rule for lack of time

    def choose(self, grid: np.ndarray, card: Card, seconds_left: float) -> int:
        grid, card = self.checked_position(grid, card)
        empty = np.flatnonzero(grid == EMPTY)
        if len(empty) == 1:
            return int(empty[0])
        if len(empty) == 25:
            return 0  # every first placement is alike up to symmetry
        return self._rule_searched_move(grid, card, seconds_left, len(empty) - 1)  # the last move is free

    def cell_values(self, grid: np.ndarray, card: Card, seconds: float) -> np.ndarray:
        """Each empty cell's estimated final score (the mean over as many of the rule's
        games as fit in ``seconds``, at least ``RULE_FIRST_GAMES`` a cell); ``-inf`` where occupied."""
        grid, card = self.checked_position(grid, card, "cell_values")
        return greedy_guard.greedy_rule_values(grid, int(card), self.points, self.seed,
                                               games=greedy_guard.RULE_MAX_GAMES, seconds=seconds,
                                               first=greedy_guard.RULE_FIRST_GAMES)

    def warm_up(self) -> None:
        """Compile the greedy rule's kernels and the position check (off every clock)."""
        super().warm_up()
        _compile_rule_kernels()
