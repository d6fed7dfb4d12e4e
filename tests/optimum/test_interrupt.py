"""Stopping `pokersquares optimum --seeds`: Ctrl-C or SIGTERM stop its solver workers at
once (not after every queued deal), with one message, and the deals already solved stay
in the store."""

import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from tests.harness.test_processes import descendants, wait_gone

pytest.importorskip("ortools")
pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads processes from /proc")


def _optima(db) -> int:
    try:
        with sqlite3.connect(db) as c:
            return c.execute("SELECT COUNT(*) FROM optima").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


@pytest.mark.parametrize("how", ["sigterm", "ctrl-c"])
def test_an_interrupted_many_deal_solve_stops_its_workers_and_keeps_what_it_solved(tmp_path, how):
    db = tmp_path / "o.sqlite"
    # single:flush: each deal some 1.5 s of solving, so the first is stored soon and the
    # workers are in the middle of others when the signal comes
    cmd = [sys.executable, "-m", "pokersquares", "optimum", "--seeds", "0..200", "--system", "single:flush",
           "--time-limit", "60", "--workers", "2", "--db", str(db)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.time() + 120
        while _optima(db) < 1 and time.time() < deadline:
            assert proc.poll() is None, proc.stderr.read()
            time.sleep(0.2)
        assert _optima(db) >= 1
        workers = descendants(proc.pid)
        assert len(workers) >= 2
        if how == "sigterm":
            os.kill(proc.pid, signal.SIGTERM)  # the command only, as `kill` or a scheduler does
        else:
            os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal sends: the whole group
        out, err = proc.communicate(timeout=20)  # 199 deals were left: waiting them out takes minutes
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == (143 if how == "sigterm" else 130)
    assert err.count("run the same command again to resume") == 1 and "Traceback" not in err
    assert wait_gone(workers) == set()
    assert 1 <= _optima(db) < 201


def _holds_a_pipe_of_its_own(pid: int) -> bool:
    """Whether process ``pid`` holds both ends of one pipe, as its CP-SAT solve does while
    it runs (the pipe its signal watcher waits on); its standard streams are pipes of the
    test, of which it holds one end each."""
    ends = []
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:  # ended: the caller says how
        return False
    for fd in fds:
        try:
            ends.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:  # closed meanwhile
            continue
    pipes = [end for end in ends if end.startswith("pipe:")]
    return len(set(pipes)) < len(pipes)


@pytest.mark.parametrize("how, code", [("ctrl-c", 130), ("sigterm", 143)])
def test_an_interrupted_one_deal_solve_stops_at_once_and_stores_nothing(tmp_path, how, code):
    """One deal is solved in the command's own process: CP-SAT caught Ctrl-C itself (it
    ended only the round it was in, and the command went on to the end of its limit, then
    exited 0), and a SIGTERM waited for the round to end. Both now stop the solve at once,
    and the deal is not stored as solved, so the same command solves it again."""
    db = tmp_path / "o.sqlite"
    # This deal takes CP-SAT some 30 s on a quiet core.
    cmd = [sys.executable, "-m", "pokersquares", "optimum", "--seed", "3", "--system", "ameritish:3",
           "--time-limit", "120", "--db", str(db)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.time() + 60
        while not db.exists() and time.time() < deadline:  # made just before the solve starts
            assert proc.poll() is None, proc.stderr.read()
            time.sleep(0.1)
        # Into the solve: past the local search, into CP-SAT (its signal watcher's pipe open),
        # or as long as a busy machine needs to get there.
        deadline = time.time() + 6.0
        while not _holds_a_pipe_of_its_own(proc.pid) and time.time() < deadline:
            assert proc.poll() is None, proc.stderr.read()
            time.sleep(0.05)
        time.sleep(0.2)  # into the search itself
        assert proc.poll() is None, proc.stderr.read()
        os.kill(proc.pid, signal.SIGTERM if how == "sigterm" else signal.SIGINT)
        out, err = proc.communicate(timeout=5)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, (proc.returncode, out, err)
    assert err.count("run the same command again to resume") == 1 and "Traceback" not in err
    assert _optima(db) == 0
