"""Progress reports: a slow step gets a line, a quick one none."""

import time

from pokersquares import progress
from pokersquares.harness import spec


def _heard():
    heard = []
    return heard, progress.listening(heard.append)


def test_a_step_slower_than_its_threshold_is_reported_once_and_a_quick_one_not():
    heard, listening = _heard()
    with listening:
        with progress.report_if_slow("compiling", after_s=0.05, subject="x"):
            time.sleep(0.3)
        with progress.report_if_slow("loading", after_s=0.5):
            pass
        time.sleep(0.6)  # a cancelled report never arrives later
    assert [(p.stage, p.subject) for p in heard] == [("compiling", "x")]


class _Player:
    def __init__(self, warm_s):
        self.warm_s = warm_s

    def warm_up(self):
        time.sleep(self.warm_s)


def test_building_a_player_says_it_compiles_only_when_its_warm_up_takes_long(monkeypatch):
    """On a cold numba cache a player's warm-up compiles for a minute and the line says
    so; on a warm one it loads in a fraction of a second, and nothing claims it compiled."""
    monkeypatch.setattr(progress, "SLOW_S", 0.05)
    for warm_s, said in ((0.3, True), (0.0, False)):
        monkeypatch.setattr(spec, "make_player", lambda name, warm_s=warm_s: _Player(warm_s))
        heard, listening = _heard()
        with listening:
            spec.build("anything", seed=0)
            time.sleep(0.1)
        assert any("compiling" in p.stage for p in heard) == said


class _QuietWarmUp(_Player):
    """A warm-up that silences its own scratch learning, as the players' warm-ups do."""

    def warm_up(self):
        with progress.listening(None):
            progress.report("learning", 2, force=True)
            time.sleep(self.warm_s)


def test_a_warm_up_that_silences_its_scratch_learning_still_gets_its_compiling_line(monkeypatch):
    monkeypatch.setattr(progress, "SLOW_S", 0.05)
    monkeypatch.setattr(spec, "make_player", lambda name: _QuietWarmUp(0.3))
    heard, listening = _heard()
    with listening:
        spec.build("anything", seed=0)
        time.sleep(0.1)
    assert [p.stage for p in heard] == ["compiling its kernels (once: numba caches them)"]


def test_the_champions_warm_up_reports_no_learning_of_its_own():
    """Its scratch learning (compiling the learning kernels) is nobody's preparation: a
    line "learning, 2 games" before the real preparation misled."""
    from pokersquares.harness.registry import make_player

    heard, listening = _heard()
    with listening:
        make_player("champion").warm_up()
    assert [p for p in heard if p.stage.startswith("learning")] == []


# -- what the progress line says (pokersquares.cli.PrepLine, in a log) ----------------------------

def _log_lines(reports, every_s=10.0):
    import io

    from pokersquares.cli import PrepLine

    stream = io.StringIO()  # not a terminal: the lines a log gets
    line = PrepLine(stream, every_s=every_s)
    for stage, games, left, subject in reports:
        line(progress.Progress(stage, games, left, subject))
    return stream.getvalue().splitlines()


def test_a_budget_that_is_no_deadline_shows_no_seconds_left():
    """Fixed work passes a budget of 1e9 s: "1000000000.0 s left" said nothing true."""
    assert progress.Progress("learning", 5, 1e9).text() == "learning, 5 games"
    assert progress.Progress("learning", 5, float("inf")).text() == "learning, 5 games"
    assert progress.Progress("learning", 5, 0.6).text() == "learning, 5 games, 0.6 s left"


def test_a_log_gets_a_stages_last_count_and_no_line_for_0_games():
    """A short preparation's only line read "learning, 0 games, 0.6 s left": the
    learner's first report, before any game. The log gets the count the stage ended with."""
    reports = [("compiling its kernels", None, None, "og on American"),
               ("learning", 0, 0.6, "og on American"), ("learning", 500, 0.4, "og on American"),
               ("learning", 2_000, 0.0, "og on American"),
               ("checked against the greedy rule", None, None, "og on American"),
               ("done", None, None, "og on American")]
    assert _log_lines(reports) == ["og on American: compiling its kernels",
                                   "og on American: learning, 2,000 games, 0.0 s left",
                                   "og on American: checked against the greedy rule"]
    # a long stage: a line every every_s seconds (here every report), never one for 0 games
    assert _log_lines(reports[1:4] + reports[-1:], every_s=0.0) == [
        "og on American: learning, 500 games, 0.4 s left", "og on American: learning, 2,000 games, 0.0 s left"]


