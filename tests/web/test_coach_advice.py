"""The coach's advice as the web app's agent pool gives it, without a browser (the
browser's side: ``test_coach_tells_the_truth.py``)."""

from __future__ import annotations

import numpy as np


class _SearchWhoseMoveIsNotItsBestValue:
    """A search like sequential halving, whose move need not be the best of the values it
    returns (a cell dropped early keeps the mean of fewer playouts): here always the
    empty cell of highest index, with values that rank the first empty cell best."""

    def choose(self, evaluator, grid, card, points, time_s, seed):
        empty = np.flatnonzero(grid == -1)
        values = np.full(25, -np.inf)
        values[empty] = 100.0 - np.arange(len(empty))
        return int(empty[-1]), values


def _player_of_that_search():
    from pokersquares.evaluators.possibility import PossibilityEvaluator
    from pokersquares.players.composed import SearchPlayer
    from pokersquares.search.base import GreedySearch

    class Halving(GreedySearch):
        choose = _SearchWhoseMoveIsNotItsBestValue.choose

    return SearchPlayer(PossibilityEvaluator(), Halving(), name="halving-like")


def test_the_coach_advises_its_searchs_move_not_the_best_of_its_values():
    """The hint's cell was the best of the values shown, which for the champion's
    sequential halving was now and then not the cell it plays (1 position in 264 at
    0.1 s): the coach advised a move it would not make."""
    import asyncio

    from pokersquares import AMERICAN
    from pokersquares.web.agents import AgentPool, AgentSpec

    pool = AgentPool({"coach": AgentSpec(_player_of_that_search, "a searcher")}, prep_s=0.0)
    grid = np.full(25, -1, dtype=np.int8)
    grid[:3] = [0, 1, 2]
    try:
        advice = asyncio.run(pool.advise("coach", AMERICAN, grid, 7, 0.3))
    finally:
        pool.close()
    assert advice.choice == 24  # the search's move
    assert max(range(25), key=lambda c: -1e9 if advice.values[c] is None else advice.values[c]) == 3
