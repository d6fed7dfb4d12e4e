"""The clocks behind the contest's limits: every budget and deadline is read on the
monotonic clock (``time.monotonic``, ``time.perf_counter``), never the wall clock that
NTP or a user can step, and an event is never timed from a reading taken before it.

The 2016 framework timed each ``getPlay`` with ``System.currentTimeMillis()``, the wall
clock: a clock stepped back an hour in the middle of a move gave that move an hour more,
and one stepped forward scored its game the penalty. Here neither may happen."""

import _thread
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from types import SimpleNamespace

import numpy as np
import pytest

from pokersquares import AMERICAN, progress
from pokersquares.harness import ray_backend, spec as spec_module
from pokersquares.harness.game_play import play_game
from pokersquares.harness.runner import RunSpec, run_games
from pokersquares.harness.runner import RunnerWarning
from pokersquares.harness.spec import HANG_GRACE_S
from pokersquares.optimum import exact
from pokersquares.players.move_clock import MoveClock

HOUR = 3600.0


class _SteppedWallClock:
    """``time.time`` stepped an hour forward, then back, at each call of :meth:`step`
    (what NTP or ``date -s`` does to a running process)."""

    def __init__(self, real) -> None:
        self.real, self.offset, self.steps = real, 0.0, 0

    def __call__(self) -> float:
        return self.real() + self.offset

    def step(self) -> None:
        self.steps += 1
        self.offset = HOUR if self.steps % 2 else -HOUR


class _StepsTheClockEachMove:
    """Places each card in the next empty cell, stepping the wall clock as it answers."""

    name, cores = "steps-the-clock", 1

    def __init__(self, clock: _SteppedWallClock) -> None:
        self.clock = clock

    def set_point_system(self, point_system, budget_s) -> None:
        pass

    def start_game(self) -> None:
        self.cell = 0

    def get_play(self, card, seconds_left):
        self.clock.step()
        self.cell += 1
        return divmod(self.cell - 1, 5)


def test_a_wall_clock_stepped_an_hour_each_move_neither_times_out_a_game_nor_gives_it_more(monkeypatch):
    clock = _SteppedWallClock(time.time)
    monkeypatch.setattr(time, "time", clock)
    record = play_game(_StepsTheClockEachMove(clock), AMERICAN, seed=3, time_per_game=0.5)
    assert clock.steps == 25
    assert record.penalty is None and len(record.placements) == 25
    assert 0 <= record.decision_s < 0.5  # milliseconds, not an hour either way


def test_a_move_clock_and_the_progress_line_ignore_a_stepped_wall_clock(monkeypatch):
    clock = _SteppedWallClock(time.time)
    monkeypatch.setattr(time, "time", clock)
    move_clock = MoveClock()
    budget = move_clock.budget(30.0, 24)
    clock.step()  # an hour forward in the middle of the move
    move_clock.move_done()
    assert 0 < budget < 30.0 and move_clock.spent_s < 1.0
    heard = []
    with progress.listening(heard.append):
        progress.report("learning", 0, 10.0, force=True)
        clock.step()  # an hour ahead to an hour behind: a wall clock's rate limit held reports for two hours
        time.sleep(progress.MIN_INTERVAL_S + 0.05)
        progress.report("learning", 100, 9.0)
        assert [p.games for p in heard] == [0, 100]


def test_a_run_whose_watch_stalls_longer_than_a_game_and_its_grace_penalises_no_game():
    """Ctrl-Z stops the run's process alone (each worker leads its own process group, so
    the terminal's SIGTSTP does not reach it): the games in flight finish on their own
    clocks meanwhile, and on ``fg`` the watch, which did not run for longer than a game's
    limit, must read their results, not time them out."""
    stalled = []

    def stall(record) -> None:  # at the first result, while the next games are in flight
        if not stalled:
            stalled.append(record.game_index)
            time.sleep(0.2 + HANG_GRACE_S + 1.0)  # longer than a game's time and its grace

    spec = RunSpec("greedy", AMERICAN, games=6, seed=0, time_per_game=0.2, prep_time=0.0)
    records = run_games(spec, range(6), workers=2, on_result=stall)
    assert stalled and [r.penalty for r in records] == [None] * 6


