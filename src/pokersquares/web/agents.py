"""The agents the web app lets a page use: registered players only, prepared once per
point system and kept, their thinking run in worker threads and bounded in time.

Preparing an agent for a point system (compiling its kernels on first use, then
learning within ``prep_s``) runs on a few preparation threads, so that a cheap agent
never waits behind an expensive one; requests beyond those threads wait in a queue
whose position the page is told, a page's requests come before the server's own
warm-up, and a preparation nobody waits for any more (cancelled, or evicted to make
room) is taken off the queue. One that has started runs to its end (its budget bounds
it) and is then dropped. Room is made only of preparations no page is waiting for:
when pages wait for every one the pool may hold, a new one is refused (503, which the
page asks again after) until one is done. The server's own warm-up is held besides.

Work is bounded per client (a page, named by its ``X-Client`` header and address):
at most ``prep_per_client`` preparations and ``think_per_client`` answers at once,
and at most ``think_queue`` answers wait for the thinking threads in all; beyond
that a request is refused at once (429 or 503) rather than left to time out.

A prepared player is used by one request at a time (its lock), so players need not
be thread-safe; requests for different agents or point systems run side by side.
"""

from __future__ import annotations

import asyncio
import functools
import re
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..cards import Card
from ..errors import PokerSquaresError
from ..game import EMPTY, NUM_CELLS, SIZE
from ..harness.seeds import PROCESS_SECRET, player_seed
from ..points import PointSystem

__all__ = [
    "AgentError", "AgentTimeoutError", "UnknownAgentError", "AgentBusyError", "TooManyRequestsError", "AgentPreparing",
    "Advice", "AgentSpec", "AgentPool", "Preparation", "registered_agents", "values_note", "SERVER",
]

SERVER = "server"  # the client name of the server's own warm-up
# The least a hint thinks when it shares its seconds with the requests waiting behind it
# for the same prepared agent (:meth:`AgentPool.advise`).
SHARED_THINK_MIN_S = 0.05
DEALS_KEPT = 1024  # the deals played whole by agents that the pool keeps (:meth:`AgentPool.play_deal`)
# A page waiting for a preparation asks again every second or so (a 202 answer after
# ``wait_s``, then half a second); one not asked for this long is no longer waited for.
WAITING_S = 5.0


# What the API takes as an agent's name (web/schemas.py): an agent named otherwise could
# be listed on the page but never asked for.
AGENT_NAME_PATTERN = r"^[A-Za-z0-9_.-]+$"
AGENT_NAME_MAX = 40


def check_agent_names(names) -> None:
    """PokerSquaresError naming the first name the API could not take."""
    for name in names:
        if not (isinstance(name, str) and 0 < len(name) <= AGENT_NAME_MAX and re.match(AGENT_NAME_PATTERN, name)):
            raise PokerSquaresError(f"agent name {name!r} cannot be asked for over the web API: "
                                    f"1 to {AGENT_NAME_MAX} letters, digits, '_', '.' or '-'")


class AgentError(PokerSquaresError):
    """An agent that failed or ran out of time while answering."""


class AgentTimeoutError(AgentError):
    """An agent that did not answer within its time (504, where its other failures are 500)."""


class UnknownAgentError(PokerSquaresError):
    """A name that is not a registered agent (the web takes no module paths)."""


class AgentBusyError(AgentError):
    """The server's thinking threads are all taken, or the agent is busy with an earlier request."""


class TooManyRequestsError(PokerSquaresError):
    """A client that already has as much work under way as one client may have."""


class AgentPreparing(Exception):
    """The agent is compiling or learning the point system; ask again shortly."""

    def __init__(self, status: dict) -> None:
        super().__init__(status["detail"])
        self.status = status


@dataclass
class Advice:
    agent: str
    values: list[float | None]  # per cell; None where occupied or the agent cannot say
    choice: int
    seconds: float
    asked: float = 0.0  # the seconds asked for: more than it thought when others were waiting
    others_waiting: int = 0  # requests waiting for the same prepared agent when it started


@dataclass(frozen=True)
class AgentSpec:
    factory: Callable[[], Any]
    description: str
    cores: int = 1
    advises: bool = True  # False: plays whole games only (Watch, Replay), no hints (web.java_agents)


# The phases of a preparation, in order, and what the page is told of each.
QUEUED, COMPILING, LEARNING, READY, FAILED, CANCELLED = (
    "queued", "compiling", "learning", "ready", "failed", "cancelled")


