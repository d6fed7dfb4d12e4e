import numpy as np
import pytest

from pokersquares import AMERICAN, Game, Grid
from pokersquares.cards import deal, parse_cards
from pokersquares.errors import IllegalPlacementError, InvalidCardError, InvalidPointSystemError, InvalidSeedError


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


def test_columns_are_scored_after_the_rows_and_rendered_below_them():
    """The ten hands are rows 0..4, then columns 0..4 (RULES.md). Worked by hand on the
    grid above: its columns hold no hand but column 3's pair of nines (KS 3H 4S 9S 9H)."""
    g = full_grid([
        "TS JS QS KS AS",
        "2H 2D 2C 3H 3D",
        "4C 4D 4H 4S 5C",
        "6C 7D 8H 9S TC",
        "AH 3S 6H 9H KD",
    ])
    assert g.line(8) == parse_cards("KS 3H 4S 9S 9H".split())
    assert g.hand_scores(AMERICAN) == [100, 25, 50, 15, 0, 0, 0, 0, 2, 0]
    assert g.score(AMERICAN) == 192 and g.hand_counts() == [5, 1, 0, 0, 1, 0, 1, 1, 0, 1]
    assert g.render(AMERICAN) == (
        "TS JS QS KS AS  100\n"
        "2H 2D 2C 3H 3D   25\n"
        "4C 4D 4H 4S 5C   50\n"
        "6C 7D 8H 9S TC   15\n"
        "AH 3S 6H 9H KD    0\n"
        " 0  0  0  2  0\n"
        "Total: 192")


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
    for rc in [(0, 7), (-1, 0), (5, 5), (0, -1), (0, 5), (4, 5), (5, 0)]:  # (0, 5) is no cell, not (1, 0)
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
    for deck in ([0, 1, 2], list(range(24)), [0] * 25, list(range(24)) + [52], [c + 0.5 for c in range(25)]):
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


def test_a_game_played_with_numpy_cells_records_plain_ints():
    """A notebook's ``divmod(np.argmax(values), 5)`` gave placements of np.int64 that
    json.dumps refused (and a cell column of numpy objects in a data frame)."""
    import json

    game = Game.from_seed(3, AMERICAN)
    for k in range(25):
        row, col = divmod(np.int64(k), 5)
        game.play(row, col)
    assert all(type(v) is int for move in game.placements for v in move)
    assert json.loads(json.dumps(game.placements)) == [list(m) for m in game.placements]


@pytest.mark.parametrize("cells", [set(range(25)), frozenset(range(25)), dict.fromkeys(range(25), 0),
                                   dict.fromkeys(range(25)).keys(), "-" * 25, 5, 1.5, np.int64(5)])
def test_a_grid_is_25_cells_in_order_not_a_set_dict_text_or_number(cells):
    """Grid(set(range(25))) was a full grid in the set's order and a dict's 25 keys the
    cards (its values, the user's, lost); a number was a bare TypeError."""
    with pytest.raises(IllegalPlacementError, match="list, tuple or array|order"):
        Grid(cells)


@pytest.mark.parametrize("shape", [(1, 25), (25, 1), (5, 5, 1)])
def test_a_grid_array_is_25_cells_or_5_by_5(shape):
    """An array of another shape was refused as 'not integers' (its rows are no integers)."""
    with pytest.raises(IllegalPlacementError, match="one-dimensional"):
        Grid(np.full(shape, -1))


def test_a_grid_still_takes_any_ordered_cells():
    cells = [-1] * 24 + [7]
    assert Grid(cells) == Grid(tuple(cells)) == Grid(iter(cells)) == Grid(np.array(cells))
    assert Grid(dict(enumerate(cells)).values()) == Grid(cells)  # a dict's values are in order


@pytest.mark.parametrize("deck", [set(range(30)), dict.fromkeys(range(30)), "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS",
                                  np.arange(30).reshape(5, 6)])
def test_a_deck_is_in_order_not_a_set_dict_text_or_a_table(deck):
    """Game(AMERICAN, set(range(30))) dealt the set's order and a dict its keys."""
    with pytest.raises(InvalidCardError, match="list, tuple or array|order|one-dimensional"):
        Game(AMERICAN, deck)


@pytest.mark.parametrize("seed", [1.5, "5", True, 2 ** 64, np.array([5])])
def test_a_games_seed_is_a_java_long_or_none(seed):
    """Any seed was kept as given: 1.5, "5" or 2**64 (no deal's seed)."""
    with pytest.raises(InvalidSeedError):
        Game(AMERICAN, deal(1), seed=seed)
    assert Game(AMERICAN, deal(1)).seed is None and Game(AMERICAN, deal(1), seed=np.int64(1)).seed == 1


@pytest.mark.parametrize("grid", [None, [-1] * 25, "grid"])
def test_a_games_grid_is_a_grid(grid):
    """Any grid was kept, and the first play an AttributeError."""
    with pytest.raises(IllegalPlacementError, match="Grid"):
        Game(AMERICAN, deal(1), grid=grid)


