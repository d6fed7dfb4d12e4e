"""NARL kernels: the GettysburgPlayer's abstracted-hand value table (Neller et al. 2016, sect. 6).

A line (row or column) of a grid is abstracted to an integer key of these fields,
low bits first (the readable form and its plain-Python reference are in
:mod:`pokersquares.evaluators.narl`):

====== ===== ==============================================================
bits   field meaning
====== ===== ==============================================================
0-4    n     cards on the grid (cards played in the game so far)
5      col   1 for a column, 0 for a row
6-30   rank  up to five 5-bit groups ``count * 4 + undealt``, one per rank in
             the line, sorted by descending (count, undealt); ``undealt`` is
             how many cards of that rank are not on the grid (0..3)
31     f     a flush is still achievable
32-35        undealt cards of the flush suit (0 when no flush)
36     s     a straight is still achievable
37     r     a royal flush is still achievable
====== ===== ==============================================================

Complete lines get no key: their value is their exact points. An empty line's key
holds only ``n`` and ``col``.

The value table is an open-addressing hash table in three arrays (``keys`` with -1
for a free slot, ``sums`` and ``counts`` of the final hand points seen), and
``used[0]`` is how many slots are taken. The learning kernel never grows the
table: it stops before a game could overfill it and the caller grows it
(:func:`rehash`).

The hand-size feature is a direct-indexed table: the counts of lines holding
0..4 cards (the count of full lines is implied) as base-11 digits.

A grid's value is the sum of its ten line values plus, with the hand-size feature,
the learned mean residual of its hand-size distribution. Undealt cards are the cards
that are not on the grid; a card in hand counts as dealt once placed.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .core import (_ROYAL_MASK, LINES_ARRAY, STRAIGHT_WINDOWS, add_card, classify_packed, empty_mask,
                   line_features, line_scores, random_bit, rng_next, rng_seed, score_grid, shuffle_prefix,
                   undealt_counts)

__all__ = [
    "NO_KEY", "SIZE_TABLE_LEN", "new_table", "rehash", "line_key", "lookup",
    "undealt_counts", "grid_value", "placement_values", "best_placement_values",
    "playouts", "learn_games", "size_index",
]

NO_KEY = -1
SIZE_TABLE_LEN = 11 ** 5
_HASH_MUL = np.uint64(0x9E3779B97F4A7C15)
_POW11 = np.array([1, 11, 121, 1331, 14641, 161051], dtype=np.int64)
_STRAIGHT_WINDOWS = np.array(STRAIGHT_WINDOWS, dtype=np.int64)
# "No card" as an int64, not the literal -1: numba compiles a kernel once per literal
# argument value, so the same kernel called with -1 and with a card compiled twice.
_NO_CARD = np.int64(-1)


def new_table(capacity: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """An empty value table of ``capacity`` slots (a power of two): keys, sums, counts, used."""
    if capacity & (capacity - 1) or capacity < 16:
        raise ValueError("capacity must be a power of two >= 16")
    return (np.full(capacity, NO_KEY, dtype=np.int64), np.zeros(capacity), np.zeros(capacity, dtype=np.int64),
            np.zeros(1, dtype=np.int64))


@njit(cache=True, inline="always")
def _home(key, mask):
    return np.int64(((np.uint64(key) * _HASH_MUL) >> np.uint64(24)) & np.uint64(mask))


@njit(cache=True, inline="always")
def _probe(keys, key):
    """Slot holding ``key``, or the free slot where it would go (linear probing)."""
    mask = keys.shape[0] - 1
    i = _home(key, mask)
    while keys[i] != key and keys[i] != NO_KEY:
        i = (i + 1) & mask
    return i


@njit(cache=True, inline="always")
def lookup(keys, key):
    """Slot holding ``key``, or -1."""
    i = _probe(keys, key)
    return i if keys[i] == key else -1


@njit(cache=True, inline="always")
def _claim(keys, used, key):
    """Slot holding ``key``, taking a free one if it is new."""
    i = _probe(keys, key)
    if keys[i] == NO_KEY:
        keys[i] = key
        used[0] += 1
    return i


@njit(cache=True, nogil=True)
def rehash(keys, sums, counts, new_keys, new_sums, new_counts, new_used):
    """Add every entry of one table into another (with room for them): into an empty
    larger table this grows a table, into a learned one it pools two learners' data."""
    for i in range(keys.shape[0]):
        if keys[i] != NO_KEY:
            j = _claim(new_keys, new_used, keys[i])
            new_sums[j] += sums[i]
            new_counts[j] += counts[i]


