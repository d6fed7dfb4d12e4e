"""Choosing a backend: bad choices are one-line errors, and Ray is optional."""

import sys

import pytest

from pokersquares import AMERICAN
from pokersquares.errors import PokerSquaresError
from pokersquares.harness.runner import BackendError, RunSpec, backend_session, check_backend, record_run
from pokersquares.harness.store import ResultStore


def test_unknown_backend_and_address_without_ray_are_errors(tmp_path):
    with pytest.raises(BackendError, match="unknown backend"):
        check_backend("spark")
    with pytest.raises(BackendError, match="--address"):
        check_backend("local", "head:6379")
    with pytest.raises(BackendError):
        record_run(RunSpec("greedy", AMERICAN, 1), ResultStore(tmp_path / "x.sqlite"), backend="dask")


def test_ray_missing_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now fails as if absent
    with pytest.raises(PokerSquaresError, match=r"pip install 'pokersquares\[ray\]'"):
        with backend_session("ray"):
            pass


def test_unreachable_cluster_is_reported_at_once():
    pytest.importorskip("ray")
    from pokersquares.harness import ray_backend
    with pytest.raises(ray_backend.RayUnavailableError, match="cannot reach"):
        ray_backend.init("127.0.0.1:1")


class _FakeRay:
    """Just what ``_ray_init`` touches: ``init``, which sends this process ``signals``
    signals ``signum`` (SIGTERM) part-way, and the constant that keeps the C++ failure handler out."""

    def __init__(self, signals: int, events: list, signum=None):
        import signal
        import types

        self.signals, self.events, self.signum = signals, events, signum or signal.SIGTERM
        self._private = types.SimpleNamespace(
            utils=types.SimpleNamespace(set_sigterm_handler=lambda h: events.append("ray's handler")),
            ray_constants=types.SimpleNamespace(RAY_DISABLE_FAILURE_SIGNAL_HANDLER=False))

    def init(self, **options):
        import os
        import time

        self.events.append(("failure handler off", self._private.ray_constants.RAY_DISABLE_FAILURE_SIGNAL_HANDLER))
        self._private.utils.set_sigterm_handler(None)
        for _ in range(self.signals):
            os.kill(os.getpid(), self.signum)
            time.sleep(0.05)  # the Python handler runs here
        self.events.append("ray started")


class _Stopped(Exception):
    pass


@pytest.mark.parametrize("signals, events", [
    (0, [("failure handler off", True), "ray started"]),
    (1, [("failure handler off", True), "ray started", "stopped"]),  # held until Ray has started
    (2, [("failure handler off", True), "stopped"]),  # a second: at once
])
@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])  # kill's, a closed terminal's
def test_a_stop_signal_while_ray_starts_is_raised_once_it_has_started(signals, events, signame):
    import signal

    from pokersquares.harness import ray_backend

    seen = []

    def command_handler(signum, frame):
        seen.append("stopped")
        raise _Stopped()

    signum = getattr(signal, signame)
    fake = _FakeRay(signals, seen, signum)
    before = {s: signal.signal(s, command_handler) for s in (signal.SIGTERM, signal.SIGHUP)}  # as the command's
    try:
        if signals:
            with pytest.raises(_Stopped):
                ray_backend._ray_init(fake)
        else:
            ray_backend._ray_init(fake)
        assert signal.getsignal(signum) is command_handler  # the command's, after
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)
    assert seen == events
    assert fake._private.ray_constants.RAY_DISABLE_FAILURE_SIGNAL_HANDLER is False  # as it was
