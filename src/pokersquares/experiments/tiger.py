"""Reproduce Tiger's published figures (Arrington, Langley and Bogaerts 2016; Neller et
al. 2016, section 7) with our implementation, under the American system.

- Table 3: twelve selection x simulation x "+ Calc" x weights combinations, paper
  means over 2,000 games at 30 s per game;
- Figure 1: core MCTS (UCT, random simulation) without squashing for a range of C_p
  (the paper gives the peak, 95 near C_p = 20, and 91 at C_p = 5000 in its text);
- Table 2: core MCTS with C_p = 1/sqrt(2) and the four squashing ranges (700 games).

Every row is a harness run (``experiments.runs``): its games are recorded in the
result store, a rerun reads them back, and ``--backend ray`` plays them on Ray.
Game ``i`` is the contest deal ``deal(seed + i)``, so figures compare with any
harness run on the same seeds.
"""

from __future__ import annotations

import math
from typing import Iterable

from ..harness.runner import RunSpec
from ..points import AMERICAN
from .runs import Row

__all__ = ["TABLE3", "TABLE2", "CP_VALUES", "PAPER_CP", "table3_spec", "table3_rows", "cp_rows",
           "table2_rows", "plot_cp_sweep"]

# (row, selection, simulation, select_calc, simulate_calc, weights, paper mean)
TABLE3 = [
    (1, "uct", "random", False, False, "untuned", 92),
    (2, "uct", "random", True, False, "untuned", 90),
    (3, "uct", "random", False, True, "untuned", 80),
    (4, "uct", "random", True, True, "untuned", 79),
    (5, "uct", "prune", False, False, "untuned", 95),
    (6, "uct", "best", False, False, "untuned", 112),
    (7, "best", "random", False, False, "untuned", 72),
    (8, "prune", "random", False, False, "untuned", 91),
    (9, "prune", "best", False, False, "untuned", 113),
    (10, "prune", "random", False, False, "tuned", 94),
    (11, "uct", "best", False, False, "tuned", 118),
    (12, "prune", "best", False, False, "tuned", 123),
]
_SELECTION_NAMES = {"uct": "UCT", "prune": "Prune + UCT", "best": "Best Move"}
_SIMULATION_NAMES = {"random": "Random", "prune": "Prune + Random", "best": "Best Move"}

# name, squash option, paper mean (core MCTS, C_p = 1/sqrt(2), 700 games)
TABLE2 = [("Precise 0-725", "precise", 91), ("Imprecise 0-1000", "imprecise", 91),
          ("Max 200", "max200", 90), ("Max 2000", "max2000", 90)]

CP_VALUES = (0.5, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 50.0, 141.4, 500.0, 5000.0)
PAPER_CP = {20.0: 95, 5000.0: 91}  # read from the paper's text; the rest is only plotted there


def table3_label(row: int, selection: str, simulation: str, select_calc: bool, simulate_calc: bool,
                 weights: str) -> str:
    sel = _SELECTION_NAMES[selection] + (" + Calc" if select_calc else "")
    sim = _SIMULATION_NAMES[simulation] + (" + Calc" if simulate_calc else "")
    return f"({row}) {sel} / {sim}" + (" *tuned" if weights == "tuned" else "")


def table3_spec(selection: str, simulation: str, select_calc: bool, simulate_calc: bool, weights: str) -> str:
    spec = f"tiger:selection={selection},simulation={simulation},weights={weights}"
    if select_calc:
        spec += ",select_calc=true"
    if simulate_calc:
        spec += ",simulate_calc=true"
    return spec


def _run(spec: str, games: int, seed: int, time_per_game: float, prep_time: float) -> RunSpec:
    return RunSpec(spec, AMERICAN, games, seed, time_per_game, prep_time)


def table3_rows(games: int, seed: int, time_per_game: float, prep_time: float,
                rows: Iterable[int] | None = None) -> list[Row]:
    """Table 3's rows (all twelve, or those numbered in ``rows``)."""
    chosen = set(rows) if rows else None
    return [Row(table3_label(r, sel, sim, sel_calc, sim_calc, weights),
                _run(table3_spec(sel, sim, sel_calc, sim_calc, weights), games, seed, time_per_game, prep_time),
                paper)
            for r, sel, sim, sel_calc, sim_calc, weights, paper in TABLE3 if chosen is None or r in chosen]


def cp_rows(games: int, seed: int, time_per_game: float, prep_time: float,
            cps: Iterable[float] = CP_VALUES) -> list[Row]:
    """Figure 1: core MCTS (UCT, random simulation, unsquashed) for each C_p."""
    return [Row(f"C_p = {cp:g}", _run(f"tiger:selection=uct,simulation=random,cp={cp}", games, seed,
                                      time_per_game, prep_time), PAPER_CP.get(float(cp)))
            for cp in cps]


def table2_rows(games: int, seed: int, time_per_game: float, prep_time: float) -> list[Row]:
    """Table 2: core MCTS with C_p = 1/sqrt(2) and each squashing range."""
    return [Row(label, _run(f"tiger:selection=uct,simulation=random,cp={1 / math.sqrt(2)},squash={squash}",
                            games, seed, time_per_game, prep_time), paper)
            for label, squash, paper in TABLE2]


def plot_cp_sweep(rows: list[Row], cps: Iterable[float], path: str, time_per_game: float) -> None:
    """Mean score against C_p (log scale) with standard errors, the paper's points beside."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # In ascending C_p: a line through the values as given (--cp 20,1,5000) went back and forth.
    cps = [float(cp) for cp in cps]
    order = sorted(range(len(cps)), key=cps.__getitem__)
    cps, rows = [cps[i] for i in order], [rows[i] for i in order]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.errorbar(cps, [r.mean for r in rows], yerr=[r.stderr for r in rows], marker="o", capsize=3,
                label=f"ours ({rows[0].games} games, {time_per_game:g} s/game)")
    known = sorted(PAPER_CP.items())
    ax.plot([k for k, _ in known], [v for _, v in known], "s", color="tab:red",
            label="paper (values given in its text; 30 s/game)")
    ax.set_xscale("log")
    ax.set_xlabel("C_p (unsquashed scores)")
    ax.set_ylabel("mean score, American")
    ax.set_title("Core MCTS (UCT, random simulation): Arrington et al. 2016, Fig. 1")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
