"""The SQLite result store: every finished game, recorded as it finishes.

A *run* is one player (with its parameters) on one point system from one first
seed, under given time limits; its games are numbered from 0 and game ``i`` is
dealt with seed ``seed + i``. Re-running the same run reads finished games back
instead of replaying them, so an interrupted run resumes. A *tournament* groups
runs over several players and systems.

The store uses SQLite's write-ahead log, so a run killed at any moment (even by
SIGKILL) leaves every committed game readable. An existing file that is not a
readable store is reported, never overwritten.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import threading
import time
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence, TypeVar, cast

from ..cards import is_integer, is_seconds
from ..errors import InvalidPointSystemError, InvalidSeedError, PokerSquaresError
from ..points import PointSystem
from .seeds import new_secret

__all__ = ["ResultStore", "StoreError", "GameRecord", "RunInfo", "DEFAULT_DB", "probe", "EXPORT_FIELDS"]

# The columns of an export (``results --export csv``), in order. ``player_name`` is the
# player's own name, or the person's for a game played in the web app (``player`` human).
# ``secret``: the key of the run's player seeds (``run --secret`` replays the run with it;
# empty for a run that never played). ``version``: the code that played the run (two runs
# of one player and system told apart; empty for a run made before the store kept it);
# ``time_per_game`` and ``prep_time``: its limits in seconds, what a replay needs besides
# the secret. Columns are added at the end, for readers by position; a JSON row holds them
# in this order too.
EXPORT_FIELDS = ["run_id", "tournament_id", "player", "player_name", "system", "points", "game_index", "seed",
                 "score", "decision_s", "penalty", "fallback_moves", "placements", "secret", "version",
                 "time_per_game", "prep_time"]
# What a spreadsheet reads as a formula at the start of a cell (OWASP's "CSV injection"):
# a person's name typed in the browser (``=HYPERLINK(...)``), a player's or a point
# system's name, a ``--secret``. In the CSV export such a text cell starts with ``'``
# (shown as text, the formula never run); the JSON export holds every value as stored.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_TEXT_FIELDS = ("player", "player_name", "system", "penalty", "secret", "version")

DEFAULT_DB = "pokersquares-results.sqlite"
# The contract between releases: a release may add a column with a default, a table or a
# meta key and keep this version (every statement names its columns, so an earlier release
# writes and reads such a store as its own: tests/harness/test_result_store.py -k
# later_release); a change that an earlier release's writes would get wrong (a column it
# does not fill, a new meaning) raises it, and an earlier release then refuses to write.
SCHEMA_VERSION = 1
# How long a writer waits for another process's write to the store to end before it stops
# in one line (:meth:`ResultStore._cannot_write`). SQLite waits in steps of LOCK_STEP_S (its
# busy timeout), Python between them (:func:`_waiting_for_lock`): SQLite sleeps in C, where
# a Ctrl-C or SIGTERM is not handled, and one wait of 30 s held it off to its end.
BUSY_TIMEOUT_S = 30
LOCK_STEP_S = 0.1
# How long a write made while a Ctrl-C or SIGTERM stops the process (a run's last batch of
# games, written on its way out) waits for another process's lock: the command ends then.
STOPPING_WAIT_S = 0.5
UNRECORDED_NOTE = ("the games played last could not be recorded (another process held the store's write lock); "
                   "those before them are: run the same command again to resume (it plays those again)")

_T = TypeVar("_T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tournaments (
    tournament_id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    players TEXT NOT NULL,          -- JSON list of player specs
    systems TEXT NOT NULL,          -- JSON list of {"name", "points"}
    games INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    run_id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    player TEXT NOT NULL,           -- the spec as given, e.g. "beemo:load=x.npz"
    player_name TEXT NOT NULL,      -- the player's own name
    system_name TEXT NOT NULL,
    points TEXT NOT NULL,           -- JSON list of 10 ints
    seed INTEGER NOT NULL,
    games INTEGER NOT NULL,         -- games asked for (the largest request so far)
    time_per_game REAL NOT NULL,
    prep_time REAL NOT NULL,
    tournament_id INTEGER REFERENCES tournaments(tournament_id),
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    run_id INTEGER NOT NULL REFERENCES runs(run_id),
    game_index INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    score INTEGER NOT NULL,
    placements TEXT NOT NULL,       -- JSON list of [card, row, col]
    decision_s REAL NOT NULL,
    penalty TEXT,                   -- NULL, or why the game scored the penalty
    finished REAL NOT NULL,
    fallback_moves INTEGER NOT NULL DEFAULT 0,  -- moves played by the greedy fallback for lack of time
    PRIMARY KEY (run_id, game_index)
);
"""
# Columns added since a store's table was created: (table, column, definition).
_ADDED_COLUMNS = [("games", "fallback_moves", "INTEGER NOT NULL DEFAULT 0"),
                  ("runs", "secret", "TEXT"),  # the key of the players' seeds (harness/seeds.py)
                  ("runs", "version", "TEXT")]  # the code that plays the run (NULL: a run made before it was kept)


# The most a game can score either way: ten lines of at most 128 points (values are
# clamped to -128..127; the penalty is ten times the lowest).
MAX_ABS_SCORE = 10 * 128


def _as_text_cell(value):
    """A text cell of the CSV export: one a spreadsheet would run as a formula
    (:data:`FORMULA_STARTS`) with ``'`` before it, any other value as it is."""
    return "'" + value if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value


class StoreError(PokerSquaresError):
    """The result store cannot be opened, read or written."""


@dataclass
class GameRecord:
    game_index: int
    seed: int
    score: int
    placements: list[tuple[int, int, int]] = field(default_factory=list)
    decision_s: float = 0.0
    penalty: str | None = None
    fallback_moves: int = 0  # moves a search left to its greedy fallback for lack of time


def _unrecordable(r: GameRecord) -> tuple[str, object] | None:
    """What of a finished game no game can have (the name and value), else None: the
    figures :meth:`ResultStore._check_figures` refuses on reading, checked before
    writing, so that a store never holds a game that every reader then refuses (a
    person's game timed on a wall clock set back, by hand or by NTP, took a negative
    time). Python's or numpy's numbers."""
    return ("game index", r.game_index) if not is_integer(r.game_index) or r.game_index < 0 else \
        ("seed", r.seed) if not is_integer(r.seed) or not -2 ** 63 <= r.seed < 2 ** 63 else \
        ("score", r.score) if not is_integer(r.score) or not -MAX_ABS_SCORE <= r.score <= MAX_ABS_SCORE else \
        ("decision time", r.decision_s) if not is_seconds(r.decision_s) or not 0 <= r.decision_s < math.inf else \
        ("penalty", r.penalty) if r.penalty is not None and not isinstance(r.penalty, str) else \
        ("fallback move count", r.fallback_moves) if not is_integer(r.fallback_moves) or r.fallback_moves < 0 else None


@dataclass
class RunInfo:
    run_id: int
    player: str
    player_name: str
    system_name: str
    points: list[int]
    seed: int
    games: int
    time_per_game: float
    prep_time: float
    tournament_id: int | None
    created: float
    finished: int = 0
    mean: float | None = None
    fallback_moves: int = 0  # over the run's games
    penalties: int = 0
    version: str | None = None  # the code that played it (None: a run made before the store kept it)

    def to_json(self) -> dict:
        return asdict(self)


# The columns every ``optima`` table pokersquares wrote has (optimum/store.py).
_OPTIMA_COLUMNS = {"seed", "points", "system_name", "score", "bound", "proven", "grid", "seconds", "time_limit"}


def _check_kind(conn: sqlite3.Connection | _SharedConnection | _ClosedConnection, path: Path) -> str:
    """"store", "new" for an SQLite file with nothing in it, or "optima" for a file of
    optima only (as the first release of ``pokersquares optimum`` wrote them, with no runs
    or games tables: a writer makes a result store of it); StoreError for anything else."""
    entries = conn.execute("SELECT type, name FROM sqlite_master").fetchall()
    if not entries:
        return "new"
    tables = {name for type_, name in entries if type_ == "table"}
    if {"runs", "games"} <= tables:
        return "store"
    if tables == {"optima"} and _OPTIMA_COLUMNS <= {r[1] for r in conn.execute("PRAGMA table_info(optima)")}:
        return "optima"
    raise StoreError(f"{path} is an SQLite file but not a pokersquares result store; not touching it")


