"""What a run is (:class:`RunSpec`), checked when made, and how one player is built,
warmed up and prepared in whichever process will play it. Both backends (local
worker processes, Ray tasks) use these; neither imports the other.
"""

from __future__ import annotations

import inspect
import math
import pickle
import time
from dataclasses import dataclass
from typing import Any, Callable

from .. import progress
from ..cards import as_sequence, check_seed, is_integer, is_seconds
from ..errors import PokerSquaresError
from ..machine import usable_cores
from ..points import PointSystem
from .game_play import prepare_player, seed_global_randomness
from .registry import (canonical_spec, check_params, checked_player, declared_cores, loaded_points, make_player,
                       one_build_per_spec, parse_player_spec, resolve_factory)
from .seeds import player_seed

__all__ = ["RunSpec", "RunSpecError", "PlayerFailedError", "check_seconds", "check_workers",
           "check_game_indices", "player_cores", "prep_cores", "default_workers",
           "build", "build_and_prepare", "load_prepared", "handoff_blob", "prepare_for_handoff", "prepare_and_pickle", "limit_threads", "MAX_GAMES", "MAX_SECONDS", "HANG_GRACE_S", "prep_limit_s", "prep_overrun_note",
           "DEFAULT_MEMORY_MB", "OutOfMemoryError", "MAX_SECRET", "WARM_UP_LIMIT_S", "build_overrun", "load_overrun"]

# The largest run and the longest budgets a RunSpec accepts: beyond them a typo, not a plan.
MAX_GAMES = 10_000_000
MAX_SECONDS = 1e6
# Slack beyond the contest limits before the watchdog stops a player: the player's own
# clock decides timeouts; this only catches players that never answer.
HANG_GRACE_S = 2.0
# A preparation past its budget is stopped (every game of the run then scores the
# penalty) once it is this share of the budget over, or HANG_GRACE_S if more; one that
# ends past its budget but before that is told on stderr (prep_overrun_note).
PREP_GRACE_SHARE = 0.02
PREP_NOTE_SLACK_S = 0.05
PREP_NOTE_SLACK_SHARE = 0.01
# How long building a player and warming it up (compiling its kernels into a cold numba
# cache, which a busy machine slows many times over) may take: untimed, as the contest
# did not time class loading, but a player stuck there is stopped after this long.
WARM_UP_LIMIT_S = 900.0


def prep_limit_s(prep_time: float) -> float:
    """When the watchdog stops a preparation that has not ended (seconds from its start)."""
    return prep_time + max(HANG_GRACE_S, PREP_GRACE_SHARE * prep_time)


def prep_overrun_note(player: str, prep_time: float, used: float) -> str | None:
    """What to tell the user of a preparation that ended past its budget (by more than
    the milliseconds handing over an unprepared player takes), else None."""
    if used - prep_time <= max(PREP_NOTE_SLACK_S, PREP_NOTE_SLACK_SHARE * prep_time):
        return None
    return (f"{player!r} took {used:.2f} s to prepare (learning and handing itself over), past its budget of "
            f"{prep_time:g} s; its games count, but it had {used - prep_time:.2f} s more than the budget gives "
            f"(a preparation is stopped {prep_limit_s(prep_time) - prep_time:g} s over)")


def build_overrun(limit_s: float) -> str:
    """Why every game of a run scores the penalty when building its player overran."""
    return f"building and warming up took over {limit_s:g} s"


def load_overrun(limit_s: float, stopped: str) -> str:
    """Why a game scores the penalty when loading its player into ``stopped`` (the
    process or task then stopped) overran."""
    return f"loading and warming up the player took over {limit_s:g} s; the player's {stopped} was stopped"


# Resident memory one game process may use before it is stopped and its game penalised
# (BeeMo, the largest agent, uses about 450 MB). 0: no limit.
DEFAULT_MEMORY_MB = 4096


class RunSpecError(PokerSquaresError):
    """A run's game count, seeds, time limits or memory limit out of range."""


class PlayerFailedError(PokerSquaresError):
    """The player could not even be built (bad parameters, import error)."""


