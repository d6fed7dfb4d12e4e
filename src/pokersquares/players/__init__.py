"""Built-in players. Importing this package registers them by name."""

from .baseline import GreedyPlayer, RandomPlayer

__all__ = ["GreedyPlayer", "RandomPlayer"]
