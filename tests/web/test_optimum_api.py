"""GET /api/optimum (a deal's best grid, solved once and stored) and
GET /api/optimum/regret (runs against their deals' optima)."""

from __future__ import annotations

import shutil

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from pokersquares import AMERICAN  # noqa: E402
from pokersquares.cards import deal, deal_names  # noqa: E402
from pokersquares.optimum import Optimum  # noqa: E402
from pokersquares.optimum.store import OptimaStore  # noqa: E402
from pokersquares.web import create_app  # noqa: E402


@pytest.fixture
def store_copy(result_store, tmp_path):
    path = tmp_path / "results.sqlite"
    shutil.copy(result_store, path)
    return path


def client_for(path=None):
    return TestClient(create_app(store_path=path, agents={}), base_url="http://127.0.0.1")


def test_a_deals_optimum_is_solved_stored_and_served_again(store_copy):
    with client_for(store_copy) as client:
        r = client.get("/api/optimum", params={"seed": "2", "system": "single:flush"})
        assert r.status_code == 200, r.text
        opt = r.json()
        assert opt["proven"] and opt["score"] == opt["bound"] == opt["view"]["score"]
        assert sorted(opt["grid"]) == sorted(deal_names(2)[:25])
        assert opt["seed"] == "2"
    with OptimaStore(store_copy) as store:
        stored = store.get(2, opt["points"])
    assert stored is not None and stored.score == opt["score"]


def test_stored_optima_are_read_and_runs_get_their_regret(store_copy):
    # The fixture's tournament played American deals 0..3; give them (made-up) optima.
    with OptimaStore(store_copy) as store:
        for seed in range(4):
            store.put(Optimum(seed, "American", AMERICAN.points, 200, 200, True, deal(seed)[:25], 1.0, 200), 20.0)
    with client_for(store_copy) as client:
        r = client.get("/api/optimum", params={"seed": "1", "system": "american"})
        assert r.status_code == 200 and r.json()["score"] == 200  # read back, not solved
        runs = client.get("/api/optimum/regret").json()["runs"]
    american = [r for r in runs if r["system"] == "American"]
    assert {r["player"] for r in american} == {"random", "greedy"}
    for r in american:
        assert r["deals"] == 4 and r["mean_optimum"] == 200
        assert r["regret"] == pytest.approx(200 - r["mean_score"])
        assert r["fraction"] == pytest.approx(r["mean_score"] / 200)
    assert all(r["system"] != "British" for r in runs)


@pytest.mark.parametrize("params", [
    {"seed": "abc", "system": "american"},
    {"seed": str(2 ** 64), "system": "american"},
    {"seed": "1", "system": "pony"},
    {"seed": "1"},
])
def test_bad_requests_say_what_is_wrong(params):
    with client_for() as client:
        r = client.get("/api/optimum", params=params)
    assert 400 <= r.status_code < 500
    assert r.json()["detail"]


def test_regret_without_a_store_is_empty():
    with client_for() as client:
        assert client.get("/api/optimum/regret").json() == {"runs": []}


# -- the solver's queue: one solve at a time, bounded, never on the shared threads --------

def _blocking_solves(monkeypatch):
    """solve_seed replaced by one that waits for ``release``; ``started`` lists the seeds
    whose solve began, in order."""
    import threading

    from pokersquares.web import api_optimum

    release, started = threading.Event(), []

    def solve_seed(seed, point_system, time_limit):
        started.append(seed)
        assert release.wait(30)
        return Optimum(seed, point_system.name, point_system.points, 7, 7, True, deal(seed)[:25], 0.1, 7)

    monkeypatch.setattr(api_optimum, "solve_seed", solve_seed)
    return release, started


def test_a_flood_of_solves_is_refused_at_once_and_other_routes_keep_answering(monkeypatch):
    import threading
    import time

    from pokersquares.web.api_optimum import QUEUE

    release, started = _blocking_solves(monkeypatch)
    answers = {}
    with client_for() as client:
        def ask(seed, page):
            answers[seed] = client.get("/api/optimum", params={"seed": str(seed), "system": "american"},
                                       headers={"X-Client": page})

        # One solve runs and QUEUE wait behind it, each asked for by its own page.
        solver = client.app.state.optimum
        threads = [threading.Thread(target=ask, args=(k, f"page{k}")) for k in range(QUEUE + 1)]
        for k, t in enumerate(threads):
            t.start()
            deadline = time.monotonic() + 10
            while solver.pending() <= k and time.monotonic() < deadline:
                time.sleep(0.01)
        assert solver.pending() == QUEUE + 1
        time.sleep(0.2)
        assert started == [0]  # one at a time
        busy = client.get("/api/optimum", params={"seed": "99", "system": "american"}, headers={"X-Client": "late"})
        assert busy.status_code == 503 and "busy" in busy.json()["detail"]
        again = client.get("/api/optimum", params={"seed": "98", "system": "american"}, headers={"X-Client": "page1"})
        assert again.status_code == 429
        t0 = time.monotonic()
        for _ in range(45):  # more than the server's shared threads: none is held by a waiting solve
            assert client.get("/api/results").status_code == 200
        assert time.monotonic() - t0 < 10
        assert not answers  # still waiting
        release.set()
        for t in threads:
            t.join(30)
    assert sorted(answers) == list(range(QUEUE + 1))
    assert all(r.status_code == 200 and r.json()["score"] == 7 for r in answers.values())
    assert started == list(range(QUEUE + 1))


