"""The ``pokersquares`` command line: a thin shell over library calls.

Each group of subcommands lives in its own module and registers itself on ``app``.
``main`` turns any bad-input error into a one-line message and exit code 2.
"""

from __future__ import annotations

import errno
import importlib
import inspect
import io
import math
import os
import re
import signal
import sys
import tempfile
import threading
import time
import typing
import warnings
from contextlib import suppress
from pathlib import Path
from typing import Any, Callable, Optional

import typer
import typer.main
import typer.models

from ..errors import PokerSquaresError
from ..files import UNUSABLE_PATH, replacing, unusable
from ..points import PointSystem, clamped_values, integer_or_none, parse_point_system, parse_point_systems

app = typer.Typer(
    name="pokersquares",
    help="Parameterized Poker Squares: the 2016 EAAI contest rules, harness and agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _say_version(asked: bool) -> None:
    if asked:
        from .. import versions

        v = versions()
        typer.echo(f"pokersquares {v['pokersquares']} (champion version {v['champion']}) at {v['path']}; "
                   f"Python {v['python']}, numpy {v['numpy']}, numba {v['numba']}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", is_eager=True, callback=_say_version,
                                       help="Print the version (and the champion's, Python's, numpy's and "
                                            "numba's) and exit.")) -> None:
    """The root's own option, ``--version`` (its help is the app's, above)."""


def _load_subcommands() -> None:
    # Each module of this package registers its subcommands on ``app`` when imported.
    import pkgutil

    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")


def penalties_text(n: int) -> str:
    """``1 penalty``, ``0 penalties``: a count of penalised games as a line says it."""
    return f"{n} penalt{'y' if n == 1 else 'ies'}"


LONGEST_WORD = 200  # characters of a word (no white space in it) that a message shows whole


def shortened(text: str) -> str:
    """``text`` as a message shows it: whole up to :data:`LONGEST_WORD` characters, else
    its first 80, its length and its last 12 (a closing quote, a file's suffix)."""
    if len(text) <= LONGEST_WORD:
        return text
    return f"{text[:80]}…[{len(text):,} characters]…{text[-12:]}"


def cut_long_words(message: str) -> str:
    """``message`` with each word longer than :data:`LONGEST_WORD` :func:`shortened`: a
    value typed at any length (a player's name of 100,000 letters) is named, not echoed
    whole."""
    return re.sub(rf"\S{{{LONGEST_WORD + 1},}}", lambda m: shortened(m.group()), message)


def fail(message: str, code: int = 2) -> "typer.Exit":
    """Print a one-line error (its long words cut, :func:`cut_long_words`) and return an
    exit to raise."""
    typer.echo(f"error: {cut_long_words(message)}", err=True)
    return typer.Exit(code)


def check_path(path: str | Path, option: str | None) -> None:
    """Refuse, in one line, a path no file can have (:func:`~pokersquares.files.unusable`):
    a name too long, a loop of symbolic links. ``option``: the option it was given to
    (None: an argument)."""
    problem = unusable(path)
    if problem is not None:
        shown = repr(shortened(str(path)))
        raise PokerSquaresError(f"cannot use {f'{option} {shown}' if option else shown}: {problem}")


def seconds_between(low: float, high: float | None = None) -> Callable:
    """An option's callback: a finite number of seconds from ``low`` to ``high`` (none:
    no ceiling), else one line that says so. In place of the option's ``min=``/``max=``,
    which met NaN with "should be greater than or equal to 0" (NaN is no number)."""
    def check(value):
        if value is None:
            return value
        if not math.isfinite(value):
            raise typer.BadParameter(f"must be a finite number of seconds, got {value}")
        if value < low or (high is not None and value > high):
            span = f"from {low:g} to {high:g} s" if high is not None else f"at least {low:g} s"
            raise typer.BadParameter(f"must be {span}, got {value:g}")
        return float(value) + 0.0
    return check


SQLITE_MAGIC = b"SQLite format 3\x00"
PLOT_SUFFIXES = (".png", ".pdf", ".svg")  # what every plot of ours can be written as (matplotlib, Agg)


def is_sqlite_file(path: Path) -> bool:
    """Whether ``path`` is an existing SQLite file (a result store, or anyone's database)."""
    if not Path(path).is_file():  # a pipe would be waited on for ever
        return False
    try:
        with open(path, "rb") as f:
            return f.read(16) == SQLITE_MAGIC
    except OSError:
        return False


