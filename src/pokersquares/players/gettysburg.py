"""GettysburgPlayer, 2nd in the 2016 contest (Neller et al. 2016, sect. 6): the NARL
learned evaluation with depth-2 expectimax.

``gettysburg`` is the submitted combination; parameters give the paper's other
learners and searches, e.g. ``gettysburg:search=flat_ucb``, ``gettysburg:epsilon0=0.1,hand_sizes=false``
or ``gettysburg:load=narl-american.npz`` (play from a table saved by ``pokersquares train``
instead of learning; a saved TD evaluator gives its table alone, without the residual).
"""

from __future__ import annotations

import math

from ..bench import register_benchmark
from ..cards import is_integer, is_seconds
from ..errors import PokerSquaresError
from ..evaluators.narl import NarlEvaluator
from .catalog import register_player
from ..search.base import GreedySearch, Search, SearchOptionError
from ..search.expectimax import Expectimax
from ..search.flat_ucb import DepthLimitedFlatMC, FlatUCB1
from .composed import SearchPlayer

__all__ = ["gettysburg", "make_search", "SEARCHES"]

SEARCHES = ("expectimax", "greedy", "depth_mc", "flat_ucb")  # the names hybrid uses too


def make_search(search: str, depth: int = 5, exploration: float = 20.0) -> Search:
    """The search a ``search=`` parameter names. ``depth`` and ``exploration`` are checked
    whichever it is: a bad one given with the default expectimax was silently ignored."""
    if not is_integer(depth) or depth < 0:
        raise SearchOptionError(f"depth must be a whole number of cards >= 0 (depth_mc and flat_ucb's playouts), "
                                f"got {depth!r}")
    if not is_seconds(exploration) or not 0 <= exploration < math.inf:
        raise SearchOptionError(f"exploration must be a finite number >= 0 (flat_ucb's), got {exploration!r}")
    if search == "expectimax":
        return Expectimax()
    if search == "greedy":
        return GreedySearch()
    if search == "depth_mc":
        return DepthLimitedFlatMC(depth=depth)
    if search == "flat_ucb":
        return FlatUCB1(depth=depth, exploration=exploration)
    raise PokerSquaresError(f"unknown search {search!r}; choose one of {', '.join(SEARCHES)}")


@register_player("gettysburg", "GettysburgPlayer (2nd in 2016): NARL learned hand abstractions + depth-2 "
                 "expectimax; search=greedy|depth_mc|flat_ucb, epsilon0=, hand_sizes=, games=, threads=, load=FILE (a saved NARL table, or a saved TD evaluator's table alone)")
def gettysburg(search: str = "expectimax", epsilon0: float = 0.5, decay: float = 0.999975,
               hand_sizes: bool = True, games: int | None = None, load: str | None = None,
               depth: int = 5, exploration: float = 20.0, time_per_game: float | None = None,
               budget_share: float = 0.85, threads: int = 2) -> SearchPlayer:
    """Build the player.

    ``search``: expectimax (submitted), greedy, depth_mc (flat Monte Carlo) or flat_ucb
    (flat UCB1), the last two with playouts of ``depth`` cards and UCB1's ``exploration``
    factor. ``epsilon0``, ``decay``, ``hand_sizes``, ``games`` and ``budget_share``
    configure NARL learning (see :class:`NarlEvaluator`), ``threads`` the learners
    filling the preprocessing budget at once, pooling one table (default 2, one per
    core of this project's 2-core machine; ``threads=1`` is the paper's one learner,
    which the report describes without saying it used more than one thread; the
    contest machine, an Intel Core i7-4940MX, had 4 cores); ``load`` reads a saved
    table (or a saved TD evaluator's table, its residual left out), kept when its points are the game's. ``time_per_game`` caps the decision
    time per game.
    """
    if not isinstance(hand_sizes, bool):
        raise PokerSquaresError(f"hand_sizes must be true or false, got {hand_sizes!r}")
    if games is not None and (not isinstance(games, int) or games < 0):
        raise PokerSquaresError(f"games must be a non-negative integer, got {games!r}")
    evaluator = NarlEvaluator(epsilon0=float(epsilon0), decay=float(decay), hand_sizes=hand_sizes, games=games,
                              budget_share=float(budget_share), threads=threads)
    if load is not None:
        evaluator.load(str(load))
    player = SearchPlayer(evaluator, make_search(str(search), int(depth), float(exploration)),
                          name="gettysburg" if search == "expectimax" else f"gettysburg-{search}",
                          time_per_game=time_per_game)
    return player


# Its preparation learns on ``threads`` cores (harness.spec.prep_cores), a game searches on one.
gettysburg.prep_threads = "threads"
# 2: NARL learns on 2 threads within the preprocessing budget (stored runs of 1 are not resumed)
gettysburg.version = "9"  # 9: below 0.2 s of preparation the greedy rule (no time to learn and check); 8: where the guard keeps the greedy rule, a Monte Carlo search over the rule; 7: a faster NARL kernel (same games, more of them in a budget); 6: the guard keeps the learned table unless it is 2 SE behind the greedy rule; 5: the shared MoveClock; 4: the small-budget guard (players.greedy_guard)


@register_benchmark("narl_learning_games_per_s")
def _learning_speed(scale: float) -> float:
    """NARL learning from scratch under American (epsilon0 0.5, hand sizes), one core."""
    import time

    import numpy as np

    from ..points import AMERICAN

    evaluator = NarlEvaluator()
    evaluator.points = np.array(AMERICAN.points, dtype=np.int64)
    evaluator.reset(1)
    games = max(500, int(100_000 * scale))
    t = time.perf_counter()
    evaluator.learn(games=games)
    return games / (time.perf_counter() - t)


@register_benchmark("narl_learning_games_per_s_both_cores")
def _learning_speed_parallel(scale: float) -> float:
    """NARL learning from scratch under American on 2 threads (gettysburg's preparation)."""
    import numpy as np

    from ..points import AMERICAN

    evaluator = NarlEvaluator()
    evaluator.points = np.array(AMERICAN.points, dtype=np.int64)
    evaluator.reset(1)
    return evaluator.learn_parallel(max(0.3, 3.0 * scale), 2)["games_per_s"]


@register_benchmark("gettysburg_expectimax_moves_per_s")
def _expectimax_speed(scale: float) -> float:
    """Depth-2 expectimax decisions per second over a NARL table, moves 2..24 of random deals."""
    import time

    import numpy as np

    from ..cards import deal
    from ..points import AMERICAN

    evaluator = NarlEvaluator(games=2000)
    evaluator.prepare(np.array(AMERICAN.points, dtype=np.int64), 10.0, seed=1)
    search = Expectimax()
    moves = 0
    t = time.perf_counter()
    for g in range(max(1, int(40 * scale))):
        grid = np.full(25, -1, dtype=np.int8)
        for i, card in enumerate(deal(g)[:24]):
            cell, _ = search.choose(evaluator, grid, card, evaluator.points, 10.0, g) if i else (0, None)
            grid[cell] = card
            moves += i > 0
    return moves / (time.perf_counter() - t)
