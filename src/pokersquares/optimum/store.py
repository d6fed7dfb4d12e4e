"""Optima in the result store: one table, ``optima``, in the same SQLite file as the
games, keyed by (deal seed, point system's ten points). A deal's optimum is solved
once per point system; a later request reads it back unless it asked for a longer
time limit than an unproven stored answer had.
"""

from __future__ import annotations

import json
import math
import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from ..cards import as_sequence, check_seed, is_integer, is_seconds
from ..errors import InvalidPointSystemError, InvalidSeedError, PokerSquaresError
from ..machine import SIGNAL_POLL_S, check_compiler
from ..points import PointSystem
from . import Optimum

if TYPE_CHECKING:
    from ..harness.store import ResultStore, _ClosedConnection, _SharedConnection

__all__ = ["OptimaStore", "optima_from", "DamagedOptimumError"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS optima (
    seed INTEGER NOT NULL,
    points TEXT NOT NULL,           -- JSON list of 10 ints
    system_name TEXT NOT NULL,
    score INTEGER NOT NULL,         -- best grid found
    bound INTEGER NOT NULL,         -- proven upper bound
    proven INTEGER NOT NULL,
    grid TEXT NOT NULL,             -- JSON list of 25 card ids, row-major
    seconds REAL NOT NULL,
    time_limit REAL NOT NULL,
    heuristic_score INTEGER NOT NULL,
    created REAL NOT NULL,
    cpu_seconds REAL,               -- NULL in stores written before it was recorded
    method TEXT,
    PRIMARY KEY (seed, points)
);
"""


class DamagedOptimumError(PokerSquaresError):
    """A stored optimum that cannot be what was solved (a row edited by hand). Not a
    StoreError: :func:`solve_seeds` takes those for a file that is not SQLite."""


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _points_key(points) -> str:
    return json.dumps([int(p) for p in points])


class OptimaStore:
    """The ``optima`` table of a result store file (created if missing)."""

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        from ..harness.store import StoreError, _sqlite_connect, no_room, open_for_reading, probe
        self.path = Path(path)
        try:
            if readonly:
                if not self.path.exists():
                    raise StoreError(f"no result store at {self.path}")
                if not self.path.is_file():  # a folder, or a pipe the read would wait on for ever
                    raise StoreError(f"the result store {self.path} is not a file (a folder?)")
                # Someone else's SQLite file is refused before it is opened (left as it is);
                # an empty one holds no optima, and is not opened either. A file that is not
                # SQLite at all is reported by the first read, as it always was.
                try:
                    kind = probe(self.path)
                except sqlite3.DatabaseError:
                    kind = "unreadable"
                if kind == "new":
                    self.conn = _sqlite_connect(":memory:")  # any thread may read it
                else:
                    self.conn = open_for_reading(self.path)
                    if no_room(self.path) is not None:  # read now: SQLite may not size the -shm it needs
                        self.conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            else:
                from ..harness.store import ResultStore
                # A new file becomes a result store, a foreign one is refused; its writes check
                # that the file and its -wal and -shm are still the ones opened (a clean-up of
                # the folder mid-run would lose the optima written since).
                self._writer = ResultStore(self.path)
                # Created and brought up to date in one write transaction: processes opening
                # a store of an older version at once would each add the same column.
                with self._writer.transaction():
                    self.conn.execute(_SCHEMA)
                    have = {row[1] for row in self.conn.execute("PRAGMA table_info(optima)")}
                    for column, kind in (("cpu_seconds", "REAL"), ("method", "TEXT")):
                        if column not in have:
                            self.conn.execute(f"ALTER TABLE optima ADD COLUMN {column} {kind}")
        except sqlite3.DatabaseError as e:
            room = no_room(self.path) if isinstance(e, sqlite3.OperationalError) else None
            if room is not None:  # not a damaged store: one that cannot grow
                raise StoreError(f"cannot open the result store {self.path}: {room[0]} ({e}); it was left as it "
                                 f"is: {room[1]} and try again") from None
            raise StoreError(f"{self.path} is not a readable result store ({e})") from None
        except OSError as e:
            raise StoreError(f"cannot open the result store {self.path}: {e}") from None

    _writer: ResultStore | None = None  # the ResultStore whose connection writes (None when read-only)
    _reader: sqlite3.Connection | _ClosedConnection

    @property
    def conn(self) -> sqlite3.Connection | _SharedConnection | _ClosedConnection:
        return self._writer.conn if self._writer is not None else self._reader

    @conn.setter
    def conn(self, value: sqlite3.Connection | _ClosedConnection) -> None:
        self._reader = value

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        else:
            from ..harness.store import _ClosedConnection
            self.conn.close()
            self.conn = _ClosedConnection(self.path)  # a read after close says so in one line

    def __enter__(self) -> "OptimaStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _has_table(self) -> bool:
        return self.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='optima'").fetchone() is not None

    def put(self, optimum: Optimum, time_limit: float) -> None:
        """Store ``optimum``, solved under ``time_limit`` seconds, unless the store holds a
        better answer for its deal: a proven one, or one solved under a longer limit (two
        processes, or the web app and a command, may solve the same deal at once)."""
        if self._writer is None:
            from ..harness.store import StoreError

            raise StoreError(f"the result store {self.path} was opened read-only: it stores no optimum")
        with self._writer.transaction():
            self.conn.execute(
                "INSERT INTO optima (seed, points, system_name, score, bound, proven, grid, seconds, "
                "time_limit, heuristic_score, created, cpu_seconds, method) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?) "
                "ON CONFLICT (seed, points) DO UPDATE SET system_name = excluded.system_name, score = excluded.score, "
                "bound = excluded.bound, proven = excluded.proven, grid = excluded.grid, seconds = excluded.seconds, "
                "time_limit = excluded.time_limit, heuristic_score = excluded.heuristic_score, "
                "created = excluded.created, cpu_seconds = excluded.cpu_seconds, method = excluded.method "
                "WHERE NOT optima.proven AND (excluded.proven OR excluded.time_limit >= optima.time_limit)",
                (optimum.seed, _points_key(optimum.points), optimum.system, optimum.score, optimum.bound,
                 int(optimum.proven), json.dumps(optimum.grid), optimum.seconds, float(time_limit),
                 optimum.heuristic_score, time.time(), optimum.cpu_seconds, optimum.method))

    def get(self, seed: int, points, *, time_limit: float | None = None) -> Optimum | None:
        """The stored optimum of deal ``seed``, or None; with ``time_limit``, an unproven
        answer solved under a shorter limit counts as missing."""
        return self.many([seed], points, time_limit=time_limit).get(seed)

    def many(self, seeds: Iterable[int], points, *, time_limit: float | None = None) -> dict[int, Optimum]:
        """The stored optima of ``seeds`` under ``points`` (those present)."""
        from ..harness.store import seeds_to_read
        seeds = seeds_to_read(seeds)
        if not self._has_table():
            return {}
        wanted = set(int(s) for s in seeds)
        # A store written before CPU seconds and the method were recorded lacks their columns
        # until a writer adds them; read only, it is read with none (the reader failed on "no
        # such column", and `optimum --seeds` solved its every deal again).
        have = {row[1] for row in self.conn.execute("PRAGMA table_info(optima)")}
        later = ", ".join(c if c in have else "NULL" for c in ("cpu_seconds", "method"))
        rows = self.conn.execute(
            "SELECT seed, system_name, score, bound, proven, grid, seconds, time_limit, heuristic_score, "
            f"{later} FROM optima WHERE points = ?", (_points_key(points),)).fetchall()
        out = {}
        for seed, name, score, bound, proven, grid, seconds, limit, heuristic, cpu, method in rows:
            if seed not in wanted:
                continue
            grid = self._checked_row(seed, score, bound, proven, grid, seconds, limit, cpu)
            if time_limit is not None and not proven and limit < time_limit:
                continue
            out[seed] = Optimum(seed, name, tuple(int(p) for p in points), score, bound, bool(proven),
                                grid, seconds, heuristic, cpu, method or "")
        return out

    def _checked_row(self, seed, score, bound, proven, grid, seconds, limit, cpu):
        """A stored optimum's grid read (whatever JSON it holds: a reader such as
        ``compare --hands`` leaves out one that is no grid) and its figures checked, else
        a DamagedOptimumError naming its deal: a row edited by hand met a bare JSON or
        type error, or a score above its proven bound was read as the optimum."""
        try:
            cells = json.loads(grid)
        except (TypeError, ValueError):
            why = "its grid is not JSON"
        else:
            if not (is_integer(score) and is_integer(bound) and score <= bound):
                why = f"its score {_short(score)} is not an integer at most its bound {_short(bound)}"
            elif proven not in (0, 1):
                why = f"proven is {_short(proven)}, not 0 or 1"
            elif proven and score != bound:  # proven means the grid meets the bound
                why = f"it is marked proven, but its score {score} is below its bound {bound}"
            elif not all(is_seconds(t) and math.isfinite(t) for t in (seconds, limit, 0.0 if cpu is None else cpu)):
                why = "its seconds are not finite numbers"
            else:
                return cells
        raise DamagedOptimumError(f"{self.path}: the stored optimum of deal {seed} is damaged ({why}); "
                                  "not reading it")

    def systems(self) -> list[tuple[str, tuple[int, ...], int]]:
        """(name, points, count) of every point system with stored optima."""
        if not self._has_table():
            return []
        rows = self.conn.execute(
            "SELECT system_name, points, COUNT(*) FROM optima GROUP BY points ORDER BY system_name").fetchall()
        return [(name, self._checked_points(pts), n) for name, pts, n in rows]

    def _checked_points(self, text) -> tuple[int, ...]:
        """A row's points (ten integers), else a DamagedOptimumError (it met a bare JSON error)."""
        try:
            points = json.loads(text) if isinstance(text, str) else None
        except ValueError:
            points = None
        if not (isinstance(points, list) and len(points) == 10 and all(map(is_integer, points))):
            raise DamagedOptimumError(f"{self.path}: stored optima are damaged (points {_short(text)} are not ten "
                                      "integers); not reading them")
        return tuple(points)


