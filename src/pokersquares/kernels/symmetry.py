"""Which empty cells of a grid are alike: the orbits of the grid's symmetries.

A grid's score is the sum of its ten lines' points, and neither the order of the rows,
nor the order of the columns, nor which lines are rows and which columns changes it.
A map of the 5x5 cells that permutes the rows, permutes the columns and perhaps
transposes, and that leaves the grid as it is, therefore leaves every future of the
game as it is: a card placed in an empty cell or in that cell's image is worth the
same. :func:`cell_classes` finds those maps among all 2 * 5! * 5! = 28,800 and gives
each empty cell the smallest index in its orbit. The readable reference is
:func:`pokersquares.symmetry.cell_classes_reference`.
"""

from __future__ import annotations

import itertools

import numpy as np
from numba import njit

__all__ = ["GRID_MAPS", "cell_classes"]


def _grid_maps() -> np.ndarray:
    """``int8[28800, 25]``: row ``m`` is a map of the cells, the grid it makes from
    ``grid`` being ``grid[GRID_MAPS[m]]`` (the identity first)."""
    perms = np.array(list(itertools.permutations(range(5))))  # 120 orders of five lines
    rows, cols = np.divmod(np.arange(25), 5)
    row_to, col_to = perms[:, rows], perms[:, cols]  # where each cell's row (column) goes
    maps = np.stack([row_to[:, None, :] * 5 + col_to[None, :, :],       # rows and columns permuted
                     col_to[None, :, :] * 5 + row_to[:, None, :]])      # ... and transposed
    maps = maps.astype(np.int8)
    return maps.reshape(-1, 25)


GRID_MAPS = _grid_maps()


@njit(cache=True)
def cell_classes(grid, maps):
    """``int64[25]``: for each empty cell of ``grid`` the smallest empty cell it can be
    mapped to by a map of ``maps`` that leaves ``grid`` unchanged; -1 for a filled cell."""
    out = np.full(25, -1, dtype=np.int64)
    for c in range(25):
        if grid[c] < 0:
            out[c] = c
    for m in range(maps.shape[0]):
        same = True
        for k in range(25):
            if grid[maps[m, k]] != grid[k]:
                same = False
                break
        if same:
            for c in range(25):
                if out[c] >= 0 and maps[m, c] < out[c]:
                    out[c] = maps[m, c]
    return out
