"""``GET /api/results`` a page of runs at a time: every game a person finishes is a run of
its own, and the whole list of 20,000 of them took 2.5 s and 6 MB. The person's games
per point system are summed up by the server over all of them, not only the page."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from pokersquares import AMERICAN, BRITISH  # noqa: E402
from pokersquares.harness.store import GameRecord, ResultStore  # noqa: E402
from pokersquares.web import create_app  # noqa: E402
from pokersquares.web.results import RUNS_PAGE, RUNS_PAGE_MAX  # noqa: E402

from .test_api import local_client  # noqa: E402

PEOPLES_GAMES = 37


def human_score(k: int) -> int:
    return (k * 37) % 101 - 20


@pytest.fixture(scope="module")
def many_runs(tmp_path_factory):
    """A tournament, then many people's games (a run each) with agents' runs among them."""
    path = tmp_path_factory.mktemp("many-runs") / "results.sqlite"
    with ResultStore(path) as store:
        tid = store.open_tournament(["greedy"], [AMERICAN], 2, 0, 1.0, 0.0)
        run = store.open_run("greedy", "greedy", AMERICAN, 0, 2, 1.0, 0.0, tid)
        store.add_games(run, [GameRecord(i, i, 90 + i, [], 0.01) for i in range(2)])
        for k in range(PEOPLES_GAMES):
            system = BRITISH if k % 3 == 0 else AMERICAN
            run = store.open_run("human", "human", system, 1000 + k, 1, 0.0, 0.0, version=f"web:{k}")
            store.add_games(run, [GameRecord(0, 1000 + k, human_score(k), [], 2.0)])
            if k % 10 == 5:
                run = store.open_run("greedy", "greedy", BRITISH, k, 3, 1.0, 0.0)
                store.add_games(run, [GameRecord(i, k + i, 10 * i, [], 0.01) for i in range(3)])
    return path


def pages(client, limit):
    """Every page of the index from the newest on, following ``next_before``."""
    got, before = [], None
    while True:
        r = client.get("/api/results", params={"limit": limit} | ({} if before is None else {"before": before}))
        assert r.status_code == 200, r.text
        got.append(r.json())
        before = got[-1]["next_before"]
        if before is None:
            return got
        assert len(got) < 100, "next_before never ends"


def test_pages_are_disjoint_and_cover_every_run_in_order(many_runs):
    with ResultStore(many_runs, readonly=True) as store:
        every = [r.to_json() for r in store.runs()]
    with local_client(create_app(agents={}, store_path=many_runs)) as c:
        got = pages(c, 7)
    assert len(every) == 1 + PEOPLES_GAMES + 4 and len(got) == -(-len(every) // 7)
    for page in got:
        ids = [r["run_id"] for r in page["runs"]]
        assert ids == sorted(ids) and 1 <= len(ids) <= 7  # oldest first within a page
        assert page["runs_total"] == len(every)
        assert page["tournaments_total"] == len(page["tournaments"]) == 1
    for newer, older in zip(got, got[1:]):  # each next page is wholly older than the last
        assert newer["next_before"] == newer["runs"][0]["run_id"] > older["runs"][-1]["run_id"]
        assert len(newer["runs"]) == 7
    # Newest page first; put back in order, they are every run once, with the store's summary of each.
    assert [r for page in reversed(got) for r in page["runs"]] == every
    assert got[-1]["next_before"] is None


def test_the_first_page_is_the_newest_and_the_last_says_so(many_runs):
    with ResultStore(many_runs, readonly=True) as store:
        ids = [r.run_id for r in store.runs()]
    n = len(ids)
    assert n < RUNS_PAGE
    with local_client(create_app(agents={}, store_path=many_runs)) as c:
        index = c.get("/api/results").json()
        assert [r["run_id"] for r in index["runs"]] == ids and index["next_before"] is None
        exactly = c.get("/api/results", params={"limit": n}).json()  # a page the runs just fill
        assert len(exactly["runs"]) == n and exactly["next_before"] is None
        one_short = c.get("/api/results", params={"limit": n - 1}).json()
        assert [r["run_id"] for r in one_short["runs"]] == ids[1:] and one_short["next_before"] == ids[1]
        last = c.get("/api/results", params={"limit": 5, "before": ids[1]}).json()
        assert [r["run_id"] for r in last["runs"]] == ids[:1] and last["next_before"] is None
        none = c.get("/api/results", params={"before": ids[0]}).json()
        assert none["runs"] == [] and none["next_before"] is None and none["runs_total"] == n


@pytest.mark.parametrize("params", [{"limit": 0}, {"limit": -3}, {"limit": RUNS_PAGE_MAX + 1}, {"limit": "ten"},
                                    {"limit": 2.5}, {"before": 0}, {"before": -1}, {"before": "x"},
                                    {"before": 2 ** 62 + 1}, {"limit": 5, "before": ""}])
def test_a_bad_limit_or_before_is_refused_in_one_line(many_runs, params):
    with local_client(create_app(agents={}, store_path=many_runs)) as c:
        r = c.get("/api/results", params=params)
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert isinstance(detail, str) and "\n" not in detail
    assert detail.startswith("before:" if "before" in params else "limit:"), detail


def test_the_persons_games_are_summed_up_over_every_page(many_runs):
    by_system = {}
    for k in range(PEOPLES_GAMES):
        by_system.setdefault("British" if k % 3 == 0 else "American", []).append(human_score(k))
    with local_client(create_app(agents={}, store_path=many_runs)) as c:
        index = c.get("/api/results", params={"limit": 3}).json()
        assert len(index["runs"]) == 3  # far fewer runs than the games summed up
        older = c.get("/api/results", params={"limit": 3, "before": index["next_before"]}).json()
    expected = [{"system_name": name, "games": len(scores), "mean": pytest.approx(sum(scores) / len(scores)),
                 "best": max(scores)} for name, scores in by_system.items()]
    assert index["humans"] == expected  # in the order the systems were first played: British, game 0
    assert older["humans"] == expected


def test_a_store_with_no_persons_game_has_none_summed_up(result_store):
    with local_client(create_app(agents={}, store_path=result_store)) as c:
        index = c.get("/api/results").json()
    assert index["humans"] == [] and index["runs_total"] == len(index["runs"]) == 5


def test_a_run_off_the_first_page_opens_by_its_id(many_runs):
    with local_client(create_app(agents={}, store_path=many_runs)) as c:
        first = c.get("/api/results", params={"limit": 2}).json()
        oldest = 1
        assert oldest not in [r["run_id"] for r in first["runs"]]
        detail = c.get(f"/api/results/runs/{oldest}").json()
        assert detail["run"]["run_id"] == oldest and detail["scores"] == [90, 91]
        assert c.get(f"/api/results/runs/{first['runs_total'] + 1}").status_code == 404


def test_the_downloaded_csv_runs_no_formula_a_person_typed_as_their_name(tmp_path):
    """A name typed with a game in the browser (``=HYPERLINK(...)``, ``@SUM(A1)``) went into
    the Results page's CSV download as typed, and the teacher's spreadsheet ran it as a
    formula: it starts with ``'`` now, the download still one row per game."""
    import csv
    import io

    from .test_api import new_game, place

    path = tmp_path / "class.sqlite"
    names = ['=HYPERLINK("http://x","y")', "@SUM(A1)", "-1+2", 'Doe, "Jane"']
    with local_client(create_app(agents={}, store_path=path)) as c:
        for seed, name in enumerate(names):
            view = new_game(c, seed=seed, name=name)
            for cell in range(25):
                view = place(c, view, cell)
        r = c.get("/api/results/export.csv")
    assert r.status_code == 200, r.text
    rows = list(csv.DictReader(io.StringIO(r.content.decode("utf-8"))))
    assert [row["player_name"] for row in rows] == ["'" + names[0], "'" + names[1], "'" + names[2], names[3]]
    assert [row["seed"] for row in rows] == ["0", "1", "2", "3"]


def test_a_download_the_servers_full_disk_cannot_hold_says_so(many_runs, monkeypatch):
    """An export past ``SPOOL_BYTES`` is held in the server's temporary folder: a full
    disk there answered 500 "internal error: OSError: ...", as if a bug. It is the
    server's disk (503), said in one line with the folder to free, and the next
    download, with room again, is whole."""
    import errno
    import tempfile

    from pokersquares.web import results as results_module

    class Full(tempfile.SpooledTemporaryFile):
        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

    with local_client(create_app(agents={}, store_path=many_runs)) as c:
        monkeypatch.setattr(results_module.tempfile, "SpooledTemporaryFile", Full)
        r = c.get("/api/results/export.csv")
        monkeypatch.undo()
        again = c.get("/api/results/export.csv")
    assert r.status_code == 503, r.text
    detail = r.json()["detail"]
    assert "\n" not in detail and "No space left on device" in detail and tempfile.gettempdir() in detail, detail
    assert "internal error" not in detail
    assert again.status_code == 200 and again.text.count("\n") == 1 + 2 + PEOPLES_GAMES + 3 * 4