def optima_from(stores: Iterable[str | Path], seeds: Iterable[int], points) -> dict[int, Optimum]:
    """The stored optima of ``seeds`` under ``points`` gathered from several stores (each
    point system's optima may live in a store of its own); where two hold a deal, the
    proven optimum counts, else the first store's."""
    from ..harness.compare import store_paths
    seeds = list(seeds)
    out: dict[int, Optimum] = {}
    for path in store_paths(stores):
        with OptimaStore(path, readonly=True) as optima:
            for seed, opt in optima.many(seeds, points).items():
                held = out.get(seed)
                if held is None or (opt.proven and not held.proven):
                    out[seed] = opt
    return out


def solve_seeds(seeds: list[int], point_system: PointSystem, *, db: str | Path, time_limit: float,
                workers: int = 1, backend: str = "local", address: str | None = None,
                on_result=None) -> dict[int, Optimum]:
    """The optima of ``seeds``: read from the store where present, the rest solved in
    ``workers`` processes (or Ray tasks) and stored as each finishes, so an interrupted
    call resumes. A store that already holds every deal is only read: reading a
    finished store back (one kept in version control, say) leaves its file as it was."""
    from ..harness.store import StoreError
    from . import check_time_limit, require_solver, solve_seed
    # Everything checked before the store is opened (or created): a bad call records nothing.
    seeds = [check_seed(s) for s in as_sequence(seeds, "the deals' seeds", InvalidSeedError)]
    if not isinstance(point_system, PointSystem):
        raise InvalidPointSystemError(f"an optimum's point system is a PointSystem (parse_point_system('american'), "
                                      f"...), got {point_system!r}")
    time_limit = check_time_limit(time_limit)
    if not is_integer(workers) or workers < 1:
        raise PokerSquaresError(f"the number of workers must be a whole number from 1, got {workers!r}")
    if backend not in ("local", "ray"):
        raise PokerSquaresError(f"unknown backend {backend!r}; backends: local, ray")
    if address and backend != "ray":
        raise PokerSquaresError("an address is for the ray backend")
    done: dict[int, Optimum] = {}
    if Path(db).exists():
        try:
            with OptimaStore(db, readonly=True) as store:
                done = store.many(seeds, point_system.points, time_limit=time_limit)
        except (StoreError, sqlite3.DatabaseError):
            # A file that is not SQLite is opened lazily and fails at its first read:
            # opened for writing below, which says what is wrong with the file.
            done = {}
    todo = [s for s in seeds if s not in done]
    if todo:  # a finished store is read without the [optimum] extra
        require_solver(point_system.points)
        check_compiler("nothing was solved or stored")
    for s in seeds:
        if s in done and on_result:
            on_result(done[s], True)
    if not todo:
        return done
    if backend == "ray" and address:  # an unreachable cluster is said before the store file is made
        from ..harness.ray_backend import _check_reachable
        _check_reachable(address)
    with OptimaStore(db) as store:
        def record(opt: Optimum) -> None:
            store.put(opt, time_limit)
            assert opt.seed is not None  # solved from its seed
            done[opt.seed] = opt
            if on_result:
                on_result(opt, False)

        if backend == "ray":
            from ..harness import ray_backend
            with ray_backend.session(address, workers):
                ray = ray_backend._ray()
                task = ray.remote(num_cpus=1, max_retries=1)(solve_seed)
                pending = [task.remote(s, point_system, time_limit=time_limit) for s in todo]
                while pending:
                    ready, pending = ray.wait(pending, num_returns=1)
                    record(ray.get(ready[0]))
        elif workers <= 1:
            for s in todo:
                record(solve_seed(s, point_system, time_limit=time_limit))
        else:
            solved = _in_workers(todo, point_system, time_limit, workers)
            try:
                for opt in solved:
                    record(opt)
            finally:
                solved.close()  # an interruption here stops the workers now
        return done


