"""``pokersquares demo``: the README's main job, a short tour of the toolkit."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import numpy as np
import typer

from ..harness.registry import list_players
from ..harness.store import ResultStore
from ..harness.tournament import run_tournament
from ..kernels import random_games
from ..points import AMERICAN, contest_systems
from . import app
from .harness import DB_OPT, _Progress, print_table, play_cmd


@app.command("demo")
def demo_cmd(
    games: int = typer.Option(2, "--games", "-n", min=1, help="Games per player and contest system."),
    players: Optional[str] = typer.Option(None, "--players", help="Comma-separated players (default: every registered one)."),
    prep_time: float = typer.Option(2.0, "--prep-time", min=0.0, help="Preprocessing seconds per system (the contest gave 300)."),
    time_per_game: float = typer.Option(1.0, "--time-per-game", min=0.01, help="Decision seconds per game (the contest gave 30)."),
    db: Path = DB_OPT,
) -> None:
    """A greedy game, 1,000 random games, then a short contest tournament of the registered agents."""
    typer.echo("== One game of the greedy player, American scoring, seed 0 ==")
    play_cmd(player="greedy", system="american", seed=0, time_per_game=30.0, prep_time=0.0, db=db, json_out=False)
    scores = random_games(1000, 0, np.array(AMERICAN.points, dtype=np.int64))
    typer.echo(f"\n== 1,000 random games (numba kernel): mean {scores.mean():.2f}, sd {scores.std(ddof=1):.2f} "
               "(the 2013 slides: 14.4, sd 7.6) ==")
    names = [p.strip() for p in players.split(",")] if players else [p.name for p in list_players()]
    typer.echo(f"\n== Contest tournament: {', '.join(names)}; 12 contest systems, {games} games each, "
               f"{prep_time:g} s preparation, {time_per_game:g} s per game ==")
    systems = contest_systems()
    with ResultStore(db) as store:
        progress = _Progress(games * len(names) * len(systems), "tournament", True)
        try:
            table = run_tournament(names, systems, games, 0, store, time_per_game=time_per_game,
                                   prep_time=prep_time, on_result=lambda s, p, r: progress.update(r.score))
        finally:
            progress.close()
    print_table(table)
    typer.echo(f"\n(2016 contest: BeeMo 11.821, GettysburgPlayer 11.763, Tiger 11.334; results stored in {db})")
