"""Every kernel a player calls is compiled (or loaded from numba's cache) by its warm-up,
before any clock starts: on a machine's cold cache a kernel first called in a
preparation or a game compiles inside that clock. Found so: ``greedy`` compiled the
position check in its first game (0.10 s of it), ``tiger`` its evaluator's greedy move
at its second card, ``td`` its TD learning kernel inside a 2 s preparation (3.4 s).

Each player in a fresh interpreter (this one has loaded kernels already): built and
warmed as the harness does, then prepared, handed to a game process's path
(``load_prepared``) and played; the kernels' signatures are counted before and after
each clock."""

import json
import subprocess
import sys

import pytest

SCRIPT = r"""
import json, sys, types
from numba.core.registry import CPUDispatcher
from pokersquares import AMERICAN
from pokersquares.harness.game_play import play_game
from pokersquares.harness.spec import build, load_prepared, prepare_and_pickle


def kernels():
    return {f"{name}.{attr}": len(value.signatures)
            for name, module in list(sys.modules.items())
            if name.startswith("pokersquares") and isinstance(module, types.ModuleType)
            for attr, value in list(vars(module).items()) if isinstance(value, CPUDispatcher)}


def new(before, after):
    return sorted(k for k, n in after.items() if n > before.get(k, 0))


spec, prep = sys.argv[1], float(sys.argv[2])
player = build(spec, 1)
k0 = kernels()
_, blob, _ = prepare_and_pickle(player, AMERICAN, prep)
k1 = kernels()
played = load_prepared(blob) if blob is not None else player
k2 = kernels()
record = play_game(played, AMERICAN, 3, 0.5)
k3 = kernels()
print(json.dumps({"prep": new(k0, k1), "game": new(k2, k3), "penalty": record.penalty, "loaded": sum(k0.values())}))
"""


@pytest.mark.parametrize("spec, prep", [("random", 0.0), ("greedy", 0.0), ("greedy_mc", 0.0), ("og", 0.5),
                                        ("beemo", 0.5), ("gettysburg", 0.5), ("tiger", 0.0), ("td", 1.0),
                                        ("champion", 1.0)])
def test_no_kernel_is_first_called_inside_a_clock(spec, prep):
    done = subprocess.run([sys.executable, "-c", SCRIPT, spec, str(prep)], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["loaded"] > 0  # the warm-up loaded kernels: the count sees them
    assert seen["prep"] == [] and seen["game"] == [], seen
    # No other fault; a game of 0.5 s may still overrun by a tenth on a machine running the
    # suite on both cores (CI once: beemo 0.61 s, tiger 0.52 s, no kernel compiled in the
    # clock): budgets under load are tests/harness/test_budgets.py's to hold.
    assert seen["penalty"] is None or seen["penalty"].startswith("timeout: "), seen["penalty"]
