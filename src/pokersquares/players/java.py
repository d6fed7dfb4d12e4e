"""Contest Java players, ``java:CLASS``: a class written for the 2016 contest framework's
``PokerSquaresPlayer`` interface plays under this harness's rules.

Each player runs in a JVM child process driven by ``PokerSquaresShim.java`` (beside this
file; standard library only, compiled once with ``javac`` into a per-user cache keyed by
its hash) over a line protocol on stdin/stdout. The user's classpath brings the
framework's classes (``PokerSquaresPlayer``, ``Card``, ``PokerSquaresPointSystem``) and
the player; none of the framework ships here. The classpath is ``--classpath`` on the
command line (kept in ``$POKERSQUARES_CLASSPATH`` for the worker processes), else
``$CLASSPATH``.

The JVM starts in ``warm_up``, outside the harness's clocks; every clock is kept on the
Python side. A call that overruns its time (plus ``grace``) has its JVM stopped; a JVM
that exits or is stopped is started again, and told the point system again, at the next
game. The JVM halts when its stdin ends, so it never outlives the process that started
it, even one killed while the player is stuck inside a call.
"""

from __future__ import annotations

import hashlib
import os
import select
import shutil
import subprocess
import tempfile
import time
from importlib import resources
from pathlib import Path

from ..cards import Card, is_seconds
from ..errors import PokerSquaresError, UnknownPlayerError
from ..harness.player import OneThreadAtATime
from ..points import PointSystem
from .catalog import register_player_family

__all__ = ["JavaPlayer", "JavaPlayerError", "CLASSPATH_ENV", "set_classpath", "java_player_class", "java_tool"]

CLASSPATH_ENV = "POKERSQUARES_CLASSPATH"
SHIM = "PokerSquaresShim"
START_LIMIT_S = 60.0   # JVM start, class loading and the player's constructor (untimed by the contest)
INIT_LIMIT_S = 30.0    # init() before each game (untimed by the contest)
QUIT_WAIT_S = 2.0
MAX_GRACE_S = 1e6      # the harness's longest time (harness.spec.MAX_SECONDS)


class JavaPlayerError(RuntimeError):
    """The JVM died, a call into the player threw, or the shim could not answer."""


def java_tool(tool: str) -> str | None:
    """``$JAVA_HOME/bin/TOOL`` if there, else TOOL on the PATH, else None (``java``, ``javac``)."""
    home = os.environ.get("JAVA_HOME")
    if home and os.access(Path(home) / "bin" / tool, os.X_OK):
        return str(Path(home) / "bin" / tool)
    return shutil.which(tool)


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pokersquares" / "java-shim"


def _shim_source() -> tuple[Path, str]:
    path = Path(str(resources.files(__package__) / f"{SHIM}.java"))
    return path, hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def shim_classpath() -> list[str]:
    """What to put on the JVM's command line before the user's classpath to run the shim:
    its compiled classes (compiled at first use), or, without ``javac``, its source file
    (Java 11+ runs a single source file, compiling it at each start)."""
    source, digest = _shim_source()
    javac = java_tool("javac")
    if javac is None:
        return [str(source)]
    for root in (_cache_root(), Path(tempfile.gettempdir()) / f"pokersquares-java-shim-{os.getuid()}"):
        target = root / digest
        if (target / f"{SHIM}.class").exists():
            return ["-cp", str(target)]
        try:
            root.mkdir(parents=True, exist_ok=True)
            work = Path(tempfile.mkdtemp(dir=root, prefix=".build-"))
        except OSError:
            continue  # an unwritable cache: try the next place
        done = subprocess.run([javac, "-nowarn", "-d", str(work), str(source)], capture_output=True, text=True)
        if done.returncode != 0:
            shutil.rmtree(work, ignore_errors=True)
            raise UnknownPlayerError(f"javac could not compile {source.name}: {done.stderr.strip().splitlines()[-1:]}")
        try:
            work.rename(target)  # atomic; another process may have won the race, which is as good
        except OSError:
            shutil.rmtree(work, ignore_errors=True)
        return ["-cp", str(target)]
    raise UnknownPlayerError("no writable directory to cache the compiled Java shim in")


