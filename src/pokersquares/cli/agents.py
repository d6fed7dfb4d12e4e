"""Agent subcommands: ``train`` (learn for a point system and save the table) and
``experiment beemo`` (BeeMo's published figures beside ours).

``train`` works with any player that learns in ``prepare`` and can save what it
learned: the player itself, or its ``evaluator`` (a composed ``SearchPlayer``),
must have ``save(path)`` (it is also given ``point_system_name=`` if it takes it). The saved file is then loaded
with the player's ``load=FILE`` parameter.
"""

from __future__ import annotations

import inspect
import json
import time
from pathlib import Path
from typing import Optional

import typer

from ..harness.registry import make_player
from ..points import SPEC_HELP, parse_point_system
from . import app, fail
from .experiment import experiment_app

JSON_OPT = typer.Option(False, "--json", help="Print machine-readable JSON.")


def _learner(player):
    for obj in (player, getattr(player, "evaluator", None)):
        if obj is not None and callable(getattr(obj, "save", None)):
            return obj
    return None


def _save(learner, path: Path, point_system_name: str) -> None:
    """``learner.save(path)``, passing the point system's name where it is accepted."""
    try:
        accepts_name = "point_system_name" in inspect.signature(learner.save).parameters
    except (TypeError, ValueError):
        accepts_name = False
    if accepts_name:
        learner.save(path, point_system_name=point_system_name)
    else:
        learner.save(path)


@app.command("train")
def train_cmd(
    player: str = typer.Option(..., "--player", "-p", help="A learning player, e.g. beemo or og (NAME:key=value,... accepted)."),
    system: str = typer.Option(..., "--system", "-s", help=SPEC_HELP),
    prep_time: float = typer.Option(300.0, "--prep-time", min=0.0, help="Learning seconds (contest: 300)."),
    out: Path = typer.Option(..., "--out", "-o", help="Where to write the learned table."),
    seed: int = typer.Option(0, "--seed", help="Seed of the learning's randomness."),
    json_out: bool = JSON_OPT,
) -> None:
    """Learn for a point system within the preprocessing budget and save the result
    (use it with e.g. --player beemo:load=FILE)."""
    ps = parse_point_system(system)
    p = make_player(player)
    if _learner(p) is None:
        raise fail(f"player {player!r} has nothing to save (it needs a save() method)")
    if out.parent and not out.parent.exists():
        raise fail(f"directory {str(out.parent)!r} does not exist")
    if hasattr(p, "warm_up"):
        p.warm_up()  # compiling kernels is not learning time, as in the harness
    if hasattr(p, "set_seed"):
        p.set_seed(seed)
    t = time.perf_counter()
    p.set_point_system(ps, prep_time)
    seconds = time.perf_counter() - t
    learner = _learner(p)
    try:
        _save(learner, out, ps.name)
    except NotImplementedError:
        raise fail(f"player {player!r} has nothing to save") from None
    except OSError as e:
        raise fail(f"cannot write {str(out)!r}: {e.strerror}") from None
    report = getattr(learner, "report", None)
    learned = report.to_json() if hasattr(report, "to_json") else {}
    if "seconds" in learned:
        learned["learning_seconds"] = learned.pop("seconds")
    summary = {"player": player, "system": ps.name, "points": list(ps.points), "out": str(out),
               "seconds": round(seconds, 3), **learned}
    for key in ("patterns_seen", "shapes_seen"):
        if hasattr(learner, key):
            summary[key] = getattr(learner, key)
    if json_out:
        typer.echo(json.dumps(summary))
    else:
        typer.echo(" ".join(f"{k}={v}" for k, v in summary.items()))


@experiment_app.command("beemo")
def experiment_beemo_cmd(
    prep_time: float = typer.Option(300.0, "--prep-time", min=0.0, help="Learning seconds per system and configuration (contest: 300)."),
    games: int = typer.Option(10_000, "--games", "-n", min=1, help="OG games per learned table (the paper: 10,000)."),
    mc_games: int = typer.Option(100, "--mc-games", min=0, help="Flat MC + OG games on American (0: skip)."),
    playouts: int = typer.Option(100, "--playouts", min=0, help="Flat MC playouts per cell (the paper: 100; 0: no cap, use --seconds-per-move)."),
    seconds_per_move: Optional[float] = typer.Option(None, "--seconds-per-move", min=0.0, help="Flat MC time per move (default: no time limit beyond the contest's)."),
    systems: str = typer.Option("american,british,high_card,hypercorner", "--systems", help="Comma-separated: american, british, high_card, hypercorner."),
    configs: str = typer.Option("no_feedback,feedback,ucb1,beemo", "--configs", help="Comma-separated learning configurations: no_feedback, feedback, ucb1, beemo."),
    seed: int = typer.Option(0, "--seed", help="Seed of the first deal (game i is dealt with seed + i) and of learning."),
    load: Optional[Path] = typer.Option(None, "--load", help="An American table from `train` to use for BeeMo's configuration (and the OG and flat MC rows) instead of learning."),
    unpaired: bool = typer.Option(False, "--unpaired", help="Flat MC with independent shuffles per cell (the default deals the same shuffles after every placement)."),
    json_out: bool = JSON_OPT,
) -> None:
    """BeeMo's figures (OG, flat MC + OG, learning with/without feedback, Flat MC vs
    UCB1 training) beside the papers'."""
    from ..experiments.beemo import LEARNING_CONFIGS, SYSTEMS, run_beemo_experiment

    sys_list = [s.strip() for s in systems.split(",") if s.strip()]
    cfg_list = [c.strip() for c in configs.split(",") if c.strip()]
    for s in sys_list:
        if s not in SYSTEMS:
            raise fail(f"unknown system {s!r}; choose from {', '.join(SYSTEMS)}")
    for c in cfg_list:
        if c not in LEARNING_CONFIGS:
            raise fail(f"unknown configuration {c!r}; choose from {', '.join(LEARNING_CONFIGS)}")
    if playouts == 0 and seconds_per_move is None:
        raise fail("--playouts 0 needs --seconds-per-move")

    def show(row) -> None:
        if json_out:
            return
        paper = "" if row.paper is None else str(row.paper)
        extra = ""
        d = row.details
        if "patterns_seen" in d:
            extra = (f"patterns {d['patterns_seen']} ({d['patterns_seen_without_context']} w/o context), "
                     f"{d['rounds']} rounds")
        elif "median_playouts_per_cell" in d:
            extra = f"median {d['median_playouts_per_cell']:.0f} playouts/cell, {d['seconds_per_game']:.2f} s/game"
        typer.echo(f"{row.what:<22} {row.system:<12} paper {paper:<30} ours {row.mean:8.2f} ± {row.stderr:5.2f} "
                   f"({row.games} games) {extra}")

    if load is not None and not load.exists():
        raise fail(f"no table at {str(load)!r}")
    rows = run_beemo_experiment(prep_time, games, mc_games, playouts or None, seconds_per_move, sys_list,
                                cfg_list, seed, load=None if load is None else str(load), paired=not unpaired,
                                on_row=show,
                                log=None if json_out else (lambda m: typer.echo(f"# {m}", err=True)))
    if json_out:
        typer.echo(json.dumps([r.to_json() for r in rows]))
