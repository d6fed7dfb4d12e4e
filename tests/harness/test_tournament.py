import pytest

from pokersquares.harness.tournament import normalize, table_from_store, tournament_table, run_tournament
from pokersquares.harness.store import ResultStore
from pokersquares.points import parse_point_systems


def test_normalisation_hand_computed():
    scores = {"A": {"x": [60, 40], "y": [50, 0], "z": [70, 5]}, "B": {"x": [-10, 0], "y": [30, 0], "z": [5, 5]}}
    t = tournament_table(["x", "y", "z"], ["A", "B"], 2, scores)
    assert t["totals"]["A"] == {"x": 100, "y": 50, "z": 75}
    assert t["normalized"]["A"] == {"x": 1.0, "y": 0.0, "z": 0.5}
    assert t["normalized"]["B"] == {"x": 0.0, "y": 1.0, "z": 0.5}
    assert t["scores"] == {"x": 1.0, "y": 1.0, "z": 1.0}
    assert t["ranking"] == ["x", "y", "z"]  # ties keep the given order
    assert normalize({"p": 3, "q": 3}) == {"p": 1.0, "q": 1.0}


def test_ranking_orders_players_by_normalised_total_not_by_name_or_given_order():
    # The score order (b, c, a) is neither the names' order nor the order given.
    scores = {"S": {"a": [4], "b": [10], "c": [7]}, "T": {"a": [5], "b": [9], "c": [6]}}
    assert tournament_table(["a", "c", "b"], ["S", "T"], 1, scores)["ranking"] == ["b", "c", "a"]


def test_means_and_bootstrap_errors():
    # "a" beats "b" on every deal of both systems: its lead survives every resample.
    scores = {"S": {"a": [10, 20, 30, 40], "b": [9, 19, 29, 39]}, "T": {"a": [5, 1, 7, 3], "b": [4, 0, 6, 2]}}
    t = tournament_table(["a", "b"], ["S", "T"], 4, scores)
    assert t["means"]["S"] == {"a": 25.0, "b": 24.0}
    assert t["mean_se"]["S"]["a"] == pytest.approx(12.909944 / 2)  # sd of 10..40 over sqrt(4)
    assert t["gap_se"] == {"a": 0.0, "b": 0.0} and t["score_se"]["a"] == 0.0
    # A coin flip: who wins a system depends on which deals are drawn, so the gap is uncertain.
    flip = {"S": {"a": [10, 0, 10, 0], "b": [0, 10, 0, 10]}}
    t = tournament_table(["a", "b"], ["S"], 4, flip)
    assert t["gap_se"]["b"] > 0.5 and t["gap_se"]["a"] == 0.0 and t["resamples"] == 1000
    # A player short of games on a system leaves that system out of the bootstrap.
    short = {"S": {"a": [10, 0, 10, 0], "b": [0, 10]}}
    assert tournament_table(["a", "b"], ["S"], 4, short)["gap_se"] == {"a": 0.0, "b": 0.0}


def test_small_tournament_and_its_table_from_the_store(tmp_path):
    store = ResultStore(tmp_path / "t.sqlite")
    systems = parse_point_systems("american,single:flush")
    table = run_tournament(["random", "greedy"], systems, 4, 0, store, time_per_game=30, prep_time=1)
    assert table["ranking"] == ["greedy", "random"]
    assert table["normalized"]["American"] == {"random": 0.0, "greedy": 1.0}
    again = table_from_store(store, table["tournament_id"])
    assert again["totals"] == table["totals"] and again["complete"]


def test_tournament_counts_penalties_and_checks_players_first(tmp_path):
    from pokersquares.harness.registry import UnknownPlayerError
    from pokersquares.points import AMERICAN, BRITISH

    store = ResultStore(tmp_path / "t.sqlite")
    with pytest.raises(UnknownPlayerError):
        run_tournament(["greedy", "random:bogus=1"], [AMERICAN], 2, 0, store, time_per_game=5.0, prep_time=0.0)
    assert store.tournaments() == [] and store.runs() == []  # nothing played, nothing recorded
    table = run_tournament(["greedy", "fault_players:Raises"], [AMERICAN, BRITISH], 4, 0, store,
                           time_per_game=5.0, prep_time=0.0)
    expected = {s: {"greedy": 0, "fault_players:Raises": 2} for s in ("American", "British")}  # odd seeds fault
    assert table["penalties"] == expected
    assert table_from_store(store, table["tournament_id"])["penalties"] == expected
