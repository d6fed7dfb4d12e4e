"""The grid's symmetries: the kernel against the plain rule, and what alike cells mean."""

import numpy as np
import pytest

from pokersquares.cards import deal
from pokersquares.game import EMPTY, LINES, Grid
from pokersquares.kernels.symmetry import GRID_MAPS
from pokersquares.points import AMERICAN
from pokersquares.symmetry import alike_values, cell_classes, cell_classes_reference, distinct_cells


def _grid(cells: dict[int, int]) -> np.ndarray:
    grid = np.full(25, EMPTY, dtype=np.int8)
    for cell, card in cells.items():
        grid[cell] = card
    return grid


def _structured(seed: int, placed: int) -> np.ndarray:
    """A grid filled the way players fill it: cards of a suit down one column, the
    rest spread over few rows, so whole rows and columns stay empty for long."""
    rng = np.random.default_rng(seed)
    cards = deal(seed)[:placed]
    grid = np.full(25, EMPTY, dtype=np.int8)
    for card in cards:
        empty = np.flatnonzero(grid == EMPTY)
        col = int(card) // 13 % 5 if rng.random() < 0.7 else int(rng.integers(5))
        same = [c for c in empty if c % 5 == col]
        grid[int(rng.choice(same if same else empty))] = card
    return grid


def test_the_maps_are_the_rows_columns_and_transposes():
    assert GRID_MAPS.shape == (2 * 120 * 120, 25)
    assert len({m.tobytes() for m in GRID_MAPS}) == 28_800  # all distinct
    assert list(GRID_MAPS[0]) == list(range(25))             # the identity first
    rows = {frozenset(line) for line in LINES[:5]}
    cols = {frozenset(line) for line in LINES[5:]}
    for m in GRID_MAPS[::997]:
        images = {frozenset(int(m[c]) for c in line) for line in LINES}
        assert images == rows | cols  # every map sends the ten lines onto the ten lines


@pytest.mark.parametrize("seed", range(6))
def test_the_kernel_finds_the_classes_the_plain_rule_finds(seed):
    rng = np.random.default_rng(seed)
    for placed in (0, 1, 2, 3, 4, 6, 9):
        for grid in (_structured(seed * 31 + placed, placed),
                     _grid(dict(zip(rng.permutation(25)[:placed].tolist(), deal(seed)[:placed])))):
            assert list(cell_classes(grid)) == cell_classes_reference(grid)


