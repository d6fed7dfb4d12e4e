"""How often a user's own ``module:Class`` player is built in the command's own process
(README "Your own player": once a command, once per player for a tournament, even when
every game is already recorded; never prepared or played there)."""

import json
import os
import uuid
import warnings

import pytest

from pokersquares import AMERICAN, BRITISH
from pokersquares.harness.runner import RunnerWarning, RunSpec, record_run, record_runs, run_games
from pokersquares.harness.store import GameRecord, ResultStore
from pokersquares.harness.tournament import run_tournament

R = ["--games", "2", "--time-per-game", "1", "--prep-time", "0", "--workers", "1", "--json"]


@pytest.fixture
def own_player(tmp_path, monkeypatch):
    """A module of its own (a name no other test imported) with ``Counted``, a player whose
    constructor writes its process id to a file, and ``made``, a function making one;
    ``builds()`` is (constructor calls in this process, in any other)."""
    module = f"counted_{uuid.uuid4().hex}"
    log = tmp_path / "built.txt"
    (tmp_path / f"{module}.py").write_text(
        "import os\n"
        "from pokersquares.harness.player import BasePlayer\n\n"
        "class Counted(BasePlayer):\n"
        "    name = 'counted'\n\n"
        "    def __init__(self, depth=1):\n"
        "        super().__init__()\n"
        f"        with open({str(log)!r}, 'a') as f:\n"
        "            f.write(f'{os.getpid()}\\n')\n\n"
        "    def choose(self, grid, card, seconds_left):\n"
        "        return int((grid == -1).argmax())\n\n\n"
        "def made(depth=1):\n"
        "    return Counted(depth=depth)\n")
    monkeypatch.syspath_prepend(str(tmp_path))

    def builds():
        pids = log.read_text().split() if log.exists() else []
        log.unlink(missing_ok=True)
        here = pids.count(str(os.getpid()))
        return here, len(pids) - here
    return module, builds


@pytest.mark.parametrize("factory", ["Counted", "made"])
def test_a_run_builds_its_own_player_once_here_and_not_again_when_all_is_recorded(cli, tmp_path, own_player, factory):
    """A run built the class three times in its own process (the command's check, the
    run's, the backend's) and twice with every game recorded; a ``module:function``
    player five times, the cores its player declares asked twice more."""
    module, builds = own_player
    db = tmp_path / "r.sqlite"
    code, out, err = cli("run", "--player", f"{module}:{factory}:depth=2", "--db", db, *R)
    assert code == 0, err
    assert json.loads(out)["games"] == 2
    here, elsewhere = builds()
    assert here == 1 and elsewhere >= 1  # the games' player is built where it is prepared
    code, out, err = cli("run", "--player", f"{module}:{factory}:depth=2", "--db", db, *R)
    assert code == 0, err
    assert builds() == (1, 0)


def test_a_tournament_builds_each_own_player_once_here(cli, tmp_path, own_player):
    """A one-player tournament on one system built the class five times in its own
    process, two players on two systems sixteen. Now once per player, whatever the
    systems."""
    module, builds = own_player
    db = tmp_path / "t.sqlite"
    args = ["tournament", "--players", f"{module}:Counted,{module}:Counted:depth=3", "--systems", "american,british",
            "--db", db, *R]
    code, _, err = cli(*args)
    assert code == 0, err
    here, elsewhere = builds()
    assert here == 2 and elsewhere >= 4  # each run's player built where it is prepared
    code, _, err = cli(*args)
    assert code == 0, err
    assert builds() == (2, 0)


def test_the_harness_called_directly_builds_its_own_player_once_here_per_call(tmp_path, own_player):
    """In the calling process record_run built the class twice (its check and run_games'),
    record_runs of two runs six times, run_tournament of one player on two systems seven,
    and run_games a ``module:function`` player three times (its check, and the cores its
    player declares twice). Once per call now."""
    module, builds = own_player
    spec = RunSpec(f"{module}:Counted", AMERICAN, 2, 0, 1.0, 0.0)
    with ResultStore(tmp_path / "r.sqlite") as store:
        record_run(spec, store, workers=1)
        assert builds()[0] == 1
        record_runs([RunSpec(f"{module}:Counted", system, 2, 5, 1.0, 0.0) for system in (AMERICAN, BRITISH)],
                    store, workers=1)
        assert builds()[0] == 1
        run_tournament([f"{module}:Counted"], [AMERICAN, BRITISH], 2, 9, store, time_per_game=1.0, prep_time=0.0,
                       workers=1)
        assert builds()[0] == 1
    run_games(RunSpec(f"{module}:made", AMERICAN, 1, 0, 1.0, 0.0), range(1))
    assert builds()[0] == 1


def test_a_run_played_by_two_commands_at_once_is_said_at_the_callers_line(tmp_path):
    """The warning of games another command recorded first points at the line that
    called record_run, not into the harness."""
    path = tmp_path / "r.sqlite"
    with ResultStore(path) as store:
        run_id, _ = record_run(RunSpec("greedy", BRITISH, 1, 7, 30.0, 1.0), store)

        def other_command(rec):
            if rec.game_index == 1:
                with ResultStore(path) as other:
                    other.add_games(run_id, [GameRecord(2, 9, 91)])

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            record_run(RunSpec("greedy", BRITISH, 3, 7, 30.0, 1.0), store, workers=1, on_result=other_command)
    said = [w for w in caught if issubclass(w.category, RunnerWarning)]
    assert len(said) == 1 and "another command played run" in str(said[0].message)
    assert said[0].filename == __file__
