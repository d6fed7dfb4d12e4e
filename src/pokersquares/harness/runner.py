"""Running many games of a player safely and in parallel.

The player is prepared once per point system in a watched process, then copied
(pickled) into worker processes that play whole games and report each result as it
finishes. The parent only watches the clock: a worker that overruns a game's time
or dies is replaced, and the game it was playing scores the penalty with its
reason. Game ``i`` is dealt with seed ``seed + i`` and the player is seeded with the
same number, so results do not depend on the number of workers.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing as mp
import os
import pickle
import threading
import time
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Callable, Iterable

from .. import progress
from ..errors import PokerSquaresError
from ..points import PointSystem
from .game_play import play_game, prepare_player
from .registry import make_player, parse_player_spec, resolve_factory
from .seeds import new_secret, player_seed
from .store import GameRecord, ResultStore

__all__ = ["RunSpec", "PlayerFailedError", "prepare_for_handoff", "BackendError", "BACKENDS", "check_backend", "backend_session",
           "default_workers", "player_cores", "run_games", "record_run", "record_runs"]

# Where games run: "local" (worker processes on this machine, the default) or "ray"
# (Ray tasks on a local Ray instance or a cluster; see ray_backend.py).
BACKENDS = ("local", "ray")

# Slack beyond the contest limits before the watchdog kills a worker: the
# player's own clock decides timeouts; this only catches players that never answer.
HANG_GRACE_S = 2.0
# How long building a player and compiling its kernels may take before preparation.
WARM_UP_LIMIT_S = 900.0
FLUSH_EVERY_S = 0.25


class PlayerFailedError(PokerSquaresError):
    """The player could not even be built (bad parameters, import error)."""


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


@dataclass(frozen=True)
class RunSpec:
    player: str
    point_system: PointSystem
    games: int
    seed: int = 0
    time_per_game: float = 30.0
    prep_time: float = 300.0
    # The key of the player's seeds (harness/seeds.py): the store keeps one per run;
    # None: a fresh one for each call of run_games.
    secret: str | None = None

    def seeds(self) -> list[int]:
        return [self.seed + i for i in range(self.games)]

    def prep_seed(self) -> int:
        """The player's seed while it prepares (not the first deal's seed)."""
        return player_seed(self.secret, "prepare", self.seed)

    def player_seed(self, game_seed: int) -> int:
        """The player's seed in the game dealt by ``game_seed``."""
        return player_seed(self.secret, "game", game_seed)


def player_cores(spec: str) -> int:
    """How many cores one game of this player keeps busy."""
    name, params = parse_player_spec(spec)
    factory, cores = resolve_factory(name)
    return max(1, int(params.get("cores", cores)))


