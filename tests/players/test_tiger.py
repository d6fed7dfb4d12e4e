import pytest

from pokersquares.errors import PokerSquaresError
from pokersquares.harness.registry import make_player
from pokersquares.points import AMERICAN, BRITISH


def test_tiger_plays_legal_games_with_fixed_iterations(play_legal):
    player = make_player("tiger:iterations=30")
    player.set_point_system(AMERICAN, 1.0)
    play_legal(player, 4)
    # 21 searched moves of 30 iterations each; the rest are rules
    assert player.search.moves_total == 21 and player.iterations_per_move == 30


@pytest.mark.parametrize("spec", [
    "tiger:selection=uct,simulation=random,iterations=20",
    "tiger:select_calc=true,simulate_calc=true,selection=uct,simulation=random,iterations=20",
    "tiger:weights=untuned,selection=best,iterations=20",
    "tiger:squash=imprecise,cp=0.7071,simulation=prune,iterations=20,rules=false",
    "tiger:alpha=0.2,beta=0.4,gamma=0.6,final=visits,iterations=20",
])
def test_variants_are_selectable_by_spec(spec, play_legal):
    player = make_player(spec)
    player.set_point_system(BRITISH, 1.0)
    assert play_legal(player, 1).score == play_legal(player, 1).score  # seeded: the same game twice


def test_tiger_keeps_to_its_clock(play_legal):
    player = make_player("tiger")
    player.set_point_system(AMERICAN, 1.0)
    play_legal(player, 0, 0.5)  # loads compiled kernels
    used = play_legal(player, 1, 1.0).decision_s
    assert 0.7 < used < 1.0
    assert player.iterations_per_move > 10


def test_time_per_game_caps_the_clock(play_legal):
    player = make_player("tiger:time_per_game=0.4")
    player.set_point_system(AMERICAN, 1.0)
    play_legal(player, 0, 0.5)
    used = play_legal(player, 2, 30.0).decision_s
    assert 0.3 < used < 0.5


def test_bad_variants_are_user_errors():
    for spec in ("tiger:selection=greedy", "tiger:weights=best", "tiger:squash=max5", "tiger:nope=1"):
        with pytest.raises(PokerSquaresError):
            make_player(spec)
