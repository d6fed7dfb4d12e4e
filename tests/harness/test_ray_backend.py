"""The Ray backend on a local 2-CPU instance (one for the whole module: Ray is slow to start)."""

import json
import sqlite3

import pytest

ray = pytest.importorskip("ray")

from typer.testing import CliRunner  # noqa: E402

from pokersquares import AMERICAN, PointSystem, deal  # noqa: E402
from pokersquares.harness import ray_backend  # noqa: E402
from pokersquares.harness.runner import RunSpec, record_run, run_games  # noqa: E402
from pokersquares.harness.store import ResultStore  # noqa: E402
from pokersquares.harness.tournament import run_tournament  # noqa: E402
from pokersquares.points import parse_point_systems  # noqa: E402

NEG = PointSystem((-3, 2, 5, 10, 15, 20, 25, 50, 75, 100), "negative high card")


@pytest.fixture(scope="module", autouse=True)
def ray_instance():
    with ray_backend.session(num_cpus=2):
        yield


def test_tournament_matches_the_local_backend(tmp_path, monkeypatch):
    # The two stores' runs get the same key for their players' seeds (harness/seeds.py).
    monkeypatch.setattr("pokersquares.harness.store.new_secret", lambda: "one key for both stores")
    systems = parse_point_systems("american;single:flush")
    players = ["random", "greedy"]
    local = run_tournament(players, systems, 3, 11, ResultStore(tmp_path / "l.sqlite"), prep_time=1)
    store = ResultStore(tmp_path / "r.sqlite")
    remote = run_tournament(players, systems, 3, 11, store, prep_time=1, backend="ray")
    assert remote["totals"] == local["totals"] and remote["normalized"] == local["normalized"]
    assert remote["ranking"] == local["ranking"] and set(remote) == set(local)
    for row in store.export_rows():
        assert [c for c, _, _ in row["placements"]] == deal(row["seed"])[:25]
        assert row["seed"] == 11 + row["game_index"]


def test_a_killed_worker_has_its_game_retried_and_recorded_once(tmp_path):
    marker = tmp_path / "killed"
    spec = RunSpec(f"ray_players:KillOnce:marker={marker},game_seed=3", AMERICAN, 6, 0, 30.0, 1.0)
    store = ResultStore(tmp_path / "k.sqlite")
    seen = []
    run_id, recs = record_run(spec, store, on_result=seen.append, backend="ray")
    assert marker.exists()  # a worker really was killed, at the game of seed 3
    assert sorted(r.game_index for r in seen) == list(range(6))  # reported once each
    assert all(r.penalty is None and len(r.placements) == 25 for r in recs)
    greedy = run_games(RunSpec("greedy", AMERICAN, 6, 0, 30.0, 1.0), range(6), workers=1)
    assert [r.placements for r in recs] == [r.placements for r in greedy]
    rows = sqlite3.connect(store.path).execute(
        "SELECT game_index, COUNT(*) FROM games WHERE run_id = ? GROUP BY game_index", (run_id,)).fetchall()
    assert rows == [(i, 1) for i in range(6)]


def test_faults_score_the_penalty_as_locally():
    hang = ray_backend.run_games(RunSpec("fault_players:Hang", NEG, 2, 0, 0.5, 1.0), range(2))
    assert hang[0].penalty is None and hang[1].penalty.startswith("timeout") and hang[1].score == -30
    raises = ray_backend.run_games(RunSpec("fault_players:Raises", NEG, 2, 0, 30.0, 1.0), range(2))
    assert raises[1].penalty == "error: RuntimeError: boom" and raises[0].penalty is None
    prep = ray_backend.run_games(RunSpec("fault_players:BadPrep", NEG, 2, 0, 30.0, 1.0), range(2))
    assert all(r.penalty.startswith("preparation failed") and r.score == -30 for r in prep)


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


def test_sweep_on_ray_equals_the_local_sweep(tmp_path):
    from pokersquares.experiments.sweep import run_sweep, settings
    grid = settings({"flush_weight": [0, 0.5]})
    local = run_sweep("greedy", grid, AMERICAN, 5, 2, ResultStore(tmp_path / "l.sqlite"), prep_time=1)
    remote = run_sweep("greedy", grid, AMERICAN, 5, 2, ResultStore(tmp_path / "r.sqlite"), prep_time=1,
                       backend="ray")
    assert [(r["params"], r["mean"], r["stderr"]) for r in remote] == [(r["params"], r["mean"], r["stderr"])
                                                                       for r in local]
