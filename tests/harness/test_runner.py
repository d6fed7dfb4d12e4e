
import pytest

from pokersquares import AMERICAN, BRITISH, PointSystem, deal
from pokersquares.harness.game_play import play_game
from pokersquares.harness.registry import UnknownPlayerError
from pokersquares.harness.runner import RunSpec, record_run, record_runs, run_games, run_version
from pokersquares.harness.store import ResultStore, StoreError
from pokersquares.players.baseline import GreedyPlayer

NEG = PointSystem((-3, 2, 5, 10, 15, 20, 25, 50, 75, 100), "negative high card")


def run(player, n=4, system=AMERICAN, tpg=30.0, workers=2, seed=100):
    return run_games(RunSpec(player, system, n, seed, tpg, 5.0), range(n), workers=workers)


def test_every_player_sees_the_same_deals():
    for player in ("random", "greedy"):
        for rec in run(player, n=6):
            assert [c for c, _, _ in rec.placements] == deal(rec.seed)[:25]
            assert rec.seed == 100 + rec.game_index and rec.penalty is None


@pytest.mark.parametrize("games, said", [(3, "3 games"), (1, "1 game")])
def test_a_changed_player_version_starts_a_new_run(tmp_path, monkeypatch, games, said):
    from pokersquares.players.baseline import GreedyPlayer

    store = ResultStore(tmp_path / "r.sqlite")
    spec = RunSpec("greedy", BRITISH, games, 7, 30.0, 1.0)
    run_id, _ = record_run(spec, store)
    assert record_run(spec, store)[0] == run_id  # same code: resumed
    monkeypatch.setattr(GreedyPlayer, "version", GreedyPlayer.version + "-changed", raising=False)
    seen = []
    with pytest.warns(UserWarning, match=rf"the store's run {run_id} \({said}\) was played by other code .* "
                                         r"its games are not resumed, run \d+ plays them anew"):
        run_id2, recs = record_run(spec, store, on_result=seen.append)
    assert run_id2 != run_id and len(seen) == games and len(recs) == games  # replayed, not resumed
    # The store says which code played each run, and finds the run the new code left behind.
    versions = {r.run_id: r.version for r in store.runs()}
    assert versions[run_id].endswith("/" + GreedyPlayer.version.removesuffix("-changed"))
    assert versions[run_id2].endswith("-changed") and versions[run_id] != versions[run_id2]
    assert [r.run_id for r in store.other_versions(run_id2)] == [run_id]
    assert [r.finished for r in store.other_versions(run_id2)] == [games]
    other = record_run(RunSpec("greedy", BRITISH, 3, 8, 30.0, 1.0), store)[0]  # another seed: not a version of it
    assert store.other_versions(other) == []


def test_a_store_made_before_versions_were_kept_reads_and_resumes(tmp_path):
    import sqlite3
    path = tmp_path / "old.sqlite"
    spec = RunSpec("greedy", BRITISH, 2, 7, 30.0, 1.0)
    with ResultStore(path) as store:
        run_id, _ = record_run(spec, store)
    with sqlite3.connect(path) as c:  # as a store of before the column was added
        c.execute("ALTER TABLE runs DROP COLUMN version")
    c.close()
    with ResultStore(path, readonly=True) as store:
        assert [(r.run_id, r.version, r.finished) for r in store.runs()] == [(run_id, None, 2)]
    with ResultStore(path) as store:  # a writer adds the column; the old run is resumed
        assert record_run(spec, store)[0] == run_id
        assert store.run(run_id).version.endswith("/" + GreedyPlayer.version)  # known once resumed


@pytest.mark.parametrize("player,reason", [
    ("Raises", "error: RuntimeError: boom"),
    ("Illegal", "illegal play"),
    ("Malformed", "malformed answer"),
    ("Crash", "crash"),
])
def test_faults_score_the_penalty_and_the_run_goes_on(player, reason):
    recs = run(f"fault_players:{player}", n=4, system=NEG)
    assert [r.game_index for r in recs] == [0, 1, 2, 3]
    for r in recs:
        if r.seed % 2:  # odd seeds misbehave at their third move
            assert r.penalty.startswith(reason) and r.score == -30
            # the two moves before it are kept (a crashed process's too, read from its trace)
            assert [card for card, _, _ in r.placements] == deal(r.seed)[:2]
        else:
            assert r.penalty is None and len(r.placements) == 25


