"""``pokersquares demo``: what it asks of the commands it calls."""

import pytest


def test_demo_plays_its_greedy_game_without_forgetting_stored_penalties(tmp_path, monkeypatch):
    # demo calls play_cmd as a function: an option it leaves out would be its typer.Option
    # default, a truthy object, and --retry-penalties would forget the store's penalised game.
    import pokersquares.cli.demo as demo
    import pokersquares.cli.harness as harness

    seen = {}

    class Stop(Exception):
        pass

    def record_run(spec, store, **kwargs):
        seen.update(kwargs)
        raise Stop

    monkeypatch.setattr(demo, "warm_up_players", lambda names, on_ready=None: None)
    monkeypatch.setattr(harness, "record_run", record_run)
    with pytest.raises(Stop):
        demo.demo_cmd(games=1, players="greedy", systems="american", prep_time=1.0, time_per_game=1.0,
                      db=tmp_path / "r.sqlite")
    assert seen["retry_penalties"] is False


DEMO_LIMITS = ("--games", "1", "--prep-time", "0", "--time-per-game", "0.2", "--systems", "american")


def test_demo_counts_one_point_system_as_one(tmp_path, cli):
    code, out, err = cli("demo", "--players", "greedy", *DEMO_LIMITS, "--db", tmp_path / "d.sqlite")
    assert code == 0, err
    assert "== Tournament: greedy; 1 point system (American), 1 game each, 0 s preparation," in out


def test_demo_says_which_games_its_tournament_takes_and_counts_them_done(tmp_path, cli):
    # A second demo with one more player takes the first one's games, as `tournament` does:
    # it said nothing of it, and its bar ended at the games it played (1/2).
    db = tmp_path / "d.sqlite"
    code, out, err = cli("demo", "--players", "greedy", *DEMO_LIMITS, "--db", db)
    assert code == 0, err
    code, out, err = cli("demo", "--players", "greedy,random", *DEMO_LIMITS, "--db", db)
    assert code == 0, err
    lines = err.replace("\r", "\n").splitlines()
    assert [line for line in lines if "taking" in line] == [
        "taking 1 game of tournament 1 (greedy on 1 system): the same deals, limits and code, not played again"]
    assert [line for line in lines if line.startswith("tournament:")][-1].split("|")[2].split()[0] == "2/2"
