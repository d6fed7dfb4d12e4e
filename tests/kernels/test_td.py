"""The TD kernels against the plain-Python reference features, and TD learning's direction."""

import numpy as np
import pytest

from pokersquares import AMERICAN
from pokersquares.cards import parse_card
from pokersquares.evaluators.narl import NarlEvaluator
from pokersquares.evaluators.td import Feature, feature_index, grid_features, line_type
from pokersquares.kernels import td as K
from pokersquares.kernels.core import rng_seed

POINTS = np.array(AMERICAN.points, dtype=np.int64)
NO_TC = (np.empty(0), np.empty(0))  # learn_games' temporal-coherence arrays, off


def _kernel_indices(grid, groups=K.ALL_GROUPS):
    rank_und = np.empty(13, dtype=np.int64)
    suit_und = np.empty(4, dtype=np.int64)
    undealt = np.empty(52, dtype=np.uint8)
    n = K.undealt_counts(grid, -1, rank_und, suit_und, undealt)
    k, fsuit, counts = (np.empty(10, dtype=np.int64) for _ in range(3))
    K.line_states(grid, k, fsuit, counts)
    out = np.empty(K.MAX_ACTIVE, dtype=np.int64)
    und = sum(1 << c for c in range(52) if undealt[c])
    m = K.features(n, k, fsuit, counts, rank_und, suit_und, groups, out, K.empty_mask(grid), und)
    return sorted(out[:m].tolist())


def _random_grids(count, seed):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        grid = np.full(25, -1, dtype=np.int8)
        n = int(rng.integers(0, 26))
        grid[rng.permutation(25)[:n]] = rng.permutation(52)[:n]
        yield grid


