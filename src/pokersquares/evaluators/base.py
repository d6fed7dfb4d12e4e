"""The evaluator interface shared by every search."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from ..game import EMPTY

__all__ = ["Evaluator"]


class Evaluator(ABC):
    """Judges positions of one point system.

    Grids are ``int8[25]`` arrays (``-1`` empty); the undealt cards are exactly the
    cards not on the grid (and not the card in hand, where one is given).
    ``points`` is ``int64[10]``.

    The contract every evaluator keeps, and every search relies on: a value is an
    estimate of the game's final score, in points of the point system.

    - ``state_value(grid)`` estimates the final score of ``grid`` (no card in hand)
      when play goes on; for a full grid it is the grid's exact score.
    - ``placement_values(grid, card)[cell]`` is ``state_value`` of the grid with
      ``card`` placed in ``cell`` (``-inf`` for occupied cells).

    So values of different positions compare (a chance node may average them, a
    depth-limited search may stop at any depth), and a search may report them as
    expected scores. How good the estimate is varies; what it means does not.
    ``tests/evaluators/test_contract.py`` checks every evaluator against this.
    """

    name: str = "evaluator"
    #: CPU seconds numba spends compiling this evaluator's kernels (with those it builds
    #: on) on an empty cache, for scheduling warm-ups only (:mod:`pokersquares.harness.warm_up`);
    #: measured on this project's machine (``benchmarks/web_first_advice.py --cold``'s console).
    compile_s: float = 1.0
    # Whether ``prepare`` learns for as long as its budget allows: players then check
    # the learned policy against the greedy rule (players.greedy_guard).
    learns_within_budget: bool = False

    def prepare(self, points: np.ndarray, budget_s: float, seed: int = 0) -> None:
        """Learn for ``points`` within ``budget_s`` seconds. The default only stores them."""
        self.points = np.asarray(points, dtype=np.int64)

    @abstractmethod
    def placement_values(self, grid: np.ndarray, card: int) -> np.ndarray:
        """``float64[25]``: for each empty cell, the estimated final score after placing
        ``card`` there (``state_value`` of that grid); ``-inf`` for occupied cells. The
        evaluator's greedy policy takes the argmax."""

    @abstractmethod
    def playouts(self, grid: np.ndarray, n: int, seed: int) -> np.ndarray:
        """``int64[n]``: final scores of ``n`` games completed from ``grid`` by this
        evaluator's greedy policy, each with a fresh shuffle of the undealt cards."""

    # Whether :meth:`learn_more` goes on learning after ``prepare`` (a player may spend the
    # time a game leaves on it).
    learns_more: bool = False

    def learn_more(self, seconds: float) -> int:
        """Go on learning for at most ``seconds`` (the time a game left unused), from
        what is learned so far; return the games learned. The default learns nothing."""
        return 0

    def placement_playouts(self, grid: np.ndarray, card: int, cells: np.ndarray, n: int,
                           seed: int) -> np.ndarray:
        """``int64[len(cells), n]``: for each of ``cells``, ``playouts`` of the grid with
        ``card`` placed there. Evaluators with a fast path override this to run all
        cells in one call (e.g. one parallel kernel); the results must not depend on
        how many threads run it."""
        out = np.empty((len(cells), n), dtype=np.int64)
        for i, cell in enumerate(cells):
            child = np.array(grid, dtype=np.int8)
            child[int(cell)] = card
            out[i] = self.playouts(child, n, seed * 131 + i)
        return out

    def greedy_cell(self, grid: np.ndarray, card: int) -> int:
        return int(np.argmax(self.placement_values(grid, card)))

    def kernel(self):
        """The numba form of ``placement_values`` and ``state_value``
        (:class:`~pokersquares.evaluators.kernel.EvaluatorKernel`) for searches whose
        loop runs in numba (MCTS), or None: such searches then call back into Python."""
        return None

    # -- for depth-limited searches; evaluators with a fast path override these ----------

    def state_value(self, grid: np.ndarray) -> float:
        """Estimated final score of ``grid`` with no card in hand (what a depth-limited
        search judges its leaves by); exact for a full grid. The default averages 16
        greedy playouts."""
        if not (grid == EMPTY).any():
            from ..kernels.core import score_grid
            return float(score_grid(grid, self.points))
        return float(np.mean(self.playouts(grid, 16, seed=0)))

    def limited_playouts(self, grid: np.ndarray, n: int, depth: int, seed: int) -> np.ndarray:
        """``float64[n]``: like :meth:`playouts`, but each game places only ``depth``
        more cards (from a fresh shuffle of the undealt cards, by the greedy policy) and
        ends with :meth:`state_value` of the grid it reached."""
        empty = int((grid == EMPTY).sum())
        if depth >= empty:
            return self.playouts(grid, n, seed).astype(np.float64)
        rng = np.random.default_rng(seed)
        undealt = np.setdiff1d(np.arange(52), grid[grid != EMPTY])
        out = np.empty(n)
        for i in range(n):
            g = grid.copy()
            for card in rng.permutation(undealt)[:depth]:
                g[self.greedy_cell(g, int(card))] = card
            out[i] = self.state_value(g)
        return out

    def best_placement_values(self, grid: np.ndarray, cards: np.ndarray) -> np.ndarray:
        """``float64[len(cards)]``: for each card, the value of its best placement on
        ``grid`` (a chance level of expectimax: each card as the next one dealt)."""
        return np.array([self.placement_values(grid, int(c)).max() for c in cards], dtype=np.float64)

    def warm_up_copy(self) -> "Evaluator":
        """A copy to compile kernels on (a player's untimed warm-up prepares it with a
        tiny budget): evaluators that learn a fixed amount whatever the budget make
        that amount small here. The copy forgets a state loaded with :meth:`load`: the
        warm-up's point system is not the game's, and its learning is only compiling
        (a loaded state would be dropped with a misleading "learning anew" warning)."""
        import copy
        twin = copy.deepcopy(self)
        twin.forget_loaded_state()
        return twin

    def forget_loaded_state(self) -> None:
        """Treat the state as never loaded: ``prepare`` learns whatever the points."""
        self._loaded = False

    # -- learned state ------------------------------------------------------------------

    def save(self, path, point_system_name: str = "custom") -> None:
        """Write what ``prepare`` learned to ``path`` (each evaluator documents its format);
        ``point_system_name`` is recorded for people reading the file."""
        raise NotImplementedError(f"{self.name} has nothing to save")

    def load(self, path) -> "Evaluator":
        """Replace this evaluator's learned state by the one saved at ``path``; return self."""
        raise NotImplementedError(f"{self.name} cannot load a saved state")

    def keeps_loaded_state(self, points: np.ndarray, what: str) -> bool:
        """Whether ``prepare`` for ``points`` keeps a state loaded with :meth:`load` (it
        was learned for the same points); a state loaded for other points is dropped
        with a warning naming ``what`` it was, and learning starts anew."""
        if not getattr(self, "_loaded", False):
            return False
        if np.array_equal(points, self.points):
            return True
        import warnings
        warnings.warn(f"the loaded {what} was learned for points {np.asarray(self.points).tolist()}, "
                      f"not {np.asarray(points).tolist()}; learning anew", stacklevel=3)
        self._loaded = False
        return False
