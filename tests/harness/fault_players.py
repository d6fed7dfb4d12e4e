"""Players that misbehave in every way the harness must survive (used by the tests
as ``--player fault_players:Name``)."""

import os
import time

from pokersquares import deal
from pokersquares.harness.player import BasePlayer
from pokersquares.players.baseline import GreedyPlayer

# Players are not told their deal's seed (harness/seeds.py): an odd-seeded game is told
# by its first three cards (distinct for the deals of seeds 0 to 399).
_ODD_DEALS = {tuple(deal(s)[:3]) for s in range(1, 400, 2)}


class _FaultAt(GreedyPlayer):
    """Plays greedily, misbehaving at one move of odd-seeded games only."""

    at_move = 3

    def start_game(self):
        super().start_game()
        self.move = 0
        self.cards = []

    def get_play(self, card, seconds_left):
        self.move += 1
        self.cards.append(int(card))
        if self.move == self.at_move and tuple(self.cards[:3]) in _ODD_DEALS:
            return self.fault(card, seconds_left)
        return super().get_play(card, seconds_left)


class Hang(_FaultAt):
    def fault(self, card, seconds_left):
        while True:
            time.sleep(1)


class HangOrDawdle(Hang):
    """Hangs in odd-seeded games and takes its time (0.6 s in all) in the others: a game
    that lasts several of the harness's polls."""

    def get_play(self, card, seconds_left):
        time.sleep(0.024)
        return super().get_play(card, seconds_left)


class Crash(_FaultAt):
    def fault(self, card, seconds_left):
        os._exit(3)


class Raises(_FaultAt):
    def fault(self, card, seconds_left):
        raise RuntimeError("boom")


