"""This toolkit's players inside the 2016 contest's Java framework.

``export_java`` writes (and compiles against the user's copy of the framework) a Java
class that implements the framework's ``PokerSquaresPlayer`` and plays as one of this
toolkit's players, so that a Java tournament of the contest's kind can enter
``champion`` beside Java players: ``new PyChampion()``. The class extends
``PokerSquaresPython`` (``PokerSquaresPython.java`` beside this file, written with it),
which starts ``python -m pokersquares stdio-player --player SPEC`` and talks to it over
the line protocol of the harness's Java shim, the other way round. ``serve`` is that
process's side: it builds and warms up the player before it says ``ready``, then
answers ``system``, ``init`` and ``play``, telling the player the milliseconds the
framework gives less a margin: a player that overruns its own clock (as any can on a
machine with more busy processes than cores) overruns the framework's. An instance that
has played and is between games gives up its process when another instance of its class
is made or prepared, for the next instance that needs one (a fresh instance per point
system holds one process, not twelve; two instances of one class that take turns hand it
to each other instead of each starting a new one in its budget), and no call waits for
ever for an answer; ``PokerSquaresPython.java``'s header
says exactly when.

The framework's clocks include the protocol's round trips (tens of microseconds, more
on a busy machine), so the player is told a little less time than the framework gives:
``SYSTEM_MARGIN_S`` of a preparation and ``MOVE_MARGIN_S`` of a game's time left.
"""

from __future__ import annotations

import contextlib
import errno
import os
import queue
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from importlib import resources
from pathlib import Path
from typing import IO, Callable, Iterator

from .. import progress
from ..cards import NUM_CARDS
from ..errors import PokerSquaresError
from ..points import PointSystem, clamped_values

__all__ = ["export_java", "python_here", "serve", "JavaExportError", "BASE_CLASS", "SYSTEM_MARGIN_S", "MOVE_MARGIN_S"]

BASE_CLASS = "PokerSquaresPython"
SYSTEM_MARGIN_S = 0.25   # of a preparation's budget: the reply, and a busy machine's scheduling
MOVE_MARGIN_S = 0.02     # of a game's time left, at each move: the round trip
_JAVA_KEYWORDS = frozenset(
    "abstract assert boolean break byte case catch char class const continue default do double else enum "
    "extends final finally float for goto if implements import instanceof int interface long native new "
    "package private protected public return short static strictfp super switch synchronized this throw "
    "throws transient try void volatile while true false null var record yield sealed permits".split())
_FRAMEWORK = ("PokerSquaresPlayer", "PokerSquaresPointSystem", "Card")
# java.lang's types PokerSquaresPython.java names without an import: a class of the same
# name in its folder (the same package) would be taken for them, and the base class not compile.
_JAVA_LANG_USED = frozenset("IllegalStateException Integer InterruptedException Math Override Process ProcessBuilder "
                            "Runtime RuntimeException String StringBuilder System Thread".split())
_STOPS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
PYTHON_CHECK_S = 120  # for --python to import pokersquares (a cold start on a busy machine takes seconds)


class JavaExportError(PokerSquaresError):
    """A class that cannot be written or compiled: a bad name, folder, classpath or no javac."""


def base_source() -> str:
    """The Java source of ``PokerSquaresPython``, the class every exported player extends."""
    return (resources.files(__package__) / f"{BASE_CLASS}.java").read_text(encoding="utf-8")


def _java_escaped(text: str) -> str:
    """``text`` inside a Java string literal, in ASCII: javac reads a source in the
    platform's encoding (ASCII under the C locale), and turns any backslash-u in it, even
    in a comment, into a character first (a path's ``\\users`` is an error, an escaped
    newline ends a comment). So every backslash is doubled (no backslash-u is left for
    javac to read), control characters are octal escapes and the rest of Unicode is
    backslash-u escapes of its UTF-16 units."""
    out = []
    for unit in text.encode("utf-16-be", "surrogatepass").hex(" ", 2).split():
        code = int(unit, 16)
        ch = chr(code)
        if ch in '"\\':
            out.append("\\" + ch)
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\{code:03o}")
        elif code > 0x7E:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