def test_each_game_process_warms_up_the_prepared_player_before_its_games():
    recs = run("fault_players:WarmedHere", n=3, workers=2)
    assert [r.penalty for r in recs] == [None] * 3 and all(len(r.placements) == 25 for r in recs)


@pytest.mark.timeout(120)  # a warm-up left without its limit would hang here
def test_a_warm_up_is_untimed_up_to_its_limit_and_stopped_past_it(monkeypatch):
    """Building a player and loading it into a game process include its warm-up
    (compiling into a cold numba cache, many times slower on a busy machine): not a
    game's clock, but WARM_UP_LIMIT_S, past which the process is stopped.

    The stopped cases wait out the limit, so it is lower there: their build (greedy's
    kernels, loaded in this process before it forks, conftest.py) takes milliseconds."""
    from pokersquares.harness import local_backend
    monkeypatch.setattr(local_backend, "WARM_UP_LIMIT_S", 8.0)
    slow = run("fault_players:SlowWarmUp:seconds=3.5,handed=true", n=2, tpg=1.0)
    assert [r.penalty for r in slow] == [None, None]  # 3.5 s of loading, more than a game's 1 s + grace
    monkeypatch.setattr(local_backend, "WARM_UP_LIMIT_S", 3.0)
    stuck = run("fault_players:SlowWarmUp:seconds=600,handed=true", n=2, tpg=1.0)
    assert all(r.penalty.startswith("loading and warming up the player took over 3 s") for r in stuck)
    never = run("fault_players:SlowWarmUp:seconds=600", n=2, tpg=1.0)
    assert all(r.penalty == "building and warming up took over 3 s" for r in never)


def test_timeouts_by_the_clock_and_by_the_watchdog():
    slow = run("fault_players:Slow", n=2, system=NEG, tpg=0.5)
    assert slow[1].penalty.startswith("timeout") and slow[1].score == -30 and slow[0].penalty is None
    hang = run("fault_players:Hang", n=4, system=NEG, tpg=0.5)
    assert [r.penalty is not None for r in hang] == [False, True, False, True]
    assert all(r.penalty.startswith("timeout") for r in hang if r.penalty)
    for r in hang[1::2]:  # a hung process's game keeps its moves and the time it was given
        assert [card for card, _, _ in r.placements] == deal(r.seed)[:2] and r.decision_s > 0.5
        greedy = GreedyPlayer()
        greedy.set_point_system(NEG, 1.0)
        assert r.placements == play_game(greedy, NEG, r.seed, 30.0).placements[:2]


def test_a_game_handed_to_an_idle_worker_gets_its_full_time():
    # One worker takes both games (two a worker in flight) and hangs in the first; the
    # second goes to the other worker, idle since it got ready: that game's watch starts
    # when it is handed over, so its 0.6 s of sound play is not stopped as a timeout. 2 s
    # a game: with two busy processes beside the suite, the fresh worker's first moves
    # (loading the greedy kernel) and the sleeps took 1.03 s over 10 moves.
    recs = run_games(RunSpec("fault_players:HangOrDawdle", NEG, 2, 1, 2.0, 1.0), range(2), workers=2)
    assert [(r.seed, r.penalty is None, len(r.placements)) for r in recs] == [(1, False, 2), (2, True, 25)], [
        (r.seed, r.penalty, round(r.decision_s, 2), len(r.placements)) for r in recs]


def test_failed_preparation_penalises_and_bad_player_raises():
    recs = run("fault_players:BadPrep", n=2, system=NEG)
    assert all(r.penalty.startswith("preparation failed") and r.score == -30 for r in recs)
    with pytest.raises(UnknownPlayerError, match="no parameter 'no_such_option'"):
        run("greedy:no_such_option=1", n=1)


def test_same_results_for_any_number_of_workers():
    spec = RunSpec("random", AMERICAN, 40, 100, 30.0, 5.0, secret="one run's key")
    one = run_games(spec, range(40), workers=1)
    two = run_games(spec, range(40), workers=2)
    assert [(r.score, r.placements) for r in one] == [(r.score, r.placements) for r in two]


