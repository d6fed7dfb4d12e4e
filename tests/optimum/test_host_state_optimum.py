"""The exact solver inside a host started without standard output (Python then sets
``sys.stdout`` to None, and descriptor 1 may be closed), or with numba's compiler off."""

import os
import subprocess
import sys

import pytest

from pokersquares.optimum import exact

highspy = pytest.importorskip("highspy")


def test_a_solver_is_made_where_sys_stdout_is_none(monkeypatch):
    monkeypatch.setattr(sys, "stdout", None)
    h = exact._new_highs(highspy)
    assert h.getOptionValue("output_flag")[1] is False


def test_a_random_systems_optimum_is_solved_with_standard_output_closed(tmp_path):
    # A non-monotone system goes to the lines model, whose solver is made by _new_highs:
    # "internal error: AttributeError: 'NoneType' object has no attribute 'flush'".
    db = tmp_path / "o.sqlite"
    done = subprocess.run(
        [sys.executable, "-m", "pokersquares", "optimum", "--seed", "1", "--system", "random:3",
         "--time-limit", "3", "--db", str(db)],
        stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=300,
        preexec_fn=lambda: os.close(1))  # after the child's descriptors are set: it starts without stdout
    assert done.returncode == 0, done.stderr[-2000:]
    assert "internal error" not in done.stderr


def test_a_solver_is_made_with_descriptor_1_closed():
    code = ('import sys, highspy; from pokersquares.optimum import exact; '
            'h = exact._new_highs(highspy); sys.stderr.write(str(h.getOptionValue("output_flag")[1]))')
    done = subprocess.run([sys.executable, "-c", code], stdin=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, timeout=120, preexec_fn=lambda: os.close(1))
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr.endswith("False")


@pytest.fixture
def jit_disabled(monkeypatch):
    """numba's compiler off, as NUMBA_DISABLE_JIT=1 sets it (the kernels imported above stay compiled)."""
    from numba.core import config
    monkeypatch.setattr(config, "DISABLE_JIT", True)


def test_optima_are_refused_where_numbas_compiler_is_off(jit_disabled, tmp_path):
    # Uncompiled, the local search ran minutes past a 3 s time limit.
    from pokersquares.errors import PokerSquaresError
    from pokersquares.optimum import solve_seed
    from pokersquares.optimum.store import solve_seeds
    from pokersquares.points import AMERICAN
    with pytest.raises(PokerSquaresError, match="NUMBA_DISABLE_JIT"):
        solve_seed(1, AMERICAN, time_limit=3)
    db = tmp_path / "o.sqlite"
    with pytest.raises(PokerSquaresError, match="NUMBA_DISABLE_JIT"):
        solve_seeds([1, 2], AMERICAN, db=db, time_limit=3, workers=2)
    assert not db.exists()
