import json
import subprocess
import sys

import pytest

from pokersquares.cards import deal_names


@pytest.fixture
def run(cli_here):
    """``pokersquares optimum ARGS`` in this process (``cli_here``)."""
    def go(*args):
        return cli_here("optimum", *args)
    return go


def test_one_deal_json(run):
    r = run("--seed", "2", "--system", "single:flush", "--time-limit", "60", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert {"seed", "system", "score", "bound", "proven", "grid", "seconds"} <= set(out)
    assert out["seed"] == 2 and out["proven"] and out["score"] == out["bound"]
    assert sorted(out["grid"]) == sorted(deal_names(2)[:25])


@pytest.mark.parametrize("args", [
    ("--seed", "1", "--system", "pony"),
    ("--seed", "1", "--time-limit", "0"),
    ("--seed", "1", "--time-limit", "-3"),
    ("--seeds", "5..2", "--db", "x.sqlite"),
    ("--seeds", "a..b", "--db", "x.sqlite"),
    ("--seeds", "1_000", "--db", "x.sqlite"),
    ("--seeds", "0,1_0", "--db", "x.sqlite"),
    ("--seeds", "0..3"),
    ("--seed", "1", "--seeds", "2..3", "--db", "x.sqlite"),
    ("--check",),
    ("--seed", "1", "--backend", "spark"),
    ("--seed", "1", "--system", "single:flush", "--address", "head:6379"),  # --address is for --backend ray
])
def test_bad_input_is_one_line_exit_2(args, tmp_path, monkeypatch, cli):
    monkeypatch.chdir(tmp_path)
    code, _, err = cli("optimum", *args)
    assert code == 2
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "x.sqlite").exists()


def test_a_seed_that_is_not_a_number(run):
    r = run("--seed", "abc")
    assert r.returncode == 2 and "Traceback" not in r.stderr and "--seed" in r.stderr


def test_the_workers_are_never_more_than_the_deals(tmp_path, monkeypatch):
    """``--workers 100000`` for two deals starts two processes, not a hundred thousand."""
    import multiprocessing

    from pokersquares import AMERICAN
    from pokersquares.optimum import store as optimum_store

    sizes = []
    real = multiprocessing.get_context

    class Context:
        def __init__(self):
            self.ctx = real()

        def Pool(self, n, **kw):
            sizes.append(n)
            assert n <= 2, f"a pool of {n} processes for 2 deals"  # never start them
            return self.ctx.Pool(n, **kw)

    monkeypatch.setattr(multiprocessing, "get_context", lambda *a: Context())
    solved = list(optimum_store._in_workers([0, 1], AMERICAN, 1.0, 100_000))
    assert sizes == [2] and len(solved) == 2


@pytest.mark.parametrize("args", [("--seed", "1"), ("--seeds", "0..1")])
def test_a_store_that_is_not_sqlite_is_one_line_and_left_as_it_was(tmp_path, args, run):
    junk = tmp_path / "junk.sqlite"
    junk.write_text("not a database " * 10)
    r = run(*args, "--system", "single:flush", "--time-limit", "5", "--db", str(junk))
    assert r.returncode == 2 and r.stderr.startswith("error: ") and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "not a readable result store" in r.stderr and "internal error" not in r.stderr
    assert junk.read_text() == "not a database " * 10


@pytest.mark.parametrize("args", [("--seed", "1", "--system", "single:flush", "--time-limit", "5", "--db", "{pipe}"),
                                  ("--check", "--db", "{store}", "--optima", "{pipe}")])
