import numpy as np
import pytest

from pokersquares.harness.tournament import (TournamentError, normalize, run_tournament, table_from_store,
                                            tournament_table)
from pokersquares.harness.store import ResultStore
from pokersquares.points import parse_point_systems


def test_normalisation_hand_computed():
    scores = {"A": {"x": [60, 40], "y": [50, 0], "z": [70, 5]}, "B": {"x": [-10, 0], "y": [30, 0], "z": [5, 5]}}
    t = tournament_table(["x", "y", "z"], ["A", "B"], 2, scores)
    assert t["totals"]["A"] == {"x": 100, "y": 50, "z": 75}
    assert t["normalized"]["A"] == {"x": 1.0, "y": 0.0, "z": 0.5}
    assert t["normalized"]["B"] == {"x": 0.0, "y": 1.0, "z": 0.5}
    assert t["scores"] == {"x": 1.0, "y": 1.0, "z": 1.0}
    assert t["ranking"] == ["x", "y", "z"]  # ties keep the given order
    assert normalize({"p": 3, "q": 3}) == {"p": 1.0, "q": 1.0}


def test_ranking_orders_players_by_normalised_total_not_by_name_or_given_order():
    # The score order (b, c, a) is neither the names' order nor the order given.
    scores = {"S": {"a": [4], "b": [10], "c": [7]}, "T": {"a": [5], "b": [9], "c": [6]}}
    assert tournament_table(["a", "c", "b"], ["S", "T"], 1, scores)["ranking"] == ["b", "c", "a"]


def test_means_and_bootstrap_errors():
    # "a" beats "b" on every deal of both systems: its lead survives every resample.
    scores = {"S": {"a": [10, 20, 30, 40], "b": [9, 19, 29, 39]}, "T": {"a": [5, 1, 7, 3], "b": [4, 0, 6, 2]}}
    t = tournament_table(["a", "b"], ["S", "T"], 4, scores)
    assert t["means"]["S"] == {"a": 25.0, "b": 24.0}
    assert t["mean_se"]["S"]["a"] == pytest.approx(12.909944 / 2)  # sd of 10..40 over sqrt(4)
    assert t["gap_se"] == {"a": 0.0, "b": 0.0} and t["score_se"]["a"] == 0.0
    # A coin flip: who wins a system depends on which deals are drawn, so the gap is uncertain.
    flip = {"S": {"a": [10, 0, 10, 0], "b": [0, 10, 0, 10]}}
    t = tournament_table(["a", "b"], ["S"], 4, flip)
    assert t["gap_se"]["b"] > 0.5 and t["gap_se"]["a"] == 0.0 and t["resamples"] == 1000
    # A player short of games on a system leaves that system out of the bootstrap; with no
    # system left (or one game a system) there is no standard error, not "± 0.000".
    short = {"S": {"a": [10, 0, 10, 0], "b": [0, 10]}}
    assert tournament_table(["a", "b"], ["S"], 4, short)["gap_se"] == {}
    one = {"S": {"a": [10], "b": [0]}, "T": {"a": [3], "b": [4]}}
    assert tournament_table(["a", "b"], ["S", "T"], 1, one)["score_se"] == {}
    assert tournament_table(["a", "b"], ["S", "T"], 4, {**short, "T": flip["S"]})["gap_se"]["b"] > 0.5


def test_the_bootstrap_draws_one_set_of_deals_for_every_system():
    """Game i is one deal on every system. Here a deal "a" wins on S it loses on T, so
    whatever deals are drawn the two players' sums are level: the gap's spread is 0.
    Drawn apart for each system, "a" could win both (a spread near 0.7)."""
    scores = {"S": {"a": [10, 10, 0, 0], "b": [0, 0, 10, 10]}, "T": {"a": [0, 0, 10, 10], "b": [10, 10, 0, 0]}}
    t = tournament_table(["a", "b"], ["S", "T"], 4, scores)
    assert t["gap_se"] == {"a": 0.0, "b": 0.0} and t["score_se"]["a"] > 0  # sums of 2 (ties) or 1


