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
