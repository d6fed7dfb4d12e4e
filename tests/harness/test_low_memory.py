"""A machine short of memory: a game process the kernel kills (SIGKILL, as its
out-of-memory killer does) is played again before it scores the penalty, and then with
a reason that says so; a preparation killed so stops the run in one line with nothing
recorded, instead of every game of the run scoring the penalty for good."""

import itertools
import os
import signal
from pathlib import Path

import pytest

from pokersquares.harness import local_backend
from pokersquares.harness.runner import RunSpec, record_run, run_games
from pokersquares.harness.spec import OutOfMemoryError
from pokersquares.harness.store import ResultStore
from pokersquares.players import GreedyPlayer
from pokersquares.points import AMERICAN

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="Linux processes")


class KilledInGame0(GreedyPlayer):
    """Killed by SIGKILL at its third move of game 0 (its seed in $LOW_MEMORY_GAME0_SEED),
    the first time only if $LOW_MEMORY_ONCE names a file (made then), every time otherwise."""

    def start_game(self):
        super().start_game()
        self.moves = 0

    def get_play(self, card, seconds_left):
        self.moves += 1
        if self.moves == 3 and self._game_0:
            once = os.environ.get("LOW_MEMORY_ONCE")
            if not once or not os.path.exists(once):
                if once:
                    Path(once).touch()
                os.kill(os.getpid(), signal.SIGKILL)
        return super().get_play(card, seconds_left)

    def set_seed(self, seed):
        super().set_seed(seed)
        self._game_0 = os.environ.get("LOW_MEMORY_GAME0_SEED") == str(seed)


class KilledInPreparation(GreedyPlayer):
    def prepare(self, budget_s):
        os.kill(os.getpid(), signal.SIGKILL)


class AbortsInPreparation(GreedyPlayer):
    def prepare(self, budget_s):
        import faulthandler
        faulthandler.disable()  # no dump on stderr (pytest enables it)
        os.abort()  # as LLVM does when it cannot reserve memory ("Unable to allocate section memory")


def _game0_seed(spec: RunSpec) -> str:
    return str(spec.player_seed(spec.seed))


@pytest.fixture
def env(monkeypatch):
    return monkeypatch.setenv


def test_a_game_whose_process_is_killed_once_is_played_again(tmp_path, env):
    spec = RunSpec("test_low_memory:KilledInGame0", AMERICAN, 3, 0, 5.0, 0.0, secret="k")
    env("LOW_MEMORY_GAME0_SEED", _game0_seed(spec))
    env("LOW_MEMORY_ONCE", str(tmp_path / "killed"))
    notes = []
    records = run_games(spec, [0, 1, 2], workers=2, on_note=notes.append)
    assert (tmp_path / "killed").exists()  # it was killed, and its game played again
    assert [r.game_index for r in records] == [0, 1, 2]
    assert all(r.penalty is None and len(r.placements) == 25 for r in records)
    assert any("killed (SIGKILL" in n and "played again, with 1 game(s) at a time" in n for n in notes)


def test_a_game_killed_in_both_tries_scores_the_penalty_saying_so(env):
    spec = RunSpec("test_low_memory:KilledInGame0", AMERICAN, 2, 0, 5.0, 0.0, secret="k")
    env("LOW_MEMORY_GAME0_SEED", _game0_seed(spec))
    ticks = itertools.count(100)
    # The kernel's count of out-of-memory kills rises meanwhile: its killer did it.
    local_backend_oom = lambda: next(ticks)  # noqa: E731
    env("LOW_MEMORY_ONCE", "")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(local_backend, "oom_kills", local_backend_oom, raising=False)
        first, second = run_games(spec, [0, 1], workers=1, on_note=lambda _: None)
    assert first.penalty == ("crash: the player's process was killed (SIGKILL, killed by the kernel's out-of-memory "
                             "killer), in both of its tries; fewer --workers or a lower --memory-limit may help")
    assert len(first.placements) == 2  # the moves before the kill are kept
    assert second.penalty is None


def test_a_preparation_killed_by_the_out_of_memory_killer_stops_the_run_recording_nothing(tmp_path, monkeypatch):
    ticks = itertools.count(7)
    monkeypatch.setattr(local_backend, "oom_kills", lambda: next(ticks), raising=False)
    store = ResultStore(tmp_path / "s.sqlite")
    spec = RunSpec("test_low_memory:KilledInPreparation", AMERICAN, 3, 0, 5.0, 1.0)
    with pytest.raises(OutOfMemoryError, match=r"^preparing test_low_memory:KilledInPreparation on American ran out "
                       r"of memory \(its process killed by the kernel's out-of-memory killer\); no game was recorded"):
        record_run(spec, store, workers=1)
    assert all(not store.games(run.run_id) for run in store.runs())


def test_a_preparation_that_aborts_under_an_address_space_limit_stops_the_run(tmp_path, monkeypatch):
    monkeypatch.setattr(local_backend, "_address_space_mb", lambda: 600, raising=False)
    spec = RunSpec("test_low_memory:AbortsInPreparation", AMERICAN, 2, 0, 5.0, 1.0)
    with pytest.raises(OutOfMemoryError, match=r"died by SIGABRT under an address-space limit \(ulimit -v\) of 600 MB"):
        run_games(spec, [0, 1], workers=1)


def test_a_preparation_killed_by_hand_is_still_the_players_penalty(monkeypatch):
    # No out-of-memory kill and no address-space limit: a crash in preparation, as before.
    monkeypatch.setattr(local_backend, "oom_kills", lambda: 3, raising=False)
    monkeypatch.setattr(local_backend, "_address_space_mb", lambda: None, raising=False)
    spec = RunSpec("test_low_memory:KilledInPreparation", AMERICAN, 1, 0, 5.0, 1.0)
    rec, = run_games(spec, [0], workers=1)
    assert rec.penalty == "preparation failed: the player's process died during preparation (exit code -9)"
