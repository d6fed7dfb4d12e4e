"""pokersquares: Parameterized Poker Squares as the 2016 EAAI contest ran it.

The core types live in a few modules: :mod:`~pokersquares.cards` (card ids, deals),
:mod:`~pokersquares.hands` (classification), :mod:`~pokersquares.points` (point
systems), :mod:`~pokersquares.game` (grid and game). They know nothing of players.

The names below are loaded when first used (``from pokersquares import Game`` works as
ever), so that importing a submodule, the command line's entry first of all, does not
import numpy before it can answer a Ctrl-C.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__version__ = "0.1.0"

_HOMES = {
    "cards": ("Card", "card_name", "deal", "parse_card", "parse_cards"),
    "errors": ("PokerSquaresError", "InvalidCardError", "InvalidPointSystemError", "IllegalPlacementError"),
    "game": ("Game", "Grid"),
    "hands": ("HAND_NAMES", "HandId", "classify"),
    "points": ("AMERICAN", "BRITISH", "PointSystem", "contest_systems", "parse_point_system", "parse_point_systems"),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [name for names in _HOMES.values() for name in names] + ["versions"]


def __getattr__(name: str):
    if name in _HOMES:  # the modules themselves, as ``import pokersquares`` once loaded them
        return importlib.import_module(f".{name}", __name__)
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'pokersquares' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # the next use is a plain lookup
    return value


def versions() -> dict[str, str]:
    """This toolkit's version, its champion's (the version its games are recorded under),
    where it is installed, and the versions of Python, numpy and numba it runs on: what a
    bug report or a published figure should state (``pokersquares --version``)."""
    import platform
    from importlib.metadata import PackageNotFoundError, version
    from pathlib import Path

    from .harness.registry import resolve_factory

    found = {"pokersquares": __version__, "champion": str(getattr(resolve_factory("champion")[0], "version", "1")),
             "path": str(Path(__file__).resolve().parent), "python": platform.python_version()}
    for name in ("numpy", "numba"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:  # pragma: no cover - both are requirements
            found[name] = "not installed"
    return found


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # what the names are, for type checkers and editors
    from .cards import Card, card_name, deal, parse_card, parse_cards
    from .errors import IllegalPlacementError, InvalidCardError, InvalidPointSystemError, PokerSquaresError
    from .game import Game, Grid
    from .hands import HAND_NAMES, HandId, classify
    from .points import AMERICAN, BRITISH, PointSystem, contest_systems, parse_point_system, parse_point_systems
