"""Every command line the README and docs/ quote still parses, and every player spec in
them still builds: options are renamed, refused or tightened over time, and a quoted
command that no longer runs is a reader's first error.

Parsing is the command line's own (Typer's click): option names, arguments and the
types of their values; nothing is played. Quoted commands with placeholders (``--seed
S``, ``[--json]``, ``...``, ``gettysburg|champion``) are templates and are skipped; a
command quoted inline in prose may leave out required options (``pokersquares review``
names the command), one in a code block may not.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import typer.main

from pokersquares.cli import _load_subcommands, app
from pokersquares.harness.registry import list_players, make_player, parse_player_spec, split_player_list

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PLACEHOLDER = re.compile(r"^[A-Z]{1,4}$|[\[\]|$]|\.\.\.|<|>")
SHELL = {"|", ">", ">>", "&&", ";", "&", "2>&1", "||"}
PLAYER_OPTIONS = {"--player", "-p", "--players", "--coach", "--agents"}


def quoted_commands(text: str) -> list[tuple[str, bool]]:
    """``(command, in_code_block)`` for each ``pokersquares ...`` line of a fenced block
    (with its ``\\`` continuations) and each inline ```pokersquares ...``` span."""
    found = []
    for block in re.findall(r"```[a-z]*\n(.*?)```", text, re.S):
        for line in re.sub(r"\\\n\s*", " ", block).splitlines():
            line = re.split(r"\s#", line)[0].strip()
            if line.startswith("pokersquares "):
                found.append((line, True))
    found += [(span, False) for span in re.findall(r"`(pokersquares [^`]+)`", re.sub(r"```.*?```", "", text, flags=re.S))]
    return found


def arguments(command: str) -> list[str] | None:
    """The command's arguments up to any shell operator; None for a template."""
    try:
        args = shlex.split(command)[1:]
    except ValueError:
        return None
    for i, a in enumerate(args):
        if a in SHELL:
            args = args[:i]
            break
    return None if any(PLACEHOLDER.search(a) for a in args) else args


def all_quoted() -> list[tuple[str, str, bool, list[str]]]:
    out = []
    for doc in DOCS:
        for command, in_block in quoted_commands(doc.read_text(encoding="utf-8")):
            args = arguments(command)
            if args is not None:
                out.append((doc.name, command, in_block, args))
    return out


def parse_failure(root, args: list[str], in_block: bool) -> str | None:
    command = root
    rest = list(args)
    while hasattr(command, "commands") and rest and rest[0] in command.commands:
        command = command.commands[rest.pop(0)]
    if hasattr(command, "commands"):  # a group named alone, or a subcommand that is not one
        return f"no subcommand {rest[0]!r}" if rest and not rest[0].startswith("-") else None
    try:
        command.make_context(command.name, rest)
    except Exception as e:  # noqa: BLE001: any of Typer's usage errors, reported below
        if type(e).__name__ == "Exit" and getattr(e, "exit_code", 1) == 0:  # `--help`: parsed, and answered
            return None
        missing = type(e).__name__ == "MissingParameter"
        if missing and not in_block:
            return None
        message = e.format_message() if hasattr(e, "format_message") else str(e)
        return f"{type(e).__name__}: {message}"
    return None


def test_the_docs_quote_hundreds_of_commands():
    """The extraction itself: if it found nothing, every other check here would pass."""
    quoted = all_quoted()
    assert len(quoted) >= 250, len(quoted)
    assert sum(1 for _, _, in_block, _ in quoted if in_block) >= 150
    assert {doc for doc, *_ in quoted} >= {"README.md", "results.md", "scaling.md"}


def test_every_command_the_docs_quote_parses():
    _load_subcommands()
    root = typer.main.get_command(app)
    failures = []
    for doc, command, in_block, args in all_quoted():
        failure = parse_failure(root, args, in_block)
        if failure is not None:
            failures.append(f"{doc}: {command[:120]!r}: {failure}")
    assert not failures, "\n".join(failures)


def test_no_command_the_docs_quote_is_refused_for_how_it_writes_a_number():
    """:func:`~pokersquares.cli.check_numbers` reads the command line apart from Typer:
    it must not refuse a command that Typer takes as written."""
    from pokersquares.cli import check_numbers
    from pokersquares.errors import PokerSquaresError

    refused = []
    for doc, command, _, args in all_quoted():
        try:
            check_numbers(args)
        except PokerSquaresError as e:
            refused.append(f"{doc}: {command[:120]!r}: {e}")
    assert not refused, "\n".join(refused)


def test_every_player_spec_the_docs_quote_builds():
    """Built as a command builds it before any game (no preparation): its name and every
    option checked. Specs that load a file, start a JVM or name a user's module are left
    to the tests of those."""
    builtin = {info.name.partition(":")[0] for info in list_players()}
    specs = {}
    for doc, _, _, args in all_quoted():
        for i, a in enumerate(args[:-1]):
            if a in PLAYER_OPTIONS:
                for spec in split_player_list(args[i + 1]) if a in ("--players", "--agents") else [args[i + 1]]:
                    specs.setdefault(spec, doc)
    checked = 0
    failed = []
    for spec, doc in sorted(specs.items()):
        if re.search(r"(load|priors|log)=|^java", spec) or spec.partition(":")[0] not in builtin:
            continue
        checked += 1
        try:
            parse_player_spec(spec)
            make_player(spec)
        except Exception as e:  # noqa: BLE001: the failure is the finding
            failed.append(f"{doc}: {spec!r}: {type(e).__name__}: {e}")
    assert not failed, "\n".join(failed)
    assert checked >= 20, checked


@pytest.mark.parametrize("command, in_block, fails", [
    ("pokersquares run --player greedy --gamez 3", True, "No such option"),
    ("pokersquares run --player greedy --games three", True, "games"),
    ("pokersquares tournament --games 3", True, "players"),
    ("pokersquares nosuch --x", True, "no subcommand"),
    ("pokersquares review", False, None),
    ("pokersquares run --player greedy --games 3 --seed 0 --json", True, None),
])
def test_the_check_tells_a_broken_command_from_a_sound_one(command, in_block, fails):
    _load_subcommands()
    root = typer.main.get_command(app)
    failure = parse_failure(root, arguments(command), in_block)
    assert (failure is None) if fails is None else (failure is not None and fails in failure), failure


def test_templates_are_told_from_commands():
    assert arguments("pokersquares deal --seed S") is None
    assert arguments("pokersquares serve [--host 127.0.0.1]") is None
    assert arguments("pokersquares run ... --workers 2") is None
    assert arguments("pokersquares train --player gettysburg|champion --out x.npz") is None
    assert arguments("pokersquares run -p greedy --games 3 > out.txt") == ["run", "-p", "greedy", "--games", "3"]
