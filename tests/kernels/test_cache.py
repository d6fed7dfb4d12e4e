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


_GREEDY_GAME = """
import numpy as np
from pokersquares.kernels.greedy import greedy_rule_games
from pokersquares import AMERICAN
deals = np.arange(25, dtype=np.int8)[None, :]
print(int(greedy_rule_games(np.full(25, -1, dtype=np.int8), deals, np.array(AMERICAN.points, dtype=np.int64), 0.3)[0]))
"""


@pytest.mark.parametrize("edited, old, new", [
    ("kernels/core.py", "    return total\n", "    return total + 1000\n"),  # a kernel greedy's kernel calls
    ("game.py", "\n\n\ndef cell_index(", "\nLINES = LINES[:5] * 2  # the rows twice\n\n\ndef cell_index("),  # core reads it
])
def test_a_cached_kernel_compiles_again_when_a_module_it_calls_changes(tmp_path, edited, old, new):
    """numba keys a cached kernel by its own file only: greedy's kernel compiles in core's
    ``score_grid`` and game's lines, so after an edit (or an upgrade) of core.py or game.py
    alone it kept running the old code from the cache (330 where the new code scores 1,330)."""
    import shutil
    from pathlib import Path

    import pokersquares

    package = Path(pokersquares.__file__).parent
    shutil.copytree(package, tmp_path / "src" / "pokersquares",
                    ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(tmp_path / "src"))

    def score():
        done = subprocess.run([sys.executable, "-c", _GREEDY_GAME], env=env, capture_output=True, text=True,
                              timeout=600, cwd=tmp_path)
        assert done.returncode == 0, done.stderr[-2000:]
        return int(done.stdout.split()[-1])

    before = score()
    assert list((tmp_path / "cache").rglob("*.nbi"))  # cached
    path = tmp_path / "src" / "pokersquares" / edited
    text = path.read_text()
    assert text.count(old) == 1
    path.write_text(text.replace(old, new))
    shutil.copytree(tmp_path / "src", tmp_path / "fresh-src")
    fresh = dict(env, NUMBA_CACHE_DIR=str(tmp_path / "fresh-cache"), PYTHONPATH=str(tmp_path / "fresh-src"))
    after_fresh = subprocess.run([sys.executable, "-c", _GREEDY_GAME], env=fresh, capture_output=True, text=True,
                                 timeout=600, cwd=tmp_path)
    assert after_fresh.returncode == 0, after_fresh.stderr[-2000:]
    expected = int(after_fresh.stdout.split()[-1])
    assert expected != before  # the edit changes the score
    assert score() == expected  # the warm cache runs the edited code too
