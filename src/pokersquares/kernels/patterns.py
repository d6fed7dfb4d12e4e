"""BeeMo's hand patterns and the optimized greedy (OG) policy, as numba kernels.

A *pattern* abstracts one line (row or column) of a grid into 16 bits, after
Castro-Wunsch, Maga and Anton (2016). Bit layout, least significant first:

==========  ====  ================================================================
bits        name  meaning
==========  ====  ================================================================
0           col   1 for a column, 0 for a row
1           fl    flush still possible: every card of the hand has one suit
2           st    straight still possible: distinct ranks within one straight window
3-5         unp   number of unpaired ranks (ranks held once), 0..5
6-7         prs   number of pairs (ranks held twice), 0..2
8           tr    three of a kind
9           qu    four of a kind
10-11       p1    undealt cards of the primary rank, 0..3
12-13       p2    undealt cards of the secondary rank, 0..3 (0 when the hand holds
                  more than 3 ranks, which can no longer become a full house or quads)
14-15       fc    undealt cards of the flush suit: 0 not enough to complete the
                  flush, 1 exactly enough, 2 more than enough (0 when no flush is possible)
==========  ====  ================================================================

Bits 0-9 are the hand pattern proper, bits 10-15 its deck context. *Undealt* means
unseen by the player: not on the grid and not the card in hand. The primary rank
is the rank held most often, the secondary the next; ties go to the rank with more
undealt cards (the order of ranks never matters, as the paper asks). The empty
hand and complete hands carry no context: nothing can come for a complete hand, and
an empty one has no rank or suit to track. The pattern itself is the index into a
utility array of ``NUM_PATTERNS`` entries.

Field by field against the paper (Castro-Wunsch et al. 2016, "Hand Pattern and
Board Context Encoding"):

- flush (1 bit), straight (1 bit): the paper says "if it has a flush / a straight";
  for a partial hand we read "still possible" (one suit; distinct ranks within one
  straight window), which for a complete hand is "has";
- unpaired cards (3 bits), pairs (2), three of a kind (1), four of a kind (1), row or
  column (1): as the paper; like the paper's, the encoding does not tell a royal
  flush from a straight flush;
- undealt cards of the primary and of the secondary rank (2 bits each), the
  secondary 0 for hands of more than 3 ranks; the flush-suit context (2 bits: not
  enough, just enough, more than enough): as the paper;
- what the paper leaves open, and we chose: the tie between ranks held equally often
  (ours: the one with more undealt cards; with fewer, OG learned 116.62 ± 0.33 on
  seeds 0..9999 after 60 s against 116.54 ± 0.33, no difference), no context for
  empty and complete hands (the paper does not say; a complete hand's points do not
  depend on the deck), and the card in hand counted as dealt.

The paper reports about 550 distinct patterns seen in learning (and 350 in its
Table iii), we see about 215 to 230 in the round kept; about 378 are reachable at all
(sampled enumeration of hands and decks), so 550 needs distinctions the paper does
not list. The paper does not say how it counted. Issue 18 item 5 measured what could
add them (docs/results.md, "OG after 300 s of learning"; 60 rounds of learning on one
thread, OG on seeds 0..9999, paired against the rules above at 117.10 ± 0.34):
complete hands with deck context (266 patterns, -0.46 ± 0.28), empty hands with the
context of a fixed rank and suit, as an implementation that takes the first rank of
an all-zero count would give (-3.53 ± 0.29), that plus complete-hand context,
primary-rank ties to the lowest rank and ties between cells to the first cell (394
patterns, -2.80 ± 0.30), a time field of 4 buckets (531 patterns, -1.62 ± 0.37;
112.96 ± 0.35 after 300 s of carried learning). Crediting a line's pattern after
every move instead of once (+0.44 ± 0.27), only when a card joins it (-0.71 ± 0.35),
first-cell ties (+0.17 ± 0.30), UCB1's constant from 0.05 to 1.0 of the point range
and UCB1 in every game (-0.7 to -2.6), and unseen patterns backed off to their
shape's mean (-0.02) change nothing worth having: none comes near 121, and the rules
above are kept.

OG places a card where ``U[row after] - U[row before] + U[col after] - U[col before]``
is largest. The after-pattern of a line does not depend on which of its empty cells
takes the card, so a decision costs two encodings per open line, not per cell. Line
states (packed rank counts, rank mask, suit, shape bits) and the deck's rank and suit
counts are updated incrementally; no loop allocates.

``encode_hand`` is the plain-Python reference of the encoding; ``og_values_reference``
that of one OG decision. The tests check the kernels against both.
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence

import numpy as np
from numba import njit, prange

from .core import _POPCOUNT13, STRAIGHT_WINDOWS, classify_packed, rng_below, rng_seed, shuffle_prefix, undealt_counts

__all__ = [
    "ENCODING_VERSION", "NUM_PATTERNS", "SHAPE_MASK", "complete_hand_utilities", "describe_pattern",
    "encode_hand", "encode_hand_kernel", "grid_utility", "og_values", "og_values_reference",
    "og_games", "og_games_from_deals", "og_playouts", "og_placement_playouts", "train_games",
]

ENCODING_VERSION = 1
NUM_PATTERNS = 1 << 16
SHAPE_MASK = (1 << 10) - 1  # bits 0-9: the pattern without deck context

COLUMN_BIT = 1 << 0
FLUSH_BIT = 1 << 1
STRAIGHT_BIT = 1 << 2
UNPAIRED_SHIFT = 3
PAIRS_SHIFT = 6
TRIPS_BIT = 1 << 8
QUADS_BIT = 1 << 9
PRIMARY_SHIFT = 10
SECONDARY_SHIFT = 12
FLUSH_CONTEXT_SHIFT = 14
_REPEATS_BITS = (3 << PAIRS_SHIFT) | TRIPS_BIT | QUADS_BIT

_WINDOWS = STRAIGHT_WINDOWS


def _straight_possible_table() -> np.ndarray:
    table = np.zeros(1 << 13, dtype=np.bool_)
    for mask in range(1 << 13):
        table[mask] = any(mask & ~w == 0 for w in _WINDOWS)
    return table


_STRAIGHT_POSSIBLE = _straight_possible_table()
_LOWEST_BIT = np.array([0] + [(m & -m).bit_length() - 1 for m in range(1, 1 << 13)], dtype=np.int64)
# Adding a card of a rank already held k times: how the shape bits change.
_SHAPE_DELTA = np.array([
    1 << UNPAIRED_SHIFT,                              # 0 -> 1: one more unpaired
    (1 << PAIRS_SHIFT) - (1 << UNPAIRED_SHIFT),       # 1 -> 2: unpaired becomes a pair
    TRIPS_BIT - (1 << PAIRS_SHIFT),                   # 2 -> 3: pair becomes trips
    QUADS_BIT - TRIPS_BIT,                            # 3 -> 4: trips become quads
], dtype=np.int64)

# Line state rows (a line's state is one column of an int64[5, 10] array).
L_N, L_COUNTS, L_MASK, L_SUIT, L_SHAPE = 0, 1, 2, 3, 4
MIXED = 4  # L_SUIT: -1 empty, 0..3 every card of that suit, MIXED otherwise
# Deck state: int64[17], undealt cards of each rank (0..12) then of each suit (13..16).
SUIT_LEFT = 13


# -- the reference ----------------------------------------------------------------

def encode_hand(cards: Sequence[int], is_column: bool, rank_left: Sequence[int],
                suit_left: Sequence[int]) -> int:
    """The pattern of the hand ``cards`` (0..5 card ids), given the undealt cards of
    each rank (13) and suit (4). Plain Python: the reference for the kernels."""
    code = COLUMN_BIT if is_column else 0
    if not cards:
        return code | FLUSH_BIT | STRAIGHT_BIT
    ranks = Counter(c % 13 for c in cards)
    suits = {c // 13 for c in cards}
    held = list(ranks.values())
    flush = len(suits) == 1
    straight = all(k == 1 for k in held) and any(all((w >> r) & 1 for r in ranks) for w in _WINDOWS)
    code |= (FLUSH_BIT if flush else 0) | (STRAIGHT_BIT if straight else 0)
    code |= held.count(1) << UNPAIRED_SHIFT
    code |= held.count(2) << PAIRS_SHIFT
    code |= (TRIPS_BIT if 3 in held else 0) | (QUADS_BIT if 4 in held else 0)
    if len(cards) == 5:
        return code
    order = sorted(ranks, key=lambda r: (ranks[r], rank_left[r]), reverse=True)
    code |= rank_left[order[0]] << PRIMARY_SHIFT
    if len(order) >= 2 and len(order) <= 3:
        code |= rank_left[order[1]] << SECONDARY_SHIFT
    if flush:
        need, have = 5 - len(cards), suit_left[next(iter(suits))]
        code |= (0 if have < need else 1 if have == need else 2) << FLUSH_CONTEXT_SHIFT
    return code


# One hand per complete pattern, with how many of the 2,598,960 hands share it by
# hand id: only the straight-flush pattern mixes two ids (36 straight flushes, 4 royal).
_COMPLETE_HANDS = (
    ((0, 3, 20, 36, 51), {0: 1}),      # high card
    ((0, 13, 20, 36, 51), {1: 1}),     # one pair
    ((0, 13, 7, 20, 51), {2: 1}),      # two pair
    ((0, 13, 26, 36, 51), {3: 1}),     # three of a kind
    ((1, 15, 29, 43, 5), {4: 1}),      # straight 2-6
    ((0, 3, 7, 9, 12), {5: 1}),        # flush
    ((0, 13, 26, 1, 14), {6: 1}),      # full house
    ((0, 13, 26, 39, 1), {7: 1}),      # four of a kind
    ((1, 2, 3, 4, 5), {8: 36, 9: 4}),  # straight or royal flush
)


def complete_hand_utilities(points: Sequence[int]) -> dict[int, float]:
    """The exact utility of every complete-hand pattern, rows and columns: its points,
    averaged over the hands that share it (straight and royal flushes)."""
    out = {}
    for cards, ids in _COMPLETE_HANDS:
        value = sum(points[h] * k for h, k in ids.items()) / sum(ids.values())
        for column in (False, True):
            out[encode_hand(list(cards), column, [0] * 13, [0] * 4)] = value
    return out


def describe_pattern(code: int) -> str:
    """A pattern as text, e.g. ``row fl unp=2 prs=1 | p1=2 p2=3 fc=more``."""
    parts = ["col" if code & COLUMN_BIT else "row"]
    if code & FLUSH_BIT:
        parts.append("fl")
    if code & STRAIGHT_BIT:
        parts.append("st")
    parts.append(f"unp={(code >> UNPAIRED_SHIFT) & 7}")
    parts.append(f"prs={(code >> PAIRS_SHIFT) & 3}")
    if code & TRIPS_BIT:
        parts.append("trips")
    if code & QUADS_BIT:
        parts.append("quads")
    fc = ("none", "exact", "more", "?")[(code >> FLUSH_CONTEXT_SHIFT) & 3]
    parts.append(f"| p1={(code >> PRIMARY_SHIFT) & 3} p2={(code >> SECONDARY_SHIFT) & 3} fc={fc}")
    return " ".join(parts)


def _deck_left(grid: Sequence[int], card: int | None) -> tuple[list[int], list[int]]:
    rank_left, suit_left = [4] * 13, [13] * 4
    for c in [c for c in grid if c >= 0] + ([card] if card is not None else []):
        rank_left[c % 13] -= 1
        suit_left[c // 13] -= 1
    return rank_left, suit_left


def og_values_reference(grid: Sequence[int], card: int, utilities: np.ndarray) -> np.ndarray:
    """OG's value of each cell for ``card`` (``-inf`` where occupied). Plain Python."""
    grid = [int(c) for c in grid]
    rank_left, suit_left = _deck_left(grid, card)
    values = np.full(25, -np.inf)
    for cell in range(25):
        if grid[cell] >= 0:
            continue
        r, c = divmod(cell, 5)
        total = 0.0
        for line, is_col in (([r * 5 + j for j in range(5)], False), ([i * 5 + c for i in range(5)], True)):
            cards = [grid[i] for i in line if grid[i] >= 0]
            total += (utilities[encode_hand(cards + [card], is_col, rank_left, suit_left)]
                      - utilities[encode_hand(cards, is_col, rank_left, suit_left)])
        values[cell] = total
    return values


