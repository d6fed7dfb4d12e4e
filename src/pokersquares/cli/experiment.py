"""``pokersquares experiment ...``: reproductions of the papers' tables.

Each agent's module adds its own command to ``experiment_app``::

    from .experiment import experiment_app

    @experiment_app.command("tiger")
    def tiger_cmd(...): ...
"""

from __future__ import annotations

import typer

from . import app

__all__ = ["experiment_app"]

experiment_app = typer.Typer(
    name="experiment",
    help="Reproduce the papers' tables, printing our figures beside theirs.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(experiment_app, name="experiment")
