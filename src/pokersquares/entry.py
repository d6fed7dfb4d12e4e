"""The ``pokersquares`` command's first lines: it answers Ctrl-C, SIGTERM and SIGHUP
before it imports anything heavy.

Loading the command line (typer, numpy, numba) takes a few tenths of a second; a signal
in that time would otherwise end the command with Python's traceback of an import.
Nothing is written in that time, so the command says one word and stops.
:func:`pokersquares.cli.main` takes the signals over once it is loaded.
"""

from __future__ import annotations

import signal
import sys


class _StoppedWhileLoading(BaseException):
    def __init__(self, word: str, code: int) -> None:
        super().__init__(word)
        self.word, self.code = word, code


_WORDS = {signal.SIGTERM: ("terminated", 143), signal.SIGHUP: ("hung up", 129)}  # as cli.STOP_SIGNALS


def _on_signal(signum, frame) -> None:
    raise _StoppedWhileLoading(*_WORDS.get(signum, ("interrupted", 130)))


def main() -> None:
    """Run the ``pokersquares`` command line (the console script and ``python -m``)."""
    sigint = signal.signal(signal.SIGINT, _on_signal)  # SIG_IGN under nohup: kept for later
    signal.signal(signal.SIGTERM, _on_signal)
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:  # a closed terminal; nohup ignores it
        signal.signal(signal.SIGHUP, _on_signal)
    try:
        from .cli import main as cli_main

        cli_main(sigint=sigint)  # sets its own handlers first thing, inside its own try
    except _StoppedWhileLoading as e:
        for signum in (signal.SIGINT, *_WORDS):
            signal.signal(signum, signal.SIG_IGN)
        try:
            sys.stderr.write(f"\n{e.word}\n")
        except OSError:  # a terminal that hung up
            pass
        exec("")  # see cli._say_interrupted: clears CPython's unhandled-interrupt flag
        sys.exit(e.code)
