"""``pretrained``: champion's search over a prior learned offline where one exists for the
system's points, champion learning in the budget elsewhere; bad priors refused at once."""

import pickle
import time

import numpy as np
import pytest

from pokersquares.errors import PokerSquaresError
from pokersquares.evaluators.td import TdEvaluator
from pokersquares.harness.registry import make_player
from pokersquares.points import AMERICAN, BRITISH, random_system
from pokersquares.priors import read_priors, shipped_priors

RANDOM = random_system(3)


def _saved(path, system, seed):
    learned = TdEvaluator(games=300, td_games=200, threads=1)
    learned.prepare(np.array(system.points, dtype=np.int64), 0.0, seed=seed)
    learned.save(path, system.name)
    return learned


@pytest.fixture(scope="module")
def priors(tmp_path_factory):
    """A folder with an American and a British prior, and the evaluators saved."""
    folder = tmp_path_factory.mktemp("priors")
    return folder, {"American": _saved(folder / "a.npz", AMERICAN, 1), "British": _saved(folder / "b.npz", BRITISH, 2)}


def _prepared(spec, system, budget=1.0):
    player = make_player(spec)
    player.warm_up()
    player.set_point_system(system, budget)
    return player


@pytest.mark.parametrize("system", [AMERICAN, BRITISH], ids=lambda s: s.name)
def test_a_system_with_a_prior_plays_that_prior_and_learns_nothing(system, priors):
    folder, saved = priors
    player = _prepared(f"pretrained:priors={folder}", system)
    assert player.prior is not None and player.prior.points == tuple(system.points)
    assert np.array_equal(player.evaluator.theta, saved[system.name].theta)
    assert player.evaluator.td_games_learned == saved[system.name].td_games_learned == 200
    assert player.guard is None  # nothing learned in the budget, nothing to check


def test_a_system_without_a_prior_is_learned_in_the_budget_as_champion_learns_it(priors):
    folder, saved = priors
    player = make_player(f"pretrained:priors={folder},games=400")
    player.warm_up()
    for system in (AMERICAN, RANDOM, AMERICAN):
        player.set_point_system(system, 1.0)
        if system is RANDOM:
            assert player.prior is None
            assert np.array_equal(player.evaluator.points, RANDOM.points)
            assert player.evaluator.narl.games_learned == 400 and player.evaluator.td_games_learned > 0
        else:
            assert np.array_equal(player.evaluator.theta, saved["American"].theta)


def test_games_are_legal_within_the_clock_with_and_without_a_prior(priors, play_legal):
    folder, _ = priors
    for system in (AMERICAN, RANDOM):
        player = _prepared(f"pretrained:priors={folder},games=400", system)
        play_legal(player, 3, time_per_game=2.0, point_system=system)


def test_a_preparation_with_a_prior_takes_almost_nothing_and_hands_over_only_what_it_plays(priors):
    """The priors are read in the warm-up (off the clock); the prepared player, which the
    harness pickles to its game workers, carries the one it plays, not every prior."""
    folder, _ = priors
    player = make_player(f"pretrained:priors={folder}")
    player.warm_up()
    read = player._ready[tuple(BRITISH.points)]
    start = time.perf_counter()
    player.set_point_system(BRITISH, 0.5)
    assert time.perf_counter() - start < 0.5
    assert player.evaluator is read  # read in the warm-up, not in the budget
    copy = pickle.loads(pickle.dumps(player))
    assert copy.prior.points == tuple(BRITISH.points) and not copy._ready
    grid = np.full(25, -1, dtype=np.int8)
    grid[:5] = [0, 13, 26, 1, 14]
    assert np.array_equal(copy.evaluator.placement_values(grid, 2), player.evaluator.placement_values(grid, 2))


