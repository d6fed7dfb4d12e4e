"""A player composed of an evaluator and a search: the three 2016 winners and any
other pairing are one line each, e.g. ``SearchPlayer(PatternEvaluator(), FlatMonteCarlo())``."""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from .. import progress
from ..cards import Card, is_integer
from ..errors import PokerSquaresError
from ..evaluators.base import Evaluator, _brief
from ..game import EMPTY, NUM_CELLS
from ..harness.player import BasePlayer
from ..search.base import GreedySearch, Search
from . import greedy_guard
from .move_clock import MoveClock

__all__ = ["SearchPlayer", "LEARN_MARGIN_S"]

# What in-game learning keeps back of the game's clock beyond the clock's reserve.
LEARN_MARGIN_S = 0.25


def _check_prepared(evaluator: Evaluator) -> None:
    """A PokerSquaresError unless ``evaluator`` kept the points its ``prepare`` was given:
    an evaluator of one's own whose ``prepare`` overrides the base's without keeping them
    was told at every move to "call prepare(points, budget_s) ... first", which it had been."""
    if evaluator.points is None:
        raise PokerSquaresError(f"the {evaluator.name} evaluator's prepare kept no point system: call "
                                "super().prepare(points, budget_s, seed) in it (or set self.points = points)")


def _check_playout_keywords(search: Search | None, evaluator: Evaluator) -> None:
    """A PokerSquaresError unless ``evaluator``'s ``limited_playouts`` takes the keywords
    ``search`` passes it: ``CrnHalving(lam=0.5)`` passes ``lam=`` and ``stratify=True``
    passes ``first=``, which only the TD evaluator takes; over any other evaluator every
    game scored the penalty for a TypeError in the warm-up ("preparation failed")."""
    import inspect

    from ..search.halving import CrnHalving

    while search is not None:
        if isinstance(search, CrnHalving):
            wanted = [(keyword, option) for keyword, option, used in (
                ("lam", f"lam={search.lam:g}", search.lam != 1.0), ("first", "stratify=True", search.stratify)) if used]
            try:
                parameters = inspect.signature(evaluator.limited_playouts).parameters
            except (TypeError, ValueError):
                return
            if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
                return
            for keyword, option in wanted:
                if keyword not in parameters:
                    raise PokerSquaresError(f"CrnHalving({option}) passes {keyword}= to its evaluator's limited_playouts, "
                                            f"which the {evaluator.name} evaluator's does not take (TdEvaluator's does): "
                                            f"leave {option.split('=')[0]} at its default or give the evaluator's "
                                            f"limited_playouts a {keyword}= keyword")
        search = getattr(search, "inner", None)  # TdSearch decides with an inner search


def _cells(cells: np.ndarray) -> str:
    """``cells`` for a one-line message: "cell 3", "cells 1, 2, 3"."""
    return f"cell {cells[0]}" if len(cells) == 1 else "cells " + ", ".join(map(str, cells))


