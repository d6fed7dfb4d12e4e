"""Named players for the command line: ``random``, ``greedy`` and the agents.

A player spec is ``NAME`` or ``NAME:key=value,key=value`` for a registered player,
or ``package.module:ClassName[:key=value,...]`` for a class in the user's own code.
Values are parsed as int, float, bool or left as text.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

from ..errors import PokerSquaresError

__all__ = ["PlayerInfo", "register_player", "register_player_family", "list_players", "make_player",
           "parse_player_spec", "UnknownPlayerError"]


class UnknownPlayerError(PokerSquaresError):
    """A player spec that names no registered player or importable class."""


@dataclass(frozen=True)
class PlayerInfo:
    name: str
    factory: Callable[..., Any]
    description: str
    cores: int = 1


_REGISTRY: dict[str, PlayerInfo] = {}
# Open-ended families of players named PREFIX:MEMBER (``java:MyPlayer``): prefix -> resolver.
_FAMILIES: dict[str, Callable[[str], Any]] = {}
_BUILTINS_LOADED = False


def register_player(name: str, description: str, cores: int = 1):
    """Class decorator (or call) registering a player factory under ``name``."""
    def wrap(factory):
        _REGISTRY[name] = PlayerInfo(name, factory, description, cores)
        return factory
    return wrap


def register_player_family(prefix: str, resolve: Callable[[str], Any]) -> None:
    """Players named ``PREFIX:MEMBER`` (e.g. ``java:MyPlayer``): ``resolve(member)`` returns
    the member's factory, or raises :class:`UnknownPlayerError` saying what is wrong."""
    _FAMILIES[prefix] = resolve


def _load_builtins() -> None:
    global _BUILTINS_LOADED
    if not _BUILTINS_LOADED:
        _BUILTINS_LOADED = True
        importlib.import_module("pokersquares.players")


def list_players() -> list[PlayerInfo]:
    _load_builtins()
    return list(_REGISTRY.values())


def _parse_value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def _parse_params(text: str) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise UnknownPlayerError(f"player parameter {part!r} is not key=value")
        params[key.strip().replace("-", "_")] = _parse_value(value.strip())
    return params


def parse_player_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split a spec into the player's name (or ``module:Class``) and its parameters."""
    _load_builtins()
    head, _, rest = spec.strip().partition(":")
    if head in _REGISTRY:
        return head, _parse_params(rest)
    member, _, params = rest.partition(":")
    if f"{head}:{member}" in _REGISTRY or (head in _FAMILIES and member):
        return f"{head}:{member}", _parse_params(params)
    if rest and "=" not in rest.partition(":")[0]:
        cls, _, params = rest.partition(":")
        return f"{head}:{cls}", _parse_params(params)
    known = ", ".join(sorted(_REGISTRY))
    raise UnknownPlayerError(f"unknown player {spec!r}; known players: {known} (or module.path:ClassName)")


def resolve_factory(name: str) -> tuple[Callable[..., Any], int]:
    _load_builtins()
    if name in _REGISTRY:
        info = _REGISTRY[name]
        return info.factory, info.cores
    module_name, _, cls_name = name.partition(":")
    if module_name in _FAMILIES:
        factory = _FAMILIES[module_name](cls_name)
        return factory, int(getattr(factory, "cores", 1))
    try:
        module = importlib.import_module(module_name)
    except Exception as e:  # an import error of any kind is the user's to see in one line
        raise UnknownPlayerError(f"cannot import player module {module_name!r}: {type(e).__name__}: {e}") from None
    try:
        factory = getattr(module, cls_name)
    except AttributeError:
        raise UnknownPlayerError(f"module {module_name!r} has no {cls_name!r}") from None
    return factory, int(getattr(factory, "cores", 1))


def make_player(spec: str):
    """Build the player a spec names, with its parameters."""
    name, params = parse_player_spec(spec)
    factory, _ = resolve_factory(name)
    try:
        return factory(**params)
    except TypeError as e:
        raise UnknownPlayerError(f"bad parameters for player {name!r}: {e}") from None
