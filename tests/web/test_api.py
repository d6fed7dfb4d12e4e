"""The web app's JSON API through FastAPI's TestClient: games, validation, advice,
watching, replays and the limits on agents."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from pokersquares import AMERICAN, BRITISH, Game, card_name, parse_card, parse_point_system  # noqa: E402
from pokersquares.game import cell_of  # noqa: E402
from pokersquares.harness.player import BasePlayer  # noqa: E402
from pokersquares.players import GreedyPlayer  # noqa: E402
from pokersquares.web import create_app  # noqa: E402
from pokersquares.web.agents import AgentSpec, registered_agents  # noqa: E402


def local_client(app):
    """A client that calls the app by its loopback address (the only names it answers to)."""
    return TestClient(app, base_url="http://127.0.0.1")


@pytest.fixture
def client():
    with local_client(create_app(prep_s=1.0, think_s=1.0, game_s=5.0)) as c:
        yield c


def new_game(client, system="american", seed=3, **extra):
    r = client.post("/api/games", json={"system": system, "seed": seed, **extra})
    assert r.status_code == 201, r.text
    return r.json()


def place(client, game, cell):
    r = client.post(f"/api/games/{game['id']}/place", json={"cell": cell, "turn": game["turn"]})
    assert r.status_code == 200, r.text
    return r.json()


def greedy_game(seed, system=AMERICAN) -> Game:
    game, player = Game.from_seed(seed, system), GreedyPlayer()
    player.set_point_system(system, 0)
    player.start_game()
    for card in game:
        game.play(*player.get_play(card, 10.0))
    return game


# -- games ------------------------------------------------------------------------------

def test_page_and_static_files_are_served(client):
    r = client.get("/")
    assert r.status_code == 200 and "/static/app.js?v=" in r.text
    for name in ("app.js", "app.css"):
        assert client.get(f"/static/{name}").status_code == 200


def test_the_page_names_its_static_files_anew_when_any_of_them_changes(tmp_path, monkeypatch):
    """The page asks for its scripts and style with a stamp, so that a browser never
    runs a cached old script against a newer server: changing any one file (here the
    style, not a script) changes the stamp of every script the page names."""
    import os
    import re
    import shutil

    import pokersquares.web.app as web_app

    static = tmp_path / "static"
    shutil.copytree(web_app.STATIC_DIR, static)
    for i, path in enumerate(sorted(static.iterdir())):
        os.utime(path, (1_700_000_000 + i, 1_700_000_000 + i))
    monkeypatch.setattr(web_app, "STATIC_DIR", static)

    def stamps():
        with local_client(create_app(agents={})) as c:
            page = c.get("/").text
        found = dict(re.findall(r'/static/([\w.-]+\.(?:js|css))\?v=(\d+)"', page))
        assert "app.js" in found and "app.css" in found, page[:300]
        return found

    before = stamps()
    assert set(before.values()) == {str(1_700_000_000 + len(list(static.iterdir())) - 1)}
    os.utime(static / "app.css", (1_800_000_000, 1_800_000_000))
    assert set(stamps().values()) == {"1800000000"}


def test_config_offers_registered_agents_only(client):
    config = client.get("/api/config").json()
    names = [a["name"] for a in config["agents"]]
    assert names == list(registered_agents())
    assert {"greedy", "random"} <= set(names)
    assert len(config["hands"]) == 10
    notes = {a["name"]: a["values"] for a in config["agents"]}
    assert "estimate of the final score" in notes["greedy"] and "one-ply rule" in notes["greedy"]
    assert notes["tiger"] == "tiger's estimate of the final score if the card goes in that cell"


def test_a_full_game_scores_as_the_library_does(client):
    view = new_game(client, "british", seed=11)
    reference = Game.from_seed(11, BRITISH)
    assert view["seed"] == 11 and view["system"]["points"] == list(BRITISH.points)
    order = [(7 * k) % 25 for k in range(25)]  # visits every cell
    for cell in order:
        assert view["card"] == card_name(reference.next_card)
        reference.play(*cell_of(cell))
        view = place(client, view, cell)
    assert view["done"] and view["card"] is None and view["turn"] == 25
    assert view["score"] == reference.score()
    assert [line["points"] for line in view["lines"]] == reference.grid.hand_scores(BRITISH)
    assert [line["hand_id"] for line in view["lines"]] == [int(h) for h in reference.grid.hand_ids()]
    assert sum(h["total"] for h in view["hand_table"]) == view["score"]
    assert sum(h["count"] for h in view["hand_table"]) == 10
    assert view["moves"] == order
    assert client.get(f"/api/games/{view['id']}").json() == view


def test_the_page_never_sees_cards_not_yet_dealt(client):
    view = new_game(client)
    for cell in range(5):
        view = place(client, view, cell)
    shown = {c for c in view["cells"] if c} | {view["card"]}
    assert len(shown) == 6
    assert "deck" not in view and "deal" not in view
    text = str(view)
    undealt = Game.from_seed(3, AMERICAN).deck[6:]
    assert not any(f"'{card_name(c)}'" in text for c in undealt)


def test_random_deal_gets_a_seed_that_replays_it(client):
    view = new_game(client, seed=None)
    again = new_game(client, seed=view["seed"])
    assert view["id"] != again["id"] and view["card"] == again["card"]
    assert view["seed_text"] == str(view["seed"])


def test_a_game_is_rebuilt_from_its_seed_and_moves(client):
    view = new_game(client, "ameritish:5", seed=9)
    for cell in (12, 0, 24, 3):
        view = place(client, view, cell)
    rebuilt = new_game(client, "ameritish:5", seed=9, moves=view["moves"])
    assert rebuilt["id"] != view["id"]
    for key in ("cells", "card", "turn", "score", "lines", "system", "seed"):
        assert rebuilt[key] == view[key]


def test_games_do_not_interfere(client):
    a, b = new_game(client, seed=1), new_game(client, "british", seed=2)
    ref_a, ref_b = Game.from_seed(1, AMERICAN), Game.from_seed(2, BRITISH)
    for k in range(25):
        a = place(client, a, k)
        b = place(client, b, 24 - k)
        ref_a.play(*cell_of(k))
        ref_b.play(*cell_of(24 - k))
    assert a["score"] == ref_a.score() and b["score"] == ref_b.score()


def test_games_played_at_once_from_threads_keep_apart():
    app = create_app()
    scores, errors = {}, []

    def play(seed):
        try:
            with local_client(app) as c:
                view = new_game(c, seed=seed)
                for cell in range(25):
                    view = place(c, view, cell)
                scores[seed] = view["score"]
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=play, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for seed, score in scores.items():
        ref = Game.from_seed(seed, AMERICAN)
        for cell in range(25):
            ref.play(*cell_of(cell))
        assert score == ref.score()
    assert len(scores) == 4


def test_least_recently_used_game_is_dropped():
    with local_client(create_app(max_games=3)) as c:
        g1, g2, g3 = (new_game(c, seed=s) for s in (1, 2, 3))
        assert c.get(f"/api/games/{g1['id']}").status_code == 200  # g1 is now the most recent
        new_game(c, seed=4)
        assert c.get(f"/api/games/{g2['id']}").status_code == 404
        for g in (g1, g3):
            assert c.get(f"/api/games/{g['id']}").status_code == 200


# -- validation ---------------------------------------------------------------------------

@pytest.mark.parametrize("body, status, words", [
    ({"system": "bogus"}, 400, "unknown point system"),
    ({"system": "1,2,3"}, 400, "10 comma-separated"),
    ({"system": "ameritish"}, 400, "needs a seed"),
    ({"system": "single:nothing"}, 400, "unknown hand"),
    ({"system": ""}, 422, "system"),
    ({"system": "american", "seed": "x"}, 422, "seed"),
    ({"system": "american", "seed": 2 ** 63}, 422, "seed"),
    ({"system": "american", "seed": 1.5}, 422, "seed"),
    ({"system": "american", "moves": [0, 0]}, 400, "already holds"),
    ({"system": "american", "moves": [25]}, 422, "moves.0: Input should be less than or equal to 24"),
    ({"system": "american", "moves": [3, -1]}, 422, "moves.1: Input should be greater than or equal to 0"),
    ({"system": "american", "moves": list(range(26))}, 422, "moves"),
    ({"system": "american", "player": "x"}, 422, "player"),
])
def test_bad_new_games_are_refused_with_a_clear_message(client, body, status, words):
    r = client.post("/api/games", json=body)
    assert r.status_code == status
    assert words in r.json()["detail"]


def test_custom_and_generated_systems(client):
    custom = new_game(client, "1,2,3,4,5,6,7,8,9,10")
    assert custom["system"]["points"] == list(range(1, 11))
    single = new_game(client, "single:full_house")
    assert single["system"]["points"] == list(parse_point_system("single:full_house").points)
    r = client.get("/api/systems", params={"spec": "random:7"})
    assert r.status_code == 200 and r.json()["points"] == list(parse_point_system("random:7").points)
    assert client.get("/api/systems", params={"spec": "nope"}).status_code == 400


def test_bad_placements_are_refused(client):
    view = new_game(client)
    gid = view["id"]
    for body, status in [({"cell": 25}, 422), ({"cell": -1}, 422), ({"cell": "a"}, 422), ({}, 422),
                         ({"cell": 1, "turn": 5}, 409), ({"cell": 1, "extra": 1}, 422)]:
        r = client.post(f"/api/games/{gid}/place", json=body)
        assert r.status_code == status, body
        assert r.json()["detail"]
    view = place(client, view, 6)
    r = client.post(f"/api/games/{gid}/place", json={"cell": 6})
    assert r.status_code == 400 and "already holds" in r.json()["detail"]
    assert client.get(f"/api/games/{gid}").json()["turn"] == 1  # nothing changed
    assert client.get("/api/games/unknown-game-id").status_code == 404
    assert client.get("/api/games/x").status_code == 422
    assert client.post("/api/games/unknown-game-id/place", json={"cell": 1}).status_code == 404


def test_a_finished_game_takes_no_more_cards(client):
    view = new_game(client)
    for cell in range(25):
        view = place(client, view, cell)
    r = client.post(f"/api/games/{view['id']}/place", json={"cell": 0})
    assert r.status_code == 409 and "over" in r.json()["detail"]
    r = client.post(f"/api/games/{view['id']}/hint", json={"agent": "greedy"})
    assert r.status_code == 409


# -- advice, watching, replays ---------------------------------------------------------------

def _hint_at_the_fifth_card(client, agent, seconds):
    """A game of seed 5 with four cards placed, and ``agent``'s hint on its fifth card,
    whose values are estimates of the final score in exactly the empty cells."""
    view = new_game(client, seed=5)
    for cell in (0, 1, 7, 13):
        view = place(client, view, cell)
    # Run alone, a test may be the first to ask the agent: 202 while its kernels load.
    while (r := client.post(f"/api/games/{view['id']}/hint",
                            json={"agent": agent, "seconds": seconds, "turn": view["turn"]})).status_code == 202:
        time.sleep(0.2)
    assert r.status_code == 200, r.text
    hint = r.json()
    assert hint["turn"] == view["turn"]
    for i, v in enumerate(hint["values"]):
        assert (v is None) == (view["cells"][i] is not None)
    # Estimates of the final score (greedy scores about 81 on American), not one-ply gains.
    assert 30 < max(v for v in hint["values"] if v is not None) < 200
    return view, hint


def test_greedy_hint_shows_its_estimates_and_its_own_choice(client):
    view, hint = _hint_at_the_fifth_card(client, "greedy", 0.5)
    player = GreedyPlayer()
    player.set_point_system(AMERICAN, 0)
    grid = np.array([-1 if c is None else parse_card(c) for c in view["cells"]], dtype=np.int8)
    card = parse_card(view["card"])
    # The choice is greedy's own one-ply move, as Watch plays it.
    assert hint["choice"] == player.choose(grid, card, 1.0)
    # Asking is not playing.
    assert client.get(f"/api/games/{view['id']}").json()["turn"] == view["turn"]


def test_greedy_mc_hint_is_the_best_of_its_estimates(client):
    _, hint = _hint_at_the_fifth_card(client, "greedy_mc", 0.3)
    values = hint["values"]
    # No rule of its own to say: its choice is the cell of its highest estimate.
    assert values[hint["choice"]] == max(v for v in values if v is not None)


def test_an_agent_without_estimates_still_gives_its_choice(client):
    view = new_game(client)
    view = place(client, view, 0)
    hint = client.post(f"/api/games/{view['id']}/hint", json={"agent": "random"}).json()
    assert all(v is None for v in hint["values"])
    assert view["cells"][hint["choice"]] is None


@pytest.mark.parametrize("body, status", [
    ({"agent": "nobody"}, 400),
    ({"agent": "pokersquares.players.baseline:GreedyPlayer"}, 422),
    ({"agent": "os.path:join"}, 422),
    ({"agent": "greedy:flush_weight=9"}, 422),
    ({"agent": "greedy", "seconds": 0}, 422),
    ({"agent": "greedy", "seconds": 5}, 400),
    ({"agent": "greedy", "seconds": 1, "turn": 3}, 409),
    ({"seconds": 1}, 422),
])
def test_only_registered_agents_within_the_time_limit(client, body, status):
    view = new_game(client)
    r = client.post(f"/api/games/{view['id']}/hint", json=body)
    assert r.status_code == status, r.text
    assert r.json()["detail"]
    if status == 409:  # what to do, as a placement's conflict says it
        assert r.json()["detail"].endswith("but the game is at turn 0 (played from another tab?); reload to see the game")


def test_watching_greedy_plays_greedys_game(client):
    view = new_game(client, seed=21)
    for turn in range(25):
        # 202 while greedy's kernels load (a cold numba cache, this test run alone)
        while (r := client.post(f"/api/games/{view['id']}/agent-move",
                                json={"agent": "greedy", "seconds": 0.2, "turn": turn})).status_code == 202:
            time.sleep(0.2)
        assert r.status_code == 200, r.text
        step = r.json()
        assert step["game"]["turn"] == turn + 1 and step["game"]["last_cell"] == step["choice"]
    assert step["game"]["done"]
    assert step["game"]["score"] == greedy_game(21).score()


def test_replay_puts_the_agent_beside_the_player(client):
    view = new_game(client, seed=8)
    r = client.post(f"/api/games/{view['id']}/replay", json={"agent": "greedy"})
    assert r.status_code == 409  # not finished
    for cell in range(25):
        view = place(client, view, cell)
    # 202 while greedy's kernels load (a cold numba cache, this test run alone)
    while (r := client.post(f"/api/games/{view['id']}/replay", json={"agent": "greedy"})).status_code == 202:
        time.sleep(0.2)
    assert r.status_code == 200, r.text
    replay = r.json()
    assert len(replay["player"]) == len(replay["agent_steps"]) == 26
    assert [step["turn"] for step in replay["player"]] == [step["turn"] for step in replay["agent_steps"]] == list(range(26))
    assert replay["player_score"] == view["score"] and replay["player"][-1]["cells"] == view["cells"]
    assert replay["agent_score"] == greedy_game(8).score()
    for k in range(1, 26):
        you, agent = replay["player"][k], replay["agent_steps"][k]
        assert you["card"] == agent["card"]  # the same deal, card by card
        assert sum(c is not None for c in agent["cells"]) == k
        assert agent["cells"][agent["last_cell"]] == agent["card"]


def test_review_judges_each_move_of_a_finished_game_by_the_agents_evaluation(client):
    view = new_game(client, seed=8)
    r = client.post(f"/api/games/{view['id']}/review", json={"agent": "gettysburg"})
    assert r.status_code == 409 and "finish the game" in r.json()["detail"]
    for cell in range(25):
        view = place(client, view, cell)
    r = client.post(f"/api/games/{view['id']}/review", json={"agent": "greedy"})
    assert r.status_code == 400 and "greedy cannot coach a review" in r.json()["detail"]
    deadline = time.monotonic() + 120  # run alone, the first to ask compiles the agent's kernels
    while (r := client.post(f"/api/games/{view['id']}/review", json={"agent": "gettysburg"})).status_code == 202:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert r.status_code == 200, r.text
    review = r.json()
    assert review["agent"] == "gettysburg" and review["score"] == view["score"] and review["seed"] == 8
    moves = review["moves"]
    assert [m["turn"] for m in moves] == list(range(1, 26)) and [m["cell"] for m in moves] == list(range(25))
    assert [card_name(m["card"]) for m in moves] == [card_name(c) for c in Game.from_seed(8, AMERICAN).deck[:25]]
    assert all(m["loss"] >= 0 and m["best_value"] >= m["value"] - 1e-9 for m in moves)
    assert [m["exact"] for m in moves] == [False] * 21 + [True] * 4
    assert moves[-1]["value"] == view["score"] and review["agreed"] == sum(m["loss"] == 0 for m in moves)
    # Each move with every empty cell's value and the grid it was made on.
    steps = review["steps"]
    assert len(steps) == 26 and steps[-1]["cells"] == view["cells"]
    for m in moves:
        before = steps[m["turn"] - 1]["cells"]
        assert [v is None for v in m["values"]] == [c is not None for c in before]
        assert m["values"][m["cell"]] == m["value"] and m["values"][m["best"]] == m["best_value"]


def _review_of_a_finished_game(client, seed, agent, wait_s):
    """Fill the grid in cell order on the deal of ``seed``, then ask ``agent`` for a review
    until it is prepared (202 while it is). Returns the finished game's view and the answer."""
    view = new_game(client, seed=seed)
    for cell in range(25):
        view = place(client, view, cell)
    deadline = time.monotonic() + wait_s
    while (r := client.post(f"/api/games/{view['id']}/review", json={"agent": agent})).status_code == 202:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    return view, r


