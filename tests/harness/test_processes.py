"""The run's processes: none outlives a killed run, Ctrl-C and SIGTERM stop it cleanly
with one message, a player's prints stay off standard output, a player's memory and
child processes are bounded by its worker."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pokersquares.harness.runner import RunSpec, record_run, run_games
from tests.harness.proc_stats import living_processes
from pokersquares.harness.store import ResultStore
from pokersquares.points import AMERICAN

HERE = Path(__file__).resolve().parent

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")


def _ppids() -> dict[int, int]:
    return {pid: int(fields[1]) for pid, fields in living_processes().items()}


def descendants(pid: int) -> set[int]:
    ppids = _ppids()
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, pp in ppids.items() if pp in frontier} - found
        found |= frontier
    return found


def alive(pids) -> set[int]:
    living = set(_ppids())
    return {p for p in pids if p in living}


def start_run(tmp_path, *args, player="fault_players:SlowGames", games=400, env_extra=None, output=None,
              nohup=False):
    """``run`` in a session of its own (its own process group, as a shell job has), with
    Ctrl-C handled as in a terminal; its output to ``output`` (a descriptor) or pipes;
    with ``nohup``, SIGHUP ignored as ``nohup`` starts a command."""
    db = tmp_path / "k.sqlite"
    env = dict(os.environ, PYTHONPATH=str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""), **(env_extra or {}))
    cmd = [sys.executable, "-m", "pokersquares", "run", "--player", player, "--games", str(games),
           "--db", str(db), "--workers", "2", "--prep-time", "0", "--time-per-game", "5", *args]

    def signals():  # whatever this test run inherited (under nohup, SIGHUP ignored)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGHUP, signal.SIG_IGN if nohup else signal.SIG_DFL)
    out = subprocess.PIPE if output is None else output
    proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=out, text=True, start_new_session=True,
                            preexec_fn=signals)
    return proc, db


def wait_for_games(proc, db: Path, n: int, timeout: float = 90.0) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        assert proc.poll() is None, proc.stderr.read()
        if db.exists():
            try:
                with sqlite3.connect(db) as c:
                    if c.execute("SELECT COUNT(*) FROM games").fetchone()[0] >= n:
                        return
            except sqlite3.OperationalError:
                pass
        time.sleep(0.2)
    raise AssertionError(f"fewer than {n} games recorded within {timeout} s")


def stopped_run(tmp_path, stop, **kwargs):
    """A run (:func:`start_run`) that ``stop(proc)`` stops once 4 games are recorded:
    ``(proc, db, its standard error, the workers it had)`` when it has ended."""
    proc, db = start_run(tmp_path, **kwargs)
    try:
        wait_for_games(proc, db, 4)
        workers = descendants(proc.pid)
        stop(proc)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc, db, err, workers


def wait_gone(pids, timeout: float = 10.0) -> set[int]:
    deadline = time.time() + timeout
    while alive(pids) and time.time() < deadline:
        time.sleep(0.1)
    return alive(pids)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_no_worker_outlives_a_killed_run(tmp_path, sig):
    proc, db = start_run(tmp_path)
    try:
        wait_for_games(proc, db, 4)
        workers = descendants(proc.pid)
        assert len(workers) >= 2  # the two game workers
        os.kill(proc.pid, sig)  # the run only, as a scheduler or `kill` does
        proc.wait(timeout=30)
        assert wait_gone(workers) == set()
    finally:
        if proc.poll() is None:
            proc.kill()
    if sig == signal.SIGTERM:
        err = proc.stderr.read()
        assert proc.returncode == 143
        assert err.count("run the same command again to resume") == 1 and "Traceback" not in err
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT COUNT(*) FROM games").fetchone()[0] >= 4  # what finished was kept


def test_ctrl_c_to_the_process_group_stops_cleanly_with_one_message(tmp_path):
    proc, db = start_run(tmp_path)
    try:
        wait_for_games(proc, db, 4)
        workers = descendants(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal sends: the whole foreground group
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert err.count("interrupted (finished games are recorded; run the same command again to resume)") == 1
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert wait_gone(workers) == set()


def test_a_player_printing_to_stdout_does_not_corrupt_json(tmp_path):
    proc, _ = start_run(tmp_path, "--json", player="fault_players:Prints", games=3)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    data = json.loads(out)  # the only thing on standard output
    assert data["games"] == 3 and data["penalties"] == 0
    assert "chatter from the player" in err and "raw chatter" in err and "chatter from the constructor" in err


def test_a_player_class_declaring_nonsense_cores_is_refused_in_one_line():
    from pokersquares.errors import UnknownPlayerError
    from pokersquares.harness.registry import make_player

    with pytest.raises(UnknownPlayerError, match=r"declares cores = 'abc': it must be an integer 1\.\.64"):
        make_player("fault_players:DeclaresNonsenseCores")


def test_a_player_over_its_memory_limit_is_stopped_with_the_reason(tmp_path):
    spec = RunSpec("fault_players:Leaks", AMERICAN, 1, 0, 20.0, 0.0, memory_mb=250)
    rec, = run_games(spec, [0], workers=1)
    assert rec.penalty.startswith("memory: the player's process used") and "limit of 250 MB" in rec.penalty
    assert rec.score == AMERICAN.penalty
    fine, = run_games(RunSpec("fault_players:Leaks", AMERICAN, 1, 0, 20.0, 0.0, memory_mb=0), [0], workers=1)
    assert fine.penalty is None  # the same player without a limit finishes (about 1 GB)


def test_processes_a_player_starts_die_with_its_stopped_worker(tmp_path):
    pid_file = tmp_path / "children"
    os.environ["FAULT_PID_FILE"] = str(pid_file)
    try:
        rec, = run_games(RunSpec("fault_players:SpawnsAndHangs", AMERICAN, 1, 0, 0.5, 0.0), [0], workers=1)
    finally:
        del os.environ["FAULT_PID_FILE"]
    assert rec.penalty.startswith("timeout")
    children = {int(p) for p in pid_file.read_text().split()}
    assert children and wait_gone(children, 5.0) == set()


def test_unpicklable_player_is_reported(tmp_path):
    store = ResultStore(tmp_path / "u.sqlite")
    with pytest.warns(UserWarning, match="cannot be pickled.*depend on the number of workers"):
        _, recs = record_run(RunSpec("fault_players:Unpicklable", AMERICAN, 2, 0, 5.0, 0.0), store, workers=1)
    assert all(r.penalty is None for r in recs)


@pytest.mark.timeout(120)
def test_a_worker_over_its_memory_between_games_costs_the_next_game_not_a_loop():
    # 1 MB is less than any Python process's own pages: every worker is over the limit as
    # soon as it is watched, often before it has a game. Each game must still end (with
    # the reason) instead of the run replacing idle workers for ever.
    spec = RunSpec("greedy", AMERICAN, 3, 0, 5.0, 0.0, memory_mb=1)
    records = run_games(spec, [0, 1, 2], workers=1)
    assert [r.game_index for r in records] == [0, 1, 2]
    assert all(r.penalty and r.penalty.startswith("memory:") for r in records)


def test_a_preparation_past_its_budget_within_the_grace_is_told_on_stderr(tmp_path):
    from pokersquares.harness.spec import prep_limit_s

    assert prep_limit_s(0.5) == 2.5 and prep_limit_s(300.0) == 306.0  # 2 s, or 2 % of a long budget
    store = ResultStore(tmp_path / "o.sqlite")
    with pytest.warns(UserWarning, match=r"'fault_players:OverPrepares' took 1\.\d\d s to prepare .* past its budget of 0.5 s"):
        _, recs = record_run(RunSpec("fault_players:OverPrepares", AMERICAN, 1, 0, 5.0, 0.5), store, workers=1)
    assert recs[0].penalty is None


@pytest.mark.parametrize("when", ["game", "preparation"])
def test_a_process_stopped_from_outside_interrupts_the_run_and_costs_no_game(tmp_path, when):
    import multiprocessing as mp
    import signal
    import threading

    player, prep = ("fault_players:SecondGames", 0.0) if when == "game" else ("fault_players:OverPrepares", 3.0)

    def stop_children():
        for child in mp.active_children():
            try:
                os.kill(child.pid, signal.SIGTERM)
            except ProcessLookupError:  # a child of an earlier test here, already gone
                pass

    store = ResultStore(tmp_path / "t.sqlite")
    spec = RunSpec(player, AMERICAN, 2, 0, 30.0, prep)
    timer = threading.Timer(1.0, stop_children)
    timer.start()
    with pytest.raises(KeyboardInterrupt, match="stopped from outside"):
        record_run(spec, store, workers=1)
    timer.join()
    assert all(g.penalty is None for g in store.games(1))  # nothing scored for good
    _, recs = record_run(spec, store, workers=1)  # resumed: both games played, none penalised
    assert [r.penalty for r in recs] == [None, None]


def test_a_closed_terminal_stops_the_run_cleanly_and_it_resumes(tmp_path):
    # SIGHUP to the run's group, as a terminal that closes sends it: the run's words and
    # exit code (129), not a silent death; no worker left; a rerun plays only what is missing.
    proc, db, err, workers = stopped_run(tmp_path, lambda p: os.killpg(p.pid, signal.SIGHUP), games=40)
    assert proc.returncode == 129, err
    assert err.strip().splitlines()[-1] == "hung up (finished games are recorded; run the same command again to resume)"
    assert "Traceback" not in err and wait_gone(workers) == set()
    with sqlite3.connect(db) as c:
        kept = c.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    assert 4 <= kept < 40
    proc, _ = start_run(tmp_path, games=40)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT COUNT(*), COUNT(DISTINCT game_index) FROM games").fetchone() == (40, 40)


def test_a_hung_up_run_whose_terminal_is_gone_still_exits_129(tmp_path):
    # The terminal that hangs up takes no more output: writing the message fails, and the
    # exit code alone says what happened (not 120, Python's code for a failed flush).
    read_end, write_end = os.pipe()
    proc, db = start_run(tmp_path, output=write_end)
    os.close(write_end)
    try:
        wait_for_games(proc, db, 2)
        os.close(read_end)  # the terminal is gone
        os.killpg(proc.pid, signal.SIGHUP)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 129


def test_under_nohup_a_hang_up_does_not_stop_the_run(tmp_path):
    proc, db = start_run(tmp_path, nohup=True)
    try:
        wait_for_games(proc, db, 2)
        os.killpg(proc.pid, signal.SIGHUP)
        wait_for_games(proc, db, 8)  # games go on after the hang-up
        assert proc.poll() is None
        os.kill(proc.pid, signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, err


def test_a_worker_hung_up_alone_interrupts_the_run_and_costs_no_game(tmp_path):
    # A worker does not keep the command line's SIGHUP handler (inherited by fork): a
    # SIGHUP to it ends it by the signal, which the run reads as a stop from outside.
    proc, db, err, _ = stopped_run(tmp_path, lambda p: os.kill(min(descendants(p.pid)), signal.SIGHUP), games=40)
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == "interrupted (finished games are recorded; run the same command again to resume)"
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT COUNT(*) FROM games WHERE penalty IS NOT NULL").fetchone()[0] == 0
