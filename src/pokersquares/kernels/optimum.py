"""The local search for a deal's best grid: late-acceptance hill climbing over swaps.

All 25 cards are known; a move swaps the cards of two cells and rescores only the
(up to four) lines through them. Acceptance is integer-only (late acceptance: take
the move if the new score is at least the current one or at least the score of
``history`` moves ago), so the kernel and its plain-Python reference
(:func:`pokersquares.optimum.search.late_acceptance_reference`) follow the same
random stream to the same grid.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .core import LINES_ARRAY, classify_line, rng_below, rng_seed, shuffle_prefix

__all__ = ["late_acceptance", "best_of_restarts"]


@njit(cache=True)
def late_acceptance(cells, points, seed, n_steps, history, within_rows):
    """Improve ``cells`` (25 card ids, changed in place to the best grid seen) by
    ``n_steps`` random swaps under late acceptance with a ``history``-long memory;
    returns the best score. Unless ``within_rows``, the first 25 random draws
    shuffle the grid and a swap takes any two cells; ``within_rows`` keeps the rows'
    card sets (and their points) and swaps two cells of one row."""
    state = rng_seed(seed)
    if not within_rows:
        shuffle_prefix(state, cells, 0, 25)
    line_value = np.empty(10, dtype=np.int64)
    score = 0
    for i in range(10):
        line_value[i] = points[classify_line(cells, LINES_ARRAY[i])]
        score += line_value[i]
    best = score
    best_cells = cells.copy()
    past = np.full(history, score, dtype=np.int64)
    touched = np.empty(4, dtype=np.int64)
    old = np.empty(4, dtype=np.int64)
    for step in range(n_steps):
        a = rng_below(state, 25)
        if within_rows:
            b = rng_below(state, 4)
            if b >= a % 5:
                b += 1
            b += a - a % 5
        else:
            b = rng_below(state, 24)
            if b >= a:
                b += 1
        ra, ca, rb, cb = a // 5, a % 5, b // 5, b % 5
        n = 0
        if ra != rb:  # a swap within a row (column) leaves that row (column) unchanged
            touched[0] = ra
            touched[1] = rb
            n = 2
        if ca != cb:
            touched[n] = 5 + ca
            touched[n + 1] = 5 + cb
            n += 2
        t = cells[a]
        cells[a] = cells[b]
        cells[b] = t
        new_score = score
        for k in range(n):
            line = touched[k]
            old[k] = line_value[line]
            line_value[line] = points[classify_line(cells, LINES_ARRAY[line])]
            new_score += line_value[line] - old[k]
        slot = step % history
        if new_score >= score or new_score >= past[slot]:
            score = new_score
            if score > best:
                best = score
                best_cells[:] = cells
        else:
            t = cells[a]
            cells[a] = cells[b]
            cells[b] = t
            for k in range(n):
                line_value[touched[k]] = old[k]
        past[slot] = score
    cells[:] = best_cells
    return best


@njit(cache=True)
def best_of_restarts(cards, points, seed, restarts, n_steps, history, within_rows):
    """The best grid of ``restarts`` independent late-acceptance runs (seeds
    ``seed * 7919 + r``) from ``cards``; returns ``(score, grid)``."""
    best = -(1 << 62)
    best_cells = cards.copy()
    cells = cards.copy()
    for r in range(restarts):
        cells[:] = cards
        s = late_acceptance(cells, points, seed * 7919 + r, n_steps, history, within_rows)
        if s > best:
            best = s
            best_cells[:] = cells
    return best, best_cells
