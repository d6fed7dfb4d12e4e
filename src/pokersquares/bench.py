"""Speed benchmarks: each returns a dict of figures, and ``run_benchmarks`` the
median over several repeats. ``pokersquares bench`` and ``benchmarks/`` print them
as JSON. Throughputs are for one core unless a name says otherwise."""

from __future__ import annotations

import statistics
import time
from typing import Callable

import numpy as np

from .cards import as_sequence, is_seconds
from .errors import PokerSquaresError
from .points import AMERICAN

__all__ = ["BENCHMARKS", "MAX_REPEATS", "MAX_SCALE", "BenchError", "UnknownBenchmarkError", "register_benchmark",
           "run_benchmarks"]

BENCHMARKS: dict[str, Callable[[float], float]] = {}
MAX_REPEATS = 1000  # repeats of one figure: beyond it a typo, not a measurement
MAX_SCALE = 1000.0  # the work of one figure, times its full size: beyond it hours, a typo (as --scale)


class BenchError(PokerSquaresError):
    """A benchmark request that cannot be run (a repeat count or scale out of range, names
    that are not a list of names)."""


class UnknownBenchmarkError(PokerSquaresError):
    """A benchmark or strength agent of no such name (not a BenchError: the command line
    reports it against --only)."""


def register_benchmark(name: str):
    """Register ``fn(scale) -> figure``; ``scale`` shrinks the work for a quick run."""
    def wrap(fn):
        BENCHMARKS[name] = fn
        return fn
    return wrap


def _points() -> np.ndarray:
    return np.array(AMERICAN.points, dtype=np.int64)


@register_benchmark("random_games_per_s")
def _random_games(scale: float) -> float:
    from .kernels import random_games
    n = max(1000, int(2_000_000 * scale))
    t = time.perf_counter()
    random_games(n, 12345, _points())
    return n / (time.perf_counter() - t)


@register_benchmark("random_games_per_s_all_cores")
def _random_games_parallel(scale: float) -> float:
    from .kernels import random_games_parallel
    from .machine import usable_cores
    n = max(1000, int(4_000_000 * scale))
    t = time.perf_counter()
    random_games_parallel(n, 12345, _points(), usable_cores())
    return n / (time.perf_counter() - t)


_HANDS: np.ndarray | None = None


@register_benchmark("hand_classifications_per_s")
def _classifications(scale: float) -> float:
    global _HANDS
    from .kernels import classify_batch
    n = max(10_000, int(2_000_000 * scale))
    if _HANDS is None or len(_HANDS) != n:
        rng = np.random.default_rng(1)
        _HANDS = np.argsort(rng.random((n, 52)), axis=1)[:, :5].astype(np.int8)
    t = time.perf_counter()
    classify_batch(_HANDS)
    return n / (time.perf_counter() - t)


def run_benchmarks(names: list[str] | None = None, repeats: int = 5, scale: float = 1.0) -> dict:
    """Warm each benchmark once (compilation), then report the median of ``repeats``."""
    import importlib

    if isinstance(repeats, bool) or not isinstance(repeats, int) or not 1 <= repeats <= MAX_REPEATS:
        raise BenchError(f"--repeats must be from 1 to {MAX_REPEATS:,}, got {repeats}")

    # A figure's work is its full size times scale: 0 still measures (each has a floor of work).
    if not is_seconds(scale) or not 0 <= scale <= MAX_SCALE:
        raise BenchError(f"the scale of the work is a number from 0 to {MAX_SCALE:g}, got {scale!r}")
    if names is not None:
        # A name as text would be read letter by letter.
        names = as_sequence(names, "the benchmarks' names", BenchError)
        for name in names:
            if not isinstance(name, str):
                raise BenchError(f"a benchmark's name is text, got {name!r}")

    importlib.import_module("pokersquares.players")  # agents register their benchmarks
    chosen = names or list(BENCHMARKS)
    unknown = [n for n in chosen if n not in BENCHMARKS]
    if unknown:
        raise UnknownBenchmarkError(f"unknown benchmark {unknown[0]!r}; known: {', '.join(BENCHMARKS)}")
    out: dict = {}
    for name in chosen:
        fn = BENCHMARKS[name]
        fn(min(scale, 0.01))
        out[name] = round(statistics.median(fn(scale) for _ in range(repeats)), 1)
    out["repeats"] = repeats
    return out
