"""Files a command writes (exports, plots, tables, expected figures) and the stores and
addresses it uses are checked before any game is played, learning second spent or
benchmark run: a bad one is refused in one line with exit code 2, and nothing recorded
(a result store) is ever overwritten."""

from __future__ import annotations

import json
import socket
import sqlite3
from pathlib import Path

import pytest

from tests.cli_words import once_each

R = ["--prep-time", "0", "--time-per-game", "0.2", "-q"]
SWEEP = ["sweep", "--player", "greedy", "--param", "flush_weight=0,1", "--games", "1", *R]
TIGER = ["experiment", "tiger", "-n", "1", "--parts", "cp", "--cp", "1", *R]
MATRIX = ["experiment", "matrix", "-n", "2", "--evaluators", "narl", "--searches", "greedy", "--systems", "american",
          "--time-per-game", "0.2", "--prep-time", "0.35", "-q"]
TRAIN = ["train", "--player", "og", "--system", "american", "--prep-time", "0.2"]


def one_line_error(code, err, says=""):
    return code == 2 and err.startswith("error: ") and err.count("\n") == 1 and says in err


def runs_stored(db: Path) -> int:
    if not db.exists():
        return 0
    with sqlite3.connect(db) as c:
        return c.execute("SELECT COUNT(*) FROM games").fetchone()[0]


@pytest.fixture
def store(cli, tmp_path):
    """A result store with one game in it."""
    db = tmp_path / "a.sqlite"
    assert cli("run", "--player", "greedy", "--games", "1", *R, "--db", db)[0] == 0
    return db


# -- 1. a result store is never overwritten by an output ---------------------------------------


def test_results_export_never_overwrites_a_result_store(cli, store, tmp_path):
    before = store.read_bytes()
    code, out, err = cli("results", "--db", store, "--export", "csv", "--out", store)
    assert one_line_error(code, err, "is the result store (--db)"), err
    other = tmp_path / "b.sqlite"
    other.write_bytes(before)
    code, out, err = cli("results", "--db", store, "--export", "json", "--out", other)
    assert one_line_error(code, err, "is an SQLite file"), err
    assert store.read_bytes() == before and other.read_bytes() == before
    code, out, err = cli("results", "--db", store, "--export", "csv", "--out", tmp_path / "games.csv")
    assert code == 0 and (tmp_path / "games.csv").read_text().count("\n") == 2


def test_an_output_that_is_a_pipe_or_a_device_is_refused_not_replaced(cli, store, tmp_path):
    """A pipe was opened to see whether it is a result store, and waited on for ever; a
    device (``--out /dev/null``) was replaced by a regular file, as the export is written
    beside its target and moved over it."""
    import os

    pipe = tmp_path / "pipe.csv"
    os.mkfifo(pipe)
    targets = [pipe]
    try:
        os.mknod(tmp_path / "null", 0o666 | __import__("stat").S_IFCHR, os.makedev(1, 3))  # as /dev/null
        targets.append(tmp_path / "null")
    except OSError:  # not root: /dev/null itself is what the user would name
        pass
    for target in targets:
        code, out, err = cli("results", "--db", store, "--export", "csv", "--out", target)
        assert one_line_error(code, err, "is not a regular file"), err
        assert not target.is_file() and target.exists()
    os.mkfifo(tmp_path / "pipe.json")
    code, out, err = cli(*TRAIN, "--out", tmp_path / "pipe.json")  # refused before it learns
    assert one_line_error(code, err, "--out") and "is not a regular file" in err, err
    assert not (tmp_path / "pipe.json").is_file()


def test_sweep_plot_is_not_its_store(cli, tmp_path):
    db = tmp_path / "sw.sqlite"
    code, out, err = cli(*SWEEP, "--db", db, "--plot", db)
    assert one_line_error(code, err, "is the result store (--db)"), err
    assert runs_stored(db) == 0


