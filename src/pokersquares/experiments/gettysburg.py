"""Reproduce the GettysburgPlayer's comparisons (Neller et al. 2016, sect. 6) at a
size that fits a small machine.

1. Learning (the paper's Fig. 2): three NARL learners, all with epsilon decay
   0.999975 per game — epsilon0 = 0.1; epsilon0 = 0.5; epsilon0 = 0.5 with the
   hand-size feature — each learning for every point system, then playing greedily.
   Per system type the mean scores are scaled to [0, 1] over the learners, as in
   the contest's normalisation. The paper sampled 500 systems of each random type
   (Ameritish, Random, Hypercorner) and played 2,000 games per learner and system.
2. Search (sect. 6.2): with one learned table per point system, depth-2
   expectimax, flat Monte Carlo and flat UCB1 (x20 exploration), both limited to
   depth 5, and greedy play for reference. The paper played 100 games on each of 8
   systems (seed 21347) at 30 s per game; expectimax had the best total.

Games are the contest deals ``deal(seed + i)`` (the same for every learner and
search, so comparisons are paired). Results are plain dicts.
"""

from __future__ import annotations

import math
import time
from typing import Callable

import numpy as np

from ..cards import deal
from ..evaluators.narl import NarlEvaluator
from ..game import EMPTY, Game
from ..hands import HAND_NAMES
from ..kernels.core import score_grid
from ..players.composed import SearchPlayer
from ..players.gettysburg import make_search
from ..points import (AMERICAN, BRITISH, CONTEST_SEED, PointSystem, ameritish_system, hypercorner_system,
                      parse_point_system, random_system, single_hand_system)

__all__ = ["VARIANTS", "SYSTEM_TYPES", "CONTEST_SINGLES", "SEARCHES", "PAPER", "systems_of_type",
           "learn", "greedy_scores", "search_scores", "normalise", "run_learning", "run_search",
           "plot_learning", "plot_search"]

# name -> NarlEvaluator options: the three learners of Fig. 2.
VARIANTS: dict[str, dict] = {
    "eps0=0.1": dict(epsilon0=0.1, hand_sizes=False),
    "eps0=0.5": dict(epsilon0=0.5, hand_sizes=False),
    "eps0=0.5+sizes": dict(epsilon0=0.5, hand_sizes=True),
}

CONTEST_SINGLES = ("high_card", "one_pair", "two_pair", "three_of_a_kind", "straight", "flush", "full_house")
SINGLES = tuple(name.replace(" ", "_") for name in HAND_NAMES)
SAMPLED = ("ameritish", "random", "hypercorner")
SYSTEM_TYPES = ("american", "british") + SAMPLED + SINGLES
SEARCHES = ("expectimax", "mc", "ucb", "greedy")

PAPER = {
    "learning": "Fig. 2: NARL with eps0 = 0.5 performed best for most point systems; the hand-size "
                "feature generally improves performance for some simpler point systems (e.g. Two Pair).",
    "search": "Sect. 6.2: depth-2 expectimax + NARL (eps0 = 0.5) had the highest total normalised score "
              "(8 systems, seed 21347, 100 games each, 30 s per game) and was submitted.",
    "contest": "Contest (12 systems): GettysburgPlayer 11.763, 2nd to BeeMo 11.821.",
}


def systems_of_type(kind: str, samples: int, seed: int = CONTEST_SEED) -> list[PointSystem]:
    """The point systems of a type: one fixed system, or ``samples`` generated ones
    (seeds ``seed``, ``seed + 1``, ...)."""
    if kind == "american":
        return [AMERICAN]
    if kind == "british":
        return [BRITISH]
    generators = {"ameritish": ameritish_system, "random": random_system, "hypercorner": hypercorner_system}
    if kind in generators:
        return [generators[kind](seed + k) for k in range(samples)]
    if kind in SINGLES:
        return [single_hand_system(kind.replace("_", " "))]
    raise ValueError(f"unknown system type {kind!r}; known: {', '.join(SYSTEM_TYPES)}")