def test_each_system_names_its_first_and_every_players_paired_difference_to_it():
    # "b" trails "a" by exactly one on every deal: the paired SE is 0 although the deals
    # spread widely (an unpaired SE would be about 9); "c" trails by 0, 4, 0, 4: the
    # differences' sd is 4 / sqrt(3), over sqrt(4) games.
    scores = {"S": {"a": [10, 20, 30, 40], "b": [9, 19, 29, 39], "c": [10, 16, 30, 36]},
              "T": {"a": [1, 1, 1, 1], "b": [2, 1, 2, 1], "c": [2, 1, 1, 2]}}
    t = tournament_table(["a", "b", "c"], ["S", "T"], 4, scores)
    s = t["behind_first"]["S"]
    assert s["first"] == "a" and s["players"]["a"] == {"diff": 0.0, "se": 0.0, "close": True}
    assert s["players"]["b"] == {"diff": -1.0, "se": 0.0, "close": False}
    assert s["players"]["c"]["diff"] == -2.0 and s["players"]["c"]["se"] == pytest.approx(2 / 3 ** 0.5)
    # A tie for first goes to the player listed first; the other is 0 behind it.
    tie = t["behind_first"]["T"]
    assert tie["first"] == "b" and tie["players"]["c"]["diff"] == 0.0 and tie["players"]["a"]["diff"] == -0.5
    # Unequal game counts: no first and no differences, rather than differences of other deals.
    short = tournament_table(["a", "b"], ["S"], 4, {"S": {"a": [10, 0, 10, 0], "b": [0, 10]}})
    assert short["behind_first"]["S"] == {"first": None, "players": {"a": None, "b": None}}


def test_small_tournament_and_its_table_from_the_store(tmp_path):
    store = ResultStore(tmp_path / "t.sqlite")
    systems = parse_point_systems("american,single:flush")
    table = run_tournament(["random", "greedy"], systems, 4, 0, store, time_per_game=30, prep_time=1)
    assert table["ranking"] == ["greedy", "random"]
    assert table["normalized"]["American"] == {"random": 0.0, "greedy": 1.0}
    again = table_from_store(store, table["tournament_id"])
    assert again["totals"] == table["totals"] and again["complete"]


def test_tournament_counts_penalties_and_checks_players_first(tmp_path):
    from pokersquares.harness.registry import UnknownPlayerError
    from pokersquares.points import AMERICAN, BRITISH

    store = ResultStore(tmp_path / "t.sqlite")
    with pytest.raises(UnknownPlayerError):
        run_tournament(["greedy", "random:bogus=1"], [AMERICAN], 2, 0, store, time_per_game=5.0, prep_time=0.0)
    assert store.tournaments() == [] and store.runs() == []  # nothing played, nothing recorded
    table = run_tournament(["greedy", "fault_players:Raises"], [AMERICAN, BRITISH], 4, 0, store,
                           time_per_game=5.0, prep_time=0.0)
    expected = {s: {"greedy": 0, "fault_players:Raises": 2} for s in ("American", "British")}  # odd seeds fault
    assert table["penalties"] == expected
    assert table_from_store(store, table["tournament_id"])["penalties"] == expected


def test_a_tournament_refuses_a_system_or_a_player_twice_before_recording_anything(tmp_path):
    # A system given twice (or by its name and by its ten values) was played once and
    # counted twice in every player's tournament score.
    from pokersquares.harness.tournament import TournamentError
    from pokersquares.points import AMERICAN, BRITISH, parse_point_system

    store = ResultStore(tmp_path / "t.sqlite")
    for players, systems in ((["greedy", "random"], [AMERICAN, BRITISH, AMERICAN]),
                             (["greedy", "random"], [AMERICAN, parse_point_system("0,2,5,10,15,20,25,50,75,100")]),
                             (["greedy", "random", "greedy"], [AMERICAN])):
        with pytest.raises(TournamentError, match="twice"):
            run_tournament(players, systems, 2, 0, store, time_per_game=5.0, prep_time=0.0)
    assert store.tournaments() == [] and store.runs() == []


@pytest.mark.parametrize("scores, says", [
    ({}, "no scores for point system 'S'"),
    ({"S": {"a": [1, 2]}}, "no scores for player 'b' on point system 'S'"),
    ({"S": {"a": [1, 2], "b": [1, "x"]}}, "the scores of 'b' on 'S' are a list of finite numbers, got [1, 'x']"),
    ({"S": {"a": [1, 2], "b": 3}}, "the scores of 'b' on 'S' are a list of finite numbers, got 3"),
    ({"S": {"a": [1, 2], "b": [1, float("nan")]}}, "the scores of 'b' on 'S' are a list"),
    ({"S": {"a": [1, 2], "b": [True, 2]}}, "the scores of 'b' on 'S' are a list"),
])
def test_a_table_of_missing_or_bad_scores_is_refused_in_one_line(scores, says):
    # Were a KeyError 'S', a TypeError of int + str, or a NaN total ranked first.
    with pytest.raises(TournamentError) as e:
        tournament_table(["a", "b"], ["S"], 2, scores)
    assert str(e.value).startswith(says)


