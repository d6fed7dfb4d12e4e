"""Games in worker processes on this machine (the default backend).

The player is prepared once per point system in a watched process, then copied
(pickled) into worker processes that play whole games and report each result as it
finishes. The parent only watches: a worker that overruns a game's time, goes over
its memory limit or dies is stopped and replaced, and the game it was playing scores
the penalty with its reason. Game ``i`` is dealt with seed ``seed + i`` and the
player is seeded with a keyed hash of that number (``RunSpec.player_seed``), so
results do not depend on the number of workers.

No process outlives the run. Each worker leads its own process group, so stopping
it stops every process its player started; on Linux the kernel kills a worker when
the run's process dies, even by SIGKILL (``PR_SET_PDEATHSIG``), and elsewhere a
thread in the worker watches its parent. Workers ignore Ctrl-C (the run stops them
and says so once) and write whatever a player prints to standard error, so the
run's ``--json`` output stays clean.
"""

from __future__ import annotations

import ctypes
import dataclasses
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
import warnings
from collections import deque
from multiprocessing.connection import wait
from typing import Callable, Iterable

from .. import progress
from ..errors import PokerSquaresError
from ..machine import check_compiler, usable_cores
from .game_play import fault_text, play_game, prepare_player, seed_global_randomness
from .registry import checked_player, one_build_per_spec
from .seeds import new_secret
from .spec import (HANG_GRACE_S, WARM_UP_LIMIT_S, check_game_indices, check_workers,
                   OutOfMemoryError, PlayerFailedError, RunSpec, build, build_overrun, default_workers,
                   limit_threads, load_overrun, load_prepared, player_cores, prepare_and_pickle,
                   prep_limit_s, prep_overrun_note)
from .store import GameRecord

__all__ = ["run_games", "RunnerWarning", "WARM_UP_LIMIT_S", "become_worker", "omp_in_use"]

_POLL_S = 0.2
# A watch that looked at its clock this long after the last look (past its poll) did not
# run meanwhile: the run's process was stopped, or the whole machine (a paused container
# or virtual machine, which the monotonic clock counts), and it cannot say what the
# watched process did then.
_STALL_S = 1.0
_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


class RunnerWarning(UserWarning):
    """Something that makes a run's results less trustworthy: reported, never swallowed."""


# -- in the child processes ------------------------------------------------------------------
def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os.killpg(os.getpgid(0), signal.SIGKILL)


def _find_prctl():
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # not Linux
        return None


# Looked up here, in the run's process: loading a library in a child forked from a
# process with threads (Ray's, numba's) could deadlock on the loader's lock.
_PRCTL = _find_prctl()


def _die_with_parent(parent: int) -> None:
    """The kernel kills this process when its parent dies (Linux); elsewhere a thread
    watches the parent and kills this process's group."""
    if _PRCTL is None or _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL) != 0:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # the parent died before the watch began
        os._exit(1)


def _descriptor_2_is_standard_error() -> bool:
    """Whether descriptor 2 is a standard error: this process started with one (Python's
    ``sys.__stderr__``), or the host's ``sys.stderr`` writes to descriptor 2. A host started
    without one that then set ``sys.stderr`` to a file of its own (descriptor 3 or above)
    left descriptor 2 to the first file it opened: its workers wrote a player's prints
    there."""
    if sys.__stderr__ is not None:
        return True
    try:
        return sys.stderr is not None and sys.stderr.fileno() == 2
    except (AttributeError, OSError, ValueError):  # no descriptor (a StringIO), or closed
        return False


