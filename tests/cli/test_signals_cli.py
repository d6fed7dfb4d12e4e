"""Ctrl-C, SIGTERM and SIGHUP said in one line that fits the command, from its first moment."""

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from pokersquares.cli import RESUMES, interrupted_note

# Ctrl-C, kill's SIGTERM and a closed terminal's SIGHUP: each the command's own word and exit code.
STOPS = [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated"), (signal.SIGHUP, 129, "hung up")]


def as_in_a_terminal() -> None:
    """A command's signals as a terminal starts it, whatever this test run inherited (a
    run under ``nohup`` ignores SIGHUP, and its commands would inherit that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def with_sitecustomize(tmp_path, source: str, args, *, timeout: float = 60, terminal: bool = True, **env_vars):
    """``python ARGS`` (``-m pokersquares ...`` and the like) in a process of its own,
    started as from a terminal, with ``source`` loaded at its start (``sitecustomize``) and
    ``env_vars`` in its environment."""
    (tmp_path / "sitecustomize.py").write_text(source)
    env = dict(os.environ, **env_vars,
               PYTHONPATH=os.pathsep.join([str(tmp_path), *filter(None, [os.environ.get("PYTHONPATH")])]))
    return subprocess.run([sys.executable, *map(str, args)], env=env, capture_output=True, text=True,
                          timeout=timeout, preexec_fn=as_in_a_terminal if terminal else None)


# Loaded by the interpreter at start (PYTHONPATH): the command's subcommands are loaded,
# then the signal arrives, from inside an ``exec`` of a string as numba's compiling
# would have it (CPython then flags the KeyboardInterrupt as unhandled).
def after_the_subcommands_load(variable: str, then: str) -> str:
    """A ``sitecustomize`` that, when ``variable`` is set, runs ``then`` (one line of
    Python) as soon as the command's subcommands have loaded."""
    return textwrap.dedent(f"""
        import os
        if os.environ.get("{variable}"):
            import pokersquares.cli as cli

            loaded = cli._load_subcommands

            def load_then():
                loaded()
                {then}

            cli._load_subcommands = load_then
    """)


SIGNAL_WHILE_LOADING = after_the_subcommands_load(
    "SIGNAL_WHILE_LOADING",
    """exec("import os, time; os.kill(os.getpid(), int(os.environ['SIGNAL_WHILE_LOADING'])); time.sleep(20)")""")


# Loaded at start too: the signal arrives when the command first imports a module
# (typer: before the command line itself is loaded; numpy: the slowest import).
SIGNAL_AT_IMPORT = textwrap.dedent("""
    import os, sys, time

    class SignalAtImport:
        def find_spec(self, name, path=None, target=None):
            if name == os.environ.get("SIGNAL_AT_IMPORT"):
                sys.meta_path.remove(self)
                os.kill(os.getpid(), int(os.environ["SIGNAL"]))
                time.sleep(20)  # the handler runs at the next instruction
            return None

    sys.meta_path.insert(0, SignalAtImport())
""")


# Loaded at start too: the signal strikes inside an at-fork callback, where Python
# swallows exceptions ("Exception ignored in"), as logging's lock callback met a
# SIGTERM while Ray forked its processes (the command then ran on to its end, exit 0).
SIGNAL_IN_AT_FORK_CALLBACK = textwrap.dedent("""
    import os, time

    sent = []

    def signal_inside():
        if not sent:
            sent.append(1)
            os.kill(os.getpid(), int(os.environ["SIGNAL_IN_AT_FORK_CALLBACK"]))
            time.sleep(0.5)  # the handler runs here, inside the callback

    os.register_at_fork(after_in_parent=signal_inside)
""")


# Loaded at start too: as absl's failure handler in Ray's core worker does when a
# SIGTERM reaches it during ``ray.init``, a C handler that aborts on SIGALRM and an
# alarm armed, then the SIGTERM; the command's exit takes longer than the alarm.
SIGTERM_WITH_ABORTING_ALARM = textwrap.dedent("""
    import atexit, ctypes, os, signal, time
    import pokersquares.cli as cli

    loaded = cli._load_subcommands

    def load_then_signal():
        loaded()
        libc = ctypes.CDLL(None)
        libc.signal.argtypes = [ctypes.c_int, ctypes.c_void_p]
        libc.signal(int(signal.SIGALRM), ctypes.cast(libc.abort, ctypes.c_void_p))
        libc.alarm(1)
        atexit.register(time.sleep, 2)  # a clean-up longer than the alarm
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(20)

    cli._load_subcommands = load_then_signal
""")


@pytest.mark.parametrize("module", ["typer", "numpy"])
@pytest.mark.parametrize("how", [["-m", "pokersquares"], ["-c", "from pokersquares.entry import main; main()"]])
@pytest.mark.parametrize("sig, code, word", STOPS)
def test_a_signal_in_the_first_imports_is_one_line(tmp_path, module, how, sig, code, word):
    # ``-c ...entry...`` is what the console script runs.
    r = with_sitecustomize(tmp_path, SIGNAL_AT_IMPORT, [*how, "run", "--player", "random", "--games", "1"],
                           SIGNAL_AT_IMPORT=module, SIGNAL=str(int(sig)))
    # the word alone, or with the run's note once the command line has loaded
    assert (r.returncode, r.stderr.strip().split(" (")[0], r.stdout) == (code, word, "")
    assert len(r.stderr.strip().splitlines()) == 1


def test_the_console_script_is_the_entry_that_answers_signals_first():
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]
    assert project["scripts"]["pokersquares"] == "pokersquares.entry:main"
    r = subprocess.run([sys.executable, "-c", "import sys, pokersquares.entry; print('numpy' in sys.modules)"],
                       capture_output=True, text=True, timeout=60)
    assert r.stdout.strip() == "False"  # nothing heavy before the handlers are in place


