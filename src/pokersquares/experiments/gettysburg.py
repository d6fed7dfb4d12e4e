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

Every figure comes from harness runs of the ``gettysburg`` player (learning in its
preparation, then playing), recorded in the result store, so a rerun reads them
back and ``--backend ray`` plays them on Ray. With a fixed number of learning
games (``games=N``) learning is deterministic given the run's seed, so every
search of the comparison plays over the very same learned table and the
differences between searches on the same deals (game ``i`` is the contest deal
``deal(seed + i)``) are paired. Results are plain dicts.
"""

from __future__ import annotations

from typing import Collection, Sequence

import numpy as np

from ..harness.runner import RunSpec
from ..harness.store import ResultStore
from ..hands import HAND_NAMES
from ..points import (AMERICAN, BRITISH, CONTEST_SEED, PointSystem, ameritish_system, hypercorner_system,
                      parse_point_system, random_system, single_hand_system)
from .runs import LEARN_MIN_S, LearningBudgetError, play_runs, score_stats

__all__ = ["VARIANTS", "SYSTEM_TYPES", "CONTEST_SINGLES", "SEARCHES", "PAPER", "LEARN_LIMIT_S", "systems_of_type",
           "narl_spec", "normalise", "learning_plan", "run_learning", "search_plan", "run_search",
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
SEARCHES = ("expectimax", "depth_mc", "flat_ucb", "greedy")
# The preparation budget of a run that learns a fixed number of games: only a
# limit (the contest's), as such learning stops at its count, not at the clock.
LEARN_LIMIT_S = 300.0

# The papers' words. Two Pairs is where an earlier player's edge led to the hand-size
# feature; the paper names no system where the feature then helped.
PAPER = {
    "learning": "Fig. 2: NARL with eps0 = 0.5 performed best for most point systems; the hand-size "
                "feature generally improves performance for some simpler point systems.",
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


def narl_spec(search: str, variant: str, learn_games: int | None) -> str:
    """The ``gettysburg`` player of a search over a learner: ``learn_games`` games of
    learning, or (None) learning for the run's preparation time."""
    opts = VARIANTS[variant]
    spec = (f"gettysburg:search={search},epsilon0={opts['epsilon0']},"
            f"hand_sizes={'true' if opts['hand_sizes'] else 'false'}")
    return spec + (f",games={learn_games}" if learn_games else "")


def _run(search: str, variant: str, ps: PointSystem, learn_games: int | None, learn_seconds: float | None,
         games: int, seed: int, time_per_game: float) -> RunSpec:
    prep = LEARN_LIMIT_S if learn_games else float(learn_seconds or 0.0)
    if not learn_games and prep < LEARN_MIN_S:  # NARL would play the greedy rule, every learner alike
        raise LearningBudgetError(f"--learn-seconds {prep:g} is too little to learn: below {LEARN_MIN_S:g} s (the "
                                  "hand-over kept back) every learner plays the greedy rule, not its table (or give "
                                  "--learn-games)")
    return RunSpec(narl_spec(search, variant, learn_games), ps, games, seed, time_per_game, prep)


def normalise(means: dict[str, float]) -> dict[str, float]:
    """Scale to [0, 1] between the lowest and highest (all 1 when they are equal)."""
    lo, hi = min(means.values()), max(means.values())
    return {k: 1.0 if hi == lo else (v - lo) / (hi - lo) for k, v in means.items()}


def _first(names: Collection[str], canonical: Collection[str]):
    """A key for ``max`` that breaks a tie by ``canonical`` order, not by the order the
    command line listed ``names`` in: ``--variants a,b`` and ``b,a`` named different bests
    (and the search part then played over another learner, every game anew)."""
    rank = {n: -list(canonical).index(n) if n in canonical else -len(canonical) for n in names}
    return rank.__getitem__


def _figures(records) -> dict:
    mean, se = score_stats([r.score for r in records])
    return {"mean": mean, "se": se, "games": len(records), "penalties": sum(1 for r in records if r.penalty)}