def _classpath_entries(text: str | None) -> list[str]:
    if text is None:
        text = os.environ.get(CLASSPATH_ENV) or os.environ.get("CLASSPATH") or ""
    entries = [e for e in text.split(os.pathsep) if e]
    if not entries:
        raise UnknownPlayerError("a java: player needs --classpath (the contest framework's classes and the player's)")
    for entry in entries:
        if not Path(entry[:-1] if entry.endswith("*") else entry).exists():
            raise UnknownPlayerError(f"classpath entry {entry!r} does not exist")
    return entries


def set_classpath(text: str) -> str:
    """Check a ``--classpath`` value and keep it, made absolute, for every java: player of
    this process and its workers; returns it."""
    if not any(text.split(os.pathsep)):
        raise UnknownPlayerError(f"--classpath {text!r} names no folder or jar")
    entries = [str(Path(e[:-1]).resolve() / "*") if e.endswith("*") else str(Path(e).resolve())
               for e in _classpath_entries(text)]
    value = os.pathsep.join(entries)
    os.environ[CLASSPATH_ENV] = value
    return value


def _jvm_command(class_name: str, classpath: list[str], java_opts: list[str], check: bool = False) -> list[str]:
    java = java_tool("java")
    if java is None:
        raise UnknownPlayerError("java not found: install a JDK (e.g. Debian's default-jdk-headless) "
                                 "or set JAVA_HOME")
    shim = shim_classpath()
    if shim[0] == "-cp":
        cp, launch = [shim[1], *classpath], [SHIM]
    else:
        cp, launch = classpath, [shim[0]]
    return [java, *java_opts, "-cp", os.pathsep.join(cp), *launch, *(["--check"] if check else []), class_name]


def _fingerprint(class_name: str, classpath: list[str]) -> str:
    """Changes when the player's compiled code (or the classpath) changes, so that the
    result store never resumes games of another build (see ResultStore.open_run)."""
    h = hashlib.sha256(_shim_source()[1].encode())
    rel = class_name.replace(".", "/") + ".class"
    for entry in classpath:
        h.update(entry.encode())
        path = Path(entry)
        for f in ([path] if path.is_file() else [path / rel]):
            if f.is_file():
                st = f.stat()
                h.update(f"{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()[:12]


_CHECKED: dict[tuple[str, str], type] = {}
_STARTED: set[tuple[str, str, tuple[str, ...]]] = set()  # (class, classpath, java_opts) checked to start


def _check_start(class_name: str, classpath: list[str], java_opts: list[str]) -> None:
    """Start a JVM with ``java_opts`` that creates the player and exits; any failure is one
    line (UnknownPlayerError)."""
    shown = f"java:{class_name}" + (f" with java_opts={' '.join(java_opts)!r}" if java_opts else "")
    cmd = _jvm_command(class_name, classpath, java_opts, check=True)
    try:
        done = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=START_LIMIT_S)
    except subprocess.TimeoutExpired:
        raise UnknownPlayerError(f"{shown}: the JVM did not start within {START_LIMIT_S:g} s") from None
    except OSError as e:
        raise UnknownPlayerError(f"{shown}: cannot start java: {e.strerror or e}") from None
    out = [line.strip() for line in done.stdout.splitlines() if line.strip()]
    if done.returncode != 0 or not out or not out[0].startswith("ready"):
        if out and out[0].startswith("error "):
            reason = out[0].removeprefix("error ").strip()
        else:
            # The JVM's own words (an unknown option, too small a heap), without its closing
            # "A fatal exception has occurred": on stdout or stderr, whichever it used.
            said = [line for line in out + [e.strip() for e in done.stderr.splitlines() if e.strip()]
                    if not line.startswith("Error: A fatal exception")]
            reason = "; ".join(said[:2]) or f"the JVM exited with code {done.returncode} before creating the player"
        raise UnknownPlayerError(f"{shown}: {reason}")


