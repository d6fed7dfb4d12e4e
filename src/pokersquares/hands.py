"""Poker hand classification: the readable reference of the contest's rule.

``classify`` takes 0 to 5 cards. A complete hand gets its usual poker category; an
incomplete hand is classified as the contest framework does, by its rank counts
alone: it can hold a pair, two pair, three or four of a kind, but never a straight,
flush or full house. The numba kernels in :mod:`pokersquares.kernels` implement
the same rule and are tested against this one.
"""

from __future__ import annotations

from collections import Counter
from enum import IntEnum
from typing import Sequence

from .cards import Card, as_sequence, is_card_id, is_integer, rank_of, suit_of
from .errors import InvalidCardError, InvalidHandError

__all__ = ["HandId", "HAND_NAMES", "NUM_HANDS", "classify", "hand_id", "parse_hand_name", "is_straight_ranks"]


class HandId(IntEnum):
    HIGH_CARD = 0
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9

    @property
    def label(self) -> str:
        return HAND_NAMES[self]


NUM_HANDS = 10
HAND_NAMES: tuple[str, ...] = (
    "high card", "one pair", "two pair", "three of a kind", "straight",
    "flush", "full house", "four of a kind", "straight flush", "royal flush",
)
_ROYAL_RANKS = frozenset({0, 9, 10, 11, 12})  # A T J Q K


def parse_hand_name(text: str) -> HandId:
    """``"flush"``, ``"Full House"``, ``"full_house"``, ``"two-pair"`` or ``"6"``; else
    InvalidHandError."""
    if not isinstance(text, str) and not is_integer(text):  # None, 3.0 or True is no hand
        raise InvalidHandError(f"a hand is a name such as 'flush' or an id 0..{NUM_HANDS - 1}, got {text!r}")
    text = str(text).strip()
    if text.isascii() and text.isdigit() and int(text) < NUM_HANDS:  # a hand id; "-1" is not one
        return HandId(int(text))
    key = text.lower().replace("_", " ").replace("-", " ")
    key = " ".join(key.split())
    aliases = {"pair": "one pair", "two pairs": "two pair", "trips": "three of a kind",
               "quads": "four of a kind", "high": "high card"}
    key = aliases.get(key, key)
    if key in HAND_NAMES:
        return HandId(HAND_NAMES.index(key))
    raise InvalidHandError(f"unknown hand {text!r}; hands are: {', '.join(HAND_NAMES)}")


def is_straight_ranks(ranks: Sequence[int]) -> bool:
    """Five distinct ranks in sequence, ace low (A2345) or high (TJQKA), no wrap."""
    distinct = set(ranks)
    if len(ranks) != 5 or len(distinct) != 5:
        return False
    if distinct == _ROYAL_RANKS:
        return True
    return max(distinct) - min(distinct) == 4


def classify(cards: Sequence[Card]) -> HandId:
    """The hand id of 0..5 distinct cards (ids 0..51; RULES.md), checked: anything else
    is an InvalidCardError."""
    cards = as_sequence(cards, "a hand's cards", InvalidCardError, "parse_cards reads card names")
    if len(cards) > 5:
        raise InvalidCardError(f"a hand holds at most 5 cards, got {len(cards)}")
    for c in cards:
        if not is_card_id(c):
            raise InvalidCardError(f"a card is an id 0..51, got {c!r}")
    if len(set(int(c) for c in cards)) != len(cards):
        raise InvalidCardError(f"a hand's cards are distinct, got {list(cards)}")
    return hand_id(cards)


def hand_id(cards: Sequence[Card]) -> HandId:
    """:func:`classify` without its checks, for callers whose cards come off a grid
    (a player's loop asks it thousands of times a game)."""
    ranks = [rank_of(c) for c in cards]
    counts = sorted(Counter(ranks).values(), reverse=True) or [0]
    if len(cards) == 5:
        flush = len({suit_of(c) for c in cards}) == 1
        straight = is_straight_ranks(ranks)
        if flush and straight:
            return HandId.ROYAL_FLUSH if set(ranks) == _ROYAL_RANKS else HandId.STRAIGHT_FLUSH
        if counts[0] == 4:
            return HandId.FOUR_OF_A_KIND
        if counts[:2] == [3, 2]:
            return HandId.FULL_HOUSE
        if flush:
            return HandId.FLUSH
        if straight:
            return HandId.STRAIGHT
    if counts[0] == 4:
        return HandId.FOUR_OF_A_KIND
    if counts[0] == 3:
        return HandId.THREE_OF_A_KIND
    if counts[:2] == [2, 2]:
        return HandId.TWO_PAIR
    if counts[0] == 2:
        return HandId.ONE_PAIR
    return HandId.HIGH_CARD