@pytest.mark.parametrize("sig, code, word", STOPS)
def test_a_signal_while_the_subcommands_load_is_one_line(tmp_path, sig, code, word):
    r = with_sitecustomize(tmp_path, SIGNAL_WHILE_LOADING, ["-m", "pokersquares", "players"],
                           SIGNAL_WHILE_LOADING=str(int(sig)))
    assert (r.returncode, r.stderr.strip(), r.stdout) == (code, word, "")


# Loaded at start too: the signal arrives as a module has just been loaded, before its
# import ends (numpy's C core: numpy cannot then be imported again in this process, and
# the message's own import of the result store ended in "ImportError: cannot load module
# more than once per process" and a traceback, exit 1).
SIGNAL_AFTER_LOAD = textwrap.dedent("""
    import os, sys, time
    from importlib.machinery import PathFinder

    class SignalAfterLoad:
        def find_spec(self, name, path=None, target=None):
            if name != os.environ.get("SIGNAL_AFTER_LOAD"):
                return None
            sys.meta_path.remove(self)
            spec = PathFinder.find_spec(name, path)
            loader = spec.loader

            class Then:
                def create_module(self, spec):
                    return loader.create_module(spec)

                def exec_module(self, module):
                    loader.exec_module(module)
                    os.kill(os.getpid(), int(os.environ["SIGNAL"]))
                    time.sleep(20)  # the handler runs here

            spec.loader = Then()
            return spec

    sys.meta_path.insert(0, SignalAfterLoad())
""")


@pytest.mark.parametrize("sig, code, word", STOPS)
def test_a_signal_as_numpy_core_loads_is_one_line(tmp_path, sig, code, word):
    import numpy

    core = "numpy._core._multiarray_umath" if hasattr(numpy, "_core") else "numpy.core._multiarray_umath"
    r = with_sitecustomize(tmp_path, SIGNAL_AFTER_LOAD, ["-m", "pokersquares", "run", "--player", "random", "--games",
                                                         "1", "--db", tmp_path / "r.sqlite"],
                           SIGNAL_AFTER_LOAD=core, SIGNAL=str(int(sig)))
    assert (r.returncode, r.stderr.strip(), r.stdout) == (code, f"{word} ({RESUMES})", "")


