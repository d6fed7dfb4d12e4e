"""The cores a process may use (``pokersquares.machine``): its affinity mask and its
cgroup's CPU quota, not the machine's count. A Slurm job of 1 CPU on a 64-core node ran
64 timed games at once on its one core."""

import os
import shutil
import subprocess
import sys

import pytest

from pokersquares import machine
from pokersquares.harness import spec


def _tree(tmp_path, files: dict, own: str):
    for name, text in files.items():
        path = tmp_path / "cg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (tmp_path / "self").write_text(own)
    return tmp_path / "cg", tmp_path / "self"


@pytest.mark.parametrize("files, own, quota", [
    ({"cgroup.controllers": "cpu", "cpu.max": "150000 100000"}, "0::/\n", 1.5),  # docker --cpus 1.5 (v2)
    ({"cgroup.controllers": "cpu", "cpu.max": "max 100000"}, "0::/\n", None),
    # a job's cgroup without a limit of its own, under a slice of 2 cores
    ({"cgroup.controllers": "", "user.slice/cpu.max": "200000 100000", "user.slice/job/cpu.max": "max 100000"},
     "0::/user.slice/job\n", 2.0),
    # the least over the hierarchy: a child's 3 under a parent's 1
    ({"cgroup.controllers": "", "a/cpu.max": "100000 100000", "a/b/cpu.max": "300000 100000"}, "0::/a/b\n", 1.0),
    # in a container, /proc names a path its own mount does not have: the root's quota
    ({"cgroup.controllers": "", "cpu.max": "50000 100000"}, "0::/docker/abc123\n", 0.5),
    # cgroup v1, as this project's machine has it (cpu and cpuacct apart or joined)
    ({"cpu,cpuacct/cpu.cfs_quota_us": "50000", "cpu,cpuacct/cpu.cfs_period_us": "100000"},
     "4:cpu,cpuacct:/\n0::/\n", 0.5),
    ({"cpu/cpu.cfs_quota_us": "-1", "cpu/cpu.cfs_period_us": "100000"}, "1:cpu:/\n0::/\n", None),
    ({}, "", None),  # nothing to read: not limited
])
def test_a_cgroups_cpu_quota_is_read_in_either_version(tmp_path, files, own, quota):
    root, proc = _tree(tmp_path, files, own)
    assert machine.cgroup_cpu_quota(root, proc) == quota


def test_the_usable_cores_are_the_affinity_masks_at_most_the_quota_rounded_up(monkeypatch):
    monkeypatch.setattr(machine.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    monkeypatch.setattr(machine, "cgroup_cpu_quota", lambda: None)
    assert machine.usable_cores() == 4
    monkeypatch.setattr(machine, "cgroup_cpu_quota", lambda: 1.5)
    assert machine.usable_cores() == 2
    monkeypatch.setattr(machine, "cgroup_cpu_quota", lambda: 0.2)
    assert machine.usable_cores() == 1
    monkeypatch.setattr(machine.os, "sched_getaffinity", lambda pid: {3}, raising=False)
    monkeypatch.setattr(machine, "cgroup_cpu_quota", lambda: None)
    assert machine.usable_cores() == 1


def test_parallel_games_are_sized_by_the_cores_the_process_may_use(monkeypatch):
    monkeypatch.setattr(machine.os, "sched_getaffinity", lambda pid: {0}, raising=False)
    monkeypatch.setattr(machine.os, "cpu_count", lambda: 64)
    monkeypatch.setattr(machine, "cgroup_cpu_quota", lambda: None)
    assert spec.default_workers("greedy") == 1
    monkeypatch.setattr(machine.os, "sched_getaffinity", lambda pid: set(range(64)), raising=False)
    assert spec.default_workers("greedy") == 64 and spec.default_workers("champion") == 32


@pytest.mark.skipif(shutil.which("taskset") is None or (os.cpu_count() or 1) < 2, reason="needs taskset and 2 cores")
def test_a_run_pinned_to_one_core_is_warned_of_two_parallel_games(tmp_path):
    done = subprocess.run(["taskset", "-c", "0", sys.executable, "-m", "pokersquares", "run", "-p", "greedy",
                           "--games", "2", "--workers", "2", "--db", str(tmp_path / "r.sqlite"), "--json"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (f"warning: 2 parallel games of greedy at 1 core each keep 2 cores busy; this process may use 1 of "
            f"the machine's {os.cpu_count()}") in done.stderr
