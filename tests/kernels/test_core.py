import itertools

import numpy as np

from pokersquares import AMERICAN, BRITISH, Grid
from pokersquares.hands import classify
from pokersquares.kernels import classify_batch, classify_cards, line_scores, random_games, score_grid


def test_batch_classification_matches_reference_on_all_hands():
    hands = np.array(list(itertools.combinations(range(52), 5)), dtype=np.int8)
    ids = classify_batch(hands)
    assert np.bincount(ids, minlength=10).tolist() == [
        1302540, 1098240, 123552, 54912, 10200, 5108, 3744, 624, 36, 4]
    sample = hands[np.random.default_rng(0).choice(len(hands), 20000, replace=False)]
    assert classify_batch(sample).tolist() == [int(classify(h)) for h in sample.tolist()]


def test_partial_hands_match_reference():
    rng = np.random.default_rng(1)
    for _ in range(3000):
        n = int(rng.integers(0, 6))
        cards = rng.permutation(52)[:n]
        padded = np.full(5, -1, dtype=np.int8)
        padded[rng.permutation(5)[:n]] = cards
        assert classify_cards(padded) == classify(cards.tolist())


def test_grid_scores_match_reference():
    rng = np.random.default_rng(2)
    for points in (AMERICAN, BRITISH):
        pts = np.array(points.points, dtype=np.int64)
        for _ in range(300):
            grid = np.full(25, -1, dtype=np.int8)
            n = int(rng.integers(0, 26))
            grid[rng.permutation(25)[:n]] = rng.permutation(52)[:n]
            ref = Grid(grid.tolist())
            assert score_grid(grid, pts) == ref.score(points)
            assert line_scores(grid, pts).tolist() == ref.hand_scores(points)


def test_random_games_are_reproducible_and_near_the_known_mean():
    pts = np.array(AMERICAN.points, dtype=np.int64)
    a, b = random_games(20000, 7, pts), random_games(20000, 7, pts)
    assert (a == b).all()
    # random play: mean 14.4, sd 7.6 (challenge slides); 5 standard errors of slack
    assert abs(a.mean() - 14.4) < 5 * 7.6 / np.sqrt(len(a))


def test_undealt_counts_match_a_plain_set_of_the_cards_off_the_grid():
    """The one undealt-card routine (narl, possibility and patterns use it) against a
    plain-Python set difference."""
    from pokersquares.kernels.core import undealt_counts

    rng = np.random.default_rng(3)
    undealt = np.empty(52, dtype=np.uint8)
    rank_und = np.empty(13, dtype=np.int64)
    suit_und = np.empty(4, dtype=np.int64)
    for _ in range(500):
        n = int(rng.integers(0, 26))
        cards = rng.permutation(52)
        grid = np.full(25, -1, dtype=np.int8)
        grid[rng.permutation(25)[:n]] = cards[:n]
        card = int(cards[n]) if n < 25 and rng.random() < 0.7 else -1
        left = set(range(52)) - set(cards[:n].tolist()) - {card}
        assert undealt_counts(grid, card, rank_und, suit_und, undealt) == n
        assert set(np.flatnonzero(undealt).tolist()) == left
        assert rank_und.tolist() == [sum(1 for c in left if c % 13 == r) for r in range(13)]
        assert suit_und.tolist() == [sum(1 for c in left if c // 13 == s) for s in range(4)]
