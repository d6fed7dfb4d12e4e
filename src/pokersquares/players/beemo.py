"""BeeMo (winner of the 2016 contest) and its optimized greedy player.

``beemo``: flat Monte Carlo over OG playouts on learned hand-pattern utilities
(Castro-Wunsch, Maga and Anton 2016); ``og``: OG alone. Both learn in the
preprocessing budget, or load a table saved by ``pokersquares train``::

    pokersquares train --player beemo --system american --prep-time 300 --out american.json
    pokersquares run --player beemo:load=american.json --system american --games 100
"""

from __future__ import annotations

import time

import numpy as np

from ..bench import register_benchmark
from ..evaluators.patterns import PatternEvaluator
from .catalog import register_player
from ..search.base import GreedySearch
from ..search.flat_mc import FlatMonteCarlo
from .composed import SearchPlayer

__all__ = ["beemo", "og"]


def _evaluator(load, learning) -> PatternEvaluator:
    return PatternEvaluator(load=load, **learning)


class ReservePlayer(SearchPlayer):
    """A ``SearchPlayer`` that never plans with the last ``reserve`` share of its game
    clock: on a busy machine a search batch can stall, and one stall at the end of
    a game must not cost the whole game (the harness scores a timeout as a penalty)."""

    def __init__(self, *args, reserve: float = 0.08, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.reserve = reserve
        self._clock: float | None = None

    def start_game(self) -> None:
        super().start_game()
        self._clock = None

    def _seconds_left(self, seconds_left: float, empty: int) -> float:
        if self._clock is None:
            self._clock = seconds_left
        return max(0.0, super()._seconds_left(seconds_left, empty) - self.reserve * self._clock)


@register_player("beemo", "BeeMo (2016 winner): flat Monte Carlo over optimized-greedy playouts on learned "
                 "hand patterns; beemo:load=FILE uses a trained table, playouts=N caps playouts per cell",
                 cores=2)
def beemo(load: str | None = None, playouts: int | None = None, time_per_game: float | None = None,
          cores: int = 2, **learning) -> SearchPlayer:
    """``learning`` takes the options of ``PatternEvaluator`` (train_games, eval_games,
    ucb_every, ucb_c, feedback, carry)."""
    return ReservePlayer(_evaluator(load, learning), FlatMonteCarlo(playouts=playouts, cores=cores),
                         name="beemo", time_per_game=time_per_game)


@register_player("og", "BeeMo's optimized greedy on learned hand patterns, no search; og:load=FILE "
                 "uses a trained table", cores=1)
def og(load: str | None = None, **learning) -> SearchPlayer:
    return SearchPlayer(_evaluator(load, learning), GreedySearch(), name="og")


og.version = "3"  # 2: values are summed line utilities (evaluator contract), not gains; 3: the small-budget guard


_BENCH_UTILITIES: np.ndarray | None = None


@register_benchmark("greedy_pattern_games_per_s")
def _greedy_pattern_games(scale: float) -> float:
    """Complete OG games per second on one core, on utilities from one training phase."""
    global _BENCH_UTILITIES
    from ..kernels import patterns as kp
    from ..points import AMERICAN

    points = np.array(AMERICAN.points, dtype=np.int64)
    if _BENCH_UTILITIES is None:
        u = np.zeros(kp.NUM_PATTERNS)
        kp.train_games(u, np.zeros(kp.NUM_PATTERNS, dtype=np.int64), u, points, 5000, 1, 0, 0.0, 0)
        _BENCH_UTILITIES = u
    n = max(1000, int(300_000 * scale))
    t = time.perf_counter()
    kp.og_games(_BENCH_UTILITIES, points, n, 12345)
    return n / (time.perf_counter() - t)