def test_pretrained_reviews_american_games_with_its_prior_not_a_seconds_learning(client):
    """The page's agents get 1 s of preparation here; ``pretrained`` judges an American
    game by its shipped prior all the same (the values are the prior's, both ways round)."""
    from pokersquares.evaluators.td import TdEvaluator
    from pokersquares.priors import shipped_priors
    from pokersquares.review import either_way_round

    _, r = _review_of_a_finished_game(client, 9, "pretrained", 120)
    assert r.status_code == 200, r.text
    prior = TdEvaluator(threads=1).load(shipped_priors()[tuple(AMERICAN.points)].path)
    values = either_way_round(prior.placement_values)
    for m in r.json()["moves"][:20]:  # before the exact end game
        before = np.array([-1 if c is None else parse_card(c) for c in r.json()["steps"][m["turn"] - 1]["cells"]],
                          dtype=np.int8)
        expected = values(before, m["card"])
        assert [v for v in m["values"] if v is not None] == pytest.approx(expected[np.isfinite(expected)].tolist(), abs=1e-3)


# -- preparation and time limits, with agents made for the test ------------------------------

class _SlowToLearn(BasePlayer):
    prepared = 0

    def prepare(self, budget_s: float) -> None:
        type(self).prepared += 1
        time.sleep(min(budget_s, 1.0))

    def choose(self, grid, card, seconds_left):
        return int(np.flatnonzero(grid == -1)[-1])


