"""``pokersquares experiment tiger|gettysburg|beemo`` at tiny sizes: games go to the
result store, a rerun reads them back, JSON puts the paper's figure beside ours."""

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_words import experiment_words


def run(*args):
    return subprocess.run([sys.executable, "-m", "pokersquares", "experiment", *args], capture_output=True, text=True)


@pytest.fixture
def in_process(cli_here):
    """``run``, in this process (``cli_here``): for commands that stop before any game (a
    bad option) or read every game back from the store, where a new interpreter's
    start-up would be most of the test, and for tiger's, whose kernels are not parallel
    (its games are played in processes forked from this one). gettysburg and beemo learn
    with parallel kernels: their games are played by ``run``, in a process of its own."""
    def go(*args):
        return cli_here("experiment", *args)
    return go


def stored_games(db: Path) -> int:
    return sqlite3.connect(db).execute("SELECT COUNT(*) FROM games").fetchone()[0]


def test_tiger_records_its_runs_and_a_rerun_reads_them_back(tmp_path: Path, in_process):
    db, plot = tmp_path / "t.sqlite", tmp_path / "cp.png"
    args = ("tiger", "-n", "2", "--time-per-game", "0.3", "--prep-time", "1", "--rows", "1,12", "--cp", "1,141.4",
            "--plot", str(plot), "--db", str(db), "--json")
    r = in_process(*args)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert [row["paper"] for row in out["table3"]] == [92, 123]
    assert [row["spec"] for row in out["cp_sweep"]] == ["tiger:selection=uct,simulation=random,cp=1.0",
                                                       "tiger:selection=uct,simulation=random,cp=141.4"]
    rows = out["table3"] + out["cp_sweep"]
    assert all(row["games"] == 2 and row["run_id"] for row in rows) and plot.stat().st_size > 1000
    assert stored_games(db) == 8
    again = in_process(*args)
    assert again.returncode == 0, again.stderr
    assert [row["mean"] for row in json.loads(again.stdout)["table3"]] == [row["mean"] for row in out["table3"]]
    assert stored_games(db) == 8  # nothing replayed
    text = in_process(*args[:-1])
    assert "paper 92" in text.stdout and "(n=2, run " in text.stdout and stored_games(db) == 8


@pytest.mark.parametrize("args", [("--parts", "nope"), ("--rows", "13"), ("--cp", "x"), ("--backend", "mars"),
                                  ("--workers", "0"), ("--plot", "/nowhere/cp.png")])
def test_tiger_bad_options_exit_2_and_record_nothing(tmp_path: Path, args, in_process):
    db = tmp_path / "t.sqlite"
    r = in_process("tiger", "-n", "1", "--db", str(db), *args)
    assert r.returncode == 2 and "Traceback" not in r.stderr and r.stderr.startswith("error:"), (args, r.stderr)
    assert not db.exists() or stored_games(db) == 0


GETTYSBURG = ("gettysburg", "--systems", "american,two_pair", "--variants", "eps0=0.1,eps0=0.5+sizes",
              "--learn-games", "300", "--games", "12", "--search-systems", "british", "--searches",
              "expectimax,greedy", "--search-games", "3", "--time-per-game", "0.5")


def test_gettysburg_records_its_runs_and_a_rerun_reads_them_back(tmp_path: Path, in_process):
    db = tmp_path / "g.sqlite"
    args = (*GETTYSBURG, "--plot-dir", str(tmp_path), "--db", str(db), "--json")
    r = run(*args)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    rows = out["learning"]["rows"]
    assert [row["system"] for row in rows] == ["american", "two_pair"]
    for row in rows:
        norm = sorted(v["normalised"] for v in row["variants"].values())
        assert norm[0] in (0.0, 1.0) and norm[-1] == 1.0
        assert all(v["learn_games"] == 300 and v["games"] == 12 for v in row["variants"].values())
    assert out["search"]["evaluator"] == out["learning"]["best"] and "expectimax" in out["search"]["paper"]
    assert "eps0 = 0.5" in out["learning"]["paper"]
    searched = out["search"]["rows"][0]["searches"]
    assert set(searched) == {"expectimax", "greedy"} and "minus_first" in searched["greedy"]
    assert (tmp_path / "gettysburg-learning.png").stat().st_size > 1000
    assert (tmp_path / "gettysburg-search.png").stat().st_size > 1000
    assert stored_games(db) == 2 * 2 * 12 + 2 * 3
    again = json.loads(in_process(*args).stdout)
    assert again["learning"]["rows"] == rows and again["search"]["rows"] == out["search"]["rows"]
    assert stored_games(db) == 2 * 2 * 12 + 2 * 3