def _check_log(log: str) -> None:
    """A ``log`` file the player's printed output can be appended to: not a folder nor a pipe,
    not an SQLite file (a result store), in an existing folder; one line (UnknownPlayerError)
    otherwise."""
    path = Path(log)
    if not log or path.is_dir():
        raise UnknownPlayerError(f"log={log!r} is a folder; give a file name, e.g. log=player.log")
    if path.exists() and not path.is_file() and not path.is_char_device():  # /dev/null, a terminal: fine
        raise UnknownPlayerError(f"log={log!r} is not a regular file (a pipe?); give a file name")
    if path.is_file():
        try:
            with open(path, "rb") as f:
                sqlite = f.read(16) == b"SQLite format 3\x00"
        except OSError as e:
            raise UnknownPlayerError(f"cannot write log={log!r}: {e.strerror or e}") from None
        if sqlite:
            raise UnknownPlayerError(f"log={log!r} is an SQLite file (a result store?); not writing the "
                                     "player's output into it, give another file")
    if not path.parent.is_dir():
        raise UnknownPlayerError(f"cannot write log={log!r}: folder {str(path.parent)!r} does not exist")
    try:
        open(path, "ab").close()
    except OSError as e:
        raise UnknownPlayerError(f"cannot write log={log!r}: {e.strerror or e}") from None


def _check_millis(seconds, what: str) -> None:
    """A time the Java player is told in milliseconds (a Java long), and the longest this
    side waits for its answer: finite, or a PokerSquaresError (``int(inf * 1000)`` failed
    with an OverflowError, and an infinite wait would never end)."""
    if not is_seconds(seconds) or abs(seconds) == float("inf"):
        raise PokerSquaresError(f"{what} for a Java player is a finite number of seconds, got {seconds!r}")


def _holders(class_name: str, classpath: list[str]) -> list[str]:
    """The classpath entries (folders or jars) that hold ``class_name``'s class file."""
    import zipfile

    rel = class_name.replace(".", "/") + ".class"
    found, seen = [], set()
    for entry in classpath:
        path = Path(entry)
        if os.path.realpath(path) in seen:  # one folder given twice holds one class
            continue
        seen.add(os.path.realpath(path))
        if path.is_dir():
            held = (path / rel).is_file()
        else:
            try:
                with zipfile.ZipFile(path) as jar:
                    held = rel in jar.namelist()
            except (OSError, zipfile.BadZipFile):
                held = False
        if held:
            found.append(entry)
    return found


def _warn_if_shadowed(class_name: str, classpath: list[str]) -> None:
    """Say it when two classpath entries hold the class (two entrants' ``MyPlayer``): the
    JVM plays the first's every time, and the other entrant's never, unsaid."""
    import warnings

    holders = _holders(class_name, classpath)
    if len(holders) > 1:
        warnings.warn(f"java:{class_name} is in {len(holders)} classpath entries ({', '.join(holders)}): the JVM "
                      f"plays the first's, {holders[0]}, every time; give each entrant's class its own name (or "
                      "package)", stacklevel=2)


def java_player_class(class_name: str) -> type:
    """The factory of ``java:CLASS``, after checking (once per process and classpath) that
    java runs, the classpath exists, and the class is a PokerSquaresPlayer with a public
    no-argument constructor; any failure is one line (UnknownPlayerError)."""
    # Java identifiers are Python's plus '$' (a nested class's binary name is Outer$Inner).
    if not class_name or not all(part.replace("$", "_").isidentifier() for part in class_name.split(".")):
        raise UnknownPlayerError(f"java:{class_name}: not a Java class name")
    classpath = _classpath_entries(None)
    key = (class_name, os.pathsep.join(classpath))
    if key not in _CHECKED:
        _check_start(class_name, classpath, [])
        _warn_if_shadowed(class_name, classpath)
        _CHECKED[key] = type(f"JavaPlayer[{class_name}]", (JavaPlayer,), {
            "class_name": class_name, "version": f"java/{_fingerprint(class_name, classpath)}",
            "__module__": __name__})
    return _CHECKED[key]


