import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

# fault_players is imported by module path in worker processes (forked, so they share sys.path).
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(scope="session", autouse=True)
def greedy_kernels_loaded():
    """Greedy's kernels and the position check every player of ours calls, loaded in
    this process before a test forks a run's processes: each forked preparation and game
    process loaded them again from numba's cache, a second or more of every local run.
    None of them is parallel, so the forks stay safe (harness/local_backend.py, omp_in_use)."""
    from pokersquares.players.baseline import GreedyPlayer

    GreedyPlayer().warm_up()


@pytest.fixture
def run_compare(cli):
    """``pokersquares compare ARGS`` run in this process (it plays no game), as a finished
    process: its ``returncode``, ``stdout`` and ``stderr``."""
    def run(*args):
        code, out, err = cli("compare", *args)
        return SimpleNamespace(returncode=code, stdout=out, stderr=err)
    return run
