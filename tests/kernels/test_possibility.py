import numpy as np
import pytest

from pokersquares.cards import parse_cards
from pokersquares.evaluators import possibility as ref
from pokersquares.hands import HandId
from pokersquares.kernels import possibility as kpos
from pokersquares.points import AMERICAN, BRITISH, random_system

RNG = np.random.default_rng(11)


def _hand(text):
    return np.array(parse_cards(text.split()), dtype=np.int8)


def _avail(cards):
    avail = np.zeros(52, dtype=np.int8)
    avail[parse_cards(cards.split())] = 1
    return avail


def test_papers_four_card_example():
    # 6H 6C 6S 7H with only 6D 7D 8D left: one card each for quads, full house, trips.
    w = kpos.four_card_weights(_hand("6H 6C 6S 7H"), _avail("6D 7D 8D"))
    expected = np.zeros(10)
    expected[[HandId.THREE_OF_A_KIND, HandId.FULL_HOUSE, HandId.FOUR_OF_A_KIND]] = 1 / 3
    assert w == pytest.approx(expected)


def test_full_house_weight_is_the_share_of_completing_cards():
    # needs a ten or a jack for the full house; one ten among six undealt cards
    w = kpos.four_card_weights(_hand("TD TS JD JS"), _avail("TH 2S 3S 4S 5S 6S"))
    assert w[HandId.FULL_HOUSE] == pytest.approx(1 / 6)
    assert w[HandId.TWO_PAIR] == pytest.approx(5 / 6)


