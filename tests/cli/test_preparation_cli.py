"""Commands show what a preparation does (compiling, learning, games, seconds left) on
stderr, and keep stdout clean for --json; the demo says it compiles once, and plays."""

import json
import os
import subprocess
import sys


def cli(*args):
    return subprocess.run([sys.executable, "-m", "pokersquares", *args], capture_output=True, text=True,
                          env=dict(os.environ), timeout=600)


def test_run_shows_the_preparation_on_stderr_and_json_stays_clean(tmp_path):
    r = cli("run", "--player", "og", "--games", "1", "--prep-time", "1", "--time-per-game", "2",
            "--db", str(tmp_path / "r.sqlite"), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["games"] == 1  # stdout is the JSON alone
    lines = [line for line in r.stderr.splitlines() if line.startswith("preparing og on American")]
    # (whether a "compiling" line shows depends on numba's cache: tests/test_progress.py)
    learning = [line for line in lines if ": learning," in line]
    assert learning and "games" in learning[0] and "s left" in learning[0]


def test_train_shows_learning_progress(tmp_path):
    r = cli("train", "--player", "gettysburg", "--system", "british", "--prep-time", "1",
            "--out", str(tmp_path / "t.npz"), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["system"] == "British"
    assert "learning," in r.stderr and "s left" in r.stderr


def test_demo_compiles_once_then_plays_its_tournament(tmp_path):
    r = cli("demo", "--players", "random,greedy,og", "--systems", "american", "--games", "1",
            "--prep-time", "0.5", "--db", str(tmp_path / "d.sqlite"))
    assert r.returncode == 0, r.stderr
    assert "Compiling the agents' kernels (once" in r.stdout
    assert "3/3 agents ready" in r.stderr
    ranking = [line.split()[1] for line in r.stdout.splitlines() if line[:3] in ("1. ", "2. ", "3. ")]
    assert ranking[-1] == "random" and set(ranking) == {"random", "greedy", "og"}, r.stdout + r.stderr


def test_a_player_prepared_in_each_worker_names_whose_preparation_its_lines_are(tmp_path, cli_here, monkeypatch):
    # A player that cannot be pickled once prepared is built and prepared in each game
    # process; its slow warm-up's line came bare ("compiling its kernels ..."), once per
    # worker, with no "preparing PLAYER on SYSTEM" before it. (Greedy's kernels: run in
    # this process, its games in processes forked from it.)
    player = "fault_players:UnpicklableSlowWarmUp:seconds=1.5"
    monkeypatch.syspath_prepend(os.path.join(os.path.dirname(__file__), "..", "harness"))
    r = cli_here("run", "--player", player, "--games", "2", "--workers", "1", "--prep-time", "0.5",
                 "--time-per-game", "1", "--db", tmp_path / "u.sqlite", "--json")
    assert r.returncode == 0, r.stderr
    lines = r.stderr.replace("\r", "\n").splitlines()
    compiling = [line for line in lines if "compiling its kernels" in line]
    assert len(compiling) == 2, r.stderr  # the run's preparation, then the worker's own
    assert all(line.startswith(f"preparing {player} on American: compiling") for line in compiling), compiling
