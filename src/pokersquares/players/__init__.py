"""Built-in players. Importing this package imports every module in it, and each
module marks its players in :mod:`.catalog`, which the harness's registry reads
(see :mod:`pokersquares.harness.registry`); no player imports the registry."""

import importlib
import pkgutil

from .baseline import GreedyPlayer, RandomPlayer
from .composed import SearchPlayer

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")

__all__ = ["GreedyPlayer", "RandomPlayer", "SearchPlayer"]
