"""The evaluator interface shared by every search."""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from typing import Self

import numpy as np
from numba import njit

from ..cards import NUM_CARDS, is_card_id, is_integer, is_seconds
from ..errors import IllegalPlacementError, InvalidPointSystemError, NotPreparedError, PokerSquaresError
from ..game import EMPTY, NUM_CELLS

__all__ = ["Evaluator", "TableKernelEvaluator", "checked_grid", "checked_card", "checked_position",
           "checked_grid_and_cards", "checked_cells", "checked_count", "checked_points", "checked_seed", "masked_seed", "wrapped_seed", "checked_budget",
           "checked_threads", "checked_share", "SEED_MASK", "MAX_THREADS", "MIN_POINTS", "MAX_POINTS",
           "MAX_LEARNED_VALUE"]


# -- checks of what the public methods are given ------------------------------------------
#
# The kernels index arrays by card and cell without bounds checks, so the public methods
# check their arguments first (the kernels and the per-playout loops do not). Searches
# call some public methods once a placement (MCTS's bridge to evaluators without a
# kernel, expectimax's chance level, a flat search's pulls): a grid or a list of cards in
# the form they pass (a contiguous int8 or int64 array) is checked by one small kernel,
# about 0.2 us; any other form is converted first.

_INT8 = np.dtype(np.int8)
_INT64 = np.dtype(np.int64)
_GRID_SHAPE = (NUM_CELLS,)
_INT8_STRIDES = (1,)
_INT64_STRIDES = (8,)
_NO_CARDS = np.zeros(0, dtype=np.int64)
_PROBLEMS = {
    1: "a grid holds card ids 0..51 or -1 for empty, got {grid}",
    2: "a grid holds each card at most once, got {grid}",
    3: "cards are card ids 0..51, got {cards}",
    4: "cards to be dealt must not be on the grid already: {cards} on {grid}",
}


@njit(cache=True)
def _position_problem(grid, cards):
    """0 when ``grid`` (int8) holds distinct card ids 0..51 or -1 and ``cards`` (int64)
    are card ids 0..51 none of which is on it; else the key of the problem in ``_PROBLEMS``."""
    seen = np.uint64(0)
    for i in range(grid.shape[0]):
        c = grid[i]
        if c == -1:
            continue
        if c < 0 or c >= 52:
            return 1
        bit = np.uint64(1) << np.uint64(c)
        if seen & bit:
            return 2
        seen |= bit
    for i in range(cards.shape[0]):
        c = cards[i]
        if c < 0 or c >= 52:
            return 3
        if seen & (np.uint64(1) << np.uint64(c)):
            return 4
    return 0


def _brief(value) -> str:
    """``value`` for a one-line message: an array as a list, long text cut short."""
    text = " ".join(repr(value.tolist() if isinstance(value, np.ndarray) else value).split())
    return text if len(text) <= 160 else text[:157] + "..."


def _raise_problem(code: int, grid: np.ndarray, cards: np.ndarray) -> None:
    raise IllegalPlacementError(_PROBLEMS[code].format(grid=_brief(grid), cards=_brief(cards)))


def checked_grid(grid) -> np.ndarray:
    """``grid`` as a writable contiguous ``int8[25]`` array (the array itself when it is
    one; a read-only one is copied, so that the kernels are not compiled again for it),
    checked to hold distinct card ids 0..51 and -1 for empty cells; else
    IllegalPlacementError."""
    if (type(grid) is not np.ndarray or grid.dtype is not _INT8 or grid.shape != _GRID_SHAPE
            or grid.strides != _INT8_STRIDES or not grid.flags.writeable):
        grid = _int8_grid(grid)
    code = _position_problem(grid, _NO_CARDS)
    if code:
        _raise_problem(code, grid, _NO_CARDS)
    return grid


def _as_array(value) -> np.ndarray:
    """``value`` as numpy sees it, or an object array where it cannot (a ragged list)."""
    try:
        return np.asarray(value)
    except (TypeError, ValueError):
        return np.asarray(None)


