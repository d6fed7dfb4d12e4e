"""An option that takes one value, given again with another value, is said in one note
line on standard error, naming the value used: Click keeps the last without a word
(``tournament --players a --players b`` played b alone, unsaid). Giving an option again
to override it still works (scripts build a command and append to it). Options meant to
repeat, and an option given twice alike, pass unsaid. Every command is checked, as the
command line lists them; an unknown option at the end stops each before any work."""

import json
import os

import pytest
import typer.main

from pokersquares.cli import LIST_OPTIONS, _load_subcommands, app
from pokersquares.harness.registry import split_player_list

STOP = "--no-such-option"  # the parser refuses it after it has read the options before it


def _commands() -> list[tuple[list[str], object]]:
    """Every command as its words (``["experiment", "tiger"]``) and its Click command."""
    _load_subcommands()

    def walk(command, words):
        if getattr(command, "commands", None):
            for name, sub in sorted(command.commands.items()):
                yield from walk(sub, [*words, name])
        else:
            yield words, command
    return list(walk(typer.main.get_command(app), []))


COMMANDS = _commands()
COMMANDS_BY_WORDS = [(" ".join(words), command) for words, command in COMMANDS]


def _options(kind: str) -> list[tuple[list[str], object]]:
    """Each command's options of one kind: "one" (one value), "multiple", "flag"."""
    found = []
    for words, command in COMMANDS:
        for p in command.params:
            if p.param_type_name != "option":
                continue
            if (p.multiple, p.is_flag) == {"one": (False, False), "multiple": (True, False), "flag": (False, True)}[kind]:
                found.append((words, p))
    return found


def _notes(err: str) -> list[str]:
    """The note lines of a command stopped by :data:`STOP`; its last line is that refusal."""
    lines = err.splitlines()
    assert "Traceback" not in err and lines and lines[-1].startswith(f"error: No such option: {STOP}"), err
    return lines[:-1]


def test_every_command_is_checked():
    assert len(COMMANDS) >= 20 and ["run"] in [w for w, _ in COMMANDS]
    assert ["experiment", "tiger"] in [w for w, _ in COMMANDS]
    assert {"--players", "--db", "--seed", "--player"} <= {f for _, o in _options("one") for f in o.opts}


def _per_command(kind: str, keep=lambda option: True):
    """A parametrisation by command: each command with its options of ``kind``, all
    given in one command line (one call per command, not per option)."""
    commands = {}
    for words, option in _options(kind):
        if keep(option):
            commands.setdefault(tuple(words), []).append(option)
    return pytest.mark.parametrize("words, options", [(list(w), o) for w, o in commands.items()],
                                   ids=[" ".join(w) for w in commands])


def _list_hint(flag: str, *values: str) -> str:
    if flag not in LIST_OPTIONS:
        return ""
    return f"; for {'both' if len(values) == 2 else 'all'}, a list: {flag} {LIST_OPTIONS[flag][0].join(values)!r}"


@_per_command("one")
def test_an_option_of_one_value_given_again_says_the_value_used(cli, words, options):
    given, said = [], []
    for option in options:
        flag = max(option.opts, key=len)
        given += [flag, "1", f"{flag}=2", f"{flag}=3"]
        said.append(f"note: {flag} given 3 times; the last value, '3', is used (not '1', '2')"
                    + _list_hint(flag, "1", "2", "3"))
    code, out, err = cli(*words, *given, STOP)
    # One line per option, naming the value the command uses: the last, as Click's.
    assert (code, out) == (2, "") and sorted(_notes(err)) == sorted(said), err


@_per_command("one", keep=lambda option: len(option.opts) > 1)
def test_its_short_and_long_forms_are_one_option(cli, words, options):
    given, said = [], []
    for option in options:
        short, long = sorted(option.opts, key=len)
        given += [f"{short}1", long, "2"]
        said.append(f"note: {short}/{long} given twice; the last value, '2', is used (not '1')"
                    + _list_hint(long, "1", "2"))
    code, _, err = cli(*words, *given, STOP)
    assert code == 2 and sorted(_notes(err)) == sorted(said), err


@_per_command("multiple")
def test_an_option_meant_to_repeat_takes_every_value_unsaid(cli, words, options):
    code, _, err = cli(*words, *[w for o in options for w in (o.opts[0], "1", o.opts[0], "2")], STOP)
    assert code == 2 and _notes(err) == [], err


@_per_command("flag")
def test_a_switch_given_twice_the_same_way_is_unsaid(cli, words, options):
    for way in ("opts", "secondary_opts"):
        code, _, err = cli(*words, *[w for o in options for flag in getattr(o, way)[:1] for w in (flag, flag)], STOP)
        assert code == 2 and _notes(err) == [], err


