"""Running games as Ray tasks, on a local Ray instance or on a cluster.

The same contract as the local runner (:func:`pokersquares.harness.local_backend.run_games`):
game ``i`` of a run is dealt with seed ``seed + i``, the player is prepared once per
run (one player on one point system) in a task of its own and handed to the game
tasks as a pickled object in Ray's store, and every game's record reaches the
caller through ``on_result`` as it finishes, in the driver process, which writes
it to the result store. Several runs (a tournament, a sweep) go to Ray at once, so
a cluster is never idle while one run prepares.

Faults. A game task applies the contest's time limits itself (``play_game``). The
driver watches the clock from the moment a task reports that it began (a tiny
actor collects those reports): a game still running ``time_per_game`` plus grace
later is cancelled, which kills its worker, and scores the penalty, as the local
runner does. A task whose worker or node dies is submitted again by the driver,
up to ``MAX_RETRIES`` times, with a fresh clock; only a game that keeps killing
its worker scores the penalty. A game task's worker also sends that actor the
moves of its game a few times a second, so a game scored the penalty this way
keeps the placements made before the fault and the decision seconds it took, as
locally. Each game is reported once: an answer for a game already scored is
dropped, and the store's ``(run_id, game_index)`` key keeps it recorded once
across resumes too.

Processes. A local instance is the command's alone: when it ends, even by Ctrl-C,
SIGTERM or SIGKILL, every process of the instance ends with it (Ray alone leaves the
raylet's agents running for up to a minute after an interruption). A small watcher
process (:mod:`.ray_watcher`) keeps a list of the instance's processes and kills
what is left of them when the command closes its pipe or dies, and whatever carries
the mark the command put in its environment while Ray started (a process whose parents
died before the watcher listed it). A command's SIGTERM
handler (the command line's says "terminated" and keeps what finished) stays in
force: ``ray.init`` would replace it with Ray's.

Ray is imported only here and only when asked for: the local backend never needs it.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import pickle
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
import warnings
from collections import OrderedDict, deque
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, Callable, Iterable, Iterator, Sequence

from ..errors import PokerSquaresError
from ..machine import usable_cores
from .game_play import fault_text, play_game, seed_global_randomness
from .local_backend import RunnerWarning
from .registry import checked_player, one_build_per_spec
from .seeds import new_secret
from .spec import (HANG_GRACE_S, WARM_UP_LIMIT_S, check_game_indices, check_workers,
                   PlayerFailedError, RunSpec, build_and_prepare, build_overrun, limit_threads,
                   load_overrun, load_prepared, player_cores,
                   prep_cores, prep_limit_s, prep_overrun_note)
from .store import GameRecord

__all__ = ["RayUnavailableError", "MAX_RETRIES", "init", "session", "run_games", "run_many"]

RAY_MISSING = "the Ray backend needs Ray: pip install 'pokersquares[ray]'"
MAX_RETRIES = 3
# Object store of a local instance: prepared players and results are small.
LOCAL_OBJECT_STORE_BYTES = 512 * 1024 ** 2
_POLL_S = 0.2
_MOVES_EVERY_S = 0.1  # how often a worker sends the moves of its game, when they changed (_MoveReporter)
_MOVES_WAIT_S = 5.0  # how long the driver waits for the moves of a game it penalises
# A watch this long after the last one (past the poll) did not run meanwhile: the driver
# was stopped, or frozen with its machine (a normal pass, a second's wait for the start
# clock's drain included, takes well under that).
_STALL_S = 3.0


class RayUnavailableError(PokerSquaresError):
    """Ray is not installed, or the cluster cannot be reached."""


def _ray():
    try:
        import ray
    except ImportError:
        raise RayUnavailableError(RAY_MISSING) from None
    return ray


def _worker_pythonpath() -> str:
    """The driver's own import folders (not the interpreter's), so that players named
    by module path import in the workers of a local instance too."""
    prefixes = tuple({os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)})
    paths: list[str] = []
    for p in sys.path:
        p = os.path.realpath(p or os.getcwd())
        if os.path.isdir(p) and not p.startswith(prefixes) and p not in paths:
            paths.append(p)
    return os.pathsep.join(paths + [e for e in os.environ.get("PYTHONPATH", "").split(os.pathsep) if e])


@contextmanager
def _import_folders_inherited():
    """:func:`_worker_pythonpath` as this process's PYTHONPATH while Ray starts a local
    instance: its processes inherit it, so its workers import players named by module
    path. Not a ``runtime_env``: with one, Ray left the workers it starts with the
    instance idle and started new ones for the first tasks and for each run's clock
    actor (about a second each on a quiet 2-core machine)."""
    before, os.environ["PYTHONPATH"] = os.environ.get("PYTHONPATH"), _worker_pythonpath()
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = before


def _raylet_notes_to_stderr() -> None:
    """Ray prints the raylet's notes (such as "a worker died") on standard output,
    where they would break ``--json``; send them to standard error."""
    from ray._private import worker as ray_worker
    original = getattr(ray_worker, "print_to_stdstream", None)
    if original is None or getattr(original, "_pokersquares", False):
        return

    def to_stderr(data, *rest, **named):  # (data) up to some ray 2.x, (data, ignore_prefix) later, by name in 2.60
        if data.get("pid") == "raylet":
            data = dict(data, is_err=True)
        return original(data, *rest, **named)

    setattr(to_stderr, "_pokersquares", True)
    ray_worker.print_to_stdstream = to_stderr


def _check_reachable(address: str) -> None:
    """Ray retries an unreachable cluster for minutes; a plain connection says at once."""
    host, sep, port = address.split("://", 1)[-1].rpartition(":")
    if not sep or not port.isdigit():
        if address != "auto":
            raise RayUnavailableError(f"--address takes host:port or ray://host:port, got {address!r}")
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=5).close()
    except OSError as e:
        raise RayUnavailableError(f"cannot reach the Ray cluster at {address}: {e}") from None


_WATCHER: list[subprocess.Popen] = []  # the watcher of the local instance this process started
# [True] while a session that started the local instance runs: its end shuts the instance down
_SESSION_ENDS_INSTANCE: list[bool] = []


def _start_watcher(ray) -> str:
    """Start the watcher of the local instance about to start (see :mod:`.ray_watcher`)
    and return the mark the instance's processes are to carry in their environment
    (:func:`_marked`); nothing and "" where psutil (which comes with Ray) cannot be imported."""
    try:
        import psutil
    except ImportError:
        return ""
    _stop_watcher()
    mark = uuid.uuid4().hex
    _WATCHER.append(subprocess.Popen(
        [sys.executable, "-m", "pokersquares.harness.ray_watcher", str(os.getpid()), os.path.dirname(ray.__file__),
         os.path.dirname(os.path.dirname(psutil.__file__)), mark],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        start_new_session=True))
    return mark


@contextmanager
def _marked(mark: str):
    """This process's environment carries ``mark`` (as :data:`.ray_watcher.MARK_VARIABLE`)
    while Ray starts: every process of the instance inherits it, and the watcher kills
    what carries it at the end, even a process whose parents died before it was listed."""
    if not mark:
        yield
        return
    from .ray_watcher import MARK_VARIABLE

    before = os.environ.get(MARK_VARIABLE)
    os.environ[MARK_VARIABLE] = mark
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(MARK_VARIABLE, None)
        else:
            os.environ[MARK_VARIABLE] = before


def _watcher_look() -> None:
    """Have the watcher list the instance's processes now (the raylet's agents are its
    children until the raylet stops), and wait a moment for it to have looked."""
    for watcher in _WATCHER:
        assert watcher.stdin is not None and watcher.stdout is not None  # started with both piped
        try:
            watcher.stdin.write("look\n")
            watcher.stdin.flush()
            if select.select([watcher.stdout], [], [], 5.0)[0]:
                watcher.stdout.readline()
        except (OSError, ValueError):
            pass


def _stop_watcher() -> None:
    """Close the watcher's pipe: it kills what is left of the instance, and ends."""
    while _WATCHER:
        watcher = _WATCHER.pop()
        assert watcher.stdin is not None and watcher.stdout is not None  # started with both piped
        try:
            watcher.stdin.close()
        except OSError:
            pass
        try:
            watcher.wait(timeout=15)
        except subprocess.TimeoutExpired:
            watcher.kill()
            watcher.wait()
        watcher.stdout.close()


