"""The benchmark scripts refuse a bad point system in one line (argparse's exit code 2),
before any learning or game, like the command line does."""

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pokersquares.points import SPEC_HELP

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"

# Each script runs in a process of its own, forked from one that has imported what the
# scripts share (numpy, numba, scipy, the package, the web app, the solver: those
# installed). An interpreter's start and those imports, a second or more, were most of a
# refusal's test. The fork is a new process as `python script.py` starts it (its argv and
# sys.path[0], numpy's global seed drawn anew, its own standard streams, stdin empty) and
# ends as Python ends one: an uncaught exception's traceback and exit status 1,
# SystemExit's code, the threads joined and the exit functions run; only the modules are
# not torn down (a third of a second with these imports). The server itself never runs a
# script's code.
_FORKS = r"""
import atexit, importlib, json, os, runpy, sys, threading
del sys.path[0]  # -c's current folder: each script gets its own first entry, as `python script.py` does
import numpy
for name in ("numba", "scipy.stats", "httpx", "ortools.sat.python.cp_model", "pokersquares.cli",
             "pokersquares.evaluators.td", "pokersquares.harness.compare", "pokersquares.harness.runner",
             "pokersquares.optimum", "pokersquares.players", "pokersquares.web.agents"):
    try:
        importlib.import_module(name)
    except ImportError:  # an extra not installed: the scripts that need it import it, or say so
        pass


def run(argv):
    if argv[0] == "-m":
        sys.argv, sys.path[:0] = argv[1:], [os.getcwd()]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv, sys.path[:0] = argv, [os.path.dirname(os.path.abspath(argv[0]))]
        runpy.run_path(argv[0], run_name="__main__")


def exit_code(stop):
    if stop.code is None or isinstance(stop.code, int):
        return stop.code or 0
    print(stop.code, file=sys.stderr)
    return 1


for line in sys.stdin:
    argv, out, err = json.loads(line)
    pid = os.fork()
    if pid == 0:
        for fd, path, flags in ((0, os.devnull, os.O_RDONLY), (1, out, os.O_WRONLY | os.O_CREAT),
                                (2, err, os.O_WRONLY | os.O_CREAT)):
            opened = os.open(path, flags, 0o600)
            os.dup2(opened, fd)
            os.close(opened)
        numpy.random.seed()
        try:
            run(argv)
            code = 0
        except SystemExit as stop:
            code = exit_code(stop)
        except BaseException:
            sys.excepthook(*sys.exc_info())
            code = 1
        for thread in threading.enumerate():
            if thread is not threading.main_thread() and not thread.daemon:
                thread.join()
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    os.write(1, f"{pid}\n".encode())
    os.write(1, f"{os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])}\n".encode())
"""


