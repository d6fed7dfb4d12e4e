"""The player protocol, the Python form of the contest's ``PokerSquaresPlayer``.

A player is told the point system once (``set_point_system``), within a
preprocessing budget in which it may learn; ``start_game`` precedes each game; then
``get_play`` is called 25 times with the card to place and the decision time left
in the game, and answers ``(row, col)`` of an empty cell.
"""

from __future__ import annotations

import contextlib
import math
import pickle
import threading
import time
from collections.abc import Iterator
from typing import Protocol, runtime_checkable

import numpy as np

from ..cards import Card, card_name, is_card_id, is_integer, is_seconds
from ..errors import IllegalPlacementError, InvalidPointSystemError, InvalidSeedError, PokerSquaresError
from ..game import EMPTY, NUM_CELLS, cell_of
from ..points import PointSystem

__all__ = ["Player", "BasePlayer", "OneThreadAtATime", "MalformedAnswerError", "handoff_reserve_s", "PREP_MARGIN_S",
           "PREP_MARGIN_SHARE"]

# What a preparation keeps back of its budget for what follows learning: pickling the
# prepared player for the game workers (measured, see handoff_reserve_s), and a busy
# machine's scheduler (a fixed part and a share of the budget, at most PREP_MARGIN_MAX_S).
PREP_MARGIN_S = 0.1
SEED_MASK = 2 ** 31 - 1  # the harness's player seeds are 31-bit already: they pass unchanged
PREP_MARGIN_SHARE = 0.05
PREP_MARGIN_MAX_S = 5.0


def _one_line(value) -> str:
    """``repr(value)`` for a one-line message: an array's on one line, long text cut short."""
    text = " ".join(repr(value).split())
    return text if len(text) <= 160 else text[:157] + "..."


def handoff_reserve_s(player, budget_s: float) -> float:
    """Seconds of a ``budget_s`` preparation that ``player`` keeps for handing itself
    over: three times the time pickling it takes now (its learned state grows, and the
    parent receives the bytes), plus ``PREP_MARGIN_S`` and ``PREP_MARGIN_SHARE`` of the
    budget (at most ``PREP_MARGIN_MAX_S``); never more than half the budget, so nothing
    (and no pickling, which would itself spend the budget) for a budget of 0."""
    if budget_s <= 0:
        return 0.0
    t = time.perf_counter()
    try:
        pickle.dumps(player)
    except Exception:  # not picklable: the harness prepares it in each worker instead
        pass
    pickling = time.perf_counter() - t
    margin = PREP_MARGIN_S + min(PREP_MARGIN_SHARE * budget_s, PREP_MARGIN_MAX_S)
    return min(0.5 * budget_s, 3 * pickling + margin)


@runtime_checkable
class Player(Protocol):
    """What the harness needs of a player.

    ``cores`` says how many cores one game of this player keeps busy; the harness
    uses it so that parallel games never oversubscribe the machine.
    """

    name: str
    cores: int

    def set_point_system(self, point_system: PointSystem, budget_s: float) -> None: ...

    def start_game(self) -> None: ...

    def get_play(self, card: Card, seconds_left: float) -> tuple[int, int]: ...


def _prepared_for(player) -> str:
    system = getattr(player, "point_system", None)
    return f"point system {system.name}" if isinstance(system, PointSystem) else "no point system yet"


class MalformedAnswerError(ValueError):
    """A player's answer that is not a cell: the game scores the penalty as a malformed answer."""


class OccupiedCellError(IllegalPlacementError):
    """``choose`` answered a cell that holds a card: the game scores the penalty as an
    illegal play, and the player's own grid keeps the card that was there."""


class _TurnLock:
    """The re-entrant lock a player is held with. It pickles and copies as a new, free
    lock: a player of one's own whose ``__getstate__`` returns ``self.__dict__`` (a common
    idiom) still goes to the game workers, prepared."""

    __slots__ = ("_lock",)

    def __init__(self) -> None:
        self._lock = threading.RLock()

    def acquire(self, blocking: bool = True) -> bool:
        return self._lock.acquire(blocking)

    def release(self) -> None:
        self._lock.release()

    def __enter__(self) -> _TurnLock:
        self._lock.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self._lock.release()

    def __reduce__(self):
        return _TurnLock, ()