def _java_string(text: str) -> str:
    return '"' + _java_escaped(text) + '"'


def player_source(class_name: str, command: list[str], python_path: list[str] | None = None) -> str:
    """The Java source of ``class_name``: a ``PokerSquaresPython`` that runs ``command``
    with the folders ``python_path`` ahead of any ``PYTHONPATH`` already set (all in
    ASCII, whatever the command's characters)."""
    args = ", ".join(_java_string(a) for a in command)
    if python_path:
        args = (f"new String[] {{{', '.join(_java_string(p) for p in python_path)}}}, "
                f"new String[] {{{args}}}")
    path_note = f" with PYTHONPATH {_java_escaped(os.pathsep.join(python_path))} first" if python_path else ""
    return (f"// Written by `pokersquares export-java`: the pokersquares player `{_java_escaped(command[-1])}` as a\n"
            f"// contest PokerSquaresPlayer (it runs: {' '.join(_java_escaped(a) for a in command)}{path_note}).\n"
            f"public class {class_name} extends {BASE_CLASS} {{\n"
            f"    public {class_name}() {{\n"
            f"        super({args});\n"
            f"    }}\n"
            f"}}\n")


def import_folders(spec: str) -> list[str]:
    """Where a ``module:Class`` (or ``module:function``) player's module was imported from
    (the folder holding its top package), for the exported class to put on the Python
    process's ``PYTHONPATH``: a Java tournament run from another folder, without the
    ``PYTHONPATH`` the export had, then still finds it. Empty for a registered player
    and for a module of the standard library, of an installed package or of pokersquares
    itself (found without it). The module is imported already (the spec was built)."""
    import importlib

    from ..harness.registry import parse_player_spec, player_module
    from ..harness.runner import installed_roots

    module_name = player_module(parse_player_spec(spec)[0])
    if module_name is None:
        return []
    module = sys.modules.get(module_name) or importlib.import_module(module_name)
    found = getattr(module, "__spec__", None)
    origin = getattr(found, "origin", None)
    if found is None or not found.has_location or not isinstance(origin, str):
        return []  # built in, frozen or a namespace package: nothing to point at
    folder = Path(os.path.abspath(origin)).parent  # a zip's modules: the zip, as on sys.path
    for _ in range(module_name.count(".") + (found.submodule_search_locations is not None)):
        folder = folder.parent
    if os.path.join(os.path.realpath(folder), "").startswith(installed_roots()):
        return []
    if os.pathsep in str(folder):
        raise JavaExportError(f"{module_name} was imported from {folder}, whose name has {os.pathsep!r}, which "
                              "PYTHONPATH cannot hold: move or rename that folder (or install the package)")
    return [str(folder)]


def check_class_name(name: str) -> str:
    """A Java class name (an identifier, not a keyword, not one of the framework's or the
    base class's names); else a JavaExportError that says which rule it breaks."""
    if not re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$]*", name or ""):
        raise JavaExportError(f"--class-name {name!r} is not a Java class name (letters, digits, _ and $, "
                              "not starting with a digit; no package)")
    if name in _JAVA_KEYWORDS:
        raise JavaExportError(f"--class-name {name!r} is a Java keyword")
    if name in _FRAMEWORK or name == BASE_CLASS:
        raise JavaExportError(f"--class-name {name!r} is taken (the framework's or the base class's name)")
    if name.startswith(f"{BASE_CLASS}$"):
        raise JavaExportError(f"--class-name {name!r} is taken ({BASE_CLASS}$... name the base class's nested "
                              "classes): choose another name")
    if name in _JAVA_LANG_USED:
        raise JavaExportError(f"--class-name {name!r} is taken (java.lang.{name}, which the base class uses): "
                              "choose another name")
    return name


def default_class_name(spec: str) -> str:
    """``champion`` -> ``PyChampion``, ``td:epsilon=0.1`` -> ``PyTdEpsilon01``."""
    words = re.findall(r"[A-Za-z0-9]+", spec)
    return "Py" + "".join(w[:1].upper() + w[1:] for w in words) if words else "PyPlayer"


