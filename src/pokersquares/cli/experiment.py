"""``pokersquares experiment ...``: reproductions of the papers' tables.

Each command lists its table's rows as harness runs (``pokersquares.experiments``),
plays them into the result store like ``run`` (``--db``, ``--workers``,
``--backend ray``; rerunning resumes) and prints our figures beside the paper's.
"""

from __future__ import annotations

import json
import math
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional

import typer

from ..errors import PokerSquaresError
from ..harness.runner import backend_session, check_backend
from ..harness.store import ResultStore
from . import app
from .harness import (ADDRESS_OPT, BACKEND_OPT, DB_OPT, JSON_OPT, PREP_OPT, QUIET_OPT, WORKERS_HELP,
                      _check_workers, _Progress)

__all__ = ["experiment_app"]

experiment_app = typer.Typer(
    name="experiment",
    help="Reproduce the papers' tables, printing our figures beside theirs (every game is recorded in the "
         "result store; rerunning resumes).",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(experiment_app, name="experiment")

WORKERS_OPT = typer.Option(None, "--workers", "-w", help=WORKERS_HELP)


class ExperimentOptionError(PokerSquaresError):
    """A bad option of an experiment command."""


def _split(text: str) -> list[str]:
    return [p.strip() for p in text.replace(";", ",").split(",") if p.strip()]


def _numbers(text: str, cast, what: str) -> list:
    try:
        return [cast(x) for x in _split(text)]
    except ValueError:
        raise ExperimentOptionError(f"{what} must be comma-separated numbers, got {text!r}") from None


def _writable(path: Path, what: str) -> None:
    if not path.parent.is_dir():
        raise ExperimentOptionError(f"cannot write {what} {path}: folder {path.parent} does not exist")


@contextmanager
def _recording(db: Path, workers: Optional[int], backend: str, address: Optional[str], total: int, desc: str,
               show_progress: bool) -> Iterator[tuple[ResultStore, dict]]:
    """The store and the options of ``experiments.runs.play_runs`` for one command, with
    the backend's session and a progress bar around them."""
    workers = _check_workers(workers)
    check_backend(backend, address)
    with ResultStore(db) as store, backend_session(backend, address):
        progress = _Progress(total, desc, show_progress)
        try:
            yield store, dict(workers=workers, backend=backend, address=address,
                              on_result=lambda rec: progress.update(rec.score))
        finally:
            progress.close()


def _games(specs) -> int:
    return sum(s.games for s in dict.fromkeys(specs))


def _show_row(row, width: int = 44) -> str:
    paper = "-" if row.paper is None else str(row.paper)
    pen = f"  penalties {row.penalties}" if row.penalties else ""
    return (f"  {row.label:<{width}} {row.mean:8.2f} ± {row.stderr:5.2f}  (n={row.games})  paper {paper:<8}"
            f" run {row.run_id}{pen}")


# -- Tiger ------------------------------------------------------------------------------------

TIGER_PARTS = ("table3", "cp", "squash")


@experiment_app.command("tiger")
def tiger_cmd(
    games: int = typer.Option(10, "--games", "-n", min=1, help="Games per configuration (paper: 2,000; 700 for squashing)."),
    time_per_game: float = typer.Option(1.0, "--time-per-game", min=0.05, help="Decision seconds per game (paper: 30)."),
    prep_time: float = PREP_OPT,
    seed: int = typer.Option(0, "--seed", help="Game i is dealt with seed + i."),
    parts: str = typer.Option("table3,cp", "--parts", help=f"Comma-separated parts: {', '.join(TIGER_PARTS)}."),
    rows: str = typer.Option("", "--rows", help="Table 3 rows to run, e.g. 1,6,12 (default: all 12)."),
    cps: str = typer.Option(",".join(f"{c:g}" for c in (0.5, 1, 2.5, 5, 7.5, 10, 20, 50, 141.4, 500, 5000)),
                            "--cp", help="C_p values of the Figure 1 sweep."),
    plot: Path = typer.Option(Path("tiger_cp_sweep.png"), "--plot", help="Where to save the C_p sweep plot (PNG)."),
    db: Path = DB_OPT,
    workers: Optional[int] = WORKERS_OPT,
    backend: str = BACKEND_OPT,
    address: Optional[str] = ADDRESS_OPT,
    json_out: bool = JSON_OPT,
    quiet: bool = QUIET_OPT,
) -> None:
    """Rerun Tiger's experiments under American (Arrington et al. 2016): Table 3's twelve
    selection/simulation rows, the C_p sweep of Figure 1 (saved as a plot) and,
    optionally, Table 2's squashing ranges; our means and standard errors beside the paper's."""
    from ..experiments import tiger as ex
    from ..experiments.runs import fill_rows

    chosen = _split(parts)
    unknown = [p for p in chosen if p not in TIGER_PARTS]
    if unknown or not chosen:
        raise ExperimentOptionError(f"unknown part {unknown[0] if unknown else parts!r}; "
                                    f"parts: {', '.join(TIGER_PARTS)}")
    row_ids = _numbers(rows, int, "--rows")
    if any(not 1 <= r <= 12 for r in row_ids):
        raise ExperimentOptionError("Table 3 rows are 1..12")
    cp_values = _numbers(cps, float, "--cp")
    if "cp" in chosen:
        if not cp_values or any(c <= 0 or not math.isfinite(c) for c in cp_values):
            raise ExperimentOptionError("--cp needs positive numbers")
        _writable(plot, "the plot")
    tables = {}
    if "table3" in chosen:
        tables["table3"] = ex.table3_rows(games, seed, time_per_game, prep_time, row_ids or None)
    if "cp" in chosen:
        tables["cp_sweep"] = ex.cp_rows(games, seed, time_per_game, prep_time, cp_values)
    if "squash" in chosen:
        tables["table2"] = ex.table2_rows(games, seed, time_per_game, prep_time)
    every = [r for t in tables.values() for r in t]
    with _recording(db, workers, backend, address, _games(r.run for r in every), "tiger",
                    not (quiet or json_out)) as (store, play):
        fill_rows(every, store, **play)
    result: dict = {"system": "American", "games": games, "time_per_game": time_per_game, "seed": seed,
                    "db": str(db), **{name: [r.to_json() for r in t] for name, t in tables.items()}}
    if "cp_sweep" in tables:
        ex.plot_cp_sweep(tables["cp_sweep"], cp_values, str(plot), time_per_game)
        result["plot"] = str(plot)
    if json_out:
        typer.echo(json.dumps(result))
        return
    typer.echo(f"Tiger under American: {games} games per row, {time_per_game:g} s per game "
               f"(paper: 30 s, 2,000 games); results in {db}")
    titles = {"table3": "Table 3: selection / simulation (mean ± s.e.)",
              "cp_sweep": "Figure 1: core MCTS, unsquashed scores, by C_p",
              "table2": "Table 2: core MCTS, C_p = 1/sqrt(2), squashed scores"}
    for name, table in tables.items():
        typer.echo(titles[name])
        for row in table:
            typer.echo(_show_row(row))
        if name == "cp_sweep":
            typer.echo(f"  plot saved to {plot}")