def become_worker(parent: int) -> None:
    """What every worker process of a run does first (the optimum's solvers too): it
    leaves Ctrl-C to the run, dies with the run and leads its own process group."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the run's to handle: it stops us
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the command line's handler, inherited by fork
    if callable(signal.getsignal(signal.SIGHUP)):  # nor its SIGHUP's (nohup's SIG_IGN is kept)
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
    try:
        os.setpgid(0, 0)  # our own group: stopping it stops the processes the player starts
    except OSError:
        pass
    _die_with_parent(parent)
    try:
        if not _descriptor_2_is_standard_error():
            # The host has no standard error (Python started with descriptor 2 closed: a daemon,
            # ``cmd 2>&-``), and descriptor 2 is closed or whatever file was opened first since:
            # the null device read-only (a player's print failed, EBADF, and each of its games
            # scored the penalty), the run's shared memory (its prints overwrote the moves of
            # the game being played), or a file of the host's own. Both go to the null device.
            null = os.open(os.devnull, os.O_WRONLY)
            if null != 2:
                os.dup2(null, 2)
                os.close(null)
        os.dup2(2, 1)  # at the descriptor level: a player's prints never reach the run's stdout
    except OSError:  # no null device either: leave them be
        pass


def _prep_main(conn, parent: int, spec: RunSpec) -> None:
    become_worker(parent)
    lock = threading.Lock()  # learners report from several threads

    def send(msg) -> None:
        with lock:
            conn.send(msg)

    def tell(p: progress.Progress) -> None:
        send(("progress", p.stage, p.games, p.seconds_left))

    note = limit_threads(usable_cores())
    if note:
        send(("note", note))
    try:
        with progress.listening(tell):
            player = build(spec.player, spec.prep_seed())
            send(("built",))  # the preprocessing clock starts
            used, blob, why = prepare_and_pickle(player, spec.point_system, spec.prep_time)
    except PokerSquaresError as e:
        send(("build-error", str(e)))
        return
    except BaseException as e:  # the player's own failure, reported to the parent
        send(("prep-error", fault_text(e)))
        return
    send(("prepared", used, blob, why))  # why: each worker prepares its own copy; the parent says so


class _MoveTrace:
    """The moves of the game a worker is playing, in memory shared with the run's process,
    which reads it after stopping a worker that hung or died (such a worker cannot report
    its game): the penalised game's record keeps the placements made before the fault,
    and the decision seconds it took, as a game timed out by the clock does."""

    def __init__(self, ctx) -> None:
        self.ints = ctx.RawArray("q", 2 + 3 * 25)  # game index, placements made, then (card, row, col) each
        self.times = ctx.RawArray("d", 2)         # decision seconds so far; time.monotonic() of the last move
        self.ints[0] = -1

    # -- in the worker
    def start(self, index: int) -> None:
        self.ints[1] = 0
        self.ints[0] = index
        self.times[0], self.times[1] = 0.0, time.monotonic()

    def placed(self, card: int, row: int, col: int, used: float) -> None:
        k = self.ints[1]
        self.ints[2 + 3 * k:5 + 3 * k] = [card, row, col]
        self.times[0], self.times[1] = used, time.monotonic()
        self.ints[1] = k + 1

    # -- in the run's process, once the worker is stopped
    def moves_of(self, index: int, now: float) -> tuple[list[tuple[int, int, int]], float]:
        """Game ``index``'s placements and decision seconds up to ``now`` (the move it was
        stopped in counted to ``now``); nothing if the worker had not begun that game."""
        if self.ints[0] != index:
            return [], 0.0
        moves = [tuple(self.ints[2 + 3 * i:5 + 3 * i]) for i in range(self.ints[1])]
        return moves, self.times[0] + max(0.0, now - self.times[1])


def _preparing(spec: RunSpec) -> str:
    """Whose preparation a progress line is about."""
    return f"preparing {spec.player} on {spec.point_system.name}"


def _worker_main(conn, parent: int, spec: RunSpec, blob: bytes | None, cores: int, trace: _MoveTrace) -> None:
    become_worker(parent)
    note = limit_threads(cores)
    if note:
        conn.send(("note", note))
    try:
        if blob is not None:
            player = load_prepared(blob)
        else:  # not picklable: prepared here, its lines named as the run's preparation names its own
            with progress.listening(progress.with_subject(_preparing(spec))):
                player = build(spec.player, spec.prep_seed())
                prepare_player(player, spec.point_system, spec.prep_time)
    except BaseException as e:
        conn.send(("prep-error", fault_text(e)))
        return
    conn.send(("ready",))
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            return
        index, game_seed, seed_of_player = msg
        trace.start(index)
        seed_global_randomness(seed_of_player)
        conn.send(("result", play_game(player, spec.point_system, game_seed, spec.time_per_game, index,
                                       seed_of_player, on_move=trace.placed)))


# -- in the run's process --------------------------------------------------------------------
def _start(ctx, target, *args):
    """A watched child process and the run's end of its pipe."""
    for stream in (sys.stdout, sys.stderr):  # a forked child must not inherit (and later write) unflushed output
        if stream is not None:  # None where the host has none (started with its standard output closed)
            stream.flush()
    conn, child = ctx.Pipe()
    proc = ctx.Process(target=target, args=(child, os.getpid(), *args), daemon=True)
    proc.start()
    child.close()
    try:
        os.setpgid(proc.pid, proc.pid)  # also here, so no signal finds it between fork and its own call
    except OSError:
        pass
    return conn, proc


