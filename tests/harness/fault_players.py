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