class _Overthinker(BasePlayer):
    def cell_values(self, grid, card, seconds):
        time.sleep(seconds + 3.0)
        return np.zeros(25)

    def choose(self, grid, card, seconds_left):
        return 0


class _Thinker(BasePlayer):
    """Uses all of its thinking time, on the CPU (holding the GIL as pure Python does)."""

    def cell_values(self, grid, card, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            sum(range(1000))
        return np.where(grid == -1, 1.0, np.nan)

    def choose(self, grid, card, seconds_left):
        return 0


class _Cheat(BasePlayer):
    def choose(self, grid, card, seconds_left):
        return 0  # even when occupied


class _ColdStart(BasePlayer):
    """Slow on its first advice only, like kernels compiled on first use."""

    def __init__(self):
        super().__init__()
        self.calls = 0

    def cell_values(self, grid, card, seconds):
        self.calls += 1
        if self.calls == 1:
            time.sleep(1.5)
        return np.where(grid == -1, 1.0, np.nan)

    def choose(self, grid, card, seconds_left):
        return int(np.flatnonzero(grid == -1)[0])


def _unbuildable():
    raise OSError("table file missing")


class _Broken(BasePlayer):
    def prepare(self, budget_s):
        raise RuntimeError("no table")


def _app(**kw):
    agents = {"slow": AgentSpec(_SlowToLearn, "learns for a second"),
              "overthinker": AgentSpec(_Overthinker, "never on time"),
              "thinker": AgentSpec(_Thinker, "thinks for its whole time"),
              "cheat": AgentSpec(_Cheat, "plays occupied cells"),
              "broken": AgentSpec(_Broken, "cannot prepare"),
              "cold": AgentSpec(_ColdStart, "slow first call"),
              "unbuildable": AgentSpec(_unbuildable, "cannot be built")}
    return create_app(agents=agents, **kw)


def test_an_agent_prepares_once_per_point_system_and_the_page_is_told():
    _SlowToLearn.prepared = 0
    with local_client(_app(prep_s=1.0, think_s=0.5)) as c:
        view = new_game(c)
        r = c.post(f"/api/games/{view['id']}/hint", json={"agent": "slow", "seconds": 0.1})
        assert r.status_code == 202
        assert r.json()["status"] == "preparing" and r.json()["budget"] == 1.0
        deadline = time.monotonic() + 10
        while r.status_code == 202 and time.monotonic() < deadline:
            time.sleep(0.2)
            r = c.post(f"/api/games/{view['id']}/hint", json={"agent": "slow", "seconds": 0.1})
        assert r.status_code == 200 and r.json()["choice"] == 24
        other = new_game(c, seed=4)
        assert c.post(f"/api/games/{other['id']}/hint", json={"agent": "slow", "seconds": 0.1}).status_code == 200
        assert _SlowToLearn.prepared == 1
        british = new_game(c, "british")
        assert c.post(f"/api/games/{british['id']}/hint", json={"agent": "slow", "seconds": 0.1}).status_code == 202


def test_thinking_is_bounded_in_time():
    with local_client(_app(think_s=0.2)) as c:
        view = new_game(c)
        while True:  # the agent's warm-up in preparation overthinks too
            t = time.monotonic()
            r = c.post(f"/api/games/{view['id']}/hint", json={"agent": "overthinker", "seconds": 0.2})
            if r.status_code != 202:
                break
            time.sleep(0.2)
        assert r.status_code == 504 and "within" in r.json()["detail"]
        assert time.monotonic() - t < 2.5


def test_misbehaving_agents_are_reported_not_played():
    with local_client(_app()) as c:
        view = place(c, new_game(c), 0)
        r = c.post(f"/api/games/{view['id']}/agent-move", json={"agent": "cheat", "seconds": 0.1})
        assert r.status_code == 500 and "not an empty cell" in r.json()["detail"]
        assert c.get(f"/api/games/{view['id']}").json()["turn"] == 1
        r = c.post(f"/api/games/{view['id']}/hint", json={"agent": "broken", "seconds": 0.1})
        deadline = time.monotonic() + 5
        while r.status_code == 202 and time.monotonic() < deadline:
            time.sleep(0.1)
            r = c.post(f"/api/games/{view['id']}/hint", json={"agent": "broken", "seconds": 0.1})
        assert r.status_code == 500 and "no table" in r.json()["detail"]


# -- results ------------------------------------------------------------------------------------

def test_results_list_runs_and_tournaments(result_store):
    from pokersquares.harness.store import ResultStore

    with local_client(create_app(store_path=result_store)) as c:
        index = c.get("/api/results").json()
        assert index["available"]
        assert len(index["runs"]) == 5 and len(index["tournaments"]) == 1
        assert index["tournaments"][0]["system_names"] == ["American", "British"]
        solo = [r for r in index["runs"] if r["tournament_id"] is None][0]
        detail = c.get(f"/api/results/runs/{solo['run_id']}").json()
        with ResultStore(result_store, readonly=True) as store:
            scores = [g.score for g in store.games(solo["run_id"])]
        assert detail["scores"] == scores
        assert detail["summary"]["mean"] == pytest.approx(sum(scores) / len(scores))
        assert detail["summary"]["max"] == max(scores) == detail["best"]["score"]
        assert sum(c is not None for c in detail["best"]["cells"]) == 25
        hands = detail["hands"]  # where the mean comes from, by hand type (compare --hands)
        assert hands["games"] == len(scores) and hands["mean"] == pytest.approx(detail["summary"]["mean"])
        assert sum(h["lines_per_game"] for h in hands["hands"]) == pytest.approx(10)
        assert sum(h["points_per_game"] for h in hands["hands"]) == pytest.approx(hands["mean"])
        assert c.get("/api/results/runs/999").status_code == 404
        assert c.get("/api/results/runs/0").status_code == 422


def test_results_give_long_seeds_as_text(long_seed_store):
    # A run may be dealt from any long; the page showed r.seed + r.games - 1 computed in
    # JavaScript, which rounds past 2**53 (4611686018427387909 shown as ...904).
    from .conftest import LONG_SEED

    with local_client(create_app(store_path=long_seed_store)) as c:
        run_id = c.get("/api/results").json()["runs"][0]["run_id"]
        detail = c.get(f"/api/results/runs/{run_id}").json()
        assert detail["run"]["seed_text"] == str(LONG_SEED) and detail["run"]["last_seed_text"] == str(LONG_SEED + 1)
        assert detail["best"]["seed_text"] in (str(LONG_SEED), str(LONG_SEED + 1))
        assert c.get("/api/results/tournaments/1").json()["seed_text"] == str(LONG_SEED)


def test_tournament_table_is_the_contests(result_store):
    with local_client(create_app(store_path=result_store)) as c:
        t = c.get("/api/results/tournaments/1").json()
        assert t["complete"] and t["players"] == ["random", "greedy"]
        for s in t["systems"]:
            totals = {p: sum(t["cells"][s][p]["scores"]) for p in t["players"]}
            assert totals == t["totals"][s]
            lo, hi = min(totals.values()), max(totals.values())
            for p in t["players"]:
                assert t["normalized"][s][p] == pytest.approx(1.0 if hi == lo else (totals[p] - lo) / (hi - lo))
        assert t["ranking"][0] == max(t["players"], key=lambda p: t["scores"][p])
        for s in t["systems"]:  # each system's first and the paired differences to it
            first = t["behind_first"][s]["first"]
            assert t["totals"][s][first] == max(t["totals"][s].values())
            for p in t["players"]:
                diffs = [a - b for a, b in zip(t["cells"][s][p]["scores"], t["cells"][s][first]["scores"])]
                assert t["behind_first"][s]["players"][p]["diff"] == pytest.approx(sum(diffs) / len(diffs))
        assert c.get("/api/results/tournaments/7").status_code == 404


def test_results_without_a_store(tmp_path):
    with local_client(create_app(store_path=tmp_path / "none.sqlite")) as c:
        assert c.get("/api/config").json()["results"] is True  # a store is named (made or not)
        index = c.get("/api/results").json()
        assert not index["available"] and "no result store" in index["detail"]
        assert "finish a game on the Play tab" in index["detail"]
        assert c.get("/api/results/runs/1").status_code == 404
    with local_client(create_app()) as c:
        assert not c.get("/api/results").json()["available"]
        assert c.get("/api/config").json()["results"] is False  # no store named
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")  # what SQLite leaves of a store not made yet
    with local_client(create_app(store_path=empty)) as c:
        index = c.get("/api/results").json()
        assert not index["available"] and "no result store" in index["detail"]
    assert empty.read_bytes() == b""


def test_first_use_costs_are_paid_while_preparing():
    with local_client(_app(think_s=0.3)) as c:
        view = new_game(c)
        for _ in range(50):
            r = c.post(f"/api/games/{view['id']}/hint", json={"agent": "cold", "seconds": 0.3})
            if r.status_code != 202:
                break
            time.sleep(0.1)
        assert r.status_code == 200 and r.json()["choice"] == 0


def test_an_agent_that_cannot_be_built_is_reported():
    with local_client(_app()) as c:
        view = new_game(c)
        r = c.post(f"/api/games/{view['id']}/hint", json={"agent": "unbuildable", "seconds": 0.1})
        assert r.status_code == 500 and "table file missing" in r.json()["detail"]


# -- strict input, limits on what a request may ask ------------------------------------------

@pytest.mark.parametrize("body, words", [
    ({"cell": True}, "cell"),
    ({"cell": 1.0}, "cell"),
    ({"cell": "1"}, "cell"),
    ({"cell": 1, "turn": False}, "turn"),
])
def test_placements_take_integers_only(client, body, words):
    view = new_game(client)
    r = client.post(f"/api/games/{view['id']}/place", json=body)
    assert r.status_code == 422 and words in r.json()["detail"]
    assert client.get(f"/api/games/{view['id']}").json()["turn"] == 0


@pytest.mark.parametrize("seed", ["12", True, 12.0, 10 ** 19, 2 ** 63, -(2 ** 63) - 1])
def test_seeds_are_integers_in_range_and_say_so(client, seed):
    r = client.post("/api/games", json={"system": "american", "seed": seed})
    assert r.status_code == 422
    assert r.json()["detail"] == "seed: a deal seed is a whole number from -9223372036854775808 to 9223372036854775807"


def test_extreme_seeds_are_dealt(client):
    for seed in (2 ** 63 - 1, -(2 ** 63)):
        assert new_game(client, seed=seed)["seed_text"] == str(seed)


@pytest.mark.parametrize("spec, words", [
    ("0,0,0,0,0,0,0,0,0,200", "royal flush: 200 is outside -128..127"),
    ("-129,0,0,0,0,0,0,0,0,0", "high card: -129 is outside -128..127"),
])
def test_custom_points_out_of_range_are_refused_not_clamped(client, spec, words):
    r = client.get("/api/systems", params={"spec": spec})
    assert r.status_code == 400 and words in r.json()["detail"]
    r = client.post("/api/games", json={"system": spec})
    assert r.status_code == 400 and words in r.json()["detail"]
    assert client.get("/api/systems", params={"spec": "-128,0,0,0,0,0,0,0,0,127"}).json()["points"][9] == 127


@pytest.mark.parametrize("system", ["random:7", "-128,0,0,0,0,0,0,0,0,0", "american"])
def test_the_running_score_counts_only_lines_with_cards(client, system):
    view = new_game(client, system)
    points = view["system"]["points"]
    assert view["score"] == 0 and all(line["points"] == 0 and line["hand"] is None for line in view["lines"])
    assert sum(h["count"] for h in view["hand_table"]) == 0
    view = place(client, view, 12)  # one card: its row and its column hold high card
    assert view["score"] == 2 * points[0]
    assert [line["cards"] for line in view["lines"]].count(1) == 2
    assert sum(h["count"] for h in view["hand_table"]) == 2


def test_request_bodies_are_limited(client):
    big = b'{"system": "american", "moves": [' + b"0, " * 400_000 + b"0]}"
    r = client.post("/api/games", content=big, headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and "limit" in r.json()["detail"]

    def chunks():  # no Content-Length: counted as it arrives
        yield b'{"system": "american", "moves": ['
        for _ in range(100):
            yield b"0, " * 1000
        yield b"0]}"
    r = client.post("/api/games", content=chunks(), headers={"Content-Type": "application/json"})
    assert r.status_code == 413
    assert client.post("/api/games", json={"system": "american"}).status_code == 201


def _through_body_limit(max_bytes, chunks, content_length=None):
    """A request sent through ``BodyLimit`` to an app that echoes the body it reads:
    (status, body). ``chunks``: the pieces the server receives (no Content-Length unless
    given, as a chunked upload); TestClient reads a body whole, so the ASGI calls are
    made here."""
    import asyncio

    from pokersquares.web.guards import BodyLimit

    async def echo(scope, receive, send):
        body, more = b"", True
        while more:
            msg = await receive()
            body, more = body + msg.get("body", b""), msg.get("more_body", False)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": body})

    pieces = [{"type": "http.request", "body": c, "more_body": i < len(chunks) - 1} for i, c in enumerate(chunks)]
    sent = []

    async def receive():
        return pieces.pop(0) if pieces else {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    headers = [] if content_length is None else [(b"content-length", content_length)]
    asyncio.run(BodyLimit(echo, max_bytes=max_bytes)({"type": "http", "headers": headers}, receive, send))
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])


def test_bodies_up_to_the_limit_are_read_whole_and_one_byte_more_is_refused():
    """The limit is the largest body taken: a body of exactly that many bytes is
    answered, given by its Content-Length or sent in chunks (handed on whole, every
    chunk of it); one byte more is a 413; a Content-Length that is not a number a 400."""
    assert _through_body_limit(100, [b"x" * 100], b"100") == (200, b"x" * 100)
    assert _through_body_limit(100, [b"x" * 101], b"101")[0] == 413
    assert _through_body_limit(100, [b"ab", b"cd" * 20, b"e" * 58]) == (200, b"ab" + b"cd" * 20 + b"e" * 58)
    assert _through_body_limit(100, [b"x" * 40, b"x" * 40, b"x" * 21])[0] == 413
    status, body = _through_body_limit(100, [b"{}"], b"2x")
    assert status == 400 and b"Content-Length header is not a number" in body


def test_only_the_servers_own_host_names_are_answered():
    app = create_app()
    for host, status in [("127.0.0.1:8000", 200), ("localhost", 200), ("[::1]:8000", 200),
                         ("evil.example", 421), ("evil.example:8000", 421), ("127.0.0.1.evil.example", 421), ("", 421)]:
        with TestClient(app, base_url="http://127.0.0.1") as c:
            r = c.get("/api/config", headers={"Host": host})
            assert r.status_code == status, host
    with TestClient(create_app(hosts=["poker.lan"]), base_url="http://poker.lan") as c:
        assert c.get("/api/config").status_code == 200
        assert c.get("/api/config", headers={"Host": "localhost"}).status_code == 421


def _statuses(hosts, headers):
    app = create_app(hosts=hosts)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        return {h: c.get("/api/config", headers={"Host": h}).status_code for h in headers}


_HOST_HEADERS = ["localhost:8000", "127.0.0.1:8000", "[::1]:8000", "192.168.1.20:8000", "192.168.1.20",
                 "[fe80::1]:8000", "myhost.lan:8000", "MyHost.LAN", "evil.example", "evil.example:8000",
                 "192.168.1.20.evil.example", ""]


@pytest.mark.parametrize("bind", ["0.0.0.0", "::", "[::]"])
def test_naming_hosts_of_a_server_on_all_interfaces_keeps_it_answering_to_its_addresses(bind):
    """Bound to all interfaces the server answers to any name; given --allow-host names,
    it answers to those, the loopback names and any of its IP addresses (a phone opening
    http://192.168.1.20:8000 is still answered), to no other name."""
    from pokersquares.web.guards import allowed_hosts

    assert set(_statuses(allowed_hosts(bind), _HOST_HEADERS).values()) == {200}
    named = _statuses(allowed_hosts(bind, ["myhost.lan"]), _HOST_HEADERS)
    refused = {"evil.example", "evil.example:8000", "192.168.1.20.evil.example", ""}
    assert {h for h, status in named.items() if status == 421} == refused, named
    assert {status for h, status in named.items() if h not in refused} == {200}


def test_naming_hosts_of_a_server_on_one_address_adds_them_to_it():
    from pokersquares.web.guards import allowed_hosts

    for bind in ["192.168.1.20", "127.0.0.1"]:
        alone = _statuses(allowed_hosts(bind), _HOST_HEADERS)
        named = _statuses(allowed_hosts(bind, ["myhost.lan", "10.0.0.7"]), _HOST_HEADERS + ["10.0.0.7:8000"])
        assert all(named[h] == 200 for h, status in alone.items() if status == 200)  # nothing taken away
        assert named["myhost.lan:8000"] == named["MyHost.LAN"] == named["10.0.0.7:8000"] == 200
        assert named["evil.example"] == named[""] == named["[fe80::1]:8000"] == 421
    assert _statuses(allowed_hosts("192.168.1.20"), ["192.168.1.20:8000", "192.168.1.21:8000"]) == {
        "192.168.1.20:8000": 200, "192.168.1.21:8000": 421}


def test_a_star_among_the_named_hosts_answers_any_name():
    from pokersquares.web.guards import allowed_hosts

    assert set(_statuses(allowed_hosts("127.0.0.1", ["myhost.lan", "*"]), _HOST_HEADERS).values()) == {200}


@pytest.mark.parametrize("value", ["myhost.lan", "MyHost", "my_host.local", "localhost.", "192.168.1.20",
                                   "fe80::1", "[fe80::1]", "*",
                                   # the longest name DNS carries: 253 characters (a final dot aside)
                                   ".".join(["a" * 63] * 3 + ["b" * 61]), ".".join(["a" * 63] * 3 + ["b" * 61]) + "."])
def test_a_host_name_or_address_alone_may_be_named(value):
    from pokersquares.web.guards import host_name_error

    assert host_name_error(value) is None


@pytest.mark.parametrize("value, says", [
    ("", "empty"), ("  ", "empty"), ("http://myhost.lan", "scheme"), ("https://myhost.lan/", "scheme"),
    ("myhost.lan/x", "path"), ("user@myhost.lan", "user"), ("myhost.lan:8000", "port"), ("myhost.lan:x", "port"),
    ("1.2.3.4:80", "port"), ("[::1]:8000", "port"), ("my host", "spaces"), (" myhost.lan", "spaces"),
    ("*.lan", "'*' stands only alone"), ("fe80::1%eth0", "zone"), ("1.2.3", "not a host name"),
    ("999.1.1.1", "not a host name"), ("-myhost", "not a host name"), ("my..host", "not a host name"),
    ("[1.2.3.4]", "not a host name"), ("a" * 64 + ".lan", "not a host name"),
    (".".join(["a" * 63] * 3 + ["b" * 62]), "not a host name"),  # 254 characters
])
def test_a_malformed_host_name_is_said_to_be_so(value, says):
    from pokersquares.web.guards import host_name_error

    assert says in (host_name_error(value) or "")


def test_no_agent_to_choose_is_said_so_not_an_empty_list():
    """With no agent that can coach a review, or none at all, the error says so; it lists
    no empty "(choose )" nor "agents: "."""
    with local_client(create_app(agents={"quick": AgentSpec(_Quick, "no evaluator")}, prep_s=0.2,
                                 think_s=0.5)) as c:
        view, r = _review_of_a_finished_game(c, 4, "quick", 30)
        detail = r.json()["detail"]
        assert r.status_code == 400 and "quick cannot coach a review" in detail, detail
        assert "choose" not in detail and "no agent of this server can" in detail
    with local_client(create_app(agents={}, prep_s=0.2, think_s=0.5)) as c:
        assert c.get("/api/config").json()["agents"] == []
        view = new_game(c)
        for route in ("hint", "review"):
            r = c.post(f"/api/games/{view['id']}/{route}", json={"agent": "greedy"})
            detail = r.json()["detail"]
            assert r.status_code == 400 and detail == "unknown agent 'greedy'; this server has no agents", detail


def test_api_docs_need_nothing_from_elsewhere(client):
    r = client.get("/api/docs")
    assert r.status_code == 200 and "/api/games/{game_id}/hint" in r.text and "/api/daily" in r.text
    assert "src=" not in r.text and "https://" not in r.text and "http://" not in r.text
    assert client.get("/api/openapi.json").status_code == 200


def test_the_server_says_its_version(client):
    """A bug report about the web app, or a page's figure, names the release that served it."""
    import pokersquares

    assert client.get("/api/config").json()["version"] == pokersquares.__version__
    assert client.get("/api/openapi.json").json()["info"]["version"] == pokersquares.__version__


# -- preparations: concurrent, queued, bounded per client, cancelled ----------------------------

class _Counting(BasePlayer):
    """Learns for ``budget_s`` and counts how often it was built and prepared."""

    built: list = []
    prepared: list = []

    def __init__(self):
        super().__init__()
        type(self).built.append(self)

    def prepare(self, budget_s):
        type(self).prepared.append(tuple(self.point_system.points))
        time.sleep(budget_s)

    def choose(self, grid, card, seconds_left):
        return int(np.flatnonzero(grid == -1)[0])


class _Quick(BasePlayer):
    def choose(self, grid, card, seconds_left):
        return int(np.flatnonzero(grid == -1)[0])


class _SlowCoach(_Quick):
    """An agent whose evaluator takes 40 ms a position: a review (two orientations, 21
    positions before the exact end) takes about 1.7 s, more than one hint's time."""

    class evaluator:
        @staticmethod
        def placement_values(grid, card):
            time.sleep(0.04)
            v = np.arange(25, dtype=float)
            v[np.asarray(grid) != -1] = -np.inf
            return v


def test_a_review_has_a_whole_games_time_not_one_hints():
    agents = {"coach": AgentSpec(_SlowCoach, "a slow evaluator"), "quick": AgentSpec(_Quick, "no evaluator")}
    with local_client(create_app(agents=agents, prep_s=0.5, think_s=0.5, game_s=8.0)) as c:
        config = {a["name"]: a["reviews"] for a in c.get("/api/config").json()["agents"]}
        assert config == {"coach": True, "quick": False}
        view, r = _review_of_a_finished_game(c, 4, "coach", 30)
        assert r.status_code == 200, r.text
        assert [m["best"] for m in r.json()["moves"][:21]] == [24] * 21  # the index coach's best, either way round
        r = c.post(f"/api/games/{view['id']}/review", json={"agent": "quick"})
        assert r.status_code == 400 and "quick cannot coach a review" in r.json()["detail"]
        assert "(choose coach)" in r.json()["detail"]


def _pool_app(**pool_kw):
    agents = {"slow": AgentSpec(_Counting, "learns for its whole budget"), "quick": AgentSpec(_Quick, "learns nothing")}
    app = create_app(agents=agents, prep_s=2.0, think_s=0.5)
    app.state.agents.wait_s = 0.05
    for k, v in pool_kw.items():
        setattr(app.state.agents, k, v)
    return app


def _hint(c, view, agent, client="a", system=None):
    return c.post(f"/api/games/{view['id']}/hint", json={"agent": agent, "seconds": 0.1}, headers={"X-Client": client})


def _until_ready(c, view, agent, client="a", limit=15.0):
    deadline = time.monotonic() + limit
    r = _hint(c, view, agent, client)
    while r.status_code == 202 and time.monotonic() < deadline:
        time.sleep(0.1)
        r = _hint(c, view, agent, client)
    return r


def test_a_cheap_agent_never_waits_behind_an_expensive_one():
    with local_client(_pool_app()) as c:
        view = new_game(c)
        assert _hint(c, view, "slow").status_code == 202
        t = time.monotonic()
        assert _until_ready(c, view, "quick").status_code == 200
        assert time.monotonic() - t < 1.5  # the slow one learns for 2 s


def test_the_page_is_told_the_phase_and_the_queue_position():
    _Counting.prepared.clear()
    with local_client(_pool_app(prep_s=5.0)) as c:
        systems = ["american", "british", "random:1", "random:2"]
        views = [new_game(c, s) for s in systems]
        answers = [_hint(c, v, "slow", client=f"page{i}").json() for i, v in enumerate(views)]
        # Three preparation threads: three learn, the fourth waits in line. (On a loaded
        # machine a thread may not have taken its preparation yet when the page asks.)
        assert all(a["phase"] in ("queued", "compiling", "learning") for a in answers[:3])
        assert all(a["budget"] == 5.0 and "learning" in a["detail"] for a in answers[:3] if a["phase"] == "learning")
        assert answers[3]["phase"] == "queued" and answers[3]["queue_position"] >= 1
        assert "queue" in answers[3]["detail"]
        deadline = time.monotonic() + 4.0  # well inside the 5 s of learning
        while True:
            preps = c.get("/api/agents/status").json()["preparations"]
            phases = sorted(p["phase"] for p in preps)
            if phases == ["learning"] * 3 + ["queued"] or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert phases == ["learning"] * 3 + ["queued"]
        assert [p["queue_position"] for p in preps if p["phase"] == "queued"] == [1]


def test_preparations_are_bounded_per_client():
    with local_client(_pool_app()) as c:
        views = [new_game(c, f"random:{k}") for k in range(5)]
        codes = [_hint(c, v, "slow", client="greedy-page").status_code for v in views]
        assert codes[:3] == [202] * 3 and codes[3:] == [429, 429]
        r = _hint(c, views[3], "slow", client="greedy-page")
        assert "already have 3 agents preparing" in r.json()["detail"]
        assert _hint(c, views[3], "slow", client="another-page").status_code == 202


def test_a_client_is_its_pages_id_at_its_address_and_an_id_that_is_not_one_is_left_out():
    """Work is bounded per client: a page's own id (1 to 64 letters, digits, '-', '_')
    at its address; any other X-Client value (a path, spaces, 10 kB of text, nothing)
    is not kept as a name: the request counts as its address's."""
    from starlette.requests import Request

    from pokersquares.web.guards import client_of

    def client(page):
        headers = [] if page is None else [(b"x-client", page.encode())]
        return client_of(Request({"type": "http", "headers": headers, "client": ("10.0.0.5", 4321)}))

    assert client("tab-07_A") == "10.0.0.5/tab-07_A" and client("x" * 64) == "10.0.0.5/" + "x" * 64
    for page in (None, "", "a b", "../x", "x" * 65, "y" * 10_000, "tab\u00e9"):
        assert client(page) == "10.0.0.5", page


def test_a_cancelled_or_evicted_preparation_that_has_not_started_never_runs():
    from pokersquares.web.agents import AgentPool

    _Counting.prepared.clear()
    pool = AgentPool({"slow": AgentSpec(_Counting, "")}, prep_s=1.0, prep_workers=1, max_prepared=2)
    a, b, c, d = (parse_point_system(f"random:{k}") for k in range(4))
    try:
        first = pool.request("slow", a, "p1")
        time.sleep(0.2)
        queued = pool.request("slow", b, "p2")
        assert pool.status(queued)["queue_position"] == 1
        pool.request("slow", c, "p3")  # no room for three: the oldest (learning) is dropped when done
        assert first.phase == "cancelled"
        pool.request("slow", d, "p4")  # the next oldest had not started: it leaves the queue
        assert queued.phase == "cancelled" and queued.done.done()
        assert pool.cancel("slow", c, "p3") == "cancelled"  # its page gave up waiting
        assert pool.cancel("slow", c, "p3") == "none"
        deadline = time.monotonic() + 10
        while len(_Counting.prepared) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.3)
        assert _Counting.prepared == [tuple(a.points), tuple(d.points)]
        assert [p["phase"] for p in pool.preparations()] == ["learning"]
    finally:
        pool.close()