class _Forks:
    """``run(script, *args)``: ``subprocess.run([python, script, *args])`` (or ``run("-m",
    module, ...)``) with its output captured, as a fork of the server above. A run that
    times out or is stopped kills its process and the server, which starts anew."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.runs = 0
        self.server = None

    def _start(self) -> None:
        self.pending = b""
        with open(self.folder / "server.err", "w") as err:
            self.server = subprocess.Popen([sys.executable, "-c", _FORKS], stdin=subprocess.PIPE,
                                           stdout=subprocess.PIPE, stderr=err)

    def _line(self, timeout: float) -> int:
        while b"\n" not in self.pending:
            if not select.select([self.server.stdout], [], [], timeout)[0]:
                raise TimeoutError
            data = os.read(self.server.stdout.fileno(), 4096)
            if not data:
                raise RuntimeError(f"the fork server ended: {(self.folder / 'server.err').read_text()[-2000:]}")
            self.pending += data
        line, self.pending = self.pending.split(b"\n", 1)
        return int(line)

    def run(self, *argv, timeout: float = 120) -> subprocess.CompletedProcess:
        if self.server is None:
            self._start()
        self.runs += 1
        out, err = self.folder / f"{self.runs}.out", self.folder / f"{self.runs}.err"
        self.server.stdin.write((json.dumps([[str(a) for a in argv], str(out), str(err)]) + "\n").encode())
        self.server.stdin.flush()
        pid = None
        try:
            pid = self._line(300)  # the first run waits for the server's imports
            code = self._line(timeout)
        except BaseException as e:
            if pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            self.server.kill()
            self.server.wait()
            self.server = None
            if isinstance(e, TimeoutError):
                raise subprocess.TimeoutExpired(argv, timeout) from None
            raise
        return subprocess.CompletedProcess(argv, code, out.read_text(), err.read_text())

    def close(self) -> None:
        if self.server is not None:
            self.server.stdin.close()
            self.server.wait(60)


@pytest.fixture(scope="module")
def forks(tmp_path_factory):
    server = _Forks(tmp_path_factory.mktemp("forks"))
    yield server.run
    server.close()


@pytest.mark.parametrize("script, extra", [("td_groups.py", []), ("td_select.py", []),
                                           ("tiger_iterations.py", []), ("optimum_options.py", ["--seeds", "0"]),
                                           ("game_decision_times.py", ["--ray-runs", "0"])])
def test_bad_point_system_is_one_line(forks, script, extra):
    run = forks(BENCHMARKS / script, "--system", "bogus", *extra)
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    assert run.stderr.strip().splitlines()[-1].endswith(f"unknown point system 'bogus'; accepted: {SPEC_HELP}")
    assert run.stdout == ""


@pytest.mark.parametrize("script, option", [("small_budget_strength.py", "--games"), ("rule_search.py", "--games"),
                                            ("root_mix.py", "--deals")])
def test_a_script_with_a_standard_error_refuses_one_game_before_playing(forks, tmp_path, script, option):
    """With one game they played every game, then failed in statistics.stdev ("requires
    at least two data points") with a traceback."""
    db = tmp_path / "s.sqlite"
    extra = {"small_budget_strength.py": ["--db", str(db)], "root_mix.py": ["--load", str(tmp_path / "x.npz")]}
    run = forks(BENCHMARKS / script, option, "1", *extra.get(script, []))
    assert run.returncode == 2 and "Traceback" not in run.stderr and run.stdout == ""
    what = option.removeprefix("--")
    assert run.stderr.strip().splitlines()[-1].endswith(
        f"{option} must be at least 2 (a standard error needs two {what}), got 1")
    assert not db.exists()


@pytest.mark.parametrize("args, says", [
    (["--players", "og,bogus"], "unknown player 'bogus'"),
    (["--players", "og", "--preps", "1,x"], "--preps takes seconds separated by commas, got 'x'"),
    (["--players", "og", "--preps", "nan"], "a preparation budget (--preps) must be a finite number of seconds, got nan"),
    (["--players", "og", "--time-per-game", "0"], "the time per game (--time-per-game) must be more than 0 s, got 0")])
def test_small_budget_strength_checks_players_and_budgets_before_greedy_plays(forks, tmp_path, args, says):
    """A bad player or budget once failed with a traceback after greedy's games were played."""
    db = tmp_path / "s.sqlite"
    run = forks(BENCHMARKS / "small_budget_strength.py", "--games", "2", "--db", db, *args)
    assert run.returncode == 2 and "Traceback" not in run.stderr and run.stdout == ""
    assert says in run.stderr.strip().splitlines()[-1]
    assert not db.exists()


def test_small_budget_strength_reads_a_players_parameters_after_its_commas(forks, tmp_path):
    run = forks(BENCHMARKS / "small_budget_strength.py", "--games", "2", "--preps", "0", "--time-per-game", "0.5",
                "--systems", "american", "--players", "hybrid:evaluator=patterns,search=greedy,og",
                "--db", tmp_path / "s.sqlite", timeout=300)
    assert run.returncode == 0, run.stderr
    rows = json.loads(run.stdout)["rows"]
    assert [r["player"] for r in rows] == ["hybrid:evaluator=patterns,search=greedy", "og"]
    assert all(r["games"] == 2 and r["penalties"] == 0 for r in rows)


def test_td_learning_speed_runs_the_kernels_champion_learns_with(forks):
    """The benchmark calls the learning kernels with their current arguments (it once
    lagged a signature change) and reports what it timed."""
    run = forks(BENCHMARKS / "td_learning_speed.py", "--table-games", "500", "--games", "40", "--rounds", "1",
                timeout=600)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["groups"] == "default+draws" and out["tc"] is True and out["games_per_round"] == 40
    assert min(out["narl_1_thread"], out["td_1_thread"], out["td_2_threads"]) > 0
    bad = forks(BENCHMARKS / "td_learning_speed.py", "--groups", "bogus")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().splitlines()[-1].endswith("unknown TD feature group 'bogus'; choose from sizes, suits, "
                                                        "joint, ranks, discard, cross, draws, homes, pairs, needs or default")


@pytest.mark.parametrize("script, args", [("orphans.py", []), ("orphans.py", ["src", "kill"]), ("og_variants.py", ["--help"])])
def test_positional_scripts_print_their_usage(forks, script, args):
    run = forks(BENCHMARKS / script, *args)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert run.stderr.startswith(f"usage: python {BENCHMARKS / script} ")


def _script(name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    # Registered under its name: numba's cache of a kernel compiled here names its module,
    # and the script run on its own loads that cache ("No module named '<dynamic>'").
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


def test_td_select_ensemble_plays_the_sum_of_values_and_a_transposed_learner_sees_the_grid_transposed():
    import numpy as np

    from pokersquares.cards import deal
    from pokersquares.evaluators.td import TdEvaluator
    from pokersquares.game import EMPTY
    from pokersquares.points import AMERICAN
    from pokersquares.search.base import GreedySearch
    from pokersquares.strength import play

    td_select = _script("td_select")
    points = np.array(AMERICAN.points, dtype=np.int64)
    learners = []
    for seed in (0, 1):
        ev = TdEvaluator(games=3000, td_games=500, threads=1)
        ev.prepare(points, 0.0, seed)
        learners.append(ev)
    for s in range(3):  # one learner alone, or twice, plays as greedy play does
        alone = play(learners[0], GreedySearch(), points, s)
        assert td_select._play_ensemble(learners[:1], points, s) == alone
        assert td_select._play_ensemble([learners[0], learners[0]], points, s) == alone
    together = [td_select._play_ensemble(learners, points, s) for s in range(6)]
    for ev in learners:  # each learner has its say: the pair plays neither one's games
        assert together != [play(ev, GreedySearch(), points, s) for s in range(6)]
    grid = np.full(25, EMPTY, dtype=np.int8)
    cards = deal(7)
    grid[[0, 1, 2, 7, 13]] = cards[:5]
    card = int(cards[5])
    seen = td_select._values(learners[1], grid, card, True)
    for cell in range(25):
        if grid[cell] != EMPTY:
            assert seen[cell] == -np.inf
            continue
        child = grid.copy()
        child[cell] = card
        assert seen[cell] == pytest.approx(learners[1].state_value(child[td_select.TRANSPOSE]))


def test_every_mutant_still_applies_to_the_source_and_names_tests_that_exist():
    """``benchmarks/mutants.py`` reports a mutant whose text is gone as *stale* only when
    it runs (one did go stale when a kernel was rewritten): each break must replace text
    found exactly once in its file, change it, and name test files that exist."""
    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root / "benchmarks"))
    try:
        from mutants import load_mutants
    finally:
        sys.path.pop(0)
    mutants = load_mutants()
    assert len({m["name"] for m in mutants}) == len(mutants)
    for m in mutants:
        source = (root / m["file"]).read_text()
        assert source.count(m["old"]) == 1, m["name"]
        assert m["new"] != m["old"], m["name"]
        assert m["tests"] and all((root / t).exists() for t in m["tests"]), m["name"]