def test_train_never_replaces_a_result_store(cli, store):
    before = store.read_bytes()
    code, out, err = cli(*TRAIN, "--out", store)
    assert one_line_error(code, err, "is an SQLite file"), err
    assert store.read_bytes() == before


# -- 2. output paths are checked before the work -----------------------------------------------

needs_proc = pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs /proc (a folder no file is made in)")


@needs_proc
def test_train_checks_its_output_before_learning(cli):
    code, out, err = cli(*TRAIN, "--out", "/proc/x.npz")
    assert one_line_error(code, err, "cannot write --out '/proc/x.npz'"), err  # one line: no learning said


@needs_proc
@pytest.mark.parametrize("command", [SWEEP, TIGER, MATRIX])
def test_plots_are_checked_before_any_game(cli, tmp_path, command):
    db = tmp_path / "r.sqlite"
    code, out, err = cli(*command, "--db", db, "--plot", "/proc/x.png")
    assert one_line_error(code, err, "cannot write --plot '/proc/x.png'"), err
    assert runs_stored(db) == 0


@pytest.mark.parametrize("command", [TIGER, MATRIX])
@pytest.mark.parametrize("plot,says", [("other.sqlite", "is an SQLite file"), ("x.jpg", "cannot write a plot as '.jpg'"),
                                       ("adir", "is a folder")])
def test_plot_names_refused_before_any_game(cli, store, tmp_path, command, plot, says):
    (tmp_path / "other.sqlite").write_bytes(store.read_bytes())
    (tmp_path / "adir").mkdir()
    db = tmp_path / "r.sqlite"
    code, out, err = cli(*command, "--db", db, "--plot", tmp_path / plot)
    assert one_line_error(code, err, says), err
    assert runs_stored(db) == 0 and not (tmp_path / "adir.png").exists()
    assert (tmp_path / "other.sqlite").read_bytes() == store.read_bytes()


def test_a_plot_without_suffix_is_a_png_of_that_name(cli, tmp_path):
    plot = tmp_path / "cp"
    code, out, err = cli(*TIGER, "--db", tmp_path / "r.sqlite", "--plot", plot)
    assert code == 0, err
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and not (tmp_path / "cp.png").exists()
    assert f"plot saved to {plot}" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cp", "r.sqlite"]  # no probe or temporary file left


def test_sweep_refuses_a_plot_format_it_cannot_write(cli, tmp_path):
    db = tmp_path / "r.sqlite"
    code, out, err = cli(*SWEEP, "--db", db, "--plot", tmp_path / "x.pdf")  # plot_sweep writes PNG only
    assert one_line_error(code, err, "cannot write a plot as '.pdf'"), err
    assert runs_stored(db) == 0


# -- 3. train takes any seed run takes ---------------------------------------------------------


def test_train_takes_a_negative_seed(cli, tmp_path):
    out = tmp_path / "t.json"
    code, stdout, err = cli(*TRAIN, "--seed", "-1", "--out", out, "--json")
    assert code == 0, err
    assert out.is_file() and json.loads(stdout)["out"] == str(out)


# -- 4. bench: --expected and --update checked before any benchmark ----------------------------


@pytest.fixture
def no_benchmark(monkeypatch):
    import pokersquares.bench
    import pokersquares.strength

    def ran(*args, **kwargs):
        raise AssertionError("a benchmark ran")

    monkeypatch.setattr(pokersquares.strength, "run_strength", ran)
    monkeypatch.setattr(pokersquares.bench, "run_benchmarks", ran)


@pytest.mark.parametrize("expected,says", [("adir", "is a folder"), ("garb.npz", "not a JSON"),
                                           ("missing.json", "no expected figures at"),
                                           # waited on for ever, and an "internal error: RecursionError"
                                           ("pipe.json", "is not a regular file"), ("deep.json", "not a JSON")])
