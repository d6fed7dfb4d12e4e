"""Core kernels: a small random-number generator, hand classification, grid scoring
and complete random games.

Classification packs a hand's rank counts into one integer, a 4-bit field per rank
(``1 << 4 * rank`` per card), so that quads, trips and pairs are single mask tests
instead of a loop over a count array. Values never exceed 4, so within a field
``0b100`` means four, ``0b011`` three and bit 1 a pair or more.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..game import LINES

LINES_ARRAY = np.array(LINES, dtype=np.int64)

_ROYAL_MASK = (1 << 0) | (1 << 9) | (1 << 10) | (1 << 11) | (1 << 12)
# The ranks of each straight as 13-bit masks (bit r: rank r, ace = 0): A2345 .. 9TJQK,
# then TJQKA. Every kernel that asks about straights takes them from here.
STRAIGHT_WINDOWS: tuple[int, ...] = tuple(0b11111 << low for low in range(9)) + (_ROYAL_MASK,)
_NIBBLE_BIT0 = 0x1111111111111
_NIBBLE_BIT1 = 0x2222222222222
_NIBBLE_BIT2 = 0x4444444444444


def _straight_masks() -> np.ndarray:
    table = np.zeros(1 << 13, dtype=np.bool_)
    table[list(STRAIGHT_WINDOWS)] = True
    return table


_STRAIGHT = _straight_masks()
_POPCOUNT13 = np.array([bin(m).count("1") for m in range(1 << 13)], dtype=np.int64)

# -- random numbers ------------------------------------------------------------
# xorshift64*: tiny state (one uint64 in a 1-element array), fast, and the same
# stream on every machine, which numba's global generator does not promise per thread.


@njit(cache=True)
def rng_seed(seed):
    """A generator state for ``seed`` (splitmix64 of the seed, never zero)."""
    z = np.uint64(seed) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    if z == 0:
        z = np.uint64(1)
    state = np.empty(1, dtype=np.uint64)
    state[0] = z
    return state


@njit(cache=True, inline="always")
def rng_next(state):
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(0x2545F4914F6CDD1D)


@njit(cache=True, inline="always")
def rng_below(state, n):
    """Uniform integer in [0, n) for n < 2**32 (multiply-shift on the high 32 bits)."""
    return np.int64(((rng_next(state) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, inline="always")
def shuffle_prefix(state, items, start, count):
    """Fisher-Yates over ``items[start:]``, fixing only the first ``count`` positions."""
    n = items.shape[0]
    for i in range(start, start + count):
        j = i + rng_below(state, n - i)
        t = items[i]
        items[i] = items[j]
        items[j] = t


@njit(cache=True, inline="always")
def empty_mask(grid):
    """The empty cells of a 25-cell grid as a bit mask (bit i: cell i is empty)."""
    mask = 0
    for i in range(25):
        if grid[i] < 0:
            mask |= 1 << i
    return mask


@njit(cache=True)
def undealt_counts(grid, card, rank_und, suit_und, undealt):
    """The cards neither on ``grid`` nor ``card`` (-1 for none): ``undealt[c]`` (uint8[52])
    is 1 for each, ``rank_und`` (int64[13]) and ``suit_und`` (int64[4]) count them per
    rank and per suit; returns the number of cards on the grid. Every kernel that needs
    the undealt cards takes them from here."""
    undealt[:] = 1
    rank_und[:] = 4
    suit_und[:] = 13
    n = 0
    for i in range(25):
        c = grid[i]
        if c >= 0:
            n += 1
            undealt[c] = 0
            rank_und[c % 13] -= 1
            suit_und[c // 13] -= 1
    if card >= 0:
        undealt[card] = 0
        rank_und[card % 13] -= 1
        suit_und[card // 13] -= 1
    return n


@njit(cache=True, inline="always")
def random_bit(state, mask):
    """A uniformly random set bit of a 25-bit ``mask`` (its index), or -1 if none."""
    k = 0
    for i in range(25):
        if mask >> i & 1:
            k += 1
    j = rng_below(state, k)
    for i in range(25):
        if mask >> i & 1:
            if j == 0:
                return i
            j -= 1
    return -1


# -- hands ----------------------------------------------------------------------


@njit(cache=True, inline="always")
def classify_packed(n, counts, rank_mask, flush):
    """Hand id from ``line_features``: the rule of ``hands.classify``."""
    if counts & _NIBBLE_BIT2:
        return 7
    trips = (counts & (counts >> 1) & _NIBBLE_BIT0) != 0
    if n == 5:
        distinct = _POPCOUNT13[rank_mask]
        if distinct == 5:
            straight = _STRAIGHT[rank_mask]
            if flush and straight:
                return 9 if rank_mask == _ROYAL_MASK else 8
            if flush:
                return 5
            if straight:
                return 4
            return 0
        if distinct == 2:
            return 6
    if trips:
        return 3
    pairs = counts & _NIBBLE_BIT1
    if pairs:
        return 2 if pairs & (pairs - 1) else 1
    return 0


@njit(cache=True, inline="always")
def add_card(c, n, counts, rank_mask, suit, suited):
    """Fold card ``c`` into a hand's features ``(n, counts, rank_mask, suit, suited)``:
    the card count, the packed rank counts, the mask of ranks present, the suit of
    the first card (``-1`` before any) and whether all cards share it."""
    s = c // 13
    if suit < 0:
        suit = s
    elif s != suit:
        suited = False
    return n + 1, counts + (np.int64(1) << (4 * (c % 13))), rank_mask | (1 << (c % 13)), suit, suited


@njit(cache=True, inline="always")
def line_features(cells, line):
    """``(n, counts, rank_mask, suit, suited)`` (see ``add_card``) of the cards
    ``cells[line[k]]``, ``-1`` entries skipped."""
    n, counts, rank_mask, suit, suited = 0, np.int64(0), 0, -1, True
    for k in range(line.shape[0]):
        c = cells[line[k]]
        if c >= 0:
            n, counts, rank_mask, suit, suited = add_card(c, n, counts, rank_mask, suit, suited)
    return n, counts, rank_mask, suit, suited


@njit(cache=True, inline="always")
def classify_line(cells, line):
    """Hand id of the cards at positions ``line`` of ``cells`` (e.g. a grid and one of
    ``LINES_ARRAY``'s rows)."""
    n, counts, rank_mask, _, suited = line_features(cells, line)
    return classify_packed(n, counts, rank_mask, suited)


@njit(cache=True)
def classify_cards(cards):
    """Hand id of the cards in ``cards`` (entries ``-1`` are skipped), as ``hands.classify``."""
    return classify_line(cards, np.arange(cards.shape[0]))


@njit(cache=True)
def classify_batch(hands):
    """Hand ids of an ``(N, 5)`` array of hands."""
    out = np.empty(hands.shape[0], dtype=np.int8)
    idx = np.arange(5)
    for i in range(hands.shape[0]):
        out[i] = classify_line(hands[i], idx)
    return out


@njit(cache=True)
def line_scores(grid, points):
    """Points of each of the 10 hands of ``grid`` (rows, then columns)."""
    out = np.empty(10, dtype=np.int64)
    for i in range(10):
        out[i] = points[classify_line(grid, LINES_ARRAY[i])]
    return out


@njit(cache=True)
def score_grid(grid, points):
    """Total points of ``grid``: the sum of its 10 hands."""
    total = 0
    for i in range(10):
        total += points[classify_line(grid, LINES_ARRAY[i])]
    return total


# -- complete random games ------------------------------------------------------------


@njit(cache=True)
def random_games(n_games, seed, points):
    """Scores of ``n_games`` complete random games: deal 25 cards, place each in a
    uniformly random empty cell, score all 10 hands."""
    state = rng_seed(seed)
    deck = np.arange(52).astype(np.int8)
    cells = np.arange(25).astype(np.int8)
    grid = np.empty(25, dtype=np.int8)
    scores = np.empty(n_games, dtype=np.int64)
    for g in range(n_games):
        shuffle_prefix(state, deck, 0, 25)
        shuffle_prefix(state, cells, 0, 25)
        for i in range(25):
            grid[cells[i]] = deck[i]
        scores[g] = score_grid(grid, points)
    return scores


@njit(cache=True, parallel=True)
def random_games_parallel(n_games, seed, points, n_chunks):
    """``random_games`` spread over threads, in ``n_chunks`` independently seeded chunks."""
    scores = np.empty(n_games, dtype=np.int64)
    per = (n_games + n_chunks - 1) // n_chunks
    for k in prange(n_chunks):
        lo = k * per
        hi = min(n_games, lo + per)
        if hi > lo:
            scores[lo:hi] = random_games(hi - lo, seed * 1000003 + k, points)
    return scores