def _shutdown(ray) -> None:
    """``ray.shutdown()``; for a local instance this process started, then every one of
    its processes still running is killed (after an interruption Ray leaves the raylet's
    agents running for up to a minute, waiting on its stopped GCS)."""
    _watcher_look()
    try:
        ray.shutdown()
    finally:
        _stop_watcher()


def _shutdown_after_failed_init(ray) -> None:
    """:func:`_shutdown` of what a failed or interrupted ``ray.init`` started, saying
    nothing of its own failures: the start's is the one to tell."""
    try:
        _shutdown(ray)
    except Exception:
        pass


def _ray_init(ray, **options) -> None:
    """``ray.init(**options)`` leaving the SIGTERM handler of this process in force, if
    it has one of its own (the command line's): Ray's would replace it, during
    ``ray.init`` as after it, with its own exit (code 15 or 1, and a C++ stack dump).

    A Ctrl-C or SIGTERM while Ray starts is held until ``ray.init`` returns, then raised:
    one that broke into ``ray.init`` left its core worker half made, and the command,
    its message said, died at exit by SIGSEGV (5 of 25 signals 4 to 6.5 s into a run on
    a busy machine). A second signal while Ray starts is raised at once."""
    handler = signal.getsignal(signal.SIGTERM)
    if not callable(handler) or threading.current_thread() is not threading.main_thread():
        ray.init(**options)  # no handler of ours to keep: Ray's exit on SIGTERM (and its clean-up)
        return
    utils: Any = getattr(getattr(ray, "_private", None), "utils", None)
    install = getattr(utils, "set_sigterm_handler", None)
    if install is not None:
        utils.set_sigterm_handler = lambda _handler: None  # ours stays in force while Ray starts
    # Nor the core worker's C++ failure handler (absl's) in this process: a SIGTERM that
    # reached it while Ray started printed a stack dump and armed an alarm that aborted
    # the command 3 s later, in its clean-up (exit -6). The instance's processes keep theirs.
    constants: Any = getattr(getattr(ray, "_private", None), "ray_constants", None)
    disabled = getattr(constants, "RAY_DISABLE_FAILURE_SIGNAL_HANDLER", None)
    if disabled is not None:
        constants.RAY_DISABLE_FAILURE_SIGNAL_HANDLER = True
    handlers: dict[signal.Signals, Callable[[int, FrameType | None], Any]] = {signal.SIGTERM: handler}
    for signum in (signal.SIGINT, signal.SIGHUP):  # Ctrl-C, a closed terminal: the command's too
        if callable(other := signal.getsignal(signum)):
            handlers[signum] = other
    held: list[signal.Signals] = []

    def hold(signum, frame) -> None:
        if held:  # the second: at once, and only it
            held.clear()
            handlers[signum](signum, frame)
        else:
            held.append(signum)

    for signum in handlers:
        signal.signal(signum, hold)
    try:
        ray.init(**options)
    finally:
        if install is not None:
            utils.set_sigterm_handler = install
        if disabled is not None:
            constants.RAY_DISABLE_FAILURE_SIGNAL_HANDLER = disabled
        for signum, restored in handlers.items():  # also over any C++ handler installed
            signal.signal(signum, restored)
        if held:
            handlers[held[0]](held[0], None)


