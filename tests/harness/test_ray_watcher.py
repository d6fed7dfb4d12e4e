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