@pytest.mark.parametrize("points", [None, "american", b"american", 5, 1.5, {}, set(range(10)),
                                    dict.fromkeys(range(10), 1), [1, 2], np.float64(3.0)])
def test_a_grid_is_scored_with_a_point_system(points):
    """Each was a bare TypeError, KeyError or IndexError, or a wrong score: 'american'
    scored 'a' per hand, b'american' 97, a dict of ten its values by hand id."""
    g = Grid()
    g.place(0, 0, 0)
    for call in (g.score, g.hand_scores, g.render) if points is not None else (g.score, g.hand_scores):
        with pytest.raises(InvalidPointSystemError):
            call(points)


def test_a_grid_is_still_scored_with_ten_integer_points():
    g = Grid()
    g.place(0, 0, 0)
    g.place(13, 0, 1)
    assert g.score(list(AMERICAN)) == g.score(np.array(AMERICAN.points)) == g.score(AMERICAN) == 2  # the first row's pair
    assert g.render(None) == g.render() and "Total" not in g.render()  # no system, no scores


@pytest.mark.parametrize("rc", [{1, 2}, {1: 2, 2: 3}, (1,), (1, 2, 3), "12", None, 7, (1.0, 2), (True, 0),
                                ("a", 0), (None, 0), (np.arange(2), 0), (0, 2 ** 70)])
def test_a_cell_is_a_row_and_column_of_integers(rc):
    """{1, 2} was cell (1, 2) or (2, 1) as the set iterated; (True, 0) cell (1, 0); the
    rest bare TypeErrors and ValueErrors ("'<=' not supported", "not enough values")."""
    from pokersquares.errors import InvalidCellError

    with pytest.raises(InvalidCellError, match="0..4") as raised:
        Grid()[rc]
    assert isinstance(raised.value, IndexError)  # still what a lookup off a list raises


def test_cells_still_read_with_numpy_integers_and_lists():
    g = Grid()
    g.place(7, 1, 2)
    assert g[np.int64(1), np.int8(2)] == g[[1, 2]] == g[np.array([1, 2])] == g[1, 2] == 7


@pytest.mark.parametrize("line", [None, 1.5, "1", True, np.arange(2), (1,)])
def test_a_line_is_an_integer_0_to_9(line):
    """None, "1" or (1,) was a bare TypeError ("'<=' not supported"), 1.5 another, True line 1."""
    from pokersquares.errors import InvalidCellError

    with pytest.raises(InvalidCellError, match="0..9"):
        Grid().line(line)
    assert Grid().line(np.int64(9)) == []


def test_a_card_in_an_array_is_no_card_to_place():
    """np.array([5]) passed the card check (it has ``__index__``) and was placed as 5;
    np.arange(2) was numpy's ambiguous-truth ValueError."""
    for card in (np.array([5]), np.arange(2)):
        g = Grid()
        with pytest.raises(IllegalPlacementError):
            g.place(card, 0, 0)
        assert g == Grid()


@pytest.mark.parametrize("cells, says", [([0, 0] + [-1] * 23, "distinct"), ([5] + [-1] * 23 + [5], "distinct"),
                                         ([52] + [-1] * 24, "0..51"), ([-2] + [-1] * 24, "0..51")])
def test_a_grid_holds_distinct_card_ids_0_to_51(cells, says):
    """A card twice, or an id that is no card, makes no grid a game could reach."""
    with pytest.raises(IllegalPlacementError, match=says):
        Grid(cells)
    assert Grid([51] + [-1] * 23 + [0]).cells[::24] == [51, 0]


def test_a_game_given_a_grid_holds_the_placements_that_filled_it():
    """A grid of one card given without its placement filled up after 24 plays, and the
    game, counting plays, was never over: the next play was refused as an occupied cell."""
    cards = deal(1)
    lone = Grid()
    lone.place(cards[0], 0, 0)
    with pytest.raises(IllegalPlacementError, match="grid of 1 cards and"):
        Game(AMERICAN, cards, grid=lone)
    with pytest.raises(IllegalPlacementError, match="placements put them"):
        Game(AMERICAN, cards, grid=lone, placements=[(cards[0], 0, 1)])  # not where the grid holds it
    with pytest.raises(IllegalPlacementError, match="placements put them"):
        Game(AMERICAN, cards, grid=Grid(), placements=[(cards[0], 0, 0)])
    # The grid and placements of a game part played go on to the end, and it is over there.
    played = Game(AMERICAN, cards)
    played.play(0, 0)
    game = Game(AMERICAN, cards, grid=lone, placements=list(played.placements))
    for k in range(1, 25):
        game.play(*divmod(k, 5))
    assert game.done and game.next_card is None and game.turn == 25
    with pytest.raises(IllegalPlacementError, match="over"):
        game.play(0, 0)