def test_a_preparation_frozen_with_the_run_past_its_limit_is_not_stopped_when_both_thaw(monkeypatch):
    """Everything frozen at once (a paused container or virtual machine: the monotonic
    clock counts it, a suspended laptop does not) past a preparation's limit: on thawing,
    the run's watch looked at its clock before the preparation, which ended at once, had
    answered, and every game of the run scored the penalty ("preparation exceeded its
    budget"). Here the run's process stalls in the progress line for longer than the
    limit, with the preparation stopped, which goes on half a second after it."""
    monkeypatch.setattr(spec_module, "HANG_GRACE_S", 0.5)  # a preparation of 1 s is stopped 1.5 s in
    frozen = []

    def freeze(p: progress.Progress) -> None:
        if p.stage == "learning" and not frozen:
            (prep,) = multiprocessing.active_children()
            frozen.append(prep.pid)
            os.killpg(prep.pid, signal.SIGSTOP)
            time.sleep(2.0)
            threading.Timer(0.5, os.killpg, (prep.pid, signal.SIGCONT)).start()

    notes = []
    spec = RunSpec("gettysburg", AMERICAN, games=2, seed=0, time_per_game=0.5, prep_time=1.0)
    with progress.listening(freeze):
        records = run_games(spec, range(2), workers=1, on_note=notes.append)
    assert frozen and [r.penalty for r in records] == [None, None]
    assert any("past its budget of 1 s" in n for n in notes)  # the player's own clock counted the freeze


def test_games_frozen_with_the_run_are_played_again_not_penalised(monkeypatch):
    """Everything frozen at once mid-game (a paused container or virtual machine): on
    thawing, each game in flight had its clock run through the freeze and scored
    "timeout" (the game cannot tell a freeze from a slow move). The run's watch, which
    did not run meanwhile either, knows: those games are played again, once. Here the
    run's process stalls at its first result with both workers stopped mid-game; they
    go on just after it does, past their watch's limit (the game's time and its grace)."""
    from pokersquares.harness import local_backend

    monkeypatch.setattr(local_backend, "HANG_GRACE_S", 0.5)  # the watch's limit: 1 s, within the freeze
    frozen = []

    def freeze(record) -> None:
        if not frozen:
            for worker in multiprocessing.active_children():
                frozen.append(worker.pid)
                os.killpg(worker.pid, signal.SIGSTOP)
            time.sleep(1.8)  # past the games' 0.5 s and the watch's stall threshold
            for pid in frozen:
                threading.Timer(0.3, os.killpg, (pid, signal.SIGCONT)).start()

    notes = []
    spec = RunSpec("fault_players:SlowGames", AMERICAN, games=8, seed=0, time_per_game=0.5, prep_time=0.0)
    records = run_games(spec, range(8), workers=2, on_result=freeze, on_note=notes.append)
    assert len(frozen) == 2 and [r.penalty for r in records] == [None] * 8, [r.penalty for r in records]
    assert any("it is played again" in n for n in notes), notes


def test_a_genuine_timeout_in_a_frozen_game_is_played_again_once_then_recorded():
    """The second try is not forgiven: a player too slow for its clock scores the penalty."""
    from pokersquares.harness import local_backend

    pool = SimpleNamespace(frozen={0}, thawed=set(), notes=[], finished=[])
    record = SimpleNamespace(penalty="timeout: 0.90 s of decision time, limit 0.5 s", game_index=0)
    worker = SimpleNamespace(conn=SimpleNamespace(recv=lambda: ("result", record)), assigned=deque([0]), started=0.0)
    todo = deque()
    receive = local_backend._Pool._receive
    fake = SimpleNamespace(frozen=pool.frozen, thawed=pool.thawed, note=pool.notes.append, finish=pool.finished.append)
    assert receive(fake, worker, 1.0, todo) is None and list(todo) == [0] and not pool.finished
    worker.assigned.append(0)
    assert receive(fake, worker, 2.0, todo) is None and pool.finished == [record]
    assert list(todo) == [0] and len(pool.notes) == 1


class _DrainAnsweredLate:
    """The Ray driver's start clock and ``ray`` as the driver sees them: the drain is
    answered ``wait_s`` after the driver starts waiting for it, and a game's start mark
    is made ``mark_s`` into that wait (a task that began while the driver waited)."""

    class exceptions:
        RayError = RuntimeError

    def __init__(self, wait_s: float, mark_s: float) -> None:
        self.wait_s, self.mark_s, self.marked_at = wait_s, mark_s, None
        self.drain = SimpleNamespace(remote=lambda: "drain-ref")

    def wait(self, refs, num_returns=1, timeout=None):
        time.sleep(self.mark_s)
        self.marked_at = time.monotonic()
        time.sleep(self.wait_s - self.mark_s)
        return list(refs), []

    def get(self, ref):
        return [("play", 0, 5, 0, "node-a")]