def _javac() -> str:
    from ..players.java import java_tool

    found = java_tool("javac")
    if found is None:
        raise JavaExportError("javac not found: compiling the class needs a JDK (or give --no-compile "
                              "and compile it with the framework yourself)")
    return found


def export_java(spec: str, out: Path, class_name: str | None = None, classpath: str | None = None,
                compile: bool = True, python: str | None = None,
                on_removed: Callable[[Path, str], None] | None = None,
                on_note: Callable[[str], None] | None = None) -> list[Path]:
    """Write ``CLASS.java`` and ``PokerSquaresPython.java`` into the folder ``out`` (and,
    with ``compile``, their ``.class`` files, compiled against ``classpath``, the
    framework's classes; default: ``$CLASSPATH``). The class runs ``python -m
    pokersquares stdio-player --player spec`` with this interpreter (or ``python``); for
    a ``module:Class`` spec with the folder its module was imported from ahead of any
    ``PYTHONPATH`` then set (:func:`import_folders`). Returns the files written. The
    spec is checked by building the player, and the classpath's entries must exist,
    before anything is written. The files replace their namesakes all together, once
    compiled: an export that fails or is interrupted leaves ``out`` as it was. With them
    go the class files they leave stale, each told to ``on_removed`` with why as it
    goes: with ``compile`` off, ``CLASS.class`` (from the source replaced: a Java
    tournament would play the old player); compiled, the base class's nested classes
    that the one compiled now does not have. The base class is shared by the classes
    exported into ``out``, each compiled against it, so without compiling its class files
    stay, even when its source changes: removed, every other class there would fail at
    its first ``new``, while nothing is compiled from the new source yet to take their
    place. When its source is new or changed, the classes in ``out`` compiled against
    the one before (those whose sources extend it) are told to ``on_note``, to be
    compiled again."""
    from ..harness.registry import make_player

    class_name = check_class_name(class_name or default_class_name(spec))
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise JavaExportError(f"--out {out} is a file, not a folder")
    if out.parent.exists() and not out.parent.is_dir():
        raise JavaExportError(f"--out {out}: {out.parent} is a file, not a folder")
    if not out.parent.is_dir():
        raise JavaExportError(f"--out {out}: its folder {out.parent} does not exist")
    if classpath is None:
        classpath = os.environ.get("CLASSPATH", "")
    entries = [e for e in classpath.split(os.pathsep) if e]
    missing = [e for e in entries if not Path(e).exists()]
    if missing:
        raise JavaExportError(f"classpath entry {missing[0]} does not exist")
    if compile and not entries:
        raise JavaExportError("compiling needs the framework's classes: give --classpath (PokerSquaresPlayer, "
                              "PokerSquaresPointSystem and Card), or --no-compile")
    if python is not None and (not isinstance(python, str) or not python.strip()):
        raise JavaExportError(f"--python is the interpreter the class runs, got {python!r}")
    javac = _javac() if compile else None
    make_player(spec)  # a bad spec is one line here, before anything is written
    python_path = import_folders(spec)
    command = [python or sys.executable, "-m", "pokersquares", "stdio-player", "--player", spec]
    names = [f"{BASE_CLASS}.java", f"{class_name}.java"]
    created = not out.exists()
    staged = None
    try:
        # Written and compiled in a folder of its own inside ``out`` (on its file system),
        # then moved into place: an interrupted or failed export leaves ``out`` as it was.
        try:
            out.mkdir(exist_ok=True)
            staged = Path(tempfile.mkdtemp(prefix=".pokersquares-export-", dir=out))
            (staged / names[0]).write_text(base_source(), encoding="utf-8")
            (staged / names[1]).write_text(player_source(class_name, command, python_path), encoding="utf-8")
        except OSError as e:  # a folder that is not writable, a full disk
            raise JavaExportError(f"--out {out}: cannot write {out} ({e.strerror or e}): give a folder you can "
                                  "write to") from None
        if javac is not None:
            _compile(javac, entries, staged, names, out)
            # The base class's nested classes too ({BASE_CLASS}$Session.class): a user who copies
            # the listed files beside the framework's would otherwise miss one at the first game.
            # Its own glob ($ for nested): a class named PokerSquaresPythonX would be listed twice.
            names += sorted({f"{BASE_CLASS}.class", *(p.name for p in staged.glob(f"{BASE_CLASS}$*.class"))}) + [
                f"{class_name}.class"]
        old_base = _text_in(out / names[0])
        with _stops_held():
            _move_into(out, staged, names)
            if on_note is not None and old_base != base_source():
                _tell_base_changed(out, class_name, old_base is None, javac is not None, on_note)
            _remove_stale(out, class_name, names, on_removed)
    finally:
        with _stops_held():
            if staged is not None:
                shutil.rmtree(staged, ignore_errors=True)
            if created:
                with contextlib.suppress(OSError):  # not empty: the export (or part of it) is in it
                    out.rmdir()
    return [out / name for name in names]