# -- kernels: encoding ----------------------------------------------------------------

@njit(cache=True, inline="always")
def _code(is_col, n, counts, mask, suit, shape, left):
    """The pattern of a line in the given state (see ``encode_hand``)."""
    if n == 0:
        return is_col | FLUSH_BIT | STRAIGHT_BIT
    code = is_col | shape
    if suit != MIXED:
        code |= FLUSH_BIT
    if (shape & _REPEATS_BITS) == 0 and _STRAIGHT_POSSIBLE[mask]:
        code |= STRAIGHT_BIT
    if n == 5:
        return code
    top1 = -1
    top2 = -1
    m = mask
    while m:
        r = _LOWEST_BIT[m]
        m &= m - 1
        key = ((counts >> (4 * r)) & 15) * 4 + left[r]
        if key > top1:
            top2 = top1
            top1 = key
        elif key > top2:
            top2 = key
    code |= (top1 & 3) << PRIMARY_SHIFT
    if top2 >= 0 and _POPCOUNT13[mask] <= 3:
        code |= (top2 & 3) << SECONDARY_SHIFT
    if suit != MIXED:
        need = 5 - n
        have = left[SUIT_LEFT + suit]
        if have == need:
            code |= 1 << FLUSH_CONTEXT_SHIFT
        elif have > need:
            code |= 2 << FLUSH_CONTEXT_SHIFT
    return code


