"""openspiel:mcts: OpenSpiel's MCTSBot under the harness's clocks."""

import pytest

pytest.importorskip("pyspiel")

from pokersquares import AMERICAN, PointSystem  # noqa: E402
from pokersquares.errors import PokerSquaresError  # noqa: E402
from pokersquares.harness.registry import list_players, make_player  # noqa: E402
from pokersquares.harness.runner import RunSpec, run_games  # noqa: E402
from pokersquares.players.move_clock import MoveClock  # noqa: E402

NEG = PointSystem((-3, 2, 5, 10, 15, 20, 25, 50, 75, 100), "negative high card")


def test_registered():
    assert "openspiel:mcts" in [p.name for p in list_players()]


@pytest.mark.timeout(120)  # a search that ignored its deadline would never end
@pytest.mark.parametrize("spec", ["openspiel:mcts", "openspiel:mcts:evaluator=possibility,rollouts=4"])
def test_plays_legal_games_within_a_small_budget(play_legal, spec):
    player = make_player(spec)
    player.warm_up()
    player.set_point_system(NEG, 1.0)
    # The player plans 1.5 s games under the harness's hard 2 s. Session 41's quiet CI
    # (6abb3cd) failed both cases at 2.05 s and 2.03 s: the test process stalled by about
    # 0.2 s beside the other pytest worker, past the 8 % reserve. The stall is the
    # machine's, not the player's; the margin is the test's, the player's own clock is
    # unchanged. A search that ignored its deadline still never ends (the timeout above).
    player.clock = MoveClock(time_per_game=1.5)
    for seed in (1, 2):
        # 1 s, not 0.3 s: the 0.3 s game overran by 0.13 s in CI (2026-11-26), and a 1 s game
        # by 0.10 s the same day. The cause, found after: a full collection of the test
        # process's heap when the collector came back on after a search (see the test of
        # the collector below). The margin stays; a search that ignored its deadline still
        # never ends. 2 s since 2026-12-02: in a quiet CI a 1 s game took 1.09 s (its games
        # end near 0.915 s alone, with or without a 2-million-object heap), a stall of the
        # test process beside the other pytest worker that the 8 % reserve (0.08 s) could
        # not absorb; at 2 s the reserve is 0.16 s.
        record = play_legal(player, seed, time_per_game=2.0)
        # It searched, within the clock: measured 0 to 4 of the 24 moves left to the
        # fallback at a load of 4 to 6 on 2 cores (a simulation that ends past the
        # move's budget is kept back for the moves to come); a search that never ran
        # leaves all 24. (The last move's search alone was the old check: a late one
        # is a fallback under the shared clock. 13 were left with a wheel build running
        # beside it, 2026-11-25.)
        assert record.fallback_moves <= 20


def test_through_the_harness_workers():
    # 5 s a game: one of two games running side by side overran 0.5 s by 0.07 s in CI, and
    # 2 s by 0.19 s (both 2026-11-25; more than its clock's 8 % reserve). The test is about
    # the worker path, not about small budgets (benchmarks/small_budget_strength.py).
    recs = run_games(RunSpec("openspiel:mcts:evaluator=possibility", AMERICAN, 2, 7, 5.0, 1.0), range(2), workers=2)
    assert [r.penalty for r in recs] == [None, None]
    assert all(len(r.placements) == 25 and r.decision_s <= 5.0 for r in recs)


def _prepared(spec: str):
    """The player of ``spec``, prepared for American with no learning time."""
    player = make_player(spec)
    player.set_point_system(AMERICAN, 0.0)
    return player


def test_choose_refuses_what_is_not_a_position_in_one_line(refuses_what_is_not_a_position):
    """Before set_point_system choose was an AttributeError of the bot ('NoneType' object
    has no attribute 'deadline'); a grid as a list was "moves must be at least 1", and a
    card on the grid got a cell."""
    refuses_what_is_not_a_position(make_player("openspiel:mcts"), ("choose",))


def test_bad_parameters_are_one_line_errors():
    with pytest.raises(PokerSquaresError, match="unknown evaluator"):
        make_player("openspiel:mcts:evaluator=nope")
    with pytest.raises(PokerSquaresError, match="rollouts"):
        make_player("openspiel:mcts:rollouts=0")


