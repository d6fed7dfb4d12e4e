"""Engine subcommands: deal, system, classify, bench."""

from __future__ import annotations

import json
import math
from typing import Optional

import typer

from ..cards import card_name, deal, parse_cards
from ..hands import HAND_NAMES, classify
from ..points import contest_words
from . import CONTEST_SHARED_HELP, app, check_output, fail, point_system, point_systems

JSON_OPT = typer.Option(False, "--json", help="Print machine-readable JSON.")
EXPECTED_DEFAULT = "benchmarks/strength_expected.json"


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
    spec: str = typer.Argument(..., help="american, british, ameritish:SEED, random:SEED, hypercorner:SEED, single:HAND, "
                                         "or 10 integers; or 'contest' (the twelve of 2016; " + CONTEST_SHARED_HELP
                                         + "): each a table, in --json a list"),
    json_out: bool = JSON_OPT,
) -> None:
    """Print a point system as a table (or the contest's twelve, to publish an edition's)."""
    twelve = contest_words(spec) is not None
    systems = point_systems(spec) if twelve else [point_system(spec)]
    if json_out:
        docs = [ps.to_json() for ps in systems]
        typer.echo(json.dumps(docs if twelve else docs[0]))
        return
    for k, ps in enumerate(systems):
        typer.echo(("\n" if k else "") + ps.name)
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
    only: list[str] = typer.Option(None, "--only", metavar="<str>", help="Run only these benchmarks (repeatable)."),
    repeats: Optional[int] = typer.Option(None, "--repeats", help="Repeats per figure, 1 to 1,000 (default: 5); "
                                          "the median is reported."),
    scale: Optional[float] = typer.Option(None, "--scale", help="Shrink (or grow) the work per repeat, 0.0001 to "
                                          "1000 (default: 1)."),
    strength: bool = typer.Option(False, "--strength", help="Playing strength instead: each agent's mean on "
                                  "fixed deals with fixed work (deterministic; a few minutes), compared "
                                  "with the expected figures."),
    expected: str = typer.Option(EXPECTED_DEFAULT, "--expected",
                                 help="With --strength: the expected figures (a JSON file; the default, the "
                                      "repository's, is read relative to the current folder: run from the "
                                      "repository's root; with --update, created if missing)."),
    update: bool = typer.Option(False, "--update", help="With --strength: store the figures measured as "
                                "the expected ones."),
    json_out: bool = JSON_OPT,
) -> None:
    """Measure throughputs (median of several repeats, one core unless named otherwise),
    or with --strength each agent's playing strength at fixed work."""
    if strength:
        # Fixed work per agent: a --repeats or --scale would be ignored, the run no shorter.
        if repeats is not None or scale is not None:  # even at their defaults' values: given, and ignored
            raise fail(f"{'--repeats' if repeats is not None else '--scale'} goes with the throughputs, not --strength "
                       "(each agent's figure comes from fixed work; --only chooses the agents)")
        _strength(only or None, expected, update, json_out)
        return
    if update:
        raise fail("--update goes with --strength (it stores the measured strength figures in --expected)")
    if expected != EXPECTED_DEFAULT:
        raise fail("--expected goes with --strength (the expected strength figures)")
    from ..bench import BenchError, run_benchmarks
    repeats = 5 if repeats is None else repeats
    scale = 1.0 if scale is None else scale
    if not (math.isfinite(scale) and 0.0001 <= scale <= 1000):
        raise fail(f"--scale must be from 0.0001 to 1000, got {scale:g}")
    try:
        result = run_benchmarks(only or None, repeats=repeats, scale=scale)
    except BenchError as e:  # the repeat count: its message names --repeats
        raise fail(str(e)) from None
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--only") from None
    if json_out:
        typer.echo(json.dumps(result))
    else:
        for k, v in result.items():
            typer.echo(f"{k:>36}: {v:,}" if isinstance(v, (int, float)) else f"{k}: {v}")


def _strength(only: list[str] | None, expected_path: str, update: bool, json_out: bool) -> None:
    from pathlib import Path

    from ..files import write_atomically
    from ..strength import AGENTS, compare, run_strength
    unknown = sorted(set(only or ()) - {a.name for a in AGENTS})
    if unknown:
        raise typer.BadParameter(f"unknown agent {unknown[0]!r}; known: {', '.join(a.name for a in AGENTS)}",
                                 param_hint="--only")
    expected = _read_expected(Path(expected_path), update, default=expected_path == EXPECTED_DEFAULT)
    try:
        measured = run_strength(only, progress=None if json_out else typer.echo)
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--only") from None
    warnings = compare(measured, expected)
    if update:
        try:
            write_atomically(expected_path, json.dumps({**expected, **measured}, indent=1) + "\n")
        except OSError as e:
            raise fail(f"cannot write --expected {expected_path!r}: {e.strerror or e}") from None
    if json_out:
        typer.echo(json.dumps({"strength": measured, "expected": expected, "warnings": warnings}))
    else:
        for w in warnings:
            typer.echo(f"warning: {w}", err=True)
        if not warnings and expected:
            typer.echo(f"every figure within {2:g} standard errors of {expected_path} or above it")


def _read_expected(path, update: bool, default: bool = False) -> dict:
    """``--expected``, read before any benchmark runs: a JSON object of figures; a missing
    file is an error, unless ``--update`` is to create it (then its folder is checked).
    The default is the repository's file, relative to the current folder: outside the
    repository (an installed wheel) it is missing, and the error says where it is."""
    if default and not path.exists() and not (update and path.parent.is_dir()):
        raise fail(f"no expected figures at {str(path)!r}: the file is in the repository's benchmarks/ folder; "
                   "run from the repository root or give --expected FILE")
    if update:
        check_output(path, "--expected", example="strength_expected.json")
    if not path.exists():
        if update:
            return {}
        raise fail(f"no expected figures at {str(path)!r} (give --expected FILE, or add --update to create it "
                   "from the figures measured)")
    if path.is_dir():
        raise fail(f"--expected {str(path)!r} is a folder; give the JSON file of expected figures")
    if not path.is_file():  # a pipe would be waited on, /dev/zero read without end
        raise fail(f"--expected {str(path)!r} is not a regular file; give the JSON file of expected figures")
    try:
        expected = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as e:
        raise fail(f"--expected {str(path)!r} is not a JSON file of expected figures ({e})") from None
    if not isinstance(expected, dict) or not all(
            isinstance(v, dict) and all(isinstance(v.get(k), (int, float)) and not isinstance(v.get(k), bool)
                                        for k in ("mean", "se")) for v in expected.values()):
        raise fail(f"--expected {str(path)!r} is not a JSON object of expected figures "
                   '({"agent": {"mean": ..., "se": ...}, ...})')
    # A NaN mean (JSON's NaN, or 1e999 read as inf) passed every comparison unwarned, and
    # --json printed it back as NaN, which is not JSON; a negative se warned of every figure.
    for name, v in expected.items():
        if not (_finite(v["mean"]) and _finite(v["se"]) and v["se"] >= 0):
            shown = ", ".join(f"{k} {_short(v[k])}" for k in ("mean", "se"))
            raise fail(f"--expected {str(path)!r}: {name}'s mean and se must be finite numbers, the se at least 0; "
                       f"got {shown}")
    return expected


def _finite(x) -> bool:
    """A finite number (an integer too large for a float is not: it overflowed the comparisons)."""
    try:
        return math.isfinite(x)
    except OverflowError:
        return False


def _short(x) -> str:
    text = str(x)
    return text if len(text) <= 20 else f"{text[:12]}... ({len(text)} digits)"