def test_the_shipped_priors_are_learned_evaluators_for_american_and_british():
    from pokersquares.players.greedy_guard import check_against_greedy

    shipped = shipped_priors()
    assert set(shipped) == {tuple(AMERICAN.points), tuple(BRITISH.points)}
    player = make_player("pretrained")
    player.warm_up()
    for system in (AMERICAN, BRITISH):
        player.set_point_system(system, 0.5)
        assert player.prior is shipped[tuple(system.points)] or player.prior.path == shipped[tuple(system.points)].path
        # A prior that learned plays far above the one-ply greedy rule (American ~126
        # against ~81, British ~50 against ~29); a stub or a file for other points would not.
        check = check_against_greedy(player.evaluator, np.array(system.points), 10.0, 5, max_games=300)
        assert check.learned_mean > check.greedy_mean + 0.2 * abs(check.greedy_mean) + 10


def test_bad_priors_and_options_are_refused_before_anything_is_learned(tmp_path, priors):
    folder, saved = priors
    saved["American"].narl.save(tmp_path / "narl.npz")
    with pytest.raises(PokerSquaresError, match="no such file or folder"):
        make_player(f"pretrained:priors={tmp_path / 'missing'}")
    with pytest.raises(PokerSquaresError, match="not a TD evaluator"):
        make_player(f"pretrained:priors={tmp_path / 'narl.npz'}")
    (tmp_path / "junk.npz").write_bytes(b"not an archive")
    with pytest.raises(PokerSquaresError, match="not an .npz"):
        make_player(f"pretrained:priors={tmp_path / 'junk.npz'}")
    twice = tmp_path / "twice"
    twice.mkdir()
    _saved(twice / "x.npz", AMERICAN, 3)
    _saved(twice / "y.npz", AMERICAN, 4)
    with pytest.raises(PokerSquaresError, match="same points"):
        make_player(f"pretrained:priors={twice}")
    (tmp_path / "empty").mkdir()
    with pytest.raises(PokerSquaresError, match="holds no .npz"):
        make_player(f"pretrained:priors={tmp_path / 'empty'}")
    with pytest.raises(PokerSquaresError, match="takes no parameter 'load'"):
        make_player(f"pretrained:load={folder / 'a.npz'}")
    with pytest.raises(PokerSquaresError, match="takes no parameter 'bogus'.*priors, depth"):
        make_player("pretrained:bogus=1")
    with pytest.raises(PokerSquaresError, match="depth"):
        make_player("pretrained:depth=0")


def test_a_prior_whose_table_or_weights_are_damaged_is_refused_when_the_player_is_built(tmp_path, priors):
    """Only the format and points were checked when the player was built: the rest when
    the prior was read for play, after the harness had recorded an empty run (and a text
    count failed as "can't multiply sequence")."""
    import json

    folder, _ = priors
    with np.load(folder / "a.npz") as data:
        arrays = {k: data[k].copy() for k in data.files}
    nan_weight = dict(arrays, theta=np.where(np.arange(arrays["theta"].size) == 0, np.nan, arrays["theta"]))
    no_sample = dict(arrays, counts=np.where(np.arange(arrays["counts"].size) == 0, 0, arrays["counts"]))
    narl_meta = json.loads(str(arrays["narl_meta"]))
    text_games = dict(arrays, narl_meta=np.array(json.dumps(dict(narl_meta, games_learned="lots"))))
    for name, bad, says in (("nan", nan_weight, "its weights are malformed"),
                            ("count", no_sample, "every abstraction key must have a count of at least 1"),
                            ("games", text_games, "games_learned must be a non-negative integer")):
        np.savez(tmp_path / f"{name}.npz", **bad)
        with pytest.raises(PokerSquaresError, match=f"^cannot read TD evaluator .*{name}.npz: {says}"):
            make_player(f"pretrained:priors={tmp_path / f'{name}.npz'}")


def test_read_priors_takes_one_file_or_a_folder(priors):
    folder, _ = priors
    assert set(read_priors(folder)) == {tuple(AMERICAN.points), tuple(BRITISH.points)}
    one = read_priors(folder / "b.npz")
    assert list(one) == [tuple(BRITISH.points)] and one[tuple(BRITISH.points)].name == "British"
    assert "200 TD games" in one[tuple(BRITISH.points)].describe()