def test_the_search_runs_without_the_cyclic_collector_and_frees_its_tree_before_restoring_it(monkeypatch):
    # A collection of a large heap during a move stalled a 0.3 s game to 0.46 s in CI. And a
    # tree still alive when the collector came back on made the next allocation run a full
    # collection inside the move (50 ms in a small process; 1.10 s of a 1 s game in CI).
    import gc
    import types

    import numpy as np
    from open_spiel.python.algorithms.mcts import SearchNode

    from pokersquares.game import EMPTY
    from pokersquares.players import openspiel_mcts
    player = _prepared("openspiel:mcts")
    seen = []
    search = player._bot.mcts_search

    def watched(state):
        seen.append(gc.isenabled())
        return search(state)

    alive_at_enable = []

    def enable():
        # type(), not isinstance(): a dead weakref.proxy left by another test raises
        # ReferenceError when asked its __class__.
        alive_at_enable.append(sum(issubclass(type(o), SearchNode) for o in gc.get_objects()))
        gc.enable()

    player._bot.mcts_search = watched
    monkeypatch.setattr(openspiel_mcts, "gc", types.SimpleNamespace(isenabled=gc.isenabled, disable=gc.disable,
                                                                    enable=enable))
    player.start_game()
    assert gc.isenabled()
    grid = np.full(25, EMPTY, dtype=np.int8)
    player.choose(grid, 0, 5.0)
    assert seen == [False] and gc.isenabled()
    assert player.simulations > 0          # it searched a tree...
    assert alive_at_enable == [0]          # ...and none of it was alive when the collector came back


def test_a_leafs_random_rollouts_stop_at_the_moves_deadline(monkeypatch):
    # rollouts=1000 ran every leaf whole (about a second from the empty grid) past a move's
    # budget: `run --player openspiel:mcts:rollouts=1000 --time-per-game 1` scored 2 of its
    # 3 games the timeout penalty (1.21 s of decision time).
    import time

    import numpy as np

    from pokersquares import openspiel as pso
    from pokersquares.game import EMPTY
    player = _prepared("openspiel:mcts:rollouts=1000")
    rollouts = []
    returns = pso.PokerSquaresState.returns

    def counted(state):
        rollouts.append(1)
        return returns(state)

    monkeypatch.setattr(pso.PokerSquaresState, "returns", counted)
    player.start_game()
    t = time.perf_counter()
    cell = player.choose(np.full(25, EMPTY, dtype=np.int8), 0, 0.5)  # a move's budget of about 20 ms
    took = time.perf_counter() - t
    assert 0 <= cell < 25 and player.simulations >= 1
    assert 1 <= len(rollouts) < 1000, (len(rollouts), took)  # the first leaf stopped at the deadline


def test_a_move_proven_to_score_less_is_not_played_over_a_better_unproven_one():
    # OpenSpiel's MCTS-Solver chooses a proven child by its score over an unproven one as 0
    # (it is made for wins and losses): a move whose next card cannot change the score (here the
    # last cell, 24, between four aces and four kings) was proven at 110 and played over
    # the move expected to score 115.18 (the 2S to cell 24, any card to cell 18).
    import numpy as np

    from pokersquares.cards import parse_card
    from pokersquares.game import Grid
    cells = {20: "AS", 21: "AH", 22: "AD", 23: "AC", 4: "KS", 9: "KD", 14: "KC", 19: "KH", 15: "2H", 16: "5H",
             17: "9H", 0: "3S", 1: "4D", 2: "6C", 3: "7S", 5: "8D", 6: "TC", 7: "JS", 8: "QD", 10: "3C", 11: "4S",
             12: "6D", 13: "7C"}
    grid = np.full(25, -1, dtype=np.int8)
    for cell, name in cells.items():
        grid[cell] = parse_card(name)
    card = parse_card("2S")

    def expected(cell, last):
        scores = []
        for c in set(range(52)) - set(int(x) for x in grid if x >= 0) - {card}:
            g = [int(x) for x in grid]
            g[cell], g[last] = card, c
            scores.append(Grid(g).score(AMERICAN))
        return np.mean(scores), np.ptp(scores)
    assert expected(18, 24) == (110.0, 0) and expected(24, 18)[0] > 115
    player = _prepared("openspiel:mcts:uct_c=50")  # explores the worse move enough to prove it
    for seed in (0, 1):
        player.set_seed(seed)
        player.start_game()
        assert player.choose(grid, card, 0.5) == 24
