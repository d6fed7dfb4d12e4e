import itertools
import math
import random
from collections import Counter

import pytest

from pokersquares.cards import card, parse_cards
from pokersquares.hands import HandId, classify, hand_id, parse_hand_name

EXPECTED_COUNTS = {
    HandId.ROYAL_FLUSH: 4, HandId.STRAIGHT_FLUSH: 36, HandId.FOUR_OF_A_KIND: 624,
    HandId.FULL_HOUSE: 3744, HandId.FLUSH: 5108, HandId.STRAIGHT: 10200,
    HandId.THREE_OF_A_KIND: 54912, HandId.TWO_PAIR: 123552, HandId.ONE_PAIR: 1098240,
    HandId.HIGH_CARD: 1302540,
}


def test_all_five_card_hands_have_the_exact_counts():
    """Every one of the 6,175 rank multisets a hand can hold, weighted by how many of the
    2,598,960 hands hold it. A hand's class depends on its ranks and on whether its suits
    are all one: five distinct ranks come as 4 flushes and 1,020 others, a multiset with
    a repeated rank as the product of C(4, m) over its ranks' multiplicities m, none a
    flush. Each kind is classified once, on suits drawn at random and in a shuffled card
    order (the kernel's count, tests/kernels/test_core.py, enumerates every hand)."""
    rng = random.Random(0)
    counts, hands = Counter(), 0
    for ranks in itertools.combinations_with_replacement(range(13), 5):
        multiplicity = Counter(ranks)
        if max(multiplicity.values()) > 4:
            continue
        kinds = []  # (cards, how many hands are of this kind)
        if len(multiplicity) == 5:
            suit = rng.randrange(4)
            kinds.append(([card(r, suit) for r in ranks], 4))
            suits = [rng.randrange(4) for _ in ranks]
            while len(set(suits)) == 1:
                suits = [rng.randrange(4) for _ in ranks]
            kinds.append(([card(r, s) for r, s in zip(ranks, suits)], 4 ** 5 - 4))
        else:
            weight = math.prod(math.comb(4, m) for m in multiplicity.values())
            cards = [card(r, s) for r, m in multiplicity.items() for s in rng.sample(range(4), m)]
            kinds.append((cards, weight))
        for cards, weight in kinds:
            rng.shuffle(cards)
            counts[hand_id(cards)] += weight
            hands += weight
    assert hands == math.comb(52, 5)
    assert counts == EXPECTED_COUNTS


def h(text):
    return classify(parse_cards(text.split()))


@pytest.mark.parametrize("text,hand", [
    ("TS JS QS KS AS", HandId.ROYAL_FLUSH),
    ("AD 2D 3D 4D 5D", HandId.STRAIGHT_FLUSH),
    ("9H TH JH QH KH", HandId.STRAIGHT_FLUSH),
    ("AC 2D 3H 4S 5C", HandId.STRAIGHT),
    ("TC JD QH KS AC", HandId.STRAIGHT),
    ("QC KD AH 2S 3C", HandId.HIGH_CARD),  # no wrap
    ("2H 4H 6H 8H TH", HandId.FLUSH),
    ("7S 7C 7D 8H 8S", HandId.FULL_HOUSE),
    ("9C 9D 9H 9S 6H", HandId.FOUR_OF_A_KIND),
])
def test_complete_hands(text, hand):
    assert h(text) == hand


@pytest.mark.parametrize("text,hand", [
    ("", HandId.HIGH_CARD),
    ("TS JS QS KS", HandId.HIGH_CARD),  # a straight flush needs five cards
    ("7S 7C", HandId.ONE_PAIR),
    ("7S 7C 8D 8H", HandId.TWO_PAIR),
    ("7S 7C 7D", HandId.THREE_OF_A_KIND),
    ("7S 7C 7D 8H", HandId.THREE_OF_A_KIND),  # never a full house when incomplete
    ("7S 7C 7D 7H", HandId.FOUR_OF_A_KIND),
])
def test_partial_hands(text, hand):
    assert h(text) == hand


def test_hand_names():
    assert parse_hand_name("Full_House") == HandId.FULL_HOUSE
    assert parse_hand_name("two pairs") == HandId.TWO_PAIR
    assert parse_hand_name(" 6 ") == HandId.FULL_HOUSE
    for bad in ("pony", "-1", "--2", "-6", "10", "\u0663"):
        with pytest.raises(ValueError, match="unknown hand"):
            parse_hand_name(bad)


@pytest.mark.parametrize("cards, says", [
    ([0, 0, 1], "distinct"), ([52], "0..51"), ([-1], "0..51"), ([1.5], "0..51"), (["AS"], "0..51"),
    ([True], "0..51"), (list(range(6)), "at most 5"),
])
def test_bad_hands_are_refused_not_classified(cards, says):
    from pokersquares.errors import InvalidCardError

    with pytest.raises(InvalidCardError, match=says):
        classify(cards)


@pytest.mark.parametrize("bad", ["pony", "10", None, 3.0, True, [5]])
def test_an_unknown_hand_is_an_invalid_hand_error(bad):
    """parse_hand_name raised a bare ValueError, which the command line's PokerSquaresError
    handler does not catch; None, 3.0, True and [5] were read as their text."""
    from pokersquares.errors import InvalidHandError

    with pytest.raises(InvalidHandError):
        parse_hand_name(bad)
    assert parse_hand_name(5) == parse_hand_name("5") == HandId.FLUSH  # an id still names its hand


@pytest.mark.parametrize("cards", [{0, 13}, {0: "x", 13: "y"}, {0, 1}, "AS 2S", None, 5, 1.5])
def test_a_hand_is_a_list_of_cards_not_a_set_dict_text_or_number(cards):
    """{0, 0} is {0}: a set hides the duplicate classify exists to refuse, a dict gave its
    keys, and text, None or a number was a bare TypeError from len()."""
    from pokersquares.errors import InvalidCardError

    with pytest.raises(InvalidCardError, match="list, tuple or array|order"):
        classify(cards)


def test_a_hand_is_one_row_of_cards():
    import numpy as np

    from pokersquares.errors import InvalidCardError

    with pytest.raises(InvalidCardError, match="one-dimensional"):
        classify(np.array([[0, 13], [26, 39]]))  # was numpy's ambiguous-truth ValueError
    assert classify(np.array([0, 13, 26, 39])) == classify((0, 13, 26, 39)) == HandId.FOUR_OF_A_KIND
    assert classify(iter([0, 13])) == HandId.ONE_PAIR