def test_papers_possibility_examples():
    # one card: high card made, everything else possible but royal flush below ten
    assert kpos.possibility_array(_hand("5H")).tolist() == [2, 1, 1, 1, 1, 1, 1, 1, 1, 0]
    assert kpos.possibility_array(_hand("AH")).tolist() == [2, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    # a pair: high card and anything with a straight or flush gone, the pair made
    assert kpos.possibility_array(_hand("5H 5C")).tolist() == [0, 2, 1, 1, 0, 0, 1, 1, 0, 0]
    assert kpos.possibility_array(_hand("6H 6C 6S 7H")).tolist() == [0, 0, 0, 2, 0, 0, 1, 1, 0, 0]


def _random_cards(n):
    return RNG.permutation(52)[:n].astype(np.int8)


def test_possibility_matches_brute_force_reference():
    for n in (1, 2, 3, 4, 5):
        for _ in range(60):
            cards = _random_cards(n)
            assert kpos.possibility_array(cards).tolist() == ref.possibility(cards.tolist()), cards
    # an empty hand can still become anything and has made nothing (the reference said
    # a high card and a straight were impossible: its five off-suit cards made a flush)
    empty = np.full(5, -1, dtype=np.int8)
    assert kpos.possibility_array(empty).tolist() == ref.possibility([]) == [1] * 10
    # suited and connected short hands, where straights and flushes stay possible
    for text in ("2H 3H", "TS KS", "AD 5D 3D", "9C TC QC", "AH KH", "4S 8S"):
        cards = _hand(text)
        assert kpos.possibility_array(cards).tolist() == ref.possibility(cards.tolist()), text


def test_one_card_possibility_matches_reference():
    for text in ("AS", "9D"):
        assert kpos.possibility_array(_hand(text)).tolist() == ref.possibility(parse_cards([text]))


def test_four_card_weights_match_reference():
    for _ in range(200):
        cards = RNG.permutation(52)
        hand = cards[:4].astype(np.int8)
        undealt = cards[4:4 + int(RNG.integers(1, 48))]
        avail = np.zeros(52, dtype=np.int8)
        avail[undealt] = 1
        assert kpos.four_card_weights(hand, avail) == pytest.approx(
            ref.four_card_weights(hand.tolist(), undealt.tolist()))


def _params(points, apriori, sizes, made):
    pts = np.array(points, dtype=np.float64)
    ap = np.array(apriori)
    made_w = ap if made is None else np.full(10, made)
    return kpos.make_params(pts, ap * pts, made_w * pts, np.array([0.0, *sizes, 1.0]))


SETTINGS = [
    (AMERICAN.points, ref.APRIORI["british"], ref.TUNED, 1.0),
    (BRITISH.points, ref.APRIORI["measured"], ref.UNTUNED, None),
    (random_system(3).points, ref.APRIORI["british"], (0.3, 0.5, 0.7), 0.5),
]


def _random_grid(n):
    grid = np.full(25, -1, dtype=np.int8)
    grid[RNG.permutation(25)[:n]] = RNG.permutation(52)[:n]
    return grid


@pytest.mark.parametrize("points, apriori, sizes, made", SETTINGS)
def test_state_value_matches_reference(points, apriori, sizes, made):
    params = _params(points, apriori, sizes, made)
    for _ in range(30):
        grid = _random_grid(int(RNG.integers(0, 25)))
        expected = ref.state_value(grid.tolist(), points, apriori, sizes, made)
        assert kpos.state_value(grid, params) == pytest.approx(expected)


def test_child_values_are_the_childrens_state_values():
    params = _params(*SETTINGS[0])
    for _ in range(50):
        grid = _random_grid(int(RNG.integers(0, 24)))
        card = int(RNG.choice(np.setdiff1d(np.arange(52), grid)))
        out = np.empty(25)
        before = grid.copy()
        kpos.child_values(grid, card, params, out)
        assert (grid == before).all()
        for cell in range(25):
            if grid[cell] >= 0:
                assert out[cell] == -np.inf
            else:
                child = grid.copy()
                child[cell] = card
                assert out[cell] == pytest.approx(kpos.state_value(child, params))


def test_greedy_playouts_are_reproducible_and_follow_the_best_move():
    params = _params(*SETTINGS[0])
    grid = _random_grid(23)
    a = kpos.greedy_playouts(grid, 50, 3, params)
    assert (a == kpos.greedy_playouts(grid, 50, 3, params)).all()
    # with one empty cell every playout is a legal completed grid
    one = _random_grid(24)
    scores = kpos.greedy_playouts(one, 20, 1, params)
    cell = int(np.flatnonzero(one < 0)[0])
    possible = set()
    for c in np.setdiff1d(np.arange(52), one):
        g = one.copy()
        g[cell] = c
        from pokersquares.kernels import score_grid
        possible.add(int(score_grid(g, np.array(AMERICAN.points, dtype=np.int64))))
    assert set(scores.tolist()) <= possible


def test_calibration_offsets_are_the_mean_final_score_minus_the_mean_h_after_k_moves():
    """``offset[k]``: over ``n`` best-move games from an empty grid (the kernel's deck and
    generator, replayed here move by move), the mean final score minus the mean ``h`` of
    the grid after ``k`` moves; ``offset[25]`` is 0. Crediting each ``h`` one move early
    or late shifts every offset by a move's gain in ``h``."""
    from pokersquares.kernels.core import rng_below, rng_seed, score_grid

    points, apriori, sizes, made = SETTINGS[0]
    params = _params(points, apriori, sizes, made)
    params[kpos.OFFSET:kpos.OFFSET + 26] = 7.0  # the params' own offsets play no part
    raw = _params(points, apriori, sizes, made)
    n, seed = 3, 5
    state = rng_seed(seed)
    deck = np.arange(52, dtype=np.int64)  # not reset between games, as in the kernel
    h_sum, final_sum = np.zeros(26), 0.0
    for _ in range(n):
        grid = np.full(25, -1, dtype=np.int8)
        for k in range(25):
            j = k + rng_below(state, 52 - k)
            deck[k], deck[j] = deck[j], deck[k]
            grid[int(np.argmax(kpos.placement_values(grid, deck[k], raw)))] = deck[k]
            h_sum[k + 1] += kpos.state_value(grid, raw)
        final_sum += score_grid(grid, np.array(points, dtype=np.int64))
        assert h_sum[25] == pytest.approx(final_sum)  # h of a full grid is its score
    expected = np.zeros(26)
    expected[:25] = (final_sum - h_sum[:25]) / n
    assert kpos.calibration_offsets(params, n, seed) == pytest.approx(expected)
    assert expected[0] == pytest.approx(final_sum / n) and len(set(np.round(expected, 6))) > 20