def default_workers(spec: str) -> int:
    """As many parallel games as fit the machine without sharing a core: a player that
    searches on several cores gets fewer parallel games."""
    return max(1, (os.cpu_count() or 1) // player_cores(spec))


def _limit_threads(cores: int) -> None:
    try:
        import numba
        numba.set_num_threads(max(1, min(cores, numba.config.NUMBA_NUM_THREADS)))
    except Exception:  # numba absent or threads already fixed: nothing to limit
        pass


def _build(spec: str, seed: int):
    """Build the player and warm it up (compile its kernels), untimed; seed it."""
    player = make_player(spec)
    if hasattr(player, "warm_up"):
        progress.report("compiling its kernels (once: numba caches them)", force=True)
        player.warm_up()
    if hasattr(player, "set_seed"):
        player.set_seed(seed)
    return player


def _build_and_prepare(spec: str, system: PointSystem, prep_time: float, seed: int,
                       on_built: Callable[[], None] | None = None):
    """Build and warm up the player (untimed), then prepare it within ``prep_time``;
    ``on_built`` is called when the preprocessing clock starts."""
    player = _build(spec, seed)
    if on_built is not None:
        on_built()
    return player, prepare_player(player, system, prep_time)


def _prep_main(conn, spec, system, prep_time, seed, cores):
    _limit_threads((os.cpu_count() or 1))
    lock = threading.Lock()  # learners report from several threads

    def send(msg) -> None:
        with lock:
            conn.send(msg)

    def tell(p: progress.Progress) -> None:
        send(("progress", p.stage, p.games, p.seconds_left))

    try:
        with progress.listening(tell):
            player = _build(spec, seed)
            send(("built",))  # the preprocessing clock starts
            used, blob = prepare_for_handoff(player, system, prep_time)
    except PokerSquaresError as e:
        send(("build-error", str(e)))
        return
    except BaseException as e:  # the player's own failure, reported to the parent
        send(("prep-error", f"{type(e).__name__}: {e}"))
        return
    send(("prepared", used, blob))


def handoff_blob(player) -> bytes | None:
    """The prepared player pickled for the game workers (part of its preparation budget),
    or None when it cannot be pickled: each worker then prepares its own copy."""
    try:
        return pickle.dumps(player)
    except Exception:
        return None


def prepare_for_handoff(player, system: PointSystem, prep_time: float) -> tuple[float, bytes | None]:
    """What the preparation process does once the clock starts: prepare ``player`` and
    pickle it. Returns the seconds both took (the budget covers them) and the bytes."""
    t = time.perf_counter()
    prepare_player(player, system, prep_time)
    blob = handoff_blob(player)
    return time.perf_counter() - t, blob


def _worker_main(conn, blob, spec, system, prep_time, time_per_game, seed, cores):
    _limit_threads(cores)
    try:
        if blob is not None:
            player = pickle.loads(blob)
            if hasattr(player, "warm_up"):
                # Load its kernels before the first game's clock starts: on a machine's
                # first run each worker loads them from numba's fresh cache, and under
                # load that took Tiger past every first game's limit.
                player.warm_up()
        else:
            player = _build(spec, seed)
            prepare_player(player, system, prep_time)
    except BaseException as e:
        conn.send(("prep-error", f"{type(e).__name__}: {e}"))
        return
    conn.send(("ready",))
    while True:
        try:
            msg = conn.recv()
        except (EOFError, KeyboardInterrupt):
            return
        if msg is None:
            return
        index, game_seed, seed_of_player = msg
        conn.send(("result", play_game(player, system, game_seed, time_per_game, index, seed_of_player)))


class _Worker:
    def __init__(self, ctx, args, prefetch: int) -> None:
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child, *args), daemon=True)
        self.proc.start()
        child.close()
        self.assigned: deque[tuple[int, int]] = deque()
        self.ready = False
        self.started = time.monotonic()  # of preparation, then of the current game
        self.prefetch = prefetch

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(timeout=5)
        self.conn.close()