def _suited_grids(count, seed):
    """Grids whose cards come from two suits, so that suited lines are common."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        grid = np.full(25, -1, dtype=np.int8)
        n = int(rng.integers(1, 25))
        grid[rng.permutation(25)[:n]] = rng.permutation(26)[:n]
        yield grid


def _few_rank_grids(count, seed):
    """Grids whose cards come from six ranks, so that ranks run out of undealt cards
    (a straight window that needs such a rank cannot be completed)."""
    rng = np.random.default_rng(seed)
    deck = np.array([13 * s + r for s in range(4) for r in (0, 2, 3, 4, 5, 9)])
    for _ in range(count):
        grid = np.full(25, -1, dtype=np.int8)
        n = int(rng.integers(4, 24))
        grid[rng.permutation(25)[:n]] = rng.permutation(deck)[:n]
        yield grid


@pytest.mark.parametrize("groups", [K.ALL_GROUPS, K.GROUP_SIZES, K.GROUP_SUITS, K.GROUP_JOINT, K.GROUP_RANKS,
                                    K.GROUP_DISCARD, K.ALL_GROUPS | K.GROUP_DISCARD, K.GROUP_CROSS,
                                    K.ALL_GROUPS | K.GROUP_DISCARD | K.GROUP_CROSS, K.GROUP_DRAWS,
                                    K.ALL_GROUPS | K.GROUP_DRAWS, K.GROUP_HOMES,
                                    K.ALL_GROUPS | K.GROUP_DRAWS | K.GROUP_HOMES, K.GROUP_PAIRS,
                                    K.ALL_GROUPS | K.GROUP_DRAWS | K.GROUP_PAIRS, K.GROUP_NEEDS,
                                    K.ALL_GROUPS | K.GROUP_DRAWS | K.GROUP_NEEDS])
def test_kernel_features_are_the_reference_features(groups):
    for grid in [*_random_grids(300, 1), *_suited_grids(300, 2), *_few_rank_grids(300, 3)]:
        expected = sorted(feature_index(f) for f in grid_features(grid, groups))
        assert _kernel_indices(grid, groups) == expected


def test_a_hand_built_grid():
    # Row 0: 2H 5H; row 1: 9H; row 2: 2C; column 0: 2H 9H 2C (a pair of twos); column 1: 5H.
    grid = np.full(25, -1, dtype=np.int8)
    for cell, name in {0: "2H", 1: "5H", 5: "9H", 10: "2C"}.items():
        grid[cell] = parse_card(name)
    features = grid_features(grid)
    assert Feature("sizes", (5, 3, 1, 1, 0)) in features   # lines of 0, 1, 2, 3, 4 cards
    assert Feature("suits", (4, 0, 2, 7, 10)) in features   # hearts rows 0 and 1 need 3 + 4; 10 hearts undealt
    assert Feature("suits", (4, 1, 1, 4, 10)) in features   # hearts column 1 needs 4
    assert Feature("suits", (4, 0, 1, 4, 12)) in features   # clubs row 2
    assert Feature("joint", (4, 2, 1, 10)) in features
    assert Feature("ranks", (4, 2, 1, 2, 1)) in features    # twos: rows 0, 2 and column 0 (a pair); 2 undealt
    assert len(features) == 1 + 4 * 3 + 3                   # ranks 2, 5 and 9


def test_straight_draws_tell_an_open_ender_from_a_gutshot():
    # Row 0: 5H 6C 7D 8S (open-ended: a 4 or a 9; 9C is on the grid, 7 outs); row 1:
    # 5D 6D 8C 9C (a gutshot: a 7; 7D is on the grid, 3 outs); columns 0 and 1 hold
    # pairs (no draw).
    grid = np.full(25, -1, dtype=np.int8)
    for cell, name in enumerate(["5H", "6C", "7D", "8S", None, "5D", "6D", "8C", "9C"]):
        if name:
            grid[cell] = parse_card(name)
    draws = grid_features(grid, K.GROUP_DRAWS)
    assert Feature("draws", (8, 0, 4, 2, 7)) in draws
    assert Feature("draws", (8, 0, 4, 1, 3)) in draws
    # Columns 2 (7D 8C) and 3 (8S 9C) draw too, columns 0 and 1 (pairs) and row 2 (empty) do not.
    assert len(draws) == 4
    assert _kernel_indices(grid, K.GROUP_DRAWS) == sorted(feature_index(f) for f in draws)


def test_a_straight_draw_whose_window_is_dealt_out_has_no_windows_or_outs():
    # Row 0: AH KC QD JS needs a ten; all four tens are in row 1.
    grid = np.full(25, -1, dtype=np.int8)
    for cell, name in enumerate(["AH", "KC", "QD", "JS", None, "TH", "TC", "TD", "TS"]):
        if name:
            grid[cell] = parse_card(name)
    assert Feature("draws", (8, 0, 4, 0, 0)) in grid_features(grid, K.GROUP_DRAWS)
    assert _kernel_indices(grid, K.GROUP_DRAWS) == sorted(feature_index(f) for f in grid_features(grid, K.GROUP_DRAWS))
    grid[8] = parse_card("2S")  # one ten undealt again: one window, 1 out
    assert Feature("draws", (8, 0, 4, 1, 1)) in grid_features(grid, K.GROUP_DRAWS)
    assert _kernel_indices(grid, K.GROUP_DRAWS) == sorted(feature_index(f) for f in grid_features(grid, K.GROUP_DRAWS))


def test_a_full_grid_has_no_features():
    grid = np.arange(25, dtype=np.int8)
    assert grid_features(grid) == []
    assert _kernel_indices(grid) == []


def test_residual_sums_the_weights_of_the_active_features():
    theta = np.random.default_rng(3).normal(size=K.N_WEIGHTS)
    for grid in _random_grids(50, 4):
        expected = sum(theta[feature_index(f)] for f in grid_features(grid))
        assert K.residual(grid, theta, K.ALL_GROUPS) == pytest.approx(expected, abs=1e-9)


@pytest.fixture(scope="module")
def table():
    narl = NarlEvaluator(games=3000, threads=1)
    narl.prepare(POINTS, 0.0, 0)
    return narl._tables()


def test_learning_moves_values_toward_the_returns(table):
    """The squared errors of the lambda-returns on the same deals shrink after learning
    (a wrong sign or a missing update does not)."""
    theta = np.zeros(K.N_WEIGHTS)
    _, before = K.learn_games(300, rng_seed(11), 0.0, 0.5, 0.0, *table, theta, K.ALL_GROUPS, False, 0.0, *NO_TC)
    assert not theta.any()  # alpha 0: play only
    K.learn_games(3000, rng_seed(12), 0.01, 0.5, 0.0, *table, theta, K.ALL_GROUPS, False, 0.0, *NO_TC)
    frozen = theta.copy()
    _, after = K.learn_games(300, rng_seed(11), 0.0, 0.5, 0.0, *table, frozen, K.ALL_GROUPS, False, 0.0, *NO_TC)
    assert after < 0.9 * before


@pytest.mark.parametrize("groups", [K.ALL_GROUPS, K.ALL_GROUPS | K.GROUP_DRAWS, K.ALL_GROUPS | K.GROUP_HOMES])
def test_placements_are_the_values_of_the_grids_they_lead_to(table, groups):
    # (with draws, a placement swaps its row's and column's draw weights into a sum
    # taken once: the values must still be those of the afterstates)
    theta = np.random.default_rng(5).normal(size=K.N_WEIGHTS)
    for grid in [*_random_grids(30, 6), *_suited_grids(30, 16)]:
        if (grid >= 0).all():
            continue
        card = int(np.setdiff1d(np.arange(52), grid[grid >= 0])[0])
        values = K.placement_values(grid, card, *table, theta, groups)
        for cell in np.flatnonzero(grid < 0):
            after = grid.copy()
            after[cell] = card
            assert values[cell] == pytest.approx(K.grid_value_td(after, *table, theta, groups), abs=1e-9)


def test_discard_counts_the_empty_cells_of_dead_lines():
    # Row 0: 2H 9C KD (mixed suits, distinct ranks, no straight: dead, 2 empty cells).
    # Row 1: 3C 4D (could still be a straight: alive). Row 2: AS QH (A-10-J-Q-K: alive).
    # Row 3: 7S 7H (a pair: alive). Column 4: KD alone (one card: one suit, alive);
    # column 0: 2H 3C AS 7S (mixed, distinct, A-2-3 fit A-5 but 7 does not: dead, 1 empty);
    # column 1: 9C 4D QH 7H (dead, 1 empty).
    grid = np.full(25, -1, dtype=np.int8)
    for cell, name in {0: "2H", 1: "9C", 4: "KD", 5: "3C", 6: "4D", 10: "AS", 11: "QH", 15: "7S",
                       16: "7H"}.items():
        grid[cell] = parse_card(name)
    (discard,) = [f for f in grid_features(grid, K.GROUP_DISCARD)]
    assert discard.values == (9, 2, 2)
    assert _kernel_indices(grid, K.GROUP_DISCARD) == [feature_index(discard)]


def _grid(cards):
    grid = np.full(25, -1, dtype=np.int8)
    for cell, name in cards.items():
        grid[cell] = parse_card(name)
    return grid


def test_homes_counts_the_undealt_cards_no_empty_cell_wants():
    # Column 0 full (2C..6C), so each row holds one club and every empty cell's row is
    # alive. Rows want clubs and the ranks of the straight windows through their card:
    # A..6, A..7, A..8, A..9 and 2..10. The cards no empty cell wants: the jacks, queens
    # and kings of the other three suits, 9 cards; no cell is free.
    grid = _grid({0: "2C", 5: "3C", 10: "4C", 15: "5C", 20: "6C"})
    (homes,) = grid_features(grid, K.GROUP_HOMES)
    assert homes.values == (5, 9, 0)
    assert _kernel_indices(grid, K.GROUP_HOMES) == [feature_index(homes)]
    # With row 4 empty, its cells in the four empty columns are free (both lines want
    # every card); the cell in column 0 is not (column 0 holds four clubs).
    grid[20] = -1
    (homes,) = grid_features(grid, K.GROUP_HOMES)
    assert homes.values == (4, 0, 4)
    assert _kernel_indices(grid, K.GROUP_HOMES) == [feature_index(homes)]


def test_homes_wants_no_straight_window_a_rank_dealt_out_blocks():
    # Columns 0 and 1 full: row 0 holds 3C 4D, rows 1-4 a five and a six of two suits.
    # Every five is on the grid, so row 0's windows (A-5, 2-6, 3-7) are blocked: it wants
    # only threes and fours. Rows 1-4 want 2..9 (windows 2-6 to 5-9). No cell is free, and
    # the aces and 10..K, 20 undealt cards, have no home (16 if row 0 wanted A..7).
    grid = _grid({0: "3C", 1: "4D", 5: "5C", 6: "6D", 10: "5D", 11: "6H", 15: "5H", 16: "6S", 20: "5S", 21: "6C"})
    (homes,) = grid_features(grid, K.GROUP_HOMES)
    assert homes.values == (10, 20, 0)
    assert _kernel_indices(grid, K.GROUP_HOMES) == [feature_index(homes)]


def test_pairs_types_each_empty_cells_row_and_column_with_the_deck():
    # Row 0: 2H 3H 4H 5H; row 1: 6H 7H 8H 9H TH (full); row 2: JH QH KH AH. Every heart is
    # on the grid, so no suited line can still fill: type 1 + (((k-1)*3 + 1)*5 + 0)*2 + 1
    # (one suit, dead flush; distinct ranks; a straight still achievable with the other
    # suits' cards): 102 for rows 0 and 2, 12 for column 4 (TH alone).
    grid = np.full(25, -1, dtype=np.int8)
    for cell, name in enumerate(["2H", "3H", "4H", "5H", None, "6H", "7H", "8H", "9H", "TH",
                                 "JH", "QH", "KH", "AH"]):
        if name:
            grid[cell] = parse_card(name)
    pairs = [f.values for f in grid_features(grid, K.GROUP_PAIRS)]
    assert pairs.count((13, 12, 102)) == 2  # cells 4 and 14
    assert (13, 0, 12) in pairs  # cell 24: row 4 empty, column 4
    assert len(pairs) == 12
    assert _kernel_indices(grid, K.GROUP_PAIRS) == sorted(feature_index(f) for f in grid_features(grid, K.GROUP_PAIRS))
    # A live suit and a pair: 2C 2D in row 3 (mixed, a pair, no straight) meets column 0
    # (2H 6H JH 2C: mixed, a pair) at nothing empty, but meets column 4 at cell 19.
    grid[15], grid[16] = parse_card("2C"), parse_card("2D")
    pairs = [f.values for f in grid_features(grid, K.GROUP_PAIRS)]
    assert (15, 1 + ((1 * 3 + 0) * 5 + 1) * 2, 12) in [(n, max(a, b), min(a, b)) for n, a, b in pairs]
    # One live suited card: 3C alone in row 4 (type 1 + ((0*3 + 2)*5 + 0)*2 + 1 = 22).
    grid[20] = parse_card("3C")
    assert (16, 12, 22) in [f.values for f in grid_features(grid, K.GROUP_PAIRS)]


def test_needs_counts_the_rows_and_columns_waiting_on_each_rank():
    # Row 0: 5C 6D, row 1: 8H 9S; so column 0: 5C 8H, column 1: 6D 9S. A seven completes a
    # window of all four lines (2-6..5-9 for row 0, 5-9..8-Q for row 1, 4-8 and 5-9 for
    # column 0, 5-9 and 6-T for column 1); a two only row 0's 2-6.
    grid = np.full(25, -1, dtype=np.int8)
    for cell, name in {0: "5C", 1: "6D", 5: "8H", 6: "9S"}.items():
        grid[cell] = parse_card(name)
    seven = [f.values for f in grid_features(grid, K.GROUP_NEEDS) if f.values[1:3] == (2, 2)]
    assert seven == [(4, 2, 2, 4)]
    twos = [f.values for f in grid_features(grid, K.GROUP_NEEDS) if f.values[1:3] == (1, 0)]
    assert (4, 1, 0, 4) in twos
    assert _kernel_indices(grid, K.GROUP_NEEDS) == sorted(
        feature_index(f) for f in grid_features(grid, K.GROUP_NEEDS))
    # 7C joins row 2 and column 0 (5 7 8: waits on a four, a six or a nine): the seven,
    # three left, is waited on by rows 0 and 1 and column 1; the six by rows 1 and 2 and
    # column 0.
    grid[10] = parse_card("7C")
    after = {f.values for f in grid_features(grid, K.GROUP_NEEDS)}
    assert {v for v in after if v[1:3] == (2, 1)} == {(5, 2, 1, 3), (5, 2, 1, 4)}


def test_a_line_types_straight_bit_needs_an_achievable_window():
    line = [parse_card("2C"), parse_card("3D")]  # mixed suits, distinct: 1 + ((1*3 + 0)*5 + 0)*2 + straight
    every = set(range(52)) - set(line)
    assert line_type(line, every) == 32
    no_ace_4_5_6 = {c for c in every if c % 13 not in (0, 3, 4, 5)}  # A-5 and 2-6 both need two of them
    assert line_type(line, no_ace_4_5_6) == 31


def test_cross_names_the_classes_of_each_empty_cells_row_and_column():
    # Rows: 0 2H 5H (one suit: 1); 1 9C 9D (a pair: 2); 2 3C 4D (a straight possible: 3);
    # 3 2S 9H KD (dead: 4); 4 empty (0). Columns: 0 2H 9C 3C 2S and 1 5H 9D 4D 9H (pairs: 2);
    # 2 KD (one suit: 1); 3 and 4 empty (0).
    grid = np.full(25, -1, dtype=np.int8)
    for cell, name in {0: "2H", 1: "5H", 5: "9C", 6: "9D", 10: "3C", 11: "4D", 15: "2S", 16: "9H",
                       17: "KD"}.items():
        grid[cell] = parse_card(name)
    cross = {}
    for f in grid_features(grid, K.GROUP_CROSS):
        cross[f.values[1:]] = cross.get(f.values[1:], 0) + 1
    # The 16 empty cells: rows 0, 1, 2 meet columns 2, 3, 4; row 3 meets 3, 4; row 4 meets all five.
    assert cross == {(1, 1): 1, (1, 0): 2, (2, 1): 1, (2, 0): 2, (3, 1): 1, (3, 0): 2, (4, 0): 2,
                     (0, 2): 2, (0, 1): 1, (0, 0): 2}
    assert all(f.values[0] == 9 for f in grid_features(grid, K.GROUP_CROSS))
    assert _kernel_indices(grid, K.GROUP_CROSS) == sorted(feature_index(f) for f in grid_features(grid, K.GROUP_CROSS))


def test_cross_placements_and_learning_see_the_placed_cell_filled(table):
    """Placement values with ``cross`` are the values of the grids they lead to (a kernel
    that kept the placed cell empty would count one cross feature too many)."""
    groups = K.ALL_GROUPS | K.GROUP_CROSS
    theta = np.random.default_rng(8).normal(size=K.N_WEIGHTS)
    for grid in _random_grids(30, 9):
        if (grid >= 0).all():
            continue
        card = int(np.setdiff1d(np.arange(52), grid[grid >= 0])[0])
        values = K.placement_values(grid, card, *table, theta, groups)
        for cell in np.flatnonzero(grid < 0):
            after = grid.copy()
            after[cell] = card
            assert values[cell] == pytest.approx(K.grid_value_td(after, *table, theta, groups), abs=1e-9)
    theta = np.zeros(K.N_WEIGHTS)
    _, before = K.learn_games(300, rng_seed(11), 0.0, 0.5, 0.0, *table, theta, groups, False, 0.0, *NO_TC)
    K.learn_games(3000, rng_seed(12), 0.01, 0.5, 0.0, *table, theta, groups, False, 0.0, *NO_TC)
    assert theta[K.OFF_CROSS:].any()
    _, after = K.learn_games(300, rng_seed(11), 0.0, 0.5, 0.0, *table, theta.copy(), groups, False, 0.0, *NO_TC)
    assert after < 0.9 * before


def _replay(table, theta, seed):
    """The game ``learn_games`` plays from ``rng_seed(seed)`` (epsilon 0: greedy on table +
    residual), replayed in Python: the grid after each placement."""
    from pokersquares.kernels.core import shuffle_prefix

    deck = np.arange(52)
    shuffle_prefix(rng_seed(seed), deck, 0, 25)
    grid = np.full(25, -1, dtype=np.int8)
    grids = []
    for t in range(25):
        values = K.placement_values(grid, int(deck[t]), *table, theta, K.ALL_GROUPS)
        grid[int(np.argmax(values))] = deck[t]
        grids.append(grid.copy())
    return grids


def test_table_updates_credit_the_lines_the_table_holds_with_their_final_points(table):
    """One greedy TD game with ``update_table`` adds, to each table slot, the final
    points of every line of its 24 non-final afterstates whose abstraction (the plain-
    Python reference) is that slot's key, and claims no new key; without it the table
    does not change."""
    from pokersquares.evaluators.narl import describe_key, hand_abstraction
    from pokersquares.game import LINES
    from pokersquares.hands import classify

    points, keys, sums, counts, size_sums, size_counts, use_size = table
    theta = np.random.default_rng(13).normal(scale=0.5, size=K.N_WEIGHTS)
    own = (points, keys.copy(), sums.copy(), counts.copy(), size_sums.copy(), size_counts.copy(), use_size)
    K.learn_games(1, rng_seed(21), 0.0, 0.5, 0.0, *own, theta, K.ALL_GROUPS, False, 0.0, *NO_TC)
    assert np.array_equal(own[2], sums) and np.array_equal(own[3], counts)

    K.learn_games(1, rng_seed(21), 0.0, 0.5, 0.0, *own, theta, K.ALL_GROUPS, True, 0.0, *NO_TC)
    assert np.array_equal(own[1], keys)  # no key claimed
    slot_of = {describe_key(key): slot for slot, key in enumerate(keys) if key >= 0}
    grids = _replay(table, theta, 21)
    final = grids[-1]
    line_points = [int(points[classify([int(final[j]) for j in LINES[L]])]) for L in range(10)]
    want_sums, want_counts = np.zeros_like(sums), np.zeros_like(counts)
    for grid in grids[:24]:
        on_grid = {int(c) for c in grid if c >= 0}
        for L in range(10):
            cards = [int(grid[j]) for j in LINES[L] if grid[j] >= 0]
            if len(cards) == 5:
                continue
            slot = slot_of.get(hand_abstraction(cards, set(range(52)) - on_grid, len(on_grid), L >= 5))
            if slot is not None:
                want_sums[slot] += line_points[L]
                want_counts[slot] += 1
    assert want_counts.sum() > 100  # most lines of a 3,000-game table's afterstates are known
    assert np.array_equal(own[3] - counts, want_counts)
    assert np.allclose(own[2] - sums, want_sums)


def test_a_table_step_moves_the_tables_values_toward_the_returns_and_keeps_its_counts(table):
    """With ``table_step`` the line abstractions' values are TD-learned too: a table
    whose every value is 3 points too high errs less on the same deals after learning
    with the residual frozen (alpha 0); its counts and keys stay as they were."""
    points, keys, sums, counts, size_sums, size_counts, use_size = table
    biased = (points, keys.copy(), sums + 3.0 * counts, counts.copy(), size_sums.copy(), size_counts.copy(),
              use_size)
    theta = np.zeros(K.N_WEIGHTS)
    _, before = K.learn_games(300, rng_seed(11), 0.0, 0.5, 0.0, *biased, theta, K.ALL_GROUPS, False, 0.0, *NO_TC)
    K.learn_games(2000, rng_seed(12), 0.0, 0.5, 0.0, *biased, theta, K.ALL_GROUPS, False, 0.01, *NO_TC)
    _, after = K.learn_games(300, rng_seed(11), 0.0, 0.5, 0.0, *biased, theta, K.ALL_GROUPS, False, 0.0, *NO_TC)
    assert not theta.any()
    assert np.array_equal(biased[1], keys) and np.array_equal(biased[3], counts)
    assert after < 0.8 * before


def test_temporal_coherence_scales_each_weights_step_by_its_errors_agreement(table):
    """TC learning: a weight's step is ``alpha`` times ``|E| / A`` (its signed and
    absolute error sums). Sums far larger than any error keep each weight's rate fixed
    for the whole run: where the errors agreed (``|E| = A``) TC learns exactly as the
    constant step, where they cancelled (``E = 0``) nothing moves, and where they agreed
    against the current error (``E = -A``) the rate is still 1 (a signed ratio would
    step backwards)."""
    huge = 1e300
    constant = np.zeros(K.N_WEIGHTS)
    K.learn_games(200, rng_seed(12), 0.01, 0.5, 0.0, *table, constant, K.ALL_GROUPS, False, 0.0, *NO_TC)
    assert constant.any()
    for e_sum, expected in ((huge, constant), (-huge, constant), (0.0, np.zeros(K.N_WEIGHTS))):
        theta = np.zeros(K.N_WEIGHTS)
        tc_e, tc_a = np.full(K.N_WEIGHTS, e_sum), np.full(K.N_WEIGHTS, huge)
        K.learn_games(200, rng_seed(12), 0.01, 0.5, 0.0, *table, theta, K.ALL_GROUPS, False, 0.0, tc_e, tc_a)
        assert np.abs(theta - expected).max() < 1e-200  # E = 0 becomes the first error: a rate of 1e-300 or so


def test_temporal_coherence_starts_at_the_full_step_and_records_the_errors(table):
    """Fresh sums give rate 1 to a weight's first update, so one game of TC learning is
    one game of the constant step; afterwards ``A`` holds each weight's absolute errors
    (positive exactly where the weight was active) and ``|E| <= A``."""
    constant = np.zeros(K.N_WEIGHTS)
    K.learn_games(1, rng_seed(12), 0.01, 0.5, 0.0, *table, constant, K.ALL_GROUPS, False, 0.0, *NO_TC)
    theta, tc_e, tc_a = np.zeros(K.N_WEIGHTS), np.zeros(K.N_WEIGHTS), np.zeros(K.N_WEIGHTS)
    K.learn_games(1, rng_seed(12), 0.01, 0.5, 0.0, *table, theta, K.ALL_GROUPS, False, 0.0, tc_e, tc_a)
    touched = tc_a > 0
    assert touched.sum() > 24
    assert np.array_equal(touched, theta != 0)
    assert (np.abs(tc_e) <= tc_a + 1e-12).all()
    # a weight met twice in the game took its second step at a rate below 1 only if its errors disagreed
    assert np.allclose(theta[touched & (np.abs(tc_e) == tc_a)], constant[touched & (np.abs(tc_e) == tc_a)])


def _td_search_candidates(grid, card, table, theta, groups, alpha, lam):
    """Every change of ``theta`` one TD-search game from ``grid`` (``card`` in hand, two
    more cards to come) can make, by the readable rule: greedy placements on table +
    residual, then for each afterstate ``t`` that is not the full grid the step
    ``alpha * (G_t - V_t) / m_t`` on its ``m_t`` active features, ``G_t`` its lambda-return
    over the values seen and the final score. Each change is a dict, weight index to
    its change (the weights are many, a game touches few)."""
    rest = [int(c) for c in np.setdiff1d(np.arange(52), grid[grid >= 0]) if c != card]

    def place(g, c):
        """The greedy afterstate of ``c`` on ``g``, its value, and its active features."""
        vals = K.placement_values(g, c, *table, theta, groups)
        cell = int(np.argmax(vals))
        after = g.copy()
        after[cell] = c
        return after, vals[cell], [feature_index(f) for f in grid_features(after, groups)]

    first = place(grid, card)  # the same whatever comes next
    out = []
    for d1 in rest:
        second = place(first[0], d1)
        for d2 in rest:
            if d2 == d1:
                continue
            third = place(second[0], d2)
            final = float(K.score_grid(third[0], table[0]))
            values = [first[1], second[1], third[1]]
            change: dict[int, float] = {}
            ret = final
            for t, (_, value, idx) in ((1, second), (0, first)):
                ret = (1 - lam) * values[t + 1] + lam * ret
                for i in idx:
                    change[i] = change.get(i, 0.0) + alpha * (ret - value) / len(idx)
            out.append(change)
    return out


def _distances(change: np.ndarray, candidates: list[dict[int, float]]) -> list[float]:
    """The largest difference between a dense change of the weights and each sparse one."""
    moved = np.flatnonzero(change)  # once: the weights are many
    out = []
    for candidate in candidates:
        idx = np.fromiter(candidate, dtype=np.int64, count=len(candidate))
        vals = np.fromiter(candidate.values(), dtype=np.float64, count=len(candidate))
        elsewhere = np.setdiff1d(moved, idx)
        out.append(float(max(np.abs(change[idx] - vals).max(initial=0.0), np.abs(change[elsewhere]).max(initial=0.0))))
    return out


def test_td_search_learns_a_game_from_the_position_by_the_td_rule(table):
    """One game of :func:`K.learn_from` changes the weights as the readable rule does
    for one of the ways the two cards to come can fall (a wrong return, step or
    afterstate matches none of them)."""
    groups = K.ALL_GROUPS | K.GROUP_DRAWS
    rng = np.random.default_rng(21)
    theta = rng.normal(scale=2.0, size=K.N_WEIGHTS)
    for trial in range(3):
        grid = np.full(25, -1, dtype=np.int8)
        cards = rng.permutation(52)
        grid[rng.permutation(25)[:22]] = cards[:22]
        card = int(cards[22])
        learned = theta.copy()
        K.learn_from(grid, card, 1, 100 + trial, 0.05, 0.5, *table, learned, groups)
        change = learned - theta
        assert np.abs(change).max() > 0
        candidates = _td_search_candidates(grid, card, table, theta, groups, 0.05, 0.5)
        assert min(_distances(change, candidates)) < 1e-9


def test_td_search_moves_the_positions_value_toward_its_games(table):
    """After learning from a position, the greedy afterstate's value is nearer the mean
    final score of games from there than before (the same games, without learning,
    measure it)."""
    theta = np.zeros(K.N_WEIGHTS)
    grid = np.full(25, -1, dtype=np.int8)
    grid[[0, 1, 6, 12, 18]] = [0, 13, 26, 5, 44]
    card = 9
    mean_final = K.learn_from(grid, card, 2000, 7, 0.0, 0.5, *table, theta, K.ALL_GROUPS) / 2000
    assert not theta.any()  # alpha 0: play only
    before = abs(K.placement_values(grid, card, *table, theta, K.ALL_GROUPS).max() - mean_final)
    K.learn_from(grid, card, 2000, 8, 0.01, 0.5, *table, theta, K.ALL_GROUPS)
    after = abs(K.placement_values(grid, card, *table, theta, K.ALL_GROUPS).max() - mean_final)
    assert after < 0.5 * before


def test_epsilon_is_the_share_of_random_moves_in_the_learning_games(table):
    """``epsilon`` 1 plays every learning move uniformly at random: the games score as
    random play does (about 14 American points), far below the greedy games of
    epsilon 0; epsilon 0.02 changes some games (a random move now and then) but scores
    near greedy play; learning with it moves the same weights (the TD rule over the
    moves played)."""
    theta = np.zeros(K.N_WEIGHTS)
    games = 400
    greedy, _ = K.learn_games(games, rng_seed(31), 0.0, 0.5, 0.0, *table, theta, K.ALL_GROUPS, False, 0.0, *NO_TC)
    random, _ = K.learn_games(games, rng_seed(31), 0.0, 0.5, 1.0, *table, theta, K.ALL_GROUPS, False, 0.0, *NO_TC)
    some, _ = K.learn_games(games, rng_seed(31), 0.0, 0.5, 0.02, *table, theta, K.ALL_GROUPS, False, 0.0, *NO_TC)
    assert random / games < 30 < 60 < greedy / games
    assert some != greedy and abs(some - greedy) / games < 10
    learned = np.zeros(K.N_WEIGHTS)
    K.learn_games(50, rng_seed(32), 0.3, 0.5, 0.02, *table, learned, K.ALL_GROUPS, False, 0.0, *NO_TC)
    assert learned.any()


def test_stratified_playouts_deal_each_undealt_card_first_in_turn(table):
    """With ``first``, playout g's first card is the (first + g) % D-th undealt card: at
    depth 1 each playout's value is then that card's best placement value, so D
    playouts from offset 0 are the best placement values of the D cards, each once."""
    theta = np.random.default_rng(3).normal(size=K.N_WEIGHTS) * 0.1
    grid, _ = next((g, None) for g in _random_grids(50, 21) if 8 <= (g >= 0).sum() <= 20)
    undealt = np.setdiff1d(np.arange(52), grid[grid >= 0]).astype(np.int64)
    best = K.best_placement_values(grid, undealt, *table, theta, K.ALL_GROUPS)
    d = len(undealt)
    values = K.playouts(grid, d, 1, 7, False, 1.0, 0, *table, theta, K.ALL_GROUPS)
    np.testing.assert_allclose(values, best, atol=1e-9)  # in card order, from offset 0
    values = K.playouts(grid, 3, 1, 8, False, 1.0, d - 1, *table, theta, K.ALL_GROUPS)
    np.testing.assert_allclose(values, best[[d - 1, 0, 1]], atol=1e-9)  # the offset wraps around
    # Not stratified (-1), the first cards repeat and miss some cards.
    loose = K.playouts(grid, d, 1, 7, False, 1.0, -1, *table, theta, K.ALL_GROUPS)
    assert sorted(np.round(loose, 9)) != sorted(np.round(best, 9))


def test_the_stratified_card_goes_first_and_the_rest_stay_a_uniform_order():
    """``put_first`` after a partial shuffle: the chosen card leads, the deck is still a
    permutation, and each other card is the second card about equally often."""
    from pokersquares.kernels.core import shuffle_prefix
    from numba import njit

    @njit
    def second_cards(trials, seed, chosen, counts):
        state = rng_seed(seed)
        deck = np.arange(12)
        for _ in range(trials):
            shuffle_prefix(state, deck, 0, 4)
            K.put_first(deck, chosen)
            if deck[0] != chosen:
                return False
            counts[deck[1]] += 1
            seen = np.zeros(12, dtype=np.int64)
            for c in deck:
                seen[c] += 1
            if seen.max() != 1:
                return False
        return True

    counts = np.zeros(12, dtype=np.int64)
    assert second_cards(110_000, 5, 3, counts)
    others = np.delete(counts, 3)
    assert counts[3] == 0
    # 10,000 expected each; the binomial SE is about 95: 5 SE either side.
    assert np.all(np.abs(others - 10_000) < 500), others
