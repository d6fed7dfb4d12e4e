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
