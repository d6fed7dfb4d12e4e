"""TdEvaluator: its value is the NARL table's plus the residual, fixed work, pickling, options."""

import pickle

import numpy as np
import pytest

from pokersquares import AMERICAN
from pokersquares.errors import PokerSquaresError
from pokersquares.evaluators.td import TdEvaluator, parse_groups
from pokersquares.kernels import td as K

POINTS = np.array(AMERICAN.points, dtype=np.int64)


@pytest.fixture(scope="module")
def learned() -> TdEvaluator:
    ev = TdEvaluator(games=2000, td_games=1000, threads=1)
    ev.prepare(POINTS, 0.0, seed=5)
    return ev


def _grids(count, seed):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        grid = np.full(25, -1, dtype=np.int8)
        n = int(rng.integers(0, 25))
        grid[rng.permutation(25)[:n]] = rng.permutation(52)[:n]
        yield grid


def test_fixed_work_learns_the_games_asked_for(learned):
    assert learned.narl.games_learned == 2000
    assert learned.td_games_learned == 1000
    assert np.count_nonzero(learned.theta) > 0


def test_a_value_is_the_table_value_plus_the_residual(learned):
    for grid in _grids(30, 1):
        assert learned.state_value(grid) == pytest.approx(learned.narl.state_value(grid) + learned.residual(grid))


def test_one_thread_learns_the_same_weights_again():
    a, b = (TdEvaluator(games=300, td_games=300, threads=1) for _ in range(2))
    a.prepare(POINTS, 0.0, seed=2)
    b.prepare(POINTS, 0.0, seed=2)
    np.testing.assert_array_equal(a.theta, b.theta)


def test_two_threads_learn_into_the_same_weights():
    ev = TdEvaluator(games=300, td_games=600, threads=2)
    ev.prepare(POINTS, 0.0, seed=2)
    assert ev.td_games_learned == 600 and np.count_nonzero(ev.theta) > 0


def test_the_time_budget_learns_the_table_then_the_residual():
    ev = TdEvaluator(threads=1)
    # 3 s: at 1 s, with two other suites' processes on the two cores, the residual's share
    # (30 % of 85 %) ended before its first batch of games.
    ev.prepare(POINTS, 3.0, seed=3)
    assert ev.narl.games_learned > 0 and ev.td_games_learned > 0


def test_a_pickled_evaluator_values_grids_the_same(learned):
    copy = pickle.loads(pickle.dumps(learned))
    for grid in _grids(10, 2):
        assert copy.state_value(grid) == learned.state_value(grid)


def test_groups_by_name():
    assert parse_groups("sizes,suits,joint,ranks") == K.ALL_GROUPS
    assert parse_groups("suits, joint") == K.GROUP_SUITS | K.GROUP_JOINT
    assert parse_groups("suits+joint") == K.GROUP_SUITS | K.GROUP_JOINT  # as a player spec can say it
    assert parse_groups("default+discard") == K.ALL_GROUPS | K.GROUP_DISCARD
    assert parse_groups("default+cross") == K.ALL_GROUPS | K.GROUP_CROSS
    with pytest.raises(PokerSquaresError, match="colours"):
        parse_groups("suits,colours")


def test_no_groups_is_the_table_alone():
    ev = TdEvaluator(groups="", games=500, td_games=100, threads=1)
    ev.prepare(POINTS, 0.0, seed=1)
    for grid in _grids(10, 3):
        assert ev.state_value(grid) == ev.narl.state_value(grid)


def test_a_saved_evaluator_loads_back_and_is_kept_for_its_points(learned, tmp_path):
    path = tmp_path / "td.npz"
    learned.save(path, point_system_name="American")
    twin = TdEvaluator(groups="sizes").load(path)  # the file's groups, not the constructor's
    assert twin.groups == learned.groups and not twin.learns_within_budget
    assert twin.td_games_learned == 1000 and twin.narl.games_learned == 2000
    for grid in _grids(30, 2):
        assert twin.state_value(grid) == pytest.approx(learned.state_value(grid))
    theta = twin.theta.copy()
    twin.prepare(POINTS, 5.0, seed=9)  # the same points: nothing is learned again
    assert np.array_equal(twin.theta, theta) and twin.td_games_learned == 1000