def _solve_one(job: tuple[int, PointSystem, float]) -> Optimum:
    from . import solve_seed
    seed, point_system, time_limit = job
    return solve_seed(seed, point_system, time_limit=time_limit)


def _in_workers(seeds: list[int], point_system: PointSystem, time_limit: float, workers: int):
    """Each deal's optimum as a worker finishes it. The workers are the run's as the
    games' are (:func:`~pokersquares.harness.local_backend.become_worker`): they die
    with this process, and an interruption (Ctrl-C, SIGTERM, an error) stops them at
    once instead of waiting for every deal queued."""
    import multiprocessing as mp
    import os

    from ..harness.local_backend import become_worker
    workers = max(1, min(workers, len(seeds)))  # never more processes than deals
    # Forked, as the games' workers are, whatever the caller set as the start method: a
    # worker started by a fork server is that server's child, not this process's, and
    # become_worker (which dies with its parent) left at once; the pool started another
    # in its place, and another, and the call never returned.
    pool = mp.get_context("fork").Pool(workers, initializer=become_worker, initargs=(os.getpid(),))
    try:
        solved = pool.imap_unordered(_solve_one, [(s, point_system, time_limit) for s in seeds])
        while True:
            # Waited for in steps: a Ctrl-C the kernel hands to one of the pool's threads
            # does not wake this one (machine.run_in_threads), which waited for the deal
            # being solved (up to its time limit) before it stopped.
            try:
                yield solved.next(timeout=SIGNAL_POLL_S)
            except mp.TimeoutError:
                continue
            except StopIteration:
                break
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()
