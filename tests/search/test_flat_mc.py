"""Flat Monte Carlo: legal cells, within its budget, with any evaluator."""

import math

import numpy as np
import pytest

from pokersquares import AMERICAN
from pokersquares.cards import parse_cards
from pokersquares.evaluators.base import Evaluator
from pokersquares.evaluators.patterns import PatternEvaluator
from pokersquares.kernels.core import score_grid
from pokersquares.search.flat_mc import FlatMonteCarlo

POINTS = np.array(AMERICAN.points, dtype=np.int64)


@pytest.fixture(scope="module")
def patterns() -> PatternEvaluator:
    ev = PatternEvaluator(train_games=1000, eval_games=500)
    ev.prepare(POINTS, 1.0, seed=2)
    return ev


class RandomPlayouts(Evaluator):
    """An evaluator in plain Python that completes grids at random: flat MC needs
    nothing but the interface (the default ``placement_playouts``)."""

    name = "random"

    def __init__(self):
        self.points = POINTS
        self.cells_asked = 0

    def placement_values(self, grid, card):
        return np.where(grid < 0, 0.0, -np.inf)

    def playouts(self, grid, n, seed):
        rng = np.random.default_rng(seed)
        empty = np.flatnonzero(grid < 0)
        unseen = np.setdiff1d(np.arange(52), grid[grid >= 0])
        out = np.empty(n, dtype=np.int64)
        for i in range(n):
            g = grid.copy()
            g[empty] = rng.permutation(unseen)[:len(empty)]
            out[i] = score_grid(g, self.points)
        self.cells_asked += n
        return out


def mid_game(filled: int, seed: int) -> tuple[np.ndarray, int]:
    rng = np.random.default_rng(seed)
    deck = rng.permutation(52)
    grid = np.full(25, -1, dtype=np.int8)
    grid[rng.permutation(25)[:filled]] = deck[:filled]
    return grid, int(deck[filled])


def royal_flush_draw() -> tuple[np.ndarray, int]:
    """Column 0 holds TH JH QH KH; the ace of hearts completes a royal flush at cell 20."""
    grid = np.full(25, -1, dtype=np.int8)
    grid[[0, 5, 10, 15]] = parse_cards("TH JH QH KH".split())
    grid[[1, 2, 7, 13]] = parse_cards("2C 7D 9S 4C".split())
    return grid, parse_cards(["AH"])[0]


def test_never_returns_an_occupied_cell(patterns):
    search = FlatMonteCarlo()
    for seed in range(30):
        grid, card = mid_game(seed % 25, seed)
        cell, values = search.choose(patterns, grid, card, POINTS, 0.005, seed)
        assert grid[cell] == -1
        assert np.isneginf(values[grid >= 0]).all()


def test_respects_its_time_budget(patterns, fake_clock):
    """On a clock that moves only with the playouts run (0.2 us per card dealt, as
    measured on one core, and one batch stalled by 30 ms), the search stays within its
    budget and spends most of it."""
    from pokersquares.search import flat_mc

    clock = fake_clock.install(flat_mc)
    calls = []

    def cost(grid, card, cells, n, seed):
        calls.append(n)
        return len(cells) * n * (len(cells) - 1) * 2e-7 + (0.03 if len(calls) == 2 else 0.0)
    fake_clock.charge_per(patterns, "placement_playouts", cost)
    search = FlatMonteCarlo()
    grid, card = mid_game(3, 1)
    for budget in (0.0, 0.02, 0.1, 1.0):
        calls.clear()
        start = clock.now
        search.choose(patterns, grid, card, POINTS, budget, 0)
        elapsed = clock.now - start
        assert elapsed <= budget + (0.03 if budget else 0.0)
        if budget >= 0.1:
            assert elapsed > 0.6 * budget and search.last_playouts == sum(calls)


def test_playout_cap_and_greedy_fallback(patterns):
    grid, card = mid_game(10, 2)
    search = FlatMonteCarlo(playouts=7)
    search.choose(patterns, grid, card, POINTS, 10.0, 0)
    assert search.last_playouts == 7
    cell, values = search.choose(patterns, grid, card, POINTS, 0.0, 0)
    assert search.last_playouts == 0
    assert cell == int(np.argmax(patterns.placement_values(grid, card)))


def test_finds_the_royal_flush(patterns):
    grid, card = royal_flush_draw()
    cell, values = FlatMonteCarlo(playouts=20).choose(patterns, grid, card, POINTS, 5.0, 0)
    assert cell == 20
    assert values[20] > np.max(np.delete(values, 20)) + 50


def test_works_with_any_evaluator():
    ev = RandomPlayouts()
    grid, card = royal_flush_draw()
    cell, values = FlatMonteCarlo(playouts=4, cores=1).choose(ev, grid, card, POINTS, 5.0, 0)
    assert cell == 20 and ev.cells_asked == 4 * 17


