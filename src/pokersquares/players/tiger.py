"""Tiger (3rd in 2016): MCTS with Tiger's possibility heuristic (Arrington, Langley and
Bogaerts 2016; Neller et al. 2016, section 7).

``tiger`` is the paper's best player: prune + UCT selection, best-move simulation,
the tuned weights alpha, beta, gamma = 0.1, 0.3, 0.85, C_p = 200 / sqrt(2) on
unsquashed scores, delta = 1.3. Every variant of the paper is a parameter, e.g.
``tiger:selection=uct,simulation=random`` (core MCTS) or
``tiger:weights=untuned,simulate_calc=true``.

Simple rules replace the search on four moves (the paper uses "simple rules" there
without publishing them; these are ours): the first card goes to a corner (every
cell of an empty grid is alike up to row and column swaps), the second to the
evaluator's best cell, the next-to-last to the cell with the best exact expected
score over the last card, the last to the one empty cell. Decision time is shared
evenly among the 21 searched moves.
"""

from __future__ import annotations

import time

import numpy as np

from ..bench import register_benchmark
from ..cards import Card, deal
from ..errors import PokerSquaresError
from ..evaluators.possibility import TUNED, UNTUNED, PossibilityEvaluator
from ..game import EMPTY
from .catalog import register_player
from ..kernels import mcts as km
from ..kernels import possibility as kpos
from ..points import AMERICAN
from ..search.mcts import DEFAULT_CP, MCTS
from .composed import SearchPlayer

__all__ = ["TigerPlayer", "tiger_evaluator", "WEIGHTS"]

WEIGHTS = {"tuned": TUNED, "untuned": UNTUNED}


def reserve_s(game_clock: float) -> float:
    """Seconds of a game's clock never planned for: overheads outside the search and
    the rule-played moves, and the scheduler on a busy machine (5% of the clock, at
    most half a second, plus 20 ms). ``TigerPlayer`` also keeps back, for every move
    still to search, the largest overshoot of a move's budget it has seen."""
    return min(0.05 * game_clock, 0.5) + 0.02


def tiger_evaluator(weights: str = "tuned", alpha: float | None = None, beta: float | None = None,
                    gamma: float | None = None, apriori: str = "british",
                    made_weight: float = 1.0) -> PossibilityEvaluator:
    """The possibility heuristic with named weights, each overridable."""
    if weights not in WEIGHTS:
        raise PokerSquaresError(f"unknown weights {weights!r}; known: {', '.join(WEIGHTS)}")
    a, b, g = WEIGHTS[weights]
    return PossibilityEvaluator(a if alpha is None else alpha, b if beta is None else beta,
                                g if gamma is None else gamma, apriori=apriori, made_weight=made_weight)


@register_player("tiger", "Tiger (3rd in 2016): MCTS, prune + UCT selection, best-move simulation, "
                 "possibility heuristic; American mean 123 at 30 s/game in the paper")
