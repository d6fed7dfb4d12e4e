"""Tiger's possibility heuristic (Arrington, Langley and Bogaerts 2016) in numba.

The value ``h`` of a grid is the sum of its 10 hands' values:

- 5 cards: the hand's points;
- 4 cards: the expected points after one more card drawn uniformly from the undealt
  cards, i.e. the sum over hand types of (fraction of undealt cards that complete
  the hand to exactly that type) x points: the paper's four-card weights;
- 1 to 3 cards: ``size_weight[n]`` (alpha, beta, gamma) x the sum over hand types of
  the possibility array's verdict: ``possible_value[t]`` (a-priori probability x
  points) where the type is still possible, ``made_value[t]`` where it is made, 0
  where it is impossible;
- 0 cards: 0.

The readable reference of every rule is :mod:`pokersquares.evaluators.possibility`.
``params`` below is one ``float64`` array that the evaluator builds (``make_params``):
points at ``[0:10]``, possible values at ``[10:20]``, made values at ``[20:30]``,
size weights (0, alpha, beta, gamma, 1) at ``[30:35]``, and at ``[35:61]`` the
calibration offsets: ``offset[k]``, added to ``h`` of a grid holding ``k`` cards, makes
it an estimate of the final score (``calibration_offsets``; zeros leave ``h`` as it
is). ``child_values`` and ``state_value`` have fixed signatures, those of
:class:`~pokersquares.evaluators.kernel.EvaluatorKernel`, so that a search compiled
against them is cached on disk.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .core import (LINES_ARRAY, _POPCOUNT13, _ROYAL_MASK, STRAIGHT_WINDOWS, classify_packed, line_features, rng_below,
                   rng_seed, score_grid, undealt_counts)

POINTS, POSSIBLE, MADE, SIZE, OFFSET, PARAMS_LEN = 0, 10, 20, 30, 35, 61
CHILD_VALUES_SIG = "void(int8[::1], int64, float64[::1], float64[::1])"
STATE_VALUE_SIG = "float64(int8[::1], float64[::1])"

_STRAIGHT_WINDOWS = list(STRAIGHT_WINDOWS[:-1])  # A2345 .. 9TJQK: not the royal one


def _window_table(windows) -> np.ndarray:
    """For each 13-bit rank mask: do its ranks fit in one of ``windows``?"""
    table = np.zeros(1 << 13, dtype=np.bool_)
    for w in windows:
        sub = w  # every subset of the window
        while True:
            table[sub] = True
            if sub == 0:
                break
            sub = (sub - 1) & w
    return table


_LOW_STRAIGHT_OK = _window_table(_STRAIGHT_WINDOWS)  # straights that are not the royal one
_STRAIGHT_OK = _window_table(_STRAIGHT_WINDOWS + [_ROYAL_MASK])


# -- one hand ---------------------------------------------------------------------


@njit(cache=True, inline="always")
def _pack(cards):
    """``(n, counts, rank_mask, suit, suited)`` of the non-negative entries of ``cards``."""
    return line_features(cards, np.arange(cards.shape[0]))


@njit(cache=True, inline="always")
def _possibility_into(n, counts, rank_mask, suited, out):
    """Fill ``out`` (int8[10]) with the possibility array: 0 impossible, 1 possible, 2 made."""
    current = classify_packed(n, counts, rank_mask, suited)
    if n == 5:
        for t in range(10):
            out[t] = 0
        out[current] = 2
        return
    if n == 0:
        for t in range(10):
            out[t] = 1
        return
    # The three largest rank counts follow from the hand so far: at most four cards
    # leave five count patterns, told apart by the current hand type.
    d = _POPCOUNT13[rank_mask]
    if current == 0:
        c1, c2, c3 = 1, 1 if n >= 2 else 0, 1 if n >= 3 else 0
    elif current == 1:
        c1, c2, c3 = 2, 1 if n >= 3 else 0, 1 if n >= 4 else 0
    elif current == 2:
        c1, c2, c3 = 2, 2, 0
    elif current == 3:
        c1, c2, c3 = 3, 1 if n >= 4 else 0, 0
    else:
        c1, c2, c3 = 4, 0, 0
    distinct = c1 == 1
    # A count pattern (e.g. 3+2 for a full house) is reachable when the current
    # counts, largest first, fit under its parts.
    out[0] = 2 if distinct else 0
    out[1] = (2 if current == 1 else 1) if (d <= 4 and c1 <= 2 and c2 <= 1) else 0
    out[2] = (2 if current == 2 else 1) if (d <= 3 and c1 <= 2 and c2 <= 2 and c3 <= 1) else 0
    out[3] = (2 if current == 3 else 1) if (d <= 3 and c1 <= 3 and c2 <= 1) else 0
    straight = distinct and _STRAIGHT_OK[rank_mask]
    straight_low = distinct and _LOW_STRAIGHT_OK[rank_mask]
    out[4] = 1 if straight else 0
    out[5] = 1 if suited else 0
    out[6] = 1 if (d <= 2 and c1 <= 3 and c2 <= 2) else 0
    out[7] = (2 if current == 7 else 1) if (d <= 2 and c2 <= 1) else 0
    out[8] = 1 if (suited and straight_low) else 0
    out[9] = 1 if (suited and distinct and rank_mask & ~_ROYAL_MASK == 0) else 0


def make_params(points, possible_value, made_value, size_weight, offsets=None):
    """Pack the heuristic's tables into the ``params`` array the kernels take."""
    offsets = np.zeros(26) if offsets is None else offsets
    params = np.concatenate([points, possible_value, made_value, size_weight, offsets]).astype(np.float64)
    assert params.shape == (PARAMS_LEN,)
    return params


