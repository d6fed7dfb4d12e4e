"""Searches: how a move is chosen, given an evaluator. Each is written once against
the :class:`~pokersquares.evaluators.Evaluator` interface, so any search takes any
evaluator (``SearchPlayer(NarlEvaluator(), MCTS())``). The searches are imported when
first named."""

import importlib

from .base import GreedySearch, Search

_LAZY = {"CrnHalving": ".halving", "DepthLimitedFlatMC": ".flat_ucb", "Expectimax": ".expectimax",
         "FlatMonteCarlo": ".flat_mc", "FlatUCB1": ".flat_ucb", "MCTS": ".mcts", "TdSearch": ".td_search"}

__all__ = ["GreedySearch", "Search", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