def probe(path: str | Path) -> str:
    """What the existing file ``path`` is, found without changing it or leaving anything
    beside it: "store" (a result store), "new" (empty, or an SQLite file with nothing in it:
    one a writer may make a store of), "optima" (an older release's file of optima only,
    which a writer makes a store of too); StoreError for someone else's SQLite file,
    sqlite3.DatabaseError for a file that is not SQLite.

    Read without writing: where this user may write the file and its folder and the disk
    has room, through an ordinary connection made query-only, whose locks hold a writer's
    checkpoint off what it reads (a store being created or written by another connection,
    the web app's recorder, was read mixed: "database disk image is malformed"); elsewhere
    read-only (:func:`_connect_read_only`). No journal mode is switched and nothing is left
    beside it. The file is never opened outside SQLite: closing such a descriptor drops
    every lock this process's own connections hold on it (POSIX)."""
    path = Path(path)
    if os.stat(path).st_size == 0:
        return "new"
    deadline = time.monotonic() + 30
    while True:
        try:
            conn = _query_only(path) if _writable_here(path) and no_room(path) is None else _connect_read_only(path)
            try:
                return _check_kind(conn, path)
            finally:
                conn.close()
        except sqlite3.OperationalError as e:  # a store being created by another process
            if "locked" not in str(e) or time.monotonic() > deadline:
                raise
        time.sleep(0.01 + random.random() * 0.05)


def open_for_reading(path: Path) -> sqlite3.Connection:
    """A connection that reads the result store ``path`` and cannot write to it.

    Where the file and its folder are writable it is an ordinary connection made
    query-only: the last connection to a store in WAL mode to close then removes the -wal
    and -shm files, as the writers' do. A ``mode=ro`` connection cannot, and would leave
    them beside the store after every read; it is used only where the file or its folder
    is read-only, and reads a private copy where SQLite cannot read the file itself
    safely (:func:`_connect_read_only`).

    On a disk with no room (:func:`no_room`) an ordinary connection to a store in WAL
    mode cannot make its -shm: its first read fails ("disk I/O error"), and leaves an
    empty -wal and a cut -shm beside the store. Such a store is read as on a read-only
    disk instead (:func:`_read_without_room`)."""
    if _writable_here(path):
        if no_room(path) is not None and _in_wal_mode(path):
            return _read_without_room(path)
        return _query_only(path)
    return _connect_read_only(path, snapshot=True)


def _query_only(path: Path) -> sqlite3.Connection:
    """An ordinary connection to ``path`` that cannot write (SQLite's locks apply)."""
    conn = _sqlite_connect(path, timeout=30, isolation_level=None)
    conn.execute("PRAGMA query_only = ON")
    return conn


def _writable_here(path: Path) -> bool:
    """Whether this user may write the store ``path`` and its folder (where an ordinary
    connection makes its -wal and -shm)."""
    folder = path.parent if str(path.parent) else Path(".")
    return os.access(path, os.R_OK | os.W_OK) and os.access(folder, os.W_OK | os.X_OK)


def _connect_read_only(path: Path, *, snapshot: bool = False) -> sqlite3.Connection:
    """A ``mode=ro`` connection to ``path``.

    A file in WAL mode with no -wal file beside it (or an empty one, :func:`_holds_log`)
    holds everything in itself, but a read-only connection would still create the -wal
    and -shm files, and fails where it cannot (a folder this user may not write, a full
    disk: :func:`_read_without_room`). Such a file is read as immutable, which
    SQLite trusts never to change: it takes no lock and keeps what it has read. A writer
    starting meanwhile (another user's run adding games) checkpoints into the file under
    it, and pages read before and after mix: an export repeated or dropped rows, or
    failed as malformed. :func:`probe` reads a few pages of it so; ``snapshot`` (every
    reader of games) reads a private copy instead, made while the file did not change,
    so that everything is read from one state of the store.

    A file with its -wal is read as it is (SQLite's locks hold writers' checkpoints off
    what it reads); a log folded in and removed between the look and the read (its
    writer closing) is looked at again. A -wal that SQLite cannot read here (no -shm
    beside it, and a folder this user cannot create one in, or no room to) is a StoreError
    that says so."""
    patience = time.monotonic() + 0.5  # a writer creates its -shm just after its -wal

    def attempt() -> sqlite3.Connection | None:
        wal, log = _in_wal_mode(path), _holds_log(path)
        if wal and not log:
            if not snapshot:
                return _sqlite_connect(f"file:{_uri_path(path)}?mode=ro&immutable=1", uri=True, timeout=30,
                                       isolation_level=None)
            return _snapshot(path)
        conn = _sqlite_connect(f"file:{_uri_path(path)}?mode=ro", uri=True, timeout=30, isolation_level=None)
        if not wal:
            return conn  # a rollback journal: SQLite's locks work on a read-only file
        try:
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # opens the -wal and -shm now
            return conn
        except sqlite3.OperationalError as e:
            conn.close()
            problem = _log_problem(path)
            if problem is None and _holds_log(path):
                full = _log_without_room(path, e)
                if full is not None:
                    raise StoreError(full) from None
                raise
            if problem is not None and time.monotonic() > patience:
                raise StoreError(problem) from None
            return None

    return _until_read(attempt, f"cannot read the result store {path}: this user cannot write its folder, so it "
                                "is read from a copy, and the store changed while every copy was made; try again "
                                "when the runs writing to it stop")


def _until_read(attempt: Callable[[], sqlite3.Connection | None], why: str) -> sqlite3.Connection:
    """``attempt()``'s connection, asked again while it gives None (the store changed
    under it) for up to 30 s; then a StoreError saying ``why``."""
    deadline = time.monotonic() + 30
    while (conn := attempt()) is None:
        if time.monotonic() > deadline:
            raise StoreError(why)
        time.sleep(0.01 + random.random() * 0.05)
    return conn


def _read_without_room(path: Path) -> sqlite3.Connection:
    """A connection that reads the store ``path`` (in WAL mode, in a folder this user may
    write) on a disk with no room for the -shm an ordinary connection makes.

    With nothing in a log beside it (:func:`_holds_log`) all of it is in the file, which
    is read from a private copy as on a read-only disk (:func:`_snapshot`), or in memory
    where the temporary folder has no room either (:func:`_copy_in_memory`): from one
    state of the store, and nothing is made beside it. A writer cannot start meanwhile
    (it needs an -shm too, and room for its log); one that does once room is freed
    changes the file or fills a log, and the copy is made again or the store read with
    its log. A log holds the last games, which SQLite reads only through an -shm: an
    ordinary connection reads them where one of full size is there already (a writer
    is running), else a StoreError says in one line that the disk is full and where
    those games are."""
    def attempt() -> sqlite3.Connection | None:
        if not _holds_log(path):
            try:
                return _snapshot(path)
            except StoreError:  # the temporary folder has no room either
                return _copy_in_memory(path)
        conn = _sqlite_connect(path, timeout=30, isolation_level=None)
        try:
            conn.execute("PRAGMA query_only = ON")
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # opens the -wal and -shm now
            return conn
        except sqlite3.OperationalError as e:
            conn.close()
            full = _log_without_room(path, e)
            if full is None:
                raise
            raise StoreError(full) from None

    return _until_read(attempt, f"cannot read the result store {path}: there is no room beside it for the files "
                                "SQLite reads it with, so it is read from a copy, and the store changed while every "
                                "copy was made; try again when the runs writing to it stop")


def _log_without_room(path: Path, e: sqlite3.OperationalError) -> str | None:
    """Why SQLite cannot read the log beside the store ``path`` (the error ``e``), if it
    is that the disk has no room for the -shm it reads a log through."""
    room = no_room(path)
    if room is None or "locked" in str(e):
        return None
    return (f"cannot read the result store {path}: {room[0]}, and its last games are in its write-ahead log "
            f"{path.name}-wal, which SQLite reads only through {path.name}-shm beside it, and that cannot be made "
            f"({e}); the store and its log were left as they are: {room[1]} and try again")


def _copy_in_memory(path: Path) -> sqlite3.Connection | None:
    """A connection to a copy in memory of the store ``path`` (in WAL mode, nothing in a
    log, so all of it is in the file), or None if the file changed while it was copied.
    For a store on a full disk whose temporary folder has no room either: it takes as
    much memory as the file's size."""
    before = _signature(path)
    if before[-1]:
        return None  # a writer has written to a log: the store is read with it instead
    source = _sqlite_connect(f"file:{_uri_path(path)}?mode=ro&immutable=1", uri=True, isolation_level=None)
    conn = _sqlite_connect(":memory:", isolation_level=None)
    try:
        source.backup(conn)
    except BaseException:
        conn.close()
        raise
    finally:
        source.close()
    if _signature(path) != before:
        conn.close()
        return None
    conn.execute("PRAGMA query_only = ON")
    return conn


