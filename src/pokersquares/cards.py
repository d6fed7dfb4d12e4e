"""Cards, their ids and text forms, and the contest's deals.

A card is a plain ``int`` id, ``suit * 13 + rank`` (RULES.md), so that cards can live
in numpy arrays and numba kernels unchanged. Text forms are rank letter + suit
letter (``TC``, ``AS``).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Set
from typing import Iterable, TypeAlias, TypeGuard

from .errors import InvalidCardError, InvalidSeedError, PokerSquaresError
from .javarandom import JavaRandom, java_shuffle

__all__ = [
    "Card", "RANKS", "SUITS", "DECK", "NUM_CARDS",
    "card", "rank_of", "suit_of", "parse_card", "card_name", "parse_cards",
    "deal", "deal_names", "check_seed", "SEED_MIN", "SEED_MAX", "as_sequence",
]

Card: TypeAlias = int

RANKS = "A23456789TJQK"
SUITS = "CDHS"
NUM_CARDS = 52
DECK: tuple[Card, ...] = tuple(range(NUM_CARDS))


def card(rank: int, suit: int) -> Card:
    return suit * 13 + rank


def rank_of(c: Card) -> int:
    return c % 13


def suit_of(c: Card) -> int:
    return c // 13


def is_integer(x) -> TypeGuard[int]:
    """An integer, Python's or numpy's, and not a bool (nor numpy's bool, float or array)."""
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def is_seconds(x) -> bool:
    """A number of seconds: a real number (Python's or numpy's), not a bool, text or NaN
    (infinity is no limit; whether it is allowed is the caller's to say)."""
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and not math.isnan(x)


def is_card_id(c) -> bool:
    """An integer (Python's or numpy's, not a bool nor an array) in 0..51."""
    if type(c) is int:  # the common case, without the abstract-class check
        return 0 <= c < NUM_CARDS
    return is_integer(c) and 0 <= c < NUM_CARDS


def _shown(x, limit: int = 60) -> str:
    text = repr(x)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def as_sequence(values, what: str, error: type[PokerSquaresError], text_hint: str = "") -> list:
    """``values`` as a list, if they come in an order the caller meant: a list, tuple,
    range, 1-d array or iterator. A set has no order and a dict would give its keys, text
    its characters, a 2-d array its rows: each of those, and anything not iterable, is an
    ``error`` saying ``what`` was expected (``text_hint`` added for text)."""
    if type(values) is list or type(values) is tuple:  # the common case, without the checks
        return list(values)
    if isinstance(values, (str, bytes, bytearray)):
        raise error(f"{what} must be a list, tuple or array, not text: {_shown(values)}"
                    + (f" ({text_hint})" if text_hint else ""))
    if isinstance(values, Set):
        raise error(f"{what} must be in an order (a list, tuple or array); a {type(values).__name__} "
                    f"has none: {_shown(values)}")
    if isinstance(values, Mapping):
        raise error(f"{what} must be a list, tuple or array, not a {type(values).__name__} "
                    f"(whose keys it would be): {_shown(values)}")
    ndim = getattr(values, "ndim", 1)  # numpy's arrays and scalars have one
    if ndim != 1 and ndim != 0:
        raise error(f"{what} must be one-dimensional, got an array of shape {values.shape}")
    try:
        it = iter(values)  # a 0-d array or a scalar is no sequence either
    except TypeError:
        raise error(f"{what} must be a list, tuple or array, got {_shown(values)}") from None
    return list(it)


def card_name(c: Card) -> str:
    if not is_card_id(c):
        raise InvalidCardError(f"card id must be an integer 0..51, got {c!r}")
    c = int(c)
    return RANKS[c % 13] + SUITS[c // 13]


def parse_card(text: str) -> Card:
    """Parse ``"TC"``, ``"tc"``, ``"10c"`` or ``"As"`` into a card id."""
    if not isinstance(text, str):
        raise InvalidCardError(f"not a card: {text!r} (a card is text such as TC, As, 10h)")
    t = text.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    if len(t) != 2 or t[0] not in RANKS or t[1] not in SUITS:
        raise InvalidCardError(
            f"not a card: {text!r} (rank A23456789TJQK or 10, then suit C D H S, e.g. TC, As, 10h)"
        )
    return card(RANKS.index(t[0]), SUITS.index(t[1]))


def parse_cards(texts: Iterable[str], *, count: int | None = None) -> list[Card]:
    """Parse several cards, rejecting duplicates and (optionally) a wrong count."""
    if count is not None and not (is_integer(count) and count >= 0):
        raise InvalidCardError(f"a count of cards is a whole number, got {count!r}")
    cards = [parse_card(t) for t in as_sequence(texts, "cards", InvalidCardError,
                                                "split it into cards first: 'AS 2S'.split()")]
    if count is not None and len(cards) != count:
        raise InvalidCardError(f"expected {count} cards, got {len(cards)}")
    seen: set[Card] = set()
    for c in cards:
        if c in seen:
            raise InvalidCardError(f"duplicate card: {card_name(c)}")
        seen.add(c)
    return cards


# The contest's seeds are Java longs; a seed outside their range would wrap silently.
SEED_MIN, SEED_MAX = -2 ** 63, 2 ** 63 - 1


def check_seed(seed: int, what: str = "seed") -> int:
    """``seed`` if it is an integer in the Java long range, else InvalidSeedError."""
    if not is_integer(seed):  # int and numpy integers, not bools, floats or arrays
        raise InvalidSeedError(f"{what} must be an integer, got {seed!r}")
    if not SEED_MIN <= int(seed) <= SEED_MAX:
        raise InvalidSeedError(f"{what} {seed} is outside the contest's seed range (a Java long, "
                               f"{SEED_MIN} to {SEED_MAX})")
    return int(seed)


def deal(seed: int) -> list[Card]:
    """The 52 cards in the order the contest framework deals them for ``seed``.

    The framework pushes ids 0..51 onto a stack, shuffles it with
    ``Collections.shuffle(stack, new Random(seed))`` and pops from the end, so the
    last list element is dealt first.
    """
    check_seed(seed)
    stack = list(DECK)
    java_shuffle(stack, JavaRandom(seed))
    stack.reverse()
    return stack


def deal_names(seed: int) -> list[str]:
    return [card_name(c) for c in deal(seed)]
