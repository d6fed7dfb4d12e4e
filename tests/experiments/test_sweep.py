import itertools
import json
import math
import random
import statistics
import subprocess
import sys

import pytest

from pokersquares import AMERICAN
from pokersquares.experiments.sweep import (ParamRange, SweepError, parse_param, plot_sweep, run_sweep,
                                            setting_spec, settings)
from pokersquares.harness.runner import RunSpec, run_games
from pokersquares.harness.store import ResultStore


def test_parse_param_values_ranges_and_errors():
    assert parse_param("flush_weight=0,0.25,1") == ("flush_weight", [0, 0.25, 1])
    assert parse_param("alpha=0..1/5") == ("alpha", [0.0, 0.25, 0.5, 0.75, 1.0])
    assert parse_param("playouts=10..200") == ("playouts", ParamRange(10, 200, True))
    assert parse_param("cp=0.5..20")[1] == ParamRange(0.5, 20, False)
    for bad in ("alpha", "alpha=", "=1", "a=1..0", "a=x..2", "a=0..1/0", "a=1,1", "a=b:c"):
        with pytest.raises(SweepError):
            parse_param(bad)


def test_one_value_written_twice_is_refused_and_distinct_values_kept():
    # 1.0 and 1 play the same games: they were two runs, while 1 and 01 were refused.
    for bad in ("flush_weight=1.0,1", "a=1,01", "a=0.5,5e-1", "a=x,x", "a=true,TRUE"):
        with pytest.raises(SweepError, match="twice"):
            parse_param(bad)
    assert parse_param("a=true,1")[1] == [True, 1]  # a switch and a number are not one value
    assert parse_param("a=2**60,1152921504606846977".replace("2**60", str(2**60)))[1] == [2**60, 2**60 + 1]


def test_a_range_too_wide_to_split_is_refused():
    with pytest.raises(SweepError, match="too wide"):
        parse_param("flush_weight=-1e308..1e308/3")  # the values were NaN


def test_grid_and_samples():
    grid = settings({"a": [1, 2], "b": ["x", "y", "z"]})
    assert len(grid) == 6 and grid[0] == {"a": 1, "b": "x"} and grid[-1] == {"a": 2, "b": "z"}
    picked = settings({"a": [1, 2], "b": ["x", "y", "z"]}, sample=4, seed=3)
    assert len(picked) == 4 and all(p in grid for p in picked) and len({repr(p) for p in picked}) == 4
    assert picked == settings({"a": [1, 2], "b": ["x", "y", "z"]}, sample=4, seed=3)
    drawn = settings({"alpha": ParamRange(0.0, 1.0, False), "n": ParamRange(1, 3, True)}, sample=5, seed=1)
    assert all(0 <= d["alpha"] <= 1 and d["n"] in (1, 2, 3) for d in drawn)
    with pytest.raises(SweepError):
        settings({"alpha": ParamRange(0.0, 1.0, False)})  # a range needs --sample or a count
    with pytest.raises(SweepError):
        settings({})


