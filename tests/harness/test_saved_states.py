"""A player that loads a saved state (``load=FILE``) learned for other points than the
run's: its preparation drops the file and learns anew in its budget (nothing in 0 s),
and the games were recorded under the file's name, played by an untrained table (a
British file run under American scored 78.5 a game, exit 0, a warning inside the
progress line). Refused before the store is touched, by the command line and the library."""

import subprocess
import sys

import pytest

from pokersquares import AMERICAN, BRITISH
from pokersquares.harness.runner import RunSpec, RunSpecError, record_run, record_runs
from pokersquares.harness.spec import check_loaded_points, loaded_points
from pokersquares.harness.registry import make_player
from pokersquares.harness.store import ResultStore

R = ["--prep-time", "0", "--time-per-game", "1", "-q"]


@pytest.fixture(scope="module")
def british_utilities(tmp_path_factory):
    """BeeMo's pattern utilities learned for British in a second, by ``train`` in a process
    of its own (learning here would start numba's threads in the process that the runs'
    game processes are forked from)."""
    path = tmp_path_factory.mktemp("saved") / "british.json"
    subprocess.run([sys.executable, "-m", "pokersquares", "train", "--player", "beemo", "--system", "british",
                    "--prep-time", "1", "--out", str(path)], check=True, capture_output=True, timeout=300)
    return path


def test_the_points_a_player_loaded_are_known_before_it_prepares(british_utilities):
    player = make_player(f"beemo:load={british_utilities}")
    assert loaded_points(player) == tuple(BRITISH.points)
    assert loaded_points(make_player("beemo")) is None and loaded_points(make_player("random")) is None
    check_loaded_points(f"beemo:load={british_utilities}", BRITISH, player)  # its own points: fine
    with pytest.raises(RunSpecError, match="learned for points 0, 1, 3, 6, 12, 5, 10, 16, 30, 30, not American's"):
        check_loaded_points(f"beemo:load={british_utilities}", AMERICAN, player)


@pytest.mark.parametrize("args", [
    ["run", "--player", "beemo:load={f}", "--system", "american", "--games", "2", *R],
    ["play", "--player", "beemo:load={f}", "--system", "american", *R[:-1]],
    ["tournament", "--players", "greedy,beemo:load={f}", "--systems", "british;american", "--games", "2", *R],
    ["sweep", "--player", "beemo:load={f}", "--param", "cores=1,2", "--system", "american", "--games", "1", *R],
])
def test_a_command_refuses_a_saved_state_of_other_points_before_the_store_is_made(cli, tmp_path, british_utilities,
                                                                               args):
    db = tmp_path / "r.sqlite"
    code, out, err = cli(*[a.format(f=british_utilities) for a in args], "--db", db)
    assert code == 2 and err.count("\n") == 1 and "its saved state was learned for points" in err, err
    assert "American's" in err and not db.exists()


def test_the_same_file_on_its_own_points_is_played(tmp_path, british_utilities):
    # In a process of its own: this test process may have run numba's parallel kernels
    # under GNU OpenMP, and a game process forked from it then stops at its first one.
    db = tmp_path / "r.sqlite"
    done = subprocess.run([sys.executable, "-m", "pokersquares", "run", "--player", f"beemo:load={british_utilities}",
                           "--system", "british", "--games", "2", *R, "--db", str(db)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "over 2 games" in done.stdout, done.stderr


def test_the_library_refuses_it_before_any_run_is_written(tmp_path, british_utilities):
    spec = f"beemo:load={british_utilities}"
    with ResultStore(tmp_path / "r.sqlite") as store:
        with pytest.raises(RunSpecError, match="not American's"):
            record_run(RunSpec(spec, AMERICAN, games=2, time_per_game=1, prep_time=0), store, workers=1)
        with pytest.raises(RunSpecError, match="not American's"):  # one of several runs: none is played
            record_runs([RunSpec(spec, BRITISH, games=2, time_per_game=1, prep_time=0),
                         RunSpec(spec, AMERICAN, games=2, time_per_game=1, prep_time=0)], store, workers=1)
        assert store.runs() == []