def test_a_page_can_cancel_its_wait():
    with local_client(_pool_app(prep_s=3.0)) as c:
        view = new_game(c, "random:9")
        assert _hint(c, view, "slow", client="p").status_code == 202
        r = c.post("/api/agents/cancel", json={"agent": "slow", "system": "random:9"}, headers={"X-Client": "p"})
        assert r.status_code == 200 and r.json()["phase"] == "cancelled"
        assert c.get("/api/agents/status").json()["preparations"] == []
        r = c.post("/api/agents/cancel", json={"agent": "slow", "system": "random:x"}, headers={"X-Client": "p"})
        assert r.status_code == 400


def test_thinking_is_bounded_per_client_and_in_all_and_the_event_loop_stays_free():
    """100 hints at once for an agent that thinks for its whole time, from 50 pages and
    from one: none waits out the clock (no 504), and the configuration answers at once."""
    with local_client(_app(think_s=0.3)) as c:
        view = new_game(c)
        while _hint(c, view, "thinker").status_code == 202:
            time.sleep(0.2)
        codes, config_s = [], []

        def ask(k, client):
            codes.append(c.post(f"/api/games/{view['id']}/hint", json={"agent": "thinker", "seconds": 0.3},
                                headers={"X-Client": client}).status_code)

        def config():
            for _ in range(5):
                t = time.monotonic()
                assert c.get("/api/config").status_code == 200
                config_s.append(time.monotonic() - t)
                time.sleep(0.1)

        threads = [threading.Thread(target=ask, args=(k, f"page{k}" if k % 2 else "one-page")) for k in range(100)]
        threads.append(threading.Thread(target=config))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(codes) == 100
        # Answered, or refused at once: one page may have two requests under way (429), the
        # server eight (503); nothing waits out its clock.
        assert set(codes) <= {200, 429, 503} and codes.count(200) >= 2
        # How many of the one page's 50 requests meet two of its own under way depends on
        # how the threads are scheduled (17 in one CI run, where 20 had been asked); none
        # would without the per-page limit. (The requests admitted share the agent's time,
        # so more are answered than the clock fits whole: 26 in one run, where 20 were.)
        assert codes.count(429) >= 5 and codes.count(503) >= 20
        assert max(config_s) < 1.0, config_s


