"""An agent plays a deal once for the server's life: the daily deal's result shows every
student the same agent scores, and a reload or a second Replay the same game."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from pokersquares import AMERICAN, Game  # noqa: E402
from pokersquares.harness.player import BasePlayer  # noqa: E402
from pokersquares.web import create_app  # noqa: E402
from pokersquares.web.agents import AgentError, AgentPool, AgentSpec  # noqa: E402


class _Restless(BasePlayer):
    """Plays each game differently from the last (as a search on a clock may): the k-th
    game it starts fills the cells from ``k`` on, in order; counts its games."""

    name = "restless"
    games = 0
    fail_next = 0  # games that raise at their first card
    pause_s = 0.0
    lock = threading.Lock()

    def start_game(self) -> None:
        super().start_game()
        with _Restless.lock:
            self.k = _Restless.games
            _Restless.games += 1
            self.failing = _Restless.fail_next > 0
            _Restless.fail_next -= self.failing
        self.placed = 0

    def choose(self, grid, card, seconds_left):
        if self.failing:
            raise RuntimeError("a bug on the first card")
        time.sleep(_Restless.pause_s)
        cell = (self.k + self.placed) % 25
        self.placed += 1
        return cell


@pytest.fixture(autouse=True)
def _fresh_counts():
    _Restless.games, _Restless.fail_next, _Restless.pause_s = 0, 0, 0.0


def _finished_game(client, seed: int) -> dict:
    view = client.post("/api/games", json={"system": "american", "seed": seed}).json()
    for turn in range(25):
        r = client.post(f"/api/games/{view['id']}/place", json={"cell": turn, "turn": turn})
        assert r.status_code == 200, r.text
    return r.json()


def _replay(client, game: dict) -> dict:
    for _ in range(100):  # a 202 while it prepares: asked again, as the page does
        r = client.post(f"/api/games/{game['id']}/replay", json={"agent": "restless"})
        if r.status_code != 202:
            break
        time.sleep(0.05)
    assert r.status_code == 200, r.text
    return r.json()


def _app():
    return create_app(agents={"restless": AgentSpec(_Restless, "plays each game differently")},
                      prep_s=0.2, think_s=1.0, game_s=5.0)


def test_two_students_on_one_deal_see_the_agent_play_it_the_same_way():
    with TestClient(_app(), base_url="http://127.0.0.1") as client:
        ada, bob = _finished_game(client, 7), _finished_game(client, 7)  # the daily deal, two students
        first, second = _replay(client, ada), _replay(client, bob)
        again = _replay(client, ada)  # a reload of the result
        assert first["agent_steps"] == second["agent_steps"] == again["agent_steps"]
        assert first["agent_score"] == second["agent_score"] == again["agent_score"]
        assert _Restless.games == 1
        other = _replay(client, _finished_game(client, 8))  # another deal is played
        assert _Restless.games == 2
        deal = Game.from_seed(8, AMERICAN)
        for cell in [(1 + t) % 25 for t in range(25)]:  # its second game: from cell 1 on
            deal.play(*divmod(cell, 5))
        assert other["agent_score"] == deal.score()


@pytest.fixture
def pool():
    pool = AgentPool({"restless": AgentSpec(_Restless, "plays each game differently")},
                     prep_s=0.2, think_s=1.0, game_s=5.0, wait_s=5.0)
    yield pool
    pool.close()


def _at_once(pool, seed: int, requests: int) -> list:
    """``requests`` pages asking at once for the agent's game of ``seed``'s deal: each
    one's moves, or its failure."""
    deck = list(Game.from_seed(seed, AMERICAN).deck)

    async def asked():
        return await asyncio.gather(*(pool.play_deal("restless", AMERICAN, deck, seed, client=f"c{k}")
                                      for k in range(requests)), return_exceptions=True)

    return asyncio.run(asked())


def test_a_deal_asked_for_while_it_is_played_waits_for_that_game(pool):
    _Restless.pause_s = 0.01
    games = _at_once(pool, 3, 3)
    assert games[0] == games[1] == games[2] and _Restless.games == 1


def test_a_failed_game_is_not_kept_the_next_request_plays_it(pool):
    _Restless.fail_next = 1
    [failed] = _at_once(pool, 4, 1)
    assert isinstance(failed, AgentError) and "a bug on the first card" in str(failed)
    [moves] = _at_once(pool, 4, 1)
    assert sorted(moves) == list(range(25)) and _Restless.games == 2


def test_a_request_waiting_on_a_game_that_fails_plays_the_deal_itself(pool):
    _Restless.fail_next = 1
    failed, played = _at_once(pool, 5, 2)
    assert isinstance(failed, AgentError) and "a bug on the first card" in str(failed)
    assert sorted(played) == list(range(25)) and _Restless.games == 2
