"""What the listing commands say: ``players`` with each player's parameters (the
registry's, as a bad parameter's error names them), and ``results`` with a --db help
and columns that say what they hold."""

import json
import re

import pytest

from pokersquares.errors import UnknownPlayerError
from pokersquares.harness import registry
from pokersquares.harness.registry import PlayerInfo, list_players, make_player


def _parameters_lines(out: str) -> dict[str, str]:
    """Each player's ``parameters:`` line, by the name on the line above it."""
    lines = out.splitlines()
    found = {}
    for above, line in zip(lines, lines[1:]):
        if line.startswith(" ") and line.strip().startswith("parameters: "):
            found[above.split()[0]] = line.strip()[len("parameters: "):]
    return found


def test_players_lists_each_players_parameters_as_the_registry_checks_them(cli):
    code, out, err = cli("players")
    assert code == 0, err
    listed = _parameters_lines(out)
    assert set(listed) == {p.name for p in list_players()}
    assert "cp" in listed["tiger"].split(", ") and "weights" in listed["tiger"].split(", ")
    assert listed["greedy"] == "flush_weight"
    assert {"min_search", "cores"} <= set(listed["hybrid"].split(", "))
    if "openspiel:mcts" in listed:  # with the openspiel extra installed
        assert "rollouts" in listed["openspiel:mcts"].split(", ")
    assert listed["pretrained"] == "priors, and others the player checks itself"
    # The forms no registry holds are named after the list (java:CLASS, a module's class).
    last = out.strip().splitlines()[-1]
    assert last.startswith("and, not registered: java:CLASS") and "module.path:Class" in last
    # The same list a bad parameter's error gives: one source of truth.
    for name, params in listed.items():
        if name == "pretrained":
            continue
        with pytest.raises(UnknownPlayerError) as e:
            make_player(f"{name}:no_such_parameter=1")
        assert str(e.value).endswith(f"its parameters: {params}"), (name, str(e.value))


def test_players_says_none_for_a_player_without_parameters(cli, monkeypatch):
    class Plain:
        def __init__(self):
            pass

    list_players()  # the built-in players first, as the command loads them
    monkeypatch.setitem(registry._REGISTRY, "plain", PlayerInfo("plain", Plain, "takes nothing"))
    code, out, err = cli("players")
    assert code == 0, err
    assert _parameters_lines(out)["plain"] == "none"
    code, out, err = cli("players", "--json")
    plain = [p for p in json.loads(out) if p["name"] == "plain"]
    assert plain == [{"name": "plain", "description": "takes nothing", "cores": 1, "parameters": [],
                      "other_parameters": False}]


def test_players_json_lists_the_parameters(cli):
    code, out, err = cli("players", "--json")
    assert code == 0, err
    players = {p["name"]: p for p in json.loads(out)}
    assert {"cp", "weights"} <= set(players["tiger"]["parameters"]) and not players["tiger"]["other_parameters"]
    assert players["greedy"]["parameters"] == ["flush_weight"]
    assert players["pretrained"]["parameters"] == ["priors"] and players["pretrained"]["other_parameters"]


@pytest.mark.parametrize("command", ["players", "play", "results", "compare"])
def test_a_command_without_a_progress_bar_does_not_say_json_hides_one(cli, command):
    code, out, err = cli(command, "--help")
    assert code == 0, err
    assert "progress bar" not in out and "Print machine-readable JSON." in out


@pytest.mark.parametrize("command, option", [(["tournament"], "--systems"), (["demo"], "--systems"),
                                             (["experiment", "matrix"], "--systems"), (["serve"], "--warm")])
def test_an_option_that_takes_contest_names_its_shared_reading(cli, command, option):
    """docs/contest-rules.md: 'contest:shared' plays the other reading wherever 'contest' is
    taken; the help of each such option said 'contest' alone."""
    code, out, err = cli(*command, "--help")
    assert code == 0, err
    text = " ".join(out.split())
    # the option's entry (Typer 0.15, the lowest allowed, shows its value as TEXT; today's as <str>)
    described = text[text.index(f"{option} ", text.index("Options:")):]
    described = described[:described.index(" --", 3)]  # up to the next option
    assert "'contest'" in described and "'contest:shared'" in described, described


def test_results_db_help_says_read_only_not_created(cli):
    code, out, err = cli("results", "--help")
    assert code == 0, err
    text = " ".join(out.split())
    assert "created if missing" not in text and "(read only; it must exist)" in text


