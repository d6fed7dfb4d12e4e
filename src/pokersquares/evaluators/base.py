"""The evaluator interface shared by every search."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

__all__ = ["Evaluator"]


class Evaluator(ABC):
    """Judges positions of one point system.

    Grids are ``int8[25]`` arrays (``-1`` empty); the undealt cards are exactly the
    cards not on the grid (and not the card in hand, where one is given).
    ``points`` is ``int64[10]``.
    """

    name: str = "evaluator"

    def prepare(self, points: np.ndarray, budget_s: float, seed: int = 0) -> None:
        """Learn for ``points`` within ``budget_s`` seconds. The default only stores them."""
        self.points = np.asarray(points, dtype=np.int64)

    @abstractmethod
    def placement_values(self, grid: np.ndarray, card: int) -> np.ndarray:
        """``float64[25]``: the estimated value of the grid after placing ``card`` in
        each cell, ``-inf`` for occupied cells. Higher is better; the scale is the
        evaluator's (a greedy policy takes the argmax)."""

    @abstractmethod
    def playouts(self, grid: np.ndarray, n: int, seed: int) -> np.ndarray:
        """``int64[n]``: final scores of ``n`` games completed from ``grid`` by this
        evaluator's greedy policy, each with a fresh shuffle of the undealt cards."""

    def greedy_cell(self, grid: np.ndarray, card: int) -> int:
        return int(np.argmax(self.placement_values(grid, card)))