def python_here(python: str) -> str | None:
    """Why ``python`` would not run this toolkit's players on this machine (it does not
    start, or cannot import pokersquares), else None: an exported class starts it at its
    first game, where that would be an error (a class written for another machine may
    name an interpreter of that machine)."""
    try:
        proc = subprocess.run([python, "-c", "import pokersquares"], capture_output=True, text=True,
                              timeout=PYTHON_CHECK_S, stdin=subprocess.DEVNULL)
    except OSError as e:
        return f"it does not start here ({e.strerror or e})"
    except subprocess.TimeoutExpired:
        return f"it did not import pokersquares within {PYTHON_CHECK_S} s"
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
        return f"it cannot import pokersquares here ({last})"
    return None


def _compile(javac: str, entries: list[str], staged: Path, names: list[str], out: Path) -> None:
    """Compile the sources ``names`` in ``staged`` into it; a failure is a JavaExportError
    that names each source as in ``out``, where it was to go."""
    try:
        proc = subprocess.run([javac, "-cp", os.pathsep.join(entries), "-d", str(staged),
                               *(str(staged / name) for name in names)], capture_output=True, text=True)
    except OSError as e:  # a javac that cannot start (its interpreter or JVM gone)
        raise JavaExportError(f"cannot run {javac} ({e.strerror or e}): compiling the class needs a JDK (or give "
                              "--no-compile and compile it with the framework yourself)") from None
    if proc.returncode != 0:
        stderr = proc.stderr.replace(str(staged), str(out))
        first = next((line for line in stderr.splitlines() if "error:" in line), stderr.strip())
        # The hint only where javac missed one of the framework's classes.
        missed = any(f"class {name}" in stderr for name in _FRAMEWORK)
        hint = " (is the contest framework on --classpath?)" if missed else ""
        symbol = next((" ".join(line.split()) for line in stderr.splitlines()
                       if line.strip().startswith("symbol:")), "")
        raise JavaExportError(f"javac failed{hint}: {first.strip()}" + (f" ({symbol})" if symbol else ""))


def _move_into(out: Path, staged: Path, names: list[str]) -> None:
    """Move the files ``names`` from ``staged`` over their namesakes in ``out`` (a symbolic
    link's file, not the link, as writing in place did). One that cannot be moved is a
    JavaExportError that says which ones were."""
    for i, name in enumerate(names):
        target = os.path.realpath(out / name)
        try:
            try:
                os.replace(staged / name, target)
            except OSError as e:
                if e.errno != errno.EXDEV:
                    raise
                # A link to a file on another file system: copied beside that file, then renamed there.
                handle, beside_name = tempfile.mkstemp(prefix=".pokersquares-export-", dir=os.path.dirname(target))
                os.close(handle)
                beside = Path(beside_name)
                try:
                    shutil.copyfile(staged / name, beside)
                    os.replace(beside, target)
                finally:
                    beside.unlink(missing_ok=True)
        except OSError as e:  # a name taken by a folder, a file that is not ours to replace
            moved = f" ({', '.join(names[:i])} new, the rest as they were)" if i else ""
            raise JavaExportError(f"--out {out}: cannot write {out / name} ({e.strerror or e}): give a folder you "
                                  f"can write to{moved}") from None