def learning_plan(kinds: Sequence[str], variants: Sequence[str], samples: int, learn_games: int | None,
                  learn_seconds: float | None, games: int, seed: int,
                  time_per_game: float) -> dict[tuple[str, str], list[RunSpec]]:
    """Fig. 2's runs: per (system type, learner), greedy play on each system of the type."""
    return {(kind, variant): [_run("greedy", variant, ps, learn_games, learn_seconds, games, seed, time_per_game)
                              for ps in systems_of_type(kind, samples)]
            for kind in kinds for variant in variants}


def run_learning(plan: dict[tuple[str, str], list[RunSpec]], store: ResultStore, settings: dict, **play) -> dict:
    """Fig. 2: play the plan's runs (``play``: options of ``play_runs``) and normalise the
    learners' means per system type."""
    results = play_runs([s for specs in plan.values() for s in specs], store, **play)
    rows: dict[str, dict] = {}
    for (kind, variant), specs in plan.items():
        row = rows.setdefault(kind, {"system": kind, "systems": [list(s.point_system.points) for s in specs],
                                     "variants": {}})
        records = [rec for s in specs for rec in results[s][1]]
        row["variants"][variant] = {**_figures(records), "learn_games": settings.get("learn_games"),
                                    "learn_seconds": settings.get("learn_seconds"), "player": specs[0].player,
                                    "run_ids": [results[s][0] for s in specs]}
    for row in rows.values():
        norm = normalise({v: r["mean"] for v, r in row["variants"].items()})
        for v, x in norm.items():
            row["variants"][v]["normalised"] = x
        rank = _first(norm, VARIANTS)
        row["best"] = max(norm, key=lambda v: (norm[v], row["variants"][v]["mean"], rank(v)))
    variants = list(dict.fromkeys(v for _, v in plan))
    totals = {v: sum(r["variants"][v]["normalised"] for r in rows.values()) for v in variants}
    rank = _first(totals, VARIANTS)
    return {"rows": list(rows.values()), "totals": totals,
            "best": max(totals, key=lambda v: (totals[v], rank(v))) if totals else None,
            "paper": PAPER["learning"], "settings": settings}


def search_plan(system_specs: Sequence[str], searches: Sequence[str], variant: str, learn_games: int | None,
                learn_seconds: float | None, games: int, seed: int,
                time_per_game: float) -> dict[tuple[str, str], RunSpec]:
    """Sect. 6.2's runs: per (point system spec, search), the search over the learner."""
    return {(spec, search): _run(search, variant, parse_point_system(spec), learn_games, learn_seconds, games,
                                 seed, time_per_game)
            for spec in system_specs for search in searches}


def run_search(plan: dict[tuple[str, str], RunSpec], variant: str, store: ResultStore, settings: dict,
               **play) -> dict:
    """Sect. 6.2: each search over the same learner, per point system, with the paired
    difference to the first search on the same deals."""
    results = play_runs(list(plan.values()), store, **play)
    rows: dict[str, dict] = {}
    first: dict[str, np.ndarray] = {}
    for (spec, search), run in plan.items():
        row = rows.setdefault(spec, {"system": spec, "points": list(run.point_system.points),
                                     "learn_games": settings.get("learn_games"), "searches": {}})
        run_id, records = results[run]
        scores = np.array([r.score for r in records], dtype=np.float64)
        row["searches"][search] = {**_figures(records), "player": run.player, "run_id": run_id,
                                   "seconds_per_game": float(np.mean([r.decision_s for r in records])),
                                   "slowest_game_s": max(r.decision_s for r in records)}
        if spec not in first:
            first[spec] = scores
        else:
            # The same deals and (with fixed learning games) the same table for every
            # search: the paired difference is far less noisy.
            diff, diff_se = score_stats(scores - first[spec])
            row["searches"][search].update(minus_first=diff, minus_first_se=diff_se)
    for row in rows.values():
        norm = normalise({s: r["mean"] for s, r in row["searches"].items()})
        for s, x in norm.items():
            row["searches"][s]["normalised"] = x
    searches = list(dict.fromkeys(s for _, s in plan))
    totals = {s: sum(r["searches"][s]["normalised"] for r in rows.values()) for s in searches}
    rank = _first(totals, SEARCHES)
    return {"rows": list(rows.values()), "totals": totals,
            "best": max(totals, key=lambda s: (totals[s], rank(s))) if totals else None,
            "evaluator": variant, "paper": PAPER["search"], "settings": settings}


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