def run_games(spec: RunSpec, indices: Iterable[int], *, workers: int | None = None,
              on_result: Callable[[GameRecord], None] | None = None) -> list[GameRecord]:
    """Play the games ``indices`` of ``spec`` and return their records in index order.

    ``on_result`` is called as each game finishes (the caller records it).
    """
    todo = deque(sorted(indices))
    if not todo:
        return []
    if spec.secret is None:
        spec = dataclasses.replace(spec, secret=new_secret())
    name, _ = parse_player_spec(spec.player)
    resolve_factory(name)  # unknown names and import errors surface here, in one line
    cores = player_cores(spec.player)
    n_workers = max(1, min(workers or default_workers(spec.player), len(todo)))
    ctx = mp.get_context("fork")
    results: dict[int, GameRecord] = {}

    def finish(rec: GameRecord) -> None:
        results[rec.game_index] = rec
        if on_result is not None:
            on_result(rec)

    def penalise_all(reason: str) -> None:
        while todo:
            i = todo.popleft()
            finish(GameRecord(i, spec.seed + i, spec.point_system.penalty, [], 0.0, reason))

    # Preparation: once, in a watched process.
    blob = None
    prep_conn, child = ctx.Pipe()
    prep = ctx.Process(target=_prep_main, args=(child, spec.player, spec.point_system, spec.prep_time,
                                                spec.prep_seed(), cores), daemon=True)
    prep.start()
    child.close()
    prep_limit = spec.prep_time + max(HANG_GRACE_S, 0.1 * spec.prep_time)

    subject = f"preparing {spec.player} on {spec.point_system.name}"

    def receive(limit: float, what: str):
        deadline = time.monotonic() + limit
        while True:  # progress reports are passed on (pokersquares.progress) until an answer comes
            if not prep_conn.poll(max(0.0, deadline - time.monotonic())):
                return ("timeout", what)
            try:
                msg = prep_conn.recv()
            except EOFError:
                return ("prep-error", f"the player's process died during preparation (exit code {prep.exitcode})")
            if msg[0] != "progress":
                return msg
            progress.report(*msg[1:], subject=subject, force=True)

    try:
        # Building and warming up (numba compilation) are not timed against the budget.
        msg = receive(WARM_UP_LIMIT_S, f"building and warming up took over {WARM_UP_LIMIT_S:g} s")
        if msg[0] == "built":
            msg = receive(prep_limit, f"preparation exceeded its budget of {spec.prep_time:g} s")
        if msg[0] == "timeout":
            prep.kill()
            penalise_all(msg[1])
            return [results[i] for i in sorted(results)]
    finally:
        progress.report("done", subject=subject, force=True)
        prep.join(timeout=5)
        if prep.is_alive():
            prep.kill()
    if msg[0] == "build-error":
        raise PlayerFailedError(msg[1])
    if msg[0] == "prep-error":
        penalise_all(f"preparation failed: {msg[1]}")
        return [results[i] for i in sorted(results)]
    blob = msg[2]

    args = (blob, spec.player, spec.point_system, spec.prep_time, spec.time_per_game, spec.prep_seed(), cores)
    prefetch = 1 if spec.time_per_game >= 1 and cores > 1 else 2
    pool: list[_Worker] = []
    game_limit = spec.time_per_game + HANG_GRACE_S
    ready_limit = (spec.prep_time if blob is None else 0.0) + 30.0
    try:
        while todo or any(w.assigned for w in pool):
            while len(pool) < n_workers and todo:
                pool.append(_Worker(ctx, args, prefetch))
            for w in pool:
                while w.ready and todo and len(w.assigned) < w.prefetch:
                    i = todo.popleft()
                    w.assigned.append((i, spec.seed + i))
                    try:
                        w.conn.send((i, spec.seed + i, spec.player_seed(spec.seed + i)))
                    except OSError:  # it died meanwhile: the watch below scores its game, requeues the rest
                        break
            ready = wait([w.conn for w in pool], timeout=0.2)
            now = time.monotonic()
            for w in list(pool):
                dead_reason = None
                if w.conn in ready:
                    try:
                        msg = w.conn.recv()
                    except (EOFError, OSError):
                        w.proc.join(timeout=5)
                        dead_reason = f"crash: the player's process died (exit code {w.proc.exitcode})"
                    else:
                        if msg[0] == "ready":
                            w.ready, w.started = True, now
                        elif msg[0] == "result":
                            rec = msg[1]
                            w.assigned.popleft()
                            w.started = now
                            finish(rec)
                        elif msg[0] == "prep-error":
                            dead_reason = f"preparation failed: {msg[1]}"
                if dead_reason is None:
                    limit = game_limit if w.ready else ready_limit
                    if now - w.started > limit and (w.assigned or not w.ready):
                        dead_reason = (f"timeout: no answer within {spec.time_per_game:g} s (+{HANG_GRACE_S:g} s grace);"
                                       " the player's process was stopped")
                if dead_reason is not None:
                    w.kill()
                    pool.remove(w)
                    if w.assigned:
                        i, s = w.assigned.popleft()
                        finish(GameRecord(i, s, spec.point_system.penalty, [], 0.0, dead_reason))
                    elif todo and not w.ready:
                        # a worker that cannot get ready would fail again: score its next game
                        i = todo.popleft()
                        finish(GameRecord(i, spec.seed + i, spec.point_system.penalty, [], 0.0, dead_reason))
                    todo.extendleft(reversed([i for i, _ in w.assigned]))
    finally:
        for w in pool:
            try:
                w.conn.send(None)
            except (OSError, BrokenPipeError):
                pass
        for w in pool:
            w.proc.join(timeout=1)
            w.kill()
    return [results[i] for i in sorted(results)]


def _open_run(store: ResultStore, spec: RunSpec, player_name: str | None, tournament_id: int | None) -> int:
    """The store's run for ``spec``, keyed by the code that plays it (package version and
    the player's ``version``), so that games of a changed player are never resumed."""
    from .. import __version__

    name, _ = parse_player_spec(spec.player)
    factory, _ = resolve_factory(name)
    version = f"{__version__}/{getattr(factory, 'version', '1')}"
    return store.open_run(spec.player, player_name or name, spec.point_system, spec.seed, spec.games,
                          spec.time_per_game, spec.prep_time, tournament_id, version)


