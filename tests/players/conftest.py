import pytest

from pokersquares.harness.game_play import play_game


@pytest.fixture
def play_legal():
    """Play one contest game in this process, as the harness plays it (the clock of
    ``time_per_game`` seconds, the deal of ``seed``), and fail the test on any fault:
    a timeout, an illegal or malformed play or an error. Returns the GameRecord."""

    warmed: set[int] = set()

    def play(player, seed: int, time_per_game: float = 30.0, point_system=None):
        if id(player) not in warmed and hasattr(player, "warm_up"):
            # The harness compiles a player's kernels off its clocks before its games; a
            # first game on a cold cache would otherwise spend its search time compiling.
            player.warm_up()
            warmed.add(id(player))
        record = play_game(player, point_system or player.point_system, seed, time_per_game)
        assert record.penalty is None, record.penalty
        assert len(record.placements) == 25
        return record

    return play


@pytest.fixture
def rule_searches(monkeypatch):
    """Record every search over the greedy rule (``greedy_guard.greedy_rule_values``)
    as ``(grid, card, seconds, values)``, the search itself unchanged."""
    from pokersquares.players import greedy_guard

    searches = []
    real = greedy_guard.greedy_rule_values

    def spy(grid, card, points, seed, games=200, seconds=None, **kw):
        values = real(grid, card, points, seed, games=games, seconds=seconds, **kw)
        searches.append((grid.copy(), card, seconds, values))
        return values

    monkeypatch.setattr(greedy_guard, "greedy_rule_values", spy)
    return searches


@pytest.fixture
def refuses_what_is_not_a_position():
    """Check that ``player``'s ``methods`` (``choose``, ``cell_values``) say in one line
    that they were called before ``set_point_system``, then, prepared with ``budget_s``,
    that a card on the grid, card 60, card 30.7, a full grid or a float grid is no
    position; and that a grid as a list is one."""
    import numpy as np

    from pokersquares.errors import IllegalPlacementError, PokerSquaresError
    from pokersquares.points import AMERICAN

    def check(player, methods=("choose", "cell_values"), budget_s: float = 0.0):
        grid = np.full(25, -1, dtype=np.int8)
        grid[:20] = np.arange(20)
        for method in methods:
            with pytest.raises(PokerSquaresError, match=f"call set_point_system.* before {method}"):
                getattr(player, method)(grid, 30, 0.05)
        player.set_point_system(AMERICAN, budget_s)
        player.start_game()
        for method in methods:
            for bad_grid, card, words in ((grid, 5, "already on the grid"), (grid, 60, "card id 0..51, got 60"),
                                          (grid, 30.7, "got 30.7"), (np.arange(25, dtype=np.int8), 30, "grid is full"),
                                          (grid + 0.5, 30, "integer cells")):
                with pytest.raises(IllegalPlacementError, match=words):
                    getattr(player, method)(bad_grid, card, 0.05)
        assert 20 <= player.choose(grid.tolist(), 30, 0.05) < 25  # a list is a grid

    return check
