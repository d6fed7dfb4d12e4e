import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
JAVA_SOURCES = ROOT / "tests" / "players" / "java"  # stand-ins of the contest framework, and test players


def _vectors_path() -> Path:
    # The shared contest folder sits beside the repository (CI clones it there too);
    # a copy is kept in tests/data for clones without it.
    for p in (ROOT.parent / "shared" / "contest" / "java_vectors.json", ROOT / "tests" / "data" / "java_vectors.json"):
        if p.exists():
            return p
    raise FileNotFoundError("java_vectors.json not found")


def pytest_sessionstart(session):
    """With xdist, compile every built-in player's kernels once, on both cores, before
    the workers start: into a cold numba cache (a fresh clone, CI) each worker and each
    command-line subprocess would otherwise compile the same kernels again at the same
    time. About 70 s cold and 5 s warm on this machine; a run without ``-n`` compiles as
    it goes. ``POKERSQUARES_TEST_WARM=0`` skips it."""
    if hasattr(session.config, "workerinput") or not session.config.getoption("numprocesses", None):
        return
    if os.environ.get("POKERSQUARES_TEST_WARM", "1") == "0":
        return
    import time

    from pokersquares.harness.registry import list_players
    from pokersquares.harness.warm_up import warm_up_players

    started = time.monotonic()
    warm_up_players([p.name for p in list_players()], processes=2)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(f"the built-in players' kernels warmed in {time.monotonic() - started:.1f} s")


@pytest.fixture(scope="session")
def java_vectors() -> dict:
    return json.loads(_vectors_path().read_text())


@pytest.fixture(scope="session")
def prepared_evaluators() -> dict:
    """Every evaluator, prepared once for the American system by fixed work, not time
    (these tests check what values mean and which moves they make, not strength):
    patterns learn 4 rounds of 4,000 + 2,000 games from the known utilities of complete
    hands (so few games never see a straight flush), NARL 20,000 games, one thread each;
    TD NARL's 20,000 games and 5,000 games of its residual, one thread."""
    from pokersquares.evaluators.narl import NarlEvaluator
    from pokersquares.evaluators.patterns import PatternEvaluator, learn_utilities
    from pokersquares.evaluators.possibility import PossibilityEvaluator
    from pokersquares.evaluators.td import TdEvaluator
    from pokersquares.points import AMERICAN

    points = np.array(AMERICAN.points, dtype=np.int64)
    patterns = PatternEvaluator()
    patterns.points = points
    patterns.utilities, patterns.counts, patterns.report = learn_utilities(
        points, 1e9, 0, train_games=4000, eval_games=2000, max_rounds=4, known_complete=True)
    narl = NarlEvaluator(games=20000, threads=1)
    narl.prepare(points, 0.0, 0)
    possibility = PossibilityEvaluator()
    possibility.prepare(points, 1.0, 0)
    td = TdEvaluator(games=20000, td_games=5000, threads=1)
    td.prepare(points, 0.0, 0)
    return {"patterns": patterns, "narl": narl, "possibility": possibility, "td": td}


class FakeClock:
    """A deterministic stand-in for ``time.perf_counter`` in a search module: it only
    moves when work is done (``charge``), so budget tests mean the same on a busy
    machine as on a quiet one."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.perf_counter = lambda: self.now
        self.process_time = lambda: self.now

    def charge(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def fake_clock(monkeypatch):
    """``install(module)`` makes ``module.time`` the fake clock; ``charge_per(obj,
    name, seconds_of)`` wraps ``obj.name`` so that each call advances the clock by
    ``seconds_of(*args)`` (a stall: return more for one call)."""
    clock = FakeClock()

    def install(module) -> FakeClock:
        monkeypatch.setattr(module, "time", clock)
        return clock

    def charge_per(obj, name: str, seconds_of) -> None:
        real = getattr(obj, name)

        def wrapped(*args, **kwargs):
            clock.charge(seconds_of(*args, **kwargs))
            return real(*args, **kwargs)
        monkeypatch.setattr(obj, name, wrapped)

    clock.install = install
    clock.charge_per = charge_per
    return clock


@pytest.fixture(scope="session")
def java_classes(tmp_path_factory):
    """The stand-in framework and the test players, compiled; the classpath is set for the
    session as `--classpath` sets it."""
    if shutil.which("javac") is None:
        message = "javac not found: the Java player tests need a JDK (.ci/run installs default-jdk-headless)"
        if os.environ.get("CI", "").lower() == "true" or os.environ.get("POKERSQUARES_REQUIRE_JAVA"):
            pytest.fail(message)  # CI must run these tests, never skip them
        pytest.skip(message)
    out = tmp_path_factory.mktemp("java-classes")
    subprocess.run(["javac", "-d", str(out), *map(str, sorted(JAVA_SOURCES.glob("*.java")))], check=True)
    with pytest.MonkeyPatch.context() as mp:
        from pokersquares.players import java

        mp.setenv(java.CLASSPATH_ENV, str(out))
        yield out


def _main_here(monkeypatch, args) -> int | str | None:
    """``pokersquares ARGS`` run by :func:`pokersquares.cli.main` in this process; its exit code."""
    import signal
    import sys
    import warnings

    from pokersquares.cli import main

    monkeypatch.setattr(sys, "argv", ["pokersquares", *map(str, args)])
    # main() takes the stop signals over (and ignores them once it says it stopped):
    # left so, the processes the next tests start would inherit an ignored SIGHUP. Its
    # one-line warnings stay after it too.
    handlers, show = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}, warnings.showwarning
    try:
        with pytest.raises(SystemExit) as e:
            main()
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        warnings.showwarning = show
    return e.value.code


@pytest.fixture
def cli(monkeypatch, capsys):
    """Run the command line in this process: (exit code, stdout, stderr). For commands
    that stop before any game (a bad option, a refused file), where a new interpreter's
    start-up would be most of the test."""
    def run(*args):
        code = _main_here(monkeypatch, args)
        out, err = capsys.readouterr()
        return code, out, err
    return run


# The built-in players whose commands tests run in the test process (their games in
# processes forked from it). None runs numba's parallel kernels, which a process forked
# after them could not: og, beemo, gettysburg, td and champion are played by commands
# in processes of their own.
IN_PROCESS_PLAYERS = ("random", "greedy", "tiger", "hybrid:evaluator=possibility,search=greedy",
                      "hybrid:evaluator=narl,search=expectimax", "hybrid:evaluator=possibility,search=expectimax")


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
def cli_here(monkeypatch, capfd, player_kernels):
    """``pokersquares ARGS`` run in this process, as the ``subprocess.CompletedProcess``
    of a command run in a process of its own: its output read at file descriptors 1 and
    2, so that what the processes it forks write there is read too. For commands whose
    players run no parallel kernel (``IN_PROCESS_PLAYERS``), where a new interpreter's
    start-up and its loading of the kernels again were most of the test."""
    def run(*args):
        capfd.readouterr()  # not the command's
        code = _main_here(monkeypatch, args)
        out, err = capfd.readouterr()
        return subprocess.CompletedProcess(args, 0 if code is None else code, out, err)
    return run


@pytest.fixture
def served_apps(monkeypatch) -> list:
    """``serve`` without a real server: uvicorn's ``Server.run`` "starts" at once and
    returns. The list holds each app it was given."""
    pytest.importorskip("fastapi")
    uvicorn = pytest.importorskip("uvicorn")
    served = []

    def run(server, sockets=None) -> None:
        served.append(server.config.app)
        server.started = True

    monkeypatch.setattr(uvicorn.Server, "run", run)
    return served