class OutOfMemoryError(PokerSquaresError):
    """The machine ran out of memory while a player was prepared: the machine's condition,
    not the player's fault, so the run stops with nothing recorded instead of scoring
    every one of its games the penalty for good."""


def check_seconds(value: float, what: str, *, zero_ok: bool) -> float:
    """``value`` as seconds, or one line saying why not (inf, nan, negative, absurd)."""
    if not is_seconds(value) or not math.isfinite(value):  # numpy's numbers too (a notebook's)
        raise RunSpecError(f"{what} must be a finite number of seconds, got {value!r}")
    value = float(value)
    if value < 0 or (value == 0 and not zero_ok):
        raise RunSpecError(f"{what} must be {'at least 0' if zero_ok else 'more than 0'} s, got {value:g}")
    if value > MAX_SECONDS:
        raise RunSpecError(f"{what} of {value:g} s is over the limit of {MAX_SECONDS:g} s")
    return float(value) + 0.0  # -0.0 is 0.0 (a run's key is made of these)


def check_workers(workers) -> int | None:
    """``workers`` (parallel games) if it is None (as many as fit) or a whole number from 1, else RunSpecError."""
    if workers is not None and (not is_integer(workers) or workers < 1):
        raise RunSpecError(f"the number of workers must be a whole number from 1 (or None: as many as fit), "
                           f"got {workers!r}")
    return None if workers is None else int(workers)


def check_game_indices(spec: "RunSpec", indices) -> list[int]:
    """The games ``indices`` of ``spec`` to play, as sorted ints, each one of its games
    (0..games-1), else RunSpecError: game ``i`` is dealt ``spec.seed + i``, and an index
    outside the run would play (and record) a deal that is not the run's."""
    if not isinstance(spec, RunSpec):
        raise RunSpecError(f"a run is a RunSpec, got {spec!r}")
    wanted = as_sequence(indices, "the games to play (indices)", RunSpecError)
    for i in wanted:
        if not is_integer(i) or not 0 <= i < spec.games:
            raise RunSpecError(f"the games to play are indices from 0 to {spec.games - 1} (the run's "
                               f"{spec.games} games), got {i!r}")
    indices = sorted(int(i) for i in wanted)
    twice = next((a for a, b in zip(indices, indices[1:]) if a == b), None)
    if twice is not None:  # it would be played twice, and only its first record kept
        raise RunSpecError(f"the games to play list game {twice} twice")
    return indices


MAX_SECRET = 256  # characters of a run's secret given by hand


@dataclass(frozen=True)
class RunSpec:
    """One run's settings, checked when made: every game's seed is a Java long, the
    time limits are finite, and the run is not absurdly large. ``memory_mb`` caps each
    game process's resident memory (0: no cap); it is a safety limit, not part of
    what identifies the run."""

    player: str
    point_system: PointSystem
    games: int
    seed: int = 0
    time_per_game: float = 30.0
    prep_time: float = 300.0
    memory_mb: int = DEFAULT_MEMORY_MB
    # The key of the player's seeds (harness/seeds.py): the store keeps one per run, this
    # one if given (the same key replays the players' randomness in any store), else a
    # fresh one; run_games alone makes a fresh one for each call.
    secret: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.player, str):
            raise RunSpecError(f"the player must be a spec (text), got {self.player!r}")
        object.__setattr__(self, "player", canonical_spec(self.player))
        if not isinstance(self.point_system, PointSystem):
            raise RunSpecError(f"the point system must be a PointSystem (parse_point_system('american'), ...), "
                               f"got {self.point_system!r}")
        if not is_integer(self.games) or not 0 <= self.games <= MAX_GAMES:
            raise RunSpecError(f"the number of games must be an integer from 0 to {MAX_GAMES:,}, got {self.games!r}")
        object.__setattr__(self, "games", int(self.games))  # numpy's int64 too, kept as a plain int
        # A plain int: numpy's int64 would wrap past the last seed (seed + games - 1) unseen.
        object.__setattr__(self, "seed", check_seed(self.seed, "the first seed"))
        if self.games:
            check_seed(self.seed + self.games - 1, "the last game's seed (seed + games - 1)")
        object.__setattr__(self, "time_per_game", check_seconds(self.time_per_game, "the time per game", zero_ok=False))
        object.__setattr__(self, "prep_time", check_seconds(self.prep_time, "the preparation time", zero_ok=True))
        if not is_integer(self.memory_mb) or self.memory_mb < 0:
            raise RunSpecError(f"the memory limit must be a whole number of MB (0: none), got {self.memory_mb!r}")
        object.__setattr__(self, "memory_mb", int(self.memory_mb))
        if self.secret is not None and not (isinstance(self.secret, str)
                                            and 0 < len(self.secret) <= MAX_SECRET and self.secret.isprintable()):
            raise RunSpecError(f"the run's secret is printable text of 1 to {MAX_SECRET} characters (or None: a "
                               f"fresh one), got {self.secret!r:.80}")

    def seeds(self) -> list[int]:
        return [self.seed + i for i in range(self.games)]

    def prep_seed(self) -> int:
        """The player's seed while it prepares (not the first deal's seed)."""
        return player_seed(self.secret, "prepare", self.seed)

    def player_seed(self, game_seed: int) -> int:
        """The player's seed in the game dealt by ``game_seed``."""
        return player_seed(self.secret, "game", game_seed)


