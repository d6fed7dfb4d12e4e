import numpy as np
import pytest

from pokersquares.cards import card_name, deal, deal_names, parse_card, parse_cards
from pokersquares.errors import InvalidCardError


def test_every_deal_in_the_vectors(java_vectors):
    for seed, cards in java_vectors["deals"].items():
        assert deal_names(int(seed)) == cards


def test_ids_and_names():
    assert parse_card("AC") == 0 and parse_card("KC") == 12 and parse_card("AD") == 13
    assert parse_card("KS") == 51 and card_name(22) == "TD"
    assert parse_card("tc") == parse_card("10c") == parse_card("TC") == 9
    assert all(parse_card(card_name(c)) == c for c in range(52))


@pytest.mark.parametrize("bad", ["", "1C", "TX", "ACE", "11h", "T"])
def test_bad_card_text(bad):
    with pytest.raises(InvalidCardError):
        parse_card(bad)


def test_duplicates_and_count():
    with pytest.raises(InvalidCardError, match="duplicate"):
        parse_cards(["AS", "as"])
    with pytest.raises(InvalidCardError, match="expected 5"):
        parse_cards(["AS", "2S"], count=5)


def test_deal_is_a_permutation():
    assert sorted(deal(123)) == list(range(52))



@pytest.mark.parametrize("texts", [{"AS", "2S"}, frozenset({"AS"}), {"AS": 1, "2S": 2}, {"AS": 1}.keys(),
                                   "AS 2S", b"AS", None, 5, 1.5])
def test_cards_come_in_an_order_not_as_a_set_dict_or_text(texts):
    """A set of cards has no order (which card is dealt first?), a dict gave its keys,
    text its characters ('A', 'S'), and None or 5 was a bare TypeError."""
    with pytest.raises(InvalidCardError, match="list, tuple or array|order"):
        parse_cards(texts)


def test_cards_still_come_from_any_ordered_iterable():
    assert parse_cards(("AS", "2S")) == parse_cards(["AS", "2S"]) == parse_cards(iter(["AS", "2S"])) == [39, 40]
    assert parse_cards({"first": "AS", "second": "2S"}.values()) == [39, 40]
    assert parse_cards(np.array(["AS", "2S"])) == [39, 40]


@pytest.mark.parametrize("count", [True, 2.0, "2", -1])
def test_a_count_of_cards_is_a_whole_number(count):
    """True was a count of 1 and 2.0 one of 2; "2" and -1 were refused as a wrong count."""
    with pytest.raises(InvalidCardError, match="whole number"):
        parse_cards(["AS"], count=count)


@pytest.mark.parametrize("bad", [np.arange(3), np.array([5]), np.array(5)])
def test_a_card_id_is_an_integer_not_an_array(bad):
    """A numpy array passed ``is_card_id`` (it has ``__index__``): several cards raised
    numpy's ambiguous-truth ValueError, one card in an array passed as that card."""
    from pokersquares.cards import is_card_id

    assert not is_card_id(bad)
    with pytest.raises(InvalidCardError):
        card_name(bad)


def test_numpy_integers_are_still_card_ids():
    from pokersquares.cards import is_card_id

    assert is_card_id(np.int8(5)) and card_name(np.int64(51)) == "KS" and not is_card_id(np.bool_(True))


@pytest.mark.parametrize("seed", [np.arange(2), np.array([5])])
def test_a_deal_seed_is_an_integer_not_an_array(seed):
    """An array seed was a bare TypeError from int(); a one-element array was seed 5."""
    from pokersquares.cards import check_seed
    from pokersquares.errors import InvalidSeedError

    with pytest.raises(InvalidSeedError, match="integer"):
        check_seed(seed)
    with pytest.raises(InvalidSeedError, match="integer"):
        deal(seed)


def test_a_deal_takes_every_java_long_and_only_those():
    """The contest's seeds are Java longs: -2**63 and 2**63-1 are seeds like any other
    (a bound off by one would refuse the largest); one past either end is no seed."""
    from pokersquares.cards import SEED_MAX, SEED_MIN, check_seed
    from pokersquares.errors import InvalidSeedError

    assert (SEED_MIN, SEED_MAX) == (-2 ** 63, 2 ** 63 - 1)
    for seed in (SEED_MIN, SEED_MAX):
        assert check_seed(seed) == seed and sorted(deal(seed)) == list(range(52))
    assert deal(SEED_MAX) != deal(SEED_MIN)
    for seed in (SEED_MIN - 1, SEED_MAX + 1):
        with pytest.raises(InvalidSeedError, match="Java long"):
            deal(seed)
