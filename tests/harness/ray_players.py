"""Players for the Ray backend's fault tests (``--player ray_players:Name``)."""

import os
import signal
from pathlib import Path

from pokersquares.players.baseline import GreedyPlayer


class KillOnce(GreedyPlayer):
    """Greedy, but the first time it starts game ``game_seed`` its process is killed
    (SIGKILL, as the OOM killer or a lost node would); ``marker`` remembers that it did,
    so the retried game plays normally."""

    def __init__(self, marker: str, game_seed: int = 2) -> None:
        super().__init__()
        self.marker = marker
        self.game_seed = game_seed

    def start_game(self):
        super().start_game()
        if self.seed == self.game_seed and not os.path.exists(self.marker):
            Path(self.marker).write_text(str(os.getpid()))
            os.kill(os.getpid(), signal.SIGKILL)
