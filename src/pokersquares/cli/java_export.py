"""``export-java`` and ``stdio-player``: this toolkit's players in the contest's Java framework."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..cards import check_seed
from ..java_export import JavaExportError, export_java, python_here, serve
from . import app


@app.command("export-java")
def export_java_cmd(
    player: str = typer.Option("champion", "--player", "-p", help="A registered player (see `players`), "
                               "NAME:key=value,... or module.path:Class."),
    out: Path = typer.Option(Path("."), "--out", "-o", help="The folder to write the class into (created if "
                             "missing; its parent must exist)."),
    class_name: Optional[str] = typer.Option(None, "--class-name", help="The Java class's name (default: Py "
                                             "and the player's name, e.g. PyChampion)."),
    classpath: Optional[str] = typer.Option(None, "--classpath", help="The contest framework's classes "
                                            "(PokerSquaresPlayer, PokerSquaresPointSystem, Card), as "
                                            "PATH[:PATH...], to compile against (default: $CLASSPATH)."),
    compile_: bool = typer.Option(True, "--compile/--no-compile", help="Compile the class with javac (needs "
                                  "--classpath); --no-compile writes the sources only."),
    python: Optional[str] = typer.Option(None, "--python", help="The Python the class runs (default: this "
                                         "one, where pokersquares is installed)."),
) -> None:
    """Write a Java class that plays as PLAYER inside the 2016 contest's Java framework
    (a PokerSquaresPlayer: `new PyChampion()` in a Java tournament), and compile it
    against the framework's classes. It runs `python -m pokersquares stdio-player`."""
    removed: list[str] = []
    try:
        files = export_java(player, out, class_name, classpath, compile_, python,
                            on_removed=lambda path, why: removed.append(f"removed {path} ({why})"),
                            on_note=lambda note: typer.echo(f"note: {note}", err=True))
    except JavaExportError:
        for line in removed:  # before a file it could not remove
            typer.echo(line)
        raise
    name = files[1].stem
    for f in files:
        typer.echo(f"wrote {f}")
    for line in removed:
        typer.echo(line)
    typer.echo(f"in a Java tournament{'' if compile_ else ', once compiled'}: new {name}() (classpath: the "
               f"framework's classes and {out})")
    why = python_here(python) if python is not None else None
    if why:
        typer.echo(f"warning: --python {python}: {why}; the class starts it at its first game (for a class to "
                   "run on another machine, where it runs, this is no matter)", err=True)


@app.command("stdio-player")
def stdio_player_cmd(
    player: str = typer.Option("champion", "--player", "-p", help="A registered player (see `players`), "
                               "NAME:key=value,... or module.path:Class."),
    seed: int = typer.Option(0, "--seed", help="The player's own random seed."),
) -> None:
    """Serve PLAYER over a line protocol on stdin/stdout, for the Java class `export-java`
    writes. Its first line says "ready NAME" (the player's name) once the player is built
    and warmed up, or "error WHY" if it cannot be built (exit code 2). Then it answers
    "system P0..P9 MILLIS" and "init" with "ok", "play CARD_ID MILLIS" with "play R C", and
    a command that fails with "raised WHY"; "quit" or the end of stdin ends it."""
    check_seed(seed, "--seed")
    raise typer.Exit(serve(player, seed))