def test_record_run_resumes_instead_of_replaying(tmp_path):
    store = ResultStore(tmp_path / "r.sqlite")
    spec = RunSpec("greedy", BRITISH, 30, 7, 30.0, 1.0)
    seen = []
    run_id, recs = record_run(RunSpec("greedy", BRITISH, 10, 7, 30.0, 1.0), store, on_result=seen.append)
    assert len(seen) == 10
    seen.clear()
    run_id2, recs2 = record_run(spec, store, on_result=seen.append)
    assert run_id2 == run_id and len(seen) == 20 and len(recs2) == 30
    assert [r.score for r in recs2[:10]] == [r.score for r in recs]
    # The resumed games are greedy's own games on those deals, not stand-ins.
    greedy = GreedyPlayer()
    greedy.set_point_system(BRITISH, 0.0)
    assert [r.score for r in recs2] == [play_game(greedy, BRITISH, r.seed, 30.0).score for r in recs2]


def test_a_run_with_its_parameters_in_another_order_resumes_the_run_held(tmp_path):
    """The store knows a run by its spec's text: ``tiger:cp=5,iterations=20`` after
    ``tiger:iterations=20,cp=5`` was a new run, every game held played again; it resumes
    the run held, and is refused under another secret as the run's own spelling is."""
    store = ResultStore(tmp_path / "r.sqlite")
    run_id, recs = record_run(RunSpec("tiger:iterations=20,cp=5", BRITISH, 3, 7, 30.0, 0.0), store)
    seen = []
    again, recs2 = record_run(RunSpec("tiger:cp=5, iterations=20", BRITISH, 4, 7, 30.0, 0.0), store,
                              on_result=seen.append)
    assert again == run_id and [r.game_index for r in seen] == [3]  # the one game it lacked
    assert [r.score for r in recs2[:3]] == [r.score for r in recs]
    assert [r.player for r in store.runs()] == ["tiger:iterations=20,cp=5"]
    # Under another secret, refused written either way (before, one way made a second run).
    for spelled in ("tiger:cp=5,iterations=20", "tiger:iterations=20,cp=5"):
        with pytest.raises(StoreError, match="another secret"):
            record_run(RunSpec(spelled, BRITISH, 1, 7, 30.0, 0.0, secret="0" * 32), store)
    # Several runs at once: refused before the first is played.
    with pytest.raises(StoreError, match="another secret"):
        record_runs([RunSpec("greedy", BRITISH, 1, 7, 30.0, 0.0, secret="0" * 32),
                     RunSpec("tiger:cp=5,iterations=20", BRITISH, 1, 7, 30.0, 0.0, secret="0" * 32)], store)
    assert len(store.runs()) == 1
    # Another value of a parameter is another player.
    third, _ = record_run(RunSpec("tiger:cp=6,iterations=20", BRITISH, 1, 7, 30.0, 0.0), store)
    assert third != run_id and len(store.runs()) == 2
    # A store of both spellings (written before they were one run): each resumes its own.
    spelled = "tiger: iterations=20 ,cp=6"
    own = store.open_run(spelled, "tiger", BRITISH, 7, 1, 30.0, 0.0, None, run_version(spelled))
    assert record_run(RunSpec(spelled, BRITISH, 1, 7, 30.0, 0.0), store)[0] == own


def test_retry_penalties_replays_only_the_penalised_games(tmp_path, monkeypatch):
    store = ResultStore(tmp_path / "r.sqlite")
    spec = RunSpec("fault_players:BrokenWhileFlagged", BRITISH, 3, 0, 5.0, 0.0)
    monkeypatch.setenv("FAULT_BROKEN", "1")
    run_id, recs = record_run(spec, store)
    assert all(r.penalty and "not fixed yet" in r.penalty for r in recs)
    monkeypatch.delenv("FAULT_BROKEN")  # the bug is fixed
    assert all(r.penalty for r in record_run(spec, store)[1])  # a plain rerun resumes the stored penalties
    again, recs = record_run(spec, store, retry_penalties=True)
    assert again == run_id and [r.penalty for r in recs] == [None] * 3 and store.run(run_id).penalties == 0


