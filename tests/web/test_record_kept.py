"""A person's finished game that the result store cannot take (another process holds its
write lock). The last card waited 30 s, then was answered as if the game were saved;
the game was lost, and the server's stopping line said finished games were recorded.
Now the answer comes within a short wait and says the game is not recorded yet; the
server keeps it and records it, once and in order, when another game ends or when it
stops; what it could not record then is said."""

from __future__ import annotations

import contextlib
import sqlite3
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from pokersquares.harness.store import ResultStore  # noqa: E402
from pokersquares.web import create_app  # noqa: E402
from pokersquares.web import results as web_results  # noqa: E402

WAIT_S = 0.3
BUSY = "the result store is busy"


@pytest.fixture(autouse=True)
def short_wait(monkeypatch):
    monkeypatch.setattr(web_results, "RECORD_WAIT_S", WAIT_S)


def local_client(app):
    return TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False)


def finish(c, seed: int) -> tuple[dict, float]:
    """A game of ``seed`` played cell by cell: the answer to its last card, and the
    seconds that answer took."""
    view = c.post("/api/games", json={"system": "american", "seed": seed}).json()
    for cell in range(25):
        start = time.monotonic()
        r = c.post(f"/api/games/{view['id']}/place", json={"cell": cell, "turn": cell})
        assert r.status_code == 200, r.text
        view = r.json()
    return view, time.monotonic() - start


@contextlib.contextmanager
def write_locked(path):
    """Another process's write under way in the store: a connection of its own holding
    the write lock, as an SQLite browser with changes not saved does."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("INSERT INTO meta VALUES ('w', 'y')")
    try:
        yield
    finally:
        conn.execute("ROLLBACK")
        conn.close()


def recorded(path) -> list[tuple[int, list[int]]]:
    """The store's runs, oldest first: each one's seed and its games' scores."""
    with ResultStore(path, readonly=True) as store:
        return [(r.seed, [g.score for g in store.games(r.run_id)]) for r in store.runs()]


def test_a_game_the_store_cannot_take_is_said_kept_and_recorded_once_when_another_ends(tmp_path, caplog):
    path = tmp_path / "store.sqlite"
    with local_client(create_app(agents={}, store_path=path)) as c:
        first, _ = finish(c, 1)
        assert (first["recorded"], first["record_detail"]) == (True, None)
        with write_locked(path):
            second, took = finish(c, 2)
            third, _ = finish(c, 3)
            assert recorded(path) == [(1, [first["score"]])]
        assert second["done"] and took < 10, took  # not the 30 s a command waits
        assert [(v["recorded"], v["record_detail"]) for v in (second, third)] == [(False, BUSY)] * 2
        for view, kept in [(second, 1), (third, 2)]:
            assert (f"could not record a browser game (seed {view['seed']}, {view['score']} points, player human): "
                    f"{BUSY}: another process holds the write lock of {path} (a command stopped with Ctrl-Z, or a "
                    "program with changes not saved, such as an SQLite browser); the server keeps it in memory and "
                    f"records it when another game ends or when the server stops ({kept} kept)") in caplog.text
        assert "run this again" not in caplog.text
        fourth, _ = finish(c, 4)  # the lock is gone: the games kept go first
        assert (fourth["recorded"], fourth["record_detail"]) == (True, None)
        assert f"recorded 2 finished browser games that the result store {path} could not take before" in caplog.text
        assert not c.app.state.recorder.kept
    assert recorded(path) == [(seed, [view["score"]]) for seed, view in enumerate([first, second, third, fourth], 1)]


def test_a_game_kept_is_recorded_when_the_server_stops_or_said_lost_with_the_store_still_locked(tmp_path, caplog):
    path = tmp_path / "store.sqlite"
    with local_client(create_app(agents={}, store_path=path)) as c:
        first, _ = finish(c, 1)
        with write_locked(path):
            second, _ = finish(c, 2)
        assert second["recorded"] is False
    assert recorded(path) == [(1, [first["score"]]), (2, [second["score"]])]
    assert f"recorded 1 finished browser game that the result store {path} could not take before" in caplog.text

    app = create_app(agents={}, store_path=path)
    with write_locked(path):
        with local_client(app) as c:
            assert [finish(c, seed)[0]["recorded"] for seed in (3, 4)] == [False, False]
        assert len(app.state.recorder.kept) == 2
        assert (f"2 finished browser games could not be recorded in {path} as the server stopped: {BUSY}: another "
                f"process holds the write lock of {path} (a command stopped with Ctrl-Z, or a program with changes "
                "not saved, such as an SQLite browser); they are lost") in caplog.text
    assert [seed for seed, _ in recorded(path)] == [1, 2]