def _same_file(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return a.resolve() == b.resolve()


def check_output(path: Path, option: str, *, db: Optional[Path] = None, db_option: str = "--db",
                 suffixes: Optional[tuple[str, ...]] = None, example: str = "out.json") -> Path:
    """A file a command will write, checked before any work (one line and exit 2 otherwise):
    not a folder, not the command's result store (``db``) nor any other SQLite file (an
    export or a plot never replaces recorded games), not a device or a pipe (a file is
    written beside its target and moved over it: ``/dev/null`` would be replaced by a
    regular file), a name ending in one of ``suffixes``
    (if given; a name with no suffix is written as PNG under exactly that name), and in an
    existing folder this process can write to. Returns ``path``."""
    path = Path(path)
    check_path(path, option)
    shown = f"{option} {str(path)!r}"
    if path.is_dir():
        raise fail(f"{shown} is a folder; give a file name, e.g. {str(path / example)!r}")
    if path.exists() and not path.is_file():
        raise fail(f"{shown} is not a regular file (a device or a pipe?); not replacing it, give a file name")
    if db is not None and _same_file(path, Path(db)):
        raise fail(f"{shown} is the result store ({db_option}); not overwriting it, give another file")
    if is_sqlite_file(path):
        raise fail(f"{shown} is an SQLite file (a result store?); not overwriting it, give another file")
    if suffixes is not None and path.suffix and path.suffix.lower() not in suffixes:
        kinds = ", ".join(s.lstrip(".") for s in suffixes)
        raise fail(f"{shown}: cannot write a plot as {path.suffix!r}; give a file name ending in {kinds} "
                   "(a name without suffix is written as PNG)")
    folder = path.parent
    if not folder.exists():
        raise fail(f"cannot write {shown}: folder {str(folder)!r} does not exist")
    if not folder.is_dir():
        raise fail(f"cannot write {shown}: {str(folder)!r} is not a folder")
    if path.exists() and not os.access(path, os.W_OK):
        raise fail(f"cannot write {shown}: permission denied")
    refused = _cannot_create_in(folder)
    if refused:
        raise fail(f"cannot write {shown}: cannot create a file in folder {str(folder)!r} ({refused})")
    return path


def _cannot_create_in(folder: Path) -> str | None:
    """Why no file can be made in ``folder``, or None: tried with a file made and removed
    (``os.access`` says yes to root everywhere, /proc too)."""
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".pokersquares-", suffix=".probe")
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        return e.strerror or str(e)
    return None


def save_plot(plot: Callable[[str], None], path: Path, option: str = "--plot") -> None:
    """``plot(name)`` writing to ``path`` (checked by :func:`check_output` with ``PLOT_SUFFIXES``):
    a name without suffix gets a PNG under exactly that name (matplotlib alone would add
    ``.png``)."""
    path = Path(path)
    tmp = None
    try:
        # Written beside it and moved over it at the end: an interrupted plot leaves the old one whole.
        with replacing(path, suffix=None if path.suffix.lower() in PLOT_SUFFIXES else ".png") as tmp:
            plot(str(tmp))
    except OSError as e:
        raise fail(f"cannot write {option} {str(path)!r}: {e.strerror or e}") from None
    except PokerSquaresError as e:  # a plotter's own "cannot write the plot <its file>": the file given, not ours
        if tmp is None or str(tmp) not in str(e):
            raise
        reason = str(e).replace(str(tmp), str(path))
        reason = reason.removeprefix(f"cannot write the plot {path}: ")
        raise fail(f"cannot write {option} {str(path)!r}: {reason}") from None


def check_result_store(db: Path, option: str = "--db", *, write: bool = True) -> None:
    """The result store a command will use, checked before any work: an existing one must
    open (a pokersquares store, readable, writable when ``write``); a missing one needs a
    folder this process can create it in (it is not created here)."""
    from ..harness.store import ResultStore

    db = Path(db)
    check_path(db, option)
    if db.exists():
        with ResultStore(db, readonly=not write):
            return
    if not write:
        return  # nothing to read yet, nothing to create
    folder = db.parent
    if not folder.exists():
        raise fail(f"cannot create the result store {db} ({option}): folder {folder} does not exist")
    if not folder.is_dir():
        raise fail(f"cannot create the result store {db} ({option}): {folder} is not a folder")
    refused = _cannot_create_in(folder)
    if refused:
        raise fail(f"cannot create the result store {db} ({option}): cannot create a file in folder "
                   f"{folder} ({refused})")


def _note_clamped(spec: str, system: PointSystem) -> None:
    clamped = clamped_values(spec, system)
    if clamped:
        typer.echo(f"note: point values are clamped to [-128, 127] as the contest's are: {clamped}", err=True)


def point_system(spec: str) -> PointSystem:
    """``parse_point_system`` for a command's option, saying on stderr which typed values
    were clamped into the contest's range (so a typed 500 never plays as 127 unsaid)."""
    system = parse_point_system(spec)
    _note_clamped(spec, system)
    return system


