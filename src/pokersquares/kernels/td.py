"""TD kernels: a residual over the NARL table's values, learned by temporal differences.

The value of a grid of ``n`` cards is the NARL table's value (its ten line values and
its hand-size residual, :mod:`pokersquares.kernels.narl`) plus the sum of the weights
``theta[i]`` of the grid's active features: one-hot indices of how the lines interact,
which the table, valuing each line alone, cannot see. A full grid has no features (its
value is its exact score). The readable form of the features and their plain-Python
reference are in :mod:`pokersquares.evaluators.td`; the groups, by bit of ``groups``:

===== ======== ================================================================
bit   group    one index per ...
===== ======== ================================================================
1     sizes    grid: how many lines hold 0..4 cards (base-11 digits, as NARL's)
2     suits    suit and orientation: ``n``; the open lines (1..4 cards) of that
               orientation all of that suit (0..5); the cards they still need
               (0..20); the undealt cards of the suit (0..13)
4     joint    suit: ``n``; such rows (0..5); such columns (0..5); undealt (0..13)
8     ranks    rank held by an open line: ``n``; open rows holding it (0..5); open
               columns holding it (0..5); undealt of the rank (0..3); whether an
               open line holds two or more of it
16    discard  grid: ``n``; the empty cells of *dead* rows and of dead columns
               (each capped at 10): lines of mixed suits and distinct ranks that
               no straight can complete, where a card that helps nothing can go
32    cross    empty cell: ``n``; the class of its row; the class of its column
               (0 empty, 1 one suit, 2 a rank held twice or more, 3 a straight
               still possible, 4 dead): the two lines one card must serve
64    draws    open line (1..4 cards, distinct ranks) whose ranks fit a straight
               window: ``n``; row or column; its cards (1..4); the windows
               still achievable with the undealt cards (0..5); its outs, the
               undealt cards of the ranks those windows miss (capped at 15):
               an open-ended draw from a gutshot, which the table's one
               straight bit cannot tell apart
128   homes    grid: ``n``; the undealt cards with no home, capped at 31, or
               32 + the free cells (capped at 7) when there are free cells. A
               line *wants* a card of its suit (one suit so far), of a rank it
               holds, or of a rank in a straight window its ranks fit and the
               undealt cards can complete; an empty or dead line wants every
               card; an empty cell is a card's home when its row and its column
               both want it, and free when both lines are empty or dead. A card
               with no home must break a line that still has a plan
256   pairs    empty cell: ``n``; the types of its row and its column, as an
               unordered pair (rows and columns score alike): an n-tuple over
               the two lines one card must serve. An open line's type: empty,
               or its cards (1..4); its suits (mixed, one suit the undealt
               cards can no longer fill, one suit still live); its ranks
               (distinct, a pair, two pairs, three, four of a kind); whether
               a straight window its ranks fit is still achievable: 121 types
512   needs    rank that an open line's achievable straight windows miss:
               ``n``; such rows (0..5); such columns (0..5); undealt of the
               rank (1..4): lines that wait on the same outs
===== ======== ================================================================

``ALL_GROUPS`` (the default) is the first four; ``discard``, ``cross``, ``draws``, ``homes``, ``pairs`` and ``needs`` are
asked for by name.

A line's state is kept as three integers: its card count ``k``, ``fsuit`` (the suit
all its cards share, -1 for an empty line, -2 for mixed suits) and ``counts`` (its
rank counts packed 4 bits a rank, as :func:`pokersquares.kernels.core.add_card`).

Learning (:func:`learn_games`) plays greedy games on the current values with the
table frozen and moves each active weight of every afterstate toward its
lambda-return (the offline forward view over the values seen in play): ``theta[i]
+= alpha / m * (G - V)``, ``m`` the number of active features (with temporal
coherence, times each weight's own rate). Several threads may
learn into the same ``theta`` at once (lock-free, as Hogwild: a lost update costs
little).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .core import (LINES_ARRAY, STRAIGHT_WINDOWS, empty_mask, line_scores, random_bit, rng_next, rng_seed,
                   score_grid, shuffle_prefix)
from .narl import (_argmax, _deal, _line_sizes, _placements, _put, _scratch, afterstate_slots, grid_value,
                   restart_playout, undealt_counts, undealt_deck)

__all__ = ["GROUP_SIZES", "GROUP_SUITS", "GROUP_JOINT", "GROUP_RANKS", "GROUP_DISCARD", "GROUP_CROSS", "GROUP_DRAWS",
           "GROUP_HOMES", "GROUP_PAIRS", "GROUP_NEEDS", "ALL_GROUPS", "OFF_SUITS", "OFF_JOINT", "OFF_RANKS", "OFF_DISCARD", "OFF_CROSS", "OFF_DRAWS",
           "OFF_HOMES", "OFF_PAIRS", "OFF_NEEDS", "N_LINE_TYPES", "N_WEIGHTS", "MAX_ACTIVE", "line_class", "line_type", "straight_windows",
           "line_states", "put_first", "features", "residual", "grid_value_td", "placement_values", "best_placement_values", "playouts", "learn_games", "learn_from"]

GROUP_SIZES, GROUP_SUITS, GROUP_JOINT, GROUP_RANKS, GROUP_DISCARD, GROUP_CROSS, GROUP_DRAWS, GROUP_HOMES = (
    1, 2, 4, 8, 16, 32, 64, 128)
GROUP_PAIRS, GROUP_NEEDS = 256, 512
ALL_GROUPS = GROUP_SIZES | GROUP_SUITS | GROUP_JOINT | GROUP_RANKS
N_SIZES = 11 ** 5
N_SUITS = 25 * 2 * 6 * 21 * 14
N_JOINT = 25 * 6 * 6 * 14
N_RANKS = 25 * 6 * 6 * 4 * 2
DISCARD_CAP = 10
N_DISCARD = 25 * (DISCARD_CAP + 1) ** 2
OFF_SUITS = N_SIZES
OFF_JOINT = OFF_SUITS + N_SUITS
OFF_RANKS = OFF_JOINT + N_JOINT
OFF_DISCARD = OFF_RANKS + N_RANKS
N_CLASSES = 5
N_CROSS = 25 * N_CLASSES * N_CLASSES
OFF_CROSS = OFF_DISCARD + N_DISCARD
OUTS_CAP = 15
N_DRAWS = 25 * 2 * 4 * 6 * (OUTS_CAP + 1)
OFF_DRAWS = OFF_CROSS + N_CROSS
HOMES_CAP = 31
FREE_CAP = 7
N_HOMES = 25 * (HOMES_CAP + 1 + FREE_CAP)
OFF_HOMES = OFF_DRAWS + N_DRAWS
N_LINE_TYPES = 1 + 4 * 3 * 5 * 2
N_PAIRS = 25 * N_LINE_TYPES * N_LINE_TYPES
OFF_PAIRS = OFF_HOMES + N_HOMES
N_NEEDS = 25 * 6 * 6 * 5
OFF_NEEDS = OFF_PAIRS + N_PAIRS
N_WEIGHTS = OFF_NEEDS + N_NEEDS
MAX_ACTIVE = 1 + 8 + 4 + 13 + 1 + 24 + 10 + 1 + 24 + 13
_STRAIGHTS = np.array(STRAIGHT_WINDOWS, dtype=np.int64)
_POW11 = np.array([1, 11, 121, 1331, 14641, 161051], dtype=np.int64)
_NO_CARD = np.int64(-1)
_NIBBLE_BIT0 = np.int64(0x1111111111111)
_ALL_CARDS = np.int64((1 << 52) - 1)
_SUIT_CARDS = np.array([((1 << 13) - 1) << (13 * s) for s in range(4)], dtype=np.int64)
_RANK_CARDS = np.array([sum(1 << (13 * s + r) for s in range(4)) for r in range(13)], dtype=np.int64)


# -- line states ---------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _add(L, card, k, fsuit, counts):
    """``card`` joins line ``L``."""
    s = card // 13
    if k[L] == 0:
        fsuit[L] = s
    elif fsuit[L] != s:
        fsuit[L] = -2
    k[L] += 1
    counts[L] += np.int64(1) << (4 * (card % 13))


@njit(cache=True)
def line_states(grid, k, fsuit, counts):
    """Fill the ten lines' states (see the module docstring) from ``grid``."""
    for L in range(10):
        k[L] = 0
        fsuit[L] = -1
        counts[L] = 0
        for j in range(5):
            c = grid[LINES_ARRAY[L, j]]
            if c >= 0:
                _add(L, c, k, fsuit, counts)


