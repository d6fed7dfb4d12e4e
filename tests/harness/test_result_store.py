"""The result store under concurrency and misuse: several processes creating one store
and opening runs at once, newer schemas, read-only places, missing runs."""

import multiprocessing as mp
import sqlite3

import pytest

from pokersquares.harness import store as store_module
from pokersquares.harness.store import GameRecord, ResultStore, StoreError
from pokersquares.points import AMERICAN, BRITISH


def _open_runs(path, barrier, k, out):
    try:
        barrier.wait(60)
        with ResultStore(path) as s:  # every process creates the store at once
            barrier.wait(60)  # then every process opens the same new run at once
            shared = s.open_run("greedy", "greedy", AMERICAN, 0, 10, 1.0, 0.0)
            own = s.open_run(f"greedy:flush_weight={k}", "greedy", BRITISH, 0, 10, 1.0, 0.0)
            s.open_tournament(["greedy"], [AMERICAN], 10, 0, 1.0, 0.0)
        out.put((k, shared, own, None))
    except Exception as e:  # reported to the test, which fails on it
        out.put((k, None, None, f"{type(e).__name__}: {e}"))


def test_processes_creating_one_store_and_opening_runs_at_once(tmp_path):
    ctx = mp.get_context("fork")
    n = 8
    for attempt in range(16):
        path = tmp_path / f"race{attempt}.sqlite"
        barrier, out = ctx.Barrier(n), ctx.Queue()
        procs = [ctx.Process(target=_open_runs, args=(path, barrier, k, out)) for k in range(n)]
        for p in procs:
            p.start()
        results = [out.get(timeout=120) for _ in procs]
        for p in procs:
            p.join(timeout=30)
        assert [r[3] for r in results] == [None] * n  # no lock, constraint or "not a store" error
        assert len({r[1] for r in results}) == 1  # one run for one key
        assert len({r[2] for r in results}) == n  # one run per distinct key
        with ResultStore(path, readonly=True) as s:
            assert len(s.runs()) == n + 1 and len(s.tournaments()) == 1


def test_a_store_of_a_newer_schema_is_not_written(tmp_path):
    path = tmp_path / "new.sqlite"
    with ResultStore(path) as s:
        run_id = s.open_run("greedy", "greedy", AMERICAN, 0, 1, 1.0, 0.0)
        s.add_games(run_id, [GameRecord(0, 0, 50)])
    with sqlite3.connect(path) as c:
        c.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(StoreError, match="schema version '99'.*not writing"):
        ResultStore(path)
    with ResultStore(path, readonly=True) as s:  # reading is still allowed
        assert [g.score for g in s.games(run_id)] == [50]


def test_read_only_places_are_named_as_such(tmp_path, monkeypatch):
    existing = tmp_path / "ro.sqlite"
    ResultStore(existing).close()
    real_access = store_module.os.access
    monkeypatch.setattr(store_module.os, "access", lambda p, mode: False if mode & store_module.os.W_OK
                        else real_access(p, mode))  # as a non-root user in a read-only folder sees it
    with pytest.raises(StoreError, match="is read-only"):
        ResultStore(existing)
    with pytest.raises(StoreError, match="is not writable"):
        ResultStore(tmp_path / "fresh.sqlite")
    with ResultStore(existing, readonly=True) as s:
        assert s.runs() == []


def test_an_export_says_whose_games_they_are(tmp_path):
    # A class's web games are all the player "human": the export said nothing else, so a
    # teacher's spreadsheet could not tell the students apart.
    import csv
    import io

    with ResultStore(tmp_path / "class.sqlite") as s:
        for seed, name in enumerate(["Ada", "Bo"]):
            run_id = s.open_run("human", name, AMERICAN, seed, 1, 0.0, 0.0, version=f"web:{seed}")
            s.add_games(run_id, [GameRecord(0, seed, 40 + seed)])
        rows = s.export_rows()
        table = list(csv.DictReader(io.StringIO("".join(s.export_chunks("csv")))))
    assert [(r["player"], r["player_name"], r["score"]) for r in rows] == [("human", "Ada", 40), ("human", "Bo", 41)]
    assert [(r["player"], r["player_name"], r["score"]) for r in table] == [("human", "Ada", "40"), ("human", "Bo", "41")]


