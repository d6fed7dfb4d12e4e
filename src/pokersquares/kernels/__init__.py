"""The fast path: numba kernels over small integer arrays.

Every kernel implements a rule whose readable reference lives in the plain-Python
modules (``hands``, ``game``); the tests check each against its reference. Cards are
``int8`` ids (``-1`` for an empty cell), grids are ``int8[25]`` in cell order, point
systems are ``int64[10]``. Kernels compile with ``cache=True``, so only the first
run on a machine pays for compilation.
"""

from .cache import stamp_with_kernel_sources, tolerate_unwritable_cache

tolerate_unwritable_cache()  # before any kernel compiles: a cache that cannot be written is no error
stamp_with_kernel_sources()  # before any kernel is defined: an edit to core.py makes td's cache stale too

from .core import (  # noqa: E402
    LINES_ARRAY, add_card, classify_cards, classify_batch, classify_line, classify_packed, line_features,
    score_grid, line_scores,
    random_games, random_games_parallel, rng_seed, rng_next, rng_below, shuffle_prefix,
)

__all__ = [
    "LINES_ARRAY", "add_card", "classify_cards", "classify_batch", "classify_line", "classify_packed", "line_features",
    "score_grid", "line_scores",
    "random_games", "random_games_parallel", "rng_seed", "rng_next", "rng_below", "shuffle_prefix",
]
