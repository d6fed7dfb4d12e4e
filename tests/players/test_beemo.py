"""The beemo and og players: registered, legal games within budget, OG's choices,
trained tables loaded by spec."""


import numpy as np
import pytest

from pokersquares import AMERICAN
from pokersquares.cards import parse_cards
from pokersquares.errors import PokerSquaresError
from pokersquares.harness.registry import list_players, make_player
from pokersquares.harness.runner import player_cores
from pokersquares.evaluators.patterns import learn_utilities, write_utilities
from pokersquares.hands import classify
from pokersquares.kernels import patterns as kp
from pokersquares.players.baseline import GreedyPlayer
from pokersquares.players.beemo import og

POINTS = np.array(AMERICAN.points, dtype=np.int64)


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> str:
    # A fixed amount of learning (20 rounds of 2,000 training and 1,000 evaluation games,
    # one thread, seeded: the same table on any machine, about 0.6 s), not a budget: a
    # budget's table depends on the load beside it (2 s beside the parallel suite once
    # played like random, 12 points a game; 6 s once missed the flush asked for below).
    utilities, counts, report = learn_utilities(POINTS, 120.0, 1, train_games=2000, eval_games=1000,
                                                max_rounds=20, threads=1)
    assert report.rounds == 20  # the work, not the clock, ended the learning
    path = tmp_path_factory.mktemp("tables") / "american.json"
    write_utilities(path, utilities, counts, POINTS, "American", report.to_json(), {})
    return str(path)


def test_registered_with_their_cores():
    infos = {p.name: p for p in list_players()}
    assert infos["beemo"].cores == 2 and infos["og"].cores == 1
    assert player_cores("beemo") == 2 and player_cores("beemo:cores=1") == 1


def grid_of(cells: dict[int, str]) -> np.ndarray:
    grid = np.full(25, -1, dtype=np.int8)
    for cell, text in cells.items():
        grid[cell] = parse_cards([text])[0]
    return grid


def column(grid: np.ndarray) -> np.ndarray:
    """The grid mirrored on its diagonal: rows become columns."""
    return np.ascontiguousarray(grid.reshape(5, 5).T.reshape(25))


COMPLETE_HANDS = ["2C 5D 9H JS KC", "5H 5S 9C JD KH", "5H 5S 9C 9D KH", "7C 7D 7H 2S KD", "2H 3D 4C 5S 6H",
                  "2H 6H 9H JH KH", "7C 7D 7H 2S 2C", "7C 7D 7H 7S 2C", "9H TH JH QH KH"]


def test_og_completes_the_hands_its_utilities_value():
    player = og()
    player.set_point_system(AMERICAN, 0.0)  # no time to learn: utilities are set below
    for text in COMPLETE_HANDS:
        cards = parse_cards(text.split())
        for is_column in (False, True):
            player.evaluator.utilities[kp.encode_hand(cards, is_column, [0] * 13, [0] * 4)] = POINTS[classify(cards)]
    # Column 0 holds TH JH QH KH: the ace of hearts at cell 20 makes a straight flush.
    flush_draw = grid_of({0: "TH", 5: "JH", 10: "QH", 15: "KH", 1: "2C", 2: "7D", 8: "9S"})
    assert player.choose(flush_draw, parse_cards(["AH"])[0], 30.0) == 20
    # Row 3 holds three sevens and one more card: the fourth seven makes quads at 19.
    trips = grid_of({15: "7C", 16: "7D", 17: "7H", 18: "2D", 0: "2C", 6: "9D", 12: "KS"})
    assert player.choose(trips, parse_cards(["7S"])[0], 30.0) == 19
    assert player.choose(column(trips), parse_cards(["7S"])[0], 30.0) == 23


def test_og_on_learned_utilities_completes_a_flush(table):
    player = make_player(f"og:load={table}")
    player.set_point_system(AMERICAN, 0.0)
    assert player.evaluator.loaded == table
    # Learning builds flushes in rows or in columns (either is a good plan): ask it
    # to complete one in the lines it chose.
    flush = parse_cards("2H 6H 9H JH KH".split())
    u = player.evaluator.utilities
    in_columns = u[kp.encode_hand(flush, True, [0] * 13, [0] * 4)] > u[kp.encode_hand(flush, False, [0] * 13, [0] * 4)]
    draw = grid_of({15: "2H", 16: "6H", 17: "9H", 18: "KH", 0: "2C", 6: "7D", 12: "9S"})
    if in_columns:
        draw = column(draw)
    assert player.choose(draw, parse_cards(["4H"])[0], 30.0) == (23 if in_columns else 19)


