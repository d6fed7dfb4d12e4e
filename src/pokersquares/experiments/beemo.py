"""Reproduce BeeMo's published figures (Castro-Wunsch, Maga and Anton 2016; Neller et
al. 2016, section 5) with our implementation.

Rows, each with the paper's figure beside ours (mean, standard error, games):

* OG with learned utilities, American (paper: OG 119 on crafted utilities);
* flat Monte Carlo + OG, American, 100 playouts per cell (paper: 125.3, crafted);
* learning with and without the feedback loop (the paper's Table ii), and training
  games played greedily ("Flat MC") or all by UCB1 (Table iii), plus BeeMo's own mix
  (one game in three by UCB1), on American, British, High Card and Hypercorner.

The tables' captions are swapped in the paper's text; rows here follow its prose
("Table ii" compares feedback, "Table iii" Flat MC and UCB1). The paper's "Custom"
system is not published, and its "High Card" scores (up to 89.9) exceed what the
contest's single-hand High Card system allows (10), so its High Card system was
another one; ours is the contest's. Our Hypercorner is the contest's (seed 34412016).

Games are the contest deals ``deal(seed + i)``, so figures compare with harness
runs. Every row is a plain dict (``Row``), ready to be recorded in a result store.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from typing import Callable

import numpy as np

from ..cards import deal
from ..evaluators.patterns import (
    LearningReport, PatternEvaluator, PatternFileError, learn_utilities, read_utilities,
)
from ..game import Grid
from ..kernels import patterns as kp
from ..points import AMERICAN, BRITISH, PointSystem, contest_systems, single_hand_system
from ..search.flat_mc import FlatMonteCarlo
from ..players.composed import SearchPlayer

__all__ = ["Row", "SYSTEMS", "LEARNING_CONFIGS", "PAPER", "og_score", "flat_mc_score", "run_beemo_experiment"]


def _hypercorner() -> PointSystem:
    return next(s for s in contest_systems() if s.name == "Hypercorner")


SYSTEMS: dict[str, Callable[[], PointSystem]] = {
    "american": lambda: AMERICAN,
    "british": lambda: BRITISH,
    "high_card": lambda: single_hand_system("high card"),
    "hypercorner": _hypercorner,
}

# name -> (learn_utilities options, the paper's column it reproduces)
LEARNING_CONFIGS: dict[str, tuple[dict, str]] = {
    "no_feedback": (dict(feedback=False, ucb_every=0), "Table ii, without feedback"),
    "feedback": (dict(feedback=True, ucb_every=0), "Table ii with feedback; Table iii Flat MC"),
    "ucb1": (dict(feedback=True, ucb_every=1), "Table iii, UCB1"),
    "beemo": (dict(feedback=True, ucb_every=3), "BeeMo's training: 1 game in 3 by UCB1"),
}

# The papers' figures: (system, what) -> figure. "flat" is Table iii's Flat MC
# column, "with" Table ii's with-feedback column; both are greedy training.
PAPER: dict[tuple[str, str], float | str] = {
    ("american", "no_feedback"): 93.7, ("american", "feedback"): "115.3 (ii) / 120.2 (iii)",
    ("american", "ucb1"): 121.5,
    ("british", "no_feedback"): 40.5, ("british", "feedback"): "43.4 (ii) / 47.8 (iii)",
    ("british", "ucb1"): 47.8,
    ("high_card", "no_feedback"): 8.9, ("high_card", "feedback"): "14.3 (ii) / 83.1 (iii)",
    ("high_card", "ucb1"): 89.9,
    ("hypercorner", "no_feedback"): -0.97, ("hypercorner", "feedback"): "-0.61 (ii) / -0.53 (iii)",
    ("hypercorner", "ucb1"): -0.63,
    ("american", "og"): "119 (crafted utilities); 115+ learned (Neller et al.)",
    ("american", "flat_mc"): "125.3 (crafted); 120 (learned)",
    ("patterns", "feedback"): "350 (iii)", ("patterns", "ucb1"): "352 (iii)",
}


@dataclass
class Row:
    """One figure: ours beside the paper's."""

    experiment: str
    what: str
    system: str
    points: list[int]
    paper: float | str | None
    mean: float
    stderr: float
    games: int
    details: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return asdict(self)


def _mean_se(scores: np.ndarray) -> tuple[float, float]:
    n = len(scores)
    sd = float(np.std(scores, ddof=1)) if n > 1 else 0.0
    return float(np.mean(scores)), sd / math.sqrt(n) if n else math.nan


def contest_deals(games: int, seed: int) -> np.ndarray:
    """``int8[games, 25]``: the first 25 cards of ``deal(seed + i)``."""
    return np.array([deal(seed + i)[:25] for i in range(games)], dtype=np.int8)


def og_score(utilities: np.ndarray, points: np.ndarray, games: int, seed: int) -> np.ndarray:
    """Scores of OG on the contest deals of ``seed .. seed + games - 1``."""
    return kp.og_games_from_deals(utilities, np.asarray(points, dtype=np.int64), contest_deals(games, seed), seed)


