"""The library called from one long-lived interpreter, as a notebook calls it: the same
call twice, a Ctrl-C part way, threads, numpy's numbers where Python's are expected.
Each test names what went wrong before."""

import subprocess
import sys
import textwrap
import threading
import time
import types

import pytest

from pokersquares.harness import registry


# -- the registry's first read of the players ----------------------------------------------
def _unread_registry(monkeypatch, import_module):
    """The registry as a fresh interpreter has it (nothing read yet), its imports made by
    ``import_module``."""
    monkeypatch.setattr(registry, "_REGISTRY", {})
    monkeypatch.setattr(registry, "_FAMILIES", {})
    monkeypatch.setattr(registry, "_BUILTINS_LOADED", False)
    monkeypatch.setattr(registry, "importlib", types.SimpleNamespace(import_module=import_module))


def test_threads_naming_players_at_once_all_find_them(monkeypatch):
    """Two threads' first player names at once (a notebook's worker threads): the second
    saw the registry marked read while the first still imported the players, and got
    "unknown player 'greedy'; known players: " (7 of 8 threads, every time)."""
    import importlib

    def slow_import(name):
        time.sleep(0.2)  # the players' import takes seconds in a fresh interpreter
        return importlib.import_module(name)

    _unread_registry(monkeypatch, slow_import)
    errors = []

    def name_one():
        try:
            registry.parse_player_spec("greedy")
        except Exception as e:  # noqa: BLE001 - what each thread got is the test
            errors.append(repr(e))

    threads = [threading.Thread(target=name_one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_a_ctrl_c_in_the_first_read_of_the_players_is_not_for_ever(monkeypatch):
    """Ctrl-C while the players were first imported left the registry marked read and
    empty: every later make_player of that interpreter said "unknown player 'greedy'"
    until it was restarted."""
    import importlib

    interrupted = []

    def interrupt_once(name):
        if not interrupted:
            interrupted.append(name)
            raise KeyboardInterrupt
        return importlib.import_module(name)

    _unread_registry(monkeypatch, interrupt_once)
    with pytest.raises(KeyboardInterrupt):
        registry.make_player("greedy")
    assert registry.make_player("greedy").name == "greedy"
    assert {"greedy", "champion", "tiger"} <= {p.name for p in registry.list_players()}


def test_a_ctrl_c_part_way_through_the_players_import_reads_them_all_next_time():
    """The package imported anew after a Ctrl-C part way has no ``catalog`` attribute (its
    submodules were imported by the first try): the next call failed with AttributeError."""
    code = textwrap.dedent("""
        import sys
        from pokersquares.harness.registry import list_players, make_player

        class StopOnce:  # Ctrl-C while pokersquares.players.td is imported, once
            done = False
            def find_spec(self, name, path=None, target=None):
                if name == "pokersquares.players.td" and not StopOnce.done:
                    StopOnce.done = True
                    raise KeyboardInterrupt
                return None

        sys.meta_path.insert(0, StopOnce())
        try:
            make_player("greedy")
        except KeyboardInterrupt:
            pass
        assert StopOnce.done
        print(make_player("greedy").name, make_player("td").name)
        print(sorted(p.name for p in list_players()))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    first, names = out.stdout.splitlines()[-2:]
    assert first.split() == ["greedy", "td-greedy"]
    assert {"greedy", "td", "tiger", "champion", "beemo"} <= set(eval(names))


# -- one evaluator object given to two players -----------------------------------------------
def test_an_evaluator_shared_by_two_players_is_not_played_under_the_wrong_points():
    """A notebook's loop over searches with one evaluator object: the second player's
    preparation for British re-prepared the evaluator the first plays American with, and
    the first then played its American games by British values without a word (seed 5:
    111 alone, 53 after)."""
    import numpy as np

    from pokersquares.errors import PokerSquaresError
    from pokersquares.evaluators import PossibilityEvaluator
    from pokersquares.harness.game_play import play_game
    from pokersquares.players import SearchPlayer
    from pokersquares.points import AMERICAN, BRITISH
    from pokersquares.search import Expectimax, GreedySearch

    evaluator = PossibilityEvaluator()
    first, second = SearchPlayer(evaluator, GreedySearch()), SearchPlayer(evaluator, Expectimax())
    first.set_point_system(AMERICAN, 0.0)
    alone = play_game(first, AMERICAN, 5, 30.0)
    assert alone.penalty is None
    second.set_point_system(BRITISH, 0.0)
    first.start_game()
    with pytest.raises(PokerSquaresError, match="shared with another player"):
        first.get_play(0, 30.0)
    grid = np.full(25, -1, dtype=np.int8)
    with pytest.raises(PokerSquaresError, match="shared with another player"):
        first.cell_values(grid, 0, 0.1)
    # In a game it is the player's fault, said as such, never British values' score.
    assert "shared with another player" in play_game(first, AMERICAN, 5, 30.0).penalty
    first.set_point_system(AMERICAN, 0.0)  # prepared again: its own points, its own game
    assert play_game(first, AMERICAN, 5, 30.0).score == alone.score


# -- what a cell shows --------------------------------------------------------------------
def test_players_evaluators_and_searches_say_what_they_are():
    """Every player of a composition showed as ``<...SearchPlayer object at 0x7f...>``:
    beemo, og, gettysburg and a hybrid could not be told apart in a notebook's output."""
    from pokersquares.evaluators import NarlEvaluator
    from pokersquares.players import GreedyPlayer, SearchPlayer
    from pokersquares.points import BRITISH
    from pokersquares.search import MCTS

    evaluator, search = NarlEvaluator(), MCTS()
    player = SearchPlayer(evaluator, search)
    assert repr(player) == f"<SearchPlayer {player.name!r} (NarlEvaluator + MCTS), no point system yet>"
    assert repr(evaluator) == "<NarlEvaluator 'narl', no point system yet>"
    assert repr(search) == f"<MCTS {search.name!r}>"
    greedy = GreedyPlayer()
    greedy.set_point_system(BRITISH, 0.0)
    assert repr(greedy) == "<GreedyPlayer 'greedy', point system British>"
    beemo = registry.make_player("beemo")
    assert repr(beemo).startswith("<SearchPlayer 'beemo' (PatternEvaluator + FlatMonteCarlo)")


# -- numpy's numbers where Python's are expected -------------------------------------------
def test_a_run_spec_takes_numpy_numbers_as_plain_ones():
    """``RunSpec(..., games=np.int64(3), prep_time=np.int64(0))`` was refused ("must be an
    integer ... got np.int64(3)", "must be a finite number of seconds"), though each is
    a number a notebook's arithmetic gives."""
    import numpy as np

    from pokersquares import AMERICAN
    from pokersquares.harness.runner import RunSpec, RunSpecError

    spec = RunSpec("greedy", AMERICAN, games=np.int64(3), seed=np.int64(5), time_per_game=np.float32(1),
                   prep_time=np.int64(0), memory_mb=np.int64(500))
    assert (spec.games, spec.time_per_game, spec.prep_time, spec.memory_mb) == (3, 1.0, 0.0, 500)
    assert all(type(v) is t for v, t in ((spec.games, int), (spec.time_per_game, float), (spec.prep_time, float),
                                         (spec.memory_mb, int)))
    for bad in (dict(games=True), dict(games=np.float64(3)), dict(time_per_game=np.float64("nan")),
                dict(prep_time=np.bool_(True)), dict(memory_mb=2.0)):
        with pytest.raises(RunSpecError):
            RunSpec("greedy", AMERICAN, **{"games": 2, **bad})


def test_a_store_asked_for_a_run_by_a_numpy_id_answers_as_for_an_int(tmp_path):
    """SQLite binds numpy's int64 as bytes, which match no row: ``games(np.int64(1))``
    answered ``[]`` for a run of 300 games, silently."""
    import numpy as np

    from pokersquares import AMERICAN
    from pokersquares.harness.runner import RunSpec, record_run
    from pokersquares.harness.store import ResultStore, StoreError

    with ResultStore(tmp_path / "s.sqlite") as store:
        tid = store.open_tournament(["random"], [AMERICAN], 4, 0, 1.0, 0.0)
        run_id, _ = record_run(RunSpec("random", AMERICAN, games=4, time_per_game=1, prep_time=0), store, workers=1,
                               tournament_id=tid)
        n = np.int64(run_id)
        assert len(store.games(n)) == 4 and store.games(n) == store.games(run_id)
        assert store.seed_scores(n) == store.seed_scores(run_id) and store.seeds_played(n)[0] == 4
        assert [g.seed for g in store.games(run_id, seeds=np.arange(2))] == [0, 1]
        assert store.moves_as_stored(n) == store.moves_as_stored(run_id)
        with pytest.raises(StoreError, match="a run id is an integer"):
            store.games("1")
        assert store.runs(tournament_id=np.int64(tid)) == store.runs(tournament_id=tid) != []


def test_a_tournament_takes_numpy_numbers_as_plain_ones(tmp_path):
    """``run_tournament`` with numpy's numbers: a seed, times or preparation failed deep in
    the store (``Object of type int64 is not JSON serializable``), and ``games=np.int64(2)``
    was stored as bytes, its table was no JSON, and ``results --tournament`` an internal error."""
    import json

    import numpy as np

    from pokersquares import AMERICAN
    from pokersquares.harness.store import ResultStore
    from pokersquares.harness.tournament import run_tournament, table_from_store

    with ResultStore(tmp_path / "t.sqlite") as store:
        table = run_tournament(["random"], [AMERICAN], np.int64(2), np.int64(3), store, time_per_game=np.float32(1),
                               prep_time=np.int64(0), workers=1, secret="s")
        assert json.loads(json.dumps(table))["games"] == 2
        held = store.tournaments()[0]
        assert (held["games"], held["seed"]) == (2, 3) and type(held["games"]) is int
        assert table_from_store(store, table["tournament_id"])["totals"] == table["totals"]
        assert [g.seed for g in store.games(store.runs()[0].run_id)] == [3, 4]


def test_a_store_opens_a_run_and_a_tournament_of_numpy_numbers_as_of_plain_ones(tmp_path):
    """``open_run`` and ``open_tournament`` with numpy's numbers failed in the key ("Object
    of type int64 is not JSON serializable"); stored, an int64 would be bytes."""
    import sqlite3

    import numpy as np

    from pokersquares import AMERICAN
    from pokersquares.harness.store import ResultStore

    with ResultStore(tmp_path / "n.sqlite") as store:
        plain = store.open_run("random", "random", AMERICAN, 3, 2, 1.0, 0.0)
        assert store.open_run("random", "random", AMERICAN, np.int64(3), np.int64(5), np.float32(1), np.float64(0)) \
            == plain
        tid = store.open_tournament(["random"], [AMERICAN], 2, 3, 1.0, 0.0)
        assert store.open_tournament(["random"], [AMERICAN], np.int64(4), np.int64(3), np.float32(1),
                                     np.float64(0)) == tid
    with sqlite3.connect(tmp_path / "n.sqlite") as db:
        assert db.execute("SELECT typeof(seed), typeof(games), games FROM runs").fetchall() == [("integer", "integer", 5)]
        assert db.execute("SELECT typeof(games), games FROM tournaments").fetchall() == [("integer", 4)]


# -- games forked from a process that learned ---------------------------------------------
_LEARN_THEN_PLAY = """
import sys, numpy as np, numba
from pokersquares import BRITISH
from pokersquares.evaluators.patterns import PatternEvaluator
from pokersquares.harness.runner import RunSpec, run_games
e = PatternEvaluator()
e.prepare(np.array(BRITISH.points), 0.3)  # learns here, on numba's parallel kernels
e.save(sys.argv[1], "British")
print("layer", numba.threading_layer(), flush=True)
try:
    records = run_games(RunSpec("beemo:load=" + sys.argv[1], BRITISH, games=2, time_per_game=1, prep_time=0),
                        range(2), workers=1)
    print("scores", [r.score for r in records], [r.penalty for r in records])
except KeyboardInterrupt as err:
    print("interrupted", err)
"""


def test_games_forked_after_learning_here_under_gnu_openmp_say_why_they_stopped(tmp_path):
    """Learning in the notebook's process (numba's ``omp`` layer, GNU OpenMP), then games:
    each game's process was stopped by numba at its first parallel kernel (SIGTERM), and
    the run said only that it was "stopped from outside", as by a kill nobody sent. A
    SIGTERM from outside looks the same, so the interruption now names both, and what to
    do; under the fork-safe ``workqueue`` layer the games are played."""
    script = tmp_path / "learn_then_play.py"
    script.write_text(_LEARN_THEN_PLAY)

    def run(**env):
        return subprocess.run([sys.executable, str(script), str(tmp_path / "u.json")], capture_output=True,
                              text=True, timeout=300, env={**__import__("os").environ, **env}).stdout

    out = run()
    if "layer omp" not in out:
        pytest.skip(f"numba's omp threading layer is not the one used here ({out.splitlines()[:1]})")
    assert "interrupted a player's process was stopped from outside (SIGTERM), or by numba at its first " \
           "parallel kernel" in out, out
    assert "NUMBA_THREADING_LAYER=workqueue" in out
    out = run(NUMBA_THREADING_LAYER="workqueue")
    assert "layer workqueue" in out and "scores [" in out and "[None, None]" in out, out

