"""A contest entrant's own player (README "Your own player"): what the harness makes of
a student's honest, buggy code."""

import hashlib
import random
import re
import time
import uuid

from pokersquares import AMERICAN
from pokersquares.harness.game_play import play_game
from pokersquares.harness.runner import RunSpec, run_games, run_version


class Counts:
    """The contest protocol, with nothing learned: counts the cards of each game."""

    name, cores = "counts", 1

    def set_point_system(self, point_system, budget_s):
        pass

    def start_game(self):
        self.n = 0


class SleepsTheWholeClock(Counts):
    """Sleeps all the seconds it is told it has left on the last card."""

    name = "sleeper"

    def get_play(self, card, seconds_left):
        self.n += 1
        if self.n == 25:
            time.sleep(seconds_left)
        return divmod(self.n - 1, 5)


def test_a_timeout_by_a_hair_says_a_time_past_the_limit():
    # "timeout: 1.00 s of decision time, limit 1 s" read as no fault at all.
    record = play_game(SleepsTheWholeClock(), AMERICAN, 3, 0.3)
    assert record.penalty.startswith("timeout: ")
    assert float(re.match(r"timeout: ([0-9.]+) s of decision time, limit 0.3 s$", record.penalty)[1]) > 0.3
    from pokersquares.harness.game_play import over_limit
    assert over_limit(1.0001, 1) == "1.0001"
    assert over_limit(1.0049, 1.0) == "1.005"
    assert over_limit(1.25, 1) == "1.25"  # two decimals where they show it


def _scores(workers, parent_seed):
    random.seed(parent_seed)  # the run's own process: nothing of it may reach the games
    spec = RunSpec("fault_players:UnseededRandom", AMERICAN, 6, 0, 5.0, 0.5, secret="entrant")
    return [r.score for r in sorted(run_games(spec, range(6), workers=workers), key=lambda r: r.game_index)]


def test_a_player_drawing_from_unseeded_generators_replays_on_any_number_of_workers():
    one = _scores(1, 1)
    assert _scores(2, 2) == one
    assert _scores(1, 3) == one


def _module(folder, name, text):
    (folder / f"{name}.py").write_text(text)


