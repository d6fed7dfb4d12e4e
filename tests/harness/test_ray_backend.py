"""The Ray backend on a local 2-CPU instance (one for the whole module: Ray is slow to start)."""

import json
import os
import sqlite3
import time

import pytest

ray = pytest.importorskip("ray")

from typer.testing import CliRunner  # noqa: E402

from pokersquares import AMERICAN, PointSystem, deal  # noqa: E402
from pokersquares.harness import ray_backend  # noqa: E402
from pokersquares.harness.game_play import play_game  # noqa: E402
from pokersquares.harness.registry import make_player  # noqa: E402
from pokersquares.harness.runner import RunSpec, record_run  # noqa: E402
from pokersquares.harness.store import ResultStore  # noqa: E402
from pokersquares.harness.tournament import run_tournament  # noqa: E402
from pokersquares.points import parse_point_systems  # noqa: E402

NEG = PointSystem((-3, 2, 5, 10, 15, 20, 25, 50, 75, 100), "negative high card")


SWEEP_GRID = {"flush_weight": [0, 0.5]}
PYTHONPATH_BEFORE_RAY = os.environ.get("PYTHONPATH")  # read before the module's instance starts


@pytest.fixture(scope="module")
def local_runs(tmp_path_factory):
    """What the local backend gives, run before Ray starts: its worker processes are
    forked, and a fork of a process whose Ray threads are running may hang."""
    from pokersquares.experiments.sweep import run_sweep, settings
    tmp = tmp_path_factory.mktemp("local-runs")
    with pytest.MonkeyPatch.context() as mp:
        # The two stores' runs get the same key for their players' seeds (harness/seeds.py).
        mp.setattr("pokersquares.harness.store.new_secret", lambda: "one key for both stores")
        tournament = run_tournament(["random", "greedy"], parse_point_systems("american;single:flush"), 3, 11,
                                    ResultStore(tmp / "l.sqlite"), prep_time=1)
    sweep = run_sweep("greedy", settings(SWEEP_GRID), AMERICAN, 5, 2, ResultStore(tmp / "s.sqlite"), prep_time=1)
    return {"tournament": tournament, "sweep": sweep}


@pytest.fixture(scope="module", autouse=True)
def ray_instance(local_runs):
    with ray_backend.session(num_cpus=2):
        yield


def test_tournament_matches_the_local_backend(tmp_path, monkeypatch, local_runs):
    monkeypatch.setattr("pokersquares.harness.store.new_secret", lambda: "one key for both stores")
    systems = parse_point_systems("american;single:flush")
    local = local_runs["tournament"]
    store = ResultStore(tmp_path / "r.sqlite")
    remote = run_tournament(["random", "greedy"], systems, 3, 11, store, prep_time=1, backend="ray")
    assert remote["totals"] == local["totals"] and remote["normalized"] == local["normalized"]
    assert remote["ranking"] == local["ranking"] and set(remote) == set(local)
    for row in store.export_rows():
        assert [c for c, _, _ in row["placements"]] == deal(row["seed"])[:25]
        assert row["seed"] == 11 + row["game_index"]


def test_a_killed_worker_has_its_game_retried_and_recorded_once(tmp_path):
    marker = tmp_path / "killed"
    spec = RunSpec(f"ray_players:KillOnce:marker={marker},game_seed=3", AMERICAN, 6, 0, 30.0, 30.0)
    store = ResultStore(tmp_path / "k.sqlite")
    seen = []
    run_id, recs = record_run(spec, store, on_result=seen.append, backend="ray")
    assert marker.exists()  # a worker really was killed, at the game of seed 3
    assert sorted(r.game_index for r in seen) == list(range(6))  # reported once each
    assert all(r.penalty is None and len(r.placements) == 25 for r in recs)
    greedy = make_player("greedy")  # plays as KillOnce does, in this process (no fork beside Ray's threads)
    greedy.set_point_system(AMERICAN, 30.0)
    assert [r.placements for r in recs] == [play_game(greedy, AMERICAN, s, 30.0).placements for s in range(6)]
    rows = sqlite3.connect(store.path).execute(
        "SELECT game_index, COUNT(*) FROM games WHERE run_id = ? GROUP BY game_index", (run_id,)).fetchall()
    assert rows == [(i, 1) for i in range(6)]


