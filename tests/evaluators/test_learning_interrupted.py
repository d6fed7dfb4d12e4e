"""A Ctrl-C (or SIGTERM) while a learner learns on several threads. The kernel may hand a
signal sent to the process to any of its threads; Python runs the handler in the main
thread only, between bytecodes: a main thread blocked in ``Future.result()`` for the whole
budget heard it only at the budget's end. And a signal handled while the pool starts a
thread (``submit`` waits for it to start) left that thread unknown to the pool and
learning to its budget's end: a ``train`` of ``og`` on two threads said "interrupted" at
once, then its process waited 54 s for the thread."""

import concurrent.futures
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from pokersquares import progress
from pokersquares.evaluators.patterns import learn_utilities
from pokersquares.machine import SIGNAL_POLL_S, run_in_threads
from pokersquares.points import BRITISH

POINTS = np.array(BRITISH.points, dtype=np.int64)


@pytest.fixture
def ctrl_c_raises():
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _learning_threads():
    return [t for t in threading.enumerate() if t.name.startswith("ThreadPoolExecutor") and t.is_alive()]


def test_a_signal_a_learning_thread_receives_stops_the_learning_at_once(ctrl_c_raises):
    sent = []

    def from_a_learning_thread(p):
        if p.games and threading.current_thread() is not threading.main_thread() and not sent:
            sent.append(time.monotonic())
            signal.pthread_kill(threading.get_ident(), signal.SIGINT)

    with progress.listening(from_a_learning_thread), pytest.raises(KeyboardInterrupt):
        learn_utilities(POINTS, 30.0, threads=2)
    assert sent, "no learning thread reported"
    assert time.monotonic() - sent[0] < 3.0, f"the learning ran {time.monotonic() - sent[0]:.1f} s after the signal"
    assert not _learning_threads()  # both ended with it


class _InterruptedAtTheSecondThread(ThreadPoolExecutor):
    """A pool in which the signal is handled as the second thread starts (after its work
    is queued): the KeyboardInterrupt comes out of ``submit``."""

    def submit(self, *args, **kwargs):
        future = super().submit(*args, **kwargs)
        if len(self._threads) == 2:
            raise KeyboardInterrupt
        return future


def test_a_signal_handled_while_a_learning_thread_starts_stops_every_thread(monkeypatch):
    monkeypatch.setattr(concurrent.futures, "ThreadPoolExecutor", _InterruptedAtTheSecondThread)
    t = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        learn_utilities(POINTS, 30.0, threads=2)
    while _learning_threads() and time.monotonic() - t < 20:
        time.sleep(0.05)
    assert time.monotonic() - t < 3.0, f"a learning thread ran {time.monotonic() - t:.1f} s after the signal"


def test_the_wait_wakes_for_a_signal_another_thread_received_and_sets_stop(ctrl_c_raises):
    stop = threading.Event()

    def work(k):
        if k == 0:
            time.sleep(0.3)  # the main thread waits by then
            signal.pthread_kill(threading.get_ident(), signal.SIGINT)
        stop.wait(20)  # a thread that ends when told to, or after 20 s
        return k

    with ThreadPoolExecutor(2) as pool:
        t = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            run_in_threads(pool, [lambda k=k: work(k) for k in range(2)], stop)
        assert time.monotonic() - t < 0.3 + 10 * SIGNAL_POLL_S + 1.0
        assert stop.is_set()  # the threads were told to end


def _after(seconds):
    time.sleep(seconds)
    return seconds


def test_the_results_come_in_the_order_of_the_calls():
    with ThreadPoolExecutor(3) as pool:
        assert run_in_threads(pool, [lambda d=d: _after(d) for d in (0.3, 0.0, 0.15)]) == [0.3, 0.0, 0.15]