@_per_command("flag", keep=lambda option: bool(option.secondary_opts))
def test_a_switch_given_both_ways_says_the_last_is_used(cli, words, options):
    for order in ("on, off", "off, on, on"):
        given, said = [], []
        for option in options:
            on, off = option.opts[0], option.secondary_opts[0]
            flags = (on, off) if order == "on, off" else (off, on, on)
            given += flags
            said.append(f"note: {flags[0]} and {flags[1]} both given; the last, {flags[-1]}, is used")
        code, _, err = cli(*words, *given, STOP)
        assert code == 2 and sorted(_notes(err)) == sorted(said), err


def test_a_command_with_switches_alone_runs_with_one_given_twice(cli):
    code, out, err = cli("players", "--json", "--json")
    assert code in (0, None) and json.loads(out) and err == ""


def test_a_value_given_twice_alike_is_taken_unsaid(cli):
    code, out, err = cli("deal", "--seed", "3", "--seed=3", "--json")
    assert code in (0, None) and err == "" and json.loads(out) == json.loads(cli("deal", "--seed", "3", "--json")[1])


def test_the_last_value_is_the_one_the_command_uses(cli):
    code, out, err = cli("deal", "--seed", "4", "--seed", "3", "--json")
    assert code in (0, None) and json.loads(out) == json.loads(cli("deal", "--seed", "3", "--json")[1])
    assert err == "note: --seed given twice; the last value, '3', is used (not '4')\n"


def test_two_lists_of_players_say_the_one_list_meant(cli):
    first, second = "gettysburg:games=300,search=greedy", "td:games=200,td_games=100,threads=1"
    code, _, err = cli("tournament", "--players", first, "--players", second, "--systems", "american,british", STOP)
    meant = f"{first};{second}"
    assert code == 2 and _notes(err) == [f"note: --players given twice; the last value, {second!r}, is used "
                                         f"(not {first!r}); for both, a list: --players {meant!r}"]
    assert split_player_list(meant) == [first, second]  # the list said plays both


@pytest.mark.parametrize("words, flag, values, meant", [
    (["tournament", "--players", "greedy"], "--systems", ("american", "british"), "american,british"),
    (["demo"], "--players", ("greedy", "random"), "greedy,random"),
    (["serve"], "--warm", ("american", "british"), "american;british"),
    (["optimum"], "--seeds", ("1", "2"), "1,2"),
    (["experiment", "tiger"], "--parts", ("table3", "cp"), "table3,cp"),
    (["run", "-p", "java:Player"], "--classpath", ("a.jar", "b"), f"a.jar{os.pathsep}b"),
])
def test_a_list_option_given_twice_says_the_list(cli, words, flag, values, meant):
    code, _, err = cli(*words, flag, values[0], flag, values[1], STOP)
    assert code == 2 and _notes(err)[0].endswith(f"; for both, a list: {flag} {meant!r}")


def test_every_list_option_is_an_option():
    assert set(LIST_OPTIONS) <= {f for _, o in _options("one") for f in o.opts}


def test_a_value_that_looks_like_an_option_is_a_value(cli, tmp_path):
    nowhere = tmp_path / "no-such-folder" / "r.sqlite"
    code, _, err = cli("run", "-p", "greedy", "--secret", "--db", "--db", nowhere)
    assert code == 2 and "given twice" not in err and "cannot create the result store" in err
    assert err.count("\n") == 1


def test_after_a_double_dash_an_option_is_an_argument(cli):
    code, _, err = cli("compare", "--system", "american", "--", "--system")
    assert code == 2 and "given twice" not in err and "--system" in err and err.count("\n") == 1


def test_a_click_whose_parser_keeps_its_options_otherwise_runs_the_command_unsaid(cli, monkeypatch):
    # The note reads Click's parser's own tables of flags: a Click without them still runs
    # every command (the last value kept, as ever), only without the note.
    deal = dict(COMMANDS_BY_WORDS)["deal"]
    # Click's Command (or Typer's copy of it), where make_parser is defined
    owner = next(cls for cls in type(deal).__mro__ if "make_parser" in vars(cls))
    make_parser = owner.make_parser

    class Other:
        def __init__(self, parser):
            self._parser = parser

        def __getattr__(self, name):  # all but the tables of flags
            if name in ("_long_opt", "_short_opt"):
                raise AttributeError(name)
            return getattr(self._parser, name)

    monkeypatch.setattr(owner, "make_parser", lambda self, ctx: Other(make_parser(self, ctx)))
    code, out, err = cli("deal", "--seed", "4", "--seed", "3", "--json")
    assert code in (0, None) and err == ""
    assert json.loads(out) == json.loads(cli("deal", "--seed", "3", "--json")[1])
