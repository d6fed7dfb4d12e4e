"""Named players for the command line: ``random``, ``greedy`` and the agents.

The built-in players come from the catalogue of :mod:`pokersquares.players`, read the
first time a name is needed (so commands that name no player never import the agents);
imports point one way: this registry imports the players, no player imports it. A
user's code may add players with :func:`register_player`.

A player spec is ``NAME`` or ``NAME:key=value,key=value`` for a registered player,
or ``package.module:ClassName[:key=value,...]`` for a class in the user's own code.
Values are parsed as int, float, bool or left as text. A list of players
(:func:`split_player_list`) is separated by commas or ``;``; a ``key=value`` part
after a comma belongs to the player before it, so ``champion:depth=25,stop_z=2,beemo``
lists two players.
"""

from __future__ import annotations

import contextlib
import contextvars
import importlib
import inspect
import math
import re
import signal
import sys
import threading
from dataclasses import dataclass
from typing import Any, Callable

from ..cards import is_integer
from ..errors import PokerSquaresError, UnknownPlayerError, did_you_mean
from ..points import integer_or_none

__all__ = ["PlayerInfo", "register_player", "register_player_family", "list_players", "make_player",
           "parse_player_spec", "split_player_list", "canonical_spec", "spec_identity", "check_params", "factory_parameters", "text_parameters",
           "checked_player", "CheckedPlayer", "one_build_per_spec", "loaded_points", "UnknownPlayerError"]


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
# Held while the catalogue is read: a second thread waits for it, not reads an empty
# registry ("unknown player 'greedy'"). Reentrant: the players' import may name a player.
_BUILTINS_LOCK = threading.RLock()
_BUILTINS_LOADING = False
PLAYER_METHODS = ("set_point_system", "start_game", "get_play")  # the contest's protocol (harness.player.Player)


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
    """Register the built-in players of :mod:`pokersquares.players`' catalogue (a name a
    user's code registered first keeps its meaning). Marked loaded only once read whole:
    an import stopped part way (Ctrl-C in a notebook) is tried again at the next call,
    not left as an empty registry for the rest of the interpreter's life."""
    global _BUILTINS_LOADED, _BUILTINS_LOADING
    if _BUILTINS_LOADED:
        return
    with _BUILTINS_LOCK:
        if _BUILTINS_LOADED or _BUILTINS_LOADING:  # read meanwhile, or asked again from within the import
            return
        _BUILTINS_LOADING = True
        try:
            importlib.import_module("pokersquares.players")  # each of its modules marks its players
            # By its own name: after an import stopped part way the package is imported
            # anew, and a submodule imported the first time is no attribute of the new one.
            catalog = importlib.import_module("pokersquares.players.catalog")
            # The last mark of a name: a module stopped part way marks its players again
            # when imported anew, and its first marks belong to the module that failed.
            entries = {name: (factory, description, cores) for name, factory, description, cores in catalog.ENTRIES}
            for name, (factory, description, cores) in entries.items():
                _REGISTRY.setdefault(name, PlayerInfo(name, factory, description, cores))
            for prefix, resolve in catalog.FAMILIES:
                _FAMILIES.setdefault(prefix, resolve)
            _BUILTINS_LOADED = True
        finally:
            _BUILTINS_LOADING = False


def list_players() -> list[PlayerInfo]:
    _load_builtins()
    return list(_REGISTRY.values())


_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?(inf|infinity|nan)", re.IGNORECASE)
INT_LIMIT = 2 ** 63  # a parameter's integers are 64-bit, as the kernels take them
MAX_CORES = 64


def _parse_value(text: str) -> Any:
    """``true``/``false``, an integer or a number written in ASCII (not ``1_000``,
    which ``int()`` would take), else the text itself."""
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    value = integer_or_none(text)
    if value is not None:
        return value
    if _NUMBER.fullmatch(text):
        return float(text)
    return text


class _Params(dict):
    """Parsed parameters, and (``text``) each as it was written: a parameter that takes
    text (a file name: ``load=007``, ``load=1e3``, ``load=true``) is given that, not the
    number or flag it reads as."""

    def __init__(self) -> None:
        super().__init__()
        self.text: dict[str, str] = {}


def _parse_params(text: str) -> _Params:
    params = _Params()
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise UnknownPlayerError(f"player parameter {part!r} is not key=value")
        key = key.strip().replace("-", "_")
        if key in params:
            raise UnknownPlayerError(f"player parameter {key!r} is given twice")
        params[key] = _parse_value(value.strip())
        params.text[key] = value.strip()
    return params


