"""Runs recorded in the result store: play the games a run still lacks, on the local
backend (worker processes, :mod:`.local_backend`) or on Ray (:mod:`.ray_backend`), and
write each record as it finishes, so an interrupted run resumes.

Imports point one way: this module uses both backends; they use :mod:`.spec` (what a
run is, how a player is prepared) and never this module.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import importlib
import inspect
import os
import site
import sys
import sysconfig
import time
import types
import warnings
from pathlib import Path
from typing import Callable

from ..cards import as_sequence
from ..errors import PokerSquaresError
from ..machine import check_compiler
from .local_backend import RunnerWarning, run_games
from .registry import checked_player, one_build_per_spec, parse_player_spec, resolve_factory, spec_identity
from .spec import (DEFAULT_MEMORY_MB, HANG_GRACE_S, MAX_GAMES, MAX_SECONDS, PlayerFailedError, RunSpec,
                   RunSpecError, check_saved_states, check_seconds, check_workers, default_workers, player_cores,
                   prepare_for_handoff)
from .store import GameRecord, ResultStore, StoreError

__all__ = ["RunSpec", "RunSpecError", "check_seconds", "MAX_GAMES", "MAX_SECONDS", "DEFAULT_MEMORY_MB",
           "HANG_GRACE_S", "PlayerFailedError", "RunnerWarning", "prepare_for_handoff", "BackendError", "BACKENDS", "check_backend",
           "backend_session", "default_workers", "player_cores", "run_games", "record_run", "record_runs",
           "run_version", "held_spelling", "held_spellings"]

# Where games run: "local" (worker processes on this machine, the default) or "ray"
# (Ray tasks on a local Ray instance or a cluster; see ray_backend.py).
BACKENDS = ("local", "ray")
FLUSH_EVERY_S = 0.25


class BackendError(PokerSquaresError):
    """An unknown backend, or options that do not fit it."""


def check_backend(backend: str, address: str | None = None) -> None:
    if backend not in BACKENDS:
        raise BackendError(f"unknown backend {backend!r}; backends: {', '.join(BACKENDS)}")
    if address and backend != "ray":
        raise BackendError("--address is for --backend ray")


def backend_session(backend: str = "local", address: str | None = None):
    """A context for a command's games: nothing for the local backend; for Ray, a local
    instance (or the connection to ``address``) that ends with the command."""
    check_backend(backend, address)
    if backend == "local":
        return contextlib.nullcontext()
    from . import ray_backend
    return ray_backend.session(address)


def installed_roots() -> tuple[str, ...]:
    """Folders of code that is not a user's own: the standard library, site-packages
    (the user's too) and this package."""
    roots = {os.path.dirname(os.path.abspath(__file__ + "/../.."))}  # pokersquares itself
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            roots.add(os.path.realpath(path))
    for prefix in (sys.prefix, sys.base_prefix, sys.exec_prefix, site.getuserbase()):
        if prefix:
            roots.add(os.path.realpath(prefix))
    return tuple(os.path.join(r, "") for r in roots)


def _own_modules(factory) -> list:
    """The user's modules behind ``factory`` besides its own: those of its base classes,
    and every module of the user's own code these import (as ``import helper`` or
    ``from helper import pick``), followed through what those import in turn; not this
    package, the standard library or installed packages (their versions are not the
    player's code)."""
    roots = installed_roots()
    top = factory.__module__.split(".")[0]

    def own(module) -> bool:
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or not path.endswith(".py") or module.__name__.split(".")[0] == "pokersquares":
            return False
        if module.__name__.split(".")[0] == top:
            return True
        real = os.path.realpath(path)
        return not real.startswith(roots) and "site-packages" not in real and "dist-packages" not in real

    first = sys.modules.get(factory.__module__)
    todo = [sys.modules.get(getattr(c, "__module__", "")) for c in getattr(factory, "__mro__", ())]
    seen, found = {id(first)}, []
    while todo:
        module = todo.pop()
        if module is None or id(module) in seen or not isinstance(module, types.ModuleType) or not own(module):
            continue
        seen.add(id(module))
        found.append(module)
    todo = [first, *found]
    while todo:
        for value in list(vars(todo.pop()).values()):
            try:
                module = value if isinstance(value, types.ModuleType) else sys.modules.get(value.__module__)
            except Exception:  # no __module__, or one that is not text
                continue
            if isinstance(module, types.ModuleType) and id(module) not in seen and own(module):
                seen.add(id(module))
                found.append(module)
                todo.append(module)
    return sorted(found, key=lambda m: m.__name__)


def _source_hash(factory) -> str:
    """A short hash of the source file that defines ``factory`` ('' if unreadable), and of
    the user's other modules it uses (:func:`_own_modules`): a fix in a helper module is
    new code as much as one in the player's own (a player of one file keeps its hash)."""
    try:
        path = inspect.getsourcefile(factory) or inspect.getfile(factory)
        with open(path, "rb") as f:
            digest = hashlib.sha256(f.read())
    except (OSError, TypeError):
        return ""
    try:
        others = _own_modules(factory)
    except Exception:  # a module that cannot be looked through: its own file still counts
        others = []
    for module in others:
        try:
            with open(module.__file__, "rb") as f:
                digest.update(b"\0" + module.__name__.encode() + b"\0" + hashlib.sha256(f.read()).digest())
        except OSError:
            continue
    return digest.hexdigest()[:16]


# Parameters that name what a player plays from rather than code: a saved state (``load=``),
# a file or folder of them (``pretrained:priors=``). Rewritten in place (``train --out``
# again), the same spec plays otherwise.
SAVED_STATE_PARAMS = ("load", "priors")


def _saved_states_hash(params: dict) -> str:
    """A short hash of the files the spec's ``load=`` and ``priors=`` name (a folder: its
    ``*.npz``, the priors read from it), '' when it names none that exist (the player
    then fails or learns)."""
    digest, found = hashlib.sha256(), False
    for key in SAVED_STATE_PARAMS:
        if key not in params:
            continue
        path = Path(str(getattr(params, "text", {}).get(key, params[key]))).expanduser()
        try:
            files = [path] if path.is_file() else sorted(path.glob("*.npz")) if path.is_dir() else []
            for f in files:
                digest.update(f"\0{key}\0{f.name}\0".encode() + hashlib.sha256(f.read_bytes()).digest())
                found = True
        except OSError:  # unreadable: the player says so when it loads it
            continue
    return digest.hexdigest()[:16] if found else ""


def _named_code(params: dict) -> list:
    """The objects a ``module:Class`` player's parameters name as ``module.path:Name`` in
    the user's own modules (``PolicyPlayer:policy=mypkg.mod:my_policy``): their code
    plays too (building the player imports them; a value that imports nothing is not code)."""
    found = []
    for value in getattr(params, "text", {}).values():
        module_name, colon, attr = str(value).partition(":")
        if not colon or not all(part.isidentifier() for part in module_name.split(".")) \
                or module_name.split(".")[0] == "pokersquares":
            continue
        try:
            with contextlib.redirect_stdout(sys.stderr):  # a module's prints never reach --json
                module = importlib.import_module(module_name)
        except Exception:  # not a module: the player judges its own parameter
            continue
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or os.path.realpath(path).startswith(installed_roots()):
            continue  # an installed package's code is not the user's (its version is not the player's)
        target = getattr(module, attr.partition(":")[0], None)
        if target is not None and getattr(target, "__module__", None) == module_name:
            found.append(target)
    return found


def run_version(spec: str) -> str:
    """The code that plays ``spec``: the package version and the player's ``version``,
    and for a user's ``module:Class`` player a hash of its module's source (and of the
    user's code its parameters name), so that games of changed code are never resumed
    as if it had played them; with a saved state (``load=``, ``priors=``), a hash of
    its files, so that a file trained again is not given the old file's games."""
    from .. import __version__

    name, params = parse_player_spec(spec)
    factory, _ = resolve_factory(name)
    version = f"{__version__}/{getattr(factory, 'version', '1')}"
    if ":" in name:  # a user's module player: its source changes without a version bump
        version += f"/src:{_source_hash(factory)}"
        for target in _named_code(params):
            version += f"+{_source_hash(target)}"
    saved = _saved_states_hash(params)
    if saved:
        version += f"/data:{saved}"
    return version


def held_spellings(store: ResultStore, player: str, seed: int, time_per_game: float, prep_time: float, *,
                   system=None, tournaments: bool = False) -> list[str]:
    """Every way the store's runs of these settings write ``player`` (points ``system``, or
    any for None; the runs outside a tournament, or with ``tournaments`` every tournament's):
    the spellings of the runs of the same player (:func:`spec_identity`: its parameters in
    any order) and code, oldest run first, each once."""
    version = run_version(player)
    identity = spec_identity(player)
    found: list[str] = []
    for held, held_version, _ in store.run_players(system, seed, time_per_game, prep_time, tournaments=tournaments):
        if held_version != version or held in found:
            continue
        try:
            if held == player or spec_identity(held) == identity:
                found.append(held)
        except PokerSquaresError:  # a player this code no longer knows
            continue
    return found


def held_spelling(store: ResultStore, player: str, seed: int, time_per_game: float, prep_time: float, *,
                  system=None, tournaments: bool = False) -> str:
    """``player`` as the store's runs of these settings write it (:func:`held_spellings`):
    the store knows a run by its spec's text, so ``x:b=2,a=1`` after ``x:a=1,b=2`` was a
    new run, every game held played again. The spelling given, if a run of the same code
    has it; else the oldest run's of the same player and code; else the spelling given.
    (A run held under another secret is the same player's: a command given another
    secret is refused for it, whichever way it is written.)"""
    spellings = held_spellings(store, player, seed, time_per_game, prep_time, system=system, tournaments=tournaments)
    return player if player in spellings or not spellings else spellings[0]


def _as_held(spec: RunSpec, store: ResultStore, tournament_id: int | None) -> RunSpec:
    """``spec`` with its player written as the store's run of its setting writes it
    (:func:`held_spelling`); a tournament's runs are spelled by the tournament."""
    if tournament_id is not None:
        return spec
    player = held_spelling(store, spec.player, spec.seed, spec.time_per_game, spec.prep_time,
                           system=spec.point_system)
    return spec if player == spec.player else dataclasses.replace(spec, player=player)


def _check_call(specs: list, store, workers, tournament_id, names: list) -> None:
    """What :func:`record_run` and :func:`record_runs` are given, checked before the store
    is written: a bad call leaves nothing in it (not even an empty run)."""
    for spec in specs:
        if not isinstance(spec, RunSpec):
            raise RunSpecError(f"a run is a RunSpec, got {spec!r}")
    if not isinstance(store, ResultStore):
        raise RunSpecError(f"games are recorded in a ResultStore, got {store!r}")
    check_workers(workers)
    check_compiler("no game was played or recorded")
    if len(names) != len(specs):
        raise RunSpecError(f"{len(names)} player names for {len(specs)} runs")
    for name in names:
        if name is not None and not isinstance(name, str):
            raise RunSpecError(f"a player's name is text, got {name!r}")
    if tournament_id is not None:
        if isinstance(tournament_id, bool) or not isinstance(tournament_id, int):
            raise RunSpecError(f"a tournament id is an integer, got {tournament_id!r}")
        store.tournament(tournament_id)  # one the store holds, else StoreError
    for player in dict.fromkeys(spec.player for spec in specs):  # a saved state of other points: refused first
        check_saved_states([player], [spec.point_system for spec in specs if spec.player == player])
    for spec in specs:  # a run the store holds under another secret: said before any run is played
        if spec.secret is not None:
            spec = _as_held(spec, store, tournament_id)  # written either way
            held = store.secret_of(spec.player, spec.point_system, spec.seed, spec.time_per_game, spec.prep_time,
                                   tournament_id, run_version(spec.player))
            if held is not None and held != spec.secret:
                raise StoreError(f"{store.path} holds the run of {spec.player} on {spec.point_system.name} played "
                                 f"under another secret: its games would not be one run's with these; give "
                                 f"another --db, or leave the secret out to resume it")


def _open_run(store: ResultStore, spec: RunSpec, player_name: str | None, tournament_id: int | None,
              retry_penalties: bool = False) -> int:
    """The store's run for ``spec``, keyed by the code that plays it (:func:`run_version`);
    with ``retry_penalties`` its penalised games are forgotten, to be played again."""
    name, _ = parse_player_spec(spec.player)
    run_id = store.open_run(spec.player, player_name or name, spec.point_system, spec.seed, spec.games,
                            spec.time_per_game, spec.prep_time, tournament_id, run_version(spec.player))
    if retry_penalties:
        store.forget_penalised(run_id)
    if not store.run(run_id).finished:
        older = [r for r in store.other_versions(run_id) if r.finished]
        if older:
            r = older[-1]
            warnings.warn(f"{spec.player} on {spec.point_system.name}: the store's run {r.run_id} ({r.finished} game{'s' if r.finished != 1 else ''}) "
                          f"was played by other code ({r.version or 'a version from before versions were kept'}; "
                          f"this is {store.run(run_id).version}); its games are not resumed, run {run_id} plays "
                          "them anew", RunnerWarning, stacklevel=2)
    return run_id


@one_build_per_spec()  # the player built once for this call's checks (run_games' too)
def record_run(spec: RunSpec, store: ResultStore, *, workers: int | None = None,
               tournament_id: int | None = None,
               on_result: Callable[[GameRecord], None] | None = None,
               player_name: str | None = None, backend: str = "local",
               address: str | None = None, retry_penalties: bool = False,
               on_held: Callable[[list[GameRecord]], None] | None = None) -> tuple[int, list[GameRecord]]:
    """Play the games of ``spec`` that ``store`` does not hold yet, recording each as it
    finishes; return the run id and all its records (old and new) in game order.
    ``retry_penalties`` plays the run's penalised games again (a fault since fixed).
    ``on_held`` is told the games the store already holds (not played again) before any
    game is played, so that a resumed run's progress counts them."""
    check_backend(backend, address)
    _check_call([spec], store, workers, tournament_id, [player_name])
    if backend != "local":
        cb = None if on_result is None else (lambda _k, rec: on_result(rec))
        return record_runs([spec], store, workers=workers, tournament_id=tournament_id, on_result=cb,
                           player_names=None if player_name is None else [player_name],
                           backend=backend, address=address, retry_penalties=retry_penalties,
                           on_held=None if on_held is None else (lambda _k, recs: on_held(recs)))[0]
    checked_player(spec.player)  # a bad spec fails here, before the store holds an empty run
    spec = _as_held(spec, store, tournament_id)
    run_id = _open_run(store, spec, player_name, tournament_id, retry_penalties)
    spec = dataclasses.replace(spec, secret=store.run_secret(run_id, spec.secret))
    held = [g for g in store.games(run_id) if g.game_index < spec.games]
    done = {g.game_index for g in held}
    if on_held is not None:
        on_held(held)
    recorder = _Recorder(store, [run_id], None if on_result is None else (lambda _k, rec: on_result(rec)))
    try:
        todo = [i for i in range(spec.games) if i not in done]
        run_games(spec, todo, workers=workers, on_result=lambda rec: recorder.collect(0, rec), on_tick=recorder.tick)
    finally:
        recorder.flush()  # what finished is kept, even on Ctrl-C
    recorder.warn_shared([spec])
    return run_id, recorder.stored(0, spec.games)


class _Recorder:
    """Writes finished games to the store in batches: at most ``FLUSH_EVERY_S`` after
    each finished, whether or not another game finishes after it (the backends call
    :meth:`tick` while they wait), so a run killed at any moment loses at most that much."""

    def __init__(self, store: ResultStore, run_ids: list[int],
                 on_result: Callable[[int, GameRecord], None] | None) -> None:
        self.store, self.run_ids, self.on_result = store, run_ids, on_result
        self.pending: list[list[GameRecord]] = [[] for _ in run_ids]
        self.since: float | None = None  # when the oldest unwritten game finished
        self.shared = [0] * len(run_ids)  # games played here that another command had recorded meanwhile
        self.refused = False  # the store refused a batch: not asked again (held by another process, it waits as long)

    def collect(self, k: int, rec: GameRecord) -> None:
        self.pending[k].append(rec)
        if self.since is None:
            self.since = time.monotonic()
        if self.on_result is not None:
            self.on_result(k, rec)
        self.tick()

    def tick(self) -> None:
        if self.since is not None and time.monotonic() - self.since >= FLUSH_EVERY_S:
            self.flush()

    def flush(self) -> None:
        """Write what finished; after the store refused a batch (StoreError: held by another
        process past the busy timeout, a full disk) nothing: the command stops on that error,
        and asked again at its end (``finally``) the store waited its whole timeout twice."""
        if self.refused:
            return
        for k, recs in enumerate(self.pending):
            if recs:
                try:
                    added = self.store.add_games(self.run_ids[k], recs)
                except StoreError:
                    self.refused = True
                    raise
                self.shared[k] += len(recs) - added
                recs.clear()
        self.since = None

    def warn_shared(self, specs: list[RunSpec]) -> None:
        """Say, once per run, that another command played the same run at the same time
        (two commands started alike on one store): both played the games, each is recorded once."""
        for k, spec in enumerate(specs):
            if self.shared[k]:  # said at the line that called record_run(s), past its one_build_per_spec
                warnings.warn(f"{spec.player} on {spec.point_system.name}: another command played run "
                              f"{self.run_ids[k]} of {self.store.path} at the same time; {self.shared[k]} of the "
                              "games this one played were recorded by it first (each game is recorded once, "
                              "the results are the store's)", RunnerWarning, stacklevel=4)

    def stored(self, k: int, games: int) -> list[GameRecord]:
        """Run ``k``'s games as the store holds them (the first record of a game written
        is kept: another process playing the same run may have written it first)."""
        return [g for g in self.store.games(self.run_ids[k]) if g.game_index < games]


@one_build_per_spec()  # each player built once for this call's checks (record_run's too)
def record_runs(specs: list[RunSpec], store: ResultStore, *, workers: int | None = None,
                tournament_id: int | None = None,
                on_result: Callable[[int, GameRecord], None] | None = None,
                player_names: list[str] | None = None, backend: str = "local",
                address: str | None = None, retry_penalties: bool = False,
                on_held: Callable[[int, list[GameRecord]], None] | None = None) -> list[tuple[int, list[GameRecord]]]:
    """:func:`record_run` for several runs; ``on_result(k, record)`` and ``on_held(k, records)``
    name the run by its place in ``specs``. The local backend plays them one after the other; Ray plays
    them all at once (preparations included), so a cluster never waits for one run.
    Every spec is checked (its player built) before any game is played."""
    check_backend(backend, address)
    specs = as_sequence(specs, "the runs (RunSpecs)", RunSpecError)
    names = [None] * len(specs) if player_names is None else as_sequence(player_names, "the player names",
                                                                            RunSpecError)
    _check_call(specs, store, workers, tournament_id, names)
    for spec in specs:
        checked_player(spec.player)
    if backend == "local":
        return [record_run(spec, store, workers=workers, tournament_id=tournament_id, player_name=name,
                           on_result=None if on_result is None else functools.partial(on_result, k),
                           retry_penalties=retry_penalties,
                           on_held=None if on_held is None else functools.partial(on_held, k))
                for k, (spec, name) in enumerate(zip(specs, names))]
    from . import ray_backend
    specs = list(specs)
    run_ids, done = [], []
    for k, (spec, pname) in enumerate(zip(specs, names)):
        spec = _as_held(spec, store, tournament_id)
        run_id = _open_run(store, spec, pname, tournament_id, retry_penalties)
        specs[k] = dataclasses.replace(spec, secret=store.run_secret(run_id, spec.secret))
        run_ids.append(run_id)
        held = [g for g in store.games(run_id) if g.game_index < spec.games]
        done.append({g.game_index for g in held})
        if on_held is not None:
            on_held(k, held)
    recorder = _Recorder(store, run_ids, on_result)
    jobs: list[tuple[RunSpec, list[int]]] = []
    scheduled: dict[int, set[int]] = {}  # a run given twice (its player written two ways) is played once
    for k, spec in enumerate(specs):
        taken = scheduled.setdefault(run_ids[k], set())
        todo = [i for i in range(spec.games) if i not in done[k] and i not in taken]
        taken.update(todo)
        jobs.append((spec, todo))
    try:
        ray_backend.run_many(jobs, workers=workers, on_result=recorder.collect, address=address,
                             on_tick=recorder.tick)
    finally:
        recorder.flush()  # what finished is kept, even on Ctrl-C
    recorder.warn_shared(specs)
    return [(run_id, recorder.stored(k, spec.games)) for k, (run_id, spec) in enumerate(zip(run_ids, specs))]
