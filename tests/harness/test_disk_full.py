"""Writing when the disk is full or a file-size limit is hit: nothing already recorded is
lost, and the command says so in one line with a non-zero exit, never a traceback.

A full disk is simulated (SQLite's own errors, ``statvfs`` saying no room) or made real
with ``RLIMIT_FSIZE`` in a subprocess (writes past it fail with EFBIG), so that these
run anywhere without mounting a small file system."""

import errno
import os
import resource
import sqlite3
import subprocess
import sys
from types import SimpleNamespace

import pytest
import typer

from pokersquares.cli import save_plot
from pokersquares.errors import PokerSquaresError
from pokersquares.harness import store as store_module
from pokersquares.harness.store import GameRecord, ResultStore, StoreError
from pokersquares.optimum.store import OptimaStore
from pokersquares.points import AMERICAN


def _games(first: int, n: int) -> list[GameRecord]:
    return [GameRecord(i, i, 50, [(c, c // 5, c % 5) for c in range(25)], 0.01) for i in range(first, first + n)]


def _store_with_games(path, n: int) -> int:
    with ResultStore(path) as s:
        run = s.open_run("greedy", "greedy", AMERICAN, 0, n, 0.2, 0.0)
        s.add_games(run, _games(0, n))
    return run


def _disk_full(monkeypatch) -> None:
    """The disk holding every store says it has no room left (``statvfs``)."""
    full = SimpleNamespace(f_bfree=0, f_bavail=0, f_frsize=4096)
    monkeypatch.setattr(store_module.os, "statvfs", lambda folder: full)


def _env(unbuffered: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    return env


def _limited(size: int):
    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, resource.RLIM_INFINITY))
    return limit


def test_a_transaction_sqlite_rolled_back_itself_says_the_disk_is_full(tmp_path):
    """SQLite rolls a transaction back itself when the disk fills mid-statement: the
    ROLLBACK after it failed with "no transaction is active", which replaced the error
    that said what happened."""
    with ResultStore(tmp_path / "s.sqlite") as s:
        with pytest.raises(StoreError, match="database or disk is full"):
            with s.transaction():
                s.conn.execute("INSERT INTO meta VALUES ('x', 'y')")
                s.conn.execute("ROLLBACK")  # what SQLITE_FULL mid-statement leaves
                raise sqlite3.OperationalError("database or disk is full")
        assert not s.conn.in_transaction
        s.open_run("greedy", "greedy", AMERICAN, 0, 1, 0.2, 0.0)  # the store goes on


def test_a_write_inside_a_transaction_that_fails_is_one_store_error(tmp_path):
    """A statement of the block itself (the optima's schema, an optimum) that meets a
    full disk is a StoreError saying it cannot write, not a bare sqlite3 error (which
    OptimaStore said as "not a readable result store")."""
    with ResultStore(tmp_path / "s.sqlite") as s:
        with pytest.raises(StoreError, match="cannot write to the result store .*disk is full"):
            with s.transaction():
                raise sqlite3.OperationalError("database or disk is full")
        assert not s.conn.in_transaction


def test_a_full_disk_names_itself_and_what_is_kept(tmp_path, monkeypatch):
    path = tmp_path / "s.sqlite"
    run = _store_with_games(path, 3)
    _disk_full(monkeypatch)
    with ResultStore(path) as s:
        message = s._cannot_write(sqlite3.OperationalError("database or disk is full"))
    assert "is full" in message and "kept" in message and "free some space" in message
    with ResultStore(path, readonly=True) as s:
        assert len(s.games(run)) == 3


def test_opening_a_store_on_a_full_disk_is_not_called_damaged(tmp_path, monkeypatch):
    """A store that SQLite cannot open for want of room (its -shm cannot be sized: "disk
    I/O error") was said to be "not a readable result store": a user would think it
    damaged, and it is whole."""
    path = tmp_path / "s.sqlite"
    run = _store_with_games(path, 3)

    def no_room(self):
        raise sqlite3.OperationalError("disk I/O error")

    with monkeypatch.context() as m:
        m.setattr(ResultStore, "_connect", no_room)
        _disk_full(m)
        with pytest.raises(StoreError) as e:
            ResultStore(path)
    assert "is full" in str(e.value) and "not a readable" not in str(e.value)
    assert "\n" not in str(e.value)
    with ResultStore(path, readonly=True) as s:
        assert len(s.games(run)) == 3


def test_optima_on_a_full_disk_are_a_store_error(tmp_path):
    path = tmp_path / "s.sqlite"
    _store_with_games(path, 1)
    with OptimaStore(path) as optima:
        with pytest.raises(StoreError, match="cannot write"):
            with optima._writer.transaction():
                raise sqlite3.OperationalError("database or disk is full")


_ADD_PAST_THE_LIMIT = """
import resource, sys
from pokersquares.harness.store import GameRecord, ResultStore, StoreError
path, limit = sys.argv[1], int(sys.argv[2])
with ResultStore(path) as s:
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
    try:
        for k in range(200):
            s.add_games(1, [GameRecord(i, i, 50, [(c, c // 5, c % 5) for c in range(25)] * 40, 0.01)
                            for i in range(10 + 10 * k, 20 + 10 * k)])
    except StoreError as e:
        print(e)
        sys.exit(3)
"""


def test_a_file_size_limit_keeps_every_game_recorded_before_it(tmp_path):
    """Games added past ``ulimit -f`` (EFBIG, "disk I/O error" from SQLite): one
    StoreError naming the limit; every batch committed before it is in the store, which
    is whole, and takes the rest once the limit is gone."""
    path = tmp_path / "s.sqlite"
    run = _store_with_games(path, 10)
    size = os.path.getsize(path) + 256 * 1024
    done = subprocess.run([sys.executable, "-c", _ADD_PAST_THE_LIMIT, str(path), str(size)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 3, done.stderr
    assert "file-size limit" in done.stdout and "kept" in done.stdout
    with ResultStore(path) as s:
        assert s.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        kept = len(s.games(run))
        assert 10 < kept < 2010 and kept % 10 == 0  # whole batches, none half written
        s.add_games(run, _games(kept, 10))
        assert len(s.games(run)) == kept + 10


@pytest.mark.parametrize("unbuffered", [True, False], ids=["unbuffered", "buffered"])
def test_standard_output_to_a_full_file_is_one_line_and_exit_2(tmp_path, unbuffered):
    """``results --export json > out.json`` past the file-size limit (a disk filling up
    the same). Under PYTHONUNBUFFERED the short write lost the rest unsaid, exit 0 with
    the file cut; buffered, it was "internal error: OSError" (exit 1), or "Exception
    ignored" and exit 120 for what was still buffered at the end."""
    path = tmp_path / "s.sqlite"
    _store_with_games(path, 600)  # an export of about 300 KB
    out = tmp_path / "out.json"
    with open(out, "wb") as f:
        done = subprocess.run([sys.executable, "-m", "pokersquares", "results", "--db", str(path),
                               "--export", "json"], stdout=f, stderr=subprocess.PIPE, text=True,
                              env=_env(unbuffered), preexec_fn=_limited(96 * 1024), timeout=120)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: cannot write the output"), done.stderr
    assert "File too large" in lines[0] and "Traceback" not in done.stderr


def test_a_run_past_a_file_size_limit_keeps_its_games_and_resumes(tmp_path):
    db = tmp_path / "r.sqlite"
    cmd = [sys.executable, "-m", "pokersquares", "run", "-p", "greedy", "-n", "300", "-w", "1",
           "--time-per-game", "0.2", "--prep-time", "0", "-q", "--db", str(db)]
    done = subprocess.run(cmd, capture_output=True, text=True, preexec_fn=_limited(96 * 1024), timeout=120)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "file-size limit" in lines[0] and "kept" in lines[0], done.stderr
    with ResultStore(db, readonly=True) as s:
        kept = s.runs()[0].finished
    assert 0 < kept < 300
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with ResultStore(db, readonly=True) as s:
        assert s.runs()[0].finished == 300
        assert s.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_plot_that_cannot_be_written_names_the_file_given(tmp_path, capsys):
    """A plotter's own error ("cannot write the plot <file>") named the temporary file
    the plot is written to first (``.p.png.x1y2.png``), not the --plot given."""
    target = tmp_path / "p.png"

    def plot(name):
        raise PokerSquaresError(f"cannot write the plot {name}: [Errno {errno.ENOSPC}] No space left on device")

    with pytest.raises(typer.Exit):
        save_plot(plot, target)
    err = capsys.readouterr().err
    assert str(target) in err and "No space left" in err and ".p.png." not in err
    assert not target.exists() and list(tmp_path.iterdir()) == []


def test_reading_optima_on_a_full_disk_is_not_called_damaged(tmp_path, monkeypatch):
    """``--optima STORE`` on a full disk: SQLite cannot size the -shm a reader needs, and
    the first read said "not a result store (disk I/O error)"; it is whole."""
    path = tmp_path / "s.sqlite"
    _store_with_games(path, 1)

    class NoShm:
        def execute(self, *args):
            raise sqlite3.OperationalError("disk I/O error")

        def close(self):
            pass

    monkeypatch.setattr(store_module, "open_for_reading", lambda p: NoShm())
    _disk_full(monkeypatch)
    with pytest.raises(StoreError, match="cannot open the result store .* is full") as e:
        OptimaStore(path, readonly=True)
    assert "not a readable" not in str(e.value)


def test_a_write_the_disk_refuses_on_writing_back_leaves_the_old_file(tmp_path, monkeypatch):
    """A disk that fills only as the data is written back (thin storage, a network share,
    a quota) says so at fsync: the export or table whose data never reached it replaced
    the good file, and the command said it wrote it."""
    from pokersquares import files

    target = tmp_path / "games.csv"
    target.write_text("good")

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", full)
    with pytest.raises(OSError, match="No space left"):
        files.write_atomically(target, "new " * 1000)
    assert target.read_text() == "good" and [p.name for p in tmp_path.iterdir()] == ["games.csv"]