@njit(cache=True, nogil=True)
def add_new(keys, sums, counts, base_keys, base_sums, base_counts, into_keys, into_sums, into_counts, into_used):
    """Add into a table what a learner's table gained over ``base``, the table it started from."""
    for i in range(keys.shape[0]):
        key = keys[i]
        if key != NO_KEY:
            s = sums[i]
            c = counts[i]
            j = lookup(base_keys, key)
            if j >= 0:
                s -= base_sums[j]
                c -= base_counts[j]
            if c > 0 or (c == 0 and s != 0.0):  # an entry at its horizon changes only its sum
                slot = _claim(into_keys, into_used, key)
                into_sums[slot] += s
                into_counts[slot] += c


@njit(cache=True, inline="always")
def _deal(card, undealt, rank_und, suit_und):
    """``card`` leaves the undealt cards."""
    undealt[card] = 0
    rank_und[card % 13] -= 1
    suit_und[card // 13] -= 1


@njit(cache=True, inline="always")
def _put(grid, sizes, cell, card):
    """Place ``card`` at ``cell``, keeping the per-line card counts."""
    grid[cell] = card
    sizes[cell // 5] += 1
    sizes[5 + cell % 5] += 1


# -- the abstraction -------------------------------------------------------------------


# Not inlined: its callers compile one copy instead of one per call site (the kernels'
# cold-cache compile time), and ``extra`` and ``n`` always come as int64.
@njit(cache=True)
def line_key(grid, line, extra, n, is_col, rank_und, suit_und, undealt):
    """Key and hand id of line ``line`` (cell indices) of ``grid`` with ``extra`` added
    (-1 for none), ``n`` cards on the grid. A complete line has key ``NO_KEY``."""
    k, counts, rank_mask, suit0, same_suit = line_features(grid, line)
    if extra >= 0:
        k, counts, rank_mask, suit0, same_suit = add_card(extra, k, counts, rank_mask, suit0, same_suit)
    hand = classify_packed(k, counts, rank_mask, same_suit)
    if k == 5:
        return np.int64(NO_KEY), hand
    key = np.int64(n) | (np.int64(is_col) << 5)
    if k == 0:
        return key, hand
    # Rank groups, sorted by descending code with an insertion sort into 5-bit fields.
    groups = np.int64(0)
    ng = 0
    distinct = 0
    for r in range(13):
        if rank_mask & (1 << r):
            distinct += 1
            code = np.int64(((counts >> (4 * r)) & 0xF) * 4 + rank_und[r])
            # Insert code into the descending list held in groups (field g at bits 5g).
            pos = ng
            while pos > 0:
                prev = (groups >> (5 * (pos - 1))) & 31
                if prev >= code:
                    break
                groups = (groups & ~(np.int64(31) << (5 * pos))) | (prev << (5 * pos))
                pos -= 1
            groups = (groups & ~(np.int64(31) << (5 * pos))) | (code << (5 * pos))
            ng += 1
    key |= groups << 6
    need = 5 - k
    if same_suit and suit_und[suit0] >= need:
        key |= (np.int64(1) << 31) | (np.int64(suit_und[suit0]) << 32)
        flush = True
    else:
        flush = False
    if distinct == k:
        for w in range(_STRAIGHT_WINDOWS.shape[0]):
            window = _STRAIGHT_WINDOWS[w]
            if rank_mask & ~window:
                continue
            ok = True
            for r in range(13):
                if (window >> r) & 1 and not (rank_mask >> r) & 1 and rank_und[r] == 0:
                    ok = False
                    break
            if ok:
                key |= np.int64(1) << 36
                break
        if flush and (rank_mask & ~_ROYAL_MASK) == 0:
            ok = True
            for r in (0, 9, 10, 11, 12):
                if not (rank_mask >> r) & 1 and not undealt[suit0 * 13 + r]:
                    ok = False
                    break
            if ok:
                key |= np.int64(1) << 37
    return key, hand


@njit(cache=True, inline="always")
def _slot_of(key, keys):
    """The table slot of a line abstraction, -1 for a complete line or an abstraction
    the table does not hold."""
    return lookup(keys, key) if key != NO_KEY else -1


@njit(cache=True, inline="always")
def _value_at(slot, hand, points, sums, counts):
    if slot < 0:
        # Complete (exact), or never seen: the points of the hand as it stands are the best guess.
        return np.float64(points[hand])
    return sums[slot] / counts[slot]


@njit(cache=True, inline="always")
def _value_of(key, hand, points, keys, sums, counts):
    return _value_at(_slot_of(key, keys), hand, points, sums, counts)


@njit(cache=True, inline="always")
def size_index(sizes):
    """Index of the hand-size distribution of the 10 line sizes in ``sizes``."""
    idx = 0
    for L in range(10):
        s = sizes[L]
        if s < 5:
            idx += _POW11[s]
    return idx


@njit(cache=True, inline="always")
def _size_value(idx, size_sums, size_counts):
    if size_counts[idx] == 0:
        return 0.0
    return size_sums[idx] / size_counts[idx]


@njit(cache=True, inline="always")
def _line_sizes(grid, sizes):
    for L in range(10):
        s = 0
        for j in range(5):
            if grid[LINES_ARRAY[L, j]] >= 0:
                s += 1
        sizes[L] = s


@njit(cache=True)
def grid_value(grid, points, keys, sums, counts, size_sums, size_counts, use_size):
    """Estimated final score of ``grid`` (no card in hand)."""
    rank_und = np.empty(13, dtype=np.int64)
    suit_und = np.empty(4, dtype=np.int64)
    undealt = np.empty(52, dtype=np.uint8)
    n = undealt_counts(grid, _NO_CARD, rank_und, suit_und, undealt)
    total = 0.0
    for L in range(10):
        key, hand = line_key(grid, LINES_ARRAY[L], _NO_CARD, n, L >= 5, rank_und, suit_und, undealt)
        total += _value_of(key, hand, points, keys, sums, counts)
    if use_size and n < 25:
        sizes = np.empty(10, dtype=np.int64)
        _line_sizes(grid, sizes)
        total += _size_value(size_index(sizes), size_sums, size_counts)
    return total


@njit(cache=True)  # one copy for its four callers (card and n_after as int64)
def _placements(grid, card, n_after, rank_und, suit_und, undealt, sizes, points, keys, sums, counts,
                size_sums, size_counts, use_size, a, b, slots, out):
    """``out[cell]``: the value of the grid after ``card`` goes to ``cell`` (-inf where
    occupied). The undealt tallies already exclude ``card``; ``sizes`` are the line
    sizes before placing. Only a cell's row and column change, so each line is looked
    up twice (as it is, and with the card) instead of ten times per cell. ``slots[L]``
    and ``slots[10 + L]`` keep line ``L``'s table slot as it is and with the card (-1:
    complete, or not in the table), so the afterstate of any cell has its ten slots
    without a lookup (:func:`afterstate_slots`)."""
    total = 0.0
    for L in range(10):
        key, hand = line_key(grid, LINES_ARRAY[L], _NO_CARD, n_after, L >= 5, rank_und, suit_und, undealt)
        slots[L] = _slot_of(key, keys)
        a[L] = _value_at(slots[L], hand, points, sums, counts)
        total += a[L]
        slots[10 + L] = -1
        if sizes[L] < 5:
            key, hand = line_key(grid, LINES_ARRAY[L], card, n_after, L >= 5, rank_und, suit_und, undealt)
            slots[10 + L] = _slot_of(key, keys)
            b[L] = _value_at(slots[10 + L], hand, points, sums, counts)
    full = n_after == 25
    idx0 = size_index(sizes) if use_size else 0
    for cell in range(25):
        if grid[cell] >= 0:
            out[cell] = -np.inf
            continue
        r = cell // 5
        c = 5 + cell % 5
        v = total - a[r] - a[c] + b[r] + b[c]
        if use_size and not full:
            idx = idx0 - _POW11[sizes[r]] - _POW11[sizes[c]]
            if sizes[r] + 1 < 5:
                idx += _POW11[sizes[r] + 1]
            if sizes[c] + 1 < 5:
                idx += _POW11[sizes[c] + 1]
            v += _size_value(idx, size_sums, size_counts)
        out[cell] = v


@njit(cache=True, inline="always")
def _scratch():
    """Work arrays of the placement kernels: undealt counts by rank and suit, undealt
    flags, the 10 lines' sizes, line values before and after a placement, their table
    slots, and 25 cell values."""
    return (np.empty(13, dtype=np.int64), np.empty(4, dtype=np.int64), np.empty(52, dtype=np.uint8),
            np.empty(10, dtype=np.int64), np.empty(10), np.empty(10), np.empty(20, dtype=np.int64), np.empty(25))


@njit(cache=True, inline="always")
def afterstate_slots(slots, cell, out):
    """``out[L]``: the table slot of line ``L`` once the card :func:`_placements` valued
    goes to ``cell``: its row and column with the card, the other lines as they are."""
    r = cell // 5
    c = 5 + cell % 5
    for L in range(10):
        out[L] = slots[10 + L] if L == r or L == c else slots[L]


@njit(cache=True)
def placement_values(grid, card, points, keys, sums, counts, size_sums, size_counts, use_size):
    """``float64[25]``: estimated final score after placing ``card`` in each cell."""
    rank_und, suit_und, undealt, sizes, a, b, slots, out = _scratch()
    n = undealt_counts(grid, card, rank_und, suit_und, undealt)
    _line_sizes(grid, sizes)
    _placements(grid, card, n + 1, rank_und, suit_und, undealt, sizes, points, keys, sums, counts,
                size_sums, size_counts, use_size, a, b, slots, out)
    return out


@njit(cache=True)
def best_placement_values(grid, cards, points, keys, sums, counts, size_sums, size_counts, use_size):
    """For each card of ``cards``: the value of its best placement on ``grid`` (the
    chance level of a depth-2 expectimax: each card as the next one dealt)."""
    rank_und, suit_und, undealt, sizes, a, b, slots, vals = _scratch()
    out = np.empty(cards.shape[0])
    n = undealt_counts(grid, _NO_CARD, rank_und, suit_und, undealt)
    _line_sizes(grid, sizes)
    for i in range(cards.shape[0]):
        d = cards[i]
        undealt[d] = 0
        rank_und[d % 13] -= 1
        suit_und[d // 13] -= 1
        _placements(grid, d, n + 1, rank_und, suit_und, undealt, sizes, points, keys, sums, counts,
                    size_sums, size_counts, use_size, a, b, slots, vals)
        out[i] = vals.max()
        undealt[d] = 1
        rank_und[d % 13] += 1
        suit_und[d // 13] += 1
    return out


@njit(cache=True, inline="always")
def _argmax(vals):
    best = 0
    for i in range(1, vals.shape[0]):
        if vals[i] > vals[best]:
            best = i
    return best


@njit(cache=True, nogil=True)
def undealt_deck(grid, rank_und, suit_und, undealt):
    """The cards not on ``grid`` in card order as ``int64[]`` (the deck a playout from
    ``grid`` deals from; their counts filled as :func:`undealt_counts` fills them), and
    the number of cards on ``grid``."""
    n0 = undealt_counts(grid, _NO_CARD, rank_und, suit_und, undealt)
    deck = np.empty(52 - n0, dtype=np.int64)
    m = 0
    for c in range(52):
        if undealt[c]:
            deck[m] = c
            m += 1
    return deck, n0


@njit(cache=True, nogil=True)
def restart_playout(g, grid, state, deck, moves, rank_und, suit_und, undealt, sizes):
    """Start one playout: ``g`` a copy of ``grid``, the first ``moves`` cards of ``deck``
    freshly shuffled, the undealt counts and line sizes of ``g``; returns its cards."""
    for i in range(25):  # a loop, not g[:] = grid: slice assignment compiles its error message
        g[i] = grid[i]
    shuffle_prefix(state, deck, 0, moves)
    n = undealt_counts(g, _NO_CARD, rank_und, suit_und, undealt)
    _line_sizes(g, sizes)
    return n


@njit(cache=True, nogil=True)  # searches run playouts on several threads (CrnHalving)
def playouts(grid, n_games, depth, seed, random_policy, points, keys, sums, counts, size_sums, size_counts,
             use_size):
    """``float64[n_games]``: each game deals ``depth`` more cards (all, if fewer are
    left) from a fresh shuffle of the undealt cards, places them by the greedy policy
    (or uniformly at random) and ends with the exact score of a full grid or the
    estimated final score of a partial one."""
    rank_und, suit_und, undealt, sizes, a, b, slots, vals = _scratch()
    out = np.empty(n_games)
    state = rng_seed(seed)
    deck, n0 = undealt_deck(grid, rank_und, suit_und, undealt)
    moves = min(depth, 25 - n0)
    g = grid.copy()
    for game in range(n_games):
        n = restart_playout(g, grid, state, deck, moves, rank_und, suit_und, undealt, sizes)
        for t in range(moves):
            card = deck[t]
            _deal(card, undealt, rank_und, suit_und)
            if random_policy:
                cell = random_bit(state, empty_mask(g))
            else:
                _placements(g, card, n + 1, rank_und, suit_und, undealt, sizes, points, keys, sums, counts,
                            size_sums, size_counts, use_size, a, b, slots, vals)
                cell = _argmax(vals)
            _put(g, sizes, cell, card)
            n += 1
        if n == 25:
            out[game] = score_grid(g, points)
        else:
            out[game] = grid_value(g, points, keys, sums, counts, size_sums, size_counts, use_size)
    return out


# -- learning ---------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _credit(sums, counts, slot, x, horizon):
    """Add sample ``x`` to entry ``slot``'s average (recency-weighted once it holds
    ``horizon`` samples, when ``horizon`` > 0)."""
    if horizon > 0 and counts[slot] >= horizon:
        if counts[slot] > horizon:  # pooled learners' samples pushed it past: rescale
            sums[slot] *= horizon / counts[slot]
            counts[slot] = horizon
        sums[slot] += x - sums[slot] / horizon
    else:
        sums[slot] += x
        counts[slot] += 1


@njit(cache=True, nogil=True)  # learners on several threads (NarlEvaluator threads)
def learn_games(n_games, state, epsilon, decay, points, keys, sums, counts, used, size_sums, size_counts,
                use_size, max_used, horizon=0):
    """On-policy Monte Carlo learning with an epsilon-greedy policy.

    Plays up to ``n_games`` games (stopping early, before a game could push ``used``
    past ``max_used``); each move is uniformly random with probability ``epsilon``,
    else greedy on the current table. After each game, every line abstraction of the
    25 states (after each placement) is credited with that line's final points and,
    with ``use_size``, each state's hand-size distribution with the final score minus
    the sum of its line estimates. ``epsilon`` decays by ``decay`` after each game.
    With ``horizon`` > 0 an entry that holds ``horizon`` samples keeps that count and
    moves its mean by 1/``horizon`` of each new sample's error (a recency-weighted
    average): the values of common abstractions follow the policy as it improves
    instead of keeping the weight of the early, mostly random games.
    Returns (games played, epsilon, sum of the games' final scores).
    """
    rank_und, suit_und, undealt, sizes, a, b, slots, vals = _scratch()
    deck = np.arange(52)
    grid = np.empty(25, dtype=np.int8)
    rec = np.empty((25, 10), dtype=np.int64)
    rec_size = np.empty(25, dtype=np.int64)
    played = 0
    score_sum = 0.0
    for game in range(n_games):
        if used[0] + 250 > max_used:
            break
        grid[:] = -1
        undealt[:] = 1
        rank_und[:] = 4
        suit_und[:] = 13
        sizes[:] = 0
        for i in range(52):  # each game's deal depends only on the generator state
            deck[i] = i
        shuffle_prefix(state, deck, 0, 25)
        for t in range(25):
            card = deck[t]
            _deal(card, undealt, rank_und, suit_und)
            explore = np.float64(rng_next(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0) < epsilon
            if explore:
                cell = random_bit(state, empty_mask(grid))
            else:
                _placements(grid, card, t + 1, rank_und, suit_und, undealt, sizes, points, keys, sums, counts,
                            size_sums, size_counts, use_size, a, b, slots, vals)
                cell = _argmax(vals)
            _put(grid, sizes, cell, card)
            for L in range(10):
                key, hand = line_key(grid, LINES_ARRAY[L], _NO_CARD, t + 1, L >= 5, rank_und, suit_und, undealt)
                rec[t, L] = key
            rec_size[t] = size_index(sizes)
        line_points = line_scores(grid, points)
        final = 0
        for L in range(10):
            final += line_points[L]
        for t in range(25):
            for L in range(10):
                if rec[t, L] != NO_KEY:
                    slot = _claim(keys, used, rec[t, L])
                    _credit(sums, counts, slot, line_points[L], horizon)
                    rec[t, L] = slot
                else:
                    rec[t, L] = -1
        if use_size:
            for t in range(24):  # the full grid's residual is always 0
                est = 0.0
                for L in range(10):
                    slot = rec[t, L]
                    est += line_points[L] if slot < 0 else sums[slot] / counts[slot]
                _credit(size_sums, size_counts, rec_size[t], final - est, horizon)
        score_sum += final
        played += 1
        epsilon *= decay
    return played, epsilon, score_sum
