"""Every evaluator with every search, on positions with one clearly right move:
complete the royal flush, complete the four of a kind, keep a four-card flush open.
A search that misreads its evaluator's values (averaging gains as if they were
scores, pruning on the wrong scale) fails here."""

import math

import numpy as np
import pytest

from pokersquares.cards import parse_card
from pokersquares.points import AMERICAN
from pokersquares.search.base import GreedySearch
from pokersquares.search.expectimax import Expectimax
from pokersquares.search.flat_mc import FlatMonteCarlo
from pokersquares.search.flat_ucb import DepthLimitedFlatMC, FlatUCB1
from pokersquares.search.mcts import MCTS

POINTS = np.array(AMERICAN.points, dtype=np.int64)

# Fixed work, so that a loaded machine changes nothing (expectimax finishes well
# within its generous clock).
SEARCHES = {
    "greedy": lambda: GreedySearch(),
    "flat_mc": lambda: FlatMonteCarlo(playouts=60, cores=1),
    "expectimax": lambda: Expectimax(),
    "depth_mc": lambda: DepthLimitedFlatMC(pulls=11 * 30),
    "flat_ucb": lambda: FlatUCB1(pulls=11 * 40),
    "mcts": lambda: MCTS(iterations=3000),
}


def c(text: str) -> int:
    return int(parse_card(text))


def _position(row0: list[str], filler: list[str]) -> np.ndarray:
    """Row 0 holds ``row0`` in cells 0-3 (cell 4 empty), rows 1 and 2 hold ``filler``
    (no pair, flush or straight draw among them), rows 3 and 4 are empty."""
    grid = np.full(25, -1, dtype=np.int8)
    grid[:4] = [c(t) for t in row0]
    grid[5:15] = [c(t) for t in filler]
    return grid


FILLER = ["2C", "7D", "3S", "8H", "4D", "9S", "5C", "JD", "6S", "QC"]
POSITIONS = {
    # the missing card of a royal flush in hand: only cell 4 scores 100
    "royal flush": (_position(["TH", "JH", "QH", "KH"], FILLER), c("AH"), {4}),
    # the fourth king in hand: only cell 4 makes four of a kind (50)
    "four of a kind": (_position(["KS", "KH", "KD", "2H"], FILLER), c("KC"), {4}),
    # a spade in hand: cell 4 would end row 0's flush draw (9 hearts unseen)
    "keep the flush open": (_position(["2H", "5H", "9H", "JH"], FILLER), c("7S"),
                            set(range(25)) - {4}),
}


@pytest.mark.parametrize("search", SEARCHES)
@pytest.mark.parametrize("evaluator", ["patterns", "narl", "possibility"])
@pytest.mark.parametrize("position", POSITIONS)
def test_the_right_move(prepared_evaluators, evaluator, search, position):
    grid, in_hand, right = POSITIONS[position]
    assert len(set(grid[grid >= 0].tolist()) | {in_hand}) == 15  # no card twice
    ev = prepared_evaluators[evaluator]
    cell, values = SEARCHES[search]().choose(ev, grid.copy(), in_hand, POINTS, 30.0, 11)
    assert cell in right, (cell, np.round(values, 1).reshape(5, 5))
    assert grid[cell] == -1


# -- what a search is given is checked once a decision -------------------------------------

def _checked_searches():
    from pokersquares.search.halving import CrnHalving
    return {**SEARCHES, "halving": lambda: CrnHalving(max_playouts=2000, cores=1)}


