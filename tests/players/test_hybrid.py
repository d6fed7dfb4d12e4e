import pytest

from pokersquares import AMERICAN, BRITISH
from pokersquares.errors import PokerSquaresError
from pokersquares.harness.game_play import play_game
from pokersquares.harness.registry import make_player
from pokersquares.players.hybrid import EVALUATORS, SEARCHES


@pytest.mark.parametrize("evaluator", sorted(EVALUATORS))
@pytest.mark.parametrize("search", sorted(SEARCHES))
def test_every_evaluator_plays_legally_with_every_search(evaluator, search):
    # The player plans 1 s games under the harness's 2 s: every move still searches within
    # the player's clock, in half the time, and the harness's clock keeps its slack.
    player = make_player(f"hybrid:evaluator={evaluator},search={search},time_per_game=1")
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


@pytest.mark.parametrize("spec", ["hybrid:evaluator=possibility,search=expectimax", "hybrid:evaluator=narl,search=mcts",
                                  "tiger", "champion:evaluator=narl"])
def test_choose_and_cell_values_refuse_what_is_not_a_position_in_one_line(spec, refuses_what_is_not_a_position):
    """They used to play before set_point_system (on zero points), take a card already on
    the grid or card 60 (a kernel indexing out of its tables), truncate card 30.7 to 30,
    and answer a full grid with "moves must be at least 1"."""
    refuses_what_is_not_a_position(make_player(spec), budget_s=0.2)


def test_parts_given_in_python_are_checked_when_the_player_is_built():
    """A class instead of an object (NarlEvaluator, not NarlEvaluator()) or the two parts
    swapped used to fail only at the first preparation or move, deep inside; cores=True
    was one core, min_search=True one second, and numpy's 2 was no integer."""
    import numpy as np

    from pokersquares.evaluators import PossibilityEvaluator
    from pokersquares.players import SearchPlayer
    from pokersquares.players.hybrid import hybrid
    from pokersquares.search.base import GreedySearch

    for evaluator, search, words in ((PossibilityEvaluator, GreedySearch(), "evaluator object first"),
                                     (PossibilityEvaluator(), GreedySearch, "search object second"),
                                     (GreedySearch(), PossibilityEvaluator(), "evaluator object first")):
        with pytest.raises(PokerSquaresError, match=words):
            SearchPlayer(evaluator, search)
    with pytest.raises(PokerSquaresError, match="cores must be a positive integer, got True"):
        hybrid(evaluator="possibility", search="flat_mc", cores=True)
    with pytest.raises(PokerSquaresError, match="min_search must be seconds"):
        hybrid(evaluator="possibility", search="mcts", min_search=True)
    assert hybrid(evaluator="possibility", search="flat_mc", cores=np.int64(2)).cores == 2
