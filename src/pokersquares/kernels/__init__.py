"""The fast path: numba kernels over small integer arrays.

Every kernel implements a rule whose readable reference lives in the plain-Python
modules (``hands``, ``game``); the tests check each against its reference. Cards are
``int8`` ids (``-1`` for an empty cell), grids are ``int8[25]`` in cell order, point
systems are ``int64[10]``. Kernels compile with ``cache=True``, so only the first
run on a machine pays for compilation.

The kernels index their arrays without bounds checks: given a point system of two
values ``random_games`` read past its end and returned garbage, and a shuffle past its
items wrote over memory. So the names here check their arguments and refuse what a
kernel would misread in one :class:`~pokersquares.errors.PokerSquaresError` (a point
system that is not 10 integers ``InvalidPointSystemError``, a grid that is not 25
distinct card ids or ``-1`` ``IllegalPlacementError``, other cards that are not
``-1..51`` ``InvalidCardError``), then call the kernel of the same name in
:mod:`.core`. The checks cost a few microseconds a call; the kernels in :mod:`.core`,
unchecked, are what the package's own loops call and what numba code can call
(``from pokersquares.kernels.core import score_grid``).
"""

from .cache import stamp_with_kernel_sources, tolerate_unwritable_cache

tolerate_unwritable_cache()  # before any kernel compiles: a cache that cannot be written is no error
stamp_with_kernel_sources()  # before any kernel is defined: an edit to core.py makes td's cache stale too

import numpy as np  # noqa: E402

from ..cards import is_card_id, is_integer  # noqa: E402
from ..errors import InvalidCardError, InvalidCellError, PokerSquaresError  # noqa: E402
from ..evaluators.base import _as_array, _brief, checked_count, checked_grid, checked_points, checked_seed  # noqa: E402
from . import core  # noqa: E402
from .core import LINES_ARRAY  # noqa: E402
from .parallel import parallel_turn  # noqa: E402

__all__ = [
    "LINES_ARRAY", "add_card", "classify_cards", "classify_batch", "classify_line", "classify_packed", "line_features",
    "score_grid", "line_scores",
    "random_games", "random_games_parallel", "rng_seed", "rng_next", "rng_below", "shuffle_prefix",
]


def _integer(value, what: str, low: int, high: int) -> int:
    """``value`` as an int if it is an integer (Python's or numpy's, not a bool) in
    low..high; else PokerSquaresError naming ``what``."""
    if not is_integer(value) or not low <= value <= high:
        raise PokerSquaresError(f"{what} must be an integer {low}..{high}, got {_brief(value)}")
    return int(value)


def _flag(value, what: str) -> bool:
    """``value`` if it is a bool (Python's or numpy's); else PokerSquaresError naming ``what``."""
    if not isinstance(value, (bool, np.bool_)):
        raise PokerSquaresError(f"{what} is True or False, got {_brief(value)}")
    return bool(value)


def _cards(cards, what: str, ndim: int) -> np.ndarray:
    """``cards`` as a contiguous int8 array of ``ndim`` dimensions, checked to be card ids
    0..51 or -1 (skipped); else InvalidCardError naming ``what``."""
    array = _as_array(cards)
    if array.ndim != ndim or (array.size and array.dtype.kind not in "iu"):
        form = "a list" if ndim == 1 else "an array of rows"
        raise InvalidCardError(f"{what} are {form} of card ids 0..51 or -1, got {_brief(cards)}")
    if array.size and (array.min() < -1 or array.max() > 51):  # before int8 would wrap them
        raise InvalidCardError(f"{what} are card ids 0..51 or -1, got {_brief(cards)}")
    return np.ascontiguousarray(array, dtype=np.int8)


def _positions(line, cells: np.ndarray) -> np.ndarray:
    """``line`` as a contiguous int64 array, checked to be positions into ``cells``;
    else InvalidCellError."""
    array = _as_array(line)
    if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
        raise InvalidCellError(f"a line is a list of positions into the cells, got {_brief(line)}")
    if array.size and (array.min() < 0 or array.max() >= len(cells)):
        raise InvalidCellError(f"a line's positions are 0..{len(cells) - 1} (one per cell given), "
                               f"got {_brief(line)}")
    return np.ascontiguousarray(array, dtype=np.int64)


def _features(n, counts, rank_mask) -> tuple[int, int, int]:
    """A hand's card count, packed rank counts and rank mask (:func:`add_card`), checked
    to be integers in their ranges (the rank mask, a bit per rank, indexes core's tables
    of 2**13 entries); else PokerSquaresError."""
    return (_integer(n, "a hand's card count", 0, 52), _integer(counts, "a hand's packed rank counts", 0, 2 ** 63 - 1),
            _integer(rank_mask, "a hand's rank mask", 0, 2 ** 13 - 1))


def _state(state) -> np.ndarray:
    """``state`` if it is a generator's state as :func:`rng_seed` makes it (a writable
    ``uint64[1]`` array); else PokerSquaresError."""
    if (not isinstance(state, np.ndarray) or state.dtype != np.uint64 or state.shape != (1,)
            or not state.flags.writeable):
        raise PokerSquaresError(f"a generator's state is the uint64[1] array rng_seed(seed) returns, "
                                f"got {_brief(state)}")
    return state