def test_each_ray_worker_warms_up_the_prepared_player_before_its_games():
    recs = ray_backend.run_games(RunSpec("fault_players:WarmedHere", AMERICAN, 3, 0, 30.0, 30.0), range(3))
    assert [r.penalty for r in recs] == [None] * 3 and all(len(r.placements) == 25 for r in recs)


@pytest.mark.timeout(120)  # a build phase left without its limit would hang here
def test_a_warm_up_is_untimed_up_to_the_local_runners_limit_and_stopped_past_it(monkeypatch):
    """Building and loading a player include its warm-up (compiling into a cold numba
    cache, many times slower on a busy machine), which the local runner gives
    WARM_UP_LIMIT_S: the Ray backend too, and past it the task is stopped.

    The untimed case has a limit far above its 3.5 s of sleep: on a cold numba cache in a
    full parallel suite, the worker's own compiling once took the 8 s limit past. The
    stuck loading keeps 8 s, which its run's build (greedy's warm-up) must stay under; a
    build that never ends is past any limit, and a short one stops it 6 s sooner."""
    monkeypatch.setattr(ray_backend, "WARM_UP_LIMIT_S", 60.0)
    slow = ray_backend.run_games(RunSpec("fault_players:SlowWarmUp:seconds=3.5,handed=true", AMERICAN, 2, 0,
                                         1.0, 1.0), range(2))
    assert [r.penalty for r in slow] == [None, None]  # 3.5 s of loading, more than a game's 1 s + grace
    monkeypatch.setattr(ray_backend, "WARM_UP_LIMIT_S", 8.0)
    stuck = ray_backend.run_games(RunSpec("fault_players:SlowWarmUp:seconds=600,handed=true", AMERICAN, 2, 0,
                                          1.0, 1.0), range(2))
    assert all(r.penalty.startswith("loading and warming up the player took over 8 s") for r in stuck)
    monkeypatch.setattr(ray_backend, "WARM_UP_LIMIT_S", 2.0)
    never = ray_backend.run_games(RunSpec("fault_players:SlowWarmUp:seconds=600", AMERICAN, 2, 0, 1.0, 1.0),
                                  range(2))
    assert [r.penalty for r in never] == ["building and warming up took over 2 s"] * 2


class _SlowClock:
    """The driver's start clock, slow to answer its first drain (a busy machine)."""

    def __init__(self, first_drain_s: float) -> None:
        self.marks, self.drains, self.first_drain_s = [], 0, first_drain_s

    def mark(self, key) -> None:
        self.marks.append(key)

    def drain(self) -> list:
        self.drains += 1
        if self.drains == 1:
            time.sleep(self.first_drain_s)
        marks, self.marks = self.marks, []
        return marks


def test_a_clock_slow_to_answer_holds_up_no_poll_and_loses_no_mark():
    clock = ray.remote(num_cpus=0)(_SlowClock).remote(2.5)
    ray.get(clock.mark.remote(("play", 0, 5, 0, "node-a")))
    driver = object.__new__(ray_backend._Driver)  # only its clock: no run, no task submitted
    task = ray_backend._Task(0, 5, 0, since=0.0)
    driver.ray, driver.clock, driver.flying, driver.draining = ray, clock, {"ref": task}, None
    t = time.monotonic()
    driver.start_clocks(1.0)
    assert time.monotonic() - t < 2.0 and task.phase == "queued"  # not answered within the poll
    ray.wait([driver.draining], timeout=30)  # the drain asked for then, not asked again, answers
    driver.start_clocks(2.0)  # the same drain's answer: the mark it took is not lost
    assert (task.phase, task.since, task.node) == ("play", 2.0, "node-a")


