"""How many cores this process may use: what parallel games and threads are sized by.

``os.cpu_count()`` counts the machine's cores, not those the process may run on: a
Slurm job given 1 CPU on a 64-core node, ``taskset -c 0``, ``docker --cpuset-cpus``
(an affinity mask) or ``docker --cpus 1`` and systemd's ``CPUQuota`` (a CFS quota of
the process's cgroup) all leave it at the machine's count. Sized by it, a run played
64 timed games at once on one core, each with a 64th of the time it was given.

And how the main thread keeps threads busy and waits for them (:func:`run_in_threads`).
"""

from __future__ import annotations

import math
import os
import threading
from concurrent.futures import Executor, wait
from pathlib import Path
from typing import Callable, Sequence, TypeVar

__all__ = ["usable_cores", "cgroup_cpu_quota", "run_in_threads", "SIGNAL_POLL_S", "check_compiler"]

T = TypeVar("T")

CGROUP_ROOT = Path("/sys/fs/cgroup")


def _quota_v2(folder: Path) -> float | None:
    try:
        quota, period = (folder / "cpu.max").read_text().split()[:2]
    except (OSError, ValueError):
        return None
    return None if quota == "max" else int(quota) / int(period)


def _quota_v1(folder: Path) -> float | None:
    try:
        quota = int((folder / "cpu.cfs_quota_us").read_text())
        period = int((folder / "cpu.cfs_period_us").read_text())
    except (OSError, ValueError):
        return None
    return None if quota <= 0 or period <= 0 else quota / period


def _own_cgroups(proc_cgroup: Path) -> list[tuple[str, str]]:
    """``(controllers, path)`` of each line of ``/proc/self/cgroup``."""
    try:
        lines = proc_cgroup.read_text().splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) == 3:
            found.append((parts[1], parts[2]))
    return found


def cgroup_cpu_quota(root: Path = CGROUP_ROOT, proc_cgroup: Path = Path("/proc/self/cgroup")) -> float | None:
    """The CPU time this process's cgroup may use per second of wall time (1.5: one and a
    half cores), the least over its cgroup and those above it, in cgroup v2 or v1; None
    when nothing limits it (or nothing can be read: not Linux)."""
    quotas = []
    base: Path | None
    for controllers, path in _own_cgroups(proc_cgroup):
        if controllers == "":  # v2: the unified hierarchy
            base, read = root if (root / "cgroup.controllers").exists() else root / "unified", _quota_v2
        elif "cpu" in controllers.split(","):
            base = next((root / name for name in ("cpu", "cpu,cpuacct", "cpuacct,cpu") if (root / name).is_dir()), None)
            read = _quota_v1
            if base is None:
                continue
        else:
            continue
        folder = base / path.lstrip("/")
        # A container sees its own cgroup as the root: the path /proc names may not exist in it.
        while True:
            if folder.is_dir():
                q = read(folder)
                if q is not None:
                    quotas.append(q)
            if folder == base or base not in folder.parents:
                break
            folder = folder.parent
    return min(quotas) if quotas else None


def usable_cores() -> int:
    """The cores this process may keep busy: those its affinity mask allows, at most its
    cgroup's CPU quota rounded up; at least 1."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # no affinity on this platform
        cores = os.cpu_count() or 1
    quota = cgroup_cpu_quota()
    if quota is not None:
        cores = min(cores, math.ceil(quota - 1e-9))
    return max(1, cores)


def check_compiler(what: str) -> None:
    """Refuse ``what`` (games to play, deals to solve) in a process where numba's compiler
    is off (``NUMBA_DISABLE_JIT=1``, set by a host for debugging or coverage): the kernels
    would run as plain Python, hundreds of times slower and outside their integer types,
    and the players' preparations failed (every game recorded as a penalty) or played a
    fraction of their strength on the clock, recorded as this code's games."""
    try:
        from numba.core import config
    except ImportError:  # no numba: nothing compiles, nothing to refuse
        return
    if getattr(config, "DISABLE_JIT", 0):  # set from the environment when numba is imported
        from .errors import PokerSquaresError
        raise PokerSquaresError(f"numba's compiler is off in this process (NUMBA_DISABLE_JIT=1): the package's kernels "
                                f"would run as plain Python, hundreds of times slower, and many fail so; {what}: "
                                "unset NUMBA_DISABLE_JIT and try again")


# How often a main thread waiting for its threads wakes up, to run a signal's handler.
SIGNAL_POLL_S = 0.1


def run_in_threads(pool: Executor, calls: Sequence[Callable[[], T]], stop: threading.Event | None = None) -> list[T]:
    """Run each call in ``pool``; their results in order, waited for in steps of
    :data:`SIGNAL_POLL_S`. On any exception in this thread while it submits or waits (a
    signal handler's KeyboardInterrupt), ``stop`` is set before it goes on, for the calls
    that look at it between their chunks of work to end.

    Python runs a signal's handler in the main thread, between bytecodes; the kernel may
    deliver a signal sent to the process to any of its threads, and one delivered to a
    learning thread does not wake a main thread blocked in ``Future.result()``: a Ctrl-C
    or SIGTERM was heard only when the threads ended. And a signal handled while a thread
    starts (``pool.submit`` waits for it) leaves that thread unknown to the pool, which
    then does not wait for it: a ``train`` of ``og`` on two threads said "interrupted" at
    once, then its process waited 54 s for the unknown thread, to its learning budget's end."""
    try:
        futures = [pool.submit(call) for call in calls]
        pending = set(futures)
        while pending:
            _, pending = wait(pending, timeout=SIGNAL_POLL_S)
        return [f.result() for f in futures]
    except BaseException:
        if stop is not None:
            stop.set()
        raise