def test_the_same_deal_asked_twice_is_solved_once_and_then_served_from_memory(monkeypatch):
    import threading

    release, started = _blocking_solves(monkeypatch)
    answers = []
    with client_for() as client:
        def ask(page):
            answers.append(client.get("/api/optimum", params={"seed": "5", "system": "british"},
                                      headers={"X-Client": page}))

        threads = [threading.Thread(target=ask, args=(p,)) for p in ("a", "b", "c")]
        for t in threads:
            t.start()
        release.set()
        for t in threads:
            t.join(30)
        ask("d")
    assert [r.status_code for r in answers] == [200] * 4
    assert started == [5]


def test_a_waiting_solve_whose_asker_left_never_runs():
    import asyncio
    import threading

    from pokersquares.web.api_optimum import OptimumSolver

    solver, release, ran = OptimumSolver(queue_size=2, cache_size=2), threading.Event(), []

    def solve(name):
        def run():
            ran.append(name)
            assert release.wait(30)
            return {"name": name}
        return run

    async def scenario():
        async def stays():
            return False

        async def leaves():
            await asyncio.sleep(0.3)
            return True

        first = asyncio.create_task(solver.answer("k1", "a", solve("k1"), stays))
        await asyncio.sleep(0.2)
        assert await solver.answer("k2", "b", solve("k2"), leaves) is None  # left while waiting
        release.set()
        assert await first == {"name": "k1"}
        assert await solver.answer("k3", "c", solve("k3"), stays) == {"name": "k3"}
        assert await solver.answer("k4", "c", solve("k4"), stays) == {"name": "k4"}

    asyncio.run(scenario())
    solver.close()
    assert ran == ["k1", "k3", "k4"]  # k2 was dropped before it started
    assert solver.cached("k1") is None and solver.cached("k4") == {"name": "k4"}  # the last 2 kept


def test_a_closed_solver_is_joined_once_its_solve_under_way_ends():
    """A process that ended while CP-SAT ran on the solver's daemon thread could abort
    (exit 134, "terminate called without an active exception"): a test session whose
    last browser test left a deal's optimum solving did. :meth:`join` waits for it."""
    import asyncio
    import threading
    import time

    from pokersquares.web.api_optimum import OptimumSolver

    solver, started, ended = OptimumSolver(), threading.Event(), []
    assert solver.join(1)  # nothing ever solved: nothing to wait for

    def run():
        started.set()
        time.sleep(0.5)
        ended.append("k")
        return {}

    async def stays():
        return False

    asking = threading.Thread(target=lambda: asyncio.run(solver.answer("k", "a", run, stays)))
    asking.start()
    assert started.wait(10)
    solver.close()
    assert solver.join(10) and ended == ["k"]
    asking.join(10)


@pytest.mark.parametrize("seed", ["1_000", "\u0661\u0662", "+-3", " "])
def test_seeds_are_ascii_whole_numbers(seed):
    with client_for() as client:
        r = client.get("/api/optimum", params={"seed": seed, "system": "american"})
    assert r.status_code == 400 and "whole number" in r.json()["detail"]


# -- the store is a cache of answers: one that cannot be written or read loses no answer ------

def _quick_solves(monkeypatch):
    """solve_seed replaced by a quick one; the seeds it solved, in order."""
    from pokersquares.web import api_optimum

    solved = []

    def solve_seed(seed, point_system, time_limit):
        solved.append(seed)
        return Optimum(seed, point_system.name, point_system.points, 7, 7, True, deal(seed)[:25], 0.1, 7)

    monkeypatch.setattr(api_optimum, "solve_seed", solve_seed)
    return solved


def test_a_solved_deal_is_answered_when_the_store_cannot_be_written(monkeypatch, tmp_path):
    # `serve --no-record --db missing/results.sqlite` starts (nothing is recorded), but
    # the store of optima can then never be created: the answer was lost with a 400
    # after every solve, and each request solved the deal again.
    solved = _quick_solves(monkeypatch)
    path = tmp_path / "missing" / "results.sqlite"
    with TestClient(create_app(store_path=path, record_games=False, agents={}), base_url="http://127.0.0.1") as client:
        for _ in range(2):
            r = client.get("/api/optimum", params={"seed": "4", "system": "american"})
            assert r.status_code == 200, r.text
            assert r.json()["score"] == 7 and r.json()["seed"] == "4"
    assert solved == [4]  # solved once, then answered from memory
    assert not path.parent.exists()


def test_stored_optima_are_served_from_a_store_the_server_may_only_read(monkeypatch, store_copy):
    # A store that cannot be opened for writing (read-only, under --no-record) is read.
    from pokersquares.web import api_optimum

    with OptimaStore(store_copy) as store:
        store.put(Optimum(1, "American", AMERICAN.points, 200, 200, True, deal(1)[:25], 1.0, 200), 20.0)
    solved = _quick_solves(monkeypatch)

    def read_only(path, *, readonly=False):
        if not readonly:
            raise api_optimum.StoreError(f"cannot write to the result store {path}: a read-only database")
        return OptimaStore(path, readonly=True)

    monkeypatch.setattr(api_optimum, "OptimaStore", read_only)
    with TestClient(create_app(store_path=store_copy, record_games=False, agents={}),
                    base_url="http://127.0.0.1") as client:
        stored = client.get("/api/optimum", params={"seed": "1", "system": "american"})
        new = client.get("/api/optimum", params={"seed": "2", "system": "american"})
    assert stored.status_code == 200 and stored.json()["score"] == 200, stored.text  # read, not solved
    assert new.status_code == 200 and new.json()["score"] == 7, new.text  # solved; storing it failed
    assert solved == [2]
