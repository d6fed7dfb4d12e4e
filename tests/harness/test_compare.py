"""Paired comparisons of recorded runs (harness/compare.py) and ``pokersquares compare``."""

import json
import math
import statistics
from pathlib import Path

import pytest

from pokersquares.harness.compare import compare_runs, load_runs
from pokersquares.harness.store import GameRecord, ResultStore
from pokersquares.points import AMERICAN, BRITISH, PointSystem


def _store(path: Path, runs) -> Path:
    """``runs``: (player, system, {seed: score}, seconds per game)."""
    with ResultStore(path) as store:
        for player, system, scores, seconds in runs:
            run = store.open_run(player, player, system, min(scores), len(scores), 1.0, 0.0)
            store.add_games(run, [GameRecord(i, seed, score, decision_s=seconds)
                                  for i, (seed, score) in enumerate(sorted(scores.items()))])
    return path


@pytest.fixture
def stores(tmp_path):
    a = _store(tmp_path / "a.sqlite", [("champion", AMERICAN, {0: 130, 1: 110, 2: 125, 3: 90}, 0.5),
                                       ("champion", BRITISH, {0: 50, 1: 60}, 0.5)])
    b = _store(tmp_path / "b.sqlite", [("beemo", AMERICAN, {1: 100, 2: 126, 3: 80, 4: 200}, 0.8),
                                       # Ten integers, named "custom": paired with nobody above.
                                       ("beemo", PointSystem((0, 2, 5, 10, 15, 20, 25, 50, 75, 99)), {0: 1, 1: 2}, 0.1)])
    return a, b


def test_runs_are_paired_on_the_deals_both_played_and_only_on_one_system(stores):
    result = compare_runs(load_runs(stores))
    assert [(r["player"], r["system"], r["games"]) for r in result["runs"]] == [
        ("champion", "American", 4), ("champion", "British", 2), ("beemo", "American", 4), ("beemo", "custom", 2)]
    american = result["runs"][0]
    assert american["mean"] == pytest.approx(113.75) and american["seconds_per_game"] == pytest.approx(0.5)
    assert american["stderr"] == pytest.approx(statistics.stdev([130, 110, 125, 90]) / 2)
    [pair] = result["paired"]  # British and the custom system have no partner
    diffs = [110 - 100, 125 - 126, 90 - 80]  # deals 1..3: deal 0 and deal 4 were played by one side only
    assert pair["deals"] == 3 and pair["a"] == "champion" and pair["b"] == "beemo"
    assert pair["a_minus_b"] == pytest.approx(statistics.fmean(diffs))
    se = statistics.stdev(diffs) / math.sqrt(3)
    assert pair["stderr"] == pytest.approx(se)
    # Student's t on 2 degrees of freedom (a table's 4.303), not the normal 1.96: on three
    # deals the normal interval is less than half as wide as it should be.
    assert pair["ci95"] == pytest.approx([statistics.fmean(diffs) - 4.3027 * se, statistics.fmean(diffs) + 4.3027 * se],
                                         rel=1e-4)
    assert pair["a_run"] == [str(stores[0]), 1] and pair["b_run"] == [str(stores[1]), 1]


def test_filters_keep_the_runs_asked_for(stores):
    assert {r.info.player for r in load_runs(stores, players=["bee"])} == {"beemo"}
    assert [r.info.system_name for r in load_runs(stores, system="british")] == ["British"]
    # A spec of the same points finds a run whatever its stored name: a contest tournament's
    # "Ameritish" by ameritish:34412016 (found by name only, it matched nothing).
    from pokersquares.points import parse_point_system

    ameritish = parse_point_system("ameritish:34412016")
    c = _store(stores[0].parent / "c.sqlite", [("tiger", PointSystem(ameritish.points, "Ameritish"), {0: 90}, 0.1)])
    assert [r.info.system_name for r in load_runs([c], system="ameritish:34412016")] == ["Ameritish"]
    assert [r.info.system_name for r in load_runs(stores, system="0,2,5,10,15,20,25,50,75,99")] == ["custom"]
    assert [r.info.player for r in load_runs(stores, system="0,2,5,10,15,20,25,50,75,100")] == ["champion", "beemo"]
    assert load_runs(stores, system="ameritish:1") == [] and load_runs(stores, system="custom")[0].info.player == "beemo"


