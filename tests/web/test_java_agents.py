"""Contest Java players in the web app (`serve --java-player`): offered for Watch and
Replay, never for hints; their games follow the contest protocol on their game clock."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("fastapi")

from pokersquares.web import create_app  # noqa: E402
from pokersquares.web.java_agents import java_agents  # noqa: E402

from .test_api import local_client, new_game, place  # noqa: E402


def _wait(c, url, body, limit=60.0):
    r = c.post(url, json=body)
    deadline = time.monotonic() + limit
    while r.status_code == 202 and time.monotonic() < deadline:  # the JVM starting
        time.sleep(0.2)
        r = c.post(url, json=body)
    return r


@pytest.fixture
def java_client(java_classes):
    agents = java_agents(["FirstEmptyPlayer", "OccupiedPlayer"], game_s=10.0)
    with local_client(create_app(agents=agents, prep_s=1.0, think_s=2.0, game_s=10.0)) as c:
        yield c


def test_the_java_player_is_listed_for_watching_but_not_for_hints(java_client):
    config = java_client.get("/api/config").json()
    java = {a["name"]: a for a in config["agents"]}
    assert java["java-FirstEmptyPlayer"]["advises"] is False
    game = new_game(java_client)
    r = java_client.post(f"/api/games/{game['id']}/hint", json={"agent": "java-FirstEmptyPlayer", "seconds": 0.5})
    assert r.status_code == 400 and "gives no hints" in r.json()["detail"]


def test_watching_the_java_player_plays_a_whole_deal_by_its_own_moves(java_client):
    game = new_game(java_client, seed=7)
    for turn in range(25):
        r = _wait(java_client, f"/api/games/{game['id']}/agent-move",
                  {"agent": "java-FirstEmptyPlayer", "seconds": 1.0, "turn": turn})
        assert r.status_code == 200, r.text
        assert r.json()["choice"] == turn  # first empty cell in reading order
    view = r.json()["game"]
    assert view["done"] and view["moves"] == list(range(25))


def test_a_java_player_refuses_a_position_it_did_not_reach_itself(java_client):
    game = place(java_client, new_game(java_client), 12)  # a human's first card
    r = _wait(java_client, f"/api/games/{game['id']}/agent-move",
              {"agent": "java-FirstEmptyPlayer", "seconds": 1.0, "turn": 1})
    assert r.status_code in (400, 409, 500, 503) and "whole games of its own" in r.json()["detail"]


def test_replay_with_the_java_player_and_its_illegal_play_reported(java_client):
    game = new_game(java_client, seed=5)  # OccupiedPlayer answers (0, 0) again at move 3 when the first card is odd
    for cell in range(25):
        game = place(java_client, game, 24 - cell)
    r = _wait(java_client, f"/api/games/{game['id']}/replay", {"agent": "java-FirstEmptyPlayer"})
    assert r.status_code == 200, r.text
    assert [step["last_cell"] for step in r.json()["agent_steps"][1:]] == list(range(25))
    r = _wait(java_client, f"/api/games/{game['id']}/replay", {"agent": "java-OccupiedPlayer"})
    assert r.status_code >= 400 and "illegal play" in r.json()["detail"]


def test_a_watch_whose_java_player_went_on_to_another_game_is_told_so(java_client):
    # A contest Java player plays one game at a time: watching it on a second deal (another
    # tab, another person) takes it from the first. The first watch then got a 500 saying
    # that its own game, dealt and played by the agent from the first card, was "a position".
    move = {"agent": "java-FirstEmptyPlayer", "seconds": 1.0}
    first, second = new_game(java_client, seed=1), new_game(java_client, seed=2)
    assert _wait(java_client, f"/api/games/{first['id']}/agent-move", move).status_code == 200
    assert _wait(java_client, f"/api/games/{second['id']}/agent-move", move).status_code == 200
    r = _wait(java_client, f"/api/games/{first['id']}/agent-move", move)
    assert r.status_code == 409, r.text
    assert "started another game" in r.json()["detail"] and "new deal" in r.json()["detail"]
    assert java_client.get(f"/api/games/{first['id']}").json()["turn"] == 1  # the game is as it was
    r = _wait(java_client, f"/api/games/{second['id']}/agent-move", move)  # the second goes on
    assert r.status_code == 200 and r.json()["game"]["turn"] == 2
    # A replay takes the player too.
    done = new_game(java_client, seed=3, moves=list(range(25)))
    assert _wait(java_client, f"/api/games/{done['id']}/replay", {"agent": "java-FirstEmptyPlayer"}).status_code == 200
    r = _wait(java_client, f"/api/games/{second['id']}/agent-move", move)
    assert r.status_code == 409 and "started another game" in r.json()["detail"]
