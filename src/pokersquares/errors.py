"""The errors a user can cause, each a ``ValueError`` so callers can catch them exactly.

The command line turns any ``PokerSquaresError`` into a one-line message and a
non-zero exit.
"""

__all__ = [
    "PokerSquaresError", "InvalidCardError", "InvalidPointSystemError",
    "IllegalPlacementError", "InvalidSeedError", "UnknownPlayerError", "NotPreparedError",
    "InvalidHandError", "InvalidCellError", "InvalidBoundError", "did_you_mean",
]


def did_you_mean(word: str, choices) -> str:
    """`` (did you mean 'x'?)`` for the choice closest to ``word`` when one is close (a
    letter missing, doubled or swapped, another case), else ''."""
    import difflib

    lowered = {c.lower(): c for c in choices}
    close = difflib.get_close_matches(word.strip().lower(), list(lowered), n=1, cutoff=0.8)
    return f" (did you mean {lowered[close[0]]!r}?)" if close else ""


class PokerSquaresError(ValueError):
    """Base class of every error caused by bad input."""


class InvalidCardError(PokerSquaresError):
    """Card text that is not a card, a duplicate card, or the wrong number of cards."""


class InvalidPointSystemError(PokerSquaresError):
    """A point system spec that cannot be parsed."""


class IllegalPlacementError(PokerSquaresError):
    """A placement outside the grid, onto an occupied cell, or of a card already dealt."""


class InvalidSeedError(PokerSquaresError):
    """A seed that is not an integer."""


class UnknownPlayerError(PokerSquaresError):
    """A player spec that names no registered player or importable class, or parameters
    that player does not take."""


class NotPreparedError(PokerSquaresError):
    """An evaluator asked for values, playouts or learning before it has a point system
    (before ``prepare`` or ``load``): its values would be those of no game."""


class InvalidHandError(PokerSquaresError):
    """A hand name or hand id that names none of the ten hands."""


class InvalidCellError(PokerSquaresError, IndexError):
    """A cell or line that is not on the grid: ``(row, col)`` outside 0..4, a line
    outside 0..9, a cell index outside 0..24, or per-cell values that are not one per
    cell. Also an ``IndexError``, as a lookup off the end of a list is (numpy's
    ``AxisError`` is a ``ValueError`` and an ``IndexError`` alike)."""


class InvalidBoundError(PokerSquaresError):
    """A bound or bit count ``java.util.Random`` would not take: ``nextInt``'s bound is a
    Java int 1..2**31-1, ``next``'s bits 0..32."""