# Loaded at start too: the subcommands are loaded, the signal arrives, and its exception is
# lost as a library's C code loses it while the subcommands import (one that clears the
# error: the Ctrl-C went unanswered, the command ran on to its end) or replaces it
# (numba's "ImportError: numba._devicearray failed to import": "internal error", exit 1).
LOSE_THE_SIGNAL = textwrap.dedent("""
    import os, sys, time

    def lose_the_signal(variable):
        # The signal named by the variable, its exception lost as a C library loses it
        try:
            os.kill(os.getpid(), int(os.environ[variable]))
            time.sleep(20)  # the handler raises here
        except BaseException:
            if os.environ["HOW"] == "replaced":  # numba's "numba._devicearray failed to import"
                raise ImportError("a C extension failed to import") from None
""")
SIGNAL_LOST_WHILE_LOADING = LOSE_THE_SIGNAL + after_the_subcommands_load(
    "SIGNAL_LOST_WHILE_LOADING", 'lose_the_signal("SIGNAL_LOST_WHILE_LOADING")')


# Loaded at start too: the signal arrives as the command line itself loads (typer's
# import, pokersquares.entry's handler in force), and its exception is lost as above.
SIGNAL_LOST_AT_IMPORT = LOSE_THE_SIGNAL + textwrap.dedent("""
    class LoseTheSignalAtImport:
        def find_spec(self, name, path=None, target=None):
            if name == "typer":
                sys.meta_path.remove(self)
                lose_the_signal("SIGNAL_LOST_AT_IMPORT")
            return None

    sys.meta_path.insert(0, LoseTheSignalAtImport())
""")


@pytest.mark.parametrize("where", ["SIGNAL_LOST_WHILE_LOADING", "SIGNAL_LOST_AT_IMPORT"])
@pytest.mark.parametrize("how", ["cleared", "replaced"])
@pytest.mark.parametrize("sig, code, word", STOPS)
def test_a_signal_whose_exception_a_library_lost_while_loading_still_stops(tmp_path, sig, code, word, how, where):
    # As the subcommands load (pokersquares.cli's handlers) or as the command line itself
    # loads (pokersquares.entry's)
    source = {"SIGNAL_LOST_WHILE_LOADING": SIGNAL_LOST_WHILE_LOADING, "SIGNAL_LOST_AT_IMPORT": SIGNAL_LOST_AT_IMPORT}
    r = with_sitecustomize(tmp_path, source[where], ["-m", "pokersquares", "players"], HOW=how, **{where: str(int(sig))})
    assert (r.returncode, r.stderr.strip(), r.stdout) == (code, word, "")


def test_the_note_fits_the_command():
    assert interrupted_note(["run", "--player", "greedy", "--games", "3"]) == RESUMES
    assert interrupted_note(["experiment", "tiger", "--db", "x.sqlite"]) == RESUMES
    assert interrupted_note(["train", "-s", "american", "--out", "t.json"]) == "nothing was saved: t.json is as it was"
    assert interrupted_note(["train", "-s", "american", "-o", "t.json"]) == "nothing was saved: t.json is as it was"
    assert interrupted_note(["optimum", "--seeds", "0..9", "--db", "o.sqlite"]).startswith("solved deals are recorded")
    for read_only in (["compare", "a.sqlite"], ["review", "a.sqlite", "--run", "1"], ["results"],
                      ["optimum", "--seed", "3"], ["optimum", "--check", "--db", "a.sqlite"], []):
        assert interrupted_note(read_only) is None


@pytest.fixture
def interrupted(cli, monkeypatch):
    """Run the command line with ``target`` raising Ctrl-C; SIGINT's handler restored after."""
    def run(target, *args):
        def ctrl_c(*_a, **_k):
            raise KeyboardInterrupt
        monkeypatch.setattr(target, ctrl_c)
        handler = signal.getsignal(signal.SIGINT)
        try:
            return cli(*args)
        finally:
            signal.signal(signal.SIGINT, handler)
    return run


