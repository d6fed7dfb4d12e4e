"""Every bad input a careful user tries is refused in one line with exit code 2, before
any game is played or learning second spent, and leaves nothing in the result store."""

import json
import sqlite3

import pytest


def stored(db) -> tuple[int, int]:
    if not db.exists():
        return 0, 0
    with sqlite3.connect(db) as c:
        return tuple(c.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("runs", "tournaments"))


R = ["--prep-time", "0", "--time-per-game", "1", "-q"]

BAD = {
    "unknown parameter": (["run", "--player", "greedy:foo=1", "--games", "2", *R], "takes no parameter 'foo'"),
    "missing file to load": (["run", "--player", "og:load=missing.json", "--games", "2", *R], "missing.json"),
    "missing priors": (["run", "--player", "pretrained:priors=missing", "--games", "1", *R],
                       "priors missing: no such file or folder"),
    "text for a number": (["run", "--player", "tiger:cp=abc", "--games", "1", *R], "cp of player 'tiger' takes a"),
    "text for cores": (["run", "--player", "beemo:cores=abc", "--games", "1", *R], "cores of player 'beemo'"),
    "time per game inf": (["run", "--player", "greedy", "--time-per-game", "inf", "--prep-time", "0"], "finite"),
    "time per game nan": (["run", "--player", "greedy", "--time-per-game", "nan", "--prep-time", "0"], "finite"),
    "time per game negative": (["run", "--player", "greedy", "--time-per-game", "-1", "--prep-time", "0"],
                               "more than 0"),
    "prep time inf": (["run", "--player", "greedy", "--time-per-game", "1", "--prep-time", "inf"], "finite"),
    "prep time 1e300": (["run", "--player", "greedy", "--time-per-game", "1", "--prep-time", "1e300"],
                        "over the limit"),
    "last seed past a Java long": (["run", "--player", "greedy", "--games", "3", "--seed", str(2 ** 63 - 2), *R],
                                   "the last game's seed"),
    "games huge": (["run", "--player", "greedy", "--games", "99999999999999999999", *R],
                   "--games must be from 1 to 10,000,000, got 99999999999999999999"),
    "games a billion": (["run", "--player", "greedy", "--games", "1000000000", *R], "--games must be from 1 to"),
    "games zero in a tournament": (["tournament", "--players", "greedy", "--systems", "american", "--games", "0", *R],
                                   "--games must be from 1 to"),
    "time per game zero named": (["run", "--player", "greedy", "--time-per-game", "0", "--prep-time", "0"],
                                 "--time-per-game must be more than 0 s, got 0"),
    "prep time negative named": (["play", "--player", "greedy", "--time-per-game", "1", "--prep-time", "-1"],
                                 "--prep-time must be at least 0 s, got -1"),
    "memory limit negative named": (["run", "--player", "greedy", "--memory-limit", "-1", *R],
                                    "--memory-limit must be a whole number of MB"),
    # Which of several players (or which setting of a sweep) a refusal is about, named.
    "one player of a tournament": (["tournament", "--players", "greedy,champion:depth=0", "--systems", "american",
                                    "--games", "1", *R], "--players champion:depth=0: depth must be"),
    "one setting of a sweep": (["sweep", "--player", "champion", "--param", "depth=2,0", "--games", "1", *R],
                               "--param champion:depth=0: depth must be"),
    "memory limit in GB by mistake": (["run", "--player", "greedy", "--memory-limit", "4", *R],
                                      "--memory-limit is in MB: 4 MB is less than a game process needs to start"),
    "seed named": (["run", "--player", "greedy", "--seed", str(2 ** 63), *R], "--seed 9223372036854775808 is outside"),
    "sweep time per game zero named": (["sweep", "--player", "greedy", "--param", "flush_weight=0,1",
                                        "--time-per-game", "0", "--prep-time", "0"],
                                       "--time-per-game must be more than 0 s, got 0"),
    # Options that were taken and ignored:
    "optimum workers for one deal": (["optimum", "--seed", "3", "--workers", "2"], "--workers goes with --seeds"),
    "results json with an export": (["results", "--export", "csv", "--json"], "--json goes with the listings"),
    # CSV written into x.json, silently: whatever reads the name fails on it.
    "an export named for the other format": (["results", "--export", "csv", "--out", "games.json"],
                                             "ends in .json, but --export csv writes CSV"),
    "gettysburg learn seconds with learn games": (["experiment", "gettysburg", "--learn-seconds", "5"],
                                                  "--learn-seconds goes with --learn-games 0"),
    # A list option: "one point system is wanted here", the parser's line for --system, was false.
    "gettysburg search systems contest": (["experiment", "gettysburg", "--part", "search", "--search-systems",
                                          "american,contest:shared"],
                                         "--search-systems names its systems one by one, not 'contest:shared'"),
    "demo games past the limit": (["demo", "--games", "10000001"], "--games must be from 1 to 10,000,000"),
    # An empty list ran every registered player (91 s of tournament).
    "demo empty players": (["demo", "--players", ""], "--players needs at least one player"),
    "empty classpath": (["run", "--player", "greedy", "--classpath", "", *R], "--classpath '' names no folder or jar"),
    "a list with contest and a system in it": (["tournament", "--players", "greedy", "--systems", "contest;british",
                                                "--games", "1", *R], "gives the same point values twice"),
    "contest for one system": (["run", "--player", "greedy", "--system", "contest", *R],
                               "'contest' names twelve systems; one point system is wanted here"),
    "tournament bad player": (["tournament", "--players", "greedy,random:bogus=1", "--systems", "american",
                               "--games", "2", *R], "takes no parameter 'bogus'"),
    "tournament no systems": (["tournament", "--players", "greedy", "--systems", "", "--games", "1", *R],
                              "names no point system"),
    # A system given twice was played once and counted twice in every player's tournament score.
    "tournament a system twice": (["tournament", "--players", "greedy,random", "--systems", "american,american",
                                   "--games", "1", *R], "gives the same point values twice"),
    "tournament a system by name and by its values": (["tournament", "--players", "greedy,random", "--systems",
                                                       "american;0,2,5,10,15,20,25,50,75,100", "--games", "1", *R],
                                                      "gives the same point values twice"),
    "demo a system twice": (["demo", "--players", "greedy,random", "--systems", "british;british", "--games", "1"],
                            "gives the same point values twice"),
    "sweep huge count": (["sweep", "--player", "greedy", "--param", "flush_weight=0..1/100000000", "--games", "2",
                          *R], "over the limit"),
    "sweep text value": (["sweep", "--player", "greedy", "--param", "flush_weight=abc", "--games", "2", *R],
                         "takes a finite number"),
    "sweep sample seed without sample": (["sweep", "--player", "greedy", "--param", "flush_weight=0,1",
                                          "--sample-seed", "3", "--games", "1", *R], "--sample-seed goes with --sample"),
    "sweep a parameter the spec fixes": (["sweep", "--player", "greedy:flush_weight=1", "--param",
                                          "flush_weight=0,1", "--games", "1", *R], "fixed in --player"),
    "demo unknown player": (["demo", "--players", "greedy,nosuch", "--games", "1"], "unknown player 'nosuch'"),
    "tournament orphan parameter": (["tournament", "--players", "greedy,depth=2", "--systems", "american",
                                     "--games", "2", *R], "follows no player with parameters"),
    "demo player twice": (["demo", "--players", "greedy,greedy", "--games", "1"], "lists a player twice"),
    "demo prep inf": (["demo", "--prep-time", "inf"], "finite"),
    # int() and float() read these, as 42, 10 and 8000: not what a person typed.
    "seed with an underscore": (["run", "--player", "greedy", "--seed", "4_2", *R], "Invalid value for '--seed': '4_2'"),
    "games with an underscore after =": (["run", "--player", "greedy", "--games=1_0", *R], "'--games': '1_0'"),
    "games glued to -n": (["tournament", "--players", "greedy", "--systems", "american", "-n1_0", *R],
                          "Invalid value for '-n': '1_0'"),
    "games in Arabic-Indic digits": (["experiment", "matrix", "--games", "\u0661\u0660"],
                                     "(see pokersquares experiment matrix --help)"),
    "time per game with an underscore": (["run", "--player", "greedy", "--time-per-game", "1_0", "--prep-time", "0"],
                                         "'1_0' is not a number in ASCII digits"),
    "port in Devanagari digits": (["serve", "--port", "\u096e\u0966\u0966\u0966"], "Invalid value for '--port'"),
    # Click's own usage errors, one line too (not its usage block):
    "unknown option": (["run", "--player", "greedy", "--bogus", "1"], "No such option: --bogus (see pokersquares run --help)"),
    "below an option's range": (["experiment", "matrix", "--games", "1"], "Invalid value for '--games'"),
    "unknown command": (["nosuch"], "No such command 'nosuch'"),
    "missing option": (["tournament", "--games", "1"], "Missing option '--players'"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_input_is_one_line_exit_2_and_nothing_stored(name, cli, tmp_path):
    args, says = BAD[name]
    db = tmp_path / "r.sqlite"
    code, out, err = cli(*args, "--db", db)
    assert code == 2, (out, err)
    assert err.startswith("error: ") and err.count("\n") == 1 and says in err, err
    assert "== One game" not in out  # demo: not even its first game
    assert stored(db) == (0, 0)


def test_deal_refuses_seeds_outside_a_java_long(cli):
    for seed in (2 ** 63, -2 ** 63 - 1, 2 ** 64):
        code, _, err = cli("deal", "--seed", seed)
        assert code == 2 and "outside the contest's seed range" in err
    assert cli("deal", "--seed", 2 ** 63 - 1)[0] == 0 and cli("deal", "--seed", -2 ** 63)[0] == 0


def test_train_refuses_a_folder_before_learning(cli, tmp_path):
    code, out, err = cli("train", "--player", "og", "--system", "american", "--prep-time", "300", "--out", tmp_path)
    assert code == 2 and "is a folder" in err and err.count("\n") == 1


@pytest.mark.parametrize("option", [["--repeats", "5"], ["--scale", "1"]])
def test_bench_strength_refuses_repeats_or_scale_even_at_their_default_values(cli, option):
    code, out, err = cli("bench", "--strength", *option, "--only", "og")
    assert (code, out) == (2, "") and err.startswith(f"error: {option[0]} goes with the throughputs"), err


@pytest.mark.parametrize("args, says", [
    (["--system", ""], "--system is empty"), (["--player", ""], "--player is empty"),
    (["--system", "nosuch"], "no run with a finished game matches --player/--system")])
def test_compare_refuses_empty_filters_and_says_when_a_filter_matched_nothing(cli, tmp_path, args, says):
    db = tmp_path / "r.sqlite"
    assert cli("run", "--player", "greedy", "--games", "1", *R, "--db", db)[0] == 0
    code, out, err = cli("compare", db, *args)
    assert (code, out) == (2, "") and says in err, err


def test_bench_scale_out_of_range(cli):
    code, _, err = cli("bench", "--scale", "1e300", "--only", "random_games_per_s")
    assert code == 2 and err.startswith("error: --scale")


def test_bench_refuses_a_huge_repeat_count_before_any_benchmark(cli, monkeypatch):
    import pokersquares.bench

    def ran(scale):
        raise AssertionError("a benchmark ran")

    monkeypatch.setitem(pokersquares.bench.BENCHMARKS, "random_games_per_s", ran)
    code, out, err = cli("bench", "--repeats", "99999999999", "--only", "random_games_per_s")
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1, err
    assert "--repeats must be from 1 to 1,000, got 99999999999" in err


def test_bench_huge_repeat_count_is_blamed_on_repeats_not_only(cli, monkeypatch):
    import pokersquares.bench

    def ran(scale):
        raise AssertionError("a benchmark ran")

    monkeypatch.setitem(pokersquares.bench.BENCHMARKS, "random_games_per_s", ran)
    code, out, err = cli("bench", "--repeats", "99999999999", "--only", "random_games_per_s")
    assert code == 2 and out == "", err
    assert err == "error: --repeats must be from 1 to 1,000, got 99999999999\n", err
    assert "--only" not in err


def test_compare_json_of_no_matching_run_fails_as_without_json(cli, tmp_path):
    db = tmp_path / "a.sqlite"
    assert cli("run", "--player", "random", "--games", "1", *R, "--db", db)[0] == 0
    plain = cli("compare", db, "--system", "nosuch")
    code, out, err = cli("compare", db, "--system", "nosuch", "--json")
    assert (code, out, err) == plain
    assert code == 2 and out == "" and err.startswith("error: ") and err.count("\n") == 1, (out, err)
    assert "no run with a finished game matches --player/--system" in err


@pytest.mark.parametrize("player,out,suffix,prep", [
    ("champion", "ch.json", ".npz", "10"), ("gettysburg", "g.json", ".npz", "1"), ("td", "t", ".npz", "1"),
    ("og", "o.npz", ".json", "1"), ("beemo", "b", ".json", "1"),
    # below 8 s of preparation the champion learns BeeMo's pattern utilities (evaluator=auto)
    ("champion", "ch.npz", ".json", "1"), ("champion:evaluator=td", "ch.json", ".npz", "1")])
def test_train_refuses_an_out_suffix_the_save_does_not_write_before_learning(cli, tmp_path, monkeypatch,
                                                                          player, out, suffix, prep):
    import pokersquares.harness.registry

    made = pokersquares.harness.registry.make_player

    def no_learning(spec):
        p = made(spec)

        def learned(*args, **kwargs):
            raise AssertionError("learning began")

        p.set_point_system = learned
        p.warm_up = learned
        return p

    monkeypatch.setattr("pokersquares.cli.agents.make_player", no_learning)
    code, stdout, err = cli("train", "--player", player, "--system", "american", "--prep-time", prep,
                            "--out", tmp_path / out)
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1, err
    assert f"saves a {suffix} file; give a name ending in {suffix}" in err
    assert list(tmp_path.iterdir()) == []


def test_export_of_a_missing_run_and_system_clamping_said_aloud(cli, tmp_path):
    db = tmp_path / "r.sqlite"
    assert cli("run", "--player", "random", "--games", "1", *R, "--db", db)[0] == 0
    code, out, err = cli("results", "--export", "json", "--run", "99", "--db", db)
    assert code == 2 and "no run 99" in err and out == ""
    code, out, err = cli("system", "--", "0,2,5,10,15,20,25,50,75,500")
    assert code == 0 and "500 -> 127" in err and "127" in out


@pytest.mark.parametrize("args", [
    ("run", "--player", "random", "--games", "1", *R, "--system", "0,2,5,10,15,20,25,50,75,500"),
    ("tournament", "--players", "random", "--games", "1", *R, "--systems", "british;0,2,5,10,15,20,25,50,75,500"),
    ("tournament", "--players", "random", "--games", "1", *R, "--systems", "0,2,5,10,15,20,25,50,75,500"),
    ("experiment", "matrix", "--evaluators", "narl", "--searches", "greedy", "-n", "2", "--prep-time", "0.35",
     "--time-per-game", "1", "--systems", "british;0,2,5,10,15,20,25,50,75,500", "--plot", "{tmp}/m.png"),
    ("experiment", "gettysburg", "--part", "search", "--searches", "greedy", "--search-games", "2",
     "--learn-games", "50", "--search-systems", "0,2,5,10,15,20,25,50,75,500", "--plot-dir", "{tmp}"),
])
def test_every_command_says_which_typed_values_it_clamped(cli, tmp_path, args):
    args = [str(a).format(tmp=tmp_path) for a in args]
    code, out, err = cli(*args, "--db", tmp_path / "r.sqlite")
    assert code == 0 and err.count("500 -> 127") == 1


def test_named_systems_are_never_said_to_be_clamped(cli, tmp_path):
    code, out, err = cli("tournament", "--players", "random", "--games", "1", *R, "--systems", "american,british",
                         "--db", tmp_path / "r.sqlite")
    assert code == 0 and "clamped" not in err


def test_sweep_reports_penalties_and_writes_the_plot_where_told(cli, tmp_path):
    db = tmp_path / "r.sqlite"
    code, out, err = cli("sweep", "--player", "greedy", "--param", "flush_weight=0,1", "--games", "1", *R,
                         "--db", db, "--plot", tmp_path)
    assert code == 2 and "is a folder" in err
    plot = tmp_path / "adir"
    code, out, err = cli("sweep", "--player", "greedy", "--param", "flush_weight=0,1", "--games", "2",
                         "--prep-time", "0", "--time-per-game", "0.000001", "-q", "--db", db, "--plot", plot)
    assert code == 0 and plot.is_file() and f"plot in {plot}" in out  # the file named, not adir.png
    header, *rows = out.splitlines()
    assert "penalties" in header and "2 of 2 games penalised" in out  # every game timed out
    assert "4 games scored the penalty" in err
    code, out, err = cli("sweep", "--player", "greedy", "--param", "flush_weight=0.5", "--games", "1",
                         "--prep-time", "0", "--time-per-game", "0.000001", "-q", "--db", tmp_path / "one.sqlite")
    assert code == 0 and "warning: 1 game scored the penalty (" in err, err
    assert "1 of 1 game penalised" in out


@pytest.fixture(scope="module")
def hostile_files(tmp_path_factory):
    """Saved tables a user may hand a player that pass a glance (an archive of the right
    format, a JSON file of the right format) but hold what no save writes."""
    import json

    import numpy as np

    from pokersquares.evaluators.narl import NarlEvaluator
    from pokersquares.evaluators.td import TdEvaluator
    from pokersquares.points import AMERICAN

    folder = tmp_path_factory.mktemp("hostile")
    points = np.array(AMERICAN.points, dtype=np.int64)
    narl = NarlEvaluator(games=300, threads=1)
    narl.prepare(points, 0.0, seed=1)
    narl.save(folder / "narl.npz", "American")
    td = TdEvaluator(games=300, td_games=100, threads=1)
    td.prepare(points, 0.0, seed=1)
    td.save(folder / "td.npz", "American")

    def edited(source, name, change):
        with np.load(folder / source) as data:
            arrays = {k: data[k].copy() for k in data.files}
        change(arrays)
        np.savez(folder / name, **arrays)
        return folder / name

    def meta(key, value, field="meta"):
        return lambda a: a.__setitem__(field, np.array(json.dumps(dict(json.loads(str(a[field])), **{key: value}))))

    (folder / "priors").mkdir()
    files = {
        "count0": edited("narl.npz", "count0.npz", lambda a: a["counts"].__setitem__(0, 0)),
        "epsilon0": edited("narl.npz", "epsilon0.npz", meta("epsilon0", "x")),
        "alpha": edited("td.npz", "alpha.npz", meta("alpha", float("nan"))),
    }
    edited("td.npz", "priors/a.npz", lambda a: a["theta"].__setitem__(0, np.nan))
    files["priors"] = folder / "priors"
    doc = {"format": "pokersquares-pattern-utilities", "version": 1, "encoding": "beemo16",
           "encoding_version": 1, "point_system": {"name": "American", "points": list(AMERICAN.points)},
           "patterns": [[6, float("nan"), 10]]}
    (folder / "nan.json").write_text(json.dumps(doc))
    files["utilities"] = folder / "nan.json"
    return folder, files


HOSTILE = {
    # each was accepted: games scored the penalty (a key with no sample divides by 0; text for a
    # learning setting failed the preparation), the store held an empty run (a prior checked
    # only when read for play), or the NaN values were played
    "a table key with no sample": ("gettysburg:search=greedy,load={count0}", "count of at least 1"),
    "text for epsilon0": ("gettysburg:search=greedy,load={epsilon0}", "epsilon0 must be a finite number"),
    "NaN alpha": ("td:load={alpha}", "alpha must be a finite number"),
    "NaN weight in a prior": ("pretrained:priors={priors}", "its weights are malformed"),
    "NaN utility": ("og:load={utilities}", "utility nan"),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_saved_table_is_one_line_before_any_game(name, cli, tmp_path, hostile_files):
    folder, files = hostile_files
    spec, says = HOSTILE[name]
    db = tmp_path / "r.sqlite"
    code, out, err = cli("run", "--player", spec.format(**files), "--games", "2",
                         "--db", db, *R)
    assert code == 2, (out, err)
    assert err.startswith("error: ") and err.count("\n") == 1 and says in err, err
    assert stored(db) == (0, 0)


def test_a_constructor_that_never_returns_is_one_line_after_the_build_limit(tmp_path):
    """The check that a spec builds ran the user's constructor in the command's own
    process with no limit: a constructor that never returned hung the command for ever.
    (In a subprocess: the test runner's own timeout holds the alarm signal here.)"""
    import os
    import subprocess
    import sys
    import time
    from pathlib import Path

    db = tmp_path / "r.sqlite"
    code = ("import sys\n"
            "import pokersquares.harness.registry as registry\n"
            "registry.BUILD_LIMIT_S = 1.5\n"
            "from pokersquares.entry import main\n"
            "sys.argv = ['pokersquares', *sys.argv[1:]]\n"
            "main()\n")
    harness_tests = Path(__file__).parents[1] / "harness"
    start = time.monotonic()
    r = subprocess.run([sys.executable, "-c", code, "run", "--player", "fault_players:HangsWhenBuilt", "--games", "2",
                        "--db", str(db), *R], capture_output=True, text=True, timeout=60,
                       env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [
                           str(harness_tests), os.environ.get("PYTHONPATH")]))})
    took = time.monotonic() - start
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stderr == ("error: player 'fault_players:HangsWhenBuilt' cannot be built: its constructor did not "
                        "return within 1.5 s\n")
    assert took < 60 and stored(db) == (0, 0)


