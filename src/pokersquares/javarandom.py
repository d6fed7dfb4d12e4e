"""A bit-exact port of ``java.util.Random`` and ``Collections.shuffle``.

The 2016 contest framework drew every deal and every generated point system from
``java.util.Random``; reproducing its 48-bit linear congruential generator exactly is
what makes a seed here mean the same game as a seed there.
"""

from __future__ import annotations

from typing import MutableSequence, TypeVar

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
        # Java takes a long: a seed outside 64 bits wraps, as a Java caller's would.
        self._state = (_to_int64(seed) ^ _MULTIPLIER) & _MASK

    def next(self, bits: int) -> int:
        self._state = (self._state * _MULTIPLIER + _ADDEND) & _MASK
        return _to_int32(self._state >> (48 - bits))

    def next_int(self, bound: int | None = None) -> int:
        if bound is None:
            return self.next(32)
        if bound <= 0:
            raise ValueError("bound must be positive")
        if bound & (bound - 1) == 0:
            return _to_int32((bound * self.next(31)) >> 31)
        while True:
            bits = self.next(31)
            val = bits % bound
            # Java rejects the draw when this sum overflows a signed 32-bit int.
            if bits - val + (bound - 1) < (1 << 31):
                return val

    def next_long(self) -> int:
        return _to_int64((self.next(32) << 32) + self.next(32))

    def next_boolean(self) -> bool:
        return self.next(1) != 0

    def next_double(self) -> float:
        return ((self.next(26) << 27) + self.next(27)) * 2.0**-53


def java_shuffle(items: MutableSequence[T], rnd: JavaRandom) -> None:
    """Shuffle in place exactly as ``Collections.shuffle(list, rnd)`` does."""
    for i in range(len(items), 1, -1):
        j = rnd.next_int(i)
        items[i - 1], items[j] = items[j], items[i - 1]