def test_normalising_no_players_gives_nothing():
    assert normalize({}) == {}  # was min() of an empty sequence
    table = tournament_table(["a", "b"], ["S"], 2, {"S": {"a": np.array([1, 2]), "b": (3, 4)}})
    assert table["normalized"]["S"] == {"a": 0.0, "b": 1.0}  # arrays and tuples are lists of numbers too


def test_a_tournament_resumed_by_other_code_is_that_codes_table(tmp_path):
    """Other code (an upgrade) resuming a tournament plays its cells again as new runs;
    stopped part way, the table took each cell's last run: the new code's games on one
    system beside the old code's on the other, and "complete"."""
    from pokersquares.harness.store import GameRecord

    store = ResultStore(tmp_path / "t.sqlite")
    systems = parse_point_systems("american,british")
    table = run_tournament(["random", "greedy"], systems, 3, 0, store, time_per_game=30, prep_time=1)
    assert table_from_store(store, table["tournament_id"])["complete"] and table["totals"]["British"]["greedy"] > 0
    new = store.open_run("greedy", "greedy", systems[0], 0, 3, 30, 1, tournament_id=table["tournament_id"],
                         version="new code")  # the upgraded code's first cell, then stopped
    store.add_games(new, [GameRecord(i, i, 200) for i in range(3)])
    again = table_from_store(store, table["tournament_id"])
    assert not again["complete"]
    assert again["totals"]["American"]["greedy"] == 600  # the new code's games
    assert again["totals"]["British"]["greedy"] == 0  # the old code's are not its: not played yet
    assert again["totals"]["British"]["random"] == table["totals"]["British"]["random"]  # another player's own


def test_a_tie_of_normalised_sums_is_a_tie_whatever_order_the_systems_add_up_in():
    # "a" is normalised 0.3, 0.2, 0.1 on the three systems, "b" 0.1, 0.2, 0.3: both sum to
    # 0.6, a tie, which goes to the player listed first. Added in the systems' order in
    # floats, b's sum was 0.6000000000000001 and b ranked ahead of a.
    scores = {s: {"a": [a], "b": [b], "z": [0], "top": [10]} for s, a, b in (("S", 3, 1), ("T", 2, 2), ("U", 1, 3))}
    t = tournament_table(["a", "b", "z", "top"], ["S", "T", "U"], 1, scores)
    assert t["scores"]["a"] == t["scores"]["b"] == 0.6
    assert t["ranking"] == ["top", "a", "b", "z"]


@pytest.mark.parametrize("n, x", [(2, 3), (2, 6), (3, 1), (5, 7), (40, 11)])
def test_a_player_exactly_one_paired_se_behind_the_first_is_within_one_se(n, x):
    # Behind the first by x on one deal and level on the other n - 1: the mean difference
    # is -x/n and its paired SE x/n, so it is within one SE (at most one SE behind). In
    # floats the SE came out a hair short for about a third of such (n, x) and it was not.
    first = list(range(10, 10 + n))
    other = [first[0] - x, *first[1:]]
    t = tournament_table(["f", "o"], ["S"], n, {"S": {"f": first, "o": other}})
    d = t["behind_first"]["S"]["players"]["o"]
    assert d["diff"] == pytest.approx(-x / n) and d["se"] == pytest.approx(x / n)
    assert d["close"] is True
    # A hair more than one SE behind (one more point on a second deal) is not.
    other[1] -= 1
    assert tournament_table(["f", "o"], ["S"], n, {"S": {"f": first, "o": other}})["behind_first"]["S"][
        "players"]["o"]["close"] is False