def test_results_column_is_the_time_limit_and_says_so(cli, tmp_path):
    """``run`` and ``compare`` print the seconds a game used as "s/game"; the listing's
    column holds the run's limit, and is named so."""
    db = tmp_path / "r.sqlite"
    code, out, err = cli("run", "--player", "greedy", "--games", "2", "--time-per-game", "7", "--prep-time", "0",
                         "--db", db, "-q")
    assert code == 0, err
    assert re.search(r"\d\.\d{3} s/game", out)  # the seconds used, in run's summary
    code, out, err = cli("results", "--db", db)
    assert code == 0, err
    header, row = out.splitlines()[:2]
    assert "s/game" not in header and "limit s" in header
    end = header.index("limit s") + len("limit s")
    assert row[:end].split()[-1] == "7"  # the limit, right under its name


@pytest.mark.parametrize("encoding", ["cp1252", "latin-1"])
def test_a_listing_prints_on_a_terminal_without_unicode(tmp_path, encoding):
    """`compare`'s paired line holds a minus sign (U+2212) that Latin-1 and cp1252 lack:
    on such a terminal it was "internal error: UnicodeEncodeError", exit 1, the figures
    lost. Now the characters the encoding lacks are written plainly."""
    import os
    import subprocess
    import sys

    from pokersquares.harness.store import GameRecord, ResultStore
    from pokersquares.points import AMERICAN

    path = tmp_path / "s.sqlite"
    with ResultStore(path) as store:
        for player, scores in (("random", [10, 14, 9]), ("greedy", [80, 90, 70])):
            run = store.open_run(player, player, AMERICAN, 0, 3, 30.0, 0.0)
            store.add_games(run, [GameRecord(i, i, s, [], 0.01) for i, s in enumerate(scores)])
    done = subprocess.run([sys.executable, "-m", "pokersquares", "compare", str(path)], capture_output=True,
                          env={**os.environ, "PYTHONIOENCODING": encoding}, timeout=120)
    out, err = done.stdout.decode(encoding), done.stderr.decode(encoding)
    assert done.returncode == 0 and "error" not in err, err
    assert "American: random (run 1) - greedy (run 2): -69.00 \u00b1 4.36" in out, out


def _commands(group, path=()):
    """Every command of the command line, by its words: ("run",), ("experiment", "tiger"), ..."""
    for name, command in group.commands.items():
        if getattr(command, "commands", None):  # a group (typer's own, not always click's class)
            yield from _commands(command, (*path, name))
        else:
            yield (*path, name)


def test_every_help_names_what_an_option_takes_in_words_and_lists_subcommands_whole(cli):
    """An option given more than once showed Python's type (``--optima <list[Path]>``,
    ``--param <list[str]>``), and ``experiment --help`` cut two summaries at "et al."
    ("GettysburgPlayer (Neller et al.")."""
    import typer.main

    from pokersquares.cli import _load_subcommands, app

    _load_subcommands()  # each module registers its commands when imported
    commands = list(_commands(typer.main.get_command(app)))
    assert ("experiment", "gettysburg") in commands and ("sweep",) in commands
    for words in commands:
        code, out, err = cli(*words, "--help")
        assert code == 0, (words, err)
        options = out[out.index("Options:"):]
        assert "list[" not in options, (words, options)
    code, out, err = cli("experiment", "--help")
    listed = out[out.index("Commands:"):].splitlines()[1:]
    assert len(listed) == 4 and not any(line.rstrip().endswith("...") or "et al" in line for line in listed), listed


def test_results_help_says_what_player_name_holds_for_every_run(cli, tmp_path):
    """The export's player_name is the player's name (``greedy`` for a run of
    ``greedy:flush_weight=2``) for every run but a person's web game; the help said only
    "the person's name for a game played in the web app"."""
    code, out, err = cli("results", "--help")
    assert code == 0, err
    text = " ".join(out.split())
    described = text[text.index("player_name ("):text.index(", system,")]
    assert "name of the spec's player" in described and "web app" in described, described
    db = tmp_path / "r.sqlite"
    code, out, err = cli("run", "--player", "greedy:flush_weight=2", "--games", "1", "--time-per-game", "5",
                         "--prep-time", "0", "--db", db, "-q")
    assert code == 0, err
    code, out, err = cli("results", "--db", db, "--export", "json")
    assert code == 0, err
    (row,) = json.loads(out)
    assert (row["player"], row["player_name"]) == ("greedy:flush_weight=2", "greedy")
