"""The OpenSpiel game python_poker_squares: OpenSpiel's own API checks, the contest's
deals through its chance nodes, and returns equal to this toolkit's scoring."""

import json
import random
import subprocess
import sys

import pytest

pyspiel = pytest.importorskip("pyspiel")

from pokersquares import AMERICAN, Grid, PointSystem, contest_systems, deal  # noqa: E402
from pokersquares.cards import card_name, parse_card  # noqa: E402
from pokersquares.openspiel import GAME_NAME, load, play_deal  # noqa: E402

NEG = PointSystem((-3, 2, 5, 10, 15, 20, 25, 50, 75, 100), "negative high card")


@pytest.mark.parametrize("spec", ["american", "-3,2,5,10,15,20,25,50,75,100", "hypercorner:1",
                                  "5,5,5,5,5,5,5,5,5,5", "0,0,0,0,0,0,0,0,0,0"])
def test_random_sim_test_and_openspiel_api_checks(spec):
    """Ten equal values too: one outcome, but OpenSpiel checks MinUtility < MaxUtility."""
    game = pyspiel.load_game(GAME_NAME, {"point_system": spec})
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
    from open_spiel.python.tests.games_sim_test import GamesSimTest
    GamesSimTest().sim_game(game)  # pickling, clones, serialisation, utilities within bounds
    assert pyspiel.load_game(str(game)).point_system == game.point_system  # the game string round-trips


def test_game_shape():
    game = load("british")
    assert (game.num_players(), game.num_distinct_actions(), game.max_chance_outcomes()) == (1, 25, 52)
    assert (game.min_utility(), game.max_utility()) == (0.0, 300.0)
    state = game.new_initial_state()
    assert state.is_chance_node() and [a for a, _ in state.chance_outcomes()] == list(range(52))
    state.apply_action(parse_card("TC"))
    assert state.current_player() == 0 and state.legal_actions() == list(range(25))
    state.apply_action(7)
    from open_spiel.python.observation import make_observation
    obs = make_observation(game)
    obs.set_from(state, 0)
    assert obs.dict["grid"][7, parse_card("TC")] == 1 and obs.dict["grid"].sum() == 1
    assert obs.dict["card"].sum() == 0 and obs.dict["undealt"].sum() == 51
    state.apply_action(parse_card("AS"))
    assert 7 not in state.legal_actions() and len(state.legal_actions()) == 24
    tensor, a_s = state.observation_tensor(0), parse_card("AS")
    assert len(tensor) == 25 * 52 + 2 * 52
    assert tensor[25 * 52 + a_s] == 1 and sum(tensor[25 * 52:26 * 52]) == 1  # in hand
    assert tensor[26 * 52 + a_s] == 0 and sum(tensor[26 * 52:]) == 50       # undealt


def test_the_contest_deal_through_the_chance_nodes_is_pokersquares_deal():
    game = load(AMERICAN)
    shown = json.loads(subprocess.run([sys.executable, "-m", "pokersquares", "deal", "--seed", "123456", "--json"],
                                      capture_output=True, text=True, check=True).stdout)
    for seed, cards in [(123456, shown), *((s, [card_name(c) for c in deal(s)]) for s in (0, 3, 99))]:
        state, score = play_deal(game, seed, lambda s: s.legal_actions()[-1])
        dealt = [card_name(a) for i, a in enumerate(state.history()) if i % 2 == 0]
        assert dealt == cards[:25]
        assert [a for i, a in enumerate(state.history()) if i % 2] == list(range(24, -1, -1))


def test_returns_are_this_toolkits_score_over_random_games():
    rng = random.Random(5)
    for system in [NEG, *contest_systems()]:
        game = load(system)
        for _ in range(8):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
                else:
                    assert state.returns() == [0.0]
                    state.apply_action(rng.choice(state.legal_actions()))
            assert state.returns() == [float(Grid(state.grid).score(system))]


