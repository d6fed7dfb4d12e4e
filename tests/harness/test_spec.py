"""Runs and player specs are checked when made, before anything runs."""

import math

import pytest

from pokersquares.cards import deal
from pokersquares.errors import InvalidSeedError, PokerSquaresError
from pokersquares.harness.registry import make_player, split_player_list
from pokersquares.harness.spec import MAX_GAMES, RunSpec, RunSpecError, player_cores
from pokersquares.points import AMERICAN

LONG_MAX = 2 ** 63 - 1


def test_every_seed_of_a_run_is_a_java_long():
    RunSpec("greedy", AMERICAN, 3, LONG_MAX - 2)  # the last game's seed is the largest long
    with pytest.raises(InvalidSeedError, match="last game's seed"):
        RunSpec("greedy", AMERICAN, 3, LONG_MAX - 1)
    with pytest.raises(InvalidSeedError, match="first seed"):
        RunSpec("greedy", AMERICAN, 1, -2 ** 63 - 1)
    with pytest.raises(InvalidSeedError):
        deal(2 ** 64)  # no longer wraps silently to the deal of seed 0


@pytest.mark.parametrize("field, value, says", [
    ("time_per_game", float("inf"), "finite"), ("time_per_game", float("nan"), "finite"),
    ("time_per_game", 0.0, "more than 0"), ("time_per_game", -1.0, "more than 0"),
    ("prep_time", float("inf"), "finite"), ("prep_time", 1e300, "over the limit"), ("prep_time", -0.5, "at least 0"),
    ("games", MAX_GAMES + 1, "number of games"), ("games", -1, "number of games"),
    ("memory_mb", -1, "memory limit"),
])
def test_limits_out_of_range_are_refused(field, value, says):
    args = dict(player="greedy", point_system=AMERICAN, games=2, seed=0, time_per_game=1.0, prep_time=0.0)
    args[field] = value
    with pytest.raises(RunSpecError, match=says):
        RunSpec(**args)


@pytest.mark.parametrize("spec, says", [
    ("greedy:foo=1", "takes no parameter 'foo'; its parameters: flush_weight"),
    ("greedy:flush_weight=abc", "takes a finite number"),
    ("greedy:flush_weight=nan", "takes a finite number"),
    ("tiger:cp=abc", "cp of player 'tiger' takes a finite number"),
    ("tiger:iterations=2.5", "takes an integer"),
    ("tiger:rules=1", "takes true or false"),
    ("beemo:cores=abc", "cores of player 'beemo'"),
    ("beemo:cores=0", "cores of player 'beemo'"),
    ("og:load=/no/such/file.json", "/no/such/file.json"),
    ("og:foo=1", "og': it takes no parameter 'foo'; its parameters: load, train_games"),
    ("beemo:foo=1", "beemo': it takes no parameter 'foo'; its parameters: load, playouts"),
    ("og:train_games=abc", "train_games of player 'og' takes an integer"),
    ("beemo:feedback=3", "feedback of player 'beemo' takes true or false"),
    ("tiger:cp=3,cp=4", "parameter 'cp' is given twice"),
    ("tiger:iterations=1_000", "iterations of player 'tiger' takes an integer"),
    ("tiger:cp=\u0663", "cp of player 'tiger' takes a finite number"),
    ("tiger:iterations=99999999999999999999", "iterations of player 'tiger' is too large"),
    ("beemo:cores=100000", "cores of player 'beemo' takes a whole number from 1 to 64"),
    ("json:JSONDecoder", "'json:JSONDecoder' is not a player: it has no set_point_system, start_game, get_play"),
    ("builtins:object", "is not a player"),
])
def test_player_specs_are_checked_when_built(spec, says):
    with pytest.raises(PokerSquaresError, match=says):
        make_player(spec)


def test_good_parameters_are_taken_and_integers_where_integers_go():
    player = make_player("tiger:iterations=200.0,cp=3,rules=false")
    assert player.search.iterations == 200 and isinstance(player.search.iterations, int)
    assert make_player("tiger:cp=1e1,iterations=+3").search.cp == 10.0
    assert make_player("greedy:flush_weight=-.5").flush_weight == -0.5
    assert player_cores("beemo:cores=1") == 1


def test_a_file_name_that_reads_as_a_number_or_a_flag_is_that_file(tmp_path, monkeypatch):
    """``og:load=007`` read the name as the integer 7 and looked for the file 7 (or loaded
    it, were it there); ``1e3`` became 1000.0 and ``true`` True."""
    import numpy as np

    from pokersquares.evaluators.patterns import write_utilities
    from pokersquares.kernels import patterns as kp

    monkeypatch.chdir(tmp_path)
    for name in ("007", "1e3", "true"):
        utilities = np.zeros(kp.NUM_PATTERNS)
        utilities[6] = len(name)  # which file was read
        write_utilities(tmp_path / name, utilities, np.zeros(kp.NUM_PATTERNS, dtype=np.int64),
                        np.array(AMERICAN.points), "American", {}, {})
    write_utilities(tmp_path / "7", np.zeros(kp.NUM_PATTERNS), np.zeros(kp.NUM_PATTERNS, dtype=np.int64),
                    np.array(AMERICAN.points), "American", {}, {})
    for name in ("007", "1e3", "true"):
        evaluator = make_player(f"og:load={name}").evaluator
        assert evaluator._file_path == name and evaluator._file["utilities"][6] == len(name)
    assert make_player("greedy:flush_weight=1e3").flush_weight == 1000.0  # a number where a number goes