def test_og_plays_well_fast(table, play_legal):
    og = make_player(f"og:load={table}")
    og.set_point_system(AMERICAN, 0.0)
    scores = [play_legal(og, seed).score for seed in range(30)]
    greedy = GreedyPlayer()
    greedy.set_point_system(AMERICAN, 0.0)
    plain = [play_legal(greedy, seed).score for seed in range(30)]
    # Measured: OG on this table (20 rounds, seed 1) 111.23
    # on these 30 deals, greedy 80.63, paired +30.6 ± 6.4. OG that stopped reading its
    # utilities, or played greedy's rule, would be within noise of greedy.
    assert np.mean(scores) > np.mean(plain) + 15


def test_beemo_plays_legal_games_within_its_clock(table, play_legal):
    beemo = make_player(f"beemo:load={table}")
    beemo.set_point_system(AMERICAN, 0.0)
    for seed in range(2):
        play_legal(beemo, seed, 1.0)  # any timeout or illegal cell fails here


def test_beemo_learns_when_given_no_table(play_legal, fake_clock):
    """Preparation and a game on a clock that moves only with the games played (20 us
    a training game, 10 us an evaluation, check or playout game, 0.2 us a card dealt
    in a search's playout; one learner so that the figures are exact for the code):
    the preparation keeps to its budget, and the game to its own time_per_game."""
    from pokersquares.evaluators import patterns as ev_patterns
    from pokersquares.harness import game_play
    from pokersquares.harness import player as base_player
    from pokersquares.players import composed, greedy_guard, move_clock
    from pokersquares.search import flat_mc

    for module in (ev_patterns, greedy_guard, composed, base_player, game_play, move_clock, flat_mc):
        clock = fake_clock.install(module)
    fake_clock.charge_per(ev_patterns.kp, "train_games", lambda *args: 2e-5 * args[4])
    fake_clock.charge_per(ev_patterns.kp, "og_games", lambda *args: 1e-5 * args[2])
    fake_clock.charge_per(ev_patterns.kp, "og_playouts", lambda *args: 1e-5 * args[1])
    fake_clock.charge_per(greedy_guard, "greedy_rule_games", lambda empty, deals, *rest: 1e-5 * len(deals))
    beemo = make_player("beemo:train_games=500,eval_games=500,learn_threads=1,time_per_game=0.5")
    fake_clock.charge_per(beemo.evaluator, "placement_playouts",
                          lambda grid, card, cells, n, seed: len(cells) * n * (len(cells) - 1) * 2e-7)
    start = clock.now
    beemo.set_point_system(AMERICAN, 1.5)
    # Measured: 1.120 s of the 1.5 s budget, 72 rounds of learning (72,000 games), the
    # greedy check's 2,000 games a side in 0.04 s.
    assert clock.now - start <= 1.5
    assert beemo.evaluator.report.games >= 70_000 and beemo.guard.games == 2000
    # Measured: 0.4507 s, within the player's own cap of 0.5 s (the harness gave 30 s);
    # a cap that forgot what the game's moves took: 0.807 s.
    assert 0.44 < play_legal(beemo, 3).decision_s <= 0.5


@pytest.mark.parametrize("spec, says", [
    ("og:eval_games=0", "eval_games must be a whole number of games of at least 1, got 0"),
    ("og:train_games=0", "train_games must be a whole number of games of at least 1, got 0"),
    ("beemo:train_games=-1", "train_games must be a whole number of games of at least 1, got -1"),
    ("og:ucb_every=-1", r"ucb_every must be a whole number of games of at least 0 \(0: no UCB1 games\), got -1"),
    ("beemo:ucb_c=-1", r"ucb_c must be a finite number >= 0 \(UCB1's exploration\), got -1"),
    ("og:learn_threads=0", "learn_threads must be a whole number of threads from 1 to 64, got 0"),
    ("beemo:learn_threads=3000", "learn_threads must be a whole number of threads from 1 to 64, got 3000"),
    ("beemo:playouts=0", "playouts must be a whole number of playouts per cell of at least 1"),
    ("beemo:playouts=-1", "playouts must be a whole number of playouts per cell of at least 1"),
])
def test_learning_and_search_options_out_of_range_are_refused_when_the_player_is_built(spec, says):
    """Before, each was built and failed or misbehaved only once the preparation had begun:
    eval_games=0 divided by zero after the first training phase (the game scored the
    penalty), 3,000 learn_threads outgrew the game's memory limit, train_games=0 learned
    nothing and playouts=0 searched nothing, both without a word."""
    with pytest.raises(PokerSquaresError, match=f"^{says}"):
        make_player(spec)


def test_the_smallest_learning_options_still_learn_and_play(play_legal):
    player = make_player("og:train_games=1,eval_games=1,ucb_every=0,ucb_c=0,learn_threads=1")
    player.warm_up()  # the kernels compiled off the budget, as the harness does
    player.set_point_system(AMERICAN, 2.0)
    assert player.evaluator.report is not None and player.evaluator.report.games > 0
    play_legal(player, 1)
