"""numba's cache where it cannot be written (a full disk or quota, ``ulimit -f``): the
kernels compile and run uncached, said once, instead of failing every preparation."""

import errno
import os
import resource
import subprocess
import sys

import pytest

_TWO_KERNELS = """
import numpy as np
from pokersquares.evaluators.base import checked_grid
from pokersquares.kernels import score_grid
from pokersquares import AMERICAN
grid = checked_grid(np.arange(25, dtype=np.int8))
print(score_grid(grid, np.array(AMERICAN.points, dtype=np.int64)))
"""


def _small_files():
    resource.setrlimit(resource.RLIMIT_FSIZE, (8192, 8192))  # a compiled kernel is 10 to 30 KB


def test_kernels_run_where_their_cache_cannot_be_written(tmp_path):
    # Each kernel's first call raised "OSError: [Errno 27] File too large" from numba's
    # cache: every player's preparation failed, every game scored the penalty.
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("POKERSQUARES_NUMBA_CACHE_UNWRITABLE", None)
    done = subprocess.run([sys.executable, "-c", _TWO_KERNELS], env=env, preexec_fn=_small_files,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    from pokersquares import AMERICAN
    from pokersquares.game import Grid
    grid = Grid()
    for i in range(25):
        grid.place(i, *divmod(i, 5))
    assert int(done.stdout.split()[-1]) == grid.score(AMERICAN)
    notes = [line for line in done.stderr.splitlines() if line.startswith("note: numba cannot write its cache")]
    assert len(notes) == 1 and "File too large" in notes[0] and "NUMBA_CACHE_DIR" in notes[0], done.stderr[-2000:]


def test_other_cache_errors_are_still_numbas_to_raise():
    from pokersquares.kernels import cache

    with pytest.raises(OSError):
        with cache._tolerant(None):
            raise OSError(errno.EIO, "Input/output error")
    os.environ[cache._SAID] = "1"  # quiet: said already
    try:
        for code in (errno.ENOSPC, errno.EFBIG, errno.EROFS):
            with cache._tolerant(None):
                raise OSError(code, os.strerror(code))
    finally:
        del os.environ[cache._SAID]