def test_the_bootstrap_draws_one_set_of_deals_only_for_systems_that_hold_the_same_deals():
    """A table held in part pairs each system on the deals its players share: here S on
    deals 1..3 ("a" lacks deal 0) and T on deals 0..2 ("b" lacks deal 3). On deal 1 "a"
    wins both systems, so who leads is uncertain. Drawn as one set by position, deal 1 of
    S went with deal 0 of T, where "a" loses: the sums always tied, a gap of 0 ± 0."""
    scores = {"S": {"a": [10, 0, 0], "b": [5, 0, 10, 10]}, "T": {"a": [0, 10, 10, 7], "b": [10, 0, 0]}}
    seeds = {"S": {"a": [1, 2, 3], "b": [0, 1, 2, 3]}, "T": {"a": [0, 1, 2, 3], "b": [0, 1, 2]}}
    t = tournament_table(["a", "b"], ["S", "T"], 4, scores, seeds=seeds)
    assert t["resamples"] == 1000 and t["gap_se"][t["ranking"][1]] > 0.3
    # Systems that hold the same deals still share one draw (as without seeds).
    same = {"S": {"a": [10, 10, 0, 0], "b": [0, 0, 10, 10]}, "T": {"a": [0, 0, 10, 10], "b": [10, 10, 0, 0]}}
    both = {s: {p: [3, 4, 5, 6] for p in "ab"} for s in "ST"}
    assert tournament_table(["a", "b"], ["S", "T"], 4, same, seeds=both)["gap_se"] == {"a": 0.0, "b": 0.0}


def test_the_same_entrants_and_systems_listed_in_another_order_resume_one_tournament(tmp_path):
    """An organiser who typed the entrants again alphabetically (or the systems in another
    order) got a new tournament: every game played again (hours at the contest's limits)."""
    store = ResultStore(tmp_path / "r.sqlite")
    systems = parse_point_systems("american,british")
    first = run_tournament(["random", "greedy"], systems, 3, 0, store, time_per_game=5, prep_time=0, workers=1)
    played = []
    again = run_tournament(["greedy", "random"], systems[::-1], 3, 0, store, time_per_game=5, prep_time=0,
                           workers=1, on_result=lambda *a: played.append(a))
    assert played == [] and again["tournament_id"] == first["tournament_id"]
    assert again["scores"] == first["scores"] and again["players"] == ["greedy", "random"]
    assert [t["tournament_id"] for t in store.tournaments()] == [first["tournament_id"]]
    assert table_from_store(store, first["tournament_id"])["players"] == ["greedy", "random"]  # as listed last
    # other limits, or another entrant, are another tournament
    other = run_tournament(["greedy", "random"], systems, 3, 0, store, time_per_game=4, prep_time=0, workers=1)
    assert other["tournament_id"] != first["tournament_id"]
    third = run_tournament(["greedy"], systems, 3, 0, store, time_per_game=5, prep_time=0, workers=1)
    assert third["tournament_id"] not in (first["tournament_id"], other["tournament_id"])


def _tournament(store, players, games=3, time_per_game=5, **kw):
    played, taken = [], []
    table = run_tournament(players, parse_point_systems("american,british"), games, 0, store, time_per_game=time_per_game,
                           prep_time=0, workers=1, on_result=lambda s, p, r: played.append((s, p, r.game_index)),
                           on_taken=taken.extend, **kw)
    return table, played, taken


def test_a_late_entrant_plays_only_its_own_games(tmp_path):
    """An organiser who added a late entrant got a new tournament (its key is the entrants)
    and every other entrant's games were played again: hours at the contest's limits, for
    the same deals, limits and code."""
    store = ResultStore(tmp_path / "r.sqlite")
    first, _, _ = _tournament(store, ["random", "greedy"])
    late, played, taken = _tournament(store, ["random", "greedy", "greedy:flush_weight=2"])
    assert late["tournament_id"] != first["tournament_id"]
    assert {p for _, p, _ in played} == {"greedy:flush_weight=2"} and len(played) == 6  # its own games only
    assert sorted((t["player"], t["system"], t["from_tournament"], t["games"]) for t in taken) == [
        (p, s, first["tournament_id"], 3) for p in ("greedy", "random") for s in ("American", "British")]
    for s in ("American", "British"):
        for p in ("random", "greedy"):
            assert late["totals"][s][p] == first["totals"][s][p]
    held = table_from_store(store, late["tournament_id"])
    assert held["complete"] and held["totals"] == late["totals"]
    assert table_from_store(store, first["tournament_id"])["players"] == ["random", "greedy"]  # left as it was
    # An entrant dropped, with a game more: only the new deal is played.
    more, played, taken = _tournament(store, ["greedy"], games=4)
    assert sorted(played) == [("American", "greedy", 3), ("British", "greedy", 3)]
    assert sorted((t["system"], t["games"]) for t in taken) == [("American", 3), ("British", 3)]
    run = next(r for r in store.runs(more["tournament_id"]) if r.system_name == "American")
    assert [g.score for g in store.games(run.run_id)][:3] == [
        g.score for g in store.games(next(r.run_id for r in store.runs(first["tournament_id"])
                                          if r.player == "greedy" and r.system_name == "American"))]
    fewer, played, taken = _tournament(store, ["random"], games=2)  # dropped, fewer games: nothing to play
    assert played == [] and [t["games"] for t in taken] == [2, 2]
    held = table_from_store(store, fewer["tournament_id"])
    assert held["complete"] and held["totals"] == fewer["totals"]
    assert fewer["totals"]["British"]["random"] == sum(g.score for g in store.games(next(
        r.run_id for r in store.runs(first["tournament_id"]) if r.player == "random" and r.system_name == "British"))[:2])