def point_systems(spec: str) -> list[PointSystem]:
    """``parse_point_systems`` for a command's option, with ``point_system``'s note for
    each part that is ten integers."""
    systems = parse_point_systems(spec)
    parts = [p for p in spec.split(";") if p.strip()] if ";" in spec else [spec]
    if len(parts) == len(systems):  # otherwise the parts are names, which are never clamped
        for part, system in zip(parts, systems):
            _note_clamped(part, system)
    return systems


class PrepLine:
    """Shows a player's preparation (:mod:`pokersquares.progress`) on one line of stderr:
    rewritten in place on a terminal. Otherwise (logs) a stage without a count of games
    gets a line when it starts; one that counts games gets a line every ``every_s``
    seconds and one with its last count when it ends, and none for a count of 0 (a
    learner's first report, before any game: "0 games" is all a line for a short
    preparation would say). stdout, where ``--json`` writes, is never touched."""

    def __init__(self, stream=None, every_s: float = 10.0) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.every_s = every_s
        self.last = -math.inf  # when the last line was written, or the stage began (logs)
        self.key: tuple | None = None  # (subject, stage) of the last report (logs)
        self.held = None  # the stage's last count, not written yet (logs)
        self.closed = False
        self.showing = False  # a line is on the terminal, its end not yet written (tty)
        self._lock = threading.Lock()

    def clear(self) -> None:
        """Take the line being rewritten off the terminal, for a line of another kind (a
        warning) to start at the margin: it ran on after the line's text, and the next
        rewrite erased it (the next report puts the line back)."""
        with self._lock:
            if self.tty and self.showing:
                self.stream.write("\r\x1b[K")
                self.stream.flush()
                self.showing = False

    def close(self) -> None:
        """No more lines: the command is saying its last (a learner still running in
        another thread wrote its progress after "terminated")."""
        with self._lock:
            self.closed = True

    def _write(self, p) -> None:
        self.stream.write(p.text() + "\n")
        self.last = time.monotonic()

    def __call__(self, p) -> None:
        with self._lock:
            if not self.closed:
                self._show(p)

    def _show(self, p) -> None:
        if self.tty:  # "done": the preparation ended, the line is left to what follows
            self.stream.write("\r\x1b[K" + ("" if p.stage == "done" else p.text()[:200]))
            self.stream.flush()
            self.showing = p.stage != "done"
            return
        key = (p.subject, p.stage)
        held, self.held = self.held, None
        if held is not None and (key != self.key or not p.games):
            self._write(held)  # the stage ended, or counts again from 0: its last count
        if key != self.key:
            self.key, self.last = key, -math.inf if p.games is None else time.monotonic()
        if p.stage == "done" or p.games == 0:
            pass
        elif time.monotonic() - self.last >= self.every_s:
            self._write(p)
        elif p.games is not None:
            self.held = p
        self.stream.flush()


