"""The NARL kernels against the plain-Python reference abstraction and learner."""

import re

import numpy as np
import pytest

from pokersquares import AMERICAN, Grid
from pokersquares.cards import parse_card
from pokersquares.evaluators.narl import NarlEvaluator, describe_key, hand_abstraction, size_distribution
from pokersquares.game import LINES
from pokersquares.hands import classify
from pokersquares.kernels import narl as K
from pokersquares.kernels.core import rng_below, rng_next, rng_seed, shuffle_prefix


def _grid(placed: dict[int, str]) -> np.ndarray:
    grid = np.full(25, -1, dtype=np.int8)
    for cell, name in placed.items():
        grid[cell] = parse_card(name)
    return grid


def _kernel_abstraction(grid, line, card=-1):
    rank_und = np.empty(13, dtype=np.int64)
    suit_und = np.empty(4, dtype=np.int64)
    undealt = np.empty(52, dtype=np.uint8)
    n = K.undealt_counts(grid, card, rank_und, suit_und, undealt)
    key, hand = K.line_key(grid, K.LINES_ARRAY[line], -1, n, line >= 5, rank_und, suit_und, undealt)
    return describe_key(key), hand


def _reference_abstraction(grid, line, card=-1):
    on_grid = {int(c) for c in grid if c >= 0}
    undealt = set(range(52)) - on_grid - {card}
    cards = [int(grid[j]) for j in LINES[line] if grid[j] >= 0]
    return hand_abstraction(cards, undealt, len(on_grid), line >= 5)


# Filler cards that touch none of the ranks and suits the hand-built lines below use.
_FILL = ["KC", "KD", "QC", "QD", "JC", "JD", "TC"]
_FILL_CELLS = [6, 7, 8, 11, 12, 13, 16]


def test_paper_example_column():
    # Column 0: 5H 6H 8H; another 5 and 6 dealt, two more hearts dealt; 14 cards in all.
    placed = {0: "5H", 5: "6H", 10: "8H", 1: "5C", 2: "6D", 3: "KH", 4: "QH"}
    placed.update(zip(_FILL_CELLS, _FILL))
    grid = _grid(placed)
    assert (grid >= 0).sum() == 14
    assert _kernel_abstraction(grid, 5)[0] == "14 1(3)1(2)1(2)f(8)s"
    assert _reference_abstraction(grid, 5) == "14 1(3)1(2)1(2)f(8)s"


def test_row_with_a_pair_has_no_straight():
    grid = _grid({0: "5C", 1: "5D", 2: "9S"})
    assert _kernel_abstraction(grid, 0)[0] == "3-2(2)1(3)"


def test_empty_and_complete_lines():
    grid = _grid({0: "5C", 5: "5D", 10: "9S", 15: "9H", 20: "9C"})
    text, hand = _kernel_abstraction(grid, 9)  # column 4, empty
    assert text == "5 "
    text, hand = _kernel_abstraction(grid, 5)  # column 0, full house
    assert text == "complete" and hand == classify([parse_card(c) for c in ("5C", "5D", "9S", "9H", "9C")])


@pytest.mark.parametrize("other_hearts,expected", [(8, "f(3)"), (9, None)])
def test_flush_needs_enough_undealt_cards_of_the_suit(other_hearts, expected):
    # Row 0 holds 2H 3H and needs three more hearts; the other hearts are dealt elsewhere.
    hearts = ["4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH"][:other_hearts]
    grid = _grid({0: "2H", 1: "3H", **dict(zip(range(5, 5 + other_hearts), hearts))})
    text = _kernel_abstraction(grid, 0)[0]
    assert text == _reference_abstraction(grid, 0)
    if expected:
        assert expected in text
    else:
        assert "f" not in text


@pytest.mark.parametrize("nines_dealt,straight", [(4, False), (3, True)])
def test_straight_needs_an_undealt_card_of_each_missing_rank(nines_dealt, straight):
    placed = {0: "5H", 1: "6C", 2: "7D", 3: "8S"}
    others = ["4C", "4D", "4H", "4S"] + ["9C", "9D", "9H", "9S"][:nines_dealt]
    placed.update(zip(range(5, 5 + len(others)), others))
    grid = _grid(placed)
    text = _kernel_abstraction(grid, 0)[0]
    assert text == _reference_abstraction(grid, 0)
    assert ("s" in text) == straight