def check_loaded_points(spec: str, point_system: PointSystem, player=None) -> None:
    """Refuse a player (built from ``spec`` unless given) whose saved state was learned for
    other points than ``point_system``'s: its preparation would drop the file and learn
    anew in its budget (nothing in 0 s), and the games would be recorded under the
    file's name, played by an untrained table (a British file run under American: 78.5
    a game, a warning inside the progress line, exit 0)."""
    saved = checked_player(spec).points if player is None else loaded_points(player)
    if saved is not None and saved != tuple(point_system.points):
        raise RunSpecError(f"{spec}: its saved state was learned for points {', '.join(map(str, saved))}, not "
                           f"{point_system.name}'s ({', '.join(map(str, point_system.points))}); train one for "
                           "these points (pokersquares train --system ...), or drop load= for a player that "
                           "learns in its preparation")


@one_build_per_spec()
def check_saved_states(specs: list[str], systems: list[PointSystem]) -> None:
    """Each player that loads a saved state (``load=FILE``), built once, checked against
    every point system it is to play (:func:`check_loaded_points`)."""
    for spec in dict.fromkeys(specs):
        if "load" in parse_player_spec(spec)[1]:
            for system in systems:
                check_loaded_points(spec, system)


def player_cores(spec: str) -> int:
    """How many cores one game of this player keeps busy (its preparation included):
    ``cores=`` when given, else the player's own threads parameter when given (a
    factory's ``threads_are_cores``: ``td:threads=1`` learns and searches on one
    core), else what the player declares."""
    name, params = parse_player_spec(spec)
    factory, cores = resolve_factory(name)
    check_params(name, factory, params)
    if "cores" in params:
        return max(1, int(params["cores"]))
    threads = getattr(factory, "threads_are_cores", None)
    if isinstance(threads, str) and threads in params:
        return max(1, int(params[threads]))
    if cores is None:  # ``module:function``: the player it makes declares them (it was taken as one core)
        cores = declared_cores(name, checked_player(spec))
    return max(1, cores)


def prep_cores(spec: str, most: int | None = None) -> int:
    """How many cores this player's preparation keeps busy: :func:`player_cores`, or more
    where its learners run on more threads than one of its games uses (a factory's
    ``prep_threads``: the name of the parameter that sets them, its default read from the
    factory, or a function of the spec's parameters giving their number; ``gettysburg``'s
    ``threads=``, 2 by default, while a game searches on one core). Those threads call
    kernels that release the GIL, which capping numba's threads does not hold: a Ray task
    reserving fewer CPUs shares them with the tasks Ray puts on the others. At most
    ``most`` (the CPUs of the largest machine that can run it: a Ray task asking for more
    would wait for ever), at least 1."""
    cores = player_cores(spec)
    name, params = parse_player_spec(spec)
    factory, _ = resolve_factory(name)
    check_params(name, factory, params)
    threads = getattr(factory, "prep_threads", None)
    value: Any = None
    if isinstance(threads, str):
        value = params.get(threads)
        if value is None:
            value = _parameter_default(factory, threads)
    elif callable(threads):  # learners that depend on what the spec gives (hybrid's evaluator=)
        value = threads(params)
    if is_integer(value) and not isinstance(value, bool):
        cores = max(cores, int(value))
    return max(1, cores if most is None else min(cores, int(most)))