class SearchPlayer(greedy_guard.RuleSearching, BasePlayer):
    """Plays by ``search`` over ``evaluator``; learns in ``prepare`` through the evaluator.

    The game's clock is shared among the moves by ``self.clock``, a
    :class:`~.move_clock.MoveClock` keeping back ``reserve`` of it;
    ``time_per_game`` caps the decision time this player allows itself per game
    (below the harness's limit, e.g. to run 500 games in an hour), and is the clock of
    a game with none (``seconds_left=inf`` at a move: without a finite ``time_per_game``
    that is a PokerSquaresError, rather than a search that never stops or a game played
    unsearched); ``learn_usage`` has the clock plan with the share of its budget each
    move is learned to take.
    ``learn_in_game``: at a game's last card (whose cell is forced) an evaluator that
    :attr:`~..evaluators.base.Evaluator.learns_more` goes on learning for the time the
    game left, less the clock's reserve and a margin (:meth:`learn_in_leftover`): the
    game's clock, not time between games, pays for it, and what is learned carries
    over to the next games of the run.

    Threads: a player plays one game at a time (its grid, clock, search and move count
    are that game's). :meth:`advice` and :meth:`cell_values` called from several threads
    take turns (a lock), each answering as it would alone (one asked during another
    thread's preparation waits for it); a move (``get_play``, ``choose``), ``start_game``,
    ``set_seed`` or a preparation asked while another thread is inside this player raises
    a PokerSquaresError instead of playing on a grid the other game changes. Give each
    thread its own player (``copy.deepcopy(player)`` after ``set_point_system``).
    """

    def __init__(self, evaluator: Evaluator, search: Search, name: str | None = None,
                 time_per_game: float | None = None, reserve: float = 0.08,
                 reserve_max_s: float = math.inf, learn_usage: bool = False,
                 learn_in_game: bool = False) -> None:
        super().__init__()
        # An evaluator and a search object each, in that order: a class (NarlEvaluator, not
        # NarlEvaluator()) or the two swapped would fail only at the first preparation or move.
        if isinstance(evaluator, type) or not callable(getattr(evaluator, "placement_values", None)):
            raise PokerSquaresError(f"SearchPlayer(evaluator, search) takes an evaluator object first, such as "
                                    f"NarlEvaluator(), got {evaluator!r}")
        if isinstance(search, type) or not callable(getattr(search, "choose", None)):
            raise PokerSquaresError(f"SearchPlayer(evaluator, search) takes a search object second, such as "
                                    f"MCTS(), got {search!r}")
        # One of one's own that only has the method a search calls (duck-typed) failed later,
        # at the warm-up or the first move, as an AttributeError in every game's penalty.
        for piece, base, what in ((evaluator, Evaluator, "pokersquares.evaluators.Evaluator: it gives the prepare, "
                                   "greedy_cell and warm_up_copy a player calls"),
                                  (search, Search, "pokersquares.search.Search: it gives the cores, min_search_s and "
                                   "warm_up_copy a player reads")):
            if not isinstance(piece, base):
                raise PokerSquaresError(f"SearchPlayer takes a subclass of {what}; {type(piece).__name__} is not one")
        _check_playout_keywords(search, evaluator)
        self.evaluator = evaluator
        self.search = search
        self.name = name or f"{evaluator.name}+{search.name}"
        self.cores = search.cores
        self.clock = MoveClock(reserve, reserve_max_s, time_per_game, learn_usage)
        self._moves = 0
        self.guard: greedy_guard.GuardReport | None = None  # the check of the last preparation
        self.fallback_moves = 0  # this game's moves left to the greedy rule or cut short for lack of time
        if learn_in_game and not evaluator.learns_more:
            raise PokerSquaresError(f"learn_in_game needs an evaluator that goes on learning after its preparation; "
                                    f"{evaluator.name} does not")
        self.learn_in_game = learn_in_game
        self.games_learned_in_game = 0  # over every game this player played

    def _repr_parts(self) -> str:
        parts = (type(getattr(self, part, None)).__name__ for part in ("evaluator", "search"))
        return " ({} + {})".format(*parts)

    def prepare(self, budget_s: float) -> None:
        """Learn through the evaluator; an evaluator that learns for as long as the budget
        allows then has its policy checked against the greedy rule (:mod:`.greedy_guard`),
        within the same budget."""
        start = time.perf_counter()
        check_s = greedy_guard.check_budget_s(budget_s) if self.evaluator.learns_within_budget else 0.0
        self.evaluator.prepare(self.points, budget_s - check_s, self.seed)
        _check_prepared(self.evaluator)
        self.guard = None
        kept = self.evaluator.loaded_points() == tuple(int(p) for p in self.points)  # a saved state played
        if self.evaluator.learns_within_budget and budget_s < greedy_guard.MIN_BUDGET_S and not kept:
            # Too little to learn anything worth playing, or to check it: a learner of 0 s
            # played at random's level (American 14.3), the greedy rule plays 80 to 87.
            self.guard = greedy_guard.GuardReport.too_little_time()
            progress.report(f"{budget_s:g} s of preparation is too little to learn and check against the greedy "
                            "rule: playing the greedy rule", force=True)
        elif check_s > 0:
            left = budget_s - (time.perf_counter() - start)
            self.guard = greedy_guard.check_against_greedy(self.evaluator, self.points, min(check_s, 0.8 * left),
                                                           self.seed)
            g = self.guard
            progress.report(f"checked against the greedy rule over {g.games:,} games a side: learned "
                            f"{g.learned_mean:.1f}, greedy {g.greedy_mean:.1f} (difference ± {g.diff_se:.1f})"
                            + (": playing the greedy rule" if g.plays_greedy_rule else ""), force=True)

    @property
    def plays_greedy_rule(self) -> bool:
        """Whether this point system's learning lost the check to the greedy rule, so
        that the player plays that rule instead of its search."""
        return self.guard is not None and self.guard.plays_greedy_rule

    def warm_up(self) -> None:
        """A tiny preparation and two short searches on copies of the evaluator and the
        search, one early in a game and one near its end (where playouts reach the full
        grid), the evaluator's own greedy move (``tiger``'s second card) and a few of its
        learning games (a tiny preparation learns none: ``td`` compiled them inside its
        preparation's clock): every kernel they use gets compiled, and this player's
        state is untouched."""

        from ..points import AMERICAN

        super().warm_up()  # the position check every move makes
        with progress.listening(None):  # the copy's learning is not the player's
            evaluator, search = self.evaluator.warm_up_copy(), self.search.warm_up_copy()
            points = np.array(AMERICAN.points, dtype=np.int64)
            evaluator.prepare(points, 0.05, 0)
            _check_prepared(evaluator)
            early = np.full(25, EMPTY, dtype=np.int8)
            early[[0, 6, 12]] = [0, 14, 28]
            late = np.full(25, EMPTY, dtype=np.int8)
            late[:21] = np.arange(21)
            for grid in (early, late):
                search.choose(evaluator, grid, 42, points, 0.05, 0)
            evaluator.greedy_cell(early, 42)
            if self.evaluator.learns_within_budget:
                greedy_guard.check_against_greedy(evaluator, points, 0.0, 0, max_games=1)
                greedy_guard.greedy_rule_move(early, 42, points)
            if hasattr(self.evaluator, "learn"):
                learner: Any = self.evaluator.warm_up_copy()
                learner.points = points
                learner.reset(0)
                learner.learn(games=4)

    def _check_evaluator_points(self) -> None:
        """The evaluator's points are this player's: one evaluator object given to two
        players (a notebook's loop over searches) was prepared by the second for its point
        system, and the first then played its games with those values, silently (an
        American game judged by British values scored 53 instead of 111)."""
        points = self.evaluator.points
        if points is not None and not np.array_equal(points, self.points):
            raise PokerSquaresError(
                f"{self.name}: its {self.evaluator.name} evaluator was prepared since for other points "
                f"({', '.join(map(str, points))}, not this player's {', '.join(map(str, self.points))}): is it "
                "shared with another player? Give each player its own evaluator, or call set_point_system again")

    def choose(self, grid: np.ndarray, card: Card, seconds_left: float) -> int:
        with self._alone("choose"):
            return self._choose(grid, card, seconds_left)

    def _choose(self, grid: np.ndarray, card: Card, seconds_left: float) -> int:
        grid, card = self.checked_position(grid, card)
        if not self.plays_greedy_rule:
            self._check_evaluator_points()
        empty = np.flatnonzero(grid == EMPTY)
        if len(empty) == 1:
            if self.learn_in_game and not self.plays_greedy_rule:
                self.learn_in_leftover(seconds_left)
            return int(empty[0])
        if self.plays_greedy_rule and isinstance(self.search, GreedySearch):
            return greedy_guard.greedy_rule_move(grid, card, self.points)  # a player without search: the rule
        if len(empty) == 25:
            # Every first placement is alike up to symmetry: take the corner.
            return 0
        return self._searched_move(grid, card, seconds_left, len(empty) - 1)  # the last move is free

    def learn_in_leftover(self, seconds_left: float) -> float:
        """Spend what the game's clock has left on the evaluator's learning, less the
        clock's reserve and the larger of ``LEARN_MARGIN_S`` and the recent overshoot
        (a learning round ends about 0.1 s past its deadline, more on a busy machine);
        return the seconds given to it (0 when that is under ``LEARN_MARGIN_S``)."""
        seconds = self.clock.capped(seconds_left) - self.clock.reserve_s() - max(LEARN_MARGIN_S, self.clock.overshoot_s)
        if seconds < LEARN_MARGIN_S:
            return 0.0
        self.games_learned_in_game += self.evaluator.learn_more(seconds)
        return seconds

    def _searched_move(self, grid: np.ndarray, card: Card, seconds_left: float, moves: int) -> int:
        """The search's move, in the budget the clock gives it with ``moves`` (this one
        included) still to search."""
        if self.plays_greedy_rule:
            return self._rule_searched_move(grid, card, seconds_left, moves)
        budget = self.clock.budget(seconds_left, moves, self.search.min_search_s)
        if budget == 0.0:
            # No time to search: the evaluator's own move, counted in the game's record
            # unless the search is that move anyway (nothing was given up).
            self.fallback_moves += not isinstance(self.search, GreedySearch)
            given = grid.copy()
            cell = self.evaluator.greedy_cell(given, int(card))
            return self._checked_answer((cell, None), grid, given, f"the {self.evaluator.name} evaluator's greedy_cell")
        given = grid.copy()  # the player's own grid is never the search's to change
        cell = self._checked_answer(self.search.choose(self.evaluator, given, int(card), self.points, budget,
                                                       self.seed * 31 + self._moves), grid, given)
        self.fallback_moves += bool(self.search.cut_short)
        self.clock.move_done()
        self._moves += 1
        return cell

    def _checked_answer(self, answer, grid: np.ndarray, given: np.ndarray, what: str | None = None) -> int:
        """The cell of a search's ``answer`` ``(cell, values)`` for ``grid``, which it was
        given as the copy ``given``; else a PokerSquaresError in one line naming ``what``
        answered (by default this player's search over its evaluator). A search or an
        evaluator of one's own that broke the contract was played on, or scored the
        penalty for a reason that named neither: one that changed the grid it was given
        ("choose answered cell 20, which holds 8D", the card in hand), an answer of a
        bare cell (a TypeError), an occupied cell (an evaluator's +inf where -inf belongs),
        or a NaN value, which ``argmax`` takes as the best (played on, silently)."""
        what = what or f"the {self.search.name} search over the {self.evaluator.name} evaluator"
        if not np.array_equal(given, grid):
            changed = _cells(np.flatnonzero(given != grid))
            raise PokerSquaresError(f"{self.name}: {what} changed the grid it was given ({changed}): searches "
                                    "and evaluators must not modify it; change a copy (grid.copy())")
        if not isinstance(answer, (tuple, list)) or len(answer) != 2:
            raise PokerSquaresError(f"{self.name}: {what} answered {_brief(answer)}; a search's choose returns "
                                    "(cell, values)")
        cell, values = answer
        if not is_integer(cell) or not 0 <= cell < NUM_CELLS:
            raise PokerSquaresError(f"{self.name}: {what} chose {_brief(cell)}, not a cell index 0..24 (an integer)")
        cell = int(cell)
        if grid[cell] != EMPTY:
            raise PokerSquaresError(f"{self.name}: {what} chose cell {cell}, which is occupied (an evaluator's "
                                    "placement_values are -inf there)")
        # The chosen cell's value only: a NaN elsewhere (an occupied cell's) chose nothing.
        if (isinstance(values, np.ndarray) and values.dtype.kind == "f" and values.shape == (NUM_CELLS,)
                and np.isnan(values[cell])):
            raise PokerSquaresError(f"{self.name}: {what} gave values of NaN ({_cells(np.flatnonzero(np.isnan(values)))}), "
                                    "which argmax takes as the best: values estimate the final score")
        return cell

    def cell_values(self, grid: np.ndarray, card: Card, seconds: float) -> np.ndarray:
        return self.advice(grid, card, seconds)[1]

    def advice(self, grid: np.ndarray, card: Card, seconds: float) -> tuple[int | None, np.ndarray]:
        with self._turn_lock():  # one advice at a time: the search's state is one decision's
            return self._advice(grid, card, seconds)

    def _advice(self, grid: np.ndarray, card: Card, seconds: float) -> tuple[int | None, np.ndarray]:
        grid, card = self.checked_position(grid, card, "cell_values")
        if self.plays_greedy_rule:
            return None, greedy_guard.greedy_rule_values(grid, card, self.points, self.seed)
        self._check_evaluator_points()
        cell, values = self.search.choose(self.evaluator, grid, int(card), self.points, seconds, self.seed)
        return int(cell), values