@dataclass(eq=False)
class Preparation:
    """One agent prepared (or being prepared) for one point system."""

    agent: str
    point_system: PointSystem
    cores: int
    priority: int  # 0: a page asked; 1: the server's warm-up
    clients: set[str]
    player: Any = None
    phase: str = QUEUED
    error: BaseException | None = None
    created: float = field(default_factory=time.monotonic)
    asks: int = 0  # requests for it, the first included
    asked: float = field(default_factory=time.monotonic)  # the last, or when a page last had it ready
    awaited: bool = False  # a page's request waited for it: the page asks again until it is ready
    started: float | None = None
    learning_started: float | None = None
    finished: float | None = None
    done: Future = field(default_factory=Future)
    lock: threading.Lock = field(default_factory=threading.Lock)
    queued: int = 0  # requests admitted for it that wait for its lock (the pool's lock guards it)

    @property
    def key(self) -> tuple[str, tuple[int, ...]]:
        return self.agent, tuple(self.point_system.points)

    def seconds(self) -> float:
        return (self.finished or time.monotonic()) - self.created


# What an agent's numbers on the board mean, in one line. The player protocol's
# ``cell_values`` estimates the final score; the agents below say otherwise.
_VALUE_NOTES = {
    "random": "random gives no estimates, only its choice",
    "greedy": "greedy's estimate of the final score if the card goes in that cell and its one-ply rule "
              "plays on (sampled futures); the rule itself looks one card ahead, so its choice can differ "
              "from the highest number",
}


def values_note(name: str) -> str:
    """One line saying what ``name``'s values on the board are."""
    return _VALUE_NOTES.get(name, f"{name}'s estimate of the final score if the card goes in that cell")


def registered_agents() -> dict[str, AgentSpec]:
    """The registered players, by name."""
    from ..harness.registry import list_players

    # Pages name agents by plain names only (AgentName's pattern): PREFIX:NAME players such
    # as openspiel:mcts are for the command line.
    return {info.name: AgentSpec(info.factory, info.description, info.cores) for info in list_players()
            if ":" not in info.name}


# Learning, and the thinking of agents that run parallel kernels over several cores,
# take turns where numba's threading layer is its fallback, ``workqueue``: that layer
# cannot run parallel kernels from two threads at once. Under ``omp`` or ``tbb`` (thread
# safe) they need not: a page's hint then never waits for another agent's learning.
_PARALLEL = threading.Lock()


def _parallel_turn(cores: int):
    """The lock a ``cores``-core agent's learning or thinking takes, or none."""
    if cores <= 1:
        return nullcontext()
    layer: str
    try:
        import numba

        layer = numba.threading_layer()  # known once a parallel kernel has run
    except ValueError:
        layer = "unknown"
    return nullcontext() if layer in ("omp", "tbb") else _PARALLEL


def _compile(player: Any) -> None:
    """Compile (or load from numba's cache) the player's kernels, off every clock."""
    if hasattr(player, "warm_up"):
        player.warm_up()


def _first_advice(player: Any) -> None:
    """One tiny piece of advice on the learned state, off the clock, so that first use
    costs are not paid inside the first request's thinking time."""
    grid = np.full(NUM_CELLS, EMPTY, dtype=np.int8)
    grid[:NUM_CELLS - 2] = np.arange(NUM_CELLS - 2)
    try:
        if hasattr(player, "cell_values"):
            player.cell_values(grid, NUM_CELLS - 2, 0.05)
    except Exception:  # noqa: BLE001 - a real request will report the failure
        pass


