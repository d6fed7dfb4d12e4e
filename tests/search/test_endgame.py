"""The exact end game: the kernel against the plain-Python recursion, on constructed positions."""

import numpy as np
import pytest

from pokersquares.cards import deal, parse_card
from pokersquares.points import AMERICAN, BRITISH, random_system, single_hand_system
from pokersquares.search.endgame import exact_cost, exact_values, exact_values_reference

SYSTEMS = [AMERICAN.points, BRITISH.points, random_system(3).points, single_hand_system("flush").points,
           tuple(-p - 1 for p in AMERICAN.points)]


def _position(seed: int, empty: int):
    cards = deal(seed)
    grid = np.full(25, -1, dtype=np.int8)
    # Fill all but ``empty`` cells, in a scattered order, so that the empty cells share lines or not.
    cells = np.random.default_rng(seed).permutation(25)
    grid[cells[:25 - empty]] = cards[:25 - empty]
    return grid, int(cards[25 - empty])


CASES = ([(points, seed, empty) for points in SYSTEMS for seed, empty in [(1, 1), (2, 2), (3, 2)]]
         + [(SYSTEMS[0], 4, 3), (SYSTEMS[3], 5, 3), (SYSTEMS[4], 6, 3)])  # the reference takes ~1 s for 3 cells


@pytest.mark.parametrize("points,seed,empty", CASES)
def test_kernel_matches_the_reference(points, seed, empty):
    grid, card = _position(seed, empty)
    points = np.array(points, dtype=np.int64)
    kernel = exact_values(grid, card, points)
    reference = exact_values_reference(grid, card, points)
    assert np.array_equal(np.isfinite(kernel), grid == -1)
    np.testing.assert_allclose(kernel, reference, rtol=0, atol=1e-9)


def test_completes_a_royal_flush_over_a_tempting_pair():
    # Row 0 holds A T J Q of spades; column 4 below the empty corner is empty but for a king.
    grid = np.full(25, -1, dtype=np.int8)
    rest = [c for c in range(52) if c not in {parse_card(x) for x in ("AS", "TS", "JS", "QS", "KS", "KH")}]
    for cell, name in zip((0, 1, 2, 3), ("AS", "TS", "JS", "QS")):
        grid[cell] = parse_card(name)
    grid[9] = parse_card("KH")
    others = [c for c in range(25) if grid[c] == -1 and c not in (4, 14)]
    grid[others] = rest[:len(others)]
    values = exact_values(grid, parse_card("KS"), np.array(AMERICAN.points, dtype=np.int64))
    assert int(np.argmax(values)) == 4
    assert values[4] >= values[14] + 90  # the royal flush is worth 100 under American


def test_cost_counts_the_full_grids():
    grid, _ = _position(6, 3)
    assert exact_cost(grid) == 3 * 29 * 2 * 28
    grid, _ = _position(6, 1)
    assert exact_cost(grid) == 1


def test_points_the_kernel_would_overflow_on_are_refused():
    # The kernel adds points in int64 unchecked: 2**62 a hand wrapped to nonsense values.
    import numpy as np
    import pytest

    from pokersquares.errors import InvalidPointSystemError
    from pokersquares.search.endgame import exact_values

    grid = np.array([*range(24), -1], dtype=np.int8)
    for points in (np.full(10, 2 ** 62), np.full(10, 128), [1.5] * 10):
        with pytest.raises(InvalidPointSystemError):
            exact_values(grid, 30, points)
    assert np.isfinite(exact_values(grid, 30, np.full(10, 127))[24])
