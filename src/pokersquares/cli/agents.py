"""``train``: learn for a point system and save the table.

``train`` works with any player that learns in ``prepare`` and can save what it
learned: the player itself, or its ``evaluator`` (a composed ``SearchPlayer``),
must have ``save(path)`` (it is also given ``point_system_name=`` if it takes it). The saved file is then loaded
with the player's ``load=FILE`` parameter.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import typer

from .. import cli, progress
from ..cards import check_seed
from ..errors import PokerSquaresError
from ..files import replacing
from ..harness.registry import make_player
from ..harness.spec import check_seconds
from ..points import SPEC_HELP
from . import app, check_output, fail, point_system

JSON_OPT = typer.Option(False, "--json", help="Print machine-readable JSON.")


class _LearningStopped(Exception):
    """Raised in a learning thread at its next progress report once ``train`` is interrupted."""


@contextlib.contextmanager
def _stopping_on_signals(listener):
    """A progress listener for the learning in the block that, once Ctrl-C or SIGTERM
    came, stops whichever thread reports next (each learning thread reports between its
    chunks of games), the signal itself handled as before. The learners that learn in
    several threads (beemo, og) wait for their threads, and the threads learn until the
    budget ends: without it an interrupted ``train`` ran on to its budget's end (five
    minutes by default), its Ctrl-C unanswered."""
    stop = threading.Event()
    previous = {}

    def on_signal(signum, frame):
        stop.set()
        handler = previous[signum]
        if callable(handler):  # the command line's: Ctrl-C, SIGTERM or SIGHUP raised in this thread
            handler(signum, frame)
        elif signum == signal.SIGINT:
            raise KeyboardInterrupt
        else:  # SIG_DFL: the signal's own end
            signal.signal(signum, handler)
            signal.raise_signal(signum)

    def tell(p) -> None:
        if stop.is_set():
            raise _LearningStopped("interrupted")
        listener(p)

    is_main = threading.current_thread() is threading.main_thread()  # signals are the main thread's
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP) if is_main else ():
        handler = signal.getsignal(signum)
        if handler not in (signal.SIG_IGN, None):  # an ignored signal (nohup) stays ignored
            previous[signum] = handler
            signal.signal(signum, on_signal)
    try:
        yield tell
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _learner(player):
    """What ``train`` saves: the player, or its evaluator, with a ``save`` that writes
    something (an evaluator that learns nothing keeps ``Evaluator.save``, which only
    raises: it is said before the player compiles its kernels and prepares, not after)."""
    from ..evaluators.base import Evaluator
    for obj in (player, getattr(player, "evaluator", None)):
        if obj is None or not callable(getattr(obj, "save", None)):
            continue
        if isinstance(obj, Evaluator) and getattr(type(obj), "save", None) is Evaluator.save:
            continue
        return obj
    return None


def _saved_suffix(learner) -> str | None:
    """The suffix of the file ``learner.save`` writes: ``.npz`` for a NARL table or a TD
    evaluator (a NumPy archive, whatever the name), ``.json`` for the pattern utilities;
    None for a learner of the user's, whose format ``train`` does not know."""
    from ..evaluators.narl import NarlEvaluator
    from ..evaluators.patterns import PatternEvaluator
    from ..evaluators.td import TdEvaluator
    if isinstance(learner, (NarlEvaluator, TdEvaluator)):
        return ".npz"
    return ".json" if isinstance(learner, PatternEvaluator) else None


def _prior_for(player, points) -> object | None:
    """The prior ``player`` plays for ``points`` instead of learning (``pretrained``'s
    shipped or given TD evaluators), or None: known before any learning, so that the
    file's kind (a TD evaluator's ``.npz``) is checked before, not after."""
    priors = getattr(player, "priors", None)
    return priors.get(tuple(int(x) for x in points)) if isinstance(priors, dict) else None


def _learns_nothing_in(learner, prep_time: float) -> bool:
    """Whether ``learner`` would save an untrained state: it learns for as long as its
    budget allows (no fixed number of games), the budget is 0 and it loaded no saved state."""
    loaded = getattr(learner, "loaded_points", None)
    return (prep_time == 0 and getattr(learner, "learns_within_budget", False) is True
            and (not callable(loaded) or loaded() is None))


