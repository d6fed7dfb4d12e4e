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