def test_an_experiment_with_a_secret_replays_in_a_fresh_store(tmp_path: Path, in_process):
    """`experiment ...` took no --secret: gettysburg's fixed-work runs (2,000 learning
    games, greedy) played other games in every fresh store. The same --secret plays the
    same games in any store; a store holding the runs under another secret refuses."""
    args = ("gettysburg", "--part", "search", "--search-systems", "american", "--searches", "greedy",
            "--search-games", "4", "--learn-games", "300", "--evaluator", "eps0=0.5", "--time-per-game", "1",
            "--plot-dir", str(tmp_path), "--json")

    def scores(db, *more):
        done = run(*args, "--db", str(tmp_path / db), *more)
        assert done.returncode == 0, done.stderr
        with sqlite3.connect(tmp_path / db) as conn:
            return conn.execute("SELECT r.player, r.secret, g.score FROM games g JOIN runs r USING (run_id) "
                                "ORDER BY g.run_id, g.game_index").fetchall()

    keyed = scores("a.sqlite", "--secret", "paper-2026")
    assert len(keyed) == 4 and {s for _, s, _ in keyed} == {"paper-2026"}
    assert scores("b.sqlite", "--secret", "paper-2026") == keyed
    assert {s for _, s, _ in scores("c.sqlite")} != {"paper-2026"}
    refused = in_process(*args, "--db", str(tmp_path / "c.sqlite"), "--secret", "paper-2026")
    assert refused.returncode == 2 and refused.stderr.strip().splitlines()[-1] == (
        f"error: {tmp_path / 'c.sqlite'} holds the run of {keyed[0][0]} on American played under another secret: its "
        "games would not be one run's with these; give another --db, or leave the secret out to resume it")
    assert stored_games(tmp_path / "c.sqlite") == 4


@pytest.mark.parametrize("command", ["tiger", "gettysburg", "beemo", "matrix"])
def test_every_experiment_takes_a_secret_checked_before_the_store(tmp_path: Path, command, in_process):
    db = tmp_path / "x.sqlite"
    r = in_process(command, "--db", str(db), "--secret", "")
    assert r.returncode == 2 and r.stderr.strip() == (
        "error: --secret must be printable text of 1 to 256 characters, got ''"), r.stderr
    assert not db.exists()


@pytest.mark.parametrize("args", [("--part", "nope"), ("--systems", "pony"), ("--variants", "eps0=0.9"),
                                  ("--searches", "alphabeta"), ("--evaluator", "x"), ("--search-systems", "pony"),
                                  ("--search-systems", "british;1,2"), ("--search-systems", "british,british")])
def test_gettysburg_bad_options_exit_2(tmp_path: Path, args, in_process):
    r = in_process("gettysburg", "--db", str(tmp_path / "g.sqlite"), *args)
    assert r.returncode == 2 and "Traceback" not in r.stderr and r.stderr.startswith("error:"), (args, r.stderr)


@pytest.mark.parametrize("systems", ["american,American", "british; 0,1,3,6,12,5,10,16,30,30"])
def test_gettysburg_search_systems_spelled_two_ways_are_one_system(tmp_path: Path, systems, in_process):
    # One system written two ways is one run: it was shown as two rows and counted twice in the totals.
    db = tmp_path / "g.sqlite"
    r = in_process("gettysburg", "--part", "search", "--search-systems", systems, "--searches", "greedy",
                   "--learn-games", "100", "--search-games", "2", "--time-per-game", "0.1", "--db", str(db),
                   "--plot-dir", str(tmp_path))
    assert r.returncode == 2 and r.stderr.startswith("error: --search-systems gives one point system twice ("), r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not db.exists()


def test_beemo_records_its_runs_and_a_rerun_reads_them_back(tmp_path: Path, in_process):
    db = tmp_path / "b.sqlite"
    args = ("beemo", "--prep-time", "0.5", "--games", "60", "--mc-games", "2", "--playouts", "5",
            "--systems", "american", "--configs", "feedback,beemo", "--db", str(db), "--json")
    r = run(*args)
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert [row["label"] for row in rows] == ["learning:feedback", "learning:beemo", "og", "flat_mc"]
    assert [row["spec"] for row in rows] == ["og:feedback=true,ucb_every=0", "og:feedback=true,ucb_every=3",
                                             "og:feedback=true,ucb_every=3", "beemo:playouts=5"]
    for row in rows:
        assert row["games"] == (2 if row["label"] == "flat_mc" else 60) and row["system"] == "American"
        assert row["paper"] is not None or row["label"] == "learning:beemo"  # the paper gives no figure
    assert rows[1]["run_id"] == rows[2]["run_id"] and rows[3]["details"]["og_on_same_deals"] is not None
    assert stored_games(db) == 60 + 60 + 2
    again = json.loads(in_process(*args).stdout)
    assert [row["mean"] for row in again] == [row["mean"] for row in rows] and stored_games(db) == 122