def test_a_csv_export_runs_no_formula_a_name_holds(tmp_path):
    """A name typed in the browser (or a player's, a point system's, a ``--secret``) that
    starts as a spreadsheet formula (``=HYPERLINK(...)``, ``+1``, ``-2+3``, ``@SUM(A1)``) was
    written into the CSV export as it was, and a spreadsheet opening the teacher's
    download ran it. Now such a text cell starts with ``'`` (OWASP's advice); numbers (a
    negative score or seed) and the JSON export are as stored, and the CSV still parses."""
    import csv
    import io
    import json

    from pokersquares.points import PointSystem

    names = ['=HYPERLINK("http://x","y")', "+1", "-2+3", "@SUM(A1)", "\tTab", 'Doe, "Jane"', "Ada"]
    with ResultStore(tmp_path / "class.sqlite") as s:
        for seed, name in enumerate(names):
            run_id = s.open_run("human", name, AMERICAN, -seed, 1, 0.0, 0.0, version=f"web:{seed}")
            s.add_games(run_id, [GameRecord(0, -seed, -5 * seed)])
        run_id = s.open_run("=cmd|' /C calc'!A0", "mine", PointSystem(AMERICAN.points, "-custom"), 0, 1, 1.0, 0.0)
        s.add_games(run_id, [GameRecord(0, 0, 0, penalty="=1+1")])
        s.conn.execute("UPDATE runs SET secret = '@secret' WHERE run_id = ?", (run_id,))
        table = list(csv.DictReader(io.StringIO("".join(s.export_chunks("csv")))))
        rows = json.loads("".join(s.export_chunks("json")))
    shown = ["'" + n if n[0] in "=+-@\t" else n for n in names]
    assert [r["player_name"] for r in table] == [*shown, "mine"]
    assert [(r["seed"], r["score"]) for r in table[:3]] == [("0", "0"), ("-1", "-5"), ("-2", "-10")]
    assert {k: table[-1][k] for k in ("player", "system", "penalty", "secret")} == {
        "player": "'=cmd|' /C calc'!A0", "system": "'-custom", "penalty": "'=1+1", "secret": "'@secret"}
    assert [r["player_name"] for r in rows] == [*names, "mine"]  # JSON: as stored
    assert (rows[-1]["player"], rows[-1]["system"], rows[-1]["penalty"]) == ("=cmd|' /C calc'!A0", "-custom", "=1+1")


def test_an_export_tells_runs_of_other_code_and_limits_apart(tmp_path):
    """Two runs of one player, system and seed played by two versions of its code (or
    under other limits) were rows the export could not tell apart but by their run id,
    and the ``secret`` it carries "to replay the run" came without the limits a replay
    needs. Each row has its run's ``version``, ``time_per_game`` and ``prep_time`` now,
    as ``results --json`` has, in the CSV's columns and the JSON's keys alike, in
    :data:`EXPORT_FIELDS`' order in both."""
    import csv
    import io
    import json

    from pokersquares.harness.store import EXPORT_FIELDS

    with ResultStore(tmp_path / "v.sqlite") as s:
        for version, limit, prep in (("0.1.0/1", 1.0, 0.0), ("0.1.0/2", 1.0, 0.0), ("0.1.0/2", 2.5, 30.0)):
            run_id = s.open_run("greedy", "greedy", AMERICAN, 0, 1, limit, prep, version=version)
            s.add_games(run_id, [GameRecord(0, 0, 40)])
        listed = [(r.version, r.time_per_game, r.prep_time) for r in s.runs()]
        text = "".join(s.export_chunks("csv"))
        rows = json.loads("".join(s.export_chunks("json")))
    table = list(csv.DictReader(io.StringIO(text)))
    assert listed == [("0.1.0/1", 1.0, 0.0), ("0.1.0/2", 1.0, 0.0), ("0.1.0/2", 2.5, 30.0)]
    assert [(r["version"], r["time_per_game"], r["prep_time"]) for r in rows] == listed
    assert [(r["version"], float(r["time_per_game"]), float(r["prep_time"])) for r in table] == listed
    assert text.splitlines()[0].split(",") == EXPORT_FIELDS == [list(r) for r in rows][0]


def test_export_of_a_missing_run_is_an_error(tmp_path):
    with ResultStore(tmp_path / "e.sqlite") as s:
        run_id = s.open_run("greedy", "greedy", AMERICAN, 0, 1, 1.0, 0.0)
        assert s.export_rows([run_id]) == []
        with pytest.raises(StoreError, match="no run 99"):
            s.export_rows([99])


def test_forget_penalised_and_penalty_counts(tmp_path):
    with ResultStore(tmp_path / "p.sqlite") as s:
        run_id = s.open_run("greedy", "greedy", AMERICAN, 0, 3, 1.0, 0.0)
        s.add_games(run_id, [GameRecord(0, 0, 50), GameRecord(1, 1, -10, penalty="timeout"),
                             GameRecord(2, 2, -10, penalty="crash")])
        assert s.run(run_id).penalties == 2
        assert s.forget_penalised(run_id) == 2
        assert [g.game_index for g in s.games(run_id)] == [0] and s.run(run_id).penalties == 0


