"""A command on a local Ray instance, stopped by SIGTERM or killed: the command line's
one-line message and exit code, and no process of the instance left behind (Ray alone
leaves the raylet's agents running for up to a minute)."""

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.harness.proc_stats import living_processes

pytest.importorskip("ray")

HERE = Path(__file__).resolve().parent

pytestmark = [pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc"),
              pytest.mark.timeout(240)]


def _stats() -> dict[int, list[str]]:
    """Every living process: its /proc stat fields after the name (state, ppid, pgrp, session, ...)."""
    return living_processes()


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def command_processes(pid: int) -> set[int]:
    """The command's descendants and every process of its session (the raylet's agents
    stay in it when their parents die)."""
    stats = _stats()
    found, frontier = {p for p, f in stats.items() if f[3] == str(pid)}, {pid}
    while frontier:
        frontier = {p for p, f in stats.items() if int(f[1]) in frontier} - found
        found |= frontier
    return found - {pid}


def wait_gone(pids, timeout: float) -> set[int]:
    deadline = time.monotonic() + timeout
    while True:
        left = pids & set(_stats())
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.2)


@pytest.fixture
def command(tmp_path):
    """Start ``run`` on a local Ray instance (slow games, little CPU) in a session of its
    own, as a shell job is; everything it started is killed after the test."""
    started = []

    def start():
        db = tmp_path / "r.sqlite"
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), *filter(None, [os.environ.get("PYTHONPATH")])]))
        proc = subprocess.Popen(
            [sys.executable, "-m", "pokersquares", "run", "--player", "fault_players:SlowGames", "--games", "400",
             "--workers", "2", "--prep-time", "0", "--time-per-game", "5", "--backend", "ray", "--db", str(db), "-q"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        started.append((proc, set()))
        return proc, db

    def watch(proc):
        """Note the command's processes as they come (to kill them after the test)."""
        for p, seen in started:
            if p is proc:
                seen |= command_processes(proc.pid)
                return seen

    yield start, watch
    for proc, seen in started:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
        for pid in wait_gone(seen | command_processes(proc.pid), 0):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def _until(what, proc, watch, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not what():
        assert proc.poll() is None, proc.stderr.read()
        assert time.monotonic() < deadline, "timed out"
        watch(proc)
        time.sleep(0.05)
    watch(proc)


def _games(db: Path) -> int:
    try:
        with sqlite3.connect(db) as c:
            return c.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    except sqlite3.Error:
        return 0


AGENTS = ("ray::DashboardAgent", "ray::RuntimeEnvAgent", "dashboard/agent.py", "runtime_env/agent/main.py")


def _agents_started(pid: int) -> bool:
    """Whether the raylet started its agents (their command lines, before and after they name themselves)."""
    return any(a in _cmdline(p) for p in command_processes(pid) for a in AGENTS)


def test_sigterm_during_games_is_the_command_lines_and_leaves_no_process(command):
    start, watch = command
    proc, db = start()
    _until(lambda: _games(db) >= 2, proc, watch)
    processes = watch(proc)
    os.kill(proc.pid, signal.SIGTERM)  # the command only, as a scheduler or `kill` does
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert err.strip() == "terminated (finished games are recorded; run the same command again to resume)"
    assert _games(db) >= 2  # what finished was kept
    assert wait_gone(processes | command_processes(proc.pid), 5.0) == set()


def test_sigterm_while_ray_starts_is_the_command_lines_and_leaves_no_process(command):
    start, watch = command
    proc, db = start()
    _until(lambda: _agents_started(proc.pid), proc, watch)  # the raylet started its agents: ray.init runs
    processes = watch(proc)
    os.kill(proc.pid, signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert (proc.returncode, err.strip()) == (
        143, "terminated (finished games are recorded; run the same command again to resume)")
    # 15 s: two of Ray's processes outlived 5 s once, in a full parallel suite on a cold cache
    # (the test passed alone, three times in 6.3 to 7.5 s).
    assert wait_gone(processes | command_processes(proc.pid), 15.0) == set()


def test_no_process_of_the_instance_outlives_a_killed_command(command):
    start, watch = command
    proc, db = start()
    # Killed the moment its agents start: the watcher may not have listed them yet (it
    # looks twice a second), and their parent may die before it looks again; they carry
    # the instance's mark (a 1.5 s wait here once left two agents behind in CI).
    _until(lambda: _agents_started(proc.pid), proc, watch)
    processes = watch(proc)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert wait_gone(processes | command_processes(proc.pid), 10.0) == set()
