import pytest


@pytest.fixture
def cli(cli, player_kernels):
    """The root conftest's ``cli``, once ``player_kernels`` are loaded (its commands here
    fork processes that play their games)."""
    return cli