# -- games people play are data; the daily deal ---------------------------------------------------

def test_games_people_finish_are_recorded_as_human(tmp_path):
    from pokersquares.harness.store import ResultStore

    path = tmp_path / "store.sqlite"
    with local_client(create_app(store_path=path)) as c:
        view = new_game(c, "british", seed=31)
        for cell in range(24):
            view = place(c, view, cell)
            assert "recorded" not in view  # said of the last card only
        assert not path.exists() or not ResultStore(path, readonly=True).runs()
        view = place(c, view, 24)
        assert (view["recorded"], view["record_detail"]) == (True, None)
        watched = new_game(c, seed=31)  # an agent's game is not a person's
        for turn in range(25):
            c.post(f"/api/games/{watched['id']}/agent-move", json={"agent": "greedy", "seconds": 0.1, "turn": turn})
        again = new_game(c, "british", seed=31)  # the same deal twice: two games
        for cell in reversed(range(25)):
            again = place(c, again, cell)
        with ResultStore(path, readonly=True) as store:
            runs = store.runs()
            assert [(r.player, r.system_name, r.seed, r.finished) for r in runs] == [("human", "British", 31, 1)] * 2
            assert [store.games(r.run_id)[0].score for r in runs] == [view["score"], again["score"]]
            assert [len(store.games(r.run_id)[0].placements) for r in runs] == [25, 25]
        index = c.get("/api/results").json()
        assert [r["player"] for r in index["runs"]] == ["human", "human"]
        csv_text = c.get("/api/results/export.csv").text
        assert csv_text.count("\nhuman,") + csv_text.count(",human,") == 2 and "score" in csv_text.splitlines()[0]
        one = c.get("/api/results/export.csv", params={"run": runs[1].run_id}).text
        assert len(one.strip().splitlines()) == 2
        bad = c.get("/api/results/export.csv", params={"run": [0, 5]})
        assert bad.status_code == 400 and "positive integer" in bad.json()["detail"]
        gone = c.get("/api/results/export.csv", params={"run": [runs[0].run_id, *range(1000, 1008)]})
        assert gone.status_code == 404
        assert gone.json()["detail"].startswith("no run 1000, 1001, 1002, 1003, 1004 and 3 more in ")
    with local_client(create_app(store_path=path, record_games=False)) as c:
        view = new_game(c)
        for cell in range(25):
            view = place(c, view, cell)
        assert view["done"] and "recorded" not in view
    with ResultStore(path, readonly=True) as store:
        assert len(store.runs()) == 2


