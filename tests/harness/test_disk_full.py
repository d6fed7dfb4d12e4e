"""Writing when the disk is full or a file-size limit is hit: nothing already recorded is
lost, and the command says so in one line with a non-zero exit, never a traceback.

A full disk is simulated (SQLite's own errors, ``statvfs`` saying no room) or made real
with ``RLIMIT_FSIZE`` in a subprocess (writes past it fail with EFBIG), so that these
run anywhere without mounting a small file system."""

import errno
import io
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path
from types import SimpleNamespace

import pytest
import typer

from pokersquares.cli import save_plot
from pokersquares.errors import PokerSquaresError
from pokersquares.harness import store as store_module
from pokersquares.harness.store import GameRecord, ResultStore, StoreError
from pokersquares.optimum import Optimum
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
    full = SimpleNamespace(f_blocks=1 << 20, f_bfree=0, f_bavail=0, f_frsize=4096, f_flag=0)
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
    cmd = [sys.executable, "-m", "pokersquares", "run", "-p", "greedy", "-n", "100", "-w", "1",
           "--time-per-game", "0.2", "--prep-time", "0", "-q", "--db", str(db)]
    done = subprocess.run(cmd, capture_output=True, text=True, preexec_fn=_limited(96 * 1024), timeout=120)
    assert done.returncode == 2, done.stderr
    # One error line; before it, on a loaded machine, a warm-up slower than a second is said
    # ("preparing greedy on American: compiling its kernels ...", a progress line -q keeps).
    lines = [line for line in done.stderr.strip().splitlines() if "compiling its kernels" not in line]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "file-size limit" in lines[0] and "kept" in lines[0], \
        done.stderr
    with ResultStore(db, readonly=True) as s:
        kept = s.runs()[0].finished
    assert 0 < kept < 100  # about 36 games fit in the limit
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with ResultStore(db, readonly=True) as s:
        assert s.runs()[0].finished == 100
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


# Reading a store on a full disk. SQLite's ordinary connection makes an -shm beside a
# store in WAL mode (32 KiB, written to its last byte) and fails where it cannot: "disk
# I/O error", and an empty -wal and a 3-byte -shm left beside the store. A file-size
# limit below 32 KiB fails it the same way (EFBIG) with no small disk to mount.
_NO_SHM = 16 * 1024

_READ = """
import dataclasses, json, sys
from pokersquares.harness.store import ResultStore
with ResultStore(sys.argv[1], readonly=True) as s:
    runs = s.runs()
    print(json.dumps({"runs": [r.to_json() for r in runs],
                      "games": {r.run_id: [dataclasses.asdict(g) for g in s.games(r.run_id)] for r in runs}}))
"""


def _as_read(path) -> dict:
    """The runs and games of the store ``path`` as ``_READ`` prints them."""
    with ResultStore(path, readonly=True) as s:
        runs = s.runs()
        return json.loads(json.dumps({"runs": [r.to_json() for r in runs],
                                      "games": {r.run_id: [asdict(g) for g in s.games(r.run_id)] for r in runs}}))


def _beside(path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir() if p.name != path.name and p.name.startswith(path.name))


def _without_room(*args, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True, env=env,
                          preexec_fn=_limited(_NO_SHM), timeout=120)


def test_a_store_on_a_full_disk_is_read_from_a_copy_and_nothing_is_made_beside_it(tmp_path, monkeypatch):
    """A cleanly closed store (no -wal: the file holds everything) on a full disk was
    opened with an ordinary connection, which needs an -shm there."""
    path = tmp_path / "s.sqlite"
    run = _store_with_games(path, 5)
    written = _as_read(path)
    _disk_full(monkeypatch)
    with ResultStore(path, readonly=True) as s:
        assert [g.seed for g in s.games(run)] == [0, 1, 2, 3, 4]
        assert _beside(path) == []  # no -shm, no -wal made while it is open
    assert _as_read(path) == written and _beside(path) == []


def test_a_store_on_a_full_disk_whose_temporary_folder_is_full_too_is_read_in_memory(tmp_path, monkeypatch):
    path = tmp_path / "s.sqlite"
    _store_with_games(path, 5)
    written = _as_read(path)

    def no_room(src, dst, length=0):
        raise OSError(errno.ENOSPC, "No space left on device")

    _disk_full(monkeypatch)
    monkeypatch.setattr(store_module.shutil, "copyfileobj", no_room)
    with ResultStore(path, readonly=True) as s:
        assert len(s.games(1)) == 5 and _beside(path) == []
    assert _as_read(path) == written and _beside(path) == []
    assert [p for p in tmp_path.iterdir()] == [path]


