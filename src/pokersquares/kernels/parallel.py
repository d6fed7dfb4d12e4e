"""The turn numba's parallel kernels take when two threads of one process call them.

numba's ``workqueue`` threading layer (its fallback where neither OpenMP nor TBB is
installed) stops the whole process when two threads run parallel kernels at once
("Concurrent access has been detected", SIGABRT): two threads' BeeMo searches did, and
two threads' ``random_games_parallel``. Under that layer they take turns; under OpenMP
or TBB, which are thread safe, they run at once.
"""

from __future__ import annotations

import contextlib
import threading

__all__ = ["parallel_turn"]

_WORKQUEUE_TURN = threading.Lock()


def parallel_turn():
    """The lock a call of a parallel kernel (``parallel=True``) takes: a lock under
    numba's workqueue threading layer, or before any parallel kernel has run (the layer
    is not chosen yet); under OpenMP or TBB none. Not reentrant: a kernel call holds it,
    nothing more."""
    import numba

    try:
        layer = numba.threading_layer()
    except ValueError:  # no parallel kernel has run in this process yet
        layer = "unknown"
    return contextlib.nullcontext() if layer in ("omp", "tbb") else _WORKQUEUE_TURN