def test_faults_score_the_penalty_as_locally():
    # 5 s a game: a greedy game takes milliseconds, but in a run's first seconds a second
    # worker loading the player beside it took up to 0.6 s from one on a quiet 2-core
    # machine (benchmarks/game_decision_times.py), and beside two busy processes and the
    # parallel suite the good game used its 1 s. The three runs are played at once, as a
    # tournament's are: the others' games are played while the hung one waits out its time.
    hang, raises, prep = ray_backend.run_many([(RunSpec("fault_players:Hang", NEG, 2, 0, 5.0, 30.0), range(2)),
                                               (RunSpec("fault_players:Raises", NEG, 2, 0, 30.0, 1.0), range(2)),
                                               (RunSpec("fault_players:BadPrep", NEG, 2, 0, 30.0, 1.0), range(2))])
    assert hang[0].penalty is None and hang[1].penalty.startswith("timeout") and hang[1].score == -30
    # The stopped game keeps the placements made before it hung (at its third move) and
    # the decision seconds it was given, as the local runner's record of it does.
    assert [c for c, _, _ in hang[1].placements] == deal(1)[:2] and hang[1].decision_s > 5.0
    assert raises[1].penalty == "error: RuntimeError: boom" and raises[0].penalty is None
    assert len(prep) == 2 and all(r.penalty.startswith("preparation failed") and r.score == -30 for r in prep)


def test_cli_run_on_ray_resumes_what_the_store_holds(tmp_path):
    from pokersquares.cli import _load_subcommands, app
    _load_subcommands()
    db = str(tmp_path / "c.sqlite")
    runner = CliRunner()
    first = runner.invoke(app, ["run", "--player", "greedy", "--games", "4", "--db", db, "--backend", "ray", "--json"])
    assert first.exit_code == 0, first.output
    more = runner.invoke(app, ["run", "--player", "greedy", "--games", "8", "--db", db, "--backend", "ray", "--json"])
    data = json.loads(more.stdout)
    assert data["games"] == 8 and data["scores"][:4] == json.loads(first.stdout)["scores"]
    rows = json.loads(runner.invoke(app, ["results", "--db", db, "--export", "json"]).stdout)
    assert sorted(r["game_index"] for r in rows) == list(range(8))
    assert ray.is_initialized()  # the command left the instance it did not start running


def test_sweep_on_ray_equals_the_local_sweep(tmp_path, local_runs):
    from pokersquares.experiments.sweep import run_sweep, settings
    local = local_runs["sweep"]
    remote = run_sweep("greedy", settings(SWEEP_GRID), AMERICAN, 5, 2, ResultStore(tmp_path / "r.sqlite"), prep_time=1,
                       backend="ray")
    assert [(r["params"], r["mean"], r["stderr"]) for r in remote] == [(r["params"], r["mean"], r["stderr"])
                                                                       for r in local]


class _CallsRay:
    """A stand-in for ray in a driver: notes what it is asked to cancel and kill."""

    def __init__(self) -> None:
        self.calls = []

    def cancel(self, ref, force=False):
        self.calls.append(("cancel", ref, force))

    def kill(self, actor):
        self.calls.append(("kill", actor))


def test_an_interrupt_leaves_the_games_to_the_shutdown_of_the_sessions_own_instance(monkeypatch):
    """Inside a session that started the local instance (this module's), the driver's
    stop cancels nothing: the shutdown that follows ends the games (a force cancel races
    a game's reply in Ray). On an instance the session did not start, it cancels them."""
    driver = object.__new__(ray_backend._Driver)
    driver.ray, driver.clock, driver.flying = _CallsRay(), "clock", {"ref": ray_backend._Task(0, 5, 0, since=0.0)}
    assert ray_backend._SESSION_ENDS_INSTANCE == [True]
    driver.stop()
    assert driver.ray.calls == []
    monkeypatch.setattr(ray_backend, "_SESSION_ENDS_INSTANCE", [False])  # a cluster given by its address
    driver.stop()
    assert driver.ray.calls == [("cancel", "ref", True), ("kill", "clock")]


