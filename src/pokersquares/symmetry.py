"""The grid's symmetries: which empty cells are alike.

The score of a grid does not change when its rows are reordered, its columns are
reordered, or rows and columns trade places, so a placement in one empty cell is
worth exactly what it is worth in any cell a symmetry of the grid maps it to. A search
that judges one cell of each such class spends its time on the choices that differ:
after the first card the 24 empty cells are two choices (the first card's line or
not), after two cards at most six.

:func:`distinct_cells` is what searches call (the numba kernel
:func:`pokersquares.kernels.symmetry.cell_classes`); :func:`cell_classes_reference`
is the plain rule, tried map by map.
"""

from __future__ import annotations

import itertools

import numpy as np

from .cards import NUM_CARDS
from .errors import IllegalPlacementError, InvalidCellError
from .game import EMPTY, NUM_CELLS, SIZE, Grid

__all__ = ["alike_values", "cell_classes", "cell_classes_reference", "distinct_cells"]


def _grid_cells(grid) -> np.ndarray:
    """``grid`` (a Grid, or its 25 cells as a sequence or a 25 or 5x5 array) as its 25
    integer cells, checked: else IllegalPlacementError, as ``Grid(cells)`` says. The
    searches call these once a move, not once a cell, so the check costs them little."""
    if isinstance(grid, Grid):
        return np.asarray(grid.cells)
    cells = np.asarray(grid)  # a set, dict or text becomes a 0-d object or text array: refused below
    if cells.dtype.kind not in "iu" or cells.shape not in ((NUM_CELLS,), (SIZE, SIZE)):
        raise IllegalPlacementError(f"a grid is 25 integer cells (card ids 0..51, -1 for empty), "
                                    f"got {cells.dtype} of shape {cells.shape}")
    cells = cells.reshape(-1)
    if cells.min() < EMPTY or cells.max() >= NUM_CARDS:
        raise IllegalPlacementError(f"a grid's cells are card ids 0..51 or -1 for empty, got {cells.tolist()}")
    return cells


def cell_classes_reference(grid) -> list[int]:
    """For each cell, -1 if it holds a card, else the smallest empty cell that some
    symmetry of ``grid`` (rows permuted, columns permuted, perhaps transposed; the
    grid unchanged by it) sends it to. Plain Python, every one of the 28,800 maps."""
    cells = [int(x) for x in _grid_cells(grid)]
    out = [c if cells[c] == EMPTY else -1 for c in range(SIZE * SIZE)]
    for transpose in (False, True):
        for p in itertools.permutations(range(SIZE)):
            for q in itertools.permutations(range(SIZE)):
                def image(r: int, c: int) -> int:
                    return q[c] * SIZE + p[r] if transpose else p[r] * SIZE + q[c]
                if any(cells[image(r, c)] != cells[r * SIZE + c] for r in range(SIZE) for c in range(SIZE)):
                    continue
                for r in range(SIZE):
                    for c in range(SIZE):
                        k = r * SIZE + c
                        if out[k] >= 0:
                            out[k] = min(out[k], image(r, c))
    return out


def cell_classes(grid) -> np.ndarray:
    """``int64[25]``: :func:`cell_classes_reference`, by the numba kernel."""
    from .kernels.symmetry import GRID_MAPS, cell_classes as kernel
    return kernel(_grid_cells(grid).astype(np.int8, copy=False), GRID_MAPS)


def distinct_cells(grid, cells, classes=None) -> np.ndarray:
    """The cells of ``cells`` (empty cells of ``grid``, in any order) that are the
    first of their class in that order: one cell for each choice that differs.
    ``classes``: :func:`cell_classes` of ``grid``, if the caller has it already."""
    classes = cell_classes(grid) if classes is None else classes
    cells = _cell_indices(cells, classes)
    seen: set[int] = set()
    kept = []
    for c in cells:
        k = int(classes[int(c)])
        if k not in seen:
            seen.add(k)
            kept.append(int(c))
    return np.array(kept, dtype=np.int64)


def _cell_indices(cells, classes) -> np.ndarray:
    """``cells`` as a 1-d integer array of empty cells 0..24; else InvalidCellError."""
    out = np.asarray(cells)  # a set, dict or text becomes a 0-d object or text array: refused below
    if out.size == 0:
        return out.reshape(-1).astype(np.int64)
    if out.dtype.kind not in "iu":
        raise InvalidCellError(f"cells are a list or array of cell indices 0..24, got {cells!r}")
    out = out.reshape(-1)
    if out.min() < 0 or out.max() >= NUM_CELLS:
        raise InvalidCellError(f"a cell index is 0..24, got {out.tolist()}")
    filled = out[np.asarray(classes)[out] < 0]
    if len(filled):
        raise InvalidCellError(f"cells are the grid's empty cells; {filled.tolist()} hold cards")
    return out


def alike_values(grid, values, classes=None) -> np.ndarray:
    """``values`` (one per cell, ``-inf`` where none was found) with every empty cell of
    ``grid`` given the best finite value of its class: a search that judged one cell of
    each kind values the others as it (a coach shows every cell a card is worth putting in).
    ``classes``: :func:`cell_classes` of ``grid``, if the caller has it already."""
    classes = cell_classes(grid) if classes is None else classes
    try:
        out = np.array(values, dtype=np.float64, copy=True)
    except (TypeError, ValueError):
        out = None
    if out is None or out.shape != (NUM_CELLS,):
        raise InvalidCellError(f"values are one number per cell (25), got {values!r}")
    for k in np.unique(classes[classes >= 0]):
        members = np.flatnonzero(classes == k)
        found = out[members][np.isfinite(out[members])]
        if len(found):
            out[members] = found.max()
    return out
