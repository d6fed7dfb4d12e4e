"""Files that are not result stores: an SQLite file of someone else's is refused and left
byte-identical (no journal mode switched, no -wal/-shm left beside it), whether it is opened
for writing or only read; an empty (0-byte) or table-less SQLite file read back is a clear
StoreError, not an SQL error; a new path still becomes a working store."""

import hashlib
import os
import sqlite3
import subprocess
import sys

import pytest

from pokersquares.harness.store import GameRecord, ResultStore, StoreError
from pokersquares.optimum.store import OptimaStore
from pokersquares.points import AMERICAN


def md5(path):
    return hashlib.md5(path.read_bytes()).hexdigest()


def leftovers(path):
    return sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name + "-"))


def foreign(path, wal=False):
    with sqlite3.connect(path) as c:
        if wal:
            c.execute("PRAGMA journal_mode = WAL")
        c.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
        c.execute("INSERT INTO customers (name) VALUES ('Ada'), ('Bob')")
    c.close()  # a WAL file is checkpointed into the main file and its -wal/-shm removed
    assert leftovers(path) == []
    return path


def tableless(path):
    with sqlite3.connect(path) as c:
        c.execute("CREATE TABLE t (x)")
        c.execute("DROP TABLE t")
    c.close()
    assert path.stat().st_size > 0
    return path


def cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "pokersquares", *args], capture_output=True, text=True,
                          cwd=cwd, env=dict(os.environ))


@pytest.fixture
def refused(cli, monkeypatch, tmp_path):
    """A command run in this process, in ``tmp_path``: (exit code, stderr). For commands
    refused before they play, where a new interpreter would be most of the time."""
    monkeypatch.chdir(tmp_path)

    def go(*args):
        code, _, err = cli(*args)
        return subprocess.CompletedProcess(args, code, "", err)
    return go


@pytest.mark.parametrize("wal", [False, True], ids=["rollback", "wal"])
@pytest.mark.parametrize("opener", [
    lambda p: ResultStore(p), lambda p: ResultStore(p, readonly=True),
    lambda p: OptimaStore(p), lambda p: OptimaStore(p, readonly=True),
], ids=["write", "read", "optima-write", "optima-read"])
def test_a_foreign_sqlite_file_is_refused_and_left_byte_identical(tmp_path, wal, opener):
    path = foreign(tmp_path / "f3.sqlite", wal=wal)
    before = md5(path)
    header = path.read_bytes()[18:20]
    assert header == (b"\x02\x02" if wal else b"\x01\x01")
    with pytest.raises(StoreError, match="is an SQLite file but not a pokersquares result store; not touching it"):
        opener(path)
    assert md5(path) == before and path.read_bytes()[18:20] == header
    assert leftovers(path) == []


def test_the_commands_refuse_a_foreign_file_and_leave_it_as_it_was(tmp_path, refused):
    path = foreign(tmp_path / "f3.sqlite")
    before = md5(path)
    for args in (("run", "-p", "greedy", "--games", "1", "--prep-time", "0", "--time-per-game", "1",
                  "--db", "f3.sqlite"),
                 ("results", "--db", "f3.sqlite"), ("compare", "f3.sqlite"), ("review", "f3.sqlite", "--run", "1"),
                 ("optimum", "--check", "--db", "f3.sqlite"),
                 ("optimum", "--seeds", "0..1", "--time-limit", "1", "--db", "f3.sqlite")):
        r = refused(*args)
        assert r.returncode == 2, (args, r.stderr)
        assert r.stderr.strip() == "error: f3.sqlite is an SQLite file but not a pokersquares result store; " \
                                   "not touching it", (args, r.stderr)
        assert md5(path) == before and leftovers(path) == [], args


def empty_file(folder, kind):
    """A 0-byte file ("zero") or an SQLite file with no tables ("tableless") in ``folder``."""
    path = folder / f"{kind}.sqlite"
    if kind == "zero":
        path.write_bytes(b"")
    else:
        tableless(path)
    return path