def test_bench_expected_is_checked_before_benchmarks(cli, tmp_path, no_benchmark, expected, says):
    import os

    (tmp_path / "adir").mkdir()
    (tmp_path / "garb.npz").write_bytes(b"PK\x03\x04\x00\xff binary")
    os.mkfifo(tmp_path / "pipe.json")
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    code, out, err = cli("bench", "--strength", "--expected", tmp_path / expected)
    assert one_line_error(code, err, says), err


@pytest.mark.parametrize("update", [[], ["--update"]])
def test_bench_default_expected_outside_the_repository_says_where_the_file_is(cli, tmp_path, monkeypatch,
                                                                              no_benchmark, update):
    """The default --expected is relative to the current folder: from anywhere but the
    repository's root (a wheel install) the error says so and what to do."""
    monkeypatch.chdir(tmp_path)
    code, out, err = cli("bench", "--strength", *update)
    assert one_line_error(code, err, "no expected figures at 'benchmarks/strength_expected.json': the file is in "
                          "the repository's benchmarks/ folder; run from the repository root or give --expected FILE"), err
    assert not (tmp_path / "benchmarks").exists()


def test_bench_update_goes_with_strength(cli, no_benchmark):
    code, out, err = cli("bench", "--update")
    assert one_line_error(code, err, "--update goes with --strength"), err


def test_bench_update_creates_a_missing_expected_file(cli, tmp_path, monkeypatch):
    import pokersquares.strength

    monkeypatch.setattr(pokersquares.strength, "run_strength", lambda only, progress=None: {
        "og": {"mean": 116.0, "se": 0.8}})
    path = tmp_path / "expected.json"
    code, out, err = cli("bench", "--strength", "--update", "--expected", path, "--json")
    assert code == 0, err
    assert json.loads(path.read_text()) == {"og": {"mean": 116.0, "se": 0.8}}