def test_an_interrupted_train_says_nothing_was_saved(interrupted, tmp_path):
    out = tmp_path / "t.json"
    code, _, err = interrupted("pokersquares.cli.agents.check_output", "train", "--player", "og",
                               "--system", "american", "--prep-time", "5", "--out", out)
    assert code == 130 and err.strip() == f"interrupted (nothing was saved: {out} is as it was)"
    assert "resume" not in err and not out.exists()


# Loaded at start too: the signal arrives just after train's learned table replaced --out.
SIGNAL_AFTER_SAVE = textwrap.dedent("""
    import os, time
    import pokersquares.cli.agents as agents

    save = agents._save

    def save_then_signal(*args, **kwargs):
        save(*args, **kwargs)
        os.kill(os.getpid(), int(os.environ["SIGNAL_AFTER_SAVE"]))
        time.sleep(20)  # the handler runs here

    agents._save = save_then_signal
""")


@pytest.mark.parametrize("sig, code, word", STOPS)
def test_a_train_interrupted_once_saved_says_it_saved(tmp_path, sig, code, word):
    # It said "nothing was saved: t.json is as it was" of the file it had just written.
    out = tmp_path / "t.json"
    out.write_text("{}")  # an older table, replaced
    r = with_sitecustomize(tmp_path, SIGNAL_AFTER_SAVE, ["-m", "pokersquares", "train", "--player", "og", "--system",
                                                         "american", "--prep-time", "0.5", "--out", out],
                           timeout=120, SIGNAL_AFTER_SAVE=str(int(sig)))
    assert (r.returncode, r.stderr.strip().splitlines()[-1], r.stdout) == \
        (code, f"{word} (the learned table was saved: {out})", "")
    assert out.read_text() != "{}"


def test_an_interrupted_compare_is_just_interrupted(interrupted, tmp_path):
    store = tmp_path / "a.sqlite"
    store.write_bytes(b"")
    code, _, err = interrupted("pokersquares.harness.compare.load_runs", "compare", store)
    assert (code, err.strip()) == (130, "interrupted")


# Loaded at start too: a file made once a learner reports its first games learned (its
# threads are learning), for the test to wait on it rather than for a fixed time.
MARKS_LEARNING = textwrap.dedent("""
    import os
    import pokersquares.progress as progress

    report = progress.report

    def report_and_mark(stage, games=None, *args, **kwargs):
        if stage == "learning" and games:
            open(os.environ["LEARNING_MARK"], "a").close()
        report(stage, games, *args, **kwargs)

    progress.report = report_and_mark
""")