@njit(cache=True, inline="always")
def _held_ranks(counts):
    """The ranks a line holds (packed 4-bit rank counts), as a 13-bit mask."""
    mask = 0
    for r in range(13):
        if (counts >> (4 * r)) & 15:
            mask |= 1 << r
    return mask


@njit(cache=True, inline="always")
def _dead(k, fsuit, counts):
    """Whether an open line of ``k`` cards is dead: mixed suits, no two cards of a rank,
    and its ranks fit no straight."""
    if k == 0 or k >= 5 or fsuit != -2:
        return False
    if ((counts >> 1) | (counts >> 2)) & _NIBBLE_BIT0:
        return False
    mask = _held_ranks(counts)
    for w in _STRAIGHTS:
        if mask & ~w == 0:
            return False
    return True


@njit(cache=True, inline="always")
def _cross_mask(grid, groups):
    """The empty cells ``features`` reads, computed only when the ``cross``, ``homes`` or ``pairs`` group is on."""
    return empty_mask(grid) if groups & (GROUP_CROSS | GROUP_HOMES | GROUP_PAIRS) else 0


@njit(cache=True, inline="always")
def straight_windows(k, counts, avail):
    """An open line's straight windows still achievable and the ranks they miss (a 13-bit
    mask): (-1, 0) when it has no straight draw (empty, full, a rank held twice, or ranks
    that fit no window). ``avail``: the ranks with undealt cards, as a 13-bit mask."""
    if k == 0 or k >= 5:
        return -1, 0
    held = counts & _NIBBLE_BIT0
    if held != counts:  # a rank held twice or more
        return -1, 0
    mask = _held_ranks(counts)
    fits = False
    windows = 0
    missing = 0
    for w in _STRAIGHTS:
        if mask & ~w:
            continue
        fits = True
        need = w & ~mask
        if need & ~avail == 0:
            windows += 1
            missing |= need
    if not fits:
        return -1, 0
    return windows, missing


