"""Optima in the result store: cached per (deal, point system), and never below a
stored game's score."""

import json
import subprocess
import sys

import pytest

from pokersquares.harness.runner import RunSpec, record_run
from pokersquares.harness.store import ResultStore
from pokersquares.optimum import Optimum
from pokersquares.optimum.regret import regret_summary
from pokersquares.optimum.store import OptimaStore, solve_seeds
from pokersquares.points import AMERICAN, single_hand_system

FLUSH = single_hand_system("flush")


@pytest.fixture(scope="module")
def small_store(tmp_path_factory):
    """Greedy and random games on 2 deals under single:flush, and those deals' optima."""
    db = tmp_path_factory.mktemp("optima") / "store.sqlite"
    with ResultStore(db) as store:
        for player in ("greedy", "random"):
            record_run(RunSpec(player, FLUSH, 2, seed=0, time_per_game=5, prep_time=0), store, workers=1)
    solve_seeds([0, 1], FLUSH, db=db, time_limit=60)
    return db


@pytest.fixture
def games_store(tmp_path):
    """Two greedy games under single:flush in a store that holds no optima."""
    games = tmp_path / "games.sqlite"
    with ResultStore(games) as store:
        record_run(RunSpec("greedy", FLUSH, 2, seed=0, time_per_game=5, prep_time=0), store, workers=1)
    return games


def test_every_stored_game_is_at_most_its_optimum(small_store):
    with ResultStore(small_store, readonly=True) as games, OptimaStore(small_store) as optima:
        runs = games.runs()
        assert len(runs) == 2
        for run in runs:
            known = optima.many([0, 1], run.points)
            assert set(known) == {0, 1}
            for record in games.games(run.run_id):
                assert record.score <= known[record.seed].bound
                assert known[record.seed].proven  # single:flush deals are proven quickly
                assert record.score <= known[record.seed].score


def test_second_call_answers_from_the_store(small_store, monkeypatch):
    import pokersquares.optimum as optimum
    monkeypatch.setattr(optimum, "solve_seed", lambda *a, **k: pytest.fail("solved again"))
    done = solve_seeds([0, 1], FLUSH, db=small_store, time_limit=60)
    assert sorted(done) == [0, 1]


def test_check_command_passes_and_catches_a_score_above_the_bound(small_store, tmp_path, cli):
    code, out, err = cli("optimum", "--check", "--db", small_store, "--json")
    assert code == 0, err
    assert json.loads(out)["checked"] == 4 and json.loads(out)["over_bound"] == 0
    # a store whose optimum claims a bound below a recorded game's score must fail the check
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(small_store.read_bytes())
    with OptimaStore(bad) as optima:
        optima.conn.execute("UPDATE optima SET bound = -1, score = -1")
        optima.conn.commit()
    with ResultStore(bad) as store:
        store.conn.execute("UPDATE games SET score = 0")
        store.conn.commit()
    code, out, err = cli("optimum", "--check", "--db", bad)
    assert code == 1 and "above the proven" in out + err or "> proven bound" in out


def test_unproven_answers_are_resolved_under_a_longer_limit(tmp_path):
    opt = Optimum(7, "American", AMERICAN.points, 150, 170, False, list(range(25)), 1.0, 150)
    with OptimaStore(tmp_path / "s.sqlite") as store:
        store.put(opt, time_limit=1.0)
        assert store.get(7, AMERICAN.points, time_limit=1.0).score == 150
        assert store.get(7, AMERICAN.points, time_limit=5.0) is None
        assert store.get(7, FLUSH.points) is None


def test_a_better_stored_answer_is_never_replaced_by_a_worse_one(tmp_path):
    import dataclasses

    weak = Optimum(7, "American", AMERICAN.points, 150, 1000, False, list(range(25)), 3.0, 150)
    proven = dataclasses.replace(weak, score=225, bound=225, proven=True, seconds=20.0)
    with OptimaStore(tmp_path / "s.sqlite") as store:
        store.put(weak, time_limit=3.0)
        store.put(dataclasses.replace(weak, score=160), time_limit=5.0)  # a longer limit replaces it
        assert store.get(7, AMERICAN.points).score == 160
        store.put(dataclasses.replace(weak, score=140), time_limit=1.0)  # a shorter one does not
        assert store.get(7, AMERICAN.points).score == 160
        store.put(proven, time_limit=40.0)
        store.put(weak, time_limit=3.0)  # another process's short solve, finishing last
        store.put(dataclasses.replace(weak, score=200), time_limit=60.0)  # even a longer unproven one
        got = store.get(7, AMERICAN.points)
        assert (got.score, got.bound, got.proven) == (225, 225, True)