def test_td_consistency_backs_up_each_cell_over_every_next_card(forks, tmp_path):
    from pokersquares import AMERICAN
    from pokersquares.evaluators.td import TdEvaluator

    consistency = _script("td_consistency")
    evaluator = TdEvaluator(games=1500, td_games=800, threads=1)
    evaluator.prepare(np.array(AMERICAN.points, dtype=np.int64), 0.0, seed=3)
    grid = np.full(25, -1, dtype=np.int8)
    grid[[0, 6, 12, 18]] = [0, 13, 27, 40]
    cells = np.array([1, 5, 24])
    undealt = sorted(set(range(52)) - {0, 13, 27, 40, 9})
    for cell, backup in zip(cells, consistency.one_step_backups(evaluator, grid, 9, cells)):
        after = grid.copy()
        after[cell] = 9
        # The mean over the undealt cards of the best value of placing each, by hand.
        by_hand = np.mean([np.max(evaluator.placement_values(after, c)[after == -1]) for c in undealt])
        assert backup == pytest.approx(by_hand)
    out = consistency.measure(evaluator, 3, 0, 3, 20)
    assert out["decisions"] == 3 * 18 and 0 <= out["backup_agrees_with_greedy"] <= 1
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not an evaluator")
    run = forks(BENCHMARKS / "td_consistency.py", bad)
    assert run.returncode == 2 and "Traceback" not in run.stderr and run.stdout == ""


