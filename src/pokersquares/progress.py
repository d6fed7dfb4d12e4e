"""What a player's preparation is doing (compiling its kernels, learning), for whoever shows it.

Learners call :func:`report` as they go; nothing listens by default, so a report costs
a function call. The harness's preparation process forwards the reports it hears to
the parent process (over its pipe), where the command line shows them on one line
of stderr. Reports reach the listener at most every ``MIN_INTERVAL_S`` seconds
unless forced (the first report of a stage is always forced by the caller); the
latest one held back reaches it before the next forced one, or when the block
listening ends, so a stage's last count is heard.
"""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import dataclass
from typing import Callable, Iterator

__all__ = ["Progress", "report", "report_if_slow", "listening", "with_subject", "MIN_INTERVAL_S", "SLOW_S",
           "UNLIMITED_S"]

MIN_INTERVAL_S = 0.25
SLOW_S = 1.0  # a step that takes longer than this is worth a line of its own
UNLIMITED_S = 1e6  # a budget this long is no deadline (fixed work passes 1e9 s): its seconds are not shown


@dataclass(frozen=True)
class Progress:
    """``stage``: what it does, e.g. ``"learning"``, or ``"done"`` when it ended; ``games``: games learned so far;
    ``seconds_left``: of the preparation budget (not shown from ``UNLIMITED_S`` on: no
    deadline); ``subject``: whose preparation (the harness fills it in, e.g.
    ``gettysburg on British``)."""

    stage: str
    games: int | None = None
    seconds_left: float | None = None
    subject: str = ""

    def text(self) -> str:
        parts = [f"{self.subject}: {self.stage}" if self.subject else self.stage]
        if self.games is not None:
            parts.append(f"{self.games:,} games")
        if self.seconds_left is not None and self.seconds_left < UNLIMITED_S:
            parts.append(f"{max(0.0, self.seconds_left):.1f} s left")
        return ", ".join(parts)


_listener: Callable[[Progress], None] | None = None
_lock = threading.Lock()
_last = 0.0
# The latest report the interval held back: the listener hears it before the next forced
# report, or when the block listening ends (a learner's last count, not one 0.25 s older).
_held: Progress | None = None


def report(stage: str, games: int | None = None, seconds_left: float | None = None, *,
           subject: str = "", force: bool = False) -> None:
    """Tell the listener (if any) what preparation is doing; safe from any thread."""
    global _last, _held
    listener = _listener
    if listener is None:
        return
    p = Progress(stage, None if games is None else int(games), seconds_left, subject)
    now = time.monotonic()
    with _lock:
        if not force and now - _last < MIN_INTERVAL_S:
            _held = p
            return
        _last = now
        held, _held = _held if force else None, None
    if held is not None:
        listener(held)
    listener(p)


@contextlib.contextmanager
def report_if_slow(stage: str, after_s: float | None = None, *, subject: str = "") -> Iterator[None]:
    """Report ``stage`` (forced) if the block is still running after ``after_s`` seconds
    (default ``SLOW_S``), and nothing if it ends sooner: numba compiling a player's kernels on a cold cache
    takes a minute and deserves a line; loading them from the cache takes a fraction of
    a second, and a line saying "compiling" then would be wrong. The line goes to
    whoever listens when the block starts: a warm-up that silences its own learning
    (``listening(None)``) does not silence it."""
    listener = _listener

    def say() -> None:
        if listener is not None:
            listener(Progress(stage, subject=subject))

    timer = threading.Timer(SLOW_S if after_s is None else after_s, say)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


@contextlib.contextmanager
def listening(listener: Callable[[Progress], None] | None) -> Iterator[None]:
    """Send reports to ``listener`` within the block (``None``: to nobody); a report the
    interval held back is sent when the block ends."""
    global _listener, _last, _held
    previous, previous_held = _listener, _held
    _listener, _last, _held = listener, 0.0, None
    try:
        yield
        with _lock:
            held, _held = _held, None
        if held is not None and listener is not None:
            listener(held)
    finally:
        _listener, _held = previous, previous_held


def with_subject(subject: str) -> Callable[[Progress], None]:
    """A listener passing reports on to the current one, naming whose they are."""
    listener = _listener

    def tell(p: Progress) -> None:
        if listener is not None:
            listener(Progress(p.stage, p.games, p.seconds_left, subject))

    return tell
