"""A bit-exact port of ``java.util.Random`` and ``Collections.shuffle``.

The 2016 contest framework drew every deal and every generated point system from
``java.util.Random``; reproducing its 48-bit linear congruential generator exactly is
what makes a seed here mean the same game as a seed there.
"""

from __future__ import annotations

import numbers
from typing import MutableSequence, TypeVar

from .errors import InvalidBoundError, InvalidSeedError

__all__ = ["JavaRandom", "java_shuffle"]

_MULTIPLIER = 0x5DEECE66D
_ADDEND = 0xB
_MASK = (1 << 48) - 1
T = TypeVar("T")


def _to_int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def _to_int64(value: int) -> int:
    value = int(value) & 0xFFFFFFFFFFFFFFFF  # a numpy integer would overflow the mask
    return value - (1 << 64) if value & 0x8000000000000000 else value


class JavaRandom:
    """``java.util.Random`` with the same sequence for the same seed."""

    def __init__(self, seed: int = 0) -> None:
        self._state = 0
        self.set_seed(seed)

    def set_seed(self, seed: int) -> None:
        # Java takes a long: a seed outside 64 bits wraps, as a Java caller's would. But
        # 5.5, "5" or True is no long: int() would make seed 5 or 1 of it.
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
            raise InvalidSeedError(f"a JavaRandom's seed must be an integer, got {seed!r}")
        self._state = (_to_int64(seed) ^ _MULTIPLIER) & _MASK

    def next(self, bits: int) -> int:
        """``bits`` random bits (0..32), as a signed 32-bit int when ``bits`` is 32."""
        if type(bits) is not int or not 0 <= bits <= 32:
            bits = _checked(bits, 0, 32, "next's bits")
        return self._next(bits)

    def _next(self, bits: int) -> int:
        # Unchecked, for the methods below: their bit counts are constants.
        self._state = (self._state * _MULTIPLIER + _ADDEND) & _MASK
        return _to_int32(self._state >> (48 - bits))

    def next_int(self, bound: int | None = None) -> int:
        if bound is None:
            return self._next(32)
        if type(bound) is not int or not 0 < bound < 1 << 31:  # Java's bound is a positive int
            bound = _checked(bound, 1, (1 << 31) - 1, "bound (a Java int)")
        return self._next_below(bound)

    def _next_below(self, bound: int) -> int:
        # next_int's draw, unchecked: for java_shuffle, whose bounds are list lengths.
        if bound & (bound - 1) == 0:
            return _to_int32((bound * self._next(31)) >> 31)
        while True:
            bits = self._next(31)
            val = bits % bound
            # Java rejects the draw when this sum overflows a signed 32-bit int.
            if bits - val + (bound - 1) < (1 << 31):
                return val

    def next_long(self) -> int:
        return _to_int64((self._next(32) << 32) + self._next(32))

    def next_boolean(self) -> bool:
        return self._next(1) != 0

    def next_double(self) -> float:
        return ((self._next(26) << 27) + self._next(27)) * 2.0**-53


def _checked(value, low: int, high: int, what: str) -> int:
    """``value`` as an int if it is an integer (not a bool) in low..high, else InvalidBoundError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidBoundError(f"{what} must be an integer {low}..{high}, got {value!r}")
    if not low <= int(value) <= high:
        raise InvalidBoundError(f"{what} must be {low}..{high}, got {value}")
    return int(value)


def java_shuffle(items: MutableSequence[T], rnd: JavaRandom) -> None:
    """Shuffle in place exactly as ``Collections.shuffle(list, rnd)`` does."""
    if not isinstance(rnd, JavaRandom):
        raise InvalidSeedError(f"java_shuffle draws from a JavaRandom (JavaRandom(seed)), got {rnd!r}")
    draw = rnd._next_below  # the bounds 2..len(items) need no checks
    for i in range(len(items), 1, -1):
        j = draw(i)
        items[i - 1], items[j] = items[j], items[i - 1]
