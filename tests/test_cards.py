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
