"""A deal's time limit is the solving's, not numba's compiling: on a cold cache the
kernels took about 5 s of a worker's first deal, which was left unproven (and stored
so) where a warm one is proven in a second."""

import subprocess
import sys
import time

import pytest

import pokersquares.optimum as optimum
from pokersquares.optimum import solve_seed
from pokersquares.points import parse_point_system

pytest.importorskip("ortools")


def test_the_kernels_warm_before_the_deals_clock(monkeypatch):
    """A warm-up that takes 2 s (a cold cache's compiling) is not in the deal's seconds."""
    calls = []

    def slow_warm_up():
        calls.append(time.perf_counter())
        time.sleep(2)

    monkeypatch.setattr(optimum, "warm_kernels", slow_warm_up)
    t0 = time.perf_counter()
    opt = solve_seed(3, parse_point_system("single:flush"), time_limit=30)
    wall = time.perf_counter() - t0
    assert calls and calls[0] >= t0
    assert opt.proven and opt.seconds < wall - 2 + 0.01  # its seconds are rounded to the millisecond


WARM_THEN_SOLVE = """
from pokersquares.kernels.core import classify_batch
from pokersquares.kernels.optimum import best_of_restarts
from pokersquares.optimum import solve_seed, warm_kernels
from pokersquares.points import parse_point_system
kernels = (best_of_restarts, classify_batch)
warm_kernels()
before = [list(k.signatures) for k in kernels]
assert all(before), before
assert solve_seed(3, parse_point_system("single:flush"), time_limit=10).proven
assert [list(k.signatures) for k in kernels] == before, ([list(k.signatures) for k in kernels], before)
"""


def test_the_warm_up_compiles_every_kernel_the_solving_calls():
    """The warm-up calls each kernel with the solving's types: after it, solving a deal
    adds no compiled version of one (that would compile on the deal's clock). In a
    process of its own: a kernel another test called would look warmed."""
    run = subprocess.run([sys.executable, "-c", WARM_THEN_SOLVE], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]


def test_the_warm_up_runs_once_a_process():
    optimum.warm_kernels()
    for _ in range(100):
        optimum.warm_kernels()
    info = optimum.warm_kernels.cache_info()
    assert info.misses == 1 and info.hits >= 100
