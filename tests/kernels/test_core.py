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


def test_shuffle_prefix_draws_each_prefix_position_uniformly_from_the_rest():
    """Fisher-Yates over items[start:]: each of the first ``count`` positions is a uniform
    draw of the items not yet placed (every kernel's deals and playouts come from it), the
    items before ``start`` and the multiset are untouched. 20,800 shuffles of 0..51 in order:
    each card lands in position 0 (and in the prefix's last position) 400 times expected,
    standard deviation 19.8; 5 of them either side."""
    from pokersquares.kernels.core import rng_seed, shuffle_prefix

    state = rng_seed(11)
    n = 20800
    first, last = np.zeros(52, dtype=np.int64), np.zeros(52, dtype=np.int64)
    for _ in range(n):
        items = np.arange(52).astype(np.int8)
        shuffle_prefix(state, items, 0, 25)
        first[items[0]] += 1
        last[items[24]] += 1
    for counts in (first, last):
        assert counts.sum() == n and abs(counts - n / 52).max() < 5 * np.sqrt(n / 52 * 51 / 52), counts
    items = np.arange(52).astype(np.int8)
    shuffle_prefix(state, items, 10, 5)
    assert items[:10].tolist() == list(range(10)) and sorted(items.tolist()) == list(range(52))
    assert items[15:].tolist() != list(range(15, 52)) or items[10:15].tolist() != list(range(10, 15))


def test_random_bit_picks_each_set_bit_uniformly():
    """The random playouts' cell: a uniform set bit of the empty-cell mask, -1 for none."""
    from pokersquares.kernels.core import random_bit, rng_seed

    state = rng_seed(12)
    mask = (1 << 0) | (1 << 7) | (1 << 24)
    picks = [random_bit(state, mask) for _ in range(6000)]
    counts = {b: picks.count(b) for b in set(picks)}
    assert set(counts) == {0, 7, 24}
    assert all(abs(c - 2000) < 5 * np.sqrt(6000 / 3 * 2 / 3) for c in counts.values()), counts
    assert random_bit(state, 1 << 13) == 13 and random_bit(state, 0) == -1


def test_empty_mask_is_the_cells_holding_no_card():
    """Only -1 is empty: card 0 (AC) is a card like any other."""
    from pokersquares.kernels.core import empty_mask

    rng = np.random.default_rng(4)
    for n in (0, 1, 12, 24, 25):
        grid = np.full(25, -1, dtype=np.int8)
        grid[rng.permutation(25)[:n]] = rng.permutation(52)[:n]
        grid[grid == grid.max()] = 0 if n else -1  # card 0 on the grid wherever there is a card
        assert empty_mask(grid) == sum(1 << i for i in range(25) if grid[i] == -1)
    assert empty_mask(np.zeros(25, dtype=np.int8) - 1) == (1 << 25) - 1
    grid = np.full(25, -1, dtype=np.int8)
    grid[3] = 0
    assert empty_mask(grid) == ((1 << 25) - 1) & ~(1 << 3)


def test_random_games_parallel_plays_every_game_in_its_seeded_chunks():
    """``random_games_parallel`` splits the games into ``n_chunks`` chunks of ceil(N / n)
    games, chunk k seeded ``seed * 1000003 + k``: every game is played (none left as the
    uninitialised memory of ``np.empty``). In a subprocess: a test process that ran a
    parallel kernel cannot fork workers that run them (GNU OpenMP)."""
    import json
    import subprocess
    import sys

    code = (
        "import json, numpy as np\n"
        "from pokersquares import AMERICAN\n"
        "from pokersquares.kernels import random_games, random_games_parallel\n"
        "pts = np.array(AMERICAN.points, dtype=np.int64)\n"
        "out = {}\n"
        "for n, chunks in ((10, 3), (7, 7), (5, 2), (2, 4)):\n"
        "    per = -(-n // chunks)\n"
        "    ref = np.concatenate([random_games(min(n, (k + 1) * per) - k * per, 9 * 1000003 + k, pts)\n"
        "                          for k in range(chunks) if k * per < n])\n"
        "    got = random_games_parallel(n, 9, pts, chunks)\n"
        "    out[f'{n}/{chunks}'] = [got.tolist(), ref.tolist()]\n"
        "print(json.dumps(out))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    for key, (got, ref) in json.loads(proc.stdout).items():
        n = int(key.split("/")[0])
        assert len(got) == n and got == ref, key
        assert all(-10 <= s <= 1000 for s in got), key