def _int8_grid(grid) -> np.ndarray:
    """``grid`` as a contiguous int8 array of 25 cells, when it is 25 integers in int8's
    range (the rest of the checks are :func:`checked_grid`'s)."""
    array = _as_array(grid)
    if array.dtype.kind not in "iu":  # not bools, floats, text or ragged lists
        raise IllegalPlacementError(f"a grid is 25 integer cells (card ids 0..51, -1 for empty), got {_brief(grid)}")
    if array.shape != _GRID_SHAPE:
        raise IllegalPlacementError(f"a grid has {NUM_CELLS} cells, got an array of shape {array.shape}")
    if array.min() < EMPTY or array.max() >= NUM_CARDS:  # before int8 would wrap them
        raise IllegalPlacementError(f"a grid holds card ids 0..51 or -1 for empty, got {_brief(array)}")
    grid = np.ascontiguousarray(array, dtype=np.int8)
    return grid if grid.flags.writeable else grid.copy()


def checked_card(card, grid: np.ndarray) -> int:
    """``card`` (the card in hand) as an int, checked to be a card id 0..51 not on the
    checked ``grid``; else IllegalPlacementError."""
    if type(card) is not int or not 0 <= card < NUM_CARDS:  # an int in range: no more to check
        if not isinstance(card, (int, np.integer)) or not is_card_id(card):  # not bools, not arrays
            raise IllegalPlacementError(f"the card in hand is a card id 0..51, got {_brief(card)}")
        card = int(card)
    if card in grid.tobytes():
        raise IllegalPlacementError(f"the card in hand, {card}, is already on the grid")
    return card


def checked_position(grid, card) -> tuple[np.ndarray, int]:
    """``grid`` as :func:`checked_grid` returns it and the card in hand as
    :func:`checked_card` does, with an empty cell for the card; else
    IllegalPlacementError (what a move is chosen in: a search's or a player's)."""
    grid = checked_grid(grid)
    card = checked_card(card, grid)
    if not (grid == EMPTY).any():
        raise IllegalPlacementError("the grid is full: there is no empty cell for the card")
    return grid, card


def checked_grid_and_cards(grid, cards) -> tuple[np.ndarray, np.ndarray]:
    """``grid`` as :func:`checked_grid` returns it and ``cards`` as a contiguous
    ``int64[k]`` array, checked to be card ids 0..51 none of which is on the grid;
    else IllegalPlacementError."""
    if (type(grid) is not np.ndarray or grid.dtype is not _INT8 or grid.shape != _GRID_SHAPE
            or grid.strides != _INT8_STRIDES or not grid.flags.writeable):
        grid = _int8_grid(grid)
    if (type(cards) is not np.ndarray or cards.dtype is not _INT64 or cards.strides != _INT64_STRIDES
            or not cards.flags.writeable):
        cards = _int64_cards(cards)
    code = _position_problem(grid, cards)
    if code:
        _raise_problem(code, grid, cards)
    return grid, cards


def _int64_cards(cards) -> np.ndarray:
    """``cards`` as a contiguous int64 array, when it is a list of integers in int64's
    range (the rest of the checks are :func:`checked_grid_and_cards`'s)."""
    array = _as_array(cards)
    if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
        raise IllegalPlacementError(f"cards are a list of card ids 0..51, got {_brief(cards)}")
    if array.size and (array.min() < 0 or array.max() >= NUM_CARDS):  # before int64 could wrap them
        raise IllegalPlacementError(f"cards are card ids 0..51, got {_brief(array)}")
    cards = np.ascontiguousarray(array, dtype=np.int64)
    return cards if cards.flags.writeable else cards.copy()


def checked_cells(cells, grid: np.ndarray) -> np.ndarray:
    """``cells`` as ``int64[k]``, checked to be empty cells (0..24) of the checked
    ``grid``; else IllegalPlacementError."""
    array = np.asarray(cells)
    if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
        raise IllegalPlacementError(f"cells are a list of cell indices 0..24, got {_brief(cells)}")
    array = array.astype(np.int64)
    if array.size and (array.min() < 0 or array.max() >= NUM_CELLS):
        raise IllegalPlacementError(f"cells are cell indices 0..24, got {_brief(array)}")
    if array.size and (grid[array] != EMPTY).any():
        raise IllegalPlacementError(f"a card can only be placed in an empty cell, got cells {_brief(array)}")
    return array


