"""Players for tests/players/test_java_export.py, served by ``stdio-player`` as
``bridge_players:Name`` (this folder on PYTHONPATH)."""

import sys
import time

from pokersquares.players.baseline import GreedyPlayer


class Chatty(GreedyPlayer):
    """Plays greedily and prints to stdout (Python's and the C library's) at every move."""

    def get_play(self, card, seconds_left):
        print(f"thinking about card {card}")
        sys.stdout.flush()
        import os
        os.write(1, b"raw write to fd 1\n")
        return super().get_play(card, seconds_left)


class RaisesAtMove3(GreedyPlayer):
    """Plays greedily, then fails at the third move of every game."""

    def start_game(self):
        super().start_game()
        self.move = 0

    def get_play(self, card, seconds_left):
        self.move += 1
        if self.move == 3:
            raise RuntimeError("no idea\nat all")
        return super().get_play(card, seconds_left)


class LearnsItsWholeBudget(GreedyPlayer):
    """Spends its whole preparation budget asleep, once it has said "learning" on stderr."""

    def prepare(self, budget_s):
        print("learning", file=sys.stderr, flush=True)
        time.sleep(budget_s)