class OneThreadAtATime:
    """A player held by one thread at a time: ``with self._alone("what"):`` around a call
    of the protocol raises a PokerSquaresError naming it if another thread is inside the
    player (re-entered by the thread inside). The lock is made at first use; a pickled or
    copied player has its own, free."""

    def _turn_lock(self) -> _TurnLock:
        """The lock held by the thread inside this player, made at its first use (a
        subclass need not call ``__init__`` first)."""
        lock = self.__dict__.get("_busy")
        if lock is None:
            lock = self.__dict__.setdefault("_busy", _TurnLock())  # one lock even if two threads race here
        return lock

    @contextlib.contextmanager
    def _alone(self, what: str) -> Iterator[None]:
        """Hold this player for ``what``: a PokerSquaresError if another thread is inside it.
        Two games through one player from two threads (a pool of games sharing it) played
        on one grid: a card came twice, a move went into the other game's cell, or a game
        went on with the other's cards, silently."""
        lock = self._turn_lock()
        if not lock.acquire(blocking=False):
            raise PokerSquaresError(
                f"{getattr(self, 'name', type(self).__name__)}: {what} was called while another thread is inside "
                "this player (a preparation, a move or an advice): a player plays one game at a time; give each "
                "thread its own player (copy.deepcopy(player) after set_point_system)")
        try:
            yield
        finally:
            lock.release()


