"""The small-budget guard: a learned policy that plays worse than the ``greedy`` rule
is not played.

A learner given little time (a second of preparation, or a few seconds on a busy
machine) may end with a table that plays worse than the one-ply greedy rule of the
``greedy`` baseline (NARL after about 3,000 games: 76.8 against greedy's 83.5 on
American, docs/results.md). So after learning, a player spends a small share of its
budget playing check games from the empty grid: the evaluator's own greedy policy on
some, the greedy rule on as many others, and keeps the learned policy unless it
scored clearly less: by more than ``MARGIN_Z`` standard errors of the difference of
the two means. A player that loses the check plays the greedy rule for that point
system (:attr:`GuardReport.plays_greedy_rule`); with more time the table wins the
check by tens of points and nothing changes. A player with a search then searches over
the rule instead of over its evaluator: flat Monte Carlo, each cell's mean final score
over the rule's games on the same sampled deals (:func:`greedy_rule_values`), from
``RULE_MIN_SEARCH_S`` a move (American, 40 ms a move: 122.51 against the rule's 87.22
on deals 0..99, British 46.31 against 31.25; ``benchmarks/rule_search.py``).

Why a margin: the search on top of the learned evaluator is what the greedy rule
gives up, so a tie must keep the evaluator. Under Hypercorner (30 s of preparation),
`beemo`'s learned policy and the greedy rule both scored 8.5 over 2,000 check games a
side; in one of six preparations the check (then: the table must score more) went to
the greedy rule, and `beemo` scored 8.60 over 100 deals without its search against
8.94 to 9.22 in the other five (docs/results.md, "how much one preparation weighs").
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..evaluators.base import Evaluator, checked_points, wrapped_seed
from ..game import EMPTY
from ..kernels.greedy import greedy_rule_cell, greedy_rule_games

if TYPE_CHECKING:
    from .move_clock import MoveClock

__all__ = ["GuardReport", "check_against_greedy", "greedy_rule_move", "greedy_rule_values", "rule_searched_cell",
           "RuleSearching",
           "check_budget_s",
           "FLUSH_WEIGHT", "MARGIN_Z", "RULE_MIN_SEARCH_S", "RULE_MAX_GAMES", "RULE_FIRST_GAMES"]

FLUSH_WEIGHT = 0.3  # the greedy baseline's (players.baseline.GreedyPlayer)
CHUNK = 50          # check games per side between looks at the clock
MAX_GAMES = 2000    # per side: the means' standard errors are then about 0.6 points
MIN_BUDGET_S = 0.2  # below this no time to learn and check: the greedy rule is played
MARGIN_Z = 2.0      # the greedy rule is played only when the table scored this many SEs below it
RULE_MIN_SEARCH_S = 0.03  # a searching player that plays the rule searches over it from this budget a move
RULE_MAX_GAMES = 100_000  # per cell, in one move's search over the rule (the clock ends it long before)
RULE_FIRST_GAMES = 2      # per cell before a move's search over the rule first looks at the clock


def check_budget_s(budget_s: float) -> float:
    """Seconds of a ``budget_s`` preparation set aside for the check: 8%, at most 1.5 s
    (2,000 games a side take a tenth of that on a quiet core); none below ``MIN_BUDGET_S``."""
    return 0.0 if budget_s < MIN_BUDGET_S else min(0.08 * budget_s, 1.5)


@dataclass(frozen=True)
class GuardReport:
    """What the check found: games per side, each side's mean, the standard error of
    their difference (independent deals), and the decision."""

    games: int
    learned_mean: float
    greedy_mean: float
    seconds: float
    diff_se: float = 0.0
    # A budget below MIN_BUDGET_S: no check was played, and the rule is played. In 0.19 s
    # the TD evaluator's greedy policy scored 68.1 on American against the rule's 80.4,
    # and in 0.1 s BeeMo's patterns learned nothing (14.5, random's level).
    no_time: bool = False

    @classmethod
    def too_little_time(cls) -> "GuardReport":
        return cls(0, math.nan, math.nan, 0.0, no_time=True)

    @property
    def plays_greedy_rule(self) -> bool:
        """Whether the learned policy scored less than the greedy rule by more than
        ``MARGIN_Z`` standard errors of the difference (a tie keeps the learned policy),
        or there was no time to learn and check (:data:`MIN_BUDGET_S`)."""
        return self.no_time or (self.games > 0 and self.learned_mean < self.greedy_mean - MARGIN_Z * self.diff_se)

    def to_json(self) -> dict:
        """The report as JSON (the means of a check not played are null)."""
        out = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in asdict(self).items()}
        return {**out, "plays_greedy_rule": self.plays_greedy_rule}


def check_against_greedy(evaluator: Evaluator, points: np.ndarray, seconds: float, seed: int,
                         max_games: int = MAX_GAMES) -> GuardReport:
    """Play check games, ``CHUNK`` a side at a time, until ``max_games`` a side or
    ``seconds`` are spent (one chunk a side is always played): the evaluator's greedy
    policy (:meth:`Evaluator.playouts` from the empty grid) against the greedy rule on
    deals of its own."""
    start = time.perf_counter()
    points = checked_points(points)  # the kernels add them unchecked
    empty = np.full(25, EMPTY, dtype=np.int8)
    rng = np.random.default_rng(seed)
    learned: list[int] = []
    greedy: list[int] = []
    chunk = 0
    while len(learned) < max_games:
        n = min(CHUNK, max_games - len(learned))
        learned.extend(evaluator.playouts(empty, n, wrapped_seed(seed * 7919 + chunk)).tolist())
        deals = np.stack([rng.permutation(52)[:25] for _ in range(n)]).astype(np.int8)
        greedy.extend(greedy_rule_games(empty, deals, points, FLUSH_WEIGHT).tolist())
        chunk += 1
        if time.perf_counter() - start >= seconds:
            break
    n = len(learned)
    diff_se = math.sqrt((statistics.variance(learned) + statistics.variance(greedy)) / n) if n > 1 else 0.0
    return GuardReport(n, statistics.fmean(learned), statistics.fmean(greedy), time.perf_counter() - start, diff_se)


def greedy_rule_move(grid: np.ndarray, card: int, points: np.ndarray) -> int:
    """The greedy baseline's move (its kernel)."""
    # An int8 card, as the games kernel passes its deal's cards: one compiled specialisation.
    return int(greedy_rule_cell(np.array(grid, dtype=np.int8), np.int8(card), checked_points(points), FLUSH_WEIGHT))