def stop_process(proc, conn) -> None:
    """Kill the child and every process of its group (what its player started)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:  # no such group (yet): the process alone
        if proc.is_alive():
            proc.kill()
    proc.join(timeout=5)
    conn.close()


def _rss_mb(pid: int) -> float | None:
    """Memory of a process's own in MB (Linux's /proc), None where unknown.

    A worker is forked from the run's process, so its resident set starts with every
    page it shares with that parent (several hundred MB under a test runner): count
    only its private pages (what it wrote itself), falling back to the resident set
    where the kernel gives no breakdown."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            kb = sum(int(line.split()[1]) for line in f if line.startswith(("Private_Clean:", "Private_Dirty:")))
        return kb / 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20
    except (OSError, ValueError, IndexError):
        return None


# A game or preparation process ended by one of these signals was stopped from outside
# (kill, a service manager, a closed terminal), not by its player: the run is interrupted,
# and the games are played again when it resumes instead of scoring the penalty for good.
_OUTSIDE_SIGNALS = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP}


def omp_in_use() -> bool:
    """Whether this process has run numba's parallel kernels under its ``omp`` threading
    layer (GNU OpenMP on Linux), which is not fork safe: numba stops a forked child at its
    first parallel kernel (SIGTERM, "fork() called from a process already using GNU
    OpenMP"). The command line never learns in the process that forks the games; a
    notebook that prepared an evaluator, then ran games, did."""
    numba = sys.modules.get("numba")
    if numba is None:
        return False
    try:
        return numba.threading_layer() == "omp"
    except ValueError:  # no parallel kernel has run here
        return False


def children_unwatched() -> bool:
    """Whether this process ignores SIGCHLD (a host's setting, or inherited across exec):
    its children are then reaped by the kernel and their exit statuses lost, so a dead
    worker's ``exitcode`` stays None."""
    sigchld = getattr(signal, "SIGCHLD", None)
    return sigchld is not None and signal.getsignal(sigchld) is signal.SIG_IGN


def _stopped_from_outside(proc) -> None:
    """Raise KeyboardInterrupt if ``proc`` ended by a signal sent to stop it. Numba stops a
    forked child with SIGTERM too, at its first parallel kernel, when this process ran
    them under GNU OpenMP (:func:`omp_in_use`): which one it was cannot be told, so the
    message then says both."""
    code = proc.exitcode
    if code is not None and code < 0 and -code in _OUTSIDE_SIGNALS:
        why = f"a player's process was stopped from outside ({signal.Signals(-code).name})"
        if code == -signal.SIGTERM and omp_in_use():
            why += (", or by numba at its first parallel kernel: this process ran numba's parallel kernels under "
                    "GNU OpenMP (threading layer 'omp') before (an evaluator prepared here), and GNU OpenMP cannot "
                    "run in a process forked from it; if nobody stopped it, play the games in a process of their "
                    "own (pokersquares run), run them before anything learns here, or start Python with "
                    "NUMBA_THREADING_LAYER=workqueue")
        raise KeyboardInterrupt(why)


