"""The Ray instance's watcher finds every process of the instance, also those started
after the command died (the kill of the command is the moment it must be complete)."""

import pytest

from pokersquares.harness.ray_watcher import look


class Proc:
    """A stand-in for a psutil process: a pid, a start time, a command line, alive or not."""

    def __init__(self, pid: int, cmdline: str = "python worker", alive: bool = True) -> None:
        self.pid, self._cmdline, self.alive = pid, cmdline, alive

    def create_time(self) -> float:
        return 1000.0 + self.pid

    def cmdline(self) -> list[str]:
        return self._cmdline.split()

    def is_running(self) -> bool:
        return self.alive

    def __hash__(self) -> int:
        return self.pid

    def __eq__(self, other) -> bool:
        return isinstance(other, Proc) and other.pid == self.pid


DRIVER, ME, RAY = 100, 101, "/tmp/ray/session_1"


def test_the_instance_is_the_drivers_ray_children_and_all_their_descendants_parents_first():
    raylet, gcs, other, me = Proc(10, f"raylet --dir {RAY}"), Proc(11, f"gcs {RAY}"), Proc(12, "vim"), Proc(ME)
    agent, worker, grandchild = Proc(20), Proc(21), Proc(30)
    ppids = {DRIVER: [raylet, gcs, other, me], 10: [agent, worker], 21: [grandchild]}
    seen, ray_children = {}, {}
    look(ppids, DRIVER, ME, RAY, seen, ray_children)
    assert list(seen) == [raylet, gcs, agent, worker, grandchild]  # not the editor, not the watcher


def test_a_worker_started_after_the_driver_was_killed_is_found_from_its_parent_seen_before():
    raylet, agent = Proc(10, f"raylet {RAY}"), Proc(20)
    seen, ray_children = {}, {}
    look({DRIVER: [raylet], 10: [agent]}, DRIVER, ME, RAY, seen, ray_children)
    late, its_child = Proc(22), Proc(40)
    # the driver is gone (its children now init's), and the raylet started a worker since
    look({1: [raylet], 10: [agent, late], 22: [its_child]}, DRIVER, ME, RAY, seen, ray_children)
    assert list(seen) == [raylet, agent, late, its_child]


def test_the_children_of_a_process_that_ended_and_whose_pid_was_taken_are_not_the_instances():
    raylet, agent = Proc(10, f"raylet {RAY}"), Proc(20)
    seen, ray_children = {}, {}
    look({DRIVER: [raylet], 10: [agent]}, DRIVER, ME, RAY, seen, ray_children)
    raylet.alive = False  # ended: pid 10 is now someone else's, whose child is not ours
    look({1: [Proc(10, "sshd")], 10: [Proc(50, "bash")]}, DRIVER, ME, RAY, seen, ray_children)
    assert list(seen) == [raylet, agent]


def test_a_child_seen_before_its_exec_is_looked_at_again():
    """Ray starts a process by fork, a preexec function and exec: until the exec the
    child shows the driver's command line, and is Ray's all the same."""
    raylet = Proc(10, "python -m pokersquares run --backend ray")  # forked, not yet exec'd
    agent = Proc(20)
    seen, ray_children = {}, {}
    look({DRIVER: [raylet]}, DRIVER, ME, RAY, seen, ray_children)
    assert list(seen) == []
    raylet._cmdline = f"raylet --dir {RAY}"
    look({DRIVER: [raylet], 10: [agent]}, DRIVER, ME, RAY, seen, ray_children)
    assert list(seen) == [raylet, agent]


class Forking(Proc):
    """A process that, if it is a raylet, starts a worker whenever time passes while it
    runs: stopped by ``suspend``, ended by ``kill``."""

    def __init__(self, pid: int, world: dict, raylet: bool = False) -> None:
        super().__init__(pid)
        self.world, self.raylet, self.stopped, self.killed = world, raylet, False, False

    def suspend(self) -> None:
        self.stopped = True

    def kill(self) -> None:
        self.killed = True

    def is_running(self) -> bool:
        return not self.killed  # a killed process is gone: the end does not wait its 5 s for it

    def status(self) -> str:
        return "stopped" if self.stopped else "running"

    def tick(self) -> None:
        if self.raylet and not self.stopped and not self.killed:
            child = Forking(1000 + len(self.world), self.world)
            self.world.setdefault(self.pid, []).append(child)


def test_the_end_stops_the_instance_before_it_kills_it_so_no_late_child_is_left():
    from pokersquares.harness.ray_watcher import end

    world: dict = {}
    raylet = Forking(10, world, raylet=True)
    world[DRIVER] = [raylet]
    seen, ray_children = {}, {}

    def look_now():
        look(world, DRIVER, ME, "python", seen, ray_children)
        for p in [q for children in list(world.values()) for q in children]:
            p.tick()  # time passes after each look: every running process starts a child

    look_now()
    end(seen, look_now)
    everyone = [q for children in world.values() for q in children]
    assert len(everyone) > 2  # children were started before the end
    assert [p.pid for p in everyone if not p.killed] == []


def test_the_end_kills_a_process_carrying_the_instances_mark_that_no_look_found(tmp_path):
    """A process the raylet started just before the driver was killed, whose parent died
    before the next look, is no one's child the watcher knows: it carries the mark the
    driver put in its environment while Ray started, and the end kills it. A process
    without the mark, or with another instance's, is left alone."""
    import os
    import subprocess
    import sys

    pytest.importorskip("ray")  # which brings psutil, as for the watcher
    psutil = pytest.importorskip("psutil")
    from pokersquares.harness.ray_watcher import MARK_VARIABLE

    def orphan(mark: str | None) -> psutil.Process:
        """A ``sleep`` in a session of its own, its parent (a shell) already gone."""
        env = {k: v for k, v in os.environ.items() if k != MARK_VARIABLE}
        if mark is not None:
            env[MARK_VARIABLE] = mark
        pid_file = tmp_path / f"pid-{mark}"
        subprocess.run(["sh", "-c", f"sleep 120 >/dev/null 2>&1 & echo $! > {pid_file}"], env=env, check=True,
                       start_new_session=True)
        return psutil.Process(int(pid_file.read_text()))

    driver = subprocess.Popen(["sleep", "120"])
    ours, unmarked, another = orphan("instance-1"), orphan(None), orphan("instance-2")
    try:
        watcher = subprocess.Popen(
            [sys.executable, "-m", "pokersquares.harness.ray_watcher", str(driver.pid), str(tmp_path / "no-ray-here"),
             os.path.dirname(os.path.dirname(psutil.__file__)), "instance-1"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, start_new_session=True)
        watcher.stdin.write("look\n")
        watcher.stdin.flush()
        assert watcher.stdout.readline() == "ok\n"
        driver.kill()
        driver.wait()
        watcher.stdin.close()  # the driver died: its end of the pipe closes
        assert watcher.wait(timeout=30) == 0
        psutil.wait_procs([ours], timeout=5)
        assert not ours.is_running()
        assert unmarked.is_running() and another.is_running()
    finally:
        for p in (ours, unmarked, another):
            try:
                p.kill()
            except psutil.Error:
                pass
        driver.kill()