def test_a_class_tells_its_students_apart_by_the_names_they_give(tmp_path, cli):
    """Every browser game was player ``human``, one run each: thirty students' games in
    a class could not be told apart. A name given with a new game is recorded with it
    (the run's player name), summed per name on the Results page and listed by
    ``pokersquares results``; a game without one stays ``human``."""
    from pokersquares.harness.store import ResultStore

    path = tmp_path / "class.sqlite"
    with local_client(create_app(store_path=path)) as c:
        for name, seed in (("  Ada   Lovelace ", 3), ("Ada Lovelace", 4), ("Alan", 3), (None, 5), ("   ", 6)):
            view = new_game(c, seed=seed, **({} if name is None else {"name": name}))
            for cell in range(25):
                view = place(c, view, cell)
        for bad in ("bell\x07", "x" * 41, 7):
            r = c.post("/api/games", json={"system": "american", "seed": 1, "name": bad})
            assert r.status_code in (400, 422) and "name" in r.text, (bad, r.text)
        index = c.get("/api/results").json()
    with ResultStore(path, readonly=True) as store:
        runs = store.runs()
    assert [(r.player, r.player_name) for r in runs] == [("human", "Ada Lovelace"), ("human", "Ada Lovelace"),
                                                         ("human", "Alan"), ("human", "human"), ("human", "human")]
    assert [r["player_name"] for r in index["runs"]] == [r.player_name for r in runs]
    assert [(h["name"], h["system_name"], h["games"]) for h in index["people"]] == [
        ("Ada Lovelace", "American", 2), ("Alan", "American", 1)]
    assert [h["games"] for h in index["humans"]] == [5]  # everyone's, as before
    code, out, err = cli("results", "--db", path)
    assert code == 0 and out.count("human (Ada Lovelace)") == 2 and out.count("human (Alan)") == 1, out