def canonical_spec(spec: str) -> str:
    """The spec as a run is known by: surrounding blanks and a colon with no parameters
    after it dropped (``greedy:`` and `` greedy`` are ``greedy``, one run in the store)."""
    _check_spec_text(spec)
    text = spec.strip()
    return text[:-1].rstrip() if text.endswith(":") else text


def spec_identity(spec: str) -> tuple:
    """What a spec plays, whatever the order its parameters are written in:
    ``x:a=1,b=2`` and ``x:b=2,a=1`` are one player (each parameter as written: ``a=1`` and
    ``a=1.0`` are not taken for one). Read from the text alone (no module is imported);
    UnknownPlayerError for a spec that cannot be read as one."""
    name, params = parse_player_spec(spec)
    return name, tuple(sorted(params.text.items()))


def split_player_list(text: str) -> list[str]:
    """Player specs separated by commas or ``;``. A part that is ``key=value`` (an
    ``=`` before any ``:``, which no player's name has) is one more parameter of the
    player before it: ``greedy,champion:depth=25,stop_z=2`` is ``greedy`` and
    ``champion:depth=25,stop_z=2``."""
    specs: list[str] = []
    for group in text.split(";"):  # a ';' ends the parameters of the player before it
        listed: list[str] = []
        for part in (p.strip() for p in group.split(",")):
            if not part:
                continue
            if "=" not in part.partition(":")[0]:
                listed.append(canonical_spec(part))
            elif listed and ":" in listed[-1]:
                listed[-1] += "," + part
            else:
                raise UnknownPlayerError(f"player parameter {part!r} follows no player with parameters "
                                         f"(write NAME:{part})")
        specs += listed
    return specs


def _check_spec_text(spec) -> None:
    if not isinstance(spec, str):
        raise UnknownPlayerError(f"a player spec is text (such as 'greedy' or 'champion:depth=25'), got {spec!r}")


def parse_player_spec(spec: str) -> tuple[str, _Params]:
    """Split a spec into the player's name (or ``module:Class``) and its parameters."""
    _check_spec_text(spec)
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
    raise UnknownPlayerError(f"unknown player {spec!r}{did_you_mean(head, _REGISTRY)}; known players: {known} "
                             f"(or module.path:ClassName)")


def resolve_factory(name: str) -> tuple[Callable[..., Any], int | None]:
    _load_builtins()
    if name in _REGISTRY:
        info = _REGISTRY[name]
        return info.factory, info.cores
    module_name, _, cls_name = name.partition(":")
    if module_name in _FAMILIES:
        factory = _FAMILIES[module_name](cls_name)
        return factory, declared_cores(name, factory)
    try:
        with contextlib.redirect_stdout(sys.stderr):  # a module's prints never reach --json
            module = importlib.import_module(module_name)
    except Exception as e:  # an import error of any kind is the user's to see in one line
        raise UnknownPlayerError(f"cannot import player module {module_name!r}: {type(e).__name__}: {e}") from None
    try:
        factory = getattr(module, cls_name)
    except AttributeError:
        raise UnknownPlayerError(f"module {module_name!r} has no {cls_name!r}") from None
    if not isinstance(factory, type) and not hasattr(factory, "cores"):
        return factory, None  # a function making the player: its player says (spec.player_cores)
    return factory, declared_cores(name, factory)


def player_module(name: str) -> str | None:
    """The module a ``module:Class`` (or ``module:function``) player's name imports, or
    None for a registered player or a family's member (``java:MyPlayer``)."""
    _load_builtins()
    module_name, colon, _ = name.partition(":")
    if not colon or name in _REGISTRY or module_name in _REGISTRY or module_name in _FAMILIES:
        return None
    return module_name


def declared_cores(name: str, factory) -> int:
    """The cores a player class (or a player, or its :class:`CheckedPlayer`) says one game
    keeps busy: an integer 1..MAX_CORES."""
    cores = getattr(factory, "cores", 1)
    if not is_integer(cores) or not 1 <= cores <= MAX_CORES:
        raise UnknownPlayerError(f"player {name!r} declares cores = {cores!r}: it must be an integer 1..{MAX_CORES}")
    return int(cores)


