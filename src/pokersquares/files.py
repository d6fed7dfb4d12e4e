"""Files a command writes, written whole or not at all.

A learned table, a plot or an export is written to a temporary file beside its target
and moved over it at the end (``os.replace``, atomic on one file system): an interrupted
or failed write leaves the previous file as it was and no partial one behind.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from pathlib import Path
from typing import Iterator

__all__ = ["UNUSABLE_PATH", "current_umask", "replacing", "unusable", "write_atomically"]

# The errors a path itself causes, whatever is done with it, in a message's words.
UNUSABLE_PATH = {errno.ENAMETOOLONG: "file name too long", errno.ELOOP: "a loop of symbolic links"}


def unusable(path: str | Path) -> str | None:
    """Why ``path`` can name no file (:data:`UNUSABLE_PATH`), or None: a name longer than
    its file system takes or a path longer than the system's limit, or a loop of symbolic
    links on the way to it. Every use of such a path fails (``Path.exists`` too, or
    ``Path.resolve`` as a RuntimeError)."""
    try:
        os.stat(path)
    except OSError as e:
        return None if e.errno is None else UNUSABLE_PATH.get(e.errno)
    return None


def current_umask() -> int:
    """The process's file-creation mask, read without changing it where the kernel tells
    it (Linux 4.7 on: ``Umask:`` in ``/proc/self/status``). Elsewhere it is set and put
    back, the only portable way: a file another thread creates in that instant gets the
    mask 0 (world-writable), which reading it here never causes."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def replacing(path: str | Path, suffix: str | None = None) -> Iterator[Path]:
    """A temporary path beside ``path`` to write; it replaces ``path`` when the block ends
    without an exception, and is removed otherwise. It ends in ``path``'s suffix, or in
    ``suffix`` when given, for writers that go by it (matplotlib would add ``.png`` to a
    name without one). A symbolic link is written through, as writing in place did: the
    file it names is replaced and the link kept (replacing the link itself left that file
    as it was, unsaid, e.g. ``current.npz -> runs/v3.npz`` trained anew)."""
    path = Path(path)
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix if suffix is None else suffix,
                                dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        _sync(tmp)
        if path.exists():  # keep the target's permissions, as writing it in place did
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o666 & ~current_umask())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _sync(path: Path) -> None:
    """``path``'s data on the disk before it replaces the target: a disk that fills as it
    writes back (thin storage, a network share, a quota) fails here, not after the good
    file was replaced by one whose end is gone, and a crash just after the move leaves
    the old file or the new one, never an empty one."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError as e:  # a file system that cannot sync (EINVAL), Windows' read-only handle (EBADF)
        if e.errno not in (errno.EINVAL, errno.EBADF):
            raise
    finally:
        os.close(fd)


def write_atomically(path: str | Path, data: bytes | str) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` whole, or leave it as it was."""
    with replacing(path) as tmp:
        tmp.write_bytes(data.encode() if isinstance(data, str) else data)