class Terminated(KeyboardInterrupt):
    """SIGTERM (or SIGHUP, a closed terminal), handled as Ctrl-C is: games stop, what
    finished stays recorded. ``signum``: the signal that ended the command."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__()
        self.signum = signum


# The signals that end a command as Ctrl-C does, and how the command says so. SIGHUP
# comes when the terminal closes; under ``nohup`` it is ignored, and stays so.
STOP_SIGNALS: dict[int, tuple[str, int]] = {signal.SIGTERM: ("terminated", 143), signal.SIGHUP: ("hung up", 129)}

# This command's: code that turns an interruption into a plain Ctrl-C (Ray's) loses the type.
_stop_signal_received: int | None = None
# The command's preparation line, closed before its last line is said.
_prep_line: PrepLine | None = None
# What the command has done by now that its interruption's note would otherwise deny, read
# when it is interrupted (train's file once saved), or None: set by the command.
note_when_interrupted: Callable[[], str | None] | None = None


# The first stop signal (Ctrl-C too) this command's handlers received: looked at once the
# subcommands have loaded, for one whose exception a library's import lost.
_signal_while_loading: int | None = None


def _on_stop_signal(signum, frame) -> None:
    global _stop_signal_received, _signal_while_loading
    _stop_signal_received = signum
    if _signal_while_loading is None:
        _signal_while_loading = signum
    _disarm_foreign_alarm()
    raise Terminated(signum)


def _on_interrupt(signum, frame) -> None:
    """Ctrl-C, as Python's own handler takes it (KeyboardInterrupt), noted for
    :func:`_loaded_unless_stopped`."""
    global _signal_while_loading
    if _signal_while_loading is None:
        _signal_while_loading = signum
    raise KeyboardInterrupt


def _loaded_unless_stopped(load: Callable[[], None]) -> None:
    """``load()`` (the subcommands' imports: numpy, numba), then the stop signal it
    received raised again if its exception was lost on the way. The handler raises where
    the signal finds the main thread, and inside a library's import that may be C code
    that clears the error (the command then ran on to its end, the Ctrl-C unanswered;
    ``run`` stopped 0.1 s after its start went on to prepare and play) or puts its own in
    its place (numba's "ImportError: numba._devicearray failed to import", Python 3.11's
    RuntimeError for a ``__set_name__``: "internal error", exit 1)."""
    try:
        load()
    except Exception:
        if _signal_while_loading is None:
            raise
    if _signal_while_loading is not None:
        _raise_stop(_signal_while_loading)


def _raise_stop(signum: int) -> typing.NoReturn:
    if signum in STOP_SIGNALS:
        raise Terminated(signum) from None
    raise KeyboardInterrupt from None


def _disarm_foreign_alarm() -> None:
    """Cancel an alarm a C failure handler set when the SIGTERM went through it first:
    Ray's core worker (absl's handler, in force while ``ray.init`` runs) logs the signal,
    passes it on to ours, and arms SIGALRM to abort the process 3 s later, which killed
    the command by SIGABRT in the middle of its clean-up. The command is ending: no
    alarm of its own is wanted."""
    if hasattr(signal, "alarm"):
        signal.alarm(0)
        if signal.getsignal(signal.SIGALRM) is None:  # a handler not set from Python
            signal.signal(signal.SIGALRM, signal.SIG_DFL)


def _interrupts_redelivered(previous: Callable) -> Callable:
    """A ``sys.unraisablehook`` under which a Ctrl-C or SIGTERM that struck where Python
    swallows exceptions is not lost: raised inside an at-fork callback (``logging``'s,
    while Ray starts its processes), a ``__del__`` or a weakref callback, Python would
    print "Exception ignored" and the command would run on to its end, exit 0. The
    signal is delivered again to the main thread's handler, from another thread a moment
    later (from this one the handler would run, and be swallowed again, before the hook
    returns), so that it raises where it counts; any other unraisable exception goes to ``previous``."""
    import _thread
    import threading

    def hook(unraisable) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            exc = unraisable.exc_value
            signum = exc.signum if isinstance(exc, Terminated) else signal.SIGINT
            again = threading.Timer(0.05, _thread.interrupt_main, args=(signum,))  # once out of the hook
            again.daemon = True
            again.start()
        else:
            previous(unraisable)
    return hook


def _one_line_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning in one line of its own: the preparation's line and the games' bars are
    taken off the terminal first (tqdm puts its bars back after it)."""
    if _prep_line is not None:
        _prep_line.clear()
    from tqdm import tqdm

    tqdm.write(f"warning: {message}", file=sys.stderr)


def _one_line_usage_error(self, file=None) -> None:
    """A bad option or argument (a value out of its range, a missing option) said in one
    line, as every other bad input is, in place of click's usage block."""
    command = f"{self.ctx.command_path} --help" if self.ctx is not None else "pokersquares --help"
    typer.echo(f"error: {cut_long_words(self.format_message())} (see {command})", err=True)


# Options whose one value is a list, and what may separate its items: the first, unless a
# value holds it (``--players 'gettysburg:games=300,search=greedy;td'``).
LIST_OPTIONS = {"--players": ",;", "--systems": ",;", "--search-systems": ",;", "--warm": ";", "--seeds": ",",
                "--parts": ",", "--rows": ",", "--cp": ",", "--variants": ",", "--searches": ",",
                "--configs": ",", "--evaluators": ",", "--classpath": os.pathsep}


class _GivenAgain:
    """One flag of an option (``-p`` or ``--player``) in a command's parser: the parser's
    own, which keeps each (flag, value) the words give an option, for
    :func:`_say_values_given_again` to say those given again with another value."""

    def __init__(self, option, flag: str, given: dict) -> None:
        self._option, self.flag, self._given = option, flag, given

    def __getattr__(self, name):
        return getattr(self._option, name)

    def process(self, value, state) -> None:
        if self.action in ("store", "store_const"):
            self._given.setdefault(self.dest, (self, []))[1].append(
                (self.flag, self.const if self.action == "store_const" else value))
        self._option.process(value, state)


def _twice(n: int) -> str:
    return "twice" if n == 2 else f"{n} times"


def _given_again_note(option: _GivenAgain, given: list[tuple[str, Any]]) -> str | None:
    """The note on one option given ``given`` (each (flag, value) in the words' order),
    or None when each gave it the same value: which value the command uses, the last, as
    Click does; for an option whose value is a list, how to give the values together."""
    values = list(dict.fromkeys(v for _, v in given))
    if len(values) == 1:
        return None
    flags = list(dict.fromkeys(f for f, _ in given))
    if option.action == "store_const":
        return f"{' and '.join(flags)} both given; the last, {given[-1][0]}, is used"
    last = given[-1][1]
    others = ", ".join(repr(v) for v in values if v != last)
    listed = next((f for f in option.obj.opts if f in LIST_OPTIONS), None)
    hint = ""
    if listed is not None:
        separators = LIST_OPTIONS[listed]
        sep = next((s for s in separators if not any(s in v for v in values)), separators[-1])
        hint = f"; for {'both' if len(values) == 2 else 'all'}, a list: {listed} {sep.join(values)!r}"
    return f"{'/'.join(flags)} given {_twice(len(given))}; the last value, {last!r}, is used (not {others}){hint}"


