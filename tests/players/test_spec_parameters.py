"""Player spec parameters at and past their edges: each bad value is refused when the
player is built, in one line naming the parameter, not accepted and then failing (or
hanging) in every game."""

import math

import pytest

from pokersquares.errors import PokerSquaresError
from pokersquares.harness.registry import make_player
from pokersquares.search.flat_mc import FlatMonteCarlo
from pokersquares.search.flat_ucb import DepthLimitedFlatMC
from pokersquares.search.halving import CrnHalving
from pokersquares.search.td_search import TdSearch, episodes_option

R = ["--games", "2", "--prep-time", "0", "--time-per-game", "1", "-q"]


# ``pretrained`` hands its options to ``champion`` unparsed (``**options``), so the spec
# parser's kinds and int64 bound never applied: depth=2**64 failed every game with an
# OverflowError in the preparation, tc=bogus was tc=true, stop_z=true was 1, and a text
# table_step failed as "'<=' not supported between instances of 'float' and 'str'".
@pytest.mark.parametrize("spec, says", [
    ("pretrained:depth=18446744073709551616", "depth"),
    ("pretrained:depth=26", "depth"),
    ("pretrained:tc=bogus", "tc must be true or false"),
    ("pretrained:tc=0", "tc must be true or false"),
    ("pretrained:stop_z=true", "stop_z"),
    ("pretrained:time_fraction=true", "time_fraction"),
    ("pretrained:alpha=true", "alpha must be a number"),
    ("pretrained:epsilon=true", "epsilon must be a number"),
    ("pretrained:epsilon0=false", "epsilon0 must be a number"),
    ("pretrained:decay=true", "decay must be a number"),
    ("pretrained:table_step=false", "table_step must be a number"),
    ("pretrained:table_step=yes", "table_step must be a number"),
    ("pretrained:playouts=99999999999999999999", "playouts"),
    ("pretrained:tdsearch=99999999999999999999", "tdsearch"),
    ("pretrained:games=99999999999999999999", "games"),
])
def test_pretrained_checks_the_options_it_hands_to_champion(spec, says):
    with pytest.raises(PokerSquaresError, match=says) as e:
        make_player(spec)
    assert "\n" not in str(e.value)


def test_pretrained_refuses_an_unparsable_depth_before_any_game(cli, tmp_path):
    db = tmp_path / "r.sqlite"
    code, out, err = cli("run", "--player", "pretrained:depth=18446744073709551616", "--db", db, *R)
    assert code == 2, (out, err)
    assert err.startswith("error: ") and err.count("\n") == 1 and "depth" in err, err
    assert not db.exists()


@pytest.mark.parametrize("spec", ["champion:depth=4611686018427387904", "champion:depth=26"])
def test_champion_depth_is_at_most_the_grid(spec):
    with pytest.raises(PokerSquaresError, match="depth must be a whole number of cards 1..25 or auto"):
        make_player(spec)
    assert make_player("champion:depth=25").search.depth == 25


@pytest.mark.parametrize("spec, says", [("champion:evaluator=patterns,epsilon0=5", "epsilon0"),
                                        ("champion:evaluator=patterns,decay=0.5", "decay")])
def test_champion_refuses_the_narl_schedule_where_it_learns_no_narl_table(spec, says):
    # BeeMo's patterns learn no NARL table: epsilon0 and decay were ignored, out of range too.
    with pytest.raises(PokerSquaresError, match=f"{says} is a setting of the NARL table"):
        make_player(spec)
    make_player("champion:evaluator=patterns,epsilon0=0.5")  # the default, said aloud: fine


@pytest.mark.parametrize("spec, says", [
    ("openspiel:mcts:rollouts=4611686018427387904", "rollouts"),
    ("openspiel:mcts:evaluator=narl,rollouts=4611686018427387904", "rollouts"),
    ("openspiel:mcts:rollouts=1001", "rollouts"),
    ("openspiel:mcts:uct_c=-1", "uct_c"),
    ("openspiel:mcts:uct_c=-1e-320", "uct_c"),
])
def test_openspiel_mcts_refuses_rollouts_no_move_can_wait_for_and_a_negative_c(spec, says):
    # rollouts=2**62: the first leaf never returned (every game a timeout); with
    # evaluator=narl every game failed on an array of that size. uct_c=-1 was played.
    pytest.importorskip("pyspiel")
    with pytest.raises(PokerSquaresError, match=says):
        make_player(spec)
    from pokersquares.players.openspiel_mcts import MAX_ROLLOUTS, OpenSpielMCTSPlayer
    assert make_player(f"openspiel:mcts:rollouts={MAX_ROLLOUTS},uct_c=0").rollouts == MAX_ROLLOUTS
    for uct_c in (math.nan, math.inf, True, "20"):  # from Python, where no spec parser checks it
        with pytest.raises(PokerSquaresError, match="uct_c"):
            OpenSpielMCTSPlayer(uct_c=uct_c)


def test_tiger_refuses_iterations_no_clock_could_wait_for():
    # tiger:iterations=2**62 was taken; every game ran until its process was stopped.
    from pokersquares.search.mcts import MAX_ITERATIONS
    with pytest.raises(PokerSquaresError, match="iterations must be a whole number from 1 to"):
        make_player("tiger:iterations=4611686018427387904")
    assert make_player(f"tiger:iterations={MAX_ITERATIONS}").search.iterations == MAX_ITERATIONS


SEARCH_OPTIONS = {
    "halving depth 2**64": (CrnHalving, dict(depth=2 ** 64)),
    "halving depth 2.0": (CrnHalving, dict(depth=2.0)),
    "halving cores true": (CrnHalving, dict(cores=True)),
    "halving cores 1000": (CrnHalving, dict(cores=1000)),
    "halving max_playouts 2**64": (CrnHalving, dict(max_playouts=2 ** 64)),
    "halving time_fraction true": (CrnHalving, dict(time_fraction=True)),
    "td_search alpha nan": (TdSearch, dict(alpha=math.nan)),
    "td_search episodes 2.5": (TdSearch, dict(episodes=2.5)),
    "td_search cores 1.5": (TdSearch, dict(cores=1.5)),
    "depth_mc depth 2**64": (DepthLimitedFlatMC, dict(depth=2 ** 64)),
    "flat_mc cores a million": (FlatMonteCarlo, dict(cores=10 ** 6)),
}


@pytest.mark.parametrize("name", list(SEARCH_OPTIONS))
def test_search_constructors_check_types_and_int64_bounds(name):
    # Each was taken and failed later: in a kernel's int64 (2**64), in range() (2.0, 2.5),
    # or searched with a NaN step that passed every comparison.
    cls, options = SEARCH_OPTIONS[name]
    with pytest.raises(PokerSquaresError):
        cls(**options)


def test_tdsearch_games_are_an_int64_count():
    with pytest.raises(PokerSquaresError, match="tdsearch"):
        episodes_option(2 ** 64)