def test_an_illegal_action_is_refused_and_leaves_the_state_as_it_was():
    # OpenSpiel's Python games apply whatever they are given; this one must not deal a card
    # twice, overwrite a filled cell, or play on (a deal, then a cell) past the end.
    from pokersquares.errors import IllegalPlacementError

    game = load(NEG)
    state = game.new_initial_state()
    for bad in (52, -2):  # no such card (-1 is OpenSpiel's own kInvalidAction)
        with pytest.raises(IllegalPlacementError):
            state.apply_action(bad)
    state.apply_action(5)
    state.apply_action(3)
    with pytest.raises(IllegalPlacementError):
        state.apply_action(5)  # dealt already
    assert state.history() == [5, 3] and state.is_chance_node()
    state.apply_action(6)
    for bad in (3, 25, -2):  # filled; no such cell
        with pytest.raises(IllegalPlacementError):
            state.apply_action(bad)
    assert state.history() == [5, 3, 6] and state.grid[3] == 5 and state.card == 6
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])  # the first undealt card, the first empty cell
    assert state.is_terminal()
    final = (state.history(), list(state.grid), state.returns())
    for bad in (0, 7, 51):
        with pytest.raises(IllegalPlacementError, match="over"):
            state.apply_action(bad)
    assert (state.history(), list(state.grid), state.returns()) == final and state.card is None
    # play_deal with a chooser that answers a filled cell fails there, not with a wrong score
    with pytest.raises(IllegalPlacementError):
        play_deal(game, 3, lambda s: 0)


@pytest.mark.parametrize("spec", ["british", "-3,2,5,10,15,20,25,50,75,100"])
def test_a_copied_or_pickled_game_plays_and_scores_as_the_original(spec):
    # pyspiel makes a copy of a game (pickle, copy.copy, copy.deepcopy: multiprocessing,
    # an algorithm's own copy) from its parameters without __init__: the copy once had
    # no point system, and failed on its first state ("no attribute 'points'").
    import copy
    import pickle

    game = load(spec)
    first = lambda state: state.legal_actions()[0]  # noqa: E731
    _, score = play_deal(game, 3, first)
    for copied in (copy.copy(game), copy.deepcopy(game), pickle.loads(pickle.dumps(game))):
        assert str(copied) == str(game) and copied.point_system == game.point_system
        assert list(copied.points) == list(game.points)
        assert play_deal(copied, 3, first)[1] == score


def test_a_state_deserialized_in_another_game_is_scored_by_that_game():
    # The points were kept in the state's __dict__, which serialize() pickles: a British
    # state read into the American game was scored British.
    british, american = load("british"), load("american")
    first = lambda s: s.legal_actions()[0]  # noqa: E731
    state, british_score = play_deal(british, 3, first)
    american_score = play_deal(american, 3, first)[1]
    assert british_score != american_score
    assert american.deserialize_state(state.serialize()).returns() == [float(american_score)]
    assert british.deserialize_state(state.serialize()).returns() == [float(british_score)]
    game, copied = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(british, state))
    assert copied.returns() == [float(british_score)]


def test_chance_outcomes_and_action_strings_only_for_what_they_describe():
    from pokersquares.errors import InvalidCellError, PokerSquaresError

    game = load("american")
    state = game.new_initial_state()
    state.apply_action(5)
    with pytest.raises(PokerSquaresError, match="player's turn"):
        state.chance_outcomes()  # cards, which a caller would apply as cells
    with pytest.raises(InvalidCellError):
        state.action_to_string(0, 99)  # was "row 19 col 4"
    assert state.action_to_string(0, 7) == "row 1 col 2"
    state, _ = play_deal(game, 3, lambda s: s.legal_actions()[0])
    with pytest.raises(PokerSquaresError, match="terminal"):
        state.chance_outcomes()


@pytest.mark.parametrize("answer", [3.5, "3", True, None, -1, 25, 2 ** 70])
def test_play_deal_refuses_a_chooser_answer_that_is_not_a_cell(answer):
    # int(choose(state)) played 3.5 and "3" as cell 3, True as cell 1.
    from pokersquares.errors import IllegalPlacementError

    with pytest.raises(IllegalPlacementError, match="not a cell index"):
        play_deal(load("american"), 3, lambda s: answer)


def test_load_takes_ten_integers_and_refuses_anything_else_in_one_line():
    from pokersquares.errors import InvalidPointSystemError

    assert load(list(range(10))).point_system == PointSystem(tuple(range(10)))
    for bad in (None, 5, [1] * 9):
        with pytest.raises(InvalidPointSystemError):
            load(bad)


def test_a_named_point_system_keeps_its_name():
    """``load(AMERICAN)`` made the game of ``"0 2 5 ..."``, a system named "custom"."""
    from pokersquares import AMERICAN, BRITISH, PointSystem

    assert load(AMERICAN).get_parameters() == {"point_system": "American"}
    assert load(BRITISH).get_parameters() == {"point_system": "British"}
    # A name that does not say these points (or cannot be a game's parameter) gives the integers.
    assert load(PointSystem((1,) * 10, "American")).get_parameters() == {"point_system": " ".join(["1"] * 10)}
    three = PointSystem((0, 0, 0, 1, 0, 0, 0, 0, 0, 0), "Three Of A Kind")
    assert load(three).get_parameters() == {"point_system": "0 0 0 1 0 0 0 0 0 0"}
