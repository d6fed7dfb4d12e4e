"""How often a user's own ``module:Class`` player is built in the command's own process
(README "Your own player": once a command, once per player for a tournament, even when
every game is already recorded; never prepared or played there). A sweep builds each
setting's player once, an experiment each of its rows' players once."""

import gc
import json
import os
import subprocess
import sys
import uuid
import warnings
import weakref

import numpy as np
import pytest

from pokersquares import AMERICAN, BRITISH
from pokersquares.evaluators.patterns import write_utilities
from pokersquares.experiments.runs import Row, fill_rows
from pokersquares.experiments.sweep import run_sweep
from pokersquares.harness.player import BasePlayer
from pokersquares.harness.registry import checked_player, one_build_per_spec
from pokersquares.harness.runner import RunnerWarning, RunSpec, RunSpecError, record_run, record_runs, run_games
from pokersquares.harness.spec import check_loaded_points, check_saved_states, player_cores
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


@pytest.mark.parametrize("factory", ["Counted", "made"])
def test_a_sweep_builds_each_setting_s_player_once_here(cli, tmp_path, own_player, factory):
    """A sweep of two settings built the class seven times in its own process (the
    player given, then each setting's three times: the command's check, run_sweep's and
    record_runs'), a ``module:function`` player eight; seven again with every game
    recorded. Now the player given and each setting once."""
    module, builds = own_player
    args = ["sweep", "--player", f"{module}:{factory}", "--param", "depth=2,3", "--db", tmp_path / "s.sqlite", *R]
    code, out, err = cli(*args)
    assert code == 0, err
    assert [row["games"] for row in json.loads(out)] == [2, 2]
    here, elsewhere = builds()
    assert here == 3 and elsewhere >= 2  # each setting's games' player built where it is prepared
    code, _, err = cli(*args)
    assert code == 0, err
    assert builds() == (3, 0)


def test_the_experiments_called_directly_build_each_own_player_once_here_per_call(tmp_path, own_player):
    """run_sweep built each setting's player twice in the calling process (its check and
    record_runs'), fill_rows each row's player twice (play_runs' check and
    record_runs'). Once per distinct player and call now."""
    module, builds = own_player
    with ResultStore(tmp_path / "r.sqlite") as store:
        rows = run_sweep(f"{module}:Counted", [{"depth": 2}, {"depth": 3}], AMERICAN, 2, 0, store,
                         time_per_game=1.0, prep_time=0.0, workers=1)
        assert [row["games"] for row in rows] == [2, 2]
        assert builds()[0] == 2
        runs = [RunSpec(f"{module}:Counted", system, 2, 0, 1.0, 0.0) for system in (AMERICAN, BRITISH)]
        filled = fill_rows([Row("a", runs[0], None), Row("b", runs[1], None), Row("a again", runs[0], None)], store,
                           workers=1)
        assert [row.games for row in filled] == [2, 2, 2]
        assert builds()[0] == 1


def test_a_command_keeps_what_its_checks_learned_of_a_player_not_the_player(tmp_path, own_player, monkeypatch):
    """The checks kept each player they built until the command ended: forty settings of
    the champion held 325 MB for as long as their sweep ran. What each player said is kept
    (that it builds, its cores, the points of the state it loaded), its constructor run
    once; the player itself is dropped while the command goes on."""
    module, builds = own_player
    alive = []
    init = BasePlayer.__init__

    def watched(self):
        alive.append(weakref.ref(self))
        init(self)
    monkeypatch.setattr(BasePlayer, "__init__", watched)
    table = tmp_path / "t.json"
    write_utilities(table, np.zeros(1 << 16), np.zeros(1 << 16, dtype=np.int64), np.array(BRITISH.points),
                    BRITISH.name, {}, {})
    specs = [f"{module}:Counted", f"{module}:made:depth=2", f"beemo:load={table}", "greedy"]
    with one_build_per_spec():
        said = [checked_player(spec) for spec in specs]
        gc.collect()
        assert len(alive) == 4 and [ref() for ref in alive] == [None] * 4
        assert [checked_player(spec) for spec in specs] == said
        assert [player_cores(spec) for spec in specs[:2]] == [1, 1]
        assert [s.points for s in said] == [None, None, tuple(BRITISH.points), None]
        check_loaded_points(specs[2], BRITISH)
        with pytest.raises(RunSpecError, match="learned for points 0, 1, 3, 6, 12, 5, 10, 16, 30, 30, not American's"):
            check_loaded_points(specs[2], AMERICAN)
        assert len(alive) == 4 and builds() == (2, 0)
    check_saved_states([specs[2]], [BRITISH, BRITISH])  # called alone: the player built once for both
    assert len(alive) == 5