def init(address: str | None = None, num_cpus: int | None = None) -> None:
    """Connect to the cluster at ``address``, or start a quiet local instance with
    ``num_cpus`` CPUs (default: all of this machine's). Nothing if Ray is running."""
    ray = _ray()
    if ray.is_initialized():
        return
    if address:
        _check_reachable(address)
    ray_logger = logging.getLogger("ray")
    level = ray_logger.level
    ray_logger.setLevel(logging.ERROR)  # start-up chatter, including the token notice
    common = dict(include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
    try:
        if address:
            _ray_init(ray, address=address, **common)
        else:
            with _marked(_start_watcher(ray)), _import_folders_inherited():
                _ray_init(ray, address="local", num_cpus=num_cpus or usable_cores(),
                          object_store_memory=LOCAL_OBJECT_STORE_BYTES, **common)
    except (ConnectionError, ValueError, RuntimeError) as e:
        _shutdown_after_failed_init(ray)
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        hint = ("; a cluster with token authentication also needs RAY_AUTH_MODE=token and its token here"
                " (docs/scaling.md)") if address else ""
        raise RayUnavailableError(f"cannot start or reach {where}: {str(e).splitlines()[0]}{hint}") from None
    except BaseException:  # interrupted while Ray starts (Ctrl-C, SIGTERM): what started is stopped
        _shutdown_after_failed_init(ray)
        raise
    finally:
        ray_logger.setLevel(level)
    _raylet_notes_to_stderr()


@contextmanager
def session(address: str | None = None, num_cpus: int | None = None) -> Iterator[None]:
    """Ray for the length of a command: started (or connected) on entry and shut down
    on exit, unless the caller had already started Ray (then it is left running). A
    local instance ends with the command, every process of it, even interrupted."""
    ray = _ray()
    if ray.is_initialized():
        yield
        return
    init(address, num_cpus)
    _SESSION_ENDS_INSTANCE[:] = [not address]
    try:
        yield
    finally:
        _SESSION_ENDS_INSTANCE.clear()
        _shutdown(ray)


# -- what runs in the workers -----------------------------------------------------------------
class _StartClock:
    """Collects the tasks' reports that they began; the driver drains them at each poll,
    so a game's clock starts when it runs, not when it was queued.

    It also keeps the moves of the game each worker process is playing, as its
    :class:`_MoveReporter` sends them (what local_backend's ``_MoveTrace`` keeps), which
    the driver reads for a game whose task it stopped or whose worker died (such a task
    cannot report its game): the penalised game's record keeps the placements made
    before the fault, and the decision seconds it took, as a game timed out by the clock
    does. A worker that dies may take its last moves with it (those not sent yet)."""

    def __init__(self) -> None:
        self.marks: list[tuple] = []
        # By worker: its game (run_no, index, attempt), placements, decision seconds so far,
        # and this process's time.monotonic() of the last move.
        self.traces: dict[str, tuple] = {}

    def mark(self, key: tuple) -> None:
        self.marks.append(key)

    def drain(self) -> list[tuple]:
        marks, self.marks = self.marks, []
        return marks

    def moved(self, worker: str, game: tuple, placements: tuple, used: float, since: float) -> None:
        """``worker``'s game, ``since`` seconds after its last move (or its start)."""
        self.traces[worker] = (game, placements, used, time.monotonic() - since)

    def moves_of(self, game: tuple) -> tuple[list[tuple[int, int, int]], float]:
        """Game ``game``'s placements and decision seconds up to now (the move it was
        stopped in counted to now); nothing if no worker sent it."""
        for played, placements, used, last in self.traces.values():
            if played == game:
                return list(placements), used + max(0.0, time.monotonic() - last)
        return [], 0.0


class _MoveReporter:
    """The moves of the game a worker process is playing, sent to the start clock every
    ``_MOVES_EVERY_S`` when they changed, by a thread of its own: a move costs the game
    no call to Ray (``placed`` only replaces a tuple; a call per move would slow fast
    players' runs down by half), and a game that hangs still has its moves sent."""

    def __init__(self) -> None:
        import ray
        self.worker = ray.get_runtime_context().get_worker_id()
        # (clock, game, placements, decision seconds so far, time.monotonic() of the last move)
        self.state: tuple | None = None
        threading.Thread(target=self._send, name="pokersquares-moves", daemon=True).start()

    def start(self, clock, game: tuple) -> None:
        self.state = (clock, game, (), 0.0, time.monotonic())

    def placed(self, card: int, row: int, col: int, used: float) -> None:
        assert self.state is not None  # between start and end
        clock, game, placements, _, _ = self.state
        self.state = (clock, game, placements + ((card, row, col),), used, time.monotonic())

    def end(self) -> None:
        self.state = None

    def _send(self) -> None:
        sent = None
        while True:
            time.sleep(_MOVES_EVERY_S)
            state = self.state
            if state is None or state is sent:
                continue
            clock, game, placements, used, last = state
            try:
                clock.moved.remote(self.worker, game, placements, used, time.monotonic() - last)  # never waited for
            except Exception:  # the run is over: nobody to tell
                pass
            sent = state


_REPORTER: list[_MoveReporter] = []  # this worker process's, made at its first game


def _move_reporter() -> _MoveReporter:
    if not _REPORTER:
        _REPORTER.append(_MoveReporter())
    return _REPORTER[0]


def _node_id() -> str:
    import ray
    return ray.get_runtime_context().get_node_id()


def _prepare_task(clock, run_no: int, attempt: int, player: str, system, prep_time: float, seed: int, cores: int):
    clock.mark.remote(("build", run_no, attempt, _node_id()))
    limit_threads(cores)
    try:
        # The driver's preparation clock starts at the mark, after the untimed warm-up.
        prepared, used = build_and_prepare(player, system, prep_time, seed,
                                            lambda: clock.mark.remote(("prep", run_no, attempt, _node_id())))
    except PokerSquaresError as e:
        return ("build-error", str(e)), None
    except BaseException as e:  # the player's own failure: its games score the penalty
        return ("prep-error", fault_text(e)), None
    try:
        blob = pickle.dumps(prepared)
    except Exception:
        blob = None  # each worker prepares its own copy instead
    return ("prepared", used, blob is not None), blob


# Prepared players a worker process keeps, by run, so that the games of a run on one
# worker unpickle (or prepare) the player once, as a local worker process does.
_PLAYERS: OrderedDict[str, object] = OrderedDict()
_PLAYERS_KEPT = 4


def _load_player(key: str, blob, player: str, system, prep_time: float, seed: int):
    if key in _PLAYERS:
        _PLAYERS.move_to_end(key)
        return _PLAYERS[key]
    loaded = load_prepared(blob) if blob is not None else build_and_prepare(player, system, prep_time, seed)[0]
    _PLAYERS[key] = loaded
    while len(_PLAYERS) > _PLAYERS_KEPT:
        _PLAYERS.popitem(last=False)
    return loaded


def _game_task(clock, blob, key: str, run_no: int, index: int, attempt: int, player: str, system,
               prep_time: float, time_per_game: float, seed: int, cores: int, prep_seed: int, seed_of_player: int):
    node = _node_id()
    if key not in _PLAYERS:  # a player already loaded here starts playing at once
        clock.mark.remote(("load", run_no, index, attempt, node))
    limit_threads(cores)
    try:
        loaded = _load_player(key, blob, player, system, prep_time, prep_seed)
    except BaseException as e:
        return ("prep-error", fault_text(e))
    reporter = _move_reporter()
    clock.mark.remote(("play", run_no, index, attempt, node))
    reporter.start(clock, (run_no, index, attempt))
    seed_global_randomness(seed_of_player)
    try:
        return ("result", play_game(loaded, system, seed + index, time_per_game, index, seed_of_player,
                                    on_move=reporter.placed))
    finally:
        reporter.end()


_REMOTES: dict[str, object] = {}


def _remotes() -> dict:
    # Retries are the driver's (see the module docstring), so Ray's own are off.
    if not _REMOTES:
        ray = _ray()
        _REMOTES["clock"] = ray.remote(num_cpus=0)(_StartClock)
        _REMOTES["prepare"] = ray.remote(num_returns=2, max_retries=0)(_prepare_task)
        _REMOTES["game"] = ray.remote(max_retries=0)(_game_task)
    return _REMOTES


# -- the driver -------------------------------------------------------------------------------
def _most_cpus(ray) -> int | None:
    """The CPUs of the cluster's largest live node (a task asking for more would wait for
    ever), or None when Ray does not say."""
    try:
        cpus = [n.get("Resources", {}).get("CPU", 0) for n in ray.nodes() if n.get("Alive")]
    except Exception:
        return None
    most = int(max(cpus, default=0))
    return most if most >= 1 else None


@dataclass
class _Run:
    spec: RunSpec
    todo: deque
    cores: int  # what each game task reserves (player_cores)
    prep_cores: int = 1  # what the preparation task reserves (prep_cores: its learners may use more)
    key: str = field(default_factory=lambda: uuid.uuid4().hex)
    blob_ref: object = None
    prepared: bool = False
    unpicklable: bool = False
    results: dict = field(default_factory=dict)


@dataclass
class _Task:
    """A task in flight: a preparation (``index`` None) or a game."""

    run_no: int
    index: int | None
    attempt: int
    since: float
    phase: str = "queued"  # then "build" and "prep", or "load" and "play": the clock runs from the last
    node: str | None = None


def run_games(spec, indices: Iterable[int], *, workers: int | None = None,
              on_result: Callable[[GameRecord], None] | None = None,
              address: str | None = None) -> list[GameRecord]:
    """Play the games ``indices`` of ``spec`` as Ray tasks; the local runner's contract."""
    cb = None if on_result is None else (lambda _k, rec: on_result(rec))
    return run_many([(spec, indices)], workers=workers, on_result=cb, address=address)[0]


class _Driver:
    """The driver's side of :func:`run_many`: what is in flight, what to submit next,
    what each answer means, and the clock over every task."""

    def __init__(self, ray, runs: list[_Run], workers: int | None,
                 on_result: Callable[[int, GameRecord], None] | None) -> None:
        self.ray, self.runs, self.workers, self.on_result = ray, runs, workers, on_result
        self.remotes = _remotes()
        self.clock = self.remotes["clock"].remote()
        self.flying: dict[object, _Task] = {}
        self.limit_games, self.limit_checked = self.budget(), time.monotonic()
        self.drained = 0.0
        self.draining = None  # the clock's drain asked for and not answered yet
        # Games in flight while the driver did not run (everything frozen), and those of
        # them played again for it (:meth:`skip_stall`).
        self.frozen: set[tuple[int, int]] = set()
        self.thawed: set[tuple[int, int]] = set()

    # -- outcomes ---------------------------------------------------------------------------
    def finish(self, k: int, rec: GameRecord) -> None:
        if rec.game_index in self.runs[k].results:
            return  # an answer for a game already scored: counted once
        self.runs[k].results[rec.game_index] = rec
        if self.on_result is not None:
            self.on_result(k, rec)

    def penalty(self, k: int, i: int, reason: str, placements: list | None = None, used: float = 0.0) -> None:
        s = self.runs[k].spec
        self.finish(k, GameRecord(i, s.seed + i, s.point_system.penalty, placements or [], used, reason))

    def moves_of(self, task: _Task) -> tuple[list[tuple[int, int, int]], float]:
        """The placements and decision seconds of the game of ``task``, stopped or dead,
        as the clock keeps them; nothing if the clock cannot say (gone, or too busy)."""
        try:
            return self.ray.get(self.clock.moves_of.remote((task.run_no, task.index, task.attempt)),
                                timeout=_MOVES_WAIT_S)
        except self.ray.exceptions.RayError:
            return [], 0.0

    def penalise_rest(self, k: int, reason: str) -> None:
        while self.runs[k].todo:
            self.penalty(k, self.runs[k].todo.popleft(), reason)

    # -- submitting ---------------------------------------------------------------------------
    def submit(self, k: int, index: int | None, attempt: int = 0) -> None:
        run, s = self.runs[k], self.runs[k].spec
        if index is None:
            status_ref, run.blob_ref = self.remotes["prepare"].options(num_cpus=run.prep_cores).remote(
                self.clock, k, attempt, s.player, s.point_system, s.prep_time, s.prep_seed(), run.prep_cores)
            self.flying[status_ref] = _Task(k, None, attempt, time.monotonic())
        else:
            ref = self.remotes["game"].options(num_cpus=run.cores).remote(
                self.clock, run.blob_ref, run.key, k, index, attempt, s.player, s.point_system, s.prep_time,
                s.time_per_game, s.seed, run.cores, s.prep_seed(), s.player_seed(s.seed + index))
            self.flying[ref] = _Task(k, index, attempt, time.monotonic())

    def retry_or_fail(self, task: _Task, why: str) -> None:
        if task.attempt < MAX_RETRIES:
            self.submit(task.run_no, task.index, task.attempt + 1)
        elif task.index is None:
            self.penalise_rest(task.run_no, f"preparation failed: {why}, {MAX_RETRIES + 1} times")
        else:
            self.penalty(task.run_no, task.index, f"crash: {why}, {MAX_RETRIES + 1} times", *self.moves_of(task))

    def game_cost(self, k: int) -> float:
        return 1.0 if self.workers is not None else float(self.runs[k].cores)

    def budget(self) -> float:
        if self.workers is not None:
            return float(self.workers)
        return 2.0 * max(1.0, self.ray.cluster_resources().get("CPU", 1.0))

    def fill(self) -> None:
        """Games, run by run, while the budget allows (always at least one)."""
        used = sum(self.game_cost(t.run_no) for t in self.flying.values() if t.index is not None)
        for k, run in enumerate(self.runs):
            while run.prepared and run.todo and (used + self.game_cost(k) <= self.limit_games or not self.flying):
                self.submit(k, run.todo.popleft())
                used += self.game_cost(k)

    # -- answers ------------------------------------------------------------------------------
    def collect(self) -> None:
        """Wait a moment for answers and handle every one that came."""
        waiting = list(self.flying)
        ready, _ = self.ray.wait(waiting, num_returns=1, timeout=_POLL_S)
        if ready:
            ready, _ = self.ray.wait(waiting, num_returns=len(waiting), timeout=0)
        now = time.monotonic()
        if self.skip_stall(now):  # before the answers that came on thawing are read
            self.drained = now
        for ref in ready:
            task = self.flying.pop(ref)
            try:
                answer = self.ray.get(ref)
            except self.ray.exceptions.RayTaskError as e:  # a bug in the task itself: no use retrying
                answer = ("prep-error", str(e).splitlines()[-1])
            except self.ray.exceptions.RayError as e:  # the worker or its node died
                self.retry_or_fail(task, f"the player's process died ({type(e).__name__})")
                continue
            self.handle(task, answer)

    def handle(self, task: _Task, answer: tuple) -> None:
        k, run = task.run_no, self.runs[task.run_no]
        if task.index is None:
            if answer[0] == "build-error":
                raise PlayerFailedError(answer[1])
            if answer[0] == "prep-error":
                self.penalise_rest(k, f"preparation failed: {answer[1]}")
            else:
                run.prepared, run.unpicklable = True, not answer[2]
                overrun = prep_overrun_note(run.spec.player, run.spec.prep_time, answer[1])
                if overrun is not None:
                    warnings.warn(overrun, RunnerWarning, stacklevel=2)
                if run.unpicklable:
                    warnings.warn(f"the prepared player {run.spec.player!r} cannot be pickled, so each Ray "
                                  "worker prepares its own copy: its games then depend on the number of "
                                  "workers", RunnerWarning, stacklevel=2)
        elif answer[0] == "result":
            key, record = (k, task.index), answer[1]
            if key in self.frozen and key not in self.thawed and (record.penalty or "").startswith("timeout"):
                self.thawed.add(key)
                warnings.warn(f"game {task.index}'s clock ran while the driver did not ({record.penalty}): a frozen "
                              "machine, most likely; it is played again", RunnerWarning, stacklevel=2)
                self.submit(k, task.index, task.attempt + 1)
                return
            self.frozen.discard(key)
            self.finish(k, record)
        else:
            self.penalty(k, task.index, f"preparation failed: {answer[1]}")

    # -- the clock ----------------------------------------------------------------------------
    def watch(self) -> None:
        """Start the clocks of the tasks that began and stop those past their time (a few
        times a second is enough)."""
        now = time.monotonic()
        if now - self.drained < _POLL_S:
            return
        self.skip_stall(now)
        self.drained = now
        self.start_clocks()
        self.stop_overdue(time.monotonic())  # not ``now``: the drain may have been waited for
        if self.workers is None and now - self.limit_checked > 5.0:
            self.limit_games, self.limit_checked = self.budget(), now  # a cluster may grow or shrink

    def skip_stall(self, now: float) -> bool:
        """Whether the driver did not run for a while before ``now`` (frozen with
        everything else, a paused container or virtual machine). Then the tasks' clocks
        skip that time, as the local runner's watch does: the preparation that ended on
        thawing was stopped, and every game of its run scored the penalty. The players'
        own clocks still count it: a game then in flight that its clock scores as a
        timeout is played again, once (:meth:`handle`)."""
        if not self.drained or now - self.drained <= _POLL_S + _STALL_S:
            return False
        for task in self.flying.values():
            task.since += now - self.drained - _POLL_S
            if task.index is not None:
                self.frozen.add((task.run_no, task.index))
        return True

    def start_clocks(self, now: float | None = None) -> None:
        """Start the clock of each task whose mark the start clock drained, at ``now``:
        by default the time its answer came, never a time read before waiting for it. A
        mark can be made while the driver waits (up to a second), and a clock started at
        a time read before the wait ran early by that much, out of the game's grace."""
        # A drain the clock has not answered within a second (a busy machine) is waited
        # for at the next poll, not asked again: its answer holds the marks it drained.
        if self.draining is None:
            self.draining = self.clock.drain.remote()
        try:
            ready, _ = self.ray.wait([self.draining], num_returns=1, timeout=1.0)
            if not ready:
                return
            marks = self.ray.get(self.draining)
        except self.ray.exceptions.RayError:
            marks = []
        self.draining = None
        if now is None:
            now = time.monotonic()  # after the answer: every mark it holds was made before
        by_key = {(t.run_no, t.index, t.attempt): t for t in self.flying.values()}
        for mark in marks:
            if mark[0] in ("build", "prep"):
                task = by_key.get((mark[1], None, mark[2]))
            else:
                task = by_key.get((mark[1], mark[2], mark[3]))
            if task is not None:
                task.phase, task.since, task.node = mark[0], now, mark[-1]

    def limit(self, task: _Task) -> float | None:
        s = self.runs[task.run_no].spec
        # Building and loading include the untimed warm-up, as the local runner's do; an
        # unpicklable player is prepared in each worker, so loading it also gets its budget.
        return {"build": WARM_UP_LIMIT_S,
                "prep": prep_limit_s(s.prep_time),
                "load": WARM_UP_LIMIT_S + (s.prep_time if self.runs[task.run_no].unpicklable else 0.0),
                "play": s.time_per_game + HANG_GRACE_S}.get(task.phase)

    def stop_overdue(self, now: float) -> None:
        """Past their time: stop the task (and its worker) and score the penalty, unless
        its node is gone, which is no fault of the player's."""
        overdue = [ref for ref, task in self.flying.items()
                   if (limit := self.limit(task)) is not None and now - task.since > limit]
        alive = {n["NodeID"] for n in self.ray.nodes() if n.get("Alive")} if overdue else set()
        for ref in overdue:
            task = self.flying.pop(ref)
            self.ray.cancel(ref, force=True)
            s = self.runs[task.run_no].spec
            if task.node is not None and task.node not in alive:
                self.retry_or_fail(task, "its Ray node died")
            elif task.phase == "build":
                self.penalise_rest(task.run_no, build_overrun(WARM_UP_LIMIT_S))
            elif task.index is None:
                self.penalise_rest(task.run_no, f"preparation exceeded its budget of {s.prep_time:g} s")
            elif task.phase == "load":
                limit = self.limit(task)
                assert limit is not None  # every phase has one
                self.penalty(task.run_no, task.index, load_overrun(limit, "task"))
            else:
                self.penalty(task.run_no, task.index,
                             f"timeout: no answer within {s.time_per_game:g} s (+{HANG_GRACE_S:g} s grace);"
                             " the player's task was stopped", *self.moves_of(task))

    def busy(self) -> bool:
        return bool(self.flying) or any(r.prepared and r.todo for r in self.runs)

    def stop(self) -> None:
        """Stop what is still in flight (an interruption, or an error in the driver).
        Nothing inside a session that started the local instance: its shutdown, which
        follows, ends the games; a force cancel there races a game's reply in Ray
        (2.60's core worker once aborted, "Tried to complete task that was not pending")."""
        if any(_SESSION_ENDS_INSTANCE):
            return
        for ref in self.flying:
            try:
                self.ray.cancel(ref, force=True)
            except Exception:  # finished meanwhile, or the cluster is gone: nothing to stop
                pass
        try:
            self.ray.kill(self.clock)
        except Exception:
            pass


def run_many(jobs: Sequence[tuple[RunSpec, Iterable[int]]], *, workers: int | None = None,
             on_result: Callable[[int, GameRecord], None] | None = None,
             address: str | None = None, on_tick: Callable[[], None] | None = None) -> list[list[GameRecord]]:
    """Play several runs at once: ``jobs`` is a list of ``(RunSpec, game indices)``.

    ``on_result(k, record)`` is called in the driver as each game of job ``k`` finishes,
    ``on_tick()`` a few times a second while it waits.
    ``workers`` caps the games in flight; by default they fill twice the cluster's CPUs
    (counting each game as its player's cores), so no CPU waits for the driver.
    Returns each job's records in game order.
    """
    workers = check_workers(workers)
    jobs = [(spec, check_game_indices(spec, indices)) for spec, indices in jobs]
    runs = []
    with one_build_per_spec():  # each player built once for these checks (record_runs' too)
        for spec, indices in jobs:
            checked_player(spec.player)  # unknown names, bad parameters and import errors: one line, nothing played
            if spec.secret is None:  # the players' seeds need a key (harness/seeds.py)
                spec = dataclasses.replace(spec, secret=new_secret())
            runs.append(_Run(spec, deque(sorted(indices)), player_cores(spec.player)))
    if not any(r.todo for r in runs):
        return [[] for _ in runs]
    ray = _ray()
    init(address)
    most = _most_cpus(ray)
    for run in runs:
        run.prep_cores = prep_cores(run.spec.player, most)
    driver = _Driver(ray, runs, workers, on_result)
    for k, run in enumerate(runs):
        if run.todo:
            driver.submit(k, None)
    try:
        while driver.busy():
            driver.fill()
            driver.collect()
            driver.watch()
            if on_tick is not None:
                on_tick()
    finally:
        driver.stop()
    return [[run.results[i] for i in sorted(run.results)] for run in runs]