def checked_count(n, what: str) -> int:
    """``n`` as an int, checked to be an integer >= 0; else PokerSquaresError."""
    if type(n) is int and n >= 0:
        return n
    if not is_integer(n) or n < 0:
        raise PokerSquaresError(f"{what} must be an integer >= 0, got {_brief(n)}")
    return int(n)


#: The most threads an evaluator learns on at once: the harness's most cores a player may
#: use (``harness.registry.MAX_CORES``). Each learner holds tables of its own (a NARL
#: helper about 1.4 MB, a pattern learner about 1 MB): 3,000 of them outgrew the game
#: process's 4 GB memory limit in the preparation, where a bad value should be refused.
MAX_THREADS = 64


def checked_threads(threads, what: str = "threads") -> int:
    """``threads`` as an int, checked to be an integer 1..MAX_THREADS (not a bool); else
    PokerSquaresError naming ``what``."""
    if not is_integer(threads) or not 1 <= threads <= MAX_THREADS:
        raise PokerSquaresError(f"{what} must be a whole number of threads from 1 to {MAX_THREADS}, "
                                f"got {_brief(threads)}")
    return int(threads)


def checked_share(share, what: str) -> float:
    """``share`` as a float, checked to be a real number in (0, 1] (a share of a budget:
    above 1 the preparation overruns its budget, 0 or below learns nothing); else
    PokerSquaresError naming ``what``."""
    if not is_seconds(share) or not 0.0 < share <= 1.0:
        raise PokerSquaresError(f"{what} must be a share of the budget in (0, 1], got {_brief(share)}")
    return float(share)


#: A seed as numpy's generators take it (non-negative): ``seed & SEED_MASK``.
SEED_MASK = 2 ** 63 - 1


def checked_seed(seed) -> int:
    """``seed`` as an int, checked to be an integer (Python's or numpy's, not a bool) in
    int64's range, as the kernels take seeds: 0.5 is no seed 0; else PokerSquaresError."""
    if type(seed) is int and -2 ** 63 <= seed < 2 ** 63:
        return seed
    if not is_integer(seed) or not -2 ** 63 <= seed < 2 ** 63:
        raise PokerSquaresError(f"a seed is an integer in int64's range, got {_brief(seed)}")
    return int(seed)


def wrapped_seed(value: int) -> int:
    """A seed derived by arithmetic (``seed * 131 + i``) taken into int64's range as int64
    arithmetic wraps it: past 2**63 / 131 the product left the range, and the playouts
    refused the valid seed they were given. Unchanged within the range."""
    return (int(value) + 2 ** 63) % 2 ** 64 - 2 ** 63


def masked_seed(seed) -> int:
    """``seed`` checked (:func:`checked_seed`) and made non-negative, as the kernels' and
    numpy's generators take it: ``seed & SEED_MASK``."""
    return checked_seed(seed) & SEED_MASK


def checked_budget(budget_s) -> float:
    """``budget_s`` (a preparation's seconds) as a float, checked to be a finite real number
    (Python's or numpy's, not a bool or text; below 0 is no time at all): "0.05" or NaN
    would fail deep in the learning, infinity would learn for ever; else PokerSquaresError."""
    if not is_seconds(budget_s) or not math.isfinite(budget_s):
        raise PokerSquaresError(f"a preparation's budget is a finite number of seconds, got {_brief(budget_s)}")
    return float(budget_s)


#: The range of a hand's points: PointSystem clamps each to it, as the contest did. The
#: kernels add points and multiply them by counts in int64 without overflow checks, which
#: this range keeps far from overflowing (points near 2**62 wrapped silently).
MIN_POINTS, MAX_POINTS = -128, 127


#: The largest learned value (in points) a saved state may hold: a line's mean points, a
#: hand-size correction, a residual weight, a pattern's utility. No game scores more than
#: 10 lines of MAX_POINTS, and what is learned stays within a few times that; a value a
#: thousand times beyond is a damaged or hand-made file, not learning. Loaded unchecked,
#: values near 1e308 summed to inf and NaN in the kernels: an occupied cell chosen every
#: move, or the game process killed by an index out of bounds.
MAX_LEARNED_VALUE = 1000 * 10 * max(-MIN_POINTS, MAX_POINTS)


