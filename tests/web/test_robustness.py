"""Hostile input, races and misbehaving agents: every answer is a one-line JSON error with
the right status, and nothing a request does leaves the server worse off."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from pokersquares.harness.player import BasePlayer  # noqa: E402
from pokersquares.web import create_app  # noqa: E402
from pokersquares.web.agents import AgentSpec  # noqa: E402


def local_client(app):
    return TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False)


def first_empty(grid) -> int:
    return int(np.flatnonzero(np.asarray(grid) == -1)[0])


def ask(c, path, body, tries=100):
    """``body`` posted to ``path`` until the agent is prepared (no more 202)."""
    for _ in range(tries):
        r = c.post(path, json=body)
        if r.status_code != 202:
            return r
        time.sleep(0.05)
    return r


def new_game(c, **body):
    r = c.post("/api/games", json={"system": "american", "seed": 7, **body})
    assert r.status_code == 201, r.text
    return r.json()


class _Slowpoke(BasePlayer):
    """Thinks until told to answer: a move a person can overtake."""

    thinking = threading.Event()
    go = threading.Event()

    def choose(self, grid, card, seconds_left):
        type(self).thinking.set()
        type(self).go.wait(5)
        return first_empty(grid)


def test_an_agent_move_that_loses_the_race_leaves_the_game_a_persons(tmp_path):
    """The page asks for an agent's move, the person places the card meanwhile: the
    agent's move is refused (409) and the game, which no agent played a card of, is
    recorded as the person's when it ends."""
    from pokersquares.harness.store import ResultStore

    path = tmp_path / "store.sqlite"
    app = create_app(agents={"slowpoke": AgentSpec(_Slowpoke, "slow")}, store_path=path, prep_s=0.1, think_s=2.0)
    with local_client(app) as c:
        view = new_game(c)
        _Slowpoke.go.set()  # prepared and answering at once first
        assert ask(c, f"/api/games/{view['id']}/hint", {"agent": "slowpoke", "seconds": 0.1}).status_code == 200
        _Slowpoke.go.clear()
        _Slowpoke.thinking.clear()
        answers = []
        watcher = threading.Thread(target=lambda: answers.append(c.post(
            f"/api/games/{view['id']}/agent-move", json={"agent": "slowpoke", "seconds": 2.0, "turn": 0})))
        watcher.start()
        assert _Slowpoke.thinking.wait(5)
        r = c.post(f"/api/games/{view['id']}/place", json={"cell": 24, "turn": 0})
        assert r.status_code == 200, r.text
        _Slowpoke.go.set()
        watcher.join(10)
        assert answers[0].status_code == 409 and "turn 0" in answers[0].json()["detail"]
        for turn, cell in enumerate(range(24), start=1):
            r = c.post(f"/api/games/{view['id']}/place", json={"cell": cell, "turn": turn})
            assert r.status_code == 200, r.text
        assert r.json()["done"]
    with ResultStore(path, readonly=True) as store:
        assert [run.player for run in store.runs()] == ["human"]


class _Exits(BasePlayer):
    def choose(self, grid, card, seconds_left):
        raise SystemExit(3)  # a player's sys.exit() in the middle of a request


class _ExitsLearning(BasePlayer):
    def prepare(self, budget_s):
        raise SystemExit("bye")

    def choose(self, grid, card, seconds_left):
        return first_empty(grid)


class _Quick(BasePlayer):
    def choose(self, grid, card, seconds_left):
        return first_empty(grid)


def test_an_agent_that_exits_is_reported_in_one_line_and_the_server_goes_on():
    agents = {"exits": AgentSpec(_Exits, "exits thinking"), "quitter": AgentSpec(_ExitsLearning, "exits learning"),
              "quick": AgentSpec(_Quick, "answers")}
    with local_client(create_app(agents=agents, prep_s=0.1, think_s=0.5)) as c:
        view = new_game(c)
        for route in ("hint", "agent-move"):
            r = ask(c, f"/api/games/{view['id']}/{route}", {"agent": "exits", "seconds": 0.2})
            assert r.status_code == 500 and r.json()["detail"] == "exits failed: SystemExit: 3"
        # A preparation that exits fails (it is not left "learning", nor its player used
        # unprepared), and the preparation threads it ran on live on: more than there are
        # of them fail, and another agent still prepares.
        for system in ("american", "british", "random:1", "random:2"):
            game = new_game(c, system=system)
            r = ask(c, f"/api/games/{game['id']}/hint", {"agent": "quitter", "seconds": 0.2})
            assert r.status_code == 500 and r.json()["detail"] == "quitter failed to prepare: SystemExit: bye"
        r = ask(c, f"/api/games/{view['id']}/hint", {"agent": "quick", "seconds": 0.2})
        assert r.status_code == 200 and r.json()["choice"] == 0
        assert c.get(f"/api/games/{view['id']}").json()["turn"] == 0