@pytest.mark.parametrize("kw, says", [
    (dict(playouts=0), "playouts must be a whole number of playouts per cell of at least 1"),
    (dict(playouts=-3), "playouts must be a whole number of playouts per cell of at least 1"),
    (dict(playouts=2.5), "playouts must be a whole number of playouts per cell of at least 1"),
    (dict(cores=0), "cores must be a positive whole number, got 0"),
    (dict(time_fraction=0), r"time_fraction must be a share of the move's time in \(0, 1\], got 0"),
    (dict(time_fraction=float("nan")), r"time_fraction must be a share of the move's time in \(0, 1\], got nan"),
    (dict(first_share=1.5), r"first_share must be a share of the move's time in \(0, 1\], got 1.5"),
    (dict(safety=0), "safety must be a finite factor > 0"),
])
def test_options_out_of_range_are_refused(kw, says):
    """Before, FlatMonteCarlo took them all: playouts=0 or below searched nothing and
    played the evaluator's greedy move without a word, safety=0 divided by zero at the
    first move."""
    from pokersquares.errors import PokerSquaresError

    with pytest.raises(PokerSquaresError, match=f"^{says}"):
        FlatMonteCarlo(**kw)


def test_one_playout_a_cell_is_a_search(patterns):
    search = FlatMonteCarlo(playouts=1, cores=1)
    g = np.full(25, -1, dtype=np.int8)
    g[:3] = [0, 1, 2]
    search.choose(patterns, g, 3, POINTS, 5.0, 0)
    assert search.last_playouts == 1


class SlowPlayouts(RandomPlayouts):
    """A plain-Python evaluator far slower than the numba kernels flat MC's prior fits."""

    def playouts(self, grid, n, seed):
        import time

        time.sleep(0.002 * n)
        return super().playouts(grid, n, seed)


def test_its_first_clocked_batch_over_a_slow_evaluator_keeps_to_the_budget():
    """Sized by the prior of 3e-7 s (numba playouts), the first batch over an evaluator of
    one's own in plain Python ran 69.8 s on a 0.2 s budget: every game a timeout."""
    import time

    search, evaluator = FlatMonteCarlo(cores=1), SlowPlayouts()
    grid = np.full(25, -1, dtype=np.int8)
    grid[:5] = parse_cards("2C 3D 4H 5S 7C".split())
    # the kernels it calls loaded first (on a cold cache their compiling would be the budget)
    FlatMonteCarlo(playouts=1, cores=1).choose(RandomPlayouts(), grid, 0, POINTS, float("inf"), 0)
    for budget in (0.5, 0.5):  # the first move measures, the next is sized by it
        start = time.perf_counter()
        cell, values = search.choose(evaluator, grid, int(parse_cards(["9H"])[0]), POINTS, budget, 1)
        assert time.perf_counter() - start < budget + 0.25 and grid[cell] == -1
        assert search.last_playouts >= 1  # it searched, not only the greedy values
    capped = FlatMonteCarlo(playouts=3, cores=1)  # fixed work: the cap alone, no probe
    capped.choose(RandomPlayouts(), grid, int(parse_cards(["9H"])[0]), POINTS, float("inf"), 1)
    assert capped.last_playouts == 3


@pytest.mark.parametrize("seed", [2 ** 62, 2 ** 63 - 1, -2 ** 63])
def test_any_int64_seed_searches(seed):
    """The search derives each batch's seed as ``seed * 7919 + done``: past 2**63 / 7919
    that left int64's range and the evaluator refused the valid seed the search was given.
    Within the range the derived seeds are as before (the same playouts, the same move)."""
    from pokersquares.evaluators.possibility import PossibilityEvaluator

    points = np.array(AMERICAN.points, dtype=np.int64)
    ev = PossibilityEvaluator()
    ev.prepare(points, 0.0)
    grid = np.full(25, -1, dtype=np.int8)
    cell, values = FlatMonteCarlo(playouts=2).choose(ev, grid, 40, points, 1.0, seed)
    assert 0 <= cell < 25 and len(values) == 25 and np.isfinite(values).all()
    from pokersquares.evaluators.base import wrapped_seed

    assert [wrapped_seed(v) for v in (0, 12345 * 7919 + 3, 2 ** 63 - 1, -2 ** 63)] == [
        0, 12345 * 7919 + 3, 2 ** 63 - 1, -2 ** 63]  # within the range: the seeds as before
    assert wrapped_seed(2 ** 63) == -2 ** 63 and wrapped_seed(-2 ** 63 - 1) == 2 ** 63 - 1


def test_fewer_playouts_than_its_cap_or_none_is_a_search_the_clock_cut_short(patterns, fake_clock):
    """``cut_short`` (a player counts the move as a fallback): with a cap, fewer playouts
    than the cap; with none, no playout (the greedy move). On a clock that moves 10 us a
    cell x playout x card dealt, the cost the search has measured."""
    from pokersquares.search import flat_mc

    fake_clock.install(flat_mc)
    fake_clock.charge_per(patterns, "placement_playouts",
                          lambda grid, card, cells, n, seed: len(cells) * n * (len(cells) - 1) * 1e-5)
    grid, card = mid_game(10, 2)
    said = []
    for playouts, budget in ((50, math.inf), (50, 1.0), (50, 0.02), (None, 0.02), (None, 0.0), (50, 0.0)):
        search = FlatMonteCarlo(playouts=playouts)
        search.unit_s, search.unit_measured = 1e-5, True
        search.choose(patterns, grid, card, POINTS, budget, 0)
        said.append((search.last_playouts, search.cut_short))
    assert said[:2] == [(50, False)] * 2
    assert 0 < said[2][0] < 50 and said[2][1]
    assert said[3][0] > 0 and not said[3][1]
    assert said[4:] == [(0, True)] * 2