@pytest.mark.parametrize("text, specs", [
    ("random,greedy", ["random", "greedy"]),
    ("champion:depth=25,stop_z=2,beemo", ["champion:depth=25,stop_z=2", "beemo"]),
    ("hybrid:evaluator=narl,search=mcts,greedy:flush_weight=0.5", ["hybrid:evaluator=narl,search=mcts",
                                                                    "greedy:flush_weight=0.5"]),
    ("tiger:cp=3 ; beemo ;; greedy", ["tiger:cp=3", "beemo", "greedy"]),
    ("my.module:Player:depth=2,x=1,og", ["my.module:Player:depth=2,x=1", "og"]),
    ("greedy:, beemo: ;tiger", ["greedy", "beemo", "tiger"]),
])
def test_a_player_list_keeps_each_players_parameters_with_it(text, specs):
    assert split_player_list(text) == specs


@pytest.mark.parametrize("text", ["depth=25,champion", "greedy,depth=25", "champion:depth=4;stop_z=2"])
def test_a_parameter_without_its_player_is_refused(text):
    with pytest.raises(PokerSquaresError, match="follows no player with parameters"):
        split_player_list(text)


@pytest.mark.parametrize("written", ["greedy:", " greedy ", "greedy :"])
def test_a_spec_with_an_empty_parameter_list_is_the_same_run(written):
    spec = RunSpec(player=written, point_system=AMERICAN, games=2, seed=0, time_per_game=1, prep_time=0)
    assert spec == RunSpec(player="greedy", point_system=AMERICAN, games=2, seed=0, time_per_game=1, prep_time=0)


def test_a_run_under_greedy_colon_resumes_the_run_of_greedy(cli, tmp_path):
    db = tmp_path / "r.sqlite"
    first = cli("run", "-p", "greedy", "-n", "2", "--prep-time", "0", "--time-per-game", "1", "--db", db, "-q", "--json")
    again = cli("run", "-p", "greedy:", "-n", "2", "--prep-time", "0", "--time-per-game", "1", "--db", db, "-q", "--json")
    assert first[0] == again[0] == 0
    import json
    assert json.loads(again[1])["run_id"] == json.loads(first[1])["run_id"] and json.loads(again[1])["player"] == "greedy"


def test_minus_zero_seconds_are_zero_so_a_run_resumes_under_either():
    spec = RunSpec(player="greedy", point_system=AMERICAN, games=2, seed=0, time_per_game=1, prep_time=-0.0)
    assert math.copysign(1, spec.prep_time) == 1 and isinstance(spec.time_per_game, float)
    assert spec == RunSpec(player="greedy", point_system=AMERICAN, games=2, seed=0, time_per_game=1.0, prep_time=0.0)


def test_a_player_given_one_thread_counts_one_core(monkeypatch, capsys):
    """``td:threads=1`` learns and plays on one thread (measured: 1.00 core at most over
    half-second windows of its preparation, 1.96 for ``threads=2``), yet it was counted
    as td's two cores: ``run --player td:threads=1`` played one game at a time on a
    machine of two, and ``--workers 2`` was warned of 4 cores busy."""
    from pokersquares.cli import harness as cli_harness
    from pokersquares.harness import spec as spec_module

    monkeypatch.setattr(spec_module, "usable_cores", lambda: 2)
    monkeypatch.setattr(cli_harness, "usable_cores", lambda: 2)
    assert player_cores("td:threads=1") == 1 and spec_module.default_workers("td:threads=1") == 2
    assert player_cores("td:threads=1,tdsearch=50,search=expectimax") == 1  # TD search on its threads too
    assert player_cores("td") == 2 and player_cores("td:threads=2") == 2 and player_cores("td:threads=3") == 3
    assert spec_module.default_workers("td") == 1
    assert player_cores("gettysburg:threads=1") == 1 and player_cores("champion:cores=1") == 1
    cli_harness.warn_oversubscribed(["td:threads=1"], 2)
    assert "warning" not in capsys.readouterr().err
    cli_harness.warn_oversubscribed(["td:threads=2"], 2)
    assert "4 cores busy" in capsys.readouterr().err


@pytest.mark.parametrize("typed, meant", [("Greedy", "greedy"), ("GREEDYY", "greedy"), ("tigre", "tiger"),
                                          ("champon:cores=1", "champion"), ("bogus", None)])
def test_a_near_miss_of_a_player_name_is_named(typed, meant):
    """A misspelt player listed every registered name and left the user to spot theirs."""
    with pytest.raises(PokerSquaresError, match="unknown player") as e:
        make_player(typed)
    assert (f"(did you mean {meant!r}?)" in str(e.value)) if meant else "did you mean" not in str(e.value)
