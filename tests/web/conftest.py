"""A small result store for the web tests: a tournament of random and greedy on two
systems and one run outside it, the games played here by the players themselves."""

from __future__ import annotations

import pytest

from pokersquares import AMERICAN, BRITISH, Game
from pokersquares.harness.registry import make_player
from pokersquares.harness.store import GameRecord, ResultStore


def play_records(player_name: str, system, seed: int, games: int) -> list[GameRecord]:
    records = []
    for i in range(games):
        game, player = Game.from_seed(seed + i, system), make_player(player_name)
        player.set_point_system(system, 0)
        player.set_seed(seed + i)
        player.start_game()
        for card in game:
            game.play(*player.get_play(card, 10.0))
        records.append(GameRecord(i, seed + i, game.score(), list(game.placements), 0.01))
    return records


@pytest.fixture(scope="session")
def result_store(tmp_path_factory):
    path = tmp_path_factory.mktemp("store") / "results.sqlite"
    players, systems, games = ["random", "greedy"], [AMERICAN, BRITISH], 4
    with ResultStore(path) as store:
        tid = store.open_tournament(players, systems, games, 0, 1.0, 0.0)
        for system in systems:
            for name in players:
                run = store.open_run(name, name, system, 0, games, 1.0, 0.0, tid)
                store.add_games(run, play_records(name, system, 0, games))
        run = store.open_run("greedy", "greedy", AMERICAN, 100, 6, 1.0, 0.0)
        store.add_games(run, play_records("greedy", AMERICAN, 100, 6))
    return path


@pytest.fixture(scope="session", autouse=True)
def players_imported():
    """Import the players once, before any app: an app imports them in the background
    and its page says "loading" meanwhile, which a test on a cold numba cache would
    otherwise meet first."""
    from pokersquares.harness.registry import list_players

    list_players()