def learn(variant: str, point_system: PointSystem, games: int | None = None, seconds: float | None = None,
          seed: int = 0) -> NarlEvaluator:
    """A NARL evaluator of ``variant`` that learned ``games`` games (or for ``seconds``)."""
    ev = NarlEvaluator(**VARIANTS[variant])
    ev.points = np.array(point_system.points, dtype=np.int64)
    ev.reset(seed)
    ev.learn(seconds=seconds, games=games)
    return ev


_DEALS: dict[tuple[int, int], np.ndarray] = {}


def _deals(games: int, seed: int) -> np.ndarray:
    if (games, seed) not in _DEALS:
        _DEALS.clear()
        _DEALS[games, seed] = np.array([deal(seed + i)[:25] for i in range(games)], dtype=np.int64)
    return _DEALS[games, seed]


def greedy_scores(evaluator: NarlEvaluator, games: int, seed: int) -> np.ndarray:
    """Scores of greedy play on the contest deals ``seed .. seed + games - 1``."""
    out = np.empty(games, dtype=np.int64)
    for i, cards in enumerate(_deals(games, seed)):
        grid = np.full(25, EMPTY, dtype=np.int8)
        for card in cards:
            grid[int(np.argmax(evaluator.placement_values(grid, int(card))))] = card
        out[i] = score_grid(grid, evaluator.points)
    return out


def search_scores(evaluator: NarlEvaluator, search: str, point_system: PointSystem, games: int, seed: int,
                  time_per_game: float) -> tuple[np.ndarray, float]:
    """Scores of ``search`` over ``evaluator`` on the contest deals, with the harness's
    clock (30 s per game, capped at ``time_per_game``); also the slowest game's seconds."""
    player = SearchPlayer(evaluator, make_search(search), time_per_game=time_per_game)
    player.point_system = point_system
    player.points = np.array(point_system.points, dtype=np.int64)
    scores = np.empty(games, dtype=np.int64)
    slowest = 0.0
    for i in range(games):
        game = Game.from_seed(seed + i, point_system)
        player.set_seed(seed + i)
        player.start_game()
        used = 0.0
        for card in game:
            t = time.perf_counter()
            row, col = player.get_play(card, 30.0 - used)
            used += time.perf_counter() - t
            game.play(row, col)
        scores[i] = game.score()
        slowest = max(slowest, used)
    return scores, slowest


def normalise(means: dict[str, float]) -> dict[str, float]:
    """Scale to [0, 1] between the lowest and highest (all 1 when they are equal)."""
    lo, hi = min(means.values()), max(means.values())
    return {k: 1.0 if hi == lo else (v - lo) / (hi - lo) for k, v in means.items()}


def _mean_se(scores: np.ndarray) -> tuple[float, float]:
    n = len(scores)
    return float(np.mean(scores)), float(np.std(scores, ddof=1) / math.sqrt(n)) if n > 1 else float("nan")


def run_learning(kinds: list[str], variants: list[str], samples: int, learn_games: int | None,
                 learn_seconds: float | None, games: int, seed: int,
                 on_row: Callable[[dict], None] | None = None) -> dict:
    """Fig. 2: each learner on each system type, greedy play, normalised per type."""
    rows = []
    for kind in kinds:
        systems = systems_of_type(kind, samples)
        row = {"system": kind, "systems": [list(s.points) for s in systems], "variants": {}}
        for variant in variants:
            scores, learned, seconds = [], 0, 0.0
            for k, ps in enumerate(systems):
                ev = learn(variant, ps, learn_games, learn_seconds, seed=seed + 7919 * k)
                learned += ev.games_learned
                seconds += ev.learn_seconds
                scores.append(greedy_scores(ev, games, seed))
            mean, se = _mean_se(np.concatenate(scores))
            row["variants"][variant] = {"mean": mean, "se": se, "games": games * len(systems),
                                        "learn_games": learned, "learn_seconds": round(seconds, 2),
                                        "learn_games_per_s": learned / seconds if seconds else None}
        norm = normalise({v: r["mean"] for v, r in row["variants"].items()})
        for v, x in norm.items():
            row["variants"][v]["normalised"] = x
        row["best"] = max(norm, key=lambda v: (norm[v], row["variants"][v]["mean"]))
        rows.append(row)
        if on_row:
            on_row(row)
    totals = {v: sum(r["variants"][v]["normalised"] for r in rows) for v in variants}
    return {"rows": rows, "totals": totals, "best": max(totals, key=totals.get) if totals else None,
            "paper": PAPER["learning"],
            "settings": {"samples": samples, "learn_games": learn_games, "learn_seconds": learn_seconds,
                         "games": games, "seed": seed}}


