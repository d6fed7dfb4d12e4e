"""Gymnasium environments. Importing this package registers ``PokerSquares-v0``::

    import gymnasium as gym
    import pokersquares.envs  # noqa: F401  (registers the environment)

    env = gym.make("PokerSquares-v0", point_system="british")

or, without the import, ``gym.make("pokersquares.envs:PokerSquares-v0")`` (Gymnasium
imports the module named before the colon). Gymnasium is an optional extra:
``pip install 'pokersquares[gym]'``.
"""

try:
    import gymnasium
except ImportError:
    raise ImportError("the Gymnasium environment needs Gymnasium: pip install 'pokersquares[gym]'") from None

from .policies import MaskedRandomPolicy, PlayerPolicy, PolicyPlayer
from .poker_squares import PokerSquaresEnv

__all__ = ["PokerSquaresEnv", "PlayerPolicy", "PolicyPlayer", "MaskedRandomPolicy", "ENV_ID"]

ENV_ID = "PokerSquares-v0"

if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="pokersquares.envs.poker_squares:PokerSquaresEnv")
