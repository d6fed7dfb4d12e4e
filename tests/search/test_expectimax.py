"""Depth-2 expectimax: exact on end games, legal, within its time budget, over any evaluator."""

import math

import numpy as np
import pytest

from pokersquares import AMERICAN, Grid
from pokersquares.evaluators.base import Evaluator
from pokersquares.evaluators.narl import NarlEvaluator
from pokersquares.hands import classify
from pokersquares.game import LINES
from pokersquares.search.expectimax import Expectimax

POINTS = np.array(AMERICAN.points, dtype=np.int64)


@pytest.fixture(scope="module")
def narl() -> NarlEvaluator:
    ev = NarlEvaluator(games=300)
    ev.prepare(POINTS, 10.0, seed=3)
    return ev


class PartialPoints(Evaluator):
    """A plain-Python evaluator: the points of the partial hands after a placement."""

    name = "partial-points"

    def placement_values(self, grid, card):
        out = np.full(25, -np.inf)
        for cell in np.flatnonzero(grid < 0):
            after = grid.copy()
            after[cell] = card
            out[cell] = sum(self.points[classify([int(after[j]) for j in line if after[j] >= 0])] for line in LINES)
        return out

    def playouts(self, grid, n, seed):
        raise NotImplementedError


def _end_game(empty: int, seed: int):
    rng = np.random.default_rng(seed)
    deck = rng.permutation(52)
    grid = deck[:25].astype(np.int8)
    grid[rng.permutation(25)[:empty]] = -1
    return grid, int(deck[30])


def test_two_empty_cells_value_is_the_exact_expected_score(narl):
    grid, card = _end_game(2, 1)
    cell, values = Expectimax().choose(narl, grid, card, POINTS, 5.0, 0)
    empty = np.flatnonzero(grid < 0)
    undealt = [c for c in range(52) if c not in set(grid.tolist()) and c != card]
    exact = {}
    for i in empty:
        (j,) = [e for e in empty if e != i]
        scores = []
        for d in undealt:
            g = grid.copy()
            g[i], g[j] = card, d
            scores.append(Grid(g.tolist()).score(AMERICAN))
        exact[int(i)] = np.mean(scores)
    for i, v in exact.items():
        assert values[i] == pytest.approx(v)
    assert exact[cell] == max(exact.values())
    assert np.isneginf(values[grid >= 0]).all()


def _brute_force(evaluator, grid, card):
    values = np.full(25, -np.inf)
    undealt = [c for c in range(52) if c not in set(grid.tolist()) and c != card]
    for i in np.flatnonzero(grid < 0):
        g = grid.copy()
        g[i] = card
        values[i] = np.mean([evaluator.placement_values(g, d).max() for d in undealt])
    return values


def test_matches_brute_force_with_a_learned_evaluator(narl):
    grid, card = _end_game(4, 2)
    _, values = Expectimax().choose(narl, grid, card, POINTS, 5.0, 0)
    assert values == pytest.approx(_brute_force(narl, grid, card))


def test_works_over_any_evaluator():
    ev = PartialPoints()
    ev.prepare(POINTS, 0.0)
    grid, card = _end_game(3, 4)
    cell, values = Expectimax().choose(ev, grid, card, POINTS, 30.0, 0)
    assert values == pytest.approx(_brute_force(ev, grid, card))
    assert cell == int(np.argmax(values))


def test_moves_are_legal_and_within_budget(narl, fake_clock):
    """On a clock that moves 20 us per chance outcome searched, the search keeps to
    its budget within one cell's search (it stops between cells)."""
    from pokersquares.search import expectimax

    clock = fake_clock.install(expectimax)
    fake_clock.charge_per(narl, "best_placement_values", lambda grid, cards: 2e-5 * len(cards))
    search = Expectimax()
    rng = np.random.default_rng(5)
    for k in range(30):
        grid, card = _end_game(int(rng.integers(2, 25)), 10 + k)
        budget = [0.0, 0.002, 0.05][k % 3]
        start = clock.now
        cell, values = search.choose(narl, grid, card, POINTS, budget, k)
        one_cell = 2e-5 * (52 - int((grid >= 0).sum()) - 1)
        assert clock.now - start <= budget + one_cell + 1e-9
        if budget == 0.05:
            assert np.isfinite(values).sum() >= min(int((grid < 0).sum()), 20)
        assert grid[cell] < 0
        assert values[cell] == values.max()


def test_no_time_means_the_greedy_move(narl):
    grid, card = _end_game(12, 6)
    search = Expectimax()
    search.choose(narl, grid, card, POINTS, 1.0, 0)  # measures its cost
    cell, values = search.choose(narl, grid, card, POINTS, 0.0, 0)
    assert np.array_equal(values, narl.placement_values(grid, card))
    assert cell == int(np.argmax(values))


def test_one_slow_measurement_does_not_turn_the_search_off(narl):
    grid, card = _end_game(15, 7)
    search = Expectimax()
    search._seconds_per_card = 1.0  # as if the last search had been very slow
    searched = []
    for _ in range(60):
        _, values = search.choose(narl, grid, card, POINTS, 0.05, 0)
        searched.append(not np.array_equal(values, narl.placement_values(grid, card)))
    assert not searched[0] and searched[-1]


def test_a_search_the_clock_cut_short_says_so(narl, fake_clock):
    """Cells left unsearched, or the greedy move, for want of time set ``cut_short`` (a
    player counts the move as a fallback: a replay may search other cells); every cell
    searched, with or without a clock, does not. Each cell's search takes 1 ms."""
    from pokersquares.search import expectimax

    fake_clock.install(expectimax)
    fake_clock.charge_per(narl, "best_placement_values", lambda grid, cards: 1e-3)
    grid, card = _end_game(10, 8)
    search = Expectimax()
    greedy = narl.placement_values(grid, card)
    searched = {}
    for budget in (math.inf, 0.1, 0.0045, 0.0):
        _, values = search.choose(narl, grid, card, POINTS, budget, 0)
        searched[budget] = (search.cut_short, int(np.isfinite(values).sum()), np.array_equal(values, greedy))
    assert searched[math.inf] == searched[0.1] == (False, 10, False)
    assert searched[0.0045] == (True, 4, False)
    assert searched[0.0] == (True, 10, True)
