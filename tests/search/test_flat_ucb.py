"""Depth-limited flat Monte Carlo and flat UCB1: legal, within budget, over any evaluator."""

import math

import numpy as np
import pytest

from pokersquares import AMERICAN
from pokersquares.cards import parse_card
from pokersquares.evaluators.base import Evaluator
from pokersquares.evaluators.narl import NarlEvaluator
from pokersquares.search.flat_ucb import DepthLimitedFlatMC, FlatUCB1

POINTS = np.array(AMERICAN.points, dtype=np.int64)
SEARCHES = [DepthLimitedFlatMC, FlatUCB1]


@pytest.fixture(scope="module")
def narl() -> NarlEvaluator:
    ev = NarlEvaluator(games=300)
    ev.prepare(POINTS, 10.0, seed=3)
    return ev


class Counting(Evaluator):
    """Wraps an evaluator, counting the playouts searches ask of it (and using only
    the interface's default ``limited_playouts``)."""

    name = "counting"

    def __init__(self, inner):
        self.inner = inner
        self.points = inner.points
        self.calls = 0

    def placement_values(self, grid, card):
        return self.inner.placement_values(grid, card)

    def playouts(self, grid, n, seed):
        self.calls += n
        return self.inner.playouts(grid, n, seed)

    def state_value(self, grid):
        self.calls += 1
        return self.inner.state_value(grid)


def _mid_game(cards: int, seed: int):
    rng = np.random.default_rng(seed)
    deck = rng.permutation(52)
    grid = np.full(25, -1, dtype=np.int8)
    grid[rng.permutation(25)[:cards]] = deck[:cards]
    return grid, int(deck[cards])


@pytest.mark.parametrize("search_cls", SEARCHES)
def test_legal_moves_within_budget(narl, search_cls, fake_clock):
    """On a clock that moves 1 ms per pull, a search keeps to its 30 ms: flat UCB1
    looks at the clock before every pull, flat MC starts a round only when the last
    one's duration still fits (and always plays a first round)."""
    from pokersquares.search import flat_ucb

    clock = fake_clock.install(flat_ucb)
    fake_clock.charge_per(narl, "_unchecked_limited_playouts", lambda *args, **kw: 1e-3)  # a pull
    search = search_cls()
    for k, cards in enumerate([1, 8, 15, 22, 23]):
        grid, card = _mid_game(cards, k)
        start = clock.now
        cell, values = search.choose(narl, grid, card, POINTS, 0.03, k)
        one_round = 1e-3 * (25 - cards)
        assert clock.now - start <= max(0.03 + 1e-3, one_round) + 1e-9
        if cards < 23:
            assert search.last_playouts.sum() >= min(29, (25 - cards) * int(0.03 // one_round))
        assert grid[cell] < 0
        assert np.isneginf(values[grid >= 0]).all()
        assert np.isfinite(values[grid < 0]).all()


@pytest.mark.parametrize("search_cls", SEARCHES)
def test_no_time_means_the_greedy_move(narl, search_cls):
    grid, card = _mid_game(10, 1)
    cell, values = search_cls().choose(narl, grid, card, POINTS, 0.0, 0)
    assert np.array_equal(values, narl.placement_values(grid, card))


@pytest.mark.parametrize("search_cls", SEARCHES)
def test_the_greedy_move_for_want_of_time_is_a_search_the_clock_cut_short(narl, search_cls, fake_clock):
    """``cut_short`` (a player counts the move as a fallback) where the clock left a cell
    unpulled (the greedy move); not where fixed ``pulls`` did (fewer than the cells: the
    same move on any machine), nor where every cell was pulled. A pull takes 1 ms: in
    5 ms flat UCB1 pulls 5 of the 15 cells, flat MC its first round whole."""
    from pokersquares.search import flat_ucb

    fake_clock.install(flat_ucb)
    fake_clock.charge_per(narl, "_unchecked_limited_playouts", lambda *args, **kw: 1e-3)
    grid, card = _mid_game(10, 1)
    said = []
    for pulls, budget in ((None, 0.0), (None, 0.005), (None, 0.05), (3, 0.0), (30, math.inf)):
        search = search_cls(pulls=pulls)
        search.choose(narl, grid, card, POINTS, budget, 0)
        said.append(search.cut_short)
    assert said == [True, search_cls is FlatUCB1, False, False, False]


@pytest.mark.parametrize("search_cls", SEARCHES)
def test_finds_the_royal_flush(narl, search_cls):
    # Row 0 needs AS for a royal flush (100 points); every other cell is worth little.
    grid, _ = _mid_game(0, 0)
    row = ["TS", "JS", "QS", "KS"]
    for i, name in enumerate(row):
        grid[i] = parse_card(name)
    filler = [c for c in np.random.default_rng(2).permutation(52) if c // 13 != 3][:18]
    cells = [c for c in range(5, 25)][:18]
    grid[cells] = filler
    card = parse_card("AS")
    cell, values = search_cls().choose(narl, grid, card, POINTS, 0.2, 0)
    assert cell == 4


@pytest.mark.parametrize("search_cls", SEARCHES)
def test_over_any_evaluator(narl, search_cls):
    ev = Counting(narl)
    grid, card = _mid_game(12, 3)
    # 0.5 s: on a loaded machine 0.05 s gave one search 6 calls, fewer than the 13 cells
    cell, values = search_cls(depth=2).choose(ev, grid, card, POINTS, 0.5, 0)
    assert grid[cell] < 0 and ev.calls >= 13


def test_ucb_exploration_factor_spreads_the_pulls(narl):
    grid, card = _mid_game(6, 4)
    empty = grid < 0
    pulls = {}
    for c in (0.0, 1e6):
        search = FlatUCB1(exploration=c)
        search.choose(narl, grid, card, POINTS, 0.05, 0)
        pulls[c] = search.last_playouts[empty]
    assert pulls[0.0].min() == 1 and pulls[0.0].max() > 5  # greedy on the means after one pull each
    assert pulls[1e6].max() - pulls[1e6].min() <= 1  # round robin, like flat Monte Carlo


def test_flat_mc_gives_every_cell_the_same_playouts(narl):
    grid, card = _mid_game(9, 5)
    search = DepthLimitedFlatMC()
    search.choose(narl, grid, card, POINTS, 0.05, 0)
    pulls = search.last_playouts[grid < 0]
    assert pulls.min() == pulls.max() > 1


@pytest.mark.parametrize("bad", [{"batch": 1.5}, {"depth": 2.0}, {"pulls": "3"}, {"batch": True}, {"depth": -1},
                                 {"pulls": 0}])
def test_the_counts_a_pull_hands_over_unchecked_are_checked_at_construction(bad):
    from pokersquares.errors import PokerSquaresError

    with pytest.raises(PokerSquaresError, match="integer"):  # a user's error: one line, exit 2
        FlatUCB1(**bad)
