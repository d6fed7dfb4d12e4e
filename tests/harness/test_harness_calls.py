"""The harness called from Python with bad values: one PokerSquaresError at the call,
never a TypeError from deep inside, a game of another deal, or a run recorded for a
call that was refused."""

import numpy as np
import pytest

from pokersquares.errors import InvalidPointSystemError, InvalidSeedError, PokerSquaresError
from pokersquares.harness.compare import load_runs
from pokersquares.harness.hands_made import hand_counts
from pokersquares.harness.runner import record_run, record_runs, run_games
from pokersquares.harness.spec import RunSpec, RunSpecError
from pokersquares.harness.store import GameRecord, ResultStore, StoreError
from pokersquares.harness.tournament import (TournamentError, bootstrap_errors, run_tournament,
                                             table_from_store)
from pokersquares.points import AMERICAN, BRITISH

LONG_MAX = 2 ** 63 - 1
QUICK = dict(time_per_game=5.0, prep_time=0.0)


def _spec(games=2):
    return RunSpec("random", AMERICAN, games, **QUICK)


# -- RunSpec -----------------------------------------------------------------------------
def test_a_numpy_first_seed_cannot_wrap_past_the_last_long():
    """np.int64 arithmetic wraps: seed + games - 1 came out negative and passed the check,
    and the run dealt seeds from -2**63 on."""
    with pytest.raises(InvalidSeedError, match="last game's seed"):
        RunSpec("random", AMERICAN, 3, np.int64(LONG_MAX))
    spec = RunSpec("random", AMERICAN, 2, np.int64(LONG_MAX - 1))
    assert type(spec.seed) is int and spec.seeds() == [LONG_MAX - 1, LONG_MAX]


@pytest.mark.parametrize("system", ["american", None, (0, 2, 5, 10, 15, 20, 25, 50, 75, 100)])
def test_a_run_spec_point_system_is_a_point_system(system):
    with pytest.raises(RunSpecError, match="PointSystem"):
        RunSpec("random", system, 1)


def test_a_run_spec_secret_is_text():
    with pytest.raises(RunSpecError, match="secret"):
        RunSpec("random", AMERICAN, 1, secret=5)


# -- run_games ---------------------------------------------------------------------------
@pytest.mark.parametrize("indices", [[2], [-1], [0.5], [True], None, "01", {0: 1}])
def test_run_games_plays_only_the_runs_own_games(indices):
    """An index outside 0..games-1 played (and returned) a deal that is not the run's:
    index 5 of a 2-game run was the deal of seed 5, -1 that of seed -1; 0.5 crashed the
    worker and came back as a penalised game of seed 0.5."""
    with pytest.raises(RunSpecError):
        run_games(_spec(), indices, workers=1)


def test_run_games_plays_each_game_once():
    # A game listed twice was played twice (the store keeps only the first record).
    with pytest.raises(RunSpecError, match="game 1 twice"):
        run_games(_spec(), [1, 0, 1], workers=1)


@pytest.mark.parametrize("workers", [0, -2, 1.5, "2", True])
def test_run_games_workers_are_a_whole_number_from_one(workers):
    with pytest.raises(RunSpecError, match="workers"):
        run_games(_spec(), [0], workers=workers)


def test_run_games_takes_a_run_spec():
    with pytest.raises(RunSpecError, match="RunSpec"):
        run_games({"player": "random"}, [0])


# -- record_run / record_runs: refused before the store is written -------------------------
@pytest.mark.parametrize("kwargs", [dict(workers=1.5), dict(workers="2"), dict(workers=0),
                                    dict(tournament_id=999), dict(tournament_id="1"),
                                    dict(player_name=5)])
def test_record_run_refuses_a_bad_call_before_recording_anything(tmp_path, kwargs):
    """A tournament id the store does not hold was recorded as the run's; a bad worker
    count left an empty run behind (or was taken as is)."""
    with ResultStore(tmp_path / "r.sqlite") as store:
        with pytest.raises(PokerSquaresError):
            record_run(_spec(), store, **kwargs)
        assert store.runs() == []


