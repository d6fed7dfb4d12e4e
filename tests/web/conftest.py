"""A small result store for the web tests: a tournament of random and greedy on two
systems and one run outside it, the games played here by the players themselves."""

from __future__ import annotations

import contextlib
import socket
import threading
import time

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


LONG_SEED = 2**62 + 5  # past 2**53, where JavaScript's numbers lose digits


@pytest.fixture(scope="session")
def long_seed_store(tmp_path_factory):
    """A tournament and a run dealt from seeds a JavaScript number cannot hold exactly."""
    path = tmp_path_factory.mktemp("long-seeds") / "results.sqlite"
    with ResultStore(path) as store:
        tid = store.open_tournament(["greedy"], [AMERICAN], 2, LONG_SEED, 1.0, 0.0)
        run = store.open_run("greedy", "greedy", AMERICAN, LONG_SEED, 2, 1.0, 0.0, tid)
        store.add_games(run, play_records("greedy", AMERICAN, LONG_SEED, 2))
    return path


@pytest.fixture(scope="session", autouse=True)
def players_imported():
    """Import the players once, before any app: an app imports them in the background
    and its page says "loading" meanwhile, which a test on a cold numba cache would
    otherwise meet first."""
    from pokersquares.harness.registry import list_players

    list_players()


QUICK_OPTIMUM_S = 0.1


@pytest.fixture
def quick_optimum():
    """Deals' optima solved by the web app within ``QUICK_OPTIMUM_S`` seconds instead of
    its 20, for a test that finishes games and never reads their optima: the page asks for
    the optimum of every game it finishes, and such a solve took a core for up to 20 s,
    which the server's stop then waited for. The local search still runs to its end (about
    a second), so the page still gets an answer, mostly unproven. The limit is read as a
    solve starts, so one started during the test keeps it."""
    from pokersquares.web import api_optimum

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(api_optimum, "OPTIMUM_TIME_S", QUICK_OPTIMUM_S)
        yield


@contextlib.contextmanager
def in_a_thread(app, *, send_buffer: int | None = None, start_s: float = 20, **config):
    """``app`` served by uvicorn in a thread on a loopback socket held from the start (no
    other process can take its port between), with ``config`` for ``uvicorn.Config``;
    yields (the port, the uvicorn server) once it serves, within ``start_s`` seconds.
    ``send_buffer``: the bytes the kernel holds of each connection's answers (its
    SO_SNDBUF, which accepted connections take from the listening socket). The socket is
    closed when the server stops, or fails to start."""
    import uvicorn

    with socket.socket() as sock:
        if send_buffer is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer)
        sock.bind(("127.0.0.1", 0))
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", log_config=None, **config))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        try:
            deadline = time.monotonic() + start_s
            while not server.started:
                assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
                time.sleep(0.02)
            yield sock.getsockname()[1], server
        finally:
            server.should_exit = True
            thread.join(10)


@contextlib.contextmanager
def serving(app):
    """``app`` served by uvicorn on a free loopback port in a thread; yields its URL."""
    try:
        with in_a_thread(app) as (port, _):
            yield f"http://127.0.0.1:{port}/"
    finally:
        # The agents' preparations and thinking under way end before the tests go on: a
        # test process that ended while one ran in a numba kernel aborted (exit 134), as
        # one that ended while a deal's optimum was solved did.
        pool = getattr(app.state, "agents", None)
        if pool is not None and pool.closed:
            pool.join(30)
        optimum = getattr(app.state, "optimum", None)
        if optimum is not None:
            optimum.join(30)
