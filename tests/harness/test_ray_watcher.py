"""The Ray instance's watcher finds every process of the instance, also those started
after the command died (the kill of the command is the moment it must be complete)."""

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