def test_record_run_takes_a_run_spec_and_a_store(tmp_path):
    with ResultStore(tmp_path / "r.sqlite") as store:
        with pytest.raises(RunSpecError, match="RunSpec"):
            record_run("random", store)
    with pytest.raises(RunSpecError, match="ResultStore"):
        record_run(_spec(), str(tmp_path / "r.sqlite"))


def test_record_runs_needs_a_name_for_every_run(tmp_path):
    """zip() cut the runs to the names given: two specs and one name played one run."""
    with ResultStore(tmp_path / "r.sqlite") as store:
        with pytest.raises(RunSpecError, match="1 player names for 2 runs"):
            record_runs([_spec(), RunSpec("random", BRITISH, 2, **QUICK)], store, player_names=["a"])
        assert store.runs() == []


# -- tournaments ---------------------------------------------------------------------------
@pytest.mark.parametrize("players, systems", [
    ("random", [AMERICAN]),             # its letters as players
    ({"random"}, [AMERICAN]),           # no order
    (["random"], "american"),           # text, not systems
    (["random"], ["american"]),         # names, not PointSystems
    ([5], [AMERICAN]),
])
def test_a_tournament_takes_lists_of_specs_and_point_systems(tmp_path, players, systems):
    with ResultStore(tmp_path / "t.sqlite") as store:
        with pytest.raises(TournamentError):
            run_tournament(players, systems, 1, 0, store, **QUICK)
        assert store.tournaments() == [] and store.runs() == []


def test_a_tournament_refuses_a_bad_store_or_worker_count(tmp_path):
    with pytest.raises(TournamentError, match="ResultStore"):
        run_tournament(["random"], [AMERICAN], 1, 0, None, **QUICK)
    with ResultStore(tmp_path / "t.sqlite") as store:
        with pytest.raises(RunSpecError, match="workers"):
            run_tournament(["random"], [AMERICAN], 1, 0, store, workers=0.5, **QUICK)
        assert store.tournaments() == []


def test_a_tournament_player_is_known_by_its_canonical_spec(tmp_path):
    """Its runs are keyed by the canonical spec ('random:' is 'random'): the tournament
    kept the spec as given, and its table read back from the store found no runs (every
    total 0); 'random' and 'random:' counted as two players of one run."""
    with ResultStore(tmp_path / "t.sqlite") as store:
        table = run_tournament(["random:"], [AMERICAN], 2, 0, store, workers=1, **QUICK)
        again = table_from_store(store, table["tournament_id"])
        assert again["totals"] == table["totals"] and again["complete"]
        assert next(iter(table["totals"]["American"].values())) > 0
        with pytest.raises(TournamentError, match="twice"):
            run_tournament(["random", "random:"], [AMERICAN], 2, 0, store, **QUICK)


@pytest.mark.parametrize("resamples", [2.5, True, 10 ** 12])
def test_bootstrap_resamples_are_a_bounded_whole_number(resamples):
    with pytest.raises(TournamentError, match="resamples"):
        bootstrap_errors(["a"], ["s"], {"s": {"a": [1, 2]}}, "a", resamples)


# -- the store -------------------------------------------------------------------------------
def test_a_closed_store_says_so(tmp_path):
    store = ResultStore(tmp_path / "c.sqlite")
    run = store.open_run("random", "random", AMERICAN, 0, 1, 1.0, 0.0)
    store.close()
    for call in (store.runs, lambda: store.games(run), lambda: store.run(run), store.tournaments,
                 lambda: store.add_games(run, [GameRecord(0, 0, 1)])):
        with pytest.raises(StoreError, match="closed"):
            call()
    store.close()  # closing twice is harmless