class TigerPlayer(SearchPlayer):
    """MCTS over the possibility heuristic; see the module docstring for the options.

    ``time_per_game`` caps the decision time per game below the harness's clock;
    ``iterations`` fixes the MCTS iterations per searched move instead; ``rules=False``
    searches every move but the first and last.
    """

    # 2: keeps back the largest overshoot of a move's budget for every move to come;
    # 3: the heuristic's values carry the calibration offset (evaluator contract), so
    #    children whose h differed by rounding only now tie
    version = "3"

    def __init__(self, selection: str = "prune", simulation: str = "best", select_calc: bool = False,
                 simulate_calc: bool = False, weights: str = "tuned", alpha: float | None = None,
                 beta: float | None = None, gamma: float | None = None, apriori: str = "british",
                 made_weight: float = 1.0, cp: float = DEFAULT_CP, delta: float = 1.3, squash: str = "none",
                 final: str = "mean", time_per_game: float | None = None, iterations: int | None = None,
                 rules: bool = True, capacity: int = 1_000_000) -> None:
        evaluator = tiger_evaluator(weights, alpha, beta, gamma, apriori, made_weight)
        search = MCTS(selection, simulation, select_calc, simulate_calc, cp, delta, squash, final,
                      iterations, capacity)
        super().__init__(evaluator, search, name="tiger", time_per_game=time_per_game)
        self.rules = bool(rules)
        self._game_clock: float | None = None
        self._overshoot = 0.002  # learned from each game's moves (see choose)
        self._searched_s = 0.0

    def warm_up(self) -> None:
        """The search's kernels (see SearchPlayer.warm_up) and the next-to-last move's
        exact rule: on a cold cache compiling it took 0.4 s inside the first game."""
        super().warm_up()
        grid = np.full(25, EMPTY, dtype=np.int8)
        grid[:23] = np.arange(23)
        km.endgame_values(grid, 42, np.array(AMERICAN.points, dtype=np.int64))

    def start_game(self) -> None:
        super().start_game()
        # One stall (or a first call compiling kernels) must not make every later game timid.
        self._overshoot = 0.002
        self._searched_s = 0.0

    def choose(self, grid: np.ndarray, card: Card, seconds_left: float) -> int:
        empty = np.flatnonzero(grid == EMPTY)
        if len(empty) == 1:
            return int(empty[0])
        if len(empty) == 25 or self._game_clock is None:
            self._game_clock = seconds_left
        if len(empty) == 25:
            return 0
        if self.rules and len(empty) == 24:
            return self.evaluator.greedy_cell(grid, int(card))
        if self.rules and len(empty) == 2:
            return int(np.argmax(km.endgame_values(grid, int(card), self.points)))
        searched_left = len(empty) - 2 if self.rules else len(empty) - 1
        clock = seconds_left - reserve_s(self._game_clock)
        if self.time_per_game is not None:
            # The cap counts this game's searching so far, so overshoots are paid back.
            clock = min(clock, self.time_per_game - reserve_s(self.time_per_game) - self._searched_s)
        # A search stops between batches of iterations and a busy machine can stall
        # it: with 5% kept back, one game in 500 at 5 s per game still overran.
        # (never more than 30% of what is left, or a tiny clock would go unused).
        clock = max(0.0, clock)
        budget = (clock - min(self._overshoot * searched_left, 0.3 * clock)) / searched_left
        t = time.perf_counter()
        cell, _ = self.search.choose(self.evaluator, grid, int(card), self.points, budget,
                                     self.seed * 31 + self._moves)
        spent = time.perf_counter() - t
        self._searched_s += spent
        self._overshoot = max(self._overshoot, spent - budget)
        self._moves += 1
        return cell

    @property
    def iterations_per_move(self) -> float:
        """Mean MCTS iterations per searched move so far."""
        return self.search.iterations_total / max(1, self.search.moves_total)


# -- benchmarks -------------------------------------------------------------------------


def _mid_game():
    """A fixed American position: 12 cards of deal(1) placed by the best-move policy,
    the 13th in hand; with the prepared evaluator and the points."""
    points = np.array(AMERICAN.points, dtype=np.int64)
    ev = tiger_evaluator()
    ev.prepare(points, 0.0)
    cards = deal(1)
    grid = np.full(25, EMPTY, dtype=np.int8)
    for c in cards[:12]:
        grid[ev.greedy_cell(grid, c)] = c
    return grid, cards[12], ev, points


@register_benchmark("tiger_iterations_per_s")
def _tiger_iterations(scale: float) -> float:
    grid, card, ev, points = _mid_game()
    n = max(200, int(40_000 * scale))
    search = MCTS("prune", "best", iterations=n, capacity=n + 10)
    t = time.perf_counter()
    search.choose(ev, grid, card, points, 0.0, 1)
    return n / (time.perf_counter() - t)


@register_benchmark("possibility_evaluations_per_s")
def _possibility_evaluations(scale: float) -> float:
    grid, card, ev, _ = _mid_game()
    n = max(100, int(100_000 * scale))
    t = time.perf_counter()
    evaluated = kpos.repeat_child_values(grid, card, ev.params, n)
    return evaluated / (time.perf_counter() - t)