def _say_values_given_again(command) -> None:
    """Make ``command`` and its subcommands (a Click command, as Typer builds it) say, in
    one note line each on standard error, an option given again with another value where
    it takes one: Click keeps the last without a word (``tournament --players a
    --players b`` plays b alone). Giving an option again to override it stays allowed
    (scripts build a command and append to it); options meant to repeat (``multiple``)
    and one given twice alike (``--json --json``) pass unsaid. Click's parser reads the
    words: ``--`` and an option's value that looks like an option (``--secret --db``)
    are read as the command reads them."""
    make_parser = command.make_parser

    def saying(ctx):
        parser, given = make_parser(ctx), {}
        if not all(isinstance(getattr(parser, name, None), dict) for name in ("_long_opt", "_short_opt")):
            return parser  # a Click whose parser keeps its options otherwise: the command runs, unsaid
        for options in (parser._long_opt, parser._short_opt):
            for flag, option in options.items():
                options[flag] = _GivenAgain(option, flag, given)
        parse_args = parser.parse_args

        def parse_and_say(args):
            try:
                return parse_args(args)
            finally:  # also before a refusal of a later word
                for option, seen in given.values():
                    note = _given_again_note(option, seen)
                    if note is not None:
                        typer.echo(f"note: {cut_long_words(note)}", err=True)
        parser.parse_args = parse_and_say
        return parser

    command.make_parser = saying
    for subcommand in getattr(command, "commands", {}).values():
        _say_values_given_again(subcommand)