def test_a_name_cleared_before_the_last_card_is_recorded_as_no_name(tmp_path):
    """The name in *Your name* when a game ends is the one recorded (README): a person who
    dealt as "Ada" and cleared the name before the last card (the page sends it empty)
    was still recorded as Ada; a name left out of a placement still leaves it as it was."""
    from pokersquares.harness.store import ResultStore

    path = tmp_path / "store.sqlite"
    with local_client(create_app(store_path=path)) as c:
        for last in ("", "   ", None):
            view = new_game(c, seed=8, name="Ada")
            for cell in range(25):
                body = {"cell": cell, "turn": view["turn"]}
                if cell == 24 and last is not None:
                    body["name"] = last
                r = c.post(f"/api/games/{view['id']}/place", json=body)
                assert r.status_code == 200, r.text
                view = r.json()
    with ResultStore(path, readonly=True) as store:
        assert [r.player_name for r in store.runs()] == ["human", "human", "Ada"]


def test_a_persons_game_timed_across_a_wall_clock_set_back_is_recorded_and_readable(tmp_path, monkeypatch):
    """The wall clock set back an hour while a person plays (by hand, or NTP): the game's
    time was the wall clock's difference, negative, and the record it made was one every
    reader of the store refused as damaged (the Results page included). Timed on the
    monotonic clock, it is recorded as played."""
    import time as time_module

    from pokersquares.harness.store import ResultStore

    path = tmp_path / "store.sqlite"
    real = time_module.time
    with local_client(create_app(store_path=path)) as c:
        view = new_game(c, seed=8)
        for cell in range(24):
            view = place(c, view, cell)
        monkeypatch.setattr(time_module, "time", lambda: real() - 3600.0)
        view = place(c, view, 24)
        monkeypatch.setattr(time_module, "time", real)
        index = c.get("/api/results")
        assert index.status_code == 200 and [r["player"] for r in index.json()["runs"]] == ["human"]
    with ResultStore(path, readonly=True) as store:
        (run,) = store.runs()
        (game,) = store.games(run.run_id)
        assert game.score == view["score"] and 0 <= game.decision_s < 600


