"""Compiling players' kernels before their games, on several cores at once.

On a machine's first run numba compiles every kernel (about 66 s of CPU for the
built-in agents, `benchmarks/compile_time.py --groups`) and caches it on disk; every
later process loads it in a fraction of a second. :func:`warm_up_players` does that
compiling up front in ``processes`` processes, players sharing an evaluator or a
search in the same process (they share kernels), so that a first tournament waits
about half as long and its players' preparations are not the ones compiling.
"""

from __future__ import annotations

import multiprocessing as mp
import time
from multiprocessing.connection import wait
from typing import Callable

from ..errors import PokerSquaresError
from .registry import make_player

__all__ = ["warm_up_players", "kernel_groups", "shares"]


def kernel_groups(specs: list[str]) -> list[list[str]]:
    """``specs`` grouped by the kernels they compile: players sharing an evaluator class
    or a search class are in one group (``hybrid``, NARL under MCTS, shares the NARL
    kernels with ``gettysburg`` and MCTS's tree kernel with ``tiger``: apart, two
    processes compiled that kernel at once), players with neither together; groups and
    their players in order of first appearance."""
    groups: list[tuple[set, list[str]]] = []
    for spec in specs:
        player = make_player(spec)
        families = {(part, type(getattr(player, part, None)).__name__) for part in ("evaluator", "search")}
        joined = [g for g in groups if g[0] & families]
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
    return [sorted(specs_, key=specs.index) for _, specs_ in groups]


def shares(groups: list[list[str]], processes: int) -> list[list[str]]:
    """The specs each of ``processes`` warm-up processes takes: the groups in turn."""
    parts: list[list[str]] = [[] for _ in range(min(processes, len(groups)))]
    for k, group in enumerate(groups):  # the groups in turn: the costliest come first in practice
        parts[k % len(parts)].extend(group)
    return parts


def _warm_main(conn, specs: list[str]) -> None:
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


def warm_up_players(specs: list[str], processes: int = 2,
                    on_ready: Callable[[str, int, int], None] | None = None) -> float:
    """Warm up (compile the kernels of) every player of ``specs`` in ``processes``
    worker processes; ``on_ready(spec, ready, total)`` is called as each is done.
    Returns the seconds it took. A player whose warm-up fails is reported as ready:
    its own run reports the failure."""
    if processes < 1:
        raise PokerSquaresError(f"processes must be at least 1, got {processes}")
    t = time.monotonic()
    parts = shares(kernel_groups(specs), processes)
    # Spawned, not forked: a parent that already ran numba's threaded kernels cannot
    # safely fork a process that compiles and runs them (a test run lost a child so).
    ctx = mp.get_context("spawn")
    pending: dict = {}
    procs = []
    for share in parts:
        parent, child = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_warm_main, args=(child, share), daemon=True)
        proc.start()
        child.close()
        pending[parent] = list(share)
        procs.append(proc)
    ready = 0

    def done(spec: str) -> None:
        nonlocal ready
        ready += 1
        if on_ready is not None:
            on_ready(spec, ready, len(specs))

    try:
        while pending:
            for conn in wait(list(pending)):
                try:
                    spec, _ = conn.recv()
                except EOFError:  # the process died: its players' own runs will say why
                    for spec in pending.pop(conn):
                        done(spec)
                    continue
                pending[conn].remove(spec)
                done(spec)
    finally:
        for proc in procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()
    return time.monotonic() - t
