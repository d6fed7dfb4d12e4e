"""Processes a user runs at once on one result store: a writer held off by another
process's write, readers while games are written. Synchronised with pipes, never sleeps."""

import subprocess
import sys

import pytest

from pokersquares.harness import store as store_module
from pokersquares.harness.runner import RunSpec, record_run
from pokersquares.harness.store import ResultStore, StoreError
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
