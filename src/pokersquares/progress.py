"""What a player's preparation is doing (compiling its kernels, learning), for whoever shows it.

Learners call :func:`report` as they go; nothing listens by default, so a report costs
a function call. The harness's preparation process forwards the reports it hears to
the parent process (over its pipe), where the command line shows them on one line
of stderr. Reports reach the listener at most every ``MIN_INTERVAL_S`` seconds
unless forced (the first report of a stage is always forced by the caller); the
latest one held back reaches it before the next forced one, or when the block
listening ends, so a stage's last count is heard.

Threads: a :func:`listening` block is its own thread's (its own asyncio task's), so two
threads preparing players at once, each in a block of its own, each hear their own
reports, and a block ending restores what its own thread heard before. A thread that
opened no block (a learner's worker thread, a thread started inside a block) reports to
the latest block still open in the process.
"""

from __future__ import annotations

import contextlib
import contextvars
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


class _Block:
    """One :func:`listening` block: its listener, when it last heard a report, and the
    latest report the interval held back (heard before the next forced report, or when
    the block ends: a learner's last count, not one 0.25 s older)."""

    __slots__ = ("listener", "last", "held")

    def __init__(self, listener: Callable[[Progress], None] | None) -> None:
        self.listener = listener
        self.last = 0.0
        self.held: Progress | None = None


# The block this thread (task) is in; a thread in none reports to the latest block open in
# the process. Two threads' blocks in one global listener crossed: each thread's reports went
# to the listener of whichever block opened last, and the first block to end put back a
# listener that stayed installed after both had ended.
_current: contextvars.ContextVar[_Block | None] = contextvars.ContextVar("pokersquares_progress", default=None)
_open: list[_Block] = []  # every block open, in any thread, in the order they opened
_lock = threading.Lock()


def _block() -> _Block | None:
    own = _current.get()
    if own is not None:
        return own
    with _lock:
        return _open[-1] if _open else None


def _listener_now() -> Callable[[Progress], None] | None:
    block = _block()
    return None if block is None else block.listener


def report(stage: str, games: int | None = None, seconds_left: float | None = None, *,
           subject: str = "", force: bool = False) -> None:
    """Tell the listener (if any) what preparation is doing; safe from any thread."""
    block = _block()
    listener = None if block is None else block.listener
    if block is None or listener is None:
        return
    p = Progress(stage, None if games is None else int(games), seconds_left, subject)
    now = time.monotonic()
    with _lock:
        if not force and now - block.last < MIN_INTERVAL_S:
            block.held = p
            return
        block.last = now
        held, block.held = block.held if force else None, None
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
    listener = _listener_now()

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
    """Send this thread's reports to ``listener`` within the block (``None``: to nobody),
    and those of threads in no block of their own; a report the interval held back is
    sent when the block ends."""
    block = _Block(listener)
    token = _current.set(block)
    with _lock:
        _open.append(block)
    try:
        yield
        with _lock:
            held, block.held = block.held, None
        if held is not None and listener is not None:
            listener(held)
    finally:
        with _lock:
            _open.remove(block)
        _current.reset(token)


def with_subject(subject: str) -> Callable[[Progress], None]:
    """A listener passing reports on to the current one, naming whose they are."""
    listener = _listener_now()

    def tell(p: Progress) -> None:
        if listener is not None:
            listener(Progress(p.stage, p.games, p.seconds_left, subject))

    return tell
