"""Compiling players' kernels before their games, on several cores at once.

On a machine's first run numba compiles every kernel (about 66 s of CPU for the
built-in agents, `benchmarks/compile_time.py --groups`) and caches it on disk; every
later process loads it in a fraction of a second. :func:`warm_up_players` does that
compiling up front in ``processes`` processes, players sharing an evaluator or a
search in the same process (they share kernels), so that a first tournament waits
about half as long and its players' preparations are not the ones compiling.

The compiling processes are the command's as a run's game workers are
(:func:`~pokersquares.harness.local_backend.become_worker`): they die with it, even
by SIGKILL, leave Ctrl-C to it, and are stopped at once when it is interrupted.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import time
from multiprocessing.connection import Connection, wait
from typing import Callable, cast

from ..errors import PokerSquaresError
from ..machine import SIGNAL_POLL_S
from .local_backend import become_worker, stop_process
from .registry import make_player

__all__ = ["warm_up_players", "kernel_groups", "shares", "plan"]


#: Seconds a player with no evaluator and no search (``random``, ``greedy``) compiles.
SMALL_COMPILE_S = 2.0


def _families(player) -> dict[tuple[str, str], float]:
    """The kernel families a player compiles, with their costs: its evaluator's class (and
    that of the evaluator it prepares for small budgets, if any) and its search's class,
    unless the search has no kernels of its own (``compile_s`` 0, such as greedy, which
    runs on its evaluator's)."""
    families = {}
    for part in ("evaluator", "search"):
        obj = getattr(player, part, None)
        cost = getattr(obj, "compile_s", SMALL_COMPILE_S if obj is None else 0.0)
        if obj is None or cost > 0:
            families[(part, type(obj).__name__)] = cost
    # A second evaluator the player may prepare instead (champion's for small budgets):
    # its kernels are compiled too.
    small = getattr(player, "small_evaluator", None)
    if small is not None:
        families[("evaluator", type(small).__name__)] = getattr(small, "compile_s", 0.0)
    return families


def kernel_groups(specs: list[str]) -> list[list[str]]:
    """``specs`` grouped by the kernels they compile: players sharing an evaluator class
    or a search class with kernels of its own are in one group (``hybrid``, NARL under
    MCTS, shares the NARL kernels with ``gettysburg`` and MCTS's tree kernel with
    ``tiger``: apart, two processes compiled that kernel at once), players with neither
    together; groups and their players in order of first appearance."""
    return [specs_ for specs_, _ in _groups_with_costs(specs)]


def _groups_with_costs(specs: list[str]) -> list[tuple[list[str], float]]:
    groups: list[tuple[dict, list[str]]] = []
    for spec in specs:
        families = _families(make_player(spec))
        joined = [g for g in groups if g[0].keys() & families.keys()]
        if joined:
            keep = joined[0]
            for other in joined[1:]:
                keep[0].update(other[0])
                keep[1].extend(other[1])
                groups.remove(other)
            keep[0].update(families)
            keep[1].append(spec)
        else:
            groups.append((families, [spec]))
    return [(sorted(specs_, key=specs.index), sum(families.values())) for families, specs_ in groups]


def shares(groups: list[list[str]], processes: int, costs: list[float] | None = None) -> list[list[str]]:
    """The specs each of ``processes`` warm-up processes takes. With ``costs`` (each
    group's compile seconds), the costliest group goes first to the process with the
    least work so far (longest processing time first), and each process then compiles
    its cheapest groups first, so that quick players are ready early; without them
    (every group alike), the groups in turn."""
    n = min(processes, len(groups))
    costs = [1.0] * len(groups) if costs is None else costs
    load = [0.0] * n
    taken: list[list[int]] = [[] for _ in range(n)]
    for k in sorted(range(len(groups)), key=lambda k: -costs[k]):
        p = min(range(n), key=lambda p: load[p])
        load[p] += costs[k]
        taken[p].append(k)
    return [[spec for k in sorted(ks, key=lambda k: costs[k]) for spec in groups[k]] for ks in taken]


def plan(specs: list[str], processes: int) -> list[list[str]]:
    """The specs each warm-up process compiles: :func:`shares` of the players' kernel
    groups, balanced by their compile costs."""
    grouped = _groups_with_costs(specs)
    return shares([g for g, _ in grouped], processes, [c for _, c in grouped])


def _warm_main(conn, parent: int, specs: list[str]) -> None:
    become_worker(parent)  # dies with the command; Ctrl-C is the command's to handle
    try:
        for spec in specs:
            try:
                player = make_player(spec)
                if hasattr(player, "warm_up"):
                    player.warm_up()
            except BaseException as e:  # reported; the player's own run will fail in one line
                conn.send((spec, f"{type(e).__name__}: {e}"))
                continue
            conn.send((spec, None))
        conn.close()
    except OSError:  # the command is gone (elsewhere than Linux, where we die with it): nobody to tell
        pass


def warm_up_players(specs: list[str], processes: int = 2,
                    on_ready: Callable[[str, int, int], None] | None = None) -> float:
    """Warm up (compile the kernels of) every player of ``specs`` in ``processes``
    worker processes; ``on_ready(spec, ready, total)`` is called as each is done.
    Returns the seconds it took. A player whose warm-up fails is reported as ready:
    its own run reports the failure."""
    if processes < 1:
        raise PokerSquaresError(f"processes must be at least 1, got {processes}")
    t = time.monotonic()
    parts = plan(specs, processes)
    # Spawned, not forked: a parent that already ran numba's threaded kernels cannot
    # safely fork a process that compiles and runs them (a test run lost a child so).
    ctx = mp.get_context("spawn")
    pending: dict = {}
    procs = []
    # Ctrl-C held back while the processes start: a spawned process inherits the mask and
    # so ignores a Ctrl-C to the terminal's group until it leaves that group (become_worker),
    # instead of printing a traceback while it imports; the command gets it when unblocked.
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        for share in parts:
            parent, child = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_warm_main, args=(child, os.getpid(), share), daemon=True)
            proc.start()
            child.close()
            pending[parent] = list(share)
            procs.append((proc, parent))
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
    ready = 0

    def done(spec: str) -> None:
        nonlocal ready
        ready += 1
        if on_ready is not None:
            on_ready(spec, ready, len(specs))

    finished = False
    try:
        while pending:
            # In steps: a Ctrl-C the kernel hands to another thread of this process is
            # handled here only when this thread runs Python again.
            for conn in cast(list[Connection], wait(list(pending), timeout=SIGNAL_POLL_S)):
                try:
                    spec, _ = conn.recv()
                except EOFError:  # the process died: its players' own runs will say why
                    for spec in pending.pop(conn):
                        done(spec)
                    continue
                pending[conn].remove(spec)
                done(spec)
        finished = True
    finally:
        for proc, conn in procs:
            if finished:  # every process said all it had to say: it is ending by itself
                proc.join(timeout=5)
            if proc.exitcode is None:  # interrupted (or one that would not end): stopped now, with its group
                stop_process(proc, conn)
            else:
                conn.close()
    return time.monotonic() - t
