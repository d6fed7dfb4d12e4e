"""The library used from several threads of one process: what is safe, and what fails
in one clear line rather than answering wrongly."""

import contextlib
import copy
import pickle
import threading
import time

import numpy as np
import pytest

from pokersquares import progress
from pokersquares.cards import deal
from pokersquares.errors import PokerSquaresError
from pokersquares.evaluators import NarlEvaluator, TdEvaluator
from pokersquares.evaluators.patterns import learn_utilities
from pokersquares.harness.game_play import play_game
from pokersquares.harness.player import BasePlayer
from pokersquares.players import SearchPlayer
from pokersquares.points import AMERICAN
from pokersquares.search import CrnHalving, GreedySearch, Search
from pokersquares.search.base import checked_decision

POINTS = np.array(AMERICAN.points, dtype=np.int64)


def _positions(n, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        cards = deal(100 + k)
        placed = int(rng.integers(3, 18))
        grid = np.full(25, -1, dtype=np.int8)
        grid[rng.permutation(25)[:placed]] = cards[:placed]
        out.append((grid, int(cards[placed])))
    return out


def _in_two_threads(work):
    """``work(0)`` and ``work(1)`` at once; their results, or the exception each raised."""
    out = [None, None]
    start = threading.Barrier(2)

    def run(i):
        start.wait()
        try:
            out[i] = work(i)
        except BaseException as e:  # noqa: BLE001 - the test looks at it
            out[i] = e

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return out


# -- progress ----------------------------------------------------------------------------------

def test_two_threads_listening_at_once_each_hear_their_own_reports_and_leave_no_listener_behind():
    """Each thread's block was one process-wide listener: both threads' reports went to
    the block opened last, and the first block to end put back the other's listener,
    which stayed installed after both had ended."""
    heard = {0: [], 1: []}
    both_in = threading.Barrier(2)

    def work(i):
        with progress.listening(heard[i].append):
            both_in.wait()
            for k in range(4):
                progress.report(f"thread {i} step {k}", force=True)
                time.sleep(0.005)
            if i == 1:
                time.sleep(0.1)  # thread 0's block ends first
        return None

    _in_two_threads(work)
    for i in (0, 1):
        assert [p.stage for p in heard[i]] == [f"thread {i} step {k}" for k in range(4)]
    stray = progress.with_subject("after")  # the listener now: none
    stray(progress.Progress("late"))
    assert [len(heard[0]), len(heard[1])] == [4, 4]


def test_pattern_learning_threads_report_to_the_preparation_that_started_them():
    """BeeMo's utilities learn on pool threads, which opened no block of their own: their
    counts went to the latest block open in the process, another thread's preparation."""
    mine, other = [], []
    learning = threading.Event()
    done = threading.Event()

    def other_thread():
        learning.wait(10)
        with progress.listening(other.append):  # opened after the learner's, still open
            done.wait(10)

    t = threading.Thread(target=other_thread)
    t.start()
    try:
        with progress.listening(mine.append):
            learning.set()
            time.sleep(0.05)
            learn_utilities(POINTS, 1.0, seed=1, threads=2)
    finally:
        done.set()
        t.join()
    assert other == []
    counts = [p.games for p in mine if p.stage == "learning" and p.games]
    assert len(counts) >= 2  # the learning threads' counts, not only the first forced line


# -- one player shared by threads ---------------------------------------------------------------

class _StatefulSearch(Search):
    """A search keeping its decision's state on itself, as the built-in ones keep their
    timings and cut_short: the grid it decides on, for a moment."""

    name = "stateful"

    def choose(self, evaluator, grid, card, points, time_s, seed):
        grid, card, points = checked_decision(evaluator, grid, card, points, time_s, seed, self)
        self.grid = grid.copy()
        time.sleep(0.02)
        values = evaluator.placement_values(self.grid, card)
        return int(np.argmax(values)), values


class _StallingSearch(Search):
    """A search that waits inside its decision until told to go on."""

    name = "stalling"

    def __init__(self):
        self.inside = threading.Event()
        self.go = threading.Event()

    def choose(self, evaluator, grid, card, points, time_s, seed):
        grid, card, points = checked_decision(evaluator, grid, card, points, time_s, seed, self)
        self.inside.set()
        self.go.wait(30)
        values = evaluator.placement_values(grid, card)
        return int(np.argmax(values)), values


@pytest.fixture(scope="module")
def narl():
    evaluator = NarlEvaluator(games=500, threads=1)
    evaluator.prepare(POINTS, 0.0, 3)
    return evaluator


def _player(evaluator, search):
    player = SearchPlayer(copy.deepcopy(evaluator), search, time_per_game=30.0)
    player.set_seed(5)
    player.set_point_system(AMERICAN, 0.0)
    return player


def _answers_alone_and_from_two_threads_agree(ask, positions) -> None:
    """``ask(grid, card) -> (cell, values)`` over ``positions`` one after the other, then
    the even ones from one thread and the odd ones from another at once: the same answers."""
    alone = [ask(g, c) for g, c in positions]
    out = _in_two_threads(lambda i: [ask(g, c) for g, c in positions[i::2]])
    together = [None] * len(positions)
    together[0::2], together[1::2] = out
    for (cell, values), (cell2, values2) in zip(alone, together):
        assert cell == cell2
        np.testing.assert_array_equal(values, values2)


def test_advice_asked_of_one_player_from_two_threads_is_what_it_answers_alone(narl):
    player = _player(narl, _StatefulSearch())
    _answers_alone_and_from_two_threads_agree(lambda g, c: player.advice(g, c, 1.0), _positions(6))


def test_a_move_asked_while_another_thread_is_inside_the_player_is_one_clear_error(narl):
    """Two games through one player from two threads played on one grid: the search was
    blamed for changing the grid it was given, or a card came twice."""
    search = _StallingSearch()
    player = _player(narl, search)
    player.start_game()
    for card in deal(7)[:3]:  # corner, then searched moves
        search.go.set()
        player.get_play(card, 10.0)
    search.go.clear()
    search.inside.clear()
    card = deal(7)[3]
    first = []
    t = threading.Thread(target=lambda: first.append(player.get_play(card, 10.0)))
    t.start()
    try:
        assert search.inside.wait(10)
        grid = player.grid.copy()
        for call in (lambda: player.get_play(deal(8)[0], 10.0), player.start_game, lambda: player.set_seed(9),
                     lambda: player.choose(grid, deal(7)[4], 10.0)):
            with pytest.raises(PokerSquaresError, match="another thread is inside this player.*its own player"):
                call()
    finally:
        search.go.set()
        t.join(30)
    assert len(first) == 1 and sum(player.grid >= 0) == 4  # the first thread's move, on its own grid
    player.get_play(deal(7)[4], 10.0)  # its game goes on


def test_two_games_played_at_once_on_one_player_one_scores_the_clear_error(narl):
    search = _StallingSearch()
    player = _player(narl, search)

    def game(i):
        if i == 0:
            return play_game(player, AMERICAN, 40, 30.0, player_seed=3)
        search.inside.wait(10)  # the first game's search is under way
        try:
            return play_game(player, AMERICAN, 41, 30.0, player_seed=3)
        finally:
            search.go.set()

    records = _in_two_threads(game)
    reasons = [r.penalty for r in records]
    assert reasons[0] is None
    assert "another thread is inside this player" in reasons[1]


def test_a_player_with_its_lock_pickles_and_copies(narl):
    player = _player(narl, GreedySearch())
    for twin in (pickle.loads(pickle.dumps(player)), copy.deepcopy(player)):
        twin.start_game()
        assert twin.get_play(deal(3)[0], 1.0) == (0, 0)
        assert twin._turn_lock() is not player._turn_lock()


@contextlib.contextmanager
def _held_by_another_thread(player):
    """Another thread inside ``player`` (holding it as a move does) for the block."""
    inside, leave = threading.Event(), threading.Event()

    def hold():
        with player._alone("a move"):
            inside.set()
            leave.wait(30)

    t = threading.Thread(target=hold)
    t.start()
    try:
        assert inside.wait(10)
        yield
    finally:
        leave.set()
        t.join()


def _each_call_refused(player, card, budget_s) -> None:
    """Each call of the protocol (``card`` to play, a preparation of ``budget_s``) raises
    the one-line error naming it."""
    for call, ask in (("get_play", lambda: player.get_play(card, 10.0)), ("start_game", player.start_game),
                      ("set_seed", lambda: player.set_seed(2)),
                      ("set_point_system", lambda: player.set_point_system(AMERICAN, budget_s))):
        with pytest.raises(PokerSquaresError, match=f"{call} was called while another thread is inside"):
            ask()


class _OwnPlayer(BasePlayer):
    """A player of one's own that never calls ``BasePlayer.__init__`` (its lock is made
    at first use)."""

    name = "own"

    def __init__(self):  # noqa: D107 - no super().__init__() on purpose
        self.point_system = None
        self.points = np.zeros(10, dtype=np.int64)
        self.grid = np.full(25, -1, dtype=np.int8)
        self.seed = 0

    def choose(self, grid, card, seconds_left):
        grid, card = self.checked_position(grid, card)
        return int(np.flatnonzero(grid == -1)[0])


def _built(spec):
    from pokersquares.harness import make_player

    return _OwnPlayer() if spec == "own" else make_player(spec)


@pytest.mark.parametrize("spec", ["greedy", "random", "greedy_mc:time_per_game=5", "own"])
def test_every_players_calls_are_refused_while_another_thread_is_inside_it(spec):
    """``greedy``, ``random``, ``greedy_mc`` and a player of one's own (the harness's base
    class) played two threads' games on one grid: now each call of the protocol made while
    another thread holds the player is one clear error, and the game goes on after."""
    player = _built(spec)
    player.set_point_system(AMERICAN, 0.0)
    player.set_seed(1)
    player.start_game()
    cards = deal(9)
    player.get_play(cards[0], 10.0)
    with _held_by_another_thread(player):
        _each_call_refused(player, cards[1], 0.0)
        assert sum(player.grid >= 0) == 1 and player.seed == 1  # nothing changed by the refused calls
    player.get_play(cards[1], 10.0)
    assert sum(player.grid >= 0) == 2
    twin = copy.deepcopy(player)  # the lock is neither copied nor pickled
    assert pickle.loads(pickle.dumps(twin))._turn_lock() is not player._turn_lock()


def test_a_java_players_calls_are_refused_while_another_thread_is_inside_it(java_classes):
    """Two threads' commands to one JVM crossed on its pipe (an answer read by the other
    thread's call, a game's state the other game's); now one clear error, and its game
    goes on."""
    from pokersquares.harness import make_player

    player = make_player("java:FirstEmptyPlayer")
    try:
        player.set_point_system(AMERICAN, 1.0)
        player.start_game()
        cards = deal(9)
        assert player.get_play(cards[0], 10.0) == (0, 0)
        with _held_by_another_thread(player):
            _each_call_refused(player, cards[1], 1.0)
        assert player.get_play(cards[1], 10.0) == (0, 1)  # its game went on where it was
    finally:
        player.close()


def test_a_champion_preparation_refused_while_another_thread_is_inside_keeps_its_evaluator():
    """The champion chooses its evaluator by the budget before preparing: a refused call
    leaves the player as it was, with the evaluator it last prepared."""
    from pokersquares.harness import make_player

    player = make_player("champion")
    player.set_point_system(AMERICAN, 0.0)  # below SMALL_PREP_S: the small-budget evaluator
    prepared = player.evaluator
    with _held_by_another_thread(player):
        with pytest.raises(PokerSquaresError, match="set_point_system was called while another thread"):
            player.set_point_system(AMERICAN, 60.0)
    assert player.evaluator is prepared and player.evaluator is player.small_evaluator


class _StallingNarl(NarlEvaluator):
    """A NARL evaluator whose preparation waits until told to go on, then learns."""

    def __init__(self):
        super().__init__(games=200, threads=1)
        self.inside = threading.Event()
        self.go = threading.Event()

    def prepare(self, points, budget_s, seed=0):
        self.inside.set()
        self.go.wait(30)
        super().prepare(points, budget_s, seed)


class _PointsSeen(Search):
    """A greedy search noting the points its evaluator was prepared for at each decision."""

    name = "points_seen"

    def __init__(self):
        self.seen = []

    def choose(self, evaluator, grid, card, points, time_s, seed):
        grid, card, points = checked_decision(evaluator, grid, card, points, time_s, seed, self)
        self.seen.append(tuple(int(p) for p in evaluator.points))
        values = evaluator.placement_values(grid, card)
        return int(np.argmax(values)), values


def test_advice_asked_while_another_thread_prepares_the_player_waits_for_the_new_values():
    """A coach's advice asked while the player learned for another point system read the
    evaluator as it changed (the old system's values, or half-learned ones); a move then
    played with the old points. Now advice waits for the preparation, and a move is one
    clear error."""
    from pokersquares.points import BRITISH

    evaluator, search = _StallingNarl(), _PointsSeen()
    player = SearchPlayer(evaluator, search, time_per_game=30.0)
    evaluator.go.set()
    player.set_point_system(AMERICAN, 0.0)
    evaluator.inside.clear()
    evaluator.go.clear()
    grid = np.full(25, -1, dtype=np.int8)
    grid[[0, 6, 12]] = [0, 14, 28]
    preparing = threading.Thread(target=player.set_point_system, args=(BRITISH, 0.0))
    preparing.start()
    try:
        assert evaluator.inside.wait(10)
        with pytest.raises(PokerSquaresError, match="choose was called while another thread is inside"):
            player.choose(grid, 42, 5.0)
        answer = []
        asking = threading.Thread(target=lambda: answer.append(player.advice(grid, 42, 1.0)))
        asking.start()
        asking.join(0.3)
        assert asking.is_alive() and answer == []  # it waits for the preparation
    finally:
        evaluator.go.set()
        preparing.join(60)
    asking.join(60)
    assert len(answer) == 1 and search.seen == [BRITISH.points]


# -- one search shared by threads ----------------------------------------------------------------

def test_one_crn_halving_search_deciding_for_two_threads_at_once_decides_as_alone(narl):
    """Its record of the decision (self.last) was the search's: another thread's decision
    replaced it, and the playouts left under max_playouts were read from that one."""
    search = CrnHalving(depth=4, cores=1, max_playouts=400, stop_z=1000, exact=False)
    _answers_alone_and_from_two_threads_agree(lambda g, c: search.choose(narl, g, c, POINTS, 30.0, 11),
                                              _positions(6, seed=1))


# -- an evaluator learning in one thread -----------------------------------------------------------

def test_a_td_evaluator_saved_while_another_thread_learns_into_it_writes_files_that_load(tmp_path):
    """numpy refused to read its weights as they changed ("number of non-zero array
    elements changed during function execution")."""
    evaluator = TdEvaluator(games=300, td_games=200, threads=1)
    evaluator.prepare(POINTS, 0.0, 2)
    learner = threading.Thread(target=lambda: evaluator.learn(seconds=1.5))
    learner.start()
    paths = []
    try:
        while learner.is_alive() and len(paths) < 200:
            path = tmp_path / f"td{len(paths)}.npz"
            evaluator.save(path)
            paths.append(path)
    finally:
        learner.join()
    assert len(paths) >= 5
    for path in paths[::10]:
        TdEvaluator().load(path)


@pytest.mark.parametrize("spec", ["tiger:iterations=50", "gettysburg:games=200,threads=1"])
def test_each_players_move_is_refused_while_another_thread_is_inside_it(spec):
    """``tiger`` chooses its moves its own way; they are held as every SearchPlayer's."""
    from pokersquares.harness import make_player

    player = make_player(spec)
    player.set_point_system(AMERICAN, 0.0)
    grid = np.full(25, -1, dtype=np.int8)
    grid[[0, 6, 12]] = [0, 14, 28]
    with _held_by_another_thread(player):
        with pytest.raises(PokerSquaresError, match="choose was called while another thread"):
            player.choose(grid, 42, 5.0)
    assert grid[player.choose(grid, 42, 5.0)] == -1


_TWO_BEEMO_SEARCHES = """
import copy, threading
import numpy as np
from pokersquares.harness import make_player
from pokersquares.points import AMERICAN
player = make_player("beemo:playouts=1000")
player.warm_up()
player.set_point_system(AMERICAN, 0.3)
grid = np.full(25, -1, dtype=np.int8)
grid[[0, 6, 12]] = [0, 14, 28]
both = threading.Barrier(2)
def work():
    both.wait()
    for _ in range(40):
        own = copy.deepcopy(player)  # a copy loads the evaluator's kernels (a warm-up), in this thread
        own.advice(grid, 42, 30.0)
        own.evaluator.playouts(grid, 2000, 1)
threads = [threading.Thread(target=work) for _ in range(2)]
for t in threads: t.start()
for t in threads: t.join()
print("ok")
"""


def test_two_threads_searching_with_their_own_beemo_under_numbas_workqueue_layer_take_turns():
    """numba's fallback threading layer stopped the whole process (SIGABRT, "Concurrent
    access has been detected") when two threads ran BeeMo's parallel playouts at once."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "NUMBA_THREADING_LAYER": "workqueue"}
    done = subprocess.run([sys.executable, "-c", _TWO_BEEMO_SEARCHES], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.strip() == "ok"


_TWO_THREADS_RANDOM_GAMES = """
import threading
import numpy as np
from pokersquares.kernels import random_games_parallel
points = np.array([1, 2, 3, 5, 8, 10, 12, 20, 50, 100], dtype=np.int64)
alone = random_games_parallel(3000, 7, points, 2)
both = threading.Barrier(2)
out = []
def work():
    both.wait()
    for _ in range(60):
        out.append(random_games_parallel(3000, 7, points, 2))
threads = [threading.Thread(target=work) for _ in range(2)]
for t in threads: t.start()
for t in threads: t.join()
assert len(out) == 120 and all(np.array_equal(scores, alone) for scores in out)
print("ok")
"""


def test_two_threads_playing_random_games_in_parallel_under_numbas_workqueue_layer_take_turns():
    """The public ``random_games_parallel`` (``pokersquares bench``'s) from two threads
    under numba's fallback layer stopped the process (SIGABRT) as BeeMo's playouts did;
    now they take turns, and each call's scores are those of the call alone."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "NUMBA_THREADING_LAYER": "workqueue"}
    done = subprocess.run([sys.executable, "-c", _TWO_THREADS_RANDOM_GAMES], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.strip() == "ok"