def test_beemo_bad_options_exit_2(tmp_path: Path, in_process):
    for args in (("--systems", "nowhere"), ("--configs", "x"), ("--playouts", "0"),
                 ("--load", str(tmp_path / "missing.json"))):
        r = in_process("beemo", "--db", str(tmp_path / "b.sqlite"), *args)
        assert r.returncode == 2 and r.stderr.startswith("error:") and "Traceback" not in r.stderr, (args, r.stderr)


def test_beemo_a_hostile_table_to_load_is_one_line_before_any_game(tmp_path: Path, in_process):
    """A table with points of 1e400 (infinity to json) or nested past the parser's depth was
    an "internal error" (OverflowError, RecursionError); one with NaN utilities was played."""
    head = ('{"format": "pokersquares-pattern-utilities", "version": 1, "encoding": "beemo16", '
            '"encoding_version": 1, "point_system": {"points": [0, 2, 5, 10, 15, 20, 25, 50, 75, 100]}, ')
    tables = {"infinite.json": head.replace("[0, 2", "[1e400, 2") + '"patterns": []}',
              "deep.json": "[" * 100_000 + "]" * 100_000,
              "nan.json": head + '"patterns": [[6, NaN, 3]]}'}
    for name, text in tables.items():
        (tmp_path / name).write_text(text)
        r = in_process("beemo", "--db", str(tmp_path / "b.sqlite"), "--systems", "american", "--configs", "beemo",
                "--load", str(tmp_path / name))
        assert r.returncode == 2 and r.stderr.startswith("error:") and r.stderr.count("\n") == 1, (name, r.stderr)
        assert name in r.stderr and not (tmp_path / "b.sqlite").exists()


