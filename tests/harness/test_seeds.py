"""Players get seeds for their own randomness from which the deal cannot be recovered,
reproducible from the run's key that the store keeps."""

import numpy as np

from pokersquares import AMERICAN, deal
from pokersquares.harness import BasePlayer
from pokersquares.harness.game_play import play_game
from pokersquares.harness.runner import RunSpec, record_run, run_games
from pokersquares.harness.seeds import player_seed
from pokersquares.harness.store import ResultStore


class Cheater(BasePlayer):
    """Takes its seed for the deal's and reads the cards to come from ``deal(seed)``.
    Shows whether that worked by its second move: cell 1 when its first two cards were
    the ones foreseen (1 chance in 2,652 by luck), cell 24 when they were not."""

    name = "cheater"

    def start_game(self):
        super().start_game()
        self.foreseen, self.seen = deal(self.seed)[:2], []

    def choose(self, grid, card, seconds_left):
        self.seen.append(int(card))
        if len(self.seen) == 2:
            return 1 if self.seen == self.foreseen else 24
        return int(np.flatnonzero(grid == -1)[0])


def test_a_player_handed_the_deal_seed_would_see_its_deal():
    rec = play_game(Cheater(), AMERICAN, 7, 30.0, player_seed=7)  # what play_game did before
    assert rec.placements[1][1:] == (0, 1)


def test_a_player_cannot_recover_its_deal_from_its_seed(tmp_path):
    with ResultStore(tmp_path / "r.sqlite") as store:
        _, recs = record_run(RunSpec("test_seeds:Cheater", AMERICAN, 4, 7, 30.0, 0.0), store, workers=2)
    assert [r.placements[1][1:] for r in recs] == [(4, 4)] * 4 and all(r.penalty is None for r in recs)
    assert play_game(Cheater(), AMERICAN, 7, 30.0).placements[1][1:] == (4, 4)


def test_player_seeds_come_from_the_runs_stored_key(tmp_path):
    with ResultStore(tmp_path / "r.sqlite") as store:
        spec = RunSpec("random", AMERICAN, 6, 3, 30.0, 0.0)
        run_id, recs = record_run(spec, store)
        secret = store.run_secret(run_id)
    with ResultStore(tmp_path / "r.sqlite") as store:
        assert store.run_secret(run_id) == secret  # kept in the run's row
    replay = run_games(RunSpec("random", AMERICAN, 6, 3, 30.0, 0.0, secret=secret), range(6), workers=3)
    assert [r.placements for r in replay] == [r.placements for r in recs]
    other = run_games(RunSpec("random", AMERICAN, 6, 3, 30.0, 0.0, secret="another key"), range(6))
    assert [r.placements for r in other] != [r.placements for r in recs]
    assert len({player_seed(secret, "game", s) for s in range(1000)}) > 990  # 31 bits: almost no collisions
    assert player_seed(secret, "game", 3) != player_seed(secret, "prepare", 3)
