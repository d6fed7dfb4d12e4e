"""TD search: learn from the games that can follow this position, then let another search decide.

Silver, Sutton and Müller (2012, "Temporal-difference search in computer Go") learn a
value function by temporal differences on games simulated from the current position,
so that its weights fit the positions that can still arise rather than all positions
of all games. Here: before each move, a copy of the evaluator's residual weights
(:meth:`~pokersquares.evaluators.td.TdEvaluator.adapted_copy`) is learned further by
TD(lambda) on ``episodes`` games that place the card in hand and then the undealt cards,
dealt in a fresh random order, by the greedy policy on the copy
(:func:`pokersquares.kernels.td.learn_from`); the inner search (greedy, or the
champion's :class:`~pokersquares.search.halving.CrnHalving`) then decides on the copy,
and the copy is dropped. The evaluator's own weights never change.

The games run on ``cores`` threads into the one copy (lock-free, as the preparation's
learning does), in batches, until ``episodes`` or ``time_share`` of the move's
budget is spent, whichever comes first; the inner search gets the rest of the budget.
An evaluator that cannot learn this way (no ``adapted_copy``) goes to the inner
search unchanged.
"""

from __future__ import annotations

import math
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..cards import is_integer, is_seconds
from ..errors import PokerSquaresError
from ..evaluators.base import MAX_THREADS
from ..game import EMPTY
from .base import GreedySearch, Search, SearchOptionError, checked_decision, round_seed

__all__ = ["TdSearch", "episodes_option"]


def episodes_option(value) -> int:
    """A player's ``tdsearch=N`` option, checked: games a move, 0 for off."""
    # Below 2**63: a count the kernels take as int64 (a larger one reached them unchecked from ``pretrained``).
    if not is_integer(value) or not 0 <= value < 2 ** 63:
        raise PokerSquaresError(f"tdsearch must be a whole number of games a move (0: off), got {value!r}")
    return int(value)


SLACK = 0.25  # the share of the learning time left that one batch is planned to take


class TdSearch(Search):
    """TD search before ``inner`` decides.

    ``episodes``: simulated games a move (at most); ``alpha``: the step, shared among a
    state's active features (the preparation's constant step, 0.01); ``lam``: TD's
    lambda; ``time_share``: the most of a move's budget the learning may take;
    ``cores``: threads learning into the copy. With no clock (``time_s=inf``) it learns
    ``episodes`` games, and takes that time only where ``inner`` does. A batch the clock
    made smaller than ``episodes`` alone sizes it (other games, on other seeds, than with
    no clock), or an inner search the clock cut short, sets :attr:`~.base.Search.cut_short`.
    """

    name = "td_search"

    def __init__(self, inner: Search | None = None, episodes: int = 1000, alpha: float = 0.01, lam: float = 0.5,
                 cores: int = 2, time_share: float = 0.5) -> None:
        # Types too: a NaN alpha passed every comparison, a fractional count reached range().
        if (not is_integer(episodes) or not 0 <= episodes < 2 ** 63 or not is_seconds(alpha) or not 0 <= alpha < math.inf
                or not is_seconds(lam) or not 0 <= lam <= 1 or not is_integer(cores) or not 1 <= cores <= MAX_THREADS
                or not is_seconds(time_share) or not 0 < time_share <= 1):
            raise SearchOptionError(f"TdSearch needs a whole number of episodes >= 0, a finite alpha >= 0, "
                                    f"0 <= lam <= 1, a whole number of cores 1..{MAX_THREADS}, 0 < time_share <= 1; "
                                    f"got episodes={episodes!r}, alpha={alpha!r}, lam={lam!r}, cores={cores!r}, "
                                    f"time_share={time_share!r}")
        episodes, cores = int(episodes), int(cores)
        self.inner = inner if inner is not None else GreedySearch()
        self.episodes = episodes
        self.alpha = alpha
        self.lam = lam
        self.cores = max(cores, getattr(self.inner, "cores", 1))
        self.time_share = time_share
        self.min_search_s = getattr(self.inner, "min_search_s", 0.0)
        self.compile_s = getattr(self.inner, "compile_s", 0.0)
        self.episode_s = 1e-4     # seconds per simulated game, learned as it goes
        self._pool: ThreadPoolExecutor | None = None
        self.last: dict = {}

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_pool"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._pool = None

    def needs_clock(self) -> str | None:
        # Its learning is bounded by ``episodes``; the rest of the time is the inner search's.
        needs = getattr(self.inner, "needs_clock", None)
        return needs() if needs is not None else None

    def adapt(self, evaluator, grid: np.ndarray, card: int, time_s: float, seed: int):
        """The evaluator's adapted copy after this move's learning (or the evaluator
        itself when it cannot learn so, or no game is left to learn from); sets
        :attr:`cut_short` when the clock made a batch smaller."""
        empty = int(np.count_nonzero(grid == EMPTY))
        self.last = {"episodes": 0, "learn_s": 0.0}
        self.cut_short = False
        if self.episodes == 0 or empty < 2 or not hasattr(evaluator, "adapted_copy"):
            return evaluator
        start = time.perf_counter()
        deadline = start + self.time_share * time_s
        local = evaluator.adapted_copy()
        threads = self.cores
        if threads > 1 and self._pool is None:
            self._pool = ThreadPoolExecutor(threads)
        done = 0
        batch = 16
        round_ = 0
        while done < self.episodes:
            left = deadline - time.perf_counter()
            # A batch a thread, sized to take a quarter of the time left at the speed
            # measured so far: a machine that turns three times slower mid-move (other
            # work starting beside it) still ends the batch before the deadline.
            fits = SLACK * left * threads / self.episode_s
            self.cut_short |= fits < min(self.episodes - done, batch * threads)
            n = int(min(self.episodes - done, batch * threads, fits))  # whole once capped: with no clock, fits is inf
            if n < threads:
                break
            shares = [n // threads + (t < n % threads) for t in range(threads)]
            seeds = [round_seed(seed, round_, t) for t in range(threads)]
            t0 = time.perf_counter()
            if threads == 1:
                local.learn_from(grid, card, shares[0], seeds[0], self.alpha, self.lam)
            else:
                assert self._pool is not None  # made above for threads > 1
                list(self._pool.map(lambda t: local.learn_from(grid, card, shares[t], seeds[t], self.alpha, self.lam),
                                    range(threads)))
            dt = time.perf_counter() - t0
            self.episode_s = max(1e-7, dt * threads / n)
            done += n
            round_ += 1
            batch = min(4 * batch, 1024)
        self.last = {"episodes": done, "learn_s": time.perf_counter() - start}
        return local

    def choose(self, evaluator, grid, card, points, time_s, seed):
        start = time.perf_counter()
        grid, card, points = checked_decision(evaluator, grid, card, points, time_s, seed, self)
        local = self.adapt(evaluator, grid, card, time_s, seed)
        learned = self.last
        cell, values = self.inner.choose(local, grid, card, points, max(0.0, time_s - (time.perf_counter() - start)),
                                         seed)
        inner_last = getattr(self.inner, "last", {})
        self.last = {**(inner_last if isinstance(inner_last, dict) else {}), **learned}
        self.cut_short |= bool(getattr(self.inner, "cut_short", False))
        return cell, values
