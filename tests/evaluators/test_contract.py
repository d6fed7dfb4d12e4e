"""The evaluator contract (``evaluators/base.py``), checked for every evaluator: a
value is an estimate of the final score; ``placement_values`` is ``state_value`` of
the grid after the placement; a full grid is worth its exact score. The numba form
an evaluator hands to MCTS keeps the same contract."""

import numpy as np
import pytest

from pokersquares.kernels.core import score_grid

from .conftest import EVALUATOR_NAMES, greedy_positions


@pytest.fixture(scope="module", params=EVALUATOR_NAMES)
def case(request, prepared_evaluators):
    ev = prepared_evaluators[request.param]
    return ev, greedy_positions(ev, games=40, seed=5)


def test_a_full_grid_is_worth_its_exact_score(case):
    ev, games = case
    for grids, final in games:
        assert ev.state_value(grids[25]) == final


def test_placement_values_are_the_state_values_of_the_grids_they_lead_to(case):
    ev, games = case
    rng = np.random.default_rng(1)
    for grids, _ in games[:10]:
        for k in (1, 8, 16, 23, 24):
            grid = grids[k]
            empty = np.flatnonzero(grid == -1)
            card = int(rng.choice(np.setdiff1d(np.arange(52), grid[grid >= 0])))
            values = ev.placement_values(grid, card)
            assert np.all(values[grid >= 0] == -np.inf)
            for cell in empty:
                after = grid.copy()
                after[cell] = card
                assert values[cell] == pytest.approx(ev.state_value(after), rel=1e-9, abs=1e-9)


# Measured (American, 40 greedy games of seed 5 on the session's fixed-work tables):
# the mean value after 10 and 20 cards against the mean final score, patterns +14.7%
# and +20.4%, NARL -30.0% and -5.4%, possibility +0.3% and -1.4%, TD (NARL's table
# plus 5,000 games of its residual) -0.4% and -3.2%. Each bound leaves a
# few points above its evaluator's figure. Broken on purpose: the possibility
# heuristic without its calibration offsets (its raw h) is off by -74.7% and -19.1%,
# which the 5% bound catches at both depths (35% for every evaluator caught only the first).
TOLERANCE = {"patterns": 0.25, "narl": 0.35, "possibility": 0.05, "td": 0.1}


def test_values_estimate_the_final_score(case):
    """Mean value along greedy games against their mean final score. A search that
    averages values over chance or stops at any depth needs this; OG's gains
    (about 0 to 20) or Tiger's raw heuristic (27 of 90 points after 10 cards)
    break it."""
    ev, games = case
    final = np.mean([f for _, f in games])
    for k in (10, 20):
        mean_value = np.mean([ev.state_value(grids[k]) for grids, _ in games])
        assert abs(mean_value - final) <= TOLERANCE[ev.name] * final, (k, mean_value, final)


def test_the_kernel_form_keeps_the_contract(case):
    ev, games = case
    kernel = ev.kernel()
    if kernel is None:
        pytest.skip(f"{ev.name} has no numba form")
    out = np.empty(25)
    for grids, _ in games[:10]:
        for k in (3, 12, 24):
            grid = np.ascontiguousarray(grids[k])
            card = int(np.setdiff1d(np.arange(52), grid[grid >= 0])[0])
            kernel.child_values(grid, card, kernel.params, out)
            np.testing.assert_allclose(out, ev.placement_values(grid, card))
            assert kernel.state_value(grid, kernel.params) == pytest.approx(ev.state_value(grid))
        # the baseline MCTS's pruning subtracts: what is left of an empty grid is 0
        empty = np.full(25, -1, dtype=np.int8)
        assert kernel.state_value(empty, kernel.params) - kernel.baseline[0] == pytest.approx(0.0, abs=1e-9)