def test_a_fix_in_a_players_helper_module_is_new_code(tmp_path, monkeypatch):
    tag = uuid.uuid4().hex[:8]
    helper, base, player, alone = f"helper_{tag}", f"base_{tag}", f"mine_{tag}", f"alone_{tag}"
    _module(tmp_path, helper, "def pick(grid):\n    return int((grid == -1).argmax())\n")
    _module(tmp_path, base, "from pokersquares.harness import BasePlayer\n\nclass Base(BasePlayer):\n"
                            "    name = 'base'\n")
    _module(tmp_path, player, f"import numpy as np\nfrom {helper} import pick\nfrom {base} import Base\n\n"
                              "class P(Base):\n    def choose(self, grid, card, seconds_left):\n"
                              "        return pick(grid)\n")
    _module(tmp_path, alone, "import numpy as np\nfrom pokersquares.harness import BasePlayer\n\n"
                             "class A(BasePlayer):\n    name = 'alone'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = run_version(f"{player}:P")
    assert run_version(f"{player}:P") == before
    (tmp_path / f"{helper}.py").write_text("def pick(grid):\n    return 24 - int((grid[::-1] == -1).argmax())\n")
    fixed = run_version(f"{player}:P")
    assert fixed != before  # the store would have handed the fixed code the old code's games
    (tmp_path / f"{base}.py").write_text((tmp_path / f"{base}.py").read_text() + "    cores = 1\n")
    assert run_version(f"{player}:P") not in (before, fixed)
    # A player of one file (numpy and this package are not its code) keeps the key it had.
    own = hashlib.sha256((tmp_path / f"{alone}.py").read_bytes()).hexdigest()[:16]
    assert run_version(f"{alone}:A").endswith(f"/src:{own}")


class Answers(Counts):
    """Answers ``answer(move)``, or raises what it gives."""

    name = "answers"

    def __init__(self, answer):
        self.answer = answer

    def get_play(self, card, seconds_left):
        self.n += 1
        a = self.answer(self.n - 1)
        if isinstance(a, BaseException):
            raise a
        return a


def _bad_grid(move):
    import numpy as np
    return AssertionError(f"bad grid:\n{np.arange(25).reshape(5, 5)}")


def test_a_players_own_words_make_one_short_line():
    import numpy as np
    from fault_players import Unprintable
    cases = {"malformed answer: expected (row, col), got [0, 1, 2": lambda n: list(range(5000)),
             "error: AssertionError: bad grid: [[ 0 1 2 3 4] [ 5": _bad_grid,
             "error: Unprintable": lambda n: Unprintable(),  # took the game's process down
             "malformed answer: expected (row, col) as integers, got (array([0]), array([0]))":
                 lambda n: divmod(np.array([n]), 5)}
    for start, answer in cases.items():
        record = play_game(Answers(answer), AMERICAN, 3, 5.0)
        assert record.penalty.startswith(start), record.penalty[:200]
        assert "\n" not in record.penalty and len(record.penalty) <= 300
    assert play_game(Answers(lambda n: divmod(np.array(n), 5)), AMERICAN, 3, 5.0).penalty is None  # 0-d: integers


def test_a_failed_preparation_says_why_in_one_short_line():
    for player, start in (("PrepRaisesUnprintable", "preparation failed: Unprintable"),
                          ("PrepRaisesLong", "preparation failed: RuntimeError: yyy")):
        records = run_games(RunSpec(f"fault_players:{player}", AMERICAN, 2, 0, 1.0, 0.5), range(2), workers=1)
        for r in records:
            assert r.penalty.startswith(start), r.penalty[:200]
            assert "\n" not in r.penalty and len(r.penalty) <= 320


def test_a_player_that_writes_into_its_point_system_does_not_change_its_score():
    import warnings
    from pokersquares import deal
    from pokersquares.game import Grid
    expected = []
    for seed in range(3):
        grid = Grid()
        for i, card in enumerate(deal(seed)[:25]):
            grid.place(card, i // 5, i % 5)
        expected.append(grid.score(AMERICAN))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # it cannot be pickled: said in a warning
        records = run_games(RunSpec("fault_players:WritesIntoItsSystem", AMERICAN, 3, 0, 5.0, 0.5), range(3),
                            workers=1)
    assert [r.score for r in sorted(records, key=lambda r: r.game_index)] == expected
    assert AMERICAN.points == (0, 2, 5, 10, 15, 20, 25, 50, 75, 100)


class SeedsItsOwnWay(SleepsTheWholeClock):
    """Overrides set_seed (the harness's seeding hook), and its override raises."""

    def set_seed(self, seed):
        raise ValueError("seed boom")


def test_a_set_seed_that_raises_is_the_games_error_not_a_crash():
    # Raised outside the game's try, it left play_game: the worker process died, its
    # traceback on stderr, and the game's reason said only "the player's process died".
    record = play_game(SeedsItsOwnWay(), AMERICAN, 3, 5.0)
    assert record.penalty == "error: ValueError: seed boom" and record.score == AMERICAN.penalty


def test_a_players_sys_exit_is_its_games_error_in_its_own_words():
    # A student's sys.exit("...") took the game's process down: the reason said only
    # "crash: the player's process died (exit code 1)", its words went to stderr in the
    # middle of the progress bar, and the worker was started again.
    records = sorted(run_games(RunSpec("fault_players:Exits", AMERICAN, 4, 0, 1.0, 0.5), range(4), workers=1),
                     key=lambda r: r.game_index)
    assert [r.penalty for r in records] == [None, "error: SystemExit: my player gives up"] * 2
    assert [len(r.placements) for r in records] == [25, 2, 25, 2]


def test_ray_stopping_its_worker_leaves_the_game():
    # Ray stops a worker on SIGTERM by raising a SystemExit it marks: that is not the
    # player's fault to score, but the end of the game's process.
    import pytest
    from pokersquares.harness.game_play import players_own_exit

    class StoppedByRay(Counts):
        def get_play(self, card, seconds_left):
            e = SystemExit(1)
            e.ray_terminate_msg = "The process receives a SIGTERM."
            raise e

    with pytest.raises(SystemExit):
        play_game(StoppedByRay(), AMERICAN, 3, 5.0)
    assert players_own_exit(SystemExit(0)) and players_own_exit(SystemExit("bye"))


def test_a_function_making_the_player_gets_the_cores_its_player_declares():
    # A ``module:function`` factory was taken as one core whatever its player declared:
    # numba's threads capped at 1 and games run side by side on a machine of two.
    import numba
    import pytest
    from pokersquares.errors import UnknownPlayerError
    from pokersquares.harness.spec import player_cores

    assert player_cores("fault_players:shows_its_threads") == 2
    assert player_cores("fault_players:ShowsItsThreads") == 2  # as its class says
    record, = run_games(RunSpec("fault_players:shows_its_threads", AMERICAN, 1, 0, 1.0, 0.5), [0], workers=1)
    assert record.penalty is None
    assert record.placements[0][1:] == divmod(min(2, numba.config.NUMBA_NUM_THREADS) - 1, 5)
    with pytest.raises(UnknownPlayerError, match=r"declares cores = 'abc': it must be an integer 1\.\.64"):
        player_cores("fault_players:declares_nonsense_cores")


def test_a_player_drawing_from_unseeded_generators_plays_its_run_as_a_policy():
    # The Gymnasium environment's PlayerPolicy seeded the player but not the process-wide
    # generators: a player drawing from them played other games there than in its run
    # (and drew from the caller's own stream).
    import numpy as np
    from pokersquares.envs import PlayerPolicy, PokerSquaresEnv

    spec = "fault_players:UnseededRandom"
    records = sorted(run_games(RunSpec(spec, AMERICAN, 4, 0, 5.0, 0.5, secret="entrant"), range(4), workers=1),
                     key=lambda r: r.game_index)
    env, policy = PokerSquaresEnv(AMERICAN), PlayerPolicy(spec, prep_time=0.5, secret="entrant")
    random.seed(7)
    np.random.seed(7)
    callers = (random.random(), np.random.rand())
    random.seed(7)
    np.random.seed(7)
    for record in records:
        obs, info = env.reset(seed=record.seed)
        placements, done = [], False
        while not done:
            cell = policy(obs, info)
            placements.append((obs["card"], *divmod(cell, 5)))
            obs, _, done, _, info = env.step(cell)
        assert placements == record.placements
    assert (random.random(), np.random.rand()) == callers  # the caller's own draws, undisturbed