def _holds_log(path: Path) -> bool:
    """Whether a -wal beside the store ``path`` may hold games its file does not. An empty
    one holds none: a writer's log emptied by a checkpoint (into the file), or one left
    by a connection that could not make its -shm on a full disk."""
    try:
        return os.stat(f"{path}-wal").st_size > 0
    except FileNotFoundError:
        return False
    except OSError:
        return True


def _in_wal_mode(path: Path) -> bool:
    with open(path, "rb") as f:
        header = f.read(100)
    return len(header) == 100 and header[18:20] == b"\x02\x02"


def _log_problem(path: Path) -> str | None:
    """Why SQLite cannot read the -wal beside ``path`` as this user, if that is why."""
    folder = path.parent if str(path.parent) else Path(".")
    wal, shm = Path(f"{path}-wal"), Path(f"{path}-shm")
    if wal.exists() and not os.access(wal, os.R_OK):
        return (f"cannot read the result store {path}: this user cannot read its write-ahead log {wal.name}, "
                "which holds its last games; read it as a user who can, or ask its owner to open it once "
                "(that folds the log into the store)")
    if wal.exists() and not shm.exists() and not os.access(folder, os.W_OK | os.X_OK):
        return (f"cannot read the result store {path}: its write-ahead log {wal.name} (its last games) needs "
                f"{shm.name} beside it, which this user cannot create in {folder}; open the store once as a "
                f"user who can write there (that folds the log into it), or copy {path.name} with its -wal to "
                "a folder you can write and read the copy")
    if shm.exists() and not os.access(shm, os.R_OK):
        return (f"cannot read the result store {path}: this user cannot read {shm.name} beside it, which "
                f"SQLite needs to read its write-ahead log {wal.name}; read it as a user who can")
    return None


def _signature(path: Path) -> tuple:
    """What changes when anything writes the file ``path``, or a writer starts on it: only
    a checkpoint writes a store in WAL mode, and one needs a -wal (the file's times are
    fine-grained once read on Linux 6.13 and later; where they are coarse, a write in the
    clock tick of the one before the look can go unseen). A log with nothing in it yet
    holds nothing a checkpoint could write (:func:`_holds_log`)."""
    st = os.stat(path)
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, _holds_log(path)


class _Snapshot(sqlite3.Connection):
    """A connection to a private copy of a store; the copy goes when it closes (at once
    where the system lets an open file be removed, so none is left by a killed process)."""

    copy: str | None = None

    def close(self) -> None:
        super().close()
        if self.copy is not None:
            with suppress(OSError):
                os.remove(self.copy)
            self.copy = None


def _snapshot(path: Path) -> sqlite3.Connection | None:
    """An immutable connection to a copy of the store ``path`` (in WAL mode, no -wal, so
    all of it is in the file), or None if the file changed while it was copied."""
    before = _signature(path)
    if before[-1]:
        return None  # a writer has started: the file is read with its -wal instead
    try:
        fd, copy = tempfile.mkstemp(prefix="pokersquares-store-", suffix=".sqlite")
    except OSError as e:
        raise StoreError(f"cannot read the result store {path}: this user cannot write its folder, so it is "
                         f"read from a copy, and none can be made ({e})") from None
    try:
        with os.fdopen(fd, "wb") as out, open(path, "rb") as src:
            shutil.copyfileobj(src, out, 1 << 20)
        conn: _Snapshot | None = None
        if _signature(path) == before:
            conn = cast(_Snapshot, _sqlite_connect(f"file:{_uri_path(Path(copy))}?mode=ro&immutable=1", uri=True,
                                                   timeout=30, isolation_level=None, factory=_Snapshot))
    except BaseException as e:
        with suppress(OSError):
            os.remove(copy)
        if isinstance(e, OSError) and path.exists():  # a full disk; a store gone is said as any other
            raise StoreError(f"cannot read the result store {path}: this user cannot write its folder, so it "
                             f"is read from a copy, and the copy failed ({e})") from None
        raise
    try:
        os.remove(copy)  # SQLite keeps it open: nothing is left, even by a process killed
    except OSError:  # a system that cannot remove an open file: removed when the connection closes
        if conn is not None:
            conn.copy = copy
    return conn


# Room a store needs to go on: its -shm index (32 KiB) and a batch of games in its log.
_ROOM = 1 << 20