def test_a_ray_game_whose_start_mark_came_while_the_driver_waited_is_timed_from_the_mark():
    """The driver once stamped such a game's start with the time read before it waited
    (up to a second earlier), and stopped the game that much before its time + grace."""
    fake = _DrainAnsweredLate(wait_s=0.6, mark_s=0.4)
    driver = object.__new__(ray_backend._Driver)  # only its clock: no run, no task submitted
    task = ray_backend._Task(0, 5, 0, since=0.0)
    driver.ray, driver.clock, driver.flying, driver.draining = fake, fake, {"ref": task}, None
    driver.runs = [SimpleNamespace(spec=SimpleNamespace(time_per_game=1.0, prep_time=0.0), unpicklable=False)]
    driver.workers, driver.drained, driver.limit_checked = 1, 0.0, 0.0
    driver.watch()
    assert task.phase == "play" and task.node == "node-a"
    assert task.since >= fake.marked_at, f"the game's clock started {fake.marked_at - task.since:.2f} s before it began"
    assert np.isclose(driver.limit(task), 1.0 + ray_backend.HANG_GRACE_S)


class _Subscribers(list):
    def subscribe(self, f) -> None:
        self.append(f)

    def unsubscribe(self, f) -> None:
        self.remove(f)


class _OvershootingHighs:
    """HiGHS as ``solve_exact`` drives it, solving the relaxation at once and then
    running its branch and bound for ``mip_s`` seconds whatever its ``time_limit``
    (what the real one did past its limit: 20.6 s of a 15 s solve), calling its MIP
    interrupt callbacks every 20 ms as the real one does between its steps."""

    instances: list = []
    mip_started = threading.Event()

    def __init__(self, mip_s: float = 3.0) -> None:
        self.mip_s, self.mip, self.status, self.interrupted = mip_s, False, "optimal", False
        self.cbSimplexInterrupt, self.cbMipInterrupt = _Subscribers(), _Subscribers()
        self.branching = self.mip_started  # set when its branch and bound begins
        self.instances.append(self)

    def setOptionValue(self, name, value) -> None:
        pass

    def passModel(self, lp) -> None:
        pass

    def addRow(self, *args) -> None:
        pass

    def changeColsIntegrality(self, *args) -> None:
        self.mip = True

    def run(self) -> None:
        if not self.mip:
            self.status = "optimal"
            return
        self.branching.set()
        end = time.perf_counter() + self.mip_s
        while time.perf_counter() < end:
            time.sleep(0.02)
            event = SimpleNamespace(data_in=SimpleNamespace(user_interrupt=False))
            for callback in list(self.cbMipInterrupt):
                callback(event)
            if event.data_in.user_interrupt:
                self.status, self.interrupted = "interrupt", True
                return
        self.status = "time limit"

    def getModelStatus(self) -> str:
        return self.status

    def getInfo(self):
        return SimpleNamespace(objective_function_value=-1000.0, mip_dual_bound=float("inf"),
                               primal_solution_status=0)


@pytest.fixture
def overshooting_highs(monkeypatch):
    """``highspy`` replaced by a module whose solver overruns its own time limit."""
    _OvershootingHighs.instances, _OvershootingHighs.mip_started = [], threading.Event()
    fake = SimpleNamespace(
        Highs=_OvershootingHighs, kHighsInf=float("inf"),
        HighsLp=lambda: SimpleNamespace(), HighsSparseMatrix=lambda: SimpleNamespace(),
        MatrixFormat=SimpleNamespace(kColwise="colwise"), HighsVarType=SimpleNamespace(kInteger="integer"),
        HighsModelStatus=SimpleNamespace(kOptimal="optimal"))
    monkeypatch.setitem(sys.modules, "highspy", fake)
    monkeypatch.setattr(exact, "MIN_MIP_SECONDS", 0.0)
    return _OvershootingHighs.instances


NINE_CARDS = [0, 5, 9, 13, 18, 22, 26, 31, 35]


def test_an_exact_solve_ends_at_its_time_limit_when_highs_overruns_its_own(overshooting_highs):
    """HiGHS's own clocks leave some of its work out and are read seconds apart: a
    deal's solve given 15 s took up to 20.6 s, and ``solve_deal`` promises its limit."""
    # Once untimed: on an empty numba cache the model's first build compiles, and took the
    # whole 0.5 s before the branch and bound could begin (the first CI of this test).
    exact.solve_exact(NINE_CARDS, np.array([1] * 10), time_limit=0.05, size=3)
    overshooting_highs.clear()
    t = time.perf_counter()
    result = exact.solve_exact(NINE_CARDS, np.array([1] * 10), time_limit=0.5, size=3)
    took = time.perf_counter() - t
    assert took < 0.5 + 0.3, f"a 0.5 s solve took {took:.2f} s"
    assert overshooting_highs[0].interrupted and not result.proven


