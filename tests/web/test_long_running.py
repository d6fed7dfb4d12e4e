"""A server left running for days, as a classroom's is: what it holds per game, page
and agent stays within its limits however many come and go, and its limits never
undo what the server was asked to keep."""

from __future__ import annotations

import time

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from pokersquares import parse_point_system  # noqa: E402
from pokersquares.harness.player import BasePlayer  # noqa: E402
from pokersquares.points import contest_specs  # noqa: E402
from pokersquares.web import create_app  # noqa: E402
from pokersquares.web.agents import AgentPool, AgentSpec  # noqa: E402
from pokersquares.web.app import _load_and_warm  # noqa: E402

from .conftest import in_a_thread  # noqa: E402


class _Quick(BasePlayer):
    def choose(self, grid, card, seconds_left):
        return int(np.flatnonzero(grid == -1)[0])


def _wait(preps, limit_s=10.0):
    for prep in preps:
        prep.done.result(limit_s)


def test_a_prepared_agent_does_not_keep_every_page_that_ever_asked_it():
    """Every page (each browser tab has its own id) that asked a prepared agent for a
    hint was added to its preparation's set of waiting clients, and never taken out: a
    classroom's server kept one more entry per tab for as long as it ran. Who waits
    matters only while it prepares."""
    app = create_app(agents={"quick": AgentSpec(_Quick, "answers at once")}, prep_s=0.0, think_s=0.5)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        view = c.post("/api/games", json={"system": "american", "seed": 1}).json()

        def hint(tab):
            return c.post(f"/api/games/{view['id']}/hint", json={"agent": "quick", "seconds": 0.05},
                          headers={"X-Client": tab})

        deadline = time.monotonic() + 10
        while (r := hint("first")).status_code == 202 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert r.status_code == 200, r.text
        for k in range(40):
            assert hint(f"tab{k}").status_code == 200
        pool = app.state.agents
        (prep,) = pool._prepared.values()
        assert len(prep.clients) <= 1
    # The pool, the same for thousands of pages at once.
    pool = AgentPool({"quick": AgentSpec(_Quick, "")}, prep_s=0.0)
    try:
        first = pool.request("quick", parse_point_system("american"), "first")
        _wait([first])
        for k in range(5000):
            assert pool.request("quick", parse_point_system("american"), f"tab{k}") is first
        assert first.clients <= {"first"}
    finally:
        pool.close()


def test_a_warm_up_of_more_systems_than_the_pool_holds_keeps_them_all():
    """``serve --warm contest`` asks every agent for the twelve contest systems; the pool
    kept 16 preparations, so each request past them evicted an earlier one (most before
    they started: the console said "cancelled" and then "all agents prepared"). The
    server's own warm-up is kept besides the pages' preparations, which stay bounded."""
    agents = {name: AgentSpec(_Quick, "") for name in ("one", "two", "three")}
    pool = AgentPool(agents, prep_s=0.0, max_prepared=4, prep_per_client=50)
    systems = [parse_point_system(spec) for spec in contest_specs()]
    told = []
    try:
        _load_and_warm(pool, systems, told.append)
        deadline = time.monotonic() + 10
        while not any(line.startswith("all agents prepared") for line in told) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [line for line in told if "cancelled" in line]
        warmed = pool.preparations()
        assert len(warmed) == 3 * 12 and {p["phase"] for p in warmed} == {"ready"}
        # Pages' preparations of other systems come and go, at most 4 of them at once.
        pages = [pool.request("one", parse_point_system(f"random:{k}"), f"tab{k}") for k in range(10)]
        _wait(pages)
        held = pool.preparations()
        assert len(held) == 3 * 12 + 4
        assert sum(p["points"] in [list(s.points) for s in systems] for p in held) == 3 * 12
        assert {p["phase"] for p in held} == {"ready"}
    finally:
        pool.close()


class _Learner(BasePlayer):
    """Learns for its whole budget and counts the point systems it learned."""

    learned: list = []

    def prepare(self, budget_s):
        time.sleep(budget_s)
        type(self).learned.append(tuple(self.point_system.points))

    def choose(self, grid, card, seconds_left):
        return int(np.flatnonzero(grid == -1)[0])