def greedy_rule_values(grid: np.ndarray, card: int, points: np.ndarray, seed: int, games: int = 200,
                       seconds: float | None = None, flush_weight: float = FLUSH_WEIGHT,
                       first: int = 16) -> np.ndarray:
    """For advice, and for the search over the rule of a player whose learning lost the
    check (``SearchPlayer``): each empty cell's estimated final score when ``card`` goes there and
    the greedy rule plays on (the mean of up to ``games`` games on the same deals for
    every cell, at least ``first``; with ``seconds``, as many as fit in at most 80% of them);
    ``-inf`` for occupied cells."""
    start = time.perf_counter()
    grid = np.asarray(grid, dtype=np.int8)
    points = checked_points(points)  # the kernels add them unchecked
    undealt = np.setdiff1d(np.arange(52), np.append(grid[grid != EMPTY], card))
    rng = np.random.default_rng(seed)
    cells = np.flatnonzero(grid == EMPTY)
    totals = np.zeros(len(cells))
    played, batch = 0, first
    while played < games:
        deals = np.stack([rng.permutation(undealt) for _ in range(min(batch, games - played))]).astype(np.int8)
        for k, cell in enumerate(cells):
            child = grid.copy()
            child[cell] = card
            totals[k] += greedy_rule_games(child, deals, points, flush_weight).sum()
        played += len(deals)
        if seconds is not None:
            # Each batch takes at most half of what is left of 80% of the seconds at the
            # pace so far, so that a machine slowing down mid-batch costs little.
            took = time.perf_counter() - start
            batch = int(min(games, 0.5 * (0.8 * seconds - took) / took * played))
            if batch < 1:
                break
    values = np.full(25, -np.inf)
    values[cells] = totals / played
    return values


def rule_searched_cell(grid: np.ndarray, card: int, points: np.ndarray, seed: int, seconds: float,
                       games: int = RULE_MAX_GAMES) -> int:
    """Flat Monte Carlo over the greedy rule in ``seconds`` (at most ``games`` a cell): the
    cell whose sampled futures, the same for every cell, the rule then plays to the
    highest mean final score (:func:`greedy_rule_values`, ``RULE_FIRST_GAMES`` a cell first)."""
    values = greedy_rule_values(grid, int(card), points, seed, games=games, seconds=seconds,
                                first=RULE_FIRST_GAMES)
    return int(np.argmax(values))


class RuleSearching:
    """For players that search over the greedy rule on a :class:`~.move_clock.MoveClock`
    (``self.clock``; with ``self.points``, ``self.seed``, and per game ``self._moves``
    and ``self.fallback_moves``, which :meth:`start_game` resets with the clock): a
    searching player whose learning lost the check, and ``greedy_mc``."""

    clock: MoveClock
    points: np.ndarray
    seed: int
    _moves: int
    fallback_moves: int

    def start_game(self) -> None:
        super().start_game()  # type: ignore[misc]  # a mixin: the player class it comes before has one
        self.clock.start_game()
        self._moves = 0
        self.fallback_moves = 0

    def _rule_searched_move(self, grid: np.ndarray, card: int, seconds_left: float, moves: int) -> int:
        """Flat Monte Carlo over the greedy rule (:func:`rule_searched_cell`) in the
        clock's budget for this move, ``moves`` being the moves still to search; the
        rule's own move, counted as a fallback, when that is under ``RULE_MIN_SEARCH_S``."""
        budget = self.clock.budget(seconds_left, moves, RULE_MIN_SEARCH_S)
        if budget == 0.0:
            self.fallback_moves += 1
            return greedy_rule_move(grid, card, self.points)
        cell = rule_searched_cell(grid, int(card), self.points, self.seed * 31 + self._moves, budget)
        self.clock.move_done()
        self._moves += 1
        return cell
