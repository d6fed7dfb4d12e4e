"""``random:seed=N`` counts: the harness's seed of each game is combined with the
player's own, so that seeds 5 and 6 play other moves on the same deals, each again
under the same run secret."""

import pytest

from pokersquares import AMERICAN, deal
from pokersquares.errors import PokerSquaresError
from pokersquares.harness.runner import RunSpec, run_games
from pokersquares.players.baseline import RandomPlayer


def _cells(player, game_seed):
    player.set_point_system(AMERICAN, 0.0)
    player.set_seed(game_seed)
    player.start_game()
    return [player.get_play(card, 1.0) for card in deal(11)[:25]]


def test_the_players_seed_and_the_games_seed_both_count():
    assert _cells(RandomPlayer(seed=5), 7) == _cells(RandomPlayer(seed=5), 7)
    assert _cells(RandomPlayer(seed=5), 7) != _cells(RandomPlayer(seed=6), 7)
    assert _cells(RandomPlayer(seed=5), 7) != _cells(RandomPlayer(seed=5), 8)
    assert _cells(RandomPlayer(), 7) == _cells(RandomPlayer(), 7) != _cells(RandomPlayer(), 8)


def test_runs_of_two_seeds_differ_and_each_replays_under_its_secret():
    def placements(spec):
        records = run_games(RunSpec(spec, AMERICAN, 3, 0, 5.0, 0.0, secret="k"), range(3), workers=1)
        return [r.placements for r in records]

    five = placements("random:seed=5")
    assert placements("random:seed=5") == five
    assert placements("random:seed=6") != five
    assert placements("random") != five


def test_a_seed_that_is_not_an_integer_is_refused():
    with pytest.raises(PokerSquaresError, match="seed must be an integer, got 1.5"):
        RandomPlayer(seed=1.5)