def test_a_saved_td_evaluator_loads_as_a_narl_table_without_its_residual(learned, tmp_path):
    from pokersquares.evaluators.narl import NarlEvaluator

    path = tmp_path / "td.npz"
    learned.save(path, point_system_name="American")
    table = NarlEvaluator().load(path)
    assert np.array_equal(table.points, POINTS) and table.games_learned == 2000 and not table.learns_within_budget
    differs = 0
    for grid in _grids(40, 3):
        assert table.state_value(grid) == pytest.approx(learned.narl.state_value(grid))
        differs += abs(learned.residual(grid)) > 1e-9 and table.state_value(grid) != pytest.approx(
            learned.state_value(grid))
    assert differs > 0  # the residual is left out, not read into the table


def test_a_loaded_evaluator_learns_anew_for_other_points(learned, tmp_path):
    path = tmp_path / "td.npz"
    learned.save(path)
    twin = TdEvaluator(games=200, td_games=100, threads=1).load(path)
    with pytest.warns(UserWarning, match="learning anew"):
        twin.prepare(-POINTS, 0.0, seed=1)
    assert twin.td_games_learned == 100 and np.array_equal(twin.points, -POINTS)


def test_loading_a_file_that_is_not_a_td_evaluator_is_one_clear_error(learned, tmp_path):
    table = tmp_path / "narl.npz"
    learned.narl.save(table)
    with pytest.raises(PokerSquaresError, match="not a TD evaluator"):
        TdEvaluator().load(table)
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    with pytest.raises(PokerSquaresError, match="cannot read TD evaluator"):
        TdEvaluator().load(junk)


def test_a_malformed_saved_evaluator_is_refused_and_leaves_the_evaluator_as_it_was(learned, tmp_path):
    import json

    good = tmp_path / "td.npz"
    learned.save(good)
    with np.load(good) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays["meta"]))
    bad_index = dict(arrays, theta_index=np.array([-1]), theta=np.array([5.0]))
    no_groups = dict(arrays, meta=np.array(json.dumps({k: v for k, v in meta.items() if k != "groups"})))
    for name, bad in (("index", bad_index), ("groups", no_groups)):
        path = tmp_path / f"{name}.npz"
        np.savez(path, **bad)
        target = TdEvaluator(threads=1)
        with pytest.raises(PokerSquaresError, match="cannot read TD evaluator"):
            target.load(path)
        assert not np.any(target.theta) and target.narl.games_learned == 0 and target.learns_within_budget
    # Settings no save writes were loaded as they were: a NaN alpha or a lambda of 5 learned
    # on (a state loaded for other points learns anew with them), text broke learning later.
    for change, says in (({"alpha": float("nan")}, "alpha must be a finite number >= 0, got nan"),
                         ({"lam": 5}, r"lam must be a finite number in \[0, 1\], got 5"),
                         ({"epsilon": -0.5}, "epsilon must be"), ({"init": float("inf")}, "init must be"),
                         ({"tc": "yes"}, "tc must be true or false"),
                         ({"td_games_learned": "many"}, "td_games_learned must be a non-negative integer")):
        path = tmp_path / "setting.npz"
        np.savez(path, **dict(arrays, meta=np.array(json.dumps(dict(meta, **change)))))
        target = TdEvaluator(threads=1)
        with pytest.raises(PokerSquaresError, match=f"cannot read TD evaluator .*: {says}"):
            target.load(path)
        assert not np.any(target.theta) and target.learns_within_budget


def test_a_playout_with_lam_ends_in_the_lambda_return_of_its_values(learned):
    # One playout per call deals the same first cards at every depth (the shuffle fixes
    # only the prefix it plays), so a depth-2 playout's lambda-return is (1 - lam) times
    # the depth-1 playout's value plus lam times the depth-2 playout's value.
    for grid in _grids(20, 7):
        if (grid == -1).sum() < 3:
            continue
        for seed in range(3):
            one = learned.limited_playouts(grid, 1, 1, seed)[0]
            two = learned.limited_playouts(grid, 1, 2, seed)[0]
            assert learned.limited_playouts(grid, 1, 2, seed, lam=1.0)[0] == two
            assert learned.limited_playouts(grid, 1, 2, seed, lam=0.3)[0] == pytest.approx(0.7 * one + 0.3 * two)
            assert learned.limited_playouts(grid, 1, 4, seed, lam=0.0)[0] == pytest.approx(one)