def add_card(c, n, counts, rank_mask, suit, suited):
    """Fold card ``c`` (0..51) into a hand's features ``(n, counts, rank_mask, suit,
    suited)``: the card count, the packed rank counts, the mask of ranks present, the
    suit of the first card (``-1`` before any) and whether all cards share it."""
    if not is_card_id(c):
        raise InvalidCardError(f"a card is an id 0..51, got {_brief(c)}")
    return core.add_card(int(c), *_features(n, counts, rank_mask), _integer(suit, "a hand's suit", -1, 3),
                         _flag(suited, "whether a hand's cards share a suit"))


def classify_cards(cards) -> int:
    """Hand id of the cards in ``cards`` (card ids; entries ``-1`` are skipped), as
    ``hands.classify`` (which also refuses repeated cards and more than five)."""
    return core.classify_cards(_cards(cards, "a hand's cards", 1))


def classify_batch(hands) -> np.ndarray:
    """Hand ids (``int8[N]``) of an ``(N, 5)`` array of hands."""
    hands = _cards(hands, "hands", 2)
    if hands.shape[1] != 5:
        raise InvalidCardError(f"hands are an (N, 5) array, five cards a row, got shape {hands.shape}")
    return core.classify_batch(hands)


def classify_line(cells, line) -> int:
    """Hand id of the cards at positions ``line`` of ``cells`` (e.g. a grid and one of
    ``LINES_ARRAY``'s rows)."""
    cells = _cards(cells, "cells", 1)
    return core.classify_line(cells, _positions(line, cells))


def classify_packed(n, counts, rank_mask, flush) -> int:
    """Hand id from ``line_features``' card count, packed rank counts, rank mask and
    whether the cards share a suit: the rule of ``hands.classify``."""
    return core.classify_packed(*_features(n, counts, rank_mask), _flag(flush, "flush"))


def line_features(cells, line):
    """``(n, counts, rank_mask, suit, suited)`` (see ``add_card``) of the cards
    ``cells[line[k]]``, ``-1`` entries skipped."""
    cells = _cards(cells, "cells", 1)
    return core.line_features(cells, _positions(line, cells))


def score_grid(grid, points) -> int:
    """Total points of ``grid`` (25 distinct card ids or -1) under ``points`` (10
    integers, one per hand id): the sum of its 10 hands."""
    return core.score_grid(checked_grid(grid), checked_points(points))


def line_scores(grid, points) -> np.ndarray:
    """Points (``int64[10]``) of each of the 10 hands of ``grid`` (rows, then columns)."""
    return core.line_scores(checked_grid(grid), checked_points(points))


def random_games(n_games, seed, points) -> np.ndarray:
    """Scores (``int64[n_games]``) of ``n_games`` complete random games from ``seed``:
    deal 25 cards, place each in a uniformly random empty cell, score all 10 hands."""
    return core.random_games(checked_count(n_games, "the number of games"), checked_seed(seed),
                             checked_points(points))


def random_games_parallel(n_games, seed, points, n_chunks) -> np.ndarray:
    """``random_games`` spread over threads, in ``n_chunks`` (1..2**31-1) independently
    seeded chunks."""
    n_chunks = _integer(n_chunks, "the number of chunks", 1, 2 ** 31 - 1)  # far from int64's overflow
    n_games, seed, points = checked_count(n_games, "the number of games"), checked_seed(seed), checked_points(points)
    with parallel_turn():  # two threads' calls under numba's workqueue layer stopped the process
        return core.random_games_parallel(n_games, seed, points, n_chunks)


def rng_seed(seed) -> np.ndarray:
    """A generator state (``uint64[1]``) for ``seed``, an integer in int64's range."""
    return core.rng_seed(checked_seed(seed))


def rng_next(state) -> int:
    """The next 64-bit number of the generator ``state`` (advanced in place)."""
    return core.rng_next(_state(state))


def rng_below(state, n) -> int:
    """Uniform integer in [0, n) for n 1..2**32-1, drawn from ``state``."""
    return core.rng_below(_state(state), _integer(n, "rng_below's bound", 1, 2 ** 32 - 1))


def shuffle_prefix(state, items, start, count) -> None:
    """Fisher-Yates over ``items[start:]`` (a one-dimensional numpy array, shuffled in
    place), fixing only the first ``count`` positions, all within ``items``."""
    state = _state(state)
    if (not isinstance(items, np.ndarray) or items.ndim != 1 or items.dtype.kind not in "biuf"
            or not items.flags.writeable):
        raise PokerSquaresError(f"shuffle_prefix shuffles a writable one-dimensional numpy array of numbers "
                                f"in place, got {_brief(items)}")
    start = _integer(start, "the shuffle's start", 0, len(items))
    core.shuffle_prefix(state, items, start, _integer(count, "the shuffle's count", 0, len(items) - start))
