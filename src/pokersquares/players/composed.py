"""A player composed of an evaluator and a search: the three 2016 winners and any
other pairing are one line each, e.g. ``SearchPlayer(PatternEvaluator(), FlatMonteCarlo())``."""

from __future__ import annotations

import time

import numpy as np

from .. import progress
from ..cards import Card
from ..evaluators.base import Evaluator
from ..game import EMPTY
from ..harness.player import BasePlayer
from ..search.base import GreedySearch, Search
from . import greedy_guard

__all__ = ["SearchPlayer", "move_budget"]


def move_budget(grid: np.ndarray, seconds_left: float, per_move_cap: float | None = None,
                reserve: float = 0.1, overshoot_s: float = 0.02) -> float:
    """Seconds to spend on the current move.

    The first move (every cell is alike up to symmetry) and the last (one empty cell)
    need no search; the time left is shared evenly among the moves still to be
    searched, keeping a reserve (a share of the clock, and ``overshoot_s`` for each
    move to come, as a search may finish its last batch past its budget) so that
    the game never runs out.
    """
    empty = int((grid == EMPTY).sum())
    if empty <= 1 or empty == 25:
        return 0.0
    searched_moves_left = empty - 1  # the last move is free
    budget = max(0.0, seconds_left * (1 - reserve) - overshoot_s * searched_moves_left) / searched_moves_left
    if per_move_cap is not None:
        budget = min(budget, per_move_cap)
    return budget


class SearchPlayer(BasePlayer):
    """Plays by ``search`` over ``evaluator``; learns in ``prepare`` through the evaluator.

    ``time_per_game`` caps the decision time this player allows itself per game
    (below the harness's limit, e.g. to run 500 games in an hour).
    """

    def __init__(self, evaluator: Evaluator, search: Search, name: str | None = None,
                 time_per_game: float | None = None) -> None:
        super().__init__()
        self.evaluator = evaluator
        self.search = search
        self.name = name or f"{evaluator.name}+{search.name}"
        self.cores = search.cores
        self.time_per_game = time_per_game
        self._moves = 0
        self._overshoot = 0.02
        self.guard: greedy_guard.GuardReport | None = None  # the check of the last preparation
        self.fallback_moves = 0  # this game's moves left to the evaluator's greedy rule for lack of time

    def prepare(self, budget_s: float) -> None:
        """Learn through the evaluator; an evaluator that learns for as long as the budget
        allows then has its policy checked against the greedy rule (:mod:`.greedy_guard`),
        within the same budget."""
        start = time.perf_counter()
        check_s = greedy_guard.check_budget_s(budget_s) if self.evaluator.learns_within_budget else 0.0
        self.evaluator.prepare(self.points, budget_s - check_s, self.seed)
        self.guard = None
        if check_s > 0:
            left = budget_s - (time.perf_counter() - start)
            self.guard = greedy_guard.check_against_greedy(self.evaluator, self.points, min(check_s, 0.8 * left),
                                                           self.seed)
            g = self.guard
            progress.report(f"checked against the greedy rule over {g.games:,} games a side: learned "
                            f"{g.learned_mean:.1f}, greedy {g.greedy_mean:.1f}"
                            + (": playing the greedy rule" if g.plays_greedy_rule else ""), force=True)

    @property
    def plays_greedy_rule(self) -> bool:
        """Whether this point system's learning lost the check to the greedy rule, so
        that the player plays that rule instead of its search."""
        return self.guard is not None and self.guard.plays_greedy_rule

    def warm_up(self) -> None:
        """A tiny preparation and two short searches on copies of the evaluator and the
        search, one early in a game and one near its end (where playouts reach the full
        grid): every kernel they use gets compiled, and this player's state is untouched."""
        import copy

        from ..points import AMERICAN

        with progress.listening(None):  # the copy's learning is not the player's
            evaluator, search = self.evaluator.warm_up_copy(), copy.deepcopy(self.search)
            points = np.array(AMERICAN.points, dtype=np.int64)
            evaluator.prepare(points, 0.05, 0)
            early = np.full(25, EMPTY, dtype=np.int8)
            early[[0, 6, 12]] = [0, 14, 28]
            late = np.full(25, EMPTY, dtype=np.int8)
            late[:21] = np.arange(21)
            for grid in (early, late):
                search.choose(evaluator, grid, 42, points, 0.05, 0)
            if self.evaluator.learns_within_budget:
                greedy_guard.check_against_greedy(evaluator, points, 0.0, 0, max_games=1)
                greedy_guard.greedy_rule_move(early, 42, points)

    def start_game(self) -> None:
        super().start_game()
        self._moves = 0
        self.fallback_moves = 0

    def choose(self, grid: np.ndarray, card: Card, seconds_left: float) -> int:
        empty = np.flatnonzero(grid == EMPTY)
        if len(empty) == 1:
            return int(empty[0])
        if self.plays_greedy_rule:
            return greedy_guard.greedy_rule_move(grid, card, self.points)
        if len(empty) == 25:
            # Every first placement is alike up to symmetry: take the corner.
            return 0
        # Searches stop between batches, so each may end a little past its budget:
        # keep the largest such overshoot seen for every move still to come.
        budget = move_budget(grid, self._seconds_left(seconds_left, len(empty)), overshoot_s=self._overshoot)
        if budget <= self._overshoot:
            # No time to search: the evaluator's own move, counted in the game's record
            # unless the search is that move anyway (nothing was given up).
            self.fallback_moves += not isinstance(self.search, GreedySearch)
            return self.evaluator.greedy_cell(grid, card)
        t = time.perf_counter()
        cell, _ = self.search.choose(self.evaluator, grid, card, self.points, budget,
                                     self.seed * 31 + self._moves)
        self._overshoot = max(self._overshoot, time.perf_counter() - t - budget)
        self._moves += 1
        return cell

    def _seconds_left(self, seconds_left: float, empty: int) -> float:
        if self.time_per_game is None:
            return seconds_left
        # Scale the cap by the share of moves still to play, and never exceed the harness's clock.
        return min(seconds_left, self.time_per_game * (empty - 1) / 23)

    def cell_values(self, grid: np.ndarray, card: Card, seconds: float) -> np.ndarray:
        if self.plays_greedy_rule:
            return greedy_guard.greedy_rule_values(grid, card, self.points, self.seed)
        _, values = self.search.choose(self.evaluator, grid, int(card), self.points, seconds, self.seed)
        return values
