"""The numba form of an evaluator, for searches that run their whole loop in numba."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

__all__ = ["EvaluatorKernel"]


class EvaluatorKernel(NamedTuple):
    """Two jitted functions and the parameters they take, as an evaluator offers them
    through ``Evaluator.kernel()``:

    - ``child_values(grid, card, params, out)``, compiled for the signature
      ``void(int8[::1], int64, float64[::1], float64[::1])``, fills ``out`` like
      ``placement_values`` (``grid`` may change during the call but is restored);
    - ``state_value(grid, params)``, compiled for ``float64(int8[::1], float64[::1])``,
      like ``Evaluator.state_value``;
    - ``params``: one ``float64`` array holding whatever the two functions need;
    - ``baseline``: ``float64[26]``, for a grid of ``k`` cards the part of its value
      that MCTS's pruning rule (``delta * h(parent)``, stated for a heuristic that is
      0 on an empty grid) leaves out; zeros where the evaluator has none.

    Both functions keep :class:`~pokersquares.evaluators.base.Evaluator`'s contract:
    their values are estimates of the final score.

    Fixed signatures let a numba search take the functions as typed function
    pointers, so the search is compiled once for all evaluators and cached on disk.
    """

    child_values: Any
    state_value: Any
    params: Any
    baseline: Any = np.zeros(26)
