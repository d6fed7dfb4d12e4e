"""The watcher of a local Ray instance (:mod:`pokersquares.harness.ray_backend`).

Run as ``python -m pokersquares.harness.ray_watcher DRIVER_PID RAY_DIR PSUTIL_DIR`` in a
session of its own (a Ctrl-C or a SIGTERM to the command's group is the command's to
handle), it lists the processes of the instance (the driver's children started from
Ray's folder, and all theirs: the raylet's agents and workers) twice a second while it
starts, every 2 s after, and whenever a line comes on its standard input (answering "ok"
once it looked), and kills those still running when its standard input closes: the
command shut Ray down, or died. Ray alone leaves the raylet's agents running for up to a
minute after an interruption, waiting on its stopped GCS.
"""

import os
import select
import signal
import sys
import time


def main(driver: int, ray_dir: str) -> None:
    import psutil

    me = os.getpid()
    seen: dict = {}  # psutil processes (a pid and its start time), parents first
    ray_children: dict = {}

    def look():
        ppids = {}
        for p in psutil.process_iter(["ppid"]):
            ppids.setdefault(p.info["ppid"], []).append(p)
        front = []
        for child in ppids.get(driver, []):
            if child.pid == me:
                continue
            key = (child.pid, child.create_time())
            if key not in ray_children:
                try:
                    ray_children[key] = ray_dir in " ".join(child.cmdline())
                except psutil.Error:
                    ray_children[key] = False
            if ray_children[key]:
                front.append(child)
        while front:
            seen.update(dict.fromkeys(front))
            front = [c for p in front for c in ppids.get(p.pid, []) if c not in seen]

    looks = 0
    while True:
        try:
            look()
        except psutil.Error:
            pass
        looks += 1  # twice a second while the instance starts (its agents start with it), then every 2 s
        if select.select([sys.stdin], [], [], 0.5 if looks < 30 else 2.0)[0]:
            if not sys.stdin.readline():
                break
            look()
            print("ok", flush=True)
    try:
        look()  # the command shut Ray down (still running, it still has the rest as its children) or died
    except psutil.Error:
        pass
    left = []
    for p in seen:  # parents first: a raylet killed starts no new worker or agent
        try:
            p.kill()  # not if its pid was taken by another process since
            left.append(p)
        except psutil.Error:
            pass

    def running(p):  # a killed child of the command stays a zombie until the command reaps it
        try:
            return p.is_running() and p.status() != psutil.STATUS_ZOMBIE
        except psutil.Error:
            return False

    for _ in range(100):
        left = [p for p in left if running(p)]
        if not left:
            break
        time.sleep(0.05)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.path.insert(0, sys.argv[3])  # psutil, as the driver imported it (Ray brings one)
    main(int(sys.argv[1]), sys.argv[2])
