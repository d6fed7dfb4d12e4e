"""Importing the package compiles no numba kernel: a user's first command on an empty
numba cache must not wait for kernels it never calls (an eager signature in MCTS and
the possibility heuristic once cost every command 20 s, the web server its first
advice)."""

import json
import os
import subprocess
import sys

PROBE = r"""
import importlib, json, pkgutil, sys
import pokersquares, pokersquares.players, pokersquares.web.app, pokersquares.harness.registry as registry
from numba.core.registry import CPUDispatcher
registry.list_players()
compiled = []
for info in pkgutil.walk_packages(pokersquares.__path__, "pokersquares."):
    if info.name.endswith(("openspiel", "__main__")):
        continue
    module = importlib.import_module(info.name)
    for name, value in vars(module).items():
        if isinstance(value, CPUDispatcher) and value.signatures:
            compiled.append(f"{info.name}.{name}")
print(json.dumps(sorted(set(compiled))))
"""


def test_no_kernel_is_compiled_when_the_package_is_imported(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}  # empty: nothing to load either
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
