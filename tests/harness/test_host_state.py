"""The harness inside a host whose process-wide state is not the default: a program (or
a service manager) that started Python with its standard output or error closed (``sys.stdout``
or ``sys.stderr`` is None), SIGCHLD ignored, or numba's compiler turned off."""

import json
import os
import signal
import subprocess
import sys

import pytest

from pokersquares.errors import PokerSquaresError
from pokersquares.harness.runner import RunSpec, record_run, run_games
from pokersquares.harness.store import ResultStore
from pokersquares.points import AMERICAN


def test_games_play_in_a_host_without_standard_output(monkeypatch):
    # Python sets sys.stdout to None when it starts with descriptor 1 closed (a daemon,
    # ``cmd >&-``); flushing it before forking the players raised AttributeError.
    monkeypatch.setattr(sys, "stdout", None)
    spec = RunSpec(player="greedy", point_system=AMERICAN, games=2, time_per_game=1, prep_time=0)
    records = run_games(spec, range(2), workers=1)
    assert [r.penalty for r in records] == [None, None]
    assert all(r.score > 0 for r in records)


def test_the_run_command_records_its_games_with_standard_output_closed(tmp_path):
    db = tmp_path / "closed.sqlite"
    done = subprocess.run(
        [sys.executable, "-m", "pokersquares", "run", "--player", "greedy", "--games", "2", "--workers", "1",
         "--prep-time", "0", "--time-per-game", "1", "--db", str(db)],
        stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=300,
        preexec_fn=lambda: os.close(1))  # after the child's descriptors are set: it starts without stdout
    assert done.returncode == 0, done.stderr[-2000:]
    assert "internal error" not in done.stderr
    store = ResultStore(db)
    try:
        (run,) = store.runs()
        assert len(store.games(run.run_id)) == 2
    finally:
        store.close()


HERE = os.path.dirname(os.path.abspath(__file__))


