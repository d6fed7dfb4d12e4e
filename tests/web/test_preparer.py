"""The preparation queue: a page's preparation does not wait behind the server's warm-up."""

import threading

import pytest

from pokersquares import AMERICAN
from pokersquares.web.agents import Preparation, _Preparer


def _prep(agent: str, priority: int) -> Preparation:
    return Preparation(agent, AMERICAN, 1, priority, {"page" if priority == 0 else "server"})


@pytest.fixture
def one_worker():
    """A preparer with one worker whose preparations block until released; yields it,
    ``seen(agent, timeout)`` (has that agent's preparation started?) and the release."""
    started: dict[str, threading.Event] = {}
    release = threading.Event()

    def run(prep: Preparation) -> None:
        started.setdefault(prep.agent, threading.Event()).set()
        release.wait(10)

    def seen(agent: str, timeout: float) -> bool:
        return started.setdefault(agent, threading.Event()).wait(timeout)

    preparer = _Preparer(run, 1)
    yield preparer, seen, release
    release.set()
    preparer.close()


def test_a_page_starts_at_once_while_every_worker_prepares_a_warm_up(one_worker):
    preparer, seen, _ = one_worker
    preparer.submit(_prep("og", 1))
    assert seen("og", 5)
    preparer.submit(_prep("tiger", 1))  # another warm-up waits for the worker
    preparer.submit(_prep("beemo", 0))  # a page's: started on a thread of its own
    assert seen("beemo", 5)
    assert not seen("tiger", 0.3)


def test_a_page_waits_behind_another_page_not_on_an_extra_thread(one_worker):
    preparer, seen, release = one_worker
    preparer.submit(_prep("og", 0))
    assert seen("og", 5)
    second = _prep("beemo", 0)
    preparer.submit(second)
    assert not seen("beemo", 0.3) and preparer.position(second) == 1
    release.set()
    assert seen("beemo", 5)


def test_a_warm_up_promoted_by_a_page_starts_past_the_busy_warm_ups(one_worker):
    preparer, seen, _ = one_worker
    preparer.submit(_prep("og", 1))
    assert seen("og", 5)
    queued = _prep("tiger", 1)
    preparer.submit(queued)
    assert not seen("tiger", 0.3)
    preparer.promote(queued)  # a page asked for the agent the server meant to warm
    assert seen("tiger", 5)


class _LearnsUntilReleased:
    """An agent whose learning waits for ``release``, then fails as a learner does when
    the stopping interpreter's thread pools refuse its work."""

    release = threading.Event()
    learning = threading.Event()

    def set_point_system(self, point_system, budget_s) -> None:
        type(self).learning.set()
        type(self).release.wait(10)
        raise RuntimeError("cannot schedule new futures after shutdown")


def test_a_preparation_the_stopping_server_breaks_ends_cancelled_not_failed():
    from pokersquares.web.agents import CANCELLED, FAILED, AgentPool, AgentSpec

    _LearnsUntilReleased.release.clear()
    _LearnsUntilReleased.learning.clear()
    pool = AgentPool({"slow": AgentSpec(_LearnsUntilReleased, "learns until released")}, prep_s=1.0)
    prep = pool.request("slow", AMERICAN)
    assert _LearnsUntilReleased.learning.wait(10)
    pool.close()
    assert pool.closed
    _LearnsUntilReleased.release.set()
    prep.done.result(10)
    assert prep.phase == CANCELLED  # the server's console says nothing of it: not the agent's failure

    open_pool = AgentPool({"slow": AgentSpec(_LearnsUntilReleased, "learns until released")}, prep_s=1.0)
    try:
        prep = open_pool.request("slow", AMERICAN)  # released already: it fails at once
        prep.done.result(10)
        assert prep.phase == FAILED  # while the server runs, a failure is one
    finally:
        open_pool.close()