def test_a_ctrl_c_during_an_exact_solve_stops_the_solver_and_is_raised(overshooting_highs):
    """The solve runs in a thread so that its callbacks never receive the Ctrl-C (in the
    main thread HiGHS swallowed it there and answered a bound of 0); the main thread,
    waiting, gets it, stops the solve at its next callback and raises."""
    def ctrl_c() -> None:  # 0.2 s into the branch and bound
        if _OvershootingHighs.mip_started.wait(10):
            time.sleep(0.2)
            _thread.interrupt_main()

    # Python's own Ctrl-C handler: a suite run in a script's background ignores SIGINT,
    # and interrupt_main() then does nothing (the first CI of this test).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    threading.Thread(target=ctrl_c, daemon=True).start()
    t = time.perf_counter()
    try:
        with pytest.raises(KeyboardInterrupt):
            exact.solve_exact(NINE_CARDS, np.array([1] * 10), time_limit=60.0, size=3)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert time.perf_counter() - t < 2.0 and overshooting_highs[0].interrupted
    for solver in [th for th in threading.enumerate() if th.name == "highs"]:
        solver.join(1.0)  # it returned: its thread ends
        assert not solver.is_alive()


def test_a_ray_preparation_frozen_with_the_driver_past_its_limit_is_not_stopped_when_both_thaw():
    """The Ray driver's watch, as the local one's: a driver that did not watch for ten
    seconds (frozen with everything else) does not hold them against its tasks."""
    fake = _DrainAnsweredLate(wait_s=0.0, mark_s=0.0)
    fake.get = lambda ref: []  # no task began meanwhile
    fake.nodes = lambda: []
    fake.cancel = lambda ref, force=False: None
    driver = object.__new__(ray_backend._Driver)
    now = time.monotonic()
    task = ray_backend._Task(0, None, 0, since=now - 10.5, phase="prep")  # half a second in, then frozen
    spec = SimpleNamespace(time_per_game=1.0, prep_time=1.0, seed=0, point_system=AMERICAN)
    driver.ray, driver.clock, driver.flying, driver.draining = fake, fake, {"ref": task}, None
    driver.runs = [SimpleNamespace(spec=spec, unpicklable=False, todo=deque([0, 1]), results={})]
    driver.workers, driver.drained, driver.limit_checked, driver.on_result = 1, now - 10.0, now, None
    driver.watch()
    assert driver.flying == {"ref": task} and driver.runs[0].results == {}
    assert time.monotonic() - task.since < ray_backend.prep_limit_s(1.0)


def test_a_ray_game_frozen_with_the_driver_is_played_again_once_not_penalised():
    """As the local runner: the answer read on thawing, a timeout by the game's own clock,
    sends the game again; a second timeout is the player's and is recorded."""
    driver = object.__new__(ray_backend._Driver)
    now = time.monotonic()
    task = ray_backend._Task(0, 3, 0, since=now - 10.5, phase="play")
    late = SimpleNamespace(game_index=3, penalty="timeout: 10.60 s of decision time, limit 1 s")
    fake = SimpleNamespace(wait=lambda refs, num_returns=1, timeout=None: (list(refs), []),
                           get=lambda ref: ("result", late), exceptions=SimpleNamespace(RayTaskError=KeyError,
                                                                                       RayError=LookupError))
    sent, finished = [], []
    driver.ray, driver.flying, driver.drained = fake, {"ref": task}, now - 10.0
    driver.frozen, driver.thawed = set(), set()
    driver.runs = [SimpleNamespace(spec=None, todo=deque(), results={})]
    driver.submit = lambda k, index, attempt=0: sent.append((k, index, attempt))
    driver.finish = lambda k, record: finished.append(record)
    with pytest.warns(RunnerWarning, match="game 3's clock ran while the driver did not"):
        driver.collect()
    assert sent == [(0, 3, 1)] and finished == [] and driver.drained > now
    driver.flying = {"again": ray_backend._Task(0, 3, 1, since=time.monotonic(), phase="play")}
    driver.collect()  # the driver ran on: no stall, and the game's second timeout is its own
    assert sent == [(0, 3, 1)] and finished == [late]