# The optima table as stores made before cpu_seconds and method were kept hold it.
_OLD_OPTIMA = """CREATE TABLE optima (seed INTEGER NOT NULL, points TEXT NOT NULL, system_name TEXT NOT NULL,
    score INTEGER NOT NULL, bound INTEGER NOT NULL, proven INTEGER NOT NULL, grid TEXT NOT NULL,
    seconds REAL NOT NULL, time_limit REAL NOT NULL, heuristic_score INTEGER NOT NULL, created REAL NOT NULL,
    PRIMARY KEY (seed, points))"""


def _open_optima(path, barrier, out):
    try:
        barrier.wait(60)
        OptimaStore(path).close()
        out.put(None)
    except Exception as e:  # reported to the test, which fails on it
        out.put(f"{type(e).__name__}: {e}")


def test_a_store_opened_read_only_refuses_an_optimum_in_words(tmp_path):
    """``put`` on a store opened read-only raised "'NoneType' object has no attribute
    'transaction'"; it says why, and the store is left as it was."""
    from pokersquares.harness.store import StoreError

    path = tmp_path / "o.sqlite"
    opt = Optimum(7, "American", AMERICAN.points, 150, 170, False, list(range(25)), 1.0, 150)
    with OptimaStore(path) as store:
        store.put(opt, 1.0)
    with OptimaStore(path, readonly=True) as store:
        with pytest.raises(StoreError, match=r"^the result store .*o\.sqlite was opened read-only: it stores no optimum$"):
            store.put(Optimum(8, "American", AMERICAN.points, 140, 160, False, list(range(25)), 1.0, 140), 1.0)
        assert store.get(7, AMERICAN.points).score == 150 and store.get(8, AMERICAN.points) is None


def test_optima_written_after_the_wal_files_were_deleted_are_not_lost(tmp_path):
    """The optima's writer had its own connection, without the result store's check of its
    -wal and -shm files: after a clean-up deleted them mid-run, its optima went to a log
    no other process saw, and were lost with it when another connection was open at its close."""
    import os

    path = tmp_path / "o.sqlite"
    written = OptimaStore(path)
    other = OptimaStore(path)  # open while the writer closes, as a results command would be
    try:
        for seed in range(3):
            if seed == 1:
                for suffix in ("-wal", "-shm"):
                    os.unlink(f"{path}{suffix}")
            written.put(Optimum(seed, "American", AMERICAN.points, 100 + seed, 100 + seed, True, [], 1.0, 100), 10)
        written.close()
        code = ("import sqlite3, sys\n"
                "c = sqlite3.connect(sys.argv[1], timeout=30)\n"
                "print(c.execute('SELECT seed, score FROM optima ORDER BY 1').fetchall())\n")
        seen = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120)
        assert seen.stdout.strip() == "[(0, 100), (1, 101), (2, 102)]", seen.stderr
    finally:
        other.close()
    with OptimaStore(path, readonly=True) as store:
        assert [store.get(s, AMERICAN.points).score for s in range(3)] == [100, 101, 102]


def test_processes_opening_an_older_store_at_once_each_open_it(tmp_path):
    """The web app solving a deal and `pokersquares optimum` opening a store of an older
    version at once: each adds the columns it lacks only if no other did meanwhile
    (not "duplicate column name", said as "not a readable result store")."""
    import multiprocessing as mp
    import sqlite3

    ctx = mp.get_context("fork")
    n = 8
    for attempt in range(12):
        path = tmp_path / f"old{attempt}.sqlite"
        ResultStore(path).close()
        with sqlite3.connect(path) as c:
            c.execute(_OLD_OPTIMA)
        c.close()
        barrier, out = ctx.Barrier(n), ctx.Queue()
        procs = [ctx.Process(target=_open_optima, args=(path, barrier, out)) for _ in range(n)]
        for p in procs:
            p.start()
        results = [out.get(timeout=120) for _ in procs]
        for p in procs:
            p.join(timeout=30)
        assert results == [None] * n
        with sqlite3.connect(path) as c:
            assert {"cpu_seconds", "method"} <= {row[1] for row in c.execute("PRAGMA table_info(optima)")}
        c.close()



