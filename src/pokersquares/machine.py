"""How many cores this process may use: what parallel games and threads are sized by.

``os.cpu_count()`` counts the machine's cores, not those the process may run on: a
Slurm job given 1 CPU on a 64-core node, ``taskset -c 0``, ``docker --cpuset-cpus``
(an affinity mask) or ``docker --cpus 1`` and systemd's ``CPUQuota`` (a CFS quota of
the process's cgroup) all leave it at the machine's count. Sized by it, a run played
64 timed games at once on one core, each with a 64th of the time it was given.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

__all__ = ["usable_cores", "cgroup_cpu_quota"]

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