class Illegal(_FaultAt):
    def fault(self, card, seconds_left):
        return (0, 0) if self.grid[0] != -1 else (int(self.grid.argmax()) // 5, int(self.grid.argmax()) % 5)


class Malformed(_FaultAt):
    def fault(self, card, seconds_left):
        return "row two"


class Slow(_FaultAt):
    """Answers, but after the game's time is spent: the harness's own clock says timeout."""

    def fault(self, card, seconds_left):
        time.sleep(seconds_left + 0.2)
        return super().get_play(card, seconds_left)


class SlowGames(GreedyPlayer):
    """A legal player that takes a while per game, for kill-and-resume tests."""

    def choose(self, grid, card, seconds_left):
        time.sleep(0.004)
        return super().choose(grid, card, seconds_left)


class BadPrep(BasePlayer):
    def prepare(self, budget_s):
        raise ValueError("cannot learn")

    def choose(self, grid, card, seconds_left):
        return 0


class Prints(GreedyPlayer):
    """Writes to standard output, through Python and straight to file descriptor 1, from
    its constructor (which also runs in the command's own process, to check the spec) and
    from its moves."""

    def __init__(self):
        super().__init__()
        print("chatter from the constructor")

    def get_play(self, card, seconds_left):
        print("chatter from the player")
        os.write(1, b"raw chatter\n")
        return super().get_play(card, seconds_left)


class Leaks(GreedyPlayer):
    """Keeps 40 MB more (touched, so resident) at every move."""

    def start_game(self):
        super().start_game()
        self.hoard = getattr(self, "hoard", [])

    def get_play(self, card, seconds_left):
        self.hoard.append(bytearray(b"x" * (40 * 2 ** 20)))
        return super().get_play(card, seconds_left)


class SpawnsAndHangs(GreedyPlayer):
    """Starts a long child process (its pid appended to $FAULT_PID_FILE), then hangs."""

    def get_play(self, card, seconds_left):
        import subprocess
        child = subprocess.Popen(["sleep", "300"])
        with open(os.environ["FAULT_PID_FILE"], "a") as f:
            f.write(f"{child.pid}\n")
        while True:
            time.sleep(1)


class Unpicklable(GreedyPlayer):
    """Holds a lock after preparation, so it cannot be pickled into the workers."""

    def prepare(self, budget_s):
        import threading
        self.lock = threading.Lock()


class BrokenWhileFlagged(GreedyPlayer):
    """Raises at its first move while $FAULT_BROKEN is set: a bug, later fixed."""

    def get_play(self, card, seconds_left):
        if os.environ.get("FAULT_BROKEN"):
            raise RuntimeError("not fixed yet")
        return super().get_play(card, seconds_left)


class WarmedHere(GreedyPlayer):
    """Greedy, but raises at a game's start unless it was warmed up since it was handed
    over (unpickled): the harness warms the prepared player up in each game process,
    before the first game's clock, as a cold numba cache needs (harness/spec.py,
    ``load_prepared``)."""

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.warmed = False

    def warm_up(self):
        super().warm_up()
        self.warmed = True

    def start_game(self):
        if not self.warmed:
            raise RuntimeError("not warmed up since it was handed over")
        super().start_game()


class SlowWarmUp(GreedyPlayer):
    """Greedy, but its warm-up sleeps ``seconds``: always (``handed=false``), or only once
    it was handed over (unpickled into a game process), as a cold numba cache on a busy
    machine can make a warm-up long."""

    def __init__(self, seconds: float = 0.0, handed: bool = False) -> None:
        super().__init__()
        self.seconds, self.handed, self.unpickled = float(seconds), handed, False

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.unpickled = True

    def warm_up(self):
        super().warm_up()
        if self.unpickled or not self.handed:
            time.sleep(self.seconds)


class _ChoosesOddly(BasePlayer):
    """A BasePlayer whose choose answers ``odd(cell)`` in place of the first empty cell."""

    def choose(self, grid, card, seconds_left):
        return self.odd(int((grid == -1).argmax()))


class ChoosesFloat(_ChoosesOddly):
    def odd(self, cell):
        return cell + 0.9


class ChoosesText(_ChoosesOddly):
    def odd(self, cell):
        return str(cell)


class ChoosesBool(_ChoosesOddly):
    def odd(self, cell):
        return True


class ChoosesNumpy(_ChoosesOddly):
    def odd(self, cell):
        import numpy as np
        return np.int64(cell)


class ReportsNonsense(GreedyPlayer):
    """A legal greedy game whose fallback count is not a count: 2**70, then text."""

    def get_play(self, card, seconds_left):
        self.fallback_moves = 2 ** 70 if int(card) % 2 else "many"
        return super().get_play(card, seconds_left)


class OverPrepares(GreedyPlayer):
    """Learns 0.6 s past its budget, then plays greedily: over, but within the watchdog's grace."""

    def set_point_system(self, point_system, budget_s):
        super().set_point_system(point_system, budget_s)
        time.sleep(budget_s + 0.6)


class SecondGames(GreedyPlayer):
    """A legal player whose games take about 1.5 s each (60 ms a move)."""

    def choose(self, grid, card, seconds_left):
        time.sleep(0.06)
        return super().choose(grid, card, seconds_left)


class DeclaresNonsenseCores(GreedyPlayer):
    cores = "abc"


class HangsWhenBuilt(GreedyPlayer):
    """Its constructor never returns (a network wait, a lock never released)."""

    def __init__(self):
        super().__init__()
        while True:
            try:
                time.sleep(60)
            except Exception:  # a constructor that swallows what it can
                pass


class UnseededRandom:
    """A student's player of the plain protocol: its randomness from the process-wide
    generators, never seeded by itself (``random.random`` in its preparation, then
    ``random.choice`` and ``np.random.randint`` each move)."""

    name = "unseeded"
    cores = 1

    def set_point_system(self, point_system, budget_s):
        import random
        self.bias = random.random()

    def start_game(self):
        self.free = list(range(25))

    def get_play(self, card, seconds_left):
        import random
        import numpy as np
        cell = self.free[int(self.bias * len(self.free))] if self.bias < 0.5 else random.choice(self.free)
        if np.random.randint(2):
            cell = self.free[-1]
        self.free.remove(cell)
        return divmod(cell, 5)


class Unprintable(Exception):
    """An exception whose message cannot be made (a student's ``__str__`` with a bug)."""

    def __str__(self):
        raise RuntimeError("no message")


class PrepRaisesUnprintable(UnseededRandom):
    def set_point_system(self, point_system, budget_s):
        raise Unprintable()


class PrepRaisesLong(UnseededRandom):
    def set_point_system(self, point_system, budget_s):
        raise RuntimeError("y" * 3000 + "\nthe second line")


class WritesIntoItsSystem(BasePlayer):
    """Writes 127 points for every hand into the point system it is handed (past the
    frozen dataclass), and holds a lock: it cannot be pickled, so each worker prepares
    its own copy, with the worker's own objects."""

    name = "writes_into_its_system"

    def prepare(self, budget_s):
        import threading
        self.lock = threading.Lock()
        object.__setattr__(self.point_system, "points", (127,) * 10)

    def choose(self, grid, card, seconds_left):
        return int((grid == -1).argmax())


class Exits(_FaultAt):
    """Gives up the way a script does: ``sys.exit`` with its reason."""

    def fault(self, card, seconds_left):
        import sys
        sys.exit("my player gives up")


class ShowsItsThreads(GreedyPlayer):
    """Declares two cores; its first card goes to the cell numbered by the threads numba
    lets it use (what the harness capped them at)."""

    cores = 2

    def choose(self, grid, card, seconds_left):
        import numba
        if (grid == -1).all():
            return numba.get_num_threads() - 1
        return super().choose(grid, card, seconds_left)


def shows_its_threads():
    """A function making the player (``--player fault_players:shows_its_threads``)."""
    return ShowsItsThreads()


def declares_nonsense_cores():
    return DeclaresNonsenseCores()


class UnpicklableSlowWarmUp(SlowWarmUp):
    """A slow warm-up (a cold numba cache), and no pickling once prepared: each worker
    builds, warms up and prepares its own copy."""

    def prepare(self, budget_s):
        import threading
        self.lock = threading.Lock()