def _kind(annotation: Any, default: Any) -> str | None:
    """What a factory parameter takes: "bool", "int", "number", "text", or None
    (anything), from its annotation (text, under ``from __future__ import annotations``)
    or default."""
    words = set(re.findall(r"[A-Za-z_]+", annotation if isinstance(annotation, str) else
                           getattr(annotation, "__name__", "") if annotation is not inspect.Parameter.empty else ""))
    words.discard("None")
    if words == {"str"}:
        return "text"
    if words == {"bool"}:
        return "bool"
    if words == {"int"}:
        return "int"
    if words and words <= {"int", "float"}:
        return "number"
    if words:
        return None
    if isinstance(default, bool):
        return "bool"
    if isinstance(default, (int, float)):
        return "number"
    return None


def _accepted(factory: Callable[..., Any]) -> tuple[dict[str, inspect.Parameter], bool] | None:
    """The ``key=value`` parameters a factory takes, by name, and whether it takes others
    too (``**options``, which the factory checks itself); None when its signature cannot
    be read (a builtin or C factory)."""
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return None
    accepted = {k: p for k, p in sig.parameters.items()
                if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and k != "self"}
    return accepted, any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())


def factory_parameters(factory: Callable[..., Any]) -> tuple[list[str], bool] | None:
    """The parameters a player's factory takes (``NAME:key=value``), in its order, as
    :func:`check_params` checks them, and whether it takes others it checks itself;
    None when they cannot be known."""
    found = _accepted(factory)
    return None if found is None else (list(found[0]), found[1])


def text_parameters(name: str) -> set[str]:
    """The parameters of player ``name`` that take text (a file to load): given as
    written, never as the number or flag the text reads as. Empty when the player or its
    signature cannot be found (building it says why)."""
    try:
        found = _accepted(resolve_factory(name)[0])
    except (UnknownPlayerError, ImportError, AttributeError):
        return set()
    return set() if found is None else {k for k, p in found[0].items() if _kind(p.annotation, p.default) == "text"}


def check_params(name: str, factory: Callable[..., Any], params: dict[str, Any]) -> None:
    """Each parameter is one the factory accepts, of the kind it takes (a number where a
    number is expected); otherwise one line naming what it accepts."""
    found = _accepted(factory)
    if found is None:  # nothing to check against
        return
    accepted, open_ended = found
    for key, value in params.items():
        if key not in accepted:
            if open_ended:
                continue
            known = ", ".join(accepted) or "none"
            raise UnknownPlayerError(f"bad parameters for player {name!r}: it takes no parameter {key!r}; "
                                     f"its parameters: {known}")
        kind = _kind(accepted[key].annotation, accepted[key].default)
        if kind == "text" and not isinstance(value, str) and key in (text := getattr(params, "text", {})):
            params[key] = value = text[key]  # ``load=007`` names the file 007, not 7
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        # Before any float() of it: an integer of hundreds of digits overflows a float.
        if number and isinstance(value, int) and not -INT_LIMIT <= value < INT_LIMIT:
            raise UnknownPlayerError(f"parameter {key} of player {name!r} is too large: {value!r}")
        if kind == "bool" and not isinstance(value, bool):
            raise UnknownPlayerError(f"parameter {key} of player {name!r} takes true or false, got {value!r}")
        if kind == "int" and not (number and float(value).is_integer()):
            raise UnknownPlayerError(f"parameter {key} of player {name!r} takes an integer, got {value!r}")
        if kind == "number" and not (number and math.isfinite(value)):
            raise UnknownPlayerError(f"parameter {key} of player {name!r} takes a finite number, got {value!r}")
        if kind == "int" and not isinstance(value, int):
            params[key] = int(value)
        if isinstance(params[key], int) and not isinstance(params[key], bool) and not -INT_LIMIT <= params[key] < INT_LIMIT:
            raise UnknownPlayerError(f"parameter {key} of player {name!r} is too large: {value!r}")
    cores = params.get("cores", 1)
    if isinstance(cores, bool) or not isinstance(cores, int) or not 1 <= cores <= MAX_CORES:
        raise UnknownPlayerError(f"parameter cores of player {name!r} takes a whole number from 1 to {MAX_CORES}, "
                                 f"got {cores!r}")


# How long a player's constructor may take in the command's own process (the check that
# a spec builds, before any store row or game): as long as a worker's build and warm-up.
BUILD_LIMIT_S = 900.0


class _ConstructorTimeout(BaseException):
    """Raised in the constructor when it overruns (a BaseException: a constructor's own
    ``except Exception`` does not swallow it)."""