class _Preparer:
    """``workers`` threads taking preparations off a queue, a page's before the
    server's warm-up and otherwise first come, first served.

    A page's preparation never waits behind the server's own warm-up: when no worker
    is idle and some run warm-ups, it starts at once on a thread of its own (at most
    as many such threads as warm-ups running), sharing the cores with them for its
    budget instead of waiting a whole budget for a slot."""

    def __init__(self, run: Callable[[Preparation], None], workers: int) -> None:
        self._run = run
        self._queue: list[Preparation] = []
        self._cond = threading.Condition()
        self._closed = False
        self._idle = 0          # workers waiting for a preparation
        self._warm_running = 0  # server warm-ups being prepared
        self._extra = 0         # threads started for pages past busy warm-ups
        self._threads = [threading.Thread(target=self._work, name=f"agent-prep-{i}", daemon=True)
                         for i in range(workers)]
        for t in self._threads:
            t.start()

    def submit(self, prep: Preparation) -> None:
        with self._cond:
            self._queue.append(prep)
            self._queue.sort(key=lambda p: (p.priority, p.created))
            self._cond.notify()
            self._page_past_warm_ups()

    def promote(self, prep: Preparation) -> None:
        with self._cond:
            prep.priority = 0
            self._queue.sort(key=lambda p: (p.priority, p.created))
            self._page_past_warm_ups()

    def _page_past_warm_ups(self) -> None:
        """Start a thread for a waiting page's preparation if only warm-ups keep it
        waiting (called with the lock held)."""
        pages = sum(1 for p in self._queue if p.priority == 0)
        if pages > self._idle and self._extra < self._warm_running and not self._closed:
            self._extra += 1
            thread = threading.Thread(target=self._work, args=(True,), name="agent-prep-page", daemon=True)
            self._threads = [t for t in self._threads if t.is_alive()] + [thread]
            thread.start()

    @property
    def threads(self) -> list[threading.Thread]:
        """The threads that prepare (to wait for them when the server stops)."""
        with self._cond:
            return list(self._threads)

    def withdraw(self, prep: Preparation) -> bool:
        """Take a preparation that has not started off the queue."""
        with self._cond:
            if prep in self._queue:
                self._queue.remove(prep)
                return True
            return False

    def position(self, prep: Preparation) -> int | None:
        """1 for the next preparation to start, None once started."""
        with self._cond:
            return self._queue.index(prep) + 1 if prep in self._queue else None

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._queue.clear()
            self._cond.notify_all()

    def _work(self, for_a_page: bool = False) -> None:
        while True:
            with self._cond:
                if for_a_page:  # one page's preparation, then the thread ends
                    if self._closed or not self._queue or self._queue[0].priority != 0:
                        self._extra -= 1
                        return
                else:
                    self._idle += 1
                    while not self._queue and not self._closed:
                        self._cond.wait()
                    self._idle -= 1
                    if self._closed:
                        return
                prep = self._queue.pop(0)
                warm_up = prep.priority == 1
                self._warm_running += warm_up
            try:
                self._run(prep)
            finally:
                with self._cond:
                    self._warm_running -= warm_up
                    if for_a_page:
                        self._extra -= 1
            if for_a_page:
                return