def test_ace_low_straight():
    assert "s" in _kernel_abstraction(_grid({0: "AH", 1: "2C", 2: "3D"}), 0)[0]
    dealt = {5 + i: name for i, name in enumerate(["4C", "4D", "4H", "4S", "5C", "5D", "5H", "5S"])}
    text = _kernel_abstraction(_grid({0: "AH", 1: "2C", 2: "3D", **dealt}), 0)[0]
    assert "s" not in text


@pytest.mark.parametrize("ace_dealt", [False, True])
def test_royal_flush_needs_the_missing_royal_cards_undealt(ace_dealt):
    placed = {0: "TH", 1: "JH", 2: "QH"}
    if ace_dealt:
        placed[10] = "AH"
    grid = _grid(placed)
    text = _kernel_abstraction(grid, 0)[0]
    assert text == _reference_abstraction(grid, 0)
    assert "f(" in text and "s" in text  # K-high straight flush and straights stay possible
    assert text.endswith("r") != ace_dealt


def test_card_in_hand_counts_as_dealt():
    grid = _grid({0: "TH", 1: "JH", 2: "QH"})
    text, _ = _kernel_abstraction(grid, 0, card=parse_card("KH"))
    assert text == "3-1(3)1(3)1(3)f(9)s"  # KH is dealt: no royal flush in this row
    text, _ = _kernel_abstraction(grid, 0, card=parse_card("QC"))
    assert text == "3-1(3)1(3)1(2)f(10)sr"


def _random_grid(rng, deck):
    grid = np.full(25, -1, dtype=np.int8)
    n = int(rng.integers(0, 25))
    grid[rng.permutation(25)[:n]] = rng.permutation(deck)[:n]
    return grid


def test_kernel_matches_reference_on_random_grids():
    rng = np.random.default_rng(7)
    # Whole decks, and decks of a few suits or high ranks where flushes, straights and
    # royal flushes stay possible more often.
    decks = [np.arange(52), np.arange(26), np.array([s * 13 + r for s in range(4) for r in (0, 9, 10, 11, 12, 8)])]
    checked = set()
    for i in range(1500):
        deck = decks[i % 3]
        grid = _random_grid(rng, deck)
        free = [c for c in range(52) if c not in set(grid.tolist())]
        card = int(rng.choice(free)) if i % 2 else -1
        for line in range(10):
            text, hand = _kernel_abstraction(grid, line, card)
            cards = [int(grid[j]) for j in LINES[line] if grid[j] >= 0]
            assert hand == classify(cards)
            if len(cards) == 5:
                assert text == "complete"
            else:
                assert text == _reference_abstraction(grid, line, card)
                checked.update(re.sub(r"^\d+[- ]|\d\(\d\)|\(\d+\)", "", text))
    assert checked == {"f", "s", "r"}


def test_placement_slots_are_the_table_slots_of_each_afterstates_lines():
    """``_placements`` keeps each line's table slot as it is and with the card, and
    ``afterstate_slots`` gives, for any cell, the ten slots of the grid the card leads
    to: the slot of the plain-Python reference abstraction of each of its lines, -1 for
    a complete line or an abstraction the table does not hold."""
    rng = np.random.default_rng(3)
    narl = NarlEvaluator(games=3000, threads=1)
    narl.prepare(np.array(AMERICAN.points, dtype=np.int64), 0.0, 0)
    points, keys, sums, counts, size_sums, size_counts, use_size = narl._tables()
    slot_of = {describe_key(key): slot for slot, key in enumerate(keys) if key >= 0}
    rank_und, suit_und, undealt, sizes, a, b, slots, out = K._scratch()
    after = np.empty(10, dtype=np.int64)
    seen = {"held": 0, "unknown": 0, "complete": 0}
    for _ in range(200):
        grid = _random_grid(rng, np.arange(52))
        if (grid < 0).sum() == 0:
            continue
        card = int(rng.choice([c for c in range(52) if c not in set(grid.tolist())]))
        n = K.undealt_counts(grid, card, rank_und, suit_und, undealt)
        K._line_sizes(grid, sizes)
        K._placements(grid, card, n + 1, rank_und, suit_und, undealt, sizes, points, keys, sums, counts,
                      size_sums, size_counts, use_size, a, b, slots, out)
        for cell in np.flatnonzero(grid < 0):
            K.afterstate_slots(slots, int(cell), after)
            child = grid.copy()
            child[cell] = card
            for line in range(10):
                if all(child[j] >= 0 for j in LINES[line]):
                    want = -1
                    seen["complete"] += 1
                else:
                    want = slot_of.get(_reference_abstraction(child, line), -1)
                    seen["held" if want >= 0 else "unknown"] += 1
                assert after[line] == want
    assert min(seen.values()) > 100