class BasePlayer(OneThreadAtATime):
    """Convenience base: keeps the grid of the current game and the point system.

    Subclasses implement ``choose(grid, card, seconds_left) -> cell index``; the grid
    is an ``int8[25]`` array (``-1`` empty) that the base updates after each play.
    Players that can show their reasoning also implement ``cell_values``.

    Threads: a player plays one game at a time (the grid is that game's). A preparation
    (``set_point_system``), ``start_game``, ``set_seed`` or a move (``get_play``) asked
    while another thread is inside one of them raises a PokerSquaresError naming the
    call, rather than playing two games on one grid: give each thread its own player
    (``copy.deepcopy(player)`` after ``set_point_system``). A subclass holds the player
    the same way with ``with self._alone("what"):`` (re-entered by the thread inside).
    """

    name = "base"
    cores = 1
    # Bump when a change alters how the player plays: stored games of another
    # version are then not resumed into new runs (see ResultStore.open_run).
    version = "1"

    def __init__(self) -> None:
        self.point_system: PointSystem | None = None
        self.points = np.zeros(10, dtype=np.int64)
        self.grid = np.full(NUM_CELLS, EMPTY, dtype=np.int8)
        self.seed = 0

    def __repr__(self) -> str:
        """Which player, and for which point system it is prepared (a notebook's cell
        output; every player of a composition was ``<...SearchPlayer object at 0x...>``)."""
        return f"<{type(self).__name__} {getattr(self, 'name', '?')!r}{self._repr_parts()}, {_prepared_for(self)}>"

    def _repr_parts(self) -> str:
        """What a subclass adds to its repr after the name (its evaluator and search)."""
        return ""

    @staticmethod
    def check_preparation(point_system, budget_s) -> None:
        """The PokerSquaresError :meth:`set_point_system` refuses its arguments with, if any:
        not a PointSystem, or a budget that is not a finite number of seconds from 0."""
        if not isinstance(point_system, PointSystem):
            raise InvalidPointSystemError(f"set_point_system takes a PointSystem (PointSystem(points) or "
                                          f"parse_point_system('american')), got {_one_line(point_system)}")
        if not is_seconds(budget_s) or not 0 <= budget_s < math.inf:  # an endless learning, or none meant
            raise PokerSquaresError(f"set_point_system's budget is a finite number of seconds from 0, "
                                    f"got {_one_line(budget_s)}")

    def set_point_system(self, point_system: PointSystem, budget_s: float) -> None:
        """Prepare for ``point_system``: everything, handing the prepared player over
        included, ends within ``budget_s`` seconds of this call. ``prepare`` gets what
        is left after :func:`handoff_reserve_s`. A ``point_system`` that is not a
        :class:`~pokersquares.points.PointSystem` (ten points as a list or an array:
        ``PointSystem(points)`` makes one) or a budget that is not seconds is a
        PokerSquaresError."""
        start = time.perf_counter()
        self.check_preparation(point_system, budget_s)
        with self._alone("set_point_system"):
            self.point_system = point_system
            self.points = np.array(point_system.points, dtype=np.int64)
            self.prepare(max(0.0, budget_s - handoff_reserve_s(self, budget_s) - (time.perf_counter() - start)))

    def prepare(self, budget_s: float) -> None:
        """Learn within ``budget_s`` seconds from now; the default learns nothing."""

    def warm_up(self) -> None:
        """Compile (or load from numba's cache) the kernels this player uses. The
        harness calls it before the preprocessing clock starts, so that a machine's
        first, uncached compilation does not eat the learning budget. The default loads
        the kernel of :meth:`checked_position`, which every ``choose`` of ours calls:
        left to the first move, loading it took a third of a second of the first game's
        decision time (a ``random`` game over a 0.2 s limit scored the penalty); an
        override that does not call this should load it its own way."""
        from ..evaluators.base import checked_position
        grid = np.full(NUM_CELLS, EMPTY, dtype=np.int8)
        checked_position(grid, 0)

    def start_game(self) -> None:
        with self._alone("start_game"):
            self.grid = np.full(NUM_CELLS, EMPTY, dtype=np.int8)

    def set_seed(self, seed: int) -> None:
        """The harness seeds each game's randomness so that runs are reproducible. Its
        seeds are 31-bit (harness/seeds.py); any other integer is taken to 31 bits, so that
        kernels' seed arithmetic (``seed * 31 + move`` in int64, numpy's non-negative seeds)
        holds for any seed a caller gives (an integer: 1.7 is no seed, not seed 1)."""
        if not is_integer(seed):
            raise InvalidSeedError(f"set_seed takes an integer, got {_one_line(seed)}")
        with self._alone("set_seed"):
            self.seed = int(seed) & SEED_MASK

    def get_play(self, card: Card, seconds_left: float) -> tuple[int, int]:
        """The cell for ``card`` as ``(row, col)``, from :meth:`choose`. Called on a full
        grid, or with a card that is not a card id 0..51 not yet on this game's grid, it
        raises a PokerSquaresError: the card is never truncated (3.7 is not card 3) nor
        placed twice. (Whether the point system was set is for ``choose`` to say: a
        player of one's own may keep it its own way, without ``super().set_point_system``.)"""
        with self._alone("get_play"):  # the grid checked and changed by this thread alone
            return self._play(card, seconds_left)

    def _play(self, card: Card, seconds_left: float) -> tuple[int, int]:
        """:meth:`get_play`'s move, this player held."""
        if not is_card_id(card):
            raise IllegalPlacementError(f"the card to place is a card id 0..51, got {_one_line(card)}")
        card = int(card)
        if not (self.grid == EMPTY).any():
            raise IllegalPlacementError("the grid is full: call start_game() before the next game's first card")
        if card in self.grid:
            raise IllegalPlacementError(f"{card_name(card)} is already on this game's grid")
        if not is_seconds(seconds_left):
            raise PokerSquaresError(f"seconds_left is a number of seconds, got {_one_line(seconds_left)}")
        answer = self.choose(self.grid, card, seconds_left)
        # The answer as choose gave it: 3.9, "3" or True are malformed, not cell 3 or 1.
        if not is_integer(answer) or not 0 <= answer < NUM_CELLS:
            raise MalformedAnswerError(f"choose must answer a cell index 0..24 (an integer), got {answer!r}")
        cell = int(answer)
        if self.grid[cell] != EMPTY:  # the game refuses it; this grid keeps its card
            raise OccupiedCellError(f"choose answered cell {cell} (row {cell // 5}, column {cell % 5}), which holds "
                                    f"{card_name(int(self.grid[cell]))}")
        self.grid[cell] = card
        return cell_of(cell)

    def choose(self, grid: np.ndarray, card: Card, seconds_left: float) -> int:
        raise NotImplementedError

    def checked_position(self, grid, card, method: str = "choose") -> tuple[np.ndarray, int]:
        """What ``choose`` or ``cell_values`` (``method``) is given, checked once a call:
        the grid as a writable contiguous ``int8[25]`` array of distinct card ids and -1
        with an empty cell, the card in hand an int not on it
        (:func:`~pokersquares.evaluators.base.checked_position`); called before
        ``set_point_system`` or on what is not such a position, a PokerSquaresError."""
        if self.point_system is None:
            raise PokerSquaresError(f"{self.name}: call set_point_system(point_system, budget_s) before {method}")
        from ..evaluators.base import checked_position
        return checked_position(grid, card)

    def cell_values(self, grid: np.ndarray, card: Card, seconds: float) -> np.ndarray | None:
        """Estimated final score for placing ``card`` in each cell (NaN where occupied),
        or None when the player cannot say. Used for advice in the web app."""
        return None

    def advice(self, grid: np.ndarray, card: Card, seconds: float) -> tuple[int | None, np.ndarray | None]:
        """The cell the player would play here, if it can say from the same thinking, and
        its :meth:`cell_values`. A searcher's move need not be the best of its values
        (sequential halving keeps a cell it dropped early at the mean of fewer
        playouts): the web app's coach advises the move, not the best number."""
        return None, self.cell_values(grid, card, seconds)