def test_a_game_recorded_once_is_kept_as_it_was(tmp_path):
    """Two workers finishing the same game (a resumed run beside the run it resumes, or
    a game replayed after a crash) must not change what the store already holds: the
    first record of a game stays, its score, moves and time alike, and new games of the
    same batch are still added."""
    with ResultStore(tmp_path / "k.sqlite") as s:
        run_id = s.open_run("greedy", "greedy", AMERICAN, 0, 3, 1.0, 0.0)
        s.add_games(run_id, [GameRecord(0, 0, 50, [(1, 0, 0)], 0.25)])
        s.add_games(run_id, [GameRecord(0, 0, 90, [(2, 4, 4)], 0.75), GameRecord(1, 1, 60)])
        games = {g.game_index: g for g in s.games(run_id)}
        assert sorted(games) == [0, 1]
        assert (games[0].score, games[0].decision_s) == (50, 0.25)
        assert [tuple(p) for p in games[0].placements] == [(1, 0, 0)]
        assert games[1].score == 60


@pytest.mark.parametrize("change", ["delete", "replace"])
def test_a_store_deleted_or_replaced_while_a_run_plays_stops_it_in_one_line(tmp_path, change):
    import os
    import shutil

    from pokersquares.harness.runner import RunSpec, record_run
    from pokersquares.harness.store import StoreError
    from pokersquares.points import AMERICAN

    folder = tmp_path / "runs"
    folder.mkdir()
    path = folder / "x.sqlite"
    other = tmp_path / "other.sqlite"
    ResultStore(other).close()

    def meddle(rec):
        if rec.game_index == 0:
            if change == "delete":
                shutil.rmtree(folder)
            else:
                os.replace(other, path)

    with ResultStore(path) as store:
        with pytest.raises(StoreError, match="was deleted" if change == "delete" else "was replaced by another file"):
            record_run(RunSpec("greedy", AMERICAN, 3, 0, 30.0, 0.0), store, workers=1, on_result=meddle)


@pytest.mark.parametrize("how", ["moved in", "deleted, then restored"])
def test_a_store_put_in_place_while_a_run_plays_is_left_as_it_was(tmp_path, how):
    # The run's -wal stayed beside the new file, and the next connection replayed the old
    # run's games over it: a backup of 100 greedy games read as the old run's random ones.
    import os

    from pokersquares.harness.runner import RunSpec, record_run
    from pokersquares.harness.store import StoreError
    from pokersquares.points import AMERICAN

    path, backup = tmp_path / "x.sqlite", tmp_path / "backup.sqlite"
    with ResultStore(backup) as b:  # closed: all of it in the file
        record_run(RunSpec("greedy", AMERICAN, 5, 100, 30.0, 0.0), b, workers=1)
        kept = [(g.game_index, g.score) for g in b.games(1)]
    assert not os.path.exists(f"{backup}-wal")

    def meddle(rec):
        if rec.game_index == 3:
            if how == "deleted, then restored":
                os.remove(path)
                os.replace(backup, path)
            else:
                os.replace(backup, path)

    with ResultStore(path) as store:
        with pytest.raises(StoreError, match=r"left as it is"):
            record_run(RunSpec("random", AMERICAN, 40, 0, 30.0, 0.0), store, workers=1, on_result=meddle)
    with ResultStore(path) as after:
        assert [r.player for r in after.runs()] == ["greedy"]
        assert [(g.game_index, g.score) for g in after.games(1)] == kept


def _games_seen_by_another_process(path):
    """The store's games as a new process reads them (its own connection, its own view of
    the -wal and -shm files): [(run_id, game_index)], or the error it meets."""
    import subprocess
    import sys

    code = ("import sqlite3, sys\n"
            "c = sqlite3.connect(sys.argv[1], timeout=30)\n"
            "try:\n"
            "    print(c.execute('SELECT run_id, game_index FROM games ORDER BY 1, 2').fetchall())\n"
            "except sqlite3.Error as e:\n"
            "    print(f'{type(e).__name__}: {e}')\n"
            "c.close()\n")
    return subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                          timeout=120).stdout.strip()


def test_games_written_after_the_wal_files_were_deleted_are_not_lost(tmp_path):
    """A clean-up deleting the store's -wal and -shm files while a run writes: the run's
    connection goes on with the deleted log, which no other process sees, and which is
    never merged into the file if another connection is open when the run closes (or if
    the run is killed). Every game written before and after the deletion must stay, and
    be seen by other processes."""
    import os

    def delete_log(path):
        for suffix in ("-wal", "-shm"):
            os.unlink(f"{path}{suffix}")

    path = tmp_path / "w.sqlite"
    s = ResultStore(path)
    run_id = s.open_run("greedy", "greedy", AMERICAN, 0, 3, 1.0, 0.0)
    s.add_games(run_id, [GameRecord(0, 0, 50)])
    delete_log(path)
    s.add_games(run_id, [GameRecord(1, 1, 60)])
    assert _games_seen_by_another_process(path) == str([(run_id, 0), (run_id, 1)])
    other = ResultStore(path)  # open while the run closes, as the web app or a second run would be
    try:
        s.add_games(run_id, [GameRecord(2, 2, 70)])
        delete_log(path)  # after the run's last write
        s.close()
        assert _games_seen_by_another_process(path) == str([(run_id, 0), (run_id, 1), (run_id, 2)])
    finally:
        other.close()
    with ResultStore(path, readonly=True) as s:
        assert [g.score for g in s.games(run_id)] == [50, 60, 70]


