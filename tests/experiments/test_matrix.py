"""The evaluator x search matrix: paired differences, runs in the store, the heat map."""

import json
import math
import sqlite3
import subprocess
from pathlib import Path

import pytest

from pokersquares.experiments.matrix import paired_difference


def test_paired_difference_uses_only_the_common_deals():
    a = {0: 10.0, 1: 14.0, 2: 9.0, 5: 100.0}
    b = {0: 8.0, 1: 11.0, 2: 9.0, 7: -100.0}
    mean, se, n = paired_difference(a, b)
    assert n == 3 and mean == pytest.approx(5 / 3)
    assert se == pytest.approx(math.sqrt(((2 - 5 / 3) ** 2 + (3 - 5 / 3) ** 2 + (5 / 3) ** 2) / 2 / 3))
    assert math.isnan(paired_difference({0: 1.0}, {0: 2.0})[1])


@pytest.fixture
def run(cli_here):
    """``pokersquares experiment matrix ARGS`` in this process (``cli_here``): the
    evaluators and searches played here run no parallel kernel."""
    def go(*args):
        return cli_here("experiment", "matrix", *args)
    return go


def test_cells_are_runs_in_the_store_and_a_rerun_reads_them_back(tmp_path: Path, run):
    db, plot = tmp_path / "m.sqlite", tmp_path / "m.png"
    args = ("--evaluators", "narl,possibility", "--searches", "expectimax", "--systems", "american,single:flush",
            "-n", "3", "--time-per-game", "0.3", "--prep-time", "0.35", "--db", str(db), "--plot", str(plot), "--json")
    r = run(*args)
    assert r.returncode == 0, r.stderr
    cells = json.loads(r.stdout)["cells"]
    # 2 systems x 2 evaluators x (greedy, expectimax): each row's greedy cell is played too.
    assert len(cells) == 8 and {c["search"] for c in cells} == {"greedy", "expectimax"}
    for c in cells:
        assert c["games"] == 3 and c["paired_games"] == 3 and c["spec"].startswith("hybrid:evaluator=")
        if c["search"] == "greedy":
            assert c["vs_greedy"] == 0.0
    by = {(c["system"], c["evaluator"], c["search"]): c for c in cells}
    for (system, ev, search), c in by.items():
        # Every deal is common to both cells: the paired mean is the difference of the means.
        assert c["vs_greedy"] == pytest.approx(c["mean"] - by[(system, ev, "greedy")]["mean"])
    assert plot.stat().st_size > 1000
    games = sqlite3.connect(db).execute("SELECT COUNT(*) FROM games").fetchone()[0]
    assert games == 24
    again = run(*args)
    assert again.returncode == 0, again.stderr
    assert [c["mean"] for c in json.loads(again.stdout)["cells"]] == [c["mean"] for c in cells]
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM games").fetchone()[0] == 24  # nothing replayed


def test_systems_typed_as_ten_integers_are_cells_of_their_own(tmp_path: Path, run):
    db, plot = tmp_path / "m.sqlite", tmp_path / "m.png"
    r = run("--evaluators", "narl", "--searches", "greedy", "--systems",
            "1,2,3,4,5,6,7,8,9,10; 0,0,0,0,0,0,0,0,0,1; american", "-n", "2", "--time-per-game", "1",
            "--prep-time", "0.35", "--db", str(db), "--plot", str(plot), "--json")
    assert r.returncode == 0, r.stderr
    cells = json.loads(r.stdout)["cells"]
    assert [c["system"] for c in cells] == ["custom", "custom (2)", "American"]
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM games").fetchone()[0] == 6


@pytest.mark.parametrize("args", [("--evaluators", "nope"), ("--searches", "greedy,bfs"), ("--systems", "mars"),
                                  ("--systems", "american,american"), ("--systems", "american;0,2,5,10,15,20,25,50,75,100"),
                                  ("--systems", "1,2,3"), ("--plot", "/nowhere/m.png"),
                                  ("--workers", "0")])
def test_bad_options_exit_2_and_record_nothing(tmp_path: Path, args, cli):
    db = tmp_path / "m.sqlite"
    code, _, err = cli("experiment", "matrix", "-n", "2", "--db", str(db), *args)
    assert code == 2 and "Traceback" not in err and err.startswith("error:") and err.count("\n") == 1, (args, err)
    assert not db.exists() or sqlite3.connect(db).execute("SELECT COUNT(*) FROM games").fetchone()[0] == 0


def test_two_systems_of_one_name_are_refused_not_merged():
    # The cells are keyed by system name: a caller's two custom systems (both "custom") lost
    # the first one's cells to the second's, silently.
    from pokersquares.experiments.matrix import matrix_specs
    from pokersquares.harness.runner import RunSpecError
    from pokersquares.points import PointSystem

    a, b = PointSystem((0, 1, 2, 3, 4, 5, 6, 7, 8, 9)), PointSystem((9, 8, 7, 6, 5, 4, 3, 2, 1, 0))
    with pytest.raises(RunSpecError, match="two point systems are named 'custom'"):
        matrix_specs(["narl"], ["greedy"], [a, b], 2, 0, 1.0, 1.0)
    cells = matrix_specs(["narl"], ["greedy"], [a, PointSystem(b.points, "reversed")], 2, 0, 1.0, 1.0)
    assert {k[0] for k in cells} == {"custom", "reversed"}


def test_the_heat_maps_title_fits_a_narrow_matrix(tmp_path: Path, monkeypatch):
    # Two searches make a figure narrower than the title, which was cut at both ends.
    import matplotlib.pyplot as plt

    from pokersquares.experiments.matrix import plot_matrix

    figures = []
    monkeypatch.setattr(plt, "close", figures.append)
    rows = [{"system": "American", "evaluator": "narl", "search": s, "mean": 100.0, "se": 1.0,
             "vs_greedy": d, "vs_greedy_se": 1.0} for s, d in (("greedy", 0.0), ("halving", 1.0))]
    title = "evaluator x search: 50 games per cell, 1 s per game, 30 s of preparation per cell"
    plot_matrix(rows, str(tmp_path / "m.png"), title)
    fig = figures[0]
    box = fig._suptitle.get_window_extent(fig.canvas.get_renderer())
    assert box.x0 >= 0 and box.x1 <= fig.bbox.width and fig._suptitle.get_text().replace("\n", " ") == title


def test_a_preparation_too_short_for_a_learning_row_is_refused(tmp_path: Path, cli):
    # At 0.2 s every learned row (narl, patterns, td) played the greedy rule under its own
    # name; possibility learns nothing and needs no time.
    db = tmp_path / "x.sqlite"
    code, _, err = cli("experiment", "matrix", "--evaluators", "narl,possibility", "--searches", "greedy", "-n", "2",
                       "--prep-time", "0.3", "--db", db)
    assert code == 2 and err.startswith("error: --prep-time 0.3 is too little for narl to learn") and not db.exists()
    from pokersquares.experiments.matrix import matrix_specs
    from pokersquares.points import AMERICAN

    assert len(matrix_specs(["possibility"], ["greedy"], [AMERICAN], 2, 0, 1.0, 0.0)) == 1
