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


# The first signal received while the command line loads: raised again once it has
# loaded if its exception was lost on the way (as pokersquares.cli does for its subcommands).
_received: list[int] = []


def _stopped(signum) -> _StoppedWhileLoading:
    return _StoppedWhileLoading(*_WORDS.get(signum, ("interrupted", 130)))


def _on_signal(signum, frame) -> None:
    _received.append(signum)
    raise _stopped(signum)


# What the command line prints beyond ASCII, and what stands for it where the output's
# encoding lacks it (a Latin-1 or cp1252 terminal, ``PYTHONIOENCODING``): ``−`` became
# "internal error: UnicodeEncodeError" in `compare`'s paired line.
_PLAIN = {"\u2212": "-", "\u2013": "-", "\u2014": "--", "\u2026": "...", "\u2192": "->", "\u00b1": "+/-",
          "\u00d7": "x", "\u2605": "*", "\u2713": "ok", "\u2248": "~", "\u2264": "<=", "\u2265": ">=",
          "\u00b7": ".", "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'}
_UNPRINTABLE = "pokersquares-plain"


def _plain(error: UnicodeEncodeError) -> tuple[str, int]:
    text = error.object[error.start:error.end]
    return "".join(_PLAIN.get(ch, "?") for ch in text), error.end


def _printable_anywhere() -> None:
    """Standard output and error write what their encoding lacks in plain ASCII (``±`` as
    ``+/-``, anything else as ``?``) instead of failing: a figure is never lost to the
    terminal's character set. UTF-8 streams are left as they are."""
    import codecs

    codecs.register_error(_UNPRINTABLE, _plain)  # type: ignore[arg-type]  # it handles encoding errors only
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("_", "-")
        if encoding not in ("utf-8", "utf8") and hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors=_UNPRINTABLE)
            except (ValueError, OSError):  # a closed or detached stream: nothing to print to
                pass


def main() -> None:
    """Run the ``pokersquares`` command line (the console script and ``python -m``)."""
    _printable_anywhere()
    sigint = signal.signal(signal.SIGINT, _on_signal)  # SIG_IGN under nohup: kept for later
    signal.signal(signal.SIGTERM, _on_signal)
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:  # a closed terminal; nohup ignores it
        signal.signal(signal.SIGHUP, _on_signal)
    try:
        try:
            from .cli import main as cli_main
        except Exception:  # a library's import put its own error in place of the signal's
            if not _received:
                raise
        if _received:  # or cleared it (C code)
            raise _stopped(_received[0])
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
    finally:
        # The command has ended, and said all it says. CPython gives the signals back to
        # the system's defaults for its last tenths of a second (it frees numba and the
        # other modules), where a Ctrl-C killed the process by the signal, unsaid, after
        # its work was done: from here a Ctrl-C is ignored, and the command's own exit
        # code stands (as after an interruption, which ignores it too).
        signal.signal(signal.SIGINT, signal.SIG_IGN)
