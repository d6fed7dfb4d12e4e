"""``pokersquares experiment gettysburg`` at a tiny size: JSON, plots, bad options."""

import json
import subprocess
import sys

import pytest


def run(*args):
    return subprocess.run([sys.executable, "-m", "pokersquares", "experiment", "gettysburg", *args],
                          capture_output=True, text=True)


def test_tiny_experiment_prints_json_and_writes_plots(tmp_path):
    r = run("--systems", "american,two_pair", "--variants", "eps0=0.1,eps0=0.5+sizes", "--learn-games", "300",
            "--games", "20", "--search-systems", "british", "--searches", "expectimax,greedy",
            "--search-games", "2", "--time-per-game", "0.2", "--plot-dir", str(tmp_path), "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    rows = out["learning"]["rows"]
    assert [row["system"] for row in rows] == ["american", "two_pair"]
    for row in rows:
        norm = sorted(v["normalised"] for v in row["variants"].values())
        assert norm[0] in (0.0, 1.0) and norm[-1] == 1.0
        assert all(v["learn_games"] == 300 and v["games"] == 20 for v in row["variants"].values())
    assert out["search"]["evaluator"] == out["learning"]["best"]
    assert set(out["search"]["rows"][0]["searches"]) == {"expectimax", "greedy"}
    assert (tmp_path / "gettysburg-learning.png").stat().st_size > 1000
    assert (tmp_path / "gettysburg-search.png").stat().st_size > 1000


@pytest.mark.parametrize("args", [("--part", "nope"), ("--systems", "pony"), ("--variants", "eps0=0.9"),
                                  ("--searches", "alphabeta"), ("--evaluator", "x")])
def test_bad_options_exit_2(args):
    from typer.testing import CliRunner

    from pokersquares.cli import _load_subcommands, app

    _load_subcommands()
    r = CliRunner().invoke(app, ["experiment", "gettysburg", *args])
    assert r.exit_code == 2, r.output


def test_bad_point_system_is_one_line():
    r = run("--search-systems", "pony")
    assert r.returncode == 2 and "Traceback" not in r.stderr and "pony" in r.stderr
