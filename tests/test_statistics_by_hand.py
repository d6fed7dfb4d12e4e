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