def test_pick_prior_keeps_the_best_on_the_same_deals_and_refuses_bad_files(forks, tmp_path):
    """A learner of more games beats one of a few, a file listed twice is the same on
    every deal (the candidates play the same deals), and ``--out`` is the best file."""
    from pokersquares.evaluators.td import TdEvaluator
    from pokersquares.points import AMERICAN, BRITISH

    for name, games, points in (("weak", 200, AMERICAN), ("strong", 4000, AMERICAN), ("british", 200, BRITISH)):
        learned = TdEvaluator(games=games, td_games=games // 4, threads=1)
        learned.prepare(np.array(points.points, dtype=np.int64), 0.0, seed=1)
        learned.save(tmp_path / f"{name}.npz", points.name)
    script = BENCHMARKS / "pick_prior.py"
    run = forks(script, tmp_path / "weak.npz", tmp_path / "strong.npz", tmp_path / "strong.npz", "--deals", "400",
                "--workers", "1", "--out", tmp_path / "best.npz", timeout=600)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    weak, strong, again = out["candidates"]
    assert out["best"].endswith("strong.npz") and strong["mean"] > weak["mean"] + 5
    assert again["mean"] == strong["mean"] and again["minus_best"] == 0 and again["minus_best_se"] == 0
    assert weak["minus_best"] == pytest.approx(weak["mean"] - strong["mean"], abs=0.01)
    assert strong["table_games"] == 4000 and (tmp_path / "best.npz").read_bytes() == (tmp_path / "strong.npz").read_bytes()
    for args, says in (([str(tmp_path / "weak.npz"), str(tmp_path / "british.npz")], "different points"),
                       ([str(tmp_path / "missing.npz")], "no such file")):
        bad = forks(script, *args, "--deals", "10")
        assert bad.returncode == 2 and "Traceback" not in bad.stderr and says in bad.stderr.strip().splitlines()[-1]


def _level_chance(forks, *args):
    return forks(BENCHMARKS / "level_systems_chance.py", *args)


def test_level_systems_chance_matches_the_normal_law_for_one_rival(forks):
    """One rival level with the player: it leads by more than one paired SE with the chance
    that a standard normal exceeds 1 (0.1587), by more than 0 with one half; more rivals
    miss more often, and the target over several systems is the product."""
    one = json.loads(_level_chance(forks, "--rivals", "1", "--level", "2", "--trials", "100000").stdout)
    assert abs(one["miss_one_system"] - 0.158655) < 4 * one["miss_one_system_se"]
    assert abs(one["target_met_by_chance"] - (1 - one["miss_one_system"]) ** 2) < 1e-3
    half = json.loads(_level_chance(forks, "--rivals", "1", "--within", "0", "--trials", "100000").stdout)
    assert abs(half["miss_one_system"] - 0.5) < 4 * half["miss_one_system_se"]
    three = json.loads(_level_chance(forks, "--rivals", "3", "--trials", "100000").stdout)
    assert three["miss_one_system"] > one["miss_one_system"] + 0.1


@pytest.mark.parametrize("args, message", [(["--rivals", "0"], "argument --rivals: must be at least 1, got 0"),
                                           (["--within", "nan"], "--within must be a finite number of at least 0, "
                                                                 "got nan")])
def test_level_systems_chance_refuses_bad_input_in_one_line(forks, args, message):
    run = _level_chance(forks, *args)
    assert run.returncode == 2 and "Traceback" not in run.stderr and run.stdout == ""
    assert run.stderr.strip().splitlines()[-1].endswith(message)


def test_line_context_keys_counts_each_empty_cells_crossing_line_and_plays_narl_unrefined():
    """The experiment's context is the count of a line's empty cells whose crossing line is
    dead (the TD evaluator's readable rule) or empty; unrefined, its value is NARL's."""
    from pokersquares.evaluators.narl import NarlEvaluator
    from pokersquares.evaluators.td import _dead
    from pokersquares.game import LINES
    from pokersquares.kernels.core import undealt_counts
    from pokersquares.points import AMERICAN

    lck = _script("line_context_keys")
    ev = NarlEvaluator(games=300, threads=1)
    ev.prepare(np.array(AMERICAN.points, dtype=np.int64), 10.0)
    rng = np.random.default_rng(7)
    classes = np.empty(10, dtype=np.int64)
    out_keys = np.empty(20, dtype=np.int64)
    sizes = np.empty(10, dtype=np.int64)
    seen_dead = 0
    for _ in range(60):
        n = int(rng.integers(1, 25))
        grid = np.full(25, -1, dtype=np.int8)
        grid[rng.permutation(25)[:n]] = rng.permutation(52)[:n]
        lines = [[int(grid[i]) for i in line if grid[i] >= 0] for line in LINES]
        lck.line_classes(grid, classes)
        for X in range(10):  # a full line is never a crossing line of an empty cell
            want = lck.EMPTY if not lines[X] else lck.DEAD if _dead(lines[X]) else lck.LIVE
            assert len(lines[X]) == 5 or classes[X] == want, (grid, X)
        for L in range(10):
            crossing = [5 + i % 5 if L < 5 else i // 5 for i in LINES[L] if grid[i] < 0]
            dead = sum(1 for X in crossing if lines[X] and _dead(lines[X]))
            empty = sum(1 for X in crossing if not lines[X])
            seen_dead += dead
            assert lck.context(grid, L, classes) == 1 + dead + 6 * empty
        rank_und, suit_und, undealt = np.empty(13, np.int64), np.empty(4, np.int64), np.empty(52, np.uint8)
        cards = undealt_counts(grid, np.int64(-1), rank_und, suit_und, undealt)
        value = lck.grid_value(grid, cards, ev.points, ev.keys, ev.sums, ev.counts, rank_und, suit_und, undealt, False,
                               50.0, ev.size_sums, ev.size_counts, classes, out_keys, sizes)
        assert value == pytest.approx(ev.state_value(grid))
    assert seen_dead > 0


def test_line_context_keys_runs_and_reports_a_paired_difference(forks):
    run = forks(BENCHMARKS / "line_context_keys.py", "--games", "300", "--deals", "20", "--seeds", "0", timeout=600)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    (row,) = out["seeds"]
    assert row["refined_mean"] - row["narl_mean"] == pytest.approx(row["paired"])
    assert row["entries"] > 0 and out["deals"] == 20
    bad = forks(BENCHMARKS / "line_context_keys.py", "--deals", "1")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and bad.stdout == ""


def test_narl_shrinkage_reports_thin_entries_and_a_paired_difference_per_strength(forks):
    run = forks(BENCHMARKS / "narl_shrinkage.py", "--seconds", "2", "--deals", "50", timeout=600)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["games_learned"] > 0 and out["entries"] > 0 and out["deals"] == 50
    assert [row["k"] for row in out["shrunk"]] == [1, 3, 10, 30]
    # fewer than 2 samples is among fewer than 10, and so on
    assert [out["thin"][k]["samples"] for k in ("2", "10", "100", "1000")] == sorted(
        out["thin"][k]["samples"] for k in ("2", "10", "100", "1000"))
    bad = forks(BENCHMARKS / "narl_shrinkage.py", "--seconds", "0")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and bad.stdout == ""


def test_average_tables_takes_each_keys_mean_and_keeps_keys_only_one_table_holds():
    average = _script("average_tables").average
    keys, sums, counts = average(np.array([3, 7]), np.array([30.0, 70.0]), np.array([3, 7]),
                                 np.array([7, 9]), np.array([20.0, 18.0]), np.array([1, 2]))  # key 7: 10 and 20
    assert keys.tolist() == [3, 7, 9] and counts.tolist() == [3, 8, 2]
    assert (sums / counts).tolist() == pytest.approx([10.0, 15.0, 9.0])
    keys, sums, counts = average(np.array([1]), np.array([4.0]), np.array([2]), np.array([1]), np.array([30.0]), np.array([3]))
    assert (sums / counts).tolist() == pytest.approx([6.0])  # values 2 and 10, not the pooled 34 / 5


def test_average_tables_writes_a_table_the_players_read_and_refuses_two_systems(forks, tmp_path):
    from pokersquares.evaluators.narl import NarlEvaluator
    from pokersquares.points import AMERICAN, BRITISH

    for name, seed, points in (("a", 1, AMERICAN), ("b", 2, AMERICAN), ("british", 1, BRITISH)):
        learner = NarlEvaluator(games=300, threads=1)
        learner.prepare(np.array(points.points, dtype=np.int64), 0.0, seed=seed)
        learner.save(tmp_path / f"{name}.npz", points.name)
    script = BENCHMARKS / "average_tables.py"
    run = forks(script, tmp_path / "a.npz", tmp_path / "b.npz", tmp_path / "avg.npz", timeout=300)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    a, b, avg = (NarlEvaluator().load(tmp_path / f"{n}.npz") for n in ("a", "b", "avg"))
    ta, tb, tavg = ({text: value for text, value, _ in e.table()} for e in (a, b, avg))
    both = set(ta) & set(tb)
    assert out["keys"] == len(tavg) == len(set(ta) | set(tb)) and out["in_both"] == len(both) > 0
    for text in both:
        assert tavg[text] == pytest.approx((ta[text] + tb[text]) / 2)
    for text in set(ta) - set(tb):
        assert tavg[text] == pytest.approx(ta[text])
    bad = forks(script, tmp_path / "a.npz", tmp_path / "british.npz", tmp_path / "x.npz")
    assert bad.returncode == 1 and "Traceback" not in bad.stderr and not (tmp_path / "x.npz").exists()
    assert "learned for two point systems" in bad.stderr.strip().splitlines()[-1]


def test_preparation_spread_pairs_each_preparations_runs_by_their_specs(forks, tmp_path):
    db = tmp_path / "runs.sqlite"
    for player in ("greedy", "random:seed=3"):
        made = forks("-m", "pokersquares", "run", "--player", player, "--system", "american", "--games", "30", "--seed",
                     "0", "--prep-time", "0", "--time-per-game", "2", "--db", db, "--json", timeout=300)
        assert made.returncode == 0, made.stderr
    script = BENCHMARKS / "preparation_spread.py"
    pair = ["--pair", str(db), "greedy", "random:seed=3"]
    run = forks(script, "--system", "american", "--seeds", "20", *pair, *pair)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    first, second = out["stores"]
    assert first["deals"] == 20 and first == second and first["player"] > first["rival"] + 20
    over = out["over_preparations"]
    assert over["preparations"] == 2 and over["gap_sd"] == 0 and over["deals_in_every_preparation"] == 20
    assert over["gap_mean_over_those_deals"] == pytest.approx(first["gap"])
    assert over["gap_stderr_over_those_deals"] == pytest.approx(first["gap_stderr"])
    swapped = ["--pair", str(db), "random:seed=3", "greedy"]  # each deal's gap and its negative: they average to 0
    run = forks(script, "--system", "american", "--seeds", "20", *pair, *swapped)
    over = json.loads(run.stdout)["over_preparations"]
    assert over["gap_mean_over_those_deals"] == 0 and over["gap_stderr_over_those_deals"] == 0
    assert over["gap_sd"] == pytest.approx(2 * abs(first["gap"]) / 2 ** 0.5)
    bad = forks(script, "--system", "american", "--pair", db, "greedy", "nobody")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "no run of 'nobody'" in bad.stderr


def test_combine_systems_pairs_each_system_and_combines_their_z_scores(forks, tmp_path):
    db = tmp_path / "t.sqlite"
    made = forks("-m", "pokersquares", "tournament", "--players", "greedy,random:seed=3", "--systems", "american,british",
                 "--games", "20", "--seed", "0", "--prep-time", "0", "--time-per-game", "2", "--db", db, "--json",
                 timeout=300)
    assert made.returncode == 0, made.stderr
    script = [BENCHMARKS / "combine_systems.py", db, "--player", "greedy", "--rival", "random:seed=3"]
    run = forks(*script)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    rows = {r["system"]: r for r in out["per_system"]}
    assert set(rows) == {"American", "British"} and all(r["deals"] == 20 and r["a_minus_b"] > 5 for r in rows.values())
    assert all(r["z"] == pytest.approx(r["a_minus_b"] / r["stderr"]) for r in rows.values())
    assert out["combined"] == {"systems": 2, "z": pytest.approx(sum(r["z"] for r in rows.values()) / 2 ** 0.5)}
    # British plays 8-card playouts under depth=auto (a straight outscores a flush), American 4
    only = json.loads(forks(*script, "--horizon", "8").stdout)
    assert [r["system"] for r in only["per_system"]] == ["British"] and only["combined"]["z"] == pytest.approx(rows["British"]["z"])
    named = json.loads(forks(*script, "--systems", " AMERICAN ").stdout)
    assert [r["system"] for r in named["per_system"]] == ["American"]
    swapped = forks(*script[:2], "--player", "random:seed=3", "--rival", "greedy")
    assert json.loads(swapped.stdout)["combined"]["z"] == pytest.approx(-out["combined"]["z"])
    # a system played the same on every deal has no z and is left out of the combination
    same = {"a_minus_b": 0.0, "stderr": 0.0}
    assert _script("combine_systems").combine([same, {"a_minus_b": 2.0, "stderr": 1.0}]) == {"systems": 1, "z": 2.0}
    bad = forks(*script[:2], "--player", "greedy", "--rival", "nobody")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "no point system with runs of both" in bad.stderr


def test_symmetry_choices_counts_the_kinds_of_cells_before_each_recorded_move(forks, tmp_path):
    from typer.testing import CliRunner

    from pokersquares.cli import _load_subcommands, app

    choices = _script("symmetry_choices")
    diagonal = [(card, k, k) for k, card in enumerate(range(5))] + [
        (card, cell // 5, cell % 5) for card, cell in zip(range(5, 25), [c for c in range(25) if c % 6])]
    kinds = choices.choices_per_move(diagonal)
    # Empty grid: one kind; a card: its lines or not; any two: four; five on the diagonal:
    # the transpose pairs the 20 empty cells, 10 kinds; the last move: one cell.
    assert kinds[:3] == [1, 2, 4] and kinds[5] == 10 and kinds[-1] == 1
    assert all(k <= 25 - i for i, k in enumerate(kinds))
    _load_subcommands()
    db = tmp_path / "g.sqlite"
    played = CliRunner().invoke(app, ["run", "-p", "greedy", "-n", "2", "--time-per-game", "2", "--db", str(db), "-q"])
    assert played.exit_code == 0, played.output
    run = forks(BENCHMARKS / "symmetry_choices.py", db)
    out = json.loads(run.stdout)["runs"][0]
    assert out["games"] == 2 and out["choices_by_cards_placed"][:3] == [1.0, 2.0, 4.0]
    assert 0 < out["searched_share"] < 1
    bad = forks(BENCHMARKS / "symmetry_choices.py", db, "--run", "9")
    assert bad.returncode == 2 and bad.stderr.strip() == f"error: no run 9 in {db}" and bad.stdout == ""


@pytest.mark.parametrize("args, says", [
    (["--systems", "bogus"], "unknown point system 'bogus'"),
    (["--preps", "1,x"], "--preps takes numbers separated by commas, got '1,x'"),
    (["--preps", "-1"], "--preps must be"),
    (["--games", "1"], "--games must be at least 2, got 1"),
    (["--patterns-prep", "0"], "--patterns-prep must be more than 0 s, got 0")])
def test_learner_crossover_refuses_bad_input_before_learning(forks, args, says):
    run = forks(BENCHMARKS / "learner_crossover.py", *args)
    assert run.returncode == 2 and "Traceback" not in run.stderr and run.stdout == ""
    assert run.stderr.count("\n") == 1 and says in run.stderr


def test_learner_crossover_learns_both_for_the_same_seconds_and_judges_them_alike(forks):
    run = forks(BENCHMARKS / "learner_crossover.py", "--systems", "american", "--preps", "0.3", "--seeds", "0",
                "--games", "50", timeout=300)
    assert run.returncode == 0, run.stderr
    (row,) = json.loads(run.stdout)["rows"]
    assert row["system"] == "American" and row["prep_s"] == 0.3
    for name in ("patterns", "td"):
        # The learner's own budget, kept, and spent learning: a learner ends when its next
        # round, timed as the last, would not fit (0.15 to 0.19 s of 0.3 quiet; 0.099 s once
        # in CI beside the other tests), so the floor is what no learning at all stays under.
        assert 0.03 < row[f"{name}_s"] <= 0.6
        assert 20 < row[f"{name}_mean"] < 250  # a greedy policy's mean over 50 American games
        assert 0.5 < row[f"{name}_stderr"] < 20  # a 50-game mean's standard error (SD of a game: 25-45)


def test_learner_crossover_splits_a_budget_with_patterns_prep(forks):
    run = forks(BENCHMARKS / "learner_crossover.py", "--systems", "american", "--preps", "0.9", "--patterns-prep", "0.2",
                "--seeds", "0", "--games", "20", timeout=300)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    (row,) = out["rows"]
    assert out["patterns_prep_s"] == 0.2 and row["prep_s"] == 0.9
    assert row["patterns_s"] <= 0.45 < 0.6 <= row["td_s"] <= 1.2  # each learner its own seconds


@pytest.mark.parametrize("script, args, says", [
    ("engine.py", ["--repeats", "0"], "--repeats must be from 1 to 1,000, got 0"),
    ("engine.py", ["--only", "bogus"], "unknown benchmark 'bogus'"),
    ("openspiel_mcts.py", ["--games", "0"], "--games must be at least 1, got 0"),
    ("openspiel_mcts.py", ["--time-per-game", "nan"], "--time-per-game must be a finite number of seconds more than 0"),
    ("openspiel_mcts.py", ["--player", "bogus"], "unknown player 'bogus'"),
    ("openspiel_mcts.py", ["--player", "greedy"], "'greedy' does not count its simulations"),
    ("java_overhead.py", ["--starts", "0"], "--starts and --games must be at least 1, got 0 and 40"),
    ("java_overhead.py", ["--games", "-1"], "--starts and --games must be at least 1, got 5 and -1"),
    ("java_export_turns.py", ["--systems", "0"], "--instances and --systems must be at least 1"),
    ("java_export_turns.py", ["--player", "bogus"], "unknown player 'bogus'"),
    ("champion_first_games.py", ["--processes", "0"], "--processes and --games must be at least 1"),
    ("champion_first_games.py", ["--time-per-game", "nan"], "--time-per-game above 0, got 12, 3 and nan"),
    ("champion_first_games.py", ["--system", "bogus"], "unknown point system 'bogus'"),
    ("champion_first_games.py", ["--player", "champion:load=/nowhere.npz"], "/nowhere.npz"),
    ("budget_overrun.py", ["--budgets", "nan"], "--budgets must be finite numbers of seconds more than 0"),
    ("budget_overrun.py", ["--budgets", "0"], "--budgets must be finite numbers of seconds more than 0"),
    ("budget_overrun.py", ["--loads", "-1"], "--loads takes numbers of busy processes"),
    ("budget_overrun.py", ["--players", "greedy,bogus"], "unknown player 'bogus'"),
    ("tiger_iterations.py", ["--games", "0"], "--games must be at least 1, got 0"),
    ("tiger_iterations.py", ["--time-per-game", "0"], "--time-per-game must be a finite number of seconds more than 0"),
    ("rule_search.py", ["--systems", "american,bogus"], "unknown point system 'bogus'"),
    ("rule_search.py", ["--per-move", "nan"], "--per-move must be a finite number of seconds more than 0"),
    ("td_learning_speed.py", ["--games", "0"], "--table-games, --games and --rounds must be at least 1"),
    ("td_learning_speed.py", ["--table-step", "nan"], "--table-step must be a finite number of at least 0"),
    ("web_load.py", ["--agent", "bogus"], "unknown agent 'bogus'"),
    ("web_load.py", ["--clients", "0"], "--requests and --clients must be at least 1"),
    ("class_hints.py", ["--agent", "bogus"], "unknown agent 'bogus'"),
    ("optima_recheck.py", ["/nonexistent/o.sqlite"], "no store at /nonexistent/o.sqlite"),
    ("optima_recheck.py", ["docs/stores/optimum-british.sqlite", "--share", "2"], "--share is a fraction"),
    ("optima_recheck.py", ["docs/stores/optimum-british.sqlite", "--time-limit", "nan"], "--time-limit must be"),
    ("class_hints.py", ["--hint-every", "0"], "--students and --hint-every must be at least 1"),
    ("class_hints.py", ["--seconds", "nan"], "--seconds is the page's thinking time, 0.1 to 2, got nan"),
    ("web_soak.py", ["--every", "0"], "--requests, --every and --systems must be at least 1"),
    ("web_soak.py", ["--agents", "greedy,bogus"], "unknown agents: bogus"),
    ("web_idle_connections.py", ["--connections", "0"], "--connections must be from 1 to 900"),
    ("web_idle_connections.py", ["--wait", "nan"], "--wait must be from 0 to 600 seconds"),
    ("paired_runs.py", ["/nonexistent/results.sqlite"], "no result store at /nonexistent/results.sqlite"),
    ("optimum_options.py", ["--seeds", "0", "--time-limit", "nan"], "--time-limit must be a finite number"),
    ("optimum_options.py", ["--seeds", "5..2"], "empty seed range '5..2'"),
    ("optimum_options.py", ["--seeds", "0", "--option", "bogus=true"], "--option 'bogus' is not a CoreOptions field"),
    ("optimum_options.py", ["--seeds", "0", "--param", "bogus=1"], "--param 'bogus' is not a CP-SAT parameter"),
    ("root_mix.py", ["--load", "/nonexistent/td.npz"], "cannot read TD evaluator /nonexistent/td.npz"),
    ("root_mix.py", ["--load", "/nonexistent/td.npz", "--weights", "0,nan"], "--weights are numbers in [0, 1]"),
    ("td_groups.py", ["--workers", "0"], "--workers and --table-games must be at least 1"),
    ("td_groups.py", ["--groups", "default", "bogus"], "unknown TD feature group 'bogus'"),
    ("td_groups.py", ["--groups", "default;bogus=1"], "unknown TD setting(s) bogus"),
    ("td_select.py", ["--workers", "0"], "--workers must be positive"),
    ("td_select.py", ["--table-step", "nan"], "--table-step must be a finite number >= 0, got nan"),
    ("narl_shrinkage.py", ["--seconds", "nan"], "--seconds must be a finite number > 0"),
    ("line_context_keys.py", ["--prior", "nan"], "--prior a finite number >= 0"),
    ("web_first_advice.py", ["--limit", "0"], "--prep-time and --limit must be finite numbers of seconds > 0"),
    ("compile_time.py", ["--players", "greedy,bogus"], "unknown player 'bogus'"),
    # These five said their error but exited 1, as a run that failed does (web_first_advice
    # once its server had started and listed its agents):
    ("guard_decisions.py", ["--repeats", "0"], "--repeats must be at least 1 and --prep-time more than 0"),
    ("mutants.py", ["--only", "bogus"], "unknown mutants: bogus"),
    ("mutants.py", ["--file", "/nonexistent/new.json"], "cannot read the mutants in /nonexistent/new.json"),
    ("mutants.py", ["--file", str(BENCHMARKS.parent / "pyproject.toml")], "cannot read the mutants in "),
    ("mutants.py", ["--file", str(BENCHMARKS / "strength_expected.json")], "is not a list of mutants"),
    ("preparation_spread.py", ["--system", "American"], "give either result stores"),
    ("combine_systems.py", ["/nonexistent/r.sqlite", "--player", "a", "--rival", "b"],
     "no result store at /nonexistent/r.sqlite"),
    ("web_first_advice.py", ["--agents", "greedy,bogus"], "unknown agents: bogus; known: "),
])
def test_hostile_arguments_are_one_line_before_any_work(forks, script, args, says):
    """Each once ran (a JVM compiled and started, kernels compiled, a table learned, a web
    server started) and then failed with a traceback (a median of nothing, a division by
    zero), waited for ever (web_load's hint of an unknown agent), or measured nonsense."""
    run = forks(BENCHMARKS / script, *args, timeout=60)
    assert run.returncode == 2 and "Traceback" not in run.stderr and run.stdout == "", run.stderr[-2000:]
    assert says in run.stderr.strip().splitlines()[-1]


def _stat(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command's name (state, parent, ...), or None."""
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _children(pid: int) -> list[tuple[int, str]]:
    """The processes whose parent is ``pid`` (Linux's /proc), each as its pid and start
    time: a pid alone may be another process's by the time it is looked at again."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        fields = _stat(int(stat.parent.name))
        if fields is not None and int(fields[1]) == pid:
            out.append((int(stat.parent.name), fields[19]))
    return out


def _running(process: tuple[int, str]) -> bool:
    """Whether the process ``_children`` listed still runs (not gone, not a zombie, its pid
    not taken by a new process since)."""
    fields = _stat(process[0])
    return fields is not None and fields[19] == process[1] and fields[0] != "Z"


def test_a_terminated_web_benchmark_stops_its_server():
    """SIGTERM ended web_load.py alone: its `pokersquares serve` child went on running."""
    import signal
    import time

    script = subprocess.Popen([sys.executable, str(BENCHMARKS / "web_load.py"), "--agent", "greedy",
                               "--requests", "1", "--clients", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    servers: list[tuple[int, str]] = []
    try:
        deadline = time.monotonic() + 60
        while not (servers := _children(script.pid)) and time.monotonic() < deadline and script.poll() is None:
            time.sleep(0.1)
        assert servers, "the server never started"
        script.send_signal(signal.SIGTERM)
        assert script.wait(30) == 128 + signal.SIGTERM
        deadline = time.monotonic() + 5  # a server still exiting, or its zombie not yet reaped
        while any(map(_running, servers)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(map(_running, servers)), "the server was left running"
    finally:
        script.kill()
        for pid, _ in filter(_running, servers):  # a server left behind by a failing run
            subprocess.run(["kill", "-9", str(pid)], check=False, capture_output=True)


def test_a_sigterm_while_the_benchmarks_server_starts_still_stops_it(monkeypatch):
    """A SIGTERM between the server's fork and Popen's return ended web_load.py (exit
    143) before it knew its server, which went on running (one CI run). served.serve
    holds such a signal until the server is known, then stops it."""
    import signal

    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import served

    calls = []

    class Server:  # what Popen returns, once the signal has come mid-start
        returncode = None

        def __init__(self, command, **popen):
            signal.raise_signal(signal.SIGTERM)  # the handler runs now, as a real one would
            calls.append("started")

        def poll(self):
            return self.returncode

        def terminate(self):
            calls.append("terminated")

        def wait(self, timeout=None):
            calls.append("waited")
            self.returncode = -15
            return self.returncode

    previous = signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(served.subprocess, "Popen", Server)
    try:
        with pytest.raises(SystemExit) as e:
            with served.serve(["pokersquares", "serve"]):
                calls.append("served")  # never: the held signal ends the script first
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert e.value.code == 143 and calls == ["started", "terminated", "waited"]


def test_env_steps_prints_every_rate_as_json_and_refuses_bad_counts(forks):
    pytest.importorskip("gymnasium")
    run = forks(BENCHMARKS / "env_steps.py", "--episodes", "2", "--steps", "50", "--envs", "2", timeout=300)
    assert run.returncode == 0, run.stderr
    rates = json.loads(run.stdout)["steps_per_s"]
    assert set(rates) == {"single_gym_make", "single_raw_env", "sync_2", "async_2"} and min(rates.values()) > 0
    bad = forks(BENCHMARKS / "env_steps.py", "--envs", "0,4")
    assert bad.returncode == 2 and bad.stdout == "" and "Traceback" not in bad.stderr
    assert bad.stderr.strip().splitlines()[-1].endswith("each count of --envs is 1 to 64, got '0,4'")


def test_optimum_options_proves_a_start_score_without_a_grid(forks):
    """``--start SCORE`` times the proof alone, from a stored optimum's score with no grid:
    once the solver checked that a start score is its start grid's, the script gave it
    an empty grid's and met that check's error as a traceback."""
    pytest.importorskip("ortools")
    run = forks(BENCHMARKS / "optimum_options.py", "--seeds", "1", "--start", "289", "--time-limit", "30", timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    row = json.loads(run.stdout.splitlines()[0])
    assert (row["seed"], row["score"], row["bound"], row["proven"]) == (1, 289, 289, True)


def test_champion_first_games_counts_each_games_four_card_move_and_its_fallback_moves(forks):
    """Each game reaches four empty cells once, and the script counts that move (exact or
    not) and the moves the clock left greedy, game by game, from fresh processes."""
    run = forks(BENCHMARKS / "champion_first_games.py", "--processes", "2", "--games", "2", "--time-per-game", "1",
                timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    out = json.loads(run.stdout)
    assert (out["processes"], out["games_each"], out["four_empty_moves"]) == (2, 2, 4)
    assert 0 <= out["four_empty_exact"] <= 4 and out["penalties"] == 0 and out["max_seconds"] > 0
    assert out["first_games_with_fallback_moves"] <= 2 and 40 <= out["mean_score"] <= 300