def record_run(spec: RunSpec, store: ResultStore, *, workers: int | None = None,
               tournament_id: int | None = None,
               on_result: Callable[[GameRecord], None] | None = None,
               player_name: str | None = None, backend: str = "local",
               address: str | None = None) -> tuple[int, list[GameRecord]]:
    """Play the games of ``spec`` that ``store`` does not hold yet, recording each as it
    finishes; return the run id and all its records (old and new) in game order."""
    check_backend(backend, address)
    if backend != "local":
        cb = None if on_result is None else (lambda _k, rec: on_result(rec))
        return record_runs([spec], store, workers=workers, tournament_id=tournament_id, on_result=cb,
                           player_names=None if player_name is None else [player_name],
                           backend=backend, address=address)[0]
    run_id = _open_run(store, spec, player_name, tournament_id)
    spec = dataclasses.replace(spec, secret=store.run_secret(run_id))
    done = {g.game_index: g for g in store.games(run_id) if g.game_index < spec.games}
    pending: list[GameRecord] = []
    last_flush = time.monotonic()

    def collect(rec: GameRecord) -> None:
        nonlocal last_flush
        pending.append(rec)
        if on_result is not None:
            on_result(rec)
        if time.monotonic() - last_flush >= FLUSH_EVERY_S:
            store.add_games(run_id, pending)
            pending.clear()
            last_flush = time.monotonic()

    try:
        todo = [i for i in range(spec.games) if i not in done]
        new = run_games(spec, todo, workers=workers, on_result=collect)
    finally:
        store.add_games(run_id, pending)  # what finished is kept, even on Ctrl-C
    for rec in new:
        done[rec.game_index] = rec
    return run_id, [done[i] for i in sorted(done)]


def record_runs(specs: list[RunSpec], store: ResultStore, *, workers: int | None = None,
                tournament_id: int | None = None,
                on_result: Callable[[int, GameRecord], None] | None = None,
                player_names: list[str] | None = None, backend: str = "local",
                address: str | None = None) -> list[tuple[int, list[GameRecord]]]:
    """:func:`record_run` for several runs; ``on_result(k, record)`` names the run by its
    place in ``specs``. The local backend plays them one after the other; Ray plays
    them all at once (preparations included), so a cluster never waits for one run."""
    check_backend(backend, address)
    specs = list(specs)
    names = player_names or [None] * len(specs)
    if backend == "local":
        return [record_run(spec, store, workers=workers, tournament_id=tournament_id, player_name=name,
                           on_result=None if on_result is None else (lambda rec, k=k: on_result(k, rec)))
                for k, (spec, name) in enumerate(zip(specs, names))]
    from . import ray_backend
    run_ids, done = [], []
    for k, (spec, pname) in enumerate(zip(specs, names)):
        run_id = _open_run(store, spec, pname, tournament_id)
        specs[k] = dataclasses.replace(spec, secret=store.run_secret(run_id))
        run_ids.append(run_id)
        done.append({g.game_index: g for g in store.games(run_id) if g.game_index < spec.games})
    pending: dict[int, list[GameRecord]] = {k: [] for k in range(len(specs))}
    last_flush = time.monotonic()

    def flush() -> None:
        for k, recs in pending.items():
            if recs:
                store.add_games(run_ids[k], recs)
                recs.clear()

    def collect(k: int, rec: GameRecord) -> None:
        nonlocal last_flush
        pending[k].append(rec)
        if on_result is not None:
            on_result(k, rec)
        if time.monotonic() - last_flush >= FLUSH_EVERY_S:
            flush()
            last_flush = time.monotonic()

    jobs = [(spec, [i for i in range(spec.games) if i not in done[k]]) for k, spec in enumerate(specs)]
    try:
        new = ray_backend.run_many(jobs, workers=workers, on_result=collect, address=address)
    finally:
        flush()  # what finished is kept, even on Ctrl-C
    out = []
    for k, recs in enumerate(new):
        for rec in recs:
            done[k][rec.game_index] = rec
        out.append((run_ids[k], [done[k][i] for i in sorted(done[k])]))
    return out