def _text_in(path: Path) -> str | None:
    """The text of the file ``path``, or None if it cannot be read (there is none)."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _compiled_against_base(out: Path, class_name: str) -> list[str]:
    """The classes in ``out`` but ``class_name`` whose sources there extend the base class
    and that have a class file there, compiled against the base class there was."""
    return sorted(source.stem for source in out.glob("*.java")
                  if source.stem not in (class_name, BASE_CLASS) and (out / f"{source.stem}.class").is_file()
                  and re.search(rf"\bextends\s+{re.escape(BASE_CLASS)}\b", _text_in(source) or ""))


def _tell_base_changed(out: Path, class_name: str, new: bool, compiled: bool, on_note: Callable[[str], None]) -> None:
    """Tell ``on_note`` which classes in ``out`` to compile again, the base class's source
    there being ``new`` or changed; nothing if none is compiled against it. Without
    compiling, the old base class's files stay for them, if it has any there."""
    others = _compiled_against_base(out, class_name)
    if not others:
        return
    one = len(others) == 1
    note = (f"{BASE_CLASS}.java in {out} {'is new' if new else 'changed'}: "
            f"{', '.join(f'{name}.class' for name in others)} there {'was' if one else 'were'} compiled against "
            f"the {BASE_CLASS} before it; compile {', '.join(f'{name}.java' for name in others)} again with it")
    if not compiled and (out / f"{BASE_CLASS}.class").is_file():
        note += f" (its old class files stay until then, for {'it' if one else 'them'} to run as before)"
    on_note(note)


def _remove_stale(out: Path, class_name: str, written: list[str],
                  on_removed: Callable[[Path, str], None] | None) -> None:
    """Remove from ``out`` the class files that the files ``written`` leave stale: not
    compiled, ``class_name``'s (compiled from the source replaced); compiled, the base
    class's nested ones that the base class compiled now does not have. Each removed is
    told to ``on_removed`` with why, at once. A link is removed, not the file it names
    (a dangling one too). Those that cannot be removed, after the rest are, are a
    JavaExportError that names them."""
    if f"{class_name}.class" in written:
        found = [p.name for p in out.glob(f"{BASE_CLASS}$*.class")]
        why, harm = f"no part of the {BASE_CLASS} compiled now", ""
    else:
        found = [f"{class_name}.class"]
        why, harm = "compiled from the source replaced", ", or a Java tournament plays it"
    stale = [out / name for name in sorted(set(found) - set(written))
             if (out / name).is_symlink() or (out / name).is_file()]
    left = []
    for path in stale:
        try:
            path.unlink()
        except OSError as e:
            left.append((path, e))
            continue
        if on_removed is not None:
            on_removed(path, why)
    if left:
        first = left[0][1]
        raise JavaExportError(f"--out {out}: cannot remove {', '.join(str(path) for path, _ in left)} "
                              f"({first.strerror or first}), {why}: "
                              f"remove {'it' if len(left) == 1 else 'them'} yourself"
                              f"{harm} (the new files are written)")