@njit(cache=True, inline="always")
def _line_code(lines, l, left):
    return _code(l // 5, lines[L_N, l], lines[L_COUNTS, l], lines[L_MASK, l], lines[L_SUIT, l],
                 lines[L_SHAPE, l], left)


@njit(cache=True, inline="always")
def _line_code_with(lines, l, rank, suit, left):
    """The pattern of line ``l`` if a card of ``rank`` and ``suit`` joined it."""
    n = lines[L_N, l]
    counts = lines[L_COUNTS, l]
    held = (counts >> (4 * rank)) & 15
    s = lines[L_SUIT, l]
    if n == 0:
        s = suit
    elif s != suit:
        s = MIXED
    return _code(l // 5, n + 1, counts + (np.int64(1) << (4 * rank)), lines[L_MASK, l] | (1 << rank), s,
                 lines[L_SHAPE, l] + _SHAPE_DELTA[held], left)


@njit(cache=True, inline="always")
def _add_to_line(lines, l, rank, suit):
    counts = lines[L_COUNTS, l]
    lines[L_SHAPE, l] += _SHAPE_DELTA[(counts >> (4 * rank)) & 15]
    lines[L_COUNTS, l] = counts + (np.int64(1) << (4 * rank))
    lines[L_MASK, l] |= 1 << rank
    if lines[L_N, l] == 0:
        lines[L_SUIT, l] = suit
    elif lines[L_SUIT, l] != suit:
        lines[L_SUIT, l] = MIXED
    lines[L_N, l] += 1


