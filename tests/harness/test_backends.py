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