def test_a_store_of_an_older_version_is_read_without_solving_again(tmp_path, monkeypatch):
    """A store written before CPU seconds and the method were recorded, read as it is:
    `results --optima` and `optimum --check` said "no such column: cpu_seconds", and
    `optimum --seeds` took its deals for missing and solved every one again."""
    import sqlite3

    import pokersquares.optimum as optimum
    from pokersquares.cards import deal
    from pokersquares.optimum.search import grid_score
    from pokersquares.optimum.store import optima_from

    grid = [int(c) for c in deal(0)[:25]]
    score = grid_score(grid, FLUSH.points)
    path = tmp_path / "old.sqlite"
    ResultStore(path).close()
    with sqlite3.connect(path) as c:
        c.execute(_OLD_OPTIMA)
        c.execute("INSERT INTO optima VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                  (0, json.dumps(list(FLUSH.points)), FLUSH.name, score, 10, 0, json.dumps(grid), 1.5, 60.0, score, 0.0))
    c.close()
    with OptimaStore(path, readonly=True) as store:
        opt = store.get(0, FLUSH.points)
    assert (opt.score, opt.bound, opt.proven, opt.cpu_seconds, opt.method) == (score, 10, False, None, "")
    assert optima_from([path], [0, 1], FLUSH.points)[0].score == score
    monkeypatch.setattr(optimum, "solve_seed", lambda *a, **k: pytest.fail("a stored deal solved again"))
    assert solve_seeds([0], FLUSH, db=path, time_limit=60)[0].grid == grid


def test_a_file_of_optima_only_from_the_first_release_is_read_and_written(tmp_path, monkeypatch):
    """The first release of `pokersquares optimum` wrote a new --db file with its optima
    table alone (no runs, no games): every command took that file for someone else's
    SQLite file ("not a pokersquares result store; not touching it"): optimum --seeds,
    optimum --check, results --optima and compare --hands --optima all refused it."""
    import hashlib
    import sqlite3

    import pokersquares.optimum as optimum
    from pokersquares.cards import deal
    from pokersquares.harness.store import StoreError
    from pokersquares.optimum.search import grid_score
    from pokersquares.optimum.store import optima_from

    grid = [int(c) for c in deal(0)[:25]]
    score = grid_score(grid, FLUSH.points)
    path = tmp_path / "optima.sqlite"
    with sqlite3.connect(path) as c:  # as that release made it: the table and nothing else
        c.execute("PRAGMA journal_mode = WAL")
        c.execute(_OLD_OPTIMA)
        c.execute("INSERT INTO optima VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                  (0, json.dumps(list(FLUSH.points)), FLUSH.name, score, 10, 0, json.dumps(grid), 1.5, 60.0, score, 0.0))
    c.close()
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    with OptimaStore(path, readonly=True) as store:
        assert store.get(0, FLUSH.points).score == score
    assert optima_from([path], [0, 1], FLUSH.points)[0].grid == grid
    monkeypatch.setattr(optimum, "solve_seed", lambda *a, **k: pytest.fail("a stored deal solved again"))
    assert solve_seeds([0], FLUSH, db=path, time_limit=60)[0].grid == grid
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before  # only read
    with pytest.raises(StoreError, match="holds optima only .* give it as --optima"):
        ResultStore(path, readonly=True)
    with OptimaStore(path) as store:  # a writer makes a result store of it, its optima kept
        assert store.get(0, FLUSH.points).score == score
    with ResultStore(path, readonly=True) as store:
        assert store.runs() == []


def test_regret_summary():
    optima = {s: Optimum(s, "x", AMERICAN.points, o, o, True, [], 0.0, o) for s, o in [(0, 100), (1, 200), (2, 300)]}
    summary = regret_summary([(0, 50), (1, 100), (2, 150), (9, 10)], optima)
    assert summary["deals"] == 3
    assert summary["regret"] == pytest.approx(100.0)
    assert summary["fraction"] == pytest.approx(0.5)
    assert summary["fraction_stderr"] == pytest.approx(0.0)
    assert summary["regret_stderr"] == pytest.approx(28.8675, rel=1e-4)
    assert regret_summary([(5, 1)], optima) is None


def test_reports_show_regret_where_optima_exist(small_store, cli):
    code, out, err = cli("results", "--db", small_store)
    assert code == 0, err
    assert "greedy on Flush:" in out and "regret" in out and "2 proven" in out
    # the fixture's greedy run again, read back from the store: its report has the regret too
    code, out, err = cli("run", "--player", "greedy", "--games", "2", "--system", "single:flush", "--time-per-game", "5",
                         "--prep-time", "0", "--db", small_store, "--json")
    assert code == 0, err
    out = json.loads(out)
    assert out["optimum"]["deals"] == 2
    assert out["optimum"]["regret"] == pytest.approx(out["optimum"]["mean_optimum"] - out["mean"])


def test_results_reads_optima_from_another_store(small_store, games_store, tmp_path, cli):
    games = games_store

    def results(*args):
        return cli("results", "--db", games, *args)
    code, out, _ = results()
    assert code == 0 and "regret" not in out  # this store holds no optima
    code, out, err = results("--optima", small_store)
    assert code == 0, err
    assert "greedy on Flush:" in out and "2 proven" in out
    data = json.loads(results("--optima", small_store, "--json")[1])
    assert data["runs"][0]["optimum"]["deals"] == 2
    junk = tmp_path / "junk.sqlite"
    junk.write_text("not a database")
    for bad, says in ((tmp_path / "missing.sqlite", "no store of optima"), (junk, "is not a result store"),
                      (games, "holds no optima")):
        code, _, err = results("--optima", bad)
        assert code == 2 and says in err and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1


def test_results_reads_each_systems_optima_from_its_own_store(small_store, tmp_path, cli):
    """``--optima`` repeats: the deals' optima are gathered from every store given, and
    where two stores hold the same deal the proven optimum counts."""
    from pokersquares.optimum.regret import run_regrets
    first, second = tmp_path / "first.sqlite", tmp_path / "second.sqlite"
    with OptimaStore(small_store, readonly=True) as solved:  # deal 0 in the first store, both in the second
        optima = solved.many([0, 1], FLUSH.points)
    for path, seeds in ((first, [0]), (second, [0, 1])):
        with OptimaStore(path) as store:
            for seed in seeds:
                store.put(optima[seed], time_limit=60)
    with OptimaStore(second) as optima:  # deal 0 here: an unproven, lower best grid
        optima.conn.execute("UPDATE optima SET proven = 0, score = score - 1, bound = bound + 5 WHERE seed = 0")
        optima.conn.commit()
    with ResultStore(small_store, readonly=True) as games:
        runs = games.runs()
    only_first = run_regrets(small_store, runs, [first])
    both = run_regrets(small_store, runs, [second, first])
    together = run_regrets(small_store, runs, small_store)
    for run in runs:
        assert only_first[run.run_id]["deals"] == 1
        assert both[run.run_id]["deals"] == 2 and both[run.run_id]["proven"] == 2
        assert both[run.run_id]["regret"] == pytest.approx(together[run.run_id]["regret"])
    code, out, err = cli("results", "--db", small_store, "--optima", first, "--optima", second, "--json")
    assert code == 0, err
    assert {run["optimum"]["deals"] for run in json.loads(out)["runs"]} == {2}


def test_check_command_reads_optima_from_other_stores(small_store, games_store, tmp_path, cli):
    def check(*args):
        return cli("optimum", "--db", games_store, *args)
    code, out, err = check("--check", "--optima", small_store, "--json")
    assert code == 0, err
    assert json.loads(out)["checked"] == 2 and json.loads(out)["over_bound"] == 0
    assert json.loads(check("--check", "--json")[1])["checked"] == 0  # the games' own store holds no optima
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(small_store.read_bytes())
    with OptimaStore(bad) as optima:
        optima.conn.execute("UPDATE optima SET bound = -1, score = -1")
        optima.conn.commit()
    code, out, _ = check("--check", "--optima", bad, "--json")
    assert code == 1 and json.loads(out)["over_bound"] == 2
    for args, says in ((("--optima", small_store), "--optima goes with --check"),
                       (("--check", "--optima", tmp_path / "missing.sqlite"), "no store of optima")):
        code, _, err = check(*args)
        assert code == 2 and says in err and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1


def test_reading_a_finished_store_back_leaves_its_file_as_it_was(small_store, tmp_path, cli):
    """The documented read-back commands (the same command as the run) on a store kept in
    version control: every deal is there, so the file is only read, never switched to
    write-ahead logging or touched."""
    import sqlite3
    kept = tmp_path / "kept.sqlite"
    kept.write_bytes(small_store.read_bytes())
    with sqlite3.connect(kept) as conn:
        conn.execute("PRAGMA journal_mode=DELETE")
    before = kept.read_bytes()
    for args in (("--seeds", "0..1"), ("--seed", "1")):
        code, out, err = cli("optimum", *args, "--system", "single:flush", "--db", kept, "--json")
        assert code == 0, err
        assert json.loads(out)["proven"] in (True, 2)
        assert kept.read_bytes() == before
        assert not (tmp_path / "kept.sqlite-wal").exists()
    # a deal the store lacks is solved and stored as before
    code, out, err = cli("optimum", "--seeds", "0..2", "--system", "single:flush", "--db", kept, "--json")
    assert code == 0, err
    assert json.loads(out)["deals"] == 3
    with OptimaStore(kept, readonly=True) as optima:
        assert sorted(optima.many([0, 1, 2], FLUSH.points)) == [0, 1, 2]


def test_regret_lines_name_runs_and_systems_as_the_table_of_runs_does(tmp_path):
    """Two sets of ten points are both "custom": the table of runs says ``custom`` and
    ``custom (2)``, and the regret lines said ``greedy on custom`` twice."""
    from pokersquares.harness.store import GameRecord, ResultStore
    from pokersquares.cards import deal
    from pokersquares.optimum.regret import regret_lines
    from pokersquares.points import parse_point_system

    db = tmp_path / "r.sqlite"
    systems = [parse_point_system("0,0,0,0,0,0,0,0,0,1"), parse_point_system("0,0,0,0,0,0,0,0,0,2")]
    with ResultStore(db) as store:
        for ps in systems:
            run = store.open_run("greedy", "greedy", ps, 0, 1, 1.0, 0.0)
            store.add_games(run, [GameRecord(0, 0, 0, [], 0.0)])
        runs = store.runs()
    with OptimaStore(db) as optima:
        for ps in systems:
            optima.put(Optimum(0, ps.name, ps.points, 0, 0, True, [int(c) for c in deal(0)[:25]], 0.1, 0), 5.0)
    lines = regret_lines(db, runs)
    assert [line.split(":")[0] for line in lines] == ["run 1, greedy on custom", "run 2, greedy on custom (2)"]


def _slow_solve(seed, point_system, time_limit):
    import time
    time.sleep(30)


def test_a_signal_another_thread_receives_stops_the_solving_workers_at_once(monkeypatch):
    """The kernel may hand a Ctrl-C to any thread of the process (the pool's own threads
    among them), and Python handles it in the main thread only: the wait for the deal
    being solved then went on to its end (up to its time limit) before the command stopped."""
    import signal
    import threading
    import time

    import pokersquares.optimum as optimum
    from pokersquares.optimum import store as optimum_store

    monkeypatch.setattr(optimum, "solve_seed", _slow_solve)  # the forked workers' too
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    sent = []

    def ctrl_c_to_this_thread():
        sent.append(time.monotonic())
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)

    timer = threading.Timer(1.0, ctrl_c_to_this_thread)
    try:
        with pytest.raises(KeyboardInterrupt):
            timer.start()
            list(optimum_store._in_workers([0, 1], AMERICAN, 30.0, 2))
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert sent and time.monotonic() - sent[0] < 3.0, "the solving went on after the signal"


_UNDER_A_START_METHOD = """
import multiprocessing as mp, sys
from pokersquares.optimum.store import solve_seeds
from pokersquares.points import single_hand_system
if __name__ == "__main__":
    mp.set_start_method(sys.argv[1])
    solved = solve_seeds([0, 1], single_hand_system("flush"), db=sys.argv[2], time_limit=30, workers=2)
    print(sorted((seed, opt.score) for seed, opt in solved.items()))
"""


@pytest.mark.parametrize("method", ["forkserver", "spawn"])
def test_the_solving_workers_start_whatever_start_method_the_caller_set(tmp_path, method):
    """A program that set another start method (``forkserver``, Python 3.14's default on
    Linux, or ``spawn``) before solving in two workers: under ``forkserver`` the call never
    returned (each worker, the fork server's child, took its parent for dead and left; the
    pool started another in its place). It gives the optima one worker gives."""
    script = tmp_path / "solve.py"
    script.write_text(_UNDER_A_START_METHOD)
    done = subprocess.run([sys.executable, str(script), method, str(tmp_path / "o.sqlite")], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    one = solve_seeds([0, 1], FLUSH, db=tmp_path / "one.sqlite", time_limit=30)
    assert done.stdout.strip() == str(sorted((seed, opt.score) for seed, opt in one.items()))