def _identity(path: Path) -> tuple[int, int, int] | None:
    """Which file is at ``path`` (device, inode, modification time), None if none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_mtime_ns


def _save(learner, path: Path, point_system_name: str) -> None:
    """``learner.save`` to a temporary file beside ``path`` that then replaces it
    (:func:`~pokersquares.files.replacing`), passing the point system's name where it is
    accepted: a user's ``save`` that fails half-way, or writes nothing where it is told,
    leaves the file that was at ``path`` as it was."""
    try:
        accepts_name = "point_system_name" in inspect.signature(learner.save).parameters
    except (TypeError, ValueError):
        accepts_name = False
    with replacing(path) as tmp:
        if accepts_name:
            learner.save(tmp, point_system_name=point_system_name)
        else:
            learner.save(tmp)
        if tmp.stat().st_size == 0:
            raise PokerSquaresError(f"the learner's save() wrote nothing at the path it was given; "
                                    f"{str(path)!r} is unchanged")


@app.command("train")
def train_cmd(
    player: str = typer.Option("champion", "--player", "-p", help="A learning player, e.g. champion, beemo or og (NAME:key=value,... accepted)."),
    system: str = typer.Option(..., "--system", "-s", help=SPEC_HELP),
    prep_time: float = typer.Option(300.0, "--prep-time", help="Learning seconds (contest: 300)."),
    out: Path = typer.Option(..., "--out", "-o", help="Where to write the learned table."),
    seed: int = typer.Option(0, "--seed", help="Seed of the learning's randomness."),
    json_out: bool = JSON_OPT,
) -> None:
    """Learn for a point system within the preprocessing budget and save the result
    (use it with e.g. --player beemo:load=FILE)."""
    ps = point_system(system)
    check_seconds(prep_time, "--prep-time", zero_ok=True)
    check_seed(seed, "--seed")
    p = make_player(player)
    if callable(getattr(p, "evaluator_for", None)):
        # The evaluator this budget's preparation learns (champion: BeeMo's patterns below
        # 8 s), so that the file's kind is known before any learning.
        p.evaluator = p.evaluator_for(prep_time)
    if _learner(p) is None:
        raise fail(f"player {player!r} has nothing to save (neither it nor its evaluator "
                   "has a save() method that writes what it learns)")
    prior = _prior_for(p, ps.points)
    # A player with a prior for these points saves that prior (a TD evaluator), whatever
    # the evaluator its budget would learn: `pretrained` at 0 s wrote an .npz archive
    # under the name of the .json file checked for.
    suffix = ".npz" if prior is not None else _saved_suffix(_learner(p))
    if prior is None and _learns_nothing_in(_learner(p), prep_time):
        raise fail(f"--prep-time 0: {player!r} learns for as long as its budget allows, so in 0 s it learns "
                   "nothing and the file would hold an untrained table; give --prep-time (contest: 300)")
    check_output(out, "--out", example=f"learned{suffix or '.json'}")
    if suffix is not None and out.suffix.lower() != suffix:
        raise fail(f"--out {str(out)!r}: player {player!r} saves a {suffix} file; give a name ending in {suffix}, "
                   f"e.g. {str(out.parent / (out.stem + suffix))!r}")
    subject = f"training {player} on {ps.name}"
    # Once the learned table replaced --out, an interruption says so, not "nothing was
    # saved: ... is as it was" (a signal between the file's move and the command's end;
    # read from the file itself, as the move and a flag set after it are not one step).
    before = _identity(out)
    cli.note_when_interrupted = lambda: (f"the learned table was saved: {out}"
                                         if _identity(out) not in (before, None) else None)
    if hasattr(p, "warm_up"):
        with progress.report_if_slow("compiling its kernels (once: numba caches them)", subject=subject), \
                contextlib.redirect_stdout(sys.stderr):
            p.warm_up()  # compiling kernels is not learning time, as in the harness
    if hasattr(p, "set_seed"):
        # Any Java long, as `run --seed` takes: the learners seed numpy and int64 kernels,
        # which take a non-negative one (63 bits, as the evaluators mask seeds themselves).
        p.set_seed(seed & (2**63 - 1))
    t = time.perf_counter()
    # The player's prints (a module:Class learner's) go to stderr: they never reach --json.
    with _stopping_on_signals(progress.with_subject(subject)) as listener, progress.listening(listener), \
            contextlib.redirect_stdout(sys.stderr):
        p.set_point_system(ps, prep_time)
    progress.report("done", subject=subject, force=True)
    seconds = time.perf_counter() - t
    learner = _learner(p)
    if suffix is not None and _saved_suffix(learner) not in (None, suffix):
        raise fail(f"player {player!r} ended with a {_saved_suffix(learner)} file to save, not the {suffix} "
                   f"file checked for; nothing was saved: {str(out)!r} is as it was")
    try:
        with contextlib.redirect_stdout(sys.stderr):
            _save(learner, out, ps.name)
    except NotImplementedError:
        raise fail(f"player {player!r} has nothing to save") from None
    except OSError as e:
        raise fail(f"cannot write {str(out)!r}: {e.strerror}") from None
    except PokerSquaresError:
        raise
    except Exception as e:  # a user's save: one line, and the file at --out as it was
        raise fail(f"player {player!r} could not save what it learned: {type(e).__name__}: {e}") from None
    report: Any = getattr(learner, "report", None)
    learned = report.to_json() if hasattr(report, "to_json") else {}
    if "seconds" in learned:
        learned["learning_seconds"] = learned.pop("seconds")
    summary = {"player": player, "system": ps.name, "points": list(ps.points), "out": str(out),
               "seconds": round(seconds, 3), **learned}
    for key in ("patterns_seen", "shapes_seen"):
        if hasattr(learner, key):
            summary[key] = getattr(learner, key)
    guard: Any = getattr(p, "guard", None)
    if hasattr(guard, "to_json"):
        summary["checked_against_greedy"] = guard.to_json()
        if guard.plays_greedy_rule and guard.no_time:
            typer.echo(f"warning: {prep_time:g} s is too little to learn and check against the greedy rule, so this "
                       f"preparation would play the rule, but load={out} plays the table saved; give a longer "
                       "--prep-time", err=True)
        elif guard.plays_greedy_rule:
            # The player trained here plays the greedy rule; one that loads the file plays
            # the table (a loaded state is not checked again), weaker than the rule.
            typer.echo(f"warning: the table saved in {str(out)!r} scored below the greedy rule in the check "
                       f"(learned {guard.learned_mean:.1f}, greedy {guard.greedy_mean:.1f} over {guard.games:,} games "
                       f"a side), so this preparation would play the rule, but load={out} plays the table; "
                       "give a longer --prep-time", err=True)
    if json_out:
        typer.echo(json.dumps(summary))
    else:
        typer.echo(" ".join(f"{k}={v}" for k, v in summary.items()))