def checked_points(points) -> np.ndarray:
    """``points`` as a new ``int64[10]`` array, checked to be ten integers from
    MIN_POINTS to MAX_POINTS (one per hand id, as a PointSystem holds them); else
    InvalidPointSystemError."""
    array = _as_array(points)
    if array.shape != (10,) or array.dtype.kind not in "iu":
        raise InvalidPointSystemError(f"points are 10 integers, one per hand, got {_brief(points)}")
    if array.min() < MIN_POINTS or array.max() > MAX_POINTS:
        raise InvalidPointSystemError(f"points are 10 integers from {MIN_POINTS} to {MAX_POINTS} "
                                      f"(PointSystem clamps them so), got {_brief(points)}")
    return array.astype(np.int64)


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

    An evaluator of one's own defines ``placement_values`` and ``playouts`` (the two
    abstract methods; ``state_value`` defaults to the mean of 16 of its greedy playouts,
    slow in plain Python: define it too), keeps the points ``prepare`` is given (call
    ``super().prepare(points, budget_s, seed)``), never modifies a grid it is given and
    never gives NaN. :class:`~pokersquares.players.SearchPlayer` says in one line which
    of these a move broke.

    The public methods check what they are given (the helpers above): a grid that is
    not 25 distinct card ids or -1, a card in hand that is not a card id or is on the
    grid, a negative count, points that are not 10 integers are user errors
    (:class:`~pokersquares.errors.PokerSquaresError`), never a kernel reading out of bounds.

    Threads: the built-in evaluators' values, playouts and ``save`` may be asked from
    several threads at once, also while another thread learns into the same evaluator
    (``learn``, ``learn_more``): they read the tables as they stand at that moment (a file
    saved then loads, with what was learned so far). ``prepare`` starts the tables
    afresh: what is read meanwhile is of a table being rebuilt, or an error.
    """

    name: str = "evaluator"
    _points: np.ndarray | None = None
    #: CPU seconds numba spends compiling this evaluator's kernels (with those it builds
    #: on) on an empty cache, for scheduling warm-ups only (:mod:`pokersquares.harness.warm_up`);
    #: measured on this project's machine (``benchmarks/web_first_advice.py --cold``'s console).
    compile_s: float = 1.0

    @property
    def learns_within_budget(self) -> bool:
        """Whether ``prepare`` learns for as long as its budget allows: players then check
        the learned policy against the greedy rule (players.greedy_guard)."""
        return False

    def __repr__(self) -> str:
        points = self.points
        told = "no point system yet" if points is None else "points " + ",".join(map(str, points))
        return f"<{type(self).__name__} {self.name!r}, {told}>"

    @property
    def points(self) -> np.ndarray | None:
        """The point system's ``int64[10]``: None until ``prepare`` or ``load`` gives it one
        (then every value and playout would be those of no game: they refuse,
        :meth:`_require_points`)."""
        return self._points

    @points.setter
    def points(self, points) -> None:
        # Set by hand too (the 2016 players' learners set it, then learn): the kernels
        # take it unchecked, so ten integers in range or None, else InvalidPointSystemError.
        self._points = None if points is None else checked_points(points)

    def _require_points(self) -> None:
        """NotPreparedError unless this evaluator has a point system; each public method
        that values, plays out or learns asks first (one attribute test a call)."""
        if self.points is None:
            raise NotPreparedError(f"the {self.name} evaluator has no point system yet: "
                                   "call prepare(points, budget_s) or load(path) first")

    def prepare(self, points: np.ndarray, budget_s: float, seed: int = 0) -> None:
        """Learn for ``points`` within ``budget_s`` seconds. The default only stores them.

        Every evaluator checks every argument before anything changes: a refused one
        leaves it as it was (its old points with what it learned for them). A learning
        that fails leaves it as it was too, or, where it learns in place, with no point
        system (NotPreparedError): never the new points beside what was learned for
        the old."""
        points = checked_points(points)
        checked_budget(budget_s)
        checked_seed(seed)
        self.points = points

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
        self._require_points()
        grid = checked_grid(grid)
        card = checked_card(card, grid)
        cells = checked_cells(cells, grid)
        n = checked_count(n, "the number of playouts")
        seed = checked_seed(seed)
        out = np.empty((len(cells), n), dtype=np.int64)
        for i, cell in enumerate(cells):
            child = np.array(grid, dtype=np.int8)
            child[int(cell)] = card
            out[i] = self.playouts(child, n, wrapped_seed(seed * 131 + i))
        return out

    def greedy_cell(self, grid: np.ndarray, card: int) -> int:
        """The empty cell of ``card``'s best placement; a full grid is an IllegalPlacementError
        (the argmax of values that are all ``-inf`` would be cell 0, an occupied one)."""
        values = self.placement_values(grid, card)
        cell = int(np.argmax(values))
        if values[cell] == -np.inf:
            raise IllegalPlacementError("the grid is full: there is no empty cell for the card")
        if values[cell] != values[cell]:  # argmax takes the first NaN as the best: an evaluator of one's own
            raise PokerSquaresError(f"the {self.name} evaluator's placement_values gave NaN (cell {cell}): values "
                                    "estimate the final score, -inf only for occupied cells")
        return cell

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
        self._require_points()
        grid = checked_grid(grid)
        if not (grid == EMPTY).any():
            from ..kernels.core import score_grid
            return float(score_grid(grid, self.points))
        return float(np.mean(self.playouts(grid, 16, seed=0)))

    def limited_playouts(self, grid: np.ndarray, n: int, depth: int, seed: int) -> np.ndarray:
        """``float64[n]``: like :meth:`playouts`, but each game places only ``depth``
        more cards (from a fresh shuffle of the undealt cards, by the greedy policy) and
        ends with :meth:`state_value` of the grid it reached."""
        self._require_points()
        grid = checked_grid(grid)
        n = checked_count(n, "the number of playouts")
        depth = checked_count(depth, "the depth")
        seed = checked_seed(seed)
        empty = int((grid == EMPTY).sum())
        if depth >= empty:
            return self.playouts(grid, n, seed).astype(np.float64)
        rng = np.random.default_rng(seed & SEED_MASK)  # numpy's seeds are non-negative
        undealt = np.setdiff1d(np.arange(52), grid[grid != EMPTY])
        out = np.empty(n)
        for i in range(n):
            g = grid.copy()
            for card in rng.permutation(undealt)[:depth]:
                g[int(np.argmax(self._unchecked_placement_values(g, int(card))))] = card
            out[i] = self._unchecked_state_value(g)
        return out

    def best_placement_values(self, grid: np.ndarray, cards: np.ndarray) -> np.ndarray:
        """``float64[len(cards)]``: for each card, the value of its best placement on
        ``grid`` (a chance level of expectimax: each card as the next one dealt)."""
        self._require_points()
        grid, cards = checked_grid_and_cards(grid, cards)
        return np.array([self._unchecked_placement_values(grid, int(c)).max() for c in cards], dtype=np.float64)

    # The loops above run over grids and cards derived from checked ones: an evaluator
    # whose public methods check their arguments overrides these two with its unchecked
    # forms, so that the checks are paid once a call, not once a placement. A search that
    # calls back into Python once a placement (MCTS's bridge for evaluators without a
    # kernel) may call them too, on grids it copied from one it checked.

    def _unchecked_placement_values(self, grid: np.ndarray, card: int) -> np.ndarray:
        """:meth:`placement_values` of an ``int8[25]`` grid and a card already checked."""
        return self.placement_values(grid, card)

    def _unchecked_state_value(self, grid: np.ndarray) -> float:
        """:meth:`state_value` of an ``int8[25]`` grid already checked."""
        return self.state_value(grid)

    def _unchecked_limited_playouts(self, grid: np.ndarray, n: int, depth: int, seed: int) -> np.ndarray:
        """:meth:`limited_playouts` of an ``int8[25]`` grid and counts already checked (a
        flat search's pull of one playout pays no check)."""
        return self.limited_playouts(grid, n, depth, seed)

    def warm_up_copy(self) -> Self:
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

    def loaded_points(self) -> tuple[int, ...] | None:
        """The points a state loaded with :meth:`load` was learned for, None when none
        was loaded. ``prepare`` for other points drops that state and learns anew in its
        budget (nothing in 0 s), so a command asks this first and refuses such a file."""
        if not getattr(self, "_loaded", False) or self.points is None:
            return None
        return tuple(int(p) for p in self.points)

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
        if self.points is not None and np.array_equal(points, self.points):
            return True
        import warnings
        warnings.warn(f"the loaded {what} was learned for points {np.asarray(self.points).tolist()}, "
                      f"not {np.asarray(points).tolist()}; learning anew", stacklevel=3)
        self._loaded = False
        return False


class TableKernelEvaluator(Evaluator):
    """An evaluator whose values and playouts are numba kernels over arrays it learned
    (NARL's table, the TD evaluator's table and residual): the public methods check
    their arguments, then pass the position and :meth:`_tables` to the kernels a
    subclass names.

    A subclass sets ``_placement_kernel(grid, card, *tables)``,
    ``_best_kernel(grid, cards, *tables)``, ``_value_kernel(grid, *tables)`` and
    ``_playout_kernel(grid, n, depth, seed, random_policy, *_playout_args, *tables)``
    (each wrapped in ``staticmethod``), ``_playout_args`` (what its playout kernel takes
    between the policy flag and the tables) and :meth:`_tables`.
    """

    _placement_kernel: staticmethod
    _best_kernel: staticmethod
    _value_kernel: staticmethod
    _playout_kernel: staticmethod
    _playout_args: tuple = ()

    def _tables(self) -> tuple:
        """The arrays and flags the kernels take after the position."""
        raise NotImplementedError

    def placement_values(self, grid: np.ndarray, card: int) -> np.ndarray:
        self._require_points()
        grid = checked_grid(grid)
        return self._placement_kernel(grid, checked_card(card, grid), *self._tables())

    def state_value(self, grid: np.ndarray) -> float:
        self._require_points()
        return self._unchecked_state_value(checked_grid(grid))

    def _unchecked_placement_values(self, grid: np.ndarray, card: int) -> np.ndarray:
        return self._placement_kernel(grid, card, *self._tables())

    def _unchecked_state_value(self, grid: np.ndarray) -> float:
        if (grid == EMPTY).all():
            return self._empty_grid_value()
        return float(self._value_kernel(grid, *self._tables()))

    def _empty_grid_value(self) -> float:
        """The empty grid's value, one card deeper: the mean over the 52 first cards of
        the best placement's value. The tables learn afterstates, which hold a card or
        more, so their value kernel finds nothing for an empty grid and says 0 (a caller
        asking what a point system is worth before the first card was told 0 points)."""
        return float(np.mean(self._best_kernel(np.full(25, EMPTY, dtype=np.int8), np.arange(52, dtype=np.int64),
                                               *self._tables())))

    def best_placement_values(self, grid: np.ndarray, cards: np.ndarray) -> np.ndarray:
        self._require_points()
        return self._best_kernel(*checked_grid_and_cards(grid, cards), *self._tables())

    def playouts(self, grid: np.ndarray, n: int, seed: int) -> np.ndarray:
        return self._checked_playouts(grid, n, 25, seed, False, self._playout_args).astype(np.int64)

    def limited_playouts(self, grid: np.ndarray, n: int, depth: int, seed: int,
                         random_policy: bool = False) -> np.ndarray:
        return self._checked_playouts(grid, n, depth, seed, random_policy, self._playout_args)

    def _checked_playouts(self, grid, n, depth, seed, random_policy: bool, playout_args: tuple) -> np.ndarray:
        """The playout kernel on checked arguments, with ``playout_args`` between the
        policy flag and the tables."""
        self._require_points()
        grid, n, depth = checked_grid(grid), checked_count(n, "the number of playouts"), checked_count(depth, "the depth")
        if depth == 0 and (grid == EMPTY).all():  # no card placed: the empty grid's value, as state_value says it
            return np.full(n, self._empty_grid_value())
        return self._playout_kernel(grid, n, depth, masked_seed(seed), random_policy, *playout_args, *self._tables())

    def _unchecked_limited_playouts(self, grid: np.ndarray, n: int, depth: int, seed: int) -> np.ndarray:
        return self._playout_kernel(grid, n, depth, int(seed) & (2**63 - 1), False, *self._playout_args,
                                    *self._tables())