def test_a_store_sqlite_cannot_make_an_shm_for_is_read_whole(tmp_path):
    """For real: ``ResultStore(path, readonly=True)`` in a process whose files cannot
    grow past 16 KiB said "cannot open the result store ...: free some space"."""
    path = tmp_path / "s.sqlite"
    _store_with_games(path, 5)
    written = _as_read(path)
    done = _without_room("-c", _READ, path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == written
    assert _beside(path) == []


@pytest.mark.parametrize("temporary", ["elsewhere", "full too"])
def test_results_compare_and_export_read_a_store_on_a_full_disk(tmp_path, temporary):
    """``results``, ``compare`` and ``results --export csv`` of a cleanly closed store
    that SQLite cannot make an -shm beside: exit 0 and what the store holds, from a copy
    in the temporary folder or, where that has no room either, in memory."""
    path = tmp_path / "s.sqlite"
    _store_with_games(path, 5)
    export = [sys.executable, "-m", "pokersquares", "results", "--db", str(path), "--export", "csv"]
    csv_text = subprocess.run(export, capture_output=True, text=True, check=True, timeout=120).stdout
    env = dict(os.environ)
    if temporary == "full too":
        (tmp_path / "tmp").mkdir()
        env["TMPDIR"] = str(tmp_path / "tmp")  # the copy cannot grow past the limit either
    listing = _without_room("-m", "pokersquares", "results", "--db", path, env=env)
    assert listing.returncode == 0, listing.stderr
    assert "greedy" in listing.stdout and "5/5" in listing.stdout and "50.00" in listing.stdout
    compared = _without_room("-m", "pokersquares", "compare", path, env=env)
    assert compared.returncode == 0, compared.stderr
    assert "5 games" in compared.stdout and "50.00" in compared.stdout
    exported = _without_room(*export[1:], env=env)
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout == csv_text and csv_text.count(",greedy,greedy,") == 5  # player, player_name
    assert _beside(path) == []
    assert temporary == "elsewhere" or list((tmp_path / "tmp").iterdir()) == []


def test_a_store_left_with_an_empty_log_by_a_failed_read_is_read(tmp_path):
    """What a read on a full disk left beside the store before (an empty -wal, a 3-byte
    -shm) holds nothing: the store is read, and they are left as they are."""
    path = tmp_path / "s.sqlite"
    _store_with_games(path, 5)
    written = _as_read(path)
    Path(f"{path}-wal").write_bytes(b"")
    Path(f"{path}-shm").write_bytes(b"\0\0\0")
    done = _without_room("-c", _READ, path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == written
    listing = _without_room("-m", "pokersquares", "results", "--db", path)
    assert listing.returncode == 0 and "5/5" in listing.stdout, listing.stderr
    assert _beside(path) == ["s.sqlite-shm", "s.sqlite-wal"]


def _store_with_a_log(path) -> None:
    """A store whose last games are in its -wal, with no -shm beside it (the copy of a
    store taken while its writer had it open)."""
    writer = path.parent / "writer.sqlite"
    with ResultStore(writer) as s:
        run = s.open_run("greedy", "greedy", AMERICAN, 0, 8, 0.2, 0.0)
        s.add_games(run, _games(0, 5))
        s.conn.execute("PRAGMA wal_autocheckpoint = 0")
        s.add_games(run, _games(5, 3))
        shutil.copy(writer, path)
        shutil.copy(f"{writer}-wal", f"{path}-wal")
    writer.unlink()


@pytest.mark.parametrize("command", ["results", "compare"])
def test_a_store_whose_last_games_are_in_its_log_on_a_full_disk_says_so(tmp_path, command):
    """Its -wal cannot be read without an -shm: one line saying the disk is full and that
    the last games are in the -wal, exit 2; the store reads whole once there is room."""
    path = tmp_path / "s.sqlite"
    _store_with_a_log(path)
    log = Path(f"{path}-wal").read_bytes()
    args = ["results", "--db", path] if command == "results" else ["compare", path]
    done = _without_room("-m", "pokersquares", *args)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "file-size limit" in lines[0] and "s.sqlite-wal" in lines[0] and "last games" in lines[0]
    assert Path(f"{path}-wal").read_bytes() == log
    with ResultStore(path, readonly=True) as s:
        assert len(s.games(1)) == 8


_READ_ON_A_FULL_DISK = """
import os, sys
from dataclasses import asdict
from pathlib import Path
from types import SimpleNamespace
from pokersquares.harness.store import ResultStore, StoreError
os.statvfs = lambda folder: SimpleNamespace(f_blocks=1 << 20, f_bfree=0, f_bavail=0, f_frsize=4096, f_flag=0)
try:
    ResultStore(sys.argv[1], readonly=True).close()
except StoreError as e:
    print(e)
    sys.exit(3)
"""


def test_a_store_whose_last_games_are_in_its_log_says_the_disk_is_full(tmp_path):
    path = tmp_path / "s.sqlite"
    _store_with_a_log(path)
    done = _without_room("-c", _READ_ON_A_FULL_DISK, path)
    assert done.returncode == 3, done.stderr
    message = done.stdout.strip()
    assert message.startswith(f"cannot read the result store {path}: the disk holding {tmp_path} is full")
    assert "last games are in its write-ahead log s.sqlite-wal" in message and "free some space" in message
    assert "\n" not in message


_ON_A_FULL_TMPFS = """
import json, os, subprocess, sys
from pokersquares.harness.store import GameRecord, ResultStore, StoreError
from pokersquares.points import AMERICAN
folder = sys.argv[1]
path = os.path.join(folder, "s.sqlite")
with ResultStore(path) as s:
    run = s.open_run("greedy", "greedy", AMERICAN, 0, 5, 0.2, 0.0)
    s.add_games(run, [GameRecord(i, i, 50, [(c, c // 5, c % 5) for c in range(25)], 0.01) for i in range(5)])
try:
    with open(os.path.join(folder, "filler"), "wb") as f:
        while True:
            f.write(bytes(4096))
            f.flush()
except OSError:
    pass
out = {"free": os.statvfs(folder).f_bfree}
for temporary in ("elsewhere", "full too"):
    env = dict(os.environ, TMPDIR=folder) if temporary == "full too" else dict(os.environ)
    for name, args in (("results", ["results", "--db", path]), ("compare", ["compare", path]),
                       ("csv", ["results", "--db", path, "--export", "csv"])):
        done = subprocess.run([sys.executable, "-m", "pokersquares", *args], capture_output=True, text=True, env=env)
        out[f"{name} {temporary}"] = [done.returncode, done.stdout, done.stderr]
out["files"] = sorted(os.listdir(folder))
try:
    with ResultStore(path) as s:
        s.add_games(run, [GameRecord(i, i, 50, [(c, c // 5, c % 5) for c in range(25)] * 40, 0.01)
                          for i in range(5, 500)])
    out["write"] = "written"
except StoreError as e:
    out["write"] = str(e)
with ResultStore(path, readonly=True) as s:  # beside what the writer could not use
    out["games"] = len(s.games(run))
print(json.dumps(out))
"""


def test_a_store_on_a_real_full_disk_is_read_and_a_write_still_refused(tmp_path):
    """A 1 MiB tmpfs filled up (mounted in a user namespace where this system lets one be
    made): ``results``, ``compare`` and ``--export csv`` read the store, with the temporary
    folder elsewhere or on the full disk too; a writer still fails in one line, and
    the reads leave nothing beside the store (the writer leaves an empty -wal, which the
    store is read beside)."""
    if shutil.which("unshare") is None:
        pytest.skip("no unshare")
    folder = tmp_path / "full"
    folder.mkdir()
    script = 'mount -t tmpfs -o size=1m tmpfs "$1" || exit 77; exec "$2" -c "$3" "$1"'
    done = subprocess.run(["unshare", "-Urm", "sh", "-c", script, "sh", str(folder), sys.executable,
                           _ON_A_FULL_TMPFS], capture_output=True, text=True, timeout=300)
    if done.returncode == 77 or "unshare failed" in done.stderr or "unshare:" in done.stderr:
        pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.strip()[:200]}")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["free"] == 0
    for temporary in ("elsewhere", "full too"):
        for name in ("results", "compare", "csv"):
            code, stdout, stderr = out[f"{name} {temporary}"]
            assert code == 0, (name, temporary, stderr)
        assert "5/5" in out[f"results {temporary}"][1] and "50.00" in out[f"results {temporary}"][1]
        assert "5 games" in out[f"compare {temporary}"][1]
        assert out[f"csv {temporary}"][1].count(",greedy,") == 5
    assert "is full" in out["write"] and "free some space" in out["write"] and "\n" not in out["write"]
    assert out["games"] == 5
    assert out["files"] == ["filler", "s.sqlite"]


def test_optima_on_a_full_disk_are_read_from_a_copy(tmp_path):
    """``--optima STORE`` reads through the same connection (``open_for_reading``)."""
    path = tmp_path / "s.sqlite"
    _store_with_games(path, 1)
    with OptimaStore(path) as optima:
        optima.put(Optimum(7, "American", AMERICAN.points, 150, 150, True, list(range(25)), 1.0, 150), 10)
    script = ("import sys\nfrom pokersquares.optimum.store import OptimaStore\nfrom pokersquares.points import AMERICAN\n"
              "with OptimaStore(sys.argv[1], readonly=True) as optima:\n"
              "    print(optima.get(7, AMERICAN.points).score)\n")
    done = _without_room("-c", script, path)
    assert (done.returncode, done.stdout) == (0, "150\n"), done.stderr
    assert _beside(path) == []


def test_standard_outputs_whole_writes_say_no_terminal_once_the_file_is_closed(tmp_path):
    """numba's coloured errors start colorama, which keeps ``sys.stdout`` and asks it
    ``isatty()`` when the interpreter ends: where that was the command's whole-writes
    wrapper (``PYTHONUNBUFFERED``) over a file closed by then, it raised "I/O operation
    on closed file" as an "Exception ignored" traceback."""
    from pokersquares.cli import _WholeWrites

    leader, follower = os.openpty()
    terminal = _WholeWrites(io.FileIO(follower, "wb"))
    assert terminal.isatty() is True  # a terminal is still one
    terminal._raw.close()
    os.close(leader)
    assert terminal.isatty() is False
    with open(tmp_path / "out", "wb", buffering=0) as raw:
        assert _WholeWrites(raw).isatty() is False
