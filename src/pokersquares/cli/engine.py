"""Engine subcommands: deal, system, classify, bench."""

from __future__ import annotations

import json

import typer

from ..cards import card_name, deal, parse_cards
from ..hands import HAND_NAMES, classify
from ..points import parse_point_system
from . import app

JSON_OPT = typer.Option(False, "--json", help="Print machine-readable JSON.")


@app.command("deal")
def deal_cmd(
    seed: int = typer.Option(..., "--seed", help="The game's seed (contest framework: game i of a run from S uses S+i)."),
    json_out: bool = JSON_OPT,
) -> None:
    """Print the 52 cards in the order the contest framework deals them for SEED."""
    names = [card_name(c) for c in deal(seed)]
    typer.echo(json.dumps(names) if json_out else " ".join(names))


@app.command("system")
def system_cmd(
    spec: str = typer.Argument(..., help="american, british, ameritish:SEED, random:SEED, hypercorner:SEED, single:HAND, or 10 integers"),
    json_out: bool = JSON_OPT,
) -> None:
    """Print a point system as a table."""
    ps = parse_point_system(spec)
    if json_out:
        typer.echo(json.dumps(ps.to_json()))
        return
    typer.echo(ps.name)
    for i, name, pts in ps.table():
        typer.echo(f"  {i}  {name:<16} {pts:5d}")


@app.command("classify")
def classify_cmd(
    cards: list[str] = typer.Argument(..., help="Five cards, e.g. TS JS QS KS AS (10 and lower case accepted)"),
    json_out: bool = JSON_OPT,
) -> None:
    """Classify a five-card hand."""
    hand = classify(parse_cards(cards, count=5))
    if json_out:
        typer.echo(json.dumps({"hand": HAND_NAMES[hand], "id": int(hand)}))
    else:
        typer.echo(f"{HAND_NAMES[hand]} ({int(hand)})")


@app.command("bench")
def bench_cmd(
    only: list[str] = typer.Option(None, "--only", help="Run only these benchmarks (repeatable)."),
    repeats: int = typer.Option(5, "--repeats", min=1, help="Repeats per figure; the median is reported."),
    scale: float = typer.Option(1.0, "--scale", min=0.0001, help="Shrink (or grow) the work per repeat."),
    json_out: bool = JSON_OPT,
) -> None:
    """Measure throughputs (median of several repeats, one core unless named otherwise)."""
    from ..bench import run_benchmarks
    try:
        result = run_benchmarks(only or None, repeats=repeats, scale=scale)
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--only") from None
    if json_out:
        typer.echo(json.dumps(result))
    else:
        for k, v in result.items():
            typer.echo(f"{k:>36}: {v:,}" if isinstance(v, (int, float)) else f"{k}: {v}")
