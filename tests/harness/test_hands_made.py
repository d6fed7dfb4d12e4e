"""Which hands recorded grids made (harness/hands_made.py) and ``pokersquares compare --hands``."""

import json
import math
import statistics
from collections import Counter

import numpy as np
import pytest

from pokersquares.cards import deal
from pokersquares.game import LINES
from pokersquares.hands import NUM_HANDS, HandId, classify
from pokersquares.harness.compare import load_runs
from pokersquares.harness.hands_made import (GridSet, compare_hands, grid_from_placements, hand_counts, mix_difference,
                                             mix_summary)
from pokersquares.harness.store import GameRecord, ResultStore
from pokersquares.optimum import Optimum
from pokersquares.optimum.store import OptimaStore
from pokersquares.points import AMERICAN, BRITISH


def reference_counts(grid) -> list[int]:
    """The plain-Python rule: each of the 10 lines classified by ``hands.classify``."""
    made = Counter(int(classify([int(grid[i]) for i in line])) for line in LINES)
    return [made[h] for h in range(NUM_HANDS)]


def reference_score(grid, points) -> int:
    return sum(points[h] * n for h, n in enumerate(reference_counts(grid)))


def sorted_grid(seed: int) -> np.ndarray:
    """A deal's 25 cards sorted by rank then suit, row-major: rows of one rank, so pairs,
    trips, quads and full houses, while columns hold flushes and straights often enough."""
    cards = sorted(deal(seed)[:25], key=lambda c: (c % 13, c // 13))
    return np.array(cards, dtype=np.int64)


def test_the_kernel_counts_what_the_reference_classifies():
    grids = np.array([deal(s)[:25] for s in range(300)] + [sorted_grid(s) for s in range(300)], dtype=np.int64)
    counts = hand_counts(grids)
    assert counts.shape == (600, NUM_HANDS) and (counts.sum(axis=1) == 10).all()
    for grid, row in zip(grids, counts):
        assert list(row) == reference_counts(grid)
    assert counts[300:, HandId.FULL_HOUSE].sum() + counts[300:, HandId.FOUR_OF_A_KIND].sum() > 0


def test_a_hand_built_grid_is_counted_line_by_line():
    # Rows: four of a kind + a card, a full house, a flush, a straight, high card; its
    # columns are whatever those rows leave (checked against the reference).
    c = lambda rank, suit: 13 * suit + rank  # noqa: E731  (cards.card's encoding)
    from pokersquares.cards import card
    assert all(card(r, s) == c(r, s) for r in range(13) for s in range(4))
    rows = [[c(4, 0), c(4, 1), c(4, 2), c(4, 3), c(0, 0)],
            [c(8, 0), c(8, 1), c(8, 2), c(2, 1), c(2, 2)],
            [c(1, 3), c(5, 3), c(7, 3), c(9, 3), c(11, 3)],
            [c(6, 0), c(7, 1), c(9, 2), c(10, 0), c(12, 1)],  # 7 8 T J K: high card
            [c(3, 1), c(5, 2), c(10, 3), c(11, 0), c(12, 2)]]
    grid = np.array([x for row in rows for x in row], dtype=np.int64)
    counts = hand_counts(grid[None])[0]
    assert list(counts) == reference_counts(grid)
    assert counts[HandId.FOUR_OF_A_KIND] >= 1 and counts[HandId.FULL_HOUSE] >= 1 and counts[HandId.FLUSH] >= 1


def test_placements_become_a_grid_only_when_they_fill_every_cell_once():
    cards = deal(3)[:25]
    placements = [(card, i // 5, i % 5) for i, card in enumerate(cards)]
    assert list(grid_from_placements(placements)) == cards
    assert grid_from_placements(placements[:24]) is None
    twice = placements[:24] + [(cards[24], 0, 0)]
    assert grid_from_placements(twice) is None
    assert grid_from_placements(placements[:24] + [(cards[24], 5, 0)]) is None
    # A store written by hand: card ids out of range, a card twice, text for a number.
    assert grid_from_placements(placements[:24] + [(52, 4, 4)]) is None
    assert grid_from_placements(placements[:24] + [(cards[0], 4, 4)]) is None
    assert grid_from_placements(placements[:24] + [(str(cards[24]), 4, 4)]) is None
    assert grid_from_placements(placements[:24] + [(cards[24], 4)]) is None


def _set(label, seeds, grids, points=AMERICAN.points):
    return GridSet(label, tuple(points), np.array(seeds, dtype=np.int64), np.array(grids, dtype=np.int64))


def test_the_points_by_hand_add_up_to_the_mean_score():
    grids = [sorted_grid(s) for s in range(40)]
    summary = mix_summary(_set("sorted", range(40), grids))
    scores = [reference_score(g, AMERICAN.points) for g in grids]
    assert summary["games"] == 40 and summary["mean"] == pytest.approx(statistics.fmean(scores))
    assert summary["stderr"] == pytest.approx(statistics.stdev(scores) / math.sqrt(40))
    assert sum(h["points_per_game"] for h in summary["hands"]) == pytest.approx(summary["mean"])
    assert sum(h["lines_per_game"] for h in summary["hands"]) == pytest.approx(10)
    fh = [reference_counts(g)[HandId.FULL_HOUSE] for g in grids]
    full_house = summary["hands"][HandId.FULL_HOUSE]
    assert full_house["hand"] == "full house" and full_house["lines_per_game"] == pytest.approx(statistics.fmean(fh))
    assert full_house["points_per_game"] == pytest.approx(25 * statistics.fmean(fh))
    assert full_house["points_stderr"] == pytest.approx(25 * statistics.stdev(fh) / math.sqrt(40))


def test_differences_are_paired_on_the_deals_both_hold():
    a = _set("sorted", [0, 1, 2, 3, 4, 5], [sorted_grid(s) for s in range(6)])
    b = _set("dealt", [2, 3, 4, 5, 6, 7, 8], [deal(s)[:25] for s in range(2, 9)])
    d = mix_difference(a, b)
    assert d["deals"] == 4 and d["a"] == "sorted" and d["b"] == "dealt"
    totals = [reference_score(sorted_grid(s), AMERICAN.points) - reference_score(deal(s)[:25], AMERICAN.points)
              for s in (2, 3, 4, 5)]
    assert d["a_minus_b"] == pytest.approx(statistics.fmean(totals))
    assert d["stderr"] == pytest.approx(statistics.stdev(totals) / 2)
    assert sum(h["points"] for h in d["hands"]) == pytest.approx(d["a_minus_b"])
    pairs = [reference_counts(sorted_grid(s))[1] - reference_counts(deal(s)[:25])[1] for s in (2, 3, 4, 5)]
    assert d["hands"][HandId.ONE_PAIR]["lines"] == pytest.approx(statistics.fmean(pairs))
    assert d["hands"][HandId.ONE_PAIR]["points"] == pytest.approx(2 * statistics.fmean(pairs))
    # Different points, or a single common deal: nothing to compare.
    assert mix_difference(a, _set("british", range(6), [deal(s)[:25] for s in range(6)], BRITISH.points)) is None
    assert mix_difference(a, _set("one", [5, 9], [deal(5)[:25], deal(9)[:25]])) is None


def _record(store: ResultStore, player: str, system, grids: dict, penalised=()) -> int:
    run = store.open_run(player, player, system, min(grids), len(grids) + len(penalised), 1.0, 0.0)
    records = [GameRecord(i, seed, reference_score(g, system.points), [(int(c), k // 5, k % 5) for k, c in enumerate(g)],
                          decision_s=0.1) for i, (seed, g) in enumerate(sorted(grids.items()))]
    # A penalised game scores the penalty whatever its grid: even a full one is no grid of its play.
    records += [GameRecord(len(records) + j, seed, -1, [(int(c), k // 5, k % 5) for k, c in enumerate(deal(seed)[:25])],
                           decision_s=30.0, penalty="timeout") for j, seed in enumerate(penalised)]
    store.add_games(run, records)
    return run


@pytest.fixture
def stores(tmp_path):
    games = tmp_path / "games.sqlite"
    with ResultStore(games) as store:
        _record(store, "sorter", AMERICAN, {s: sorted_grid(s) for s in range(6)}, penalised=[6])
        _record(store, "dealer", AMERICAN, {s: np.array(deal(s)[:25]) for s in range(6)})
        _record(store, "dealer", BRITISH, {s: np.array(deal(s)[:25]) for s in range(3)})
    optima = tmp_path / "optima.sqlite"
    with OptimaStore(optima) as store:
        for s in range(4):  # "optima" for deals 0..3: the sorted grids, only to have grids to compare with
            g = sorted_grid(s)
            score = reference_score(g, AMERICAN.points)
            store.put(Optimum(s, "American", AMERICAN.points, score, score, True, [int(c) for c in g], 0.1, score), 1)
    return games, optima


def test_compare_hands_takes_the_optima_as_reference_where_they_exist(stores):
    games, optima = stores
    systems = compare_hands(load_runs([games]), [optima])
    american, british = systems
    assert american["against"] == "optimum" and british["against"] == "dealer (run 3)"
    assert [r["label"] for r in american["runs"]] == ["optimum", "sorter (run 1)", "dealer (run 2)"]
    assert american["runs"][1]["games"] == 6 and american["runs"][1]["left_out"] == 1
    sorter = american["differences"][0]
    assert sorter["a"] == "sorter (run 1)" and sorter["deals"] == 4 and sorter["a_minus_b"] == pytest.approx(0)
    assert british["differences"] == []  # one run: nothing to compare with
    without = compare_hands(load_runs([games]))
    assert without[0]["against"] == "sorter (run 1)" and without[0]["differences"][0]["deals"] == 6
    # --against names the reference: a player (on each system that has it), or the optima.
    dealer = compare_hands(load_runs([games]), [optima], against="dealer")
    assert [s["against"] for s in dealer] == ["dealer (run 2)", "dealer (run 3)"]
    assert [d["a"] for d in dealer[0]["differences"]] == ["optimum", "sorter (run 1)"]
    assert dealer[0]["differences"][1]["deals"] == 6
    assert compare_hands(load_runs([games]), [optima], against="optimum")[0]["against"] == "optimum"


def test_the_command_prints_the_hands_and_the_differences(stores, run_compare):
    games, optima = stores
    r = run_compare(games, "--hands", "--optima", optima, "--system", "american")
    assert r.returncode == 0, r.stderr
    assert "American: hands made per game by type" in r.stdout and "each run − optimum" in r.stdout
    assert "(1 left out: a penalty, or no full grid)" in r.stdout
    out = json.loads(run_compare(games, "--hands", "--json").stdout)
    assert [s["system"] for s in out["systems"]] == ["American", "British"]
    assert out["systems"][0]["against"] == "sorter (run 1)"
    dealer = out["systems"][0]["runs"][1]
    expected = statistics.fmean(reference_score(deal(s)[:25], AMERICAN.points) for s in range(6))
    assert dealer["mean"] == pytest.approx(expected)


def test_a_stored_optimum_that_is_no_grid_is_left_out(stores):
    import sqlite3
    games, optima = stores
    with sqlite3.connect(optima) as db:  # a store edited by hand: a card id out of range
        db.execute("UPDATE optima SET grid = '[99, 1, 2]' WHERE seed = 2")
    [american, _] = compare_hands(load_runs([games]), [optima])
    best = american["runs"][0]
    assert best["label"] == "optimum" and best["games"] == 3 and best["left_out"] == 1
    assert best["score_mismatches"] == 0 and american["runs"][1]["score_mismatches"] == 0


def test_grids_that_do_not_score_what_was_recorded_are_told(tmp_path, run_compare):
    games = tmp_path / "edited.sqlite"
    with ResultStore(games) as store:
        run = _record(store, "greedy", AMERICAN, {s: np.array(deal(s)[:25]) for s in range(3)})
        store.conn.execute("UPDATE games SET score = score + 1 WHERE run_id = ? AND seed = 1", (run,))
        store.conn.commit()
    [american] = compare_hands(load_runs([games]))
    assert american["runs"][0]["score_mismatches"] == 1
    r = run_compare(games, "--hands")
    assert r.returncode == 0 and "1 grid(s) do not score what their game recorded" in r.stderr


def test_optima_stored_beside_the_games_need_no_option(stores, run_compare):
    games, optima = stores
    with OptimaStore(games) as store, OptimaStore(optima, readonly=True) as held:
        for seed, opt in held.many(range(4), AMERICAN.points).items():
            store.put(opt, 1)
    out = json.loads(run_compare(games, "--hands", "--json", "--system", "american").stdout)
    assert out["systems"][0]["against"] == "optimum" and out["systems"][0]["runs"][0]["games"] == 4


@pytest.mark.parametrize("extra, message", [
    (("--optima", "{optima}"), "--optima goes with --hands"),
    (("--hands", "--optima", "nope.sqlite"), "no store of optima at nope.sqlite"),
    (("--against", "dealer"), "--against goes with --hands"),
    (("--hands", "--against", "tiger"), "--against tiger: no run's player spec contains it"),
    (("--hands", "--against", "optimum"), "--against optimum: no run's player spec contains it (the optima need"),
])
def test_bad_options_are_one_line_errors(stores, run_compare, extra, message):
    games, optima = stores
    r = run_compare(games, *[x.format(optima=optima) for x in extra])
    assert r.returncode == 2 and r.stderr.startswith(f"error: {message}") and not r.stdout
    assert len(r.stderr.strip().splitlines()) == 1
