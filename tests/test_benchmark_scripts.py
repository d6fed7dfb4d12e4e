"""The benchmark scripts refuse a bad point system in one line (argparse's exit code 2),
before any learning or game, like the command line does."""

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.mark.parametrize("script, extra", [("td_groups.py", []), ("td_select.py", []),
                                           ("tiger_iterations.py", []), ("optimum_options.py", ["--seeds", "0"])])
def test_bad_point_system_is_one_line(script, extra):
    run = subprocess.run([sys.executable, str(BENCHMARKS / script), "--system", "bogus", *extra],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    assert run.stderr.strip().splitlines()[-1].endswith(
        "unknown point system 'bogus'; accepted: american, british, ameritish:SEED, random:SEED, hypercorner:SEED, "
        "single:HAND (a hand name such as flush or full_house, or single:random:SEED), or ten comma-separated integers")
    assert run.stdout == ""
