"""Command lines for tests that start from a command's small defaults and change some:
each option given once, as a user writes it. Given again, the command would keep the
last value and say so in a ``note:`` line before its error (tests/cli/test_repeated_options_cli.py),
where these tests read one line."""

from __future__ import annotations

import typer.main


def _command(words):
    """The Click command ``pokersquares WORDS`` runs (``["experiment", "tiger"]``)."""
    from pokersquares.cli import _load_subcommands, app

    _load_subcommands()
    command = typer.main.get_command(app)
    for word in words:
        command = command.commands[word]
    return command


def once_each(words, base, *more) -> list:
    """``[*base, *more]`` without the options of ``base`` that ``more`` gives again
    (by any of their flags: ``-n`` is ``--games``), with their values; ``words`` name
    the command, whose options tell a switch from an option with a value."""
    options = {flag: p for p in _command(words).params if p.param_type_name == "option"
               for flag in (*p.opts, *p.secondary_opts)}

    def option_of(word):
        return options.get(str(word).split("=", 1)[0]) if str(word).startswith("-") else None

    again = {option_of(w) for w in more} - {None}
    kept, base = [], list(base)
    while base:
        word = base.pop(0)
        option = option_of(word)
        takes_value = option is not None and not option.is_flag and "=" not in str(word)
        value = [base.pop(0)] if takes_value and base else []
        if option not in again:  # a word of no option (None) too
            kept += [word, *value]
    return [*kept, *more]


def experiment_words(words, *more) -> list:
    """``words`` of an experiment (its name, then its options: ``("tiger", "-n", "1")``)
    with ``more`` in place of the options they give again."""
    return [words[0], *once_each(["experiment", words[0]], words[1:], *more)]