def flat_mc_score(evaluator: PatternEvaluator, point_system: PointSystem, games: int, seed: int,
                  playouts: int | None = 100, seconds_per_move: float | None = None,
                  on_game: Callable[[int, int], None] | None = None) -> tuple[np.ndarray, dict]:
    """Scores of flat MC + OG (BeeMo's search) on the contest deals, in this process.
    ``playouts`` caps playouts per cell; ``seconds_per_move`` instead limits time."""
    search = FlatMonteCarlo(playouts=playouts)
    player = SearchPlayer(evaluator, search, name="beemo",
                          time_per_game=None if seconds_per_move is None else 23 * seconds_per_move)
    player.point_system = point_system
    player.points = np.array(point_system.points, dtype=np.int64)
    scores = np.empty(games, dtype=np.int64)
    t = time.perf_counter()
    cells_playouts = []
    for i in range(games):
        player.set_seed(seed + i)
        player.start_game()
        grid = [-1] * 25
        for card in deal(seed + i)[:25]:
            row, col = player.get_play(card, 30.0)
            grid[row * 5 + col] = card
            if search.last_playouts:
                cells_playouts.append(search.last_playouts)
                search.last_playouts = 0
        scores[i] = Grid(grid).score(point_system)
        if on_game is not None:
            on_game(i, int(scores[i]))
    seconds = time.perf_counter() - t
    return scores, {"seconds_per_game": seconds / max(1, games),
                    "median_playouts_per_cell": float(np.median(cells_playouts)) if cells_playouts else 0.0}


def run_beemo_experiment(prep_time: float = 300.0, games: int = 10_000, mc_games: int = 100,
                         playouts: int | None = 100, seconds_per_move: float | None = None,
                         systems: list[str] | None = None, configs: list[str] | None = None,
                         seed: int = 0, load: str | None = None, paired: bool = True, on_row: Callable[[Row], None] | None = None,
                         log: Callable[[str], None] | None = None) -> list[Row]:
    """Learn with each configuration on each system for ``prep_time`` seconds, score
    OG on ``games`` deals, and flat MC + OG (American, BeeMo's training) on
    ``mc_games``. ``load`` names a saved American table to use for BeeMo's own
    configuration instead of learning one. ``on_row`` sees each row as it is measured."""
    systems = systems or list(SYSTEMS)
    configs = configs or list(LEARNING_CONFIGS)
    rows: list[Row] = []
    log = log or (lambda _msg: None)

    def emit(row: Row) -> None:
        rows.append(row)
        if on_row is not None:
            on_row(row)

    for sys_key in systems:
        ps = SYSTEMS[sys_key]()
        points = np.array(ps.points, dtype=np.int64)
        for cfg in configs:
            options, column = LEARNING_CONFIGS[cfg]
            if load is not None and sys_key == "american" and cfg == "beemo":
                log(f"loading {load}")
                table = read_utilities(load)
                if table["points"] != points.tolist():
                    raise PatternFileError(f"{load} was trained for {table['points']}, not American")
                u, n = table["utilities"], table["counts"]
                training = table["training"]
                report = LearningReport(rounds=training.get("rounds", 0), games=training.get("games", 0),
                                        eval_mean=training.get("eval_mean"))
                learned_in = f"loaded from {load}"
            else:
                log(f"learning: {ps.name}, {cfg}, {prep_time:g} s")
                u, n, report = learn_utilities(points, prep_time, seed, **options)
                learned_in = f"learned in {prep_time:g} s (BeeMo's training)"
            scores = og_score(u, points, games, seed)
            mean, se = _mean_se(scores)
            seen = int((n > 0).sum())
            shapes = len(set((np.flatnonzero(n) & kp.SHAPE_MASK).tolist()))
            emit(Row("beemo", f"learning:{cfg}", ps.name, list(ps.points), PAPER.get((sys_key, cfg)), mean, se,
                     games, {"paper_column": column, "prep_time": prep_time, "rounds": report.rounds,
                             "learning_games": report.games, "eval_mean": report.eval_mean,
                             "patterns_seen": seen, "patterns_seen_without_context": shapes,
                             "paper_patterns_seen": PAPER.get(("patterns", cfg))}))
            if sys_key == "american" and cfg == "beemo":
                emit(Row("beemo", "og", ps.name, list(ps.points), PAPER[("american", "og")], mean, se, games,
                         {"utilities": learned_in}))
                if mc_games > 0:
                    ev = PatternEvaluator(paired=paired)
                    ev.points, ev.utilities, ev.counts = points, u, n
                    log(f"flat MC + OG: {mc_games} games")
                    mc, info = flat_mc_score(ev, ps, mc_games, seed, playouts, seconds_per_move)
                    m, s = _mean_se(mc)
                    emit(Row("beemo", "flat_mc", ps.name, list(ps.points), PAPER[("american", "flat_mc")], m, s,
                             mc_games, {"playouts_per_cell": playouts, "seconds_per_move": seconds_per_move,
                                        "paired": paired,
                                        **info, "og_on_same_deals": float(scores[:mc_games].mean())}))
    return rows
