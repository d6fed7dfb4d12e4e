"""Reproduce Tiger's published figures (Arrington, Langley and Bogaerts 2016; Neller et
al. 2016, section 7) with our implementation, under the American system.

- Table 3: twelve selection x simulation x "+ Calc" x weights combinations, paper
  means over 2,000 games at 30 s per game;
- Figure 1: core MCTS (UCT, random simulation) without squashing for a range of C_p
  (the paper gives the peak, 95 near C_p = 20, and 91 at C_p = 5000 in its text);
- Table 2: core MCTS with C_p = 1/sqrt(2) and the four squashing ranges (700 games).

Games are the contest deals ``deal(seed + i)``, played in this process one at a time
with the harness's game rules (``play_game``: a game over its clock scores the
penalty), so figures compare with harness runs. Our playouts are much faster than
the paper's Java, so each row also reports the MCTS iterations per searched move.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import asdict, dataclass
from typing import Callable, Iterable

from ..harness.game_play import play_game
from ..harness.registry import make_player
from ..points import AMERICAN

__all__ = ["Row", "TABLE3", "TABLE2", "CP_VALUES", "PAPER_CP", "play_spec", "run_table3",
           "run_cp_sweep", "run_table2", "plot_cp_sweep"]


@dataclass
class Row:
    """One configuration's result beside the paper's figure."""

    label: str
    spec: str
    paper: float | None
    games: int = 0
    mean: float = float("nan")
    stderr: float = float("nan")
    penalties: int = 0
    iterations_per_move: float = float("nan")

    def to_json(self) -> dict:
        return asdict(self)


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


def play_spec(row: Row, games: int, seed: int, time_per_game: float, point_system=AMERICAN) -> Row:
    """Play ``games`` games of ``row.spec`` and fill in the row's figures."""
    player = make_player(row.spec)
    player.set_point_system(point_system, 300.0)
    scores = []
    for i in range(games):
        record = play_game(player, point_system, seed + i, time_per_game, i)
        scores.append(record.score)
        row.penalties += record.penalty is not None
    row.games = len(scores)
    row.mean = statistics.fmean(scores)
    row.stderr = statistics.stdev(scores) / math.sqrt(len(scores)) if len(scores) > 1 else float("nan")
    row.iterations_per_move = float(getattr(player, "iterations_per_move", float("nan")))
    return row


def run_table3(games: int, seed: int, time_per_game: float, rows: Iterable[int] | None = None,
               on_row: Callable[[Row], None] | None = None) -> list[Row]:
    chosen = set(rows) if rows else None
    out = []
    for r, sel, sim, sel_calc, sim_calc, weights, paper in TABLE3:
        if chosen is not None and r not in chosen:
            continue
        row = Row(table3_label(r, sel, sim, sel_calc, sim_calc, weights),
                  table3_spec(sel, sim, sel_calc, sim_calc, weights), paper)
        out.append(play_spec(row, games, seed, time_per_game))
        if on_row:
            on_row(row)
    return out


def run_cp_sweep(games: int, seed: int, time_per_game: float, cps: Iterable[float] = CP_VALUES,
                 on_row: Callable[[Row], None] | None = None) -> list[Row]:
    out = []
    for cp in cps:
        row = Row(f"C_p = {cp:g}", f"tiger:selection=uct,simulation=random,cp={cp}", PAPER_CP.get(float(cp)))
        out.append(play_spec(row, games, seed, time_per_game))
        if on_row:
            on_row(row)
    return out


def run_table2(games: int, seed: int, time_per_game: float,
               on_row: Callable[[Row], None] | None = None) -> list[Row]:
    out = []
    for label, squash, paper in TABLE2:
        row = Row(label, f"tiger:selection=uct,simulation=random,cp={1 / math.sqrt(2)},squash={squash}", paper)
        out.append(play_spec(row, games, seed, time_per_game))
        if on_row:
            on_row(row)
    return out


def plot_cp_sweep(rows: list[Row], cps: Iterable[float], path: str, time_per_game: float) -> None:
    """Mean score against C_p (log scale) with standard errors, the paper's points beside."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cps = list(cps)
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
