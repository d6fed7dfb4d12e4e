"""CrnHalving: common random numbers, sequential halving, the early stop and the exact end game."""

import math

import numpy as np
import pytest

from pokersquares.cards import deal, parse_card
from pokersquares.errors import PokerSquaresError
from pokersquares.evaluators.narl import NarlEvaluator
from pokersquares.points import AMERICAN
from pokersquares.search.endgame import exact_values
from pokersquares.search.halving import CrnHalving
from pokersquares.symmetry import cell_classes

POINTS = np.array(AMERICAN.points, dtype=np.int64)


@pytest.fixture(scope="module")
def narl():
    evaluator = NarlEvaluator(games=3000, threads=1)
    evaluator.prepare(POINTS, 10.0, seed=1)
    return evaluator


def _mid_game(seed: int = 11, placed: int = 12):
    cards = deal(seed)
    grid = np.full(25, -1, dtype=np.int8)
    cells = np.random.default_rng(seed).permutation(25)
    grid[cells[:placed]] = cards[:placed]
    return grid, int(cards[placed])


def test_common_random_numbers_pair_the_cells(narl):
    """With CRN two cells are judged on the same futures, so their paired difference
    varies less than with independent futures (measured on this position: a spread of
    17.3 against 22.3 points, 0.78 of it; a broken pairing gives about 1.0)."""
    grid, card = _mid_game()
    a, b = np.flatnonzero(grid == -1)[:2]
    children = []
    for cell in (a, b):
        child = grid.copy()
        child[cell] = card
        children.append(child)
    spread = {}
    for crn in (True, False):
        search = CrnHalving(crn=crn, cores=1)
        rows = search._playouts(narl, grid, children, 400, seed=5, round_=0)
        spread[crn] = np.std(rows[0] - rows[1])
    assert spread[True] < 0.88 * spread[False]


def test_halving_gives_the_close_cells_the_playouts(narl):
    grid, card = _mid_game()
    # Fixed work (13 cells x 400 playouts) and time to spare: the same rounds on any machine.
    search = CrnHalving(cores=1, stop_z=float("inf"), exact=False, max_playouts=13 * 400)
    cell, values = search.choose(narl, grid, card, POINTS, 60.0, seed=3)
    counts = search.last["playouts"]
    empty = np.flatnonzero(grid == -1)
    assert search.last["rounds"] == 4  # ceil(log2(13))
    assert counts[cell] == counts.max()
    assert counts[empty].min() * 6 <= counts[cell]  # the first cells out had a sixth or less
    assert cell == int(np.argmax(values))
    flat = CrnHalving(cores=1, stop_z=float("inf"), exact=False, halving=False, max_playouts=13 * 100)
    flat.choose(narl, grid, card, POINTS, 60.0, seed=3)
    assert len(set(flat.last["playouts"][empty])) == 1  # one round: every cell alike


def test_a_clear_move_stops_early_and_a_close_one_does_not(narl):
    # Row 0 holds four spades to a royal flush with the king in hand: nothing else comes close.
    grid = np.full(25, -1, dtype=np.int8)
    for cell, name in zip((0, 1, 2, 3), ("AS", "TS", "JS", "QS")):
        grid[cell] = parse_card(name)
    grid[[6, 12, 18]] = [parse_card(x) for x in ("2H", "5D", "9C")]
    search = CrnHalving(cores=1, exact=False, stop_z=3.0, max_playouts=18 * 200)
    cell, _ = search.choose(narl, grid, parse_card("KS"), POINTS, 60.0, seed=3)
    assert cell == 4 and search.last["stopped_early"]
    patient = CrnHalving(cores=1, exact=False, stop_z=float("inf"), max_playouts=18 * 200)
    assert patient.choose(narl, grid, parse_card("KS"), POINTS, 60.0, seed=3)[0] == 4
    assert not patient.last["stopped_early"]
    assert patient.last["playouts"].sum() > search.last["playouts"].sum()


def test_the_end_game_is_exact_when_it_fits(narl):
    grid, card = _mid_game(placed=22)
    search = CrnHalving(cores=1)
    cell, values = search.choose(narl, grid, card, POINTS, 0.5, seed=0)
    assert search.last["exact"]
    np.testing.assert_allclose(values, exact_values(grid, card, POINTS))
    assert cell == int(np.argmax(values))
    off = CrnHalving(cores=1, exact=False)
    off.choose(narl, grid, card, POINTS, 0.5, seed=0)
    assert not off.last["exact"] and off.last["playouts"].sum() > 0