def test_size_index_counts_line_sizes():
    grid = _grid({0: "AC", 1: "2C"})
    sizes = np.array([sum(grid[j] >= 0 for j in line) for line in LINES], dtype=np.int64)
    assert size_distribution(grid) == "721000"
    assert K.size_index(sizes) == 7 + 2 * 11 + 1 * 121


def test_hash_table_lookup_and_rehash():
    keys, sums, counts, used = K.new_table(64)
    rng = np.random.default_rng(3)
    chosen = rng.choice(1 << 38, 40, replace=False)
    for k in chosen:
        K.rehash(np.array([k]), np.array([float(k % 7)]), np.array([2]), keys, sums, counts, used)
    assert used[0] == 40
    bigger = K.new_table(256)
    K.rehash(keys, sums, counts, *bigger)
    for k in chosen:
        slot = K.lookup(bigger[0], k)
        assert slot >= 0 and bigger[1][slot] == k % 7 and bigger[2][slot] == 2
    assert K.lookup(bigger[0], 1 << 39) == -1


def _reference_random_learning(points, games, seed):
    """The kernel's learning with epsilon 1 (every move random), in plain Python."""
    state = rng_seed(seed)
    table: dict[str, list[float]] = {}
    sizes: dict[str, list[float]] = {}
    for _ in range(games):
        deck = np.arange(52).astype(np.int8)
        shuffle_prefix(state, deck, 0, 25)
        grid = np.full(25, -1, dtype=np.int8)
        seen = []
        for t in range(25):
            rng_next(state)  # the exploration draw
            empty = np.flatnonzero(grid < 0)
            grid[empty[rng_below(state, len(empty))]] = deck[t]
            lines = [None if (grid[list(LINES[L])] >= 0).all() else _reference_abstraction(grid, L)
                     for L in range(10)]
            seen.append((lines, size_distribution(grid)))
        final = Grid(grid.tolist()).hand_scores(points)
        for lines, _ in seen:
            for L, text in enumerate(lines):
                if text is not None:
                    entry = table.setdefault(text, [0.0, 0])
                    entry[0] += final[L]
                    entry[1] += 1
        for lines, dist in seen[:24]:
            est = sum(final[L] if text is None else table[text][0] / table[text][1] for L, text in enumerate(lines))
            entry = sizes.setdefault(dist, [0.0, 0])
            entry[0] += sum(final) - est
            entry[1] += 1
    return table, sizes


def test_table_averages_match_reference_learner():
    ev = NarlEvaluator(epsilon0=1.0, decay=1.0, capacity=1 << 8)  # tiny: the table must grow
    ev.points = np.array(AMERICAN.points, dtype=np.int64)
    ev.reset(seed=11)
    ev.learn(games=12)
    table, sizes = _reference_random_learning(AMERICAN, 12, 11)
    learned = {text: (mean, count) for text, mean, count in ev.table()}
    assert set(learned) == set(table)
    for text, (total, count) in table.items():
        assert learned[text][1] == count
        assert learned[text][0] == pytest.approx(total / count)
    learned_sizes = {text: (mean, count) for text, mean, count in ev.size_table()}
    assert set(learned_sizes) == set(sizes)
    for text, (total, count) in sizes.items():
        assert learned_sizes[text][1] == count
        assert learned_sizes[text][0] == pytest.approx(total / count)


def test_epsilon_decays_geometrically_per_game():
    eps0, decay = 0.5, 0.999975
    state = rng_seed(1)
    keys, sums, counts, used = K.new_table(1 << 14)
    points = np.array(AMERICAN.points, dtype=np.int64)
    played, eps, _ = K.learn_games(40, state, eps0, decay, points, keys, sums, counts, used,
                                   np.zeros(K.SIZE_TABLE_LEN), np.zeros(K.SIZE_TABLE_LEN, dtype=np.int64),
                                   True, 1 << 13)
    assert played == 40
    assert eps == pytest.approx(eps0 * decay ** 40, rel=1e-12)


