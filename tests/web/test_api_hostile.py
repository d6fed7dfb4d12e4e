"""The JSON API against a demanding or hostile client: bodies and parameters at and past
their limits, races on one game, odd result filters and large stores. Every answer is
JSON with the right status and a one-line ``detail``, and nothing a bad request does
changes the game or the result store."""

from __future__ import annotations

import hashlib
import re
import shutil
import threading

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from pokersquares import AMERICAN, BRITISH, Game  # noqa: E402
from pokersquares.harness.hands_made import grid_set, mix_summary  # noqa: E402
from pokersquares.harness.store import GameRecord, ResultStore  # noqa: E402
from pokersquares.web import create_app  # noqa: E402
from pokersquares.web import results as web_results  # noqa: E402


def local_client(app):
    """A client by the loopback address that sees a server's failure as its 500 answer."""
    return TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False)


def one_line_error(r, status):
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/json"
    detail = r.json()["detail"]
    assert isinstance(detail, str) and detail and "\n" not in detail and "Traceback" not in detail
    return detail


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def played(seed: int, system=AMERICAN, index: int = 0, penalty: str | None = None) -> GameRecord:
    """A finished game of ``seed``'s deal, its cards placed row by row."""
    game = Game.from_seed(seed, system)
    for cell in range(25):
        game.play(cell // 5, cell % 5)
    return GameRecord(index, seed, game.score(), [tuple(p) for p in game.placements], 0.01 * (index + 1), penalty)


@pytest.fixture
def odd_store(tmp_path):
    """A run of 11 games (two tied for best, one penalised, one cut short), one of none,
    and a British run."""
    path = tmp_path / "odd.sqlite"
    with ResultStore(path) as store:
        run = store.open_run("greedy", "greedy", AMERICAN, 40, 11, 1.0, 0.0)
        records = [played(40 + i, index=i) for i in range(11)]
        records[3] = played(43, index=3, penalty="timeout")
        records[7] = GameRecord(7, 47, 0, records[7].placements[:10], 0.5, "crash")
        records[9] = GameRecord(9, 49, max(r.score for r in records), records[2].placements, 0.2)  # ties the best
        store.add_games(run, records)
        store.open_run("random", "random", AMERICAN, 0, 5, 1.0, 0.0)
        run = store.open_run("zufällig ♠", "random", BRITISH, 7, 3, 1.0, 0.0)  # its bytes are not its characters
        store.add_games(run, [played(7 + i, BRITISH, i) for i in range(3)])
    return path


def whole(*args, **kwargs):
    raise AssertionError("a whole run, or the whole store, held in memory at once")


# -- the result store's pages on large runs -------------------------------------------------

@pytest.mark.parametrize("runs", [None, [2], [1, 3]])
def test_an_export_is_sent_a_piece_at_a_time_byte_for_byte(odd_store, monkeypatch, runs):
    """The export was built whole in memory, the text and then its bytes (220 MB for a
    store of 300,000 games); it is written a piece at a time and sent as it was."""
    with ResultStore(odd_store, readonly=True) as store:
        expected = store.export_csv(runs).encode()
    monkeypatch.setattr(ResultStore, "export_csv", whole)
    monkeypatch.setattr(ResultStore, "export_rows", whole)
    monkeypatch.setattr(ResultStore, "games", whole)
    monkeypatch.setattr(web_results, "SPOOL_BYTES", 100)  # past it, the export waits in a file
    with local_client(create_app(agents={}, store_path=odd_store)) as c:
        r = c.get("/api/results/export.csv", params={} if runs is None else {"run": runs})
        assert r.status_code == 200, r.text
        assert r.headers["content-type"] == "text/csv; charset=utf-8"
        assert r.headers["content-disposition"] == 'attachment; filename="pokersquares-games.csv"'
        assert r.content == expected and int(r.headers["content-length"]) == len(expected)
        detail = one_line_error(c.get("/api/results/export.csv", params={"run": [1, 9]}), 404)
        assert detail.startswith("no run 9 in")


def _close(got, expected) -> bool:
    """``got`` (JSON read back) is ``expected`` with its numbers to 1e-6: nested lists and
    dicts too, which pytest.approx refuses from pytest 9.2."""
    if isinstance(expected, dict):
        return isinstance(got, dict) and got.keys() == expected.keys() and all(
            _close(got[k], expected[k]) for k in expected)
    if isinstance(expected, (list, tuple)):
        return isinstance(got, list) and len(got) == len(expected) and all(map(_close, got, expected))
    if isinstance(expected, float) or isinstance(got, float):
        return got == pytest.approx(expected)
    return got == expected


def test_a_runs_page_reads_its_games_one_at_a_time_and_says_what_it_did(odd_store, monkeypatch):
    """A run's page read all its games into one list, placements and all (1 GB for a
    run of 300,000 games); they are read one at a time and their grids classified a few
    thousand at a time, and the page says what it said."""
    with ResultStore(odd_store, readonly=True) as store:
        records = {run: store.games(run) for run in (1, 2, 3)}
        runs = {r.run_id: r for r in store.runs()}
    monkeypatch.setattr(ResultStore, "games", whole)
    monkeypatch.setattr(web_results, "GRID_CHUNK", 3)  # the 11 games in four pieces
    with local_client(create_app(agents={}, store_path=odd_store)) as c:
        for run, games in records.items():
            r = c.get(f"/api/results/runs/{run}")
            assert r.status_code == 200, r.text
            page = r.json()
            assert page["scores"] == [g.score for g in games] and page["seeds"] == [g.seed for g in games]
            assert _close(page["summary"], web_results.summary(games))
            expected = mix_summary(grid_set(runs[run].player, runs[run].points, games))
            assert _close(page["hands"], expected)
            best = max(games, key=lambda g: g.score, default=None)
            assert (page["best"] and page["best"]["game_index"]) == (best and best.game_index)
            if run == 1:  # the penalised and the cut-short game have no grid counted
                assert page["hands"]["left_out"] == 2 and page["hands"]["games"] == 9
                assert page["best"]["game_index"] < 9  # the first of the two best, not game 9


def test_a_run_id_past_the_limit_is_said_to_be_out_of_range(result_store):
    """An export of run 2**62 + 1 was told "a run id is a positive integer", which it is."""
    with local_client(create_app(agents={}, store_path=result_store)) as c:
        for run in (2 ** 62 + 1, 2 ** 63, 10 ** 30, 0, -1):
            detail = one_line_error(c.get("/api/results/export.csv", params={"run": [1, run]}), 400)
            assert detail == f"a run id is a positive integer up to {2 ** 62}, got {run}"
        detail = one_line_error(c.get("/api/results/export.csv", params={"run": 2 ** 62}), 404)
        assert detail.startswith(f"no run {2 ** 62} in")


@pytest.mark.parametrize("kind", ["empty file", "folder"])
def test_regret_of_a_store_not_made_yet_is_empty_as_the_results_page_says(tmp_path, kind):
    """``serve --db new.sqlite`` on a file made empty beforehand: the Results page says
    there is no store yet, and the regret of its runs was a 400 saying it was no store."""
    path = tmp_path / "new.sqlite"
    if kind == "folder":
        path.mkdir()
    else:
        path.write_bytes(b"")
    with local_client(create_app(agents={}, store_path=path, record_games=False)) as c:
        assert c.get("/api/results").json()["available"] is False
        r = c.get("/api/optimum/regret")
        assert r.status_code == 200 and r.json() == {"runs": []}
    assert path.is_dir() if kind == "folder" else path.read_bytes() == b""


# -- hostile bodies and parameters --------------------------------------------------------

@pytest.fixture(scope="module")
def client():
    with local_client(create_app(agents={}, max_games=50)) as c:
        yield c


def new_game(c, **body):
    r = c.post("/api/games", json={"system": "american", "seed": 7, **body})
    assert r.status_code == 201, r.text
    return r.json()


def post_raw(c, path, body: bytes):
    return c.post(path, content=body, headers={"Content-Type": "application/json"})


@pytest.mark.parametrize("body, status", [
    (b"null", 422), (b"[]", 422), (b'"american"', 422), (b"1", 422), (b"", 422),
    (b'{"seed": NaN}', 422), (b'{"seed": Infinity}', 422), (b'{"seed": -Infinity}', 422), (b'{"seed": 1e18}', 422),
    (b'{"seed": 1e400}', 422), (b'{"seed": 123456789012345678901234567890}', 422),
    (b'{"system": "\\u0000"}', 400), (b'{"system": "american\\u0000"}', 400), (b'{"system": "\\ud800"}', 422),
    (b'{"system": "' + b"a" * 201 + b'"}', 422), (b'{"system": "\\ufeffamerican"}', 400), (b'{"system": "  "}', 400),
    (b'{"system": "random:99999999999999999999999"}', 400), (b'{"system": "random:\xd9\xa1"}', 400),
    (b'{"system": "1,2,3,4,5,6,7,8,9,10,"}', 400), (b'{"system": ["american"]}', 422), (b'{"system": null}', 422),
    (b'{"moves": null}', 422), (b'{"moves": [[1]]}', 422), (b'{"moves": {"0": 1}}', 422), (b'{"moves": [0.0]}', 422),
    (b'{"__proto__": {}}', 422), (b"[" * 30000, 400), (b'{"seed": 1' + b"0" * 5000 + b"}", 400),
    (b'{"system": "\xff"}', 400),
])
def test_hostile_new_game_bodies_get_a_one_line_4xx(client, body, status):
    one_line_error(post_raw(client, "/api/games", body), status)


@pytest.mark.parametrize("body, status", [
    (b'{"cell": NaN}', 422), (b'{"cell": 1e0}', 422), (b'{"cell": 18446744073709551616}', 422),
    (b'{"cell": -9223372036854775809}', 422), (b'{"cell": null}', 422), (b'{"cell": 0, "turn": 26}', 422),
    (b'{"cell": 0, "turn": -1}', 422), (b'{"cell": 0, "turn": 3}', 409), (b'[0]', 422), (b'{"cell": [0]}', 422),
    (b'{"cell": 0, "by_agent": true}', 422),
])
def test_hostile_placements_leave_the_game_as_it_was(client, body, status):
    view = new_game(client)
    one_line_error(post_raw(client, f"/api/games/{view['id']}/place", body), status)
    assert client.get(f"/api/games/{view['id']}").json() == view


@pytest.mark.parametrize("path", ["/api/games/" + "a" * 65, "/api/games/%00aaaaaaaa",
                                  "/api/games/" + "\u00e9" * 10])
def test_game_ids_that_cannot_be_are_refused_before_they_are_looked_up(client, path):
    one_line_error(client.get(path), 422)
    one_line_error(client.post(path + "/place", json={"cell": 0}), 422)


@pytest.mark.parametrize("params", [{"run": ""}, {"run": "abc"}, {"run": "1e3"}, {"run": "\u0661"},
                                    {"run": "9" * 5000}])
def test_odd_export_filters_get_a_one_line_4xx(result_store, params):
    with local_client(create_app(agents={}, store_path=result_store)) as c:
        one_line_error(c.get("/api/results/export.csv", params=params), 422)


# -- races, finished games, the store left as it was ---------------------------------------------

def test_placements_raced_from_threads_place_one_card_a_turn_and_the_game_is_recorded_once(tmp_path):
    """Eight clients play every cell of every turn at once, some saying the turn, until
    the server says the game is over: each turn takes one card, the grid is the
    library's, and the finished game is recorded once; a move after the end is a 409."""
    path = tmp_path / "store.sqlite"
    with local_client(create_app(agents={}, store_path=path)) as c:
        view = new_game(c, seed=11)
        gid, barrier, statuses, lock = view["id"], threading.Barrier(8), [], threading.Lock()

        def play(k):
            barrier.wait()
            for turn in range(25):
                for cell in range(25):
                    body = {"cell": (cell + 3 * k) % 25, **({"turn": turn} if k % 2 else {})}
                    r = c.post(f"/api/games/{gid}/place", json=body)
                    with lock:
                        statuses.append(r.status_code)
                    if r.status_code == 409 and re.search("at turn 25|game is over", r.json()["detail"]):
                        return  # every later move is refused alike

        threads = [threading.Thread(target=play, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert statuses.count(200) == 25 and set(statuses) <= {200, 400, 409}
        view = c.get(f"/api/games/{gid}").json()
        game = Game.from_seed(11, AMERICAN)
        for cell in view["moves"]:
            game.play(cell // 5, cell % 5)
        assert view["done"] and sorted(view["moves"]) == list(range(25)) and view["score"] == game.score()
        assert one_line_error(c.post(f"/api/games/{gid}/place", json={"cell": 0, "turn": 25}), 409)
        # Recorded: the game never asks to be recorded again (its flag is said True once).
        assert c.app.state.games.get(gid).finished_by_person() is False
    with ResultStore(path, readonly=True) as store:
        runs = store.runs()
        assert [(r.player, r.games) for r in runs] == [("human", 1)]
        assert store.games(runs[0].run_id)[0].score == game.score()


def test_a_store_that_fails_mid_write_keeps_the_record_and_the_last_card(tmp_path, monkeypatch, caplog):
    """A store whose file fails under a write (an index damaged past what the check on
    opening reads) raised sqlite3's own error: the last card was placed but answered
    500, and the page showed the game as not finished. The answer says the game is not
    recorded yet, and the server keeps it."""
    import sqlite3

    def damaged(*args, **kwargs):
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(ResultStore, "add_games", damaged)
    with local_client(create_app(agents={}, store_path=tmp_path / "store.sqlite")) as c:
        view = new_game(c, moves=list(range(24)))
        r = c.post(f"/api/games/{view['id']}/place", json={"cell": 24, "turn": 24})
        assert r.status_code == 200, r.text
        assert r.json()["done"] and c.get(f"/api/games/{view['id']}").json()["done"]
        assert (r.json()["recorded"], r.json()["record_detail"]) == (False, "the result store could not be written")
        assert len(c.app.state.recorder.kept) == 1
    assert (f"could not record a browser game (seed 7, {r.json()['score']} points, player human): the result "
            "store could not be written: database disk image is malformed; the server keeps it") in caplog.text


def test_bad_requests_leave_the_result_store_as_it_was(result_store, tmp_path):
    path = tmp_path / "results.sqlite"
    shutil.copyfile(result_store, path)
    before = digest(path)
    with local_client(create_app(agents={}, store_path=path)) as c:
        listing = c.get("/api/results").json()
        view = new_game(c, moves=list(range(24)))
        for body in (b'{"cell": 24, "turn": 23}', b'{"cell": 0, "turn": 24}', b'{"cell": 25}', b"{"):
            assert 400 <= post_raw(c, f"/api/games/{view['id']}/place", body).status_code < 500
        for url in ("/api/results/runs/0", "/api/results/runs/999", "/api/results/tournaments/-5",
                    "/api/results/export.csv?run=999", "/api/results/export.csv?run=x",
                    "/api/optimum?seed=x&system=american", "/api/optimum?seed=1&system=nope"):
            assert 400 <= c.get(url).status_code < 500, url
        assert c.post("/api/games", json={"system": "american", "moves": list(range(25)), "seed": 3}).status_code == 201
        assert c.get("/api/results").json() == listing
    assert digest(path) == before
