"""``pokersquares experiment tiger``: Tiger's Table 3, Figure 1 (C_p) and Table 2 (squashing)."""

from __future__ import annotations

import json
import math

import typer

from ..errors import PokerSquaresError
from .experiment import experiment_app

PARTS = ("table3", "cp", "squash")


class ExperimentOptionError(PokerSquaresError):
    """A bad option of an experiment command."""


def _numbers(text: str, cast, what: str) -> list:
    try:
        return [cast(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ExperimentOptionError(f"{what} must be comma-separated numbers, got {text!r}") from None


def _show(row) -> str:
    paper = f"{row.paper:>5}" if row.paper is not None else "    -"
    pen = f"  penalties {row.penalties}" if row.penalties else ""
    return (f"  {row.label:<44} {row.mean:7.1f} ± {row.stderr:4.1f}  (n={row.games})  paper {paper}"
            f"   {row.iterations_per_move:9,.0f} it/move{pen}")


@experiment_app.command("tiger")
def tiger_cmd(
    games: int = typer.Option(10, "--games", "-n", min=1, help="Games per configuration (paper: 2,000; 700 for squashing)."),
    time_per_game: float = typer.Option(1.0, "--time-per-game", min=0.05, help="Decision seconds per game (paper: 30)."),
    seed: int = typer.Option(0, "--seed", help="Game i is dealt with seed + i."),
    parts: str = typer.Option("table3,cp", "--parts", help=f"Comma-separated parts: {', '.join(PARTS)}."),
    rows: str = typer.Option("", "--rows", help="Table 3 rows to run, e.g. 1,6,12 (default: all 12)."),
    cps: str = typer.Option(",".join(f"{c:g}" for c in (0.5, 1, 2.5, 5, 7.5, 10, 20, 50, 141.4, 500, 5000)),
                            "--cp", help="C_p values of the Figure 1 sweep."),
    plot: str = typer.Option("tiger_cp_sweep.png", "--plot", help="Where to save the C_p sweep plot (PNG)."),
    json_out: bool = typer.Option(False, "--json", help="Print machine-readable JSON."),
) -> None:
    """Rerun Tiger's experiments under American (Arrington et al. 2016): Table 3's twelve
    selection/simulation rows, the C_p sweep of Figure 1 (saved as a plot) and,
    optionally, Table 2's squashing ranges; our means and standard errors beside the paper's."""
    from ..experiments import tiger as ex

    chosen = [p.strip() for p in parts.split(",") if p.strip()]
    unknown = [p for p in chosen if p not in PARTS]
    if unknown or not chosen:
        raise ExperimentOptionError(f"unknown part {unknown[0] if unknown else parts!r}; parts: {', '.join(PARTS)}")
    row_ids = _numbers(rows, int, "--rows")
    if any(not 1 <= r <= 12 for r in row_ids):
        raise ExperimentOptionError("Table 3 rows are 1..12")
    cp_values = _numbers(cps, float, "--cp")
    if "cp" in chosen and (not cp_values or any(c <= 0 or not math.isfinite(c) for c in cp_values)):
        raise ExperimentOptionError("--cp needs positive numbers")

    def say(text: str) -> None:
        if not json_out:
            typer.echo(text)

    def on_row(row) -> None:
        say(_show(row))

    result: dict = {"system": "American", "games": games, "time_per_game": time_per_game, "seed": seed}
    say(f"Tiger under American: {games} games per row, {time_per_game:g} s per game (paper: 30 s, 2,000 games)")
    if "table3" in chosen:
        say("Table 3: selection / simulation (mean ± s.e.)")
        result["table3"] = [r.to_json() for r in ex.run_table3(games, seed, time_per_game, row_ids or None, on_row)]
    if "cp" in chosen:
        say("Figure 1: core MCTS, unsquashed scores, by C_p")
        sweep = ex.run_cp_sweep(games, seed, time_per_game, cp_values, on_row)
        result["cp_sweep"] = [r.to_json() for r in sweep]
        ex.plot_cp_sweep(sweep, cp_values, plot, time_per_game)
        result["plot"] = plot
        say(f"  plot saved to {plot}")
    if "squash" in chosen:
        say("Table 2: core MCTS, C_p = 1/sqrt(2), squashed scores")
        result["table2"] = [r.to_json() for r in ex.run_table2(games, seed, time_per_game, on_row)]
    if json_out:
        typer.echo(json.dumps(result))