class _Grumbles(BasePlayer):
    def choose(self, grid, card, seconds_left):
        raise ValueError("a card must land within the grid; it ran out of room")


def test_only_an_agent_out_of_time_is_a_504():
    """An agent's failure whose message happens to say "within" or "ran out" is its
    failure (500), not a timeout (504)."""
    with local_client(create_app(agents={"grumbles": AgentSpec(_Grumbles, "fails")}, prep_s=0.1, think_s=0.5)) as c:
        view = new_game(c)
        r = ask(c, f"/api/games/{view['id']}/hint", {"agent": "grumbles", "seconds": 0.2})
        assert r.status_code == 500 and r.json()["detail"].startswith("grumbles failed: ValueError")


@pytest.fixture(scope="module")
def client():
    with local_client(create_app(agents={"quick": AgentSpec(_Quick, "answers")}, prep_s=0.1, think_s=1.0)) as c:
        yield c


@pytest.mark.parametrize("body", [b"{", b'{"seed": 1,}', b"{'seed': 1}", b'{"system": "american"} x'])
def test_a_body_that_is_not_json_says_so(client, body):
    r = client.post("/api/games", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 422
    assert r.json()["detail"].startswith("the request body is not valid JSON"), r.json()


@pytest.mark.parametrize("seconds", [b"NaN", b"Infinity", b"-Infinity"])
def test_thinking_time_must_be_a_finite_number(client, seconds):
    view = new_game(client)
    r = client.post(f"/api/games/{view['id']}/hint", content=b'{"agent": "quick", "seconds": ' + seconds + b"}",
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["detail"] == "seconds: Input should be a finite number"


def test_an_unexpected_failure_is_a_one_line_json_500_and_the_solver_goes_on(monkeypatch):
    """A failure nobody foresaw (here the optimum solver's library raising) answers JSON
    with one line, not a bare "Internal Server Error"; the next deal is solved."""
    from pokersquares.web import api_optimum

    solve = api_optimum.solve_seed

    def crashes_on_seed_5(seed, point_system, time_limit):
        if seed == 5:
            raise RuntimeError("HiGHS: internal error")
        if seed == 7:  # a library's message of several lines: its first is said
            raise RuntimeError("HiGHS: model infeasible\n  row 12: bound violated\n  row 13: bound violated")
        return solve(seed, point_system, time_limit=1.0)

    monkeypatch.setattr(api_optimum, "solve_seed", crashes_on_seed_5)
    with local_client(create_app(agents={})) as c:
        r = c.get("/api/optimum", params={"seed": "5", "system": "american"})
        assert r.status_code == 500 and r.headers["content-type"] == "application/json"
        assert r.json() == {"detail": "internal error: RuntimeError: HiGHS: internal error"}
        r = c.get("/api/optimum", params={"seed": "7", "system": "american"})
        assert r.status_code == 500 and r.json() == {"detail": "internal error: RuntimeError: HiGHS: model infeasible"}
        r = c.get("/api/optimum", params={"seed": "6", "system": "american"})
        assert r.status_code == 200 and r.json()["seed"] == "6"


def test_a_busy_optimum_solver_is_a_503_the_page_retries(monkeypatch):
    """The solver holding as many deals as it may is the server being busy (503: the
    page waits and asks again), not a bad request."""
    from pokersquares.web.api_optimum import OptimumBusyError, OptimumSolver

    async def busy(self, *args, **kwargs):
        raise OptimumBusyError("the optimum solver is busy with 4 deals; try again in a minute")

    monkeypatch.setattr(OptimumSolver, "answer", busy)
    with local_client(create_app(agents={})) as c:
        r = c.get("/api/optimum", params={"seed": "5", "system": "american"})
        assert r.status_code == 503, r.text
        assert r.json() == {"detail": "the optimum solver is busy with 4 deals; try again in a minute"}


class _Hog(BasePlayer):
    """Holds a thinking thread until released, saying when it holds one."""

    thinking: list = []
    release = threading.Event()

    def choose(self, grid, card, seconds_left):
        type(self).thinking.append(self)
        type(self).release.wait(5)
        return first_empty(grid)


def test_an_idle_agent_is_not_called_busy_when_the_servers_threads_are():
    """Both thinking threads held by two other agents: a hint from a third is refused
    (503) saying the server is busy, not that this agent is."""
    agents = {"hog1": AgentSpec(_Hog, "slow"), "hog2": AgentSpec(_Hog, "slow"), "quick": AgentSpec(_Quick, "answers")}
    with local_client(create_app(agents=agents, prep_s=0.1, think_s=2.0)) as c:
        view = new_game(c)
        _Hog.release.set()  # prepared, answering at once
        for agent in agents:
            assert ask(c, f"/api/games/{view['id']}/hint", {"agent": agent, "seconds": 0.2}).status_code == 200
        _Hog.release.clear()
        _Hog.thinking.clear()
        hogs = [threading.Thread(target=c.post, args=(f"/api/games/{view['id']}/hint",),
                                 kwargs={"json": {"agent": name, "seconds": 2.0}, "headers": {"X-Client": name}})
                for name in ("hog1", "hog2")]
        for t in hogs:
            t.start()
        deadline = time.monotonic() + 10
        while len(_Hog.thinking) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        r = c.post(f"/api/games/{view['id']}/hint", json={"agent": "quick", "seconds": 0.2})
        _Hog.release.set()
        for t in hogs:
            t.join(10)
        assert r.status_code == 503
        assert r.json()["detail"] == "the server's agents are all busy; try again in a moment"


class _Learns(BasePlayer):
    def prepare(self, budget_s):
        time.sleep(budget_s)

    def choose(self, grid, card, seconds_left):
        return first_empty(grid)


class _ExitsWhenBuilt(BasePlayer):
    def __init__(self):
        raise SystemExit(1)


def test_an_agent_whose_constructor_exits_does_not_break_the_pages_configuration():
    agents = {"quick": AgentSpec(_Quick, "answers"), "broken": AgentSpec(_ExitsWhenBuilt, "exits when built")}
    with local_client(create_app(agents=agents, prep_s=0.1, think_s=0.5)) as c:
        r = c.get("/api/config")
        assert r.status_code == 200, r.text
        assert {a["name"] for a in r.json()["agents"]} >= {"quick", "broken"}


def test_a_wait_for_a_preparation_cancelled_meanwhile_is_a_503_the_page_retries():
    import asyncio

    from pokersquares.points import parse_point_system
    from pokersquares.web.agents import AgentBusyError, AgentPool

    pool = AgentPool({"slow": AgentSpec(_Learns, "")}, prep_s=1.0, prep_workers=1, wait_s=5.0)
    busy, mine = parse_point_system("random:1"), parse_point_system("random:2")

    async def wait_then_cancel():
        pool.request("slow", busy, "other")  # takes the one preparation thread
        waiting = asyncio.ensure_future(pool.ready("slow", mine, "page"))
        await asyncio.sleep(0.2)
        assert pool.cancel("slow", mine, "page") == "cancelled"
        with pytest.raises(AgentBusyError, match="was cancelled; ask again"):
            await waiting

    try:
        asyncio.run(wait_then_cancel())
    finally:
        pool.close()


@pytest.mark.parametrize("name", ["x" * 41, "has space", "java-Outer$Inner", ""])
def test_an_agent_the_api_could_never_address_is_refused_at_start(name):
    from pokersquares.errors import PokerSquaresError

    with pytest.raises(PokerSquaresError, match="cannot be asked for over the web API"):
        create_app(agents={"quick": AgentSpec(_Quick, "answers"), name: AgentSpec(_Quick, "unaskable")})


def test_a_nested_java_class_gets_a_name_the_api_takes():
    from pokersquares.web.agents import check_agent_names
    from pokersquares.web.java_agents import java_agent_name

    names = [java_agent_name(c) for c in ("players.Outer$Inner", "A" * 60, "Plain")]
    assert names[0] == "java-Outer.Inner" and len(names[1]) == 40 and names[2] == "java-Plain"
    check_agent_names(names)


class _FailsLate(BasePlayer):
    """Answers after its time is up, with an error (a contest Java player stopped after
    its time raises so): the request has given up by then."""

    def choose(self, grid, card, seconds_left):
        time.sleep(3 * seconds_left + 1.3)
        raise RuntimeError("too late, and wrong")


def test_an_agent_failing_after_its_request_gave_up_leaves_no_unretrieved_error():
    # The server's log got "Future exception was never retrieved" and a traceback for
    # each such answer (`serve --java-player` of a player that loops for ever).
    import asyncio
    import gc

    from pokersquares import AMERICAN
    from pokersquares.web.agents import AgentPool, AgentTimeoutError

    pool = AgentPool({"late": AgentSpec(_FailsLate, "fails late")}, prep_s=0.1, think_s=1.0, wait_s=5.0)
    reported = []

    async def ask():
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: reported.append(context["message"]))
        with pytest.raises(AgentTimeoutError):
            await pool.advise("late", AMERICAN, np.full(25, -1, dtype=np.int8), 0, 0.1)
        await asyncio.sleep(1.0)  # the agent's thread raises meanwhile
        gc.collect()
        await asyncio.sleep(0.1)

    try:
        asyncio.run(ask())
    finally:
        pool.close()
    assert reported == []