def test_pages_past_the_pools_limit_wait_their_turn_instead_of_evicting_each_other():
    """More pages than the pool holds, each on its own point system, asking as the page
    does (again after a 202, again after a 503): each page's request evicted the least
    recently used preparation, another page's, learning or queued; that page asked
    again and evicted a third. With 16 held, 20 pages made 145 preparations for 20
    systems, and 4 pages gave up. A preparation a page waits for is kept; a new one
    past the limit is refused (503) until one is done."""
    import asyncio

    from pokersquares.web.agents import AgentBusyError, AgentPreparing

    _Learner.learned.clear()
    pool = AgentPool({"learner": AgentSpec(_Learner, "")}, prep_s=0.3, think_s=0.5, max_prepared=4,
                     prep_workers=2, wait_s=0.1)
    grid = np.full(25, -1, dtype=np.int8)

    async def page(k: int) -> bool:
        system = parse_point_system(f"random:{k}")
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline:
            try:
                await pool.advise("learner", system, grid, 0, 0.05, client=f"tab{k}")
                return True
            except AgentPreparing:
                await asyncio.sleep(0.1)
            except AgentBusyError:
                await asyncio.sleep(0.2)
        return False

    async def pages() -> list[bool]:
        return await asyncio.gather(*(page(k) for k in range(10)))

    try:
        answered = asyncio.run(pages())
    finally:
        pool.close()
    assert all(answered)
    assert len(_Learner.learned) == len(set(_Learner.learned)) == 10  # each system learned once
    assert len(pool._prepared) <= 4


def test_a_page_waiting_for_its_agent_keeps_it_and_another_page_is_told_to_wait():
    """At the pool's limit, another page's request cancelled the preparation a page was
    waiting for (its hint then had to start over); it is refused in one line instead."""
    _Learner.learned.clear()
    app = create_app(agents={"learner": AgentSpec(_Learner, "")}, prep_s=1.0, think_s=0.5)
    app.state.agents.max_prepared = 1
    app.state.agents.wait_s = 0.05
    with TestClient(app, base_url="http://127.0.0.1") as c:
        mine = c.post("/api/games", json={"system": "american", "seed": 1}).json()
        theirs = c.post("/api/games", json={"system": "british", "seed": 1}).json()

        def hint(view, tab):
            return c.post(f"/api/games/{view['id']}/hint", json={"agent": "learner", "seconds": 0.05},
                          headers={"X-Client": tab})

        assert hint(mine, "mine").status_code == 202
        r = hint(theirs, "theirs")
        assert r.status_code == 503, r.text
        detail = r.json()["detail"]
        assert "pages are waiting for all of them; try again in a moment" in detail and "\n" not in detail
        deadline = time.monotonic() + 8
        while (r := hint(mine, "mine")).status_code == 202 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert r.status_code == 200, r.text
        # Had, it makes room for the next page.
        while (r := hint(theirs, "theirs")).status_code in (202, 503) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert r.status_code == 200, r.text
    assert len(_Learner.learned) == 2


@pytest.mark.parametrize("ours", [True, False])
def test_a_connection_that_sends_no_request_is_closed_after_the_keep_alive(ours):
    """uvicorn starts its idle clock only after a first response: a connection opened
    and never used kept its file for as long as the server ran (300 of them: 14 to 308
    open files). `serve`'s protocol closes it as it closes one idle between requests;
    uvicorn's own (the second case) shows what the test tells apart."""
    import socket

    from pokersquares.cli.web import bounded_http

    async def app(scope, receive, send):
        if scope["type"] == "http":
            await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
            await send({"type": "http.response.body", "body": b"ok"})

    protocol = {"http": bounded_http()} if ours else {}
    with (in_a_thread(app, timeout_keep_alive=0.5, lifespan="off", **protocol) as (port, _),
          socket.create_connection(("127.0.0.1", port)) as idle, socket.create_connection(("127.0.0.1", port)) as used):
        used.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        used.settimeout(5)
        assert used.recv(1024).startswith(b"HTTP/1.1 200")  # a request is answered as before
        idle.settimeout(2.5)
        try:
            closed = idle.recv(1) == b""
        except socket.timeout:
            closed = False
        assert closed is ours