def _run_own_player(cli, tmp_path, monkeypatch, module: str, body: str, *args):
    """``run`` of the class ``module:Mine`` (a BasePlayer of ``body``) from ``tmp_path``."""
    (tmp_path / f"{module}.py").write_text(
        "from pokersquares.harness.player import BasePlayer\n\nclass Mine(BasePlayer):\n" + body)
    monkeypatch.syspath_prepend(str(tmp_path))
    return cli("run", "--player", f"{module}:Mine", "--time-per-game", "1", "--workers", "1",
               "--db", tmp_path / "r.sqlite", *args)


def test_a_run_whose_player_fails_says_why_its_games_scored_the_penalty(cli, tmp_path, monkeypatch):
    """A player whose preparation raised scored the penalty in every game and the run
    said only "2 penalties": each reason now goes to stderr with its games, and into
    --json as penalty_reasons."""
    code, out, err = _run_own_player(cli, tmp_path, monkeypatch, "broken_prep",
                                     "    name = 'broken'\n\n"
                                     "    def prepare(self, budget_s):\n"
                                     "        raise ValueError('no table for you')\n\n"
                                     "    def choose(self, grid, card, seconds_left):\n"
                                     "        return int((grid == -1).argmax())\n",
                                     "--games", "2", "--prep-time", "0.2", "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["penalties"] == 2
    (reason, n), = summary["penalty_reasons"].items()
    assert n == 2 and reason.startswith("preparation failed") and "no table for you" in reason
    assert f"warning: broken_prep:Mine on American: 2 games (seeds 0, 1) scored the penalty: {reason}\n" in err


def test_one_penalised_game_is_one_penalty(cli, tmp_path, monkeypatch):
    # "1 penalties" in run's line (and compare's, experiment's).
    code, out, err = _run_own_player(cli, tmp_path, monkeypatch, "bad_answer",
                                     "    def choose(self, grid, card, seconds_left):\n        return 99\n",
                                     "--games", "1", "--prep-time", "0")
    assert code == 0, err
    assert ", 1 penalty; run 1 in " in out and "penalties" not in out


@pytest.mark.parametrize("args, says", [
    (["review", "x.sqlite", "--prep-time", "nan"], "'--prep-time': must be a finite number of seconds, got nan"),
    (["serve", "--prep-time", "nan"], "'--prep-time': must be a finite number of seconds, got nan"),
    (["serve", "--prep-time", "601"], "'--prep-time': must be from 0 to 600 s, got 601"),
    (["serve", "--think-time", "inf"], "'--think-time': must be a finite number of seconds, got inf"),
    (["serve", "--game-time", "0.1"], "'--game-time': must be from 0.5 to 600 s, got 0.1"),
    (["experiment", "matrix", "--time-per-game", "nan"], "'--time-per-game': must be a finite number of seconds"),
    (["experiment", "tiger", "--time-per-game", "0.01"], "'--time-per-game': must be at least 0.05 s, got 0.01"),
    (["experiment", "beemo", "--prep-time", "-inf"], "'--prep-time': must be a finite number of seconds, got -inf"),
    (["experiment", "beemo", "--seconds-per-move", "0"], "'--seconds-per-move': must be at least 0.001 s, got 0"),
    (["experiment", "gettysburg", "--learn-seconds", "nan"], "'--learn-seconds': must be a finite number"),
])
def test_seconds_out_of_range_or_not_numbers_are_named_as_such(cli, tmp_path, monkeypatch, args, says):
    # NaN met "should be greater than or equal to 0" (or "less than or equal to 600").
    monkeypatch.chdir(tmp_path)
    code, out, err = cli(*args)
    assert (code, out) == (2, "") and err.startswith("error: Invalid value for ") and says in err, err
    assert err.count("\n") == 1 and not list(tmp_path.iterdir())


def test_a_store_damaged_under_a_command_is_one_line_exit_2(cli, tmp_path, monkeypatch):
    # A store whose -wal was deleted by hand under two writers read as "malformed" mid-run:
    # "internal error: DatabaseError", exit 1.
    import sqlite3

    from pokersquares.harness.store import ResultStore

    db = tmp_path / "r.sqlite"
    assert cli("run", "--player", "greedy", "--games", "1", *R, "--db", db)[0] == 0

    def malformed(*args, **kwargs):
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(ResultStore, "runs", malformed)
    code, out, err = cli("results", "--db", db)
    assert (code, out) == (2, "")
    assert err == "error: a result store could not be read or written: database disk image is malformed\n"


@pytest.mark.parametrize("args, warned", [
    (["run", "--player", "beemo:cores=8", "--workers", "2", "--games", "2"], "2 parallel games of beemo:cores=8 at 8 "
                                                                           "cores each keep 16 cores busy"),
    (["run", "--player", "beemo:cores=8", "--workers", "2", "--games", "1"],
     "beemo:cores=8 at 8 cores keeps 8 cores busy; this machine has 2: games under a time budget share cores and "
     "play weaker (give a smaller cores=)"),
    # Only the remedies there are: greedy has one core and no cores=, td no cores= (it said "a smaller cores=").
    (["run", "--player", "greedy", "--workers", "4", "--games", "4"],
     "4 parallel games of greedy at 1 core each keep 4 cores busy; this machine has 2: games under a time budget "
     "share cores and play weaker (give fewer --workers)\n"),
    (["run", "--player", "td", "--workers", "2", "--games", "2"], "at 2 cores each keep 4 cores busy; this machine "
                                                                  "has 2: games under a time budget share cores "
                                                                  "and play weaker (give fewer --workers)\n"),
    (["run", "--player", "beemo", "--workers", "2", "--games", "2"], "(give fewer --workers or a smaller cores=)"),
    (["tournament", "--players", "greedy,beemo:cores=8", "--systems", "american", "--games", "1"], "beemo:cores=8 at 8"),
    (["run", "--player", "greedy", "--workers", "2", "--games", "2"], None),
])
def test_games_that_would_share_cores_are_warned_of_before_they_start(cli, tmp_path, monkeypatch, args, warned):
    """Parallel games keeping more cores busy than the machine has play weaker under a
    time budget: said in one line before any game (they were not)."""
    import os

    import pokersquares.cli.harness as harness

    from pokersquares import machine

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(machine, "cgroup_cpu_quota", lambda: None)
    monkeypatch.setattr(harness, "record_run", lambda *a, **k: (_ for _ in ()).throw(SystemExit(0)))
    monkeypatch.setattr(harness, "run_tournament", lambda *a, **k: (_ for _ in ()).throw(SystemExit(0)),
                        raising=False)
    code, _, err = cli(*args, "--db", tmp_path / "w.sqlite", *R)
    lines = [line for line in err.splitlines() if line.startswith("warning:")]
    if warned is None:
        assert lines == [], err
    else:
        assert len(lines) == 1 and warned in lines[0] + "\n" and "this machine has 2" in lines[0], err


def test_a_command_out_of_memory_is_one_line_saying_what_is_kept(cli, tmp_path, monkeypatch):
    """A MemoryError in the command's own process (a small machine) was "internal error:
    MemoryError", exit 1, as a bug of ours is; it is the machine's condition, said as a
    full disk is, with what the run leaves recorded."""
    import pokersquares.cli.harness as harness

    def short_of_memory(*args, **kwargs):
        raise MemoryError("Unable to allocate 1.2 GiB for an array")

    monkeypatch.setattr(harness, "record_run", short_of_memory)
    code, out, err = cli("run", "-p", "greedy", "--games", "2", "--db", tmp_path / "m.sqlite", "--quiet")
    assert code == 2 and out == "", err
    assert err.strip().splitlines()[-1] == (
        "error: this command ran out of memory (Unable to allocate 1.2 GiB for an array): free some memory, or ask "
        "for less (fewer --workers or --games at once); finished games are recorded; run the same command again "
        "to resume")


def test_the_number_check_leaves_other_options_values_and_plain_numbers_alone(cli, tmp_path):
    """A text option's value is that option's, whatever it looks like (a secret ``-n``
    is not ``--games``), and signs, spaces and exponents are numbers as before."""
    db = tmp_path / "r.sqlite"
    code, out, err = cli("run", "--player", "random", "--secret", "-n", "--games", " 2", "--seed", "-3",
                         "--time-per-game", "0.5e1", "--prep-time", "0", "-q", "--db", db)
    assert code == 0, err
    assert stored(db) == (1, 0) and "over 2 games" in out


def test_a_learning_coach_given_no_time_is_said_to_judge_by_the_greedy_rule(cli, tmp_path):
    """At 0 s of preparation a learning coach plays the greedy rule, and the review takes
    the rule's sampled values (``review.coach_values``): the note said they were "an
    untrained evaluator's", just under the line that said "playing the greedy rule"."""
    import subprocess
    import sys

    db = tmp_path / "g.sqlite"
    code, out, err = cli("run", "--player", "greedy", "--games", "1", "--db", db, *R)
    assert code in (0, None), err
    # gettysburg's kernels are parallel: played in a process of its own.
    done = subprocess.run([sys.executable, "-m", "pokersquares", "review", str(db), "--run", "1", "--coach",
                           "gettysburg", "--prep-time", "0"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    notes = [line for line in done.stderr.splitlines() if line.startswith("note:")]
    assert notes == ["note: gettysburg learns nothing in 0 s of preparation: its values are the greedy rule's, "
                     "played on over sampled deals, not a learned evaluator's (give --prep-time, load=FILE a saved "
                     "one, or --coach pretrained, which has priors for American and British)"], done.stderr
