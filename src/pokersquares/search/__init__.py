"""Searches: how a move is chosen, given an evaluator. Each is written once against
the :class:`~pokersquares.evaluators.Evaluator` interface."""

from .base import GreedySearch, Search

__all__ = ["GreedySearch", "Search"]