@pytest.mark.parametrize("sig, code, word", STOPS)
def test_a_train_learning_in_threads_stops_at_once_when_interrupted(tmp_path, sig, code, word):
    # og learns in two threads and waits for them: the signal ended the command only when
    # the threads reached the end of the budget (60 s here; five minutes by default).
    import time

    out, mark = tmp_path / "t.json", tmp_path / "learning"
    (tmp_path / "sitecustomize.py").write_text(MARKS_LEARNING)
    env = dict(os.environ, LEARNING_MARK=str(mark),
               PYTHONPATH=os.pathsep.join([str(tmp_path), *filter(None, [os.environ.get("PYTHONPATH")])]))
    p = subprocess.Popen([sys.executable, "-m", "pokersquares", "train", "--player", "og:learn_threads=2",
                          "--system", "british", "--prep-time", "60", "--out", str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         preexec_fn=as_in_a_terminal)
    try:
        deadline = time.monotonic() + 120  # loaded, its kernels warmed up (a cold cache compiles them), learning
        while not mark.exists():
            assert p.poll() is None and time.monotonic() < deadline, "the training never began to learn"
            time.sleep(0.05)
        signalled = time.monotonic()
        p.send_signal(sig)
        stdout, stderr = p.communicate(timeout=120)
    finally:
        p.kill()
    assert time.monotonic() - signalled < 22, "the learning ran on after the signal"
    assert (p.returncode, stdout) == (code, ""), stderr
    assert stderr.strip().splitlines()[-1] == f"{word} (nothing was saved: {out} is as it was)"
    assert not out.exists()


@pytest.mark.parametrize("sig, code, word", STOPS)
def test_a_signal_swallowed_by_an_at_fork_callback_still_stops_the_command(tmp_path, sig, code, word):
    r = with_sitecustomize(tmp_path, SIGNAL_IN_AT_FORK_CALLBACK,
                           ["-m", "pokersquares", "run", "--player", "greedy", "--games", "300", "--workers", "1",
                            "--prep-time", "0", "--time-per-game", "5", "--db", tmp_path / "r.sqlite", "-q"],
                           timeout=120, SIGNAL_IN_AT_FORK_CALLBACK=str(int(sig)))
    assert (r.returncode, r.stderr.strip(), r.stdout) == (code, f"{word} ({RESUMES})", "")


def test_an_alarm_armed_by_a_c_failure_handler_does_not_abort_the_exit(tmp_path):
    r = with_sitecustomize(tmp_path, SIGTERM_WITH_ABORTING_ALARM, ["-m", "pokersquares", "players"], terminal=False)
    assert (r.returncode, r.stderr.strip(), r.stdout) == (143, "terminated", "")


def test_a_stop_signal_after_the_command_ended_ends_the_process_without_a_traceback(tmp_path):
    """An exported Java player's JVM stops its Python process as that exits (a player that
    failed to build said so and was ending): the SIGTERM struck while the interpreter shut
    down, and the handler's exception came out as "Exception ignored in ...
    threading._shutdown" and a traceback."""
    script = tmp_path / "late.py"
    script.write_text(textwrap.dedent("""
        import sys, threading, time
        from pokersquares.cli import main
        threading.Thread(target=time.sleep, args=(8,)).start()  # the shutdown waits for it
        sys.argv = ["pokersquares", "system", "american"]
        try:
            main()
        finally:
            print("ended", flush=True)  # main() has returned: the interpreter shuts down next
    """))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = [proc.stdout.readline() for _ in range(12)]
        assert lines[-1] == "ended\n" and "royal flush" in lines[-2], lines
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == -signal.SIGTERM and err == "", err


# Run as the console script runs the command, with the interpreter's shutdown held up
# after the command has ended: in ``threading._shutdown`` by a thread still running
# (Python code still answers signals there), or while the modules are freed, after
# CPython has given the signals back to the system's defaults (the last tenths of a
# second of every command: a Ctrl-C there killed `run` by SIGINT after its summary).
HELD_UP_SHUTDOWN = textwrap.dedent("""
    import os, sys, threading, time

    class FreedWithTheModules:
        def __del__(self, write=os.write, sleep=time.sleep):
            write(1, b"shutting down\\n")
            sleep(3)

    def after_the_main_thread():
        threading.main_thread().join()  # returns as the interpreter starts to shut down
        os.write(1, b"shutting down\\n")
        time.sleep(3)

    if sys.argv[1] == "modules":
        held = FreedWithTheModules()
    else:
        threading.Thread(target=after_the_main_thread).start()
    sys.argv = ["pokersquares", "system", "american"]
    from pokersquares.entry import main
    main()
""")


@pytest.mark.parametrize("where", ["threads", "modules"])
def test_a_ctrl_c_after_the_command_ended_leaves_its_exit_as_it_was(tmp_path, where):
    script = tmp_path / "late.py"
    script.write_text(HELD_UP_SHUTDOWN)
    proc = subprocess.Popen([sys.executable, str(script), where], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=as_in_a_terminal)
    try:
        lines = []
        while not lines or lines[-1] not in ("shutting down\n", ""):
            lines.append(proc.stdout.readline())
        assert "royal flush" in "".join(lines), lines  # the command said all it says
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert (proc.returncode, err) == (0, ""), err
