"""The toolkit's printed statistics recomputed by hand, straight from the store's rows."""

import sqlite3

import numpy as np
import pytest

from pokersquares.harness.store import ResultStore
from pokersquares.harness.tournament import run_tournament, table_from_store
from pokersquares.points import parse_point_systems


def test_an_incomplete_tournaments_gap_to_the_first_pairs_the_same_deals_by_seed(tmp_path):
    # Interrupted with two workers, a run may hold game 6 and not game 5: both players
    # then hold as many games, of different deals. The gap to the first is paired on the
    # deals both hold, matched by seed, not by position in the list.
    db = tmp_path / "t.sqlite"
    with ResultStore(db) as store:
        run_tournament(["random", "greedy"], parse_point_systems("american"), 8, 0, store,
                       time_per_game=5.0, prep_time=0.0)
    with sqlite3.connect(db) as conn:
        runs = dict(conn.execute("SELECT player, run_id FROM runs"))
        conn.execute("DELETE FROM games WHERE run_id = ? AND game_index = 2", (runs["random"],))
        conn.execute("DELETE FROM games WHERE run_id = ? AND game_index = 5", (runs["greedy"],))
        held = {p: dict(conn.execute("SELECT seed, score FROM games WHERE run_id = ?", (r,))) for p, r in runs.items()}
    common = sorted(set(held["random"]) & set(held["greedy"]))
    assert len(common) == 6
    diffs = np.array([held["random"][s] - held["greedy"][s] for s in common], dtype=float)
    with ResultStore(db, readonly=True) as store:
        table = table_from_store(store, 1)
    row = table["behind_first"]["American"]
    assert row["first"] == "greedy"
    assert row["players"]["random"]["diff"] == pytest.approx(diffs.mean())
    assert row["players"]["random"]["se"] == pytest.approx(diffs.std(ddof=1) / np.sqrt(len(diffs)))
    # The totals and means stay those of every game held (the table says it is incomplete).
    assert table["totals"]["American"]["random"] == sum(held["random"].values())
    assert table["means"]["American"]["greedy"] == pytest.approx(np.mean(list(held["greedy"].values())))
    assert table["complete"] is False


def test_bench_strengths_line_rounds_the_mean_once(monkeypatch):
    # 1,999 games of 115 and one of 126: the mean is 115.0055, which is 115.01 to two
    # decimals; rounded first to three (115.005, held as 115.00499...) it printed 115.00.
    from pokersquares import strength

    scores = [115] * 1999 + [126]
    agent = strength.StrengthAgent("fake", lambda points: None, lambda: None, len(scores))
    monkeypatch.setattr(strength, "AGENTS", (agent,))
    monkeypatch.setattr(strength, "play", lambda evaluator, search, points, seed: scores[seed])
    lines: list[str] = []
    out = strength.run_strength(progress=lines.append)
    se = np.std(scores, ddof=1) / np.sqrt(len(scores))
    assert np.mean(scores) == pytest.approx(115.0055)
    assert lines[0].startswith(f"fake: 115.01 ± {se:.2f} (2000 games")
    assert out["fake"]["games"] == 2000 and out["fake"]["se"] == round(se, 3)


def test_one_game_has_no_standard_error_rather_than_plus_or_minus_zero(cli, tmp_path):
    """`run --games 1` printed `mean 82.00 ± 0.00 (stderr) ... sd 0.00` and its JSON
    `"stderr": 0.0`, where `compare` says "-" and null: one game tells no spread."""
    import json
    db = tmp_path / "one.sqlite"
    code, out, err = cli("run", "-p", "greedy", "--games", "1", "--prep-time", "0", "--time-per-game", "1",
                         "--db", db, "-q")
    assert code == 0, err
    assert "(one game: no stderr, no sd)" in out and "±" not in out
    code, out, err = cli("run", "-p", "greedy", "--games", "1", "--prep-time", "0", "--time-per-game", "1",
                         "--db", db, "-q", "--json")
    summary = json.loads(out)
    assert summary["stderr"] is None and summary["stdev"] is None and summary["games"] == 1
    code, out, err = cli("run", "-p", "greedy", "--games", "3", "--prep-time", "0", "--time-per-game", "1",
                         "--db", db, "-q", "--json")
    summary = json.loads(out)
    assert summary["stderr"] == pytest.approx(np.std(summary["scores"], ddof=1) / np.sqrt(3))


def test_a_regret_over_one_deal_has_no_standard_error():
    """`results --optima` on a run of one deal printed `0.406 ± 0.000 of the optimum,
    regret 120.00 ± 0.00`."""
    from pokersquares.optimum import Optimum
    from pokersquares.optimum.regret import format_regret, regret_summary
    from pokersquares.points import AMERICAN
    optima = {s: Optimum(s, "x", AMERICAN.points, o, o, True, [], 0.0, o) for s, o in [(0, 200), (1, 100)]}
    one = regret_summary([(0, 80)], optima)
    assert one["regret"] == 120 and one["regret_stderr"] is None and one["fraction_stderr"] is None
    assert "±" not in format_regret(one) and "regret 120.00 (optimum 200.00 on 1 deals" in format_regret(one)
    two = regret_summary([(0, 80), (1, 60)], optima)
    assert two["regret_stderr"] == pytest.approx(np.std([120, 40], ddof=1) / np.sqrt(2))
    assert "regret 80.00 ± 40.00" in format_regret(two)


def test_hands_made_by_one_grid_have_no_standard_error(tmp_path):
    """`compare --hands` (and the Results page's table) gave a one-game run per-hand SEs
    of 0.0 while its total's was null; the page read them with toFixed."""
    from pokersquares.harness.compare import load_runs
    from pokersquares.harness.hands_made import compare_hands
    from pokersquares.harness.runner import RunSpec, record_run
    from pokersquares.points import AMERICAN
    db = tmp_path / "one.sqlite"
    with ResultStore(db) as store:
        record_run(RunSpec("greedy", AMERICAN, 1, 0, 1.0, 0.0), store, workers=1)
        record_run(RunSpec("random", AMERICAN, 3, 0, 1.0, 0.0), store, workers=1)
    mixes = compare_hands(load_runs([db]))
    one, three = sorted(mixes[0]["runs"], key=lambda r: r["games"])
    assert one["games"] == 1 and one["stderr"] is None
    assert all(h["lines_stderr"] is None and h["points_stderr"] is None for h in one["hands"])
    assert three["games"] == 3 and all(h["points_stderr"] is not None for h in three["hands"])
