"""numba's on-disk cache: never stale, and where it cannot be written, kernels run uncached.

Every kernel compiles with ``cache=True``. numba keys a cached kernel by the source of
the file that defines it, but a kernel compiles in the kernels it calls from other
files (``td`` and ``greedy`` call ``core``'s) and the constants it reads from them
(``core`` reads ``game.LINES``): an edit to ``core.py`` alone, or an upgrade that
changed only it, left every other module's cached kernels running the old code, with
nothing said (a probe: ``greedy_rule_games`` kept scoring 330 after ``score_grid`` was
changed to add 1,000; a fresh cache scored 1,330). So each kernel's cache stamp here
also holds a digest of every kernel module and of :mod:`pokersquares.game`: an edit to
any of them compiles all kernels again, once.

numba writes each compiled kernel to its cache as it compiles, and a write that fails
(a full disk or quota, ``ulimit -f``, a cache folder that became read-only) raised out
of the kernel's first call: every player's preparation failed and each of its games
scored the penalty. A cache is an optimisation, so here a failed write is said once
(per process tree) on stderr and the kernel runs as compiled; the next process
compiles it again.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import os
import sys
from pathlib import Path

from numba.core import caching

__all__ = ["CANNOT_WRITE", "KERNEL_SOURCES", "kernel_sources_digest", "stamp_with_kernel_sources",
           "tolerate_unwritable_cache"]

_KERNELS = Path(__file__).resolve().parent
# What a kernel may compile in: the kernel modules, and the module whose constants they read.
KERNEL_SOURCES = (*sorted(_KERNELS.glob("*.py")), _KERNELS.parent / "game.py")

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
    caching.Cache._guard_against_spurious_io_errors = _tolerant  # type: ignore[method-assign]


@functools.lru_cache(maxsize=None)
def _digest(stats: tuple) -> bytes:
    sha = hashlib.sha256()
    for path, *_ in stats:
        sha.update(Path(path).name.encode() + b"\0" + Path(path).read_bytes() + b"\0")
    return sha.digest()


def kernel_sources_digest() -> bytes:
    """A digest of :data:`KERNEL_SOURCES`' contents (read again when a file's size or
    time changes, as numba reads a kernel's own file)."""
    stats = []
    for path in KERNEL_SOURCES:
        st = path.stat()
        stats.append((str(path), st.st_mtime_ns, st.st_size))
    return _digest(tuple(stats))


_numba_stamp = caching._SourceFileBackedLocatorMixin.get_source_stamp


def _stamp(self):
    stamp = _numba_stamp(self)
    if Path(self._py_file).resolve().parent == _KERNELS:
        try:
            return stamp, kernel_sources_digest()  # any kernel module's edit makes this kernel's cache stale
        except OSError:  # sources not on disk as files (a zipped install): numba's own stamp
            return stamp
    return stamp


def stamp_with_kernel_sources() -> None:
    """Make each kernel's cache stale when any kernel module (or ``game``) changes, not
    only its own file. Before any kernel is defined: numba takes the stamp then."""
    caching._SourceFileBackedLocatorMixin.get_source_stamp = _stamp  # type: ignore[method-assign]