_ROYAL_GRID, _ACE = POSITIONS["royal flush"][:2]
_BAD_DECISIONS = {
    # what each misuse is, and the words of the one-line error it gets
    "the card in hand already on the grid": ((_ROYAL_GRID, c("TH"), POINTS, 30.0, 11), "already on the grid"),
    "a card out of range": ((_ROYAL_GRID, 60, POINTS, 30.0, 11), "card id 0..51"),
    "a card as a float": ((_ROYAL_GRID, 51.5, POINTS, 30.0, 11), "card id 0..51"),
    "a card twice on the grid": ((np.where(np.arange(25) == 20, _ROYAL_GRID[0], _ROYAL_GRID).astype(np.int8),
                                  _ACE, POINTS, 30.0, 11), "at most once"),
    "a float grid": ((_ROYAL_GRID + 0.5, _ACE, POINTS, 30.0, 11), "integer cells"),
    "a bool grid": ((_ROYAL_GRID >= 0, _ACE, POINTS, 30.0, 11), "integer cells"),
    "a full grid": ((np.arange(25, dtype=np.int8), 30, POINTS, 30.0, 11), "grid is full"),
    "float points": ((_ROYAL_GRID, _ACE, POINTS + 0.5, 30.0, 11), "10 integers"),
    "time as text": ((_ROYAL_GRID, _ACE, POINTS, "30", 11), "number of seconds"),
    # a negative time played the greedy move (MCTS some iterations, -inf an OverflowError)
    "a negative time": ((_ROYAL_GRID, _ACE, POINTS, -1.0, 11), r"number of seconds >= 0, got -1.0"),
    "minus infinity": ((_ROYAL_GRID, _ACE, POINTS, -math.inf, 11), r"number of seconds >= 0, got -inf"),
    "NaN time": ((_ROYAL_GRID, _ACE, POINTS, math.nan, 11), r"number of seconds >= 0, got nan"),
    "a float seed": ((_ROYAL_GRID, _ACE, POINTS, 30.0, 1.5), "seed"),
}


@pytest.mark.parametrize("problem", _BAD_DECISIONS)
@pytest.mark.parametrize("search", _checked_searches())
def test_a_search_refuses_a_position_it_cannot_search_in_one_line(search, problem):
    """MCTS's tree kernel used to play a card already on the grid, a card id of 60 or a
    grid holding a card twice (and crash on a float or full grid with a ZeroDivisionError);
    the others returned an occupied cell for a full grid, or truncated a float grid."""
    from pokersquares.errors import PokerSquaresError
    from pokersquares.evaluators.possibility import PossibilityEvaluator

    ev = PossibilityEvaluator()
    ev.prepare(POINTS, 0.0, 0)
    args, words = _BAD_DECISIONS[problem]
    with pytest.raises(PokerSquaresError, match=words):
        _checked_searches()[search]().choose(ev, *args)


def _bare_evaluator():
    """An evaluator of a user's that checks nothing itself: every value 0."""
    from pokersquares.evaluators.base import Evaluator

    class Bare(Evaluator):
        def placement_values(self, grid, card):
            return np.where(np.asarray(grid) == -1, 0.0, -np.inf)

        def playouts(self, grid, n, seed):
            return np.zeros(n, dtype=np.int64)

    return Bare()


@pytest.mark.parametrize("search", _checked_searches())
def test_a_search_refuses_an_evaluator_without_a_point_system(search):
    """An unprepared evaluator's values are all 0: each search used to play on them (the
    built-in evaluators now refuse themselves; a user's is refused by the search)."""
    from pokersquares.errors import NotPreparedError
    from pokersquares.evaluators.possibility import PossibilityEvaluator

    grid = POSITIONS["keep the flush open"][0]
    for ev in (PossibilityEvaluator(), _bare_evaluator()):
        with pytest.raises(NotPreparedError, match="no point system yet"):
            _checked_searches()[search]().choose(ev, grid, c("7S"), POINTS, 30.0, 11)
    bare = _bare_evaluator()
    bare.prepare(POINTS, 0.0)
    cell, _ = _checked_searches()[search]().choose(bare, grid, c("7S"), POINTS, 0.05, 11)
    assert grid[cell] == -1


@pytest.mark.parametrize("search", _checked_searches())
def test_a_grid_as_a_list_or_a_read_only_array_is_searched_as_the_int8_grid(search):
    """A list used to be no grid to expectimax and the flat searches (``grid == -1`` on a
    list is False: no empty cell, so the greedy move unsearched), and a read-only array
    a numba TypeError to MCTS."""
    from pokersquares.evaluators.possibility import PossibilityEvaluator

    ev = PossibilityEvaluator()
    ev.prepare(POINTS, 0.0, 0)
    grid = POSITIONS["keep the flush open"][0]
    card = c("7S")
    read_only = grid.copy()
    read_only.flags.writeable = False
    want_cell, want = _checked_searches()[search]().choose(ev, grid.copy(), card, POINTS, 30.0, 11)
    for given in (grid.tolist(), read_only, grid.astype(np.int64)):
        cell, values = _checked_searches()[search]().choose(ev, given, card, POINTS, 30.0, 11)
        assert cell == want_cell and np.array_equal(values, want), type(given)