def test_an_entrant_with_its_parameters_in_another_order_is_the_same_entrant(tmp_path):
    """A tournament run again with an entrant's parameters written in another order was a
    new tournament with a new player, its games played again: it is the tournament held;
    and one entrant listed twice that way is refused, as a player listed twice is."""
    store = ResultStore(tmp_path / "r.sqlite")
    first, played, _ = _tournament(store, ["random", "tiger:iterations=20,cp=5"], games=2)
    assert len(played) == 8
    again, played, _ = _tournament(store, ["tiger:cp=5,iterations=20", "random"], games=2)
    assert again["tournament_id"] == first["tournament_id"] and played == []
    assert again["totals"]["British"]["tiger:iterations=20,cp=5"] == first["totals"]["British"][
        "tiger:iterations=20,cp=5"]
    late, played, taken = _tournament(store, ["tiger:cp=5,iterations=20", "greedy"], games=2)
    assert late["tournament_id"] != first["tournament_id"] and {p for _, p, _ in played} == {"greedy"}
    assert {t["player"] for t in taken} == {"tiger:iterations=20,cp=5"}
    with pytest.raises(TournamentError, match="lists a player twice"):
        _tournament(store, ["tiger:iterations=20,cp=5", "tiger:cp=5,iterations=20"], games=2)


def test_a_tournament_stopped_before_an_entrant_played_resumes_with_its_own_spellings(tmp_path):
    """A tournament stopped before its second entrant's run was opened, then another that
    entered the same player spelled the other way: the first tournament's command run
    again took the other spelling (the only one with a run) and made a new tournament,
    leaving the first one incomplete for ever. It resumes the first."""
    store = ResultStore(tmp_path / "r.sqlite")
    entered = ["greedy", "tiger:cp=5,iterations=20"]
    systems = parse_point_systems("american,british")
    # Stopped before any run was opened, its limits in seconds as run_tournament (and the
    # command line) key them.
    stopped = store.open_tournament(entered, systems, 2, 0, 5.0, 0.0)
    _tournament(store, ["tiger:iterations=20,cp=5"], games=2)
    again, played, _ = _tournament(store, entered, games=2)
    assert again["tournament_id"] == stopped and again["players"] == entered
    assert {p for _, p, _ in played} == {"greedy"}  # tiger's games taken from the other tournament
    assert table_from_store(store, stopped)["complete"]


def test_a_late_entrant_does_not_take_games_of_other_code_or_another_secret(tmp_path, monkeypatch):
    """Runs are taken only where they are the very games this tournament would play: the
    same code (the version the runs are keyed by), the same limits and, when one is given,
    the same secret."""
    store = ResultStore(tmp_path / "r.sqlite")
    _tournament(store, ["random", "greedy"])
    _, played, taken = _tournament(store, ["random", "greedy", "greedy:flush_weight=2"], secret="0" * 32)
    assert taken == [] and len(played) == 18  # the held runs were played under other secrets
    _, played, taken = _tournament(store, ["random", "greedy", "random:seed=3"], time_per_game=4)
    assert taken == [] and len(played) == 18  # other limits
    import pokersquares
    monkeypatch.setattr(pokersquares, "__version__", "0.0.0-other")
    _, played, taken = _tournament(store, ["random", "greedy", "random:seed=5"])
    assert taken == [] and len(played) == 18  # another release's games
