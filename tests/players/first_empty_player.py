"""The Python twin of tests/players/java/FirstEmptyPlayer.java (imported by module path
in forked worker processes)."""

from pokersquares.harness.player import BasePlayer


class FirstEmpty(BasePlayer):
    name = "first-empty"

    def choose(self, grid, card, seconds_left):
        return int((grid == -1).argmax())
