"""``pokersquares demo``: the README's main job, a short tour of the toolkit."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Optional

import numpy as np
import typer

from ..harness.registry import list_players
from ..harness.store import ResultStore
from ..harness.tournament import run_tournament
from ..harness.warm_up import warm_up_players
from ..kernels import random_games
from ..points import AMERICAN, CONTEST_SEED, SPEC_HELP
from ..harness.runner import DEFAULT_MEMORY_MB
from . import CONTEST_SHARED_HELP, app, check_result_store, point_systems
from .harness import (DB_OPT, _Progress, _say_taken, check_player_list, check_run_options, check_system_list,
                      print_table, play_cmd)

DEMO_SYSTEMS = f"american;british;ameritish:{CONTEST_SEED}"  # three of the contest's twelve


@app.command("demo")
def demo_cmd(
    games: int = typer.Option(4, "--games", "-n", min=1, help="Games per player and point system."),
    players: Optional[str] = typer.Option(None, "--players", help="Players separated by commas or ';', each NAME or "
                                            "NAME:key=value,... (default: every registered one)."),
    systems: str = typer.Option(DEMO_SYSTEMS, "--systems", help="Point systems of the tournament, separated by commas or ';' (';' where a spec is ten integers), "
                                "or 'contest' for the twelve of 2016 (" + CONTEST_SHARED_HELP + "). " + SPEC_HELP),
    prep_time: float = typer.Option(1.0, "--prep-time", help="Preprocessing seconds per system (the contest gave 300)."),
    time_per_game: float = typer.Option(1.0, "--time-per-game", help="Decision seconds per game (the contest gave 30)."),
    db: Path = DB_OPT,
) -> None:
    """A greedy game, 1,000 random games, then a short tournament of the registered agents."""
    start = time.monotonic()
    check_run_options(games, 0, time_per_game, prep_time, 0)
    pss = check_system_list(point_systems(systems), systems)
    names = check_player_list(players, "--players") if players is not None else [p.name for p in list_players()]
    check_result_store(db)  # a folder or a foreign file is said before minutes of compiling
    typer.echo("== Compiling the agents' kernels (once: numba caches them for every later run) ==")

    def ready(spec: str, done: int, total: int) -> None:
        end = "\n" if done == total else ""
        sys.stderr.write(f"\r  {done}/{total} agents ready ({spec}), {time.monotonic() - start:.0f} s{end}")
        sys.stderr.flush()

    warm_up_players(names + ["greedy"] if "greedy" not in names else names, on_ready=ready)
    typer.echo("\n== One game of the greedy player, American scoring, seed 0 ==")
    # Every option given: an omitted one would be its typer.Option default, a truthy object
    # (--retry-penalties would forget the store's penalised game).
    play_cmd(player="greedy", system="american", seed=0, time_per_game=30.0, prep_time=0.0, db=db, json_out=False,
             classpath=None, memory_limit=DEFAULT_MEMORY_MB, retry_penalties=False)
    scores = random_games(1000, 0, np.array(AMERICAN.points, dtype=np.int64))
    typer.echo(f"\n== 1,000 random games (numba kernel): mean {scores.mean():.2f}, sd {scores.std(ddof=1):.2f} "
               "(the 2013 slides: 14.4, sd 7.6) ==")
    typer.echo(f"\n== Tournament: {', '.join(names)}; {len(pss)} point system{'s' if len(pss) != 1 else ''} "
               f"({', '.join(s.name for s in pss)}), {games} game{'s' if games != 1 else ''} each, "
               f"{prep_time:g} s preparation, {time_per_game:g} s per game ==")
    with ResultStore(db) as store:
        progress = _Progress(games * len(names) * len(pss), "tournament", True)
        try:
            table = run_tournament(names, pss, games, 0, store, time_per_game=time_per_game,
                                   prep_time=prep_time, on_result=lambda s, p, r: progress.update(r.score),
                                   on_held=lambda s, p, recs: progress.held(recs),
                                   on_taken=lambda taken: _say_taken(taken, progress.say))
        finally:
            progress.close()
    print_table(table)
    typer.echo(f"\n(2016 contest, 12 systems: BeeMo 11.821, GettysburgPlayer 11.763, Tiger 11.334; "
               f"`pokersquares demo --systems contest` plays all twelve; this took {time.monotonic() - start:.0f} s; "
               f"results stored in {db})")
