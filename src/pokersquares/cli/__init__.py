"""The ``pokersquares`` command line: a thin shell over library calls.

Each group of subcommands lives in its own module and registers itself on ``app``.
``main`` turns any bad-input error into a one-line message and exit code 2.
"""

from __future__ import annotations

import os
import sys

import typer

from ..errors import PokerSquaresError

app = typer.Typer(
    name="pokersquares",
    help="Parameterized Poker Squares: the 2016 EAAI contest rules, harness and agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _load_subcommands() -> None:
    # Each module of this package registers its subcommands on ``app`` when imported.
    import importlib
    import pkgutil

    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")


def fail(message: str, code: int = 2) -> "typer.Exit":
    """Print a one-line error and return an exit to raise."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


def main() -> None:
    _load_subcommands()
    try:
        app()
    except PokerSquaresError as e:
        typer.echo(f"error: {e}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        typer.echo("interrupted (finished games are recorded; run the same command again to resume)", err=True)
        sys.exit(130)
    except Exception as e:  # a bug of ours: still one line, with a way to see the traceback
        if os.environ.get("POKERSQUARES_DEBUG"):
            raise
        typer.echo(f"internal error: {type(e).__name__}: {e} (set POKERSQUARES_DEBUG=1 for the traceback)", err=True)
        sys.exit(1)
