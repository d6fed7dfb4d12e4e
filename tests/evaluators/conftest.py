"""Helpers for the evaluator tests (``prepared_evaluators`` is in tests/conftest.py)."""

import numpy as np
from pokersquares.kernels.core import score_grid
from pokersquares.points import AMERICAN

EVALUATOR_NAMES = ("patterns", "narl", "possibility", "td")
AMERICAN_POINTS = np.array(AMERICAN.points, dtype=np.int64)


def greedy_positions(ev, games: int, seed: int):
    """``games`` games played by the evaluator's greedy policy: for each, the 26
    grids it passed through (0 to 25 cards) and its final score."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(games):
        grid = np.full(25, -1, dtype=np.int8)
        grids = [grid.copy()]
        for c in rng.permutation(52)[:25]:
            grid[ev.greedy_cell(grid, int(c))] = c
            grids.append(grid.copy())
        out.append((grids, int(score_grid(grid, AMERICAN_POINTS))))
    return out
