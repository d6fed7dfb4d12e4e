"""A run is the games of one player as it was: what it plays from changed (a saved state
trained again into the same file, a policy module named by a parameter edited), the
same command must not hand back the old games, nor finish a run half of one and half
of the other."""

import dataclasses

import pytest

from pokersquares import AMERICAN
from pokersquares.harness.runner import RunSpec, record_run, run_version
from pokersquares.harness.store import ResultStore

SAVED_PLAYER = """
from pokersquares.players.baseline import GreedyPlayer


class FromFile(GreedyPlayer):
    name = "from_file"

    def __init__(self, load=None):
        super().__init__()
        with open(load) as f:  # its saved state: the flush weight it plays with
            self.flush_weight = float(f.read())
"""

POLICY = """
import numpy as np

ORDER = {order}


def choose(obs, info):
    mask = info["action_mask"]
    return next(c for c in ORDER if mask[c])
"""


def test_a_saved_state_written_again_is_a_new_run_not_the_old_files_games(tmp_path, monkeypatch):
    (tmp_path / "my_saved_player.py").write_text(SAVED_PLAYER)
    monkeypatch.syspath_prepend(str(tmp_path))
    state = tmp_path / "state.txt"
    state.write_text("0.3")
    spec = RunSpec(f"my_saved_player:FromFile:load={state}", AMERICAN, 2, 0, 5.0, 0.0, secret="k")
    with ResultStore(tmp_path / "r.sqlite") as store:
        first, old = record_run(spec, store, workers=1)
        assert record_run(spec, store, workers=1)[0] == first  # the same file: resumed
        state.write_text("-50")  # trained again into the same file: it plays otherwise
        with pytest.warns(UserWarning, match="played by other code"):
            second, new = record_run(dataclasses.replace(spec, games=4), store, workers=1)
        assert second != first and len(new) == 4  # not games 0, 1 of the old file and 2, 3 of the new
        with ResultStore(tmp_path / "fresh.sqlite") as fresh:
            _, alone = record_run(dataclasses.replace(spec, games=4), fresh, workers=1)
        assert [g.placements for g in new] == [g.placements for g in alone]
        assert [g.placements for g in new[:2]] != [g.placements for g in old]
    # A built-in player's load= and pretrained's priors= folder are keyed by their files alike.
    a, b = tmp_path / "a.npz", tmp_path / "b"
    a.write_bytes(b"one")
    b.mkdir()
    (b / "x.npz").write_bytes(b"one")
    version = run_version(f"gettysburg:load={a}")
    assert version.startswith(run_version("gettysburg") + "/data:")
    a.write_bytes(b"two")
    assert run_version(f"gettysburg:load={a}") != version
    folder = run_version(f"pretrained:priors={b}")
    (b / "notes.txt").write_text("not read by the player")
    assert run_version(f"pretrained:priors={b}") == folder
    (b / "x.npz").write_bytes(b"two")
    assert run_version(f"pretrained:priors={b}") != folder
    assert run_version(f"gettysburg:load={tmp_path / 'missing.npz'}") == run_version("gettysburg")


def test_a_policy_module_named_by_a_parameter_is_keyed_by_its_source(tmp_path, monkeypatch):
    pytest.importorskip("gymnasium")
    module = tmp_path / "my_policy_mod.py"
    module.write_text(POLICY.format(order=list(range(25))))
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = RunSpec("pokersquares.envs.policies:PolicyPlayer:policy=my_policy_mod:choose", AMERICAN, 2, 0, 5.0,
                   0.0, secret="k")
    with ResultStore(tmp_path / "r.sqlite") as store:
        first, old = record_run(spec, store, workers=1)
        assert record_run(spec, store, workers=1)[0] == first  # unchanged code resumes
        # Column by column: other lines, other scores (reading order reversed would be the same game).
        module.write_text(POLICY.format(order=[r * 5 + c for c in range(5) for r in range(5)]))
        import importlib
        import sys
        importlib.reload(sys.modules["my_policy_mod"])
        with pytest.warns(UserWarning, match="played by other code"):
            second, new = record_run(spec, store, workers=1)
        assert second != first and [g.placements for g in new] != [g.placements for g in old]
