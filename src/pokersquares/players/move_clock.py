"""How a player shares its game's clock among its moves: one mechanism for every player.

The harness tells a player the seconds left in its game at each move; a
:class:`MoveClock` turns that into the seconds for the move at hand:

- the time left, less a *reserve* (a share of the whole game's clock, kept to the
  last move), is shared evenly among the moves still to be searched;
- for each of those moves it also keeps back the recent *overshoot*: how far past
  its budget a move ended (a search stops between batches, and a busy machine can
  stall one), decaying when moves end on time;
- no move gets more than three even shares of the game's clock, because a long
  round cannot be stopped part way, and searches that stop early on clear moves
  would otherwise hand one late move most of the game;
- ``time_per_game`` caps the clock below the harness's (to run many games in an
  hour): it counts what this game's moves actually took, so overshoots are paid back;
- with ``learn_usage``, the clock learns what share of its budget each move of a
  game takes (by moves still to search: a search that stops early on a clear move, or
  an exact end game, takes a fraction) and plans with it: a move's budget is the time
  left over the *expected* use of the moves to come, so the time clear moves leave
  goes to the close ones instead of being left on the clock at the end (at 30 s a
  game the champion's even shares used 13.4 s).

``seconds_left=inf`` is a game with no clock: the clock is then ``time_per_game``
alone, and a player without a finite one refuses it (a PokerSquaresError naming
``time_per_game``): the searches stop on their clock, so an infinite one handed on
searched for ever, and a clock whose reserve was infinite played the game unsearched.

A budget too small to search is returned as ``0.0``; the player then plays its
evaluator's greedy move (and counts it as a fallback move). "Too small" is the
overshoot floor, or below the search's own ``min_search_s``: a tree search of a
few milliseconds samples each child a handful of times and plays worse than a
learned evaluator's greedy move (docs/results.md, small budgets).
"""

from __future__ import annotations

import math
import time

from ..cards import is_seconds
from ..errors import PokerSquaresError

__all__ = ["MoveClock"]

# Searches stop between batches; the smallest overshoot kept back per move to come
# (the champion's, measured on a loaded machine; docs/results.md, champion v4).
OVERSHOOT_FLOOR_S = 0.005
# When moves end on time the overshoot kept back shrinks by this factor per move, and
# a new game starts from half of it: one slow move (a busy machine, a first call that
# loaded numba) should cost its game a margin, not every move and game after it a search.
OVERSHOOT_DECAY = 0.9
OVERSHOOT_CARRY = 0.5
# The most a move may take, in even shares of the game's clock.
MAX_SHARES = 3.0
# learn_usage: a move's observed share of its budget moves the one learned for its
# place in the game by this much (the rest is what earlier games taught), and no place
# is planned below USAGE_FLOOR of its budget, so that a run of moves that all need
# their budget cannot starve the last of them.
USAGE_RATE = 0.3
USAGE_FLOOR = 0.2


