"""Monte Carlo tree search over any evaluator (Arrington, Langley and Bogaerts 2016).

Selection is UCT (``uct``), UCT over the children that survive hard pruning by the
evaluator (``prune``), or the evaluator's single best child (``best``). Simulation is
random (``random``), random among the children that survive pruning (``prune``), or
the evaluator's best move (``best``). ``select_calc`` / ``simulate_calc`` compute the
evaluator's values where pruning would, without using them (the paper's "+ Calc").

Evaluators that offer a numba kernel (``evaluator.kernel()``, see
:class:`~pokersquares.evaluators.kernel.EvaluatorKernel`) run the whole search in
numba; any other evaluator is wrapped so that the same loop calls back into Python
through its ``placement_values`` and ``state_value`` (correct, much slower). Plain UCT
with random simulation needs no evaluator at all.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import math
import threading
import time
from typing import Self

import numpy as np
from numba import njit, objmode

from ..cards import is_integer, is_seconds
from ..errors import PokerSquaresError
from ..evaluators.base import Evaluator
from ..game import EMPTY
from ..kernels import mcts as km
from .base import Search, checked_decision

__all__ = ["MCTS", "SQUASHES", "DEFAULT_CP", "squash_range"]

DEFAULT_CP = 200 / math.sqrt(2)
MAX_CAPACITY = 50_000_000  # tree nodes: about 2 GB, half a game process's default memory limit
WARM_UP_ITERATIONS = 200  # the most a warm-up searches a position: enough to reach every kernel
# A move's fixed iterations run whatever its clock: at tiger's 37,000 a second this many take
# three days, more than the harness's longest game (1e6 s) on a machine several times faster.
# tiger:iterations=2**62 was taken, and every game ran until its process was stopped.
MAX_ITERATIONS = 10 ** 10
AMERICAN_RANGE = (0.0, 725.0)  # the paper's "precise" range: 4 royal flushes, a straight flush, 5 quads
SQUASHES = ("none", "precise", "imprecise", "max200", "max2000")
_SELECTIONS = {"uct": km.SELECT_UCT, "prune": km.SELECT_PRUNE, "best": km.SELECT_BEST}
_SIMULATIONS = {"random": km.SIM_RANDOM, "prune": km.SIM_PRUNE, "best": km.SIM_BEST}
# Guards the hand-over of a search's scratch tree (see MCTS.choose), for a moment only.
_TREES_LOCK = threading.Lock()


class MCTSOptionError(PokerSquaresError):
    """An MCTS option with a value it does not know."""


def squash_range(squash: str, points: np.ndarray) -> tuple[float, float]:
    """The score range that UCT squashes to [0, 1]; ``(0, 0)`` means no squashing.

    ``imprecise``: 10 x the lowest and 10 x the highest hand points; ``precise``: the
    exact range, known here for the American system only (0 to 725); ``max200`` and
    ``max2000``: 0 to 200 and 0 to 2,000, the paper's American tests.
    """
    if squash == "none":
        return 0.0, 0.0
    if squash == "imprecise":
        return 10.0 * float(np.min(points)), 10.0 * float(np.max(points))
    if squash == "max200":
        return 0.0, 200.0
    if squash == "max2000":
        return 0.0, 2000.0
    if squash == "precise":
        if list(points) != [0, 2, 5, 10, 15, 20, 25, 50, 75, 100]:
            raise MCTSOptionError("precise squashing knows the American range only; use imprecise")
        return AMERICAN_RANGE
    raise MCTSOptionError(f"unknown squash {squash!r}; known: {', '.join(SQUASHES)}")


def _option(table: dict, value: str, what: str) -> int:
    try:
        return table[value]
    except KeyError:
        raise MCTSOptionError(f"unknown {what} {value!r}; known: {', '.join(table)}") from None


class MCTS(Search):
    """MCTS with the paper's selection and simulation strategies.

    ``cp`` is UCT's C_p (the paper's 200 / sqrt(2) on unsquashed scores), ``delta``
    the pruning threshold factor, ``final`` how the move is picked at the end: the
    root child with the best mean score (``mean``) or the most visits (``visits``).
    ``iterations`` fixes the iterations per move instead of the clock (and is what lets
    it search with no clock, ``time_s=inf``: without it the search would never stop).
    ``capacity`` bounds the tree's nodes (when full, iterations play out from the frontier);
    ``min_search_s`` the least budget worth a search (see :class:`~.base.Search`).
    After each ``choose``, ``last_iterations`` and ``last_nodes`` say what it did, and
    ``iterations_total`` / ``moves_total`` accumulate.
    """

    name = "mcts"
    compile_s = 12.0  # its tree kernel, once for each evaluator it runs on

    def __init__(self, selection: str = "prune", simulation: str = "best", select_calc: bool = False,
                 simulate_calc: bool = False, cp: float = DEFAULT_CP, delta: float = 1.3,
                 squash: str = "none", final: str = "mean", iterations: int | None = None,
                 capacity: int = 1_000_000, min_search_s: float = 0.0) -> None:
        self.selection = _option(_SELECTIONS, selection, "selection")
        self.simulation = _option(_SIMULATIONS, simulation, "simulation")
        if squash not in SQUASHES:
            raise MCTSOptionError(f"unknown squash {squash!r}; known: {', '.join(SQUASHES)}")
        if final not in ("mean", "visits"):
            raise MCTSOptionError(f"unknown final {final!r}; known: mean, visits")
        if not (is_seconds(cp) and 0 <= cp < math.inf) or not (is_seconds(delta) and 0 < delta < math.inf):
            raise MCTSOptionError(f"cp must be a finite number >= 0 and delta a finite number > 0, got cp={cp!r}, "
                                  f"delta={delta!r}")
        # The tree's arrays are allocated whole (about 39 bytes a node): a capacity of ten
        # billion failed only in the game, as a MemoryError that scored the penalty.
        if not is_integer(capacity) or not 2 <= capacity <= MAX_CAPACITY:
            raise MCTSOptionError(f"capacity must be a whole number of nodes from 2 to {MAX_CAPACITY:,}, "
                                  f"got {capacity!r}")
        if iterations is not None and (not is_integer(iterations) or not 1 <= iterations <= MAX_ITERATIONS):
            raise MCTSOptionError(f"iterations must be a whole number from 1 to {MAX_ITERATIONS:,} a move, "
                                  f"got {iterations!r}")
        if not (is_seconds(min_search_s) and 0 <= min_search_s < math.inf):
            raise MCTSOptionError(f"min_search_s must be a finite number of seconds >= 0, got {min_search_s!r}")
        self.select_calc = bool(select_calc)
        self.simulate_calc = bool(simulate_calc)
        self.cp = float(cp)
        self.delta = float(delta)
        self.squash = squash
        self.final = final
        self.iterations = iterations
        self.capacity = int(capacity)
        self.min_search_s = float(min_search_s)
        self.name = f"mcts({selection}/{simulation})"
        self._tree: km.Tree | None = None
        self.last_iterations = 0
        self.last_nodes = 0
        self.iterations_total = 0
        self.moves_total = 0

    def needs_clock(self) -> str | None:
        if self.iterations is None:
            return ("it searches until its time is up; give it iterations=N to search N iterations a move "
                    "without a clock")
        return None

    def warm_up_copy(self) -> Self:
        """As :meth:`Search.warm_up_copy`, with at most :data:`WARM_UP_ITERATIONS` iterations
        a move: ``tiger:iterations=100000000`` searched the warm-up's positions for minutes,
        untimed, before its first game."""
        twin = super().warm_up_copy()
        if twin.iterations is not None:
            twin.iterations = min(twin.iterations, WARM_UP_ITERATIONS)
        return twin

    def __getstate__(self) -> dict:
        # The tree is scratch space rebuilt on every move: never pickle it to workers.
        state = self.__dict__.copy()
        state["_tree"] = None
        return state

    @property
    def needs_evaluator(self) -> bool:
        return (self.selection != km.SELECT_UCT or self.simulation != km.SIM_RANDOM
                or self.select_calc or self.simulate_calc)

    def _kernel(self, evaluator: Evaluator):
        """A context giving the evaluator's ``(child_values, state_value, params, baseline)``."""
        if not self.needs_evaluator:
            return contextlib.nullcontext((km.no_child_values, km.no_state_value, np.zeros(1), _NO_BASELINE))
        kernel = evaluator.kernel()
        if kernel is not None:
            return contextlib.nullcontext((kernel.child_values, kernel.state_value, kernel.params, kernel.baseline))
        return _python_kernel(evaluator)

    def choose(self, evaluator, grid, card, points, time_s, seed):
        # The tree kernel indexes by card and cell unchecked: the position is checked here, once.
        grid, card, points = checked_decision(evaluator, grid, card, points, time_s, seed, self)
        # The tree is the scratch space of one search at a time: a search that starts while
        # another runs (one player asked from two threads at once) builds a tree of its own,
        # rather than both growing one tree from two roots.
        with _TREES_LOCK:
            tree, self._tree = self._tree, None
        if tree is None:
            tree = km.new_tree(self.capacity)
        try:
            with self._kernel(evaluator) as (child_values, state_value, params, baseline):
                return self._search(tree, grid, card, points, time_s, seed, child_values, state_value, params,
                                    baseline)
        finally:
            self._tree = tree

    def _search(self, tree, grid, card, points, time_s, seed, child_values, state_value, params, baseline):
        """One search from the checked position (``checked_decision``'s int8 grid and int64 points)."""
        lo, hi = squash_range(self.squash, points)
        km.reset_tree(tree, int(card))
        on_grid = set(grid[grid != EMPTY].tolist()) | {int(card)}
        deck = np.array([c for c in range(52) if c not in on_grid], dtype=np.int8)
        state = km.rng_seed(seed)

        def run(n: int) -> None:
            km.run_iterations(tree, grid, deck, n, state, self.selection, self.simulation,
                              self.select_calc, self.simulate_calc, self.cp, self.delta, lo, hi,
                              points, child_values, state_value, params, baseline)

        done = 0
        if self.iterations is not None:
            run(self.iterations)
            done = self.iterations
        else:
            deadline = time.perf_counter() + time_s
            batch = 16
            while True:
                t0 = time.perf_counter()
                run(batch)
                done += batch
                now = time.perf_counter()
                per_iteration = max((now - t0) / batch, 1e-9)
                # half the time left per batch: the last batches are short, so a slow
                # estimate of the iteration time cannot overrun the deadline by much
                batch = int(min((deadline - now) / per_iteration * 0.5, 1_000_000))
                if batch < 1:
                    break
        self.last_iterations = done
        self.last_nodes = int(tree.size[0])
        self.iterations_total += done
        self.moves_total += 1
        means = km.root_values(tree, False)
        ranking = km.root_values(tree, True) if self.final == "visits" else means
        return int(np.argmax(ranking)), means