def oom_kills() -> int | None:
    """How many processes the kernel's out-of-memory killer has killed since boot (Linux's
    /proc/vmstat, memory cgroups' kills included), None where unknown."""
    try:
        with open("/proc/vmstat") as f:
            for line in f:
                if line.startswith("oom_kill "):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def _address_space_mb() -> int | None:
    """This process's address-space limit (``ulimit -v``, inherited by the players'
    processes) in MB, None if there is none."""
    try:
        import resource
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, OSError, ValueError):
        return None
    return None if soft == resource.RLIM_INFINITY else soft // 2 ** 20


def out_of_memory(proc, oom_before: int | None) -> str | None:
    """Why ``proc`` (ended, and not stopped by the run) most likely ran out of memory, or
    None: a SIGKILL while the kernel's out-of-memory killer killed something (since it
    read ``oom_before``), or death by a signal under an address-space limit (numba's
    compiler, LLVM, aborts when it cannot reserve memory: SIGABRT). A MemoryError is not
    one of these: it is the player's own exception (an absurd array), scored as such."""
    code = proc.exitcode
    if code is None or code >= 0:
        return None
    now = oom_kills()
    if -code == signal.SIGKILL and oom_before is not None and now is not None and now > oom_before:
        return "killed by the kernel's out-of-memory killer"
    limit = _address_space_mb()
    if limit is not None and -code in (signal.SIGKILL, signal.SIGABRT, signal.SIGSEGV, signal.SIGBUS):
        return (f"died by {signal.Signals(-code).name} under an address-space limit (ulimit -v) of {limit} MB, "
                "which numba's compiler needs more of")
    return None


def _over_memory(pid: int, limit_mb: int) -> str | None:
    rss = _rss_mb(pid) if limit_mb else None
    if rss is not None and rss > limit_mb:
        return (f"memory: the player's process used {rss:.0f} MB, over the limit of {limit_mb} MB"
                " (--memory-limit); it was stopped")
    return None


def _prepare(ctx, spec: RunSpec, note: Callable[[str], None]) -> tuple[bytes | None, str | None]:
    """Prepare the player once in a watched process: ``(pickled player or None, None)``,
    or ``(None, why every game scores the penalty)``. A player that cannot even be built
    raises PlayerFailedError."""
    oom_before = oom_kills()
    conn, proc = _start(ctx, _prep_main, spec)
    deadline = time.monotonic() + WARM_UP_LIMIT_S  # building and compiling are not timed
    overdue = build_overrun(WARM_UP_LIMIT_S)
    subject = _preparing(spec)
    looked = time.monotonic()
    try:
        while True:
            ready = conn.poll(_POLL_S)
            # Time in which this watch did not run is not held against the player: after
            # everything was frozen for a minute (a paused container), the preparation,
            # thawed with it, ended at once but not within one poll, and every game of
            # the run scored the penalty. Its own clock still counts that time (as
            # prep_overrun_note says), and a preparation that hangs is still stopped.
            now = time.monotonic()
            if now - looked > _POLL_S + _STALL_S:
                deadline += now - looked - _POLL_S
            looked = now
            if not ready:
                reason = _over_memory(proc.pid, spec.memory_mb)
                if reason is None and now > deadline:
                    reason = overdue
                if reason is not None:
                    return None, reason
                continue
            try:
                msg = conn.recv()
            except EOFError:
                proc.join(timeout=5)
                _stopped_from_outside(proc)
                # The machine short of memory is not the player's fault: every game of the
                # run scored the penalty for good ("died during preparation (exit code -9)").
                why = out_of_memory(proc, oom_before)
                if why is not None:
                    raise OutOfMemoryError(f"preparing {spec.player} on {spec.point_system.name} ran out of memory "
                                           f"(its process {why}); no game was recorded: free some memory, or raise "
                                           "the limit, and run the same command again")
                return None, f"preparation failed: the player's process died during preparation (exit code {proc.exitcode})"
            if msg[0] == "progress":  # passed on (pokersquares.progress) until an answer comes
                progress.report(*msg[1:], subject=subject, force=True)
            elif msg[0] == "note":
                note(msg[1])
            elif msg[0] == "built":
                deadline = time.monotonic() + prep_limit_s(spec.prep_time)
                overdue = f"preparation exceeded its budget of {spec.prep_time:g} s"
            elif msg[0] == "build-error":
                raise PlayerFailedError(msg[1])
            elif msg[0] == "prep-error":
                limit = _address_space_mb()
                if limit is not None and msg[1].startswith(("MemoryError", "SystemError")):
                    # Under ``ulimit -v`` numba's compiler fails to reserve memory so, at random.
                    raise OutOfMemoryError(f"preparing {spec.player} on {spec.point_system.name} ran out of memory "
                                           f"under an address-space limit (ulimit -v) of {limit} MB ({msg[1]}); "
                                           "no game was recorded: raise the limit and run the same command again")
                return None, f"preparation failed: {msg[1]}"
            else:
                _, used, blob, why = msg
                overrun = prep_overrun_note(spec.player, spec.prep_time, used)
                if overrun is not None:
                    note(overrun)
                if why is not None:
                    note(f"the prepared player {spec.player!r} cannot be pickled ({why}), so each worker prepares "
                         "its own copy: its games then depend on the number of workers")
                return blob, None
    finally:
        progress.report("done", subject=subject, force=True)
        stop_process(proc, conn)