def test_bench_update_interrupted_mid_write_leaves_the_old_figures_whole(cli, tmp_path, monkeypatch):
    """A write that fails halfway (a full disk) leaves the expected figures as they were,
    and no partial file beside them."""
    import errno

    import pokersquares.strength

    monkeypatch.setattr(pokersquares.strength, "run_strength", lambda only, progress=None: {
        "og": {"mean": 116.0, "se": 0.8}})
    path = tmp_path / "expected.json"
    old = json.dumps({"og": {"mean": 117.0, "se": 0.5}, "greedy": {"mean": 90.0, "se": 1.0}}, indent=1) + "\n"
    path.write_text(old)
    write_text, write_bytes = Path.write_text, Path.write_bytes

    def half_text(self, data, *args, **kwargs):
        write_text(self, data[:len(data) // 2], *args, **kwargs)
        raise OSError(errno.ENOSPC, "No space left on device")

    def half_bytes(self, data):
        write_bytes(self, data[:len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_text", half_text)
    monkeypatch.setattr(Path, "write_bytes", half_bytes)
    code, out, err = cli("bench", "--strength", "--update", "--expected", path, "--json")
    monkeypatch.undo()
    assert one_line_error(code, err, "cannot write --expected"), err
    assert path.read_text() == old
    assert [p.name for p in tmp_path.iterdir()] == ["expected.json"]


# -- 5. demo and serve check their store (and serve its address) first -------------------------


@pytest.mark.parametrize("kind", ["folder", "foreign"])
def test_demo_checks_its_store_before_compiling(cli, tmp_path, monkeypatch, kind):
    import pokersquares.cli.demo as demo

    def compiled(*args, **kwargs):
        raise AssertionError("compiled the agents")

    monkeypatch.setattr(demo, "warm_up_players", compiled)
    db = tmp_path / "adir"
    if kind == "folder":
        db.mkdir()
    else:
        db = tmp_path / "foreign.sqlite"
        with sqlite3.connect(db) as c:
            c.execute("CREATE TABLE t (x)")
    code, out, err = cli("demo", "--players", "greedy", "--games", "1", "--db", db)
    assert one_line_error(code, err), err
    assert "Compiling" not in out


@pytest.mark.parametrize("kind", ["folder", "not sqlite", "/proc", "bad host", "bad address", "port in use"])
def test_serve_checks_store_host_and_port_before_it_starts(cli, tmp_path, served_apps, kind):
    args = ["--warm", "", "--db", tmp_path / "r.sqlite"]
    listening = None
    if kind == "folder":
        (tmp_path / "adir").mkdir()
        args += ["--db", tmp_path / "adir"]
    elif kind == "not sqlite":
        (tmp_path / "n.sqlite").write_text("not a database " * 10)
        args += ["--db", tmp_path / "n.sqlite"]
    elif kind == "/proc":
        if not Path("/proc/self").exists():
            pytest.skip("needs /proc")
        args += ["--db", "/proc/x.sqlite"]
    elif kind == "bad host":
        args += ["--host", "bogus..host"]
    elif kind == "bad address":
        args += ["--host", "999.999.1.1"]
    else:
        listening = socket.socket()
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        args += ["--port", listening.getsockname()[1]]
    try:
        code, out, err = cli("serve", *once_each(["serve"], args[:4], *args[4:]))  # each option once
    finally:
        if listening is not None:
            listening.close()
    assert one_line_error(code, err), err
    assert "Poker Squares at" not in out and served_apps == []
    assert not (tmp_path / "r.sqlite").exists()


def test_serve_still_starts_with_a_store_yet_to_be_made(cli, tmp_path, served_apps):
    code, out, err = cli("serve", "--warm", "", "--port", _free_port(), "--db", tmp_path / "new.sqlite")
    assert code == 0, err
    assert len(served_apps) == 1 and "Poker Squares at" in out
    assert not (tmp_path / "new.sqlite").exists()  # the server makes it when it records


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# -- 6. results --out needs --export -----------------------------------------------------------


def test_results_out_without_export_is_an_error(cli, store, tmp_path):
    code, out, err = cli("results", "--db", store, "--out", tmp_path / "x.csv")
    assert one_line_error(code, err, "--out goes with --export"), err
    assert not (tmp_path / "x.csv").exists()


# -- 7. a plot is written whole or not at all ---------------------------------------------------


def _half_written(path, *args, **kwargs):
    Path(path).write_bytes(b"half a plot")
    raise KeyboardInterrupt  # Ctrl-C while the plot is written


def test_an_interrupted_sweep_plot_leaves_the_old_plot_whole(cli, tmp_path, monkeypatch):
    import pokersquares.cli.sweep
    import pokersquares.experiments.sweep

    plot = tmp_path / "sweep.png"
    plot.write_bytes(b"the old plot")
    monkeypatch.setattr(pokersquares.cli.sweep, "plot_sweep", lambda rows, path, title: _half_written(path),
                        raising=False)
    monkeypatch.setattr(pokersquares.experiments.sweep, "plot_sweep",
                        lambda rows, path, title: _half_written(path))
    code, out, err = cli(*SWEEP, "--db", tmp_path / "r.sqlite", "--plot", plot)
    assert code == 130 and "interrupted" in err, err
    assert plot.read_bytes() == b"the old plot"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.sqlite", "sweep.png"]  # no half plot left beside it


def test_an_interrupted_gettysburg_plot_leaves_the_old_plot_whole(cli, tmp_path, monkeypatch):
    import pokersquares.experiments.gettysburg

    plot = tmp_path / "gettysburg-search.png"
    plot.write_bytes(b"the old plot")
    monkeypatch.setattr(pokersquares.experiments.gettysburg, "plot_search", lambda result, path: _half_written(path))
    code, out, err = cli("experiment", "gettysburg", "--part", "search", "--searches", "greedy", "--search-games", "2",
                         "--learn-games", "50", "--search-systems", "american", "--time-per-game", "0.2", "-q",
                         "--plot-dir", tmp_path, "--db", tmp_path / "r.sqlite")
    assert code == 130 and "interrupted" in err, err
    assert plot.read_bytes() == b"the old plot"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gettysburg-search.png", "r.sqlite"]
