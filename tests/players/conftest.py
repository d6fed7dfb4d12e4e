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
