"""BeeMo (winner of the 2016 contest) and its optimized greedy player.

``beemo``: flat Monte Carlo over OG playouts on learned hand-pattern utilities
(Castro-Wunsch, Maga and Anton 2016); ``og``: OG alone. Both learn in the
preprocessing budget, or load a table saved by ``pokersquares train``::

    pokersquares train --player beemo --system american --prep-time 300 --out american.json
    pokersquares run --player beemo:load=american.json --system american --games 100
"""

from __future__ import annotations

import inspect
import time

import numpy as np

from ..bench import register_benchmark
from ..evaluators.patterns import PatternEvaluator
from .catalog import register_player
from ..search.base import GreedySearch
from ..search.flat_mc import FlatMonteCarlo
from .composed import SearchPlayer

__all__ = ["beemo", "og"]


_LEARNING = ("train_games", "eval_games", "ucb_every", "ucb_c", "feedback", "carry", "known_complete", "paired",
             "learn_threads")  # PatternEvaluator's learning options, as beemo and og take them


_LEARN_THREADS = inspect.signature(PatternEvaluator).parameters["learn_threads"].default


def _learn_threads(params: dict) -> int:
    """The threads a preparation learns on (harness.spec.prep_cores): learn_threads, else
    PatternEvaluator's default (a game of og plays on one core, of beemo on cores=)."""
    given = params.get("learn_threads")
    return _LEARN_THREADS if given is None else given


def _evaluator(load, learning: dict) -> PatternEvaluator:
    """The pattern evaluator with the learning options a spec gave (None: its default)."""
    return PatternEvaluator(load=load, **{k: v for k, v in learning.items() if v is not None})


@register_player("beemo", "BeeMo (2016 winner): flat Monte Carlo over optimized-greedy playouts on learned "
                 "hand patterns; beemo:load=FILE uses a trained table, playouts=N caps playouts per cell",
                 cores=2)
def beemo(load: str | None = None, playouts: int | None = None, time_per_game: float | None = None,
          cores: int = 2, train_games: int | None = None, eval_games: int | None = None,
          ucb_every: int | None = None, ucb_c: float | None = None, feedback: bool | None = None,
          carry: bool | None = None, known_complete: bool | None = None, paired: bool | None = None,
          learn_threads: int | None = None) -> SearchPlayer:
    """The learning options are ``PatternEvaluator``'s (left out: its defaults)."""
    learning = {k: v for k, v in locals().items() if k in _LEARNING}
    return SearchPlayer(_evaluator(load, learning), FlatMonteCarlo(playouts=playouts, cores=cores),
                        name="beemo", time_per_game=time_per_game)


beemo.prep_threads = _learn_threads
beemo.version = "5"  # 5: below 0.2 s of preparation the greedy rule (no time to learn and check); 4: where the guard keeps the greedy rule, a Monte Carlo search over the rule; 3: the guard keeps the learned table unless it is 2 SE behind the greedy rule; 2: the shared MoveClock (was: 8% of the game's clock and 10% of what was left kept back)


@register_player("og", "BeeMo's optimized greedy on learned hand patterns, no search; og:load=FILE "
                 "uses a trained table", cores=1)
def og(load: str | None = None, train_games: int | None = None, eval_games: int | None = None,
       ucb_every: int | None = None, ucb_c: float | None = None, feedback: bool | None = None,
       carry: bool | None = None, known_complete: bool | None = None, paired: bool | None = None,
       learn_threads: int | None = None) -> SearchPlayer:
    """OG alone; the learning options as :func:`beemo`'s."""
    learning = {k: v for k, v in locals().items() if k in _LEARNING}
    return SearchPlayer(_evaluator(load, learning), GreedySearch(), name="og")


og.prep_threads = _learn_threads
og.version = "6"  # 6: below 0.2 s of preparation the greedy rule (no time to learn and check); 5: the guard keeps the learned table unless it is 2 SE behind the greedy rule; 4: the shared MoveClock; 2: values are summed line utilities (evaluator contract), not gains; 3: the small-budget guard


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
