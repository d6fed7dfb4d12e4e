"""A class of students on one server: thirty pages behind one address (a school's NAT)
each finish a game at once, with names typed after the page dealt, and odd names.
What the teacher reads back from the store must be each student's game, once, under
the name they gave. (No browser here: asyncio and httpx against a served app.)"""

from __future__ import annotations

import asyncio
import random
import unicodedata

import pytest

pytest.importorskip("fastapi")
httpx = pytest.importorskip("httpx")

from pokersquares.harness.store import ResultStore  # noqa: E402
from pokersquares.web import create_app  # noqa: E402

from .conftest import serving  # noqa: E402

STUDENTS = 30


def _human_games(path) -> dict[str, list[tuple[int, list[int], int]]]:
    """Per recorded name: (score, cells in order, seed) of each game."""
    games: dict[str, list] = {}
    with ResultStore(path, readonly=True) as store:
        for run in store.runs():
            assert run.player == "human"
            for g in store.games(run.run_id):
                games.setdefault(run.player_name, []).append(
                    (g.score, [row * 5 + col for _, row, col in g.placements], g.seed))
    return games


def test_thirty_students_behind_one_address_each_land_once_under_the_name_typed_after_the_deal(tmp_path):
    """The page deals a game as it opens, before a student types a name; the name was
    fixed at the deal, so a student who typed it and then played was recorded as plain
    ``human`` (the teacher could not tell whose game it was). The name the page sends
    with each card is the one recorded: thirty students at once, one IP, each game once,
    with its score and moves."""
    path = tmp_path / "class.sqlite"
    app = create_app(agents={}, store_path=path)
    played = []

    async def student(url: str, i: int) -> None:
        name = f"Student {i:02d}"
        async with httpx.AsyncClient(base_url=url, headers={"X-Client": f"tab{i:03d}"}, timeout=60) as c:
            daily = (await c.get("/api/daily")).json()
            r = await c.post("/api/games", json={"system": daily["system"], "seed": daily["seed"]})  # no name yet
            assert r.status_code == 201, r.text
            view, rng, moves = r.json(), random.Random(i), []
            while not view["done"]:
                cell = rng.choice([k for k, v in enumerate(view["cells"]) if v is None])
                body = {"cell": cell, "turn": view["turn"]}
                if view["turn"] >= 3:  # typed while the first cards were placed
                    body["name"] = f"  {name} "
                r = await c.post(f"/api/games/{view['id']}/place", json=body)
                assert r.status_code == 200, r.text
                view = r.json()
                moves.append(cell)
            played.append((name, view["score"], moves, view["seed"]))

    async def lesson(url: str) -> None:
        await asyncio.gather(*(student(url, i) for i in range(STUDENTS)))

    with serving(app) as url:
        asyncio.run(lesson(url.rstrip("/")))
    recorded = _human_games(path)
    assert sorted(recorded) == sorted(name for name, *_ in played)
    for name, score, moves, seed in played:
        assert recorded[name] == [(score, moves, seed)], name


def test_names_students_type_are_taken_or_refused_in_a_line_that_says_what_to_do(tmp_path):
    """An emoji joined by a zero-width joiner (a technologist, a rainbow flag) is one
    printable symbol, but the name was refused as not "printable text of at most 40
    characters", which it was; a name typed with a combining accent was another student
    from the same name typed composed; 200 characters were told "at most 160"."""
    from fastapi.testclient import TestClient

    path = tmp_path / "class.sqlite"
    composed, decomposed = "José", unicodedata.normalize("NFD", "José")
    assert composed != decomposed
    with TestClient(create_app(agents={}, store_path=path), base_url="http://127.0.0.1") as c:
        for name in ("👩\u200d💻 Ada", "🏳️\u200d🌈 Sam", composed, decomposed, "Human", "n" * 40):
            r = c.post("/api/games", json={"system": "american", "seed": 5, "name": name})
            assert r.status_code == 201, (name, r.text)
            view = r.json()
            for cell in range(25):
                view = c.post(f"/api/games/{view['id']}/place", json={"cell": cell}).json()
        refused = {"Ada\u200b": "U+200B", "A\u200dB": "U+200D", "x" * 41: "at most 40 characters",
                   "x" * 200: "at most 40 characters",
                   # what the nameless are recorded as: listed with them, shown as no name
                   " human ": "the name 'human' is how games played without a name are recorded"}
        for name, said in refused.items():
            r = c.post("/api/games", json={"system": "american", "seed": 5, "name": name})
            assert r.status_code in (400, 422) and said in r.json()["detail"], (name, r.text)
            assert "\n" not in r.json()["detail"]
        people = c.get("/api/results").json()["people"]
    assert sorted((p["name"], p["games"]) for p in people) == sorted(
        [("👩\u200d💻 Ada", 1), ("🏳️\u200d🌈 Sam", 1), (composed, 2), ("Human", 1), ("n" * 40, 1)])