def test_the_instances_processes_carry_its_mark_and_the_driver_no_longer_does():
    """Every process of the local instance inherits the mark the driver put in its
    environment while Ray started (the watcher's last resort, harness/ray_watcher.py);
    the driver's environment is given back as it was, so nothing it starts later is
    taken for the instance's."""
    import os

    from pokersquares.harness.ray_watcher import MARK_VARIABLE

    @ray.remote
    def mark():
        return os.environ.get(MARK_VARIABLE)

    carried = ray.get(mark.remote())
    assert carried and len(carried) == 32
    assert MARK_VARIABLE not in os.environ
    watcher = ray_backend._WATCHER[0]
    assert watcher.args[-1] == carried  # the watcher kills what carries this one


def test_the_instances_workers_import_from_the_drivers_folders_without_a_runtime_env():
    """Players named by module path (this folder's fault_players) import in the workers of
    the local instance: they inherit the driver's import folders as PYTHONPATH, given to
    Ray's processes while it started and taken back from the driver's environment after.
    Not as a runtime_env, with which Ray left the workers it started with the instance
    idle and started new ones for the first tasks and for each run's clock actor."""

    @ray.remote
    def imports_fault_players():
        import fault_players
        return os.path.dirname(os.path.realpath(fault_players.__file__)), os.environ["PYTHONPATH"].split(os.pathsep)

    folder, path = ray.get(imports_fault_players.remote())
    assert folder in path
    assert not ray.get_runtime_context().runtime_env
    assert os.environ.get("PYTHONPATH") == PYTHONPATH_BEFORE_RAY


def test_a_preparation_task_reserves_the_cores_its_learners_use(monkeypatch):
    """og plays a game on one core but learns on two threads (learn_threads, 2 by default)
    whose kernels release the GIL: its preparation task reserves 2 CPUs, not 1 beside a
    task Ray puts on the other; its games reserve 1. A preparation wanting more CPUs
    than the largest node has (3 on this 2-CPU instance) gets them all, not a wait for ever."""
    real = dict(ray_backend._remotes())
    asked = []

    class Noting:
        def __init__(self, kind: str) -> None:
            self.kind = kind

        def options(self, **options):
            asked.append((self.kind, options["num_cpus"]))
            return real[self.kind].options(**options)

    for kind in ("prepare", "game"):
        monkeypatch.setitem(ray_backend._REMOTES, kind, Noting(kind))
    specs = ["og", "og:learn_threads=1", "og:learn_threads=3"]
    runs = ray_backend.run_many([(RunSpec(s, AMERICAN, 1, 0, 5.0, 0.1), [0]) for s in specs])
    assert [r.penalty for [r] in runs] == [None] * 3
    assert [n for kind, n in asked if kind == "prepare"] == [2, 1, 2]
    assert [n for kind, n in asked if kind == "game"] == [1, 1, 1]


def test_one_run_given_twice_is_played_once(tmp_path):
    """Two specs of one run (the player written with its parameters in two orders, or the
    same spec twice): Ray played each game twice and told of another command playing the
    run at the same time. Each game is played once, and both answers hold the run's games."""
    import warnings

    from pokersquares.harness.runner import record_runs

    store = ResultStore(tmp_path / "r.sqlite")
    specs = [RunSpec("greedy:flush_weight=0.3", AMERICAN, 3, 5, 5.0, 0.0),
             RunSpec("greedy: flush_weight=0.3", AMERICAN, 4, 5, 5.0, 0.0)]
    played = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = record_runs(specs, store, on_result=lambda k, rec: played.append(rec.game_index), backend="ray")
    assert sorted(played) == [0, 1, 2, 3]
    assert out[0][0] == out[1][0] and [r.game_index for r in out[1][1]] == [0, 1, 2, 3]
    assert [r.score for r in out[0][1]] == [r.score for r in out[1][1]][:3]
