import pytest

from pokersquares import AMERICAN, BRITISH
from pokersquares.errors import PokerSquaresError
from pokersquares.harness.game_play import play_game
from pokersquares.harness.registry import make_player
from pokersquares.players.hybrid import EVALUATORS, SEARCHES


@pytest.mark.parametrize("evaluator", sorted(EVALUATORS))
@pytest.mark.parametrize("search", sorted(SEARCHES))
def test_every_evaluator_plays_legally_with_every_search(evaluator, search):
    player = make_player(f"hybrid:evaluator={evaluator},search={search}")
    assert player.name == f"{evaluator}+{search}"
    player.warm_up()  # as the harness does before the clocks start
    player.set_point_system(BRITISH if search == "mcts" else AMERICAN, 0.2)
    record = play_game(player, player.point_system, seed=3, time_per_game=2.0)
    assert record.penalty is None, record.penalty  # a timeout is a penalty
    assert len(record.placements) == 25


def test_unknown_parts_are_named():
    with pytest.raises(PokerSquaresError, match="unknown search"):
        make_player("hybrid:search=alphabeta")
    with pytest.raises(PokerSquaresError, match="unknown evaluator"):
        make_player("hybrid:evaluator=oracle")
