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