def run_search(specs: list[str], searches: list[str], variant: str, learn_games: int | None,
               learn_seconds: float | None, games: int, time_per_game: float, seed: int,
               on_row: Callable[[dict], None] | None = None) -> dict:
    """Sect. 6.2: each search over the same learned table, per point system."""
    rows = []
    for spec in specs:
        ps = parse_point_system(spec)
        ev = learn(variant, ps, learn_games, learn_seconds, seed=seed)
        row = {"system": spec, "points": list(ps.points), "learn_games": ev.games_learned, "searches": {}}
        first = None
        for search in searches:
            t = time.perf_counter()
            scores, slowest = search_scores(ev, search, ps, games, seed, time_per_game)
            mean, se = _mean_se(scores)
            row["searches"][search] = {"mean": mean, "se": se, "games": games,
                                       "seconds_per_game": (time.perf_counter() - t) / games,
                                       "slowest_game_s": slowest}
            if first is None:
                first = scores
            else:
                # The same deals for every search: the paired difference is far less noisy.
                diff, diff_se = _mean_se(scores - first)
                row["searches"][search].update(minus_first=diff, minus_first_se=diff_se)
        norm = normalise({s: r["mean"] for s, r in row["searches"].items()})
        for s, x in norm.items():
            row["searches"][s]["normalised"] = x
        rows.append(row)
        if on_row:
            on_row(row)
    totals = {s: sum(r["searches"][s]["normalised"] for r in rows) for s in searches}
    return {"rows": rows, "totals": totals, "best": max(totals, key=totals.get) if totals else None,
            "evaluator": variant, "paper": PAPER["search"],
            "settings": {"learn_games": learn_games, "learn_seconds": learn_seconds, "games": games,
                         "time_per_game": time_per_game, "seed": seed}}


def _bars(path, groups: list[str], series: dict[str, list[float]], title: str, ylabel: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(max(6.0, 0.8 * len(groups) * max(1, len(series)) / 2 + 2), 4.2))
    width = 0.8 / max(1, len(series))
    x = np.arange(len(groups))
    for k, (name, values) in enumerate(series.items()):
        ax.bar(x + (k - (len(series) - 1) / 2) * width, values, width, label=name)
    ax.set_xticks(x, groups, rotation=30, ha="right")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_learning(result: dict, path) -> None:
    """Fig. 2 style: the normalised greedy-play score of each learner per system type."""
    rows = result["rows"]
    variants = list(result["totals"])
    _bars(path, [r["system"] for r in rows],
          {v: [r["variants"][v]["normalised"] for r in rows] for v in variants},
          "NARL learners, greedy play (normalised per system)", "normalised score")


def plot_search(result: dict, path) -> None:
    """The searches' normalised scores per point system."""
    rows = result["rows"]
    searches = list(result["totals"])
    _bars(path, [r["system"] for r in rows],
          {s: [r["searches"][s]["normalised"] for r in rows] for s in searches},
          f"Searches over NARL ({result['evaluator']}), normalised per system", "normalised score")
