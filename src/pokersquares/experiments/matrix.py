"""The evaluator x search matrix: which parts of the 2016 winners carry the strength.

Every evaluator (``patterns``, ``narl``, ``possibility``) plays with every search
(``greedy``, ``flat_mc``, ``expectimax``, ``depth_mc``, ``flat_ucb``, ``mcts``) as the
``hybrid`` player, under the same preparation and per-game time, on the same deals
of each point system. A cell is one harness run (its games go to the result store,
a rerun reads them back, any backend plays them); it reports its mean ± standard
error and its paired difference against its row's ``greedy`` cell (the same
evaluator and system, game by game on the same deals), which is what the search adds
to that evaluation.
"""

from __future__ import annotations

import math
import statistics
import textwrap
from typing import Any, Sequence

from ..harness.compare import paired_scores
from ..harness.runner import RunSpec, RunSpecError
from ..harness.store import ResultStore
from ..players.hybrid import EVALUATORS, SEARCHES
from ..points import PointSystem
from .runs import LEARN_MIN_S, LearningBudgetError, play_runs, score_stats

__all__ = ["EVALUATORS", "SEARCHES", "matrix_specs", "run_matrix", "paired_difference", "plot_matrix"]


def cell_spec(evaluator: str, search: str) -> str:
    return f"hybrid:evaluator={evaluator},search={search}"


def matrix_specs(evaluators: Sequence[str], searches: Sequence[str], systems: Sequence[PointSystem], games: int,
                 seed: int, time_per_game: float, prep_time: float) -> dict[tuple[str, str, str], RunSpec]:
    """The run of every (system name, evaluator, search) cell; each row's ``greedy`` cell
    is always included, as the baseline of the paired differences."""
    names = [system.name for system in systems]
    twice = next((n for n in names if names.count(n) > 1), None)
    if twice is not None:  # the cells are keyed by system name: one system's would take the other's place
        raise RunSpecError(f"two point systems are named {twice!r}: give each its own name "
                           "(PointSystem(points, name))")
    cells = {}
    for system in systems:
        for ev in evaluators:
            for se in dict.fromkeys(["greedy", *searches]):
                cells[(system.name, ev, se)] = RunSpec(cell_spec(ev, se), system, games, seed, time_per_game,
                                                       prep_time)
    # After the runs' own checks: the rows would be the greedy rule's, each under its evaluator's name.
    learning = [ev for ev in evaluators if ev in EVALUATORS and EVALUATORS[ev]().learns_within_budget]
    if learning and prep_time < LEARN_MIN_S:
        raise LearningBudgetError(f"--prep-time {prep_time:g} is too little for {', '.join(learning)} to learn: "
                                  f"below {LEARN_MIN_S:g} s (the hand-over kept back) a learning evaluator plays "
                                  "the greedy rule")
    return cells


def paired_difference(a: dict[int, float], b: dict[int, float]) -> tuple[float, float, int]:
    """Mean and standard error of ``a - b`` over the seeds both hold, and their number
    (:func:`~pokersquares.harness.compare.paired_scores`, its missing error as nan)."""
    mean, se, n = paired_scores(a, b)
    return mean, (math.nan if se is None else se), n


def run_matrix(cells: dict[tuple[str, str, str], RunSpec], store: ResultStore, **play) -> list[dict]:
    """Play every cell's run (``play``: options of :func:`play_runs`) and return one
    row per cell: mean, standard error, penalties, decision seconds per game and the
    paired difference against the row's greedy cell."""
    results = play_runs(list(cells.values()), store, **play)
    scores = {}
    out: list[dict[str, Any]] = []
    for key, spec in cells.items():
        run_id, records = results[spec]
        scores[key] = {r.seed: float(r.score) for r in records}
        mean, se = score_stats([r.score for r in records])
        out.append({"system": key[0], "evaluator": key[1], "search": key[2], "spec": spec.player, "run_id": run_id,
                    "games": len(records), "mean": mean, "se": se,
                    "penalties": sum(1 for r in records if r.penalty),
                    "seconds_per_game": statistics.fmean([r.decision_s for r in records]) if records else math.nan})
    for row in out:
        base = scores[(row["system"], row["evaluator"], "greedy")]
        diff, se, n = paired_difference(scores[(row["system"], row["evaluator"], row["search"])], base)
        row.update(vs_greedy=diff, vs_greedy_se=se, paired_games=n)
    return out


def plot_matrix(rows: list[dict], path: str, title: str) -> None:
    """A heat map per point system: evaluators down, searches across, colour the paired
    difference against the row's greedy cell, text the mean ± SE and that difference."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    systems = list(dict.fromkeys(r["system"] for r in rows))
    evaluators = list(dict.fromkeys(r["evaluator"] for r in rows))
    searches = list(dict.fromkeys(r["search"] for r in rows))
    fig, axes = plt.subplots(len(systems), 1, squeeze=False,
                             figsize=(1.3 * len(searches) + 2.5, (0.9 * len(evaluators) + 1.4) * len(systems) + 0.6))
    by = {(r["system"], r["evaluator"], r["search"]): r for r in rows}
    for ax, system in zip(axes[:, 0], systems):
        diff = np.array([[by[(system, e, s)]["vs_greedy"] for s in searches] for e in evaluators])
        limit = np.nanmax(np.abs(diff)) or 1.0
        image = ax.imshow(diff, cmap="RdBu", vmin=-limit, vmax=limit, aspect="auto")
        for i, e in enumerate(evaluators):
            for j, s in enumerate(searches):
                r = by[(system, e, s)]
                text = f"{r['mean']:.1f}±{r['se']:.1f}"
                if s != "greedy":
                    text += f"\n{r['vs_greedy']:+.1f}±{r['vs_greedy_se']:.1f}"
                dark = abs(r["vs_greedy"]) > 0.6 * limit if math.isfinite(r["vs_greedy"]) else False
                ax.text(j, i, text, ha="center", va="center", fontsize=8, color="white" if dark else "black")
        ax.set_xticks(range(len(searches)), searches, rotation=30, ha="right")
        ax.set_yticks(range(len(evaluators)), evaluators)
        ax.set_title(system)
        fig.colorbar(image, ax=ax, shrink=0.8, label="paired difference vs greedy")
    # Wrapped to the figure's width: a matrix of two or three searches is narrower than
    # its title, which was cut at both ends ("uator x search: ... prepara").
    fig.suptitle(textwrap.fill(title, max(24, int(fig.get_figwidth() * 10))))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