def test_a_sample_of_a_grid_too_big_to_list_is_drawn_without_listing_it(tmp_path):
    """Each --param was under its limit of 10,000 values, but --sample listed the whole
    grid (10^8 settings): MemoryError, an "internal error". Drawn as indices into the grid
    and decoded, in 1 GB of address space; the same seed draws the same settings."""
    script = tmp_path / "draw.py"
    script.write_text(
        "import json, resource\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
        "from pokersquares.experiments.sweep import settings\n"
        "big = {'a': list(range(10_000)), 'b': [str(v) for v in range(10_000)]}\n"
        "huge = {f'p{i}': list(range(10_000)) for i in range(6)}  # 10^24: past sys.maxsize\n"
        "print(json.dumps([settings(big, sample=3, seed=7), settings(big, sample=3, seed=7),\n"
        "                  settings(huge, sample=4, seed=1), settings(huge, sample=4, seed=1)]))\n")
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    big, again, huge, huge_again = json.loads(r.stdout)
    assert big == again and huge == huge_again and len(huge) == 4 and len({repr(h) for h in huge}) == 4
    # the settings at the indices rng.sample(range(size), k) draws, in the grid's order
    picked = sorted(random.Random(7).sample(range(10_000 ** 2), 3))
    assert big == [{"a": i // 10_000, "b": str(i % 10_000)} for i in picked]


def test_a_sample_of_a_small_grid_is_the_one_drawn_before():
    """Drawing indices without listing the grid keeps the settings a --sample-seed drew."""
    params = {"a": [1, 2, 3], "b": ["x", "y"], "c": [0.5, 1.5]}
    grid = list(itertools.product(*params.values()))
    for seed in range(20):
        for k in (1, 5, 12, 20):
            before = sorted(random.Random(seed).sample(range(len(grid)), min(k, len(grid))))
            assert settings(params, sample=k, seed=seed) == [dict(zip(params, grid[i])) for i in before]


def test_a_param_listing_no_value_is_refused():
    """``--param flush_weight=,`` made an empty grid: an IndexError after the store was made."""
    with pytest.raises(SweepError, match="flush_weight"):
        parse_param("flush_weight=,")


def test_setting_spec_keeps_the_base_parameters():
    assert setting_spec("greedy", {"flush_weight": 0.5}) == "greedy:flush_weight=0.5"
    assert setting_spec("random:seed=3", {"seed": 4}) == "random:seed=4"
    assert setting_spec("tiger:cp=20", {"alpha": 0.1, "rules": False}) == "tiger:cp=20,alpha=0.1,rules=false"


def test_setting_spec_keeps_a_file_name_as_written_and_numbers_as_before():
    # a file named 007 or 1e3 is not the number 7 or 1000.0; a number is written as
    # earlier sweeps wrote it (their runs are found again by their specs)
    assert setting_spec("td:load=007,search=greedy", {"epsilon": 0.1}) == "td:load=007,search=greedy,epsilon=0.1"
    assert setting_spec("champion:load=1e3,playouts=1e3", {}) == "champion:load=1e3,playouts=1000.0"
    assert setting_spec("td:load=1e3", {"load": "x"}) == "td:load=x"


@pytest.mark.usefixtures("player_kernels")
def test_sweep_records_every_game_and_summarises_it(tmp_path):
    store = ResultStore(tmp_path / "s.sqlite")
    grid = settings({"flush_weight": [0, 1]})
    rows = run_sweep("greedy", grid, AMERICAN, 12, 5, store, prep_time=1)
    assert [r["params"] for r in rows] == grid and all(r["games"] == 12 for r in rows)
    for row in rows:
        scores = [g.score for g in store.games(row["run_id"])]
        assert len(scores) == 12 and row["mean"] == pytest.approx(statistics.fmean(scores))
        assert row["stderr"] == pytest.approx(statistics.stdev(scores) / math.sqrt(12))
        direct = run_games(RunSpec(row["player"], AMERICAN, 12, 5, 30.0, 1.0), range(12), workers=1)
        assert [g.score for g in direct] == scores
    again = run_sweep("greedy", grid, AMERICAN, 12, 5, store, prep_time=1)  # resumes: nothing replayed
    assert [r["run_id"] for r in again] == [r["run_id"] for r in rows]
    plot_sweep(rows, str(tmp_path / "one.png"), "greedy")
    assert (tmp_path / "one.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def sweep_cli(cli_here):
    """``pokersquares sweep ARGS`` in this process (``cli_here``): the players swept here
    (greedy, random, tiger) run no parallel kernel."""
    def run(*args):
        return cli_here("sweep", *args)
    return run


def test_sweep_cli_json_and_plot(tmp_path, sweep_cli):
    png = tmp_path / "sweep.png"
    r = sweep_cli("--player", "greedy", "--param", "flush_weight=0,0.5", "--param", "x=1", "--games", "3",
                  "--db", str(tmp_path / "c.sqlite"), "--json")
    assert r.returncode == 2 and "takes no parameter 'x'" in r.stderr and not r.stdout
    r = sweep_cli("--player", "random", "--param", "seed=1..9", "--sample", "3", "--games", "4",
                  "--db", str(tmp_path / "c.sqlite"), "--plot", str(png), "--json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert len(rows) == 3 and all(set(row) >= {"params", "games", "mean", "stderr"} for row in rows)
    assert all(1 <= row["params"]["seed"] <= 9 and row["games"] == 4 for row in rows)
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_a_sweep_with_its_params_in_another_order_resumes_its_runs(tmp_path, sweep_cli):
    """The store knows a run by its spec's text: ``--param cp=.. --param delta=..`` given
    the other way round (or a fixed parameter moved into --player) was a new run of every
    setting, every game held played again; it resumes the runs held."""
    db = tmp_path / "o.sqlite"

    def sweep(*args, secret="k", code=0):
        r = sweep_cli(*args, "--games", "2", "--seed", "3", "--time-per-game", "5", "--prep-time", "0",
                      "--secret", secret, "--workers", "1", "--db", str(db), "--json")
        assert r.returncode == code, r.stderr
        return r if code else {json.dumps(row["params"], sort_keys=True): row for row in json.loads(r.stdout)}

    first = sweep("--player", "tiger:iterations=40", "--param", "cp=1,5", "--param", "delta=0.1")
    swapped = sweep("--player", "tiger:iterations=40", "--param", "delta=0.1", "--param", "cp=5,1")
    moved = sweep("--player", "tiger:cp=5", "--param", "delta=0.1", "--param", "iterations=40")
    assert {k: (r["run_id"], r["mean"], r["player"]) for k, r in swapped.items()} == {
        k: (r["run_id"], r["mean"], r["player"]) for k, r in first.items()}
    (row,) = moved.values()
    assert (row["run_id"], row["mean"]) == (first['{"cp": 5, "delta": 0.1}']["run_id"],
                                            first['{"cp": 5, "delta": 0.1}']["mean"])
    with ResultStore(db) as store:
        assert len(store.runs()) == 2 and sum(r.finished for r in store.runs()) == 4
    # Under another secret the held runs are not these games, written either way: refused
    # before any game, as the same sweep in the first order is (a new run beside them was
    # two runs of one player and setting in the store).
    # A new setting first (cp=9): refused before it is played too.
    for args in (("--param", "delta=0.1", "--param", "cp=9,5,1"), ("--param", "cp=1,5", "--param", "delta=0.1")):
        other = sweep("--player", "tiger:iterations=40", *args, secret="other", code=2)
        assert "played under another secret" in other.stderr and len(other.stderr.strip().splitlines()) == 1
    with ResultStore(db) as store:
        assert len(store.runs()) == 2


def test_a_sample_draws_the_same_settings_whatever_order_its_params_come_in():
    """``--param a=.. --param b=..`` and ``--param b=.. --param a=..`` drew other settings
    from one seed (the draw followed the options' order): drawn in the order of the
    parameters' names now, each setting's parameters in the order given."""
    listed = {"delta": [0.1, 0.2, 0.3], "cp": [1, 5, 10], "rules": [True, False]}
    ranged = {"delta": [0.1, 0.2, 0.3], "cp": ParamRange(1.0, 50.0, False), "alpha": ParamRange(1, 9, True)}
    for params in (listed, ranged):
        for seed in range(5):
            by_name = settings(dict(sorted(params.items())), sample=4, seed=seed)
            for order in itertools.permutations(params):
                drawn = settings({n: params[n] for n in order}, sample=4, seed=seed)
                assert drawn == by_name and all(list(s) == list(order) for s in drawn)


def _sample_sweep(sweep_cli, db, *params):
    """``sweep --sample 3 --sample-seed 4`` of tiger at fixed work over ``params``: its output and its rows by setting."""
    r = sweep_cli("--player", "tiger:iterations=10", *params, "--sample", "3", "--sample-seed", "4",
                  "--games", "1", "--time-per-game", "5", "--prep-time", "0", "--secret", "k", "--workers", "1",
                  "--db", str(db), "--json")
    assert r.returncode == 0, r.stderr
    return r, {json.dumps(row["params"], sort_keys=True): row for row in json.loads(r.stdout)}


def test_a_sample_sweep_plays_the_same_settings_in_a_fresh_store_whatever_the_order(tmp_path, sweep_cli):
    """The same sample sweep with its --param options swapped, in two fresh stores: the
    same settings, in the same order, with the same scores."""
    _, first = _sample_sweep(sweep_cli, tmp_path / "a.sqlite", "--param", "delta=0.1,0.2,0.3", "--param", "cp=1,5,10")
    _, swapped = _sample_sweep(sweep_cli, tmp_path / "b.sqlite", "--param", "cp=1,5,10", "--param", "delta=0.1,0.2,0.3")
    assert list(swapped) == list(first) and len(first) == 3
    assert [r["mean"] for r in swapped.values()] == [r["mean"] for r in first.values()]


def test_a_store_holding_a_sample_drawn_in_the_options_order_keeps_it(tmp_path, sweep_cli):
    """Until the draw went by name, ``--param delta=.. --param cp=..`` with --sample-seed 4
    drew these three settings. A store holding their runs keeps them, games and specs as
    they were; the same command resumes the two the draw by name makes too and plays one
    new setting beside the third."""
    db = tmp_path / "old.sqlite"
    before = [{"delta": 0.1, "cp": 1}, {"delta": 0.2, "cp": 1}, {"delta": 0.2, "cp": 5}]  # the draw until 2026-12-06
    with ResultStore(db) as store:
        held = run_sweep("tiger:iterations=10", before, AMERICAN, 1, 0, store, time_per_game=5, prep_time=0,
                         workers=1, secret="k")
        kept = {run.run_id: (run.player, [g.score for g in store.games(run.run_id)]) for run in store.runs()}
    r, rows = _sample_sweep(sweep_cli, db, "--param", "delta=0.1,0.2,0.3", "--param", "cp=1,5,10")
    assert list(rows) == ['{"cp": 1, "delta": 0.1}', '{"cp": 5, "delta": 0.1}', '{"cp": 5, "delta": 0.2}']
    assert [row["run_id"] for row in rows.values()] == [held[0]["run_id"], max(kept) + 1, held[2]["run_id"]]
    assert not r.stderr
    with ResultStore(db) as store:
        assert {run.run_id: (run.player, [g.score for g in store.games(run.run_id)])
                for run in store.runs() if run.run_id in kept} == kept and len(store.runs()) == 4
    again, rows_again = _sample_sweep(sweep_cli, db, "--param", "cp=1,5,10", "--param", "delta=0.1,0.2,0.3")
    assert not again.stderr and list(rows_again) == list(rows)  # the same settings, resumed