@pytest.mark.timeout(120)
def test_with_no_clock_the_playouts_are_capped_and_the_end_game_exact_where_it_fits_their_time(narl):
    """time_s=inf: every exact end game fitted a quarter of an infinite time, so one of
    thirteen empty cells ran for ever (and the rounds' playouts failed as int(inf)); it is
    exact where it fits a quarter of the time of the capped playouts it replaces."""
    grid, card = _mid_game(placed=12)
    search = CrnHalving(cores=1, max_playouts=2000)
    cell, _ = search.choose(narl, grid, card, POINTS, math.inf, seed=0)
    assert not search.last["exact"] and 0 < search.last["playouts"].sum() <= 2000 and grid[cell] == -1
    late, last = _mid_game(placed=22)
    search = CrnHalving(cores=1, max_playouts=100_000)  # three empty cells: 4,872 full grids
    cell, values = search.choose(narl, late, last, POINTS, math.inf, seed=0)
    assert search.last["exact"]
    np.testing.assert_allclose(values, exact_values(late, last, POINTS))
    few = CrnHalving(cores=1, max_playouts=64)  # their time would not hold an exact end game
    few.choose(narl, late, last, POINTS, math.inf, seed=0)
    assert not few.last["exact"] and few.last["playouts"].sum() <= 64
    with pytest.raises(PokerSquaresError, match="give it max_playouts=N"):
        CrnHalving(cores=1).choose(narl, late, last, POINTS, math.inf, seed=0)


def test_two_threads_play_the_same_playouts_as_one(narl):
    grid, card = _mid_game()
    children = [grid.copy()]
    children[0][np.flatnonzero(grid == -1)[0]] = card
    two = CrnHalving(cores=2)._playouts(narl, grid, children, 64, seed=9, round_=1)
    again = CrnHalving(cores=2)._playouts(narl, grid, children, 64, seed=9, round_=1)
    assert two.shape == (1, 64)
    np.testing.assert_array_equal(two, again)  # reproducible whatever the threads' timing


def test_no_time_means_the_greedy_move(narl):
    grid, card = _mid_game()
    search = CrnHalving(cores=1, exact=False)
    cell, values = search.choose(narl, grid, card, POINTS, 1e-6, seed=0)
    assert search.last["rounds"] == 0
    assert cell == narl.greedy_cell(grid, card)


def test_fewer_cells_or_playouts_than_its_cap_or_the_greedy_move_for_want_of_time_is_a_search_cut_short(
        narl, fake_clock):
    """``cut_short`` (a player counts the move as a fallback): with ``max_playouts``, a
    clock that gives fewer cells or playouts than the cap alone; with none, the greedy
    move for want of time. Not a greedy move that the cap alone gives (the same on any
    machine), nor a search the clock did not bind. A playout takes 10 us a cell."""
    from pokersquares.search import halving

    fake_clock.install(halving)
    fake_clock.charge_per(narl, "limited_playouts", lambda grid, n, depth, seed, **kw: n * 1e-5)
    grid, card = _mid_game()
    said = []
    for max_playouts, budget in ((2000, math.inf), (2000, 1.0), (2000, 0.005), (64, math.inf),
                                 (None, 1.0), (None, 1e-6)):
        search = CrnHalving(cores=1, exact=False, stop_z=float("inf"), max_playouts=max_playouts)
        search.choose(narl, grid, card, POINTS, budget, seed=0)
        said.append((search.cut_short, search.last["rounds"] > 0))
    assert said == [(False, True), (False, True), (True, True), (False, False), (False, True), (True, False)]


def test_moves_before_from_cards_are_greedy_and_later_ones_searched(narl):
    """``from_cards=12``: a grid with 11 cards gets the greedy move without a playout, in
    a generous budget; one with 12 is searched."""
    search = CrnHalving(cores=1, exact=False, stop_z=1000, max_playouts=2000, from_cards=12)
    for placed, searched in ((11, False), (12, True)):
        grid, card = _mid_game(seed=5, placed=placed)
        cell, _ = search.choose(narl, grid, card, POINTS, 5.0, seed=0)
        assert (search.last["playouts"].sum() > 0) == searched
        if not searched:
            assert cell == narl.greedy_cell(grid, card)
    with pytest.raises(ValueError):
        CrnHalving(from_cards=26)