class _Worker:
    def __init__(self, ctx, spec: RunSpec, blob: bytes | None, cores: int, prefetch: int) -> None:
        self.trace = _MoveTrace(ctx)
        self.conn, self.proc = _start(ctx, _worker_main, spec, blob, cores, self.trace)
        self.assigned: deque[int] = deque()
        self.ready = False
        self.started = time.monotonic()  # of preparation, then of the current game
        self.prefetch = prefetch
        self.oom_before = oom_kills()
        self.killed = False  # by SIGKILL, not sent by the run


class _Pool:
    """The worker processes of one run, and the watch over them."""

    def __init__(self, ctx, spec: RunSpec, blob: bytes | None, cores: int, size: int,
                 finish: Callable[[GameRecord], None], note: Callable[[str], None],
                 tick: Callable[[], None] | None = None) -> None:
        self.ctx, self.spec, self.blob, self.cores, self.size = ctx, spec, blob, cores, size
        self.finish, self.note, self.tick = finish, note, tick
        self.workers: list[_Worker] = []
        self.prefetch = 1 if spec.time_per_game >= 1 and cores > 1 else 2
        self.game_limit = spec.time_per_game + HANG_GRACE_S
        # Getting ready includes the untimed warm-up (an unpicklable player also prepares).
        self.ready_limit = (spec.prep_time if blob is None else 0.0) + WARM_UP_LIMIT_S
        self.replayed: set[int] = set()  # games played again after their process was killed
        # Games in flight while the watch did not run (everything frozen: a paused
        # container or virtual machine), and those of them played again for it.
        self.frozen: set[int] = set()
        self.thawed: set[int] = set()
        self.looked = time.monotonic()

    def penalty(self, index: int, reason: str, placements: list | None = None, used: float = 0.0) -> None:
        self.finish(GameRecord(index, self.spec.seed + index, self.spec.point_system.penalty, placements or [],
                               used, reason))

    def play(self, todo: deque[int]) -> None:
        """Play every game of ``todo``; return when each has a record."""
        while todo or any(w.assigned for w in self.workers):
            while len(self.workers) < self.size and todo:
                self.workers.append(_Worker(self.ctx, self.spec, self.blob, self.cores, self.prefetch))
            self._assign(todo)
            ready = wait([w.conn for w in self.workers], timeout=_POLL_S)
            now = time.monotonic()
            if now - self.looked > _POLL_S + _STALL_S:
                self._stalled(now - self.looked - _POLL_S)
            self.looked = now
            for w in list(self.workers):
                reason = self._receive(w, now, todo) if w.conn in ready else None
                if reason is None:
                    reason = self._watch(w, now)
                if reason is not None:
                    self._retire(w, reason, todo)
            if self.tick is not None:
                self.tick()

    def _assign(self, todo: deque[int]) -> None:
        for w in self.workers:
            while w.ready and todo and len(w.assigned) < w.prefetch:
                i = todo.popleft()
                if not w.assigned:  # idle until now: its game's time starts here, not when it went idle
                    w.started = time.monotonic()
                w.assigned.append(i)
                try:
                    w.conn.send((i, self.spec.seed + i, self.spec.player_seed(self.spec.seed + i)))
                except OSError:  # it died meanwhile: the watch scores its game, requeues the rest
                    break

    def _stalled(self, seconds: float) -> None:
        """The watch did not run for ``seconds``: the run's process was stopped, or the
        whole machine (the monotonic clock counts a paused container or virtual machine).
        That time is not held against the workers by the watch, and a game then in
        flight that its own clock scores as a timeout is played again, once: it most
        likely froze with everything else (a game's clock cannot tell a freeze from a
        slow move)."""
        for w in self.workers:
            w.started += seconds
            if w.assigned:
                self.frozen.add(w.assigned[0])

    def _receive(self, w: _Worker, now: float, todo: deque[int]) -> str | None:
        """Handle one message of ``w``; the reason to stop it, if any."""
        try:
            msg = w.conn.recv()
        except (EOFError, OSError):
            w.proc.join(timeout=5)
            _stopped_from_outside(w.proc)
            if w.proc.exitcode == -signal.SIGKILL:  # the run sends it only after deciding to stop w
                w.killed = True
                why = out_of_memory(w.proc, w.oom_before) or "not by the run: by the kernel when out of memory, or by hand"
                return f"crash: the player's process was killed (SIGKILL, {why})"
            return f"crash: the player's process died (exit code {w.proc.exitcode})"
        if msg[0] == "note":
            self.note(msg[1])
        elif msg[0] == "ready":
            w.ready, w.started = True, now
        elif msg[0] == "result":
            index = w.assigned.popleft()
            w.started = now
            record = msg[1]
            if index in self.frozen and index not in self.thawed and (record.penalty or "").startswith("timeout"):
                self.thawed.add(index)
                self.note(f"game {index}'s clock ran while the run did not ({record.penalty}): a frozen machine, "
                          "most likely; it is played again")
                todo.appendleft(index)
                return None
            self.frozen.discard(index)
            self.finish(record)
        elif msg[0] == "prep-error":
            return f"preparation failed: {msg[1]}"
        return None

    def _watch(self, w: _Worker, now: float) -> str | None:
        """The reason to stop ``w`` (over its time or its memory), if any."""
        limit = self.game_limit if w.ready else self.ready_limit
        if now - w.started > limit and (w.assigned or not w.ready):
            if not w.ready:
                return load_overrun(limit, "process")
            return (f"timeout: no answer within {self.spec.time_per_game:g} s (+{HANG_GRACE_S:g} s grace);"
                    " the player's process was stopped")
        return _over_memory(w.proc.pid, self.spec.memory_mb)

    def _retire(self, w: _Worker, reason: str, todo: deque[int]) -> None:
        """Stop ``w``: the game it was playing scores the penalty, the rest go back to ``todo``."""
        now = time.monotonic()
        stop_process(w.proc, w.conn)
        self.workers.remove(w)
        index = w.assigned[0] if w.assigned else todo[0] if todo else None
        if w.killed and index is not None and index not in self.replayed:
            # Killed from outside: on a machine short of memory the kernel kills the largest
            # process, a game's, which is no fault of its player's; it scored the penalty for
            # good ("died (exit code -9)"). Played again once, with one parallel game fewer
            # (the memory they took together was the likelier cause); killed again, it scores.
            self.replayed.add(index)
            self.size = max(1, self.size - 1)
            self.note(f"{reason[len('crash: '):]}; its game is played again, with {self.size} game(s) at a time")
            todo.extendleft(reversed(w.assigned))
            return
        if w.killed:
            reason += ", in both of its tries; fewer --workers or a lower --memory-limit may help"
        if w.assigned:
            index = w.assigned.popleft()
            self.penalty(index, reason, *w.trace.moves_of(index, now))
        elif todo:
            # Stopped between games (it could not get ready, or outgrew its memory while
            # idle): a new worker would fail the same way, so the next game scores it.
            self.penalty(todo.popleft(), reason)
        todo.extendleft(reversed(w.assigned))

    def stop(self) -> None:
        for w in self.workers:
            try:
                w.conn.send(None)
            except OSError:
                pass
        for w in self.workers:
            w.proc.join(timeout=1)
            stop_process(w.proc, w.conn)
        self.workers.clear()


