"""numba's on-disk cache, where it cannot be written: kernels compile and run uncached.

Every kernel compiles with ``cache=True``. numba writes each compiled kernel to its
cache as it compiles, and a write that fails (a full disk or quota, ``ulimit -f``, a
cache folder that became read-only) raised out of the kernel's first call: every
player's preparation failed and each of its games scored the penalty. A cache is an
optimisation, so here a failed write is said once (per process tree) on stderr and the
kernel runs as compiled; the next process compiles it again.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys

from numba.core import caching

__all__ = ["CANNOT_WRITE", "tolerate_unwritable_cache"]

# The errors of a cache that cannot be written (any other is numba's to raise).
CANNOT_WRITE = {errno.EFBIG, errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM}
_SAID = "POKERSQUARES_NUMBA_CACHE_UNWRITABLE"  # set once said: the processes started after stay quiet


def _say_once(e: OSError) -> None:
    if os.environ.get(_SAID):
        return
    os.environ[_SAID] = "1"
    where = os.environ.get("NUMBA_CACHE_DIR") or "beside the package"
    print(f"note: numba cannot write its cache ({where}: {e.strerror or e}); kernels compile again in each "
          "process (free space, or set NUMBA_CACHE_DIR to a writable folder)", file=sys.stderr, flush=True)


@contextlib.contextmanager
def _tolerant(self):
    try:
        yield
    except OSError as e:
        if e.errno not in CANNOT_WRITE:
            raise
        _say_once(e)


def tolerate_unwritable_cache() -> None:
    """Make numba's cache writes that fail for want of room or rights a note, not an error."""
    caching.Cache._guard_against_spurious_io_errors = _tolerant