def test_known_positions():
    assert set(cell_classes(_grid({}))) == {0}                      # every cell alike
    one = cell_classes(_grid({12: 7}))
    assert one[12] == -1
    line = [c for c in range(25) if c != 12 and (c // 5 == 2 or c % 5 == 2)]
    assert {one[c] for c in line} == {2}                              # its row and its column: one kind
    assert {one[c] for c in range(25) if c != 12 and c not in line} == {0}
    # Two cards on the diagonal, each fixed in place: rows 2..4 and columns 2..4 may be
    # reordered and the grid transposed, so (0,1)~(1,0), row 0 and column 0 beyond the
    # cards are one kind, row 1 and column 1 another, the 3x3 corner a fourth.
    diag = cell_classes(_grid({0: 3, 6: 20}))
    assert diag[1] == diag[5] and diag[2] == diag[10] == diag[4] and diag[7] == diag[21]
    assert diag[2] != diag[7] != diag[12] != diag[1]
    assert len({int(k) for k in diag if k >= 0}) == 4
    # Two cards in one row: the row's other cells are one kind; each card's column below
    # it is a kind of its own (the cards differ); the remaining 12 cells are one.
    row = cell_classes(_grid({0: 3, 1: 20}))
    assert len({row[2], row[3], row[4]}) == 1 and row[5] == row[20] and row[6] == row[21] and row[7] == row[24]
    assert row[5] != row[6]
    assert len({int(k) for k in row if k >= 0}) == 4


@pytest.mark.parametrize("seed", range(4))
def test_a_card_in_alike_cells_ends_in_grids_that_score_the_same(seed):
    """For two alike cells a map of the grid onto itself takes one to the other, and
    every way to finish the grid from a card in one has a mirror image from the same
    card in the other that scores the same: the search loses nothing by judging one."""
    rng = np.random.default_rng(seed)
    points = AMERICAN
    for grid in (_grid({0: 3, 6: 20}), _grid({12: 7}), _structured(seed, 3), _structured(seed + 50, 4)):
        classes = cell_classes(grid)
        empty = np.flatnonzero(grid == EMPTY)
        keeps = GRID_MAPS[(grid[GRID_MAPS] == grid).all(axis=1)]
        undealt = [c for c in range(52) if c not in set(grid.tolist())]
        pairs = [(a, b) for a in empty for b in empty if a < b and classes[a] == classes[b]]
        assert pairs
        for a, b in pairs[:: max(1, len(pairs) // 12)]:
            m = next(m for m in keeps if m[b] == a)  # image[b] = grid[m[b]] = grid[a]
            for _ in range(3):
                full = grid.copy()
                full[empty] = rng.permutation(undealt)[: len(empty)]
                image = full[m]
                assert image[b] == full[a] and (image[grid != EMPTY] == grid[grid != EMPTY]).all()
                assert Grid(image.tolist()).score(points) == Grid(full.tolist()).score(points)
        apart = [(a, b) for a in empty for b in empty if classes[a] != classes[b]]
        for a, b in apart[:20]:
            assert not any(m[b] == a for m in keeps)  # cells of two kinds: no map joins them


def test_distinct_cells_keeps_the_first_of_each_kind_in_the_order_given():
    grid = _grid({12: 7})
    order = np.array([24, 2, 17, 0, 10])  # 24: off the lines; 2, 17, 10: its column/row
    assert list(distinct_cells(grid, order)) == [24, 2]
    assert list(distinct_cells(grid, order[::-1])) == [10, 0]
    full = np.flatnonzero(grid == EMPTY)
    kept = distinct_cells(grid, full)
    assert len(kept) == 2 and set(cell_classes(grid)[kept]) == {0, 2}


def test_alike_values_give_each_kind_its_searched_value():
    grid = _grid({12: 7})  # two kinds: cell 12's row and column (class 2), the rest (class 0)
    values = np.full(25, -np.inf)
    values[[0, 2]] = [3.0, 5.0]
    out = alike_values(grid, values)
    classes = cell_classes(grid)
    assert (out[classes == 0] == 3.0).all() and (out[classes == 2] == 5.0).all() and out[12] == -np.inf
    values = np.full(25, -np.inf)
    values[0] = 3.0                                     # a kind no cell of which was judged stays unvalued
    out = alike_values(grid, values)
    assert (out[classes == 2] == -np.inf).all() and values[1] == -np.inf  # the input is not changed


@pytest.mark.parametrize("grid", [[], [-1] * 24, [-1] * 26, np.full(25, -1.0), np.full((5, 5, 1), -1), ["AS"] * 25,
                                  [None] * 25, {-1}, dict.fromkeys(range(25), -1), "-" * 25, None, 7,
                                  [52] + [-1] * 24, [-2] + [-1] * 24, [2 ** 70] + [-1] * 24])
def test_the_symmetries_are_of_a_grid_of_25_card_ids(grid):
    """[] gave every cell the class -1 (as if the grid were full), 24 or 26 cells, floats
    or a dict's keys classes of some other grid, 52 or -2 a card the kernel's int8 made
    of them; None, text or 2**70 was a bare TypeError, ValueError or OverflowError."""
    from pokersquares.errors import IllegalPlacementError

    for call in (cell_classes, cell_classes_reference, lambda g: distinct_cells(g, [0])):
        with pytest.raises(IllegalPlacementError, match="grid"):
            call(grid)


def test_the_symmetries_take_a_grid_or_its_cells():
    cells = _grid({12: 7})
    grid = Grid(cells.tolist())
    assert list(cell_classes(grid)) == list(cell_classes(cells)) == list(cell_classes(cells.reshape(5, 5)))
    assert list(cell_classes(cells.tolist())) == list(cell_classes(cells))


@pytest.mark.parametrize("cells", [[25], [-1], [1.0], ["3"], [None], {0, 24}, [12], [0, 2 ** 70]])
def test_distinct_cells_are_empty_cells_0_to_24(cells):
    """-1 was cell 24 (numpy counts from the end), 1.0 cell 1 and 12 (which holds a card)
    a kind of its own; 25 or 2**70 was a bare IndexError or OverflowError."""
    from pokersquares.errors import InvalidCellError

    grid = _grid({12: 7})
    with pytest.raises(InvalidCellError):
        distinct_cells(grid, cells)
    assert list(distinct_cells(grid, [])) == [] and list(distinct_cells(grid, np.array([24, 0]))) == [24]


@pytest.mark.parametrize("values", [[], [1.0] * 24, np.zeros(26), np.zeros((5, 5)), None, "x" * 25,
                                    dict.fromkeys(range(25), 1.0), {1.0}])
def test_alike_values_are_one_number_per_cell(values):
    """A value short was an IndexError, one too many silently dropped, None or a text a
    bare IndexError or ValueError."""
    from pokersquares.errors import InvalidCellError

    with pytest.raises(InvalidCellError, match="one number per cell"):
        alike_values(_grid({12: 7}), values)