# -- no clock: time_s=inf ---------------------------------------------------------------------

def _prepared_possibility():
    from pokersquares.evaluators.possibility import PossibilityEvaluator

    ev = PossibilityEvaluator()
    ev.prepare(POINTS, 0.0, 0)
    return ev


@pytest.mark.timeout(120)
@pytest.mark.parametrize("search", _checked_searches())
@pytest.mark.parametrize("position", ["royal flush", "keep the flush open"])
def test_with_no_clock_a_search_at_fixed_work_decides_as_on_a_clock_that_does_not_bind(search, position):
    """time_s=inf is no clock: a search whose work something else bounds (greedy, expectimax's
    tree, playouts, pulls, iterations) makes the decision a generous clock gives it. Flat MC
    capped at 60 playouts failed turning infinite seconds into a batch (OverflowError), and
    halving capped at 2,000 playouts ran an exact end game of ten empty cells, for ever."""
    grid, in_hand, right = POSITIONS[position]
    ev = _prepared_possibility()
    clocked = _checked_searches()[search]().choose(ev, grid.copy(), in_hand, POINTS, 30.0, 11)
    unclocked = _checked_searches()[search]().choose(ev, grid.copy(), in_hand, POINTS, math.inf, 11)
    assert unclocked[0] == clocked[0] and unclocked[0] in right
    np.testing.assert_array_equal(unclocked[1], clocked[1])


def _clocked_searches():
    """Each search as only its clock stops it: no cap on its playouts, pulls or iterations."""
    from pokersquares.search.halving import CrnHalving
    from pokersquares.search.td_search import TdSearch

    return {"flat_mc": lambda: FlatMonteCarlo(cores=1), "depth_mc": lambda: DepthLimitedFlatMC(),
            "flat_ucb": lambda: FlatUCB1(), "mcts": lambda: MCTS(),
            "halving": lambda: CrnHalving(cores=1, exact=False), "td_search over mcts": lambda: TdSearch(MCTS(), cores=1)}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("search", _clocked_searches())
def test_a_search_only_its_clock_stops_refuses_no_clock_in_one_line(search):
    """time_s=inf searched for ever (MCTS, flat UCB1, depth-limited flat MC) or failed in its
    arithmetic (flat MC, halving: OverflowError); it is a user's error naming the cap to set."""
    from pokersquares.search.base import SearchOptionError

    grid, in_hand, _ = POSITIONS["keep the flush open"]
    with pytest.raises(SearchOptionError, match=r"time_s must be a finite number of seconds >= 0 for .*, got inf: "
                                                r".*give it \w+=N"):
        _clocked_searches()[search]().choose(_prepared_possibility(), grid.copy(), in_hand, POINTS, math.inf, 11)


@pytest.mark.parametrize("search", _checked_searches())
def test_every_search_values_the_last_card_at_the_final_score(prepared_evaluators, search):
    """With one empty cell a search's value there is the grid's final score, what the web
    coach shows as "estimate of the final score": `flat_mc` (BeeMo) and `halving` (the
    champion) said 0 for the last card while the others said the score."""
    from pokersquares.game import Grid

    grid = np.array([c(t) for t in ["AS", "AH", "AD", "AC", "KS", "KH", "KD", "KC", "QS", "QH", "QD", "QC",
                                    "JS", "JH", "JD", "JC", "TS", "TH", "TD", "TC", "9S", "9H", "9D", "9C"]]
                    + [-1], dtype=np.int8)
    card = c("2S")
    final = Grid([int(x) for x in grid[:24]] + [card]).score(AMERICAN)
    assert final > 0
    cell, values = _checked_searches()[search]().choose(prepared_evaluators["possibility"], grid.copy(), card,
                                                        POINTS, 30.0, 11)
    assert cell == 24 and values[24] == pytest.approx(final)
    assert np.all(np.isneginf(values[:24]))
