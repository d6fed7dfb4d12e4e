"""The TD evaluator as a player: ``td`` with its options, the champion's TD search
(``tdsearch``) within its clock under every kind of point system, and the options it
rejects. ``champion:evaluator=td,games=N`` is the player ``champion:games=N`` is: the
champion's tests (test_champion.py) play it within its clock under every kind of system."""

import pytest

from pokersquares.errors import PokerSquaresError
from pokersquares.evaluators.td import TdEvaluator
from pokersquares.harness.registry import make_player
from pokersquares.points import AMERICAN, PointSystem, single_hand_system

SYSTEMS = [AMERICAN, single_hand_system("flush"),
           PointSystem((-1, -5, -10, -20, -30, -40, -50, -60, -90, -128), "all negative")]


def test_td_player_options():
    player = make_player("td:search=expectimax,groups=suits,alpha=0.02,lam=0,games=100,td_games=50,threads=1")
    ev = player.evaluator
    assert isinstance(ev, TdEvaluator) and player.name == "td-expectimax"
    assert (ev.group_names, ev.alpha, ev.lam, ev.games, ev.td_games, ev.threads) == ("suits", 0.02, 0.0, 100, 50, 1)
    assert not ev.table_updates
    assert make_player("td:table_updates=true,games=10").evaluator.table_updates
    assert make_player("td:table_step=0.003,games=10").evaluator.table_step == 0.003
    assert make_player("champion:table_step=0.003,games=10").evaluator.table_step == 0.003
    assert make_player("champion:epsilon=0.02,games=10").evaluator.epsilon == 0.02
    assert make_player("champion:games=10").evaluator.epsilon == 0.02  # since version 15
    assert make_player("champion:epsilon=0,games=10").evaluator.epsilon == 0.0
    assert make_player("td:games=10").evaluator.epsilon == 0.0
    assert make_player("champion:init=0.1,games=10").evaluator.init == 0.1
    assert make_player("td:init=-2,games=10").evaluator.init == -2.0
    assert make_player("champion:games=10").evaluator.init == 0.0
    default = TdEvaluator()
    for spec in ("td:games=10", "champion:games=10"):  # left out, the evaluator's own defaults
        ev = make_player(spec).evaluator
        assert (ev.alpha, ev.tc, ev.table_step) == (default.alpha, default.tc, default.table_step)
    for spec in ("td:tc=true,alpha=0.3,games=10", "champion:tc=true,alpha=0.3,games=10"):
        ev = make_player(spec).evaluator
        assert (ev.tc, ev.alpha, ev.tc_a.shape) == (True, 0.3, ev.theta.shape)
    assert make_player("td:tc=false,games=10").evaluator.tc_a.shape == (0,)
    assert isinstance(make_player("champion:evaluator=td,games=400").evaluator, TdEvaluator)


def test_tdsearch_wraps_the_players_search():
    from pokersquares.search.base import GreedySearch
    from pokersquares.search.halving import CrnHalving
    from pokersquares.search.td_search import TdSearch

    td = make_player("td:search=greedy,tdsearch=200,games=10").search
    assert isinstance(td, TdSearch) and td.episodes == 200 and isinstance(td.inner, GreedySearch)
    champion = make_player("champion:tdsearch=300,games=10")
    assert isinstance(champion.search, TdSearch) and isinstance(champion.search.inner, CrnHalving)
    assert champion.search.episodes == 300 and champion.cores == 2
    assert isinstance(make_player("champion:games=10").search, CrnHalving)  # off by default


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_td_search_without_a_cap_on_its_games_plays_within_its_clock(system, play_legal):
    """Its learning stops at its share of each move's budget, however many games it may play.
    (1.5 s a game, as the champion's own: at 1 s it used 0.86 s beside one busy process, and
    1.05 s once in a full parallel suite on a cold cache.)"""
    player = make_player("champion:games=400,tdsearch=200000")
    player.warm_up()
    player.set_point_system(system, 5.0)
    play_legal(player, 2, time_per_game=1.5)


@pytest.mark.parametrize("spec, message", [
    ("champion:evaluator=beemo", "unknown evaluator"),
    ("champion:evaluator=td,load=table.npz", "cannot read TD evaluator"),
    ("td:load=table.npz", "cannot read TD evaluator"),
    ("td:groups=colours", "unknown TD feature group"),
    ("td:games=-1", "non-negative"),
    ("td:table_updates=1", "table_updates of player 'td' takes true or false"),
    ("td:table_step=-0.1", "table_step must be >= 0"),
    ("td:table_step=nan", "takes a finite number"),
    ("champion:table_step=-0.001", "table_step must be >= 0"),
    ("champion:evaluator=narl,table_step=0.001", "table_step is a setting of the TD evaluator"),
    ("champion:evaluator=narl,tc=true", "tc is a setting of the TD evaluator"),
    ("champion:evaluator=narl,alpha=0.1", "alpha is a setting of the TD evaluator"),
    ("champion:evaluator=narl,epsilon=0.05", "epsilon is a setting of the TD evaluator"),
    ("champion:epsilon=1.5", "TD needs epsilon in 0..1"),
    ("champion:evaluator=narl,init=0.1", "init is a setting of the TD evaluator"),
    ("champion:init=nan", "takes a finite number"),
    ("td:init=true", "init of player 'td' takes a"),
    ("champion:epsilon=-0.1", "TD needs epsilon in 0..1"),
    ("td:tc=1", "tc of player 'td' takes true or false"),
    ("champion:tc=yes", "tc of player 'champion' takes true or false"),
    ("td:alpha=-1", "alpha >= 0"),
    ("champion:alpha=-1", "alpha >= 0"),
    # Steps that overflowed the weights to inf and NaN within the preparation:
    ("champion:alpha=1e300", r"TD needs alpha in 0..4 "),
    ("td:table_step=0.5", r"table_step must be >= 0 and at most 0.1,"),
    ("champion:init=1e300", r"init must be a finite number .* within ±10000"),
    ("td:tdsearch=-1", "tdsearch must be a whole number"),
    ("champion:tdsearch=true", "tdsearch of player .champion. takes an integer"),
    ("champion:evaluator=narl,tdsearch=100", "tdsearch is a setting of the TD evaluator"),
])
def test_rejected_options(spec, message):
    with pytest.raises(PokerSquaresError, match=message):
        make_player(spec)
