"""Evaluators: what judges a position. Each knows the rules and nothing of searches.

An evaluator may learn within a preprocessing budget, estimates the final score
after each possible placement of a card, and plays fast games to the end with its
own greedy policy. Searches (:mod:`pokersquares.search`) use only these methods, so
any evaluator combines with any search.
"""

from .base import Evaluator

__all__ = ["Evaluator"]