def test_a_watched_game_rebuilt_after_a_restart_is_still_not_a_persons(tmp_path):
    """A client that rebuilds a game on a server that forgot it (``POST /api/games`` with
    its moves, as the Play page does) can say an agent placed some of them: the last card
    placed by hand then does not record the agent's game as ``human`` (it did: the flag
    was lost with the server)."""
    from pokersquares.harness.store import ResultStore

    path = tmp_path / "store.sqlite"
    with local_client(create_app(store_path=path)) as c:
        watched = new_game(c, seed=5)
        for turn in range(24):
            # 202 while greedy's kernels load (a cold numba cache, this test run alone)
            while (r := c.post(f"/api/games/{watched['id']}/agent-move",
                               json={"agent": "greedy", "seconds": 0.1, "turn": turn})).status_code == 202:
                time.sleep(0.2)
            assert r.status_code == 200, r.text
            watched = r.json()["game"]
        assert watched["agent_played"] is True and new_game(c, seed=5)["agent_played"] is False
    with local_client(create_app(store_path=path)) as c:  # the server restarted: the page rebuilds the game
        rebuilt = new_game(c, seed=5, moves=watched["moves"], agent_played=watched["agent_played"])
        assert rebuilt["agent_played"] is True and rebuilt["turn"] == 24
        place(c, rebuilt, next(i for i, cell in enumerate(rebuilt["cells"]) if cell is None))
        mine = new_game(c, seed=5, moves=watched["moves"])  # a person's 24 moves rebuilt: theirs
        place(c, mine, next(i for i, cell in enumerate(mine["cells"]) if cell is None))
        assert c.post("/api/games", json={"seed": 5, "agent_played": 1}).status_code == 422  # a flag, not a number
    with ResultStore(path, readonly=True) as store:
        assert [r.player for r in store.runs()] == ["human"]  # the person's game only


def test_the_daily_deal_is_the_same_for_everyone_on_a_date():
    import datetime as dt

    from pokersquares.web.daily import daily_deal

    day = dt.date(2026, 11, 23)
    assert daily_deal(day) == daily_deal(day)
    week = [daily_deal(day + dt.timedelta(days=k)) for k in range(5)]
    assert len({d["seed"] for d in week}) == 5
    assert {d["system"].split(":")[0] for d in week} == {"american", "british", "ameritish", "random", "hypercorner"}
    for d in week:
        parse_point_system(d["system"])
    with local_client(create_app()) as c:
        today = c.get("/api/daily").json()
        assert today == daily_deal()
        assert new_game(c, today["system"], seed=today["seed"])["seed"] == today["seed"]


def test_a_page_goes_before_the_servers_own_warm_up():
    from pokersquares.web.agents import AgentPool

    agents = {f"a{k}": AgentSpec(_Counting, "") for k in range(4)}
    pool = AgentPool(agents, prep_s=1.0, prep_workers=1)
    try:
        warm = pool.warm([AMERICAN])  # a0 starts; a1..a3 wait
        time.sleep(0.2)
        assert [pool.status(p)["queue_position"] for p in warm[1:]] == [1, 2, 3]
        # Already queued by the server: moved up, and started at once on a thread of its
        # own, since the only worker is busy with a warm-up (web.agents._Preparer).
        mine = pool.request("a3", AMERICAN, "page")
        time.sleep(0.1)
        assert pool.status(mine)["queue_position"] is None and mine.phase != "queued"
        # A second page's waits first in the queue (one extra thread per warm-up running).
        other = pool.request("a0", BRITISH, "page")
        assert pool.status(other)["queue_position"] == 1
        assert pool.status(warm[1])["queue_position"] == 2
    finally:
        pool.close()


def test_the_page_hears_the_agents_are_loading():
    gate = threading.Event()

    def slow_import():
        gate.wait(10)
        return {"quick": AgentSpec(_Quick, "learns nothing")}

    with local_client(create_app(agents=slow_import)) as c:
        config = c.get("/api/config").json()
        assert config["agents_loading"] and config["agents"] == []
        view = new_game(c)  # games need no agents
        r = c.post(f"/api/games/{view['id']}/hint", json={"agent": "quick"})
        assert r.status_code == 503 and "still loading" in r.json()["detail"]
        gate.set()
        time.sleep(0.3)
        config = c.get("/api/config").json()
        assert not config["agents_loading"] and [a["name"] for a in config["agents"]] == ["quick"]
        assert _until_ready(c, view, "quick").status_code == 200


def test_warm_up_compiles_in_processes_then_prepares_each_agent_as_its_kernels_are_ready():
    events = []
    registered = registered_agents()
    agents = {"greedy": registered["greedy"], "random": registered["random"],
              "slow": AgentSpec(_SlowToLearn, "not a registered player: prepared at once")}
    with local_client(create_app(agents=agents, prep_s=0.5, warm=["american"], on_event=events.append,
                                 compile_processes=1)) as c:
        deadline = time.monotonic() + 120  # a spawned process imports the package
        while not any(e.startswith("all agents prepared") for e in events):
            assert time.monotonic() < deadline, events
            time.sleep(0.1)
        phases = {p["agent"]: p["phase"] for p in c.get("/api/agents/status").json()["preparations"]}
    assert phases == {"greedy": "ready", "random": "ready", "slow": "ready"}
    compiled = [e for e in events if e.startswith("kernels of ")]
    assert sorted(e.split()[2] for e in compiled) == ["greedy", "random"]  # the registered ones, in a process
    assert events.index(compiled[0]) < next(i for i, e in enumerate(events) if "greedy on American: ready" in e)


def test_with_nothing_to_warm_the_kernels_are_still_compiled_aside_and_nothing_is_prepared():
    events = []
    agents = {"greedy": registered_agents()["greedy"], "slow": AgentSpec(_SlowToLearn, "not registered")}
    with local_client(create_app(agents=agents, prep_s=0.5, warm=[], on_event=events.append,
                                 compile_processes=1)) as c:
        deadline = time.monotonic() + 120  # a spawned process imports the package
        while not any(e.startswith("all agents compiled") for e in events):
            assert time.monotonic() < deadline, events
            time.sleep(0.1)
        assert c.get("/api/agents/status").json()["preparations"] == []
    assert [e.split()[2] for e in events if e.startswith("kernels of ")] == ["greedy"]
    assert "compiling their kernels in the background" in events[0]


def test_when_compiling_in_processes_fails_the_agents_compile_here_and_every_preparation_is_counted(monkeypatch):
    """Processes that cannot be started (a locked-down machine) leave no agent waiting
    for kernels nobody compiles: the server says so and prepares each agent in its own
    process; the console counts every agent on every warmed system, [1/4] to [4/4],
    and says all are prepared once the last is."""
    from pokersquares.harness import warm_up

    def no_processes(*args, **kwargs):
        raise OSError("cannot start a process")

    monkeypatch.setattr(warm_up, "warm_up_players", no_processes)
    events = []
    registered = registered_agents()
    agents = {"greedy": registered["greedy"], "random": registered["random"]}
    with local_client(create_app(agents=agents, prep_s=0.2, warm=["american", "british"], on_event=events.append,
                                 compile_processes=1)) as c:
        deadline = time.monotonic() + 60
        while len([e for e in events if e.startswith("[")]) < 4 or not any(e.startswith("all agents") for e in events):
            assert time.monotonic() < deadline, events
            time.sleep(0.1)
        phases = [p["phase"] for p in c.get("/api/agents/status").json()["preparations"]]
    assert phases == ["ready"] * 4
    assert any(e == "compiling in separate processes failed (OSError: cannot start a process); compiling here"
               for e in events), events
    counted = [e.split("]")[0] + "]" for e in events if e.startswith("[")]
    assert counted == ["[1/4]", "[2/4]", "[3/4]", "[4/4]"], events
    assert events[-1].startswith("all agents prepared") and sum(e.startswith("all agents") for e in events) == 1


def test_a_held_agent_waits_for_its_kernels_then_prepares_and_can_be_cancelled_meanwhile():
    from pokersquares.web.agents import AgentPool

    pool = AgentPool({"slow": AgentSpec(_SlowToLearn, "learns"), "other": AgentSpec(_SlowToLearn, "learns")},
                     prep_s=0.2)
    try:
        pool.hold(["slow", "other"])
        prep = pool.request("slow", AMERICAN, "page")
        time.sleep(0.3)
        assert prep.started is None  # not on a preparation thread: another process compiles
        status = pool.status(prep)
        assert status["phase"] == "compiling" and "separate process" in status["detail"]
        cancelled = pool.request("other", AMERICAN, "page")
        assert pool.cancel("other", AMERICAN, "page") == "cancelled" and cancelled.done.done()
        pool.release("slow")
        prep.done.result(timeout=10)
        assert prep.phase == "ready"
        pool.release("other")  # nothing left to queue for it
        assert cancelled.started is None
    finally:
        pool.close()