@njit(cache=True)
def encode_hand_kernel(cards, is_column, left):
    """``encode_hand`` for ``cards`` (int8, ``-1`` skipped) and ``left`` = int64[17]
    undealt cards per rank then per suit."""
    lines = np.zeros((5, 10), dtype=np.int64)
    lines[L_SUIT, :] = -1
    l = 5 if is_column else 0
    for i in range(cards.shape[0]):
        c = cards[i]
        if c >= 0:
            _add_to_line(lines, l, c % 13, c // 13)
    return _line_code(lines, l, left)


# -- kernels: positions and the OG decision -----------------------------------------------

@njit(cache=True, inline="always")
def _setup(grid, lines, left, empties):
    """Fill line and deck states from ``grid``; return the number of empty cells
    (listed in ``empties``)."""
    for l in range(10):
        lines[L_N, l] = 0
        lines[L_COUNTS, l] = 0
        lines[L_MASK, l] = 0
        lines[L_SUIT, l] = -1
        lines[L_SHAPE, l] = 0
    for r in range(13):
        left[r] = 4
    for s in range(4):
        left[SUIT_LEFT + s] = 13
    n_empty = np.int64(0)  # not a literal 0: numba compiled _play_out for that type too
    for cell in range(25):
        c = grid[cell]
        if c < 0:
            empties[n_empty] = cell
            n_empty += 1
        else:
            rank = c % 13
            suit = c // 13
            _add_to_line(lines, cell // 5, rank, suit)
            _add_to_line(lines, 5 + cell % 5, rank, suit)
            left[rank] -= 1
            left[SUIT_LEFT + suit] -= 1
    return n_empty


@njit(cache=True, inline="always")
def _line_gains(lines, left, rank, suit, utilities, gains):
    """``gains[l]``: change in line ``l``'s utility if the card joins it."""
    for l in range(10):
        if lines[L_N, l] < 5:
            gains[l] = utilities[_line_code_with(lines, l, rank, suit, left)] - utilities[_line_code(lines, l, left)]


@njit(cache=True, inline="always")
def _best_empty(empties, n_empty, gains, state):
    """Index into ``empties`` of the cell with the largest row + column gain; ties
    are broken uniformly at random (reservoir sampling), so no cell is favoured."""
    best = -np.inf
    best_i = 0
    ties = 0
    for i in range(n_empty):
        cell = empties[i]
        v = gains[cell // 5] + gains[5 + cell % 5]
        if v > best:
            best = v
            best_i = i
            ties = 1
        elif v == best:
            ties += 1
            if rng_below(state, ties) == 0:
                best_i = i
    return best_i


@njit(cache=True, inline="always")
def _place(grid, lines, empties, n_empty, i, card):
    cell = empties[i]
    grid[cell] = card
    _add_to_line(lines, cell // 5, card % 13, card // 13)
    _add_to_line(lines, 5 + cell % 5, card % 13, card // 13)
    empties[i] = empties[n_empty - 1]
    return n_empty - 1


@njit(cache=True, inline="always")
def _final_score(lines, points):
    total = 0
    for l in range(10):
        total += points[classify_packed(lines[L_N, l], lines[L_COUNTS, l], lines[L_MASK, l],
                                         lines[L_SUIT, l] != MIXED)]
    return total


@njit(cache=True, inline="always")
def _og_scratch():
    """Scratch arrays of one OG game: per-line patterns, deck context, empty cells,
    the gain of each line and the patterns before a move."""
    return (np.empty((5, 10), dtype=np.int64), np.empty(17, dtype=np.int64), np.empty(25, dtype=np.int64),
            np.zeros(10, dtype=np.float64), np.empty(10, dtype=np.int64))


@njit(cache=True)
def og_values(grid, card, utilities):
    """OG's value of placing ``card`` in each cell (``-inf`` where occupied)."""
    lines, left, empties, gains, _ = _og_scratch()
    n_empty = _setup(grid, lines, left, empties)
    rank = card % 13
    suit = card // 13
    left[rank] -= 1
    left[SUIT_LEFT + suit] -= 1
    _line_gains(lines, left, rank, suit, utilities, gains)
    values = np.full(25, -np.inf)
    for i in range(n_empty):
        cell = empties[i]
        values[cell] = gains[cell // 5] + gains[5 + cell % 5]
    return values


@njit(cache=True, inline="always")
def _lines_utility(lines, left, utilities):
    """The sum of the utilities of the ten lines' patterns (OG's estimate of the final score)."""
    total = 0.0
    for l in range(10):
        total += utilities[_line_code(lines, l, left)]
    return total


@njit(cache=True)
def grid_utility(grid, card, utilities):
    """The sum of the utilities of the grid's ten line patterns (complete lines
    included): OG's estimate of the final score. ``card`` (or ``-1``) is a card in
    hand, which the deck context counts as seen."""
    lines, left, empties, _, _ = _og_scratch()
    _setup(grid, lines, left, empties)
    if card >= 0:
        left[card % 13] -= 1
        left[SUIT_LEFT + card // 13] -= 1
    return _lines_utility(lines, left, utilities)


# -- kernels: complete games -----------------------------------------------------------------

@njit(cache=True)  # not inlined: compiled once for its five callers, not in each
def _play_out(grid, deck, n_deal, lines, left, empties, n_empty, utilities, points, gains, before, state,
              counts, explore_c, log_total, record):
    """Place ``deck[:n_deal]`` in order by OG and return the final score. With a
    ``record`` of shape (n_deal + 1, 10), row 0 holds each line's pattern before the
    first move and row t + 1 its pattern after move t (the card of move t no longer
    undealt): the patterns a line passes through.

    A line's pattern only changes when a card joins it, or when the card drawn is of
    one of its ranks or of its flush suit (its deck context): only those are
    re-encoded, which halves the work of a move."""
    for l in range(10):
        before[l] = _line_code(lines, l, left)
    if record.shape[0] > 0:
        record[0, :] = before
    for t in range(n_deal):
        card = deck[t]
        rank = card % 13
        suit = card // 13
        left[rank] -= 1
        left[SUIT_LEFT + suit] -= 1
        for l in range(10):
            n = lines[L_N, l]
            if 0 < n < 5 and (((lines[L_MASK, l] >> rank) & 1) != 0 or lines[L_SUIT, l] == suit):
                before[l] = _line_code(lines, l, left)
        for l in range(10):
            if lines[L_N, l] < 5:
                after = _line_code_with(lines, l, rank, suit, left)
                g = utilities[after] - utilities[before[l]]
                if explore_c > 0.0:
                    # UCB1's bonus; visits + 1 keeps unseen patterns finite, so that
                    # exploration stays a nudge instead of a forced move.
                    g += explore_c * np.sqrt(log_total / (counts[after] + 1))
                gains[l] = g
        i = _best_empty(empties, n_empty, gains, state)
        cell = empties[i]
        n_empty = _place(grid, lines, empties, n_empty, i, card)
        before[cell // 5] = _line_code(lines, cell // 5, left)
        before[5 + cell % 5] = _line_code(lines, 5 + cell % 5, left)
        if record.shape[0] > 0:
            record[t + 1, :] = before
    return _final_score(lines, points)


@njit(cache=True, nogil=True)
def og_games(utilities, points, n_games, seed):
    """Scores of ``n_games`` OG games from an empty grid, each on a fresh shuffle."""
    state = rng_seed(seed)
    deck = np.arange(52).astype(np.int8)
    grid = np.empty(25, dtype=np.int8)
    lines, left, empties, gains, before = _og_scratch()
    no_counts = np.zeros(0, dtype=np.int64)
    no_record = np.zeros((0, 10), dtype=np.int64)
    scores = np.empty(n_games, dtype=np.int64)
    for g in range(n_games):
        grid[:] = -1
        n_empty = _setup(grid, lines, left, empties)
        shuffle_prefix(state, deck, 0, 25)
        scores[g] = _play_out(grid, deck, n_empty, lines, left, empties, n_empty, utilities, points, gains, before,
                              state, no_counts, 0.0, 0.0, no_record)
    return scores


@njit(cache=True)
def og_games_from_deals(utilities, points, deals, seed):
    """Scores of OG games on given deals (``int8[n, >=25]``, dealt in column order);
    ``seed`` only breaks ties."""
    state = rng_seed(seed)
    grid = np.empty(25, dtype=np.int8)
    lines, left, empties, gains, before = _og_scratch()
    no_counts = np.zeros(0, dtype=np.int64)
    no_record = np.zeros((0, 10), dtype=np.int64)
    scores = np.empty(deals.shape[0], dtype=np.int64)
    for g in range(deals.shape[0]):
        grid[:] = -1
        n_empty = _setup(grid, lines, left, empties)
        scores[g] = _play_out(grid, deals[g], n_empty, lines, left, empties, n_empty, utilities, points, gains, before,
                              state, no_counts, 0.0, 0.0, no_record)
    return scores


@njit(cache=True, inline="always")
def _unseen(grid, out):
    """Cards not on ``grid`` into ``out``; return how many."""
    undealt = np.empty(52, dtype=np.uint8)
    rank_und = np.empty(13, dtype=np.int64)
    suit_und = np.empty(4, dtype=np.int64)
    undealt_counts(grid, -1, rank_und, suit_und, undealt)
    k = 0
    for c in range(52):
        if undealt[c]:
            out[k] = c
            k += 1
    return k


@njit(cache=True, inline="always")
def _playout_scratch(grid):
    """What OG playouts from ``grid`` work in: the cards not on it (a deck to shuffle)
    and how many, a grid to play on, an OG game's scratch arrays, and the empty visit
    counts and pattern record of a game that neither explores nor records."""
    deck = np.empty(52, dtype=np.int8)
    n_unseen = _unseen(grid, deck)
    lines, left, empties, gains, before = _og_scratch()
    return (deck, n_unseen, np.empty(25, dtype=np.int8), lines, left, empties, gains, before,
            np.zeros(0, dtype=np.int64), np.zeros((0, 10), dtype=np.int64))


N_CHUNKS = 8  # playouts are split in this many independently seeded chunks: results do
# not depend on how many threads run them


@njit(cache=True, parallel=True)
def og_playouts(grid, n, seed, utilities, points):
    """``int64[n]``: final scores of OG completions of ``grid``, each with a fresh
    shuffle of the cards not on it."""
    scores = np.empty(n, dtype=np.int64)
    per = (n + N_CHUNKS - 1) // N_CHUNKS
    for k in prange(N_CHUNKS):
        state = rng_seed(seed * 1000003 + k)
        deck, n_unseen, g, lines, left, empties, gains, before, no_counts, no_record = _playout_scratch(grid)
        for j in range(k * per, min(n, (k + 1) * per)):
            g[:] = grid
            n_empty = _setup(g, lines, left, empties)
            shuffle_prefix(state, deck[:n_unseen], 0, n_empty)
            scores[j] = _play_out(g, deck, n_empty, lines, left, empties, n_empty, utilities, points,
                                  gains, before, state, no_counts, 0.0, 0.0, no_record)
    return scores


@njit(cache=True, parallel=True)
def og_placement_playouts(grid, card, cells, n, seed, utilities, points, paired):
    """``int64[len(cells), n]``: for each cell, final scores of ``n`` OG completions
    after placing ``card`` there, each with a fresh shuffle of the unseen cards.
    With ``paired``, playout j of every cell deals the same shuffle (common random
    numbers: cells are compared on the same futures, not on luck).
    The work is interleaved over cells so every chunk (thread) costs about the same."""
    n_cells = cells.shape[0]
    total = n_cells * n
    scores = np.empty((n_cells, n), dtype=np.int64)
    per = (total + N_CHUNKS - 1) // N_CHUNKS
    for k in prange(N_CHUNKS):
        state = rng_seed(seed * 1000003 + k)
        g = np.empty(25, dtype=np.int8)
        g[:] = grid
        g[cells[0]] = card  # any cell: only which cards are unseen matters here
        deck = np.empty(52, dtype=np.int8)
        n_unseen = _unseen(g, deck)
        lines, left, empties, gains, before = _og_scratch()
        no_counts = np.zeros(0, dtype=np.int64)
        no_record = np.zeros((0, 10), dtype=np.int64)
        for task in range(k * per, min(total, (k + 1) * per)):
            ci = task % n_cells
            g[:] = grid
            g[cells[ci]] = card
            n_empty = _setup(g, lines, left, empties)
            if paired:
                state = rng_seed(seed * 1000003 + N_CHUNKS + task // n_cells)
                _unseen(g, deck)
            shuffle_prefix(state, deck[:n_unseen], 0, n_empty)
            scores[ci, task // n_cells] = _play_out(g, deck, n_empty, lines, left, empties, n_empty,
                                                    utilities, points, gains, before, state, no_counts, 0.0, 0.0,
                                                    no_record)
    return scores


@njit(cache=True, nogil=True)
def og_limited_playouts(grid, n, depth, seed, utilities, points):
    """``float64[n]``: ``n`` games that each deal ``depth`` more cards (all, if fewer are
    left) from a fresh shuffle of the cards not on ``grid``, place them by OG and end
    with the exact score of a full grid or the summed utilities of the ten line
    patterns of a partial one (:func:`grid_utility`).

    Common random numbers: the deals come from one generator and OG's ties from
    another, so grids with the same cards on them are dealt the same cards in the same
    order for the same ``seed`` whatever the ties broke. Releases the GIL, so a search
    can run its share of playouts on each core."""
    deal_state = rng_seed(seed)
    tie_state = rng_seed(seed ^ 0x5DEECE66D)
    deck, n_unseen, g, lines, left, empties, gains, before, no_counts, no_record = _playout_scratch(grid)
    out = np.empty(n)
    for j in range(n):
        g[:] = grid
        n_empty = _setup(g, lines, left, empties)
        moves = min(depth, n_empty)
        shuffle_prefix(deal_state, deck[:n_unseen], 0, moves)
        score = _play_out(g, deck, moves, lines, left, empties, n_empty, utilities, points, gains, before,
                          tie_state, no_counts, 0.0, 0.0, no_record)
        if moves == n_empty:
            out[j] = score
        else:
            out[j] = _lines_utility(lines, left, utilities)
    return out


# -- kernels: learning -------------------------------------------------------------------------

@njit(cache=True, nogil=True)
def train_games(utilities, counts, play_utilities, points, n_games, seed, ucb_every, ucb_c, games_before):
    """BeeMo's training phase: play ``n_games`` games and, after each, credit every
    pattern each line passed through with that line's final points (running averages
    in ``utilities``, visits in ``counts``).

    A line's pattern is recorded after every move, so it also changes when the card
    dealt was one of its ranks or of its suit and went elsewhere; the pattern it had
    with that card in hand is not credited when the card joined it. So the utility OG
    subtracts (the line before the card) is the value of the line when the card goes
    elsewhere, and OG's difference is the gain of placing the card there. (Crediting
    that before-pattern as well cost about 2 points of American score.)

    Games are played by OG on
    ``play_utilities``: pass ``utilities`` itself for the feedback loop (each game
    uses the averages of all games before it), or a frozen copy for no feedback.
    Every ``ucb_every``-th game (0: never) adds the UCB1 bonus ``ucb_c *
    sqrt(ln T / (visits + 1))`` to after-patterns, T the games played in the phase
    (``games_before`` of them in earlier calls). Returns the games' scores."""
    state = rng_seed(seed)
    deck = np.arange(52).astype(np.int8)
    grid = np.empty(25, dtype=np.int8)
    lines, left, empties, gains, before = _og_scratch()
    record = np.empty((26, 10), dtype=np.int64)
    scores = np.empty(n_games, dtype=np.int64)
    for g in range(n_games):
        played = games_before + g
        explore = ucb_c if ucb_every > 0 and played % ucb_every == ucb_every - 1 else 0.0
        grid[:] = -1
        n_empty = _setup(grid, lines, left, empties)
        shuffle_prefix(state, deck, 0, 25)
        scores[g] = _play_out(grid, deck, n_empty, lines, left, empties, n_empty, play_utilities, points,
                              gains, before, state, counts, explore, np.log(played + 1.0), record)
        for l in range(10):
            final = points[classify_packed(5, lines[L_COUNTS, l], lines[L_MASK, l],
                                            lines[L_SUIT, l] != MIXED)]
            previous = -1
            for t in range(26):
                code = record[t, l]
                if code != previous:  # each pattern a line passed through, once
                    previous = code
                    counts[code] += 1
                    utilities[code] += (final - utilities[code]) / counts[code]
    return scores