def test_an_optimistic_start_adds_init_for_every_feature_not_yet_learned(tmp_path):
    """``init``: before learning, the residual of a grid is ``init`` times its active
    features (the readable reference's count); learning moves the weights of the
    features its games meet and leaves the others at ``init``; a saved evaluator keeps
    both, and learning anew for other points starts from ``init`` again."""
    from pokersquares.evaluators.td import grid_features

    ev = TdEvaluator(groups="default+draws", init=0.25, games=500, td_games=300, threads=1)
    ev.points = POINTS.copy()
    ev.reset(3)
    for grid in _grids(20, 4):
        assert ev.residual(grid) == pytest.approx(0.25 * len(grid_features(grid, ev.groups)))
    ev.prepare(POINTS, 0.0, seed=3)
    moved = ev.theta != 0.25
    assert 0 < np.count_nonzero(moved) < moved.size
    path = tmp_path / "td.npz"
    ev.save(path)
    twin = TdEvaluator().load(path)
    assert twin.init == 0.25 and np.array_equal(twin.theta, ev.theta)
    twin.games, twin.td_games = 10, 0
    with pytest.warns(UserWarning, match="learning anew"):
        twin.prepare(-POINTS, 0.0, seed=1)
    assert np.all(twin.theta == 0.25)


@pytest.mark.parametrize("init", [float("nan"), float("inf")])
def test_an_init_that_is_not_a_finite_number_is_refused(init):
    with pytest.raises(PokerSquaresError, match="init must be a finite number"):
        TdEvaluator(init=init)


@pytest.mark.parametrize("where", ["theta", "sums"])
def test_a_learning_whose_values_overflowed_says_so(where):
    # table_step=0.5 overflowed the table's sums to inf within 8 s of preparation; the
    # game workers then refused the pickled table with "the sums must be finite".
    ev = TdEvaluator(games=100, td_games=10, threads=1)
    ev.prepare(POINTS, 0.0, seed=1)
    (ev.theta if where == "theta" else ev.narl.sums)[0] = np.inf
    with pytest.raises(PokerSquaresError, match="TD's learning diverged .* take smaller steps"):
        ev.learn(games=2)


def test_the_table_settings_are_saved_and_restored(tmp_path):
    import json

    ev = TdEvaluator(games=100, td_games=20, threads=1, table_step=0.0, table_updates=True)
    ev.prepare(POINTS, 0.0, seed=1)
    path = tmp_path / "td.npz"
    ev.save(path)
    loaded = TdEvaluator().load(path)
    assert loaded.table_step == 0.0 and loaded.table_updates is True
    # a file saved before they were recorded keeps the evaluator's own settings
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays["meta"]))
    old = tmp_path / "old.npz"
    np.savez(old, **dict(arrays, meta=np.array(json.dumps(
        {k: v for k, v in meta.items() if k not in ("table_step", "table_updates")}))))
    loaded = TdEvaluator().load(old)
    assert loaded.table_step == 0.002 and loaded.table_updates is False
    bad = tmp_path / "bad.npz"
    np.savez(bad, **dict(arrays, meta=np.array(json.dumps(dict(meta, table_step=-1.0)))))
    with pytest.raises(PokerSquaresError, match="table_step"):
        TdEvaluator().load(bad)


def test_the_tables_horizon_is_restored_with_it(tmp_path):
    ev = TdEvaluator(games=100, td_games=20, threads=1)
    ev.narl.horizon = 2
    ev.prepare(POINTS, 0.0, seed=1)
    path = tmp_path / "td.npz"
    ev.save(path)
    assert TdEvaluator().load(path).narl.horizon == 2


def test_saving_before_anything_is_learned_is_a_clear_error(tmp_path):
    with pytest.raises(PokerSquaresError, match="nothing yet to save: prepare or load first"):
        TdEvaluator().save(tmp_path / "empty.npz")
    assert not (tmp_path / "empty.npz").exists()


def test_the_residual_and_td_search_learning_refuse_what_is_not_a_position(learned):
    from pokersquares.errors import IllegalPlacementError

    grid = next(_grids(1, 3))
    grid[grid >= 0] = -1
    grid[0] = 0
    with pytest.raises(IllegalPlacementError):
        learned.residual(grid[:10])
    twin = learned.adapted_copy()
    for card in (52, 0):  # not a card; on the grid
        with pytest.raises(IllegalPlacementError):
            twin.learn_from(grid, card, 1, 0)
    with pytest.raises(PokerSquaresError):
        twin.learn_from(grid, 1, -1, 0)
    assert np.array_equal(twin.theta, learned.theta)