def test_bench_strength_names_whose_learning_and_ends_the_line(monkeypatch):
    """``bench --strength`` learned with a budget of 1e9 s (fixed work) and no subject:
    its line read "learning, 0 games, 1000000000.0 s left"."""
    import io

    from pokersquares import strength
    from pokersquares.cli import PrepLine

    def evaluator(points):
        progress.report("learning", 0, 1e9, force=True)
        progress.report("learning", 7, 1e9 - 1, force=True)
        return object()

    monkeypatch.setattr(strength, "AGENTS", (strength.StrengthAgent("fake", evaluator, lambda: None, 2),))
    monkeypatch.setattr(strength, "play", lambda ev, search, points, seed: 100 + seed)
    stream = io.StringIO()
    with progress.listening(PrepLine(stream)):
        strength.run_strength(["fake"])
    assert stream.getvalue().splitlines() == ["preparing fake: learning, 7 games"]


def test_a_report_the_interval_held_back_is_heard_before_the_next_forced_one_and_at_the_end():
    """A learner's last count was often dropped (within 0.25 s of the one before), so
    the line a stage ended with showed an older count than the games learned."""
    heard, listening = _heard()
    with listening:
        progress.report("learning", 10)
        progress.report("learning", 20)  # within the interval: held back
        progress.report("checked", force=True)
        progress.report("learning", 30)  # within the interval of the forced one: held back, then dropped
        progress.report("learning", 40)  # held back, then heard as the block ends
    assert [(p.stage, p.games) for p in heard] == [("learning", 10), ("learning", 20), ("checked", None),
                                                   ("learning", 40)]


def test_the_line_says_nothing_once_the_command_says_its_last(monkeypatch):
    """A learner still running in another thread wrote "learning, 4,400 games, 3.9 s left"
    after `serve`'s "terminated (...)": the command's line is closed before that is said."""
    import io

    import pytest

    import pokersquares.cli as cli
    from pokersquares.cli import PrepLine

    stream = io.StringIO()
    line = PrepLine(stream, every_s=0.0)
    monkeypatch.setattr(cli, "_prep_line", line)
    line(progress.Progress("learning", 100, 3.0, "og on American"))
    monkeypatch.setattr(cli.sys, "argv", ["pokersquares", "serve"])
    monkeypatch.setattr(cli.signal, "signal", lambda *a: None)  # this test's own handlers stay
    with pytest.raises(SystemExit) as e:
        cli._say_interrupted(cli.Terminated())
    line(progress.Progress("learning", 4400, 3.9, "og on American"))  # from a learner's thread, too late
    assert e.value.code == 143 and line.closed
    assert stream.getvalue().splitlines() == ["og on American: learning, 100 games, 3.0 s left"]


def test_a_warning_starts_at_the_margin_not_after_the_preparations_line(monkeypatch):
    """On a terminal the preparation's line is rewritten in place, without its end: a
    warning said meanwhile (a preparation past its budget) ran on after its text,
    ``...games, 0.1 s leftwarning: 'gettysburg' took ...``. The line is taken off first."""
    import io

    import pokersquares.cli as cli
    from pokersquares.cli import PrepLine

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    stream = Terminal()
    line = PrepLine(stream)
    monkeypatch.setattr(cli, "_prep_line", line)
    monkeypatch.setattr(cli.sys, "stderr", stream)
    line(progress.Progress("learning", 100, 0.1, "gettysburg on American"))
    cli._one_line_warning("'gettysburg' took 8.2 s", UserWarning, "x.py", 1)
    cli._one_line_warning("a second one", UserWarning, "x.py", 2)  # nothing left to take off
    assert stream.getvalue() == ("\r\x1b[Kgettysburg on American: learning, 100 games, 0.1 s left"
                                 "\r\x1b[Kwarning: 'gettysburg' took 8.2 s\nwarning: a second one\n")
    line(progress.Progress("learning", 200, 0.0, "gettysburg on American"))  # the next report: the line again
    assert stream.getvalue().endswith("\r\x1b[Kgettysburg on American: learning, 200 games, 0.0 s left")


def test_a_progress_bar_starts_no_thread_before_the_runner_forks(capsys):
    # tqdm's first bar started its monitor thread, alive from then on: every game process
    # the runner forked after it was forked beside a thread (Python 3.12+ warns "use of
    # fork() may lead to deadlocks in the child"; tqdm's lock, taken by the warning
    # printer, could be copied held).
    import threading

    from pokersquares.cli.harness import _Progress

    bar = _Progress(10, "games", enabled=True)
    try:
        assert bar.bar is not None
        assert [t.name for t in threading.enumerate() if "tqdm" in t.name.lower() or "monitor" in t.name.lower()] == []
    finally:
        bar.bar.close()
