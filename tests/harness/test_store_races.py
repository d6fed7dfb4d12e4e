"""Processes a user runs at once on one result store: a writer held off by another
process's write, readers while games are written. Synchronised with pipes; nothing sleeps
but the half second a command is left in its wait for the lock before it is signalled."""

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from pokersquares.cli import RESUMES
from pokersquares.harness import store as store_module
from pokersquares.harness.runner import RunSpec, record_run
from pokersquares.harness.store import UNRECORDED_NOTE, ResultStore, StoreError
from pokersquares.points import AMERICAN

# Another program with the store open and a write not committed (an SQLite browser with
# changes not saved, a command stopped with Ctrl-Z inside its transaction): it takes the
# write lock when told ("take"), says "held", and holds it until told again.
_HOLDER = """
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
sys.stdin.readline()
c.execute("BEGIN IMMEDIATE")
c.execute("UPDATE meta SET value = value")
print("held", flush=True)
sys.stdin.readline()
c.execute("ROLLBACK")
"""


def _holder(path):
    return subprocess.Popen([sys.executable, "-c", _HOLDER, str(path)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)


def _take(holder):
    holder.stdin.write("take\n")
    holder.stdin.flush()
    assert holder.stdout.readline() == "held\n"


def _release(holder):
    try:
        holder.communicate("go\n", timeout=120)
    finally:
        holder.kill()


def test_a_writer_held_off_by_another_process_stops_in_one_line_and_resumes(tmp_path, monkeypatch):
    """A run whose store another process keeps locked past the busy timeout stopped with
    SQLite's bare "database is locked": not who holds it, what was kept or what to do."""
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT_S", 0.5, raising=False)
    path = tmp_path / "r.sqlite"
    spec = RunSpec("greedy", AMERICAN, 6, 0, 30.0, 0.0)
    with ResultStore(path) as store:
        holder = _holder(path)
        try:
            def meddle(rec):
                if rec.game_index == 1:
                    _take(holder)

            with pytest.raises(StoreError) as stopped:
                record_run(spec, store, workers=1, on_result=meddle)
        finally:
            _release(holder)
        said = str(stopped.value)
        assert "another process has held its write lock" in said and "run this again" in said
        assert "database is locked" not in said and "\n" not in said
        kept = [g.game_index for g in store.games(1)]
        assert kept == list(range(len(kept))) and len(kept) < 6  # what was written before, once each
        _, records = record_run(spec, store, workers=1)  # resumed once the other process let go
        assert [r.game_index for r in records] == list(range(6))
    with ResultStore(path, readonly=True) as after:
        assert [r.finished for r in after.runs()] == [6]


_CLI = """
import sys
import pokersquares.harness.store as store
store.BUSY_TIMEOUT_S = 0.5
from pokersquares.cli import main
sys.argv = ["pokersquares", *sys.argv[1:]]
main()
"""


def test_a_command_whose_store_another_process_holds_says_so_in_one_line(tmp_path):
    path = tmp_path / "r.sqlite"
    ResultStore(path).close()
    holder = _holder(path)
    try:
        _take(holder)
        done = subprocess.run([sys.executable, "-c", _CLI, "run", "--player", "greedy", "--games", "2",
                               "--prep-time", "0", "--time-per-game", "1", "--db", str(path)],
                              capture_output=True, text=True, timeout=300)
    finally:
        _release(holder)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: cannot write to the result store")
    assert "another process has held its write lock" in lines[0] and "database is locked" not in lines[0]


def test_a_reader_reads_one_state_of_the_store_while_a_tournament_writes(tmp_path):
    """`results --tournament` read each cell's games, then the runs again for its
    "incomplete" line, and the web app's tournament page each cell's scores once more:
    with a tournament writing meanwhile, the table's totals, the counts under it and the
    scores shown came from different moments (a total that is not the sum of the scores
    beside it, "incomplete: 16 of 16 games"). A reader reads one state, as a reader who
    cannot write the folder always did (it reads a copy); the next one sees the new games."""
    import os

    from pokersquares.harness.store import GameRecord
    from pokersquares.harness.tournament import table_from_store
    from pokersquares.points import BRITISH

    path = tmp_path / "t.sqlite"
    writer = ResultStore(path)
    tid = writer.open_tournament(["random", "greedy"], [AMERICAN, BRITISH], 3, 0, 1.0, 0.0)
    runs = [writer.open_run(p, p, s, 0, 3, 1.0, 0.0, tid) for s in (AMERICAN, BRITISH) for p in ("random", "greedy")]
    for run in runs:
        writer.add_games(run, [GameRecord(0, 0, 10 + run)])
    with ResultStore(path, readonly=True) as reader:
        table = table_from_store(reader, tid)
        for run in runs:  # the tournament goes on while the reader reads
            writer.add_games(run, [GameRecord(1, 1, 20 + run), GameRecord(2, 2, 30 + run)])
        assert [r.finished for r in reader.runs(tid)] == [1, 1, 1, 1]
        assert [[g.score for g in reader.games(run)] for run in runs] == [[10 + run] for run in runs]
        assert reader.export_csv().count("\n") == 1 + 4
        assert table_from_store(reader, tid) == table and not table["complete"]
        reader.refresh()  # a notebook keeping its reader open sees the new games when it asks
        assert [r.finished for r in reader.runs(tid)] == [3, 3, 3, 3] and table_from_store(reader, tid)["complete"]
        assert reader.export_csv().count("\n") == 1 + 12
    with pytest.raises(StoreError, match="is closed"):
        reader.refresh()
    writer.refresh()  # a writer sees every write: nothing to do
    assert [r.finished for r in writer.runs(tid)] == [3, 3, 3, 3]
    with ResultStore(path, readonly=True) as later:
        assert [r.finished for r in later.runs(tid)] == [3, 3, 3, 3] and table_from_store(later, tid)["complete"]
    writer.close()
    assert not os.path.exists(f"{path}-wal")  # the last connection still folds the log into the store


def test_a_refresh_of_a_store_moved_away_and_a_reading_cut_short_are_said_in_one_line(tmp_path):
    """A refresh after the store was moved raised FileNotFoundError; a reading of a run's
    games going on across a refresh (or a close) raised sqlite3's "Cannot operate on a
    closed database". Both are one StoreError, and the store reads on as it was."""
    from pokersquares.harness.store import GameRecord

    path = tmp_path / "m.sqlite"
    with ResultStore(path) as writer:
        run = writer.open_run("greedy", "greedy", AMERICAN, 0, 3, 1.0, 0.0)
        writer.add_games(run, [GameRecord(i, i, 10 + i) for i in range(3)])
    for cut in ("refresh", "close"):
        reader = ResultStore(path, readonly=True)
        games = reader.iter_games(run)
        assert next(games).score == 10
        getattr(reader, cut)()
        with pytest.raises(StoreError, match="closed or refreshed while run 1's games were read"):
            next(games)
        reader.close()
    with ResultStore(path, readonly=True) as reader:
        path.rename(tmp_path / "moved.sqlite")
        with pytest.raises(StoreError, match="no result store at .* any more"):
            reader.refresh()
        assert [g.score for g in reader.iter_games(run)] == [10, 11, 12]


def test_a_writer_held_off_waits_once_not_twice(tmp_path, monkeypatch):
    """The batch the store refused was written again when the run stopped (its
    ``finally``): a command held off by another process waited the busy timeout twice,
    a minute where its message says 30 s."""
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT_S", 0.5, raising=False)
    path = tmp_path / "r.sqlite"
    refused = []
    with ResultStore(path) as store:
        add_games = store.add_games

        def counted(*args, **kwargs):
            try:
                return add_games(*args, **kwargs)
            except StoreError:
                refused.append(args[1][0].game_index)
                raise

        monkeypatch.setattr(store, "add_games", counted)
        holder = _holder(path)
        try:
            def meddle(rec):
                if rec.game_index == 1:
                    _take(holder)

            # Games of about 0.4 s: the batch of games 0 and 1 is written while the run plays.
            with pytest.raises(StoreError, match="another process has held its write lock"):
                record_run(RunSpec("greedy_mc:reserve=0.1", AMERICAN, 4, 0, 0.5, 0.0), store, workers=1,
                           on_result=meddle)
        finally:
            _release(holder)
    assert len(refused) == 1  # asked once


# Loaded by the command at start (PYTHONPATH): each BEGIN of its SQLite connections is said
# on one pipe and waits for a byte on another; "w" (the test holds the store's write lock)
# lets it go on and says "waiting" half a second later, the command then in its wait, and
# the BEGINs after it go on untold.
BEGINS_TOLD = textwrap.dedent("""
    import os, sqlite3, threading

    if os.environ.get("BEGINS_TOLD"):
        told, answers = map(int, os.environ["BEGINS_TOLD"].split(","))
        connect = sqlite3.connect
        waiting = []

        class Telling(sqlite3.Connection):
            def execute(self, sql, *args):
                if sql.startswith("BEGIN") and not waiting:
                    os.write(told, b"begin\\n")
                    if os.read(answers, 1) == b"w":
                        waiting.append(threading.Timer(0.5, os.write, (told, b"waiting\\n")))
                        waiting[0].start()
                return super().execute(sql, *args)

        sqlite3.connect = lambda *args, **options: connect(*args, **{"factory": Telling, **options})
""")


def _games_held(path):
    """The store's games, (index, when finished), read as they are now."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT game_index, finished FROM games ORDER BY game_index").fetchall()
    finally:
        conn.close()


def _as_in_a_terminal() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # whatever this test run inherited (a background job ignores it)


@pytest.mark.parametrize("sig, code, word, when", [(signal.SIGINT, 130, "interrupted", "between games"),
                                                   (signal.SIGTERM, 143, "terminated", "between games"),
                                                   (signal.SIGINT, 130, "interrupted", "opening the store")])
def test_a_command_waiting_for_another_process_lock_stops_at_once_on_a_signal(tmp_path, sig, code, word, when):
    """SQLite waited for the lock in C, where Python's signal handlers do not run: a
    Ctrl-C or SIGTERM took effect only when the 30 s wait ended, and then the command
    said "error: ... cannot start a transaction within a transaction" (its batch of games
    left a transaction open), exit 2. It stops at once as it does anywhere else, and the
    same command run again resumes: every game recorded once."""
    path = tmp_path / "r.sqlite"
    ResultStore(path).close()
    (tmp_path / "sitecustomize.py").write_text(BEGINS_TOLD)
    told_r, told_w = os.pipe()
    answers_r, answers_w = os.pipe()
    env = dict(os.environ, BEGINS_TOLD=f"{told_w},{answers_r}",
               PYTHONPATH=os.pathsep.join([str(tmp_path), *filter(None, [os.environ.get("PYTHONPATH")])]))
    command = [sys.executable, "-m", "pokersquares", "run", "--player", "greedy_mc:reserve=0.1", "--games", "6",
               "--workers", "1", "--prep-time", "0", "--time-per-game", "0.5", "-q", "--db", str(path)]
    holder = _holder(path)
    try:
        if when == "opening the store":
            _take(holder)
        p = subprocess.Popen(command, env=env, pass_fds=(told_w, answers_r), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, preexec_fn=_as_in_a_terminal)
        os.close(told_w)
        os.close(answers_r)
        told, answers = os.fdopen(told_r, "rb"), os.fdopen(answers_w, "wb", buffering=0)
        try:
            while True:  # at each BEGIN: go on, until the command has recorded games (or none, opening)
                assert told.readline() == b"begin\n", p.communicate()[1]
                if when == "opening the store" or len(_games_held(path)) >= 2:
                    break
                answers.write(b"g")
            if when == "between games":
                _take(holder)
            answers.write(b"w")
            assert told.readline() == b"waiting\n"
            p.send_signal(sig)
            signalled = time.monotonic()
            _, stderr = p.communicate(timeout=120)
            stopped_after = time.monotonic() - signalled
        finally:
            p.kill()
            told.close()
            answers.close()
    finally:
        _release(holder)
    assert stopped_after < 10, f"stopped {stopped_after:.1f} s after the signal"  # it waited 30 s
    assert p.returncode == code, stderr
    # Between games the signal stopped a batch's write: written again on the way out, still
    # held off (0.5 s), it is said not to be recorded (the line said "finished games are recorded").
    said = UNRECORDED_NOTE if when == "between games" else RESUMES
    assert stderr.strip().splitlines()[-1] == f"{word} ({said})", stderr
    assert "error" not in stderr and "transaction" not in stderr, stderr
    kept = _games_held(path)
    assert [i for i, _ in kept] == list(range(len(kept))) and len(kept) >= (2 if when == "between games" else 0)
    again = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    after = _games_held(path)
    assert [i for i, _ in after] == list(range(6)) and after[:len(kept)] == kept  # resumed: those kept as they were


@pytest.mark.parametrize("where", ["as the BEGIN returns", "after the batch's rows"])
def test_a_batch_of_games_stopped_by_a_signal_leaves_no_transaction_open(tmp_path, monkeypatch, where):
    """A Ctrl-C or SIGTERM (its exception) raised while a batch of games is written, as
    the handler runs wherever the wait for the lock ends: the batch is rolled back, and
    the run's last batch, written on its way out, is not refused with "cannot start a
    transaction within a transaction"."""
    from pokersquares.harness.store import GameRecord

    with ResultStore(tmp_path / "r.sqlite") as store:
        run = store.open_run("greedy", "greedy", AMERICAN, 0, 2, 1.0, 0.0)
        shared = store.conn
        execute, executemany = shared.execute, shared.executemany

        def begun_then_stopped(sql, args=()):
            cursor = execute(sql, args)
            if sql.startswith("BEGIN") and where == "as the BEGIN returns":
                raise KeyboardInterrupt
            return cursor

        def written_then_stopped(sql, rows):
            executemany(sql, rows)
            raise KeyboardInterrupt

        monkeypatch.setattr(shared, "execute", begun_then_stopped)
        monkeypatch.setattr(shared, "executemany", written_then_stopped)
        with pytest.raises(KeyboardInterrupt):
            store.add_games(run, [GameRecord(0, 0, 10)])
        monkeypatch.undo()
        assert not store.conn.in_transaction and store.games(run) == []
        assert store.add_games(run, [GameRecord(0, 0, 10), GameRecord(1, 1, 20)]) == 2


def _locks_held_here(path) -> list[str]:
    """This process's POSIX locks on the file ``path`` (``/proc/locks``)."""
    inode = os.stat(path).st_ino
    held = []
    with open("/proc/locks") as f:
        for line in f:
            fields = line.split()
            if fields[4] == str(os.getpid()) and fields[5].endswith(f":{inode}"):
                held.append(" ".join(fields[1:4] + fields[5:]))
    return held


@pytest.mark.skipif(not os.path.exists("/proc/locks"), reason="needs Linux's /proc/locks")
def test_opening_a_reader_keeps_the_locks_this_processs_other_connections_hold(tmp_path):
    # The store was probed by opening and closing the file outside SQLite, which drops
    # every POSIX lock this process holds on it: a writer's read lock (a web app's
    # recorder, a notebook's open store) was gone after any reader opened the store, and
    # another process could then check the log into the file under it, or remove it.
    path = tmp_path / "s.sqlite"
    with ResultStore(path) as store:
        store.open_run("greedy", "greedy", AMERICAN, 0, 1, 1.0, 0.0)
    with ResultStore(path) as writer:
        writer.conn.execute("BEGIN")
        writer.conn.execute("SELECT COUNT(*) FROM runs").fetchone()
        held = _locks_held_here(path)
        assert held  # the writer's read lock
        assert store_module.probe(path) == "store"
        with ResultStore(path, readonly=True) as reader:
            assert len(reader.runs()) == 1
        assert _locks_held_here(path) == held
        writer.conn.execute("COMMIT")


def test_a_store_this_user_may_write_is_probed_with_sqlites_locks_not_as_immutable(tmp_path, monkeypatch):
    # Read as immutable (no locks), a store another connection was creating or checking its
    # log into was read mixed: "database disk image is malformed", as the web app's
    # recorder and a teacher's reader met it.
    path = tmp_path / "s.sqlite"
    with ResultStore(path) as store:
        store.open_run("greedy", "greedy", AMERICAN, 0, 1, 1.0, 0.0)
    assert not os.path.exists(f"{path}-wal")  # no log: what was read as immutable
    opened = []
    real = store_module._sqlite_connect

    def connect(target, *args, **kwargs):
        opened.append(str(target))
        return real(target, *args, **kwargs)

    monkeypatch.setattr(store_module, "_sqlite_connect", connect)
    assert store_module.probe(path) == "store"
    with ResultStore(path, readonly=True) as reader:
        assert len(reader.runs()) == 1
    assert opened and not [target for target in opened if "immutable" in target]