# Evaluators without a kernel are reached from numba through object-mode callbacks. Each
# search registers its evaluator under a fresh key for its duration and passes the key
# to the callbacks in ``params[0]``: searches in several threads at once (the web app's
# thinking threads, each under its own point system) each reach their own evaluator.
_PY_EVALUATORS: dict[int, Evaluator] = {}
_KEYS = itertools.count(1)
_NO_BASELINE = np.zeros(26)


# The tree's grids all come from the one the search was given: the evaluator's checks of a
# position are paid there once (Evaluator.placement_values at the root), not per placement.
def _py_child_values(grid, card, params, out):
    out[:] = _PY_EVALUATORS[int(params[0])]._unchecked_placement_values(grid.copy(), int(card))


def _py_state_value(grid, params) -> float:
    return float(_PY_EVALUATORS[int(params[0])]._unchecked_state_value(grid.copy()))


def _bridge_child_values(grid, card, params, out):
    with objmode():
        _py_child_values(grid, card, params, out)


def _bridge_state_value(grid, params):
    with objmode(value="float64"):
        value = _py_state_value(grid, params)
    return value


@functools.cache
def _bridges():
    """The two bridges compiled for the kernel signatures, on first use (a signature
    given to ``njit`` compiles at once: not at import)."""
    return njit(km.CHILD_VALUES_SIG)(_bridge_child_values), njit(km.STATE_VALUE_SIG)(_bridge_state_value)


@contextlib.contextmanager
def _python_kernel(evaluator: Evaluator):
    """The evaluator's Python methods behind the kernel calling convention (about 2 us
    of overhead per call on top of the evaluator's own time), for one search."""
    key = next(_KEYS)
    _PY_EVALUATORS[key] = evaluator
    try:
        yield (*_bridges(), np.array([float(key)]), _NO_BASELINE)
    finally:
        del _PY_EVALUATORS[key]
