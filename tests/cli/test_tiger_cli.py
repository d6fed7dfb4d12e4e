import json
import subprocess
import sys
from pathlib import Path


def run(*args):
    return subprocess.run([sys.executable, "-m", "pokersquares", *args], capture_output=True, text=True)


def test_experiment_tiger_json_and_plot(tmp_path: Path):
    plot = tmp_path / "cp.png"
    r = run("experiment", "tiger", "-n", "2", "--time-per-game", "0.1", "--rows", "1,12",
            "--cp", "1,141.4", "--plot", str(plot), "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert [row["paper"] for row in out["table3"]] == [92, 123]
    assert all(row["games"] == 2 and row["mean"] >= 0 for row in out["table3"] + out["cp_sweep"])
    assert len(out["cp_sweep"]) == 2 and plot.stat().st_size > 1000


def test_experiment_tiger_bad_options_exit_2():
    for args in (("--parts", "nope"), ("--rows", "13"), ("--cp", "x")):
        r = run("experiment", "tiger", "-n", "1", *args)
        assert r.returncode == 2 and "Traceback" not in r.stderr, args
