import signal
import subprocess
import sys
import warnings

import pytest

# The built-in players the experiments' tests play in the test process (their games in
# processes forked from it). None runs numba's parallel kernels, which a process forked
# after them could not: og, beemo, gettysburg, td and champion are played by commands
# in processes of their own.
IN_PROCESS_PLAYERS = ("random", "greedy", "tiger", "hybrid:evaluator=narl,search=expectimax",
                      "hybrid:evaluator=possibility,search=expectimax")


@pytest.fixture(scope="session")
def player_kernels() -> None:
    """The kernels of ``IN_PROCESS_PLAYERS``, loaded in this process: each process a
    command run here forks to prepare a player or play its games loaded them again (a
    second or more each, most of a test of a few games). A player that fails to warm up
    is left for the command to say so."""
    from pokersquares.harness.registry import make_player

    for spec in IN_PROCESS_PLAYERS:
        try:
            make_player(spec).warm_up()
        except Exception:
            pass


@pytest.fixture
def cli(cli, player_kernels):
    """The root conftest's ``cli``, once ``player_kernels`` are loaded."""
    return cli


@pytest.fixture
def cli_here(monkeypatch, capfd, player_kernels):
    """``pokersquares ARGS`` run in this process, as the ``subprocess.CompletedProcess``
    of a command run in a process of its own: its output read at file descriptors 1 and
    2, so that what the processes it forks write there is read too. For commands whose
    players run no parallel kernel (``IN_PROCESS_PLAYERS``), where a new interpreter's
    start-up and its loading of the kernels again were most of the test."""
    from pokersquares.cli import main

    def run(*args):
        monkeypatch.setattr(sys, "argv", ["pokersquares", *map(str, args)])
        # As the root conftest's ``cli``: main() takes the stop signals over, and its
        # one-line warnings stay after it.
        handlers, show = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}, warnings.showwarning
        capfd.readouterr()  # not the command's
        try:
            with pytest.raises(SystemExit) as e:
                main()
        finally:
            for signum, handler in handlers.items():
                signal.signal(signum, handler)
            warnings.showwarning = show
        out, err = capfd.readouterr()
        return subprocess.CompletedProcess(args, 0 if e.value.code is None else e.value.code, out, err)
    return run
