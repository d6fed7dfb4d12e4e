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
    for args in [(1, 0, 0), (1, 5, 0), (1, 0, -1), (0, 1, 1), (60, 1, 1), (1, "a", 1)]:
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
