"""The agents the web app lets a page use: registered players only, prepared once per
point system and kept, their thinking run in worker threads and bounded in time.

A prepared player is used by one request at a time (its lock), so players need not
be thread-safe; requests for different agents or point systems run side by side.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..cards import Card
from ..errors import PokerSquaresError
from ..game import EMPTY, NUM_CELLS, SIZE
from ..points import PointSystem

__all__ = [
    "AgentError", "UnknownAgentError", "AgentBusyError", "AgentPreparing", "Advice", "AgentSpec",
    "AgentPool", "registered_agents",
]


class AgentError(PokerSquaresError):
    """An agent that failed or ran out of time while answering."""


class UnknownAgentError(PokerSquaresError):
    """A name that is not a registered agent (the web takes no module paths)."""


class AgentBusyError(AgentError):
    """The prepared agent is still busy with an earlier request."""


class AgentPreparing(Exception):
    """The agent is learning the point system; ask again shortly."""

    def __init__(self, agent: str, elapsed: float, budget: float) -> None:
        super().__init__(f"{agent} is preparing for this point system")
        self.agent, self.elapsed, self.budget = agent, elapsed, budget


@dataclass
class Advice:
    agent: str
    values: list[float | None]  # per cell; None where occupied or the agent cannot say
    choice: int
    seconds: float


@dataclass(frozen=True)
class AgentSpec:
    factory: Callable[[], Any]
    description: str
    cores: int = 1


@dataclass
class _Prepared:
    player: Any
    cores: int
    future: Future
    started: float
    lock: threading.Lock = field(default_factory=threading.Lock)


def registered_agents() -> dict[str, AgentSpec]:
    """The registered players, by name."""
    from ..harness.registry import list_players

    # Pages name agents by plain names only (AgentName's pattern): PREFIX:NAME players such
    # as openspiel:mcts are for the command line.
    return {info.name: AgentSpec(info.factory, info.description, info.cores) for info in list_players()
            if ":" not in info.name}


# Learning, and the thinking of agents that run parallel kernels over several cores,
# take turns: numba's fallback threading layer cannot run parallel kernels from two
# threads at once, and the machine's cores are few anyway.
_PARALLEL = threading.Lock()


def _warm_up(player: Any) -> None:
    """One tiny piece of advice off the clock, so that kernels compiled (or loaded) on
    first use do not eat into the first request's thinking time."""
    grid = np.full(NUM_CELLS, EMPTY, dtype=np.int8)
    grid[:NUM_CELLS - 2] = np.arange(NUM_CELLS - 2)
    try:
        if hasattr(player, "cell_values"):
            player.cell_values(grid, NUM_CELLS - 2, 0.05)
    except Exception:  # noqa: BLE001 - a real request will report the failure
        pass


