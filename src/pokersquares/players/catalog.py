"""The catalogue of built-in players: each module of this package marks its players
with :func:`register_player` (and open-ended families such as ``java:CLASS`` with
:func:`register_player_family`). The harness's registry reads this catalogue the first
time it needs a player's name, so imports point one way: the registry imports the
players, and no player imports the registry.
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["ENTRIES", "FAMILIES", "register_player", "register_player_family"]

# (name, factory, description, cores), in the order the modules are imported.
ENTRIES: list[tuple[str, Callable[..., Any], str, int]] = []
# (prefix, resolve): players named PREFIX:MEMBER; ``resolve(member)`` returns the factory.
FAMILIES: list[tuple[str, Callable[[str], Any]]] = []


def register_player(name: str, description: str, cores: int = 1):
    """Class or function decorator: a built-in player under ``name``."""
    def wrap(factory):
        ENTRIES.append((name, factory, description, cores))
        return factory
    return wrap


def register_player_family(prefix: str, resolve: Callable[[str], Any]) -> None:
    """Players named ``PREFIX:MEMBER``: ``resolve(member)`` returns the member's factory,
    or raises :class:`~pokersquares.errors.UnknownPlayerError` saying what is wrong."""
    FAMILIES.append((prefix, resolve))