class JavaPlayer(OneThreadAtATime):
    """A contest Java player in a JVM child process (see the module's docstring).

    ``cores``: how many cores the player's own threads keep busy (the harness then plays
    fewer games at once). ``grace``: seconds past a call's time before its JVM is stopped.
    ``java_opts``: extra JVM options, separated by spaces. ``log``: a file that gets the
    player's printed output (default: discarded).

    Threads: one JVM plays one game at a time; a call of the protocol made while another
    thread is inside this player is a PokerSquaresError (two threads' commands and answers
    crossed on its pipe), as for the harness's ``BasePlayer``.
    """

    class_name = ""
    version = "java"
    cores = 1

    def __init__(self, class_name: str | None = None, *, classpath: str | None = None, cores: int = 1,
                 grace: float = 1.0, java_opts: str = "", log: str | None = None) -> None:
        if class_name is not None:
            self.class_name = class_name
        self.name = f"java:{self.class_name}"
        if not isinstance(cores, int) or cores < 1:
            raise UnknownPlayerError(f"cores must be a positive integer, got {cores!r}")
        # A grace beyond the harness's longest time (1e6 s) overflowed the wait for the
        # player's answer (select's time_t): every game's preparation failed, unsaid till then.
        if not isinstance(grace, (int, float)) or isinstance(grace, bool) or not 0 <= grace <= MAX_GRACE_S:
            raise UnknownPlayerError(f"grace must be a number of seconds from 0 to {MAX_GRACE_S:g}, got {grace!r}")
        if not isinstance(java_opts, str):
            raise UnknownPlayerError(f"java_opts must be JVM options separated by spaces, got {java_opts!r}")
        self.cores = cores
        self.grace = float(grace)
        self.java_opts = java_opts.split()
        self.log = log
        if classpath is not None and type(self) is not JavaPlayer:
            # A java:CLASS player was checked on --classpath: another classpath given here
            # would run a class nobody checked (and its runs would not know its build).
            raise UnknownPlayerError(f"java:{self.class_name}: give the classpath with --classpath "
                                     f"(or ${CLASSPATH_ENV}), not as a parameter of the player")
        self.classpath = _classpath_entries(classpath)
        if log is not None:
            if not isinstance(log, str):
                raise UnknownPlayerError(f"log must be a file name, got {log!r}")
            _check_log(log)
        started = (self.class_name, os.pathsep.join(self.classpath), tuple(self.java_opts))
        if self.java_opts and started not in _STARTED:
            # The JVM of every game starts with these options: a bad one is refused here, in
            # one line (once per process), instead of scoring every game the penalty.
            _check_start(self.class_name, self.classpath, self.java_opts)
            _STARTED.add(started)
        self.java_name: str | None = None
        self._proc: subprocess.Popen | None = None
        self._buffer = b""
        self._system: tuple[PointSystem, float] | None = None
        self.seed = 0

    # -- the JVM ------------------------------------------------------------
    def _start(self) -> None:
        self._stop()
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL
        try:
            self._proc = subprocess.Popen(_jvm_command(self.class_name, self.classpath, self.java_opts),
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=out, bufsize=0)
        except OSError as e:
            raise JavaPlayerError(f"cannot start java: {e}") from None
        finally:
            if not isinstance(out, int):
                out.close()
        self._buffer = b""
        line = self._call(None, START_LIMIT_S, "starting the JVM", expect=None)
        if not line.startswith("ready"):
            self._stop()
            raise JavaPlayerError(f"the JVM could not create {self.class_name}: {line.removeprefix('error ')}")
        self.java_name = line[6:].strip() or self.class_name

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for f in (proc.stdin, proc.stdout):
            assert f is not None  # started with both piped
            try:
                f.close()
            except OSError:
                pass

    def close(self) -> None:
        """End the JVM (it also ends by itself when this process exits)."""
        proc = self._proc
        if proc is not None and proc.poll() is None:
            assert proc.stdin is not None  # started piped
            try:
                proc.stdin.write(b"quit\n")
                proc.stdin.flush()
                proc.wait(QUIT_WAIT_S)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self._stop()

    def __del__(self) -> None:
        try:
            self._stop()
        except Exception:
            pass

    def __getstate__(self):
        # The learned state lives in the JVM: each worker process prepares its own copy.
        raise TypeError("a Java player's JVM cannot be copied to another process")

    def _call(self, command: str | None, limit_s: float, what: str, expect: str | None = "ok") -> str:
        """Send one command and return the shim's one-line answer, waiting at most ``limit_s``
        seconds; a JVM that overruns is stopped. An answer that is not ``expect`` (its first
        word) nor ``raised ...`` stops the JVM too: something else wrote on its stdout (the
        player, through FileDescriptor.out), and every later answer would be read one late.
        The next game starts a new one."""
        proc = self._proc
        if proc is None or proc.poll() is not None:
            raise JavaPlayerError(f"the JVM is not running ({what})")
        deadline = time.monotonic() + limit_s
        assert proc.stdin is not None and proc.stdout is not None  # started with both piped
        if command is not None:
            try:
                proc.stdin.write(command.encode() + b"\n")
                proc.stdin.flush()
            except OSError:
                pass  # it died: reading below says how
        fd = proc.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                self._stop()
                raise TimeoutError(f"no answer within {limit_s:.2f} s while {what}; the JVM was stopped")
            chunk = os.read(fd, 65536)
            if not chunk:
                code = proc.wait()
                self._stop()
                raise JavaPlayerError(f"the JVM exited with code {code} while {what}")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        text = line.decode("utf-8", "replace").strip()
        if text.startswith("raised "):
            raise JavaPlayerError(f"{what} threw {text[7:]}")
        if expect is not None and text.split(" ", 1)[0] != expect:
            self._stop()
            raise JavaPlayerError(f"unexpected answer from the shim while {what}: {text[:200]!r}; the JVM was stopped")
        return text

    # -- the harness's player protocol ----------------------------------------
    def warm_up(self) -> None:
        """Start the JVM and create the player, before any clock starts."""
        if self._proc is None or self._proc.poll() is not None:
            self._start()

    def set_seed(self, seed: int) -> None:
        with self._alone("set_seed"):
            self.seed = int(seed)  # a Java player draws its own randomness

    def set_point_system(self, point_system: PointSystem, budget_s: float) -> None:
        _check_millis(budget_s, "the preparation's budget")
        with self._alone("set_point_system"):
            self._system = (point_system, float(budget_s))
            self.warm_up()
            self._tell_system()

    def _tell_system(self) -> None:
        assert self._system is not None  # set_point_system
        point_system, budget_s = self._system
        millis = int(budget_s * 1000)
        limit = budget_s + max(self.grace, 0.1 * budget_s)
        try:
            self._call(f"system {' '.join(map(str, point_system.points))} {millis}", limit, "setPointSystem")
        except TimeoutError:
            raise JavaPlayerError(f"setPointSystem overran its budget of {budget_s:g} s; the JVM was stopped") from None

    def start_game(self) -> None:
        with self._alone("start_game"):
            if self._proc is None or self._proc.poll() is not None:
                # The last game's JVM died or was stopped: a new one, told the point system again.
                self._start()
                if self._system is not None:
                    self._tell_system()
            self._call("init", INIT_LIMIT_S, "init")

    def get_play(self, card: Card, seconds_left: float):
        _check_millis(seconds_left, "seconds_left")  # a Java long of milliseconds, and our wait for the answer
        with self._alone("get_play"):
            return self._play(card, seconds_left)

    def _play(self, card: Card, seconds_left: float):
        """:meth:`get_play`'s command and answer, this player held."""
        try:
            line = self._call(f"play {int(card)} {int(seconds_left * 1000)}", seconds_left + self.grace, "getPlay",
                              expect="play")
        except TimeoutError:
            return None  # stopped past its time: the harness's own clock calls it a timeout
        words = line.split()
        try:
            values = [int(w) for w in words[1:]]
        except ValueError:
            return None if words[1:] == ["null"] else " ".join(words[1:])
        return tuple(values) if len(values) == 2 else values


register_player_family("java", java_player_class)