@njit(cache=True)
def possibility_array(cards):
    """The possibility array (int8[10]) of the cards in ``cards`` (``-1`` skipped)."""
    n, counts, rank_mask, suit, suited = _pack(cards)
    out = np.empty(10, dtype=np.int8)
    _possibility_into(n, counts, rank_mask, suited, out)
    return out


@njit(cache=True, inline="always")
def _four_card_value(counts, rank_mask, suit, suited, rank_avail, avail, n_avail, params):
    # The fifth card only matters through its rank and whether it keeps the suit.
    total = 0.0
    for r in range(13):
        na = rank_avail[r]
        if na == 0:
            continue
        c5 = counts + (np.int64(1) << (4 * r))
        m5 = rank_mask | (1 << r)
        same = 0
        if suited and avail[suit * 13 + r]:
            same = 1
            total += params[POINTS + classify_packed(5, c5, m5, True)]
        if na > same:
            total += (na - same) * params[POINTS + classify_packed(5, c5, m5, False)]
    return total / n_avail if n_avail > 0 else 0.0


@njit(cache=True)
def four_card_weights(cards, avail):
    """The paper's four-card weights (float64[10]): for each hand type, the fraction of
    the undealt cards (``avail[card]`` true) that complete ``cards`` to that type."""
    n, counts, rank_mask, suit, suited = _pack(cards)
    out = np.zeros(10)
    n_avail = 0
    for c in range(52):
        if avail[c]:
            n_avail += 1
            out[classify_packed(5, counts + (np.int64(1) << (4 * (c % 13))), rank_mask | (1 << (c % 13)),
                                 suited and c // 13 == suit)] += 1.0
    if n_avail > 0:
        out /= n_avail
    return out


@njit(cache=True)  # not inlined: one compiled copy for state_value's and child_values' three calls
def _line_value(grid, line, rank_avail, avail, n_avail, params, flags):
    n, counts, rank_mask, suit, suited = line_features(grid, line)
    if n == 0:
        return 0.0
    if n == 5:
        return params[POINTS + classify_packed(5, counts, rank_mask, suited)]
    if n == 4:
        return _four_card_value(counts, rank_mask, suit, suited, rank_avail, avail, n_avail, params)
    _possibility_into(n, counts, rank_mask, suited, flags)
    total = 0.0
    for t in range(10):
        f = flags[t]
        if f == 1:
            total += params[POSSIBLE + t]
        elif f == 2:
            total += params[MADE + t]
    return params[SIZE + n] * total


@njit(cache=True, inline="always")
def _undealt(grid, card, avail, rank_avail):
    """Mark the cards neither on ``grid`` nor ``card`` (``-1`` for none) in ``avail``,
    count them per rank in ``rank_avail``; return their number."""
    suit_avail = np.empty(4, dtype=np.int64)
    on_grid = undealt_counts(grid, card, rank_avail, suit_avail, avail)
    return np.int64(52 - on_grid - (1 if card >= 0 else 0))


# -- a grid -----------------------------------------------------------------------


@njit(cache=True)  # compiled at first use: passed to MCTS, for STATE_VALUE_SIG
def state_value(grid, params):
    """``h(grid) + offset[k]`` for a grid of ``k`` cards; ``h`` is the sum of the 10
    hands' values, undealt = every card not on the grid."""
    avail = np.empty(52, dtype=np.uint8)
    rank_avail = np.empty(13, dtype=np.int64)
    flags = np.empty(10, dtype=np.int8)
    n_avail = _undealt(grid, -1, avail, rank_avail)
    total = 0.0
    for i in range(10):
        total += _line_value(grid, LINES_ARRAY[i], rank_avail, avail, n_avail, params, flags)
    return total + params[OFFSET + 52 - n_avail]


@njit(cache=True)  # compiled at first use: passed to MCTS, for CHILD_VALUES_SIG
def child_values(grid, card, params, out):
    """``out[cell] = state_value(grid with card at cell)`` for each empty cell, ``-inf``
    elsewhere.

    All children share one set of undealt cards, so the 10 hands are valued once; and
    a hand gains the same card whichever of its empty cells takes it, so each hand is
    valued once more with the card added. ``grid`` is restored.
    """
    avail = np.empty(52, dtype=np.uint8)
    rank_avail = np.empty(13, dtype=np.int64)
    flags = np.empty(10, dtype=np.int8)
    values = np.empty(10)
    gained = np.empty(10)
    n_avail = _undealt(grid, card, avail, rank_avail)
    offset = params[OFFSET + 52 - n_avail]  # a child holds the 52 - n_avail seen cards
    base = 0.0
    for i in range(10):
        line = LINES_ARRAY[i]
        values[i] = _line_value(grid, line, rank_avail, avail, n_avail, params, flags)
        base += values[i]
        for k in range(5):
            if grid[line[k]] < 0:
                grid[line[k]] = card
                gained[i] = _line_value(grid, line, rank_avail, avail, n_avail, params, flags)
                grid[line[k]] = -1
                break
    for cell in range(25):
        if grid[cell] >= 0:
            out[cell] = -np.inf
        else:
            row = cell // 5
            col = 5 + cell % 5
            out[cell] = (base - values[row] - values[col] + gained[row] + gained[col]) + offset


@njit(cache=True)
def placement_values(grid, card, params):
    """``child_values`` into a new array, on a copy of ``grid``."""
    out = np.empty(25)
    child_values(grid.copy(), card, params, out)
    return out


@njit(cache=True)
def best_move_games(grid, n, seed, params, h_sum):
    """Final scores of ``n`` completions of ``grid`` by the best-move policy (argmax of
    ``child_values`` over the children), each with a fresh shuffle of the undealt
    cards; the value of the grid after each move is added to ``h_sum`` at the number
    of cards it holds. Greedy playouts and the calibration both play these games: one
    loop to compile."""
    points = params[POINTS:POINTS + 10].astype(np.int64)
    state = rng_seed(seed)
    deck = np.empty(52, dtype=np.int64)  # int64 cards: the one specialisation of child_values
    m = 0
    on_grid = np.zeros(52, dtype=np.bool_)
    for i in range(25):
        if grid[i] >= 0:
            on_grid[grid[i]] = True
    for c in range(52):
        if not on_grid[c]:
            deck[m] = c
            m += 1
    empty = 0
    for i in range(25):
        if grid[i] < 0:
            empty += 1
    scores = np.empty(n, dtype=np.int64)
    work = np.empty(25, dtype=np.int8)
    values = np.empty(25)
    for g in range(n):
        for i in range(25):  # a loop, not work[:] = grid: slice assignment compiles its error message
            work[i] = grid[i]
        for k in range(empty):
            j = k + rng_below(state, m - k)
            t = deck[k]
            deck[k] = deck[j]
            deck[j] = t
            child_values(work, deck[k], params, values)
            cell = np.argmax(values)
            h_sum[25 - empty + k + 1] += values[cell]
            work[cell] = deck[k]
        scores[g] = score_grid(work, points)
    return scores


def greedy_playouts(grid, n, seed, params):
    """Final scores of ``n`` completions of ``grid`` by the best-move policy, each with
    a fresh shuffle of the undealt cards."""
    return best_move_games(grid, n, seed, params, np.zeros(26))


@njit(cache=True)
def repeat_child_values(grid, card, params, n):
    """Value the children of (``grid``, ``card``) ``n`` times; return how many child
    states were valued (the throughput benchmark's work)."""
    out = np.empty(25)
    work = grid.copy()
    valued = 0
    for _ in range(n):
        child_values(work, card, params, out)
        for i in range(25):
            if out[i] != -np.inf:
                valued += 1
    return valued


def calibration_offsets(params, n, seed):
    """``float64[26]``: for ``k`` cards on the grid, the mean final score minus the mean
    ``h`` of the grid after ``k`` moves, over ``n`` games of the best-move policy from an
    empty grid (``params``' own offsets play no part; ``offset[25]`` is 0: ``h`` of a full
    grid is its score)."""
    raw = params.copy()
    raw[OFFSET:OFFSET + 26] = 0.0
    h_sum = np.zeros(26)
    final_sum = float(best_move_games(np.full(25, -1, dtype=np.int8), n, seed, raw, h_sum).sum())
    offsets = np.zeros(26)
    if n > 0:
        offsets[:25] = (final_sum - h_sum[:25]) / n
    return offsets