def test_games_are_not_recorded_for_a_run_the_store_does_not_hold(tmp_path):
    with ResultStore(tmp_path / "g.sqlite") as store:
        with pytest.raises(StoreError, match="no run 7"):
            store.add_games(7, [GameRecord(0, 0, 5)])
        with pytest.raises(StoreError, match="GameRecord"):
            store.add_games(7, [(0, 0, 5)])
        assert store.seeds_played(7) == (0, None, None)


@pytest.mark.parametrize("seeds", [["a"], [None], [1.5], "12", 5, np.int64(5)])
def test_the_seeds_to_read_are_integers(tmp_path, seeds):
    with ResultStore(tmp_path / "g.sqlite") as store:
        run = store.open_run("random", "random", AMERICAN, 0, 1, 1.0, 0.0)
        with pytest.raises(InvalidSeedError):
            store.games(run, seeds)


def test_store_calls_refuse_wrong_types(tmp_path):
    with pytest.raises(StoreError, match="path"):
        ResultStore(None)
    with ResultStore(tmp_path / "g.sqlite") as store:
        with pytest.raises(InvalidPointSystemError):
            store.open_run("random", "random", "american", 0, 1, 1.0, 0.0)
        with pytest.raises(StoreError, match="csv or json"):
            store.export_chunks("xml")
        assert store.runs() == []


# -- comparisons and hands ---------------------------------------------------------------
def test_load_runs_reads_one_path_as_one_store(tmp_path):
    """A path as text was read letter by letter: '/' is a folder, not a store."""
    path = tmp_path / "one.sqlite"
    with ResultStore(path) as store:
        run = store.open_run("random", "random", AMERICAN, 0, 1, 1.0, 0.0)
        store.add_games(run, [GameRecord(0, 0, 5)])
    assert [r.info.run_id for r in load_runs(str(path))] == [run]
    with pytest.raises(InvalidPointSystemError):
        load_runs([path], system=AMERICAN)
    with pytest.raises(StoreError):
        load_runs(None)


@pytest.mark.parametrize("grids", [np.arange(25) + 40, np.full(25, -1), np.arange(24), np.arange(25) * 1.0])
def test_hand_counts_refuses_what_is_not_grids_of_cards(grids):
    """The kernel trusts its card ids: ids 40..64 were classified (4 straight flushes)."""
    with pytest.raises(PokerSquaresError):
        hand_counts(grids)


# -- player specs and seeds ------------------------------------------------------------------
@pytest.mark.parametrize("spec", [None, 5, b"greedy"])
def test_a_player_spec_is_text(spec):
    from pokersquares.errors import UnknownPlayerError
    from pokersquares.harness.registry import canonical_spec, make_player
    with pytest.raises(UnknownPlayerError, match="text"):
        make_player(spec)
    with pytest.raises(UnknownPlayerError, match="text"):
        canonical_spec(spec)


def test_a_parameter_of_hundreds_of_digits_is_too_large_not_an_overflow():
    """float() of it raised OverflowError from inside the check of a number parameter."""
    from pokersquares.errors import UnknownPlayerError
    from pokersquares.harness.registry import make_player
    with pytest.raises(UnknownPlayerError, match="too large"):
        make_player("greedy:flush_weight=" + "9" * 400)


@pytest.mark.parametrize("secret, seed", [("s", 1.7), ("s", 2 ** 70), ("s", True), (None, 1)])
def test_a_player_seed_is_made_from_a_secret_and_a_deal_seed(secret, seed):
    """int(1.7) made it the player seed of deal 1, and a None secret an AttributeError."""
    from pokersquares.harness.seeds import player_seed
    with pytest.raises(InvalidSeedError):
        player_seed(secret, "game", seed)


def test_compare_runs_takes_recorded_runs():
    from pokersquares.harness.compare import CompareError, compare_runs
    for runs in ([1, 2], "ab", None):
        with pytest.raises(CompareError):
            compare_runs(runs)


def test_placements_that_are_not_a_list_make_no_grid():
    from pokersquares.harness.hands_made import grid_from_placements
    assert grid_from_placements(None) is None
