"""The watcher of a local Ray instance (:mod:`pokersquares.harness.ray_backend`).

Run as ``python -m pokersquares.harness.ray_watcher DRIVER_PID RAY_DIR PSUTIL_DIR [MARK]``
in a session of its own (a Ctrl-C or a SIGTERM to the command's group is the command's
to handle), it lists the processes of the instance (the driver's children started from
Ray's folder, and all theirs: the raylet's agents and workers) twice a second for the
first minute, every 2 s after, and whenever a line comes on its standard input
(answering "ok" once it looked). When its standard input closes (the command shut Ray
down, or died) it stops those still running, looks again until none is new, and kills
them all. Ray alone leaves the raylet's agents running for up to a minute after an
interruption, waiting on its stopped GCS.

The lists can miss a process: one the raylet started just before the driver was killed
and whose parent died before the next look (handed to init, it is no one's child we
know). So the driver also puts ``MARK`` in its environment while Ray starts
(:data:`MARK_VARIABLE`); every process of the instance inherits it, and the end kills
whatever carries it too.
"""

import os
import select
import signal
import sys
import time
from collections.abc import Callable

MARK_VARIABLE = "POKERSQUARES_RAY_INSTANCE"
FAST_LOOKS_SECONDS = 60.0  # twice a second while the instance starts (its agents start with it)


def carries(p, mark: str) -> bool:
    """Whether process ``p``'s environment has :data:`MARK_VARIABLE` set to ``mark``."""
    try:
        return p.environ().get(MARK_VARIABLE) == mark
    except Exception:  # noqa: BLE001 - psutil's errors: gone, a zombie, or not ours to read
        return False


def add_descendants(seen: dict, front: list, ppids: dict) -> None:
    """Add ``front`` and all their descendants (``ppids``: a pid's children) to ``seen``,
    parents before their children, each once."""
    front = [c for c in dict.fromkeys(front) if c not in seen]
    while front:
        seen.update(dict.fromkeys(front))
        front = [c for c in dict.fromkeys(c for p in front for c in ppids.get(p.pid, [])) if c not in seen]


def _alive(p) -> bool:
    """Whether ``p`` still runs (not a process that took its pid since)."""
    try:
        return p.is_running()
    except Exception:  # noqa: BLE001 - psutil's errors: gone
        return False


def look(ppids: dict, driver: int, me: int, ray_dir: str, seen: dict, ray_children: dict) -> None:
    """Add to ``seen`` the processes of the instance (``ppids``: each pid's children, as
    psutil processes): the driver's children started from Ray's folder (``ray_children``
    remembers which are), the children of every process seen before that still runs,
    and all their descendants."""
    front = []
    for child in ppids.get(driver, []):
        if child.pid == me:
            continue
        key = (child.pid, child.create_time())
        if key not in ray_children:
            # Only a yes is remembered: Ray starts its processes by fork, a preexec function
            # and exec, and until the exec a child shows the driver's own command line.
            try:
                if ray_dir in " ".join(child.cmdline()):
                    ray_children[key] = True
            except Exception:  # noqa: BLE001 - psutil's errors: gone, or not ours to read
                pass
        if ray_children.get(key):
            front.append(child)
    # The children of processes seen before are the instance's too: once the driver is
    # killed its children are no longer its, and a worker or agent the raylet started
    # since the last look would be missed.
    parents = [p for p in seen if _alive(p)]
    add_descendants(seen, front + [c for p in parents for c in ppids.get(p.pid, [])], ppids)


def main(driver: int, ray_dir: str, mark: str = "") -> None:
    import psutil

    me = os.getpid()
    seen: dict = {}  # psutil processes (a pid and its start time), parents first
    ray_children: dict = {}

    def look_now(marked_too: bool = False):
        ppids: dict[int, list] = {}
        everyone: list = []
        for p in psutil.process_iter(["ppid"]):
            ppids.setdefault(p.info["ppid"], []).append(p)
            everyone.append(p)
        look(ppids, driver, me, ray_dir, seen, ray_children)
        if marked_too and mark:
            add_descendants(seen, [p for p in everyone if p.pid not in (me, driver) and carries(p, mark)], ppids)

    started = time.monotonic()
    while True:
        try:
            look_now()
        except psutil.Error:
            pass
        fast = time.monotonic() - started < FAST_LOOKS_SECONDS
        if select.select([sys.stdin], [], [], 0.5 if fast else 2.0)[0]:
            if not sys.stdin.readline():
                break
            look_now()
            print("ok", flush=True)
    end(seen, lambda: look_now(marked_too=True))


def end(seen: dict, look_now: Callable[[], None]) -> None:
    """Stop every process of the instance (SIGSTOP: a stopped process starts no other)
    and look again, until a look finds none not stopped; then kill them all, parents
    first, and wait a moment for them to go. A raylet starting a worker between the
    last look and its kill would otherwise leave that worker behind."""
    stopped: set = set()
    for _ in range(50):
        try:
            look_now()  # the command shut Ray down (still running, it still has the rest as its children) or died
        except Exception:  # noqa: BLE001 - psutil's errors: the next look tries again
            pass
        fresh = [p for p in seen if p not in stopped]
        if not fresh:
            break
        for p in fresh:  # parents first
            stopped.add(p)
            try:
                p.suspend()  # not if its pid was taken by another process since
            except Exception:  # noqa: BLE001 - gone
                pass
    left = []
    for p in seen:
        try:
            p.kill()
            left.append(p)
        except Exception:  # noqa: BLE001 - gone
            pass

    def running(p):  # a killed child of the command stays a zombie until the command reaps it
        try:
            return p.is_running() and p.status() != "zombie"
        except Exception:  # noqa: BLE001 - gone
            return False

    for _ in range(100):
        left = [p for p in left if running(p)]
        if not left:
            break
        time.sleep(0.05)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.path.insert(0, sys.argv[3])  # psutil, as the driver imported it (Ray brings one)
    main(int(sys.argv[1]), sys.argv[2], *sys.argv[4:5])