def no_room(path: str | Path) -> tuple[str, str] | None:
    """Why the store ``path`` cannot grow and what to do, if that is why a write failed,
    else None: the disk holding it is full (less than :data:`_ROOM` left to this user), its
    file system takes no files (mounted read-only, or one with no disk space at all, such as
    /proc: both count no free space, and are not full), or this process's
    file-size limit (``ulimit -f``) is reached by the store or its log. SQLite says only
    "database or disk is full", or "disk I/O error" for an -shm it could not size (or
    EFBIG), which read as a damaged store; the store is whole, and what it holds is kept."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    try:
        st = os.statvfs(folder)
    except (OSError, AttributeError):  # no statvfs (Windows)
        st = None
    if st is not None and (st.f_flag & os.ST_RDONLY or not st.f_blocks):
        kind = "a read-only file system" if st.f_flag & os.ST_RDONLY else "a virtual file system, with no disk space"
        return f"cannot create files in {folder} ({kind})", "use a store on a writable disk"
    if st is not None and (st.f_bfree if os.geteuid() == 0 else st.f_bavail) * st.f_frsize < _ROOM:
        return f"the disk holding {folder} is full", "free some space"
    try:
        import resource
        limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    except (ImportError, OSError, ValueError):
        return None
    if limit == resource.RLIM_INFINITY:
        return None
    sizes = []
    for suffix in ("", "-wal", "-shm"):
        with suppress(OSError):
            sizes.append(os.stat(f"{path}{suffix}").st_size)
    if max(sizes, default=0) + _ROOM > limit:
        return (f"this process's file-size limit (ulimit -f) of {limit} bytes is reached",
                "raise the limit")
    return None


def _locked(e: sqlite3.Error) -> bool:
    """Whether ``e`` is SQLite giving up on a lock another connection holds (its busy
    timeout passed): SQLITE_BUSY or SQLITE_LOCKED, "database is locked"."""
    code = getattr(e, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    return "locked" in str(e) or "busy" in str(e)


def _waiting_for_lock(attempt: Callable[[], _T],
                      conn: sqlite3.Connection | _SharedConnection | _ClosedConnection) -> _T:
    """``attempt()``, tried again while another connection's lock holds it off
    (:func:`_locked`) and ``conn`` is in no transaction (the failed try left nothing behind:
    it ran alone, or it was the BEGIN), for BUSY_TIMEOUT_S in all; the last error then. A
    Ctrl-C or SIGTERM ends the wait at the end of SQLite's step. A write made while one is
    handled already (a KeyboardInterrupt, the command line's SIGTERM among them: the
    process on its way out) waits STOPPING_WAIT_S, then that interruption goes on."""
    stopping = sys.exc_info()[1]
    stopping = stopping if isinstance(stopping, KeyboardInterrupt) else None
    deadline = time.monotonic() + (BUSY_TIMEOUT_S if stopping is None else min(BUSY_TIMEOUT_S, STOPPING_WAIT_S))
    while True:
        try:
            return attempt()
        except sqlite3.OperationalError as e:
            if not _locked(e) or conn.in_transaction:
                raise
            if time.monotonic() >= deadline:
                if stopping is None:
                    raise
                break
        time.sleep(0.005)  # a lock SQLite does not wait for (the switch to WAL's) is not tried in a busy loop
    if UNRECORDED_NOTE not in getattr(stopping, "__notes__", ()):
        stopping.add_note(UNRECORDED_NOTE)  # the command line says it in place of "finished games are recorded"
    raise stopping


def _inserted(cur: sqlite3.Cursor) -> int:
    """The id of the row the INSERT ``cur`` ran wrote."""
    assert cur.lastrowid is not None  # an INSERT sets it
    return int(cur.lastrowid)


def _uri_path(path: Path) -> str:
    """``path`` for a file: URI (its "?" and "#" would end the path)."""
    return str(path).replace("%", "%25").replace("?", "%3f").replace("#", "%23")


def _key(*parts) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:32]


def _plain(value):
    """A numpy scalar (a notebook's) as the Python number it holds, anything else as it is:
    numpy's int64 is no JSON for a key, and SQLite stores it as bytes."""
    return value.item() if type(value).__module__ == "numpy" and hasattr(value, "item") else value


def _run_key(player: str, system: PointSystem, seed: int, time_per_game: float, prep_time: float,
             tournament_id: int | None, version: str) -> str:
    return _key(player, list(system.points), seed, time_per_game, prep_time, tournament_id, version)


def seeds_to_read(seeds) -> list:
    """``seeds`` (the deals a store is asked for) as a list of integers, else InvalidSeedError."""
    if isinstance(seeds, (str, bytes)):
        raise InvalidSeedError(f"the seeds to read are integers, not text: {seeds!r}")
    try:
        seeds = list(seeds)
    except TypeError:  # one seed is no list of them: it was "'int' object is not iterable"
        raise InvalidSeedError(f"the seeds to read are a list of integers ([5] for one), got {seeds!r:.60}") from None
    for seed in seeds:
        if not is_integer(seed):
            raise InvalidSeedError(f"the seeds to read are integers, got {seed!r}")
    return [int(seed) for seed in seeds]  # SQLite binds numpy's int64 as bytes, which match no game


def _row_id(value, what: str) -> int:
    """A run's or tournament's id as SQLite matches it: numpy's integers (a notebook's)
    are bound as bytes, which matched no row, and the store answered that the run held
    no games; anything else is a StoreError."""
    if not is_integer(value):
        raise StoreError(f"a {what} id is an integer, got {value!r:.60}")
    return int(value)


def _sqlite_connect(database, **options) -> sqlite3.Connection:
    """An SQLite connection any thread may use (a store opened in one thread and used in
    another, as a notebook's worker threads or a web server's do). The module and SQLite
    here are serialized (``sqlite3.threadsafety`` 3): the calls are safe; what runs
    together is the store's business (:class:`_SharedConnection`)."""
    return sqlite3.connect(database, check_same_thread=False, **options)


class _SharedConnection:
    """A store's connection as its threads use it: each statement, and each transaction
    (:meth:`ResultStore.transaction`, which holds the same lock), runs alone, so one
    thread's statement never runs inside another's transaction (a read seeing rows a
    rollback then takes away, a write committed or rolled back with someone else's).
    Rows are read as asked (a run's million games stay a stream). A statement outside a
    transaction (a BEGIN among them) waits for another process's lock (:func:`_waiting_for_lock`)."""

    def __init__(self, conn: sqlite3.Connection, lock: threading.RLock) -> None:
        self._conn, self._lock = conn, lock

    def execute(self, sql: str, args: Sequence = ()) -> sqlite3.Cursor:
        with self._lock:
            return _waiting_for_lock(lambda: self._conn.execute(sql, args), self._conn)

    def executemany(self, sql: str, rows: Iterable) -> sqlite3.Cursor:
        with self._lock:
            return self._conn.executemany(sql, rows)

    @property
    def in_transaction(self) -> bool:
        return self._conn.in_transaction

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __getattr__(self, name: str):
        return getattr(self._conn, name)


class _ClosedConnection:
    """What a closed store's connection becomes: every use is one line saying so (not
    sqlite3's ProgrammingError from deep inside a read)."""

    in_transaction = False

    def __init__(self, path: Path) -> None:
        self._path = path

    def _closed(self, *args, **kwargs):
        raise StoreError(f"the result store {self._path} is closed (open it again to use it)")

    execute = executemany = _closed

    def close(self) -> None:
        return None


class ResultStore:
    """An SQLite file of runs, games and tournaments. One store may be used from several
    threads (a notebook's workers, a server's): their statements and transactions take
    turns. Processes each open their own. A store opened ``readonly`` reads the store as
    it was when opened, to its close or :meth:`refresh` (which reads the games written since)."""

    def __init__(self, path: str | Path = DEFAULT_DB, *, readonly: bool = False) -> None:
        self._lock = threading.RLock()  # one statement or transaction at a time (_SharedConnection)
        if not isinstance(path, (str, os.PathLike)) or isinstance(path, bytes):
            raise StoreError(f"a result store is a file's path (text or a Path), got {path!r}")
        self.path = Path(path)
        self._readonly = bool(readonly)
        if readonly and not self.path.exists():
            raise StoreError(f"no result store at {self.path}")
        if self.path.exists() and not self.path.is_file():
            raise StoreError(f"the result store {self.path} is not a file (a folder?)")
        if not readonly and not self.path.parent.exists():
            raise StoreError(f"cannot create the result store {self.path}: folder {self.path.parent} does not exist")
        if not readonly:
            folder = self.path.parent if str(self.path.parent) else Path(".")
            if not folder.is_dir():
                raise StoreError(f"cannot create the result store {self.path}: {folder} is not a folder")
            if not self.path.exists() and not os.access(folder, os.W_OK | os.X_OK):
                raise StoreError(f"cannot create the result store {self.path}: folder {folder} is not writable")
            if self.path.exists() and not (os.access(self.path, os.W_OK) and os.access(folder, os.W_OK | os.X_OK)):
                raise StoreError(f"the result store {self.path} is read-only (the file or its folder {folder}); "
                                 "read it with `results`, or write to another --db")
        existed = self.path.exists() and self.path.stat().st_size > 0
        try:
            # What the file is, found read-only before anything can change it (a journal mode,
            # a schema): someone else's SQLite file is refused as it is.
            kind = probe(self.path) if self.path.exists() else "new"
            if readonly and kind == "optima":
                raise StoreError(f"{self.path} holds optima only (written by an older pokersquares), no runs or "
                                 "games: give it as --optima to read them")
            if readonly and kind != "store":
                what = "an empty file" if not existed else "an SQLite file with no tables"
                raise StoreError(f"{self.path} is not a pokersquares result store ({what}): it holds no runs")
            if readonly:
                self.conn = self._reader()
            else:
                self._connect()
            if existed:
                ok = self.conn.execute("PRAGMA quick_check").fetchone()[0]
                if ok != "ok":
                    raise sqlite3.DatabaseError(ok)
            # A read-only store made before a column was added reads it as its default.
            self._fallback = "fallback_moves" if not existed or "fallback_moves" in {
                r[1] for r in self.conn.execute("PRAGMA table_info(games)")} else "0"
            self._has_version = not existed or "version" in {
                r[1] for r in self.conn.execute("PRAGMA table_info(runs)")}
            if readonly:
                self._check_kind()
            else:
                self._fallback = "fallback_moves"
                self._has_version = True
                self._set_wal()
                self.conn.execute("PRAGMA synchronous = NORMAL")
                # Checked and created in one write transaction: a store created by several
                # processes at once is never seen half made.
                with self.transaction():
                    self._check_kind()
                    self._check_version()
                    for statement in filter(str.strip, _SCHEMA.split(";")):
                        self.conn.execute(statement)
                    for table, column, definition in _ADDED_COLUMNS:
                        if column not in {r[1] for r in self.conn.execute(f"PRAGMA table_info({table})")}:
                            self.conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")
                    self.conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)",
                                      (str(SCHEMA_VERSION),))
                self._identity = self._file_identity()
                self._log = self._log_identity()
        except StoreError:
            raise
        except sqlite3.DatabaseError as e:
            room = no_room(self.path) if isinstance(e, sqlite3.OperationalError) else None
            if room is not None:  # SQLite could not size its -shm or log: the store is whole
                raise StoreError(f"cannot {'open' if existed else 'create'} the result store {self.path}: "
                                 f"{room[0]} ({e}); it was left as it is: {room[1]} and try again") from None
            what = "is not a readable result store" if existed else "cannot be created"
            raise StoreError(f"{self.path} {what} ({e}); it was left as it is") from None
        except OSError as e:
            raise StoreError(f"cannot open the result store {self.path}: {e}") from None

    @property
    def conn(self) -> _SharedConnection | _ClosedConnection:
        """The store's SQLite connection, which any thread may use (:class:`_SharedConnection`)."""
        return self._conn

    @conn.setter
    def conn(self, value: sqlite3.Connection | _ClosedConnection) -> None:
        self._conn = value if isinstance(value, _ClosedConnection) else _SharedConnection(value, self._lock)

    def _reader(self) -> sqlite3.Connection:
        """A read-only store's connection. One read transaction to the close (or to
        :meth:`refresh`): every figure read from one state of the store (a tournament's
        table and the counts under it), whatever a writer adds meanwhile; a reader that
        cannot write the folder reads a copy, which is one state anyway."""
        conn = open_for_reading(self.path)
        conn.execute("PRAGMA busy_timeout = 30000")
        conn.execute("BEGIN")
        return conn

    def refresh(self) -> None:
        """A store opened ``readonly`` reads the store as it is now from here on: the games
        written since it was opened or last refreshed (a notebook keeping one open while a
        tournament runs); a reading still going (:meth:`iter_games`) stops there with a
        StoreError, as at :meth:`close`. A writable
        store sees every write already, and is left as it is. A store that can no longer be
        read (moved away, deleted) is a StoreError, and the store reads on as it was."""
        with self._lock:
            if isinstance(self.conn, _ClosedConnection) or not self._readonly:
                self.conn.execute("SELECT 1")  # a closed store says so
                return
            if not self.path.is_file():
                raise StoreError(f"no result store at {self.path} any more (moved or deleted); this one reads it "
                                 "as it was when opened or last refreshed")
            try:
                reader = self._reader()
            except (OSError, sqlite3.Error) as e:
                raise StoreError(f"cannot read the result store {self.path} again: {e}; this one reads it as it "
                                 "was when opened or last refreshed") from None
            old, self.conn = self.conn, reader
            old.close()
            self._fallback = "fallback_moves" if "fallback_moves" in {
                r[1] for r in self.conn.execute("PRAGMA table_info(games)")} else "0"
            self._has_version = "version" in {r[1] for r in self.conn.execute("PRAGMA table_info(runs)")}

    def _connect(self) -> None:
        self.conn = _sqlite_connect(self.path, timeout=LOCK_STEP_S, isolation_level=None)

    def _set_wal(self) -> None:
        """Switch to write-ahead logging. The switch takes the file's exclusive lock and
        SQLite does not wait for it (no busy handler) while another process is creating
        the same new store: the connection tries again instead (:func:`_waiting_for_lock`)."""
        self.conn.execute("PRAGMA journal_mode = WAL")

    def _check_kind(self) -> None:
        _check_kind(self.conn, self.path)

    def _check_version(self) -> None:
        """Refuse to write a store made by a newer pokersquares (before changing anything)."""
        if not self.conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'").fetchone():
            return  # a new store
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is None:
            return
        try:
            version = int(row[0])
        except (TypeError, ValueError):
            version = None
        if version is None or version > SCHEMA_VERSION:
            raise StoreError(f"{self.path} has schema version {row[0] if row else None!r}, newer than this "
                             f"pokersquares knows ({SCHEMA_VERSION}); not writing to it (upgrade pokersquares)")

    @contextmanager
    def transaction(self):
        """One write transaction, taken at once (BEGIN IMMEDIATE), so a look-up and the
        write that depends on it see no other writer in between. Another thread of this
        store waits for its end (its statements would be part of it)."""
        with self._lock:
            self._check_same_file()
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as e:
                raise StoreError(self._cannot_write(e)) from None
            except BaseException:  # a Ctrl-C or SIGTERM handled as the BEGIN returned: no transaction left open
                self._roll_back()
                raise
            try:
                yield
            except BaseException as e:
                self._roll_back()
                if isinstance(e, sqlite3.OperationalError):  # a write of the block (a full disk), said as ours are
                    raise StoreError(self._cannot_write(e)) from None
                raise
            try:
                self.conn.execute("COMMIT")
            except sqlite3.OperationalError as e:
                self._roll_back()
                raise StoreError(self._cannot_write(e)) from None

    def _roll_back(self) -> None:
        """End a failed transaction. SQLite rolls one back itself after some errors (a full
        disk mid-statement, SQLITE_FULL): a ROLLBACK then fails with "no transaction is
        active", which would replace the error that says what happened."""
        if self.conn.in_transaction:
            with suppress(sqlite3.Error):
                self.conn.execute("ROLLBACK")

    def _cannot_write(self, e: sqlite3.Error) -> str:
        """The one line for a write to the store that failed: a full disk or a file-size
        limit is named, with what it leaves (every game committed before it is kept)."""
        room = no_room(self.path)
        if room is None and _locked(e):  # SQLite's "database is locked" says neither who nor what to do
            return (f"cannot write to the result store {self.path}: another process has held its write lock for "
                    f"{BUSY_TIMEOUT_S:g} s (a command stopped with Ctrl-Z, or a program that has it open with "
                    "changes not saved, such as an SQLite browser); what this command recorded before is kept: "
                    "end that process and run this again to go on")
        if room is None:
            return f"cannot write to the result store {self.path}: {e}"
        return (f"cannot write to the result store {self.path}: {room[0]} ({e}); what it recorded before is "
                f"kept: {room[1]} and run it again to go on")

    def close(self) -> None:
        with self._lock:  # after another thread's transaction, not in it
            if isinstance(self.conn, _ClosedConnection):
                return  # closed already
            try:
                self._save_lost_log()
            except sqlite3.Error:
                pass
            finally:
                self.conn.close()
                self.conn = _ClosedConnection(self.path)

    def _file_identity(self, path: str | Path | None = None) -> tuple[int, int] | None:
        try:
            st = os.stat(self.path if path is None else path)
        except OSError:
            return None
        return st.st_dev, st.st_ino

    def _log_identity(self) -> tuple:
        """The identities of the store's -wal and -shm files (None for one that is missing)."""
        return tuple(self._file_identity(f"{self.path}{suffix}") for suffix in ("-wal", "-shm"))

    def _save_lost_log(self) -> bool:
        """Whether the store's -wal or -shm file was deleted (or replaced) while this
        connection was open; if so, what the connection's log holds is copied into the
        store file now. The connection goes on with the deleted files: its games are in a
        log no other connection sees, and they would vanish with this process (killed),
        or at its close if another connection is open then (only the last one to close
        merges the log into the file)."""
        known = getattr(self, "_log", None)
        if known is None or self._log_identity() == known:
            return False
        if not self._empty_log():
            raise sqlite3.OperationalError("its -wal file was deleted while this command ran, and the games "
                                           "in it could not be copied into the store (another connection reads it)")
        return True

    def _check_log(self) -> None:
        """Before a write: a -wal or -shm file deleted under this connection (a clean-up
        of the folder) is saved into the store (:meth:`_save_lost_log`) and the store
        reopened on new ones, which other connections see too."""
        try:
            if not self._save_lost_log():
                return
            self.conn.close()
            self._connect()
            self._set_wal()
            self.conn.execute("PRAGMA synchronous = NORMAL")
            self.conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # opens the new log
        except sqlite3.Error as e:
            raise StoreError(self._cannot_write(e)) from None
        self._log = self._log_identity()

    def _check_same_file(self) -> None:
        """Before a write: the file at the store's path is still the one opened. Games
        written to a file deleted, or moved away and replaced, while a run plays would be
        lost (or land in another store): the command stops in one line instead."""
        known = getattr(self, "_identity", None)
        if known is None:  # a read-only store, or one being created
            return
        now = self._file_identity()
        if now != known:
            left = self._fold_log_into_moved_file()
            if now is None:
                raise StoreError(f"the result store {self.path} was deleted while this command ran; the games it "
                                 "had written went with it, those not yet written are lost")
            raise StoreError(f"the result store {self.path} was replaced by another file while this command ran; "
                             "the games it had written are in the file moved away, those not yet written are lost; "
                             + ("the file now there is left as it is" if left else
                                f"another connection holds its log: remove {self.path}-wal before "
                                f"opening the file now there, or it reads that log's games"))
        self._check_log()

    def _fold_log_into_moved_file(self) -> bool:
        """After the store's file was moved away or deleted under this connection: the
        -wal and -shm files at its path are still this connection's (they stay by name),
        and the next connection to whatever file is put there would read them as its own
        (a backup moved in read as the old run's games). What the log holds is copied
        into the file moved away (this connection still has it open) and the log emptied.
        Whether the path's log is now harmless."""
        if self._log_identity() != getattr(self, "_log", None) or self._log_identity()[0] is None:
            return True  # not this connection's log (or none): nothing of ours is there
        try:
            return self._empty_log()
        except sqlite3.Error:
            return False

    def _empty_log(self) -> bool:
        """Copy what the log holds into the store file and empty it (a TRUNCATE
        checkpoint); whether done. Other connections reading the log, or writing, are
        waited for as a write waits for a lock (:func:`_waiting_for_lock`)."""
        def attempt() -> None:
            if self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]:
                raise sqlite3.OperationalError("database is locked")  # SQLite's busy step passed: tried again

        try:
            _waiting_for_lock(attempt, self.conn)
        except sqlite3.OperationalError as e:
            if not _locked(e):
                raise
            return False
        return True

    def __enter__(self) -> "ResultStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _write(self, sql: str, args: Sequence = ()) -> sqlite3.Cursor:
        try:
            return self.conn.execute(sql, args)
        except sqlite3.OperationalError as e:
            raise StoreError(self._cannot_write(e)) from None

    # -- runs and tournaments ----------------------------------------------------------
    def open_run(self, player: str, player_name: str, system: PointSystem, seed: int, games: int,
                 time_per_game: float, prep_time: float, tournament_id: int | None = None,
                 version: str = "") -> int:
        """The id of the run with these settings, created if new (the game count may grow).

        ``version`` names the code that plays (package and player version): games
        played by other code are not resumed into this run.
        """
        if not isinstance(system, PointSystem):
            raise InvalidPointSystemError(f"a run's point system is a PointSystem, got {system!r}")
        seed, games, time_per_game, prep_time, tournament_id = map(
            _plain, (seed, games, time_per_game, prep_time, tournament_id))
        key = _run_key(player, system, seed, time_per_game, prep_time, tournament_id, version)
        with self.transaction():
            row = self.conn.execute("SELECT run_id, games FROM runs WHERE key = ?", (key,)).fetchone()
            if row:
                if games > row[1]:
                    self._write("UPDATE runs SET games = ? WHERE run_id = ?", (games, row[0]))
                # The key holds the version: a run made before the column was kept gets it now.
                self._write("UPDATE runs SET version = ? WHERE run_id = ? AND version IS NULL", (version, row[0]))
                return row[0]
            cur = self._write(
                "INSERT INTO runs (key, player, player_name, system_name, points, seed, games, time_per_game,"
                " prep_time, tournament_id, created, version) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (key, player, player_name, system.name, json.dumps(list(system.points)), seed, games,
                 time_per_game, prep_time, tournament_id, time.time(), version))
            return _inserted(cur)

    def secret_of(self, player: str, system: PointSystem, seed: int, time_per_game: float, prep_time: float,
                  tournament_id: int | None = None, version: str = "") -> str | None:
        """The secret of the run :meth:`open_run` would resume with these settings, if the
        store holds one and it has a secret; read only (a call checked before any write)."""
        key = _run_key(player, system, seed, time_per_game, prep_time, tournament_id, version)
        row = self.conn.execute("SELECT secret FROM runs WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def other_versions(self, run_id: int) -> list[RunInfo]:
        """The runs of the same player spec, points, seed, limits and tournament as
        ``run_id`` that other code played (another package or player version): their
        games are not resumed into ``run_id``, and a user rerunning a command should be
        told why it starts over."""
        run = self.run(run_id)
        return [r for r in self.runs(run.tournament_id)
                if r.run_id != run_id and r.player == run.player and r.points == run.points
                and r.seed == run.seed and r.time_per_game == run.time_per_game
                and r.prep_time == run.prep_time and r.tournament_id == run.tournament_id]

    def run_secret(self, run_id: int, wanted: str | None = None) -> str:
        """The key of the run's player seeds (harness/seeds.py), set when first asked for:
        to ``wanted`` if given (a key chosen by hand replays the players' randomness in any
        store), else a fresh one. A run keyed otherwise already is a StoreError: its games
        and the ones to come would not be one run's."""
        row = self.conn.execute("SELECT secret FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        if row is None:
            raise StoreError(f"no run {run_id} in {self.path}")
        if row[0] is None:
            self._write("UPDATE runs SET secret = ? WHERE run_id = ? AND secret IS NULL",
                        (wanted if wanted is not None else new_secret(), run_id))
            row = self.conn.execute("SELECT secret FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        if wanted is not None and row[0] != wanted:
            run = self.run(run_id)
            raise StoreError(f"run {run_id} of {self.path} ({run.player} on {run.system_name}) was played under "
                             f"another secret: its games would not be one run's with these; give another --db, "
                             f"or leave the secret out to resume it")
        return row[0]

    def open_tournament(self, players: list[str], systems: list[PointSystem], games: int, seed: int,
                        time_per_game: float, prep_time: float) -> int:
        """The id of the tournament with these settings, created if new. As for a run, the
        game count is not part of it: the same tournament with more games goes on from the
        games it holds (its runs grow), with fewer it reads the first of them."""
        games, seed, time_per_game, prep_time = map(_plain, (games, seed, time_per_game, prep_time))
        sys_json = [s.to_json() for s in systems]
        key = _key(players, sys_json, seed, time_per_game, prep_time)
        with self.transaction():
            row = (self.conn.execute("SELECT tournament_id, games FROM tournaments WHERE key = ?", (key,)).fetchone()
                   or self._tournament_keyed_with_games(players, sys_json, seed, time_per_game, prep_time)
                   or self._tournament_reordered(players, sys_json, seed, time_per_game, prep_time))
            if row:  # listed in the order given now (the table's columns and rows)
                self._write("UPDATE tournaments SET key = ?, players = ?, systems = ?, games = MAX(games, ?) "
                            "WHERE tournament_id = ?", (key, json.dumps(players), json.dumps(sys_json), games, row[0]))
                return row[0]
            cur = self._write(
                "INSERT INTO tournaments (key, players, systems, games, seed, created) VALUES (?,?,?,?,?,?)",
                (key, json.dumps(players), json.dumps(sys_json), games, seed, time.time()))
            return _inserted(cur)

    def _tournament_keyed_with_games(self, players, sys_json, seed, time_per_game, prep_time):
        """``(tournament_id, games)`` of a tournament of these settings recorded before its
        key left out the game count (session 63: another --games was another tournament,
        all its games played again), the one of most games; None if there is none."""
        rows = self.conn.execute(
            "SELECT tournament_id, games, key FROM tournaments WHERE players = ? AND systems = ? AND seed = ?"
            " ORDER BY games DESC, tournament_id", (json.dumps(players), json.dumps(sys_json), seed)).fetchall()
        for tid, held, old in rows:
            if _key(players, sys_json, held, seed, time_per_game, prep_time) == old:
                return tid, held
        return None

    def _tournament_reordered(self, players, sys_json, seed, time_per_game, prep_time):
        """``(tournament_id, games)`` of a tournament of these players and point systems
        listed in another order, with these limits (its key says them); None if there is
        none. The order changes no game: an organiser who listed the entrants again
        alphabetically got a new tournament, every game played again."""
        for tid, held, held_players in self._tournaments_of(sys_json, seed, time_per_game, prep_time):
            if sorted(held_players) == sorted(players):
                return tid, held
        return None

    def _tournaments_of(self, sys_json, seed, time_per_game, prep_time) -> Iterator[tuple[int, int, list[str]]]:
        """``(tournament_id, games, players)`` of each tournament of these point systems (in
        any order), first deal seed and limits (its key says them), oldest first."""
        def points(systems):
            return sorted(tuple(s["points"]) for s in systems)

        rows = self.conn.execute("SELECT tournament_id, games, key, players, systems FROM tournaments WHERE seed = ?"
                                 " ORDER BY tournament_id", (seed,)).fetchall()
        for tid, held, old, held_players, held_systems in rows:
            held_players, held_systems = json.loads(held_players), json.loads(held_systems)
            if points(held_systems) == points(sys_json) and old == _key(held_players, held_systems, seed,
                                                                        time_per_game, prep_time):
                yield tid, held, held_players

    def tournament_entrants(self, systems: list[PointSystem], seed: int, time_per_game: float,
                            prep_time: float) -> list[list[str]]:
        """The players of each tournament of these point systems (in any order), first deal
        seed and limits, oldest first, as it lists them; read only."""
        sys_json = [s.to_json() for s in systems]
        return [players for _, _, players in self._tournaments_of(sys_json, seed, time_per_game, prep_time)]

    def take_runs(self, tournament_id: int, cells: list[tuple[str, PointSystem, str]], games: int,
                  time_per_game: float, prep_time: float, secret: str | None = None,
                  spellings: dict[str, Sequence[str]] | None = None) -> list[dict]:
        """Copy into tournament ``tournament_id`` the games another tournament of the store
        already played for its cells that have no run yet: ``cells`` is ``(player spec, point
        system, version)`` each (the version :meth:`open_run` keys the run by). A cell takes
        the run of the same player spec, points, first deal seed, limits and code in another
        tournament that holds the most of its first ``games`` games, with its secret (the
        players' seeds: the same games), unless ``secret`` is given and the run's is another.
        Game ``i`` of every run is the same deal whatever tournament it belongs to, so an
        organiser adding a late entrant (or a system) no longer plays every other game again.
        ``spellings``: for a player spec, every text of the same player a run may be held
        under (its parameters in another order); the spec alone if not given.
        Returns one ``{"player", "system", "from_tournament", "games"}`` per run taken."""
        tournament_id = _row_id(tournament_id, "tournament")
        seed = self.tournament(tournament_id)["seed"]
        taken = []
        with self.transaction():
            for player, system, version in cells:
                key = _run_key(player, system, seed, time_per_game, prep_time, tournament_id, version)
                if self.conn.execute("SELECT 1 FROM runs WHERE key = ?", (key,)).fetchone():
                    continue
                texts = list(dict.fromkeys([player, *(spellings or {}).get(player, ())]))
                donor = self.conn.execute(
                    "SELECT r.run_id, r.tournament_id, r.player_name, r.secret, COUNT(g.game_index) AS held"
                    " FROM runs r JOIN games g ON g.run_id = r.run_id AND g.game_index < ?"
                    f" WHERE r.player IN ({','.join('?' * len(texts))}) AND r.points = ? AND r.seed = ?"
                    " AND r.time_per_game = ? AND r.prep_time = ?"
                    " AND r.version = ? AND r.tournament_id IS NOT NULL AND r.tournament_id != ?"
                    " AND (? IS NULL OR r.secret = ?)"
                    " GROUP BY r.run_id ORDER BY held DESC, r.run_id DESC LIMIT 1",
                    (games, *texts, json.dumps(list(system.points)), seed, time_per_game, prep_time, version,
                     tournament_id, secret, secret)).fetchone()
                if donor is None:
                    continue
                run_id, source, player_name, run_secret, held = donor
                cur = self._write(
                    "INSERT INTO runs (key, player, player_name, system_name, points, seed, games, time_per_game,"
                    " prep_time, tournament_id, created, version, secret) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (key, player, player_name, system.name, json.dumps(list(system.points)), seed, games,
                     time_per_game, prep_time, tournament_id, time.time(), version, run_secret))
                self._write("INSERT INTO games (run_id, game_index, seed, score, placements, decision_s, penalty,"
                            " finished, fallback_moves) SELECT ?, game_index, seed, score, placements, decision_s,"
                            " penalty, finished, fallback_moves FROM games WHERE run_id = ? AND game_index < ?",
                            (_inserted(cur), run_id, games))
                taken.append({"player": player, "system": system.name, "from_tournament": int(source),
                              "games": int(held)})
        return taken

    def forget_penalised(self, run_id: int) -> int:
        """Delete the run's penalised games, so that resuming plays them again; their number."""
        with self.transaction():
            return self._write("DELETE FROM games WHERE run_id = ? AND penalty IS NOT NULL", (run_id,)).rowcount

    # -- games ---------------------------------------------------------------------------
    def add_games(self, run_id: int, records: Iterable[GameRecord]) -> int:
        """Record finished games in one transaction; a game already recorded is kept as it
        was. The number of games added (the others were recorded already)."""
        records = list(records)
        for r in records:
            if not isinstance(r, GameRecord):
                raise StoreError(f"a finished game is recorded as a GameRecord, got {r!r}")
            wrong = _unrecordable(r)
            if wrong is not None:  # every reader would refuse the store for it (_check_figures)
                raise StoreError(f"run {run_id}'s game {r.game_index!r} is not recorded: its {wrong[0]} "
                                 f"({wrong[1]!r:.60}) is none a game can have; nothing of this batch was written")
        rows = [(run_id, int(r.game_index), int(r.seed), int(r.score), json.dumps(r.placements), float(r.decision_s),
                 r.penalty, time.time(), int(r.fallback_moves)) for r in records]
        if not rows:
            return 0
        with self.transaction():  # the check and the write, with no other process's write between
            # Games of no run would be kept for ever under an id a later run may take.
            if self.conn.execute("SELECT 1 FROM runs WHERE run_id = ?", (run_id,)).fetchone() is None:
                raise StoreError(f"no run {run_id!r} in {self.path}: its games are not recorded")
            return self.conn.executemany(
                "INSERT OR IGNORE INTO games (run_id, game_index, seed, score, placements, decision_s,"
                " penalty, finished, fallback_moves) VALUES (?,?,?,?,?,?,?,?,?)", rows).rowcount

    def games(self, run_id: int, seeds: Iterable[int] | None = None) -> list[GameRecord]:
        """The run's games in the order played; ``seeds``: only those dealt with these."""
        return list(self.iter_games(run_id, seeds))

    def iter_games(self, run_id: int, seeds: Iterable[int] | None = None, *,
                   moves: bool = True) -> Iterator[GameRecord]:
        """:meth:`games` one at a time: a run of a million games is never held whole.
        ``moves=False``: the records without their placements (not even read), for what
        needs only scores, times and penalties."""
        run_id = _row_id(run_id, "run")
        if seeds is not None:
            seeds = seeds_to_read(seeds)  # checked before the first record is read
        # A person's game (the web app's run of player human, with no time limit) recorded by
        # a release that timed it on the wall clock (before 2026-12-05) took a negative time
        # where the clock was set back during it (NTP): read as 0 s, as the web app records
        # such a game now, not refused as an edited store.
        person = self.conn.execute("SELECT 1 FROM runs WHERE run_id = ? AND player = 'human' AND time_per_game = 0",
                                   (run_id,)).fetchone() is not None
        placements = "placements" if moves else "NULL"
        sql = (f"SELECT game_index, seed, score, {placements}, decision_s, penalty, {self._fallback} FROM games"
               " WHERE run_id = ?")
        if seeds is None:
            rows: Iterable = self.conn.execute(sql + " ORDER BY game_index", (run_id,))
        else:  # each seed looked up alone (by the games' index); one outside SQLite's integers is no game
            rows = sorted(row for seed in dict.fromkeys(seeds) if -2 ** 63 <= seed < 2 ** 63
                          for row in self.conn.execute(sql + " AND seed = ?", (run_id, seed)))
        rows = iter(rows)
        while True:
            try:
                row = next(rows, None)
            except sqlite3.ProgrammingError:  # the connection closed under the reading
                raise StoreError(f"the result store {self.path} was closed or refreshed while run {run_id}'s games "
                                 "were read; read them again") from None
            if row is None:
                return
            i, s, sc, pl, d, pen, fb = row
            if person and is_seconds(d) and -math.inf < d < 0:
                d = 0.0
            self._check_figures(run_id, i, s, sc, d, pen, fb)
            yield GameRecord(i, s, sc, self._placements(pl, run_id, s) if moves else [], d, pen, fb)

    def _check_figures(self, run_id: int, index, seed, score, seconds, penalty, fallback) -> None:
        """A game's figures as play records them, else a StoreError naming the game: a
        store edited by hand may hold anything (a score of text or 70.5 was cut to 70 when
        paired, one past any game's overflowed the paired sums, seconds of ``inf`` are not
        JSON, text seconds failed the export's rounding)."""
        wrong = _unrecordable(GameRecord(index, seed, score, [], seconds, penalty, fallback))  # as written
        if wrong is not None:
            raise StoreError(f"{self.path}: the {wrong[0]} of run {run_id}'s game {index} is damaged "
                             f"({wrong[1]!r:.60}); the store was edited?")

    def _placements(self, text, run_id: int, seed: int) -> list[tuple]:
        """A game's stored moves as tuples; moves edited by hand into something that is no
        list of lists (``'[[1,2'``, ``null``, ``[5, 5]``) are one StoreError naming the game,
        not a bare JSON or type error. What the tuples hold, its readers check."""
        try:
            moves = json.loads(text)
            if isinstance(moves, list):
                return [tuple(p) for p in moves]
        except (TypeError, ValueError, RecursionError):
            pass
        raise StoreError(f"{self.path}: the moves of run {run_id}'s game dealt with seed {seed} are damaged "
                         f"(not a list of [card, row, col]); the store was edited?")

    def moves_as_stored(self, run_id: int) -> dict[int, str]:
        """Each game's placements as the store holds them (JSON text), by deal seed: two
        copies of one run hold the same text."""
        return dict(self.conn.execute("SELECT seed, placements FROM games WHERE run_id = ?", (_row_id(run_id, "run"),)))

    def seed_scores(self, run_id: int) -> list[tuple[int, int]]:
        """``(seed, score)`` of each of the run's games in the order played, without their
        moves (the regret needs no more)."""
        return self.conn.execute("SELECT seed, score FROM games WHERE run_id = ? ORDER BY game_index",
                                 (_row_id(run_id, "run"),)).fetchall()

    def seeds_played(self, run_id: int) -> tuple[int, int | None, int | None]:
        """How many games the run holds, and its smallest and largest deal seed."""
        return self.conn.execute("SELECT COUNT(*), MIN(seed), MAX(seed) FROM games WHERE run_id = ?",
                                 (_row_id(run_id, "run"),)).fetchone()

    # -- reading -------------------------------------------------------------------------
    def runs(self, tournament_id: int | None = None, *, before: int | None = None,
             limit: int | None = None) -> list[RunInfo]:
        """The runs (of the tournament ``tournament_id``) in the order made, each with its
        games finished, their mean, fallback moves and penalties. ``before``: only runs
        with smaller ids; ``limit``: only the newest that many of those. A page costs the
        same in a store of any size: its runs are picked by their key, and each one's
        games found by theirs."""
        for name, value in (("before", before), ("limit", limit)):
            if value is not None and (not is_integer(value) or value < 0):
                raise StoreError(f"a page of runs takes a {name} of 0 or more, got {value!r}")
        sql = ("SELECT r.run_id, player, player_name, system_name, points, r.seed, r.games, time_per_game,"
               " prep_time, tournament_id, created, COUNT(g.game_index), AVG(g.score),"
               f" COALESCE(SUM({'g.' if self._fallback != '0' else ''}{self._fallback}), 0), COUNT(g.penalty),"
               f" {'r.version' if self._has_version else 'NULL'}"
               " FROM runs r LEFT JOIN games g ON g.run_id = r.run_id")
        picked: list[str] = []
        args: list = []
        if tournament_id is not None:
            picked.append("tournament_id = ?")
            args.append(_row_id(tournament_id, "tournament"))
        if before is not None:
            picked.append("run_id < ?")
            args.append(int(before))
        if picked or limit is not None:
            where = " WHERE " + " AND ".join(picked) if picked else ""
            sql += f" WHERE r.run_id IN (SELECT run_id FROM runs{where} ORDER BY run_id DESC LIMIT ?)"
            args.append(-1 if limit is None else int(limit))  # SQLite's LIMIT -1: no limit
        sql += " GROUP BY r.run_id ORDER BY r.run_id"
        return [RunInfo(a, b, c, d, self._run_points(a, e), f, g, self._run_seconds(a, "time per game", h),
                        self._run_seconds(a, "preparation time", i), j, k, n, m, fb, p, v)
                for a, b, c, d, e, f, g, h, i, j, k, n, m, fb, p, v in self.conn.execute(sql, args)]

    def count_runs(self) -> int:
        return self.conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0]

    def scores_by_system(self, player: str, *, by_name: bool = False) -> list[dict]:
        """The games of the runs of ``player`` (the spec as given) per point system name,
        in the order the systems were first played: ``system_name``, ``games``, their
        ``mean`` and ``best`` score; ``by_name``: per the runs' player name too (``name``:
        the name each person gave with their games in the browser). The player's runs are
        found by scanning the runs (CROSS JOIN keeps that order: SQLite otherwise scans
        every game of every run)."""
        name = "r.player_name" if by_name else "NULL"
        rows = self.conn.execute(
            f"SELECT {name}, r.system_name, COUNT(g.score), AVG(g.score), MAX(g.score)"
            " FROM runs r CROSS JOIN games g ON g.run_id = r.run_id WHERE r.player = ?"
            f" GROUP BY {name}, r.system_name ORDER BY MIN(r.run_id)", (player,))
        return [{**({"name": who} if by_name else {}), "system_name": s, "games": n, "mean": mean, "best": best}
                for who, s, n, mean, best in rows]

    def _run_points(self, run_id: int, text) -> list[int]:
        """A run's points (ten integers), else a StoreError naming the run (edited by hand)."""
        try:
            points = json.loads(text)
        except (TypeError, ValueError, RecursionError):
            points = None
        if not (isinstance(points, list) and len(points) == 10 and all(type(p) is int for p in points)):
            raise StoreError(f"{self.path}: run {run_id}'s point values are damaged ({text!r:.60}, not ten "
                             "integers); the store was edited?")
        return points

    def _run_seconds(self, run_id: int, what: str, value) -> float:
        if type(value) not in (int, float) or not 0 <= value < math.inf:
            raise StoreError(f"{self.path}: run {run_id}'s {what} is damaged ({value!r:.60} s); the store was edited?")
        return value

    def run(self, run_id: int) -> RunInfo:
        for r in self.runs():
            if r.run_id == run_id:
                return r
        raise StoreError(f"no run {run_id} in {self.path}")

    def tournaments(self) -> list[dict]:
        rows = self.conn.execute(
            "SELECT tournament_id, players, systems, games, seed, created FROM tournaments ORDER BY tournament_id")
        return [{"tournament_id": t, "players": json.loads(p), "systems": json.loads(s),
                 "games": g, "seed": sd, "created": c} for t, p, s, g, sd, c in rows]

    def tournament(self, tournament_id: int) -> dict:
        for t in self.tournaments():
            if t["tournament_id"] == tournament_id:
                return t
        raise StoreError(f"no tournament {tournament_id} in {self.path}")

    # -- export --------------------------------------------------------------------------
    def iter_export_rows(self, run_ids: Iterable[int] | None = None) -> Iterator[dict]:
        """:meth:`export_rows` one at a time (an unknown run is an error at once)."""
        wanted = None if run_ids is None else set(run_ids)
        runs = self.runs()
        missing = sorted((wanted or set()) - {r.run_id for r in runs})
        if missing:
            raise StoreError(f"no run {', '.join(map(str, missing))} in {self.path}")
        secrets = self.run_secrets()
        return (row for run in runs if wanted is None or run.run_id in wanted
                for row in self._export_rows(run, secrets.get(run.run_id)))

    def run_players(self, system: PointSystem | None, seed: int, time_per_game: float, prep_time: float, *,
                    tournaments: bool = False) -> list[tuple[str, str | None, str | None]]:
        """``(player spec, version, secret)`` of each run with these points (any, for None),
        first deal seed and limits, oldest first: the runs outside a tournament, or with
        ``tournaments`` those of every tournament. Read only, and no game is read (a
        command looks its players' spellings up here in a store of any size)."""
        columns = {r[1] for r in self.conn.execute("PRAGMA table_info(runs)")}
        version, secret = (c if c in columns else "NULL" for c in ("version", "secret"))
        where = "tournament_id IS NOT NULL" if tournaments else "tournament_id IS NULL"
        args: list = [seed, time_per_game, prep_time]
        if system is not None:
            where += " AND points = ?"
            args.append(json.dumps(list(system.points)))
        return [tuple(row) for row in self.conn.execute(
            f"SELECT player, {version}, {secret} FROM runs WHERE seed = ? AND time_per_game = ? AND prep_time = ?"
            f" AND {where} ORDER BY run_id", args)]

    def run_secrets(self) -> dict[int, str | None]:
        """Each run's secret, the key of its player seeds (None: a run that never played,
        or a store made before secrets were kept); read only."""
        if "secret" not in {r[1] for r in self.conn.execute("PRAGMA table_info(runs)")}:
            return {}
        return dict(self.conn.execute("SELECT run_id, secret FROM runs"))

    def _export_rows(self, run: RunInfo, secret: str | None = None) -> Iterator[dict]:
        for g in self.iter_games(run.run_id):
            yield {"run_id": run.run_id, "tournament_id": run.tournament_id, "player": run.player,
                   "player_name": run.player_name, "system": run.system_name, "points": run.points,
                   "game_index": g.game_index, "seed": g.seed, "score": g.score,
                   "decision_s": round(g.decision_s, 6), "penalty": g.penalty,
                   "fallback_moves": g.fallback_moves, "placements": g.placements, "secret": secret,
                   "version": run.version, "time_per_game": run.time_per_game, "prep_time": run.prep_time}

    def export_rows(self, run_ids: Iterable[int] | None = None) -> list[dict]:
        """Every game of the runs ``run_ids`` (all runs if None) as a row of the export."""
        return list(self.iter_export_rows(run_ids))

    def export_chunks(self, fmt: str, run_ids: Iterable[int] | None = None, size: int = 1 << 20) -> Iterator[str]:
        """The export of the runs ``run_ids`` as ``fmt`` (``"csv"``, or ``"json"``: the list of
        :meth:`export_rows`), in pieces of about ``size`` characters: a store of millions of
        games is never held in memory whole (the rows, then the text, then its bytes). A
        bad format or an unknown run is an error at once, before the first piece."""
        if fmt not in ("csv", "json"):
            raise StoreError(f"an export is csv or json, got {fmt!r}")
        return self._chunks(fmt, self.iter_export_rows(run_ids), size)

    @staticmethod
    def _chunks(fmt: str, rows: Iterator[dict], size: int) -> Iterator[str]:
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=EXPORT_FIELDS)
        if fmt == "csv":
            writer.writeheader()
        else:
            buf.write("[")
        first = True
        for r in rows:
            if fmt == "json":
                buf.write(("" if first else ", ") + json.dumps(r))
            else:
                writer.writerow({**r, "points": " ".join(map(str, r["points"])),
                                 "placements": json.dumps(r["placements"]),
                                 **{k: _as_text_cell(r[k]) for k in _TEXT_FIELDS}})
            first = False
            if buf.tell() >= size:
                yield buf.getvalue()
                buf.seek(0)
                buf.truncate()
        if fmt == "json":
            buf.write("]")
        yield buf.getvalue()

    def export_csv(self, run_ids: Iterable[int] | None = None) -> str:
        """:meth:`export_rows` as CSV text (``points`` space-separated, ``placements`` JSON)."""
        return "".join(self.export_chunks("csv", run_ids))