def test_module_players_are_keyed_by_their_source(tmp_path, monkeypatch):
    module = tmp_path / "my_player_mod.py"
    module.write_text("from pokersquares.players.baseline import GreedyPlayer\n\n"
                      "class Mine(GreedyPlayer):\n    name = 'mine'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    store = ResultStore(tmp_path / "r.sqlite")
    spec = RunSpec("my_player_mod:Mine", BRITISH, 2, 0, 5.0, 0.0)
    first, _ = record_run(spec, store)
    assert record_run(spec, store)[0] == first  # unchanged code resumes
    module.write_text(module.read_text() + "    # fixed a bug\n")
    assert record_run(spec, store)[0] != first  # changed code (no version bump) gets a run of its own


@pytest.mark.parametrize("player,answer", [("ChoosesFloat", "0.9"), ("ChoosesText", "'0'"), ("ChoosesBool", "True")])
def test_a_base_player_choosing_something_not_a_cell_is_a_malformed_answer(player, answer):
    (rec,) = run(f"fault_players:{player}", n=1, system=NEG, workers=1)
    assert rec.penalty == f"malformed answer: choose must answer a cell index 0..24 (an integer), got {answer}"
    assert rec.score == -30 and rec.placements == []
    (rec,) = run("fault_players:ChoosesNumpy", n=1, system=NEG, workers=1)  # a numpy integer is an integer
    assert rec.penalty is None and len(rec.placements) == 25


def test_a_base_player_used_by_hand_refuses_a_card_it_cannot_place_in_one_line():
    """get_play used to play before set_point_system (on zero points), take 3.7 as card 3,
    "5" as card 5 and True as card 1, and place card 99 or a card already on the grid;
    set_point_system of ten points as a list was an AttributeError."""
    import numpy as np

    from pokersquares.errors import IllegalPlacementError, InvalidPointSystemError, PokerSquaresError

    player = GreedyPlayer()
    player.start_game()
    with pytest.raises(PokerSquaresError, match="call set_point_system"):
        player.get_play(5, 1.0)
    for points in (list(AMERICAN.points), np.array(AMERICAN.points, dtype=float)):
        with pytest.raises(InvalidPointSystemError, match="takes a PointSystem"):
            player.set_point_system(points, 0.0)
    # "1" is no time; an infinite budget learned for ever, a negative one silently none.
    for budget in ("1", float("inf"), -1.0, float("nan")):
        with pytest.raises(PokerSquaresError, match="finite number of seconds from 0"):
            player.set_point_system(AMERICAN, budget)
    from pokersquares.errors import InvalidSeedError
    for seed in (1.7, "3", None):  # int(1.7) made it seed 1
        with pytest.raises(InvalidSeedError, match="set_seed takes an integer"):
            player.set_seed(seed)
    player.set_seed(2 ** 70)  # any integer, taken to 31 bits
    player.set_point_system(AMERICAN, 0.0)
    player.start_game()
    assert player.get_play(np.int64(5), 1.0) == (0, 0)
    for card, words in ((3.7, "card id 0..51, got 3.7"), ("5", "card id 0..51, got '5'"), (True, "got True"),
                        (99, "got 99"), (5, "6C is already on this game's grid")):
        with pytest.raises(IllegalPlacementError, match=words):
            player.get_play(card, 1.0)
    assert sorted(player.grid.tolist()) == [-1] * 24 + [5]  # nothing else placed
    for card in range(6, 30):
        player.get_play(card, 1.0)
    with pytest.raises(IllegalPlacementError, match="grid is full: call start_game"):
        player.get_play(40, 1.0)

    from pokersquares.harness.player import BasePlayer

    class OwnWay(BasePlayer):
        """A player of one's own keeping its point system its own way (no super call)."""

        def set_point_system(self, point_system, budget_s):
            self.mine = point_system

        def choose(self, grid, card, seconds_left):
            return int(np.flatnonzero(grid == -1)[0])

    own = OwnWay()
    own.set_point_system(AMERICAN, 0.0)
    own.start_game()
    assert own.get_play(5, 1.0) == (0, 0) and own.get_play(6, 1.0) == (0, 1)


def test_a_player_reporting_a_nonsense_fallback_count_neither_loses_its_game_nor_stops_the_run(tmp_path):
    store = ResultStore(tmp_path / "r.sqlite")
    run_id, recs = record_run(RunSpec("fault_players:ReportsNonsense", AMERICAN, 4, 0, 30.0, 0.0), store)
    assert [r.penalty for r in recs] == [None] * 4 and all(0 <= r.fallback_moves <= 25 for r in recs)
    assert store.run(run_id).finished == 4


def test_an_answer_that_only_unpacks_into_two_integers_is_malformed():
    from pokersquares.harness.game_play import as_cell
    assert as_cell((1, 2)) == (1, 2) and as_cell([3, 4]) == (3, 4)
    for answer in (b"\x01\x02", {1: 0, 2: 0}, "12", (1.0, 2), (True, 2)):
        with pytest.raises(ValueError):
            as_cell(answer)


def test_a_finished_game_is_in_the_store_soon_even_while_the_next_plays(tmp_path):
    import sqlite3
    import threading

    from pokersquares.harness.runner import FLUSH_EVERY_S

    path = tmp_path / "r.sqlite"
    seen: dict[int, list] = {}

    def look(index):  # from another connection, as a killed run's store would be read
        with sqlite3.connect(path) as c:
            seen[index] = [r[0] for r in c.execute("SELECT game_index FROM games")]

    timers = []

    def on_result(rec):
        timers.append(threading.Timer(FLUSH_EVERY_S + 0.5, look, (rec.game_index,)))
        timers[-1].start()

    with ResultStore(path) as store:
        record_run(RunSpec("fault_players:SecondGames", AMERICAN, 2, 0, 30.0, 0.0), store, workers=1,
                   on_result=on_result)
    for t in timers:
        t.join()
    assert 0 in seen[0]  # written while game 1 still played (about 1.5 s), not after it


def test_a_run_returns_the_games_as_the_store_holds_them(tmp_path):
    import dataclasses

    from pokersquares.harness.store import GameRecord

    spec = RunSpec("greedy", BRITISH, 3, 7, 30.0, 1.0)
    path = tmp_path / "r.sqlite"
    with ResultStore(path) as store:
        run_id, _ = record_run(dataclasses.replace(spec, games=1), store)

        def other_process_first(rec):  # another process of the same run wrote this game first
            if rec.game_index == 1:
                with ResultStore(path) as other:
                    other.add_games(run_id, [GameRecord(1, 8, 999, [], 0.0, None)])

        _, recs = record_run(spec, store, on_result=other_process_first)
        assert [(r.game_index, r.score == 999) for r in recs] == [(0, False), (1, True), (2, False)]


def test_two_commands_playing_one_run_at_once_are_told_so_in_one_line(tmp_path):
    """Two commands started alike on one store play the same run: each game is recorded
    once, and the one whose games the other recorded first says so (not silently
    playing every game twice)."""
    import warnings

    from pokersquares.harness.runner import RunnerWarning
    from pokersquares.harness.store import GameRecord

    spec = RunSpec("greedy", BRITISH, 3, 7, 30.0, 1.0)
    path = tmp_path / "r.sqlite"
    with ResultStore(path) as store:
        with warnings.catch_warnings(record=True) as alone:
            warnings.simplefilter("always")
            run_id, _ = record_run(RunSpec("greedy", BRITISH, 1, 7, 30.0, 1.0), store)
        assert [w for w in alone if issubclass(w.category, RunnerWarning)] == []

        def other_command(rec):  # the other command records games 1 and 2 as this one plays
            if rec.game_index == 1:
                with ResultStore(path) as other:
                    other.add_games(run_id, [GameRecord(1, 8, 90), GameRecord(2, 9, 91)])

        with pytest.warns(RunnerWarning) as said:
            _, recs = record_run(spec, store, on_result=other_command)
        assert [r.score for r in recs][1:] == [90, 91]
        [line] = [str(w.message) for w in said if issubclass(w.category, RunnerWarning)]
        assert f"another command played run {run_id} of {path} at the same time" in line
        assert "2 of the games this one played were recorded by it first" in line and "\n" not in line


# The searching players' own clock capped at 1 s a game (a search still at many moves), within the game's 3 s.
@pytest.mark.parametrize("spec", ["greedy_mc:time_per_game=1", "tiger:iterations=50",
                                  "hybrid:evaluator=possibility,search=flat_mc,time_per_game=1"])
def test_any_integer_a_caller_seeds_a_player_with_plays_a_legal_game(spec):
    from pokersquares.harness.registry import make_player

    player = make_player(spec)
    player.set_point_system(AMERICAN, 0.0)
    for seed in (-1, 2 ** 62, -(2 ** 63)):
        rec = play_game(player, AMERICAN, 5, 3.0, player_seed=seed)
        assert rec.penalty is None and len(rec.placements) == 25, (seed, rec.penalty)
    player.set_seed(12345)
    assert player.seed == 12345  # the harness's 31-bit seeds pass unchanged


def test_a_choose_that_answers_an_occupied_cell_is_an_illegal_play_and_the_grid_keeps_its_card():
    # get_play wrote the new card over the old one in the player's own grid, silently.
    from pokersquares.harness.game_play import play_game
    from pokersquares.harness.player import BasePlayer, OccupiedCellError
    from pokersquares.points import AMERICAN

    class Corner(BasePlayer):
        def choose(self, grid, card, seconds_left):
            return 0

    player = Corner()
    player.set_point_system(AMERICAN, 0.1)
    player.start_game()
    assert player.get_play(5, 1.0) == (0, 0)
    with pytest.raises(OccupiedCellError, match="choose answered cell 0 .*which holds"):
        player.get_play(6, 1.0)
    assert player.grid[0] == 5 and (player.grid[1:] == -1).all()
    record = play_game(Corner(), AMERICAN, 0, 1.0)
    assert record.penalty.startswith("illegal play: choose answered cell 0") and len(record.placements) == 1


def test_a_runspecs_secret_keys_its_run_and_a_run_keyed_otherwise_is_refused_before_any_game(tmp_path):
    """``RunSpec(secret=...)`` was replaced by the store's own fresh key: a library caller
    asking for a key did not get it, unsaid."""
    import dataclasses

    from pokersquares.harness.runner import record_runs
    from pokersquares.harness.spec import RunSpecError
    from pokersquares.harness.store import StoreError

    spec = RunSpec("random", AMERICAN, 4, 0, 5.0, 0.0, secret="k1")
    with ResultStore(tmp_path / "a.sqlite") as a, ResultStore(tmp_path / "b.sqlite") as b:
        run_a, games_a = record_run(spec, a, workers=1)
        _, games_b = record_run(spec, b, workers=1)
        assert a.run_secret(run_a) == "k1" and [g.score for g in games_a] == [g.score for g in games_b]
        other = RunSpec("random", BRITISH, 4, 0, 5.0, 0.0, secret="k2")
        with pytest.raises(StoreError, match="played under another secret"):  # the second run is keyed otherwise
            record_runs([other, dataclasses.replace(spec, secret="k2", games=6)], a, workers=1)
        assert len(a.runs()) == 1 and len(a.games(run_a)) == 4  # nothing of the call played or recorded
        with pytest.raises(RunSpecError, match="printable text"):
            RunSpec("random", AMERICAN, 4, secret="a\nb")


def test_a_runs_warnings_are_shown_at_every_run_and_point_at_the_caller():
    """A RunnerWarning was raised inside the backend, so Python's default filter showed a
    message once per place: a notebook's second run of the same player said nothing."""
    import warnings as w

    from pokersquares import AMERICAN
    from pokersquares.harness.runner import RunnerWarning, RunSpec, run_games

    spec = RunSpec("fault_players:Unpicklable", AMERICAN, games=1, time_per_game=1, prep_time=0)
    shown = []
    for _ in range(2):
        with w.catch_warnings(record=True) as caught:
            w.simplefilter("default")  # Python's own filter, as a notebook has it
            run_games(spec, range(1), workers=1)
        shown.append([c for c in caught if issubclass(c.category, RunnerWarning)])
    assert all(len(s) == 1 and "cannot be pickled" in str(s[0].message) for s in shown), shown
    assert shown[1][0].filename == __file__  # the line that ran the games, not the backend's
