"""The compiling processes of ``warm_up_players`` (``demo``, ``serve``) are the command's:
they die with it, even by SIGKILL, and a Ctrl-C stops them at once, without a traceback."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from tests.harness.proc_stats import living_processes

HERE = Path(__file__).resolve().parent

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")

# One process compiles: random first (reported at once), then two players whose warm-ups
# sleep 30 s each, as a long compile does.
DRIVER = textwrap.dedent("""
    import sys
    from pokersquares.harness.warm_up import warm_up_players

    def ready(spec, n, total):
        print("ready", spec, flush=True)

    try:
        warm_up_players(["random", "fault_players:SlowWarmUp:seconds=30", "fault_players:SlowWarmUp:seconds=31"],
                        processes=1, on_ready=ready)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
""")


def _children(pid: int) -> set[int]:
    return {child for child, fields in living_processes().items() if int(fields[1]) == pid}


def _alive(pids) -> set[int]:
    living = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        if stat[stat.rindex(")") + 2:].split()[0] != "Z":
            living.add(pid)
    return living


def _wait_gone(pids, timeout: float) -> set[int]:
    deadline = time.monotonic() + timeout
    while _alive(pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return _alive(pids)


@pytest.fixture
def warming():
    """The driver, started in a session of its own with Ctrl-C handled as in a terminal,
    once its compiling process reported its first player (it then sleeps in the next);
    everything it started is killed after the test."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), *filter(None, [os.environ.get("PYTHONPATH")])]))
    proc = subprocess.Popen([sys.executable, "-c", DRIVER], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    children = set()
    try:
        assert proc.stdout.readline().strip() == "ready random", proc.stderr.read()
        children = _children(proc.pid)
        assert len(children) >= 1  # the compiling process (and multiprocessing's resource tracker)
        yield proc, children
    finally:
        for pid in _alive(children | {proc.pid}):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        proc.wait(timeout=30)


def test_a_compiling_process_dies_with_a_killed_command(warming):
    proc, children = warming
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert _wait_gone(children, 5.0) == set()  # not 30 s more of compiling, then a BrokenPipeError
    assert "Traceback" not in proc.stderr.read()


def test_ctrl_c_stops_the_compiling_processes_at_once(warming):
    proc, children = warming
    t = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal sends: the whole foreground group
    _, err = proc.communicate(timeout=30)
    assert time.monotonic() - t < 3.0  # not 5 s of waiting for a process that went on to its next player
    assert (proc.returncode, err.strip()) == (130, "interrupted")
    assert _wait_gone(children, 5.0) == set()


def test_a_signal_another_thread_receives_stops_the_warm_up_at_once(monkeypatch):
    """The kernel may hand a Ctrl-C to any thread of the process, and Python handles it in
    the main thread only: the wait for the compiling processes went on until one of them
    reported its next player (here 30 s) before the command stopped."""
    import threading

    from pokersquares.harness.warm_up import warm_up_players

    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(HERE), *filter(None, [os.environ.get("PYTHONPATH")])]))
    monkeypatch.syspath_prepend(str(HERE))
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    sent = []

    def ctrl_c_to_this_thread(spec, n, total):
        if spec == "random":  # its process now sleeps in the next player's warm-up
            def send():
                sent.append(time.monotonic())
                signal.pthread_kill(threading.get_ident(), signal.SIGINT)
            threading.Timer(0.5, send).start()  # once this thread waits again

    try:
        with pytest.raises(KeyboardInterrupt):
            warm_up_players(["random", "fault_players:SlowWarmUp:seconds=30"], processes=1,
                            on_ready=ctrl_c_to_this_thread)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert sent and time.monotonic() - sent[0] < 3.0, "the warm-up went on after the signal"