@contextlib.contextmanager
def _stops_held() -> Iterator[None]:
    """Ctrl-C, SIGTERM and SIGHUP held back while the block runs and raised again after
    it, so that the block (the moves of an export, quick) is done whole. Their Python
    handlers run in the main thread alone, whichever thread the system gave the signal
    to (blocking it here would not hold it back); elsewhere the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handlers = {signum: signal.getsignal(signum) for signum in _STOPS}
    held: list[int] = []
    try:
        for signum, handler in handlers.items():
            if handler is not None:  # None: a handler not set from Python, which could not be put back
                signal.signal(signum, lambda got, frame: held.append(got))
        yield
    finally:
        for signum, handler in handlers.items():
            if handler is not None:
                signal.signal(signum, handler)
        if held:
            signal.raise_signal(held[0])


def _reply_failure(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _pipe_closed(fd: int) -> bool:
    """Whether nobody reads the pipe ``fd`` writes to any more (its reader exited)."""
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))


def serve(spec: str, seed: int = 0, lines: IO[str] | None = None, write: Callable[[str], None] | None = None,
          halt: Callable[[], None] | None = None, answers_unread: Callable[[], bool] | None = None) -> int:
    """Serve ``spec`` over the protocol: ``lines`` in (default: stdin), ``write`` out
    (default: the process's stdout, which is then kept for the protocol alone: anything
    else printed to it goes to stderr). At the end of ``lines``, the commands read are
    answered and it returns, unless nobody reads the answers any more
    (``answers_unread``; by default: the reader of stdout has gone, as when the JVM
    ended): then ``halt`` is called at once, even while the player is busy (default:
    ``os._exit(0)``). Returns the exit code: 0 at the end or after ``quit``, 2 if the
    player could not be built."""
    from ..harness.spec import build, limit_threads, player_cores

    if write is None:
        protocol = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
        os.dup2(2, 1)  # a player's (or a library's) prints must not reach the protocol
        sys.stdout = sys.stderr

        def write(line: str) -> None:
            try:
                protocol.write(line + "\n")
                protocol.flush()
            except BrokenPipeError:  # nobody reads the answers: the JVM ended
                os._exit(0)

        if answers_unread is None:
            def answers_unread() -> bool:
                return _pipe_closed(protocol.fileno())
    commands: queue.Queue = queue.Queue()

    done = threading.Event()

    def read() -> None:
        for line in lines if lines is not None else sys.stdin:
            commands.put(line)
        commands.put(None)
        # The JVM's end closes both pipes, not at one instant: watch the answers' reader
        # until the commands read are answered.
        while answers_unread is not None and not done.wait(0.05):
            if answers_unread():
                (halt or (lambda: os._exit(0)))()
                return

    try:
        player = build(spec, seed)
        problem = limit_threads(player_cores(spec))
        if problem:
            print(f"warning: {problem}", file=sys.stderr)
    except Exception as e:  # a bad spec (one line of ours), or the player's constructor failed
        write("error " + (" ".join(str(e).split()) if isinstance(e, PokerSquaresError) else _reply_failure(e)))
        return 2
    name = str(getattr(player, "name", spec))
    write(f"ready {name}")
    threading.Thread(target=read, name="pokersquares-stdin", daemon=True).start()
    try:
        return _answer(player, commands, write, _stage_lines(name))
    finally:
        done.set()


def _stage_lines(name: str) -> Callable[[progress.Progress], None]:
    """A progress listener that prints a line to stderr when the stage changes ("learning",
    "checked against the greedy rule ..."), not every count: the JVM's terminal is shared
    with the tournament's own output."""
    last: list[str | None] = [None]

    def tell(p: progress.Progress) -> None:
        if p.stage != last[0]:
            last[0] = p.stage
            print(f"pokersquares {name}: {p.stage}", file=sys.stderr, flush=True)
    return tell


def _answer(player, commands: queue.Queue, write: Callable[[str], None],
            listener: Callable[[progress.Progress], None]) -> int:
    """Answer the commands until their end (``None``) or ``quit``; a preparation's
    progress goes to ``listener``."""
    from ..harness.game_play import as_cell

    while (line := commands.get()) is not None:
        words = line.split()
        if not words:
            continue
        try:
            if words[0] == "system" and len(words) == 12:
                points = PointSystem(tuple(int(w) for w in words[1:11]))
                clamped = clamped_values(",".join(words[1:11]), points)
                if clamped:  # the framework scores the values as given: say that the player plays others
                    print(f"note: point values are clamped to [-128, 127] as the contest's are: {clamped}",
                          file=sys.stderr, flush=True)
                with progress.listening(listener):
                    player.set_point_system(points, max(0.0, int(words[11]) / 1000 - SYSTEM_MARGIN_S))
                write("ok")
            elif words[0] == "init" and len(words) == 1:
                player.start_game()
                write("ok")
            elif words[0] == "play" and len(words) == 3:
                card = int(words[1])
                if not 0 <= card < NUM_CARDS:
                    raise ValueError(f"card id {card} is not 0..51")
                row, col = as_cell(player.get_play(card, max(0.0, int(words[2]) / 1000 - MOVE_MARGIN_S)))
                write(f"play {row} {col}")
            elif words[0] == "quit":
                return 0
            else:
                write(f"raised unknown command: {' '.join(words)[:80]}")
        except Exception as e:  # the player's error, or a malformed command: the caller throws it
            write(f"raised {_reply_failure(e)}")
    return 0
