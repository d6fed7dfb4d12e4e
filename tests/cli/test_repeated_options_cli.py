"""An option that takes one value, given twice, is refused in one line before any work:
Click kept the last value unsaid (``tournament --players a --players b`` played b
alone). Options meant to repeat, and an option given twice alike, pass. Every command
is checked, as the command line lists them."""

import json
import os

import pytest
import typer.main

from pokersquares.cli import LIST_OPTIONS, _load_subcommands, app
from pokersquares.harness.registry import split_player_list


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


def _named(cases):
    return pytest.mark.parametrize("words, option", cases, ids=[f"{' '.join(w)} {o.opts[0]}" for w, o in cases])


def _one_value_option(words: list[str]) -> str:
    """A flag of the command ``words`` that takes one value."""
    return next(o.opts[0] for w, o in _options("one") if w == words)


def _one_line(err: str) -> str:
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err.strip()


def test_every_command_is_checked():
    assert len(COMMANDS) >= 20 and ["run"] in [w for w, _ in COMMANDS]
    assert ["experiment", "tiger"] in [w for w, _ in COMMANDS]
    assert {"--players", "--db", "--seed", "--player"} <= {f for _, o in _options("one") for f in o.opts}


@_named(_options("one"))
def test_an_option_of_one_value_given_twice_is_refused(cli, words, option):
    flag = max(option.opts, key=len)
    code, out, err = cli(*words, flag, "1", f"{flag}=2")
    assert (code, out) == (2, ""), err
    line = _one_line(err)
    assert line.startswith(f"error: {flag} given twice ('1' and '2'); it takes one value")
    assert line.endswith(f"(see pokersquares {' '.join(words)} --help)")


@_named([(w, o) for w, o in _options("one") if len(o.opts) > 1])
def test_its_short_and_long_forms_are_one_option(cli, words, option):
    short, long = sorted(option.opts, key=len)
    code, _, err = cli(*words, f"{short}1", long, "2")
    assert code == 2 and f"error: {short}/{long} given twice ('1' and '2')" in _one_line(err)


@_named(_options("multiple"))
def test_an_option_meant_to_repeat_takes_every_value(cli, words, option):
    # The command goes on past it to the next option, refused there.
    single = _one_value_option(words)
    code, _, err = cli(*words, option.opts[0], "1", option.opts[0], "2", single, "1", single, "2")
    assert code == 2 and _one_line(err).startswith(f"error: {single} given twice"), err


@_named([(w, o) for w, o in _options("flag") if any(x == w for x, _ in _options("one"))])
def test_a_switch_given_twice_the_same_way_means_it_once(cli, words, option):
    single = _one_value_option(words)
    for flag in (*option.opts, *option.secondary_opts):
        code, _, err = cli(*words, flag, flag, single, "1", single, "2")
        assert code == 2 and _one_line(err).startswith(f"error: {single} given twice"), err


@_named([(w, o) for w, o in _options("flag") if o.secondary_opts])
def test_a_switch_given_both_ways_is_refused(cli, words, option):
    on, off = option.opts[0], option.secondary_opts[0]
    code, _, err = cli(*words, on, off)
    assert code == 2 and _one_line(err) == f"error: {on} and {off} both given; give one " \
                                           f"(see pokersquares {' '.join(words)} --help)"


def test_a_command_with_switches_alone_runs_with_one_given_twice(cli):
    code, out, err = cli("players", "--json", "--json")
    assert code in (0, None) and json.loads(out), err


def test_a_value_given_twice_alike_is_taken(cli):
    code, out, err = cli("deal", "--seed", "3", "--seed=3", "--json")
    assert code in (0, None) and json.loads(out) == json.loads(cli("deal", "--seed", "3", "--json")[1]), err


def test_two_lists_of_players_say_the_one_list_meant(cli):
    first, second = "gettysburg:games=300,search=greedy", "td:games=200,td_games=100,threads=1"
    code, _, err = cli("tournament", "--players", first, "--players", second, "--systems", "american,british",
                       "--games", "3")
    assert code == 2
    meant = f"{first};{second}"
    assert _one_line(err) == (f"error: --players given twice ({first!r} and {second!r}); it takes one value, a list: "
                              f"--players {meant!r} (see pokersquares tournament --help)")
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
    code, _, err = cli(*words, flag, values[0], flag, values[1])
    assert code == 2 and f"it takes one value, a list: {flag} {meant!r} (see" in _one_line(err)


def test_other_options_say_give_it_once(cli, tmp_path):
    a, b = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    code, _, err = cli("run", "-p", "greedy", "--games", "1", "--prep-time", "0", "--db", a, "--db", b)
    assert code == 2 and f"--db given twice ({str(a)!r} and {str(b)!r}); it takes one value: give it once (" in err


def test_every_list_option_is_an_option():
    assert set(LIST_OPTIONS) <= {f for _, o in _options("one") for f in o.opts}


def test_refused_before_any_work(cli, tmp_path):
    db = tmp_path / "r.sqlite"
    code, _, err = cli("run", "-p", "greedy", "--games", "1", "--prep-time", "0", "--db", db, "--seed", "1",
                       "--seed", "2")
    assert code == 2 and "--seed given twice" in err and not db.exists()


def test_a_value_that_looks_like_an_option_is_a_value(cli, tmp_path):
    nowhere = tmp_path / "no-such-folder" / "r.sqlite"
    code, _, err = cli("run", "-p", "greedy", "--secret", "--db", "--db", nowhere)
    assert code == 2 and "given twice" not in err and "cannot create the result store" in _one_line(err)


def test_after_a_double_dash_an_option_is_an_argument(cli, tmp_path):
    code, _, err = cli("compare", "--system", "american", "--", "--system")
    assert code == 2 and "given twice" not in err and "--system" in _one_line(err)
