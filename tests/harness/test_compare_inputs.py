"""``pokersquares compare`` (and ``--hands``) at the edges of what it reads: stores edited by
hand, runs whose games are all penalties, references that share no deals, optima not
proven, one game. Each is one ``error:`` line and exit 2, or a figure that says no more
than the data: never an internal error, a JSON Infinity or a run left out in silence."""

import json
import shutil
import sqlite3

import numpy as np
import pytest

from pokersquares.cards import deal
from pokersquares.harness.hands_made import GridSet, hand_counts, mix_summary
from pokersquares.harness.store import GameRecord, ResultStore
from pokersquares.optimum import Optimum
from pokersquares.optimum.store import OptimaStore
from pokersquares.points import AMERICAN


def _grid(seed: int, shift: int = 0) -> list[int]:
    """A full grid of the deal's first 25 cards (rotated by ``shift``: another player's)."""
    cards = deal(seed)[:25]
    return cards[shift:] + cards[:shift]


def _score(grid) -> int:
    return int(hand_counts(np.array([grid], dtype=np.int64))[0] @ np.array(AMERICAN.points))


def _games(seeds, shift=0, penalty=None) -> list[GameRecord]:
    return [GameRecord(i, s, -1 if penalty else _score(_grid(s, shift)),
                       [(c, k // 5, k % 5) for k, c in enumerate(_grid(s, shift))], 0.1, penalty)
            for i, s in enumerate(seeds)]


def _store(path, runs):
    """``runs``: (player, games)."""
    with ResultStore(path) as store:
        for player, games in runs:
            run = store.open_run(player, player, AMERICAN, 0, len(games), 1.0, 0.0)
            store.add_games(run, games)
    return path


@pytest.fixture
def played(tmp_path):
    return _store(tmp_path / "played.sqlite", [("greedy", _games(range(4))), ("random", _games(range(4), 3))])


@pytest.mark.parametrize("sql, damaged", [
    ("UPDATE games SET score = 'abc' WHERE run_id = 1 AND game_index = 0", "score"),
    # A fraction was cut to 70 when paired while the run's mean used 70.5.
    ("UPDATE games SET score = 70.5 WHERE run_id = 1 AND game_index = 0", "score"),
    # Past any game's score: the paired int64 sums overflowed ("math domain error").
    ("UPDATE games SET score = 9223372036854775807 WHERE run_id = 1", "score"),
    ("UPDATE games SET decision_s = 9e999 WHERE run_id = 1 AND game_index = 0", "decision time"),  # Infinity
    ("UPDATE games SET decision_s = 'x' WHERE run_id = 1 AND game_index = 0", "decision time"),
    ("UPDATE games SET seed = 'x' WHERE run_id = 1 AND game_index = 0", "seed"),
    ("UPDATE games SET fallback_moves = 'x' WHERE run_id = 1 AND game_index = 0", "fallback move count"),
    ("UPDATE runs SET points = '[1, 2]' WHERE run_id = 1", "point values"),
    ("UPDATE runs SET points = '[1, 2' WHERE run_id = 1", "point values"),
    ("UPDATE runs SET time_per_game = 9e999 WHERE run_id = 1", "time per game"),
])
@pytest.mark.parametrize("extra", [(), ("--json",), ("--hands",)])
def test_a_store_edited_by_hand_is_one_error_line_naming_what_is_damaged(played, tmp_path, cli, sql, damaged, extra):
    edited = tmp_path / "edited.sqlite"
    shutil.copy(played, edited)
    with sqlite3.connect(edited) as c:
        c.execute(sql)
    c.close()
    code, out, err = cli("compare", edited, *extra)
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1, err
    assert damaged in err and "edited" in err and not out


def test_a_run_whose_games_are_all_penalties_is_listed_not_dropped(played, cli):
    with ResultStore(played) as store:
        run = store.open_run("crash", "crash", AMERICAN, 0, 4, 1.0, 0.0)
        store.add_games(run, _games(range(4), penalty="raised"))
    code, out, err = cli("compare", played, "--hands")
    assert code == 0, err
    assert "crash (run 3)  lines       0  no full grid: 4 game(s) left out" in out
    code, out, _ = cli("compare", played, "--hands", "--json")
    [american] = json.loads(out)["systems"]
    crash = american["runs"][2]
    assert (crash["label"], crash["games"], crash["left_out"], crash["mean"], crash["stderr"]) == (
        "crash (run 3)", 0, 4, None, None)
    assert all(h["lines_per_game"] is None for h in crash["hands"])  # no grid: no figure, not a measured 0
    assert [d["a"] for d in american["differences"]] == ["random (run 2)"]


@pytest.mark.parametrize("extra", [(), ("--json",)])
def test_hands_with_no_grid_at_all_is_an_error_not_an_empty_table(tmp_path, cli, extra):
    db = _store(tmp_path / "crashed.sqlite", [("crash", _games(range(3), penalty="raised"))])
    code, out, err = cli("compare", db, "--hands", *extra)
    assert code == 2 and err == "error: no run has a full grid to count hands in (every game a penalty, " \
                                "or unfinished)\n" and not out


def test_against_a_run_without_a_grid_is_an_error_not_another_reference(played, cli):
    with ResultStore(played) as store:
        run = store.open_run("crash", "crash", AMERICAN, 0, 4, 1.0, 0.0)
        store.add_games(run, _games(range(4), penalty="raised"))
    code, out, err = cli("compare", played, "--hands", "--against", "crash")
    assert code == 2 and not out
    assert err == "error: --against crash: no run whose player spec contains 'crash' has a full grid (its games " \
                  "are penalties or unfinished)\n"


@pytest.mark.parametrize("against", ["", "  "])
def test_an_empty_against_is_an_error_not_every_run(played, cli, against):
    code, out, err = cli("compare", played, "--hands", "--against", against)
    assert code == 2 and err.startswith("error: --against is empty") and err.count("\n") == 1 and not out


def _optima(path, seeds, proven=True):
    with OptimaStore(path) as store:
        for s in seeds:
            g = _grid(s, 7)
            store.put(Optimum(s, "American", AMERICAN.points, _score(g), _score(g) + (0 if proven else 50), proven,
                              g, 0.1, _score(g)), 1)
    return path


def test_a_reference_that_shares_no_two_deals_is_said_not_left_out(played, tmp_path, cli):
    """Optima of one deal became the reference: no run shares two deals with it, and the
    differences were left out without a word."""
    optima = _optima(tmp_path / "optima.sqlite", [2])
    code, out, err = cli("compare", played, "--hands", "--optima", optima)
    assert code == 0, err
    assert "no run shares two deals with optimum: no difference by hand type" in out


def test_optima_not_proven_are_not_called_optimal_in_silence(played, tmp_path, cli):
    optima = _optima(tmp_path / "optima.sqlite", [0, 1, 2])
    with OptimaStore(optima) as store:  # deal 3: only the best grid found
        g = _grid(3, 7)
        store.put(Optimum(3, "American", AMERICAN.points, _score(g), 1000, False, g, 0.1, _score(g)), 1)
    code, out, err = cli("compare", played, "--hands", "--optima", optima)
    assert code == 0, err
    assert "(1 of 4 not proven optimal: the best grid found)" in out
    code, out, _ = cli("compare", played, "--hands", "--optima", optima, "--json")
    runs = json.loads(out)["systems"][0]["runs"]
    assert [(r["label"], r["unproven"]) for r in runs] == [("optimum", 1), ("greedy (run 1)", 0), ("random (run 2)", 0)]


def test_one_grid_has_no_standard_error(tmp_path, cli):
    """A mean of one grid measures no spread: its SE was 0.0, as if measured exactly."""
    one = GridSet("one", AMERICAN.points, np.array([5]), np.array([_grid(5)]))
    summary = mix_summary(one)
    assert summary["games"] == 1 and summary["stderr"] is None and summary["mean"] == _score(_grid(5))
    db = _store(tmp_path / "one.sqlite", [("greedy", _games([5]))])
    code, out, err = cli("compare", db, "--hands", "--json")
    assert code == 0 and json.loads(out)["systems"][0]["runs"][0]["stderr"] is None, err
