"""PokerSquares-v0 in Gymnasium's vector environments, as RL training loops run it.

The workers run only the environment (no numba parallel kernel), so forking them from the
test process is safe even after other tests ran such kernels here."""

import warnings

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

import pokersquares.envs  # noqa: E402,F401  (registers PokerSquares-v0)
from pokersquares.errors import IllegalPlacementError  # noqa: E402


def test_an_illegal_action_in_an_async_vector_env_raises_the_environments_error():
    # AsyncVectorEnv logs the worker's traceback through a %-formatting logger: the raising
    # line's "cell % 5" made that fail, and the user got "TypeError: not enough arguments
    # for format string" in place of the illegal placement.
    vec = gym.make_vec("PokerSquares-v0", num_envs=2, vectorization_mode="async")
    try:
        vec.reset(seed=1)
        vec.step(np.array([0, 0]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Gymnasium's "Received the following error from Worker-0"
            with pytest.raises(IllegalPlacementError, match=r"cell 0 \(row 0, col 0\) already holds"):
                vec.step(np.array([0, 1]))
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            vec.close(terminate=True)
