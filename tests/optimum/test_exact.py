"""The exact model: brute force on 3x3 grids, hand-proven 5x5 deals, any point system."""

import itertools

import numpy as np
import pytest

from pokersquares.cards import parse_cards
from pokersquares.hands import classify
from pokersquares.optimum import SolverNotInstalledError, require_solver, solve_deal
from pokersquares.optimum.exact import solve_exact
from pokersquares.points import PointSystem


def brute_force_3x3(cards, points):
    """The best of all 9! arrangements of 9 cards on a 3x3 grid (3-card lines)."""
    value = {}
    for sub in itertools.combinations(range(9), 3):
        mask = sum(1 << p for p in sub)
        value[mask] = points[classify([cards[p] for p in sub])]
    table = np.zeros(512, dtype=np.int64)
    for mask, v in value.items():
        table[mask] = v
    perms = np.array(list(itertools.permutations(range(9))), dtype=np.int64)
    bits = np.int64(1) << perms
    lines = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8)]
    total = sum(table[bits[:, list(line)].sum(axis=1)] for line in lines)
    return int(total.max())


@pytest.mark.parametrize("trial", range(4))
def test_model_agrees_with_brute_force_on_3x3(trial):
    rng = np.random.default_rng(trial)
    # cards of 3 ranks only, so pairs and trips abound; values of any sign
    pool = [s * 13 + r for s in range(4) for r in (0, 5, 9)]
    cards = [int(c) for c in rng.choice(pool, 9, replace=False)]
    points = tuple(int(p) for p in rng.integers(-128, 128, 10))
    result = solve_exact(cards, np.array(points), time_limit=60, size=3)
    expected = brute_force_3x3(cards, points)
    assert result.proven
    assert result.score == result.bound == expected
    grid_cards = [cards[p] for p in result.grid]
    rows = [grid_cards[r * 3:r * 3 + 3] for r in range(3)]
    cols = [grid_cards[c::3] for c in range(3)]
    assert sum(points[classify(line)] for line in rows + cols) == expected


FOUR_QUADS = parse_cards("AC AD AH AS KC KD KH KS QC QD QH QS JC JD JH JS TC TD TH TS 2C 3D 4H 5S 7C".split())


def test_hand_proven_optimum_of_five_quads():
    # Only four of a kind scores (1 point). The deal holds all four A, K, Q, J and T
    # and five cards of other, distinct ranks. A line with quads holds all four cards
    # of its rank; a row and a column share exactly one cell, so two lines with quads
    # of one rank would need 4 + 4 - 1 = 7 cards of it: each rank makes at most one
    # quads line, so no grid scores more than 5. Five rows AAAA+x, KKKK+x, ... score 5.
    quads_only = PointSystem((0, 0, 0, 0, 0, 0, 0, 1, 0, 0), "quads")
    opt = solve_deal(FOUR_QUADS, quads_only, time_limit=60)
    assert (opt.score, opt.bound, opt.proven) == (5, 5, True)
    assert sorted(opt.grid) == sorted(FOUR_QUADS)


def test_constant_negative_system():
    # Every hand is worth -3, so every grid scores exactly 10 * -3.
    opt = solve_deal(FOUR_QUADS, PointSystem((-3,) * 10), time_limit=60)
    assert (opt.score, opt.bound, opt.proven) == (-30, -30, True)


def test_a_limit_that_runs_out_claims_nothing():
    from pokersquares.cards import deal
    from pokersquares.points import AMERICAN
    opt = solve_deal(deal(0)[:25], AMERICAN, time_limit=0.05)
    assert not opt.proven
    assert opt.bound > opt.score  # the trivial bound, 10 lines of the best subset


def test_missing_solver_names_the_extra(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "highspy", None)
    with pytest.raises(SolverNotInstalledError, match=r"pokersquares\[optimum\]"):
        require_solver()


@pytest.mark.parametrize("cards", [list(range(-5, 20)), [c + 0.5 for c in range(25)], list(range(30, 55)),
                                   [0] * 25, list(range(24)), [True] + list(range(1, 25))])
def test_bad_cards_are_refused_before_any_solving(cards):
    import time

    from pokersquares import AMERICAN
    from pokersquares.errors import InvalidCardError

    t0 = time.perf_counter()
    with pytest.raises(InvalidCardError):
        solve_deal(cards, AMERICAN, time_limit=30)
    assert time.perf_counter() - t0 < 1  # not after the time limit


def test_a_flush_row_and_a_flush_column_of_one_suit_can_cross():
    # All 13 clubs and 4 cards of each other suit, only flushes score: two club rows and a
    # club column across them (10 + 3 clubs) make 3 flushes. The suit cut keeps rows of one
    # suit from columns of another; among one suit's lines it would bound the deal at 2.
    from pokersquares.points import parse_point_system
    cards = parse_cards("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2D 5D 8D JD 3H 6H 9H QH 4S 7S TS KS".split())
    points = np.array(parse_point_system("single:flush").points)
    grid = [0, 2, 4, 6, 8, 1, 3, 5, 7, 9, 10, 13, 14, 15, 16, 11, 17, 18, 19, 20, 12, 21, 22, 23, 24]
    lines = [[cards[p] for p in grid[r * 5:r * 5 + 5]] for r in range(5)] + [[cards[p] for p in grid[c::5]]
                                                                             for c in range(5)]
    assert sum(points[classify(line)] for line in lines) == 3  # A3579, 2468T, A2JQK of clubs
    r = solve_exact(cards, points, time_limit=5, start_grid=grid, start_score=3)  # the relaxation alone
    assert r.score == 3 and r.bound >= 3


def test_a_start_grids_lines_are_found_in_the_subsets():
    # the start solution handed to HiGHS sets the variable of each of its lines by rank
    from pokersquares.optimum.exact import _subset_index, subsets
    for size in (3, 5):
        subs, _ = subsets(size)
        rng = np.random.default_rng(size)
        for i in list(range(len(subs)))[:200] + [int(i) for i in rng.integers(0, len(subs), 300)] + [len(subs) - 1]:
            assert _subset_index(rng.permutation(subs[i]), size) == i
