"""The result store's runs a page at a time, and a player's games summed up per point
system: what the Results page reads of a store of any size."""

from __future__ import annotations

import pytest

from pokersquares.harness.store import GameRecord, ResultStore, StoreError
from pokersquares.points import AMERICAN, BRITISH

HUMAN_SCORES = [(AMERICAN, 40), (BRITISH, 7), (AMERICAN, 95), (AMERICAN, -20), (BRITISH, 12), (AMERICAN, 61)]


@pytest.fixture
def store(tmp_path):
    """Runs of a tournament, people's one-game runs, a run of several games and one with
    none, interleaved."""
    with ResultStore(tmp_path / "results.sqlite") as s:
        tid = s.open_tournament(["greedy"], [AMERICAN, BRITISH], 3, 0, 1.0, 0.0)
        for k, (system, score) in enumerate(HUMAN_SCORES):
            run = s.open_run("human", "human", system, k, 1, 0.0, 0.0, version=f"web:{k}")
            s.add_games(run, [GameRecord(0, k, score, [], 1.5)])
            if k % 2:
                agent = s.open_run("greedy", "greedy", system, 10 * k, 3, 1.0, 0.0, tid)
                s.add_games(agent, [GameRecord(i, i, 100 + i, [], 0.01) for i in range(3)])
        s.open_run("greedy", "greedy", BRITISH, 50, 4, 1.0, 0.0)  # no game finished yet
        yield s


def test_pages_of_runs_are_the_newest_below_before_in_order(store):
    every = store.runs()
    ids = [r.run_id for r in every]
    assert len(ids) == 10 and store.count_runs() == 10
    assert store.runs(limit=3) == every[-3:]
    assert store.runs(limit=100) == every
    assert store.runs(before=ids[5]) == every[:5]
    assert store.runs(before=ids[5], limit=2) == every[3:5]
    assert store.runs(before=ids[0]) == [] and store.runs(limit=0) == []
    tournament = [r for r in every if r.tournament_id is not None]
    assert store.runs(tournament[0].tournament_id, limit=2) == tournament[-2:]
    assert store.runs(tournament[0].tournament_id, before=tournament[-1].run_id) == tournament[:-1]
    assert store.runs(tournament[0].tournament_id) == tournament


@pytest.mark.parametrize("page", [{"limit": -1}, {"limit": 2.0}, {"limit": True}, {"before": -5}, {"before": "7"}])
def test_a_page_of_runs_is_asked_for_in_whole_numbers(store, page):
    with pytest.raises(StoreError, match="a page of runs takes"):
        store.runs(**page)


def test_a_players_games_are_summed_up_per_system_in_the_order_first_played(store):
    by_system = {}
    for system, score in HUMAN_SCORES:
        by_system.setdefault(system.name, []).append(score)
    assert store.scores_by_system("human") == [
        {"system_name": name, "games": len(scores), "mean": pytest.approx(sum(scores) / len(scores)),
         "best": max(scores)} for name, scores in by_system.items()]
    assert store.scores_by_system("nobody") == []


def _plans(store, call) -> list[str]:
    """The query plan of every statement ``call`` runs on the store."""
    statements = []
    store.conn.set_trace_callback(statements.append)
    try:
        call()
    finally:
        store.conn.set_trace_callback(None)
    plans = []
    for sql in statements:
        # The trace gives the statement with its values in place of the ? marks.
        plans.append(" | ".join(row[-1] for row in store.conn.execute(f"EXPLAIN QUERY PLAN {sql}")))
    return plans


def test_a_page_reads_its_runs_and_their_games_by_their_keys(store):
    """A page costs the same whatever the store holds: the runs are read along their key
    from ``before`` down and stop at the limit (no sort of them all), each run's games
    found through the games' key, never by a scan of every game."""
    for call in (lambda: store.runs(limit=3), lambda: store.runs(before=5, limit=3)):
        (plan,) = _plans(store, call)
        assert "SCAN g" not in plan and "SCAN games" not in plan, plan
        assert "SEARCH g USING" in plan and "INDEX" in plan, plan
        assert "TEMP B-TREE" not in plan, plan  # no sort: the newest first along the key, then stop
    (plan,) = _plans(store, lambda: store.runs(before=5, limit=3))
    assert "SEARCH runs USING INTEGER PRIMARY KEY (rowid<?)" in plan, plan
    (plan,) = _plans(store, lambda: store.scores_by_system("human"))
    assert "SCAN g" not in plan and "SEARCH g USING" in plan, plan  # only the player's runs' games
