"""Multi-core agents take turns only where numba's threading layer needs it: under the
thread-safe ``omp`` and ``tbb`` layers a page's hint never waits for another agent's
learning (the web issue's warm first-hint target)."""

import asyncio
import threading

import numba
import numpy as np
import pytest

from pokersquares import AMERICAN
from pokersquares.game import EMPTY
from pokersquares.players.baseline import GreedyPlayer
from pokersquares.web import agents as web_agents
from pokersquares.web.agents import AgentBusyError, AgentPool, AgentSpec


@pytest.mark.parametrize("layer, takes_turns", [("omp", False), ("tbb", False), ("workqueue", True)])
def test_a_multi_core_agent_takes_turns_only_under_the_workqueue_layer(monkeypatch, layer, takes_turns):
    monkeypatch.setattr(numba, "threading_layer", lambda: layer)
    assert (web_agents._parallel_turn(2) is web_agents._PARALLEL) is takes_turns
    assert web_agents._parallel_turn(1) is not web_agents._PARALLEL


def test_an_unknown_layer_takes_turns(monkeypatch):
    def not_yet():
        raise ValueError("Threading layer is not initialized.")

    monkeypatch.setattr(numba, "threading_layer", not_yet)
    assert web_agents._parallel_turn(2) is web_agents._PARALLEL


@pytest.mark.parametrize("layer", ["omp", "workqueue"])
def test_a_hint_waits_for_another_agents_learning_only_under_workqueue(monkeypatch, layer):
    monkeypatch.setattr(numba, "threading_layer", lambda: layer)
    pool = AgentPool({"two": AgentSpec(GreedyPlayer, "a two-core stand-in", cores=2)}, prep_s=0.05)
    grid = np.full(25, EMPTY, dtype=np.int8)

    async def hint():
        return await pool.advise("two", AMERICAN, grid, 0, 0.3)

    try:
        asyncio.run(hint())  # prepared, with the parallel lock free
        learning = threading.Event()
        done = threading.Event()

        def another_agent_learns():  # holds the lock as a 2-core learner would
            with web_agents._PARALLEL:
                learning.set()
                done.wait(10)

        threading.Thread(target=another_agent_learns, daemon=True).start()
        assert learning.wait(5)
        try:
            if layer == "workqueue":
                with pytest.raises(AgentBusyError):
                    asyncio.run(hint())
            else:
                assert asyncio.run(hint()).choice in range(25)
        finally:
            done.set()
    finally:
        pool.close()