def _interruption(exc: BaseException | None) -> KeyboardInterrupt | None:
    """The Ctrl-C (or SIGTERM) behind an exit, if any: Typer turns Ctrl-C into a silent exit 130."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


RESUMES = "finished games are recorded; run the same command again to resume"
# What an option that takes 'contest' says of the other reading (docs/contest-rules.md).
CONTEST_SHARED_HELP = ("'contest:shared': the same twelve, the generated three drawn in turn from one generator; "
                       "'contest:SEED' or 'contest:shared:SEED': a new edition's twelve, those three drawn from SEED")


def _option_value(args: list[str], *names: str) -> str | None:
    """The value given to option ``names`` in ``args`` (its last), or None."""
    value = None
    for k, arg in enumerate(args):
        for name in names:
            if arg == name and k + 1 < len(args):
                value = args[k + 1]
            elif name.startswith("--") and arg.startswith(name + "="):
                value = arg[len(name) + 1:]
    return value


def _commands(typer_app) -> dict:
    """The commands and groups of ``typer_app`` by the name the command line gives them."""
    found = {(info.name or info.callback.__name__.replace("_", "-")): info.callback
             for info in typer_app.registered_commands}
    found.update({info.name: info.typer_instance for info in typer_app.registered_groups})
    return found


def _options(callback) -> dict[str | None, type | None]:
    """The options of a command's function by flag: ``int`` or ``float`` for those that
    take a number, ``Path`` for those that take paths, ``bool`` for switches (no value),
    None for any other value; and under None, ``Path`` if its arguments are paths."""
    try:
        hints = typing.get_type_hints(callback)
    except Exception:  # noqa: BLE001 - an annotation this cannot resolve: Typer alone reads the options
        return {}
    flags: dict[str | None, type | None] = {}
    for name, parameter in inspect.signature(callback).parameters.items():
        kinds = ({hints.get(name)} | set(typing.get_args(hints.get(name)))) - {type(None)}
        kind = next((k for k in (bool, int, float) if k in kinds), Path if kinds & {Path, list[Path]} else None)
        if isinstance(parameter.default, typer.models.ArgumentInfo):
            flags[None] = kind
        if not isinstance(parameter.default, typer.models.OptionInfo):
            continue
        for decl in parameter.default.param_decls or [f"--{name.replace('_', '-')}"]:
            for flag in decl.split("/"):  # --record/--no-record
                if flag.strip().startswith("-"):
                    flags[flag.strip()] = kind
    return flags


def _given(args: list[str]) -> tuple[list[str], dict[str | None, type | None], list[tuple[str | None, str]]]:
    """What the command line ``args`` gives a command: the words that name it, the kinds
    of its options (:func:`_options`), and each value given in turn as ``(flag, value)``,
    an argument as ``(None, word)``. No values for no such command, or --help: Typer
    says so."""
    target, words, path = app, list(args), ["pokersquares"]
    while isinstance(target, typer.Typer):
        command = _commands(target).get(words[0]) if words else None
        if command is None:
            return path, {}, []
        target = command
        path.append(words.pop(0))
    flags = _options(target)
    given = []
    k = 0
    while k < len(words) and words[k] != "--":
        word, value = words[k], None
        if word.startswith("--") and "=" in word:
            word, value = word.split("=", 1)
        elif flags.get(word, bool) is not bool and k + 1 < len(words):
            value = words[k + 1]  # an option's value, whatever it looks like
            k += 1
        elif not word.startswith("--") and flags.get(word[:2], bool) is not bool and len(word) > 2:
            word, value = word[:2], word[2:]
        elif not word.startswith("-"):
            word, value = None, word
        k += 1
        if value is not None:
            given.append((word, value))
    given += [(None, word) for word in words[k + 1:]]
    return path, flags, given


def check_paths(args: list[str]) -> None:
    """Refuse, in one line, a path given to a command that no file can have
    (:func:`check_path`), before the command runs: each use of it failed as an internal
    error."""
    _, flags, given = _given(args)
    for word, value in given:
        if flags.get(word) is Path:
            check_path(value, word)


def check_numbers(args: list[str]) -> None:
    """Refuse, in one line, a number that Python's ``int()`` and ``float()`` would read
    but a person did not mean: ``--seed 4_2`` (read as 42), ``--games ١٠`` (other
    scripts' digits), before the command runs. Integers are written as
    :func:`~pokersquares.points.integer_or_none` takes them; numbers in ASCII."""
    path, flags, given = _given(args)
    for word, value in given:
        if word is None or flags.get(word) not in (int, float):
            continue
        if flags[word] is int and integer_or_none(value) is None:
            wanted = "an integer in ASCII digits (0-9), with no '_'"
        elif flags[word] is float and (not value.isascii() or "_" in value):
            wanted = "a number in ASCII digits (0-9), with no '_'"
        else:
            continue
        raise PokerSquaresError(f"Invalid value for '{word}': {value!r} is not {wanted} "
                                f"(see {' '.join(path)} --help)")


def interrupted_note(args: list[str]) -> str | None:
    """What an interruption of the command ``args`` (the command line's words after
    ``pokersquares``) leaves behind, for its one-line message; None for a command that
    writes nothing (``compare``, ``review``, ``results``, ...)."""
    command = next((a for a in args if not a.startswith("-")), None)
    if command in ("run", "tournament", "sweep", "experiment", "demo", "play"):
        return RESUMES
    if command == "train":  # learns in memory and writes its file only at the end
        out = _option_value(args, "--out", "-o")
        return f"nothing was saved: {out} is as it was" if out else "nothing was saved"
    if command == "serve":  # games are kept in memory until they end, and until it stops those the store did not take
        from .web import stopped_note

        return stopped_note(args)
    if command == "optimum" and _option_value(args, "--db") is not None and "--check" not in args:
        return "solved deals are recorded in --db; run the same command again to resume"
    return None


def _say_interrupted(e: KeyboardInterrupt) -> None:
    for each in (signal.SIGINT, *STOP_SIGNALS):  # one message, even if a second signal follows
        signal.signal(each, signal.SIG_IGN)
    if _prep_line is not None:  # the last line is this one
        _prep_line.close()
    signum = e.signum if isinstance(e, Terminated) else _stop_signal_received
    what, code = ("interrupted", 130) if signum is None else STOP_SIGNALS.get(signum, ("interrupted", 130))
    # A write on the way out that another process's lock held off says so, not "recorded".
    # Nothing is imported here: a signal that cut an import short (numpy's, while the
    # subcommands loaded) left that module unloadable ("cannot load module more than once
    # per process"), and importing the store again ended in that traceback, exit 1. A
    # store not loaded wrote nothing; a note that needs a module not loaded is left out.
    store = sys.modules.get(f"{__name__.rpartition('.')[0]}.harness.store")
    unrecorded = getattr(store, "UNRECORDED_NOTE", None)
    try:
        done = note_when_interrupted() if note_when_interrupted is not None else None
        note = unrecorded if unrecorded is not None and unrecorded in getattr(e, "__notes__", ()) \
            else done if done is not None else interrupted_note(sys.argv[1:])
    except ImportError:  # serve's note, its module's import cut short by the signal
        note = None
    try:
        typer.echo(f"\n{what}" + (f" ({note})" if note else ""), err=True)
    except OSError:  # the terminal that hung up takes no more output; the exit code says it
        pass
    # A Ctrl-C that left an ``exec`` of a string (numba compiles so, typer's imports
    # too) sets CPython's "unhandled KeyboardInterrupt" flag, and `python -m` then
    # ends by SIGINT whatever the exit code; an ``exec`` of nothing clears the flag.
    exec("")
    sys.exit(code)


# A write that fails for want of room or rights: not a bug of ours, one line (with what
# the system's words leave unsaid).
_NO_ROOM = {errno.ENOSPC: "", errno.EFBIG: " (the file-size limit, ulimit -f)", errno.EDQUOT: "",
            errno.EROFS: ""}


class _WholeWrites(io.RawIOBase):
    """Standard output's file, each write made whole or failing. Under
    ``PYTHONUNBUFFERED`` (``python -u``) standard output writes straight to its file, and
    a write the system makes short (a disk filling up, ``ulimit -f``) lost the rest
    unsaid: ``--json > out.json`` ended exit 0 with the file cut. The next write of the
    rest fails with the reason, said in one line as any other."""

    def __init__(self, raw) -> None:
        super().__init__()
        self._raw = raw

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._raw.fileno()

    def isatty(self) -> bool:
        # False once its file is closed: a library that kept this stream (numba's coloured
        # errors start colorama, which asks at the interpreter's end) is told so, not raised at.
        return not self._raw.closed and self._raw.isatty()

    failed = False  # a write of standard output failed (not some other file's)

    def write(self, data) -> int:
        view = memoryview(data).cast("B")
        done = 0
        while done < len(view):
            try:
                n = self._raw.write(view[done:])
            except OSError:
                _WholeWrites.failed = True
                raise
            if n is None:  # a non-blocking pipe that is full: what is written, as the raw file says it
                return done
            done += n
        return done


def _whole_stdout():
    """Standard output made to write whole (:class:`_WholeWrites`) where it writes
    straight to its file; the previous one, to put back, or None."""
    out = sys.stdout
    if type(getattr(out, "buffer", None)) is not io.FileIO:
        return None
    try:
        sys.stdout = io.TextIOWrapper(_WholeWrites(out.buffer), encoding=out.encoding, errors=out.errors,
                                      line_buffering=out.line_buffering, write_through=True)
    except (AttributeError, ValueError, OSError):
        return None
    return out


def _flush_stdout() -> None:
    """What a command left in standard output's buffer written now, so that a disk that
    filled is said in one line (at the interpreter's end it was "Exception ignored")."""
    if sys.stdout is not None:
        sys.stdout.flush()


def _stdout_failed() -> bool:
    """Whether standard output is what could not be written. Its file then gets nothing
    more: what its buffer still holds would fail again at the interpreter's end, and say
    so as "Exception ignored" and exit 120 after our line (the output is cut already, and
    said to be)."""
    failed = _WholeWrites.failed
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        failed = True
    if failed:
        with suppress(OSError, ValueError, AttributeError):
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, sys.stdout.fileno())
            os.close(null)
    return failed


def _say_no_room(e: OSError) -> None:
    """One line for a write refused for want of room or rights (a full disk, a file-size
    limit, a read-only file system): standard output sent to a full disk, most often.
    It says what the command leaves behind, as an interruption does."""
    what = f"cannot write {e.filename}" if e.filename else \
        "cannot write the output (standard output)" if _stdout_failed() else "cannot write the output"
    note = interrupted_note(sys.argv[1:])
    assert e.errno is not None  # one of _NO_ROOM's
    with suppress(OSError):
        typer.echo(f"error: {what}: {e.strerror or e}{_NO_ROOM[e.errno]}" + (f"; {note}" if note else ""), err=True)
    sys.exit(2)


def _unusable_path(e: BaseException | None) -> OSError | None:
    """The error of a path no file can have (:data:`~pokersquares.files.UNUSABLE_PATH`)
    behind ``e``, if any: ``Path.resolve`` says a loop of symbolic links as a
    RuntimeError raised from it."""
    seen = set()
    while e is not None and id(e) not in seen:
        if isinstance(e, OSError) and e.errno in UNUSABLE_PATH:
            return e
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return None


def _say_unusable_path(e: OSError) -> None:
    """One line for a path no file can have, met where no check of the command's paths
    saw it (one a command made, or one inside another option's value): bad input, not a
    bug of ours. It says what the command leaves behind, as an interruption does."""
    shown = repr(shortened(os.fsdecode(e.filename))) if e.filename is not None else "a path"
    note = interrupted_note(sys.argv[1:])
    assert e.errno is not None  # one of UNUSABLE_PATH's
    typer.echo(f"error: cannot use {shown}: {UNUSABLE_PATH[e.errno]}" + (f"; {note}" if note else ""), err=True)
    sys.exit(2)


def _stderr_to_null() -> None:
    """Standard error on the null device, for a command started without one (Python then
    sets ``sys.stderr`` to None, and the progress line asked None whether it was a
    terminal: "internal error", unseen, and no game played). Opened now, it takes the
    lowest free descriptor, 2 itself, so that no file opened later does (what the C
    libraries write there would land in it)."""
    sys.stderr = open(os.open(os.devnull, os.O_WRONLY), "w")


def main(sigint=None) -> None:
    """Run the command line. ``sigint``: the SIGINT handler to restore, the one
    :mod:`pokersquares.entry` found before it took the signal over while this loaded."""
    global _stop_signal_received, _signal_while_loading, note_when_interrupted
    # First of all: a signal while the subcommands (and numba) are imported is said in
    # one line too, not as a traceback (and before this, pokersquares.entry says it).
    _stop_signal_received = _signal_while_loading = note_when_interrupted = None
    unraisable = sys.unraisablehook
    sys.unraisablehook = _interrupts_redelivered(unraisable)
    try:
        for signum in STOP_SIGNALS:  # nohup's SIGHUP stays ignored
            if signum == signal.SIGTERM or signal.getsignal(signum) is not signal.SIG_IGN:
                signal.signal(signum, _on_stop_signal)
        if sys.stderr is None:  # started with standard error closed (cmd 2>&-): its lines go nowhere, as asked
            _stderr_to_null()
        if getattr(signal, "SIGCHLD", None) and signal.getsignal(signal.SIGCHLD) is signal.SIG_IGN:
            # Inherited from what started the command (SIG_IGN survives exec): the kernel would
            # reap the players' processes itself and their exit statuses be lost (a game whose
            # process the kernel killed for memory scored "died (exit code None)" for good).
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        if sigint is not None:
            # Python's own Ctrl-C handler, noted (_on_interrupt); another (a test's, nohup's SIG_IGN) as it is
            signal.signal(signal.SIGINT, _on_interrupt if sigint is signal.default_int_handler else sigint)
        stdout = _whole_stdout()
        try:
            _main()
        except SystemExit as e:
            if not e.code:  # a command that succeeded: its output is whole, or it says why not
                _flush_stdout()
            raise
        finally:
            if stdout is not None:
                with suppress(OSError, ValueError):
                    sys.stdout.flush()
                sys.stdout = stdout
    except PokerSquaresError as e:
        typer.echo(f"error: {cut_long_words(str(e))}", err=True)
        sys.exit(2)
    except KeyboardInterrupt as e:
        _say_interrupted(e)
    except SystemExit as e:
        interrupted = _interruption(e)
        if interrupted is not None:
            _say_interrupted(interrupted)
        raise
    except Exception as e:  # a bug of ours: still one line, with a way to see the traceback
        if isinstance(e, OSError) and e.errno in _NO_ROOM:  # not a bug: a full disk, said as any bad condition
            _say_no_room(e)
        unusable_path = _unusable_path(e)
        if unusable_path is not None:  # not a bug: a path given that no file can have
            _say_unusable_path(unusable_path)
        if os.environ.get("POKERSQUARES_DEBUG"):
            raise
        import sqlite3

        if isinstance(e, sqlite3.DatabaseError):  # a store damaged under a running command (its -wal deleted by hand)
            typer.echo(f"error: a result store could not be read or written: {e}", err=True)
            sys.exit(2)
        if isinstance(e, MemoryError):  # the machine's condition, said as a full disk is (a worker's: local_backend)
            note = interrupted_note(sys.argv[1:])
            typer.echo(f"error: this command ran out of memory{f' ({e})' if str(e) else ''}: free some memory, or "
                       f"ask for less (fewer --workers or --games at once)" + (f"; {note}" if note else ""), err=True)
            sys.exit(2)
        typer.echo(f"internal error: {type(e).__name__}: {cut_long_words(str(e))} (set POKERSQUARES_DEBUG=1 for the "
                   "traceback)", err=True)
        sys.exit(1)
    finally:
        sys.unraisablehook = unraisable
        # The command has ended: a stop signal while the interpreter shuts down (a Java
        # player's JVM stopping its process as it exits) ends it as the signal does, not
        # as an "Exception ignored in threading._shutdown" traceback.
        for signum in STOP_SIGNALS:
            if signal.getsignal(signum) is _on_stop_signal:
                signal.signal(signum, signal.SIG_DFL)


def _main() -> None:
    from .. import progress

    _loaded_unless_stopped(_load_subcommands)
    warnings.showwarning = _one_line_warning
    # The command line's own errors only (Typer 0.29 carries its own copy of click).
    for name in ("click.exceptions", "typer._click.exceptions"):
        try:
            importlib.import_module(name).UsageError.show = _one_line_usage_error
        except ImportError:
            pass
    global _prep_line
    _prep_line = PrepLine()
    check_numbers(sys.argv[1:])
    check_paths(sys.argv[1:])
    command = typer.main.get_command(app)
    _say_values_given_again(command)
    with progress.listening(_prep_line):
        command(prog_name="pokersquares")  # as its usage lines say it, under python -m too