def test_beemo_load_keeps_the_path_as_written_and_refuses_a_comma(tmp_path: Path, in_process):
    """The table's path went into the player specs lowercased (a file Table.json was "no
    such file" on a case-sensitive disk); a comma in it would part the spec's parameters."""
    from pokersquares.experiments.beemo import flat_mc_spec, og_spec
    assert og_spec("beemo", "/T/Table.json") == "og:load=/T/Table.json"
    assert flat_mc_spec(5, load="/T/Table.json") == "beemo:playouts=5,load=/T/Table.json"
    assert flat_mc_spec(5, paired=False) == "beemo:playouts=5,paired=false"
    (tmp_path / "a,b").mkdir()
    (tmp_path / "a,b" / "t.json").write_text("{}")
    r = in_process("beemo", "--db", str(tmp_path / "b.sqlite"), "--systems", "american", "--configs", "beemo",
            "--load", str(tmp_path / "a,b" / "t.json"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "comma" in r.stderr, r.stderr
    assert not (tmp_path / "b.sqlite").exists()


def strict_json(text: str):
    """JSON as the standard has it: NaN and Infinity are not JSON."""
    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")
    return json.loads(text, parse_constant=refuse)


def test_one_game_a_row_is_valid_json_and_says_no_standard_error(tmp_path: Path, in_process):
    """A row of one game has no standard error: null in JSON (NaN is not JSON), '-' in the table."""
    db = tmp_path / "t.sqlite"
    args = ("tiger", "-n", "1", "--parts", "table3", "--rows", "1", "--time-per-game", "0.2", "--prep-time", "0",
            "--db", str(db))
    r = in_process(*args, "--json")
    assert r.returncode == 0, r.stderr
    row = strict_json(r.stdout)["table3"][0]
    assert row["games"] == 1 and row["stderr"] is None
    text = in_process(*args, "-q")
    assert text.returncode == 0 and "nan" not in text.stdout and "± -" in text.stdout, text.stdout


SMALL = {
    "gettysburg": ("gettysburg", "--learn-games", "50", "--games", "2", "--search-games", "2", "--time-per-game",
                   "0.2", "--systems", "american", "--variants", "eps0=0.5", "--searches", "greedy",
                   "--search-systems", "american"),
    "beemo": ("beemo", "--prep-time", "0.35", "--games", "2", "--mc-games", "0", "--systems", "american",
              "--configs", "feedback", "--time-per-game", "0.2"),
    "matrix": ("matrix", "-n", "2", "--evaluators", "narl", "--searches", "greedy", "--systems", "american",
               "--time-per-game", "0.2", "--prep-time", "0.35"),
    "tiger": ("tiger", "-n", "1", "--parts", "cp", "--cp", "1", "--time-per-game", "0.2", "--prep-time", "0"),
}


@pytest.mark.parametrize("command, args, says", [
    # an empty list ran everything (beemo), crashed after opening the store (gettysburg) or printed an empty table
    ("gettysburg", ("--systems", ","), "--systems"),
    ("gettysburg", ("--variants", ","), "--variants"),
    ("gettysburg", ("--searches", ","), "--searches"),
    ("gettysburg", ("--search-systems", ","), "--search-systems"),
    ("beemo", ("--systems", ","), "--systems"),
    ("beemo", ("--configs", ","), "--configs"),
    ("matrix", ("--searches", ","), "--searches"),
    # a name given twice was played once and shown twice, or put the table's columns out of line
    ("gettysburg", ("--variants", "eps0=0.5,eps0=0.5"), "twice"),
    ("gettysburg", ("--systems", "american,american"), "twice"),
    ("beemo", ("--configs", "feedback,feedback"), "twice"),
    ("matrix", ("--evaluators", "narl,narl"), "twice"),
    ("matrix", ("--searches", "greedy,mcts,mcts"), "twice"),
    ("tiger", ("--cp", "1,1.0"), "twice"),
    ("tiger", ("--parts", "table3,table3", "--rows", "1"), "twice"),
    # an option the chosen parts never use, silently ignored
    ("tiger", ("--rows", "1"), "--rows"),
    ("beemo", ("--load", "{tmp}/t.json"), "--load"),
    # a count that would keep the command drawing point systems before anything is checked
    ("gettysburg", ("--systems", "random", "--samples", "100000000"), "--samples"),
])
def test_empty_repeated_or_huge_lists_are_one_line_before_anything_runs(cli, tmp_path: Path, command, args, says):
    db = tmp_path / "x.sqlite"
    args = [a.format(tmp=tmp_path) for a in args]
    (tmp_path / "t.json").write_text("{}")
    plot = {"gettysburg": ("--plot-dir", str(tmp_path)), "beemo": ()}.get(command, ("--plot", str(tmp_path / "p.png")))
    # in this process: quick
    code, out, err = cli("experiment", *experiment_words(SMALL[command], *args), "--db", db, "-q", *plot)
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1, err
    assert says in err, err
    assert not db.exists()


HUGE = "1" + "0" * 30


@pytest.mark.parametrize("command, args, says", [
    # the search part's runs were made only once the learning part had played (and been stored)
    ("gettysburg", ("--search-games", HUGE), "--search-games"),
    ("gettysburg", ("--search-games", "200", "--seed", str(2 ** 63 - 100)), "--seed"),
    # the learners' players were made only once the store was opened; the error named no option
    ("gettysburg", ("--learn-games", HUGE), "--learn-games"),
    ("gettysburg", ("--games", "100000000"), "--games"),
    ("gettysburg", ("--time-per-game", "1e7"), "--time-per-game"),  # over the harness's limit
    ("beemo", ("--configs", "beemo", "--mc-games", "2", "--playouts", HUGE), "--playouts"),
    ("beemo", ("--configs", "beemo", "--mc-games", "2", "--seconds-per-move", "1e307"), "--seconds-per-move"),
    # int() took 1_0 and other scripts' digits as 10 and 1; inf is positive but not finite
    ("tiger", ("--parts", "table3", "--rows", "1_0"), "--rows"),
    ("tiger", ("--parts", "table3", "--rows", "\u0661"), "--rows"),
    ("tiger", ("--cp", "1_0"), "--cp"),
    ("tiger", ("--cp", "inf"), "positive finite numbers"),
    ("tiger", ("--cp", "1e309"), "positive finite numbers"),
])
def test_counts_seeds_and_numbers_out_of_range_name_their_option_before_anything_runs(cli, tmp_path: Path, command,
                                                                                      args, says):
    db = tmp_path / "x.sqlite"
    plot = ("--plot-dir", str(tmp_path)) if command == "gettysburg" else () if command == "beemo" else (
        "--plot", str(tmp_path / "p.png"))
    # in this process: quick
    code, out, err = cli("experiment", *experiment_words(SMALL[command], *args), "--db", db, "-q", *plot)
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1, err
    assert says in err, err
    assert not db.exists()
