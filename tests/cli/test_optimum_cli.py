import json
import subprocess
import sys

import pytest

from pokersquares.cards import deal_names


def run(*args):
    return subprocess.run([sys.executable, "-m", "pokersquares", "optimum", *args], capture_output=True, text=True)


def test_one_deal_json():
    r = run("--seed", "2", "--system", "single:flush", "--time-limit", "60", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert {"seed", "system", "score", "bound", "proven", "grid", "seconds"} <= set(out)
    assert out["seed"] == 2 and out["proven"] and out["score"] == out["bound"]
    assert sorted(out["grid"]) == sorted(deal_names(2)[:25])


@pytest.mark.parametrize("args", [
    ("--seed", "1", "--system", "pony"),
    ("--seed", "1", "--time-limit", "0"),
    ("--seed", "1", "--time-limit", "-3"),
    ("--seeds", "5..2", "--db", "x.sqlite"),
    ("--seeds", "a..b", "--db", "x.sqlite"),
    ("--seeds", "1_000", "--db", "x.sqlite"),
    ("--seeds", "0,1_0", "--db", "x.sqlite"),
    ("--seeds", "0..3"),
    ("--seed", "1", "--seeds", "2..3", "--db", "x.sqlite"),
    ("--check",),
    ("--seed", "1", "--backend", "spark"),
])
def test_bad_input_is_one_line_exit_2(args, tmp_path):
    r = subprocess.run([sys.executable, "-m", "pokersquares", "optimum", *args], capture_output=True, text=True,
                       cwd=tmp_path)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x.sqlite").exists()


def test_a_seed_that_is_not_a_number():
    r = run("--seed", "abc")
    assert r.returncode == 2 and "Traceback" not in r.stderr and "--seed" in r.stderr


def test_the_workers_are_never_more_than_the_deals(tmp_path, monkeypatch):
    """``--workers 100000`` for two deals starts two processes, not a hundred thousand."""
    import multiprocessing

    from pokersquares import AMERICAN
    from pokersquares.optimum import store as optimum_store

    sizes = []
    real = multiprocessing.get_context

    class Context:
        def __init__(self):
            self.ctx = real()

        def Pool(self, n, **kw):
            sizes.append(n)
            assert n <= 2, f"a pool of {n} processes for 2 deals"  # never start them
            return self.ctx.Pool(n, **kw)

    monkeypatch.setattr(multiprocessing, "get_context", lambda *a: Context())
    solved = list(optimum_store._in_workers([0, 1], AMERICAN, 1.0, 100_000))
    assert sizes == [2] and len(solved) == 2
