"""Evaluators: what judges a position. Each knows the rules and nothing of searches.

An evaluator may learn within a preprocessing budget, estimates the final score
after each possible placement of a card, and plays fast games to the end with its
own greedy policy. Searches (:mod:`pokersquares.search`) use only these methods, so
any evaluator combines with any search::

    from pokersquares.evaluators import NarlEvaluator
    from pokersquares.search import MCTS
    from pokersquares.players import SearchPlayer
    player = SearchPlayer(NarlEvaluator(), MCTS())

The evaluators are imported when first named (their modules compile numba kernels).
"""

import importlib

from .base import Evaluator

_LAZY = {"NarlEvaluator": ".narl", "PatternEvaluator": ".patterns",
         "PossibilityEvaluator": ".possibility", "TdEvaluator": ".td"}

__all__ = ["Evaluator", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