def _parameter_default(factory, key: str):
    """The default of ``factory``'s parameter ``key``, or None."""
    try:
        parameter = inspect.signature(factory).parameters.get(key)
    except (TypeError, ValueError):
        return None
    return None if parameter is None or parameter.default is inspect.Parameter.empty else parameter.default


def default_workers(spec: str) -> int:
    """As many parallel games as fit the machine without sharing a core: a player that
    searches on several cores gets fewer parallel games."""
    return max(1, usable_cores() // player_cores(spec))


def limit_threads(cores: int) -> str | None:
    """Cap numba's threads in this process at ``cores``; the reason if that failed
    (the caller reports it: an uncapped player oversubscribes the machine)."""
    try:
        import numba
    except ImportError:
        return None  # nothing to cap
    try:
        numba.set_num_threads(max(1, min(cores, numba.config.NUMBA_NUM_THREADS)))  # type: ignore[attr-defined]
    except Exception as e:
        return f"cannot cap the player's threads at {cores}: {type(e).__name__}: {e}"
    return None


def build(spec: str, seed: int):
    """Build the player and warm it up (compile its kernels), untimed; seed it, and this
    process's own generators (a game or preparation process: :func:`seed_global_randomness`)."""
    seed_global_randomness(seed)
    return warm_and_seed(make_player(spec), seed)


def warm_and_seed(player, seed: int):
    """Warm ``player`` up (compile its kernels, said on the progress line when slow), untimed; seed it."""
    if hasattr(player, "warm_up"):
        with progress.report_if_slow("compiling its kernels (once: numba caches them)"):
            player.warm_up()
    if hasattr(player, "set_seed"):
        player.set_seed(seed)
    return player


def build_and_prepare(spec: str, system: PointSystem, prep_time: float, seed: int,
                      on_built: Callable[[], None] | None = None):
    """Build and warm up the player (untimed), then prepare it within ``prep_time``;
    ``on_built`` is called when the preprocessing clock starts. Returns the player
    and the seconds its preparation used."""
    player = build(spec, seed)
    if on_built is not None:
        on_built()
    return player, prepare_player(player, system, prep_time)


def load_prepared(blob: bytes):
    """The prepared player a game process plays with: unpickled, then warmed up (its
    kernels loaded from numba's cache) before the first game's clock starts. On a
    machine's first run each game process loads them from numba's fresh cache, and
    under load that took Tiger past every first game's limit (the local backend) and a
    greedy first game past half a second (the Ray backend, before it warmed up too)."""
    player = pickle.loads(blob)
    if hasattr(player, "warm_up"):
        player.warm_up()
    return player


def handoff_blob(player) -> tuple[bytes | None, str | None]:
    """The prepared player pickled for the game workers (part of its preparation budget),
    or ``(None, why)`` when it cannot be pickled: each worker then prepares its own copy."""
    try:
        return pickle.dumps(player), None
    except Exception as e:
        return None, f"{type(e).__name__}: {e}"


def prepare_for_handoff(player, system: PointSystem, prep_time: float) -> tuple[float, bytes | None]:
    """What the preparation process does once the clock starts: prepare ``player`` and
    pickle it. Returns the seconds both took (the budget covers them) and the bytes."""
    used, blob, _ = prepare_and_pickle(player, system, prep_time)
    return used, blob


def prepare_and_pickle(player, system: PointSystem, prep_time: float) -> tuple[float, bytes | None, str | None]:
    """:func:`prepare_for_handoff`, also saying why the player could not be pickled."""
    t = time.perf_counter()
    prepare_player(player, system, prep_time)
    blob, why = handoff_blob(player)
    return time.perf_counter() - t, blob, why
