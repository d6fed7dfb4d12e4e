import numpy as np
import pytest

from pokersquares.cards import parse_cards
from pokersquares.kernels import patterns as kp
from pokersquares.kernels.core import classify_cards, score_grid
from pokersquares.points import AMERICAN

AMERICAN_POINTS = np.array(AMERICAN.points, dtype=np.int64)


def deck_left(*seen: list[int]) -> tuple[list[int], list[int]]:
    rank_left, suit_left = [4] * 13, [13] * 4
    for cards in seen:
        for c in cards:
            rank_left[c % 13] -= 1
            suit_left[c // 13] -= 1
    return rank_left, suit_left


def encode(text: str, column: bool = False, also_seen: str = "") -> int:
    cards = parse_cards(text.split()) if text else []
    other = parse_cards(also_seen.split()) if also_seen else []
    return kp.encode_hand(cards, column, *deck_left(cards, other))


def field(code: int, shift: int, width: int) -> int:
    return (code >> shift) & ((1 << width) - 1)


def test_empty_hands_have_only_the_line_kind():
    assert encode("") == kp.FLUSH_BIT | kp.STRAIGHT_BIT
    assert encode("", column=True) == kp.COLUMN_BIT | kp.FLUSH_BIT | kp.STRAIGHT_BIT


def test_one_card():
    code = encode("5H")
    assert code & kp.FLUSH_BIT and code & kp.STRAIGHT_BIT and not code & kp.COLUMN_BIT
    assert field(code, kp.UNPAIRED_SHIFT, 3) == 1
    assert field(code, kp.PAIRS_SHIFT, 2) == 0
    assert field(code, kp.PRIMARY_SHIFT, 2) == 3  # three fives undealt
    assert field(code, kp.SECONDARY_SHIFT, 2) == 0
    assert field(code, kp.FLUSH_CONTEXT_SHIFT, 2) == 2  # 12 hearts left, 4 needed


def test_counts_of_unpaired_pairs_trips_quads():
    two_pair = encode("5H 5S 9C 9D KH")
    assert field(two_pair, kp.UNPAIRED_SHIFT, 3) == 1 and field(two_pair, kp.PAIRS_SHIFT, 2) == 2
    trips = encode("7C 7D 7H 2S")
    assert trips & kp.TRIPS_BIT and not trips & kp.QUADS_BIT
    assert field(trips, kp.UNPAIRED_SHIFT, 3) == 1 and field(trips, kp.PAIRS_SHIFT, 2) == 0
    quads = encode("7C 7D 7H 7S")
    assert quads & kp.QUADS_BIT and not quads & kp.TRIPS_BIT
    full_house = encode("7C 7D 7H 2S 2C")
    assert full_house & kp.TRIPS_BIT and field(full_house, kp.PAIRS_SHIFT, 2) == 1
    assert not (two_pair | trips | quads) & (kp.FLUSH_BIT | kp.STRAIGHT_BIT)


def test_straight_still_possible():
    assert encode("AH TD KC") & kp.STRAIGHT_BIT  # TJQKA window
    assert encode("AH 2D 5C") & kp.STRAIGHT_BIT  # A2345 window
    assert not encode("AH 6D") & kp.STRAIGHT_BIT
    assert not encode("QH KD 2C") & kp.STRAIGHT_BIT  # no wrap
    assert not encode("5H 5D 6C") & kp.STRAIGHT_BIT  # a pair
    assert encode("2H 3D 4C 5S 6H") & kp.STRAIGHT_BIT  # complete straight
    assert not encode("2H 3D 4C 5S 7H") & kp.STRAIGHT_BIT


def test_flush_bit_and_flush_context():
    assert not encode("2H 3D") & kp.FLUSH_BIT
    assert field(encode("2H 3D"), kp.FLUSH_CONTEXT_SHIFT, 2) == 0
    three_hearts = "2H 3H 9H"
    eight_more = "4H 5H 6H 7H 8H TH JH QH"  # seen elsewhere: 2 hearts left, 2 needed
    assert field(encode(three_hearts, also_seen=eight_more), kp.FLUSH_CONTEXT_SHIFT, 2) == 1
    assert field(encode(three_hearts, also_seen=eight_more + " KH"), kp.FLUSH_CONTEXT_SHIFT, 2) == 0
    assert field(encode(three_hearts, also_seen="4H 5H"), kp.FLUSH_CONTEXT_SHIFT, 2) == 2
    assert encode("2H 3H 9H 4H 5H") & kp.FLUSH_BIT


def test_primary_and_secondary_ranks():
    code = encode("5H 5S 9C", also_seen="9D")
    assert field(code, kp.PRIMARY_SHIFT, 2) == 2  # two fives undealt
    assert field(code, kp.SECONDARY_SHIFT, 2) == 2  # two nines undealt
    # Ties go to the rank with more undealt cards.
    tie = encode("5H 9C", also_seen="5D 5S")
    assert field(tie, kp.PRIMARY_SHIFT, 2) == 3 and field(tie, kp.SECONDARY_SHIFT, 2) == 1
    # More than three ranks: no full house or quads possible, secondary dropped.
    four_ranks = encode("5H 9C JD KS")
    assert field(four_ranks, kp.PRIMARY_SHIFT, 2) == 3 and field(four_ranks, kp.SECONDARY_SHIFT, 2) == 0


def test_complete_hands_carry_no_context():
    code = encode("5H 5S 9C 9D KH", also_seen="5C 9H")
    assert code >> kp.PRIMARY_SHIFT == 0
    assert code == code & kp.SHAPE_MASK


def test_kernel_matches_reference_on_random_hands():
    rng = np.random.default_rng(7)
    for _ in range(5000):
        n = int(rng.integers(0, 6))
        perm = rng.permutation(52)
        cards, other = perm[:n], perm[n:n + int(rng.integers(0, 40))]
        rank_left, suit_left = deck_left(cards.tolist(), other.tolist())
        column = bool(rng.integers(0, 2))
        padded = np.full(5, -1, dtype=np.int8)
        padded[rng.permutation(5)[:n]] = cards
        ref = kp.encode_hand(cards.tolist(), column, rank_left, suit_left)
        assert kp.encode_hand_kernel(padded, column, np.array(rank_left + suit_left, dtype=np.int64)) == ref


def random_grid(rng, filled: int) -> tuple[np.ndarray, int]:
    perm = rng.permutation(52)
    grid = np.full(25, -1, dtype=np.int8)
    grid[rng.permutation(25)[:filled]] = perm[:filled]
    return grid, int(perm[filled])


def test_og_values_match_reference():
    rng = np.random.default_rng(8)
    utilities = rng.normal(0, 10, kp.NUM_PATTERNS)
    for _ in range(200):
        grid, card = random_grid(rng, int(rng.integers(0, 25)))
        np.testing.assert_allclose(kp.og_values(grid, card, utilities),
                                   kp.og_values_reference(grid, card, utilities))


def test_training_credits_complete_hands_with_their_points():
    utilities = np.zeros(kp.NUM_PATTERNS)
    counts = np.zeros(kp.NUM_PATTERNS, dtype=np.int64)
    scores = kp.train_games(utilities, counts, utilities, AMERICAN_POINTS, 300, 1, 3, 5.0, 0)
    assert len(scores) == 300 and scores.min() >= 0
    # A complete hand's pattern fixes its points (royal flushes aside): the averages are exact.
    one_pair_row = kp.encode_hand(parse_cards("5H 5S 9C JD KH".split()), False, [4] * 13, [13] * 4)
    assert counts[one_pair_row] > 0 and utilities[one_pair_row] == pytest.approx(2.0)
    high_card_col = kp.encode_hand(parse_cards("2H 5S 9C JD KH".split()), True, [4] * 13, [13] * 4)
    assert counts[high_card_col] > 0 and utilities[high_card_col] == pytest.approx(0.0)
    # Empty lines are credited once per line per game.
    assert counts[kp.FLUSH_BIT | kp.STRAIGHT_BIT] == 300 * 5


def test_og_games_are_reproducible_and_beat_random_play_after_training():
    utilities = np.zeros(kp.NUM_PATTERNS)
    counts = np.zeros(kp.NUM_PATTERNS, dtype=np.int64)
    untrained = kp.og_games(utilities, AMERICAN_POINTS, 2000, 3)
    kp.train_games(utilities, counts, utilities, AMERICAN_POINTS, 3000, 2, 0, 0.0, 0)
    trained = kp.og_games(utilities, AMERICAN_POINTS, 2000, 3)
    assert np.array_equal(trained, kp.og_games(utilities, AMERICAN_POINTS, 2000, 3))
    # Fixed work (seeds and game counts): untrained 14.43 (SE 0.17, as random play: all
    # utilities 0, every tie broken at random), trained 112.74 (SE 0.69) measured.
    # Broken on purpose: crediting a pattern at every step instead of once per line
    # 88.4, a constant step of 1/10 instead of the running average 100.0, final points
    # that ignore the flush 80.8, a card's column read from a row 36.0.
    assert untrained.mean() < 16 and trained.mean() > 105


def test_og_games_from_deals_score_the_cards_dealt():
    utilities = np.zeros(kp.NUM_PATTERNS)
    only_pairs = np.array([0, 1, 0, 0, 0, 0, 0, 0, 0, 0], dtype=np.int64)
    deals = np.array([np.random.default_rng(i).permutation(52)[:25] for i in range(50)], dtype=np.int8)
    scores = kp.og_games_from_deals(utilities, only_pairs, deals, 0)
    assert scores.min() >= 0 and scores.max() <= 10


def test_playouts_complete_the_grid_from_its_unseen_cards():
    rng = np.random.default_rng(9)
    utilities = rng.normal(0, 1, kp.NUM_PATTERNS)
    grid, card = random_grid(rng, 20)
    a = kp.og_playouts(grid, 64, 5, utilities, AMERICAN_POINTS)
    assert a.shape == (64,) and np.array_equal(a, kp.og_playouts(grid, 64, 5, utilities, AMERICAN_POINTS))
    cells = np.flatnonzero(grid < 0)
    b = kp.og_placement_playouts(grid, card, cells, 10, 5, utilities, AMERICAN_POINTS, False)
    assert b.shape == (len(cells), 10) and b.min() >= 0
    # One empty cell left: every playout is the same, exactly scored game.
    full, last = random_grid(rng, 24)
    empty = int(np.flatnonzero(full < 0)[0])
    scores = kp.og_placement_playouts(full, last, np.array([empty]), 4, 1, utilities, AMERICAN_POINTS, True)
    done = full.copy()
    done[empty] = last
    rows = done.reshape(5, 5)
    expected = sum(AMERICAN_POINTS[classify_cards(line)] for line in [*rows, *rows.T])
    assert scores.tolist() == [[int(expected)] * 4]


def test_paired_playouts_deal_the_same_futures_after_every_placement():
    rng = np.random.default_rng(10)
    utilities = rng.normal(0, 1, kp.NUM_PATTERNS)
    grid, card = random_grid(rng, 12)
    a, b, c = np.flatnonzero(grid < 0)[:3]
    first = kp.og_placement_playouts(grid, card, np.array([a, b]), 40, 3, utilities, AMERICAN_POINTS, True)
    second = kp.og_placement_playouts(grid, card, np.array([c, a]), 40, 3, utilities, AMERICAN_POINTS, True)
    assert np.array_equal(first[0], second[1])  # cell a's playouts do not depend on the other cells
    unpaired = kp.og_placement_playouts(grid, card, np.array([c, a]), 40, 3, utilities, AMERICAN_POINTS, False)
    assert not np.array_equal(first[0], unpaired[1])


def test_whole_og_games_match_the_reference_decision_by_decision():
    """The kernel keeps line patterns up to date incrementally during a game (only
    lines holding the drawn card's rank or suit are re-encoded); the reference encodes
    every line afresh for every decision. Lines in the same state tie (two empty
    columns), and the kernel breaks ties at random: the reference replays its
    tie-breaking (reservoir sampling over its list of empty cells, the same
    generator), so the same deals must give the same grids."""
    from pokersquares.kernels.mcts import _ReferenceRng

    rng = np.random.default_rng(21)
    utilities = rng.normal(0, 10, kp.NUM_PATTERNS)
    deals = np.array([rng.permutation(52)[:25] for _ in range(40)], dtype=np.int8)
    scores = kp.og_games_from_deals(utilities, AMERICAN_POINTS, deals, 7)
    ties = _ReferenceRng(7)
    for deal, score in zip(deals, scores):
        grid = np.full(25, -1, dtype=np.int8)
        empties = list(range(25))
        for card in deal:
            values = kp.og_values_reference(grid, int(card), utilities)
            best, best_i, tied = -np.inf, 0, 0
            for i, cell in enumerate(empties):
                if values[cell] > best:
                    best, best_i, tied = values[cell], i, 1
                elif values[cell] == best:
                    tied += 1
                    if ties.below(tied) == 0:
                        best_i = i
            grid[empties[best_i]] = card
            empties[best_i] = empties[-1]
            empties.pop()
        assert score == score_grid(grid, AMERICAN_POINTS)


def test_ucb_bonus_steers_learning_games_to_rarely_seen_patterns():
    """OG on frozen utilities (from 3,000 games) plays much the same games again; the
    UCB1 bonus ``c * sqrt(ln T / (visits + 1))`` on after-patterns pulls it towards
    patterns with few visits, so more distinct patterns get seen. Measured (2,000
    games, c = 10): 240 and 232 patterns on seeds 4 and 5 with the bonus in every game,
    211 and 211 without; without the bonus the two runs are identical."""
    frozen = np.zeros(kp.NUM_PATTERNS)
    kp.train_games(frozen, np.zeros(kp.NUM_PATTERNS, dtype=np.int64), frozen, AMERICAN_POINTS, 3000, 1, 0, 0.0, 0)

    def seen(ucb_every: int) -> int:
        utilities = np.zeros(kp.NUM_PATTERNS)
        counts = np.zeros(kp.NUM_PATTERNS, dtype=np.int64)
        kp.train_games(utilities, counts, frozen.copy(), AMERICAN_POINTS, 2000, 4, ucb_every, 10.0, 0)
        return int((counts > 0).sum())
    assert seen(1) >= seen(0) + 12
