import pytest

from pokersquares import AMERICAN, Game, Grid
from pokersquares.cards import parse_cards
from pokersquares.errors import IllegalPlacementError


def full_grid(rows):
    g = Grid()
    for r, row in enumerate(rows):
        for c, card in enumerate(parse_cards(row.split())):
            g.place(card, r, c)
    return g


def test_score_of_a_known_grid():
    g = full_grid([
        "TS JS QS KS AS",   # royal flush 100
        "2H 2D 2C 3H 3D",   # full house 25
        "4C 4D 4H 4S 5C",   # four of a kind 50
        "6C 7D 8H 9S TC",   # straight 15
        "AH 3S 6H 9H KD",   # high card 0
    ])
    assert g.hand_scores(AMERICAN)[:5] == [100, 25, 50, 15, 0]
    assert g.score(AMERICAN) == sum(g.hand_scores(AMERICAN))
    text = g.render(AMERICAN)
    assert text.splitlines()[0].startswith("TS JS QS KS AS") and "Total:" in text


def test_illegal_placements_raise_and_change_nothing():
    g = Grid()
    g.place(0, 0, 0)
    before = list(g.cells)
    for args in [(1, 0, 0), (1, 5, 0), (1, 0, -1), (0, 1, 1), (60, 1, 1), (1, "a", 1), (1.5, 1, 1), (True, 1, 1),
                 ("AS", 1, 1), (None, 1, 1)]:
        with pytest.raises(IllegalPlacementError):
            g.place(*args)
        assert g.cells == before


def test_game_deals_in_contest_order():
    game = Game.from_seed(0, AMERICAN)
    assert game.next_card == parse_cards(["6S"])[0]
    for i in range(25):
        game.play(i // 5, i % 5)
    assert game.done and game.grid.is_full
    with pytest.raises(IllegalPlacementError):
        game.play(0, 0)


def test_cells_and_hands_out_of_range_are_errors_not_other_cells():
    g = Grid()
    g.place(7, 1, 2)
    assert g[1, 2] == 7
    for rc in [(0, 7), (-1, 0), (5, 5), (0, -1)]:
        with pytest.raises(IndexError, match="0..4"):
            g[rc]
    for i in (10, -1):
        with pytest.raises(IndexError, match="0..9"):
            g.line(i)


def test_a_grid_is_made_of_integer_card_ids_and_a_game_of_a_point_system_and_a_deck():
    import numpy as np

    from pokersquares.errors import InvalidCardError, InvalidPointSystemError

    for cells in ([1.7] + [-1] * 24, ["AS"] + [-1] * 24, [None] * 25, [True] + [-1] * 24):
        with pytest.raises(IllegalPlacementError):
            Grid(cells)
    square = np.full((5, 5), -1, dtype=np.int8)
    square[1, 2] = 7
    assert Grid(square)[1, 2] == 7 and Grid(square.ravel()) == Grid(square)
    with pytest.raises(InvalidPointSystemError):
        Game.from_seed(1, "american")
    for deck in ([0, 1, 2], [0] * 25, list(range(24)) + [52], [c + 0.5 for c in range(25)]):
        with pytest.raises(InvalidCardError):
            Game(AMERICAN, deck)
    assert Game(AMERICAN, list(range(25))).next_card == 0


def test_library_lookups_refuse_what_they_cannot_read():
    from pokersquares.cards import card_name, parse_card
    from pokersquares.errors import InvalidCardError, InvalidPointSystemError
    from pokersquares.points import PointSystem, parse_point_system, single_hand_system

    for bad in (1.5, True, "AS", 52):
        with pytest.raises(InvalidCardError):
            card_name(bad)
    with pytest.raises(InvalidCardError):
        parse_card(5)
    for bad in (None, 5):
        with pytest.raises(InvalidPointSystemError):
            parse_point_system(bad)
    for bad in (10, -1, "x"):
        with pytest.raises(InvalidPointSystemError):
            single_hand_system(bad)
    for bad in ({}, [], {"name": "x"}):
        with pytest.raises(InvalidPointSystemError):
            PointSystem.from_json(bad)


def test_a_game_keeps_its_own_checked_copy_of_the_deck():
    import numpy as np

    from pokersquares.cards import deal
    from pokersquares.errors import InvalidCardError

    # an iterator is read once, by the check: the game plays from what it read
    game = Game(AMERICAN, iter(deal(1)[:30]))
    assert game.next_card == deal(1)[0] and game.deck == deal(1)[:30]
    # a list the caller changes afterwards does not change the game
    deck = deal(2)
    game = Game(AMERICAN, deck)
    first = deck[0]
    deck[0] = deck[40]
    assert game.next_card == first and game.deck is not deck
    # numpy card ids are kept as plain ints
    game = Game(AMERICAN, np.array(deal(3), dtype=np.int8))
    assert game.deck == deal(3) and all(type(c) is int for c in game.deck)
    with pytest.raises(InvalidCardError):
        Game(AMERICAN, 5)
