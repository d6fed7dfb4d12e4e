"""Players for the Ray backend's fault tests (``--player ray_players:Name``)."""

import os
import signal
from pathlib import Path

from pokersquares import deal
from pokersquares.players.baseline import GreedyPlayer


class KillOnce(GreedyPlayer):
    """Greedy, but the first time it plays game ``game_seed`` (told by its first card,
    as players are not told their deal's seed) its process is killed (SIGKILL, as the
    OOM killer or a lost node would); ``marker`` remembers that it did, so the retried
    game plays normally."""

    def __init__(self, marker: str, game_seed: int = 2) -> None:
        super().__init__()
        self.marker = marker
        self.first_card = deal(game_seed)[0]

    def start_game(self):
        super().start_game()
        self.moves = 0

    def get_play(self, card, seconds_left):
        self.moves += 1
        if self.moves == 1 and card == self.first_card and not os.path.exists(self.marker):
            Path(self.marker).write_text(str(os.getpid()))
            os.kill(os.getpid(), signal.SIGKILL)
        return super().get_play(card, seconds_left)
