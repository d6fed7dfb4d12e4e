"""The local search: the numba kernel follows its plain-Python reference move for move."""

import numpy as np
import pytest

from pokersquares.cards import deal
from pokersquares.kernels.core import score_grid
from pokersquares.kernels.optimum import late_acceptance
from pokersquares.optimum.search import grid_score, late_acceptance_reference, local_search
from pokersquares.points import AMERICAN, BRITISH, random_system


@pytest.mark.parametrize("within_rows", [False, True])
@pytest.mark.parametrize("points", [AMERICAN.points, BRITISH.points, random_system(3).points])
def test_kernel_matches_reference(points, within_rows):
    cards = deal(11)[:25]
    cells = np.array(cards, dtype=np.int8)
    best = late_acceptance(cells, np.array(points, dtype=np.int64), 5, 3000, 20, within_rows)
    ref_best, ref_cells = late_acceptance_reference(cards, points, 5, 3000, 20, within_rows)
    assert best == ref_best
    assert cells.tolist() == ref_cells
    assert grid_score(ref_cells, points) == best


def test_within_rows_keeps_every_row():
    cards = deal(4)[:25]
    _, cells = local_search(cards, AMERICAN.points, restarts=2, steps=2000, within_rows=True)
    for r in range(5):
        assert sorted(cells[r * 5:r * 5 + 5]) == sorted(cards[r * 5:r * 5 + 5])


def test_local_search_returns_a_grid_of_the_deal_and_its_true_score():
    cards = deal(0)[:25]
    score, cells = local_search(cards, AMERICAN.points, restarts=4, steps=50_000)
    assert sorted(cells) == sorted(cards)
    assert score == score_grid(np.array(cells, dtype=np.int8), np.array(AMERICAN.points, dtype=np.int64))
    # far above a random arrangement of the same cards
    assert score > grid_score(cards, AMERICAN.points) + 50