@pytest.mark.parametrize("kwargs", [dict(stop_z=math.nan), dict(stop_z=-1), dict(stop_z=0), dict(max_playouts=0),
                                    dict(max_playouts=2.5), dict(from_cards=26), dict(cores=0)])
def test_options_it_cannot_take_are_user_errors(kwargs):
    # A NaN stop_z never stopped and a max_playouts of 0 searched nothing, both taken as
    # given; the options are a user's error (one line, exit 2), as every player's are.
    with pytest.raises(PokerSquaresError, match="CrnHalving needs"):
        CrnHalving(**kwargs)
    CrnHalving(stop_z=math.inf, max_playouts=1)  # never stop early, one playout: fine


def test_the_early_stop_is_a_paired_z_test():
    """The leader ends the search when its mean lead over the runner-up, playout by
    playout on the same futures, is more than ``stop_z`` standard errors of that mean
    (the spread of the leads over the square root of their number): not one playout's
    spread, and not the spread of the futures both cells share."""
    rng = np.random.default_rng(0)
    futures = rng.normal(100.0, 30.0, 400)  # what both cells' playouts share
    noise = rng.standard_normal(400)
    noise = (noise - noise.mean()) / noise.std(ddof=1)  # the leads' own spread: exactly 1
    search = CrnHalving(stop_z=3.0)
    # 400 leads of spread 1: a standard error of 0.05, so 0.16 is 3.2 of them and 0.14 is 2.8.

    def rounds(x):  # samples arrive round by round
        return [x[:150], x[150:]]

    assert search._clearly_ahead(rounds(futures + 0.16 + noise), rounds(futures))
    assert not search._clearly_ahead(rounds(futures + 0.14 + noise), rounds(futures))
    assert not CrnHalving(stop_z=float("inf"))._clearly_ahead(rounds(futures + 50 + noise), rounds(futures))
    assert not search._clearly_ahead([futures[:7] + 50], [futures[:7]])  # too few playouts to judge


def test_stratified_rounds_deal_each_next_card_once_across_threads_and_the_same_for_every_cell():
    """With ``stratify``, a round's playouts continue one offset across the threads
    (thread 1 starts where thread 0 ends) and every cell gets the same offsets."""
    calls = []

    class Recording:
        def limited_playouts(self, child, n, depth, seed, first=-1):
            calls.append((int(np.argmax(child != grid)), n, first))
            return np.zeros(n)

    grid, card = _mid_game()
    children = []
    for cell in np.flatnonzero(grid == -1)[:3]:
        child = grid.copy()
        child[cell] = card
        children.append(child)
    CrnHalving(cores=2, stratify=True)._playouts(Recording(), grid, children, 21, seed=4, round_=2)
    firsts = {}
    for cell, n, first in calls:
        firsts.setdefault(cell, []).append((first, n))
    assert len(firsts) == 3 and len({tuple(sorted(v)) for v in firsts.values()}) == 1  # the same for every cell
    (a, na), (b, nb) = sorted(next(iter(firsts.values())))
    assert a >= 0 and b == a + na and na + nb == 21
    calls.clear()
    CrnHalving(cores=2)._playouts(Recording(), grid, children, 21, seed=4, round_=2)
    assert {first for _, _, first in calls} == {-1}  # off: the evaluator draws the next card


@pytest.mark.parametrize("placed, choices", [(1, 2), (2, 4)])
def test_alike_cells_are_searched_once(narl, placed, choices):
    """After one card the 24 empty cells are two choices (its row and column, or not);
    the playouts go to one cell of each kind, and the move is one of the searched
    cells. Without ``symmetry`` every empty cell is searched."""
    cards = deal(3)
    grid = np.full(25, -1, dtype=np.int8)
    grid[[12, 18][:placed]] = cards[:placed]  # the second card off the first one's lines
    card = int(cards[placed])
    search = CrnHalving(cores=1, exact=False, stop_z=float("inf"), max_playouts=4000)
    cell, values = search.choose(narl, grid, card, POINTS, 5.0, seed=0)
    searched = np.flatnonzero(search.last["playouts"])
    assert search.last["choices"] == len(searched) == choices
    assert cell in searched
    # Every empty cell is valued, as the searched cell of its kind (a coach shows them all).
    classes = cell_classes(grid)
    empty = np.flatnonzero(grid == -1)
    assert np.isfinite(values[empty]).all() and len(set(values[empty].tolist())) == choices
    for c in empty:
        assert values[c] == values[searched[classes[searched] == classes[c]][0]]
    assert search.last["rounds"] == 3  # never fewer batches than MIN_ROUNDS, the last two on the final pair
    every = CrnHalving(cores=1, exact=False, stop_z=float("inf"), max_playouts=4000, symmetry=False)
    every.choose(narl, grid, card, POINTS, 5.0, seed=0)
    assert every.last["choices"] == len(np.flatnonzero(every.last["playouts"])) == 25 - placed