@contextlib.contextmanager
def _time_limit(seconds: float):
    """Interrupt the block after ``seconds`` (SIGALRM) when that can be done here: in the
    main thread, with no other use of the alarm; elsewhere the block is not timed (worker
    processes time their builds from outside, the web app builds in threads)."""
    usable = (hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
              and signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None)
              and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0))
    if not usable:
        yield
        return

    def overrun(signum, frame):
        raise _ConstructorTimeout

    signal.signal(signal.SIGALRM, overrun)
    try:
        signal.setitimer(signal.ITIMER_REAL, seconds)
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)


def make_player(spec: str):
    """Build the player a spec names, with its parameters, without preparing it: a bad
    parameter, or one its constructor refuses (a missing file to load), fails here in one line."""
    name, params = parse_player_spec(spec)
    factory, _ = resolve_factory(name)
    check_params(name, factory, params)
    try:
        with _time_limit(BUILD_LIMIT_S), contextlib.redirect_stdout(sys.stderr):  # prints never reach --json
            player = factory(**params)
    except _ConstructorTimeout:
        raise UnknownPlayerError(f"player {spec!r} cannot be built: its constructor did not return "
                                 f"within {BUILD_LIMIT_S:g} s") from None
    except PokerSquaresError:
        raise
    except TypeError as e:
        raise UnknownPlayerError(f"bad parameters for player {name!r}: {e}") from None
    except OSError as e:
        what = f": {e.filename}" if e.filename else ""
        raise UnknownPlayerError(f"player {spec!r} cannot be built: {e.strerror or e}{what}") from None
    except Exception as e:  # the constructor refused its parameters: the user's to fix, in one line
        raise UnknownPlayerError(f"player {spec!r} cannot be built: {type(e).__name__}: {e}") from None
    missing = [m for m in PLAYER_METHODS if not callable(getattr(player, m, None))]
    if missing:
        raise UnknownPlayerError(f"{name!r} is not a player: it has no {', '.join(missing)} "
                                 "(a player has set_point_system, start_game and get_play)")
    return player


def loaded_points(player) -> tuple[int, ...] | None:
    """The points the saved state ``player``'s evaluator loaded (``load=FILE``) was learned
    for, or None when it loaded none
    (:meth:`~pokersquares.evaluators.base.Evaluator.loaded_points`)."""
    ask = getattr(getattr(player, "evaluator", None), "loaded_points", None)
    return ask() if callable(ask) else None


@dataclass(frozen=True)
class CheckedPlayer:
    """What the command's own process learns from building a spec's player, kept in place
    of the player (which holds its tables: forty settings of the champion held 325 MB for
    as long as their sweep ran): the ``cores`` it says one game keeps busy, as it says them
    (:func:`declared_cores` reads them), and the ``points`` its saved state was learned
    for (:func:`loaded_points`)."""
    cores: Any
    points: tuple[int, ...] | None


# What a command's checks learned of each spec's player (spec_identity), while one_build_per_spec holds.
_CHECKED: contextvars.ContextVar[dict | None] = contextvars.ContextVar("checked_players", default=None)


@contextlib.contextmanager
def one_build_per_spec():
    """Within the block (a command, one call of the harness), :func:`checked_player` builds
    each spec once; a block within another shares what the outer one learned."""
    if _CHECKED.get() is not None:
        yield
        return
    token = _CHECKED.set({})
    try:
        yield
    finally:
        _CHECKED.reset(token)


def _checked(spec: str) -> CheckedPlayer:
    player = make_player(spec)
    # Only a spec that loads a state has its points asked: a user's own player may have
    # an ``evaluator`` of its own, whose ``loaded_points`` is not ours to call.
    loads = "load" in parse_player_spec(spec)[1]
    return CheckedPlayer(getattr(player, "cores", 1), loaded_points(player) if loads else None)


def checked_player(spec: str) -> CheckedPlayer:
    """What the command's own process learns from the player a spec names: that it builds
    (else :func:`make_player`'s error), the cores it declares, the points of the state it
    loaded. The player is dropped once asked (a game's player is built where it plays);
    within :func:`one_build_per_spec` what it said is kept, its constructor run once."""
    built = _CHECKED.get()
    if built is None:
        return _checked(spec)
    key = spec_identity(spec)
    if key not in built:
        built[key] = _checked(spec)
    return built[key]