class MoveClock:
    """Seconds for each move of a game, from the seconds left in it.

    ``reserve``: the share of the game's clock never planned for (overheads outside
    the search, moves played by rule, the scheduler on a busy machine), at most
    ``reserve_max_s`` seconds; ``time_per_game``: a cap on the game's clock below the
    harness's. Call :meth:`start_game` before each game, :meth:`budget` when a move
    is to be searched and :meth:`move_done` when it has been.
    """

    def __init__(self, reserve: float = 0.08, reserve_max_s: float = math.inf,
                 time_per_game: float | None = None, learn_usage: bool = False) -> None:
        if not 0 <= reserve < 1 or reserve_max_s < 0:
            raise ValueError("MoveClock needs 0 <= reserve < 1 and reserve_max_s >= 0")
        if time_per_game is not None and not (is_seconds(time_per_game) and time_per_game > 0):
            # "5", 0, -5 or NaN would fail at the first move or play every move unsearched
            raise PokerSquaresError(f"time_per_game is seconds > 0 (or None: the harness's clock), got {time_per_game!r}")
        self.reserve = reserve
        self.reserve_max_s = reserve_max_s
        self.time_per_game = time_per_game
        self.overshoot_s = OVERSHOOT_FLOOR_S
        self.learn_usage = learn_usage
        # The share of its budget a move takes, by the moves still to search when it is
        # asked for (index 1: the last searched move); 1 until a game has taught it.
        self.usage = [1.0] * 26
        self.start_game()

    def start_game(self) -> None:
        self.game_s: float | None = None  # the game's clock at its first planned move
        self.share_s = 0.0                # one even share of it
        self.spent_s = 0.0                # what this game's searched moves took
        self.overshoot_s = max(OVERSHOOT_FLOOR_S, OVERSHOOT_CARRY * self.overshoot_s)
        self._move_start: float | None = None
        self._budget = 0.0
        self._moves = 0

    def planned_moves(self, moves: int) -> float:
        """What the ``moves`` still to search are expected to take, in budgets: ``moves``
        itself unless ``learn_usage``, else the sum of their learned shares."""
        if not self.learn_usage:
            return float(moves)
        return sum(max(USAGE_FLOOR, u) for u in self.usage[1:min(moves, 25) + 1]) + max(0, moves - 25)

    def reserve_s(self) -> float:
        """Seconds of this game's clock never planned for."""
        return min(self.reserve * (self.game_s or 0.0), self.reserve_max_s)

    def capped(self, seconds_left: float) -> float:
        """The game's seconds left, under ``time_per_game`` less what this game's searched
        moves took, where that cap is set: finite, or a PokerSquaresError (``inf`` with no
        finite ``time_per_game``: a game with no clock and no time of the player's own;
        NaN). Negative is a game past its time (every budget 0)."""
        if not is_seconds(seconds_left):
            raise PokerSquaresError(f"seconds_left is a number of seconds, got {seconds_left!r}")
        left = seconds_left if self.time_per_game is None else min(seconds_left, self.time_per_game - self.spent_s)
        if left == math.inf:
            raise PokerSquaresError("seconds_left is inf, a game with no clock: give the player a finite "
                                    "time_per_game (the seconds it may take a game) to play one")
        return left

    def budget(self, seconds_left: float, moves: int, min_search_s: float = 0.0) -> float:
        """Seconds for this move, ``moves`` being the moves still to search, this one
        included; ``0.0`` when that is too little to search: at most the overshoot
        floor, or below ``min_search_s``, the least time in which the caller's search
        plays better than its evaluator's greedy move."""
        self._move_start = time.perf_counter()
        if moves < 1:
            raise ValueError("moves must be at least 1")
        seconds_left = self.capped(seconds_left)
        if self.game_s is None:
            self.game_s = max(0.0, seconds_left)
            self.share_s = self.game_s / moves
        budget = (seconds_left - self.reserve_s() - self.overshoot_s * moves) / self.planned_moves(moves)
        budget = min(budget, MAX_SHARES * self.share_s)
        if budget <= OVERSHOOT_FLOOR_S or budget < min_search_s:
            # Not worth a search: a move ends about that far past any budget, or the
            # search would play worse than the greedy move. The greedy move is on
            # time, so the overshoot kept back decays.
            self.overshoot_s = max(OVERSHOOT_FLOOR_S, OVERSHOOT_DECAY * self.overshoot_s)
            self._move_start = None
            return 0.0
        self._budget = budget
        self._moves = moves
        return budget

    def move_done(self) -> None:
        """The move :meth:`budget` was asked for has been chosen: learn how long it took."""
        if self._move_start is None:
            raise RuntimeError("move_done without a budget to search")
        took = time.perf_counter() - self._move_start
        self._move_start = None
        self.spent_s += took
        self.overshoot_s = max(OVERSHOOT_FLOOR_S, took - self._budget, OVERSHOOT_DECAY * self.overshoot_s)
        if self.learn_usage and self._moves <= 25:
            share = min(1.0, took / self._budget)
            self.usage[self._moves] += USAGE_RATE * (share - self.usage[self._moves])