def test_the_first_timing_batch_is_four_cells_even_when_the_choices_are_two(narl, monkeypatch):
    """A fresh search times a first small batch to learn what a playout costs; on four
    cells, whatever the choices (two cells' batch is mostly fixed cost)."""
    grid = np.full(25, -1, dtype=np.int8)
    grid[12] = deal(3)[0]
    search = CrnHalving(cores=1, exact=False, stop_z=float("inf"), max_playouts=400)
    batches = []
    timed = search._timed_playouts

    def recording(evaluator, grid, card, cells, n, seed, round_, moves):
        batches.append((round_, len(cells)))
        return timed(evaluator, grid, card, cells, n, seed, round_, moves)

    monkeypatch.setattr(search, "_timed_playouts", recording)
    search.choose(narl, grid, int(deal(3)[1]), POINTS, 5.0, seed=0)
    assert batches[0] == (-1, 4) and search.last["choices"] == 2
    assert [width for round_, width in batches[1:]] == [2, 2, 2]


def test_one_slow_timing_batch_does_not_leave_the_later_moves_greedy(narl, fake_clock):
    """A fresh search's first batch times what a playout costs; one that stalls (the
    thread pool starting in it, a busy moment) made a playout look dear, every move
    after it was left greedy for want of time and, with no batch played, the cost was
    never timed again (a 2 s game's first six moves were greedy, 0.7 s left unused).
    A move left greedy by the clock has the next one time a batch afresh. A playout
    takes 10 us a cell; the first batch stalls 10 ms, a third of the move's time."""
    from pokersquares.search import halving

    fake_clock.install(halving)
    stalls = [0.01]
    fake_clock.charge_per(narl, "limited_playouts",
                          lambda grid, n, depth, seed, **kw: n * 1e-5 + (stalls.pop() if stalls else 0.0))
    search = CrnHalving(depth=4, cores=1, exact=False, stop_z=float("inf"))
    searched = []
    for seed in range(4):
        grid, card = _mid_game(seed=seed, placed=8)
        search.choose(narl, grid, card, POINTS, 0.035, seed=seed)
        searched.append(search.last["rounds"] > 0)
    assert searched == [False, True, True, True]


def test_the_last_moves_tiny_end_game_does_not_make_the_next_four_card_one_look_dear(narl, fake_clock):
    """What an exact end game costs a full grid is learned from the end games played;
    the last move's (56 full grids) is timed mostly by its call's fixed cost, which made
    the next game's four-card end game look several times dearer than it is, and left
    it to playouts where it fits (0.07 ± 0.03 points a move behind exact, 150 positions).
    A call costs 20 us plus 60 ns a full grid here; a playout 10 us a cell."""
    from pokersquares.search import halving
    from pokersquares.search.endgame import exact_cost

    fake_clock.install(halving)
    fake_clock.charge_per(halving, "exact_values", lambda grid, card, points: 2e-5 + exact_cost(grid) * 6e-8)
    fake_clock.charge_per(narl, "limited_playouts", lambda grid, n, depth, seed, **kw: n * 1e-5)
    search = CrnHalving(cores=1, stop_z=float("inf"))
    for placed in (22, 23):  # a game's last two searched moves: three empty cells, then two
        grid, card = _mid_game(seed=placed, placed=placed)
        search.choose(narl, grid, card, POINTS, 0.3, seed=0)
        assert search.last["exact"]
    grid, card = _mid_game(seed=4, placed=21)  # the next game's four empty cells: 35 ms of 0.3 s
    search.choose(narl, grid, card, POINTS, 0.3, seed=0)
    assert search.last["exact"]