def test_learning_stops_before_overfilling_the_table():
    state = rng_seed(1)
    keys, sums, counts, used = K.new_table(1 << 10)
    points = np.array(AMERICAN.points, dtype=np.int64)
    played, _, _ = K.learn_games(1000, state, 1.0, 1.0, points, keys, sums, counts, used,
                                 np.zeros(K.SIZE_TABLE_LEN), np.zeros(K.SIZE_TABLE_LEN, dtype=np.int64),
                                 False, 700)
    # A game adds at most 250 entries, so learning stops once the table holds more than
    # 700 - 250 = 450: measured (seed 1, random moves) 4 games and 553 entries, exact for
    # the code. A stop rule that ignored the limit would play on to the 1,000 games or
    # past the table's 1,024 slots.
    assert played == 4 and 450 < used[0] <= 700


def test_an_entry_at_its_horizon_keeps_its_count_and_follows_recent_samples():
    sums, counts = np.zeros(2), np.zeros(2, dtype=np.int64)
    for x in [0.0] * 50 + [10.0] * 50:
        K._credit(sums, counts, 0, x, 10)  # recency-weighted once it holds 10
        K._credit(sums, counts, 1, x, 0)  # plain average
    assert counts[0] == 10 and sums[0] / counts[0] == pytest.approx(10.0 * (1 - 0.9 ** 50))
    assert counts[1] == 100 and sums[1] / counts[1] == pytest.approx(5.0)
    # Pooled learners can leave an entry past its horizon: the next sample rescales it.
    sums[0], counts[0] = 80.0, 40
    K._credit(sums, counts, 0, 12.0, 10)
    assert counts[0] == 10 and sums[0] / counts[0] == pytest.approx(2.0 + (12.0 - 2.0) / 10)


def test_a_horizon_caps_the_counts_and_leaves_rarer_entries_as_plain_learning_has_them():
    # Random play (epsilon 1) does not depend on the table, so both learners see the same games.
    points = np.array(AMERICAN.points, dtype=np.int64)
    tables = []
    for horizon in (0, 30):
        keys, sums, counts, used = K.new_table(1 << 15)
        size_sums, size_counts = np.zeros(K.SIZE_TABLE_LEN), np.zeros(K.SIZE_TABLE_LEN, dtype=np.int64)
        K.learn_games(300, rng_seed(4), 1.0, 1.0, points, keys, sums, counts, used, size_sums, size_counts,
                      True, 1 << 14, horizon)
        tables.append(({int(k): (s, c) for k, s, c in zip(keys, sums, counts) if k != K.NO_KEY},
                       size_counts))
    (plain, plain_sizes), (capped, capped_sizes) = tables
    assert set(plain) == set(capped)
    common = [k for k, (_, c) in plain.items() if c > 30]
    assert common and all(capped[k][1] == 30 for k in common)
    assert any(capped[k][0] / 30 != pytest.approx(plain[k][0] / plain[k][1]) for k in common)
    assert all(capped[k] == plain[k] for k, (_, c) in plain.items() if c <= 30)
    assert capped_sizes.max() == 30 < plain_sizes.max()


def test_pooling_carries_the_change_of_an_entry_that_stayed_at_its_horizon():
    base_keys, base_sums, base_counts, base_used = K.new_table(16)
    slot = K._claim(base_keys, base_used, 77)
    base_sums[slot], base_counts[slot] = 50.0, 10  # at a horizon of 10, mean 5
    helper = (base_keys.copy(), base_sums.copy(), base_counts.copy())
    K._credit(helper[1], helper[2], slot, 15.0, 10)  # mean 5 -> 6, count still 10
    into_keys, into_sums, into_counts, into_used = base_keys.copy(), base_sums.copy(), base_counts.copy(), \
        base_used.copy()
    K.add_new(*helper, base_keys, base_sums, base_counts, into_keys, into_sums, into_counts, into_used)
    assert into_counts[slot] == 10 and into_sums[slot] / into_counts[slot] == pytest.approx(6.0)


def test_rehash_into_a_table_that_holds_the_keys_adds_their_sums_and_counts():
    # Pooling two learners: an entry both hold ends with both sums and both counts.
    a, b = K.new_table(16), K.new_table(16)
    K.rehash(np.array([77, 5]), np.array([6.0, 1.0]), np.array([2, 1]), *a)
    K.rehash(np.array([77, 9]), np.array([9.0, 4.0]), np.array([3, 1]), *b)
    K.rehash(a[0], a[1], a[2], *b)
    assert b[3][0] == 3
    for key, total, count in ((77, 15.0, 5), (5, 1.0, 1), (9, 4.0, 1)):
        slot = K.lookup(b[0], key)
        assert slot >= 0 and b[1][slot] == total and b[2][slot] == count
