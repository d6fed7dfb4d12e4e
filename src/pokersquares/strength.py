"""Playing strength as a deterministic benchmark: fixed work, not time.

Each agent is an evaluator prepared by a fixed amount of learning (rounds, games,
calibration games, all seeded) and a search with a fixed amount of work per move
(playouts, iterations, pulls; expectimax searches every cell), played on the
contest's deals of seeds ``0..games-1`` of the American system. Nothing reads a
clock, so a figure changes only when the code does (or the machine's floating
point). Each figure comes with its standard error: the noise of a mean over that
many deals, which is how far a change of the code may move it by chance alone.

``pokersquares bench --strength`` runs it and compares with the expected figures
stored in ``benchmarks/strength_expected.json``: a figure more than two standard
errors below its expectation is flagged (``--update`` writes the figures measured
as the new expectations). The agents are the 2016 winners' compositions at small
fixed work, plus ``hybrid`` over patterns with expectimax (the evaluator contract's
case): see ``AGENTS``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from . import progress as preparation  # ``progress`` is run_strength's parameter
from .bench import BenchError, UnknownBenchmarkError
from .cards import as_sequence, deal
from .evaluators.base import Evaluator
from .game import EMPTY
from .kernels.core import score_grid
from .points import AMERICAN
from .search.base import GreedySearch, Search

__all__ = ["AGENTS", "StrengthAgent", "play", "play_deal", "run_strength", "compare", "EXPECTED_PATH"]

EXPECTED_PATH = Path("benchmarks") / "strength_expected.json"
FALL_WARNING_SE = 2.0  # flag a figure this many standard errors below its expectation
COMMON_DEALS = 100  # every agent plays at least the deals of seeds 0..99


def _patterns(points: np.ndarray) -> Evaluator:
    """Pattern utilities from 10 learning rounds of 5,000 + 5,000 games, one thread."""
    from .evaluators.patterns import PatternEvaluator, learn_utilities

    ev = PatternEvaluator()
    ev.points = points
    ev.utilities, ev.counts, ev.report = learn_utilities(points, 1e9, 0, max_rounds=10, threads=1)
    return ev


def _narl(points: np.ndarray) -> Evaluator:
    """NARL's table from 50,000 learning games (the paper's schedule), one thread."""
    from .evaluators.narl import NarlEvaluator

    ev = NarlEvaluator(games=50_000, threads=1)
    ev.prepare(points, 0.0, 0)
    return ev


def _possibility(points: np.ndarray) -> Evaluator:
    """Tiger's tuned heuristic, calibrated by its fixed 1,000 games."""
    from .evaluators.possibility import PossibilityEvaluator

    ev = PossibilityEvaluator()
    ev.prepare(points, 1e9, 0)
    return ev


def _flat_mc() -> Search:
    from .search.flat_mc import FlatMonteCarlo
    return FlatMonteCarlo(playouts=20, cores=1)


def _expectimax() -> Search:
    from .search.expectimax import Expectimax
    return Expectimax()


def _mcts() -> Search:
    from .search.mcts import MCTS
    return MCTS("prune", "best", iterations=150)


@dataclass(frozen=True)
class StrengthAgent:
    name: str
    evaluator: Callable[[np.ndarray], Evaluator]
    search: Callable[[], Search]
    games: int


AGENTS = (
    StrengthAgent("og", _patterns, GreedySearch, 2000),
    StrengthAgent("beemo", _patterns, _flat_mc, 100),
    StrengthAgent("gettysburg", _narl, _expectimax, 300),
    StrengthAgent("tiger", _possibility, _mcts, 100),
    StrengthAgent("hybrid:evaluator=patterns,search=expectimax", _patterns, _expectimax, 100),
)


def play_deal(choose: Callable[[np.ndarray, int, int], int], points: np.ndarray, seed: int) -> int:
    """One game on the deal of ``seed``: the first card to a corner, the last to the
    one empty cell, every other move to ``choose(grid, card, move)`` (a copy of the grid)."""
    grid = np.full(25, EMPTY, dtype=np.int8)
    for move, card in enumerate(deal(seed)[:25]):
        empty = np.flatnonzero(grid == EMPTY)
        if move == 0 or len(empty) == 1:
            cell = int(empty[0])
        else:
            cell = int(choose(grid.copy(), int(card), move))
        grid[cell] = card
    return int(score_grid(grid, points))


def play(evaluator: Evaluator, search: Search, points: np.ndarray, seed: int) -> int:
    """:func:`play_deal` with every move by ``search`` with unlimited time (fixed-work
    searches ignore it; expectimax then searches every cell)."""
    return play_deal(lambda grid, card, move: search.choose(evaluator, grid, card, points, 1e9, seed * 31 + move)[0],
                     points, seed)


def run_strength(names: list[str] | None = None, progress: Callable[[str], None] | None = None) -> dict:
    """Each agent's mean ± standard error on its fixed deals: ``{name: {...}}``."""
    points = np.array(AMERICAN.points, dtype=np.int64)
    if names is not None:
        # A name as text would be read letter by letter ("og" as "o" and "g").
        names = as_sequence(names, "the agents' names", BenchError)
        for name in names:
            if not isinstance(name, str):
                raise BenchError(f"an agent's name is text, got {name!r}")
    agents = [a for a in AGENTS if names is None or a.name in names]
    unknown = set(names or ()) - {a.name for a in AGENTS}
    if unknown:
        raise UnknownBenchmarkError(f"unknown agent {sorted(unknown)[0]!r}; known: {', '.join(a.name for a in AGENTS)}")
    evaluators: dict = {}
    out = {}
    for agent in agents:
        t = time.perf_counter()
        if agent.evaluator not in evaluators:
            subject = f"preparing {agent.name}"  # whose learning the progress line shows, ended before its result
            with preparation.listening(preparation.with_subject(subject)):
                evaluators[agent.evaluator] = agent.evaluator(points)
            preparation.report("done", subject=subject, force=True)
        ev, search = evaluators[agent.evaluator], agent.search()
        scores = np.array([play(ev, search, points, seed) for seed in range(agent.games)])
        mean, se = float(scores.mean()), float(scores.std(ddof=1) / np.sqrt(len(scores)))
        out[agent.name] = {"mean": round(mean, 3), "se": round(se, 3),
                           "games": agent.games, "seconds": round(time.perf_counter() - t, 1)}
        if agent.games > COMMON_DEALS:  # on the deals every agent plays, to compare agents paired
            out[agent.name]["mean_first_100"] = round(float(scores[:COMMON_DEALS].mean()), 3)
        if progress:
            # From the figures, not from their three decimals: 115.0055 is 115.01, not 115.00.
            progress(f"{agent.name}: {mean:.2f} ± {se:.2f} "
                     f"({agent.games} games, {out[agent.name]['seconds']} s)")
    return out


def compare(measured: dict, expected: dict) -> list[str]:
    """Warnings for figures more than ``FALL_WARNING_SE`` standard errors below their
    expectation (the expectation's own standard error)."""
    warnings = []
    for name, figure in measured.items():
        want = expected.get(name)
        if want is None:
            continue
        fall = want["mean"] - figure["mean"]
        if fall > FALL_WARNING_SE * want["se"]:
            warnings.append(f"{name}: {figure['mean']:.2f} is {fall:.2f} below its expected {want['mean']:.2f} "
                            f"(more than {FALL_WARNING_SE:g} standard errors of {want['se']:.2f})")
    return warnings


def read_expected(path: Path = EXPECTED_PATH) -> dict:
    return json.loads(Path(path).read_text()) if Path(path).exists() else {}
