"""The names the README and the package docstrings use resolve from the packages, and
every name a package lists in ``__all__`` is there."""

import importlib

import pytest

from pokersquares.harness.game_play import play_game, prepare_player
from pokersquares.points import AMERICAN


@pytest.mark.parametrize("package", ["pokersquares.evaluators", "pokersquares.search", "pokersquares.players"])
def test_every_name_in_all_resolves(package):
    module = importlib.import_module(package)
    for name in module.__all__:
        assert isinstance(getattr(module, name), type), name
    with pytest.raises(AttributeError):
        module.NoSuchName  # noqa: B018


def test_the_readme_composition_plays_a_legal_game():
    from pokersquares.evaluators import NarlEvaluator
    from pokersquares.evaluators.narl import NarlEvaluator as Narl
    from pokersquares.players import SearchPlayer
    from pokersquares.search import MCTS
    from pokersquares.search.mcts import MCTS as Mcts
    assert NarlEvaluator is Narl and MCTS is Mcts
    player = SearchPlayer(NarlEvaluator(), MCTS())
    prepare_player(player, AMERICAN, 0.5)
    record = play_game(player, AMERICAN, seed=3, time_per_game=2.0)
    assert record.penalty is None and len(record.placements) == 25


def test_the_kernels_names_are_checked_and_their_kernels_stay_in_core():
    """``pokersquares.kernels``' names check their arguments (tests/kernels/test_public_kernels.py);
    the unchecked kernels of the same names stay in ``pokersquares.kernels.core``, where the
    package's own loops and numba code call them."""
    from numba.core.registry import CPUDispatcher

    from pokersquares import kernels
    for name in kernels.__all__:
        public = getattr(kernels, name)
        if name == "LINES_ARRAY":
            assert public is kernels.core.LINES_ARRAY
            continue
        assert callable(public) and public.__doc__ and not isinstance(public, CPUDispatcher), name
        assert isinstance(getattr(kernels.core, name), CPUDispatcher), name