def test_a_store_that_is_a_pipe_is_one_line_not_waited_on(cli, tmp_path, args):
    """sqlite's first read of a named pipe waited for a writer for ever."""
    import os

    pipe, store = tmp_path / "pipe.sqlite", tmp_path / "r.sqlite"
    os.mkfifo(pipe)
    assert cli("run", "--player", "random", "--games", "1", "--prep-time", "0", "--time-per-game", "1", "-q",
               "--db", store)[0] == 0
    r = subprocess.run([sys.executable, "-m", "pokersquares", "optimum",
                        *(a.format(pipe=pipe, store=store) for a in args)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.startswith("error: ") and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert str(pipe) in r.stderr and "not a" in r.stderr


@pytest.mark.parametrize("limit", ["inf", "1e300"])
def test_a_time_limit_that_is_not_finite_or_absurd_is_refused(limit, run):
    r = run("--seed", "1", "--system", "single:flush", "--time-limit", limit)
    assert r.returncode == 2 and r.stderr.startswith("error: --time-limit") and r.stdout == "", r.stderr


@pytest.mark.parametrize("extra", [("--seed", "1"), ("--seeds", "0..3")])
def test_check_refuses_seeds_it_would_ignore(cli, tmp_path, extra):
    db = tmp_path / "r.sqlite"
    assert cli("run", "--player", "greedy", "--games", "1", "--prep-time", "0", "--time-per-game", "1", "-q",
               "--db", db)[0] == 0
    code, out, err = cli("optimum", "--check", "--db", db, *extra)
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1 and "--check" in err, err
    assert out == ""


@pytest.mark.parametrize("args", [("--seed", "0"), ("--seeds", "0..0")])
@pytest.mark.parametrize("grid", ["[1, 2, 3]", "null", "[1, 2", "another deal"])
def test_a_stored_optimum_edited_by_hand_is_one_line(cli, tmp_path, args, grid):
    """A grid of three cards, or another deal's, was printed as the deal's best grid,
    exit 0; one that is no list or no JSON met a bare TypeError or JSONDecodeError."""
    import sqlite3

    from pokersquares.cards import deal
    from pokersquares.optimum import Optimum
    from pokersquares.optimum.store import OptimaStore
    from pokersquares.points import AMERICAN

    db = tmp_path / "o.sqlite"
    with OptimaStore(db) as store:
        store.put(Optimum(0, "American", AMERICAN.points, 150, 150, True, [int(c) for c in deal(0)[:25]], 1.0, 150),
                  5.0)
    conn = sqlite3.connect(db)
    with conn:
        if grid == "another deal":
            grid = json.dumps([int(c) for c in deal(1)[:25]])
        conn.execute("UPDATE optima SET grid = ? WHERE seed = 0", (grid,))
    conn.close()
    code, out, err = cli("optimum", *args, "--system", "american", "--time-limit", "5", "--db", db)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith("error: ") and "deal 0 is damaged" in err


def test_check_reads_the_games_scores_not_their_moves(cli, tmp_path):
    """Every game's moves were read and held (gigabytes for a run of millions), and a move
    list the check never needs, damaged, ended it in an internal error."""
    import sqlite3

    from pokersquares.cards import deal
    from pokersquares.optimum import Optimum
    from pokersquares.optimum.store import OptimaStore
    from pokersquares.points import AMERICAN

    db = tmp_path / "r.sqlite"
    assert cli("run", "--player", "greedy", "--games", "2", "--seed", "0", "--prep-time", "0",
               "--time-per-game", "5", "-q", "--db", db)[0] == 0
    with OptimaStore(db) as store:
        for seed in (0, 1):
            store.put(Optimum(seed, "American", AMERICAN.points, 0, 0, False, [int(c) for c in deal(seed)[:25]],
                              1.0, 0), 5.0)
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("UPDATE games SET placements = '[[1, 2' WHERE seed = 1")
    conn.close()
    code, out, err = cli("optimum", "--check", "--db", db, "--json")
    assert code == 1 and "internal error" not in err, err  # greedy scores above a bound of 0
    assert json.loads(out)["checked"] == 2 and json.loads(out)["over_bound"] == 2


def test_check_against_optima_edited_by_hand_is_one_line(cli, tmp_path):
    import sqlite3

    from pokersquares.optimum.store import OptimaStore

    db, optima = tmp_path / "r.sqlite", tmp_path / "o.sqlite"
    assert cli("run", "--player", "greedy", "--games", "1", "--prep-time", "0", "--time-per-game", "5", "-q",
               "--db", db)[0] == 0
    OptimaStore(optima).close()
    conn = sqlite3.connect(optima)
    with conn:
        conn.execute("INSERT INTO optima (seed, points, system_name, score, bound, proven, grid, seconds, time_limit, "
                     "heuristic_score, created) VALUES (0, '[1, 2', 'American', 0, 0, 1, '[]', 0, 0, 0, 0)")
    conn.close()
    code, out, err = cli("optimum", "--check", "--db", db, "--optima", optima)
    assert code == 2 and out == "" and err.startswith("error: ") and err.count("\n") == 1, err
    assert "damaged" in err


def test_an_unreachable_ray_cluster_is_said_before_the_store_is_made(cli, tmp_path):
    """The store file was created (empty) before the cluster was found unreachable."""
    pytest.importorskip("ray")
    db = tmp_path / "new.sqlite"
    code, out, err = cli("optimum", "--seeds", "0..1", "--system", "single:flush", "--time-limit", "1",
                         "--db", db, "--backend", "ray", "--address", "127.0.0.1:1")
    assert code == 2 and out == "" and err.startswith("error: cannot reach the Ray cluster"), err
    assert not db.exists()


def test_a_deal_read_back_from_the_store_is_said_to_be(cli, tmp_path):
    """The same ``optimum --seed S --db`` twice: the second reads the stored optimum, and
    printed the first solve's seconds as if it had just solved it."""
    db = tmp_path / "o.sqlite"
    args = ("optimum", "--seed", "2", "--system", "single:flush", "--time-limit", "5", "--db", db)
    code, first, err = cli(*args)
    assert code in (0, None) and "stored" not in first.splitlines()[0], err
    code, again, err = cli(*args)
    assert code in (0, None) and f"stored in {db} (solved in " in again.splitlines()[0], err
    code, out, err = cli(*args, "--json")
    assert json.loads(out)["stored"] is True


def test_one_deal_has_no_standard_error():
    """`optimum --seeds 3..3` printed "mean best grid 4.00 ± 0.00" (and --json 0.0): one
    deal has no spread to tell, as regret says it (no "± 0.00")."""
    from pokersquares.cli.optimum import format_summary, summarize
    from pokersquares.optimum import Optimum
    from pokersquares.points import single_hand_system

    flush = single_hand_system("flush")
    one = Optimum(3, flush.name, flush.points, 4, 4, True, list(range(25)), 1.0, 4)
    two = Optimum(4, flush.name, flush.points, 2, 3, False, list(range(25)), 2.0, 2)
    alone = summarize([one])
    assert alone["mean_score_stderr"] is None
    assert "mean best grid 4.00, mean bound 4.00" in format_summary(flush.name, alone)
    assert format_summary(flush.name, alone).startswith(f"{flush.name}: 1 deal, 1 proven optimal")
    both = summarize([one, two])
    assert both["mean_score_stderr"] == pytest.approx(1.0)
    assert "mean best grid 3.00 ± 1.00, mean bound 3.50" in format_summary(flush.name, both)
    assert format_summary(flush.name, both).startswith(f"{flush.name}: 2 deals, 1 proven optimal")


def _without_the_solvers(monkeypatch):
    """As if ``pip install pokersquares`` had not added the [optimum] extra."""
    for name in ("highspy", "ortools", "ortools.sat", "ortools.sat.python", "ortools.sat.python.cp_model"):
        monkeypatch.setitem(sys.modules, name, None)


@pytest.mark.parametrize("args, says", [
    (("--seeds", "0..x", "--system", "american"), "seeds are an integer, a range"),
    (("--seed", "1", "--system", "american", "--workers", "2"), "--workers goes with --seeds"),
    (("--seeds", "0..3", "--system", "american"), "--seeds needs --db"),
    (("--seed", "1", "--system", "pony"), "pony"),
])
def test_without_the_solvers_bad_arguments_are_said_first(cli, tmp_path, monkeypatch, args, says):
    """Every call was refused for the missing extra first: a mistyped range was said only
    after installing OR-Tools."""
    monkeypatch.chdir(tmp_path)
    _without_the_solvers(monkeypatch)
    code, _, err = cli("optimum", *args, "--db", "o.sqlite") if "needs --db" not in says else cli("optimum", *args)
    assert code == 2 and says in err and "pip install" not in err, err


def test_without_the_solvers_a_finished_store_is_read_and_a_deal_to_solve_names_the_extra(cli, tmp_path,
                                                                                          monkeypatch):
    """A store that holds every deal asked for (one kept in version control) was refused
    for the missing extra though nothing needed solving."""
    db = str(tmp_path / "o.sqlite")
    code, out, err = cli("optimum", "--seeds", "2..3", "--system", "single:flush", "--db", db, "--json")
    assert code == 0, err
    solved = json.loads(out)
    before = (tmp_path / "o.sqlite").read_bytes()
    _without_the_solvers(monkeypatch)
    code, out, err = cli("optimum", "--seeds", "2..3", "--system", "single:flush", "--db", db, "--json")
    assert code == 0, err
    assert json.loads(out)["optima"] == solved["optima"]
    code, out, err = cli("optimum", "--seed", "3", "--system", "single:flush", "--db", db)
    assert code == 0 and "stored" in out, err
    code, out, err = cli("optimum", "--seeds", "2..4", "--system", "single:flush", "--db", db)
    assert code == 2 and "pokersquares[optimum]" in err and out == "", (out, err)  # said before any deal's line
    assert (tmp_path / "o.sqlite").read_bytes() == before
