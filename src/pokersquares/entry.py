"""The ``pokersquares`` command's first lines: it answers Ctrl-C and SIGTERM before it
imports anything heavy.

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


def _on_signal(signum, frame) -> None:
    if signum == signal.SIGTERM:
        raise _StoppedWhileLoading("terminated", 143)
    raise _StoppedWhileLoading("interrupted", 130)


def main() -> None:
    """Run the ``pokersquares`` command line (the console script and ``python -m``)."""
    sigint = signal.signal(signal.SIGINT, _on_signal)  # SIG_IGN under nohup: kept for later
    signal.signal(signal.SIGTERM, _on_signal)
    try:
        from .cli import main as cli_main

        cli_main(sigint=sigint)  # sets its own handlers first thing, inside its own try
    except _StoppedWhileLoading as e:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        sys.stderr.write(f"\n{e.word}\n")
        exec("")  # see cli._say_interrupted: clears CPython's unhandled-interrupt flag
        sys.exit(e.code)