class AgentPool:
    """Prepared agents per (agent, point system), at most ``max_prepared`` of them.

    ``prep_s`` is the learning budget given to ``set_point_system``; ``think_s`` caps
    the seconds of one advice or watched move; ``game_s`` is the clock of a whole
    game the agent plays at once (replaying a deal).
    """

    def __init__(self, agents: Mapping[str, AgentSpec] | None = None, *,
                 prep_s: float = 5.0, think_s: float = 2.0, game_s: float = 10.0,
                 max_prepared: int = 16, workers: int = 2) -> None:
        self.agents = dict(registered_agents() if agents is None else agents)
        self.prep_s, self.think_s, self.game_s = prep_s, think_s, game_s
        self.max_prepared = max_prepared
        self._prepared: OrderedDict[tuple[str, tuple[int, ...]], _Prepared] = OrderedDict()
        self._lock = threading.Lock()
        # Learning and thinking have their own threads, so a long preparation never
        # holds up advice from an agent that is ready.
        self._prep_pool = ThreadPoolExecutor(1, thread_name_prefix="agent-prep")
        self._think_pool = ThreadPoolExecutor(workers, thread_name_prefix="agent-think")

    def close(self) -> None:
        self._prep_pool.shutdown(wait=False, cancel_futures=True)
        self._think_pool.shutdown(wait=False, cancel_futures=True)

    def describe(self) -> list[dict]:
        return [{"name": name, "description": spec.description, "cores": spec.cores}
                for name, spec in self.agents.items()]

    def check_name(self, name: str) -> str:
        if name not in self.agents:
            raise UnknownAgentError(f"unknown agent {name!r}; agents: {', '.join(sorted(self.agents))}")
        return name

    # -- preparation -----------------------------------------------------------
    def _entry(self, name: str, point_system: PointSystem) -> _Prepared:
        """The prepared agent, starting its preparation if needed."""
        self.check_name(name)
        key = (name, tuple(point_system.points))
        with self._lock:
            entry = self._prepared.get(key)
            if entry is not None and entry.future.done() and entry.future.exception() is not None:
                del self._prepared[key]  # a failed preparation is tried again
                error = entry.future.exception()
                raise AgentError(f"{name} failed to prepare: {type(error).__name__}: {error}")
            if entry is None:
                spec = self.agents[name]
                try:
                    player = spec.factory()
                except Exception as e:  # noqa: BLE001 - reported to the page in one line
                    raise AgentError(f"{name} cannot be built: {type(e).__name__}: {e}") from None
                entry = _Prepared(player, spec.cores, Future(), time.monotonic())
                entry.future = self._prep_pool.submit(self._prepare, entry, point_system)
                self._prepared[key] = entry
                while len(self._prepared) > self.max_prepared:
                    self._prepared.popitem(last=False)
            self._prepared.move_to_end(key)
            return entry

    def _prepare(self, entry: _Prepared, point_system: PointSystem) -> None:
        with entry.lock, _PARALLEL:
            entry.started = time.monotonic()
            entry.player.set_point_system(point_system, self.prep_s)
            _warm_up(entry.player)


    async def ready(self, name: str, point_system: PointSystem, wait_s: float = 0.5) -> _Prepared:
        """The prepared agent; raises ``AgentPreparing`` if it is not ready within ``wait_s``."""
        entry = self._entry(name, point_system)
        if not entry.future.done():
            try:
                await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(entry.future)), wait_s)
            except asyncio.TimeoutError:
                raise AgentPreparing(name, time.monotonic() - entry.started, self.prep_s) from None
            except Exception:
                pass
        if entry.future.exception() is not None:
            return self._entry(name, point_system)  # raises AgentError and forgets the failure
        return entry

    # -- thinking --------------------------------------------------------------
    async def _run(self, entry: _Prepared, name: str, limit_s: float, fn: Callable[[], Any]) -> Any:
        def guarded():
            locks = [entry.lock] + ([_PARALLEL] if entry.cores > 1 else [])
            held = []
            try:
                for lock in locks:
                    if not lock.acquire(timeout=limit_s):
                        raise AgentBusyError(f"{name} is busy with another request; try again")
                    held.append(lock)
                return fn()
            finally:
                for lock in reversed(held):
                    lock.release()

        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._think_pool, guarded)
        # Allow for the wait on the lock, plus slack for an agent that overruns a little.
        try:
            return await asyncio.wait_for(future, 2 * limit_s + 1.0)
        except asyncio.TimeoutError:
            raise AgentError(f"{name} did not answer within {limit_s:g} s") from None
        except PokerSquaresError:
            raise
        except Exception as e:  # an agent's bug is reported, not a server crash
            raise AgentError(f"{name} failed: {type(e).__name__}: {e}") from None

    async def advise(self, name: str, point_system: PointSystem, grid: np.ndarray, card: Card,
                     seconds: float) -> Advice:
        """The agent's value of placing ``card`` in each empty cell, and its choice."""
        seconds = min(max(seconds, 0.0), self.think_s)
        entry = await self.ready(name, point_system)
        grid = np.array(grid, dtype=np.int8)

        def think() -> Advice:
            start = time.monotonic()
            player = entry.player
            values = None
            if hasattr(player, "cell_values"):
                values = player.cell_values(grid.copy(), int(card), seconds)
            empty = grid == EMPTY
            if values is not None:
                values = np.asarray(values, dtype=np.float64)
                ok = empty & np.isfinite(values)
                if not ok.any():
                    values = None
            if values is not None:
                # The choice is the best cell by the values shown (first in reading order on ties).
                choice = int(np.flatnonzero(ok)[np.argmax(values[ok])])
                shown = [float(v) if o else None for v, o in zip(values, ok)]
            else:
                choice = int(player.choose(grid.copy(), int(card), seconds))
                shown = [None] * NUM_CELLS
            if not 0 <= choice < NUM_CELLS or not empty[choice]:
                raise AgentError(f"{name} chose cell {choice}, which is not an empty cell")
            return Advice(name, shown, choice, time.monotonic() - start)

        return await self._run(entry, name, seconds, think)

    async def play_deal(self, name: str, point_system: PointSystem, deck: Sequence[Card],
                        seed: int) -> list[int]:
        """The cells the agent plays ``deck``'s first 25 cards into, on a ``game_s`` clock,
        through the contest protocol (``start_game``, then ``get_play`` per card)."""
        entry = await self.ready(name, point_system)

        def play() -> list[int]:
            player = entry.player
            if hasattr(player, "set_seed"):
                player.set_seed(seed)
            player.start_game()
            deadline = time.monotonic() + self.game_s
            taken: set[int] = set()
            moves = []
            for card in deck[:NUM_CELLS]:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AgentError(f"{name} ran out of its {self.game_s:g} s for the game")
                row, col = player.get_play(int(card), left)
                cell = int(row) * SIZE + int(col)
                if not (0 <= row < SIZE and 0 <= col < SIZE) or cell in taken:
                    raise AgentError(f"{name} made an illegal play: ({row}, {col})")
                taken.add(cell)
                moves.append(cell)
            return moves

        return await self._run(entry, name, self.game_s, play)
