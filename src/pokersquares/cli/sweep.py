"""``pokersquares sweep``: a player over a grid or a random sample of its parameters."""

from __future__ import annotations

import math
from pathlib import Path
from typing import List, Optional

import typer

from ..experiments.sweep import parse_param, plot_sweep, run_sweep, setting_spec, settings
from ..harness.registry import checked_player, one_build_per_spec, parse_player_spec
from ..harness.runner import backend_session, check_backend
from ..harness.spec import check_saved_states
from ..harness.store import ResultStore
from ..points import SPEC_HELP
from . import app, check_output, fail, point_system, save_plot
from .experiment import _json
from .harness import (ADDRESS_OPT, BACKEND_OPT, CLASSPATH_OPT, DB_OPT, JSON_OPT, MEMORY_OPT, PREP_OPT, QUIET_OPT,
                      SECRET_OPT, SEED_OPT, TPG_OPT, WORKERS_HELP, _check_workers, _Progress, built_player,
                      check_run_options, check_secret, use_classpath, warn_oversubscribed)


@app.command("sweep")
@one_build_per_spec()  # each setting's player is built once in this process, for all its checks
def sweep_cmd(
    player: str = typer.Option(..., "--player", "-p", help="The player to sweep, with fixed parameters if any "
                               "(e.g. tiger:iterations=300)."),
    param: List[str] = typer.Option(..., "--param", metavar="<str>", help="A swept parameter: name=v1,v2,... or name=lo..hi/n "
                                    "(n evenly spaced values) or name=lo..hi (a range, with --sample; integers if "
                                    "both ends are, so write 0.0..1.0 for reals). Repeat for several: every "
                                    "combination is a setting."),
    sample: Optional[int] = typer.Option(None, "--sample", help="Play K settings drawn at random instead of the "
                                         "whole grid. The draw depends on K, --sample-seed and each parameter's "
                                         "name and values (in the order listed), not on the order of the --param "
                                         "options."),
    sample_seed: Optional[int] = typer.Option(None, "--sample-seed", help="Seed of the --sample draw "
                                              "(default: --seed)."),
    system: str = typer.Option("american", "--system", "-s", help=SPEC_HELP),
    games: int = typer.Option(100, "--games", "-n", help="Games per setting (the same deals for every setting)."),
    seed: int = SEED_OPT,
    workers: Optional[int] = typer.Option(None, "--workers", "-w", help=WORKERS_HELP),
    time_per_game: float = TPG_OPT,
    prep_time: float = PREP_OPT,
    db: Path = DB_OPT,
    plot: Optional[Path] = typer.Option(None, "--plot", help="Write the mean ± standard error per setting as a PNG (FILE.png, or a name without suffix)."),
    json_out: bool = JSON_OPT,
    quiet: bool = QUIET_OPT,
    backend: str = BACKEND_OPT,
    address: Optional[str] = ADDRESS_OPT,
    classpath: Optional[str] = CLASSPATH_OPT,
    memory_limit: int = MEMORY_OPT,
    secret: Optional[str] = SECRET_OPT,
) -> None:
    """Play a player over a grid (or random sample) of its parameters; print the mean with
    standard error per setting (each setting is a resumable run in the result store)."""
    use_classpath(classpath)
    check_run_options(games, seed, time_per_game, prep_time, memory_limit)
    secret = check_secret(secret)
    ps = point_system(system)
    workers = _check_workers(workers)
    check_backend(backend, address)
    checked_player(player)
    warn_oversubscribed([player], workers, backend)
    params = dict(parse_param(p) for p in param)
    if len(params) != len(param):
        raise fail("--param names a parameter twice")
    if sample_seed is not None and sample is None:
        raise fail("--sample-seed goes with --sample (it seeds the draw of the settings)")
    fixed = set(parse_player_spec(player)[1])
    both = [name for name in params if name in fixed]
    if both:  # the setting's value would silently replace the spec's
        raise fail(f"--param {both[0]} is fixed in --player {player!r}; sweep it or fix it, not both")
    draw_seed = seed if sample_seed is None else sample_seed
    grid = settings(params, sample, draw_seed)
    for setting in grid:
        built_player(setting_spec(player, setting), "--param")  # a parameter the player does not take fails here
    check_saved_states([player], [ps])
    if plot is not None:  # plot_sweep writes PNG only
        check_output(plot, "--plot", db=db, suffixes=(".png",), example="sweep.png")
    with ResultStore(db) as store, backend_session(backend, address):
        progress = _Progress(games * len(grid), f"sweep {player}", not (quiet or json_out))
        try:
            rows = run_sweep(player, grid, ps, games, seed, store, time_per_game=time_per_game,
                             prep_time=prep_time, workers=workers, backend=backend, address=address,
                             on_result=lambda k, r: progress.update(r.score), memory_mb=memory_limit,
                             on_held=lambda k, recs: progress.held(recs), secret=secret)
        finally:
            progress.close()
    if plot is not None:  # written beside it and moved over it: an interrupted plot leaves the old one whole
        save_plot(lambda name: plot_sweep(rows, name, f"{player} on {ps.name}, {games} games per setting"), plot)
    if json_out:
        typer.echo(_json(rows))  # a setting of one game has no standard error: null, not NaN
        return
    names = list(rows[0]["params"])
    width = max(10, *(len(n) for n in names)) + 2
    typer.echo("".join(f"{n:>{width}}" for n in names)
               + f"{'mean':>10}{'stderr':>9}{'games':>7}{'penalties':>10}{'run':>6}")
    def se(r, width=0):
        return f"{r['stderr']:>{width}.2f}" if math.isfinite(r["stderr"]) else f"{'-':>{width}}"
    for r in rows:
        typer.echo("".join(f"{str(r['params'][n]):>{width}}" for n in names)
                   + f"{r['mean']:>10.2f}{se(r, 9)}{r['games']:>7}{r['penalties']:>10}{r['run_id']:>6}")
    best = max(rows, key=lambda r: r["mean"])
    typer.echo(f"best: {best['player']}  mean {best['mean']:.2f} ± {se(best)}, "
               f"{best['penalties']} of {best['games']} game{'s' if best['games'] != 1 else ''} penalised"
               + (f"; plot in {plot}" if plot is not None else ""))
    penalised = sum(r["penalties"] for r in rows)
    if penalised:
        typer.echo(f"warning: {penalised} game{'s' if penalised != 1 else ''} scored the penalty (`pokersquares "
                   f"results --db {db}` lists the runs; their reasons are in the export)", err=True)
