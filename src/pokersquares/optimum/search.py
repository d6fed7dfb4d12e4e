"""The heuristic part: late-acceptance hill climbing over swaps of two cells.

:func:`late_acceptance_reference` is the readable rule; the kernel
:func:`pokersquares.kernels.optimum.late_acceptance` implements the same moves on the
same random stream and is tested against it.
"""

from __future__ import annotations

import math

import numpy as np

from ..cards import as_sequence, is_card_id, is_integer, is_seconds
from ..errors import InvalidCardError, PokerSquaresError
from ..game import LINES
from ..hands import classify
from ..kernels.core import rng_below, rng_seed
from ..kernels.optimum import best_of_restarts

__all__ = ["check_deal", "check_start", "check_time_limit", "late_acceptance_reference", "local_search",
           "grid_score", "size_lines", "start_score_of"]

# Effort of ``local_search``: ~6 million swaps, about a second on one core.
RESTARTS = 16
STEPS = 400_000
HISTORY = 1000


def check_deal(cards, size: int = 5) -> list[int]:
    """``cards`` as a list of ints if they are ``size**2`` distinct card ids in an order
    (the solvers' grids are positions into it), for a ``size`` of 2..5; else
    InvalidCardError. ``solve_deal``, ``solve_exact`` and ``solve_cores`` check their deal
    so before anything indexes by it."""
    if not is_integer(size) or not 2 <= size <= 5:
        raise InvalidCardError(f"a grid's size is 2..5 (5 is the game's), got {size!r}")
    cards = as_sequence(cards, "a deal's cards", InvalidCardError)
    if not all(map(is_card_id, cards)):
        raise InvalidCardError(f"a deal's cards are ids 0..51, got {cards!r}")
    cards = [int(c) for c in cards]
    if len(cards) != size * size or len(set(cards)) != len(cards):
        raise InvalidCardError(f"a deal's optimum needs {size * size} distinct cards")
    return cards


def check_time_limit(time_limit) -> float:
    """``time_limit`` if it is a finite number of seconds above 0 (an infinite one would let
    a proof run for hours unasked), else PokerSquaresError."""
    if not is_seconds(time_limit) or not 0 < time_limit < math.inf:
        raise PokerSquaresError(f"the time limit must be a finite number of seconds above 0, got {time_limit!r}")
    return float(time_limit)


def check_start(cards: list[int], points, start_grid, start_score, size: int = 5) -> tuple[list[int] | None, int | None]:
    """A solver's start as ``(grid, score)``: ``(None, None)`` without one, else
    ``start_grid`` (positions into ``cards``, each once, row-major) and its score, which
    ``start_score``, if given, must be: a solver takes it as found, and a score its grid
    does not make would be proven optimal or beaten falsely. Else PokerSquaresError."""
    if start_grid is None:
        if start_score is not None:
            raise PokerSquaresError("a start score comes with its start grid")
        return None, None
    grid = as_sequence(start_grid, "a start grid", PokerSquaresError)
    if not all(map(is_integer, grid)) or sorted(grid) != list(range(size * size)):
        raise PokerSquaresError(f"a start grid is the {size * size} positions into the deal's cards, each once, "
                                f"got {start_grid!r}")
    grid = [int(q) for q in grid]
    score = start_score_of(cards, grid, points, size)
    if start_score is not None and (not is_integer(start_score) or start_score != score):
        raise PokerSquaresError(f"the start grid scores {score}, not the start score given, {start_score!r}")
    return grid, score


def size_lines(size: int) -> list[list[int]]:
    """The rows, then the columns, of a ``size`` x ``size`` grid, as lists of positions."""
    return [[r * size + k for k in range(size)] for r in range(size)] + \
           [[r * size + k for r in range(size)] for k in range(size)]


def start_score_of(cards, grid, points, size: int = 5) -> int:
    """Points of the grid whose cell ``q`` holds ``cards[grid[q]]`` (plain Python)."""
    return int(sum(points[classify([int(cards[grid[q]]) for q in line])] for line in size_lines(size)))


def grid_score(cells, points) -> int:
    """Points of a complete grid of card ids (plain Python)."""
    return sum(points[classify([int(cells[i]) for i in line])] for line in LINES)


def late_acceptance_reference(cells: list[int], points, seed: int, n_steps: int, history: int,
                              within_rows: bool = False) -> tuple[int, list[int]]:
    """Shuffle ``cells`` (unless ``within_rows``), then ``n_steps`` times: swap two
    random cells (two cells of one row if ``within_rows``), keep the swap if the score
    did not drop or is at least the score ``history`` steps ago, else undo it.
    Returns the best score seen and its grid."""
    state = rng_seed(seed)
    cells = list(cells)
    if not within_rows:
        for i in range(25):  # the kernels' shuffle_prefix
            j = i + rng_below(state, 25 - i)
            cells[i], cells[j] = cells[j], cells[i]
    score = grid_score(cells, points)
    best, best_cells = score, list(cells)
    past = [score] * history
    for step in range(n_steps):
        a = rng_below(state, 25)
        if within_rows:
            b = rng_below(state, 4)
            b += b >= a % 5
            b += a - a % 5
        else:
            b = rng_below(state, 24)
            b += b >= a
        cells[a], cells[b] = cells[b], cells[a]
        new_score = grid_score(cells, points)
        slot = step % history
        if new_score >= score or new_score >= past[slot]:
            score = new_score
            if score > best:
                best, best_cells = score, list(cells)
        else:
            cells[a], cells[b] = cells[b], cells[a]
        past[slot] = score
    return best, best_cells


def local_search(cards, points, *, seed: int = 0, restarts: int = RESTARTS, steps: int = STEPS,
                 history: int = HISTORY, within_rows: bool = False) -> tuple[int, list[int]]:
    """The best grid (card ids, row-major) of ``restarts`` late-acceptance runs from
    ``cards`` (laid out row-major; shuffled first unless ``within_rows``)."""
    score, cells = best_of_restarts(np.asarray(cards, dtype=np.int8), np.asarray(points, dtype=np.int64),
                                    seed, restarts, steps, history, within_rows)
    return int(score), [int(c) for c in cells]