def _warner(caller) -> Callable[[str], None]:
    """Each message as a RunnerWarning at the line that called :func:`run_games`
    (``caller``, its frame), every run: Python's default filter shows a message once per
    place it is raised, and a notebook's second run of the same player said nothing."""
    where = (caller.f_code.co_filename, caller.f_lineno, caller.f_globals.get("__name__"))

    def warn(message: str) -> None:
        filename, lineno, module = where
        warnings.warn_explicit(message, RunnerWarning, filename, lineno, module=module, registry={})
    return warn


def run_games(spec: RunSpec, indices: Iterable[int], *, workers: int | None = None,
              on_result: Callable[[GameRecord], None] | None = None,
              on_note: Callable[[str], None] | None = None,
              on_tick: Callable[[], None] | None = None) -> list[GameRecord]:
    """Play the games ``indices`` of ``spec`` and return their records in index order.

    ``on_result`` is called as each game finishes (the caller records it), ``on_tick``
    a few times a second while games are played (the caller writes what waits); ``on_note``
    with what makes the results less trustworthy (an unpicklable player, threads that
    cannot be capped), each message once; by default a :class:`RunnerWarning`.
    """
    todo = deque(check_game_indices(spec, indices))
    workers = check_workers(workers)
    check_compiler("no game was played")
    if not todo:
        return []
    if spec.secret is None:  # the players' seeds need a key (harness/seeds.py)
        spec = dataclasses.replace(spec, secret=new_secret())
    with one_build_per_spec():  # the player built once for these checks
        checked_player(spec.player)  # unknown names, bad parameters and import errors: one line, nothing played
        cores = player_cores(spec.player)
        size = max(1, min(workers or default_workers(spec.player), len(todo)))
    results: dict[int, GameRecord] = {}
    said: set[str] = set()

    warn = on_note or _warner(sys._getframe(1))

    def note(message: str) -> None:
        if message not in said:
            said.add(message)
            warn(message)

    def finish(rec: GameRecord) -> None:
        results[rec.game_index] = rec
        if on_result is not None:
            on_result(rec)

    if children_unwatched():
        note("this process ignores SIGCHLD (signal.SIG_IGN): the kernel reaps the players' processes itself, so "
             "a game whose process dies scores the penalty without its exit code, and one killed for memory is "
             "not played again; set signal.signal(signal.SIGCHLD, signal.SIG_DFL) before the run")
    ctx = mp.get_context("fork")
    blob, reason = _prepare(ctx, spec, note)
    if reason is not None:
        for i in todo:
            finish(GameRecord(i, spec.seed + i, spec.point_system.penalty, [], 0.0, reason))
    else:
        pool = _Pool(ctx, spec, blob, cores, size, finish, note, on_tick)
        try:
            pool.play(todo)
        finally:
            pool.stop()
    return [results[i] for i in sorted(results)]