def test_the_command_keeps_its_players_exit_codes_where_sigchld_was_ignored(tmp_path):
    # SIG_IGN for SIGCHLD survives exec: started so (by a service or a program that ignores
    # it), the kernel reaped the players' processes itself and a crashed game's record said
    # "exit code None" (and one killed for memory scored for good instead of being replayed).
    db = tmp_path / "chld.sqlite"
    env = dict(os.environ, PYTHONPATH=HERE + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run(
        [sys.executable, "-m", "pokersquares", "run", "--player", "fault_players:Crash", "--games", "2",
         "--workers", "1", "--prep-time", "0", "--time-per-game", "1", "--db", str(db), "--quiet"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300, env=env,
        preexec_fn=lambda: signal.signal(signal.SIGCHLD, signal.SIG_IGN))
    assert done.returncode == 0, done.stderr[-2000:]
    store = ResultStore(db)
    try:
        (run,) = store.runs()
        penalties = [g.penalty for g in store.games(run.run_id) if g.penalty]
    finally:
        store.close()
    assert penalties == ["crash: the player's process died (exit code 3)"]


_SIGCHLD_IGNORED = """
import json, signal
from pokersquares.harness.runner import RunSpec, run_games
from pokersquares.points import AMERICAN
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
notes = []
spec = RunSpec(player="greedy", point_system=AMERICAN, games=1, time_per_game=1, prep_time=0)
records = run_games(spec, range(1), workers=1, on_note=notes.append)
print(json.dumps({"penalties": [r.penalty for r in records], "notes": notes}))
"""


def test_a_run_in_a_host_that_ignores_sigchld_says_what_it_loses():
    # In a process of its own: with SIGCHLD ignored the kernel reaps the workers, and
    # multiprocessing, which can no longer wait for them, keeps them as its children for
    # good (mp.active_children() then named long-gone processes to later tests here).
    done = subprocess.run([sys.executable, "-c", _SIGCHLD_IGNORED], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said["penalties"] == [None]  # the games still play
    notes = said["notes"]
    assert len(notes) == 1 and "ignores SIGCHLD" in notes[0] and "SIG_DFL" in notes[0]


@pytest.fixture
def jit_disabled(monkeypatch):
    """numba's compiler off, as NUMBA_DISABLE_JIT=1 sets it (read here, after the players'
    modules were imported with their kernels compiled: nothing else in this process changes)."""
    from pokersquares.harness.registry import checked_player
    checked_player("greedy")  # its modules imported before, so nothing is made uncompiled
    from numba.core import config
    monkeypatch.setattr(config, "DISABLE_JIT", True)


def test_games_are_refused_where_numbas_compiler_is_off(jit_disabled, tmp_path):
    # Every learning player's preparation failed (OverflowError in a kernel run as Python) and
    # each game was recorded as a penalty; greedy_mc played at a third of its strength.
    spec = RunSpec(player="greedy", point_system=AMERICAN, games=2, time_per_game=1, prep_time=0)
    with pytest.raises(PokerSquaresError, match="NUMBA_DISABLE_JIT"):
        run_games(spec, range(2), workers=1)
    store = ResultStore(tmp_path / "jit.sqlite")
    try:
        with pytest.raises(PokerSquaresError, match="NUMBA_DISABLE_JIT"):
            record_run(spec, store, workers=1)
        assert store.runs() == []  # not even an empty run
    finally:
        store.close()


def test_the_run_command_refuses_in_one_line_where_numbas_compiler_is_off(tmp_path):
    db = tmp_path / "jit.sqlite"
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    done = subprocess.run(
        [sys.executable, "-m", "pokersquares", "run", "--player", "champion", "--games", "2",
         "--prep-time", "2", "--time-per-game", "1", "--db", str(db)],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: numba's compiler is off") and "NUMBA_DISABLE_JIT" in lines[0]
    assert not db.exists()  # refused before the store was made, as a bad spec is


def _without_stderr(args, tmp_path):
    """``args`` run by this Python with descriptor 2 closed (a daemon, ``cmd 2>&-``),
    fault_players importable; its standard output and exit code."""
    env = dict(os.environ, PYTHONPATH=HERE + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True,
                          timeout=300, env=env, cwd=tmp_path, preexec_fn=lambda: os.close(2))


# Two games of a player that prints, in one worker; the games' penalties as JSON.
_PRINTS_RUN = ("import json; from pokersquares.harness.runner import RunSpec, run_games; "
               "from pokersquares.points import AMERICAN; "
               "spec = RunSpec(player='fault_players:Prints', point_system=AMERICAN, games=2, time_per_game=1, "
               "prep_time=0); "
               "print(json.dumps([r.penalty for r in run_games(spec, range(2), workers=1)]))")


def test_a_players_prints_go_nowhere_where_the_host_has_no_standard_error(tmp_path):
    # Its processes sent their prints to descriptor 2, which was closed or a file opened for
    # reading: every print failed (EBADF) and each game scored the penalty.
    done = _without_stderr(["-c", _PRINTS_RUN], tmp_path)
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[-1] == "[null, null]"
    assert "chatter from the player" not in done.stdout and "raw chatter" not in done.stdout


def test_a_players_prints_spare_the_file_holding_descriptor_2_when_the_host_set_its_own_stderr(tmp_path):
    # A host started without standard error that then set sys.stderr to a file of its own:
    # its workers wrote the player's prints into the file that took descriptor 2.
    code = ("import sys; victim = open('victim.bin', 'wb'); assert victim.fileno() == 2; "
            "sys.stderr = open('log.txt', 'w'); " + _PRINTS_RUN)
    done = _without_stderr(["-c", code], tmp_path)
    assert done.returncode == 0
    assert done.stdout.splitlines()[-1] == "[null, null]"
    assert (tmp_path / "victim.bin").read_bytes() == b""
    assert "chatter from the player" not in done.stdout + (tmp_path / "log.txt").read_text()


def test_the_run_command_plays_with_standard_error_closed(tmp_path):
    # Its progress line asked sys.stderr (None) whether it was a terminal: "internal error",
    # unseen, exit 1 and no game played.
    done = _without_stderr(["-m", "pokersquares", "run", "--player", "fault_players:Prints", "--games", "2",
                            "--workers", "1", "--prep-time", "0", "--time-per-game", "1", "--db", "e.sqlite",
                            "--json"], tmp_path)
    assert done.returncode == 0
    summary = json.loads(done.stdout)  # nothing else on stdout
    assert summary["games"] == 2 and summary["penalties"] == 0
