"""Routes of the perfect-information optimum: a deal's best grid, and the result
store's runs against their deals' optima.

A solve takes up to :data:`OPTIMUM_TIME_S` seconds of a core, so :class:`OptimumSolver`
runs one at a time on a thread of its own (never one of the threads the other routes
share), lets at most :data:`QUEUE` more wait and one be asked for by each client at a
time, and refuses the rest at once (503 and 429) instead of piling them up. A waiting
solve whose every asker has gone away is dropped before it starts. Answers are kept in
memory (the last :data:`CACHE_SIZE`) and, when the server has a result store, in its
``optima`` table, where ``pokersquares optimum`` finds them too.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import sqlite3
import threading
from collections import OrderedDict
from concurrent.futures import Future
from typing import Awaitable, Callable

from fastapi import APIRouter, Query, Request

from ..errors import PokerSquaresError
from ..harness.store import StoreError
from ..optimum import solve_seed
from ..optimum.regret import run_regrets
from ..optimum.store import OptimaStore
from ..points import integer_or_none
from .agents import TooManyRequestsError
from .guards import client_of
from .results import holds_nothing
from .sessions import SEED_MAX, SEED_MIN, grid_view, parse_system

__all__ = ["router", "OPTIMUM_TIME_S", "OptimumSolver", "OptimumBusyError", "QUEUE", "CACHE_SIZE"]

OPTIMUM_TIME_S = 20.0  # per deal; an answer not proven within it says so
QUEUE = 2              # solves that may wait behind the running one
CACHE_SIZE = 512       # answers kept in memory
_POLL_S = 0.25         # how often a waiting request checks that its client is still there

router = APIRouter(prefix="/api/optimum")

_log = logging.getLogger(__name__)
# What a result store that cannot be read or written raises (a server started with
# --no-record on a store in a folder that does not exist, or on a read-only file).
_STORE_ERRORS = (StoreError, sqlite3.Error, OSError)


class OptimumBusyError(PokerSquaresError):
    """The solver is running one deal and as many wait behind it as may."""


class _Job:
    def __init__(self, key, solve: Callable[[], dict]) -> None:
        self.key, self.solve, self.askers = key, solve, 0
        self.future: Future[dict] = Future()


class OptimumSolver:
    """One solve at a time on its own daemon thread (a server that stops does not wait
    for it), ``queue`` more waiting, one asked for by each client at a time; the same
    deal and points asked again while it waits or runs share the one solve."""

    def __init__(self, queue_size: int = QUEUE, cache_size: int = CACHE_SIZE) -> None:
        self.queue_size, self.cache_size = queue_size, cache_size
        self._lock = threading.Lock()
        self._jobs: dict = {}              # key -> _Job, waiting or running
        self._clients: dict[str, int] = {}  # client -> solves it waits for
        self._cache: OrderedDict = OrderedDict()
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._worker: threading.Thread | None = None  # started by the first solve
        self._closed = False

    def cached(self, key) -> dict | None:
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        return None

    def pending(self) -> int:
        """Deals being solved or waiting to be."""
        with self._lock:
            return len(self._jobs)

    def _work(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            if not job.future.set_running_or_notify_cancel():
                continue  # every asker left before it started
            try:
                answer = job.solve()
            except BaseException as e:  # noqa: BLE001 - handed to the askers
                with self._lock:
                    self._jobs.pop(job.key, None)
                job.future.set_exception(e)
                continue
            with self._lock:
                self._jobs.pop(job.key, None)
                self._cache[job.key] = answer
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
            job.future.set_result(answer)

    def _join(self, key, client: str, solve: Callable[[], dict]) -> _Job:
        with self._lock:
            if self._closed:
                raise OptimumBusyError("the server is stopping")
            if self._clients.get(client, 0) >= 1:
                raise TooManyRequestsError("you already wait for a deal's optimum; wait for its answer")
            job = self._jobs.get(key)
            if job is None and key in self._cache:  # solved since the caller looked
                job = _Job(key, solve)  # never run: its answer is already known
                job.future.set_result(self._cache[key])
            elif job is None:
                if len(self._jobs) > self.queue_size:
                    raise OptimumBusyError(f"the optimum solver is busy with {len(self._jobs)} deals; "
                                           "try again in a few seconds")
                job = self._jobs[key] = _Job(key, solve)
                if self._worker is None:
                    self._worker = threading.Thread(target=self._work, name="optimum-solver", daemon=True)
                    self._worker.start()
                self._queue.put(job)
            job.askers += 1
            self._clients[client] = self._clients.get(client, 0) + 1
            return job

    def _leave(self, job: _Job, client: str) -> None:
        with self._lock:
            job.askers -= 1
            self._clients[client] -= 1
            if not self._clients[client]:
                del self._clients[client]
            if job.askers == 0 and job.future.cancel():  # not started: drop it
                self._jobs.pop(job.key, None)

    async def answer(self, key, client: str, solve: Callable[[], dict],
                     gone: Callable[[], Awaitable[bool]]) -> dict | None:
        """The answer for ``key``, solving it with ``solve`` on the solver's thread if it
        is not cached; None if the client left (``gone``) before it came."""
        cached = self.cached(key)
        if cached is not None:
            return cached
        job = self._join(key, client, solve)
        try:
            waiting = asyncio.wrap_future(job.future)
            while True:
                done, _ = await asyncio.wait({waiting}, timeout=_POLL_S)
                if done:
                    return waiting.result()
                if await gone():
                    return None
        finally:
            self._leave(job, client)

    def close(self) -> None:
        """Drop the waiting solves; the running one ends on its own (its thread is a
        daemon, so the process does not wait for it)."""
        with self._lock:
            self._closed = True
            for job in list(self._jobs.values()):
                if job.future.cancel():
                    self._jobs.pop(job.key, None)
        if self._worker is not None:
            self._queue.put(None)

    def join(self, timeout: float) -> bool:
        """After :meth:`close`, wait up to ``timeout`` seconds for the solve under way to
        end; whether it did. A process that exits while CP-SAT runs on the solver's thread
        can abort ("terminate called without an active exception", exit 134): the
        interpreter ends the thread as it comes back from the solver."""
        worker = self._worker
        if worker is not None:
            worker.join(timeout)
        return worker is None or not worker.is_alive()


def _parse_seed(text: str) -> int:
    seed = integer_or_none(text)
    if seed is None:
        raise PokerSquaresError(f"a deal seed is a whole number, got {text.strip()!r}")
    if not SEED_MIN <= seed <= SEED_MAX:
        raise PokerSquaresError(f"a deal seed is a 64-bit integer, got {seed}")
    return seed


def _stored(path, seed: int, points):
    """The store's optimum of the deal, or None. Opened for writing (which brings an older
    store's table up to date), else read only (a server started with --no-record on a
    store it may not write); a store that cannot be read is only a cache missed."""
    for readonly in (False, True):
        try:
            with OptimaStore(path, readonly=readonly) as store:
                return store.get(seed, points, time_limit=OPTIMUM_TIME_S)
        except _STORE_ERRORS as e:
            error = e
    _log.warning("could not read stored optima: %s", error)
    return None


@router.get("")
async def optimum(request: Request, seed: str = Query(..., max_length=40),
                  system: str = Query(..., max_length=400)) -> dict:
    """The best grid of the deal's 25 cards under ``system``, its score, a proven upper
    bound and whether it is proven optimal. 503 while the solver has as many deals as it
    may, 429 while this client already waits for one."""
    seed_value = _parse_seed(seed)
    point_system = parse_system(system)
    key = (seed_value, tuple(point_system.points))
    store_path = request.app.state.store_path

    def solve() -> dict:
        opt = None
        if store_path is not None and store_path.exists():
            opt = _stored(store_path, seed_value, point_system.points)
        if opt is None:
            opt = solve_seed(seed_value, point_system, time_limit=OPTIMUM_TIME_S)
            if store_path is not None:
                try:
                    with OptimaStore(store_path) as store:
                        store.put(opt, OPTIMUM_TIME_S)
                except _STORE_ERRORS as e:  # the answer is kept in memory and given, never lost
                    _log.warning("could not store a deal's optimum: %s", e)
        view = opt.to_json()
        view["seed"] = str(seed_value)  # JavaScript numbers lose digits past 2**53
        view["view"] = grid_view(opt.grid, point_system)
        return view

    solver: OptimumSolver = request.app.state.optimum
    answer = await solver.answer(key, client_of(request), solve, request.is_disconnected)
    if answer is None:  # the client left; nobody reads this
        raise OptimumBusyError("the request was abandoned")
    return answer


@router.get("/regret")
def regret(request: Request) -> dict:
    """Each run of the result store whose deals have stored optima: its fraction of the
    optimum and its regret, with standard errors."""
    from ..harness.store import ResultStore
    path = request.app.state.store_path
    if path is None or not path.is_file() or holds_nothing(path):  # as the Results page says: no store yet
        return {"runs": []}
    with ResultStore(path, readonly=True) as store:
        runs = store.runs()
    regrets = run_regrets(path, runs)
    return {"runs": [{"run_id": r.run_id, "player": r.player, "player_name": r.player_name, "system": r.system_name,
                      **regrets[r.run_id]}
                     for r in runs if r.run_id in regrets]}
