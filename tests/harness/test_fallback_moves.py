"""A search that falls back to its evaluator's greedy rule for lack of time counts those
moves in the game's record, and the store keeps, sums and exports them."""

import json
import sqlite3

from pokersquares import AMERICAN
from pokersquares.harness.game_play import play_game
from pokersquares.harness.registry import make_player
from pokersquares.harness.store import GameRecord, ResultStore


def _played(time_per_game):
    player = make_player("gettysburg:games=2000")
    player.warm_up()
    player.set_point_system(AMERICAN, 5.0)
    return play_game(player, AMERICAN, 5, time_per_game)


def test_moves_without_time_to_search_are_counted():
    starved = _played(0.05)
    assert starved.penalty is None and starved.fallback_moves > 10  # no time: expectimax left to greedy
    assert _played(5.0).fallback_moves == 0


def test_moves_the_clock_cut_short_are_counted(fake_clock):
    """Expectimax with time for some of its cells plays a searched move, neither the
    greedy one nor the move a full search makes: a replay on a faster or slower machine
    searches other cells, so the game's record counts it (it counted none, and a replay
    of 0 fallback moves both times played other games). With time for every cell, none."""
    from pokersquares.search import expectimax

    player = make_player("gettysburg:games=200")
    player.warm_up()
    player.set_point_system(AMERICAN, 5.0)
    fake_clock.install(expectimax)
    cell_s = [1e-6]  # a cell's search on expectimax's own clock; the MoveClock gives a move about 0.2 s
    fake_clock.charge_per(player.evaluator, "best_placement_values", lambda grid, cards: cell_s[0])
    full = play_game(player, AMERICAN, 5, 5.0)
    cell_s[0] = 0.05
    cut = play_game(player, AMERICAN, 5, 5.0)
    assert full.penalty is None and full.fallback_moves == 0
    assert cut.penalty is None and cut.fallback_moves > 10


def test_the_store_keeps_sums_and_exports_fallback_moves(tmp_path):
    with ResultStore(tmp_path / "r.sqlite") as store:
        run_id = store.open_run("x", "x", AMERICAN, 0, 2, 1.0, 0.0)
        store.add_games(run_id, [GameRecord(0, 0, 50, [], 0.5, None, 3), GameRecord(1, 1, 60, [], 0.5, None, 4)])
        assert [g.fallback_moves for g in store.games(run_id)] == [3, 4]
        assert store.run(run_id).fallback_moves == 7
        assert [r["fallback_moves"] for r in store.export_rows()] == [3, 4]
        assert store.export_csv().splitlines()[0].split(",").count("fallback_moves") == 1


def _old_store(path):
    """A store as made before games had fallback_moves (and runs a secret): one game."""
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE runs (run_id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, player TEXT NOT NULL,
            player_name TEXT NOT NULL, system_name TEXT NOT NULL, points TEXT NOT NULL, seed INTEGER NOT NULL,
            games INTEGER NOT NULL, time_per_game REAL NOT NULL, prep_time REAL NOT NULL,
            tournament_id INTEGER, created REAL NOT NULL);
        CREATE TABLE games (run_id INTEGER NOT NULL, game_index INTEGER NOT NULL, seed INTEGER NOT NULL,
            score INTEGER NOT NULL, placements TEXT NOT NULL, decision_s REAL NOT NULL, penalty TEXT,
            finished REAL NOT NULL, PRIMARY KEY (run_id, game_index));""")
    conn.execute("INSERT INTO runs VALUES (1, 'k', 'greedy', 'greedy', 'American', ?, 0, 1, 1.0, 0.0, NULL, 0)",
                 (json.dumps(list(AMERICAN.points)),))
    conn.execute("INSERT INTO games VALUES (1, 0, 0, 70, '[]', 0.1, NULL, 0)")
    conn.commit()
    conn.close()
    return path


def test_a_store_made_before_the_column_gains_it(tmp_path):
    with ResultStore(_old_store(tmp_path / "old.sqlite")) as store:
        assert [g.fallback_moves for g in store.games(1)] == [0]
        store.add_games(1, [GameRecord(1, 1, 80, [], 0.1, None, 2)])
        assert store.run(1).fallback_moves == 2
        assert len(store.run_secret(1)) == 32  # made for the old run when first asked for


def test_a_store_made_before_the_column_reads_read_only(tmp_path):
    with ResultStore(_old_store(tmp_path / "old.sqlite"), readonly=True) as store:
        assert [g.fallback_moves for g in store.games(1)] == [0] and store.run(1).fallback_moves == 0


def test_a_greedy_search_gives_nothing_up_so_counts_nothing():
    player = make_player("og:train_games=200,eval_games=200")
    player.warm_up()
    player.set_point_system(AMERICAN, 0.5)
    assert play_game(player, AMERICAN, 5, 0.05).fallback_moves == 0