@njit(cache=True, inline="always")
def straight_draw(k, counts, rank_und, avail):
    """The ``draws`` group's (windows, outs) of an open line, or (-1, 0) when it has no
    straight draw (see :func:`straight_windows`); its outs are the undealt cards of the
    ranks its windows miss."""
    windows, missing = straight_windows(k, counts, avail)
    outs = 0
    r = 0
    while missing:
        if missing & 1:
            outs += rank_und[r]
        missing >>= 1
        r += 1
    return windows, outs


@njit(cache=True, inline="always")
def _avail(rank_und):
    """The ranks with undealt cards, as a 13-bit mask."""
    avail = 0
    for r in range(13):
        if rank_und[r] > 0:
            avail |= 1 << r
    return avail


@njit(cache=True, inline="always")
def _draw_index(n, L, k, counts, rank_und, avail):
    """The ``draws`` weight of line ``L`` (``k`` cards, rank ``counts``) on a grid of ``n``
    cards, or -1 when the line has no straight draw."""
    windows, outs = straight_draw(k, counts, rank_und, avail)
    if windows < 0:
        return -1
    return OFF_DRAWS + (((n * 2 + L // 5) * 4 + k - 1) * 6 + windows) * (OUTS_CAP + 1) + min(outs, OUTS_CAP)


@njit(cache=True, inline="always")
def _draw_weight(theta, n, L, k, counts, rank_und, avail):
    j = _draw_index(n, L, k, counts, rank_und, avail)
    return theta[j] if j >= 0 else 0.0


@njit(cache=True, inline="always")
def _wanted(k, fsuit, counts, avail):
    """The cards (a 52-bit mask, bit ``13 * suit + rank``) an open line wants: every
    card when it is empty or dead, else the cards of its suit (one suit so far), of
    the ranks it holds, and of the ranks of the straight windows its ranks fit that
    the undealt cards (``avail``, a 13-bit rank mask) can still complete."""
    if k == 0 or _dead(k, fsuit, counts):
        return _ALL_CARDS
    held = _held_ranks(counts)
    ranks = held
    if counts & _NIBBLE_BIT0 == counts:  # no rank held twice: straight windows count
        for w in _STRAIGHTS:
            if held & ~w == 0 and (w & ~held) & ~avail == 0:
                ranks |= w
    cards = _SUIT_CARDS[fsuit] if fsuit >= 0 else np.int64(0)
    for r in range(13):
        if (ranks >> r) & 1:
            cards |= _RANK_CARDS[r]
    return cards


@njit(cache=True, inline="always")
def _popcount(x):
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@njit(cache=True)
def homes_index(n, k, fsuit, counts, rank_und, empty, und):
    """The ``homes`` weight of a grid of ``n`` cards (``empty``: its empty cells, ``und``:
    its undealt cards, as bit masks; see the module docstring)."""
    avail = _avail(rank_und)
    want = np.empty(10, dtype=np.int64)
    loose = np.empty(10, dtype=np.bool_)  # empty or dead: wants every card
    for L in range(10):
        if k[L] < 5:
            want[L] = _wanted(k[L], fsuit[L], counts[L], avail)
            loose[L] = want[L] == _ALL_CARDS
    homes = np.int64(0)
    free = 0
    for cell in range(25):
        if (empty >> cell) & 1:
            r = cell // 5
            c = 5 + cell % 5
            homes |= want[r] & want[c]
            if loose[r] and loose[c]:
                free += 1
    if free > 0:
        v = HOMES_CAP + min(free, FREE_CAP)
    else:
        v = min(_popcount(und & ~homes), HOMES_CAP)
    return OFF_HOMES + n * (HOMES_CAP + 1 + FREE_CAP) + v


@njit(cache=True, inline="always")
def _undealt_mask(undealt, groups):
    """The undealt cards as a 52-bit mask, computed only when the ``homes`` group is on."""
    m = np.int64(0)
    if groups & GROUP_HOMES:
        for c in range(52):
            if undealt[c]:
                m |= np.int64(1) << c
    return m


@njit(cache=True, inline="always")
def line_class(k, fsuit, counts):
    """The ``cross`` group's class of an open line (see the module docstring)."""
    if k == 0:
        return 0
    if fsuit >= 0:
        return 1
    if ((counts >> 1) | (counts >> 2)) & _NIBBLE_BIT0:
        return 2
    if _dead(k, fsuit, counts):
        return 4
    return 3


@njit(cache=True, inline="always")
def line_type(k, fsuit, counts, suit_und, avail):
    """The ``pairs`` group's type of an open line of ``k`` < 5 cards: 0 when empty, else
    ``1 + (((k - 1) * 3 + flush) * 5 + ranks) * 2 + straight`` (see the module docstring)."""
    if k == 0:
        return 0
    if fsuit < 0:
        flush = 0
    elif suit_und[fsuit] >= 5 - k:
        flush = 2
    else:
        flush = 1
    twos = 0
    threes = 0
    fours = 0
    for r in range(13):
        c = (counts >> (4 * r)) & 15
        if c == 2:
            twos += 1
        elif c == 3:
            threes += 1
        elif c >= 4:
            fours += 1
    ranks = 4 if fours else (3 if threes else twos)
    windows, _ = straight_windows(k, counts, avail)
    return 1 + (((k - 1) * 3 + flush) * 5 + ranks) * 2 + (1 if windows > 0 else 0)


@njit(cache=True)
def features(n, k, fsuit, counts, rank_und, suit_und, groups, out, empty, und):
    """Write the active feature indices of a grid of ``n`` cards into ``out``; return how
    many. ``rank_und``/``suit_und``: the undealt cards (not on the grid) per rank and suit;
    ``empty``: the grid's empty cells as a bit mask (read by the ``cross`` and ``homes``
    groups only); ``und``: the undealt cards as a 52-bit mask (read by ``homes`` only)."""
    if n >= 25:
        return 0
    m = 0
    if groups & GROUP_SIZES:
        idx = 0
        for L in range(10):
            if k[L] < 5:
                idx += _POW11[k[L]]
        out[m] = idx
        m += 1
    if groups & (GROUP_SUITS | GROUP_JOINT):
        for s in range(4):
            mr = 0
            mc = 0
            need_r = 0
            need_c = 0
            for L in range(10):
                if fsuit[L] == s and k[L] < 5:
                    if L < 5:
                        mr += 1
                        need_r += 5 - k[L]
                    else:
                        mc += 1
                        need_c += 5 - k[L]
            u = suit_und[s]
            if groups & GROUP_SUITS:
                out[m] = OFF_SUITS + (((n * 2 + 0) * 6 + mr) * 21 + need_r) * 14 + u
                out[m + 1] = OFF_SUITS + (((n * 2 + 1) * 6 + mc) * 21 + need_c) * 14 + u
                m += 2
            if groups & GROUP_JOINT:
                out[m] = OFF_JOINT + ((n * 6 + mr) * 6 + mc) * 14 + u
                m += 1
    if groups & GROUP_RANKS:
        # Per rank, packed 4 bits a rank as the lines' counts: the open rows and open
        # columns holding it, and a bit where an open line holds two or more.
        rows = np.int64(0)
        cols = np.int64(0)
        pairs = np.int64(0)
        for L in range(10):
            if k[L] < 5:
                c = counts[L]
                held = (c | (c >> 1) | (c >> 2)) & _NIBBLE_BIT0
                if L < 5:
                    rows += held
                else:
                    cols += held
                pairs |= ((c >> 1) | (c >> 2)) & _NIBBLE_BIT0
        for r in range(13):
            nr = (rows >> (4 * r)) & 15
            nc = (cols >> (4 * r)) & 15
            if nr + nc > 0:
                out[m] = OFF_RANKS + (((n * 6 + nr) * 6 + nc) * 4 + rank_und[r]) * 2 + ((pairs >> (4 * r)) & 1)
                m += 1
    if groups & GROUP_DISCARD:
        dr = 0
        dc = 0
        for L in range(10):
            if _dead(k[L], fsuit[L], counts[L]):
                if L < 5:
                    dr += 5 - k[L]
                else:
                    dc += 5 - k[L]
        out[m] = OFF_DISCARD + (n * (DISCARD_CAP + 1) + min(dr, DISCARD_CAP)) * (DISCARD_CAP + 1) + min(dc, DISCARD_CAP)
        m += 1
    if groups & GROUP_CROSS:
        for cell in range(25):
            if (empty >> cell) & 1:
                r = cell // 5
                c = 5 + cell % 5
                out[m] = OFF_CROSS + (n * N_CLASSES + line_class(k[r], fsuit[r], counts[r])) * N_CLASSES + line_class(
                    k[c], fsuit[c], counts[c])
                m += 1
    if groups & GROUP_DRAWS:
        avail = _avail(rank_und)
        for L in range(10):
            j = _draw_index(n, L, k[L], counts[L], rank_und, avail)
            if j >= 0:
                out[m] = j
                m += 1
    if groups & GROUP_HOMES:
        out[m] = homes_index(n, k, fsuit, counts, rank_und, empty, und)
        m += 1
    if groups & GROUP_PAIRS:
        avail = _avail(rank_und)
        types = np.empty(10, dtype=np.int64)
        for L in range(10):
            if k[L] < 5:
                types[L] = line_type(k[L], fsuit[L], counts[L], suit_und, avail)
        for cell in range(25):
            if (empty >> cell) & 1:
                a = types[cell // 5]
                b = types[5 + cell % 5]
                if a > b:
                    a, b = b, a
                out[m] = OFF_PAIRS + (n * N_LINE_TYPES + a) * N_LINE_TYPES + b
                m += 1
    if groups & GROUP_NEEDS:
        # Per rank, packed 4 bits a rank: the open rows and the open columns whose
        # achievable straight windows miss it.
        avail = _avail(rank_und)
        rows = np.int64(0)
        cols = np.int64(0)
        for L in range(10):
            windows, missing = straight_windows(k[L], counts[L], avail)
            if windows > 0:
                spread = np.int64(0)
                for r in range(13):
                    if (missing >> r) & 1:
                        spread |= np.int64(1) << (4 * r)
                if L < 5:
                    rows += spread
                else:
                    cols += spread
        for r in range(13):
            nr = (rows >> (4 * r)) & 15
            nc = (cols >> (4 * r)) & 15
            if nr + nc > 0:
                out[m] = OFF_NEEDS + ((n * 6 + nr) * 6 + nc) * 5 + rank_und[r]
                m += 1
    return m


@njit(cache=True, inline="always")
def _sum_at(theta, idx, m):
    total = 0.0
    for i in range(m):
        total += theta[idx[i]]
    return total


@njit(cache=True)
def residual(grid, theta, groups):
    """The weights' part of ``grid``'s value (0 for a full grid)."""
    rank_und = np.empty(13, dtype=np.int64)
    suit_und = np.empty(4, dtype=np.int64)
    undealt = np.empty(52, dtype=np.uint8)
    n = undealt_counts(grid, _NO_CARD, rank_und, suit_und, undealt)
    k = np.empty(10, dtype=np.int64)
    fsuit = np.empty(10, dtype=np.int64)
    counts = np.empty(10, dtype=np.int64)
    line_states(grid, k, fsuit, counts)
    idx = np.empty(MAX_ACTIVE, dtype=np.int64)
    m = features(n, k, fsuit, counts, rank_und, suit_und, groups, idx, _cross_mask(grid, groups),
                 _undealt_mask(undealt, groups))
    return _sum_at(theta, idx, m)


@njit(cache=True)
def grid_value_td(grid, points, keys, sums, counts, size_sums, size_counts, use_size, theta, groups):
    """Estimated final score of ``grid`` (no card in hand): the table's value plus the residual."""
    return grid_value(grid, points, keys, sums, counts, size_sums, size_counts, use_size) + residual(
        grid, theta, groups)


# -- placements ----------------------------------------------------------------------------


@njit(cache=True)
def _td_placements(grid, card, n_after, rank_und, suit_und, undealt, sizes, points, keys, sums, counts,
                   size_sums, size_counts, use_size, a, b, slots, out, k, fsuit, lcounts, theta, groups, idx, line_w):
    """Like NARL's ``_placements`` (``slots`` included), plus each afterstate's residual.
    ``k``/``fsuit``/``lcounts`` hold the line states of ``grid`` (before placing) and are restored;
    ``line_w`` is scratch for the lines' draw weights."""
    _placements(grid, card, n_after, rank_und, suit_und, undealt, sizes, points, keys, sums, counts,
                size_sums, size_counts, use_size, a, b, slots, out)
    empty = _cross_mask(grid, groups)
    und = _undealt_mask(undealt, groups)
    # A placement changes two lines' draws: the ten lines' draw weights are summed once,
    # and each afterstate swaps its row's and column's.
    draws = groups & GROUP_DRAWS
    rest = groups & ~GROUP_DRAWS
    base = 0.0
    avail = 0
    if draws and n_after < 25:
        avail = _avail(rank_und)
        for L in range(10):
            line_w[L] = _draw_weight(theta, n_after, L, k[L], lcounts[L], rank_und, avail)
            base += line_w[L]
    for cell in range(25):
        if grid[cell] >= 0:
            continue
        r = cell // 5
        c = 5 + cell % 5
        kr, fr, cr = k[r], fsuit[r], lcounts[r]
        kc, fc, cc = k[c], fsuit[c], lcounts[c]
        _add(r, card, k, fsuit, lcounts)
        _add(c, card, k, fsuit, lcounts)
        m = features(n_after, k, fsuit, lcounts, rank_und, suit_und, rest, idx, empty & ~(1 << cell), und)
        out[cell] += _sum_at(theta, idx, m)
        if draws and n_after < 25:
            out[cell] += (base - line_w[r] - line_w[c]
                          + _draw_weight(theta, n_after, r, k[r], lcounts[r], rank_und, avail)
                          + _draw_weight(theta, n_after, c, k[c], lcounts[c], rank_und, avail))
        k[r], fsuit[r], lcounts[r] = kr, fr, cr
        k[c], fsuit[c], lcounts[c] = kc, fc, cc


@njit(cache=True, inline="always")
def _td_scratch():
    """Line states (count, suit, packed rank counts), feature indices and the lines' draw weights."""
    return (np.empty(10, dtype=np.int64), np.empty(10, dtype=np.int64), np.empty(10, dtype=np.int64),
            np.empty(MAX_ACTIVE, dtype=np.int64), np.empty(10))


@njit(cache=True)
def placement_values(grid, card, points, keys, sums, counts, size_sums, size_counts, use_size, theta, groups):
    """``float64[25]``: estimated final score after placing ``card`` in each cell (-inf where occupied)."""
    rank_und, suit_und, undealt, sizes, a, b, slots, out = _scratch()
    k, fsuit, lcounts, idx, line_w = _td_scratch()
    n = undealt_counts(grid, card, rank_und, suit_und, undealt)
    _line_sizes(grid, sizes)
    line_states(grid, k, fsuit, lcounts)
    _td_placements(grid, card, n + 1, rank_und, suit_und, undealt, sizes, points, keys, sums, counts,
                   size_sums, size_counts, use_size, a, b, slots, out, k, fsuit, lcounts, theta, groups, idx, line_w)
    return out


@njit(cache=True)
def best_placement_values(grid, cards, points, keys, sums, counts, size_sums, size_counts, use_size, theta,
                          groups):
    """For each card of ``cards``: the value of its best placement on ``grid``."""
    rank_und, suit_und, undealt, sizes, a, b, slots, vals = _scratch()
    k, fsuit, lcounts, idx, line_w = _td_scratch()
    out = np.empty(cards.shape[0])
    n = undealt_counts(grid, _NO_CARD, rank_und, suit_und, undealt)
    _line_sizes(grid, sizes)
    line_states(grid, k, fsuit, lcounts)
    for i in range(cards.shape[0]):
        d = cards[i]
        undealt[d] = 0
        rank_und[d % 13] -= 1
        suit_und[d // 13] -= 1
        _td_placements(grid, d, n + 1, rank_und, suit_und, undealt, sizes, points, keys, sums, counts,
                       size_sums, size_counts, use_size, a, b, slots, vals, k, fsuit, lcounts, theta, groups, idx,
                       line_w)
        out[i] = vals.max()
        undealt[d] = 1
        rank_und[d % 13] += 1
        suit_und[d // 13] += 1
    return out


@njit(cache=True, inline="always")
def put_first(deck, chosen):
    """Swap ``chosen`` to the front of ``deck``. After a random shuffle of the deck's
    front, the cards after it stay a uniform random order of the others, whether
    ``chosen`` was among the shuffled ones or not."""
    for i in range(deck.shape[0]):
        if deck[i] == chosen:
            deck[i] = deck[0]
            deck[0] = chosen
            return


@njit(cache=True, nogil=True)
def playouts(grid, n_games, depth, seed, random_policy, lam, first, points, keys, sums, counts, size_sums,
             size_counts, use_size, theta, groups):
    """As NARL's ``playouts``, on the table plus the residual. ``lam`` < 1 ends each
    playout in the lambda-return of the values along it instead of its last value: the
    value after its t-th card weighs ``(1 - lam) * lam**(t-1)``, the last the rest
    (``lam`` = 1: the last value alone). ``first`` >= 0 stratifies the next card: game
    ``g`` deals first the ``(first + g) % D``-th of the ``D`` undealt cards in card
    order, then a uniform random order of the others (-1: every card at random), so
    ``D`` games see each possible next card exactly once."""
    rank_und, suit_und, undealt, sizes, a, b, slots, vals = _scratch()
    k, fsuit, lcounts, idx, line_w = _td_scratch()
    out = np.empty(n_games)
    state = rng_seed(seed)
    deck, n0 = undealt_deck(grid, rank_und, suit_und, undealt)
    in_order = deck.copy()
    moves = min(depth, 25 - n0)
    g = grid.copy()
    for game in range(n_games):
        n = restart_playout(g, grid, state, deck, moves, rank_und, suit_und, undealt, sizes)
        if first >= 0 and moves > 0:
            put_first(deck, in_order[(first + game) % in_order.shape[0]])
        line_states(g, k, fsuit, lcounts)
        ret = 0.0
        weight = 1.0
        for t in range(moves):
            card = deck[t]
            _deal(card, undealt, rank_und, suit_und)
            if random_policy:
                cell = random_bit(state, empty_mask(g))
            else:
                _td_placements(g, card, n + 1, rank_und, suit_und, undealt, sizes, points, keys, sums, counts,
                               size_sums, size_counts, use_size, a, b, slots, vals, k, fsuit, lcounts, theta, groups,
                               idx, line_w)
                cell = _argmax(vals)
                if lam < 1.0 and t < moves - 1:
                    ret += weight * (1.0 - lam) * vals[cell]
                    weight *= lam
            _put(g, sizes, cell, card)
            _add(cell // 5, card, k, fsuit, lcounts)
            _add(5 + cell % 5, card, k, fsuit, lcounts)
            n += 1
        if n == 25:
            last = float(score_grid(g, points))
        else:
            last = grid_value_td(g, points, keys, sums, counts, size_sums, size_counts, use_size, theta, groups)
        out[game] = ret + weight * last
    return out


# -- learning ------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def learn_games(n_games, state, alpha, lam, epsilon, points, keys, sums, counts, size_sums, size_counts,
                use_size, theta, groups, update_table, table_step, tc_e, tc_a):
    """TD(lambda) on afterstates: play ``n_games`` games (each move uniformly random with
    probability ``epsilon``, else greedy on table + residual) and after each game move
    the active weights of its 24 non-final afterstates toward their lambda-returns,
    computed backward from the final score over the values seen in play. With
    ``update_table``, each game also credits every line abstraction of its afterstates
    that the table already holds with that line's final points, as NARL's learning
    does (no new keys: the table does not grow here), so the table's averages follow
    the policy that now plays. With ``table_step`` > 0 the table's values of those line
    abstractions are TD-learned weights as well: each moves by ``table_step`` times the
    TD error, shared among the ten lines (an n-tuple network whose tuples are NARL's
    line abstractions, started from the table's averages and learned jointly with the
    residual). ``tc_e`` and ``tc_a``: empty arrays for a constant step, or arrays of
    ``theta``'s size for temporal coherence (Jaskowski 2018, TC learning): each weight's
    step is ``alpha`` times ``|tc_e[i]| / tc_a[i]``, the coherence of the errors it has
    seen (their signed sum over the sum of their sizes; 1 before any), so a weight
    whose errors keep their sign learns at the full step and one whose errors cancel
    slows down. Returns (sum of final scores, sum of squared errors G - V)."""
    rank_und, suit_und, undealt, sizes, a, b, slots, vals = _scratch()
    k, fsuit, lcounts, idx, line_w = _td_scratch()
    deck = np.arange(52)
    grid = np.empty(25, dtype=np.int8)
    rec = np.empty((25, MAX_ACTIVE), dtype=np.int64)
    rec_m = np.empty(25, dtype=np.int64)
    value = np.empty(25)
    rec_slots = np.empty((25, 10), dtype=np.int64)  # table slots of each afterstate's lines
    tc_on = tc_e.shape[0] > 0
    score_sum = 0.0
    err_sum = 0.0
    for game in range(n_games):
        grid[:] = -1
        undealt[:] = 1
        rank_und[:] = 4
        suit_und[:] = 13
        sizes[:] = 0
        k[:] = 0
        fsuit[:] = -1
        lcounts[:] = 0
        for i in range(52):
            deck[i] = i
        shuffle_prefix(state, deck, 0, 25)
        for t in range(25):
            card = deck[t]
            _deal(card, undealt, rank_und, suit_und)
            _td_placements(grid, card, t + 1, rank_und, suit_und, undealt, sizes, points, keys, sums, counts,
                           size_sums, size_counts, use_size, a, b, slots, vals, k, fsuit, lcounts, theta, groups, idx,
                           line_w)
            if epsilon > 0.0 and np.float64(rng_next(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0) < epsilon:
                cell = random_bit(state, empty_mask(grid))
            else:
                cell = _argmax(vals)
            value[t] = vals[cell]
            _put(grid, sizes, cell, card)
            _add(cell // 5, card, k, fsuit, lcounts)
            _add(5 + cell % 5, card, k, fsuit, lcounts)
            rec_m[t] = features(t + 1, k, fsuit, lcounts, rank_und, suit_und, groups, rec[t],
                                _cross_mask(grid, groups), _undealt_mask(undealt, groups))
            if (update_table or table_step > 0.0) and t < 24:  # the full grid's lines have no slots
                afterstate_slots(slots, cell, rec_slots[t])
        final = score_grid(grid, points)
        if update_table:
            line_points = line_scores(grid, points)
            for t in range(24):
                for L in range(10):
                    slot = rec_slots[t, L]
                    if slot >= 0:
                        sums[slot] += line_points[L]
                        counts[slot] += 1
        ret = np.float64(final)
        for t in range(23, -1, -1):
            ret = (1.0 - lam) * value[t + 1] + lam * ret
            delta = ret - value[t]
            err_sum += delta * delta
            m = rec_m[t]
            if m > 0:
                step = alpha * delta / m
                if tc_on:
                    for i in range(m):
                        j = rec[t, i]
                        rate = abs(tc_e[j]) / tc_a[j] if tc_a[j] > 0.0 else 1.0
                        theta[j] += rate * step
                        tc_e[j] += delta
                        tc_a[j] += abs(delta)
                else:
                    for i in range(m):
                        theta[rec[t, i]] += step
            if table_step > 0.0:
                step = table_step * delta / 10.0
                for L in range(10):
                    slot = rec_slots[t, L]
                    if slot >= 0:
                        sums[slot] += step * counts[slot]  # the average moves by step
        score_sum += final
    return score_sum, err_sum


@njit(cache=True, nogil=True)
def learn_from(grid, card, n_games, seed, alpha, lam, points, keys, sums, counts, size_sums, size_counts,
               use_size, theta, groups):
    """TD search's learning (Silver, Sutton and Müller 2012): ``n_games`` games from the
    position ``grid`` with ``card`` in hand, each placing ``card`` and then the undealt
    cards in a fresh random order by the greedy policy on table + residual, and after
    each game moving the active weights of its non-final afterstates toward their
    lambda-returns with the constant step ``alpha`` (shared among a state's active
    features), as :func:`learn_games` does from the empty grid; the table stays as it
    is. Several threads may learn into the same ``theta``. Returns the sum of the final
    scores."""
    rank_und, suit_und, undealt, sizes, a, b, slots, vals = _scratch()
    k, fsuit, lcounts, idx, line_w = _td_scratch()
    state = rng_seed(seed)
    everything, n0 = undealt_deck(grid, rank_und, suit_und, undealt)
    deck = np.empty(everything.shape[0] - 1, dtype=np.int64)
    m = 0
    for c in everything:
        if c != card:
            deck[m] = c
            m += 1
    moves = 25 - n0
    g = grid.copy()
    rec = np.empty((25, MAX_ACTIVE), dtype=np.int64)
    rec_m = np.zeros(25, dtype=np.int64)
    value = np.empty(25)
    score_sum = 0.0
    for game in range(n_games):
        n = restart_playout(g, grid, state, deck, moves - 1, rank_und, suit_und, undealt, sizes)
        line_states(g, k, fsuit, lcounts)
        for t in range(moves):
            c = card if t == 0 else deck[t - 1]
            _deal(c, undealt, rank_und, suit_und)
            _td_placements(g, c, n + 1, rank_und, suit_und, undealt, sizes, points, keys, sums, counts,
                           size_sums, size_counts, use_size, a, b, slots, vals, k, fsuit, lcounts, theta, groups,
                           idx, line_w)
            cell = _argmax(vals)
            value[t] = vals[cell]
            _put(g, sizes, cell, c)
            _add(cell // 5, c, k, fsuit, lcounts)
            _add(5 + cell % 5, c, k, fsuit, lcounts)
            n += 1
            if n < 25:
                rec_m[t] = features(n, k, fsuit, lcounts, rank_und, suit_und, groups, rec[t],
                                    _cross_mask(g, groups), _undealt_mask(undealt, groups))
        final = score_grid(g, points)
        ret = np.float64(final)
        for t in range(moves - 2, -1, -1):  # the last afterstate is the full grid, valued exactly
            ret = (1.0 - lam) * value[t + 1] + lam * ret
            step = alpha * (ret - value[t]) / rec_m[t] if rec_m[t] > 0 else 0.0
            for i in range(rec_m[t]):
                theta[rec[t, i]] += step
        score_sum += final
    return score_sum
