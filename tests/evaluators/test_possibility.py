import numpy as np
import pytest

from pokersquares.errors import PokerSquaresError
from pokersquares.evaluators.possibility import (
    APRIORI, TUNED, PossibilityEvaluator, measure_apriori, state_value)
from pokersquares.kernels import random_games
from pokersquares.points import AMERICAN, BRITISH

PTS = np.array(AMERICAN.points, dtype=np.int64)


def _evaluator(**kw):
    ev = PossibilityEvaluator(**kw)
    ev.prepare(PTS, 0.0)
    return ev


def test_apriori_tables_are_distributions_and_british_prices_straights_above_flushes():
    for table in APRIORI.values():
        assert len(table) == 10 and sum(table) == pytest.approx(1.0, abs=1e-4)
    british = APRIORI["british"]
    # the British system pays more for a straight (12) than a flush (5): rarer
    assert british[4] < british[5] and british[9] <= british[8] < british[7]


def test_placement_values_are_the_childrens_heuristic_values():
    ev = _evaluator()
    rng = np.random.default_rng(4)
    grid = np.full(25, -1, dtype=np.int8)
    grid[rng.permutation(25)[:11]] = rng.permutation(52)[:11]
    card = int(np.setdiff1d(np.arange(52), grid)[0])
    values = ev.placement_values(grid, card)
    for cell in range(25):
        if grid[cell] >= 0:
            assert values[cell] == -np.inf
        else:
            child = grid.copy()
            child[cell] = card
            assert values[cell] == pytest.approx(
                state_value(child.tolist(), AMERICAN.points, APRIORI["british"], TUNED, 1.0))
            assert values[cell] == pytest.approx(ev.state_value(child))


def test_weights_and_point_system_change_the_values():
    grid = np.full(25, -1, dtype=np.int8)
    grid[[0, 1, 5]] = [4, 17, 30]  # three fives
    a, b = _evaluator(), _evaluator(alpha=0.2, beta=0.4, gamma=0.6)
    assert a.state_value(grid) != b.state_value(grid)
    c = PossibilityEvaluator()
    c.prepare(np.array(BRITISH.points), 0.0)
    assert c.state_value(grid) != a.state_value(grid)


def test_best_move_policy_plays_far_better_than_random():
    ev = _evaluator()
    scores = ev.playouts(np.full(25, -1, dtype=np.int8), 300, seed=1)
    rand = random_games(300, 1, PTS)
    assert rand.mean() < 20  # 14.16 measured: random play, for scale
    # Fixed work, so the figure is exact for this code: 92.11 (SE 1.63) measured. Broken
    # on purpose: valuing a card's column by a row's cells 41.0, dropping the hand-size
    # weights 57.0; a heuristic that lost a mechanism falls well below this bound, while
    # a change of random stream moves the figure by its SE only.
    assert scores.mean() > 85


def test_bad_options_are_user_errors():
    with pytest.raises(PokerSquaresError):
        PossibilityEvaluator(apriori="nope")
    with pytest.raises(PokerSquaresError):
        PossibilityEvaluator(apriori=[0.5, 0.5])


def test_measure_apriori_returns_hand_frequencies():
    table = measure_apriori(BRITISH.points, games=20, rounds=1)
    assert len(table) == 10 and sum(table) == pytest.approx(1.0)
    assert table[1] > 0  # some pair among 200 finished hands


def test_the_heuristic_refuses_what_is_not_a_grid():
    from pokersquares.errors import IllegalPlacementError

    ev = PossibilityEvaluator()
    ev.prepare(PTS, 0.0)
    grid = np.full(25, -1, dtype=np.int8)
    for bad in (grid[:10], np.append(grid, -1), np.where(np.arange(25) < 2, 7, -1).astype(np.int8)):
        with pytest.raises(IllegalPlacementError):
            ev.heuristic(bad)
    assert ev.heuristic(grid) == pytest.approx(0.0)


def test_the_heuristic_is_h_without_the_offset_of_the_cards_on_the_grid():
    """``heuristic`` takes from ``state_value`` the calibration offset of the number of
    cards on the grid, leaving the paper's ``h`` (the readable reference)."""
    ev = PossibilityEvaluator()
    ev.prepare(PTS, 1.0)  # calibrates: the offsets differ from one card count to the next
    assert len(set(np.round(ev.offsets[:25], 6))) == 25
    rng = np.random.default_rng(9)
    for n in (1, 5, 11, 18, 24, 25):
        grid = np.full(25, -1, dtype=np.int8)
        grid[rng.permutation(25)[:n]] = rng.permutation(52)[:n]
        h = state_value(grid.tolist(), AMERICAN.points, APRIORI["british"], TUNED, 1.0)
        assert ev.heuristic(grid) == pytest.approx(h)
        assert ev.state_value(grid) == pytest.approx(h + ev.offsets[n])


def test_a_made_weight_of_zero_values_made_types_at_zero_and_a_negative_one_at_their_apriori():
    grid = np.full(25, -1, dtype=np.int8)
    grid[[0, 1]] = [4, 17]  # a pair of fives in row 0: a made pair
    for made, reference in ((0.0, 0.0), (-1.0, None), (2.0, 2.0)):
        ev = _evaluator(made_weight=made)
        h = state_value(grid.tolist(), AMERICAN.points, APRIORI["british"], TUNED, reference)
        assert ev.heuristic(grid) == pytest.approx(h), made
    zero, apriori = _evaluator(made_weight=0.0), _evaluator(made_weight=-1.0)
    assert zero.heuristic(grid) != pytest.approx(apriori.heuristic(grid))


def test_weights_that_are_not_finite_numbers_within_the_bound_are_user_errors():
    from pokersquares.evaluators.possibility import MAX_WEIGHT

    for kw in (dict(made_weight=1e308), dict(alpha=-1e13), dict(gamma=float("nan")), dict(beta=float("inf")),
               dict(alpha="0.1"), dict(made_weight=True)):
        with pytest.raises(PokerSquaresError, match="must be a number from -1e\\+12 to 1e\\+12"):
            PossibilityEvaluator(**kw)
    PossibilityEvaluator(alpha=MAX_WEIGHT, made_weight=-MAX_WEIGHT)


def test_an_apriori_table_that_is_not_ten_bounded_numbers_is_one_clear_error():
    """A number was a TypeError ("object of type 'int' has no len()"), text a ValueError,
    and NaN or 1e308 were taken: every placement value NaN."""
    for table, says in ((5, "has 10 probabilities, got 5"), ([0.1] * 9, "has 10 probabilities"),
                        ([float("nan")] * 10, "holds 10 numbers"), ([1e308] * 10, "holds 10 numbers"),
                        (["a"] * 10, "holds 10 numbers"), ([True] * 10, "holds 10 numbers")):
        with pytest.raises(PokerSquaresError, match=says):
            PossibilityEvaluator(apriori=table)
    ev = PossibilityEvaluator(apriori=np.array(APRIORI["measured"]))
    assert ev.apriori == APRIORI["measured"]
