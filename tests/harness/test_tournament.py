import pytest

from pokersquares.harness.tournament import normalize, table_from_store, tournament_table, run_tournament
from pokersquares.harness.store import ResultStore
from pokersquares.points import parse_point_systems


def test_normalisation_hand_computed():
    totals = {"A": {"x": 100, "y": 50, "z": 75}, "B": {"x": -10, "y": 30, "z": 10}}
    t = tournament_table(["x", "y", "z"], ["A", "B"], 5, totals)
    assert t["normalized"]["A"] == {"x": 1.0, "y": 0.0, "z": 0.5}
    assert t["normalized"]["B"] == {"x": 0.0, "y": 1.0, "z": 0.5}
    assert t["scores"] == {"x": 1.0, "y": 1.0, "z": 1.0}
    assert t["ranking"] == ["x", "y", "z"]  # ties keep the given order
    assert normalize({"p": 3, "q": 3}) == {"p": 1.0, "q": 1.0}


def test_published_2016_ordering_is_reproducible_by_the_formula():
    totals = {"S": {"a": 10, "b": 7, "c": 4}}
    assert tournament_table(["c", "b", "a"], ["S"], 1, totals)["ranking"] == ["a", "b", "c"]


def test_small_tournament_and_its_table_from_the_store(tmp_path):
    store = ResultStore(tmp_path / "t.sqlite")
    systems = parse_point_systems("american,single:flush")
    table = run_tournament(["random", "greedy"], systems, 4, 0, store, time_per_game=30, prep_time=1)
    assert table["ranking"] == ["greedy", "random"]
    assert table["normalized"]["American"] == {"random": 0.0, "greedy": 1.0}
    again = table_from_store(store, table["tournament_id"])
    assert again["totals"] == table["totals"] and again["complete"]