@pytest.mark.parametrize("kind", ["zero", "tableless"])
def test_reading_an_empty_or_tableless_sqlite_file_is_a_store_error(tmp_path, kind):
    path = empty_file(tmp_path, kind)
    before = md5(path)
    with pytest.raises(StoreError, match=rf"{kind}\.sqlite is not a pokersquares result store .*holds no runs"):
        ResultStore(path, readonly=True)
    with OptimaStore(path, readonly=True) as optima:  # holds no optima: said by the callers
        assert optima.systems() == [] and optima.many([0], AMERICAN.points) == {}
    assert md5(path) == before and leftovers(path) == []


@pytest.mark.parametrize("kind", ["zero", "tableless"])
def test_the_read_only_commands_on_an_empty_or_tableless_file_say_so_in_one_line(tmp_path, kind, refused):
    path = empty_file(tmp_path, kind)
    before = md5(path)
    name = path.name
    for args in (("results", "--db", name), ("compare", name), ("review", name, "--run", "1"),
                 ("results", "--db", name, "--export", "csv"), ("results", "--db", name, "--tournament", "1"),
                 ("optimum", "--check", "--db", name)):
        r = refused(*args)
        assert r.returncode == 2, (args, r.stderr)
        assert r.stderr.startswith(f"error: {name} is not a pokersquares result store"), (args, r.stderr)
        assert "holds no runs" in r.stderr and len(r.stderr.strip().splitlines()) == 1, (args, r.stderr)
        assert "internal error" not in r.stderr and "Traceback" not in r.stderr
        assert md5(path) == before and leftovers(path) == [], args


@pytest.mark.parametrize("kind", ["new", "zero", "tableless"])
def test_a_new_path_an_empty_file_or_a_tableless_one_becomes_a_working_store(tmp_path, kind):
    path = tmp_path / f"{kind}.sqlite"
    if kind == "zero":
        path.write_bytes(b"")  # what SQLite itself makes of a new database
    elif kind == "tableless":
        tableless(path)
    with ResultStore(path) as s:
        run_id = s.open_run("greedy", "greedy", AMERICAN, 0, 1, 1.0, 0.0)
        s.add_games(run_id, [GameRecord(0, 0, 42)])
    with ResultStore(path, readonly=True) as s:
        assert [r.run_id for r in s.runs()] == [run_id] and [g.score for g in s.games(run_id)] == [42]
    with OptimaStore(path) as optima:
        assert optima.systems() == []


def test_run_on_a_new_path_creates_the_store_and_results_reads_it(tmp_path):
    r = cli("run", "-p", "greedy", "--games", "1", "--prep-time", "0", "--time-per-game", "1",
            "--db", "new.sqlite", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = cli("results", "--db", "new.sqlite", cwd=tmp_path)
    assert r.returncode == 0 and "greedy" in r.stdout, r.stderr


def test_reading_a_store_leaves_no_wal_files_and_cannot_write(tmp_path):
    path = tmp_path / "s.sqlite"
    with ResultStore(path) as store:
        store.open_run("greedy", "greedy", AMERICAN, 0, 1, 1.0, 0.0)
    assert leftovers(path) == []
    for opener in (lambda: ResultStore(path, readonly=True), lambda: OptimaStore(path, readonly=True)):
        reader = opener()
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            reader.conn.execute("DELETE FROM runs")
        reader.close()
        assert leftovers(path) == [], "a read left the -wal/-shm files beside the store"
    r = cli("results", "--db", "s.sqlite", cwd=tmp_path)
    assert r.returncode == 0 and "greedy" in r.stdout
    assert leftovers(path) == []
    with ResultStore(path, readonly=True) as store:
        assert [run.player for run in store.runs()] == ["greedy"]


def test_a_store_in_a_read_only_folder_is_read_and_nothing_is_left_beside_it(tmp_path, monkeypatch):
    path = tmp_path / "s.sqlite"
    with ResultStore(path) as store:  # a WAL store, checkpointed: no -wal beside it
        store.open_run("greedy", "greedy", AMERICAN, 0, 1, 1.0, 0.0)
    assert path.read_bytes()[18:20] == b"\x02\x02" and leftovers(path) == []
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if mode & os.W_OK else real_access(p, mode, **kw))
    for opener in (lambda: ResultStore(path, readonly=True), lambda: OptimaStore(path, readonly=True)):
        with opener() as reader:
            assert reader.conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 1
        assert leftovers(path) == [], "a read-only folder cannot take the -wal and -shm files"