# Runs an experiment twice in a process of its own (it forks its games: a test process
# that ran numba's parallel kernels under GNU OpenMP before cannot, and BeeMo's flat MC
# runs them in its games) and prints how many players each run built in that process
# (every player's constructor runs BasePlayer's; a worker's builds are its own).
COUNT_BUILDS = """
import json, os, signal, sys
from pokersquares.cli import main
from pokersquares.harness.player import BasePlayer

made, here, init = [], os.getpid(), BasePlayer.__init__

def counted(self):
    if os.getpid() == here:
        made.append(type(self).__name__)
    init(self)

BasePlayer.__init__ = counted
args, counts = sys.argv[1:], []
for _ in range(2):
    sys.argv = ["pokersquares", *args]
    handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)}
    try:
        main()
    except SystemExit as e:
        if e.code:
            sys.exit(e.code)
    for signum, handler in handlers.items():
        signal.signal(signum, handler)
    counts.append(len(made))
    made.clear()
print(json.dumps(counts), file=sys.stderr)
"""


E = ["--workers", "1", "--json"]


@pytest.mark.parametrize("name, args, players", [
    # two C_p values: two players, each built twice (play_runs' check and record_runs')
    ("tiger", ["--parts", "cp", "--cp", "1,2", "--games", "1", "--time-per-game", "0.05", "--prep-time", "0",
               "--plot", "{tmp}/cp.png"], 2),
    # one cell: built twice
    ("matrix", ["--evaluators", "possibility", "--searches", "greedy", "--systems", "american", "--games", "2",
                "--time-per-game", "0.05", "--prep-time", "0", "--plot", "{tmp}/m.png"], 1),
    # one search over one learner: built three times (the command's check, play_runs', record_runs')
    ("gettysburg", ["--part", "search", "--search-systems", "american", "--searches", "greedy", "--learn-games", "10",
                    "--search-games", "2", "--time-per-game", "0.05", "--plot-dir", "{tmp}"], 1),
    # OG and flat MC on the table loaded, and flat MC's playouts checked alone: built three,
    # four and once (the table read seven times)
    ("beemo", ["--systems", "american", "--configs", "beemo", "--load", "{tmp}/t.json", "--games", "1",
               "--mc-games", "1", "--playouts", "1", "--time-per-game", "0.05", "--prep-time", "0"], 3),
])
def test_an_experiment_builds_each_of_its_players_once_here(tmp_path, name, args, players):
    """Each distinct player of an experiment's rows is built once in the command's own
    process (the counts it was built before are beside each case), and once again when
    every game is recorded."""
    write_utilities(tmp_path / "t.json", np.zeros(1 << 16), np.zeros(1 << 16, dtype=np.int64),
                    np.array(AMERICAN.points), AMERICAN.name, {}, {})
    command = ["experiment", name, *(str(a).format(tmp=tmp_path) for a in args), "--db", tmp_path / "e.sqlite", *E]
    r = subprocess.run([sys.executable, "-c", COUNT_BUILDS, *map(str, command)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    first, again = r.stdout.split("\n")[0], r.stderr.strip().splitlines()[-1]
    assert json.loads(first)
    assert json.loads(again) == [players, players]


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


def test_an_own_player_with_an_evaluator_of_its_own_is_not_asked_for_loaded_points(cli, tmp_path, monkeypatch):
    """The checks read the points of the state a player loaded from every player: a
    user's player with an ``evaluator`` whose ``loaded_points`` takes an argument was an
    internal error (exit 1) before any game. Only a spec that loads a state is asked."""
    module = f"own_eval_{uuid.uuid4().hex}"
    (tmp_path / f"{module}.py").write_text(
        "from pokersquares.harness.player import BasePlayer\n\n"
        "class Eval:\n"
        "    def loaded_points(self, path):\n"
        "        raise AssertionError('not ours to call')\n\n"
        "class OwnEval(BasePlayer):\n"
        "    name = 'own_eval'\n\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.evaluator = Eval()\n\n"
        "    def choose(self, grid, card, seconds_left):\n"
        "        return int((grid == -1).argmax())\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    code, out, err = cli("run", "--player", f"{module}:OwnEval", "--db", tmp_path / "r.sqlite", *R)
    assert code == 0, err
    assert json.loads(out)["games"] == 2