class AgentPool:
    """Prepared agents per (agent, point system), at most ``max_prepared`` of them
    besides those the server warms at start (:meth:`warm`); the least recently used
    makes room, unless pages are waiting for every one (then a new one is refused).

    ``prep_s`` is the learning budget given to ``set_point_system``; ``think_s`` caps
    the seconds of one advice or watched move; ``game_s`` is the clock of a whole
    game the agent plays at once (replaying a deal). ``agents`` may be a mapping or a
    function returning one, called on first use (importing the players can take a
    while on a cold cache; the server answers meanwhile).
    """

    def __init__(self, agents: Mapping[str, AgentSpec] | Callable[[], Mapping[str, AgentSpec]] | None = None, *,
                 prep_s: float = 5.0, think_s: float = 2.0, game_s: float = 10.0,
                 max_prepared: int = 16, prep_workers: int = 3, think_workers: int = 2,
                 prep_per_client: int = 3, think_per_client: int = 2, think_queue: int = 8,
                 wait_s: float = 0.5) -> None:
        self._source = registered_agents if agents is None else agents
        if not callable(self._source):
            check_agent_names(self._source)  # at start, in one line, not as a 422 for every request
        self._agents: dict[str, AgentSpec] | None = None
        self._agents_lock = threading.Lock()
        self.prep_s, self.think_s, self.game_s = prep_s, think_s, game_s
        self.max_prepared = max_prepared
        self.wait_s = wait_s  # how long a request waits for a preparation before hearing "preparing"
        self.prep_per_client, self.think_per_client, self.think_queue = prep_per_client, think_per_client, think_queue
        self._prepared: OrderedDict[tuple[str, tuple[int, ...]], Preparation] = OrderedDict()
        self._lock = threading.Lock()
        self._preparer = _Preparer(self._prepare, prep_workers)
        self._think_slots = threading.BoundedSemaphore(think_workers)
        # Every admitted request has a thread to wait in; ``think_workers`` of them think.
        self._think_pool = ThreadPoolExecutor(think_queue, thread_name_prefix="agent-think")
        self._thinking: dict[str, int] = {}
        self._waiting = 0
        # Agents whose kernels another process is compiling: their preparations wait here,
        # off the preparation threads, rather than compile the same kernels a second time.
        self._held: dict[str, list[Preparation]] = {}
        self._reviews: dict[str, bool] = {}
        # The (agent, points) the server warms at start: kept besides ``max_prepared``.
        self._warmed: set[tuple[str, tuple[int, ...]]] = set()
        # The deals agents have played whole (:meth:`play_deal`), and those being played.
        self._deals: OrderedDict[tuple, list[int]] = OrderedDict()
        self._deals_playing: dict[tuple, asyncio.Future] = {}
        self._closed = False

    def close(self) -> None:
        """The server is stopping: nothing more starts. A preparation under way is let
        run out (a learner cannot be stopped mid-kernel) and ends ``cancelled``, even if
        the stopping interpreter breaks it (its thread pools refuse work)."""
        self._closed = True
        self._preparer.close()
        self._think_pool.shutdown(wait=False, cancel_futures=True)

    def join(self, timeout: float) -> bool:
        """After :meth:`close`, wait up to ``timeout`` seconds for the preparations and the
        thinking under way to end; whether they all did. A process that exits while one
        of their threads is inside a numba kernel can abort ("terminate called without an
        active exception", exit 134): the interpreter ends such daemon threads as they
        come back from the kernel."""
        deadline = time.monotonic() + timeout
        # The thinking pool's own threads: ThreadPoolExecutor keeps them in ``_threads``.
        threads = [*self._preparer.threads, *list(getattr(self._think_pool, "_threads", ()))]
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        return not any(t.is_alive() for t in threads)

    @property
    def closed(self) -> bool:
        return self._closed

    # -- the agents ----------------------------------------------------------------
    @property
    def agents(self) -> dict[str, AgentSpec]:
        """The agents by name (importing them on first use)."""
        with self._agents_lock:
            if self._agents is None:
                source = self._source
                agents = dict(source() if callable(source) else source)
                check_agent_names(agents)
                self._agents = agents
            return self._agents

    @property
    def loaded(self) -> bool:
        return self._agents is not None

    def describe(self) -> list[dict]:
        return [{"name": name, "description": spec.description, "cores": spec.cores, "values": values_note(name),
                 "advises": spec.advises, "reviews": self.reviews(name)}
                for name, spec in self.agents.items()]

    def reviews(self, name: str) -> bool:
        """Whether ``name`` can coach a review (:mod:`pokersquares.review`: it has an
        evaluator); asked of a fresh, unprepared instance, once."""
        if name not in self._reviews:
            from ..review import coach_values

            spec = self.agents[self.check_name(name)]
            try:
                self._reviews[name] = spec.advises and bool(coach_values(spec.factory()))
            except (Exception, SystemExit):  # noqa: BLE001 - no evaluator (ReviewError), or an agent that
                self._reviews[name] = False  # cannot be built (a constructor's sys.exit() too: not the server's)
        return self._reviews[name]

    def check_name(self, name: str) -> str:
        if name not in self.agents:
            known = ", ".join(sorted(self.agents))
            raise UnknownAgentError(f"unknown agent {name!r}; " + (f"agents: {known}" if known
                                                                    else "this server has no agents"))
        return name

    # -- preparation -----------------------------------------------------------
    def request(self, name: str, point_system: PointSystem, client: str = SERVER) -> Preparation:
        """The preparation of ``name`` for ``point_system``, queued if new."""
        self.check_name(name)
        key = (name, tuple(point_system.points))
        with self._lock:
            prep = self._prepared.get(key)
            if prep is not None and prep.phase == FAILED:
                del self._prepared[key]  # a failed preparation is tried again next time
                raise AgentError(f"{name} failed to prepare: {type(prep.error).__name__}: {prep.error}")
            if prep is None:
                if client != SERVER:
                    mine = sum(1 for p in self._prepared.values()
                               if client in p.clients and p.phase in (QUEUED, COMPILING, LEARNING))
                    if mine >= self.prep_per_client:
                        raise TooManyRequestsError(
                            f"you already have {mine} agents preparing; wait for them or cancel one")
                if key not in self._warmed:
                    self._make_room()
                spec = self.agents[name]
                prep = Preparation(name, point_system, spec.cores, 1 if client == SERVER else 0, {client})
                self._prepared[key] = prep
                if name in self._held:
                    self._held[name].append(prep)
                else:
                    self._preparer.submit(prep)
            elif prep.phase in (QUEUED, COMPILING, LEARNING):
                # Who waits matters only until it is done (to cancel it, and to count a
                # client's preparations): added after, every page that ever asked a
                # prepared agent stayed in its set, for as long as the server ran.
                prep.clients.add(client)
                if client != SERVER and prep.priority:
                    self._preparer.promote(prep)
            prep.asks += 1
            prep.asked = time.monotonic()
            self._prepared.move_to_end(key)
            return prep

    def _awaited(self, prep: Preparation, now: float) -> bool:
        """Whether a page is waiting for ``prep``: a request waited for it, or asked for
        it again, lately, and it has not been had ready since."""
        if not (prep.awaited or prep.asks > 1) or now - prep.asked > WAITING_S:
            return False
        return prep.phase in (QUEUED, COMPILING, LEARNING) or (
            prep.phase == READY and prep.finished is not None and prep.finished > prep.asked)

    def _make_room(self) -> None:
        """Room for one more preparation within ``max_prepared``: the least recently used
        are dropped, those not started taken off the queue (called with ``self._lock``
        held). One a page is waiting for is not: past ``max_prepared`` pages each on
        their own point system evicted each other's preparations as they learned, and
        asked again, for ever (20 pages with a cap of 16 learned 145 times, and 4 gave
        up); the new one is refused instead, until one is done. The server's own
        warm-up is neither counted nor dropped: ``serve --warm contest`` asks every
        agent for twelve systems, and past the first 16 each evicted an earlier one."""
        evictable = [key for key in self._prepared if key not in self._warmed]
        excess = len(evictable) + 1 - self.max_prepared
        if excess <= 0:
            return
        now = time.monotonic()
        dropped = [key for key in evictable if not self._awaited(self._prepared[key], now)][:excess]
        if len(dropped) < excess:
            raise AgentBusyError(f"the server holds {self.max_prepared} prepared agents and pages are waiting "
                                 "for all of them; try again in a moment")
        for key in dropped:
            self._drop(self._prepared.pop(key))

    def _drop(self, prep: Preparation) -> None:
        held = self._held.get(prep.agent, [])
        was_held = prep in held
        if was_held:
            held.remove(prep)
        if was_held or self._preparer.withdraw(prep):
            prep.phase = CANCELLED
            prep.finished = time.monotonic()
            prep.done.set_result(None)
        elif prep.phase in (COMPILING, LEARNING):
            prep.phase = CANCELLED  # the thread finishes and throws the result away

    def cancel(self, name: str, point_system: PointSystem, client: str) -> str:
        """``client`` no longer waits for this preparation; when nobody else does (the
        server's warm-up counts), it is dropped. The phase it ends in is returned."""
        self.check_name(name)
        key = (name, tuple(point_system.points))
        with self._lock:
            prep = self._prepared.get(key)
            if prep is None:
                return "none"
            if prep.phase in (READY, FAILED):
                return prep.phase
            prep.clients.discard(client)
            if not prep.clients:
                del self._prepared[key]
                self._drop(prep)
            return prep.phase

    def _prepare(self, prep: Preparation) -> None:
        with prep.lock:
            if prep.phase == CANCELLED:
                return
            prep.started = time.monotonic()
            prep.phase = COMPILING
            try:
                prep.player = self.agents[prep.agent].factory()
                _compile(prep.player)
                if prep.phase == CANCELLED:
                    return
                with _parallel_turn(prep.cores):
                    prep.phase = LEARNING
                    prep.learning_started = time.monotonic()
                    prep.player.set_point_system(prep.point_system, self.prep_s)
                    _first_advice(prep.player)
            except BaseException as e:  # noqa: BLE001 - reported to the page in one line (a sys.exit() too)
                prep.error = e
                if prep.phase != CANCELLED:
                    prep.phase = CANCELLED if self._closed else FAILED
            else:
                if prep.phase != CANCELLED:
                    prep.phase = CANCELLED if self._closed else READY
            finally:
                prep.finished = time.monotonic()
                if not prep.done.done():
                    prep.done.set_result(None)

    def hold(self, names: Sequence[str]) -> None:
        """Preparations of ``names`` wait until :meth:`release`: their kernels are being
        compiled in another process (the server's warm-up)."""
        with self._lock:
            for name in names:
                self._held.setdefault(name, [])

    def release(self, name: str) -> None:
        """``name``'s kernels are ready: queue the preparations that waited for them."""
        with self._lock:
            for prep in self._held.pop(name, []):
                self._preparer.submit(prep)

    def status(self, prep: Preparation) -> dict:
        """What the page shows while it waits: the phase, its seconds, the queue position."""
        now = time.monotonic()
        position = self._preparer.position(prep) if prep.phase == QUEUED else None
        out = {"status": "preparing", "agent": prep.agent, "phase": prep.phase, "budget": self.prep_s,
               "waited": round(now - prep.created, 2), "queue_position": position,
               "elapsed": round(now - prep.learning_started, 2) if prep.learning_started else 0.0}
        if prep.phase == QUEUED and prep.agent in self._held:
            out["phase"] = COMPILING
            out["detail"] = (f"{prep.agent} is compiling its kernels in a separate process ({now - prep.created:.0f} s "
                             "so far; up to a minute or two on a fresh install, then cached)")
        elif prep.phase == QUEUED:
            out["detail"] = f"{prep.agent} waits for a preparation slot (number {position} in the queue)"
        elif prep.phase == COMPILING:
            assert prep.started is not None  # set before the phase
            out["detail"] = (f"{prep.agent} is compiling its kernels ({now - prep.started:.0f} s so far; "
                             "up to a minute on a fresh install, then cached)")
        else:
            out["detail"] = (f"{prep.agent} is learning this point system: {out['elapsed']:.1f} s "
                             f"of its {self.prep_s:g} s budget")
        return out

    def preparations(self) -> list[dict]:
        """Every preparation the pool holds, for the console and ``/api/agents/status``."""
        with self._lock:
            preps = list(self._prepared.values())
        return [{"agent": p.agent, "points": list(p.point_system.points), "system": p.point_system.name,
                 "phase": p.phase, "seconds": round(p.seconds(), 2),
                 "queue_position": self._preparer.position(p) if p.phase == QUEUED else None}
                for p in preps]

    async def ready(self, name: str, point_system: PointSystem, client: str = SERVER) -> Preparation:
        """The prepared agent; raises ``AgentPreparing`` if it is not ready within ``wait_s``."""
        prep = self.request(name, point_system, client)
        if not prep.done.done():
            prep.awaited = True
            try:
                await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(prep.done)), self.wait_s)
            except asyncio.TimeoutError:
                with self._lock:
                    prep.asked = time.monotonic()  # the page is told to come back: it still waits
                raise AgentPreparing(self.status(prep)) from None
        if prep.phase == FAILED:
            return self.request(name, point_system, client)  # raises AgentError and forgets the failure
        if prep.phase == CANCELLED:  # not the agent's failure: the page may ask again (503, which it retries)
            raise AgentBusyError(f"the preparation of {name} was cancelled; ask again to restart it")
        with self._lock:
            prep.asked = time.monotonic()  # had ready: no longer waited for
        return prep

    def warm(self, point_systems: Sequence[PointSystem],
             on_ready: Callable[[Preparation], None] | None = None) -> list[Preparation]:
        """Queue every agent's preparation for each of ``point_systems`` (the server's
        own requests, behind any page's); ``on_ready`` is called as each ends."""
        return [prep for name in self.agents for prep in self.warm_agent(name, point_systems, on_ready)]

    def warm_agent(self, name: str, point_systems: Sequence[PointSystem],
                   on_ready: Callable[[Preparation], None] | None = None) -> list[Preparation]:
        """:meth:`warm` for the agent ``name`` only."""
        with self._lock:
            self._warmed.update((name, tuple(system.points)) for system in point_systems)
        preps = [self.request(name, system) for system in point_systems]
        if on_ready is not None:
            for prep in preps:
                prep.done.add_done_callback(functools.partial(lambda p, _f: on_ready(p), prep))
        return preps

    # -- thinking --------------------------------------------------------------
    async def _run(self, prep: Preparation, client: str, limit_s: float, fn: Callable[[], Any]) -> Any:
        name = prep.agent
        with self._lock:
            if self._thinking.get(client, 0) >= self.think_per_client:
                raise TooManyRequestsError(
                    f"you already have {self._thinking[client]} requests to agents under way; wait for an answer")
            if self._waiting >= self.think_queue:
                raise AgentBusyError("the server's agents are all busy; try again in a moment")
            self._thinking[client] = self._thinking.get(client, 0) + 1
            self._waiting += 1
            prep.queued += 1
        released = threading.Event()
        queued = [True]  # counted in ``prep.queued`` until it holds the prepared agent

        def dequeue() -> None:
            with self._lock:
                if queued[0]:
                    queued[0] = False
                    prep.queued -= 1

        def release() -> None:
            if not released.is_set():
                released.set()
                with self._lock:
                    self._waiting -= 1
                    self._thinking[client] -= 1
                    if not self._thinking[client]:
                        del self._thinking[client]

        def guarded():
            turn = _parallel_turn(prep.cores)
            # The prepared agent's line first, so that requests waiting in it hold no thinking
            # thread that another agent's request could think in.
            locks = [prep.lock, self._think_slots] + ([turn] if turn is _PARALLEL else [])
            held = []
            try:
                for lock in locks:
                    # The prepared agent's own line may be longer: each ahead in it thinks a
                    # share of its seconds (:meth:`advise`), so a burst of them takes about
                    # twice one request's time in all.
                    if not lock.acquire(timeout=2 * limit_s if lock is prep.lock else limit_s):
                        if lock is self._think_slots:  # every thinking thread taken, by any agents
                            raise AgentBusyError("the server's agents are all busy; try again in a moment")
                        raise AgentBusyError(f"{name} is busy with another request; try again")
                    held.append(lock)
                    if lock is prep.lock:
                        dequeue()
                return fn()
            except (SystemExit, KeyboardInterrupt) as e:  # a player's sys.exit(): its failure, not the server's
                raise AgentError(f"{name} failed: {type(e).__name__}: {e}") from None
            finally:
                dequeue()
                for lock in reversed(held):
                    lock.release()
                release()

        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._think_pool, guarded)
        # An answer that comes after the request gave up (or was cancelled) is nobody's: its
        # error is taken here, not logged as "Future exception was never retrieved".
        future.add_done_callback(lambda f: f.cancelled() or f.exception())
        # Allow for the wait on the locks, plus slack for an agent that overruns a little.
        try:
            return await asyncio.wait_for(asyncio.shield(future), 3 * limit_s + 1.0)
        except asyncio.TimeoutError:
            raise AgentTimeoutError(f"{name} did not answer within {limit_s:g} s") from None
        except PokerSquaresError:
            raise
        except Exception as e:  # an agent's bug is reported, not a server crash
            raise AgentError(f"{name} failed: {type(e).__name__}: {e}") from None

    async def advise(self, name: str, point_system: PointSystem, grid: np.ndarray, card: Card,
                     seconds: float, client: str = SERVER) -> Advice:
        """The agent's value of placing ``card`` in each empty cell, and its choice.

        A prepared agent answers one request at a time, and a request waits in its line
        for up to twice the seconds asked. With others waiting behind it when its turn
        comes (a class asking for hints at once), it thinks a share of the time left
        before that wait would end, less than the seconds asked, at least
        :data:`SHARED_THINK_MIN_S` (its search stops sooner), so that every hint of a
        burst comes in turn rather than most being refused. The answer says the seconds
        asked and how many waited."""
        asked = seconds = min(max(seconds, 0.0), self.think_s)
        prep = await self.ready(name, point_system, client)
        grid = np.array(grid, dtype=np.int8)
        joined = time.monotonic()

        def think() -> Advice:
            start = time.monotonic()
            with self._lock:
                others = prep.queued
            # Half of the time left to each in line, so that the last of a burst is still on time.
            left = joined + 2 * asked - start
            seconds = asked if not others else min(asked, max(SHARED_THINK_MIN_S, left / (2 + others)))
            player = prep.player
            values = searched = None
            if hasattr(player, "advice"):  # the move of the same search as the values
                searched, values = player.advice(grid.copy(), int(card), seconds)
            elif hasattr(player, "cell_values"):
                values = player.cell_values(grid.copy(), int(card), seconds)
            empty = grid == EMPTY
            if values is not None:
                values = np.asarray(values, dtype=np.float64)
                ok = empty & np.isfinite(values)
                if not ok.any():
                    values = None
            shown: list[float | None] = [None] * NUM_CELLS
            if values is not None:
                shown = [float(v) if o else None for v, o in zip(values, ok)]
            if hasattr(player, "advised_cell"):
                # A player whose numbers do not rank cells as it plays (greedy: its numbers
                # look ahead, its rule is one ply) says its own move.
                choice = int(player.advised_cell(grid.copy(), int(card)))
            elif searched is not None:
                choice = int(searched)
            elif values is not None:
                # The choice is the best cell by the values shown (first in reading order on ties).
                choice = int(np.flatnonzero(ok)[np.argmax(values[ok])])
            else:
                choice = int(player.choose(grid.copy(), int(card), seconds))
            if not 0 <= choice < NUM_CELLS or not empty[choice]:
                raise AgentError(f"{name} chose cell {choice}, which is not an empty cell")
            return Advice(name, shown, choice, time.monotonic() - start, asked, others)

        return await self._run(prep, client, seconds, think)

    async def review(self, name: str, point_system: PointSystem, placements: Sequence[tuple[int, int]],
                     client: str = SERVER, seed: int | None = None):
        """A finished game's ``placements`` ((card, cell) in order) judged move by move by
        the agent's evaluation (:mod:`pokersquares.review`), within ``game_s``, the time
        a whole game may take (an evaluator judges a game in milliseconds; the greedy
        rule's sampled values, where a short preparation lost to that rule, in seconds);
        ``seed``: the deal's, reported with the review."""
        from ..review import ReviewError, coach_values, review_game

        if not self.reviews(name):  # refused before it is prepared
            coaches = ", ".join(n for n in self.agents if self.reviews(n))
            raise ReviewError(f"{name} cannot coach a review: it has no evaluator to value positions with"
                              + (f" (choose {coaches})" if coaches else "; no agent of this server can coach one"))
        prep = await self.ready(name, point_system, client)

        def judge():
            return review_game(coach_values(prep.player), point_system.points, placements, seed=seed)

        return await self._run(prep, client, self.game_s, judge)

    async def play_deal(self, name: str, point_system: PointSystem, deck: Sequence[Card],
                        seed: int, client: str = SERVER) -> list[int]:
        """The cells the agent plays ``deck``'s first 25 cards into, on a ``game_s`` clock,
        through the contest protocol (``start_game``, then ``get_play`` per card).

        A deal the agent has played under the point system is played once for the
        server's life (the last :data:`DEALS_KEPT` of them): asked again (the daily
        deal's result for every student, a reload, Replay twice) it is the same game, not
        one played anew (a search on a clock plays a deal a little differently each
        time); asked while it is being played, the request waits for that game."""
        key = (name, tuple(point_system.points), tuple(int(card) for card in deck[:NUM_CELLS]))
        while True:
            with self._lock:
                if key in self._deals:
                    self._deals.move_to_end(key)
                    return list(self._deals[key])
                playing = self._deals_playing.get(key)
                if playing is None:
                    mine = self._deals_playing[key] = asyncio.get_running_loop().create_future()
                    break
            try:  # another request is playing it: its game, or (if it failed) a try of this one's own
                await asyncio.shield(playing)
            except Exception:  # noqa: BLE001 - that request reports its own failure
                pass
        try:
            moves = await self._play_deal(name, point_system, deck, seed, client)
        except BaseException as e:
            with self._lock:
                del self._deals_playing[key]
            mine.set_exception(e if isinstance(e, Exception) else AgentError(f"{name} was stopped"))
            mine.exception()  # retrieved: nobody may be waiting
            raise
        with self._lock:
            del self._deals_playing[key]
            self._deals[key] = moves
            while len(self._deals) > DEALS_KEPT:
                self._deals.popitem(last=False)
        mine.set_result(moves)
        return list(moves)

    async def _play_deal(self, name: str, point_system: PointSystem, deck: Sequence[Card],
                         seed: int, client: str) -> list[int]:
        """:meth:`play_deal`'s game, played."""
        prep = await self.ready(name, point_system, client)

        def play() -> list[int]:
            player = prep.player
            if hasattr(player, "set_seed"):  # as the harness seeds a player: never with its deal's seed
                player.set_seed(player_seed(PROCESS_SECRET, "game", seed))
            player.start_game()
            deadline = time.monotonic() + self.game_s
            taken: set[int] = set()
            moves = []
            for card in deck[:NUM_CELLS]:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AgentTimeoutError(f"{name} ran out of its {self.game_s:g} s for the game")
                row, col = player.get_play(int(card), left)
                cell = int(row) * SIZE + int(col)
                if not (0 <= row < SIZE and 0 <= col < SIZE) or cell in taken:
                    raise AgentError(f"{name} made an illegal play: ({row}, {col})")
                taken.add(cell)
                moves.append(cell)
            return moves

        return await self._run(prep, client, self.game_s, play)