# -- readers who cannot write the store's folder ---------------------------------------------

def _many_games(start, stop):
    return [GameRecord(i, i, 50 + i % 7, [(i % 52, k // 5, k % 5) for k in range(25)]) for i in range(start, stop)]


def _two_runs(path, games):
    """A closed store (all of it in the file, no -wal) of two runs of ``games`` games."""
    import os

    with ResultStore(path) as s:
        runs = [s.open_run(f"greedy:flush_weight={k}", "greedy", AMERICAN, 0, 10 ** 6, 1.0, 0.0) for k in (1, 2)]
        for r in runs:
            s.add_games(r, _many_games(0, games))
    assert not os.path.exists(f"{path}-wal")
    return runs


def _a_run_adds_games(path, runs, start, stop):
    """Another process's run adding games, as a tournament's do: its close checkpoints them
    into the store's file and removes the -wal."""
    with ResultStore(path) as w:
        for r in runs:
            w.add_games(r, _many_games(start, stop))


def test_an_export_made_while_a_run_writes_is_one_state_of_the_store(tmp_path, monkeypatch):
    """A reader who cannot write the store's folder, of a store with no -wal: SQLite can
    read it only as immutable, trusted never to change, and a run checkpointing games into
    it meanwhile mixed the pages read before and after: the export failed as malformed, or
    repeated or dropped rows. It must hold every game of the store as it was, once."""
    path = tmp_path / "x.sqlite"
    runs = _two_runs(path, 400)
    real_access = store_module.os.access
    monkeypatch.setattr(store_module.os, "access", lambda p, mode: False if mode & store_module.os.W_OK
                        else real_access(p, mode))  # as a non-root user in a read-only folder sees it
    with ResultStore(path, readonly=True) as reader:
        reader.conn.execute("PRAGMA cache_size = 8")  # a store larger than the reader's cache
        rows = reader.iter_export_rows()
        got = [next(rows) for _ in range(200)]
        monkeypatch.setattr(store_module.os, "access", real_access)
        _a_run_adds_games(path, runs, 400, 800)
        got += list(rows)
    assert [(g["run_id"], g["game_index"]) for g in got] == [(r, i) for r in runs for i in range(400)]


def test_a_store_that_changes_while_it_is_copied_is_copied_again(tmp_path, monkeypatch):
    """The reader's private copy of a store is made while the file does not change: a copy
    a checkpoint wrote into is thrown away and the store read again."""
    path = tmp_path / "x.sqlite"
    runs = _two_runs(path, 50)
    real_access, real_copy = store_module.os.access, store_module.shutil.copyfileobj
    copies = []

    def copy_while_a_run_writes(src, dst, *args):
        copies.append(src.name)
        real_copy(src, dst, *args)
        if len(copies) == 1:
            with monkeypatch.context() as m:  # the writer can write the folder
                m.setattr(store_module.os, "access", real_access)
                _a_run_adds_games(path, runs, 50, 60)

    monkeypatch.setattr(store_module.os, "access", lambda p, mode: False if mode & store_module.os.W_OK
                        else real_access(p, mode))
    monkeypatch.setattr(store_module.shutil, "copyfileobj", copy_while_a_run_writes)
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(store_module.tempfile, "tempdir", str(temp))
    with ResultStore(path, readonly=True) as reader:
        assert [r.finished for r in reader.runs()] == [60, 60]
    assert copies == [str(path)] * 2
    assert list(temp.iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["temp", "x.sqlite"]


def _as_a_user_who_cannot_write(folder):
    """Make ``folder`` read-only; the command prefix that runs a process as a user who
    cannot write it (root ignores permissions: root without the capabilities to), or skip."""
    import os
    import shutil
    import subprocess
    import sys

    folder.chmod(0o555)
    prefix = [] if os.geteuid() != 0 else ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"]
    if prefix and shutil.which("setpriv") is None:
        pytest.skip("no setpriv to run a process without root's file permissions")
    check = subprocess.run(prefix + [sys.executable, "-c", "import os, sys; sys.exit(os.access(sys.argv[1], os.W_OK))",
                                     str(folder)], capture_output=True)
    if check.returncode != 0:
        pytest.skip("cannot run a process that the folder's permissions hold here")
    return prefix


_READER = """
import json, sys
from pokersquares.harness.store import ResultStore
with ResultStore(sys.argv[1], readonly=True) as s:
    s.conn.execute("PRAGMA cache_size = 8")  # a store larger than the reader's cache
    rows = s.iter_export_rows()
    got = [next(rows) for _ in range(200)]
    print("read", flush=True)
    sys.stdin.readline()  # while a run writes
    try:
        got += list(rows)
    except Exception as e:
        got = f"{type(e).__name__}: {e}"
print(json.dumps(got if isinstance(got, str) else [[g["run_id"], g["game_index"]] for g in got]))
"""


def test_a_user_who_cannot_write_the_folder_exports_one_state_while_another_writes(tmp_path):
    """Another user's run adding games to a store in a folder the reader cannot write,
    while the reader exports it (see the test above, here with real permissions)."""
    import json
    import subprocess
    import sys

    folder = tmp_path / "shared"
    folder.mkdir()
    path = folder / "x.sqlite"
    runs = _two_runs(path, 400)
    try:
        prefix = _as_a_user_who_cannot_write(folder)
        reader = subprocess.Popen(prefix + [sys.executable, "-c", _READER, str(path)], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert reader.stdout.readline() == "read\n", reader.stderr.read()
            folder.chmod(0o755)  # for the writer, another user (the reader has opened the store)
            _a_run_adds_games(path, runs, 400, 800)
            out, err = reader.communicate("go\n", timeout=120)
        finally:
            reader.kill()
        assert json.loads(out) == [[r, i] for r in runs for i in range(400)], err
    finally:
        folder.chmod(0o755)


def test_a_wal_without_its_shm_in_a_folder_this_user_cannot_write_is_named(tmp_path):
    """A store copied with its -wal but not its -shm, into a folder the reader cannot
    write: SQLite cannot read the log there, and the command said the store "is not a
    readable result store (unable to open database file)". It names what is missing and
    what to do; with the -shm beside it the same copy is read."""
    import shutil
    import subprocess
    import sys

    path = tmp_path / "x.sqlite"
    lone, whole = tmp_path / "lone", tmp_path / "whole"
    lone.mkdir()
    whole.mkdir()
    with ResultStore(path) as s:  # open: its last games are in its -wal
        run_id = s.open_run("greedy", "greedy", AMERICAN, 0, 3, 1.0, 0.0)
        s.add_games(run_id, [GameRecord(0, 0, 50), GameRecord(1, 1, 60)])
        for suffix in ("", "-wal", "-shm"):
            shutil.copy(f"{path}{suffix}", whole)
            if suffix != "-shm":
                shutil.copy(f"{path}{suffix}", lone)
    try:
        prefix = _as_a_user_who_cannot_write(lone)
        _as_a_user_who_cannot_write(whole)

        def results(folder):
            return subprocess.run(prefix + [sys.executable, "-m", "pokersquares", "results", "--db",
                                            str(folder / "x.sqlite")], capture_output=True, text=True, timeout=300)

        r = results(lone)
        assert r.returncode != 0 and r.stdout == ""
        assert r.stderr.count("\n") == 1 and "unable to open database file" not in r.stderr
        assert f"x.sqlite-wal (its last games) needs x.sqlite-shm beside it, which this user cannot create in {lone}" \
            in r.stderr
        assert "copy x.sqlite with its -wal" in r.stderr
        r = results(whole)
        assert r.returncode == 0 and "2/3" in r.stdout, r.stderr
    finally:
        lone.chmod(0o755)
        whole.chmod(0o755)


_LATE_READER = """
import sqlite3, sys
from pokersquares.harness.store import ResultStore
real_connect, waited = sqlite3.connect, []

def connect(database, *args, **kwargs):  # the store's last writer closes between the look and the read
    if "mode=ro" in str(database) and "immutable" not in str(database) and not waited:
        waited.append(print("looked", flush=True) or sys.stdin.readline())
    return real_connect(database, *args, **kwargs)

sqlite3.connect = connect
with ResultStore(sys.argv[1], readonly=True) as s:
    print([r.finished for r in s.runs()])
"""


def test_a_log_removed_between_the_look_and_the_read_is_looked_at_again(tmp_path):
    """A reader who cannot write the folder sees the store's -wal and reads it with it;
    its writer closing meanwhile folds the log in and removes it, and SQLite, finding no
    -wal to read, cannot create one: the store is looked at again, not called unreadable."""
    import os
    import subprocess
    import sys

    folder = tmp_path / "shared"
    folder.mkdir()
    path = folder / "x.sqlite"
    writer = ResultStore(path)
    try:
        run_id = writer.open_run("greedy", "greedy", AMERICAN, 0, 3, 1.0, 0.0)
        writer.add_games(run_id, [GameRecord(0, 0, 50)])
        prefix = _as_a_user_who_cannot_write(folder)
        if not os.access(folder, os.W_OK):
            pytest.skip("needs a writer who can write the folder the reader cannot (root)")
        reader = subprocess.Popen(prefix + [sys.executable, "-c", _LATE_READER, str(path)], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert reader.stdout.readline() == "looked\n", reader.stderr.read()
            writer.close()
            assert not (folder / "x.sqlite-wal").exists()
            out, err = reader.communicate("go\n", timeout=120)
        finally:
            reader.kill()
        assert (reader.returncode, out) == (0, "[1]\n"), err
    finally:
        writer.close()
        folder.chmod(0o755)


@pytest.mark.parametrize("moves", ["[[1,2", "null", "[5,5]", "7", "{\"a\": 1}"])
def test_moves_edited_by_hand_are_one_store_error_naming_the_game(tmp_path, moves, cli):
    # Were a bare JSONDecodeError or TypeError: `review` said "internal error".
    path = tmp_path / "d.sqlite"
    with ResultStore(path) as s:
        run_id = s.open_run("greedy", "greedy", AMERICAN, 10, 2, 1.0, 0.0)
        s.add_games(run_id, [GameRecord(0, 10, 50, [(1, 0, 0)], 0.25), GameRecord(1, 11, 60, [(2, 0, 0)], 0.25)])
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE games SET placements = ? WHERE seed = 11", (moves,))
    conn.close()
    with ResultStore(path, readonly=True) as s:
        assert [g.score for g in s.iter_games(run_id, moves=False)] == [50, 60]  # moves not read: no harm
        with pytest.raises(StoreError, match=r"the moves of run 1's game dealt with seed 11 are damaged"):
            s.games(run_id)
    code, _, err = cli("review", path, "--run", "1", "--game", "11")
    assert code == 2 and err.strip().splitlines()[-1].startswith("error: ") and "seed 11 are damaged" in err, err


@pytest.mark.parametrize("edit, says", [
    ("UPDATE runs SET points = '[1, 2'", "run 1's point values are damaged"),
    ("UPDATE runs SET time_per_game = 9e999", "run 1's time per game is damaged"),
    ("UPDATE games SET decision_s = 'x' WHERE seed = 11", "the decision time of run 1's game 1 is damaged"),
    ("UPDATE games SET decision_s = 9e999 WHERE seed = 11", "the decision time of run 1's game 1 is damaged"),
    ("UPDATE games SET score = 70.5 WHERE seed = 11", "the score of run 1's game 1 is damaged (70.5)"),
])
@pytest.mark.parametrize("args", [[], ["--json"], ["--export", "csv"], ["--export", "json"]])
def test_figures_edited_by_hand_are_one_line_for_every_reader(tmp_path, edit, says, args, cli):
    # `results` said "internal error: JSONDecodeError" or "TypeError ... __round__", or
    # printed Infinity, which is not JSON.
    path = tmp_path / "d.sqlite"
    with ResultStore(path) as s:
        run_id = s.open_run("greedy", "greedy", AMERICAN, 10, 2, 1.0, 0.0)
        s.add_games(run_id, [GameRecord(0, 10, 50, [(1, 0, 0)], 0.25), GameRecord(1, 11, 60, [(2, 0, 0)], 0.25)])
    with sqlite3.connect(path) as conn:
        conn.execute(edit)
    conn.close()
    code, out, err = cli("results", "--db", path, *args)
    if code == 0:  # the listing of runs reads no game's figures
        assert "UPDATE games" in edit and "--export" not in args and "Infinity" not in out, (edit, args, out)
        return
    assert code == 2 and err.strip().splitlines()[-1].startswith("error: ") and says in err, err


@pytest.mark.parametrize("field, value, says", [
    ("decision_s", -3.2, "decision time (-3.2)"),
    ("decision_s", float("nan"), "decision time (nan)"),
    ("score", 1281, "score (1281)"),
    ("score", True, "score (True)"),
    ("seed", 2 ** 63, "seed"),
    ("penalty", 7, "penalty (7)"),
    ("fallback_moves", -1, "fallback move count (-1)"),
])
def test_a_game_every_reader_would_refuse_is_not_written(tmp_path, field, value, says):
    """What the readers refuse as damaged (a negative time: a wall clock set back) is
    refused when written, the whole batch with it: a store holds only what it can read."""
    import numpy as np

    with ResultStore(tmp_path / "s.sqlite") as store:
        run = store.open_run("greedy", "greedy", AMERICAN, 0, 3, 30.0, 0.0)
        good = GameRecord(0, 0, 12, [], 0.5)
        bad = GameRecord(**{"game_index": 1, "seed": 1, "score": 12, "decision_s": 0.5, field: value})
        with pytest.raises(StoreError, match=rf"run {run}'s game 1 is not recorded: its {says}".replace("(", r"\(")
                           .replace(")", r"\)")):
            store.add_games(run, [good, bad])
        assert store.games(run) == []
        # numpy's numbers, as kernels give them, are recorded as Python's
        assert store.add_games(run, [GameRecord(np.int64(2), np.int64(2), np.int32(40), [], np.float64(0.25))]) == 1
        (game,) = store.games(run)
        assert (game.score, game.decision_s, type(game.score)) == (40, 0.25, int)


def test_a_persons_game_timed_negative_by_an_older_web_app_is_read(tmp_path, cli):
    """Releases before 2026-12-05 timed a person's browser game on the wall clock: set back
    during the game (NTP), it was recorded with a negative time. Every reader then refused
    the whole store, honest as it is: "the decision time of run 1's game 0 is damaged
    (-29.99...); the store was edited?" (results --export, compare, review, the web's
    Results). Such a game reads as 0 s, as the web app records it now; a harness run's
    negative time is still a damaged store."""
    path = tmp_path / "old.sqlite"
    with ResultStore(path) as s:  # the rows as the older web app wrote them
        person = s.open_run("human", "Ada", AMERICAN, 7, 1, 0.0, 0.0, version="web:abc")
        played = s.open_run("greedy", "greedy", AMERICAN, 7, 1, 1.0, 0.0)
        s.add_games(played, [GameRecord(0, 7, 60, [(2, 0, 0)], 0.25)])
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO games (run_id, game_index, seed, score, placements, decision_s, penalty, finished)"
                     " VALUES (?, 0, 7, 8, '[[16, 0, 0]]', -29.9999, NULL, 0)", (person,))
    conn.close()
    with ResultStore(path, readonly=True) as s:
        (game,) = s.games(person)
        assert (game.score, game.decision_s) == (8, 0.0)
    code, out, err = cli("results", "--db", path, "--export", "csv")
    assert code == 0 and ",human,Ada,American," in out and ",7,8,0.0,," in out, err
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE games SET decision_s = -3.5 WHERE run_id = ?", (played,))
    conn.close()
    with ResultStore(path, readonly=True) as s, pytest.raises(StoreError, match=r"decision time .* damaged \(-3.5\)"):
        s.games(played)


def test_a_store_opened_in_one_thread_is_used_from_others(tmp_path):
    """A notebook's worker threads, or a server's, sharing one store: runs opened and
    games recorded from eight threads at once all land; a read-only store and an optima
    store are read from another thread. Before: SQLite's own ProgrammingError ("SQLite
    objects created in a thread can only be used in that same thread")."""
    from concurrent.futures import ThreadPoolExecutor

    from pokersquares.optimum import Optimum
    from pokersquares.optimum.store import OptimaStore

    path = tmp_path / "threads.sqlite"
    store = ResultStore(path)

    def play(k):
        run_id = store.open_run(f"greedy:flush_weight={k}", "greedy", AMERICAN, 0, 20, 1.0, 0.0)
        for i in range(20):
            store.add_games(run_id, [GameRecord(i, i, 50 + k)])
        return [g.score for g in store.games(run_id)]

    with ThreadPoolExecutor(8) as pool:
        scores = list(pool.map(play, range(8)))
    assert scores == [[50 + k] * 20 for k in range(8)]
    assert len(store.runs()) == 8
    store.close()
    with ResultStore(path, readonly=True) as reader, ThreadPoolExecutor(1) as pool:
        assert pool.submit(lambda: sum(r.finished for r in reader.runs())).result() == 160
    with OptimaStore(path) as optima, ThreadPoolExecutor(1) as pool:
        pool.submit(optima.put, Optimum(3, "American", AMERICAN.points, 150, 150, True, list(range(25)), 1.0, 150),
                    5.0).result()
    with OptimaStore(path, readonly=True) as optima, ThreadPoolExecutor(1) as pool:
        assert pool.submit(lambda: optima.get(3, AMERICAN.points).score).result() == 150


def test_a_thread_never_reads_or_writes_inside_another_threads_transaction(tmp_path):
    """Threads share the store's one connection, so a statement of one thread run while
    another's transaction is open would be part of it: a read seeing rows the rollback
    then takes away, a write rolled back with the other's. It waits for the end."""
    import threading

    store = ResultStore(tmp_path / "tx.sqlite")
    inside, seen, done = threading.Event(), [], threading.Event()

    def other_thread():
        inside.wait(10)
        seen.append(store.conn.execute("SELECT COUNT(*) FROM meta WHERE key = 'draft'").fetchone()[0])
        store.conn.execute("INSERT INTO meta VALUES ('kept', '1')")  # its own write, after the rollback
        done.set()

    t = threading.Thread(target=other_thread)
    t.start()
    with pytest.raises(RuntimeError, match="changed my mind"):
        with store.transaction():
            store.conn.execute("INSERT INTO meta VALUES ('draft', '1')")
            inside.set()
            assert not done.wait(0.5)  # the other thread waits for this transaction
            raise RuntimeError("changed my mind")
    t.join(10)
    assert seen == [0]
    assert store.conn.execute("SELECT key FROM meta WHERE key IN ('draft', 'kept')").fetchall() == [("kept",)]
    store.close()


def _as_a_later_release_leaves_it(path):
    """What a later release may do to a store without raising its schema version: add
    columns with a default to every table, a table of its own, a key to ``meta``."""
    with sqlite3.connect(path) as c:
        for table in ("runs", "games", "tournaments", "optima"):
            c.execute(f"ALTER TABLE {table} ADD COLUMN later_note TEXT NOT NULL DEFAULT 'later'")
            c.execute(f"ALTER TABLE {table} ADD COLUMN later_count INTEGER")
        c.execute("CREATE TABLE later_table (x INTEGER NOT NULL)")
        c.execute("INSERT INTO meta VALUES ('later_key', 'later')")


def test_a_store_a_later_release_added_columns_to_is_written_and_read(tmp_path, cli_here):
    """The contract between releases: a later release that adds columns (with a default),
    tables or meta keys keeps the schema version, and this one writes and reads such a
    store as its own (every statement names its columns: an INSERT by position into a
    table with a new column fails, a SELECT * gives rows of another length). A change
    this release's writes would get wrong raises the version, which it refuses (above)."""
    from pokersquares.optimum import Optimum
    from pokersquares.optimum.store import OptimaStore

    path = tmp_path / "later.sqlite"
    with OptimaStore(path) as optima:  # makes the result store with its optima table
        optima.put(Optimum(7, "American", AMERICAN.points, 150, 170, False, list(range(25)), 1.0, 150), 1.0)
    with ResultStore(path) as s:
        old_run = s.open_run("greedy", "greedy", AMERICAN, 0, 2, 1.0, 0.0, version="v")
        s.add_games(old_run, [GameRecord(0, 0, 50)])
    _as_a_later_release_leaves_it(path)

    with ResultStore(path) as s:
        assert s.open_run("greedy", "greedy", AMERICAN, 0, 2, 1.0, 0.0, version="v") == old_run  # found again
        assert s.add_games(old_run, [GameRecord(1, 1, 60)]) == 1
        tid = s.open_tournament(["greedy", "random"], [AMERICAN], 1, 0, 1.0, 0.0)
        new_run = s.open_run("random", "random", AMERICAN, 0, 1, 1.0, 0.0, tournament_id=tid, version="v")
        s.add_games(new_run, [GameRecord(0, 0, -3, penalty="timeout")])
    with OptimaStore(path) as optima:
        optima.put(Optimum(8, "American", AMERICAN.points, 140, 140, True, list(range(25)), 2.0, 140), 1.0)
    with ResultStore(path, readonly=True) as s:
        assert [g.score for g in s.games(old_run)] == [50, 60]
        assert [(r.player, r.tournament_id, r.finished) for r in s.runs()] == [("greedy", None, 2), ("random", tid, 1)]
        assert [t["tournament_id"] for t in s.tournaments()] == [tid]
        assert [(r["player"], r["score"], r["penalty"]) for r in s.export_rows()] == [
            ("greedy", 50, None), ("greedy", 60, None), ("random", -3, "timeout")]
    with OptimaStore(path, readonly=True) as optima:
        assert (optima.get(7, AMERICAN.points).score, optima.get(8, AMERICAN.points).proven) == (150, True)
    with sqlite3.connect(path) as c:  # what the later release wrote is still there, its defaults on the new rows
        assert c.execute("SELECT COUNT(*), MIN(later_note) FROM games").fetchone() == (3, "later")
        assert c.execute("SELECT value FROM meta WHERE key = 'later_key'").fetchone() == ("later",)

    # And from the command line: a run resumed and one begun, then read.
    for args in (["run", "-p", "greedy", "-n", "3", "--time-per-game", "1", "--prep-time", "0"],
                 ["run", "-p", "random", "-n", "2", "--time-per-game", "1", "--prep-time", "0"]):
        done = cli_here(*args, "--db", path, "-q")
        assert done.returncode == 0, done.stderr
    shown = cli_here("results", "--db", path, "--json")
    assert shown.returncode == 0, shown.stderr
    import json

    runs = json.loads(shown.stdout)["runs"]
    assert [(r["player"], r["finished"]) for r in runs] == [("greedy", 2), ("random", 1), ("greedy", 3), ("random", 2)]