def test_the_command_prints_each_run_and_the_paired_difference(stores, run_compare):
    r = run_compare(*stores)
    assert r.returncode == 0, r.stderr
    assert "champion (" in r.stdout and "American" in r.stdout
    assert "+6.33 ± 3.67 (-9.44 .. +22.11), 3 deals" in r.stdout  # 10, -1 and 10 on deals 1..3
    out = json.loads(run_compare(*stores, "--json", "--player", "champion").stdout)
    assert {r["player"] for r in out["runs"]} == {"champion"} and out["paired"] == []


def test_a_single_game_has_no_standard_error_and_the_json_stays_json(tmp_path, run_compare):
    one = _store(tmp_path / "one.sqlite", [("greedy", AMERICAN, {7: 99}, 0.0)])
    r = run_compare(one, "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["runs"][0]["stderr"] is None
    assert " ± -" in run_compare(one).stdout


@pytest.mark.parametrize("args, message", [(("nope.sqlite",), "no result store at nope.sqlite"),
                                           (("{a}", "--player", "tiger"), "no run with a finished game matches"),
                                           (("{text}",), "is not a readable result store")])
def test_bad_input_is_one_line_and_exit_2(stores, tmp_path, args, message, cli, monkeypatch):
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n" * 100)
    monkeypatch.chdir(tmp_path.parent)  # where run_compare runs: nope.sqlite is not there either
    code, _, err = cli("compare", *[a.format(a=stores[0], text=text) for a in args])
    assert code == 2 and message in err and err.count("\n") == 1 and "Traceback" not in err, err
    assert text.read_text() == "not a database\n" * 100  # a file that is not a store is left as it was


def test_with_one_store_runs_are_named_by_id_alone(tmp_path, run_compare):
    one = _store(tmp_path / "t.sqlite", [("greedy", AMERICAN, {0: 80, 1: 90}, 0.0),
                                         ("random", AMERICAN, {0: 10, 1: 30}, 0.0)])
    out = run_compare(one).stdout
    assert "greedy (run 1) − random (run 2): +65.00 ± 5.00" in out and str(one) not in out


def test_a_store_named_twice_is_read_once(stores, monkeypatch):
    monkeypatch.chdir(stores[0].parent)
    runs = load_runs([stores[0], "a.sqlite", stores[1]])
    assert len(runs) == 4 and len(compare_runs(runs)["paired"]) == 1


def test_results_points_to_compare_when_two_runs_share_a_system(stores, cli):
    def listing(path):
        return cli("results", "--db", path)[1]
    assert f"pokersquares compare {stores[0]}" not in listing(stores[0])  # American and British: nothing to pair
    two = _store(stores[0].parent / "two.sqlite", [("greedy", AMERICAN, {0: 80, 1: 90}, 0.0),
                                                   ("random", AMERICAN, {0: 10, 1: 30}, 0.0)])
    assert f"pokersquares compare {two}" in listing(two)


def test_a_run_found_in_two_stores_is_read_once_and_never_paired_with_itself(stores, tmp_path, monkeypatch, run_compare):
    """A copy of a store (or of it as it was earlier) holds the same runs: each was paired
    with its copy, a difference of "+0.00 ± 0.00" as if measured."""
    import shutil

    copy = tmp_path / "copy.sqlite"
    shutil.copy(stores[0], copy)
    with ResultStore(stores[0]) as store:  # the original went on after the copy was made
        store.add_games(1, [GameRecord(4, 9, 70)])
    duplicates = []
    runs = load_runs([stores[0], stores[1], copy], duplicates=duplicates)
    assert [(r.store, r.info.run_id, len(r.games)) for r in runs] == [
        (str(stores[0]), 1, 5), (str(stores[0]), 2, 2), (str(stores[1]), 1, 4), (str(stores[1]), 2, 2)]
    assert duplicates == [(str(stores[0]), 1, str(copy), 1), (str(stores[0]), 2, str(copy), 2)]
    # The copy first: the run with more games is kept, where it was first found.
    runs = load_runs([copy, stores[0]])
    assert [(r.store, r.info.run_id, len(r.games)) for r in runs] == [(str(stores[0]), 1, 5), (str(copy), 2, 2)]
    assert compare_runs(runs)["paired"] == []  # American and British: nothing to pair, not a run with itself
    monkeypatch.chdir(tmp_path.parent)
    r = run_compare(stores[0], copy)
    assert r.returncode == 0 and "+0.00 ± 0.00" not in r.stdout, r.stdout
    assert f"2 runs of {copy} are runs of {stores[0]}" in r.stderr
    one = tmp_path / "one.sqlite"  # a copy of a store of one run: said in the singular
    shutil.copy(stores[1], one)
    with ResultStore(one) as store:
        store.conn.execute("DELETE FROM games WHERE run_id = 2")
        store.conn.execute("DELETE FROM runs WHERE run_id = 2")
        store.conn.commit()
    r = run_compare(stores[1], one)
    assert r.returncode == 0 and f"note: 1 run of {one} is a run of {stores[1]} (a copy of it?)" in r.stderr, r.stderr
    # Two runs of one player with the same settings made at different times are two runs.
    with ResultStore(copy) as store:
        store.conn.execute("UPDATE runs SET created = created + 1 WHERE run_id = 1")
    assert len(load_runs([stores[0], copy])) == 3


def test_two_point_systems_of_one_name_are_told_apart(tmp_path, run_compare):
    """Two sets of ten integers are both named "custom": their runs were listed alike,
    and a pairing "custom: p1 − p3" did not say which of the two it was."""
    c1 = PointSystem((0, 2, 5, 10, 15, 20, 25, 50, 75, 99))
    c2 = PointSystem((0, 2, 5, 10, 15, 20, 25, 50, 75, 98))
    db = _store(tmp_path / "c.sqlite", [("p1", c1, {0: 10, 1: 12}, 0.0), ("p2", c2, {0: 11, 1: 13}, 0.0),
                                        ("p3", c1, {0: 9, 1: 15}, 0.0), ("p4", c2, {0: 1, 1: 2}, 0.0)])
    result = compare_runs(load_runs([db]))
    assert [(r["player"], r["system"], r["points"][-1]) for r in result["runs"]] == [
        ("p1", "custom", 99), ("p2", "custom (2)", 98), ("p3", "custom", 99), ("p4", "custom (2)", 98)]
    assert [(d["a"], d["b"], d["system"], d["points"][-1]) for d in result["paired"]] == [
        ("p1", "p3", "custom", 99), ("p2", "p4", "custom (2)", 98)]
    out = run_compare(db).stdout
    assert "custom (2): p2 (run 2) − p4 (run 4)" in out and "custom: p1 (run 1) − p3 (run 3)" in out


def test_integer_scores_are_compared_without_fractions(stores, monkeypatch):
    """``statistics.stdev`` sums exact fractions: the pairs of a store of 200 runs of 500
    games (9,900 of them) took 14 of the command's 19 s in it."""
    expected = compare_runs(load_runs(stores))

    def fractions(*args):
        raise AssertionError("statistics.stdev called on integer scores")

    monkeypatch.setattr(statistics, "stdev", fractions)
    got = compare_runs(load_runs(stores))
    assert got == expected
    assert got["paired"][0]["stderr"] == pytest.approx(math.sqrt(((10 - 19 / 3) ** 2 + (-1 - 19 / 3) ** 2
                                                                  + (10 - 19 / 3) ** 2) / 2 / 3))


def test_compare_reads_moves_only_to_tell_a_copy_from_a_run_played_alike(stores, tmp_path):
    """compare parsed every game's moves (100,000 lists for a store of 200 runs of 500
    games) though only the check for copies needs them, and only for runs of one identity."""
    import shutil
    import sqlite3

    copy = tmp_path / "copy.sqlite"
    shutil.copy(stores[0], copy)
    for path in (stores[0], copy):  # moves that are not even JSON: never parsed
        with sqlite3.connect(path) as c:
            c.execute("UPDATE games SET placements = 'not JSON' WHERE run_id = 2")
    with sqlite3.connect(copy) as c:  # run 1 of the copy: its moves differ, its scores do not
        c.execute("UPDATE games SET placements = '[[0, 0, 0]]' WHERE run_id = 1 AND seed = 2")
    duplicates = []
    runs = load_runs([stores[0], copy], duplicates=duplicates)
    assert duplicates == [(str(stores[0]), 2, str(copy), 2)]  # the same text: a copy, read once
    assert [(r.store, r.info.run_id) for r in runs] == [(str(stores[0]), 1), (str(stores[0]), 2), (str(copy), 1)]
    assert all(g.placements == [] for r in runs for g in r.games.values())
    paired = compare_runs(runs)["paired"]
    assert [(d["a_run"][1], d["b_run"][1], d["a_minus_b"], d["stderr"]) for d in paired] == [(1, 1, 0.0, 0.0)]


def test_every_pairing_is_the_reference_pairing_of_its_two_runs_exactly(tmp_path):
    """compare_runs pairs aligned integer arrays (19,900 pairs of 200 runs of 500 games:
    4.1 s over dicts, 0.7 s so): each pairing must be run_difference's, to the last bit,
    for runs with gaps, negative scores and seeds far apart, of two systems."""
    import random

    from pokersquares.harness.compare import run_difference

    rng = random.Random(3)
    runs = []
    for k in range(8):
        seeds = rng.sample([*range(40), 10 ** 12, -5], rng.randint(1, 30))
        system = AMERICAN if k % 3 else BRITISH
        runs.append((f"p{k}", system, {s: rng.randint(-300, 400) for s in seeds}, 0.1))
    loaded = load_runs([_store(tmp_path / "r.sqlite", runs)])
    result = compare_runs(loaded)
    expected = [d for i, a in enumerate(loaded) for b in loaded[i + 1:] if (d := run_difference(a, b)) is not None]
    assert result["paired"] == expected and len(expected) >= 10
    assert {d["system"] for d in expected} == {"American", "British"}


def test_a_backup_made_before_an_upgrade_is_the_same_run(stores, tmp_path):
    """A store copied before an upgrade holds a run made before versions were kept (none);
    the upgraded release resuming it in the original writes its version in: the two were
    no longer one run, and `compare` printed the run against itself, "+0.00 ± 0.00"."""
    import shutil
    import sqlite3

    backup = tmp_path / "backup.sqlite"
    shutil.copy(stores[0], backup)
    with sqlite3.connect(backup) as conn:  # what an older release's store reads as
        conn.execute("UPDATE runs SET version = NULL")
    duplicates = []
    runs = load_runs([backup, stores[0]], duplicates=duplicates)
    assert len(runs) == 2 and len(duplicates) == 2, duplicates
    assert compare_runs(runs)["paired"] == []


def test_compare_says_whose_run_and_which_code(tmp_path):
    # A browser game's run is player "human"; `results` shows the person, compare --json
    # showed "human" alone, and two versions of one player's code alike.
    with ResultStore(tmp_path / "h.sqlite") as store:
        for name, version, score in (("Ada", "", 70), ("champion", "20", 120), ("champion", "19", 118)):
            run = store.open_run("human" if name == "Ada" else "champion", name, AMERICAN, 0, 1, 1.0, 0.0,
                                 version=version)
            store.add_games(run, [GameRecord(0, 0, score)])
    runs = compare_runs(load_runs([tmp_path / "h.sqlite"]))["runs"]
    assert [(r["player"], r["player_name"], r["version"]) for r in runs] == [
        ("human", "Ada", ""), ("champion", "champion", "20"), ("champion", "champion", "19")]
